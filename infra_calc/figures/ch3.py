"""Figures for chapter 3, "the whole request".

Each figure draws library results only (:mod:`infra_calc.kv`,
:mod:`infra_calc.prefill`, :mod:`infra_calc.decode`,
:mod:`infra_calc.reality`).  :func:`draw_kv_panel` and :func:`update_kv_panel`
are shared with the KV explorer widget (:mod:`infra_calc.widgets.kv`).
"""
from __future__ import annotations

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from .. import models
from ..accelerators import accelerator
from ..decode import REGIONS, model_decode_step
from ..display import in_unit, shown, sig
from ..kv import critical_context, decode_region, kv_weight_batch, turning_batch
from ..levers import speculative_step
from ..prefill import prefill_step
from ..reality import reality_check
from ..step import batch_turning_point
from ..units import BF16_BYTES
from ..workload import Workload
from ._registry import HATCHES, MARKERS, PALETTE, figure

__all__ = ["kv_regions_figure", "prefill_figure", "tensor_parallel_figure", "moe_bytes_figure",
           "reality_figure", "levers_figure", "kv_explorer_snapshot_figure", "draw_kv_panel",
           "update_kv_panel", "KV_EXPLORER_SETTINGS", "REGION_COLOURS", "LEVER_PRECISIONS"]

BIG, SMALL, MOE = "DeepSeek-R1-Distill-Llama-70B", "Llama-3.1-8B", "Mixtral-8x7B"
REGION_COLOURS = {"weight-read": PALETTE["sky"], "kv-read": PALETTE["orange"],
                  "compute": PALETTE["vermillion"]}
#: the explorer's default state, also drawn as its static snapshot
KV_EXPLORER_SETTINGS = dict(model=BIG, hw="H100 SXM", batch=32, context=4096,
                            kv_bytes_per_element=BF16_BYTES, bytes_per_param=BF16_BYTES)


@figure("ch3-kv-regions",
        "The (batch, context) plane of a 70B model with 8-bit weights and a BF16 cache on one "
        "H100 SXM: weight-read bound, KV-read bound and compute bound. B*(S) rises with context "
        "and never returns past S_max; the dashed lines are the borders without grouped KV heads; "
        "hatched, the points whose caches do not fit on the card.")
def kv_regions_figure(model=BIG, hw="H100 SXM", *, bytes_per_param=1, kv_bytes_per_element=BF16_BYTES):
    """Region map over batch (log) and context, with ``B*(S)``, ``B_kv(S)`` and ``S_max`` drawn.

    Every border comes from the model itself (:mod:`infra_calc.kv`), the same
    account as :func:`~infra_calc.decode.model_decode_step`; the dashed ones
    are for the same model with one KV head per query head
    (:meth:`ModelSpec.with_kv_heads`).  Hatched: the batches right of the border
    :math:`B = (C - W - M_{work}) / (S\\,m_{KV})`, the headroom of a batch-1 workload
    with no cache (:attr:`~infra_calc.workload.Workload.memory`: the card's physical
    capacity less the weights and the default workspace) over each context's cache
    per request.  A real-valued border, not rounded to whole requests (the figure
    draws a line, not :func:`~infra_calc.capacity.max_batch`'s steps), so a point is
    hatched where :attr:`Workload.fits <infra_calc.workload.Workload.fits>` would be
    false at that batch and context.
    """
    m = models.model(model)
    acc = accelerator(hw)
    kw = dict(bytes_per_param=bytes_per_param, kv_bytes_per_element=kv_bytes_per_element)
    b = np.logspace(0, 4, 241)
    s = np.linspace(0, 8192, 257)
    bb, ss = np.meshgrid(np.round(b), np.round(s))
    reg = decode_region(m, acc, batch=bb, context=ss, bytes_per_param=bytes_per_param,
                        kv_bytes_per_element=kv_bytes_per_element)
    code = np.select([reg == r for r in REGIONS], [0, 1, 2])
    fig = Figure(figsize=(7.2, 4.4))
    ax = fig.add_subplot()
    cmap = ListedColormap([REGION_COLOURS[r] for r in REGIONS])
    ax.pcolormesh(bb, ss, code, cmap=cmap, vmin=-0.5, vmax=2.5, shading="nearest",
                  rasterized=True, alpha=0.55)
    for spec, ls, suffix in ((m, "-", ""), (m.with_kv_heads(m.heads), "--", " (no GQA)")):
        s_max = critical_context(spec, acc, **kw)
        sl = np.linspace(0, min(s_max, 8192), 400, endpoint=False)[1:].round()
        ax.plot(turning_batch(spec, acc, context=sl, **kw), sl, ls, color=PALETTE["black"], lw=1.6,
                label=f"$B^*(S)$: compute = read{suffix}")
        sk = np.linspace(8, 8192, 400).round()
        ax.plot(kv_weight_batch(spec, acc, context=sk, bytes_per_param=bytes_per_param,
                                kv_bytes_per_element=kv_bytes_per_element), sk, ls,
                color=PALETTE["blue"], lw=1.4, label=f"$B_{{kv}}(S)$: KV read = weight read{suffix}")
        if s_max < 8192:
            ax.axhline(s_max, color=PALETTE["purple"], ls=ls, lw=1.2,
                       label=f"$S_{{max}}$ = {s_max:,.0f} tokens{suffix}")
    for r, (x, y) in zip(REGIONS, ((1.3, 7500), (700, 5000), (1300, 550)), strict=True):
        ax.text(x, y, r.replace("-", " ") + " bound", fontsize=10, weight="bold")
    ax.set_xscale("log")
    ax.set_xlim(1, 1e4)
    ax.set_ylim(0, 8192)
    ax.set_xlabel("batch B (requests)")
    ax.set_ylabel("context S (tokens per request)")
    one = Workload(m, acc, **kw)                     # batch 1, no cache: weights + workspace
    sc = np.linspace(1, 8192, 400)
    # the inequality solved for a real-valued B, headroom / (S m_kv) (not max_batch's whole
    # requests, nor max_context's whole tokens: either would move the border by a rounding);
    # S is real here, so a request's cache is S times the cache of one token
    b_fit = one.memory.headroom / (sc * one.kv_bytes_per_card(1))
    ax.fill_betweenx(sc, np.clip(b_fit, 1, 1e4), 1e4, facecolor="none", hatch="xx",
                     edgecolor=PALETTE["black"], lw=0.0, alpha=0.6)
    ax.plot(np.clip(b_fit, 1, 1e4), sc, color=PALETTE["black"], lw=0.8)
    ax.plot([], [], color=PALETTE["black"], lw=0.8, label="capacity: hatched points do not fit")
    bits = {1: "8-bit", 2: "BF16", 0.5: "4-bit"}.get(bytes_per_param, f"{bytes_per_param:g} B")
    ax.set_title(f"{m.name}, {acc.name}: {bits} weights, KV {kv_bytes_per_element:g} B per element",
                 fontsize=10)
    ax.legend(loc="center left", fontsize=7.5, framealpha=0.9)
    fig.tight_layout()
    return fig


@figure("ch3-prefill",
        "Lower bound of the prefill pass (time to first token) against prompt length on one "
        "H100 SXM, for the 8B model in BF16 and the 70B model with 8-bit weights (both fit): "
        "the weight read sets a floor, the math takes over near P* = b_W Π/(2β) tokens, and "
        "attention's P² term bends the curve for long prompts.")
def prefill_figure(cases=((SMALL, 2), (BIG, 1)), hw="H100 SXM"):
    """TTFT bound, read and compute parts against prompt tokens (log-log), one curve set per
    ``(model, bytes_per_param)`` case, with each case's ``P*``."""
    acc = accelerator(hw)
    p = np.unique(np.logspace(0, np.log10(32768), 200).astype(int))
    fig = Figure(figsize=(7.2, 4.2))
    ax = fig.add_subplot()
    colours = (PALETTE["blue"], PALETTE["vermillion"])
    for (name, bpp), c, y in zip(cases, colours, (0.02, 0.05), strict=False):
        st = prefill_step(name, acc, prompt_tokens=p, bytes_per_param=bpp)
        short = f"{shown(models.model(name).params, 'billion', 0, bare=True)}B, {bpp:g} B/weight"
        ax.plot(p, in_unit(st.t_step, "ms"), "-", color=c, lw=2.2, label=f"{short}: max(F/Π, R/β)")
        ax.plot(p, in_unit(st.t_read, "ms"), ":", color=c, lw=1.2, label=f"{short}: read R/β")
        ax.plot(p, in_unit(st.t_compute, "ms"), "--", color=c, lw=1.2, label=f"{short}: compute F/Π")
        p_star = batch_turning_point(acc, bytes_per_param=bpp)
        ax.axvline(p_star, color=c, lw=1, ls="-.")
        ax.text(p_star * 1.1, y, f"P* = {p_star:.0f}", fontsize=8.5, color=c)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("prompt length P (tokens)")
    ax.set_ylabel("time to first token, lower bound (ms)")
    ax.set_ylim(0.01, None)
    ax.legend(fontsize=7, ncol=2, loc="upper left")
    fig.tight_layout()
    return fig


@figure("ch3-tensor-parallel",
        "One decode step of a 70B model with 8-bit weights split over 1, 2, 4 and 8 H100 SXM "
        "cards: the per-card floor shrinks about as 1/n while the all-reduces (a ring model, "
        "1 µs per step assumed) grow, so eight cards fall short of an eight-fold speed-up (batch 1 "
        "and batch 64, context 2,048, communication not overlapped; a configuration that does "
        "not fit is hatched and marked).")
def tensor_parallel_figure(model=BIG, hw="H100 SXM", *, batches=(1, 64), context=2048,
                           bytes_per_param=1):
    """Stacked bars per card count: max(read, compute) and communication, ms."""
    cards = np.array([1, 2, 4, 8])
    fig = Figure(figsize=(7.2, 3.8))
    axes = fig.subplots(1, len(batches), sharey=False)
    for ax, b in zip(np.atleast_1d(axes), batches, strict=False):
        st = model_decode_step(model, hw, cards=cards, batch=b, context=context,
                                  bytes_per_param=bytes_per_param)
        work = in_unit(st.t_floor, "ms")
        comm = in_unit(st.t_comm, "ms")
        x = np.arange(len(cards))
        fits = np.asarray(st.fits)
        ax.bar(x, work, color=PALETTE["blue"], hatch=HATCHES[0], edgecolor="white",
               label="floor: max(read, compute)")
        ax.bar(x, comm, bottom=work, color=PALETTE["orange"], hatch=HATCHES[1], edgecolor="white",
               label="all-reduces (ring model)")
        if not fits.all():
            ax.bar(x[~fits], (work + comm)[~fits], color="none", hatch="xx",
                   edgecolor=PALETTE["black"], lw=0.8, label="does not fit")
        ideal = work[0] / cards
        ax.plot(x, ideal, "k--", marker=MARKERS[0], ms=4, lw=1, label="ideal 1/n")
        for xi, t, ok in zip(x, st.t_step, fits, strict=False):
            label = f"{shown(t, 'ms', 2, bare=True)}" + ("" if ok else "\n(no fit)")
            ax.text(xi, in_unit(t, "ms") * 1.02, label, ha="center", va="bottom", fontsize=8)
        ax.set_xticks(x, [str(c) for c in cards])
        ax.set_xlabel("cards n")
        ax.set_title(f"batch {b}", fontsize=10)
        ax.set_ylim(0, in_unit(st.t_step, "ms").max() * 1.2)
    np.atleast_1d(axes)[0].set_ylabel("decode step, lower bound (ms)")
    np.atleast_1d(axes)[-1].legend(fontsize=8)
    fig.tight_layout()
    return fig


@figure("ch3-moe-bytes",
        "Mixtral-8x7B with 8-bit weights on one H100 SXM: the weight bytes a decode step reads. "
        "The floor (k = 2 experts per layer, whatever the routing) stays just under the active "
        "parameters at every batch; under uniform routing, a model and not a floor, the expected "
        "read grows with the batch as more experts are hit, towards all the parameters, and the "
        "step time follows.")
def moe_bytes_figure(model=MOE, hw="H100 SXM", *, bytes_per_param=1):
    """Left: decode weight bytes vs batch; right: read and compute times vs batch.

    Solid lines are floors (``routing="floor"``); the dashed orange line is the
    uniform-routing model (``routing="uniform"``).
    """
    m = models.model(model)
    acc = accelerator(hw)
    b = np.unique(np.logspace(0, 3.3, 120).astype(int))
    floor = in_unit(m.decode_weight_bytes(bytes_per_param, b), "GB")
    uniform = in_unit(m.decode_weight_bytes(bytes_per_param, b, routing="uniform"), "GB")
    fig = Figure(figsize=(7.6, 3.6))
    ax1, ax2 = fig.subplots(1, 2)
    ax1.plot(b, floor, color=PALETTE["blue"], lw=2, label="floor: k experts per layer")
    ax1.plot(b, uniform, color=PALETTE["orange"], lw=2, ls="-.",
             label="uniform routing (a model)")
    ax1.axhline(in_unit(m.active_params * bytes_per_param, "GB"), color=PALETTE["green"], ls="--",
                label="active params × $b_W$ (J07)")
    ax1.axhline(in_unit(m.weight_bytes(bytes_per_param), "GB"), color=PALETTE["black"], ls=":",
                label="all params × $b_W$")
    ax1.set_xscale("log")
    ax1.set_xlabel("batch B (requests)")
    ax1.set_ylabel("weight bytes per decode step (GB)")
    ax1.legend(fontsize=7.5)
    step_f = model_decode_step(m, acc, batch=b, bytes_per_param=bytes_per_param)
    step_u = model_decode_step(m, acc, batch=b, bytes_per_param=bytes_per_param,
                               routing="uniform")
    step_a = model_decode_step(m, acc, batch=b, bytes_per_param=bytes_per_param, weight_read="active")
    ax2.plot(b, in_unit(step_f.t_read, "ms"), color=PALETTE["blue"], lw=2, label="read floor, k experts")
    ax2.plot(b, in_unit(step_u.t_read, "ms"), color=PALETTE["orange"], lw=2, ls="-.",
             label="read, uniform routing (model)")
    ax2.plot(b, in_unit(step_a.t_read, "ms"), color=PALETTE["green"], ls="--",
             label="read, active only (J07)")
    ax2.plot(b, in_unit(step_f.t_compute, "ms"), color=PALETTE["vermillion"], lw=2,
             label="compute $2BN_{mm}/\\Pi$")
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_xlabel("batch B (requests)")
    ax2.set_ylabel("decode step time (ms)")
    ax2.legend(fontsize=7.5)
    fig.tight_layout()
    return fig


#: the levers page's cases: (label, bytes per weight, math precision)
LEVER_PRECISIONS = (("BF16 weights, BF16 math", 2, "bf16"),
                    ("4-bit weights only, BF16 math", 0.5, "bf16"),
                    ("FP8 weights, FP8 math", 1, "fp8"))


@figure("ch3-levers",
        "Two levers on one H200 for the 70B model. Left: draft-and-verify with an 8B draft "
        "model (8-bit weights, context 2,048): the time per output token against the drafts "
        "verified per request; solid, the floor of any schedule (at most k + 1 tokens per round, "
        "a round's FLOPs and bytes, drafts and verify together, at the card's peaks); dotted, the "
        "floor with drafting and verifying in series over the whole batch (the same as the solid "
        "line at batch 1); dashed, the "
        "i.i.d. acceptance model at α = 0.7; filled markers where the verify pass is "
        "compute-bound. Right: the time per token of a decode step against batch at context "
        "512 for three precisions, drawn where the caches fit; dotted, each one's B*(S).")
def levers_figure(model=BIG, draft=SMALL, hw="H200", *, context=2048, batches=(1, 32),
                  acceptance=0.7, precision_context=512, precisions=LEVER_PRECISIONS):
    """Left: per-token floor and model vs drafts ``k``; right: per-token step time vs batch."""
    acc = accelerator(hw)
    fig = Figure(figsize=(7.8, 3.8))
    ax1, ax2 = fig.subplots(1, 2)
    k = np.arange(0, 13)
    for b, c, mk in zip(batches, (PALETTE["blue"], PALETTE["vermillion"]), MARKERS, strict=False):
        st = speculative_step(model, acc, batch=b, context=context, draft_tokens=k, acceptance=acceptance,
                              draft=draft, bytes_per_param=1)
        comp = np.asarray(st.bound) == "compute"
        ax1.plot(k, in_unit(st.t_per_token_floor, "ms"), "-", color=c, lw=2, label=f"batch {b}: floor")
        if b > 1:       # at batch 1 every pass is memory-bound and the two floors agree
            ax1.plot(k, in_unit(st.t_per_token_serial, "ms"), ":", color=c, lw=1.4,
                     label=f"batch {b}: floor, drafts then verify")
        ax1.plot(k, in_unit(st.t_per_token_expected, "ms"), "--", color=c, lw=1.4,
                 label=f"batch {b}: model, α = {acceptance:g}")
        for y in (in_unit(st.t_per_token_floor, "ms"), in_unit(st.t_per_token_expected, "ms")):
            ax1.plot(k[~comp], y[~comp], mk, color=c, mfc="white", ms=4.5, lw=0)
            ax1.plot(k[comp], y[comp], mk, color=c, ms=4.5, lw=0)
    ax1.set_xlabel("draft tokens verified per request, k")
    ax1.set_ylabel("time per output token (ms)")
    ax1.set_ylim(0, None)
    ax1.legend(fontsize=7.5)
    m = models.model(model)
    b = np.unique(np.logspace(0, 3.5, 160).astype(int))
    colours = (PALETTE["black"], PALETTE["green"], PALETTE["purple"])
    for (label, bpp, math), c, ls in zip(precisions, colours, ("-", "--", "-."), strict=False):
        st = model_decode_step(m, acc, batch=b, context=precision_context, bytes_per_param=bpp, math=math)
        per = np.where(np.asarray(st.fits), in_unit(st.t_step / b, "ms"), np.nan)
        ax2.plot(b, per, ls, color=c, lw=2, label=label)
        b_star = turning_batch(m, acc, context=precision_context, bytes_per_param=bpp, math=math)
        ax2.axvline(b_star, color=c, ls=":", lw=1.2)
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_xlabel("batch B (requests)")
    ax2.set_ylabel("decode step per token, floor (ms)")
    ax2.legend(fontsize=7.5)
    fig.tight_layout()
    return fig


#: a whole-request row whose prefill is at least this share of its bound is drawn as mixed
MIXED_PREFILL_SHARE = 0.05


@figure("ch3-reality",
        "Published measurements against the book's lower bounds, taken from the floor terms "
        "alone (no all-reduce model; k experts per MoE layer): the fraction of the bound each "
        "one reaches (implied MBU for read-bound rows, MFU for compute-bound ones; whole-request "
        "rows with a large prefill share apart; hollow diamonds: the MoE rows against the "
        "uniform-routing model). Every measurement is slower than its bound.")
def reality_figure():
    """Horizontal bars: fraction of the bound reached, per measurement."""
    rows = reality_check()
    fig = Figure(figsize=(7.4, 5.6))
    ax = fig.add_subplot()
    y = np.arange(len(rows))[::-1]
    kinds = {"memory": (PALETTE["blue"], HATCHES[0]), "compute": (PALETTE["vermillion"], HATCHES[1]),
             "mixed": (PALETTE["green"], HATCHES[3 % len(HATCHES)])}
    labels = {"memory": "memory-bound (implied MBU)", "compute": "compute-bound (implied MFU)",
              "mixed": f"whole request, prefill ≥ {shown(MIXED_PREFILL_SHARE, '%', 0)} of the bound"}
    seen = set()
    for yi, r in zip(y, rows, strict=False):
        kind = "mixed" if r.prefill_share >= MIXED_PREFILL_SHARE else r.bound_kind
        c, h = kinds[kind]
        label = None if kind in seen else labels[kind]
        seen.add(kind)
        ax.barh(yi, in_unit(r.fraction, "%"), color=c, hatch=h, edgecolor="white", label=label)
        ax.text(in_unit(r.fraction, "%") + 1, yi, str(shown(r.fraction, "%", 0)), va="center", fontsize=7.5)
        if r.uniform_fraction != r.fraction:      # an MoE row: the uniform-routing model too
            ax.plot(in_unit(r.uniform_fraction, "%"), yi, marker="D", ms=5, mfc="white",
                    mec=PALETTE["orange"], mew=1.5, ls="none",
                    label=None if "uniform" in seen else "MoE row against uniform routing (a model)")
            seen.add("uniform")
    ax.set_yticks(y, [r.measurement.id for r in rows], fontsize=7.5)
    ax.set_xlim(0, 125)
    ax.axvline(100, color=PALETTE["black"], lw=1)
    ax.set_xlabel("measured performance as % of the lower bound")
    ax.legend(fontsize=7.5, loc="upper right", framealpha=0.95)
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------
# the KV explorer panel (shared with the widget)
# --------------------------------------------------------------------------
_BAR_LABELS = ("read weights", "read KV cache", "compute")


def _bar_values_ms(st):
    return in_unit(np.array([st.t_weights, st.t_kv, st.t_compute]), "ms")


def _panel_title(st):
    """Two lines (one would run off a 7-inch panel with a long model name): the setting,
    then the step, its bound and whether it fits; times with 4 significant figures."""
    fits = ("" if st.fits else
            f" (does not fit: {sig(st.memory_per_card, 'GB', 3)} per card)")
    return (f"{st.model.name}, {st.hw.name}: B = {st.batch:,}, S = {st.context:,}\n"
            f"step {sig(st.t_step, 'ms')}, {st.region} bound{fits}")


def draw_kv_panel(ax, st):
    """Draw the three bars (weights, KV, compute; ms) and return the artists to update."""
    vals = _bar_values_ms(st)
    colours = (REGION_COLOURS["weight-read"], REGION_COLOURS["kv-read"], REGION_COLOURS["compute"])
    bars = ax.barh(np.arange(3), vals, color=colours, edgecolor="black")
    for bar, h in zip(bars, HATCHES, strict=False):
        bar.set_hatch(h)
    ax.set_yticks(np.arange(3), _BAR_LABELS)
    ax.invert_yaxis()
    read_line = ax.axvline(vals[0] + vals[1], color=PALETTE["black"], ls="--", lw=1.2,
                           label="read = weights + KV")
    ax.set_xlabel("lower bound (ms)")
    ax.set_xlim(0, max(vals[0] + vals[1], vals[2]) * 1.15)
    # opaque, so that the read line passes behind the legend, not through its text
    legend = ax.legend(fontsize=8, loc="lower right", frameon=True, framealpha=1,
                       edgecolor="white")
    title = ax.set_title(_panel_title(st), fontsize=9)
    return {"bars": bars, "read_line": read_line, "title": title, "ax": ax, "legend": legend}


def update_kv_panel(artists, st):
    """Update the bars, the read line, the title and the axis limit in place."""
    vals = _bar_values_ms(st)
    for bar, v in zip(artists["bars"], vals, strict=False):
        bar.set_width(v)
    artists["read_line"].set_xdata([vals[0] + vals[1]] * 2)
    artists["title"].set_text(_panel_title(st))
    artists["ax"].set_xlim(0, max(vals[0] + vals[1], vals[2]) * 1.15)


@figure("ch3-kv-explorer",
        "Static snapshot of the KV explorer: a 70B model in BF16 on one H100 SXM, 32 requests "
        "of 4,096 tokens: reading the weights and the KV cache against the math.")
def kv_explorer_snapshot_figure(*, settings=None):
    """The explorer's default state, drawn with the widget's own panel."""
    cfg = dict(KV_EXPLORER_SETTINGS, **(settings or {}))
    st = model_decode_step(cfg["model"], cfg["hw"], batch=cfg["batch"], context=cfg["context"],
                           bytes_per_param=cfg["bytes_per_param"],
                           kv_bytes_per_element=cfg["kv_bytes_per_element"])
    fig = Figure(figsize=(7.0, 3.0))
    ax = fig.add_subplot()
    draw_kv_panel(ax, st)
    fig.tight_layout()
    return fig
