"""Figures for chapter 2, pages 01-04: intensity, roofline and shape efficiency (the source's J13).

Every function takes its inputs as keyword arguments whose defaults are the
source's case (the 4096×4096 BF16 Q projection of Qwen3-8B on an H100; the
64-token, top-8, 256-expert MoE example) and returns a Figure.  The drawing
helpers ``roofline_axes`` / ``moe_axes`` are shared with the interactive
explorers in :mod:`infra_calc.widgets`, so a static snapshot and the live
widget draw exactly the same picture.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import StrMethodFormatter
from matplotlib.transforms import offset_copy

from .. import roofline
from .. import source as S
from ..accelerators import accelerator
from ..display import in_unit, shown
from ..roofline import arithmetic_intensity, attainable_flops, critical_rows, gemm_roofline, intensity_limit
from ..shape import padded_gemm, padded_rows, route_tokens
from ._registry import HATCHES, MARKERS, PALETTE, figure

__all__ = ["roofline_h100", "intensity_vs_rows", "moe_padding", "roofline_explorer_snapshot",
           "moe_explorer_snapshot", "roofline_axes", "update_roofline_axes", "moe_axes",
           "update_moe_axes", "padding_time", "INTENSITY_RANGE", "FLOPS_RANGE", "FIGURE_ROWS"]

#: x range (FLOP/byte) and y range (TFLOP/s) shared by every roofline panel.
INTENSITY_RANGE = (0.5, 2.0e4)
FLOPS_RANGE = (0.3, 3.0e4)

#: Row counts the roofline figures mark: one decoding request, a small batch and the
#: source's M = 256.  The source's M = 64 is left out on purpose: its intensity is
#: the answer to the self-test's Exercise 2.1.
FIGURE_ROWS = (1, 16, 256)

_X_LABEL = "arithmetic intensity I (FLOP/byte)"
_Y_LABEL = "attainable throughput (TFLOP/s)"


def _source_hw(hw):
    return S.j13_h100() if hw is None else accelerator(hw)


def _rows(m, *, sep: bool = True) -> str:
    """A row count M: a whole one without decimals, else one decimal; ``sep=False`` for a
    matrix shape (``[4096 × 4096]``, written like its K and N)."""
    return str(shown(m, None, 0 if float(m).is_integer() else 1, sep=sep))


# --------------------------------------------------------------------------
# shared roofline panel (static figures and the roofline explorer)
# --------------------------------------------------------------------------
def roofline_axes(ax):
    """Set up one roofline panel and return its (still empty) artists.

    Log–log axes with fixed ranges, so that panels for different accelerators
    compare at a glance.  Fill the artists with :func:`update_roofline_axes`.
    """
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(*INTENSITY_RANGE)
    ax.set_ylim(*FLOPS_RANGE)
    ax.set_xlabel(_X_LABEL)
    ax.set_ylabel(_Y_LABEL)
    art = {
        "roof": ax.plot([], [], color=PALETTE["blue"], ls="-", lw=2.2, label="roofline")[0],
        "ridge_line": ax.plot([], [], color=PALETTE["black"], ls=":", lw=1.2)[0],
        "limit_line": ax.plot([], [], color=PALETTE["green"], ls="--", lw=1.2,
                              label="limit of I as M → ∞")[0],
        "ridge": ax.plot([], [], ls="none", marker="D", ms=7, mfc="white",
                         mec=PALETTE["black"], mew=1.5, label="ridge point I*")[0],
        "point": ax.plot([], [], ls="none", marker="o", ms=10, color=PALETTE["vermillion"],
                         mec=PALETTE["black"], mew=0.8, label="operating point")[0],
        "ridge_text": ax.text(0, 0, "", fontsize=9, ha="left", va="top"),
        "point_text": ax.text(0, 0, "", fontsize=9, ha="left", va="bottom",
                              color=PALETTE["vermillion"]),
        "title": ax.set_title(""),
    }
    art["ridge_text"].set_visible(False)
    return art


def update_roofline_axes(art, hw, *, m, k=S.J13_K, n=S.J13_N, bytes_per_element=S.J13_BYTES_PER_ELEMENT):
    """Move the artists of :func:`roofline_axes` to ``hw`` and ``[m, k] @ [k, n]``.

    Returns ``(point, m_star)``: the :class:`~infra_calc.RooflinePoint` and the
    critical row count from :func:`infra_calc.critical_rows`.
    """
    acc = accelerator(hw)
    x = np.logspace(np.log10(INTENSITY_RANGE[0]), np.log10(INTENSITY_RANGE[1]), 300)
    art["roof"].set_data(x, in_unit(attainable_flops(x, acc), "TFLOP/s"))
    ridge = acc.ridge_point
    peak = in_unit(acc.peak_flops, "TFLOP/s")
    art["ridge"].set_data([ridge], [peak])
    art["ridge_line"].set_data([ridge, ridge], [FLOPS_RANGE[0], peak])
    lim = intensity_limit(k, n, bytes_per_element=bytes_per_element)
    art["limit_line"].set_data([lim, lim], [FLOPS_RANGE[0], FLOPS_RANGE[1]])
    pt = gemm_roofline(m, k, n, acc, bytes_per_element=bytes_per_element)
    m_star = critical_rows(k, n, acc, bytes_per_element=bytes_per_element)
    art["point"].set_data([pt.intensity], [in_unit(pt.attainable, "TFLOP/s")])
    art["ridge_text"].set_position((ridge * 1.12, FLOPS_RANGE[0] * 2.2))
    art["ridge_text"].set_text(f"I* = {ridge:,.1f}")
    art["ridge_text"].set_visible(True)
    art["point_text"].set_text(f"M = {_rows(m)}: I = {pt.intensity:,.1f}\n{pt.bound}-bound")
    place_point_label(art["point_text"], pt, line=art["roof"])
    # a matrix shape is written without thousands separators: [1 × 4096] @ [4096 × 4096]
    art["title"].set_text(f"{acc.name}: [{_rows(m, sep=False)} × {k}] @ [{k} × {n}]")
    return pt, m_star


def _clear_of(box, ax_box, line_px, pad=1.5) -> bool:
    """Whether a text box lies inside the axes and off the line (display pixels)."""
    if box.x0 < ax_box.x0 or box.x1 > ax_box.x1 or box.y0 < ax_box.y0 or box.y1 > ax_box.y1:
        return False
    return not np.any((line_px[:, 0] > box.x0 - pad) & (line_px[:, 0] < box.x1 + pad)
                      & (line_px[:, 1] > box.y0 - pad) & (line_px[:, 1] < box.y1 + pad))


def place_point_label(text, pt, *, line=None, gap_pt=7):
    """Put the operating point's label where the roofline is not, inside the axes.

    Tried in order, the first that is clear wins: below and to the right on the
    slope (the line rises to the right, away from the label), above on the roof
    (nothing lies above it), then above-left, then above-right high enough to
    clear the rising line.  Offsets are in points, so they hold at any figure
    size.  Without ``line`` (the roofline artist) or a renderer, the first.
    """
    ax = text.axes
    x, y = pt.intensity, in_unit(pt.attainable, "TFLOP/s")
    text.set_position((x, y))
    lo, hi = (np.log10(v) for v in ax.get_xlim())
    near_right = (np.log10(x) - lo) / (hi - lo) > 0.7
    g = gap_pt
    if pt.bound == "memory":
        tries = [(g, -g, "left", "top"), (-g, g, "right", "bottom"), (g, None, "left", "bottom")]
    else:
        tries = [(-g, g, "right", "bottom") if near_right else (g, g, "left", "bottom"),
                 (-g, -g, "right", "top"), (g, -g, "left", "top")]

    def put(dx, dy, ha, va):
        text.set_transform(offset_copy(ax.transData, fig=ax.figure, x=dx, y=dy, units="points"))
        text.set_horizontalalignment(ha)
        text.set_verticalalignment(va)

    renderer = getattr(ax.figure.canvas, "get_renderer", lambda: None)()
    if line is None or renderer is None or not text.get_text():
        put(*[t if t is not None else g for t in tries[0]])
        return
    xs, ys = line.get_data()
    px = ax.transData.transform(np.column_stack([xs, ys]))
    dense = np.concatenate([np.linspace(a, b, 8, endpoint=False)
                            for a, b in zip(px[:-1], px[1:], strict=True)])
    ax_box = ax.get_window_extent(renderer)
    to_pt = 72 / ax.figure.dpi
    for dx, dy, ha, va in tries:
        if dy is None:      # high enough that the line, rising across the label, stays below
            put(dx, g, ha, va)
            width = text.get_window_extent(renderer).width
            x0, y0 = ax.transData.transform((x, y))
            rise = np.interp(x0 + dx / to_pt + width, dense[:, 0], dense[:, 1]) - y0
            dy = g + max(rise, 0) * to_pt
        put(dx, dy, ha, va)
        if _clear_of(text.get_window_extent(renderer), ax_box, dense):
            return
    put(*[t if t is not None else g for t in tries[0]])


# --------------------------------------------------------------------------
# shared MoE panel (static figures and the MoE explorer)
# --------------------------------------------------------------------------
def moe_axes(ax):
    """Set up the two-bar MoE panel (useful rows, executed rows); return its artists."""
    bars = ax.bar([0, 1], [0, 0], width=0.6,
                  color=[PALETTE["green"], PALETTE["vermillion"]],
                  edgecolor=PALETTE["black"], linewidth=0.8)
    for bar, hatch in zip(bars, (HATCHES[0], HATCHES[1]), strict=True):
        bar.set_hatch(hatch)
    ax.set_xticks([0, 1], ["useful rows", "executed rows\n(padded to tiles)"])
    ax.set_ylabel("rows through the matrix unit")
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))  # 12,000 like the bar labels
    ax.set_xlim(-0.6, 1.6)
    labels = [ax.text(i, 0, "", ha="center", va="bottom", fontsize=10) for i in (0, 1)]
    return {"bars": bars, "labels": labels, "title": ax.set_title("")}


def update_moe_axes(art, *, tokens=S.MOE_TOKENS, experts=S.MOE_EXPERTS, top_k=S.MOE_TOP_K,
                    skew=0.0, tile_rows=S.MOE_TILE_ROWS):
    """Route, pad and redraw the bars of :func:`moe_axes`; return the PaddedRows."""
    rows = route_tokens(tokens, experts=experts, top_k=top_k, skew=skew)
    pr = padded_rows(rows, tile_rows=tile_rows)
    ax = art["bars"][0].axes
    for bar, label, value in zip(art["bars"], art["labels"], (pr.useful, pr.executed), strict=True):
        bar.set_height(value)
        label.set_position((bar.get_x() + bar.get_width() / 2, value))
        label.set_text(f"{value:,}")
    # the explorer keeps its own, steadier range in art["ylim"]
    ax.set_ylim(*(art.get("ylim") or (0, max(pr.executed, 1) * 1.18)))
    art["title"].set_text(f"skew {skew:.2f}: {pr.active_experts} of {experts} experts active, "
                          f"η = {shown(pr.efficiency, '%', 1)}")
    return pr


# --------------------------------------------------------------------------
# registered figures
# --------------------------------------------------------------------------
@figure("j13-roofline-h100",
        "Roofline of the H100 SXM with the 4096×4096 BF16 Q projection at M = 1, 16 and 256 rows "
        "and at the critical row count M*, where it reaches the ridge point.")
def roofline_h100(hw=None, *, k=S.J13_K, n=S.J13_N, rows=FIGURE_ROWS,
                  bytes_per_element=S.J13_BYTES_PER_ELEMENT):
    """Log–log roofline of ``hw`` (default: the source's H100) with the Q projection marked."""
    acc = _source_hw(hw)
    fig, ax = plt.subplots()
    ax.set_xscale("log")
    ax.set_yscale("log")
    x = np.logspace(-0.3, 4, 400)
    ax.plot(x, in_unit(attainable_flops(x, acc), "TFLOP/s"), color=PALETTE["blue"],
            label=f"{acc.name} roofline")
    ridge, peak = acc.ridge_point, in_unit(acc.peak_flops, "TFLOP/s")
    ax.axvline(ridge, color=PALETTE["black"], ls=":", lw=1.2)
    ax.plot([ridge], [peak], ls="none", marker="D", ms=8, mfc="white", mec=PALETTE["black"],
            mew=1.5, label=f"ridge point I* = {ridge:.1f} FLOP/byte", zorder=4)
    lim = intensity_limit(k, n, bytes_per_element=bytes_per_element)
    ax.axvline(lim, color=PALETTE["green"], ls="--", lw=1.2,
               label=f"limit as M → ∞: {lim:,.0f} FLOP/byte")
    for i, m in enumerate(rows):
        pt = gemm_roofline(m, k, n, acc, bytes_per_element=bytes_per_element)
        ax.plot([pt.intensity], [in_unit(pt.attainable, "TFLOP/s")], ls="none", marker=MARKERS[i], ms=8,
                color=PALETTE["vermillion"], mec=PALETTE["black"], mew=0.6, zorder=5)
        label = f"M = {m}\nI = {pt.intensity:.1f}"
        if pt.intensity < 0.5 * ridge:
            ax.annotate(label, (pt.intensity, in_unit(pt.attainable, "TFLOP/s")), xytext=(8, -26),
                        textcoords="offset points", fontsize=9)
        else:  # close to the ridge: label it in the empty space below the flat roof
            ax.annotate(label, (pt.intensity, in_unit(pt.attainable, "TFLOP/s")),
                        xytext=(ridge * 1.5, peak * 0.2),
                        fontsize=9, arrowprops={"arrowstyle": "->", "lw": 0.8})
    m_star = critical_rows(k, n, acc, bytes_per_element=bytes_per_element)
    ax.plot([ridge], [peak], ls="none", marker="*", ms=13, color=PALETTE["orange"],
            mec=PALETTE["black"], mew=0.6, zorder=6, label=f"M* = {m_star:.1f} rows reaches I*")
    ax.annotate(f"M* = {m_star:.1f}", (ridge, peak), xytext=(-8, 10), textcoords="offset points",
                fontsize=9, ha="right")
    ax.text(2.0, peak * 1.35, "memory-bound: I < I*", fontsize=9, color=PALETTE["blue"])
    ax.text(ridge * 1.3, peak * 1.35, "compute-bound: I > I*", fontsize=9, color=PALETTE["blue"])
    ax.set_xlim(0.5, 1e4)
    ax.set_ylim(1, peak * 3)
    ax.set_xlabel(_X_LABEL)
    ax.set_ylabel(_Y_LABEL)
    ax.set_title(f"{acc.name}: the Q projection [M, {k}] @ [{k}, {n}], BF16")
    ax.legend(loc="lower right", frameon=True, framealpha=0.92, edgecolor="none")
    fig.tight_layout()
    return fig


@figure("j13-intensity-vs-m",
        "Arithmetic intensity of the 4096×4096 BF16 Q projection against the number of rows M: "
        "it climbs like M at first, crosses the H100's ridge point at M*, and levels off at "
        "2KN/(b(K+N)).")
def intensity_vs_rows(hw=None, *, k=S.J13_K, n=S.J13_N, rows=FIGURE_ROWS,
                      bytes_per_element=S.J13_BYTES_PER_ELEMENT, m_max=1e5):
    """I(M) on a log M axis with the ridge point, the asymptote and M* marked."""
    acc = _source_hw(hw)
    fig, ax = plt.subplots()
    m = np.logspace(0, np.log10(m_max), 400)
    ax.plot(m, arithmetic_intensity(m, k, n, bytes_per_element=bytes_per_element), color=PALETTE["blue"],
            label="I(M) = 2MKN / (b(MK + KN + MN))")
    lim = intensity_limit(k, n, bytes_per_element=bytes_per_element)
    ridge = acc.ridge_point
    ax.axhline(lim, color=PALETTE["green"], ls="--", lw=1.3,
               label=f"limit as M → ∞: 2KN/(b(K+N)) = {lim:,.0f}")
    ax.axhline(ridge, color=PALETTE["black"], ls=":", lw=1.3,
               label=f"{acc.name} ridge point I* = {ridge:.1f}")
    m_star = critical_rows(k, n, acc, bytes_per_element=bytes_per_element)
    ax.axvline(m_star, color=PALETTE["orange"], ls="-.", lw=1.2)
    ax.plot([m_star], [ridge], ls="none", marker="*", ms=13, color=PALETTE["orange"],
            mec=PALETTE["black"], mew=0.6, zorder=5, label=f"M* = {m_star:.1f} rows")
    for i, mi in enumerate(rows):
        ii = arithmetic_intensity(mi, k, n, bytes_per_element=bytes_per_element)
        ax.plot([mi], [ii], ls="none", marker=MARKERS[i], ms=7, color=PALETTE["vermillion"],
                mec=PALETTE["black"], mew=0.6, zorder=5)
        dx, dy, ha = ((8, 6, "left") if i == 0 else (6, 12, "left") if i == 1
                      else (-12, 22, "right"))
        ax.annotate(f"M = {mi}: {ii:.1f}", (mi, ii), xytext=(dx, dy), textcoords="offset points",
                    fontsize=9, ha=ha)
    ax.text(3, ridge * 2.2, "memory-bound (M < M*)", fontsize=9)
    ax.text(m_star * 1.15, lim * 0.88, "compute-bound (M > M*)", fontsize=9)
    ax.set_xscale("log")
    ax.set_xlim(0.8, m_max)        # the M = 1 marker whole, not cut by the axis
    ax.set_ylim(0, lim * 1.12)
    ax.set_xlabel("rows M (tokens in the batch)")
    ax.set_ylabel("arithmetic intensity I (FLOP/byte)")
    ax.set_title(f"Q projection [M, {k}] @ [{k}, {n}], BF16")
    ax.legend(loc="center left", bbox_to_anchor=(0.0, 0.62), frameon=True, framealpha=0.92,
              edgecolor="none")
    fig.tight_layout()
    return fig


@figure("j13-moe-padding",
        "Rows executed by the matrix unit versus useful rows for 64 tokens routed to 8 of 256 "
        "experts, rows padded to 16: uniform routing executes eight times the useful work.")
def moe_padding(*, tokens=S.MOE_TOKENS, experts=S.MOE_EXPERTS, top_k=S.MOE_TOP_K,
                tile_rows=S.MOE_TILE_ROWS):
    """Grouped bars: useful vs executed rows, uniform (skew 0) vs concentrated (skew 1)."""
    cases = []
    for skew in (0.0, 1.0):
        pr = padded_rows(route_tokens(tokens, experts=experts, top_k=top_k, skew=skew), tile_rows=tile_rows)
        cases.append(pr)
    fig, ax = plt.subplots()
    x = np.arange(len(cases))
    w = 0.36
    series = (("useful rows", "useful", PALETTE["green"], HATCHES[0]),
              (f"executed rows (padded to {tile_rows})", "executed", PALETTE["vermillion"], HATCHES[1]))
    for j, (label, attr, colour, hatch) in enumerate(series):
        vals = [getattr(pr, attr) for pr in cases]
        bars = ax.bar(x + (j - 0.5) * w, vals, w, label=label, color=colour, hatch=hatch,
                      edgecolor=PALETTE["black"], linewidth=0.8)
        for bar, v in zip(bars, vals, strict=True):
            ax.text(bar.get_x() + bar.get_width() / 2, v, f"{v:,}", ha="center", va="bottom",
                    fontsize=10)
    names = [f"uniform over {cases[0].active_experts} experts\n"
             f"{cases[0].rows_per_expert} rows each",
             f"concentrated on {cases[1].active_experts} experts\n"
             f"{cases[1].rows_per_expert} rows each"]
    ax.set_xticks(x, names)
    ax.set_ylabel("rows through the matrix unit (rows)")
    ax.set_ylim(0, max(pr.executed for pr in cases) * 1.15)
    ax.set_title(f"{tokens} tokens × top-{top_k} = {cases[0].useful} dispatches: "
                 f"{cases[0].padding_ratio:.0f}× more rows executed when uniform")
    ax.legend(loc="upper right")
    fig.tight_layout()
    return fig


@figure("j13-roofline-explorer",
        "Snapshot of the roofline explorer: the 4096×4096 BF16 projection at M = 1, 16, 256 and "
        "1024 rows on the H100 SXM and on the B200.")
def roofline_explorer_snapshot(*, accelerators=("H100 SXM", "B200"), rows=(*FIGURE_ROWS, 1024),
                               k=S.J13_K, n=S.J13_N, bytes_per_element=S.J13_BYTES_PER_ELEMENT):
    """The explorer's panel for each accelerator, with one operating point per ``rows`` value."""
    fig, axes = plt.subplots(len(accelerators), 1, figsize=(7.0, 3.6 * len(accelerators)))
    axes = np.atleast_1d(axes)
    for ax, hw in zip(axes, accelerators, strict=True):
        art = roofline_axes(ax)
        _, m_star = update_roofline_axes(art, hw, m=rows[0], k=k, n=n, bytes_per_element=bytes_per_element)
        art["point"].set_data([], [])
        art["point_text"].set_text("")
        acc = accelerator(hw)
        readout = []
        for i, m in enumerate(rows):
            pt = gemm_roofline(m, k, n, acc, bytes_per_element=bytes_per_element)
            ax.plot([pt.intensity], [in_unit(pt.attainable, "TFLOP/s")], ls="none", marker=MARKERS[i], ms=8,
                    color=PALETTE["vermillion"], mec=PALETTE["black"], mew=0.6, zorder=5)
            on_slope = pt.bound == "memory"
            near_ridge = on_slope and pt.intensity > 0.5 * acc.ridge_point
            # near the ridge the label goes below the slope, clear of the readout
            ax.annotate(f"M={m}", (pt.intensity, in_unit(pt.attainable, "TFLOP/s")),
                        xytext=(6, -14) if near_ridge else (-6, 6) if on_slope else (0, 9),
                        textcoords="offset points", fontsize=8.5,
                        ha="left" if near_ridge else "right" if on_slope else "center")
            readout.append(f"M={m}: I = {pt.intensity:,.1f}, {shown(pt.attainable, 'TFLOP/s', 0)}, "
                           f"{pt.bound}-bound")
        ax.text(0.02, 0.97, "\n".join(readout), transform=ax.transAxes, fontsize=8, va="top",
                ha="left")
        art["title"].set_text(f"{acc.name}: I* = {acc.ridge_point:,.1f} FLOP/byte, "
                              f"M* = {m_star:,.1f} rows")
        ax.legend(handles=[art["roof"], art["ridge"], art["limit_line"]], loc="lower right",
                  fontsize=8)
    fig.tight_layout()
    return fig


@figure("j13-moe-explorer",
        "Snapshot of the MoE padding explorer: useful and executed rows for 64 tokens, top-8 of "
        "256 experts and 16-row tiles as the routing skew goes from uniform (0) to "
        "concentrated (1).")
def moe_explorer_snapshot(*, tokens=S.MOE_TOKENS, experts=S.MOE_EXPERTS, top_k=S.MOE_TOP_K,
                          tile_rows=S.MOE_TILE_ROWS, skews=(0.0, 0.25, 0.5, 0.75, 1.0)):
    """Grouped bars of useful vs executed rows at several routing skews."""
    prs = [padded_rows(route_tokens(tokens, experts=experts, top_k=top_k, skew=s), tile_rows=tile_rows)
           for s in skews]
    fig, ax = plt.subplots()
    x = np.arange(len(skews))
    w = 0.38
    for j, (label, attr, colour, hatch) in enumerate(
            (("useful rows", "useful", PALETTE["green"], HATCHES[0]),
             ("executed rows", "executed", PALETTE["vermillion"], HATCHES[1]))):
        vals = [getattr(pr, attr) for pr in prs]
        ax.bar(x + (j - 0.5) * w, vals, w, label=label, color=colour, hatch=hatch,
               edgecolor=PALETTE["black"], linewidth=0.8)
    for xi, pr in zip(x, prs, strict=True):
        ax.text(xi + w / 2, pr.executed, f"{pr.executed:,}\n(η {shown(pr.efficiency, '%', 0)})",
                ha="center", va="bottom", fontsize=8.5)
    ax.set_xticks(x, [f"skew {s:g}\n{pr.active_experts} experts" for s, pr in zip(skews, prs, strict=True)])
    ax.set_xlabel("routing skew (0 = uniform, 1 = concentrated) and experts that receive tokens")
    ax.set_ylabel("rows through the matrix unit (rows)")
    ax.set_ylim(0, max(pr.executed for pr in prs) * 1.22)
    ax.set_title(f"{tokens} tokens × top-{top_k} of {experts} experts, {tile_rows}-row tiles")
    ax.legend(loc="upper right")
    fig.tight_layout()
    return fig


@figure("j13-padding-time",
        "What padding to whole row tiles costs one 4096×4096 BF16 GEMM on an H100, against the "
        "rows it really has: in FLOPs (top) and in time (bottom), for 16-, 64- and 128-row tiles.")
def padding_time(hw=None, *, k=S.J13_K, n=S.J13_N, tiles=(16, 64, 128), m_max=1024,
                 bytes_per_element=S.J13_BYTES_PER_ELEMENT):
    """Two panels sharing the rows axis: executed/useful FLOPs, and the time's padding slowdown.

    The time is :func:`infra_calc.padded_gemm`'s ``max(F_pad/Π, V/β)`` against
    ``max(F/Π, V/β)``; the dotted line marks ``b·I*/2`` rows: no GEMM with fewer
    (padded) rows reaches the card's ridge, since ``I < 2M/b``.
    """
    acc = _source_hw(hw)
    rows = np.arange(1, m_max + 1)
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(7.0, 6.2))
    styles = ("-", "--", "-.")
    for i, t in enumerate(tiles):
        gs = [padded_gemm(int(r), k, n, acc, bytes_per_element=bytes_per_element, tile=(t, 16, 16))
              for r in rows]
        kw = {"color": (PALETTE["blue"], PALETTE["vermillion"], PALETTE["green"])[i % 3],
              "ls": styles[i % 3], "lw": 1.6, "label": f"{t}-row tiles"}
        top.plot(rows, [g.executed_flops / g.useful_flops for g in gs], **kw)
        bottom.plot(rows, [g.padding_slowdown for g in gs], **kw)
    few = roofline.fewest_compute_rows(acc, bytes_per_element=bytes_per_element)
    for ax in (top, bottom):
        ax.axvline(few, color=PALETTE["black"], ls=":", lw=1.1)
        ax.set_xscale("log")
        ax.set_xlim(1, m_max)
    top.set_yscale("log")
    top.set_ylabel("executed / useful FLOPs (×)")
    top.set_title(f"{acc.name}: [M × {k}] @ [{k} × {n}], BF16, rows padded to whole tiles")
    top.legend(loc="lower left", fontsize=9)
    top.text(few * 1.06, 20, f"b·I*/2 =\n{few:,.1f} rows", fontsize=8.5)
    bottom.set_ylabel("time with padding / without (×)")
    bottom.set_xlabel("useful rows M of the GEMM (rows)")
    bottom.text(1.3, 1.0 + 0.8 * (bottom.get_ylim()[1] - 1.0),
                "few rows: memory-bound,\nthe zeros cost no time", fontsize=8.5, va="top")
    bottom.text(few * 0.92, 1.0 + 0.8 * (bottom.get_ylim()[1] - 1.0),
                "enough padded rows to be\ncompute-bound: the zeros\ncost time →", fontsize=8.5,
                va="top", ha="right")
    fig.tight_layout()
    return fig
