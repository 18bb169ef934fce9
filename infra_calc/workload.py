"""One workload, resolved and checked once: what every chapter-3 result is computed for.

A :class:`Workload` holds the objects and numbers an estimate needs: the
model (a :class:`~infra_calc.modelspec.ModelSpec`), the accelerator (an
:class:`~infra_calc.hardware.Accelerator`, of every card), the batch, the
context, the tensor-parallel cards, the bytes per weight and per cached
element, the math precision, the routing and the workspace per card.  Names
are looked up and every field is checked when the workload is built; after
that the functions of chapter 3
(:func:`~infra_calc.decode.model_decode_step`, :func:`~infra_calc.prefill.prefill_step`,
:func:`~infra_calc.generation.generation_time`) use the objects as they are, so
a model or card changed with ``dataclasses.replace`` / ``with_`` keeps its own
figures.

Each public chapter-3 function builds its workload once, at its entry
(:meth:`Workload.of`), and checks what only it needs; what it calls inside
takes that workload, not names or sizes again: the per-card account
(:func:`~infra_calc.decode.step_parts`), the turning points
(:func:`~infra_calc.kv.turning_points`, :func:`~infra_calc.kv.turning_batch_of`),
a prefill or a whole request of a checked workload
(:func:`~infra_calc.prefill.prefill_step_of`,
:func:`~infra_calc.generation.generation_time_of`).

Memory is part of every result: :attr:`Workload.memory` is the capacity
chapter's inequality per card (:func:`~infra_calc.capacity.capacity_check` of
resident weights + KV cache + workspace against the card's physical
capacity), and every result of the chapter-3 functions (the decode, prefill,
tensor-parallel and request results, the levers' steps, the prefix and precision
results, the estimate) embeds that record as ``memory``
(:class:`~infra_calc.capacity.HoldsMemory`), whose ``fits`` and ``memory_per_card`` it reads;
:meth:`Workload.max_batch` is the largest batch that fits.
Nothing is refused for not fitting; the result says so.

>>> import infra_calc as ic
>>> w = ic.Workload("llama-70b", "A100 80GB")           # BF16 on one card
>>> w.fits
False
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import KW_ONLY, dataclass

import numpy as np

from ._validate import check_int, check_number, unwrap
from .accelerators import accelerator
from .capacity import CapacityCheck, HoldsMemory, capacity_check, kv_cache_bytes, max_batch
from .hardware import Accelerator
from .ledger import check_routing
from .models import model as find_model
from .modelspec import ModelSpec
from .sharding import CardShare, card_share
from .source import J13_WORKSPACE
from .units import BF16_BYTES

__all__ = ["Workload", "ModelOnCard"]


def _scalar(value, name, unit, **kw):
    out = check_number(value, name, unit, **kw)
    if np.ndim(out) != 0:
        raise TypeError(f"{name} ({unit}) must be a single number, not an array")
    return out


@dataclass(frozen=True)
class Workload(HoldsMemory):
    """A model on an accelerator with its sizes, checked once (SI units).

    Parameters
    ----------
    model : ModelSpec, str or path
        A spec, a catalog name or a ``config.json`` path (resolved here).
    hw : Accelerator or str
        The accelerator of every card (resolved here).
    batch : int or array_like
        Requests served together, ``B`` (>= 1).
    context : int or array_like
        KV-cache tokens per request, ``S`` (>= 0; refused above the model's
        ``max_position_embeddings``).
    cards : int or array_like
        Tensor-parallel cards ``n`` (>= 1; checked by
        :func:`infra_calc.sharding.check_cards`).
    bytes_per_param : float
        Stored bytes per weight ``b_W`` (2 = BF16, 1 = 8-bit, 0.5 = 4-bit).
    kv_bytes_per_element : float
        Bytes per cached K/V element (2 = BF16, 1 = FP8).
    math : str
        Math precision of the matrix multiplies (default ``"bf16"``): its dense
        peak (:meth:`~infra_calc.hardware.Accelerator.peak`) bounds every step's
        math.  A card without that precision is refused, naming its precisions.
    routing : {"floor", "uniform"}
        Experts per MoE layer a step reads: ``"floor"`` (default), the ``k``
        any routing reads, so every time stays a lower bound; ``"uniform"``,
        the expectation under uniform routing, a model
        (:meth:`~infra_calc.modelspec.ModelSpec.experts_hit`).  No effect on a
        dense model.
    workspace : float
        Bytes per card for activations, buffers and allocator slack (default: the
        capacity chapter's 2 GiB, :data:`~infra_calc.source.J13_WORKSPACE`).

    Raises
    ------
    TypeError, ValueError
        A field is missing, of the wrong type or out of range; the message
        names the field and its unit.

    The defaults below are those of every function that builds a workload: it
    takes each size as None and builds its workload with :meth:`of`, which
    leaves a None to the default here (:meth:`default` reads one).
    :func:`infra_calc.estimate` also picks a context and output tokens when none
    is given (:data:`~infra_calc.estimate.DEFAULT_CONTEXT`,
    :data:`~infra_calc.estimate.DEFAULT_OUTPUT_TOKENS`); the counting methods of
    :class:`~infra_calc.modelspec.ModelSpec` and the chapter-1
    :func:`~infra_calc.step.decode_step` take plain numbers with defaults of their own.
    """

    model: ModelSpec
    hw: Accelerator
    _: KW_ONLY
    batch: int | np.ndarray = 1
    context: int | np.ndarray = 0
    cards: int | np.ndarray = 1
    bytes_per_param: float = float(BF16_BYTES)
    kv_bytes_per_element: float = float(BF16_BYTES)
    math: str = "bf16"
    routing: str = "floor"
    workspace: float = J13_WORKSPACE

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "model", find_model(self.model))
        set_(self, "hw", accelerator(self.hw))
        set_(self, "bytes_per_param",
             check_number(self.bytes_per_param, "bytes_per_param", "bytes/parameter"))
        set_(self, "kv_bytes_per_element",
             check_number(self.kv_bytes_per_element, "kv_bytes_per_element", "bytes/element"))
        set_(self, "batch", check_int(self.batch, "batch", "requests", minimum=1))
        set_(self, "context", check_int(self.context, "context", "tokens", minimum=0))
        self.model.check_context(self.context)
        set_(self, "workspace", _scalar(self.workspace, "workspace", "bytes", allow_zero=True))
        share = card_share(self.model, cards=self.cards)
        set_(self, "cards", share.cards)
        set_(self, "_share", share)                   # not a field: read as :attr:`share`
        check_routing(self.routing)
        self.hw.peak(self.math)                      # refuses a precision the card lacks
        set_(self, "math", self.math.strip().lower())

    # -------------------------------------------------------------- building
    @classmethod
    def of(cls, model, hw=None, **fields) -> Workload:
        """Build a workload, or adjust one: ``model`` may already be a :class:`Workload`.

        The one rule for a Workload plus sizes, in every function that takes
        one: a field given (not None) replaces the workload's; a field given as
        None keeps its value (the workload's, or the default).
        """
        given = {k: v for k, v in fields.items() if v is not None}
        if isinstance(model, Workload):
            if hw is not None and accelerator(hw) != model.hw:
                raise ValueError("hw must not be given with a Workload that has another one "
                                 "(use workload.with_(hw=...))")
            return model.with_(**given) if given else model
        if hw is None:
            raise TypeError("hw (an Accelerator or catalog name) is required with a model")
        return cls(model, hw, **given)

    @classmethod
    def default(cls, name: str):
        """The default of field ``name``, what a size given as None takes."""
        return cls.__dataclass_fields__[name].default

    def with_(self, **changes) -> Workload:
        """A copy with some fields changed, checked again."""
        return dataclasses.replace(self, **changes)

    # --------------------------------------------------------- derived sizes
    @property
    def share(self) -> CardShare:
        """One card's share of the model (:func:`infra_calc.sharding.card_share`), computed
        once, when the workload is built (its check of ``cards`` gives the field)."""
        return self._share

    @property
    def kv_bytes_per_token(self):
        """KV-cache bytes per token of the whole model, ``m_kv``."""
        return self.model.kv_bytes_per_token(self.kv_bytes_per_element)

    @property
    def kv_bytes_per_token_per_card(self):
        """KV-cache bytes per token on one card, ``m_kv h_kv / n_kv`` (of :attr:`share`)."""
        return self.share.kv_bytes_per_token(self.model, self.kv_bytes_per_element)

    def resident_weight_bytes(self):
        """Weights each card holds, bytes: ``params b_W`` split by :meth:`CardShare.of`."""
        return unwrap(np.asarray(self.share.of(self.model, self.model.params))
                      * self.bytes_per_param)

    def kv_bytes_per_card(self, context=None, *, batch=None):
        """KV cache each card holds for ``batch`` requests at ``context`` (defaults: the workload's).

        Per card, so not :func:`infra_calc.capacity.kv_cache_bytes` (the whole model's
        :math:`B S m_{KV}`) unless ``cards`` is 1.
        """
        return kv_cache_bytes(self.context if context is None else context,
                              self.kv_bytes_per_token_per_card,
                              batch=self.batch if batch is None else batch)

    def memory_at(self, context=None, *, batch=None, weights=None, kv=None, capacity=None,
                  like=0.0) -> CapacityCheck:
        """One card's memory record at any context or batch, :func:`~infra_calc.capacity.capacity_check` of

        .. math:: M = \\frac{W}{n}\\big|_{\\text{shared}} + B\\,S\\,m_{kv}\\frac{h_{kv}}{n_{kv}}
                  + M_{work} \\le C

        (the split of :class:`~infra_calc.sharding.CardShare`) at ``context``
        tokens per request and ``batch`` requests (default: the workload's; as
        given, not checked against the model), against the card's capacity
        ``hw.mem_capacity`` (its own reading).  ``weights`` and ``kv`` replace the resident weights and the
        cache (a lever that holds more or less); ``capacity`` replaces the
        capacity (another reading of it, :func:`~infra_calc.accelerators.capacity_reading`);
        ``like`` broadcasts every size to its shape.  At the workload's own
        sizes it is :attr:`memory`.
        """
        zero = 0.0 * np.asarray(like, dtype=float)
        w = self.resident_weight_bytes() if weights is None else weights
        k = self.kv_bytes_per_card(context, batch=batch) if kv is None else kv
        c = self.hw.mem_capacity if capacity is None else capacity
        return capacity_check(c, weights=np.asarray(w) + zero, kv=np.asarray(k) + zero,
                              workspace=self.workspace)

    def max_batch(self, context=None, *, capacity=None):
        """Largest batch of ``context``-token requests one card holds (default: the
        workload's context), :func:`~infra_calc.capacity.max_batch` of

        .. math:: B_{max} = \\left\\lfloor \\frac{C - W/n|_{\\text{shared}} - M_{work}}
                  {S\\,m_{kv} h_{kv}/n_{kv}} \\right\\rfloor

        with this card's resident weights, cache per token and workspace: the largest
        batch whose :meth:`memory_at` fits (0 when the weights and workspace alone do not).
        ``capacity`` replaces the card's physical one, as in :meth:`memory_at`.  What the
        estimate and the capacity planner report.
        """
        return max_batch(self.hw.mem_capacity if capacity is None else capacity,
                         weights=self.resident_weight_bytes(),
                         context=self.context if context is None else context,
                         kv_bytes_per_token=self.kv_bytes_per_token_per_card,
                         workspace=self.workspace)

    @functools.cached_property
    def memory(self) -> CapacityCheck:
        """The memory record of one card at the workload's own batch and context
        (:meth:`memory_at` with no arguments); :attr:`fits` and :attr:`memory_per_card`
        (of :class:`~infra_calc.capacity.HoldsMemory`) read it."""
        return self.memory_at()


@dataclass(frozen=True)
class ModelOnCard:
    """What a chapter-3 result was computed for, kept as the objects given.

    Not their names: a model or accelerator changed with
    ``dataclasses.replace`` or :meth:`Accelerator.with_` keeps its own
    figures, where a look-up by name would return the catalog's.
    """

    #: The model, exactly as given.
    model: ModelSpec
    #: The accelerator (of every card, with tensor parallelism), exactly as given.
    hw: Accelerator
