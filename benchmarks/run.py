"""Speed benchmarks of the book's machinery, printed as ratios (``make bench``).

Not tests: nothing here asserts.  Each line prints the measured seconds and the
ratio that matters.  Run on a quiet machine for stable numbers; see README.md.

1. cold book build: ``jupyter-book build . --all`` into an empty temporary folder;
2. no-change rebuild: the same command without ``--all`` into the same folder,
   as a fraction of the cold build;
3. nbval over the notebooks (``pytest -n 2 --dist loadfile <notebooks>`` as ``make test``
   runs it, with the repository's addopts: --nbval ...) vs a bare execution of the same
   notebooks
   (``jupyter nbconvert --to notebook --execute`` into a temporary folder);
4. ``import infra_calc`` vs ``import numpy``, in fresh interpreters, median of N;
5. a slider update of the decode-step explorer (recompute + update the artists
   + redraw) vs a bare ``fig.canvas.draw()`` of the same figure;
6. ``make figures``: ``python -m infra_calc figures --out <temporary folder>``;
7. ``generation_time`` of one request with 10^5 output tokens (every decode step
   computed by the library) vs a bare numpy expression of the same sum.

8. ``make test``'s pytest (about a quarter of an hour) vs issue 22's 1,211 s
   (``SUITE_BEFORE_S``; the goal ``SUITE_GOAL_S`` is 600 s).

Options: ``--only NAME`` (repeatable: build, nbval, import, slider, figures, lab, generation, suite),
``--repeat N`` for the import and slider medians, ``--json PATH`` to save.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
BIN = pathlib.Path(sys.executable).parent
RESULTS: dict[str, dict] = {}
# nbval runs as `make test` runs it: notebooks spread over PYTEST_JOBS workers (pytest-xdist)
PYTEST_PARALLEL = ["-n", os.environ.get("PYTEST_JOBS", "2"), "--dist", "loadfile"]


def _run(cmd, **kw) -> tuple[float, int]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    return time.perf_counter() - t0, proc.returncode


def _say(name: str, text: str, **data) -> None:
    RESULTS[name] = data
    print(f"{name:<22} {text}", flush=True)


def machine() -> dict:
    cpu = platform.processor() or ""
    with contextlib.suppress(OSError):
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = ""
    with contextlib.suppress(OSError):
        kb = int(pathlib.Path("/proc/meminfo").read_text().split()[1])
        mem = f"{kb / 1024**2:.1f} GiB"
    return {"nproc": os.cpu_count(), "cpu": cpu, "ram": mem,
            "python": platform.python_version(), "platform": platform.platform()}


def notebooks() -> list[pathlib.Path]:
    return sorted(p for p in (ROOT / "book").rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in p.parts and "_build" not in p.parts)


# -- 1, 2: the book build -------------------------------------------------------------
def bench_build() -> None:
    from tools import build_book

    with tempfile.TemporaryDirectory(prefix="bench-book-") as out:
        cold_cmd = build_book.build_command(offline=False, path_output=out, strict=False)
        cold, rc = _run(cold_cmd)
        _say("cold build", f"{cold:7.1f} s   (jupyter-book build . --all, empty output folder; rc={rc})",
             seconds=cold, rc=rc)
        warm_cmd = build_book.build_command(offline=False, path_output=out, strict=False, all_=False)
        warm, rc2 = _run(warm_cmd)
        _say("no-change rebuild", f"{warm:7.1f} s = {warm / cold:.2f} x the cold build "
             f"(no --all, same folder; rc={rc2})", seconds=warm, ratio=warm / cold, rc=rc2)


# -- 3: nbval vs bare execution --------------------------------------------------------
def bench_nbval() -> None:
    nbs = notebooks()
    if not nbs:
        _say("nbval vs execute", "skipped: no notebooks under book/")
        return
    rel = [str(p.relative_to(ROOT)) for p in nbs]
    t_nbval, rc = _run([str(BIN / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        *PYTEST_PARALLEL, *rel])
    with tempfile.TemporaryDirectory(prefix="bench-nb-") as out:
        t_bare, rc2 = _run([str(BIN / "jupyter"), "nbconvert", "--to", "notebook", "--execute",
                            "--NotebookClient.record_timing=False",
                            "--ExecutePreprocessor.timeout=600", "--output-dir", out, *rel])
    _say("nbval vs execute", f"{t_nbval:7.1f} s nbval / {t_bare:.1f} s nbconvert --execute = "
         f"{t_nbval / t_bare:.2f} x  ({len(nbs)} notebooks, nbval on {PYTEST_PARALLEL[1]} workers; "
         f"rc={rc}/{rc2})",
         nbval=t_nbval, execute=t_bare, ratio=t_nbval / t_bare, notebooks=len(nbs), rc=[rc, rc2])


# -- the whole suite: make test's pytest against issue 22's measurement ------------------------
#: pytest of a clean-clone ``.ci/run`` on this project's 2-core machines when issue 22 was filed
#: (2,650 tests; the issue's own figure), and the issue's goal: the references of the ratios.
SUITE_BEFORE_S = 1211.0
SUITE_GOAL_S = 600.0


def bench_suite() -> None:
    """``make test``'s pytest (the built book must exist: ``make book OFFLINE=1`` first)."""
    if not (ROOT / "_build" / "html" / "index.html").is_file():
        _say("make test (pytest)", "skipped: no built book (run `make book OFFLINE=1` first)")
        return
    t, rc = _run([str(BIN / "python"), "-m", "pytest", "-q", "--mpl", *PYTEST_PARALLEL])
    _say("make test (pytest)", f"{t:7.1f} s = {t / SUITE_BEFORE_S:.2f} x issue 22's "
         f"{SUITE_BEFORE_S:,.0f} s (goal {SUITE_GOAL_S:,.0f} s = {SUITE_GOAL_S / SUITE_BEFORE_S:.2f} x; "
         f"rc={rc})", seconds=t, ratio=t / SUITE_BEFORE_S, goal_ratio=SUITE_GOAL_S / SUITE_BEFORE_S,
         rc=rc)


# -- 4: import time ------------------------------------------------------------------
_IMPORT = "import time; t = time.perf_counter(); import {mod}; print(time.perf_counter() - t)"


def _import_time(mod: str) -> float:
    out = subprocess.run([sys.executable, "-c", _IMPORT.format(mod=mod)], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


def bench_import(repeat: int) -> None:
    # numpy is imported from compiled bytecode; so is an installed infra_calc.  Compile
    # ours first, or PYTHONDONTWRITEBYTECODE=1 (set by .ci/run) times the compiler.
    import compileall

    compileall.compile_dir(str(ROOT / "infra_calc"), quiet=1)
    _import_time("infra_calc"), _import_time("numpy")  # warm the OS file cache
    ic = statistics.median(_import_time("infra_calc") for _ in range(repeat))
    np_ = statistics.median(_import_time("numpy") for _ in range(repeat))
    _say("import infra_calc", f"{ic * 1e3:7.1f} ms vs import numpy {np_ * 1e3:.1f} ms = "
         f"{ic / np_:.2f} x  (fresh interpreters, median of {repeat})",
         infra_calc=ic, numpy=np_, ratio=ic / np_, repeat=repeat)


# -- 5: slider update ------------------------------------------------------------------
def bench_slider(repeat: int) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        from infra_calc.widgets import decode_step_explorer

        with contextlib.redirect_stdout(io.StringIO()):
            box = decode_step_explorer()
        fig, slider = box.fig, box.controls["batch"]
        options = list(slider.options)
    except Exception as exc:  # the explorer is written by another engineer
        _say("slider update", f"skipped: decode_step_explorer unavailable ({type(exc).__name__}: {exc})")
        return
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    t_update, t_set, t_draw = [], [], []
    sink = io.StringIO()
    for i in range(repeat):
        value = options[(options.index(slider.value) + 1 + i) % len(options)]
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(sink):  # display() outside a kernel prints a repr
            slider.value = value  # observe -> update(): decode_step + artists in place
        t1 = time.perf_counter()
        fig.canvas.draw()
        t2 = time.perf_counter()
        t_set.append(t1 - t0)
        t_update.append(t2 - t0)
        sink.seek(0), sink.truncate()
        t0 = time.perf_counter()
        fig.canvas.draw()
        t_draw.append(time.perf_counter() - t0)
    up, st, dr = (statistics.median(x) for x in (t_update, t_set, t_draw))
    _say("slider update", f"{up * 1e3:7.1f} ms vs bare fig.canvas.draw() {dr * 1e3:.1f} ms = "
         f"{up / dr:.2f} x  (of which recompute + artist updates {st * 1e3:.1f} ms; "
         f"decode_step_explorer, batch slider, Agg, median of {repeat})",
         update=up, recompute=st, draw=dr, ratio=up / dr, repeat=repeat)


# -- 6: make figures ---------------------------------------------------------------------
def bench_figures() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-fig-") as out:
        t, rc = _run([str(BIN / "python"), "-m", "infra_calc", "figures", "--out", out])
        n = len(list(pathlib.Path(out).glob("*.png")))
    _say("make figures", f"{t:7.1f} s  ({n} PNG; python -m infra_calc figures --out <tmp>; rc={rc})",
         seconds=t, png=n, rc=rc)


# -- 7: generation_time over 1e5 output tokens vs bare numpy --------------------------------
def bench_generation(repeat: int) -> None:
    import numpy as np

    import infra_calc as ic

    name, hw, p, o, b = "Llama-3.1-8B", "H100 SXM", 2048, 100_001, 1
    m, acc = ic.model(name), ic.accelerator(hw)

    def library():
        return ic.generation_time(m, acc, prompt_tokens=p, output_tokens=o, batch=b).total

    def bare():   # the same sum, written out: prefill, then max(read, compute) per step
        s = p + np.arange(1, o, dtype=float)
        read = (m.decode_weight_bytes(2, b) + b * s * m.kv_bytes_per_token()) / acc.mem_bandwidth
        flops = 2 * b * m.matmul_params + 4 * b * s * m.layers * m.heads * m.head_dim
        return (ic.prefill_step(m, acc, prompt_tokens=p, batch=b).t_step
                + np.maximum(read, flops / acc.peak_flops).sum())

    if not np.isclose(library(), bare(), rtol=1e-9):     # not a speed: the ratio would mean nothing
        raise SystemExit(f"generation_time: the library ({library()}) and the bare sum ({bare()}) "
                         "differ; fix that before comparing their speeds")
    times = {}
    for label, fn in (("library", library), ("numpy", bare)):
        fn()
        runs = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn()
            runs.append(time.perf_counter() - t0)
        times[label] = statistics.median(runs)
    lib, np_ = times["library"], times["numpy"]
    _say("generation_time", f"{lib * 1e3:7.1f} ms vs bare numpy {np_ * 1e3:.1f} ms = "
         f"{lib / np_:.2f} x  ({o - 1:,} decode steps of {name}, median of {repeat}; goal <= 2 x)",
         library=lib, numpy=np_, ratio=lib / np_, repeat=repeat)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", action="append",
                   choices=["build", "nbval", "import", "slider", "figures", "lab", "generation",
                            "suite"])
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--json", type=pathlib.Path)
    args = p.parse_args(argv)
    todo = args.only or ["build", "nbval", "import", "slider", "figures", "lab", "generation",
                         "suite"]
    m = machine()
    print(f"machine: {m['nproc']} CPUs, {m['cpu']}, {m['ram']} RAM, Python {m['python']}")
    t0 = time.perf_counter()
    for name in todo:
        {"build": bench_build, "nbval": bench_nbval, "figures": bench_figures,
         "import": lambda: bench_import(args.repeat),
         "slider": lambda: bench_slider(args.repeat),
         "generation": lambda: bench_generation(args.repeat), "suite": bench_suite,
         "lab": lambda: subprocess.run([sys.executable, "-m", "benchmarks.lab_latency"], cwd=ROOT),
         }[name]()
    print(f"total {time.perf_counter() - t0:.0f} s")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"machine": m, "results": RESULTS}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
