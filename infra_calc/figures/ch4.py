"""Figures for chapter 4, "from bound to forecast".

Each figure draws library results only: the published rows of
:mod:`infra_calc.measurements` against the floors of :mod:`infra_calc.reality`
and :func:`~infra_calc.decode.model_decode_step`, the grouped cross-validation of
:func:`infra_calc.crossval.evaluate`, and the forecast of :func:`infra_calc.forecasting.forecast`.
"""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ..accelerators import CATALOG
from ..crossval import evaluate
from ..decode import model_decode_step
from ..display import in_unit
from ..forecasting import POOLED, forecast
from ..measurements import independent
from ..reality import lower_bound, workload_for
from ._registry import MARKERS, PALETTE, figure

__all__ = ["decode_fractions", "floor_fraction_figure", "forecast_panel_state",
           "draw_forecast_panel", "update_forecast_panel", "forecast_explorer_snapshot_figure",
           "FORECAST_EXPLORER_SETTINGS", "engine_label", "predicted_measured_figure", "residuals_figure",
           "heavy_load_ttft", "KIND_LABELS"]

#: the decode metrics a step floor bounds: a time per token, or a batch-1 rate
_STEP_TIMES = ("tpot", "itl")


def decode_fractions():
    """``[(measurement, fraction of the floor reached)]`` of every decode row that states
    enough to compute its floor (independent rows only, in file order).

    A time per output token is compared with :func:`~infra_calc.reality.lower_bound`; a
    batch-1 output rate with no lengths stated (gpt-fast) with the floor of one step with an
    empty cache on the row's workload (:func:`~infra_calc.reality.workload_for`;
    ``model_decode_step(workload_for(m), batch=1, context=0).t_floor``: leaving the
    cache out makes the floor smaller, so it stays a floor).  Rows whose card, cards or
    lengths are not stated are left out.
    """
    out = []
    for m in independent():
        if not m.accelerator:
            continue
        if m.metric in _STEP_TIMES and m.cards and m.batch:
            out.append((m, lower_bound(m).fraction))
        elif (m.metric == "output_throughput" and m.batch == 1 and m.cards
              and m.prompt_tokens is None):
            st = model_decode_step(workload_for(m), batch=1, context=0, weight_read="touched")
            out.append((m, float(st.t_floor * m.output_rate_per_card * m.cards)))
    return out


@figure("ch4-floor-fraction",
        "The share of the book's floor that published decode measurements reach, by engine and "
        "vendor: one marker per independent row (a time per output token, or a batch-1 rate), "
        "filled on one card, open on several. The vertical line is the floor itself.")
def floor_fraction_figure():
    """Strip plot of :func:`decode_fractions`, one line per (engine, vendor)."""
    rows = decode_fractions()
    keys = sorted({(m.engine, m.vendor) for m, _ in rows})
    colours = list(PALETTE.values())
    fig = Figure(figsize=(7.2, 0.55 * len(keys) + 1.6))
    ax = fig.add_subplot()
    rng = np.random.default_rng(0)       # a fixed jitter: the file stays byte-stable
    for i, key in enumerate(keys):
        y0 = len(keys) - 1 - i
        fr = np.array([f for m, f in rows if (m.engine, m.vendor) == key])
        one = np.array([m.cards == 1 for m, _ in rows if (m.engine, m.vendor) == key])
        y = y0 + rng.uniform(-0.18, 0.18, len(fr))
        c, mk = colours[i % len(colours)], MARKERS[i % len(MARKERS)]
        ax.plot(in_unit(fr[one], "%"), y[one], mk, color=c, ls="none", ms=6)
        ax.plot(in_unit(fr[~one], "%"), y[~one], mk, mfc="white", mec=c, mew=1.4, ls="none", ms=6)
        ax.plot([in_unit(np.median(fr), "%")] * 2, [y0 - 0.3, y0 + 0.3], color=c, lw=2)
    ax.set_yticks(np.arange(len(keys))[::-1],
                  [f"{e}, {v} (n = {sum((m.engine, m.vendor) == (e, v) for m, _ in rows)})"
                   for e, v in keys], fontsize=8)
    ax.axvline(100, color=PALETTE["black"], lw=1)
    ax.set_xlim(0, 105)
    ax.set_xlabel("share of the floor reached (%); bar: the median of the line")
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------
# the forecast explorer's panel (shared with the widget)
# --------------------------------------------------------------------------
#: the explorer's default state, also drawn as its static snapshot ("any": the pooled fit)
FORECAST_EXPLORER_SETTINGS = dict(model="Llama-3.1-8B", hw="H100 SXM", engine="any",
                                  batch=1, prompt_tokens=1000, output_tokens=200, cards=1)


def forecast_panel_state(model, hw, *, engine, batch, prompt_tokens, output_tokens, cards):
    """The :class:`~infra_calc.forecasting.Forecast` of one setting (BF16 weights, cache and
    math; ``engine`` a family of :func:`~infra_calc.forecasting.forecast_engines`)."""
    return forecast(model, hw, prompt_tokens=prompt_tokens, output_tokens=output_tokens,
                    batch=batch, cards=cards, engine=None if engine == "any" else engine)


def engine_label(f):
    """The family whose knobs a forecast used, as the explorer names it ("pooled" for "any")."""
    return "pooled" if f.engine == POOLED else f.engine


def _forecast_title(f):
    g = f.floor
    return (f"{g.model.name} on {g.cards} × {g.hw.name}, batch {g.batch:,}, "
            f"P = {g.prompt_tokens:,}, O = {g.output_tokens:,}\n"
            f"floor and forecast ({engine_label(f)} knobs; band: 10th-90th percentile)")


def _floor_tpot(f):
    return f.floor.floor_tpot


def draw_forecast_panel(ax, f):
    """Draw the floor bar, the forecast band and its value; return the artists to update."""
    floor, b = _floor_tpot(f), f.tpot
    bar = ax.barh([1], [in_unit(floor, "ms")], color=PALETTE["blue"], edgecolor="black",
                  label="floor (no engine is faster)")[0]
    band = ax.barh([0], [in_unit(b.high - b.low, "ms")], left=[in_unit(b.low, "ms")], color=PALETTE["orange"],
                   hatch="//", edgecolor="black", label="forecast band (a model)")[0]
    (tick,) = ax.plot([in_unit(b.value, "ms")] * 2, [-0.4, 0.4], color=PALETTE["black"], lw=2.5,
                      label="forecast")
    ax.set_yticks([0, 1], ["forecast", "floor"])
    ax.set_xlabel("time per output token (ms)")
    ax.set_ylim(-0.7, 1.9)
    ax.set_xlim(0, in_unit(b.high, "ms") * 1.15)
    legend = ax.legend(loc="upper right", fontsize=8, framealpha=0.95)
    title = ax.set_title(_forecast_title(f), fontsize=9)
    return {"ax": ax, "bar": bar, "band": band, "tick": tick, "legend": legend, "title": title}


def update_forecast_panel(artists, f):
    """Move the floor bar, the band, the forecast's tick and the title in place."""
    b = f.tpot
    artists["bar"].set_width(in_unit(_floor_tpot(f), "ms"))
    artists["band"].set_x(in_unit(b.low, "ms"))
    artists["band"].set_width(in_unit(b.high - b.low, "ms"))
    artists["tick"].set_xdata([in_unit(b.value, "ms")] * 2)
    artists["title"].set_text(_forecast_title(f))


@figure("ch4-forecast-explorer",
        "Static snapshot of the forecast explorer: one request of Llama-3.1-8B in BF16 on one "
        "H100 SXM, a 1,000-token prompt and 200 output tokens: the floor of the time per "
        "output token, and the forecast with the pooled knobs and its band.")
def forecast_explorer_snapshot_figure(*, settings=None):
    """The explorer's default state, drawn with the widget's own panel."""
    cfg = dict(FORECAST_EXPLORER_SETTINGS, **(settings or {}))
    f = forecast_panel_state(cfg["model"], cfg["hw"], engine=cfg["engine"], batch=cfg["batch"],
                             prompt_tokens=cfg["prompt_tokens"],
                             output_tokens=cfg["output_tokens"], cards=cfg["cards"])
    fig = Figure(figsize=(7.0, 3.0))
    ax = fig.add_subplot()
    draw_forecast_panel(ax, f)
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------
# testing the fitted forecast: grouped cross-validation (infra_calc.crossval)
# --------------------------------------------------------------------------
#: what each kind of row measures, as the figures' legends say it
KIND_LABELS = {"tpot": "time per output token", "rate": "output rate (as its batch's time)",
               "ttft": "TTFT at low load", "total": "whole request"}


@figure("ch4-predicted-measured",
        "Every cross-validated row: the time it measured against the time forecast by knobs "
        "fitted without its provenance group, log-log (a rate as the time its batch takes). "
        "Filled: the model with its engine family's knobs, by metric; open: the raw floor. The "
        "diagonal is a perfect forecast; the band is ±15%.")
def predicted_measured_figure():
    """Predicted against measured time of every grouped-CV row, 1:1 line and ±15% band."""
    cv = evaluate().cv
    meas = np.array([p.row.y for p in cv])
    pred = np.array([p.model for p in cv])
    floor = np.array([p.floor for p in cv])
    kinds = [p.row.kind for p in cv]
    fig = Figure(figsize=(6.4, 5.4))
    ax = fig.add_subplot()
    lim = np.array([min(floor.min(), meas.min(), pred.min()) / 1.5,
                    max(pred.max(), meas.max()) * 1.5])
    ax.fill_between(lim, lim / 1.15, lim * 1.15, color=PALETTE["sky"], alpha=0.35,
                    label="±15% of the measurement")
    ax.plot(lim, lim, color=PALETTE["black"], lw=1, label="forecast = measurement")
    ax.plot(meas, floor, "o", mfc="white", mec=PALETTE["black"], mew=0.8, ls="none", ms=5,
            label="raw floor (never above the diagonal)")
    colours = [PALETTE[c] for c in ("vermillion", "blue", "green", "purple")]
    for i, (kind, label) in enumerate(KIND_LABELS.items()):
        sel = np.array([k == kind for k in kinds])
        if sel.any():
            ax.plot(meas[sel], pred[sel], MARKERS[(i + 1) % len(MARKERS)], color=colours[i],
                    ls="none", ms=6, label=f"model: {label} ({int(sel.sum())})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(*lim)
    ax.set_ylim(*lim)
    ax.set_xlabel("measured time (s)")
    ax.set_ylabel("forecast time (s)")
    ax.legend(fontsize=7.5, loc="upper left", framealpha=0.95)
    fig.tight_layout()
    return fig


@figure("ch4-residuals",
        "Relative error of every cross-validated forecast (forecast / measured - 1, in the "
        "row's own terms), by engine and vendor: one marker per row, shaped by metric; a tick "
        "marks each line's median, the shaded band is ±15%.")
def residuals_figure():
    """Strip plot of the grouped-CV errors of the model, one line per (engine, vendor)."""
    cv = evaluate().cv
    keys = sorted({(p.row.m.engine, p.row.m.vendor) for p in cv})
    colours = list(PALETTE.values())
    kinds = list(KIND_LABELS)
    fig = Figure(figsize=(7.2, 0.55 * len(keys) + 2.0))
    ax = fig.add_subplot()
    ax.axvspan(-15, 15, color=PALETTE["sky"], alpha=0.3, lw=0)
    ax.axvline(0, color=PALETTE["black"], lw=1)
    rng = np.random.default_rng(0)       # a fixed jitter: the file stays byte-stable
    shown = set()
    for i, key in enumerate(keys):
        y0 = len(keys) - 1 - i
        mine = [p for p in cv if (p.row.m.engine, p.row.m.vendor) == key]
        err = in_unit(np.array([p.error() for p in mine]), "%")
        y = y0 + rng.uniform(-0.18, 0.18, len(err))
        c = colours[i % len(colours)]
        for j, kind in enumerate(kinds):
            sel = np.array([p.row.kind == kind for p in mine])
            if sel.any():
                ax.plot(err[sel], y[sel], MARKERS[(j + 1) % len(MARKERS)], color=c, ls="none",
                        ms=6)
                shown.add(kind)
        ax.plot([np.median(err)] * 2, [y0 - 0.3, y0 + 0.3], color=c, lw=2, ls="-")
    for j, kind in enumerate(kinds):
        if kind in shown:
            ax.plot([], [], MARKERS[(j + 1) % len(MARKERS)], color=PALETTE["black"], ls="none",
                    label=KIND_LABELS[kind])
    ax.set_yticks(np.arange(len(keys))[::-1],
                  [f"{e}, {v} (n = {sum((p.row.m.engine, p.row.m.vendor) == (e, v) for p in cv)})"
                   for e, v in keys], fontsize=8)
    ax.set_ylim(-0.7, len(keys) - 0.3)
    ax.set_xlabel("forecast / measured - 1 (%), grouped cross-validation")
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=2,
              framealpha=0.95)
    fig.tight_layout()
    return fig


def heavy_load_ttft():
    """The TTFT rows measured under heavy load (MLPerf Server and Interactive), which the
    fit leaves out: ``[(measurement, forecast TTFT s or None, measured / forecast)]``.

    The forecast is the pooled model's TTFT of one prompt at the row's stated prompt length
    (its card, cards and precisions; :func:`~infra_calc.reality.workload_for`), None where
    the row states no prompt length or cards.  Queueing, not a bound: a ratio far above 1 is
    time spent waiting.
    """
    out = []
    for m in independent():
        if m.metric != "ttft" or not m.offered_load or m.accelerator not in CATALOG:
            continue
        if not (m.prompt_tokens and m.cards):
            out.append((m, None, None))
            continue
        w = workload_for(m).with_(batch=1)
        t = forecast(w, prompt_tokens=m.prompt_tokens, output_tokens=1).ttft.value
        out.append((m, float(t), float(m.value_si / t)))
    return out
