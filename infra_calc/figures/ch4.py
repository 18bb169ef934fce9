"""Figures for chapter 4, "from bound to forecast".

Each figure draws library results only: the published rows of
:mod:`infra_calc.measurements` against the floors of :mod:`infra_calc.reality`
and :func:`~infra_calc.parallel.tensor_parallel_step`.
"""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ..measurements import independent
from ..parallel import tensor_parallel_step
from ..reality import accelerator_for, lower_bound
from ._registry import MARKERS, PALETTE, figure

__all__ = ["decode_fractions", "floor_fraction_figure", "share_range", "forecast_panel_state",
           "draw_forecast_panel", "update_forecast_panel", "forecast_explorer_snapshot_figure",
           "ENGINE_FAMILIES", "FORECAST_EXPLORER_SETTINGS", "measured_step_time",
           "held_out_shares", "predicted_measured_figure"]

#: the decode metrics a step floor bounds: a time per token, or a batch-1 rate
_STEP_TIMES = ("tpot", "itl")


def decode_fractions():
    """``[(measurement, fraction of the floor reached)]`` of every decode row that states
    enough to compute its floor (independent rows only, in file order).

    A time per output token is compared with :func:`~infra_calc.reality.lower_bound`; a
    batch-1 output rate with no lengths stated (gpt-fast) with the floor of one step with an
    empty cache (``tensor_parallel_step(..., batch=1, context=0).t_floor``: leaving the cache
    out makes the floor smaller, so it stays a floor).  Rows whose card, cards or lengths are
    not stated are left out.
    """
    out = []
    for m in independent():
        if not m.accelerator:
            continue
        if m.metric in _STEP_TIMES and m.cards and m.batch:
            out.append((m, lower_bound(m).fraction))
        elif (m.metric == "output_throughput" and m.batch == 1 and m.cards
              and m.prompt_tokens is None):
            st = tensor_parallel_step(m.model, accelerator_for(m), m.cards, batch=1, context=0,
                                      bytes_per_param=m.bytes_per_param, weights="touched")
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
        ax.plot(fr[one] * 100, y[one], mk, color=c, ls="none", ms=6)
        ax.plot(fr[~one] * 100, y[~one], mk, mfc="white", mec=c, mew=1.4, ls="none", ms=6)
        ax.plot([np.median(fr) * 100] * 2, [y0 - 0.3, y0 + 0.3], color=c, lw=2)
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
#: engine families the explorer offers, and the rows each one's range comes from
ENGINE_FAMILIES = ("any engine", "TensorRT-LLM", "vLLM", "gpt-fast")
#: the explorer's default state, also drawn as its static snapshot
FORECAST_EXPLORER_SETTINGS = dict(model="Llama-3.1-8B", hw="H100 SXM", engine="any engine",
                                  batch=1, prompt_tokens=1000, output_tokens=200, cards=1)


def share_range(engine="any engine", low=10, high=90):
    """``(low, high)`` percentiles of the share of the floor that ``engine``'s published
    decode rows reach (:func:`decode_fractions`; ``"any engine"``: every row).

    A model, not a floor: dividing a floor by these shares gives the range of times that
    engines of that family have been measured at, relative to their own floors.
    """
    if engine not in ENGINE_FAMILIES:
        raise ValueError(f"engine: unknown engine family {engine!r}; known: "
                         f"{', '.join(ENGINE_FAMILIES)}")
    fr = [f for m, f in decode_fractions() if engine == "any engine" or m.engine == engine]
    return float(np.percentile(fr, low)), float(np.percentile(fr, high))


def forecast_panel_state(model, hw, engine, batch, prompt_tokens, output_tokens, cards):
    """``(generation_time result, floor TPOT s, (fast, slow) TPOT s)`` of one setting."""
    from ..generation import generation_time

    g = generation_time(model, hw, prompt_tokens, output_tokens, batch=batch, cards=cards)
    floor = float(g.floor_step_times.mean())
    lo, hi = share_range(engine)
    return g, floor, (floor / hi, floor / lo)


def _forecast_title(g, engine):
    return (f"{g.model.name} on {g.cards} × {g.hw.name}, batch {g.batch:,}, "
            f"P = {g.prompt_tokens:,}, O = {g.output_tokens:,}\n"
            f"floor and the range {engine} reaches (10th-90th percentile of published rows)")


def draw_forecast_panel(ax, state, engine):
    """Draw the floor bar and the published range; return the artists to update."""
    g, floor, (fast, slow) = state
    bar = ax.barh([1], [floor * 1e3], color=PALETTE["blue"], edgecolor="black",
                  label="floor (no engine is faster)")[0]
    band = ax.barh([0], [(slow - fast) * 1e3], left=[fast * 1e3], color=PALETTE["orange"],
                   hatch="//", edgecolor="black",
                   label="published range (a model)")[0]
    ax.set_yticks([0, 1], ["range of\npublished engines", "floor"])
    ax.set_xlabel("time per output token (ms)")
    ax.set_ylim(-0.7, 1.9)
    ax.set_xlim(0, slow * 1e3 * 1.15)
    legend = ax.legend(loc="upper right", fontsize=8, framealpha=0.95)
    title = ax.set_title(_forecast_title(g, engine), fontsize=9)
    return {"ax": ax, "bar": bar, "band": band, "legend": legend, "title": title}


def update_forecast_panel(artists, state, engine):
    """Move the floor bar, the range and the title in place."""
    g, floor, (fast, slow) = state
    artists["bar"].set_width(floor * 1e3)
    artists["band"].set_x(fast * 1e3)
    artists["band"].set_width((slow - fast) * 1e3)
    artists["title"].set_text(_forecast_title(g, engine))


@figure("ch4-forecast-explorer",
        "Static snapshot of the forecast explorer: one request of Llama-3.1-8B in BF16 on one "
        "H100 SXM, a 1,000-token prompt and 200 output tokens: the floor of the time per "
        "output token, and the range published engines reach relative to their floors.")
def forecast_explorer_snapshot_figure(settings=None):
    """The explorer's default state, drawn with the widget's own panel."""
    cfg = dict(FORECAST_EXPLORER_SETTINGS, **(settings or {}))
    state = forecast_panel_state(cfg["model"], cfg["hw"], cfg["engine"], cfg["batch"],
                                 cfg["prompt_tokens"], cfg["output_tokens"], cfg["cards"])
    fig = Figure(figsize=(7.0, 3.0))
    ax = fig.add_subplot()
    draw_forecast_panel(ax, state, cfg["engine"])
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------
# testing the simplest forecast: one share of the floor per engine family
# --------------------------------------------------------------------------
def measured_step_time(m):
    """The measured time per output token of a :func:`decode_fractions` row, seconds.

    A time per output token as printed; a batch-1 rate as one over the rate of the model copy.
    """
    if m.metric in _STEP_TIMES:
        return m.value_si
    return 1.0 / (m.output_rate_per_card * m.cards)


def held_out_shares(by="group"):
    """Each decode row's share of the floor predicted by rows it shares no ``by`` with.

    The prediction is the median share reached by the other rows of the same engine (or,
    where none is left, by all other rows): the baseline "one efficiency per engine",
    a model.  ``by`` is ``"group"`` (grouped cross-validation: a row never sees its
    near-duplicates) or ``"publisher"`` (leave one publisher out).

    Returns
    -------
    list of (Measurement, measured share, predicted share)
    """
    if by not in ("group", "publisher"):
        raise ValueError(f"by: 'group' or 'publisher', got {by!r}")
    rows = decode_fractions()
    out = []
    for m, f in rows:
        seen = [(o, g) for o, g in rows if getattr(o, by) != getattr(m, by)]
        same = [g for o, g in seen if o.engine == m.engine]
        out.append((m, f, float(np.median(same or [g for _, g in seen]))))
    return out


@figure("ch4-predicted-measured",
        "Held-out predictions of the time per output token against the measurements, log-log: "
        "the baseline that divides the floor by its engine's median share (grouped "
        "cross-validation), and the floor itself. The diagonal is a perfect forecast; the "
        "band is ±15%.")
def predicted_measured_figure():
    """Predicted against measured time per output token, with the 1:1 line and ±15% band."""
    rows = held_out_shares("group")
    meas = np.array([measured_step_time(m) for m, _, _ in rows]) * 1e3
    floor = np.array([f for _, f, _ in rows]) * meas
    pred = floor / np.array([p for _, _, p in rows])
    fig = Figure(figsize=(6.4, 5.2))
    ax = fig.add_subplot()
    lim = np.array([min(floor.min(), meas.min()) / 1.5, max(pred.max(), meas.max()) * 1.5])
    ax.fill_between(lim, lim / 1.15, lim * 1.15, color=PALETTE["sky"], alpha=0.35,
                    label="±15% of the measurement")
    ax.plot(lim, lim, color=PALETTE["black"], lw=1, label="prediction = measurement")
    ax.plot(meas, pred, MARKERS[0], color=PALETTE["vermillion"], ls="none",
            label="one share per engine (held out by group)")
    ax.plot(meas, floor, MARKERS[1], mfc="white", mec=PALETTE["blue"], ls="none",
            label="the floor (never above the diagonal)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(*lim)
    ax.set_ylim(*lim)
    ax.set_xlabel("measured time per output token (ms)")
    ax.set_ylabel("predicted time per output token (ms)")
    ax.legend(fontsize=8, loc="upper left", framealpha=0.95)
    fig.tight_layout()
    return fig
