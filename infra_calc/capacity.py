"""Will it fit?  The capacity inequality, the largest batch and the largest context.

Resident weights, every request's KV cache and a workspace must fit in memory:

.. math:: W + B\\,S\\,m_{KV} + M_{work} \\le C

so the largest batch is the inequality solved for ``B`` and rounded down,
:math:`B_{max} = \\lfloor (C - W - M_{work}) / (S\\,m_{KV}) \\rfloor` (:func:`max_batch`),
and the largest context the same solved for ``S``,
:math:`S_{fit} = \\lfloor (C - W - M_{work}) / (B\\,m_{KV}) \\rfloor` (:func:`max_context`).

A card's capacity can be read two ways (:data:`infra_calc.hardware.READINGS`): the physical
size (memory is built in binary sizes, so a card sold as "24 GB" holds
24 GiB) or the label read as 10^9 bytes, as the source chapters do
(:func:`~infra_calc.accelerators.capacity_reading`, :func:`~infra_calc.accelerators.decimal_reading`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import check_int, check_number, unwrap

__all__ = ["CapacityCheck", "HoldsMemory", "capacity_check", "max_batch", "max_context",
           "kv_cache_bytes"]


@dataclass(frozen=True)
class CapacityCheck:
    """The one memory record: what a card holds against its capacity; all sizes in bytes.

    Built by :func:`capacity_check` alone (:attr:`Workload.memory
    <infra_calc.workload.Workload.memory>` builds it for a workload); every
    result that states memory embeds one as ``memory`` (:class:`HoldsMemory`).
    Each value is a scalar for scalar inputs and an array for array inputs.
    """

    #: Usable memory ``C``.
    capacity: float | np.ndarray
    #: Resident weights ``W``.
    weights: float | np.ndarray
    #: KV cache held for every request, bytes (an amount of cache, named as in
    #: :func:`capacity_check`; a step's cache read is its ``kv_bytes``).
    kv: float | np.ndarray
    #: Activations, buffers and allocator slack ``M_work``.
    workspace: float | np.ndarray
    #: ``W + KV + M_work``.
    total: float | np.ndarray
    #: ``C - total``; negative when it does not fit.
    headroom: float | np.ndarray
    #: ``total <= C``.
    fits: bool | np.ndarray


class HoldsMemory:
    """A result with a ``memory`` field (a :class:`CapacityCheck`): its total and verdict."""

    memory: CapacityCheck

    @property
    def memory_per_card(self):
        """Weights + KV cache + workspace each card must hold, bytes (``memory.total``)."""
        return self.memory.total

    @property
    def fits(self):
        """``memory_per_card <= memory.capacity`` (``memory.fits``): against the capacity the
        record was checked with (a workload's card's physical one; the planner's reading).
        Nothing is refused when False."""
        return self.memory.fits


def capacity_check(capacity, *, weights, kv, workspace) -> CapacityCheck:
    """Check :math:`W + KV + M_{work} \\le C`.

    Every byte count after ``capacity`` is keyword-only and required, as in
    :func:`max_batch`, so no two of them can trade places (``capacity_check(C, kv, W)``
    is refused) and none is left out unseen (the workspace's default lives on
    :class:`~infra_calc.workload.Workload` alone; pass ``workspace=0`` for none).

    Parameters
    ----------
    capacity : float or array_like
        Usable memory ``C``, bytes.
    weights : float or array_like
        Resident weights ``W``, bytes.
    kv : float or array_like
        KV cache held for every request, bytes (an amount, ``B S m_KV``; not the
        per-element width ``kv_bytes_per_element``).
    workspace : float or array_like, keyword-only
        Activations, buffers and allocator slack, bytes (0 for none).

    Returns
    -------
    CapacityCheck
        ``total = W + KV + M_work``, ``headroom = C - total`` (negative when it
        does not fit) and ``fits = total <= C``.
    """
    c = check_number(capacity, "capacity", "bytes")
    w = check_number(weights, "weights", "bytes", allow_zero=True)
    k = check_number(kv, "kv", "bytes", allow_zero=True)
    ws = check_number(workspace, "workspace", "bytes", allow_zero=True)
    total, fits = _inequality(c, w, k, ws)
    return CapacityCheck(c, w, k, ws, unwrap(total), unwrap(c - total), unwrap(fits, bool))


def kv_cache_bytes(context, kv_bytes_per_token, *, batch=1):
    """KV-cache size :math:`B\\,S\\,m_{KV}` in bytes, for ``batch`` requests of ``context``
    tokens each: the one place it is computed.  Every cache a result holds or reads comes
    from it (:meth:`Workload.kv_bytes_per_card <infra_calc.workload.Workload.kv_bytes_per_card>`
    calls it with the per-card ``m_KV``; the levers, the turning points and the figures call
    that), and :func:`max_batch` and :func:`max_context` solve the inequality with its own
    product.  ``context`` and ``batch`` are whole numbers >= 0, the check a Workload's sizes get.

    >>> kv_cache_bytes(8192, 131072, batch=3), kv_cache_bytes(0, 131072)
    (3221225472.0, 0.0)
    """
    s = check_int(context, "context", "tokens", minimum=0)
    m = check_number(kv_bytes_per_token, "kv_bytes_per_token", "bytes/token")
    b = check_int(batch, "batch", "requests", minimum=0)
    return unwrap(_cache_bytes(b, s, m))


def _cache_bytes(batch, context, kv_bytes_per_token):
    """:math:`B\\,S\\,m_{KV}` of sizes already checked, as floats: :func:`kv_cache_bytes`'s
    product, which the capacity solver shares (a real ``context`` allowed there)."""
    return np.asarray(batch, dtype=float) * context * kv_bytes_per_token


def max_batch(capacity, *, weights, context, kv_bytes_per_token, workspace):
    """Largest number of requests of ``context`` tokens that fit.

    .. math:: B_{max} = \\max\\left(0, \\left\\lfloor
       \\frac{C - W - M_{work}}{S\\,m_{KV}} \\right\\rfloor\\right)

    The result is exact at the boundary: ``B_max`` requests pass
    :func:`capacity_check` and ``B_max + 1`` do not.  Returns 0 when the
    weights and workspace alone do not fit.

    Parameters
    ----------
    capacity : float or array_like
        Bytes, ``C``.
    weights : float or array_like, keyword-only
        Resident weights, bytes, ``W``.
    context : float or array_like, keyword-only
        Tokens kept per request, ``S``.
    kv_bytes_per_token : float or array_like, keyword-only
        ``m_KV``, bytes per token (see ``ModelSpec.kv_bytes_per_token``).
    workspace : float or array_like, keyword-only
        Bytes, ``M_work`` (required, as in :func:`capacity_check`; 0 for none).

    Every size after ``capacity`` is keyword-only and required, so no two byte
    counts can trade places unnoticed.

    >>> max_batch(24e9, weights=16.38e9, context=8192, kv_bytes_per_token=147456,
    ...           workspace=2 * 1024**3)
    4

    Returns
    -------
    int or numpy.ndarray of int
    """
    s = check_number(context, "context", "tokens")
    return _largest_count(capacity, weights, workspace, kv_bytes_per_token,
                          lambda n, m: _cache_bytes(n, s, m))


def max_context(capacity, *, weights, batch, kv_bytes_per_token, workspace):
    """Largest context (tokens per request) at which ``batch`` requests fit.

    The capacity inequality solved for ``S`` with ``B`` fixed, rounded down:

    .. math:: S_{fit} = \\max\\left(0, \\left\\lfloor
       \\frac{C - W - M_{work}}{B\\,m_{KV}} \\right\\rfloor\\right)

    exact at the boundary like :func:`max_batch`: ``batch`` requests of
    ``S_fit`` tokens pass :func:`capacity_check` and of ``S_fit + 1`` do not.
    Returns 0 when the weights and workspace alone do not fit.

    Parameters
    ----------
    capacity : float or array_like
        Bytes, ``C``.
    weights : float or array_like, keyword-only
        Resident weights, bytes, ``W``.
    batch : float or array_like, keyword-only
        Requests held together, ``B`` (> 0).
    kv_bytes_per_token : float or array_like, keyword-only
        ``m_KV``, bytes per token (see ``ModelSpec.kv_bytes_per_token``).
    workspace : float or array_like, keyword-only
        Bytes, ``M_work`` (required, as in :func:`capacity_check`; 0 for none).

    Returns
    -------
    int or numpy.ndarray of int
        Tokens per request.

    Raises
    ------
    ValueError
        A size is negative, not finite, or (capacity, batch, kv_bytes_per_token) zero;
        the message names the parameter and its unit.

    >>> max_context(24 * 1024**3, weights=16_381_470_720, batch=4, kv_bytes_per_token=147456,
    ...             workspace=2 * 1024**3)
    12276
    """
    b = check_number(batch, "batch", "requests")
    return _largest_count(capacity, weights, workspace, kv_bytes_per_token,
                          lambda n, m: _cache_bytes(b, n, m))


def _inequality(c, w, k, ws):
    """``(total, fits)`` of the capacity inequality ``W + KV + M_work <= C`` (checked arrays):
    the one test :func:`capacity_check` reports and :func:`_largest_count` solves."""
    total = w + k + ws
    return total, total <= c


def _largest_count(capacity, weights, workspace, kv_bytes_per_token, cache):
    """The largest whole ``n >= 0`` with ``W + cache(n, m_KV) + M_work <= C``, the capacity
    inequality's one solver (``cache`` is :func:`_cache_bytes` of ``n`` requests at the
    context, or of ``n`` tokens for the batch); checks the sizes the two share.  The floor of
    ``(C - W - M_work) / cache(1)`` is corrected by the test :func:`capacity_check` makes
    (:func:`_inequality`, the same float arithmetic), on the cache :func:`kv_cache_bytes`
    computes, so the two agree at every boundary."""
    c = check_number(capacity, "capacity", "bytes")
    w = check_number(weights, "weights", "bytes", allow_zero=True)
    ws = check_number(workspace, "workspace", "bytes", allow_zero=True)
    m = check_number(kv_bytes_per_token, "kv_bytes_per_token", "bytes/token")

    def fits(n):
        return _inequality(c, w, cache(n, m), ws)[1]

    with np.errstate(over="ignore", invalid="ignore"):
        n = np.maximum(np.floor((c - w - ws) / cache(1.0, m)), 0.0)
        n = np.where(fits(n + 1), n + 1, n)
        n = np.where((n > 0) & ~fits(n), n - 1, n)
    return unwrap(n.astype(np.int64), int)
