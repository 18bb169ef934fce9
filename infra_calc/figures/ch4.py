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

__all__ = ["decode_fractions", "floor_fraction_figure"]

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
