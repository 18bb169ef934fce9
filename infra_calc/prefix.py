"""A prefix the whole batch shares, or one already cached: the levers of chapter 3, page 6.

:func:`shared_prefix_step`: ``S_p`` tokens of cache shared by the whole batch and read
once per step (cascade attention); :func:`cached_prefill_step`: the prefill of a prompt
whose first ``P_c`` tokens are already cached (prefix caching); :func:`mean_ttft`: the
mean over a hit rate (a **model**).  Bounded as every step, with
:func:`~infra_calc.bound.bounds`; :mod:`infra_calc.levers` has the other levers.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import check_int, check_number, check_one_card, check_single_sizes, unwrap
from .bound import bounds
from .capacity import CapacityCheck, HoldsMemory
from .decode import decode_coefficients
from .prefill import prefill_counts
from .workload import ModelOnCard, Workload

__all__ = ["SharedPrefixStep", "shared_prefix_step", "CachedPrefill", "cached_prefill_step",
           "mean_ttft"]


# ------------------------------------------------------------------ a shared prefix
def _prefix(prefix, context, name="prefix", of="context"):
    p = check_int(prefix, name, "tokens", minimum=0)
    if np.any(np.asarray(p) > np.asarray(context)):
        raise ValueError(f"{name} (tokens) must be at most {of} ({np.max(context)} tokens), "
                         f"got {np.max(p)}")
    return p


@dataclass(frozen=True)
class SharedPrefixStep(HoldsMemory, ModelOnCard):
    """Result of :func:`shared_prefix_step` (SI units; one card): a decode-step floor."""

    #: Requests decoded together, ``B``.
    batch: int | np.ndarray
    #: KV-cache tokens per request, ``S`` (the shared prefix included).
    context: int | np.ndarray
    #: Tokens of the prefix every request shares, ``S_p``.
    prefix: int | np.ndarray
    #: Weight bytes read, ``R_W(B)``.
    weight_bytes: float | np.ndarray
    #: KV bytes read, ``(S_p + B (S − S_p)) m_kv``.
    kv_bytes: float | np.ndarray
    #: KV bytes the same step reads without sharing, ``B S m_kv``.
    kv_bytes_unshared: float | np.ndarray
    #: FLOPs: ``2 B N_mm + 4 B S L H d_h`` (every query still attends to all ``S`` tokens).
    flops: float | np.ndarray
    #: Read bound, seconds.
    t_read: float | np.ndarray
    #: Compute bound, seconds.
    t_compute: float | np.ndarray
    #: The floor, seconds.
    t_step: float | np.ndarray
    #: ``"compute"`` or ``"memory"`` (a tie is compute).
    bound: str | np.ndarray
    #: Weights + KV cache + workspace each card holds, against its capacity
    #: (``memory_per_card`` and ``fits`` read it); nothing is refused when it does not fit.
    memory: CapacityCheck


def shared_prefix_step(model, hw=None, *, batch=None, context=None, prefix,
                       bytes_per_param=None, kv_bytes_per_element=None, math=None,
                       routing=None, workspace=None) -> SharedPrefixStep:
    """A decode step whose ``B`` requests share their first ``S_p`` cached tokens (one card).

    A kernel that reads the shared prefix's keys and values once for the
    whole batch (cascade attention) reads

    .. math:: R = R_W(B) + \\big(S_p + B\\,(S - S_p)\\big)\\,m_{kv}

    instead of :math:`R_W(B) + BSm_{kv}`; the FLOPs do not change, since every
    query still attends to all ``S`` tokens.  The cache is held once for the
    prefix too.  With ``B = 1`` or ``S_p = 0`` this is
    :func:`~infra_calc.decode.model_decode_step`.

    Parameters
    ----------
    model, hw, batch, context
        As for :func:`~infra_calc.decode.model_decode_step`.
    prefix : int or array_like, keyword-only
        ``S_p``, tokens shared by every request (0 to ``context``).
    bytes_per_param, kv_bytes_per_element, math, routing, workspace : keyword-only
        As for :func:`~infra_calc.decode.model_decode_step`.
    """
    w = Workload.of(model, hw, batch=batch, context=context, bytes_per_param=bytes_per_param,
                    kv_bytes_per_element=kv_bytes_per_element, math=math, routing=routing,
                    workspace=workspace)
    check_one_card(w, "shared_prefix_step")
    sp = np.asarray(_prefix(prefix, w.context), dtype=float)
    c = decode_coefficients(w)
    b = np.asarray(w.batch, dtype=float)
    s = np.asarray(w.context, dtype=float)
    kv_cached = (sp + b * (s - sp)) * np.asarray(w.kv_bytes_per_token_per_card)   # held and read
    kv = kv_cached + 0.0 * c.weight_bytes
    f = c.flops_linear + c.attention_flops_per_token * s
    t = bounds(f, c.weight_bytes + kv, w.hw, math=w.math)
    return SharedPrefixStep(
        model=w.model, hw=w.hw, batch=w.batch, context=w.context, prefix=unwrap(sp, int),
        weight_bytes=unwrap(c.weight_bytes + 0.0 * kv), kv_bytes=unwrap(kv),
        kv_bytes_unshared=unwrap(c.kv_bytes_per_token * s + 0.0 * kv),
        flops=unwrap(f + 0.0 * kv), t_read=t.t_read, t_compute=t.t_compute, t_step=t.t_floor,
        bound=t.floor_bound, memory=w.memory_at(kv=kv_cached, like=kv))


@dataclass(frozen=True)
class CachedPrefill(HoldsMemory, ModelOnCard):
    """Result of :func:`cached_prefill_step` (SI units; one card): a TTFT floor."""

    #: Prompt tokens per request, ``P``.
    prompt_tokens: int | np.ndarray
    #: Of them, already cached, ``P_c``.
    cached: int | np.ndarray
    #: Prompts prefilled together, ``B`` (sharing the cached prefix).
    batch: int
    #: FLOPs: the ``P − P_c`` new tokens' products and their attention over all earlier tokens.
    flops: float | np.ndarray
    #: Weights for the new tokens + their cache written + the cached prefix read once, bytes.
    bytes_read: float | np.ndarray
    #: Of ``bytes_read``, the cached prefix's keys and values, ``P_c m_kv``.
    prefix_kv_bytes: float | np.ndarray
    #: Read bound, seconds.
    t_read: float | np.ndarray
    #: Compute bound, seconds.
    t_compute: float | np.ndarray
    #: The floor of the pass, seconds: the time to first token on an idle card.
    t_step: float | np.ndarray
    #: ``"compute"`` or ``"memory"`` (a tie is compute).
    bound: str | np.ndarray
    #: Weights + the cache after the pass (the prefix once, shared by the batch, and every
    #: request's new tokens, :math:`(P_c + B\,n)\,m_{kv}`) + workspace, against the card's
    #: capacity (``memory_per_card`` and ``fits`` read it); nothing is refused.
    memory: CapacityCheck


def cached_prefill_step(model, hw=None, *, prompt_tokens, cached, batch=None,
                        bytes_per_param=None, kv_bytes_per_element=None, math=None,
                        routing=None, workspace=None) -> CachedPrefill:
    """Prefill of prompts whose first ``P_c`` tokens are already in the cache (one card).

    Only the ``n = P − P_c`` new tokens go through the weights, but each still
    attends to every token before it, the cached ones included:

    - FLOPs: :func:`~infra_calc.prefill.prefill_counts` of ``n`` tokens, plus
      the new tokens' attention over the prefix, :math:`4BLHd_h\\,P_c\\,n`;
      in all :math:`2BnN_{body} + 2BVd + 2BLHd_h\\,(P(P+1) - P_c(P_c+1))`;
    - bytes: the weights touched by ``Bn`` tokens, the cache written,
      :math:`Bnm_{kv}`, and the cached prefix read once, :math:`P_cm_{kv}`
      (shared by the batch).

    With ``P_c = 0`` this is :func:`~infra_calc.prefill.prefill_step` on one card.

    Parameters
    ----------
    model, hw
    prompt_tokens : int or array_like, keyword-only
        ``P`` (>= 1), required.
    cached : int or array_like, keyword-only
        ``P_c``, tokens already cached (0 to ``P − 1``: the last prompt token
        must run to give the first output token), required.
    batch : int, keyword-only
        ``B`` prompts prefilled together, sharing the cached prefix.
    bytes_per_param, kv_bytes_per_element, math, routing : keyword-only
        As for :func:`~infra_calc.prefill.prefill_step`.
    workspace : float, keyword-only
        Bytes of workspace on the card.

    A size or precision left at None takes the :class:`~infra_calc.workload.Workload`'s default.
    """
    p = check_int(prompt_tokens, "prompt_tokens", "tokens", minimum=1)
    pc = _prefix(cached, np.asarray(p) - 1, "cached", "prompt_tokens − 1")
    w = Workload.of(model, hw, batch=batch, bytes_per_param=bytes_per_param,
                    kv_bytes_per_element=kv_bytes_per_element, math=math, routing=routing,
                    workspace=workspace)
    check_single_sizes(w, "batch")
    w.model.check_context(p, name="prompt_tokens")
    spec = w.model
    n = np.asarray(p) - np.asarray(pc)
    c = prefill_counts(w, n)
    pcf = np.asarray(pc, dtype=float)
    f = c.flops + spec.attention_flops(tokens=w.batch * n, context=pcf)   # the new tokens over the prefix
    prefix_kv = pcf * w.kv_bytes_per_token
    r = c.bytes_read + prefix_kv
    t = bounds(f, r, w.hw, math=w.math)
    return CachedPrefill(model=spec, hw=w.hw, prompt_tokens=p, cached=pc, batch=w.batch,
                         flops=unwrap(f), bytes_read=unwrap(r), prefix_kv_bytes=unwrap(prefix_kv),
                         t_read=t.t_read, t_compute=t.t_compute, t_step=t.t_floor,
                         bound=t.floor_bound,
                         memory=w.memory_at(kv=(pcf + w.batch * n) * w.kv_bytes_per_token,
                                         like=t.t_read))


def mean_ttft(hit_rate, t_hit, t_miss):
    """Mean time to first token when a share ``h`` of requests finds its prefix cached: a **model**.

    .. math:: \\bar T = h\\,T_{hit} + (1-h)\\,T_{miss}

    The hit rate is a property of the traffic (how many requests share a
    system prompt or a conversation), not of the card; only ``T_hit`` and
    ``T_miss`` are floors.

    Parameters
    ----------
    hit_rate : float or array_like
        ``h``, share of requests whose prefix is cached (0 to 1).
    t_hit, t_miss : float or array_like
        The two floors, seconds (>= 0).
    """
    h = np.asarray(check_number(hit_rate, "hit_rate", "share of requests, 0 to 1",
                                allow_zero=True, maximum=1.0), dtype=float)
    th = check_number(t_hit, "t_hit", "s", allow_zero=True)
    tm = check_number(t_miss, "t_miss", "s", allow_zero=True)
    return unwrap(h * np.asarray(th) + (1.0 - h) * np.asarray(tm))


