"""Levers the floor assumes away: more tokens per weight pass (here), a shared prefix
(:mod:`infra_calc.prefix`), lower precision (:mod:`infra_calc.precision`).

Every floor of chapters 1–3 rests on three assumptions: a decode step emits
**one token per request** for one pass over the weights; every request reads
**its own** KV cache and prefills **its whole** prompt; the math runs at the
**BF16 peak** on weights of ``b_W`` bytes.  Each lever below drops one of them
and is bounded the same way, with :func:`~infra_calc.bound.bounds` on the bytes
and FLOPs the step must move and do:

- :func:`speculative_step`: a verify pass over ``k`` draft tokens per request
  processes ``B(k+1)`` tokens for one read of the weights; it can emit at most
  ``k+1`` tokens per request (a floor), and
  :func:`expected_tokens_per_step` is what it emits under i.i.d. acceptance
  (a **model**).  :func:`speculative_critical_context` and
  :func:`speculative_turning_batch` are ``S_max`` and ``B*`` of such a step.
- :func:`shared_prefix_step`: ``S_p`` tokens of cache shared by the whole
  batch and read once per step (cascade attention);
  :func:`cached_prefill_step`: the prefill of a prompt whose first ``P_c``
  tokens are already cached (prefix caching); :func:`mean_ttft`: the mean
  over a hit rate (a **model**).
- :func:`precision_point`: the ridge, ``B*``, ``S_max`` and ``P*`` when the
  math runs at another precision's dense peak
  (:meth:`~infra_calc.hardware.Accelerator.peak`) and the weights are stored
  in ``b_W`` bytes (every peak-bound function takes the precision as ``math=``).

Nothing here rewrites the two-bound step: each function counts its bytes and
FLOPs from :mod:`infra_calc.decode`, :mod:`infra_calc.kv` and
:mod:`infra_calc.prefill` and hands them to :func:`~infra_calc.bound.bounds`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import check_int, check_number, check_one_card, unwrap
from .bound import Bounds, bounds
from .capacity import CapacityCheck, HoldsMemory
from .decode import decode_coefficients, step_parts
from .kv import turning_points
from .workload import ModelOnCard, Workload

__all__ = ["expected_tokens_per_step", "SpeculativeStep", "speculative_step",
           "speculative_critical_context", "speculative_turning_batch"]


# ------------------------------------------------------------ tokens per weight pass
def _draft_tokens(draft_tokens):
    return check_int(draft_tokens, "draft_tokens", "tokens per request", minimum=0)


def _acceptance(acceptance):
    a = check_number(acceptance, "acceptance", "probability per draft token, 0 to 1",
                     allow_zero=True, maximum=1.0)
    return np.asarray(a, dtype=float)


def expected_tokens_per_step(draft_tokens, *, acceptance):
    """Tokens a verify step emits per request under i.i.d. acceptance: a **model**, not a floor.

    Each of the ``k`` draft tokens is accepted with probability ``α``,
    independently, and the first rejection ends the run; the verify pass
    always adds one token of its own (the correction, or the next token after
    ``k`` accepted drafts).  The expected count is

    .. math:: E[n] = \\sum_{j=0}^{k} \\alpha^j = \\frac{1 - \\alpha^{k+1}}{1 - \\alpha}

    (``k + 1`` at ``α = 1``; 1 at ``k = 0``).  Real acceptance is neither
    independent nor constant along a run; ``k + 1`` is the only bound.

    Parameters
    ----------
    draft_tokens : int or array_like
        ``k`` (>= 0), draft tokens verified per request per step.
    acceptance : float or array_like, keyword-only
        ``α``, probability that a draft token is accepted (0 to 1).

    >>> round(float(expected_tokens_per_step(4, acceptance=0.8)), 4)
    3.3616
    """
    k = np.asarray(_draft_tokens(draft_tokens), dtype=float)
    a = _acceptance(acceptance)
    with np.errstate(divide="ignore", invalid="ignore"):
        geo = (1.0 - a ** (k + 1.0)) / (1.0 - a)
    return unwrap(np.where(a >= 1.0, k + 1.0, geo))


@dataclass(frozen=True)
class SpeculativeStep(HoldsMemory, Bounds, ModelOnCard):
    """Result of :func:`speculative_step` (SI units: seconds, bytes, FLOPs; one card).

    Its times and labels are the verify pass's :class:`~infra_calc.bound.Bounds` (one card:
    ``t_comm = 0``, so ``t_step = t_floor``, the verify pass's floor).  The floor fields
    (``t_step``, ``t_round_floor``, ``t_per_token_floor``) are lower bounds of any schedule,
    ``t_round`` and ``t_per_token_serial`` of the serial one; the fields that use
    ``acceptance`` (``tokens_expected``, ``t_per_token_expected``, ``rejected_*``) rest on
    the i.i.d. acceptance **model**.
    """

    #: Requests verified together, ``B``.
    batch: int | np.ndarray
    #: KV-cache tokens per request before the step, ``S``.
    context: int | np.ndarray
    #: Draft tokens verified per request, ``k``.
    draft_tokens: int | np.ndarray
    #: Tokens through the weights this pass, ``B (k + 1)``.
    tokens: float | np.ndarray
    #: Weight bytes read once for the ``B (k+1)`` tokens, ``R_W(B(k+1))``.
    weight_bytes: float | np.ndarray
    #: KV-cache bytes read, ``B S m_kv`` (each request's cache once, for all its k+1 queries).
    kv_bytes: float | np.ndarray
    #: Bytes read, ``R``.
    bytes_read: float | np.ndarray
    #: FLOPs of the matrix products, ``2 B (k+1) N_mm``.
    flops_linear: float | np.ndarray
    #: FLOPs of attention, ``4 B L H d_h ((k+1) S + k(k+1)/2)``.
    flops_attention: float | np.ndarray
    #: FLOPs, ``F``.
    flops: float | np.ndarray
    #: The draft's own ``k`` decode steps at batch ``B`` and context ``S`` (a floor), seconds;
    #: 0 without a draft model (draft heads or a lookup, counted as free).
    t_draft: float | np.ndarray
    #: ``t_step + t_draft``, seconds: one round with drafting and verifying **in series**
    #: over the whole batch (the floor of that serial schedule, not of every schedule).
    t_round: float | np.ndarray
    #: Floor of one round under any schedule, ``max(ΣF/Π, ΣR/β)`` over the verify pass and
    #: the ``k`` draft steps together, seconds (:func:`~infra_calc.bound.bounds`): a schedule
    #: may overlap one sub-batch's memory-bound drafting with another's compute-bound verify.
    #: The same concept as :attr:`GenerationTime.floor_any_schedule
    #: <infra_calc.generation.GenerationTime.floor_any_schedule>` (there over a request's
    #: prefill and decode steps).
    t_round_floor: float | np.ndarray
    #: ``t_round_floor / (k + 1)``: no round can emit more than ``k + 1`` tokens per request,
    #: seconds (a floor of any schedule).
    t_per_token_floor: float | np.ndarray
    #: ``t_round / (k + 1)``, seconds: the per-token floor of the serial schedule.
    t_per_token_serial: float | np.ndarray
    #: Probability per draft token of the acceptance model (``nan`` when none was given).
    acceptance: float | np.ndarray
    #: ``(1 − α^(k+1)) / (1 − α)``: tokens per request per round under the model.
    tokens_expected: float | np.ndarray
    #: ``t_round / tokens_expected``, seconds per token under the model.
    t_per_token_expected: float | np.ndarray
    #: Share of the verify pass's matrix FLOPs spent on tokens the model expects to be
    #: rejected, ``1 − tokens_expected / (k + 1)``.
    rejected_share: float | np.ndarray
    #: KV bytes written for rejected tokens and thrown away, ``B (k + 1 − E[n]) m_kv``: the
    #: cache of the pass's ``k + 1`` tokens per request times ``rejected_share``.
    rejected_kv_bytes: float | np.ndarray
    #: Weights + KV cache + workspace each card holds, against its capacity
    #: (``memory_per_card`` and ``fits`` read it); nothing is refused when it does not fit.
    memory: CapacityCheck


def _verify_counts(w: Workload, k):
    """Bytes and FLOPs of a verify pass of ``k`` drafts per request (one card)."""
    b = np.asarray(w.batch, dtype=float)
    kf = np.asarray(k, dtype=float)
    tok = w.with_(batch=np.asarray(w.batch) * (np.asarray(k) + 1))
    per_tok = decode_coefficients(tok)            # weights and matrix products of B(k+1) tokens
    s = np.asarray(w.context, dtype=float)
    kv = w.kv_bytes_per_card()                    # each request's cache, once: B S m_kv
    f_att = b * w.model.causal_attention_flops(kf + 1.0, context=s)
    return [np.asarray(x, dtype=float) + 0.0 * s * kf for x in
            (b * (kf + 1.0), per_tok.weight_bytes, kv, per_tok.flops_linear, f_att)]


def speculative_step(model, hw=None, *, batch=None, context=None, draft_tokens, acceptance=None,
                     draft=None, bytes_per_param=None, kv_bytes_per_element=None, math=None,
                     routing=None, workspace=None) -> SpeculativeStep:
    """One draft-and-verify round: ``B`` requests, ``k`` draft tokens each, one card.

    The verify pass runs the ``k`` drafts and the last accepted token of each
    request, ``B(k+1)`` tokens, through the weights in one pass:

    - bytes: the weights touched by ``B(k+1)`` tokens (:func:`~infra_calc.decode.decode_coefficients`:
      every shared weight once, one gathered row per token, ``k`` experts per
      MoE layer for the floor) and each request's cache once, :math:`BSm_{kv}`
      (its ``k+1`` queries share the read);
    - FLOPs: :math:`2B(k+1)N_{mm}` and causal attention, the ``j``-th new token
      seeing ``S + j`` earlier ones: :math:`4BLHd_h\\,((k+1)S + k(k+1)/2)`;
    - :math:`T_{verify} = \\max(R/\\beta, F/\\Pi)` (:func:`~infra_calc.bound.bounds`).

    With ``k = 0`` this is :func:`~infra_calc.decode.model_decode_step`.  A
    round emits at most ``k+1`` tokens per request.  Drafting and verifying **in series**
    over the whole batch take :math:`T_{verify} + T_{draft}` per round
    (``t_round``; ``t_per_token_serial`` per token), the floor of that
    schedule only.  Any schedule (one sub-batch drafting while another
    verifies) needs at least :math:`\\max(\\Sigma F/\\Pi, \\Sigma R/\\beta)`
    per round, the FLOPs and bytes of the verify pass and the ``k`` draft
    steps together (``t_round_floor``); divided by ``k+1`` it is the floor
    per token (``t_per_token_floor``).  The two agree without a draft model
    and when every pass is memory-bound (``B = 1``).  ``acceptance`` adds
    the i.i.d. model's :func:`expected_tokens_per_step` (per serial round).
    Once ``B(k+1)`` passes the turning point the verify pass is
    compute-bound: its time grows with ``k+1`` and the serial floor per
    token stops falling (the math per token is the same with or without
    speculation).

    Parameters
    ----------
    model : ModelSpec, str or Workload
        The target model.
    hw : Accelerator, str or None
        Required with a model; with a Workload, None (its card) or the same card
        (:meth:`Workload.of <infra_calc.workload.Workload.of>`).
    batch : int or array_like
        ``B`` (>= 1; left at None, the :class:`~infra_calc.workload.Workload`'s
        default).
    context : int or array_like
        ``S`` (>= 0; left at None, the Workload's default), tokens of cache per
        request before the round.
    draft_tokens : int or array_like, keyword-only
        ``k`` (>= 0), draft tokens verified per request.
    acceptance : float or array_like, keyword-only
        ``α`` (0 to 1) of the acceptance model; without it the model's fields are ``nan``.
    draft : ModelSpec or str, keyword-only
        The draft model, whose ``k`` decode steps (batch ``B``, context ``S``,
        same bytes and math as the target) are the round's extra cost; None
        (default) counts drafting as free (draft heads, prompt lookup).
    bytes_per_param, kv_bytes_per_element, math, routing, workspace : keyword-only
        As for :func:`~infra_calc.decode.model_decode_step`.
    """
    k = _draft_tokens(draft_tokens)
    w = Workload.of(model, hw, batch=batch, context=context, bytes_per_param=bytes_per_param,
                    kv_bytes_per_element=kv_bytes_per_element, math=math, routing=routing,
                    workspace=workspace)
    check_one_card(w, "speculative_step")
    return _speculative_round(w, k, draft, acceptance)


def _draft_steps(w: Workload, k, draft):
    """The draft model's ``k`` decode steps at ``w``'s batch, context, byte widths and math:
    ``(seconds, FLOPs, bytes, weights held, cache held)``, zeros without a draft.  A floor
    (``k`` experts per layer for a MoE draft), with no workspace of its own."""
    kf = np.asarray(k, dtype=float)
    if draft is None:
        return 0.0 * kf, 0.0, 0.0, 0.0, 0.0
    d = w.with_(model=draft, workspace=0.0, routing="floor")
    t = step_parts(d)                                 # one card: t_floor is the step
    return (kf * np.asarray(t.t_floor), kf * np.asarray(t.counts.flops),
            kf * np.asarray(t.counts.bytes_read), d.resident_weight_bytes(), d.kv_bytes_per_card())


def _acceptance_model(k, acceptance, like):
    """``(α, E[n])`` of the i.i.d. acceptance model, ``(nan, nan)`` shaped like ``like`` without one."""
    if acceptance is None:
        return np.nan, np.full_like(like, np.nan)
    a = _acceptance(acceptance)
    return a, np.asarray(expected_tokens_per_step(k, acceptance=a), dtype=float)


def _speculative_round(w: Workload, k, draft, acceptance) -> SpeculativeStep:
    """:func:`speculative_step` of a checked one-card workload ``w`` and checked ``k``."""
    tokens, wb, kv, f_lin, f_att = _verify_counts(w, k)
    acc = w.hw
    t = bounds(f_lin + f_att, wb + kv, acc, math=w.math)
    kf = np.asarray(k, dtype=float)
    t_draft, d_flops, d_bytes, d_weights, d_kv = _draft_steps(w, k, draft)
    t_round = np.asarray(t.t_step) + t_draft
    # the round's totals, verify pass and draft steps together: the floor of any schedule
    t_any = (np.asarray(bounds(f_lin + f_att + d_flops, wb + kv + d_bytes, acc, math=w.math).t_floor)
             + 0.0 * t_round)
    a, e = _acceptance_model(k, acceptance, t_round)
    rejected = 1.0 - e / (kf + 1.0)
    written = w.kv_bytes_per_card(np.asarray(k) + 1)  # the pass's k + 1 tokens per request
    return SpeculativeStep(
        **vars(t), model=w.model, hw=acc, batch=w.batch, context=w.context, draft_tokens=k,
        tokens=unwrap(tokens), weight_bytes=unwrap(wb), kv_bytes=unwrap(kv),
        bytes_read=unwrap(wb + kv), flops_linear=unwrap(f_lin), flops_attention=unwrap(f_att),
        flops=unwrap(f_lin + f_att), t_draft=unwrap(t_draft), t_round=unwrap(t_round),
        t_round_floor=unwrap(t_any), t_per_token_floor=unwrap(t_any / (kf + 1.0)),
        t_per_token_serial=unwrap(t_round / (kf + 1.0)), acceptance=unwrap(np.asarray(a)),
        tokens_expected=unwrap(e), t_per_token_expected=unwrap(t_round / e),
        rejected_share=unwrap(rejected), rejected_kv_bytes=unwrap(written * rejected),
        memory=w.memory_at(weights=w.resident_weight_bytes() + d_weights,
                           kv=w.kv_bytes_per_card() + d_kv, like=t_round))


def speculative_critical_context(model, hw=None, *, draft_tokens, bytes_per_param=None,
                                 kv_bytes_per_element=None, math=None):
    """``S_max`` of a verify pass with ``k`` drafts per request, tokens (not rounded).

    Per request the pass now does :math:`(k+1)` tokens' math against one read
    of the cache, so with :func:`~infra_calc.kv.per_request_terms` at zero
    context (``c_0 = 2N_{mm}``, ``r_0 = b_W d_{row}``) and per cached token
    (``c_a = 4LHd_h``, ``m_{kv}``):

    .. math:: S_{max}(k) = \\frac{(k+1)\\,c_0/\\Pi + \\tfrac{k(k+1)}{2}\\,c_a/\\Pi
                                  - (k+1)\\,r_0/\\beta}
                                 {m_{kv}/\\beta - (k+1)\\,c_a/\\Pi}

    (``inf`` when the denominator is not positive).  At ``k = 0`` it is
    :func:`~infra_calc.kv.critical_context`.  ``math`` picks the dense peak; no ``routing`` or
    ``workspace``, for the reasons :func:`~infra_calc.kv.critical_context` gives.

    Parameters
    ----------
    model, hw, draft_tokens, bytes_per_param, kv_bytes_per_element, math
        As for :func:`~infra_calc.levers.speculative_step`.
    """
    w = Workload.of(model, hw, bytes_per_param=bytes_per_param,
                    kv_bytes_per_element=kv_bytes_per_element, math=math)
    return turning_points(w, draft_tokens=_draft_tokens(draft_tokens))[1]


def speculative_turning_batch(model, hw=None, *, context=None, draft_tokens, bytes_per_param=None,
                              kv_bytes_per_element=None, math=None):
    """Batch at which a verify pass of ``k`` drafts per request turns compute-bound, requests.

    .. math:: B^*_k(S) = \\frac{R_0/\\beta}{c_k(S)/\\Pi - r_k(S)/\\beta},\\quad
              c_k = (k+1)c_0 + \\big((k+1)S + \\tfrac{k(k+1)}{2}\\big)c_a,\\quad
              r_k = (k+1)r_0 + S m_{kv}

    (``R_0`` the weights read once, with ``k_E`` experts per MoE layer: the
    floor's count; ``inf`` at and above :func:`speculative_critical_context`).
    At ``k = 0`` it is :func:`~infra_calc.kv.turning_batch`; at ``S = 0``,
    about :math:`B^*/(k+1)`.  Not rounded.

    Parameters
    ----------
    model, hw, context, draft_tokens, bytes_per_param, kv_bytes_per_element, math
        As for :func:`~infra_calc.levers.speculative_step`.
    """
    w = Workload.of(model, hw, context=context, bytes_per_param=bytes_per_param,
                    kv_bytes_per_element=kv_bytes_per_element, math=math)
    return turning_points(w, draft_tokens=_draft_tokens(draft_tokens))[0]
