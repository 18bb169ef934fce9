"""One decode step of a catalog model: what it must read and compute, per card.

A decode step of ``B`` requests, each holding ``S`` tokens of KV cache, must

- read the weights the step touches, :math:`R_W(B)`
  (:meth:`~infra_calc.modelspec.ModelSpec.decode_weight_bytes`: every shared
  weight once, the ``B`` gathered rows of an untied input table, the experts
  the batch hits: ``k`` per MoE layer, any routing), and every request's
  cache, :math:`B S m_{kv}`;
- do the matrix products of every token, :math:`2 B N_{mm}`
  (:attr:`~infra_calc.modelspec.ModelSpec.matmul_params`, the LM head
  included), and attention over the cached tokens,
  :math:`4 B S L H d_h` (``Q K^T`` and ``P V``).

Both are floors: no implementation can read or compute less and produce the
same token.  ``routing="uniform"`` counts instead the experts a batch hits on
average under uniform routing: a model of the read, not a floor.  The step
takes at least :math:`\\max(R/\\beta, F/\\Pi)`
(:mod:`infra_calc.bound`).  With tensor parallelism each card does its share
(:mod:`infra_calc.sharding`); :func:`decode_counts` is that per-card account,
shared with :func:`infra_calc.parallel.tensor_parallel_step`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import check_one_card, unwrap
from .bound import Bounds, bounds, tokens_per_s
from .capacity import CapacityCheck, HoldsMemory
from .comm import layer_comm
from .step import read_time
from .workload import ModelOnCard, Workload

__all__ = ["ModelDecodeStep", "model_decode_step", "decode_counts", "decode_coefficients",
           "step_parts", "StepParts", "StepCounts", "StepCoefficients", "routed_expert_bytes",
           "weight_read_params", "WEIGHT_READS", "REGIONS"]

#: What a step is taken to read: the bytes it touches (default), J07's
#: ``N_active b_W`` (the whole input table, ``k`` experts whatever the batch), or every weight.
WEIGHT_READS = ("touched", "active", "total")

#: names of the three regions of the (batch, context) plane, in plotting order
REGIONS = ("weight-read", "kv-read", "compute")


def weight_read_params(spec, batch, weights, *, routing="floor"):
    """Parameters a step of ``batch`` tokens reads under ``weights``, as a count (``R_W / b_W``).

    ``routing`` (:data:`~infra_calc.ledger.ROUTINGS`) counts the experts of
    ``"touched"``; ``"active"`` is ``k`` experts whatever it says.
    """
    if weights == "touched":
        return np.asarray(spec.decode_weight_bytes(1, batch, routing), dtype=float)
    if weights == "active":
        return np.asarray(float(spec.active_params))
    if weights == "total":
        return np.asarray(float(spec.params))
    raise ValueError(f"weights must be one of {WEIGHT_READS}, got {weights!r}")


def routed_expert_bytes(w: Workload, b):
    """Routed-expert bytes per card a step of ``b`` tokens reads (real ``b``; ``inf``: every expert):
    :meth:`~infra_calc.ledger.ParameterLedger.routed_params_read` under ``w.routing``, times
    ``b_W / n``; 0 for a dense model."""
    if not w.model.is_moe:
        return 0.0 * np.asarray(b, dtype=float)
    return (w.model.routed_params_read(b, w.routing) * w.bytes_per_param
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

    #: Weights the step touches (:func:`weight_read_params`), per card, bytes.
    weight_bytes: np.ndarray
    #: The batch's cache per cached token, ``B m_kv`` per card, bytes/token.
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


def decode_coefficients(w: Workload, *, weights="touched") -> StepCoefficients:
    """Per-card terms of a decode step of ``w``, linear in the context ``S``.

    A :class:`StepCoefficients` (arrays over ``w.batch``): the weights touched
    (:func:`weight_read_params`), the batch's cache per cached token, the matrix
    products and attention per cached token: the one account of a step, read by
    :func:`decode_counts`, the levers and the turning points
    (:func:`infra_calc.kv.per_request_terms`).
    """
    spec, sh = w.model, w.share
    b = np.asarray(w.batch, dtype=float)
    n = np.asarray(w.cards, dtype=float)
    return StepCoefficients(
        weight_bytes=np.asarray(sh.of(spec, weight_read_params(spec, w.batch, weights,
                                                                routing=w.routing)))
        * w.bytes_per_param,
        kv_bytes_per_token=b * np.asarray(w.kv_bytes_per_token_per_card),
        flops_linear=2.0 * b * np.asarray(sh.of_matmul(spec, spec.matmul_params)),
        attention_flops_per_token=np.asarray(spec.attention_flops(b, 1)) / n,
    )


@dataclass(frozen=True)
class StepParts(Bounds):
    """A decode step's :class:`~infra_calc.bound.Bounds` with its :func:`decode_counts` and
    the all-reduce's message ``M = 2 B d``, bytes (:func:`~infra_calc.comm.layer_comm`)."""

    #: The step's per-card bytes and FLOPs (:func:`decode_counts`).
    counts: StepCounts = None
    comm_bytes: float | np.ndarray = 0.0

    @property
    def region(self):
        """``"compute"`` where the floor is compute-bound (a tie is compute), else
        ``"weight-read"`` or ``"kv-read"``, whichever read is larger (:data:`REGIONS`)."""
        c = self.counts
        return unwrap(np.where(np.asarray(self.floor_bound) == "compute", "compute",
                               np.where(c.weight_bytes >= c.kv_bytes, "weight-read", "kv-read")),
                      str)


def step_parts(w: Workload, *, weights="touched", comm="ring", context=None, overlap=True,
               overlap_comm=False) -> Bounds:
    """The :class:`StepParts` of the decode steps of ``w`` at ``context``: Bounds and counts.

    The one account of a decode step's times (:func:`model_decode_step`,
    :func:`~infra_calc.kv.decode_region`, :func:`~infra_calc.parallel.tensor_parallel_step`,
    :func:`~infra_calc.generation.generation_time`, the estimate, the precision lever and a
    speculative round's draft read it):
    the floor :math:`\\max(T_{read}, T_{compute})` of :func:`decode_counts`
    (their sum with ``overlap=False``) and the all-reduce model's time
    (:func:`~infra_calc.comm.layer_comm`, 0 on one card), added (or the
    larger, ``overlap_comm=True``) as ``t_step``.
    """
    c = decode_counts(w, weights=weights, context=context)
    msg, tcomm = layer_comm(w.model, w.hw, tokens=w.batch, cards=w.cards, comm=comm)
    t = bounds(c.flops, c.bytes_read, w.hw, t_comm=tcomm, overlap=overlap,
               overlap_comm=overlap_comm, math=w.math)
    return StepParts(**vars(t), counts=c, comm_bytes=msg)


def decode_counts(w: Workload, *, weights="touched", context=None) -> StepCounts:
    """Per-card bytes and FLOPs of one decode step of workload ``w`` (arrays broadcast).

    The :class:`StepCounts` of :func:`decode_coefficients` at ``context``
    (default: the workload's): ``weight_bytes``, ``kv_bytes``, ``flops_linear``,
    ``flops_attention`` and their sums ``bytes_read`` and ``flops``.
    """
    return decode_coefficients(w, weights=weights).at(w.context if context is None else context)


@dataclass(frozen=True)
class ModelDecodeStep(HoldsMemory, ModelOnCard):
    """Result of :func:`model_decode_step` (SI units: seconds, bytes, FLOPs).

    Each number is a float for scalar inputs and an array for array inputs.
    """

    #: Requests decoded together, ``B``.
    batch: int | np.ndarray
    #: KV-cache tokens per request, ``S``.
    context: int | np.ndarray
    #: What the weight read counts: ``"touched"``, ``"active"`` or ``"total"``.
    weights: str
    #: Experts read per MoE layer: ``"floor"`` (``k``, a lower bound) or ``"uniform"`` (a model).
    routing: str
    #: Weight bytes read, ``R_W``.
    weight_bytes: float | np.ndarray
    #: KV-cache bytes read by the whole batch, ``B S m_kv``.
    kv_bytes: float | np.ndarray
    #: Bytes read this step, ``R = R_W + B S m_kv``.
    bytes_read: float | np.ndarray
    #: FLOPs of the matrix products, ``2 B N_mm``.
    flops_linear: float | np.ndarray
    #: FLOPs of attention over the cache, ``4 B S L H d_h``.
    flops_attention: float | np.ndarray
    #: FLOPs this step, ``F = 2 B N_mm + 4 B S L H d_h``.
    flops: float | np.ndarray
    #: Time to read the weights, ``R_W / β``, seconds.
    t_weights: float | np.ndarray
    #: Time to read the KV cache, ``B S m_kv / β``, seconds.
    t_kv: float | np.ndarray
    #: Read lower bound ``R / β``, seconds.
    t_read: float | np.ndarray
    #: Compute lower bound ``F / Π``, seconds.
    t_compute: float | np.ndarray
    #: Step time, the larger of the two bounds, seconds.
    t_step: float | np.ndarray
    #: ``"compute"`` where ``t_compute >= t_read`` (a tie is compute), else ``"memory"``.
    bound: str | np.ndarray
    #: ``"weight-read"``, ``"kv-read"`` or ``"compute"`` (see :data:`REGIONS`).
    region: str | np.ndarray
    #: Throughput ``B / T_step``, tokens per second.
    tokens_per_s: float | np.ndarray
    #: Weights + KV cache + workspace each card holds, against its capacity
    #: (``memory_per_card`` and ``fits`` read it); nothing is refused when it does not fit.
    memory: CapacityCheck


def model_decode_step(model, hw=None, *, batch=None, context=None, bytes_per_param=None,
                      kv_bytes_per_element=None, math=None, routing=None, workspace=None,
                      weights="touched") -> ModelDecodeStep:
    """One decode step of a model on one card, with its KV cache.

    - weight bytes :math:`R_W` (``weights="touched"``, the default:
      :meth:`ModelSpec.decode_weight_bytes`, what the step must touch, with
      ``k`` experts per MoE layer, or the uniform-routing model's count with
      ``routing="uniform"``;
      ``"active"``: J07's :math:`N_{active} b_W`; ``"total"``: every weight);
    - KV bytes :math:`R_{KV} = B S m_{kv}`;
    - FLOPs :math:`F = 2 B N_{mm} + 4 B S L H d_h`
      (:attr:`ModelSpec.matmul_params`, and attention over the cache);
    - :math:`T_{step} = \\max(R/\\beta, F/\\Pi)`; a tie is compute-bound;
    - ``memory_per_card`` and ``fits``: weights + cache + workspace against
      the card's capacity (:attr:`Workload.memory_per_card`).

    Parameters
    ----------
    model : ModelSpec, str or Workload
        A model (then ``hw`` is required) or a whole :class:`Workload`.
    hw : Accelerator or str
    batch : int or array_like
        Requests, ``B`` (>= 1).
    context : int or array_like
        KV-cache tokens per request, ``S`` (>= 0; longer than the model's
        ``max_position_embeddings`` is refused with ``ValueError``).
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
        Bytes of workspace.
    weights : {"touched", "active", "total"}, keyword-only

    A size or precision left at None takes the :class:`~infra_calc.workload.Workload`'s default (one place:
    :meth:`Workload.default <infra_calc.workload.Workload.default>`).

    Returns
    -------
    ModelDecodeStep
    """
    w = Workload.of(model, hw, batch=batch, context=context, bytes_per_param=bytes_per_param,
                    kv_bytes_per_element=kv_bytes_per_element, math=math, routing=routing,
                    workspace=workspace)
    check_one_card(w, "model_decode_step", "use tensor_parallel_step for more cards")
    t = step_parts(w, weights=weights)               # one card: no communication
    c, acc = t.counts, w.hw
    return ModelDecodeStep(
        model=w.model, hw=acc, batch=w.batch, context=w.context, weights=weights,
        routing=w.routing,
        weight_bytes=unwrap(c.weight_bytes), kv_bytes=unwrap(c.kv_bytes),
        bytes_read=unwrap(c.bytes_read), flops_linear=unwrap(c.flops_linear),
        flops_attention=unwrap(c.flops_attention), flops=unwrap(c.flops),
        t_weights=read_time(c.weight_bytes, acc),
        t_kv=read_time(c.kv_bytes, acc), t_read=t.t_read, t_compute=t.t_compute,
        t_step=t.t_floor, bound=t.floor_bound, region=t.region,
        tokens_per_s=tokens_per_s(w.batch, t.t_floor), memory=w.memory_at(like=c.bytes_read),
    )
