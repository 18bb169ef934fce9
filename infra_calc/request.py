"""The chapter-3 figures that ``python -m infra_calc estimate`` adds.

KV-aware turning point and critical context, the tensor-parallel step over
``cards``, and (with a prompt length) prefill and the whole request.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from ._validate import check_int

__all__ = ["RequestEstimate", "request_estimate"]


@dataclass(frozen=True)
class RequestEstimate:
    """Chapter-3 figures for one model on one accelerator (SI units)."""

    cards: int
    batch_turning_point_kv: float
    critical_context: float
    tp_t_read: float
    tp_t_compute: float
    tp_t_comm: float
    tp_t_step: float
    tp_bound: str
    prompt: int | None = None
    output_tokens: int | None = None
    ttft: float | None = None
    prefill_bound: str | None = None
    tpot_mean: float | None = None
    total: float | None = None
    tokens_per_s_request: float | None = None
    tokens_per_s_total: float | None = None

    def to_dict(self) -> dict:
        """Plain-``dict`` form (JSON-ready)."""
        return asdict(self)

    def table(self) -> str:
        """Readable lines, in the layout of :meth:`Estimate.table`."""
        rows = [
            ("", ""),
            ("with the KV cache (chapter 3)", ""),
            ("  B*(S) (compute = weights + KV read)", f"{self.batch_turning_point_kv:,.1f}"),
            ("  S_max (no batch is compute-bound)", f"{self.critical_context:,.0f} tokens"),
            (f"  decode step on {self.cards} card(s)", ""),
            ("    T_read / T_compute / T_comm",
             f"{self.tp_t_read * 1e3:,.3f} / {self.tp_t_compute * 1e3:,.4f} / "
             f"{self.tp_t_comm * 1e3:,.3f} ms"),
            ("    T_step", f"{self.tp_t_step * 1e3:,.3f} ms  [{self.tp_bound}-bound]"),
        ]
        if self.prompt is not None:
            rows += [
                (f"  request: {self.prompt} prompt + {self.output_tokens} output tokens", ""),
                ("    time to first token (prefill)", f"{self.ttft * 1e3:,.2f} ms  "
                                                       f"[{self.prefill_bound}-bound]"),
                ("    time per output token (mean)", f"{self.tpot_mean * 1e3:,.3f} ms"),
                ("    total", f"{self.total:,.3f} s"),
                ("    tokens/s per request / in total",
                 f"{self.tokens_per_s_request:,.1f} / {self.tokens_per_s_total:,.1f}"),
            ]
        width = max(len(k) for k, _ in rows)
        return "\n".join(f"{k:<{width}}  {v}".rstrip() for k, v in rows)


def request_estimate(model, hw, bytes_per_param=2.0, batch=1, context=8192, cards=1,
                     prompt=None, output_tokens=None, kv_bytes_per_element=2.0) -> RequestEstimate:
    """Compute the chapter-3 figures printed by ``estimate``.

    Parameters
    ----------
    model, hw : catalog names or objects
    bytes_per_param : float
    batch : int
    context : int
        KV tokens per request for the decode step and ``B*(S)``.
    cards : int
        Tensor-parallel cards (>= 1).
    prompt : int, optional
        Prompt tokens; when given, prefill and the whole request are added.
    output_tokens : int, optional
        Output tokens of the request (default 256 when ``prompt`` is given).
    """
    from .generation import generation_time
    from .hardware import resolve_hw
    from .kv import critical_context
    from .models import resolve_model
    from .parallel import tensor_parallel_step
    from .step import batch_turning_point

    spec = resolve_model(model)
    acc = resolve_hw(hw)
    n = check_int(cards, "cards", "cards", minimum=1)
    m = spec.kv_bytes_per_token(kv_bytes_per_element)
    tp = tensor_parallel_step(spec, acc, n, batch=batch, context=context,
                              bytes_per_param=bytes_per_param,
                              kv_bytes_per_element=kv_bytes_per_element)
    out = dict(
        cards=n,
        batch_turning_point_kv=batch_turning_point(acc, bytes_per_param, params=spec.active_params,
                                                   context=context, kv_bytes_per_token=m),
        critical_context=critical_context(spec.active_params, acc, m),
        tp_t_read=tp.t_read, tp_t_compute=tp.t_compute, tp_t_comm=tp.t_comm,
        tp_t_step=tp.t_step, tp_bound=tp.bound,
    )
    if prompt is None and output_tokens is not None:
        raise ValueError("output_tokens (tokens) needs prompt (tokens)")
    if prompt is not None:
        o = 256 if output_tokens is None else output_tokens
        g = generation_time(spec, acc, prompt, o, bytes_per_param, batch=batch,
                            kv_bytes_per_element=kv_bytes_per_element, cards=n)
        out.update(prompt=g.prompt_tokens, output_tokens=g.output_tokens, ttft=g.ttft,
                   prefill_bound=g.prefill.bound, tpot_mean=g.tpot_mean, total=g.total,
                   tokens_per_s_request=g.tokens_per_s_request,
                   tokens_per_s_total=g.tokens_per_s_total)
    return RequestEstimate(**out)
