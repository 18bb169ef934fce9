"""Figures for the appendices: the accelerator catalog."""
from __future__ import annotations

from .. import source as S
from ..accelerators import CATALOG, accelerator
from ..roofline import arithmetic_intensity
from ._registry import HATCHES, PALETTE, figure

__all__ = ["catalog_ridge_points"]


@figure(
    "catalog-ridge-points",
    "Ridge points I* = Π/β of the catalog accelerators (dense BF16 peak over memory "
    "bandwidth), sorted, with the arithmetic intensity of the 4096×4096 BF16 Q projection "
    "at M = 1 (decode) and M = 256 rows as reference lines.",
)
def catalog_ridge_points(*, names=tuple(CATALOG), k=S.J13_K, n=S.J13_N,
                         bytes_per_element=S.J13_BYTES_PER_ELEMENT,
                         rows=(S.J13_ROWS[0], S.J13_ROWS[-1])):
    """Horizontal bars of each accelerator's ridge point, sorted, plus reference lines.

    Parameters
    ----------
    names : sequence of str
        Catalog accelerators to show (default: the whole catalog).
    k, n : int
        Shape of the weight matrix ``[k, n]`` of the reference GEMM
        (default: J13's Q projection of Qwen3-8B, 4096 × 4096).
    bytes_per_element : float
        Bytes per element of the reference GEMM (2 = BF16).
    rows : sequence of int
        Row counts ``M`` whose intensity is drawn as a vertical line.

    Returns
    -------
    matplotlib.figure.Figure
        One bar per accelerator; a bar is hatched and coloured differently
        when the largest ``M`` in ``rows`` reaches that card's ridge
        (compute-bound there).
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    accs = sorted((accelerator(x) for x in names), key=lambda a: a.ridge_point)
    if not accs:
        raise ValueError("names must list at least one catalog accelerator")
    rows = tuple(rows)
    intens = [arithmetic_intensity(m, k, n, bytes_per_element=bytes_per_element) for m in rows]
    i_top = max(intens)
    m_top = rows[intens.index(i_top)]

    fig, ax = plt.subplots(figsize=(7.0, 0.42 * len(accs) + 1.6))
    ridges = [a.ridge_point for a in accs]
    reached = [i_top >= r for r in ridges]
    colors = [PALETTE["green"] if ok else PALETTE["blue"] for ok in reached]
    hatches = [HATCHES[2] if ok else HATCHES[0] for ok in reached]
    bars = ax.barh([a.name for a in accs], ridges, color=colors, edgecolor="black",
                   linewidth=0.6, height=0.62)
    for bar, h in zip(bars, hatches, strict=True):
        bar.set_hatch(h)
    for bar, r in zip(bars, ridges, strict=True):
        ax.text(bar.get_width() + 4, bar.get_y() + bar.get_height() / 2, f"{r:.0f}",
                va="center", fontsize=9,
                bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none"))

    line_styles = ("--", ":", "-.", (0, (5, 1)))
    for j, (m, i) in enumerate(zip(rows, intens, strict=True)):
        ax.axvline(i, color=PALETTE["vermillion"] if j == 0 else PALETTE["black"],
                   linestyle=line_styles[j % len(line_styles)], linewidth=1.6,
                   label=f"Q projection, M = {m}: I = {i:.1f} FLOP/byte")

    # the decode line sits at I ≈ 1, on top of the axis: point at it
    ax.annotate(f"M = {rows[0]}: I ≈ {intens[0]:.1f}", xy=(intens[0], len(accs) - 0.5),
                xytext=(intens[0] + 0.06 * max(ridges), len(accs) - 0.25),
                fontsize=8.5, color=PALETTE["vermillion"], va="center",
                arrowprops=dict(arrowstyle="->", color=PALETTE["vermillion"], linewidth=1.0))
    ax.set_ylim(-0.6, len(accs) - 0.1)
    ax.set_xlabel("ridge point I* = Π/β (FLOP/byte)")
    ax.set_ylabel("accelerator (dense BF16 peak)")
    ax.set_xlim(0, max(ridges + [i_top]) * 1.15)
    ax.grid(axis="y", visible=False)
    handles, _ = ax.get_legend_handles_labels()
    handles += [
        Patch(facecolor=PALETTE["blue"], edgecolor="black", hatch=HATCHES[0],
              label=f"M = {m_top} still memory-bound"),
        Patch(facecolor=PALETTE["green"], edgecolor="black", hatch=HATCHES[2],
              label=f"M = {m_top} reaches the ridge"),
    ]
    ax.legend(handles=handles, loc="lower right", fontsize=8.5, frameon=True, framealpha=0.9)
    ax.set_title(f"Machine balance of the catalog vs a {k}×{n} GEMM")
    fig.tight_layout()
    return fig
