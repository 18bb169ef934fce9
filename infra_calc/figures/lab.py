"""Figures for the lab: a measured GEMM sweep over the machine's predicted roofline."""
from __future__ import annotations

import pathlib

import numpy as np

from ..display import in_unit, shown
from ._registry import MARKERS, PALETTE, figure

__all__ = ["EXAMPLE_RUN", "lab_example_run"]

#: The committed example measurement (repository root is two levels above this module's folder).
EXAMPLE_RUN = pathlib.Path(__file__).resolve().parents[2] / "book" / "5_lab" / "example_run.json"


@figure("lab-example-run",
        "Measured throughput of the [M, 4096] @ [4096, 4096] float32 GEMM against the roofline "
        "built from the same machine's measured matmul peak and triad bandwidth.")
def lab_example_run(*, path=None, run=None):
    """Plot measured FLOP/s against M over ``min(Π, I(M)·β)``, log-log.

    Parameters
    ----------
    path : str or path-like, optional
        A JSON file written by ``python -m infra_calc measure --json``;
        default: the committed ``book/5_lab/example_run.json``.
    run : infra_calc.measure.LabRun, optional
        A measurement already in memory (takes precedence over ``path``).
    """
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator

    from ..measure import LabRun, no_overlap_flops
    from ..roofline import arithmetic_intensity, attainable_flops

    if run is None:
        run = LabRun.from_json(EXAMPLE_RUN if path is None else path)
    s = run.sweep
    hw = s.accelerator
    m = np.array(s.m, float)
    grid = np.geomspace(m.min(), m.max(), 400)
    roof = attainable_flops(arithmetic_intensity(grid, s.k, s.n, bytes_per_element=s.bytes_per_element), hw)
    serial = no_overlap_flops(grid, s.k, s.n, hw, bytes_per_element=s.bytes_per_element)

    fig, ax = plt.subplots()
    ax.plot(grid, in_unit(roof, "GFLOP/s"), color=PALETTE["black"], linestyle="--",
            label=r"roofline $\min(\Pi,\ I(M)\,\beta)$ (overlap)")
    ax.plot(grid, in_unit(serial, "GFLOP/s"), color=PALETTE["vermillion"], linestyle=":",
            label=r"no overlap $F/(F/\Pi + V/\beta)$")
    ax.plot(m, in_unit(s.flops_per_second, "GFLOP/s"), color=PALETTE["blue"], linestyle="-",
            marker=MARKERS[0], label="measured (median)")
    ax.axhline(in_unit(s.fraction * s.plateau, "GFLOP/s"), color=PALETTE["green"], linestyle="-.",
               linewidth=1.0,
               label=f"{shown(s.fraction, '%', 0)} of the measured plateau")
    ax.axvline(s.predicted_critical_rows, color=PALETTE["black"], linestyle="--", linewidth=1.0)
    ax.axvline(s.measured_critical_rows, color=PALETTE["green"], linestyle="-.", linewidth=1.0)
    ymin = in_unit(0.5 * min(min(s.flops_per_second), float(roof[0])), "GFLOP/s")
    ytop = in_unit(8.0 * max(max(s.flops_per_second), s.peak_flops), "GFLOP/s")
    for x, y, text, colour in ((s.predicted_critical_rows, ytop / 1.4, "predicted $M^*$ ",
                                PALETTE["black"]),
                               (s.measured_critical_rows, ytop / 3.0, "measured $M^*$ ",
                                PALETTE["green"])):
        ax.text(x, y, text, ha="right", va="center", fontsize=9, color=colour)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(FixedLocator(m))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([f"{int(x)}" for x in m])
    ax.set_ylim(bottom=ymin, top=ytop)
    ax.set_xlabel(f"rows M of [M, {s.k}] @ [{s.k}, {s.n}] (tokens, log scale)")
    ax.set_ylabel("throughput (GFLOP/s, log scale)")
    ax.legend(loc="lower right")
    return fig
