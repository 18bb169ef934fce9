"""Will it fit?  The capacity inequality and the largest batch.

Resident weights, every request's KV cache and a workspace must fit in memory:

.. math:: W + B\\,S\\,m_{KV} + M_{work} \\le C

so the largest batch is the floor
:math:`B_{max} = \\lfloor (C - W - M_{work}) / (S\\,m_{KV}) \\rfloor`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import check_number

__all__ = ["CapacityCheck", "capacity_check", "max_batch", "kv_cache_bytes"]


def _out(x):
    return float(x) if np.ndim(x) == 0 else x


@dataclass(frozen=True)
class CapacityCheck:
    """Result of :func:`capacity_check`; all sizes in bytes."""

    capacity: object
    weights: object
    kv: object
    workspace: object
    total: object
    headroom: object
    fits: object


def capacity_check(capacity, weights, kv, workspace=0.0) -> CapacityCheck:
    """Check :math:`W + KV + M_{work} \\le C`.

    Parameters
    ----------
    capacity : float or array_like
        Usable memory ``C``, bytes.
    weights : float or array_like
        Resident weights ``W``, bytes.
    kv : float or array_like
        KV cache of every request, bytes.
    workspace : float or array_like
        Activations, buffers and allocator slack, bytes.

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
    total = w + k + ws
    fits = total <= c
    return CapacityCheck(c, w, k, ws, _out(total), _out(c - total),
                         bool(fits) if np.ndim(fits) == 0 else fits)


def kv_cache_bytes(seq_len, kv_bytes_per_token, batch=1):
    """KV-cache size :math:`B\\,S\\,m_{KV}` in bytes."""
    s = check_number(seq_len, "seq_len", "tokens")
    m = check_number(kv_bytes_per_token, "kv_bytes_per_token", "bytes/token")
    b = check_number(batch, "batch", "requests", allow_zero=True)
    return _out(b * s * m)


def max_batch(capacity, weights, workspace, seq_len, kv_bytes_per_token):
    """Largest number of requests of ``seq_len`` tokens that fit.

    .. math:: B_{max} = \\max\\left(0, \\left\\lfloor
       \\frac{C - W - M_{work}}{S\\,m_{KV}} \\right\\rfloor\\right)

    The result is exact at the boundary: ``B_max`` requests pass
    :func:`capacity_check` and ``B_max + 1`` do not.  Returns 0 when the
    weights and workspace alone do not fit.

    Parameters
    ----------
    capacity, weights, workspace : float or array_like
        Bytes.
    seq_len : float or array_like
        Tokens kept per request, ``S``.
    kv_bytes_per_token : float or array_like
        ``m_KV``, bytes per token (see ``ModelSpec.kv_bytes_per_token``).

    Returns
    -------
    int or numpy.ndarray of int
    """
    c = check_number(capacity, "capacity", "bytes")
    w = check_number(weights, "weights", "bytes", allow_zero=True)
    ws = check_number(workspace, "workspace", "bytes", allow_zero=True)
    s = check_number(seq_len, "seq_len", "tokens")
    m = check_number(kv_bytes_per_token, "kv_bytes_per_token", "bytes/token")
    per = s * m
    base = w + ws
    with np.errstate(over="ignore", invalid="ignore"):
        b = np.floor((c - base) / per)
        b = np.maximum(b, 0.0)
        # correct the rare float rounding at an exact boundary
        b = np.where(base + (b + 1) * per <= c, b + 1, b)
        b = np.where((b > 0) & (base + b * per > c), b - 1, b)
    b = b.astype(np.int64)
    return int(b) if np.ndim(b) == 0 else b
