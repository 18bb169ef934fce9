"""One decode step of a catalog model: what it must read and compute, per card.

A decode step of ``B`` requests, each holding ``S`` tokens of KV cache, must

- read the weights the step touches, :math:`R_W(B)`
  (:meth:`~infra_calc.modelspec.ModelSpec.decode_weight_bytes`: every shared
  weight once, the ``B`` gathered rows of an untied input table, the experts
  the batch hits: ``k`` per MoE layer, any routing), and every request's
  cache, :math:`B S m_{kv}` (:func:`~infra_calc.capacity.kv_cache_bytes`);
- do the matrix products of every token, :math:`2 B N_{mm}`
  (:attr:`~infra_calc.modelspec.ModelSpec.matmul_params`, the LM head
  included), and attention over the cached tokens,
  :math:`4 B S L H d_h` (``Q K^T`` and ``P V``).

Both are floors: no implementation can read or compute less and produce the
same token.  ``routing="uniform"`` counts instead the experts a batch hits on
average under uniform routing: a model of the read, not a floor.  The step
takes at least :math:`\\max(R/\\beta, F/\\Pi)` (:mod:`infra_calc.bound`).

With tensor parallelism over ``n`` cards each card holds, reads and computes its
share (:mod:`infra_calc.sharding`; :func:`card_weight_bytes` and
:func:`card_matmul_flops` are that split, shared with the prefill), and each
layer adds up the partial results: two all-reduces of the batch's activations,
a **model** (:mod:`infra_calc.comm`), kept as the separate term ``t_comm`` and
added to the floor (``overlap_comm=True``: the larger of the two, optimistic,
above all at batch 1, where nothing is left to overlap with).
"""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ._validate import unwrap
from .bound import Bounds, bounds, tokens_per_s
from .capacity import CapacityCheck, HoldsMemory, kv_cache_bytes
from .comm import layer_comm
from .step import read_time
from .workload import ModelOnCard, Workload

__all__ = ["ModelDecodeStep", "model_decode_step", "WEIGHT_READS", "REGIONS"]

#: What a step is taken to read: the bytes it touches (default), J07's
#: ``N_active b_W`` (the whole input table, ``k`` experts whatever the batch), or every weight.
WEIGHT_READS = ("touched", "active", "total")

#: names of the three regions of the (batch, context) plane, in plotting order
REGIONS = ("weight-read", "kv-read", "compute")


def weight_read_params(spec, batch, weight_read, *, routing="floor"):
    """Parameters a step of ``batch`` tokens reads under ``weight_read``, as a count (``R_W / b_W``).

    ``weight_read`` is one of :data:`WEIGHT_READS`, else a ``ValueError`` naming it and them.

    ``routing`` (:data:`~infra_calc.ledger.ROUTINGS`) counts the experts of
    ``"touched"``; ``"active"`` is ``k`` experts whatever it says.
    """
    if weight_read == "touched":
        return np.asarray(spec.decode_weight_bytes(1, batch, routing=routing), dtype=float)
    if weight_read == "active":
        return np.asarray(float(spec.active_params))
    if weight_read == "total":
        return np.asarray(float(spec.params))
    raise ValueError(f"weight_read must be one of {WEIGHT_READS}, got {weight_read!r}")


def card_weight_bytes(w: Workload, tokens, *, weight_read="touched"):
    """Weight bytes each card reads in a pass of ``tokens`` tokens (``B`` at decode, ``B P`` at
    prefill): :meth:`CardShare.of <infra_calc.sharding.CardShare.of>` of
    :func:`weight_read_params`, times ``b_W``."""
    read = weight_read_params(w.model, tokens, weight_read, routing=w.routing)
    return np.asarray(w.share.of(w.model, read)) * w.bytes_per_param


def card_matmul_flops(w: Workload, tokens, params):
    """FLOPs each card does to run ``tokens`` tokens through ``params`` matrix weights,
    ``2 T`` times :meth:`CardShare.of_matmul <infra_calc.sharding.CardShare.of_matmul>`
    (``params`` holds every K/V projection, so a replicated one is computed on each card)."""
    return 2.0 * np.asarray(tokens, dtype=float) * np.asarray(w.share.of_matmul(w.model, params))


def routed_expert_bytes(w: Workload, b):
    """Routed-expert bytes per card a step of ``b`` tokens reads (real ``b``; ``inf``: every expert):
    :meth:`~infra_calc.ledger.ParameterLedger.routed_params_read` under ``w.routing``, times
    ``b_W / n``; 0 for a dense model."""
    if not w.model.is_moe:
        return 0.0 * np.asarray(b, dtype=float)
    return (w.model.routed_params_read(b, routing=w.routing) * w.bytes_per_param
            / np.asarray(w.cards, dtype=float))


@dataclass(frozen=True)
class StepCounts:
    """Per-card bytes and FLOPs of a decode step (:func:`decode_counts`; arrays broadcast)."""

    #: Weight bytes read, ``R_W`` split per card, bytes.
    weight_bytes: np.ndarray
    #: KV-cache bytes the batch reads, ``B S m_kv h_kv/n_kv``, bytes.
    kv_bytes: np.ndarray
    #: FLOPs of the matrix products, ``2 B N_mm`` split per card (replicated K/V projections included).
    flops_linear: np.ndarray
    #: FLOPs of attention over the cache, ``4 B S L (H/n) d_h``.
    flops_attention: np.ndarray

    @property
    def bytes_read(self):
        """Bytes read this step, ``weight_bytes + kv_bytes``."""
        return self.weight_bytes + self.kv_bytes

    @property
    def flops(self):
        """FLOPs this step, ``flops_linear + flops_attention``."""
        return self.flops_linear + self.flops_attention


@dataclass(frozen=True)
class StepCoefficients:
    """Per-card terms of a decode step, linear in the context ``S`` (:func:`decode_coefficients`;
    arrays over the batch).  A step reads ``weight_bytes + kv_bytes_per_token * S`` bytes and does
    ``flops_linear + attention_flops_per_token * S`` FLOPs: :meth:`at` is that step."""

    #: Weights the step touches (:func:`card_weight_bytes`), per card, bytes.
    weight_bytes: np.ndarray
    #: The batch's cache per cached token, ``B m_kv`` per card
    #: (:func:`~infra_calc.capacity.kv_cache_bytes` of one token), bytes/token.
    kv_bytes_per_token: np.ndarray
    #: FLOPs of the matrix products, ``2 B N_mm`` per card.
    flops_linear: np.ndarray
    #: FLOPs of attention per cached token, ``4 B L (H/n) d_h``, FLOPs/token.
    attention_flops_per_token: np.ndarray

    def at(self, context) -> StepCounts:
        """The :class:`StepCounts` of the step at ``context`` tokens of cache (arrays broadcast)."""
        s = np.asarray(context, dtype=float)
        return StepCounts(*np.broadcast_arrays(self.weight_bytes, self.kv_bytes_per_token * s,
                                               self.flops_linear,
                                               self.attention_flops_per_token * s))


def decode_coefficients(w: Workload, *, weight_read="touched") -> StepCoefficients:
    """Per-card terms of a decode step of ``w``, linear in the context ``S``.

    A :class:`StepCoefficients` (arrays over ``w.batch``): the weights touched
    (:func:`card_weight_bytes`), the batch's cache per cached token
    (:func:`~infra_calc.capacity.kv_cache_bytes` of one token), the matrix
    products (:func:`card_matmul_flops`) and attention per cached token: the one
    account of a step, read by :func:`decode_counts`, the levers and the turning points
    (:func:`infra_calc.kv.per_request_terms`).
    """
    spec = w.model
    return StepCoefficients(
        weight_bytes=card_weight_bytes(w, w.batch, weight_read=weight_read),
        kv_bytes_per_token=np.asarray(kv_cache_bytes(1, w.kv_bytes_per_token_per_card,
                                                     batch=w.batch)),
        flops_linear=card_matmul_flops(w, w.batch, spec.matmul_params),
        attention_flops_per_token=np.asarray(spec.attention_flops(tokens=np.asarray(w.batch, dtype=float),
                                                                   context=1))
        / np.asarray(w.cards, dtype=float),
    )


def _region(floor_bound, c: StepCounts):
    """``"compute"`` where the floor is compute-bound, else the larger read (:data:`REGIONS`)."""
    return unwrap(np.where(np.asarray(floor_bound) == "compute", "compute",
                           np.where(c.weight_bytes >= c.kv_bytes, "weight-read", "kv-read")), str)


@dataclass(frozen=True)
class StepParts(Bounds):
    """A decode step's :class:`~infra_calc.bound.Bounds` with its :func:`decode_counts` and
    the all-reduce's message ``M = 2 B d``, bytes (:func:`~infra_calc.comm.layer_comm`)."""

    #: The step's per-card bytes and FLOPs (:func:`decode_counts`).
    counts: StepCounts
    comm_bytes: float | np.ndarray

    @property
    def region(self):
        """``"compute"`` where the floor is compute-bound (a tie is compute), else
        ``"weight-read"`` or ``"kv-read"``, whichever read is larger (:data:`REGIONS`)."""
        return _region(self.floor_bound, self.counts)


def step_parts(w: Workload, *, weight_read="touched", comm="ring", context=None, overlap=True,
               overlap_comm=False) -> StepParts:
    """The :class:`StepParts` of the decode steps of ``w`` at ``context``: Bounds and counts.

    The one account of a decode step's times (:func:`model_decode_step`,
    :func:`~infra_calc.kv.decode_region`,
    :func:`~infra_calc.generation.generation_time`, the estimate, the precision lever and a
    speculative round's draft read it):
    the floor :math:`\\max(T_{read}, T_{compute})` of :func:`decode_counts`
    (their sum with ``overlap=False``) and the all-reduce model's time
    (:func:`~infra_calc.comm.layer_comm`, 0 on one card), added (or the
    larger, ``overlap_comm=True``) as ``t_step``.
    """
    c = decode_counts(w, weight_read=weight_read, context=context)
    msg, tcomm = layer_comm(w.model, w.hw, tokens=w.batch, cards=w.cards, comm=comm)
    t = bounds(c.flops, c.bytes_read, w.hw, t_comm=tcomm, overlap=overlap,
               overlap_comm=overlap_comm, math=w.math)
    return StepParts(**vars(t), counts=c, comm_bytes=msg)


def decode_counts(w: Workload, *, weight_read="touched", context=None) -> StepCounts:
    """Per-card bytes and FLOPs of one decode step of workload ``w`` (arrays broadcast).

    The :class:`StepCounts` of :func:`decode_coefficients` at ``context``
    (default: the workload's): ``weight_bytes``, ``kv_bytes``, ``flops_linear``,
    ``flops_attention`` and their sums ``bytes_read`` and ``flops``.
    """
    return decode_coefficients(w, weight_read=weight_read).at(w.context if context is None else context)


@dataclass(frozen=True)
class ModelDecodeStep(Bounds, HoldsMemory, ModelOnCard):
    """Result of :func:`model_decode_step`, per card (SI units: seconds, bytes, FLOPs).

    Its times and labels are its :class:`~infra_calc.bound.Bounds`
    (``t_step = t_floor + t_comm``; ``t_comm`` is 0 on one card).  Every count is
    what one card reads or does; on one card, the whole model's.  Each number is a
    float for scalar inputs and an array for array inputs.
    """

    #: Tensor-parallel cards ``n``.
    cards: int | np.ndarray
    #: Requests decoded together, ``B``.
    batch: int | np.ndarray
    #: KV-cache tokens per request, ``S``.
    context: int | np.ndarray
    #: KV heads each card holds: ``n_kv / n``, or 1 (replicated) when ``n > n_kv``.
    kv_heads_per_card: float | np.ndarray
    #: What the weight read counts: ``"touched"``, ``"active"`` or ``"total"``.
    weight_read: str
    #: Experts read per MoE layer: ``"floor"`` (``k``, a lower bound) or ``"uniform"`` (a model).
    routing: str
    #: Weight bytes read, ``R_W`` (the card's share).
    weight_bytes: float | np.ndarray
    #: KV-cache bytes the batch reads, ``B S m_kv`` (the card's KV heads).
    kv_bytes: float | np.ndarray
    #: Bytes read this step, ``R = R_W + B S m_kv``.
    bytes_read: float | np.ndarray
    #: FLOPs of the matrix products, ``2 B N_mm`` (replicated K/V projections included).
    flops_linear: float | np.ndarray
    #: FLOPs of attention over the cache, ``4 B S L H d_h`` (the card's query heads).
    flops_attention: float | np.ndarray
    #: FLOPs this step, ``F = flops_linear + flops_attention``.
    flops: float | np.ndarray
    #: Time to read the weights, ``R_W / β``, seconds.
    t_weights: float | np.ndarray
    #: Time to read the KV cache, ``B S m_kv / β``, seconds.
    t_kv: float | np.ndarray
    #: ``"weight-read"``, ``"kv-read"`` or ``"compute"`` (see :data:`REGIONS`).
    region: str | np.ndarray
    #: Message of one all-reduce, ``M = 2 B d`` bytes.
    comm_bytes: float | np.ndarray
    #: The all-reduce model: ``"ring"`` or ``"in-switch"``.
    comm: str
    #: Whether ``t_step`` overlaps communication with the floor (optimistic).
    overlap_comm: bool
    #: Throughput ``B / T_step``, tokens per second.
    tokens_per_s: float | np.ndarray
    #: Weights + KV cache + workspace each card holds, against its capacity
    #: (``memory_per_card`` and ``fits`` read it); nothing is refused when it does not fit.
    memory: CapacityCheck


def model_decode_step(model, hw=None, *, batch=None, context=None, cards=None,
                      bytes_per_param=None, kv_bytes_per_element=None, math=None, routing=None,
                      workspace=None, weight_read="touched", comm="ring",
                      overlap_comm=False) -> ModelDecodeStep:
    """One decode step of a model with its KV cache, on one card or split over ``cards``.

    Per card, with ``n`` cards (:mod:`infra_calc.sharding` for the split; ``n = 1``: the
    whole model):

    - weight bytes :math:`R_W` (``weight_read="touched"``, the default:
      :meth:`ModelSpec.decode_weight_bytes`, what the step must touch, with
      ``k`` experts per MoE layer, or the uniform-routing model's count with
      ``routing="uniform"``;
      ``"active"``: J07's :math:`N_{active} b_W`; ``"total"``: every weight),
      split per card with the K/V projections and norm weights each card keeps whole;
    - KV bytes :math:`R_{KV} = B S m_{kv} h_{kv}/n_{kv}`;
    - FLOPs :math:`F = 2 B N_{mm}/n + 4 B S L H d_h/n`
      (:attr:`ModelSpec.matmul_params`, plus the replicated K/V projections when
      ``n > n_kv``, and attention over the cache);
    - the floor :math:`T_{floor} = \\max(R/\\beta, F/\\Pi)`, a tie compute-bound;
    - communication, a model: two all-reduces per layer of :math:`M = 2 B d` bytes,
      :math:`T_{comm} = 2L\\,T_{AR}(M)` (:func:`infra_calc.comm.allreduce_time`; 0 on one card);
    - :math:`T_{step} = T_{floor} + T_{comm}` (or the larger with ``overlap_comm=True``);
    - ``memory_per_card`` and ``fits``: weights + cache + workspace against
      the card's capacity (:attr:`Workload.memory_per_card`).

    Parameters
    ----------
    model : ModelSpec, str or Workload
        A model (then ``hw`` is required) or a whole :class:`Workload`.
    hw : Accelerator, str or None
        Required with a model; with a Workload, None (its card) or the same card
        (:meth:`Workload.of <infra_calc.workload.Workload.of>`).
        Needs ``link_bandwidth`` (per direction) for ``cards > 1``, and
        ``internode_bandwidth`` past ``link_domain`` cards.
    batch : int or array_like
        Requests, ``B`` (>= 1).
    context : int or array_like
        KV-cache tokens per request, ``S`` (>= 0; longer than the model's
        ``max_position_embeddings`` is refused with ``ValueError``).
    cards : int or array_like, keyword-only
        Tensor-parallel cards ``n`` (>= 1): must divide the query heads, and divide the
        KV heads (``n <= n_kv``) or be a multiple of them (``n > n_kv``).
    bytes_per_param : float, keyword-only
        ``b_W``, bytes/parameter.
    kv_bytes_per_element : float, keyword-only
        Bytes per cached element (2 = BF16; 1 = FP8).
    math : str, keyword-only
        Math precision whose dense peak bounds the math.
    routing : {"floor", "uniform"}, keyword-only
        Experts read per MoE layer (``"floor"``: ``k``, so ``t_step`` is a lower
        bound; ``"uniform"``: the uniform-routing model).
    workspace : float, keyword-only
        Bytes of workspace per card.
    weight_read : {"touched", "active", "total"}, keyword-only
        What the weight read counts (:data:`WEIGHT_READS`; an unknown one: ``ValueError``).
    comm : {"ring", "in-switch"}, keyword-only
        The all-reduce model.
    overlap_comm : bool, keyword-only
        Take the larger of floor and communication instead of their sum.

    Reads and math overlap (the floor is their max); the serial sum is
    :attr:`Estimate.t_step_serial <infra_calc.estimate.Estimate.t_step_serial>` and
    :func:`~infra_calc.step.decode_step`'s ``overlap=False``, the chapter-1 comparison.

    A size or precision left at None takes the :class:`~infra_calc.workload.Workload`'s default (one place:
    :meth:`Workload.default <infra_calc.workload.Workload.default>`).

    Returns
    -------
    ModelDecodeStep
    """
    w = Workload.of(model, hw, batch=batch, context=context, cards=cards,
                    bytes_per_param=bytes_per_param, kv_bytes_per_element=kv_bytes_per_element,
                    math=math, routing=routing, workspace=workspace)
    s = step_parts(w, weight_read=weight_read, comm=comm, overlap_comm=overlap_comm)  # checks comm
    c, msg = s.counts, s.comm_bytes
    zero = 0.0 * np.asarray(s.t_step)

    def each(x):
        return unwrap(np.asarray(x) + zero)

    return ModelDecodeStep(
        **{f.name: getattr(s, f.name) for f in fields(Bounds)},
        model=w.model, hw=w.hw, cards=w.cards, batch=w.batch, context=w.context,
        kv_heads_per_card=w.share.kv_heads, weight_read=weight_read, routing=w.routing,
        weight_bytes=each(c.weight_bytes), kv_bytes=each(c.kv_bytes),
        bytes_read=each(c.bytes_read), flops_linear=each(c.flops_linear),
        flops_attention=each(c.flops_attention), flops=each(c.flops),
        t_weights=read_time(each(c.weight_bytes), w.hw), t_kv=read_time(each(c.kv_bytes), w.hw),
        region=s.region, comm_bytes=each(msg), comm=comm,
        overlap_comm=bool(overlap_comm), tokens_per_s=tokens_per_s(w.batch, s.t_step),
        memory=w.memory_at(like=zero),
    )
