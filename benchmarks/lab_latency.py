"""Slider move to new image in a real JupyterLab (issue 11; ``make bench``).

Starts JupyterLab on 127.0.0.1 (tests/lab_server.py) in a temporary folder
holding one notebook per explorer, runs it in headless Chromium (device pixel
ratio 2), then moves one of the explorer's sliders one step with the keyboard,
back and forth, and times each move from the key press (``keydown``, in the
page) to the ``load`` of the new figure image, also in the page.  Prints the
median, the quartiles and the range per explorer.  Target: median <= 150 ms.

A measurement, not a test: nothing asserts.  The figure depends on the load
of the machine; the load average is printed with it.

Usage: ``python benchmarks/lab_latency.py [--moves N] [--explorer NAME ...] [--json PATH]``
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]

#: explorer -> (the call, which slider to move: a step of it always changes the figure)
EXPLORERS = {
    "decode": ("decode_step_explorer()", 0),        # batch (the only slider)
    "roofline": ("roofline_explorer()", 1),         # K
    "moe": ("moe_padding_explorer()", 3),           # skew
    "capacity": ("capacity_planner()", 1),          # batch
    "kv": ("kv_explorer()", 0),                     # batch
}

INSTALL_JS = """() => {
  window.__lat = [];
  const img = document.querySelector('.ic-explorer img');
  document.addEventListener('keydown', () => { window.__t0 = performance.now(); }, true);
  img.addEventListener('load', () => {
    if (window.__t0 !== undefined) { window.__lat.push(performance.now() - window.__t0);
                                     window.__t0 = undefined; }
  });
}"""


def _notebook(call: str) -> dict:
    return {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {},
                       "outputs": [], "source": f"from infra_calc.widgets import *\n{call}"}],
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                        "language": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def measure(names=tuple(EXPLORERS), moves: int = 30) -> dict:
    from tests.lab_server import browser, lab_server, open_notebook, run_all

    results = {}
    with tempfile.TemporaryDirectory(prefix="lab-latency-") as tmp:
        root = pathlib.Path(tmp)
        for name in names:
            (root / f"{name}.ipynb").write_text(json.dumps(_notebook(EXPLORERS[name][0])))
        with lab_server(root) as (base, token), browser() as b:
            for name in names:
                ctx = b.new_context(viewport={"width": 1400, "height": 1000},
                                    device_scale_factor=2)
                page = open_notebook(ctx, base, token, f"{name}.ipynb")
                run_all(page)
                page.wait_for_function(
                    "() => { const i = document.querySelector('.ic-explorer img');"
                    " return i && i.src && i.complete; }", timeout=120_000)
                page.evaluate(INSTALL_JS)
                handle = page.locator(".ic-explorer .noUi-handle").nth(EXPLORERS[name][1])
                handle.scroll_into_view_if_needed()
                handle.focus()
                for i in range(moves + 2):              # the first two warm up
                    handle.press("ArrowRight" if (i // 3) % 2 == 0 else "ArrowLeft")
                    page.wait_for_function(f"() => window.__lat.length >= {i + 1}",
                                           timeout=120_000, polling=20)
                lat = page.evaluate("() => window.__lat")[2:]
                q = statistics.quantiles(lat, n=4)
                results[name] = {"median_ms": statistics.median(lat), "q1_ms": q[0],
                                 "q3_ms": q[2], "min_ms": min(lat), "max_ms": max(lat),
                                 "moves": len(lat)}
                ctx.close()
    return results


def report(results: dict) -> None:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    for name, r in results.items():
        print(f"lab latency {name:9s} median {r['median_ms']:6.1f} ms  (quartiles "
              f"{r['q1_ms']:.0f}–{r['q3_ms']:.0f}, range {r['min_ms']:.0f}–{r['max_ms']:.0f}, "
              f"{r['moves']} moves; slider key press → new image loaded; target ≤ 150 ms; "
              f"load average {load:.1f})")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--moves", type=int, default=30)
    p.add_argument("--explorer", action="append", choices=list(EXPLORERS))
    p.add_argument("--json", type=pathlib.Path)
    args = p.parse_args(argv)
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if not pathlib.Path(chromium).exists():
        print(f"lab latency: skipped, no Chromium at {chromium}")
        return 0
    results = measure(tuple(args.explorer or EXPLORERS), args.moves)
    report(results)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
