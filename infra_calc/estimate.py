"""One model on one or more cards: what ``python -m infra_calc estimate`` prints.

:func:`estimate` builds one :class:`~infra_calc.workload.Workload`, checks it
and the request once, and hands that workload to the functions that take one
(:func:`~infra_calc.decode.step_parts`, :func:`~infra_calc.kv.turning_batch_of`,
:func:`~infra_calc.generation.generation_time_of`); for the cards given it computes
everything the command line shows:

- the decode step at ``context`` tokens per request, per card (one
  :func:`~infra_calc.decode.step_parts`, the same counts and bounds
  :func:`~infra_calc.decode.model_decode_step` builds: its floor, with ``k``
  experts per MoE layer; on several cards the all-reduces, a model; for a
  mixture of experts the step under uniform routing, a model too);
- the turning points: J07's :math:`B^* = b_W\\Pi/(2\\beta)` (weights only),
  and with the cache :math:`B^*(S)` and :math:`S_{max}` (:mod:`infra_calc.kv`);
- the capacity inequality per card, and the largest batch that fits;
- with a prompt, the whole request (:func:`~infra_calc.generation.generation_time`):
  time to first token, time per output token, total.

Every time is computed whether or not the configuration fits.  The estimate
embeds the workload's memory record as every chapter-3 result does
(:class:`~infra_calc.capacity.HoldsMemory`), so ``fits`` is the decode step's
(``memory.fits``); ``everything_fits`` adds the request's longest context
(the command line prints a line when it is False).
"""
from __future__ import annotations

import math
from dataclasses import KW_ONLY, asdict, dataclass, fields

import numpy as np

from ._estimate_table import table as _table
from ._validate import check_int, check_single_sizes
from .bound import Bounds, tokens_per_s
from .capacity import CapacityCheck, HoldsMemory
from .decode import step_parts
from .generation import (
    GenerationTime,
    check_request,
    generation_time_of,
    longest_context,
    output_room,
)
from .hardware import Accelerator
from .kv import turning_batch_of, turning_points
from .modelspec import ModelSpec
from .step import batch_turning_point, read_time_per_output
from .workload import Workload

__all__ = ["Estimate", "estimate", "default_context", "DEFAULT_CONTEXT", "DEFAULT_OUTPUT_TOKENS"]

#: Context per request when none is given and no request fixes one (capped by the model).
DEFAULT_CONTEXT = 8192
#: Output tokens of a request when only the prompt is given (capped by the model).
DEFAULT_OUTPUT_TOKENS = 256


@dataclass(frozen=True)
class Estimate(Bounds, HoldsMemory):
    """Everything :func:`estimate` computed (SI units; per card where it says so).

    Its times and labels are the decode step's :class:`~infra_calc.bound.Bounds`
    (``t_read``, ``t_compute``, ``t_floor``, ``t_comm``, ``t_step = t_floor + t_comm``,
    ``floor_bound``, ``bound``; the all-reduces a ring model with 1 µs per step, 0 on one
    card), taken from the one :func:`~infra_calc.decode.step_parts` the estimate computes.
    ``fits`` and ``memory_per_card`` read ``memory``, as on every result that holds one
    (:class:`~infra_calc.capacity.HoldsMemory`); :attr:`everything_fits` adds the request.
    """

    #: The model and accelerator, exactly as given.
    model: ModelSpec
    hw: Accelerator
    #: Stored bytes per weight ``b_W`` and per cached element.
    bytes_per_param: float
    kv_bytes_per_element: float
    #: Concurrent requests ``B``, tokens of cache per request ``S``, cards ``n``.
    batch: int
    context: int
    cards: int
    #: Where ``context`` came from: "given", "the request's last step" or "default".
    context_from: str
    #: Parameter ledger: stored, used per token, multiplied per decoded token.
    params: int
    active_params: int
    matmul_params: int
    #: Decode step, per card: bytes (weights + KV cache) and FLOPs.
    bytes_read: float
    flops: float
    #: ``t_read + t_compute + t_comm``: the step with nothing overlapped (the serial
    #: floor of :func:`~infra_calc.bound.bounds` plus the all-reduces).
    t_step_serial: float
    #: The decode step with the experts a batch hits under uniform routing (a model, not a
    #: floor), ``t_floor + t_comm`` of it; equal to ``t_step`` for a dense model.
    t_step_uniform_routing: float
    #: Throughput ``B / t_step``, tokens per second.
    tokens_per_s: float
    #: ``t_read / B`` (a throughput figure, not a latency).
    read_time_per_output: float
    #: J07's ``b_W Π / (2β)`` (weights only, no cache).
    batch_turning_point: float
    #: ``B*(S)`` of the model at ``context`` (inf at and above ``S_max``).
    batch_turning_point_kv: float
    #: ``S_max``: no batch is compute-bound at and above it.
    critical_context: float
    #: KV-cache bytes per token held on each card (the whole model's is
    #: :attr:`Workload.kv_bytes_per_token <infra_calc.workload.Workload.kv_bytes_per_token>`).
    kv_bytes_per_token_per_card: float
    #: Capacity per card: resident weights, KV cache at ``context``, workspace, their total,
    #: the headroom and whether the decode step fits (the workload's :attr:`Workload.memory`).
    memory: CapacityCheck
    #: Largest batch of ``context``-token requests that fits on each card.
    max_batch: int
    _: KW_ONLY                         # the optional fields by name only
    #: The whole request (None without a prompt).
    request: GenerationTime | None = None

    # ---------------------------------------------------------------- answers
    @property
    def everything_fits(self) -> bool:
        """Everything printed fits: the decode step (:attr:`fits`, ``memory.fits``) and, with
        a request, its longest context (``request.fits``)."""
        return bool(self.fits and (self.request is None or self.request.fits))

    def to_dict(self) -> dict:
        """Strict-JSON form: numbers in SI units; an infinite or undefined number is ``None``
        with its reason under ``"null_reasons"``.  ``fits`` (the decode step's) and
        ``everything_fits`` come first; ``memory`` holds the record's fields under their
        own names (``d["memory"]["total"]`` is ``estimate.memory.total``)."""
        out, reasons = {"fits": bool(self.fits), "everything_fits": self.everything_fits}, {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("model", "hw", "memory"):
                value = asdict(value)
            elif f.name == "request":
                value = None if value is None else _request_dict(value)
            out[f.name] = value
        for key, why in _NULL_WHY.items():
            v = out.get(key)
            if isinstance(v, float) and not math.isfinite(v):
                out[key] = None
                reasons[key] = why
        out["null_reasons"] = reasons
        return _finite(out)

    def table(self) -> str:
        """Readable lines (the command line's output)."""
        return _table(self)


_NULL_WHY = {
    "batch_turning_point_kv": "infinite: the context is at or above S_max, so no batch makes "
                              "the step compute-bound",
    "critical_context": "infinite: attention alone reaches the ridge point, so some batch is "
                        "compute-bound at every context",
}


def _request_dict(g: GenerationTime) -> dict:
    keys = ("prompt_tokens", "output_tokens", "ttft", "tpot", "tpot_last", "total",
            "decode_time", "tokens_per_s_request", "tokens_per_s_total", "max_context",
            "memory_per_card", "fits", "weight_read")
    out = {k: getattr(g, k) for k in keys}
    out["prefill_bound"] = g.prefill.bound
    return out


def _finite(x):
    """Replace any remaining inf/NaN by None (strict JSON); numpy scalars become Python ones."""
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    if isinstance(x, (np.floating, float)):
        return float(x) if math.isfinite(x) else None
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


def default_context(model, *, prompt=None, output_tokens=None) -> tuple[int, str]:
    """The context an estimate uses when none is given, and where it comes from.

    With a request, its last decode step's context ``P + O - 1``; otherwise
    :data:`DEFAULT_CONTEXT` tokens, capped at the model's
    ``max_position_embeddings`` (a default is never refused).
    """
    if prompt is not None:
        return longest_context(prompt_tokens=prompt, output_tokens=output_tokens), "the request's last step"
    limit = model.max_position_embeddings
    return (min(DEFAULT_CONTEXT, limit) if limit else DEFAULT_CONTEXT), "default"


def estimate(model, hw=None, *, batch=None, context=None, prompt_tokens=None,
             output_tokens=None, cards=None, bytes_per_param=None, kv_bytes_per_element=None,
             math=None, workspace=None) -> Estimate:
    """Estimate a decode step, the memory budget and (with ``prompt_tokens``) a whole request.

    Parameters
    ----------
    model : ModelSpec, str, path or Workload
        A catalog model name, a ``config.json`` path, a ``ModelSpec``, or a
        :class:`~infra_calc.workload.Workload` (its sizes are used; a size
        given here as well replaces the workload's, as in :meth:`Workload.of
        <infra_calc.workload.Workload.of>`).
    hw : Accelerator or str
        Required with a model; with a Workload, None (its card) or the same card.
    batch : int
        Concurrent requests, each decoding one token per step.
    context : int, optional
        Tokens of KV cache per request for the decode step (given with a
        Workload, it replaces the workload's).  Default: a Workload's own
        context unless it is 0 (a Workload's default, no cache: the estimate picks,
        as without one), else the request's last step ``P + O - 1``
        with a prompt, else :data:`DEFAULT_CONTEXT` capped by the model
        (:func:`default_context`).
    prompt_tokens : int, optional
        Prompt tokens ``P``: adds prefill (time to first token) and the request.
    output_tokens : int, optional
        Output tokens ``O`` (default 256 with a prompt, capped by the model).
    cards : int
        Tensor-parallel cards; every number (capacity included) is per card.
    bytes_per_param : float
        Stored bytes per weight (2 = BF16, 1 = 8-bit, 0.5 = 4-bit).
    kv_bytes_per_element : float
        Bytes per cached K/V element (2 = BF16).
    math : str, optional
        Math precision whose dense peak bounds the math
        (:meth:`~infra_calc.hardware.Accelerator.peak`).
    workspace : float
        Bytes per card for activations and buffers.

    A size or precision left at None (the byte widths, batch, workspace, cards, math) takes
    the :class:`~infra_calc.workload.Workload` default.  The command line's one summary, it
    takes no ``routing`` (it reports the floor's ``t_step`` and the uniform-routing model's
    beside it), ``weights``, ``comm`` or ``overlap_comm`` (its table names the touched
    weights and the ring all-reduces, added): :func:`~infra_calc.decode.model_decode_step`
    and :func:`~infra_calc.generation.generation_time` take them.

    Every parameter after ``hw`` is keyword-only, as in every function that takes a card.
    """
    w = Workload.of(model, hw, batch=batch, cards=cards, bytes_per_param=bytes_per_param,
                    kv_bytes_per_element=kv_bytes_per_element, math=math, workspace=workspace)
    if context is None and isinstance(model, Workload) and w.context:  # its own, unless empty
        context = w.context
    check_single_sizes(w, "batch", "cards")
    prompt, output = _request(w.model, prompt_tokens, output_tokens)
    if context is None:
        context, context_from = default_context(w.model, prompt=prompt, output_tokens=output)
    else:
        context_from = "given"
    w = w.with_(context=check_int(context, "context", "tokens", minimum=1, scalar=True))
    return _estimate_of(w, context_from, prompt, output)


def _request(spec, prompt, output_tokens):
    """``(P, O)`` of the request checked (:func:`~infra_calc.generation.check_request`), ``O``
    defaulting to :data:`DEFAULT_OUTPUT_TOKENS` capped by the model; ``(None, None)`` without
    a prompt."""
    if prompt is None:
        if output_tokens is not None:
            raise ValueError("output_tokens (tokens) needs prompt_tokens (tokens)")
        return None, None
    if output_tokens is None:  # the default fits when the prompt does
        p = check_int(prompt, "prompt_tokens", "tokens", minimum=1, scalar=True)
        limit = spec.max_position_embeddings or p + DEFAULT_OUTPUT_TOKENS
        output_tokens = max(1, min(DEFAULT_OUTPUT_TOKENS, output_room(prompt_tokens=p, limit=limit)))
    return check_request(spec, prompt_tokens=prompt, output_tokens=output_tokens)


def _estimate_of(w, context_from, prompt, output) -> Estimate:
    """The :class:`Estimate` of checked workload ``w`` (one batch, one card count, its context
    set) and checked request ``(prompt, output)`` (None, None: no request)."""
    spec, mem = w.model, w.memory
    st = step_parts(w)             # the decode step; every time below is read from it
    uniform = step_parts(w.with_(routing="uniform")) if spec.is_moe else st
    m_card = float(w.kv_bytes_per_token_per_card)
    return Estimate(
        **{f.name: getattr(st, f.name) for f in fields(Bounds)},
        model=spec, hw=w.hw, bytes_per_param=float(w.bytes_per_param),
        kv_bytes_per_element=float(w.kv_bytes_per_element), batch=int(w.batch),
        context=int(w.context), cards=int(w.cards), context_from=context_from,
        params=int(spec.params), active_params=int(spec.active_params),
        matmul_params=int(spec.matmul_params), bytes_read=float(st.counts.bytes_read),
        flops=float(st.counts.flops), t_step_serial=step_parts(w, overlap=False).t_step,
        t_step_uniform_routing=uniform.t_step, tokens_per_s=tokens_per_s(w.batch, st.t_step),
        read_time_per_output=read_time_per_output(st.t_read, w.batch),
        batch_turning_point=batch_turning_point(w.hw, bytes_per_param=w.bytes_per_param, math=w.math),
        batch_turning_point_kv=turning_batch_of(w), critical_context=turning_points(w)[1],
        kv_bytes_per_token_per_card=m_card, memory=mem,
        max_batch=w.max_batch(),
        request=None if prompt is None else generation_time_of(w, prompt_tokens=prompt,
                                                                output_tokens=output),
    )
