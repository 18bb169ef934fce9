"""More cards: tensor parallelism for one decode step.

Tensor parallelism splits every weight matrix (and the KV cache, head by
head) evenly over ``n`` cards.  Each card reads :math:`1/n` of the bytes and
does :math:`1/n` of the math, but each layer must then sum its partial
results across the cards: two all-reduces per layer (after attention and
after the MLP) of the batch's activations, :math:`B h` elements of 2 bytes.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import check_int, check_number, unwrap
from .hardware import resolve_hw
from .kv import ModelOnCard, model_decode_step

__all__ = ["ring_allreduce_time", "TensorParallelStep", "tensor_parallel_step",
           "ACTIVATION_BYTES"]

#: bytes per activation element sent in the all-reduces (BF16)
ACTIVATION_BYTES = 2


def _check_link(acc, cards):
    if np.any(np.asarray(cards) > 1) and (acc.link_bandwidth <= 0):
        raise ValueError(
            f"link_bandwidth (bytes/s) of {acc.name} is unknown (0): tensor parallelism over "
            f"more than one card needs it; pass hw.with_(link_bandwidth=..., link_latency=...)")


def ring_allreduce_time(nbytes, cards, hw):
    """Lower bound of one ring all-reduce, seconds.

    .. math:: T_{AR} = \\frac{2(n-1)}{n}\\,\\frac{M}{\\beta_{link}} + 2(n-1)\\,\\alpha

    A ring all-reduce is a reduce-scatter and an all-gather: each card sends
    (and receives) :math:`2(n-1)/n` of the message ``M`` over a link of
    ``β_link`` bytes/s *per direction*, in :math:`2(n-1)` steps of latency
    ``α``.  Zero for one card.

    Parameters
    ----------
    nbytes : float or array_like
        Message size ``M`` on each card, bytes (>= 0).
    cards : int or array_like
        ``n`` (>= 1).
    hw : Accelerator or str
        Supplies ``link_bandwidth`` (per direction) and ``link_latency``.
    """
    acc = resolve_hw(hw)
    m = check_number(nbytes, "nbytes", "bytes", allow_zero=True)
    n = check_int(cards, "cards", "cards", minimum=1)
    _check_link(acc, n)
    n = np.asarray(n, dtype=float)
    bw = acc.link_bandwidth if acc.link_bandwidth > 0 else np.inf
    t = 2.0 * (n - 1.0) / n * m / bw + 2.0 * (n - 1.0) * acc.link_latency
    return unwrap(t)


def _layer_comm(spec, tokens, cards, acc):
    """Message per all-reduce ``M = 2 T h`` bytes and the step's ``2 L T_AR(M)``, seconds.

    ``T`` tokens' activations (``B`` at decode, ``B P`` at prefill) are summed
    across the cards twice per layer (after attention and after the MLP).
    """
    msg = ACTIVATION_BYTES * np.asarray(tokens, dtype=float) * spec.hidden
    return msg, 2.0 * spec.layers * np.asarray(ring_allreduce_time(msg, cards, acc))


def _bound(t_read, t_compute, t_comm):
    """``"communication"`` where the all-reduces are the largest part, else
    ``"memory"`` or ``"compute"``, whichever bound decides."""
    return unwrap(np.where(t_comm > np.maximum(t_read, t_compute), "communication",
                           np.where(t_read >= t_compute, "memory", "compute")), str)


@dataclass(frozen=True)
class TensorParallelStep(ModelOnCard):
    """Result of :func:`tensor_parallel_step` (per card; SI units: seconds, bytes, FLOPs).

    Each number is a float for scalar inputs and an array for array inputs.
    """

    #: Tensor-parallel cards ``n``.
    cards: int | np.ndarray
    #: Requests decoded together, ``B``.
    batch: int | np.ndarray
    #: KV-cache tokens per request, ``S``.
    context: int | np.ndarray
    #: Bytes each card reads, ``(R_W + B S m_kv) / n``.
    bytes_read: float | np.ndarray
    #: FLOPs each card does, ``2 B N_active / n``.
    flops: float | np.ndarray
    #: Message of one all-reduce, ``M = 2 B h`` bytes.
    comm_bytes: float | np.ndarray
    #: Read lower bound per card, ``bytes_read / β``, seconds.
    t_read: float | np.ndarray
    #: Compute lower bound per card, ``flops / Π``, seconds.
    t_compute: float | np.ndarray
    #: Two ring all-reduces per layer, ``2 L T_AR(M)``, seconds (0 on one card).
    t_comm: float | np.ndarray
    #: Step time: ``max(t_read, t_compute) + t_comm``, or the max of all three when overlapped.
    t_step: float | np.ndarray
    #: ``"communication"``, ``"memory"`` or ``"compute"``: the largest part.
    bound: str | np.ndarray
    #: Throughput ``B / T_step``, tokens per second.
    tokens_per_s: float | np.ndarray


def tensor_parallel_step(model, hw, cards, batch=1, context=0, bytes_per_param=2,
                         kv_bytes_per_element=2, *, overlap_comm=False,
                         weights="active") -> TensorParallelStep:
    """One decode step split over ``cards`` by tensor parallelism.

    Per card, with ``n`` cards, ``L`` layers and width ``h``:

    - read :math:`T_{read} = (R_W + B S m_{kv}) / (n\\beta)`;
    - compute :math:`T_{compute} = 2 B N_{active} / (n\\Pi)`;
    - communication: two ring all-reduces per layer of :math:`M = 2 B h`
      bytes, :math:`T_{comm} = 2L\\,T_{AR}(M)` (:func:`ring_allreduce_time`);
    - :math:`T_{step} = \\max(T_{compute}, T_{read}) + T_{comm}` when the
      communication is not overlapped (default), or
      :math:`\\max(T_{compute}, T_{read}, T_{comm})` with
      ``overlap_comm=True``.

    With ``cards=1`` communication is zero and the result equals
    :func:`infra_calc.step.decode_step` for ``N_active`` parameters and
    ``B S m_kv`` KV bytes.

    Parameters
    ----------
    model : ModelSpec or str
    hw : Accelerator or str
        Needs ``link_bandwidth`` (per direction) for ``cards > 1``.
    cards : int or array_like
        ``n`` (>= 1); weights and KV are split evenly (an ideal split).
    batch : int or array_like
        ``B`` (>= 1), requests.
    context : int or array_like
        ``S`` (>= 0), KV tokens per request (refused above the model's
        ``max_position_embeddings``).
    bytes_per_param, kv_bytes_per_element : float
    overlap_comm : bool, keyword-only
        Whether the all-reduces overlap the reads and math.
    weights : {"active", "touched"}, keyword-only
        Weight bytes: ``N_active b_W`` or :meth:`ModelSpec.decode_weight_bytes`.

    Returns
    -------
    TensorParallelStep
        ``bound`` is ``"communication"`` when ``T_comm`` is the largest
        part, else ``"memory"`` or ``"compute"``.
    """
    from .models import resolve_model

    if not isinstance(overlap_comm, (bool, np.bool_)):
        raise TypeError(f"overlap_comm must be True or False, got {overlap_comm!r}")
    spec = resolve_model(model)
    acc = resolve_hw(hw)
    n = check_int(cards, "cards", "cards", minimum=1)
    _check_link(acc, n)
    one = model_decode_step(spec, acc, batch=batch, context=context,
                            bytes_per_param=bytes_per_param,
                            kv_bytes_per_element=kv_bytes_per_element, weights=weights)
    nf = np.asarray(n, dtype=float)
    r = np.asarray(one.bytes_read) / nf
    f = np.asarray(one.flops) / nf
    tr = r / acc.mem_bandwidth
    tc = f / acc.peak_flops
    msg, tcomm = _layer_comm(spec, one.batch, n, acc)
    work = np.maximum(tr, tc)
    ts = np.maximum(work, tcomm) if overlap_comm else work + tcomm
    return TensorParallelStep(
        model=spec, hw=acc, cards=n, batch=one.batch, context=one.context,
        bytes_read=unwrap(r), flops=unwrap(f), comm_bytes=unwrap(msg + 0.0 * nf),
        t_read=unwrap(tr), t_compute=unwrap(tc), t_comm=unwrap(tcomm + 0.0 * tr),
        t_step=unwrap(ts), bound=_bound(tr, tc, tcomm),
        tokens_per_s=unwrap(np.asarray(one.batch) / ts),
    )
