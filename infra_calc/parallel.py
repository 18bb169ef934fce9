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

from ._validate import check_int, check_number
from .hardware import resolve_hw

__all__ = ["ring_allreduce_time", "TensorParallelStep", "tensor_parallel_step",
           "ACTIVATION_BYTES"]

#: bytes per activation element sent in the all-reduces (BF16)
ACTIVATION_BYTES = 2


def _out(x):
    return float(x) if np.ndim(x) == 0 else x


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
    return _out(t)


@dataclass(frozen=True)
class TensorParallelStep:
    """Result of :func:`tensor_parallel_step` (per card; SI units)."""

    model: str
    hw: str
    cards: object
    batch: object
    context: object
    bytes_read: object
    flops: object
    comm_bytes: object
    t_read: object
    t_compute: object
    t_comm: object
    t_step: object
    bound: object
    tokens_per_s: object


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
    from .kv import model_decode_step

    if not isinstance(overlap_comm, (bool, np.bool_)):
        raise TypeError(f"overlap_comm must be True or False, got {overlap_comm!r}")
    acc = resolve_hw(hw)
    n = check_int(cards, "cards", "cards", minimum=1)
    _check_link(acc, n)
    one = model_decode_step(model, acc, batch=batch, context=context,
                            bytes_per_param=bytes_per_param,
                            kv_bytes_per_element=kv_bytes_per_element, weights=weights)
    from .models import resolve_model

    spec = resolve_model(model)
    nf = np.asarray(n, dtype=float)
    r = np.asarray(one.bytes_read) / nf
    f = np.asarray(one.flops) / nf
    tr = r / acc.mem_bandwidth
    tc = f / acc.peak_flops
    msg = ACTIVATION_BYTES * np.asarray(one.batch, dtype=float) * spec.hidden
    tcomm = 2.0 * spec.layers * np.asarray(ring_allreduce_time(msg, n, acc))
    work = np.maximum(tr, tc)
    ts = np.maximum(work, tcomm) if overlap_comm else work + tcomm
    bound = np.where(tcomm > work, "communication", np.where(tr >= tc, "memory", "compute"))
    return TensorParallelStep(
        model=one.model, hw=acc.name, cards=n, batch=one.batch, context=one.context,
        bytes_read=_out(r), flops=_out(f), comm_bytes=_out(msg + 0.0 * nf),
        t_read=_out(tr), t_compute=_out(tc), t_comm=_out(tcomm + 0.0 * tr), t_step=_out(ts),
        bound=str(bound) if np.ndim(bound) == 0 else bound,
        tokens_per_s=_out(np.asarray(one.batch) / ts),
    )
