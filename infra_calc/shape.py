"""Shape efficiency: matrix units work in whole tiles.

A matrix instruction processes fixed tiles (for example 16 rows at a time);
a dimension that is not a multiple of the tile is padded with zeros, and the
padding is computed like real data:

.. math:: \\eta_{shape} = \\frac{MNK}{\\lceil M/m_t\\rceil m_t\\,
          \\lceil N/n_t\\rceil n_t\\,\\lceil K/k_t\\rceil k_t}
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import check_int, check_number, unwrap

__all__ = ["shape_efficiency", "pad_to_tile", "PaddedRows", "padded_rows", "route_tokens"]


def pad_to_tile(size, tile):
    """Round ``size`` up to a whole number of tiles: :math:`\\lceil s/t\\rceil t`."""
    size = check_number(size, "size", "elements")
    tile = check_number(tile, "tile", "elements")
    out = np.ceil(size / tile) * tile
    return unwrap(out)


def shape_efficiency(m, n, k, tile=(16, 16, 16)):
    """Fraction of executed multiply-adds that are useful, in (0, 1].

    Parameters
    ----------
    m, n, k : float or array_like
        GEMM dimensions (rows, output columns, reduction), > 0.
    tile : tuple of 3 numbers
        Tile sizes ``(m_t, n_t, k_t)``, in the same order as ``m, n, k``.
    """
    try:
        mt, nt, kt = tile
    except (TypeError, ValueError):
        raise TypeError(f"tile must be a tuple (m_t, n_t, k_t) of 3 sizes, got {tile!r}") from None
    mt = check_number(mt, "tile[0] (m_t)", "rows")
    nt = check_number(nt, "tile[1] (n_t)", "columns")
    kt = check_number(kt, "tile[2] (k_t)", "elements")
    m = check_number(m, "m", "rows")
    n = check_number(n, "n", "columns")
    k = check_number(k, "k", "elements")
    out = (m * n * k) / (pad_to_tile(m, mt) * pad_to_tile(n, nt) * pad_to_tile(k, kt))
    return unwrap(out)


@dataclass(frozen=True)
class PaddedRows:
    """Rows executed vs rows useful across a set of per-expert GEMMs."""

    #: Token rows routed to the experts, ``Σ r_e``.
    useful: int
    #: Rows the matrix unit runs after padding, ``Σ ⌈r_e / m_t⌉ m_t``.
    executed: int
    #: Experts that received at least one row.
    active_experts: int
    #: Row tile ``m_t`` of the matrix instruction.
    tile_rows: int

    @property
    def efficiency(self) -> float:
        """``useful / executed`` (1.0 when no rows at all)."""
        return self.useful / self.executed if self.executed else 1.0

    @property
    def waste_ratio(self) -> float:
        """``executed / useful``: how many times more rows run than matter."""
        return self.executed / self.useful if self.useful else float("inf")


def padded_rows(rows, tile_rows=16) -> PaddedRows:
    """Pad each expert's row count up to whole tiles and add up.

    ``executed = Σ_e ⌈r_e / m_t⌉ m_t`` and ``useful = Σ_e r_e``; an expert with
    no rows runs nothing.

    Parameters
    ----------
    rows : int or sequence of int
        Token rows routed to each expert (>= 0).
    tile_rows : int
        Row tile ``m_t`` of the matrix instruction (>= 1).
    """
    r = check_int(rows, "rows", "rows per expert", minimum=0)
    t = check_int(tile_rows, "tile_rows", "rows", minimum=1)
    r = np.atleast_1d(r)
    executed = int((np.ceil(r / t) * t).sum())
    return PaddedRows(useful=int(r.sum()), executed=executed,
                      active_experts=int((r > 0).sum()), tile_rows=int(t))


def route_tokens(tokens, experts, top_k, skew=0.0):
    """A deterministic routing pattern: rows received by each expert.

    ``tokens × top_k`` dispatches are spread evenly over ``E_active`` experts,
    where ``skew`` moves ``E_active`` geometrically from all experts
    (``skew = 0``, uniform) to just ``top_k`` experts (``skew = 1``, every
    token picks the same group):
    :math:`E_{active} = \\mathrm{round}(k\\,(E/k)^{1-skew})`.

    Returns
    -------
    numpy.ndarray of int, length ``experts``
    """
    t = check_int(tokens, "tokens", "tokens", minimum=1)
    e = check_int(experts, "experts", "experts", minimum=1)
    k = check_int(top_k, "top_k", "experts per token", minimum=1)
    if k > e:
        raise ValueError(f"top_k (experts per token) must be <= experts, got top_k={k}, experts={e}")
    s = check_number(skew, "skew", "fraction, 0 = uniform, 1 = concentrated",
                     allow_zero=True, maximum=1.0)
    active = int(round(k * (e / k) ** (1.0 - s)))
    active = min(max(active, k), e)
    dispatches = t * k
    base, extra = divmod(dispatches, active)
    rows = np.zeros(e, dtype=np.int64)
    rows[:active] = base
    rows[:extra] += 1
    return rows
