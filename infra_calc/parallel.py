"""More cards: tensor parallelism for one decode step.

Each of ``n`` cards holds its share of the model (:mod:`infra_calc.sharding`:
query heads, MLP and vocabulary split evenly; KV heads split while
``n <= n_kv`` and replicated beyond; norm weights kept whole), reads its share
of the weights and of the cache, and does its share of the math.  That per-card
**floor** is :math:`\\max(T_{read}, T_{compute})` (:mod:`infra_calc.bound`).

Each layer must then add up the partial results across the cards: two
all-reduces per layer of the batch's activations.  Their time is a **model**
(:mod:`infra_calc.comm`: a ring by default, an in-switch reduction where the
switch can do it; 1 µs per step assumed), kept as the separate term
``t_comm``, never folded into the floor.  By default it is added to the floor
(the next layer needs the sum before it can start); ``overlap_comm=True``
takes the larger of the two instead, an *optimistic* reading, especially at
batch 1, where nothing is left to overlap with.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import unwrap
from .bound import tokens_per_s
from .capacity import CapacityCheck, HoldsMemory
from .decode import step_parts
from .workload import ModelOnCard, Workload

__all__ = ["TensorParallelStep", "tensor_parallel_step"]


@dataclass(frozen=True)
class TensorParallelStep(HoldsMemory, ModelOnCard):
    """Result of :func:`tensor_parallel_step` (per card; SI units: seconds, bytes, FLOPs).

    Each number is a float for scalar inputs and an array for array inputs.
    """

    #: Tensor-parallel cards ``n``.
    cards: int | np.ndarray
    #: Requests decoded together, ``B``.
    batch: int | np.ndarray
    #: KV-cache tokens per request, ``S``.
    context: int | np.ndarray
    #: KV heads each card holds: ``n_kv / n``, or 1 (replicated) when ``n > n_kv``.
    kv_heads_per_card: float | np.ndarray
    #: Bytes each card reads: its weights and its KV heads' cache.
    bytes_read: float | np.ndarray
    #: FLOPs each card does: its matrix products (replicated K/V projections
    #: included) and its query heads' attention.
    flops: float | np.ndarray
    #: Message of one all-reduce, ``M = 2 B d`` bytes.
    comm_bytes: float | np.ndarray
    #: Read lower bound per card, ``bytes_read / β``, seconds.
    t_read: float | np.ndarray
    #: Compute lower bound per card, ``flops / Π``, seconds.
    t_compute: float | np.ndarray
    #: The floor per card, ``max(t_read, t_compute)``, seconds.
    t_floor: float | np.ndarray
    #: Two all-reduces per layer, ``2 L T_AR(M)``, seconds (0 on one card): a model
    #: (``comm``, with an assumed 1 µs per step), not a floor.
    t_comm: float | np.ndarray
    #: ``t_floor + t_comm`` (default), or ``max(t_floor, t_comm)`` with the optimistic
    #: ``overlap_comm=True``, seconds.
    t_step: float | np.ndarray
    #: ``"communication"`` when ``t_comm`` is the largest part, else ``"memory"`` or
    #: ``"compute"`` (the floor's label; a tie is compute).
    bound: str | np.ndarray
    #: ``"memory"`` or ``"compute"``: what sets the floor alone.
    floor_bound: str | np.ndarray
    #: The all-reduce model: ``"ring"`` or ``"in-switch"``.
    comm: str
    #: Whether ``t_step`` overlaps communication with the floor (optimistic).
    overlap_comm: bool
    #: Throughput ``B / T_step``, tokens per second.
    tokens_per_s: float | np.ndarray
    #: Weights + KV cache + workspace each card holds, against its capacity
    #: (``memory_per_card`` and ``fits`` read it); nothing is refused when it does not fit.
    memory: CapacityCheck


def tensor_parallel_step(model, hw=None, *, batch=None, context=None, cards=None,
                         bytes_per_param=None, kv_bytes_per_element=None, math=None,
                         routing=None, workspace=None, weights="touched", comm="ring",
                         overlap_comm=False) -> TensorParallelStep:
    """One decode step split over ``cards`` by tensor parallelism.

    Per card, with ``n`` cards (:mod:`infra_calc.sharding` for the split):

    - read :math:`T_{read} = (R_W/n + B S m_{kv} h_{kv}/n_{kv})/\\beta`, with the
      K/V projections and the norm weights each card keeps whole;
    - compute :math:`T_{compute} = (2 B N_{mm}/n + 4 B S L H d_h/n)/\\Pi` (plus
      the replicated K/V projections when ``n > n_kv``);
    - the floor :math:`\\max(T_{read}, T_{compute})`;
    - communication, a model: two all-reduces per layer of
      :math:`M = 2 B d` bytes, :math:`T_{comm} = 2L\\,T_{AR}(M)`
      (:func:`infra_calc.comm.allreduce_time`: a ring over the NVLink of one
      domain, over the slower network past it; or ``comm="in-switch"``);
    - :math:`T_{step} = \\max(T_{read}, T_{compute}) + T_{comm}` (default), or
      :math:`\\max(T_{read}, T_{compute}, T_{comm})` with ``overlap_comm=True``
      (optimistic: at batch 1 the next layer waits for the sum).

    With ``cards=1`` communication is zero and the result equals
    :func:`infra_calc.decode.model_decode_step`.

    Parameters
    ----------
    model : ModelSpec, str or Workload
    hw : Accelerator or str
        Needs ``link_bandwidth`` (per direction) for ``cards > 1``, and
        ``internode_bandwidth`` past ``link_domain`` cards.
    batch : int or array_like
        ``B`` (>= 1), requests.
    context : int or array_like
        ``S`` (>= 0), KV tokens per request.
    cards : int or array_like
        ``n`` (>= 1): must divide the query heads, and divide the
        KV heads (``n <= n_kv``) or be a multiple of them (``n > n_kv``).
    bytes_per_param, kv_bytes_per_element : float
    math : str, keyword-only
        Math precision whose dense peak bounds the math.
    routing : {"floor", "uniform"}, keyword-only
        Experts read per MoE layer (``"floor"``, ``k``; ``"uniform"``:
        the uniform-routing model, :meth:`ModelSpec.experts_hit`).
    workspace : float, keyword-only
        Bytes of workspace per card.

    A size or precision left at None takes the :class:`~infra_calc.workload.Workload`'s default.
    weights : {"touched", "active", "total"}, keyword-only
        What the weight read counts (:func:`infra_calc.decode.model_decode_step`).
    comm : {"ring", "in-switch"}, keyword-only
        The all-reduce model.
    overlap_comm : bool, keyword-only
        Take the larger of floor and communication instead of their sum.

    Returns
    -------
    TensorParallelStep
    """
    w = Workload.of(model, hw, batch=batch, context=context, cards=cards,
                    bytes_per_param=bytes_per_param, kv_bytes_per_element=kv_bytes_per_element,
                    math=math, routing=routing, workspace=workspace)
    t = step_parts(w, weights=weights, comm=comm, overlap_comm=overlap_comm)   # checks comm and the flag
    zero = 0.0 * np.asarray(t.t_step)
    return TensorParallelStep(
        model=w.model, hw=w.hw, cards=w.cards, batch=w.batch, context=w.context,
        kv_heads_per_card=w.share.kv_heads, bytes_read=unwrap(t.counts.bytes_read + zero),
        flops=unwrap(t.counts.flops + zero), comm_bytes=unwrap(t.comm_bytes + zero),
        t_read=t.t_read, t_compute=t.t_compute, t_floor=t.t_floor, t_comm=t.t_comm, t_step=t.t_step,
        bound=t.bound, floor_bound=t.floor_bound, comm=comm,
        overlap_comm=bool(overlap_comm), tokens_per_s=tokens_per_s(w.batch, t.t_step),
        memory=w.memory_at(like=zero),
    )
