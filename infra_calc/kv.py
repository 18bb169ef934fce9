"""The KV cache joins the read: where compute catches up, and where it never can.

A decode step of ``B`` requests with ``S`` tokens of cache each
(:mod:`infra_calc.decode`) reads

.. math:: R(B) = b_W N_{r} + B\\,(b_W d_{row} + S\\,m_{kv}) \\;[+\\ \\text{experts hit}]

(``N_r`` the weights read once per step, :attr:`ModelSpec.shared_params`;
``d_row`` the gathered embedding row, ``d`` for an untied table) and computes

.. math:: F(B) = B\\,(2 N_{mm} + 4 S L H d_h).

Setting :math:`F/\\Pi = R/\\beta` gives the batch where compute catches up,
:math:`B^*(S)` (:func:`turning_batch`), and the context at and above which no
batch gets there, :math:`S_{max}` (:func:`critical_context`): there the
per-request math :math:`(2N_{mm} + 4SLHd_h)/\\Pi` no longer outpaces the
per-request read :math:`(b_W d_{row} + S m_{kv})/\\beta`.  For a mixture of
experts the read holds the experts the batch hits: ``k`` per layer for the
floor (``routing="floor"``, the default), and a count that grows with the
batch under the uniform-routing model (``routing="uniform"``), where
:math:`B^*` is solved numerically.  :math:`S_{max}` is the large-batch limit,
where the experts are read once per step and drop out per request, under
either routing.

The (batch, context) plane splits into three regions (:func:`decode_region`):
weight-read bound, KV-read bound, compute bound.

The four region functions (:func:`critical_context`, :func:`turning_batch`,
:func:`kv_weight_batch`, :func:`decode_region`) take a model (a
:class:`~infra_calc.modelspec.ModelSpec`, a catalog name, a ``config.json`` path
or a :class:`Workload`, which brings its own card) and the card, then
keyword-only sizes: the physics is the model's own account of a step, whatever
the type of the first argument.  The building blocks under them,
:func:`per_request_terms`, :func:`turning_points` (also used by
:mod:`infra_calc.levers`) and :func:`turning_batch_of` (the estimate's and the
precision lever's :math:`B^*(S)`), take one checked :class:`Workload` only.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from ._validate import check_one_card, unwrap
from .bound import crossover
from .decode import decode_coefficients, routed_expert_bytes, step_parts
from .workload import Workload

__all__ = ["critical_context", "turning_batch", "kv_weight_batch", "decode_region",
           "per_request_terms", "turning_points", "turning_batch_of"]


@dataclass(frozen=True)
class _LinearTerms:
    """One pass's per-card terms, linear in the batch ``B`` and the context ``S``: a pass of ``k``
    drafts per request reads ``shared_bytes + B(row_bytes + S kv_bytes_per_token)`` (routed experts
    apart) and computes ``B(flops + S attention_flops_per_token)``, each card's share as
    :func:`~infra_calc.decode.decode_coefficients` counts it."""

    #: ``R0``: the ledger's shared weights, read once per step whatever the batch, bytes.
    shared_bytes: np.ndarray
    #: ``r``: one request's gathered rows, ``k + 1`` of them
    #: (:attr:`~infra_calc.ledger.ParameterLedger.gathered_row_params`, split like the table), bytes.
    row_bytes: np.ndarray
    #: ``m``: one request's cache per cached token, bytes/token.
    kv_bytes_per_token: np.ndarray
    #: ``c``: one request's FLOPs whatever the cache (matrix products, causal attention of its
    #: ``k + 1`` tokens among themselves), FLOPs.
    flops: np.ndarray
    #: ``c_a``: one request's attention FLOPs per cached token, FLOPs/token.
    attention_flops_per_token: np.ndarray


def _linear_terms(w: Workload, draft_tokens=0) -> _LinearTerms:
    """The :class:`_LinearTerms` of a pass of ``draft_tokens`` (``k``) per request of ``w``."""
    q = np.asarray(draft_tokens, dtype=float) + 1.0       # tokens per request through the weights
    spec, n = w.model, np.asarray(w.cards, dtype=float)
    one = decode_coefficients(w.with_(batch=1))
    row = spec.gathered_row_params * w.bytes_per_param / n
    return _LinearTerms(
        shared_bytes=np.asarray(w.share.of(spec, spec.shared_params)) * w.bytes_per_param,
        row_bytes=q * row, kv_bytes_per_token=one.kv_bytes_per_token,
        flops=q * one.flops_linear + spec.causal_attention_flops(q) / n,
        attention_flops_per_token=q * one.attention_flops_per_token)


def per_request_terms(w: Workload, *, draft_tokens=0):
    """``(R0, r1, c1)`` of workload ``w``, per card, at its context (arrays broadcast).

    ``R0``: bytes read once per step whatever the batch (the shared weights);
    ``r1``: bytes each request adds (its gathered row and its cache);
    ``c1``: FLOPs each request adds (its matrix products and its attention).
    A dense step then reads ``R0 + B r1`` and computes ``B c1``, as
    :func:`~infra_calc.decode.decode_coefficients` counts it.  For a mixture of
    experts the routed experts come on top of ``R0``
    (:func:`~infra_calc.decode.routed_expert_bytes`).  ``draft_tokens`` (``k``, keyword-only,
    default 0): the terms of a pass verifying ``k`` draft tokens per request.
    """
    t = _linear_terms(w, draft_tokens)
    s = np.asarray(w.context, dtype=float)
    r1 = t.row_bytes + w.kv_bytes_per_card(batch=1)          # one request's cache, S m_kv
    return np.broadcast_arrays(t.shared_bytes + 0.0 * s, r1,
                               t.flops + s * t.attention_flops_per_token + 0.0 * r1)


def _batch_at(w: Workload, draft_tokens=0):
    """``e ↦`` the batch where a pass's compute catches up with its read when ``e`` expert bytes
    are read once per step on top of its :func:`per_request_terms`."""
    r0, r1, c1 = per_request_terms(w, draft_tokens=draft_tokens)
    return lambda e: crossover(0.0, r0 + e, w.hw, flops_slope=c1, bytes_slope=r1, math=w.math)


def turning_points(w: Workload, *, draft_tokens=0):
    """``(B*, S_max)`` per card of a pass verifying ``k`` drafts per request, at ``w.context``:
    the :func:`~infra_calc.bound.crossover` of its :func:`per_request_terms` (the experts at
    the floor); ``k = 0`` is a decode step (:func:`critical_context`, :func:`turning_batch`
    but for uniform routing)."""
    t = _linear_terms(w, draft_tokens)
    b_star = _batch_at(w, draft_tokens)(routed_expert_bytes(w, 1.0))
    return b_star, crossover(-t.flops, -t.row_bytes, w.hw, flops_slope=-t.attention_flops_per_token,
                             bytes_slope=-t.kv_bytes_per_token, math=w.math)


def _with_experts(w: Workload, batch_at):
    """``batch_at(e)``, a crossing's batch with ``e`` expert bytes read once per step, for the
    experts the batch itself hits.

    For a mixture of experts, the root of :math:`g(b) = b - B(E(b))` (``B`` = ``batch_at``,
    ``E`` = :func:`~infra_calc.decode.routed_expert_bytes`), found for each element by
    :func:`scipy.optimize.brentq` in :math:`[10^{-9}, 2B(E(\\infty)) + 1]`: ``g`` is
    negative at the left end (a crossing needs a positive batch) and positive at the right
    one (``E(b) <= E(inf)``), and crosses zero once.  ``inf`` where the dense crossing is.
    """
    dense = np.asarray(batch_at(routed_expert_bytes(w, 1.0)), dtype=float)
    if not w.model.is_moe:
        return unwrap(dense)
    hi = np.asarray(batch_at(routed_expert_bytes(w, np.inf)), dtype=float) * 2.0 + 1.0
    shape = np.broadcast_shapes(hi.shape, dense.shape)
    hi, dense = np.broadcast_to(hi, shape), np.broadcast_to(dense, shape)
    root = np.full(shape, np.inf)

    def gap(b, i):        # g at b for element i (every element set to b: g is elementwise)
        full = np.full(shape, b)
        return (full - np.broadcast_to(batch_at(routed_expert_bytes(w, full)), shape))[i]

    for i in np.ndindex(shape):
        if np.isfinite(dense[i]):
            root[i] = brentq(gap, 1e-9, hi[i], args=(i,), xtol=1e-300,
                             rtol=4 * np.finfo(float).eps)
    return unwrap(root)


def critical_context(model, hw=None, *, cards=None, bytes_per_param=None,
                     kv_bytes_per_element=None, math=None):
    """Context at and above which no batch makes a decode step compute-bound, tokens.

    With a model (or a :class:`Workload`), the per-request math catches the
    per-request read no more once

    .. math:: S_{max} = \\frac{2 N_{mm}/\\Pi - b_W d_{row}/\\beta}
                             {m_{kv}/\\beta - 4 L H d_h/\\Pi}

    (per card with ``cards``; ``inf`` when the denominator is not positive:
    attention alone is then intense enough to reach the ridge).  ``b_W``
    enters only through the gathered embedding row ``d_row``, a few parts in
    ten thousand.  Not rounded.

    Parameters
    ----------
    model : ModelSpec, str or Workload
    hw : Accelerator, str or None
        Required with a model; with a Workload, None (its card) or the same card
        (:meth:`Workload.of <infra_calc.workload.Workload.of>`).
    cards, bytes_per_param, kv_bytes_per_element : optional, keyword-only
        For a model: tensor-parallel cards, ``b_W`` and cache bytes per element
        (left at None: the :class:`~infra_calc.workload.Workload`'s defaults).
    math : str, keyword-only
        Math precision whose dense peak bounds the math (the workload's;
        :meth:`~infra_calc.hardware.Accelerator.peak`).

    No ``routing``: :math:`S_{max}` is the large-batch limit, where the experts a batch
    hits are read once per step and drop out of the per-request terms under either
    routing (:func:`turning_batch` takes it: there they move :math:`B^*`).  No
    ``workspace``: memory moves no turning point (check
    :attr:`Workload.fits <infra_calc.workload.Workload.fits>` at the batch you pick).
    A Workload's own routing and workspace are kept and not read.

    Examples
    --------
    >>> import infra_calc as ic
    >>> round(ic.critical_context("llama-2-70b", "H100 SXM"))
    1459
    """
    w = Workload.of(model, hw, cards=cards, bytes_per_param=bytes_per_param,
                    kv_bytes_per_element=kv_bytes_per_element, math=math)
    return turning_points(w)[1]


def turning_batch(model, hw=None, *, context=None, cards=None, bytes_per_param=None,
                  kv_bytes_per_element=None, math=None, routing=None):
    """Batch where a decode step's compute catches up with its read, :math:`B^*(S)`, requests.

    For a dense model, with :func:`per_request_terms` ``R0, r1, c1``:

    .. math:: B^*(S) = \\frac{R_0/\\beta}{c_1/\\Pi - r_1/\\beta}

    and ``inf`` at and above :func:`critical_context`.  For a mixture of
    experts the read also grows with the experts hit, and ``B*`` is found
    numerically (the root of compute − read, which is convex in ``B`` and
    crosses zero once); with ``routing="floor"`` the step reads
    ``k`` experts per layer whatever the batch, with ``"uniform"`` the
    uniform-routing model's count.  Not rounded; assumes ``B <= V`` (each request gathers
    its own embedding row).  Capacity is ignored: check
    :attr:`Workload.fits <infra_calc.workload.Workload.fits>` at that batch.

    Parameters
    ----------
    model : ModelSpec, str or Workload
    hw : Accelerator, str or None
        Required with a model; with a Workload, None (its card) or the same card
        (:meth:`Workload.of <infra_calc.workload.Workload.of>`).
    context : int or array_like
        ``S``, tokens of cache per request.
    cards, bytes_per_param, kv_bytes_per_element : optional, keyword-only
    math : str, keyword-only
        Math precision whose dense peak bounds the math
        (:meth:`~infra_calc.hardware.Accelerator.peak`).
    routing : {"floor", "uniform"}, keyword-only
        Experts read per MoE layer (:meth:`ModelSpec.experts_hit`).

    A size or precision left at None takes the :class:`~infra_calc.workload.Workload`'s
    default.
    """
    return turning_batch_of(Workload.of(model, hw, context=context, cards=cards,
                                        bytes_per_param=bytes_per_param,
                                        kv_bytes_per_element=kv_bytes_per_element, math=math,
                                        routing=routing))


def turning_batch_of(w: Workload):
    """:func:`turning_batch` of a checked workload ``w``, under its own routing: the
    :func:`turning_points` crossing, with the experts the batch hits for a mixture of
    experts under ``routing="uniform"``."""
    if w.model.is_moe and w.routing != "floor":     # the experts read grow with the batch
        return _with_experts(w, _batch_at(w))
    return unwrap(turning_points(w)[0])


def kv_weight_batch(model, hw=None, *, context=None, cards=None, bytes_per_param=None,
                    kv_bytes_per_element=None, routing=None):
    """Batch at which the KV read equals the weight read, requests (not rounded).

    The weight read includes the gathered rows and the experts hit (under
    ``routing``): :math:`B S m_{kv} = R_W(B)`, solved for
    ``B`` (``inf`` where the cache never outgrows the weights).  The border
    between the weight-read and KV-read regions.

    Parameters
    ----------
    model : ModelSpec, str or Workload
    hw : Accelerator, str or None
        Required with a model; with a Workload, None (its card) or the same card
        (:meth:`Workload.of <infra_calc.workload.Workload.of>`).
    context : int or array_like, keyword-only
        ``S``, tokens of cache per request (> 0 for a finite answer).
    cards, bytes_per_param, kv_bytes_per_element : optional, keyword-only
    routing : {"floor", "uniform"}, keyword-only

    No ``math``: a border between two reads holds at any math precision (a
    Workload's own is kept and not read).
    """
    w = Workload.of(model, hw, context=context, cards=cards, bytes_per_param=bytes_per_param,
                    kv_bytes_per_element=kv_bytes_per_element, routing=routing)
    t = _linear_terms(w)
    slope = w.kv_bytes_per_card(batch=1) - t.row_bytes     # one request's cache over its row
    return _with_experts(w, lambda e: np.where(slope > 0,
                                               (t.shared_bytes + e) / np.where(slope > 0, slope, 1.0),
                                               np.inf))


def decode_region(model, hw=None, *, batch=None, context=None, bytes_per_param=None,
                  kv_bytes_per_element=None, math=None, routing=None, weight_read="touched"):
    """Which of the three regions a (batch, context) point lies in (one card).

    The ``region`` of :func:`~infra_calc.decode.model_decode_step`, read from
    the same account (:attr:`StepParts.region <infra_calc.decode.StepParts.region>`:
    ``"compute"`` where its compute time reaches its read time, else
    ``"weight-read"`` or ``"kv-read"``, whichever read is larger), so the
    figure and the step cannot disagree.  Arrays broadcast.  ``math``
    (keyword-only) is the precision of the matrix multiplies (left at None, the
    :class:`~infra_calc.workload.Workload`'s default).

    Parameters
    ----------
    model, hw, batch, context, bytes_per_param, kv_bytes_per_element, math, routing, weights
        As for :func:`~infra_calc.decode.model_decode_step`.

    Returns
    -------
    str or numpy.ndarray of str
    """
    w = Workload.of(model, hw, batch=batch, context=context, bytes_per_param=bytes_per_param,
                    kv_bytes_per_element=kv_bytes_per_element, math=math, routing=routing)
    check_one_card(w, "decode_region", "use model_decode_step for more cards")
    return step_parts(w, weight_read=weight_read).region
