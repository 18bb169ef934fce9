"""The capacity planner's state: one workload's memory against a capacity reading.

:func:`planner_state` is what the capacity planner (:mod:`infra_calc.widgets.capacity`)
and the capacity chapter's figures show: a :class:`~infra_calc.workload.Workload`'s
memory record (:meth:`Workload.memory_at <infra_calc.workload.Workload.memory_at>`) checked
against the card's capacity under one reading (:func:`~infra_calc.accelerators.capacity_reading`),
with the largest batch that fits (:meth:`Workload.max_batch
<infra_calc.workload.Workload.max_batch>`).  Its defaults are
the capacity chapter's case, :func:`~infra_calc.scenarios.j13_workload`.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import source as S
from .accelerators import capacity_reading
from .capacity import CapacityCheck, HoldsMemory
from .hardware import Accelerator
from .modelspec import ModelSpec
from .scenarios import j13_workload

__all__ = ["PlannerState", "planner_state"]


@dataclass(frozen=True)
class PlannerState(HoldsMemory):
    """Numbers behind one capacity-planner setting (bytes unless stated).

    ``model`` and ``hw`` are the objects the numbers were computed for (a
    changed copy keeps its figures); ``model.name`` and ``hw.name`` are their
    names.  The sizes of the inequality are read from ``memory``
    (``state.memory.capacity``, ``.weights``, ``.kv``, ...), the one record.
    """

    #: The model, exactly as given.
    model: ModelSpec
    #: The accelerator, exactly as given.
    hw: Accelerator
    #: Tokens of KV cache per request, ``S``.
    context: int
    #: Concurrent requests, ``B``.
    batch: int
    #: Stored bytes per weight, ``b_W``.
    bytes_per_param: float
    #: Which capacity reading (one of :data:`READINGS`); the card's own unless one was asked for.
    reading: str
    #: KV cache of one request, ``S m_KV``.
    kv_per_request: float
    #: Capacity under that reading (:func:`capacity_reading`), weights, workspace, the
    #: batch's KV cache, their total, the headroom and the verdict.
    memory: CapacityCheck
    #: Largest batch of ``context``-token requests that fits (:meth:`Workload.max_batch`).
    max_batch: int


def planner_state(model=None, hw=None, *, batch=None, context=None, bytes_per_param=None,
                  kv_bytes_per_element=None, workspace=None, reading=None) -> PlannerState:
    """Evaluate the capacity inequality for one setting of the planner.

    Inputs left at None take J13's case (:func:`~infra_calc.scenarios.j13_workload`:
    ``J13_BATCH`` requests of ``J13_MODEL`` on the source's RTX 4090,
    :func:`~infra_calc.source.j13_rtx4090`, whose capacity is read as the source
    reads it, ``J13_READING``; weights of ``J13_BYTES_PER_PARAM`` bytes, keys and
    values of ``KV_BYTES_PER_ELEMENT`` bytes, a ``J13_WORKSPACE`` workspace);
    sizes are in bytes.  ``model`` and ``hw`` may be names or objects; an object
    is used as given, never looked up again by its name, and the result keeps it.
    ``reading`` left at None is the card's own (:attr:`Accelerator.capacity_reading`),
    so the capacity is ``hw.mem_capacity``, the one the
    :class:`~infra_calc.workload.Workload` holds; another reading is
    :func:`capacity_reading` of the card.  The memory is the Workload's own record
    (:meth:`Workload.memory_at`) against that capacity, and :meth:`Workload.max_batch`
    gives the largest batch against the same capacity.  Nothing is computed here
    that those do not already define.
    """
    given = dict(model=model, hw=hw, batch=batch,
                 bytes_per_param=bytes_per_param, kv_bytes_per_element=kv_bytes_per_element,
                 workspace=workspace)
    w = j13_workload().with_(**{k: v for k, v in given.items() if v is not None})
    context = S.J13_CONTEXTS[0] if context is None else context
    reading = w.hw.capacity_reading if reading is None else reading
    cap = capacity_reading(w.hw, reading=reading)
    chk = w.memory_at(context, capacity=cap)            # the context is not refused past the model's
    per = w.with_(batch=1).kv_bytes_per_card(context)
    b_max = w.max_batch(context, capacity=cap)
    return PlannerState(model=w.model, hw=w.hw, context=int(context), batch=int(w.batch),
                        bytes_per_param=float(w.bytes_per_param), reading=reading,
                        kv_per_request=float(per), memory=chk, max_batch=int(b_max))
