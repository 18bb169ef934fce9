"""The source chapters' cases, each computed once from the inputs of :mod:`infra_calc.source`.

J07's decode step, its §5 fix cases and its capacity check, J13's capacity check and MoE
padding: the §7 printouts (:mod:`infra_calc.reproduce`), the exercises, the figures and
the pages' checks call these instead of rebuilding a case from its inputs.  The inputs
stay in :mod:`infra_calc.source`, which imports no model, so that the workload and the
figures can take their defaults from there while this module builds on ``step``,
``capacity`` and ``shape``.  Every option is keyword-only; a ``capacity`` or ``hw`` left
at None is the card as the source reads it.
"""
from __future__ import annotations

from . import source as S
from .accelerators import accelerator
from .capacity import CapacityCheck, capacity_check, kv_cache_bytes, max_batch
from .display import shown
from .models import model
from .shape import PaddedRows, padded_rows, route_tokens
from .step import DecodeStep, decode_step
from .workload import Workload

__all__ = ["j07_decode_step", "fix_scenarios", "j07_kv_bytes_per_token", "j07_capacity", "j07_max_batch",
           "j07_left_after_weights", "j13_workload", "j13_kv_bytes_per_token", "j13_capacity_args",
           "j13_capacity",
           "j13_left_after_weights", "j13_max_batch", "j13_padding"]


# --- S23-J07: one decode step of the 70B model on an H100 ----------------------------
def j07_decode_step(*, hw=None, batch: int = 1, kv_bytes: float = 0.0,
                    overlap: bool = True) -> DecodeStep:
    """J07's decode step of ``batch`` requests: :math:`R = b_W N + R_{KV}`, :math:`F = 2BN`
    with the source's ``N = J07_PARAMS`` and ``b_W = J07_BYTES_PER_PARAM``, on ``hw`` (its
    H100); ``kv_bytes`` is the batch's KV cache read (none in the source), ``overlap`` as
    :func:`~infra_calc.step.decode_step`."""
    return decode_step(S.J07_PARAMS, S.j07_h100() if hw is None else hw,
                       bytes_per_param=S.J07_BYTES_PER_PARAM, batch=batch, kv_bytes=kv_bytes,
                       overlap=overlap)


def fix_scenarios(params=None, hw=None, *, batch=None, bytes_per_param=None, kv_bytes=0.0,
                  requests=1, four_bit=True) -> dict[str, DecodeStep]:
    r"""The J07 §5 cases as ``{label: DecodeStep}``, in table order.

    Inputs left at None take the source's case (:mod:`infra_calc.source`): a
    70e9-parameter model at 1 byte per parameter on J07's H100, batch 8.  Each case
    decodes ``requests`` requests (the source's one) that read ``kv_bytes`` of KV
    cache between them (none in the source), so a step reads :math:`R = b_W N + R_{KV}`:

    - baseline: ``b_W`` bytes per parameter;
    - compute doubled: the same card with ``2Π``;
    - bandwidth doubled: the same card with ``2β``;
    - half the parameters (``N/2``, a model half the size), which halves the weights'
      bytes *and* the FLOPs;
    - (``four_bit``) half the bits per weight: ``b_W/2`` with ``N`` unchanged, which
      halves only the weights' bytes (4-bit weights from the source's 8-bit ones);
    - batch sharing: ``batch`` requests share one read of the weights, each with its
      own cache, :math:`R_{KV} \cdot batch / requests`.

    The two "halve the weights" readings are labelled with the model size they
    describe, and the second with the bits it stores, ``4·b_W``: ``"half the parameters
    (35B)"`` and, at the source's 1 byte per parameter, ``"4-bit weights (70B)"``.
    """
    params = S.J07_PARAMS if params is None else params
    bytes_per_param = S.J07_BYTES_PER_PARAM if bytes_per_param is None else bytes_per_param
    batch = S.J07_BATCHES[0] if batch is None else batch
    h = accelerator(S.j07_h100() if hw is None else hw)

    def step(n=params, card=h, bw=bytes_per_param, b=requests, kv=kv_bytes):
        return decode_step(n, card, bytes_per_param=bw, batch=b, kv_bytes=kv)

    cases = {
        "baseline": step(),
        "compute doubled": step(card=h.with_(peak_flops=2 * h.peak_flops)),
        "bandwidth doubled": step(card=h.with_(mem_bandwidth=2 * h.mem_bandwidth)),
        f"half the parameters ({shown(params / 2, 'billion', 0, bare=True)}B)": step(n=params / 2),
    }
    if four_bit:
        label = f"{4 * bytes_per_param:g}-bit weights ({shown(params, 'billion', 0, bare=True)}B)"
        cases[label] = step(bw=bytes_per_param / 2)
    cases[f"batch {batch} shares the read"] = step(b=batch, kv=kv_bytes * batch / requests)
    return cases


def j07_kv_bytes_per_token() -> float:
    """KV-cache bytes per token of the J07 model, ``2 L H_kv d b`` at the source's
    ``b = KV_BYTES_PER_ELEMENT`` (BF16 keys and values)."""
    return model(S.J07_MODEL).kv_bytes_per_token(S.KV_BYTES_PER_ELEMENT)


def j07_capacity(*, batch: int = 1, context: int = S.J07_CONTEXT, capacity: float | None = None,
                 kv: bool = True, workspace: bool = True) -> CapacityCheck:
    """J07's capacity check :math:`W + B\\,S\\,m_{KV} + M_{work} \\le C`: the 8-bit weights,
    ``batch`` requests (the source's one) of ``context`` tokens (the source's ``J07_CONTEXT``)
    and the workspace on ``capacity`` bytes (its H100's 80e9); ``kv=False`` /
    ``workspace=False`` leave those out."""
    kv_bytes = kv_cache_bytes(context, j07_kv_bytes_per_token(), batch=batch) if kv else 0.0
    cap = S.j07_h100().mem_capacity if capacity is None else capacity
    return capacity_check(cap, weights=S.J07_WEIGHTS_8BIT, kv=kv_bytes,
                          workspace=S.J07_WORKSPACE if workspace else 0)


def j07_max_batch(*, capacity: float | None = None, context: int = S.J07_CONTEXT) -> int:
    """The most requests of ``context`` tokens beside J07's 8-bit weights on ``capacity``
    bytes (its H100's 80e9), :math:`\\lfloor (C - W) / (S\\,m_{KV}) \\rfloor`: the workspace
    not counted (the source's reading)."""
    cap = S.j07_h100().mem_capacity if capacity is None else capacity
    return max_batch(cap, weights=S.J07_WEIGHTS_8BIT, context=context,
                     kv_bytes_per_token=j07_kv_bytes_per_token(), workspace=0)


def j07_left_after_weights() -> float:
    """The H100's bytes beside J07's 8-bit weights, :math:`C - W` (the source's reading, no
    workspace)."""
    return j07_capacity(kv=False, workspace=False).headroom


# --- S23-J13: Qwen3-8B on an RTX 4090, and the MoE dispatch ----------------------------
def j13_workload() -> Workload:
    """J13's capacity case as one :class:`~infra_calc.workload.Workload`: ``J13_BATCH``
    requests of ``J13_MODEL`` with BF16 weights and cache and the ``J13_WORKSPACE``
    workspace, on the RTX 4090 read as the source reads it (:func:`~infra_calc.source.j13_rtx4090`:
    24 GB = 24e9 bytes).  The capacity functions below and the capacity planner's defaults
    (:func:`~infra_calc.planner.planner_state`) are this workload's."""
    return Workload(S.J13_MODEL, S.j13_rtx4090(), bytes_per_param=S.J13_BYTES_PER_PARAM,
                    kv_bytes_per_element=S.KV_BYTES_PER_ELEMENT, batch=S.J13_BATCH,
                    workspace=S.J13_WORKSPACE)


def j13_kv_bytes_per_token() -> float:
    """KV-cache bytes per token of the J13 model, ``2 L H_kv d b`` at the source's
    ``b = KV_BYTES_PER_ELEMENT`` (BF16 keys and values)."""
    return float(j13_workload().kv_bytes_per_token)


def j13_capacity_args(*, capacity: float | None = None) -> dict:
    """J13's capacity inputs, ``capacity``, ``weights`` and ``workspace``, for
    :func:`~infra_calc.capacity.capacity_check`, ``max_batch`` or ``max_context``: those of
    :func:`j13_workload`, on ``capacity`` bytes (default: the RTX 4090 read as 24e9)."""
    w = j13_workload()
    return dict(capacity=w.hw.mem_capacity if capacity is None else capacity,
                weights=float(w.resident_weight_bytes()), workspace=w.workspace)


def j13_capacity(*, batch: int = 0, context: int = S.J13_CONTEXTS[0],
                 capacity: float | None = None) -> CapacityCheck:
    """J13's capacity check :math:`W + B\\,S\\,m_{KV} + M_{work} \\le C` for ``batch``
    requests of ``context`` tokens (none by default: the weights and the workspace alone):
    :meth:`Workload.memory_at <infra_calc.workload.Workload.memory_at>` of :func:`j13_workload`."""
    return j13_workload().memory_at(context, batch=batch, capacity=capacity)


def j13_left_after_weights() -> float:
    """The RTX 4090's bytes beside J13's BF16 weights and the workspace,
    :math:`C - W - M_{work}`."""
    return j13_capacity().headroom


def j13_max_batch(context: int) -> int:
    """The most requests of ``context`` tokens (BF16 KV cache) that fit J13's RTX 4090,
    :math:`\\lfloor (C - W - M_{work}) / (S\\,m_{KV}) \\rfloor`: :meth:`Workload.max_batch
    <infra_calc.workload.Workload.max_batch>` of :func:`j13_workload`."""
    return int(j13_workload().max_batch(context))


def j13_padding(skew: float) -> PaddedRows:
    """J13's MoE dispatch (``MOE_TOKENS`` tokens, top-``MOE_TOP_K`` of ``MOE_EXPERTS``)
    padded to ``MOE_TILE_ROWS``-row tiles: ``skew=0`` uniform, ``1`` concentrated."""
    return padded_rows(route_tokens(S.MOE_TOKENS, experts=S.MOE_EXPERTS, top_k=S.MOE_TOP_K, skew=skew),
                       tile_rows=S.MOE_TILE_ROWS)
