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

Every function takes a model (a :class:`~infra_calc.modelspec.ModelSpec`, a
catalog name, a ``config.json`` path or a :class:`Workload`) and the card,
then keyword-only sizes: the physics is the model's own account of a step,
whatever the type of the first argument.
"""
from __future__ import annotations

import numpy as np

from ._validate import unwrap
from .decode import model_decode_step
from .workload import Workload

__all__ = ["critical_context", "turning_batch", "kv_weight_batch", "decode_region",
           "per_request_terms"]


def _workload(model, hw, **sizes) -> Workload:
    if isinstance(model, (int, float, np.ndarray, list, tuple)) and not isinstance(model, bool):
        raise TypeError(f"model must be a ModelSpec, a catalog name, a config.json path or a "
                        f"Workload, not a number ({model!r}); the numeric forms of chapter 3's "
                        f"first derivation are gone: pass the model")
    return Workload.of(model, hw, **sizes)


def per_request_terms(w: Workload):
    """``(R0, r1, c1)`` of workload ``w``, per card, at its context (arrays broadcast).

    ``R0``: bytes read once per step whatever the batch (the shared weights);
    ``r1``: bytes each request adds (its gathered row and its cache);
    ``c1``: FLOPs each request adds (its matrix products and its attention).
    A dense step then reads ``R0 + B r1`` and computes ``B c1``.  For a
    mixture of experts the routed experts come on top of ``R0``
    (:func:`_expert_bytes`).
    """
    spec, sh = w.model, w.share
    s = np.asarray(w.context, dtype=float)
    n = np.asarray(w.cards, dtype=float)
    bw = w.bytes_per_param
    r0 = np.asarray(sh.of(spec, spec.shared_params)) * bw
    row = 0.0 if spec.tie_word_embeddings else spec.hidden / n
    m_card = np.asarray(sh.kv_bytes_per_token(spec, w.kv_bytes_per_element))
    r1 = bw * row + s * m_card
    c1 = 2.0 * np.asarray(sh.of_matmul(spec, spec.matmul_params)) \
        + np.asarray(spec.attention_flops(1, s)) / n
    return np.broadcast_arrays(r0 + 0.0 * s, r1, c1 + 0.0 * r1)


def _expert_bytes(w: Workload, b):
    """Routed-expert bytes per card for a step of ``b`` tokens (real): ``L_moe E_hit(b) P_e b_W / n``.

    ``E_hit`` under the workload's ``routing`` (:meth:`ModelSpec.experts_hit`).
    """
    spec = w.model
    if not spec.is_moe:
        return 0.0 * np.asarray(b, dtype=float)
    hit = spec._experts_read(np.asarray(b, dtype=float), w.routing)
    return (spec.moe_layers * hit * spec.expert_params * w.bytes_per_param
            / np.asarray(w.cards, dtype=float))


def _solve(f, lo, hi, iterations=200):
    """Root of an increasing ``f`` on ``[lo, hi]`` (elementwise bisection in log space)."""
    lo, hi = np.broadcast_arrays(np.asarray(lo, dtype=float), np.asarray(hi, dtype=float))
    lo, hi = lo.copy(), hi.copy()
    for _ in range(iterations):
        mid = np.sqrt(lo * hi)
        up = f(mid) > 0
        hi = np.where(up, mid, hi)
        lo = np.where(up, lo, mid)
    return np.sqrt(lo * hi)


def critical_context(model, hw=None, *, bytes_per_param=None, kv_bytes_per_element=None,
                     cards=None):
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
    hw : Accelerator or str
    bytes_per_param, kv_bytes_per_element, cards : optional, keyword-only
        For a model: ``b_W`` (default 2), cache bytes per element (default 2)
        and tensor-parallel cards (default 1).

    Examples
    --------
    >>> import infra_calc as ic
    >>> round(ic.critical_context("llama-2-70b", "H100 SXM"))
    1459
    """
    w = _workload(model, hw, bytes_per_param=bytes_per_param,
                  kv_bytes_per_element=kv_bytes_per_element, cards=cards)
    return _s_max(w)


def _s_max(w: Workload):
    """Where the per-request slope :math:`c_1/\\Pi - r_1/\\beta` of :func:`per_request_terms`
    (linear in ``S``) reaches zero; ``inf`` when it never falls."""
    acc = w.hw
    peak = acc.peak(w.math)
    (_, r_0, c_0), (_, r_1, c_1) = (per_request_terms(w.with_(context=s)) for s in (0, 1))
    num = c_0 / peak - r_0 / acc.mem_bandwidth
    den = (r_1 - r_0) / acc.mem_bandwidth - (c_1 - c_0) / peak
    with np.errstate(divide="ignore"):
        out = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.inf)
    return unwrap(out)


def turning_batch(model, hw=None, *, context=None, bytes_per_param=None,
                  kv_bytes_per_element=None, cards=None, routing=None):
    """Batch where a decode step's compute catches up with its read, :math:`B^*(S)`, requests.

    For a dense model, with :func:`per_request_terms` ``R0, r1, c1``:

    .. math:: B^*(S) = \\frac{R_0/\\beta}{c_1/\\Pi - r_1/\\beta}

    and ``inf`` at and above :func:`critical_context`.  For a mixture of
    experts the read also grows with the experts hit, and ``B*`` is found
    numerically (the root of compute − read, which is convex in ``B`` and
    crosses zero once); with ``routing="floor"`` (default) the step reads
    ``k`` experts per layer whatever the batch, with ``"uniform"`` the
    uniform-routing model's count.  Not rounded; assumes ``B <= V`` (each request gathers
    its own embedding row).  Capacity is ignored: check
    :meth:`Workload.fits` at that batch.

    Parameters
    ----------
    model : ModelSpec, str or Workload
    hw : Accelerator or str
    context : int or array_like
        ``S`` (default 0), tokens of cache per request.
    bytes_per_param, kv_bytes_per_element, cards : optional, keyword-only
    routing : {"floor", "uniform"}, keyword-only
        Experts read per MoE layer (:meth:`ModelSpec.experts_hit`; default ``"floor"``).
    """
    w = _workload(model, hw, context=context, bytes_per_param=bytes_per_param,
                  kv_bytes_per_element=kv_bytes_per_element, cards=cards, routing=routing)
    acc = w.hw
    r0, r1, c1 = per_request_terms(w)
    slope = c1 / acc.peak(w.math) - r1 / acc.mem_bandwidth
    ok = slope > 0
    safe = np.where(ok, slope, 1.0)
    dense = np.where(ok, (r0 / acc.mem_bandwidth) / safe, np.inf)
    if not w.model.is_moe:
        return unwrap(dense)

    def gap(b):   # compute − read, seconds; convex in b, negative at 0
        return b * safe - (r0 + _expert_bytes(w, b)) / acc.mem_bandwidth

    e_all = _expert_bytes(w, np.inf) / acc.mem_bandwidth
    hi = np.where(ok, (r0 / acc.mem_bandwidth + e_all) / safe * 2.0 + 1.0, 1.0)
    root = _solve(gap, np.full_like(hi, 1e-9), hi)
    return unwrap(np.where(ok, root, np.inf))


def kv_weight_batch(model, hw=None, *, context=None, bytes_per_param=None,
                    kv_bytes_per_element=None, cards=None, routing=None):
    """Batch at which the KV read equals the weight read, requests (not rounded).

    The weight read includes the gathered rows and the experts hit (under
    ``routing``, default ``"floor"``): :math:`B S m_{kv} = R_W(B)`, solved for
    ``B`` (``inf`` where the cache never outgrows the weights).  The border
    between the weight-read and KV-read regions.

    Parameters
    ----------
    model : ModelSpec, str or Workload
    hw : Accelerator or str
    context : int or array_like, keyword-only
        ``S``, tokens of cache per request (> 0 for a finite answer).
    bytes_per_param, kv_bytes_per_element, cards, routing : optional, keyword-only
    """
    w = _workload(model, hw, bytes_per_param=bytes_per_param, context=context,
                  kv_bytes_per_element=kv_bytes_per_element, cards=cards, routing=routing)
    r0, r1, _ = per_request_terms(w)
    kv1 = np.asarray(w.context, dtype=float) * np.asarray(
        w.share.kv_bytes_per_token(w.model, w.kv_bytes_per_element))   # cache bytes per request
    row = r1 - kv1                        # gathered-row bytes per request
    slope = kv1 - row
    ok = slope > 0
    safe = np.where(ok, slope, 1.0)
    dense = np.where(ok, r0 / safe, np.inf)
    if not w.model.is_moe:
        return unwrap(dense)
    hi = np.where(ok, (r0 + _expert_bytes(w, np.inf)) / safe * 2.0 + 1.0, 1.0)
    root = _solve(lambda b: b * safe - r0 - _expert_bytes(w, b), np.full_like(hi, 1e-9), hi)
    return unwrap(np.where(ok, root, np.inf))


def decode_region(model, hw=None, *, batch=None, context=None, bytes_per_param=None,
                  kv_bytes_per_element=None, weights="touched", routing=None):
    """Which of the three regions a (batch, context) point lies in.

    The ``region`` of :func:`~infra_calc.decode.model_decode_step`
    (``"compute"`` where its compute time reaches its read time, else
    ``"weight-read"`` or ``"kv-read"``, whichever read is larger), so the
    figure and the step cannot disagree.  Arrays broadcast.

    Returns
    -------
    str or numpy.ndarray of str
    """
    return model_decode_step(_workload(model, hw, batch=batch, context=context,
                                       bytes_per_param=bytes_per_param,
                                       kv_bytes_per_element=kv_bytes_per_element,
                                       routing=routing), weights=weights).region
