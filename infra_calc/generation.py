"""The whole request: prefill, then one decode step per further output token."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import check_int

__all__ = ["GenerationTime", "generation_time"]


@dataclass(frozen=True)
class GenerationTime:
    """Result of :func:`generation_time` (seconds, tokens/s)."""

    model: str
    hw: str
    prompt_tokens: int
    output_tokens: int
    batch: int
    cards: int
    prefill: object
    step_times: np.ndarray
    ttft: float
    decode_time: float
    total: float
    tpot_mean: float
    tpot_last: float
    tokens_per_s_request: float
    tokens_per_s_total: float


def generation_time(model, hw, prompt_tokens, output_tokens, bytes_per_param=2, batch=1,
                    kv_bytes_per_element=2, *, cards=1, weights="active",
                    overlap_comm=False) -> GenerationTime:
    """Lower bound on one whole request: prefill plus the decode steps.

    The prefill pass (:func:`infra_calc.prefill.prefill_step`) yields the
    first output token, so the time to first token is its ``t_step``.  Each
    further token ``j = 1 … O-1`` takes one decode step
    (:func:`infra_calc.parallel.tensor_parallel_step`, which with one card
    is the single-card step) with a KV cache of ``S_j = P + j`` tokens per
    request, growing by one each step:

    .. math:: T_{total} = T_{prefill} + \\sum_{j=1}^{O-1} T_{step}(S = P + j)

    Reported: the total, the time to first token (TTFT), the mean and the
    last time per output token (TPOT, over the decode steps; 0 when
    ``O = 1``), and output tokens/s per request (:math:`O/T_{total}`) and in
    total (:math:`BO/T_{total}`).  Vectorised over the steps.

    Parameters
    ----------
    model : ModelSpec or str
    hw : Accelerator or str
    prompt_tokens : int
        ``P`` (>= 1).
    output_tokens : int
        ``O`` (>= 1).  ``P + O`` must not exceed the model's
        ``max_position_embeddings`` (refused with ``ValueError``).
    bytes_per_param, kv_bytes_per_element : float
    batch : int
        Requests served together, all with the same lengths.
    cards : int, keyword-only
        Tensor-parallel cards (>= 1).
    weights : {"active", "touched"}, keyword-only
        Decode weight bytes (see :func:`infra_calc.kv.model_decode_step`).
    overlap_comm : bool, keyword-only
    """
    from .models import resolve_model
    from .parallel import tensor_parallel_step
    from .prefill import prefill_step

    spec = resolve_model(model)
    p = check_int(prompt_tokens, "prompt_tokens", "tokens", minimum=1)
    o = check_int(output_tokens, "output_tokens", "tokens", minimum=1)
    if np.ndim(p) or np.ndim(o):
        raise TypeError("prompt_tokens and output_tokens (tokens) must be single whole numbers")
    spec.check_context(p + o, "prompt_tokens + output_tokens")
    pre = prefill_step(spec, hw, p, bytes_per_param, batch=batch,
                       kv_bytes_per_element=kv_bytes_per_element, cards=cards)
    if o > 1:
        ctx = p + np.arange(1, o)
        steps = tensor_parallel_step(spec, hw, cards, batch=batch, context=ctx,
                                     bytes_per_param=bytes_per_param,
                                     kv_bytes_per_element=kv_bytes_per_element,
                                     overlap_comm=overlap_comm, weights=weights)
        times = np.asarray(steps.t_step, dtype=float)
    else:
        times = np.zeros(0)
    decode = float(times.sum())
    total = pre.t_step + decode
    return GenerationTime(
        model=spec.name, hw=pre.hw, prompt_tokens=p, output_tokens=o, batch=pre.batch,
        cards=pre.cards, prefill=pre, step_times=times, ttft=pre.t_step, decode_time=decode,
        total=total, tpot_mean=float(times.mean()) if times.size else 0.0,
        tpot_last=float(times[-1]) if times.size else 0.0,
        tokens_per_s_request=o / total, tokens_per_s_total=pre.batch * o / total,
    )
