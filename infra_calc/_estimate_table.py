"""The command line's table of an :class:`~infra_calc.estimate.Estimate` (formatting only).

Every number is rendered by :mod:`infra_calc.display`: a quantity or a count by
:func:`~infra_calc.display.shown_up` (``shown``, with a long time in a larger unit; a count
with thousands separated), a byte width the reader chose (``2``, ``0.5``) by
:func:`~infra_calc.display.round_sig`.  Nothing here scales, rounds or separates thousands
itself.
"""
from __future__ import annotations

from .display import round_sig, shown_up

__all__ = ["table"]


def _count(n) -> str:
    """A whole count with thousands separated ("4,096")."""
    return str(shown_up(n, None, 0))


def _width(b) -> str:
    """A byte width as the reader gave it: "2", "0.5" (up to six significant digits)."""
    return str(round_sig(b, digits=6))


def table(e) -> str:
    """Readable lines for estimate ``e``: decode step, turning points, capacity, request."""
    rows = (_header_rows(e) + _step_rows(e) + _turning_rows(e) + _capacity_rows(e)
            + _request_rows(e) + _fit_rows(e))
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}".rstrip() for k, v in rows)


def _per(e) -> str:
    return " per card" if e.cards > 1 else ""


def _header_rows(e) -> list:
    """The model, the card, the byte widths and the sizes."""
    ctx_note = {"given": "", "default": " (default)",
                "the request's last step": " (the request's last decode step)"}[e.context_from]
    return [
        ("model", f"{e.model.name} ({shown_up(e.params, 'billion', 2)} parameters"
                  + (f", {shown_up(e.active_params, 'billion', 2)} active" if e.model.is_moe else "")
                  + ")"),
        ("accelerator", f"{e.hw.name}" + (f" x {_count(e.cards)} (tensor parallel)" if e.cards > 1 else "")),
        ("bytes per parameter / per KV element",
         f"{_width(e.bytes_per_param)} / {_width(e.kv_bytes_per_element)}"),
        ("batch x context", f"{_count(e.batch)} x {_count(e.context)} tokens{ctx_note}"),
    ]


def _step_rows(e) -> list:
    """The decode step: bytes, FLOPs, the two bounds, the step and its throughput."""
    # what the read leaves out of the stored weights, so that it adds up with the capacity lines
    skipped = ([] if e.model.tie_word_embeddings else ["the embedding table gathered, not read"]) \
        + ([f"{_count(e.model.experts_per_token)} of {_count(e.model.num_experts)} experts per MoE layer"]
           if e.model.is_moe else [])
    touched = "weights a step touches" + (": " + ", ".join(skipped) + ";" if skipped else "")
    rows = [
        ("", ""),
        (f"decode step{_per(e)}", ""),
        ("  bytes read", f"{shown_up(e.bytes_read, 'GB', 2)} ({touched} + KV cache)"),
        ("  FLOPs", f"{shown_up(e.flops, 'GFLOP', 1)} (matrix products + attention)"),
        ("  T_read    (R / beta)", shown_up(e.t_read, "ms", 3)),
        ("  T_compute (F / Pi)", shown_up(e.t_compute, "ms", 4)),
    ]
    if e.cards > 1:
        rows.append(("  floor, max(T_read, T_compute)", shown_up(e.t_floor, "ms", 3)))
        rows.append(("  T_comm (ring all-reduces, a model)", shown_up(e.t_comm, "ms", 3)))
        rows.append(("  T_step = floor + T_comm", f"{shown_up(e.t_step, 'ms', 3)}  [{e.bound}-bound]"))
    else:
        rows.append(("  T_step, max(T_read, T_compute)", f"{shown_up(e.t_step, 'ms', 3)}  [{e.bound}-bound]"))
    if e.model.is_moe:
        rows.append(("  T_step, uniform routing (a model)", f"{shown_up(e.t_step_uniform_routing, 'ms', 3)}"
                     f"  (the bound reads {_count(e.model.experts_per_token)} of "
                       f"{_count(e.model.num_experts)} experts per layer)"))
    return rows + [
        ("  T_step if nothing overlaps (sum)", shown_up(e.t_step_serial, "ms", 3)),
        ("  throughput (upper bound)", shown_up(e.tokens_per_s, "tokens/s", 1)),
        ("  read time per output token", shown_up(e.read_time_per_output, "ms", 3)),
    ]


def _turning_rows(e) -> list:
    """J07's ``B*``, the model's ``B*(S)`` and ``S_max``."""
    return [
        ("", ""),
        ("turning points", ""),
        ("  B* (J07: compute = weight read)", shown_up(e.batch_turning_point, None, 1)),
        ("  B*(S) (compute = weights + KV read)", shown_up(e.batch_turning_point_kv, None, 1)),
        ("  S_max (no batch is compute-bound)", shown_up(e.critical_context, "tokens", 0)),
    ]


def _capacity_rows(e) -> list:
    """The capacity inequality per card and the largest batch."""
    mem = e.memory
    return [
        ("", ""),
        (f"capacity{_per(e)}", ""),
        ("  weights", shown_up(mem.weights, "GB", 2)),
        ("  KV cache", f"{shown_up(mem.kv, 'GB', 2)} "
                       f"({shown_up(e.kv_bytes_per_token_per_card, 'KiB', 0)}/token)"),
        ("  workspace", shown_up(mem.workspace, "GB", 2)),
        ("  total / capacity", f"{shown_up(mem.total, 'GB', 2)} / {shown_up(mem.capacity, 'GB', 2)} "
                               f"({shown_up(mem.capacity, 'GiB', 0)})"),
        ("  fits", "yes" if e.fits
         else f"NO: short by {shown_up(-mem.headroom, 'GB', 2)}; the times above assume it did"),
        ("  max batch at this context", _count(e.max_batch)),
    ]


def _request_rows(e) -> list:
    """The whole request, with a prompt; nothing without one."""
    g = e.request
    if g is None:
        return []
    return [
        ("", ""),
        (f"request: {_count(g.prompt_tokens)} prompt + {_count(g.output_tokens)} output tokens", ""),
        ("  TTFT, time to first token (prefill)",
         f"{shown_up(g.ttft, 'ms', 2)}  [{g.prefill.bound}-bound]"),
        ("  TPOT, time per output token (mean)",
         f"{shown_up(g.tpot, 'ms', 3)} over contexts {_count(g.prompt_tokens + 1)}.."
         f"{_count(g.max_context)}"
         if g.output_tokens > 1 else "none (one output token: no decode step)"),
        ("  total", shown_up(g.total, "s", 3)),
        ("  tokens/s per request / in total",
         f"{shown_up(g.tokens_per_s_request, None, 1)} / {shown_up(g.tokens_per_s_total, None, 1)}"),
        (f"  memory{_per(e)} at {_count(g.max_context)} tokens", shown_up(g.memory_per_card, "GB", 2)),
        ("  fits", "yes" if g.fits else "NO: the times above assume it did"),
    ]


def _fit_rows(e) -> list:
    """The closing line unless everything fits (``everything_fits``): the longest context
    that does not."""
    if e.everything_fits:
        return []
    g = e.request
    ctx = max(s for s, ok in ((e.context, e.memory.fits),
                              (g and g.max_context, g is None or g.fits)) if not ok)
    return [("", ""), ("DOES NOT FIT", f"{e.model.name}, {_count(e.batch)} requests x {_count(ctx)} "
                                       f"tokens of context, needs more than {_count(e.cards)} x "
                                       f"{e.hw.name} hold")]
