"""Shape efficiency: matrix units work in whole tiles.

A matrix instruction processes fixed tiles (for example 16 rows at a time);
a dimension that is not a multiple of the tile is padded with zeros, and the
padding is computed like real data:

.. math:: \\eta_{shape} = \\frac{MNK}{\\lceil M/m_t\\rceil m_t\\,
          \\lceil N/n_t\\rceil n_t\\,\\lceil K/k_t\\rceil k_t}

Whether the zeros also cost *time* depends on which limit the kernel is up
against: :func:`padded_gemm` adds the padded FLOPs to the compute side of the
roofline, ``t = max(F_padded/Π, V/β)``, so the padding is free while the read
sets the time, and costs up to ``F_padded/F`` once the arithmetic does.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import check_int, check_number, unwrap
from .accelerators import accelerator
from .bound import bounds
from .roofline import BYTES_PER_ELEMENT

__all__ = ["shape_efficiency", "pad_to_tile", "PaddedRows", "padded_rows", "route_tokens",
           "PaddedGemm", "padded_gemm"]


def pad_to_tile(size, tile):
    """Round ``size`` up to a whole number of tiles: :math:`\\lceil s/t\\rceil t`."""
    size = check_number(size, "size", "elements")
    tile = check_number(tile, "tile", "elements")
    out = np.ceil(size / tile) * tile
    return unwrap(out)


def _tile(tile, check):
    """``(m_t, k_t, n_t)`` of ``tile``, each checked by ``check(value, name, unit)``."""
    try:
        mt, kt, nt = tile
    except (TypeError, ValueError):
        raise TypeError(f"tile must be a tuple (m_t, k_t, n_t) of 3 sizes, got {tile!r}") from None
    return (check(mt, "tile[0] (m_t)", "rows"), check(kt, "tile[1] (k_t)", "elements"),
            check(nt, "tile[2] (n_t)", "columns"))


def shape_efficiency(m, k, n, *, tile=(16, 16, 16)):
    """Fraction of executed multiply-adds that are useful, in (0, 1].

    .. math:: \\eta = \\frac{M K N}{\\lceil M/m_t\\rceil m_t\\,\\lceil K/k_t\\rceil k_t\\,
              \\lceil N/n_t\\rceil n_t}

    Parameters
    ----------
    m, k, n : float or array_like
        GEMM dimensions of ``[m, k] @ [k, n]`` (rows, reduction, output columns), > 0:
        the order of :func:`~infra_calc.roofline.gemm_flops`.
    tile : tuple of 3 numbers, keyword-only
        Tile sizes ``(m_t, k_t, n_t)``, in the same order as ``m, k, n``.
    """
    mt, kt, nt = _tile(tile, check_number)
    m = check_number(m, "m", "rows")
    k = check_number(k, "k", "elements")
    n = check_number(n, "n", "columns")
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

    @property
    def rows_per_expert(self) -> int:
        """``useful // active_experts``: the rows each active expert receives when the
        routing spreads them evenly, rounded down (0 when no expert has rows)."""
        return self.useful // self.active_experts if self.active_experts else 0

    @property
    def padding_ratio(self) -> float:
        """``executed / (⌈useful / m_t⌉ m_t)``: the rows run over the rows the same useful
        rows take packed into as few tiles as possible (1.0 when no rows at all).

        J13's uniform routing over its concentrated one, ``4096 / 512 = 8``: the
        concentrated routing, 64 rows on each of 8 experts, fills whole 16-row tiles.
        Unlike :attr:`waste_ratio` it does not count the last tile's padding, which no
        routing avoids.
        """
        if not self.useful:
            return 1.0
        return self.executed / pad_to_tile(self.useful, self.tile_rows)


def padded_rows(rows, *, tile_rows=16) -> PaddedRows:
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


def route_tokens(tokens, *, experts, top_k, skew=0.0):
    """A deterministic routing pattern: rows received by each expert.

    ``tokens × top_k`` dispatches are spread evenly over ``E_active`` experts,
    where ``skew`` moves ``E_active`` geometrically from all experts
    (``skew = 0``, uniform) to just ``top_k`` experts (``skew = 1``, every
    token picks the same group):
    :math:`E_{active} = \\mathrm{round}(k\\,(E/k)^{1-skew})`.

    Parameters
    ----------
    tokens : int
        Tokens routed, ``T`` (>= 1).
    experts, top_k : int
        Experts ``E`` and experts per token ``k`` (``1 <= k <= E``); keyword-only, as two
        counts of experts could trade places.
    skew : float
        0 (uniform) to 1 (every token picks the same ``k`` experts).

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


@dataclass(frozen=True)
class PaddedGemm:
    """One GEMM, or a group of per-expert GEMMs, on a matrix unit that works in whole tiles.

    All values in SI units (FLOPs, bytes, seconds).
    """

    #: FLOPs that matter, ``F = 2·Σ_e r_e·K·N``.
    useful_flops: float
    #: FLOPs the matrix unit performs on the padded tiles,
    #: ``F_pad = 2·Σ_e ⌈r_e/m_t⌉m_t·⌈K/k_t⌉k_t·⌈N/n_t⌉n_t``.
    executed_flops: float
    #: Bytes that cross the memory bus, ``V = b·Σ_{e: r_e > 0} (r_e K + K N + r_e N)``.
    bytes_read: float
    #: Time of the padded arithmetic at peak, ``F_pad / Π``, seconds.
    t_compute: float
    #: Time of the useful arithmetic alone at peak, ``F / Π``, seconds.
    t_compute_useful: float
    #: Time to move the bytes at full bandwidth, ``V / β``, seconds.
    t_read: float
    #: The lower bound ``max(F_pad / Π, V / β)``, seconds.
    t_floor: float
    #: ``max(F / Π, V / β)``: the same work on a unit that needed no padding, seconds.
    t_floor_unpadded: float
    #: ``"compute"`` when ``F_pad / Π >= V / β``, else ``"memory"``.
    bound: str

    @property
    def efficiency(self) -> float:
        """``η_shape = F / F_pad``: the share of executed multiply-adds that are useful."""
        return self.useful_flops / self.executed_flops

    @property
    def padding_slowdown(self) -> float:
        """``t_floor / t_floor_unpadded`` >= 1: what the zeros cost in time (1.0: nothing)."""
        return self.t_floor / self.t_floor_unpadded

    @property
    def useful_throughput(self) -> float:
        """``F / t_floor = min(η_shape·Π, I·β)`` FLOP/s, with ``I = F / V``."""
        return self.useful_flops / self.t_floor


def padded_gemm(rows, k, n, hw, *, bytes_per_element=BYTES_PER_ELEMENT, tile=(16, 16, 16)) -> PaddedGemm:
    """Lower bound on the time of GEMMs whose dimensions are padded to whole tiles.

    Each entry ``r_e`` of ``rows`` is one GEMM ``[r_e, k] @ [k, n]`` with its own
    ``[k, n]`` weight (one expert of a MoE layer; a single number is a single
    GEMM).  The matrix unit executes the padded shape, the memory moves the real
    operands once each, and moving overlaps computing:

    .. math:: t = \\max\\Big(\\frac{2\\sum_e \\lceil r_e/m_t\\rceil m_t\\,
              \\lceil K/k_t\\rceil k_t\\,\\lceil N/n_t\\rceil n_t}{\\Pi},\\;
              \\frac{b\\sum_{e:\\,r_e>0}(r_e K + K N + r_e N)}{\\beta}\\Big)

    The zeros are made on chip (they are not read from memory), and an expert
    that receives no rows is neither read nor computed.  The padding therefore
    costs time only when the padded arithmetic outlasts the read; the useful
    throughput is ``F/t = min(η_shape·Π, I·β)``, never the product of the two
    discounts.

    Parameters
    ----------
    rows : int or sequence of int
        Rows of each GEMM (>= 0; at least one row in all).
    k, n : float
        Reduction dimension and output columns of every weight (> 0).
    hw : Accelerator or str
        The accelerator (peak ``Π`` FLOP/s, bandwidth ``β`` bytes/s).
    bytes_per_element : float, keyword-only
        ``b``, bytes per element of every operand (2 for BF16).
    tile : tuple of 3 whole numbers, keyword-only
        ``(m_t, k_t, n_t)``: rows, reduction depth and columns of the tile.

    Returns
    -------
    PaddedGemm
    """
    mt, kt, nt = _tile(tile, lambda x, name, unit: check_int(x, name, unit, scalar=True))
    r = np.atleast_1d(check_int(rows, "rows", "rows per GEMM", minimum=0))
    if r.ndim != 1:
        raise ValueError(f"rows (rows per GEMM) must be a number or a flat sequence, got shape {r.shape}")
    if r.sum() == 0:
        raise ValueError("rows (rows per GEMM) must contain at least one row in all, got only zeros")
    k = check_number(k, "k", "elements")
    n = check_number(n, "n", "columns")
    if np.ndim(k) or np.ndim(n):
        raise TypeError("k and n must be single numbers: every GEMM shares the weight shape [k, n]")
    b = check_number(bytes_per_element, "bytes_per_element", "bytes")
    acc = accelerator(hw)
    active = r[r > 0].astype(float)
    useful = 2.0 * float(active.sum()) * k * n
    executed = 2.0 * float((np.ceil(active / mt) * mt).sum()) * pad_to_tile(k, kt) * pad_to_tile(n, nt)
    nbytes = b * float((active * k + k * n + active * n).sum())
    t, u = bounds(executed, nbytes, acc), bounds(useful, nbytes, acc)
    return PaddedGemm(useful_flops=useful, executed_flops=executed, bytes_read=nbytes,
                      t_compute=t.t_compute, t_compute_useful=u.t_compute, t_read=t.t_read,
                      t_floor=t.t_floor, t_floor_unpadded=u.t_floor, bound=t.floor_bound)
