"""The measurements: triad bandwidth, matmul peak, the Q-projection sweep and a whole lab run.

1. **Memory bandwidth** β with a STREAM-style triad ``a = b + s·c`` (see
   :func:`triad_bandwidth` for the bytes counted).
2. **Peak** Π with large square matmuls, ``2·n³`` FLOPs each; the best
   per-size median counts.
3. **The Q-projection GEMM** ``[M, 4096] @ [4096, 4096]`` for
   ``M = 1, 2, 4, …, 1024`` against the roofline's prediction.

Every function takes ``clock`` (default :func:`time.perf_counter`), passed on
to :func:`~infra_calc.measure.timing.median_seconds`.
"""
from __future__ import annotations

import dataclasses
import datetime
import functools

import numpy as np

from .._validate import check_int, check_number
from .arithmetic import check_m_values
from .backends import backend, check_device, check_dtype
from .machine import machine_description
from .results import GemmSweep, LabRun, MachineRoofline, sweep_from_seconds
from .timing import Clock, check_repeats, median_seconds

__all__ = ["DEFAULT_M", "SETTINGS", "triad_bytes", "triad_bandwidth", "matmul_peak", "gemm_seconds",
           "measure_roofline", "gemm_sweep", "run", "step_count"]

#: Rows of the Q-projection sweep: powers of two from 1 to 1024.
DEFAULT_M = tuple(2 ** i for i in range(11))
#: Default sizes per (device, quick): triad elements, matmul sizes, repeats.
SETTINGS = {
    ("cpu", False): dict(triad_n=2 ** 25, matmul_sizes=(1024, 2048), repeats=5, gemm_repeats=3),
    ("cpu", True): dict(triad_n=2 ** 24, matmul_sizes=(1024, 2048), repeats=3, gemm_repeats=2),
    ("cuda", False): dict(triad_n=2 ** 28, matmul_sizes=(4096, 8192), repeats=10, gemm_repeats=10),
    ("cuda", True): dict(triad_n=2 ** 26, matmul_sizes=(4096,), repeats=5, gemm_repeats=5),
}


def triad_bytes(n, itemsize, *, device="cpu", write_allocate=False):
    """Bytes one triad moves: 5·n·itemsize for the two NumPy passes, 3·n·itemsize fused (GPU).

    These are the bytes the code names, the count :func:`triad_bandwidth`
    divides by.  ``write_allocate=True`` adds the array a write-allocating
    cache also reads: before the first (or only) pass overwrites ``a``, each
    of its lines is fetched, one more ``n·itemsize`` (6 instead of 5 on the
    CPU, 4 instead of 3 fused; the second CPU pass reads ``a`` anyway).  So
    on such a cache β is the named bytes over the time, ``5/6`` of the
    traffic the memory carried.
    """
    n = check_int(n, "n", "elements")
    itemsize = check_int(itemsize, "itemsize", "bytes")
    arrays = (5 if device == "cpu" else 3) + (1 if write_allocate else 0)
    return arrays * n * itemsize


def triad_bandwidth(*, n=2 ** 25, dtype="float32", repeats=5, warmup=1, threads=None,
                    device="cpu", progress=None, clock: Clock | None = None) -> float:
    """Sustained memory bandwidth in bytes/s from a STREAM-style triad ``a = b + s·c``.

    NumPy has no fused triad, and ``a[:] = b + s * c`` would allocate two
    temporaries, so the triad runs as two in-place passes,
    ``np.multiply(c, s, out=a); np.add(a, b, out=a)``: pass 1 reads ``c`` and
    writes ``a``, pass 2 reads ``a`` and ``b`` and writes ``a``, so **5 · n ·
    itemsize bytes per triad** (the one-kernel STREAM triad moves 3 · n ·
    itemsize).  Like STREAM, the read a cache makes before it writes a line
    (write-allocate) is not counted: where the cache allocates on write, β
    is 5/6 of what the memory system moved (``triad_bytes(...,
    write_allocate=True)``), about a sixth low.  The arrays are split across threads (NumPy's
    element-wise loops use one core).  On CUDA the triad is one fused
    ``torch.add(b, c, alpha=s, out=a)`` kernel, 3 · n · itemsize bytes.

    Parameters
    ----------
    n : int
        Elements per array; choose 3 arrays far larger than the last-level cache
        (2**25 float32 = 128 MiB each).
    dtype : str
        ``"float32"`` or ``"float64"`` on the CPU; ``"bfloat16"`` etc. on CUDA.
    repeats, warmup : int
        Timed and untimed triads; the median time counts.
    threads : int, optional
        CPU threads sharing the arrays (default: every CPU this process may use).
    device : {"cpu", "cuda"}
    progress : callable, optional
        Called once per timed repeat (for a progress bar).
    clock : callable, optional
        Seconds source (default :func:`time.perf_counter`).

    Returns
    -------
    float
        ``triad_bytes(n, itemsize) / median seconds``, bytes/s.
    """
    n = check_int(n, "n", "elements", minimum=1024)
    repeats, warmup = check_repeats(repeats, warmup)
    device = check_device(device)
    dtype = check_dtype(dtype, device)
    be = backend(device, dtype)
    a, b, c = be.full(n, 0.0), be.full(n, 1.0), be.full(n, 2.0)
    s = 3.0

    def timed(fn):
        return median_seconds(fn, sync=be.sync, repeats=repeats, warmup=warmup, tick=progress,
                              clock=clock)

    if device == "cpu":
        if threads is None:
            threads = machine_description()["cpu_count"]
        threads = check_int(threads, "threads", "CPU threads", minimum=1)
        bounds = [(i * n // threads, (i + 1) * n // threads) for i in range(threads)]

        def part(lo_hi):
            lo, hi = lo_hi
            np.multiply(c[lo:hi], s, out=a[lo:hi])
            np.add(a[lo:hi], b[lo:hi], out=a[lo:hi])

        if threads == 1:
            seconds = timed(lambda: part(bounds[0]))
        else:
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(threads) as pool:
                seconds = timed(lambda: list(pool.map(part, bounds)))
    else:  # pragma: no cover - needs CUDA
        seconds = timed(lambda: be.torch.add(b, c, alpha=s, out=a))
    return float(triad_bytes(n, be.itemsize, device=device) / seconds)


def matmul_peak(*, sizes=(1024, 2048), dtype="float32", repeats=3, warmup=1, device="cpu",
                progress=None, clock: Clock | None = None) -> float:
    """Sustained matmul throughput in FLOP/s: the best median over square ``n × n`` matmuls.

    Each ``[n, n] @ [n, n]`` counts ``2·n³`` FLOPs.
    """
    sizes = np.atleast_1d(check_int(sizes, "sizes", "matrix rows", minimum=16))
    repeats, warmup = check_repeats(repeats, warmup)
    device = check_device(device)
    dtype = check_dtype(dtype, device)
    be = backend(device, dtype)
    best = 0.0
    for size in sizes:
        size = int(size)
        x, w, out = be.full((size, size), 1.0), be.weight(size, size), be.empty((size, size))
        sec = median_seconds(functools.partial(be.matmul, x, w, out), sync=be.sync, repeats=repeats,
                             warmup=warmup, tick=progress, clock=clock)
        best = max(best, 2.0 * size ** 3 / sec)
        del x, w, out
    return float(best)


def gemm_seconds(m, *, k=4096, n=4096, dtype="float32", repeats=3, warmup=1, min_time=0.02,
                 device="cpu", weight=None, clock: Clock | None = None) -> float:
    """Median seconds of one ``[m, k] @ [k, n]`` GEMM (repeats grow until ``min_time`` s)."""
    m = check_int(m, "m", "rows")
    k = check_int(k, "k", "elements")
    n = check_int(n, "n", "columns")
    repeats, warmup = check_repeats(repeats, warmup)
    min_time = check_number(min_time, "min_time", "seconds", allow_zero=True)
    device = check_device(device)
    dtype = check_dtype(dtype, device)
    be = backend(device, dtype)
    w = be.weight(k, n) if weight is None else weight
    x, out = be.full((m, k), 1.0), be.empty((m, n))
    return float(median_seconds(lambda: be.matmul(x, w, out), sync=be.sync, repeats=repeats,
                                warmup=warmup, min_time=min_time, clock=clock))


def measure_roofline(*, quick=False, device="cpu", dtype=None, threads=None, progress=None,
                     clock: Clock | None = None, **overrides) -> MachineRoofline:
    """Measure Π (matmul) and β (triad) and return a :class:`MachineRoofline`.

    ``quick`` uses smaller arrays and fewer repeats.  ``overrides`` may set
    ``triad_n``, ``matmul_sizes``, ``repeats``.
    """
    device = check_device(device)
    cfg = dict(SETTINGS[(device, bool(quick))])
    unknown = set(overrides) - {"triad_n", "matmul_sizes", "repeats"}
    if unknown:
        raise TypeError(f"unknown setting(s): {', '.join(sorted(unknown))}")
    cfg.update(overrides)
    dtype = check_dtype(dtype or ("float32" if device == "cpu" else "bfloat16"), device)
    machine = machine_description()
    threads = machine["cpu_count"] if threads is None else threads

    def tick(label):
        return (lambda: progress(label)) if progress else None

    bw = triad_bandwidth(n=cfg["triad_n"], dtype=dtype, repeats=cfg["repeats"], threads=threads,
                         device=device, progress=tick("triad (bandwidth)"), clock=clock)
    peak = matmul_peak(sizes=cfg["matmul_sizes"], dtype=dtype, repeats=cfg["repeats"], device=device,
                       progress=tick("matmul (peak)"), clock=clock)
    settings = {"triad_n": int(cfg["triad_n"]), "triad_threads": int(threads),
                "triad_bytes_per_run": int(triad_bytes(cfg["triad_n"], backend(device, dtype).itemsize,
                                                       device=device)),
                "matmul_sizes": [int(x) for x in np.atleast_1d(cfg["matmul_sizes"])],
                "repeats": int(cfg["repeats"]), "quick": bool(quick)}
    date = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    return MachineRoofline(peak, bw, machine, device, dtype, settings, date)


def gemm_sweep(roofline: MachineRoofline, *, m_values=DEFAULT_M, k=4096, n=4096, repeats=3,
               warmup=1, min_time=0.02, fraction=0.9, progress=None,
               clock: Clock | None = None) -> GemmSweep:
    """Time ``[M, k] @ [k, n]`` for each ``M`` and compare with ``roofline``'s prediction.

    The weight is built once and reused (``k·n·itemsize`` bytes, 64 MiB for
    the float32 Q projection).  ``bytes_per_element`` of the prediction is
    the itemsize of ``roofline.dtype``.
    """
    if not isinstance(roofline, MachineRoofline):
        raise TypeError(f"roofline must be a MachineRoofline, got {type(roofline).__name__}")
    m_values = check_m_values(m_values)
    k = check_int(k, "k", "elements")
    n = check_int(n, "n", "columns")
    repeats, warmup = check_repeats(repeats, warmup)
    fraction = check_number(fraction, "fraction", "of the plateau", maximum=1.0)
    be = backend(roofline.device, roofline.dtype)
    w = be.weight(k, n)
    seconds = []
    for m in m_values:
        seconds.append(gemm_seconds(m, k=k, n=n, dtype=roofline.dtype, repeats=repeats, warmup=warmup,
                                    min_time=min_time, device=roofline.device, weight=w,
                                    clock=clock))
        if progress:
            progress(f"GEMM M = {m}")
    del w
    return sweep_from_seconds(roofline, m_values, seconds, k=k, n=n,
                              bytes_per_element=float(be.itemsize), fraction=fraction)


def run(*, quick=False, device="cpu", m_values=DEFAULT_M, progress=None, clock: Clock | None = None,
        **overrides) -> LabRun:
    """Measure the roofline, then the Q-projection sweep; return a :class:`LabRun`.

    The square matmuls run twice, before and after the sweep, and the better
    median is the peak: on a shared machine a busy moment during one round
    would otherwise put the peak below what the sweep then reaches.
    """
    device = check_device(device)
    cfg = dict(SETTINGS[(device, bool(quick))])
    cfg.update(overrides)
    roof = measure_roofline(quick=quick, device=device, progress=progress, clock=clock, **overrides)
    first = gemm_sweep(roof, m_values=m_values, repeats=cfg["gemm_repeats"], progress=progress,
                       min_time=0.01 if quick else 0.02, clock=clock)
    again = matmul_peak(sizes=cfg["matmul_sizes"], dtype=roof.dtype, repeats=cfg["repeats"], device=device,
                        progress=(lambda: progress("matmul (peak, again)")) if progress else None,
                        clock=clock)
    roof = dataclasses.replace(roof, peak_flops=max(roof.peak_flops, again),
                               settings={**roof.settings, "peak_rounds": 2})
    sweep = sweep_from_seconds(roof, first.m, first.seconds, k=first.k, n=first.n,
                               bytes_per_element=first.bytes_per_element, fraction=first.fraction)
    return LabRun(roof, sweep)


def step_count(*, quick=False, device="cpu", m_values=DEFAULT_M, **overrides) -> int:
    """How many progress steps :func:`run` reports: timed matmul and triad repeats, one per ``M``."""
    cfg = dict(SETTINGS[(device, bool(quick))])
    cfg.update(overrides)
    sizes = np.atleast_1d(cfg["matmul_sizes"]).size
    return cfg["repeats"] * (1 + 2 * sizes) + len(m_values)
