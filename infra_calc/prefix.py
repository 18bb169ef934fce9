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
from .bound import Bounds, bounds
from .capacity import CapacityCheck, HoldsMemory
from .decode import decode_coefficients
from .prefill import prefill_step_of
from .workload import ModelOnCard, Workload

__all__ = ["SharedPrefixStep", "shared_prefix_step", "CachedPrefill", "cached_prefill_step",
           "mean_ttft"]


# ------------------------------------------------------------------ a shared prefix
def _tokens_within(tokens, most, name, of):
    """``tokens`` checked: whole, >= 0 and at most ``most`` (named ``of`` in the message)."""
    p = check_int(tokens, name, "tokens", minimum=0)
    if np.any(np.asarray(p) > np.asarray(most)):
        raise ValueError(f"{name} (tokens) must be at most {of} ({np.max(most)} tokens), "
                         f"got {np.max(p)}")
    return p


@dataclass(frozen=True)
class SharedPrefixStep(HoldsMemory, Bounds, ModelOnCard):
    """Result of :func:`shared_prefix_step` (SI units; one card): a decode-step floor.

    Its times and labels are the :class:`~infra_calc.bound.Bounds` of the step's FLOPs and
    bytes (one card: ``t_comm = 0``, so ``t_step = t_floor``).
    """

    #: Requests decoded together, ``B``.
    batch: int | np.ndarray
    #: KV-cache tokens per request, ``S`` (the shared prefix included).
    context: int | np.ndarray
    #: Tokens of the prefix every request shares, ``S_p``.
    prefix_tokens: int | np.ndarray
    #: Weight bytes read, ``R_W(B)``.
    weight_bytes: float | np.ndarray
    #: KV bytes read (and held), ``S_p m_kv + B (S − S_p) m_kv``.
    kv_bytes: float | np.ndarray
    #: KV bytes the same step reads without sharing, ``B S m_kv``.
    kv_bytes_unshared: float | np.ndarray
    #: FLOPs: ``2 B N_mm + 4 B S L H d_h`` (every query still attends to all ``S`` tokens).
    flops: float | np.ndarray
    #: Weights + KV cache + workspace each card holds, against its capacity
    #: (``memory_per_card`` and ``fits`` read it); nothing is refused when it does not fit.
    memory: CapacityCheck


def shared_prefix_step(model, hw=None, *, batch=None, context=None, prefix_tokens,
                       bytes_per_param=None, kv_bytes_per_element=None, math=None,
                       routing=None, workspace=None) -> SharedPrefixStep:
    """A decode step whose ``B`` requests share their first ``S_p`` cached tokens (one card).

    A kernel that reads the shared prefix's keys and values once for the
    whole batch (cascade attention) reads

    .. math:: R = R_W(B) + \\big(S_p + B\\,(S - S_p)\\big)\\,m_{kv}

    instead of :math:`R_W(B) + BSm_{kv}`; the FLOPs do not change, since every
    query still attends to all ``S`` tokens.  The cache is held once for the
    prefix too.  Both caches are :func:`~infra_calc.capacity.kv_cache_bytes` (the prefix's
    of one request, the rest of ``B``).  With ``B = 1`` or ``S_p = 0`` this is
    :func:`~infra_calc.decode.model_decode_step`.

    Parameters
    ----------
    model, hw, batch, context
        As for :func:`~infra_calc.decode.model_decode_step`.
    prefix_tokens : int or array_like, keyword-only
        ``S_p``, tokens shared by every request (0 to ``context``).
    bytes_per_param, kv_bytes_per_element, math, routing, workspace : keyword-only
        As for :func:`~infra_calc.decode.model_decode_step`.
    """
    w = Workload.of(model, hw, batch=batch, context=context, bytes_per_param=bytes_per_param,
                    kv_bytes_per_element=kv_bytes_per_element, math=math, routing=routing,
                    workspace=workspace)
    check_one_card(w, "shared_prefix_step")
    sp = _tokens_within(prefix_tokens, w.context, "prefix_tokens", "context")
    c = decode_coefficients(w)
    s = np.asarray(w.context, dtype=float)
    kv_cached = (np.asarray(w.kv_bytes_per_card(sp, batch=1))           # held and read
                 + w.kv_bytes_per_card(np.asarray(w.context) - sp))
    kv = kv_cached + 0.0 * c.weight_bytes
    f = c.flops_linear + c.attention_flops_per_token * s
    t = bounds(f, c.weight_bytes + kv, w.hw, math=w.math)
    return SharedPrefixStep(
        **vars(t), model=w.model, hw=w.hw, batch=w.batch, context=w.context,
        prefix_tokens=sp,
        weight_bytes=unwrap(c.weight_bytes + 0.0 * kv), kv_bytes=unwrap(kv),
        kv_bytes_unshared=unwrap(w.kv_bytes_per_card() + 0.0 * kv),
        flops=unwrap(f + 0.0 * kv), memory=w.memory_at(kv=kv_cached, like=kv))


@dataclass(frozen=True)
class CachedPrefill(HoldsMemory, Bounds, ModelOnCard):
    """Result of :func:`cached_prefill_step` (SI units; every size per card): a TTFT floor.

    Its times and labels are the :class:`~infra_calc.bound.Bounds` of the pass: ``t_floor``
    of the FLOPs and bytes below, ``t_comm`` the new tokens' all-reduces (0 on one card),
    ``t_step = t_floor + t_comm`` the time to first token on idle cards.
    """

    #: Prompt tokens per request, ``P``.
    prompt_tokens: int | np.ndarray
    #: Of them, already cached, ``P_c``.
    cached_tokens: int | np.ndarray
    #: Prompts prefilled together, ``B`` (sharing the cached prefix).
    batch: int
    #: Tensor-parallel cards ``n``.
    cards: int
    #: FLOPs each card does: the ``P − P_c`` new tokens' products and their attention over all
    #: earlier tokens.
    flops: float | np.ndarray
    #: Bytes each card moves: weights for the new tokens + their cache written + the cached
    #: prefix read once.
    bytes_read: float | np.ndarray
    #: Of ``bytes_read``, the cached prefix's keys and values, ``P_c m_kv`` (per card).
    prefix_kv_bytes: float | np.ndarray
    #: Weights + the cache after the pass (the prefix once, shared by the batch, and every
    #: request's new tokens, :math:`(P_c + B\,n)\,m_{kv}`) + workspace, per card, against the
    #: card's capacity (``memory_per_card`` and ``fits`` read it); nothing is refused.
    memory: CapacityCheck


def cached_prefill_step(model, hw=None, *, batch=None, prompt_tokens, cached_tokens, cards=None,
                        bytes_per_param=None, kv_bytes_per_element=None, math=None,
                        routing=None, workspace=None, comm="ring",
                        overlap_comm=False) -> CachedPrefill:
    """Prefill of prompts whose first ``P_c`` tokens are already in the cache.

    Only the ``n = P − P_c`` new tokens go through the weights, but each still
    attends to every token before it, the cached ones included:

    - the pass of the ``n`` new tokens (:func:`~infra_calc.prefill.prefill_step` of ``n``
      tokens: its FLOPs, bytes and all-reduces), plus the new tokens' attention over the
      prefix, :math:`4BLHd_h\\,P_c\\,n`; in all
      :math:`2BnN_{body} + 2BVd + 2BLHd_h\\,(P(P+1) - P_c(P_c+1))` FLOPs;
    - bytes: the weights touched by ``Bn`` tokens, the cache written,
      :math:`Bnm_{kv}`, and the cached prefix read once, :math:`P_cm_{kv}`
      (shared by the batch; both :func:`~infra_calc.capacity.kv_cache_bytes`).

    With ``cards > 1`` each card does its share and reads its KV heads' prefix, and the
    new tokens' all-reduces are ``t_comm``, as in :func:`~infra_calc.prefill.prefill_step`.
    With ``P_c = 0`` this is :func:`~infra_calc.prefill.prefill_step`.

    Parameters
    ----------
    model, hw
        As for :func:`~infra_calc.prefill.prefill_step`.
    batch : int, keyword-only
        ``B`` prompts prefilled together, sharing the cached prefix.
    prompt_tokens : int or array_like, keyword-only
        ``P`` (>= 1), required.
    cached_tokens : int or array_like, keyword-only
        ``P_c``, tokens already cached (0 to ``P − 1``: the last prompt token
        must run to give the first output token), required.
    cards, bytes_per_param, kv_bytes_per_element, math, routing, workspace, comm, overlap_comm
        As for :func:`~infra_calc.prefill.prefill_step` (keyword-only).

    A size or precision left at None takes the :class:`~infra_calc.workload.Workload`'s default.
    """
    p = check_int(prompt_tokens, "prompt_tokens", "tokens", minimum=1)
    pc = _tokens_within(cached_tokens, np.asarray(p) - 1, "cached_tokens", "prompt_tokens − 1")
    w = Workload.of(model, hw, batch=batch, cards=cards, bytes_per_param=bytes_per_param,
                    kv_bytes_per_element=kv_bytes_per_element, math=math, routing=routing,
                    workspace=workspace)
    check_single_sizes(w, "batch", "cards")
    w.model.check_context(p, name="prompt_tokens")
    n = np.asarray(p) - np.asarray(pc)
    new = prefill_step_of(w, n, comm=comm, overlap_comm=overlap_comm)   # the new tokens', per card
    pcf = np.asarray(pc, dtype=float)
    # the new tokens' attention over the prefix, split per card
    f = np.asarray(new.flops) + w.model.attention_flops(tokens=w.batch * n, context=pcf) / w.cards
    prefix_kv = np.asarray(w.kv_bytes_per_card(pc, batch=1)) + 0.0 * n
    r = np.asarray(new.bytes_read) + prefix_kv
    t = bounds(f, r, w.hw, t_comm=new.t_comm, overlap_comm=overlap_comm, math=w.math)
    return CachedPrefill(**vars(t), model=w.model, hw=w.hw, prompt_tokens=p, cached_tokens=pc,
                         batch=w.batch, cards=w.cards, flops=unwrap(f), bytes_read=unwrap(r),
                         prefix_kv_bytes=unwrap(prefix_kv),
                         memory=w.memory_at(kv=prefix_kv + w.kv_bytes_per_card(n),
                                            like=t.t_read))


def mean_ttft(hit_rate, *, t_hit, t_miss):
    """Mean time to first token when a share ``h`` of requests finds its prefix cached: a **model**.

    .. math:: \\bar T = h\\,T_{hit} + (1-h)\\,T_{miss}

    The hit rate is a property of the traffic (how many requests share a
    system prompt or a conversation), not of the card; only ``T_hit`` and
    ``T_miss`` are floors.

    Parameters
    ----------
    hit_rate : float or array_like
        ``h``, share of requests whose prefix is cached (0 to 1).
    t_hit, t_miss : float or array_like, keyword-only
        The two floors, seconds (>= 0): required and by name, since two times could trade
        places unseen.

    >>> mean_ttft(0.25, t_hit=0.1, t_miss=0.5)
    0.4
    """
    h = np.asarray(check_number(hit_rate, "hit_rate", "share of requests, 0 to 1",
                                allow_zero=True, maximum=1.0), dtype=float)
    th = check_number(t_hit, "t_hit", "s", allow_zero=True)
    tm = check_number(t_miss, "t_miss", "s", allow_zero=True)
    return unwrap(h * np.asarray(th) + (1.0 - h) * np.asarray(tm))


