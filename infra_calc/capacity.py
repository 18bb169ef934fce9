"""Will it fit?  The capacity inequality and the largest batch.

Resident weights, every request's KV cache and a workspace must fit in memory:

.. math:: W + B\\,S\\,m_{KV} + M_{work} \\le C

so the largest batch is the inequality solved for ``B`` and rounded down,
:math:`B_{max} = \\lfloor (C - W - M_{work}) / (S\\,m_{KV}) \\rfloor`.

A card's capacity can be read two ways (:data:`infra_calc.hardware.READINGS`): the physical
size (memory is built in binary sizes, so a card sold as "24 GB" holds
24 GiB) or the label read as 10^9 bytes, as the source chapters do
(:func:`~infra_calc.hardware.capacity_reading`, :func:`~infra_calc.hardware.decimal_reading`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from . import source as S
from ._validate import check_number, unwrap
from .hardware import (
    Accelerator,
    capacity_reading,
)

if TYPE_CHECKING:                      # infra_calc.models loads on first use
    from .modelspec import ModelSpec

__all__ = ["CapacityCheck", "HoldsMemory", "capacity_check", "max_batch", "kv_cache_bytes",
           "PlannerState", "planner_state"]


@dataclass(frozen=True)
class CapacityCheck:
    """The one memory record: what a card holds against its capacity; all sizes in bytes.

    Built by :func:`capacity_check` alone (:meth:`Workload.memory
    <infra_calc.workload.Workload.memory>` builds it for a workload); every
    result that states memory embeds one as ``memory`` (:class:`HoldsMemory`).
    Each value is a scalar for scalar inputs and an array for array inputs.
    """

    #: Usable memory ``C``.
    capacity: float | np.ndarray
    #: Resident weights ``W``.
    weights: float | np.ndarray
    #: KV cache of every request.
    kv: float | np.ndarray
    #: Activations, buffers and allocator slack ``M_work``.
    workspace: float | np.ndarray
    #: ``W + KV + M_work``.
    total: float | np.ndarray
    #: ``C - total``; negative when it does not fit.
    headroom: float | np.ndarray
    #: ``total <= C``.
    fits: bool | np.ndarray


class HoldsMemory:
    """A result with a ``memory`` field (a :class:`CapacityCheck`): its total and verdict."""

    memory: CapacityCheck

    @property
    def memory_per_card(self):
        """Weights + KV cache + workspace each card must hold, bytes (``memory.total``)."""
        return self.memory.total

    @property
    def fits(self):
        """``memory_per_card <= memory.capacity`` (``memory.fits``): against the capacity the
        record was checked with (a workload's card's physical one; the planner's reading).
        Nothing is refused when False."""
        return self.memory.fits


def capacity_check(capacity, weights, kv, *, workspace=0.0) -> CapacityCheck:
    """Check :math:`W + KV + M_{work} \\le C`.

    Parameters
    ----------
    capacity : float or array_like
        Usable memory ``C``, bytes.
    weights : float or array_like
        Resident weights ``W``, bytes.
    kv : float or array_like
        KV cache of every request, bytes.
    workspace : float or array_like
        Activations, buffers and allocator slack, bytes.

    Returns
    -------
    CapacityCheck
        ``total = W + KV + M_work``, ``headroom = C - total`` (negative when it
        does not fit) and ``fits = total <= C``.
    """
    c = check_number(capacity, "capacity", "bytes")
    w = check_number(weights, "weights", "bytes", allow_zero=True)
    k = check_number(kv, "kv", "bytes", allow_zero=True)
    ws = check_number(workspace, "workspace", "bytes", allow_zero=True)
    total = w + k + ws
    fits = total <= c
    return CapacityCheck(c, w, k, ws, unwrap(total), unwrap(c - total), unwrap(fits, bool))


def kv_cache_bytes(context, kv_bytes_per_token, *, batch=1):
    """KV-cache size :math:`B\\,S\\,m_{KV}` in bytes, for ``context`` tokens per request."""
    s = check_number(context, "context", "tokens")
    m = check_number(kv_bytes_per_token, "kv_bytes_per_token", "bytes/token")
    b = check_number(batch, "batch", "requests", allow_zero=True)
    return unwrap(b * s * m)


def max_batch(capacity, *, weights, context, kv_bytes_per_token, workspace=0.0):
    """Largest number of requests of ``context`` tokens that fit.

    .. math:: B_{max} = \\max\\left(0, \\left\\lfloor
       \\frac{C - W - M_{work}}{S\\,m_{KV}} \\right\\rfloor\\right)

    The result is exact at the boundary: ``B_max`` requests pass
    :func:`capacity_check` and ``B_max + 1`` do not.  Returns 0 when the
    weights and workspace alone do not fit.

    Parameters
    ----------
    capacity : float or array_like
        Bytes, ``C``.
    weights : float or array_like, keyword-only
        Resident weights, bytes, ``W``.
    context : float or array_like, keyword-only
        Tokens kept per request, ``S``.
    kv_bytes_per_token : float or array_like, keyword-only
        ``m_KV``, bytes per token (see ``ModelSpec.kv_bytes_per_token``).
    workspace : float or array_like, keyword-only
        Bytes, ``M_work`` (default 0, as in :func:`capacity_check`).

    Every size after ``capacity`` is keyword-only, so no two byte counts can
    trade places unnoticed.

    >>> max_batch(24e9, weights=16.38e9, context=8192, kv_bytes_per_token=147456,
    ...           workspace=2 * 1024**3)
    4

    Returns
    -------
    int or numpy.ndarray of int
    """
    c = check_number(capacity, "capacity", "bytes")
    w = check_number(weights, "weights", "bytes", allow_zero=True)
    ws = check_number(workspace, "workspace", "bytes", allow_zero=True)
    s = check_number(context, "context", "tokens")
    m = check_number(kv_bytes_per_token, "kv_bytes_per_token", "bytes/token")
    per = s * m
    base = w + ws
    with np.errstate(over="ignore", invalid="ignore"):
        b = np.floor((c - base) / per)
        b = np.maximum(b, 0.0)
        # correct the rare float rounding at an exact boundary
        b = np.where(base + (b + 1) * per <= c, b + 1, b)
        b = np.where((b > 0) & (base + b * per > c), b - 1, b)
    b = b.astype(np.int64)
    return unwrap(b, int)


# ------------------------------------------------------------------ the capacity planner
@dataclass(frozen=True)
class PlannerState(HoldsMemory):
    """Numbers behind one capacity-planner setting (bytes unless stated).

    ``hw`` and ``model`` are the objects the numbers were computed for (a
    changed copy keeps its figures); ``hw.name`` and ``model.name`` are their
    names.
    """

    #: The accelerator, exactly as given.
    hw: Accelerator
    #: The model, exactly as given.
    model: ModelSpec
    #: Tokens of KV cache per request, ``S``.
    context: int
    #: Concurrent requests, ``B``.
    batch: int
    #: Stored bytes per weight, ``b_W``.
    bytes_per_param: float
    #: Which capacity reading (one of :data:`READINGS`).
    reading: str
    #: KV cache of one request, ``S m_KV``.
    kv_per_request: float
    #: Capacity under that reading (:func:`capacity_reading`), weights, workspace, the
    #: batch's KV cache, their total, the headroom and the verdict.
    memory: CapacityCheck
    #: Largest batch of ``context``-token requests that fits (:func:`max_batch`).
    max_batch: int

    capacity = property(lambda self: self.memory.capacity, doc="Usable memory ``C``.")
    weights = property(lambda self: self.memory.weights, doc="Resident weights ``W``.")
    workspace = property(lambda self: self.memory.workspace, doc="Workspace ``M_work``.")
    kv = property(lambda self: self.memory.kv, doc="KV cache of the whole batch, ``B S m_KV``.")
    total = property(lambda self: self.memory.total, doc="``W + KV + M_work``.")
    headroom = property(lambda self: self.memory.headroom, doc="``C - total``.")


def planner_state(model=None, hw=None, *, context=None, batch=None, workspace=None,
                  bytes_per_param=None, reading=None, kv_bytes_per_element=None) -> PlannerState:
    """Evaluate the capacity inequality for one setting of the planner.

    Inputs left at None take J13's case (:mod:`infra_calc.source`:
    ``J13_BATCH`` requests of ``J13_CONTEXTS[0]`` tokens of ``J13_MODEL`` on
    a ``J13_HW``, weights of ``J13_BYTES_PER_PARAM`` bytes, a ``J13_WORKSPACE``
    workspace, the capacity read as the source reads it, ``J13_READING``);
    sizes are in bytes.  ``model`` and ``hw`` may be names or objects; the
    result keeps the objects.  The memory is the
    :class:`~infra_calc.workload.Workload`'s own record (:meth:`Workload.memory`),
    against the capacity :func:`capacity_reading` of the accelerator under
    ``reading``, the one mechanism for the two readings; :func:`max_batch`
    gives the largest batch.  Nothing is computed here that those do not
    already define.
    """
    from .workload import Workload

    context = S.J13_CONTEXTS[0] if context is None else context
    reading = S.J13_READING if reading is None else reading
    w = Workload(S.J13_MODEL if model is None else model, S.J13_HW if hw is None else hw,
                 bytes_per_param=S.J13_BYTES_PER_PARAM if bytes_per_param is None
                 else bytes_per_param,
                 kv_bytes_per_element=S.J13_BYTES_PER_ELEMENT if kv_bytes_per_element is None
                 else kv_bytes_per_element,
                 batch=S.J13_BATCH if batch is None else batch,
                 workspace=S.J13_WORKSPACE if workspace is None else workspace)
    cap = capacity_reading(w.hw, reading=reading)
    chk = w.memory(context, capacity=cap)            # the context is not refused past the model's
    per = w.with_(batch=1).kv_bytes_per_card(context)
    b_max = max_batch(cap, weights=chk.weights, context=context,
                      kv_bytes_per_token=w.kv_bytes_per_token_per_card, workspace=chk.workspace)
    return PlannerState(w.hw, w.model, int(context), int(w.batch), float(w.bytes_per_param),
                        reading, float(per), chk, int(b_max))
