"""Measure this machine's roofline and test J13's ``M*`` prediction on it.

Three measurements, each with warm-up runs, a few timed repeats and the
median (timed with :func:`time.perf_counter`):

1. **Memory bandwidth** β with a STREAM-style triad ``a = b + s·c`` over
   arrays far larger than the last-level cache.  NumPy has no fused triad,
   and ``a[:] = b + s * c`` would allocate two temporaries (``s*c`` and the
   sum), moving ``7·n·b`` bytes and touching fresh pages.  We write the triad
   as two in-place passes, ``np.multiply(c, s, out=a); np.add(a, b, out=a)``,
   and count the traffic those passes really make: pass 1 reads ``c`` and
   writes ``a`` (2 arrays), pass 2 reads ``a`` and ``b`` and writes ``a``
   (3 arrays), so **5 · n · itemsize bytes per triad** (the one-kernel STREAM
   triad moves 3 · n · itemsize).  Like STREAM we do not count the extra
   read a cache makes before it writes a line (write-allocate), so β is a
   slight underestimate of what the memory system moved.  The arrays are
   split across threads (NumPy's element-wise loops use one core; a BLAS
   matmul uses all of them).
2. **Peak** Π with large square float32 matmuls, ``2·n³`` FLOPs each; the
   best per-size median counts.
3. **The Q-projection GEMM** of J13, ``[M, 4096] @ [4096, 4096]`` in
   float32 (4 bytes per element), for ``M = 1, 2, 4, …, 1024``, against the
   roofline prediction ``min(Π, I(M)·β)``.

The ridge point is ``I* = Π/β``; the predicted ``M*`` is
:func:`infra_calc.critical_rows` on an :class:`~infra_calc.Accelerator` built
from the measured Π and β.  The measured ``M*`` is the first ``M`` at which the
measured throughput reaches ``fraction`` (default 90 %) of its plateau (the
highest throughput of the sweep), interpolated linearly in log-log between
the two grid points that bracket the crossing.

Where PyTorch with CUDA is importable, ``device="cuda"`` runs the same
measurements in BF16 on the GPU (2 bytes per element; the triad is then one
fused ``torch.add(b, c, alpha=s, out=a)`` kernel, 3 · n · 2 bytes).

Nothing runs on import.  ``python -m infra_calc measure [--json FILE]
[--quick]`` is the command line.
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import importlib.util
import json
import math
import os
import pathlib
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from ._validate import check_int, check_number
from .hardware import Accelerator
from .roofline import arithmetic_intensity, attainable_flops, critical_rows, gemm_flops

__all__ = [
    "MachineRoofline", "GemmSweep", "LabRun", "ProgressBar",
    "triad_bandwidth", "triad_bytes", "matmul_peak", "gemm_seconds", "gemm_sweep",
    "sweep_from_seconds",
    "measure_roofline", "run", "measured_critical_rows", "model_rows_at_fraction",
    "no_overlap_flops", "machine_description",
    "cuda_available", "gpu_note", "DEFAULT_M", "QUICK_M", "FORMAT", "main",
]

FORMAT = "infra_calc.measure/1"
#: Rows of the Q-projection sweep: powers of two from 1 to 1024.
DEFAULT_M = tuple(2 ** i for i in range(11))
QUICK_M = DEFAULT_M
#: Default sizes: (triad elements, matmul sizes, repeats) for full and quick runs.
_SETTINGS = {
    ("cpu", False): dict(triad_n=2 ** 25, matmul_sizes=(1024, 2048), repeats=5, gemm_repeats=3),
    ("cpu", True): dict(triad_n=2 ** 24, matmul_sizes=(1024, 2048), repeats=3, gemm_repeats=2),
    ("cuda", False): dict(triad_n=2 ** 28, matmul_sizes=(4096, 8192), repeats=10, gemm_repeats=10),
    ("cuda", True): dict(triad_n=2 ** 26, matmul_sizes=(4096,), repeats=5, gemm_repeats=5),
}
_DTYPES = {"cpu": ("float32", "float64"), "cuda": ("bfloat16", "float16", "float32")}


# --------------------------------------------------------------------------- checks

def _check_device(device):
    if device not in ("cpu", "cuda"):
        raise ValueError(f"device must be 'cpu' or 'cuda', got {device!r}")
    if device == "cuda" and not cuda_available():
        raise ValueError("device 'cuda' needs PyTorch with a CUDA GPU; " + gpu_note())
    return device


def _check_dtype(dtype, device):
    name = np.dtype(dtype).name if device == "cpu" and not isinstance(dtype, str) else str(dtype)
    if name not in _DTYPES[device]:
        raise ValueError(f"dtype must be one of {', '.join(_DTYPES[device])} on {device}, got {dtype!r}")
    return name


def _check_repeats(repeats, warmup):
    return (check_int(repeats, "repeats", "timed runs", minimum=1),
            check_int(warmup, "warmup", "untimed runs", minimum=0))


def _check_m_values(m_values):
    m = check_int(m_values, "m_values", "rows", minimum=1)
    m = np.atleast_1d(m)
    if m.ndim != 1 or (np.diff(m) <= 0).any():
        raise ValueError("m_values (rows) must be a strictly increasing sequence of whole numbers")
    return tuple(int(x) for x in m)


# --------------------------------------------------------------------------- machine

def machine_description() -> dict:
    """Platform, CPU, core count, NumPy version and BLAS of this machine (no timing)."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    desc = {"platform": platform.platform(terse=True), "machine": platform.machine(), "cpu": cpu,
            "cpu_count": int(cpus), "python": platform.python_version(),
            "numpy": np.__version__, "blas": _blas_info()}
    try:
        desc["memory_bytes"] = float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        pass
    caches = _caches()
    if caches:
        desc["caches"] = caches
    return desc


def _caches() -> dict:
    """Per-core data/unified cache sizes in bytes from Linux sysfs (empty elsewhere)."""
    out = {}
    root = pathlib.Path("/sys/devices/system/cpu/cpu0/cache")
    units = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}
    try:
        for d in sorted(root.glob("index*")):
            kind = (d / "type").read_text().strip()
            if kind == "Instruction":
                continue
            size = (d / "size").read_text().strip()
            value = int(size[:-1]) * units[size[-1]] if size[-1] in units else int(size)
            out[f"L{(d / 'level').read_text().strip()}"] = value
    except (OSError, ValueError, KeyError):
        return {}
    return out


def _blas_info() -> str:
    """BLAS library: from threadpoolctl when installed, else from NumPy's build record."""
    if importlib.util.find_spec("threadpoolctl") is not None:
        try:
            from threadpoolctl import threadpool_info
            libs = [d for d in threadpool_info() if d.get("user_api") == "blas"]
            if libs:
                d = libs[0]
                return (f"{d.get('internal_api', '?')} {d.get('version', '')} "
                        f"({d.get('num_threads', '?')} threads, {d.get('architecture', '?')})").strip()
        except Exception:  # pragma: no cover - threadpoolctl quirks
            pass
    try:
        blas = np.__config__.CONFIG["Build Dependencies"]["blas"]
        return f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
    except Exception:  # pragma: no cover - older NumPy builds
        return "unknown"


def _short(desc: dict) -> str:
    return (f"{desc.get('cpu', '?')}, {desc.get('cpu_count', '?')} CPUs, {desc.get('platform', '?')}, "
            f"numpy {desc.get('numpy', '?')}, BLAS {desc.get('blas', '?')}")


def cuda_available() -> bool:
    """True when PyTorch is importable and sees a CUDA GPU (imports torch only if present)."""
    if importlib.util.find_spec("torch") is None:
        return False
    import torch
    return bool(torch.cuda.is_available())


def gpu_note() -> str:
    """One line saying whether the GPU (BF16) part can run here."""
    if importlib.util.find_spec("torch") is None:
        return "GPU part skipped: PyTorch is not installed."
    if not cuda_available():
        return "GPU part skipped: PyTorch is installed but sees no CUDA GPU."
    return "A CUDA GPU is available: add --device cuda to measure it in BF16."


# --------------------------------------------------------------------------- backends

class _Numpy:
    device = "cpu"

    def __init__(self, dtype):
        self.dtype = np.dtype(dtype)
        self.itemsize = self.dtype.itemsize

    def full(self, shape, value):
        return np.full(shape, value, dtype=self.dtype)

    def empty(self, shape):
        return np.empty(shape, dtype=self.dtype)

    def weight(self, k, n):
        rng = np.random.default_rng(0)
        return ((rng.random((k, n), dtype=np.float32) - 0.5) / 64).astype(self.dtype, copy=False)

    def matmul(self, x, w, out):
        np.matmul(x, w, out=out)

    def sync(self):
        pass


class _Torch:  # pragma: no cover - needs PyTorch with CUDA
    device = "cuda"

    def __init__(self, dtype):
        import torch
        self.torch = torch
        self.dtype = getattr(torch, dtype)
        self.itemsize = torch.empty((), dtype=self.dtype).element_size()

    def full(self, shape, value):
        return self.torch.full(shape, value, dtype=self.dtype, device="cuda")

    def empty(self, shape):
        return self.torch.empty(shape, dtype=self.dtype, device="cuda")

    def weight(self, k, n):
        g = self.torch.Generator(device="cuda").manual_seed(0)
        return ((self.torch.rand((k, n), generator=g, device="cuda") - 0.5) / 64).to(self.dtype)

    def matmul(self, x, w, out):
        self.torch.matmul(x, w, out=out)

    def sync(self):
        self.torch.cuda.synchronize()


def _backend(device, dtype):
    return _Numpy(dtype) if device == "cpu" else _Torch(dtype)


def _time(fn, sync, repeats, warmup, min_time=0.0, tick=None):
    """Median seconds of ``fn()`` over ``repeats`` timed runs (more while under ``min_time``)."""
    for _ in range(warmup):
        fn()
    sync()
    times = []
    while len(times) < repeats or (sum(times) < min_time and len(times) < 50 * repeats):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
        if tick is not None and len(times) <= repeats:
            tick()
    return statistics.median(times)


# --------------------------------------------------------------------------- measurements

def triad_bytes(n, itemsize, device="cpu"):
    """Bytes one triad moves: 5·n·itemsize for the two NumPy passes, 3·n·itemsize fused (GPU)."""
    n = check_int(n, "n", "elements")
    itemsize = check_int(itemsize, "itemsize", "bytes")
    return (5 if device == "cpu" else 3) * n * itemsize


def triad_bandwidth(n=2 ** 25, dtype="float32", repeats=5, warmup=1, threads=None,
                    device="cpu", progress=None) -> float:
    """Sustained memory bandwidth in bytes/s from a STREAM-style triad ``a = b + s·c``.

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

    Returns
    -------
    float
        ``triad_bytes(n, itemsize) / median seconds``, bytes/s.
    """
    n = check_int(n, "n", "elements", minimum=1024)
    repeats, warmup = _check_repeats(repeats, warmup)
    device = _check_device(device)
    dtype = _check_dtype(dtype, device)
    be = _backend(device, dtype)
    a, b, c = be.full(n, 0.0), be.full(n, 1.0), be.full(n, 2.0)
    s = 3.0
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
            def fn():
                part(bounds[0])
            seconds = _time(fn, be.sync, repeats, warmup, tick=progress)
        else:
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(threads) as pool:
                def fn():
                    list(pool.map(part, bounds))
                seconds = _time(fn, be.sync, repeats, warmup, tick=progress)
    else:  # pragma: no cover - needs CUDA
        def fn():
            be.torch.add(b, c, alpha=s, out=a)
        seconds = _time(fn, be.sync, repeats, warmup, tick=progress)
    return float(triad_bytes(n, be.itemsize, device) / seconds)


def matmul_peak(sizes=(1024, 2048), dtype="float32", repeats=3, warmup=1, device="cpu",
                progress=None) -> float:
    """Sustained matmul throughput in FLOP/s: the best median over square ``n × n`` matmuls.

    Each ``[n, n] @ [n, n]`` counts ``2·n³`` FLOPs.
    """
    sizes = np.atleast_1d(check_int(sizes, "sizes", "matrix rows", minimum=16))
    repeats, warmup = _check_repeats(repeats, warmup)
    device = _check_device(device)
    dtype = _check_dtype(dtype, device)
    be = _backend(device, dtype)
    best = 0.0
    for size in sizes:
        size = int(size)
        x, w, out = be.full((size, size), 1.0), be.weight(size, size), be.empty((size, size))
        sec = _time(lambda: be.matmul(x, w, out), be.sync, repeats, warmup, tick=progress)
        best = max(best, 2.0 * size ** 3 / sec)
        del x, w, out
    return float(best)


def gemm_seconds(m, k=4096, n=4096, dtype="float32", repeats=3, warmup=1, min_time=0.02,
                 device="cpu", weight=None) -> float:
    """Median seconds of one ``[m, k] @ [k, n]`` GEMM (repeats grow until ``min_time`` s)."""
    m = check_int(m, "m", "rows")
    k = check_int(k, "k", "elements")
    n = check_int(n, "n", "columns")
    repeats, warmup = _check_repeats(repeats, warmup)
    min_time = check_number(min_time, "min_time", "seconds", allow_zero=True)
    device = _check_device(device)
    dtype = _check_dtype(dtype, device)
    be = _backend(device, dtype)
    w = be.weight(k, n) if weight is None else weight
    x, out = be.full((m, k), 1.0), be.empty((m, n))
    return float(_time(lambda: be.matmul(x, w, out), be.sync, repeats, warmup, min_time))


def measured_critical_rows(m, flops_per_second, fraction=0.9) -> float:
    """The measured ``M*``: first ``M`` whose throughput reaches ``fraction`` of the plateau.

    The plateau is the highest throughput measured.  Between the two grid
    points that bracket the first crossing, ``M`` is interpolated linearly in
    log-log coordinates, so the answer is a real number of rows like
    :func:`infra_calc.critical_rows`.  If the first point already reaches it,
    that point's ``M`` is returned.
    """
    m = np.asarray(_check_m_values(m), dtype=float)
    f = np.atleast_1d(check_number(flops_per_second, "flops_per_second", "FLOP/s"))
    if f.shape != m.shape:
        raise ValueError(f"flops_per_second (FLOP/s) must have one value per M: {f.size} values for {m.size} rows")
    fraction = check_number(fraction, "fraction", "of the plateau", maximum=1.0)
    target = fraction * f.max()
    i = int(np.argmax(f >= target))
    if i == 0:
        return float(m[0])
    lm0, lm1, lf0, lf1 = np.log(m[i - 1]), np.log(m[i]), np.log(f[i - 1]), np.log(f[i])
    return float(np.exp(lm0 + (np.log(target) - lf0) / (lf1 - lf0) * (lm1 - lm0)))


def no_overlap_flops(m, k, n, hw, bytes_per_element=4):
    """Throughput if moving and computing do not overlap: ``F / (F/Π + V/β)``, FLOP/s.

    The roofline assumes the two overlap perfectly, ``t = max(F/Π, V/β)``;
    this is the other bound, ``t = F/Π + V/β`` (J07's max-versus-sum).
    """
    from .hardware import resolve_hw
    from .roofline import gemm_bytes
    acc = resolve_hw(hw)
    f = gemm_flops(m, k, n)
    t = f / acc.peak_flops + gemm_bytes(m, k, n, bytes_per_element) / acc.mem_bandwidth
    out = f / t
    return float(out) if np.ndim(out) == 0 else out


def model_rows_at_fraction(k, n, hw, bytes_per_element=4, fraction=0.9, overlap=True):
    """Rows ``M`` at which a model's throughput first reaches ``fraction · Π``.

    With overlap (the roofline, ``min(Π, Iβ)``) that happens at ``I = f·I*``;
    without overlap (``F/(F/Π + V/β)``) at ``I = f/(1 − f) · I*``, nine times
    the ridge for ``f = 0.9``.  Both reuse :func:`infra_calc.critical_rows`
    with the peak scaled so that its ridge is the required intensity.
    """
    from .hardware import resolve_hw
    acc = resolve_hw(hw)
    fraction = check_number(fraction, "fraction", "of the peak", maximum=1.0,
                            inclusive_max=overlap)
    scale = fraction if overlap else fraction / (1.0 - fraction)
    return critical_rows(k, n, acc.with_(peak_flops=acc.peak_flops * scale), bytes_per_element)


# --------------------------------------------------------------------------- results

@dataclass(frozen=True)
class MachineRoofline:
    """This machine's measured roofline (SI units).

    ``peak_flops`` Π in FLOP/s, ``mem_bandwidth`` β in bytes/s, ``ridge_point``
    I* = Π/β in FLOP/byte (derived), ``machine`` a description dict,
    ``settings`` the sizes used, ``date`` an ISO timestamp (kept in the JSON,
    left out of ``repr``).
    """

    peak_flops: float
    mem_bandwidth: float
    machine: dict = field(default_factory=dict, compare=False)
    device: str = "cpu"
    dtype: str = "float32"
    settings: dict = field(default_factory=dict, compare=False)
    date: str = field(default="", repr=False, compare=False)
    ridge_point: float = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "peak_flops", check_number(self.peak_flops, "peak_flops", "FLOP/s"))
        object.__setattr__(self, "mem_bandwidth",
                           check_number(self.mem_bandwidth, "mem_bandwidth", "bytes/s"))
        object.__setattr__(self, "ridge_point", self.peak_flops / self.mem_bandwidth)

    @property
    def description(self) -> str:
        """One line naming the machine (no date)."""
        return _short(self.machine)

    def accelerator(self, name="this machine") -> Accelerator:
        """An :class:`~infra_calc.Accelerator` with the measured Π and β (capacity = RAM)."""
        return Accelerator(name, self.peak_flops, self.mem_bandwidth,
                           float(self.machine.get("memory_bytes", 1.0)),
                           source="measured with infra_calc.measure", note=self.description)

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        return d

    @classmethod
    def from_dict(cls, d) -> "MachineRoofline":
        d = dict(d)
        ridge = d.pop("ridge_point", None)
        out = cls(**d)
        if ridge is not None and not math.isclose(ridge, out.ridge_point, rel_tol=1e-9):
            raise ValueError(f"ridge_point (FLOP/byte) {ridge} disagrees with peak_flops / mem_bandwidth")
        return out

    def to_json(self, path):
        _write(path, {"format": FORMAT, "roofline": self.to_dict()})

    @classmethod
    def from_json(cls, path) -> "MachineRoofline":
        return cls.from_dict(_read(path)["roofline"])


@dataclass(frozen=True)
class GemmSweep:
    """Timed ``[M, k] @ [k, n]`` GEMMs with the roofline's prediction for each ``M``.

    ``m`` rows, ``seconds`` median time per GEMM, ``flops_per_second``
    achieved ``2·M·k·n / seconds``, ``predicted`` ``min(Π, I(M)·β)`` in FLOP/s,
    ``predicted_critical_rows`` :func:`infra_calc.critical_rows` on the
    measured roofline, ``peak_flops`` and ``mem_bandwidth`` the roofline the
    prediction used.
    """

    m: tuple
    seconds: tuple
    flops_per_second: tuple
    predicted: tuple
    predicted_critical_rows: float
    peak_flops: float
    mem_bandwidth: float
    k: int = 4096
    n: int = 4096
    bytes_per_element: float = 4.0
    fraction: float = 0.9

    def __post_init__(self):
        m = _check_m_values(self.m)
        for name, unit in (("seconds", "s"), ("flops_per_second", "FLOP/s"), ("predicted", "FLOP/s")):
            v = np.atleast_1d(check_number(getattr(self, name), name, unit))
            if v.size != len(m):
                raise ValueError(f"{name} ({unit}) must have one value per M: {v.size} values for {len(m)} rows")
            object.__setattr__(self, name, tuple(float(x) for x in v))
        object.__setattr__(self, "m", m)
        object.__setattr__(self, "predicted_critical_rows",
                           check_number(self.predicted_critical_rows, "predicted_critical_rows",
                                        "rows", allow_inf=True))
        object.__setattr__(self, "fraction", check_number(self.fraction, "fraction", "of the plateau",
                                                          maximum=1.0))
        for name, unit in (("peak_flops", "FLOP/s"), ("mem_bandwidth", "bytes/s")):
            object.__setattr__(self, name, check_number(getattr(self, name), name, unit))

    @property
    def accelerator(self) -> Accelerator:
        """The measured roofline as an :class:`~infra_calc.Accelerator` (capacity unused)."""
        return Accelerator("this machine", self.peak_flops, self.mem_bandwidth, 1.0)

    @property
    def no_overlap(self) -> tuple:
        """Throughput of each point if moving and computing did not overlap, FLOP/s."""
        v = no_overlap_flops(np.array(self.m, float), self.k, self.n, self.accelerator,
                             self.bytes_per_element)
        return tuple(float(x) for x in np.atleast_1d(v))

    def model_rows(self, overlap=True) -> float:
        """Rows at which the model (with or without overlap) reaches ``fraction`` of the peak."""
        return model_rows_at_fraction(self.k, self.n, self.accelerator, self.bytes_per_element,
                                      self.fraction, overlap)

    @property
    def intensity(self) -> tuple:
        """Arithmetic intensity I(M) of each point, FLOP/byte."""
        i = arithmetic_intensity(np.array(self.m, float), self.k, self.n, self.bytes_per_element)
        return tuple(float(x) for x in np.atleast_1d(i))

    @property
    def plateau(self) -> float:
        """Highest measured throughput, FLOP/s."""
        return max(self.flops_per_second)

    @property
    def measured_critical_rows(self) -> float:
        """First ``M`` reaching ``fraction`` of the plateau (log-log interpolated), rows."""
        return measured_critical_rows(self.m, self.flops_per_second, self.fraction)

    @property
    def prediction_error(self) -> float:
        """Relative error of the prediction: measured M* / predicted M* − 1."""
        return self.measured_critical_rows / self.predicted_critical_rows - 1.0

    def throughput_at(self, m) -> float:
        """Measured FLOP/s at ``M = m`` (one of the grid's rows)."""
        try:
            return self.flops_per_second[self.m.index(int(m))]
        except ValueError:
            raise ValueError(f"m (rows) = {m} was not measured; measured rows: {self.m}") from None

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in d.items()}

    @classmethod
    def from_dict(cls, d) -> "GemmSweep":
        return cls(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in d.items()})

    def to_json(self, path):
        _write(path, {"format": FORMAT, "sweep": self.to_dict()})

    @classmethod
    def from_json(cls, path) -> "GemmSweep":
        return cls.from_dict(_read(path)["sweep"])


@dataclass(frozen=True)
class LabRun:
    """One lab measurement: the machine's roofline and the GEMM sweep."""

    roofline: MachineRoofline
    sweep: GemmSweep

    def to_dict(self) -> dict:
        return {"format": FORMAT, "roofline": self.roofline.to_dict(), "sweep": self.sweep.to_dict()}

    @classmethod
    def from_dict(cls, d) -> "LabRun":
        if d.get("format") != FORMAT:
            raise ValueError(f"format must be {FORMAT!r}, got {d.get('format')!r}")
        return cls(MachineRoofline.from_dict(d["roofline"]), GemmSweep.from_dict(d["sweep"]))

    def to_json(self, path):
        _write(path, self.to_dict())

    @classmethod
    def from_json(cls, path) -> "LabRun":
        return cls.from_dict(_read(path))

    def report(self) -> list:
        """The printout of ``python -m infra_calc measure`` (no date), as lines."""
        r, s = self.roofline, self.sweep
        st = r.settings
        gbps = r.mem_bandwidth / 1e9
        lines = [
            f"Machine: {r.description}",
            f"Memory bandwidth, STREAM-style triad ({r.dtype}, 3 arrays x {st.get('triad_n', '?')} "
            f"elements, {st.get('triad_threads', '?')} threads): {gbps:,.1f} GB/s",
            f"Matmul peak ({r.dtype}, n = {', '.join(str(x) for x in st.get('matmul_sizes', []))}): "
            f"{r.peak_flops / 1e9:,.1f} GFLOP/s",
            f"Ridge point I* = peak / bandwidth: {r.ridge_point:,.2f} FLOP/byte",
            "",
            f"Q-projection GEMM [M, {s.k}] @ [{s.k}, {s.n}], {r.dtype} "
            f"({s.bytes_per_element:g} bytes per element)",
            f"{'M':>6} {'I (FLOP/B)':>11} {'time (ms)':>10} {'measured GFLOP/s':>17} "
            f"{'predicted GFLOP/s':>18} {'meas./pred.':>12}",
        ]
        for m, i, t, f, p in zip(s.m, s.intensity, s.seconds, s.flops_per_second, s.predicted):
            lines.append(f"{m:>6} {i:>11.2f} {t * 1e3:>10.3f} {f / 1e9:>17.1f} {p / 1e9:>18.1f} "
                         f"{f / p:>12.2f}")
        lines += [
            "",
            f"Predicted M* = critical_rows({s.k}, {s.n}, this machine, {s.bytes_per_element:g}) "
            f"= {s.predicted_critical_rows:,.1f} rows",
            f"Measured M* (first M reaching {s.fraction:.0%} of the plateau "
            f"{s.plateau / 1e9:,.1f} GFLOP/s, log-log interpolated) = {s.measured_critical_rows:,.1f} rows",
            f"Prediction error: measured / predicted - 1 = {s.prediction_error:+.0%}",
            f"Rows where a model reaches {s.fraction:.0%} of the peak: roofline (overlap) "
            f"{s.model_rows(True):,.1f}, no overlap (t = F/peak + V/bandwidth) {s.model_rows(False):,.1f}",
        ]
        return lines


def _write(path, data):
    path = pathlib.Path(path)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _read(path):
    data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    if data.get("format") != FORMAT:
        raise ValueError(f"{path}: format must be {FORMAT!r}, got {data.get('format')!r}")
    return data


# --------------------------------------------------------------------------- drivers

class ProgressBar:
    """A plain text progress bar, redrawn in place on ``stream`` (stderr by default)."""

    def __init__(self, total, stream=None, width=30, label="measuring"):
        self.total = check_int(total, "total", "steps")
        self.stream = sys.stderr if stream is None else stream
        self.width = check_int(width, "width", "characters")
        self.label = label
        self.done = 0

    def step(self, label=None):
        if label is not None:
            self.label = label
        self.done = min(self.done + 1, self.total)
        self.draw()

    def draw(self):
        filled = self.width * self.done // self.total
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r[{bar}] {self.done:>3}/{self.total} {self.label:<32.32}")
        self.stream.flush()

    def close(self):
        self.stream.write("\n")
        self.stream.flush()


def measure_roofline(quick=False, device="cpu", dtype=None, threads=None, progress=None,
                     **overrides) -> MachineRoofline:
    """Measure Π (matmul) and β (triad) and return a :class:`MachineRoofline`.

    ``quick`` uses smaller arrays and fewer repeats.  ``overrides`` may set
    ``triad_n``, ``matmul_sizes``, ``repeats``.
    """
    device = _check_device(device)
    cfg = dict(_SETTINGS[(device, bool(quick))])
    unknown = set(overrides) - {"triad_n", "matmul_sizes", "repeats"}
    if unknown:
        raise TypeError(f"unknown setting(s): {', '.join(sorted(unknown))}")
    cfg.update(overrides)
    dtype = _check_dtype(dtype or ("float32" if device == "cpu" else "bfloat16"), device)
    machine = machine_description()
    threads = machine["cpu_count"] if threads is None else threads
    tick = (lambda label: (lambda: progress(label))) if progress else (lambda label: None)
    bw = triad_bandwidth(cfg["triad_n"], dtype, cfg["repeats"], threads=threads, device=device,
                         progress=tick("triad (bandwidth)"))
    peak = matmul_peak(cfg["matmul_sizes"], dtype, cfg["repeats"], device=device,
                       progress=tick("matmul (peak)"))
    settings = {"triad_n": int(cfg["triad_n"]), "triad_threads": int(threads),
                "triad_bytes_per_run": int(triad_bytes(cfg["triad_n"], _backend(device, dtype).itemsize,
                                                       device)),
                "matmul_sizes": [int(x) for x in np.atleast_1d(cfg["matmul_sizes"])],
                "repeats": int(cfg["repeats"]), "quick": bool(quick)}
    date = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    return MachineRoofline(peak, bw, machine, device, dtype, settings, date)


def gemm_sweep(roofline: MachineRoofline, m_values=DEFAULT_M, k=4096, n=4096, repeats=3,
               warmup=1, min_time=0.02, fraction=0.9, progress=None) -> GemmSweep:
    """Time ``[M, k] @ [k, n]`` for each ``M`` and compare with ``roofline``'s prediction.

    The weight is built once and reused (``k·n·itemsize`` bytes, 64 MiB for
    the float32 Q projection).  ``bytes_per_element`` of the prediction is
    the itemsize of ``roofline.dtype``.
    """
    if not isinstance(roofline, MachineRoofline):
        raise TypeError(f"roofline must be a MachineRoofline, got {type(roofline).__name__}")
    m_values = _check_m_values(m_values)
    k = check_int(k, "k", "elements")
    n = check_int(n, "n", "columns")
    repeats, warmup = _check_repeats(repeats, warmup)
    fraction = check_number(fraction, "fraction", "of the plateau", maximum=1.0)
    be = _backend(roofline.device, roofline.dtype)
    bpe = float(be.itemsize)
    w = be.weight(k, n)
    seconds = []
    for m in m_values:
        seconds.append(gemm_seconds(m, k, n, roofline.dtype, repeats, warmup, min_time,
                                    roofline.device, weight=w))
        if progress:
            progress(f"GEMM M = {m}")
    del w
    return sweep_from_seconds(roofline, m_values, seconds, k, n, bpe, fraction)


def sweep_from_seconds(roofline: MachineRoofline, m_values, seconds, k=4096, n=4096,
                       bytes_per_element=4, fraction=0.9) -> GemmSweep:
    """Build a :class:`GemmSweep` from timed seconds and the roofline's prediction."""
    m_values = _check_m_values(m_values)
    seconds = np.atleast_1d(check_number(seconds, "seconds", "s"))
    m_arr = np.array(m_values, float)
    achieved = gemm_flops(m_arr, k, n) / seconds
    hw = roofline.accelerator()
    predicted = attainable_flops(arithmetic_intensity(m_arr, k, n, bytes_per_element), hw)
    m_star = critical_rows(k, n, hw, bytes_per_element=bytes_per_element)
    return GemmSweep(m_values, tuple(seconds), tuple(achieved), tuple(np.atleast_1d(predicted)),
                     m_star, roofline.peak_flops, roofline.mem_bandwidth, int(k), int(n),
                     float(bytes_per_element), fraction)


def run(quick=False, device="cpu", m_values=DEFAULT_M, progress=None, **overrides) -> LabRun:
    """Measure the roofline, then the Q-projection sweep; return a :class:`LabRun`.

    The square matmuls run twice, before and after the sweep, and the better
    median is the peak: on a shared machine a busy moment during one round
    would otherwise put the peak below what the sweep then reaches.
    """
    device = _check_device(device)
    cfg = dict(_SETTINGS[(device, bool(quick))])
    cfg.update(overrides)
    roof = measure_roofline(quick, device, progress=progress, **overrides)
    first = gemm_sweep(roof, m_values, repeats=cfg["gemm_repeats"], progress=progress,
                       min_time=0.01 if quick else 0.02)
    again = matmul_peak(cfg["matmul_sizes"], roof.dtype, cfg["repeats"], device=device,
                        progress=(lambda: progress("matmul (peak, again)")) if progress else None)
    roof = dataclasses.replace(roof, peak_flops=max(roof.peak_flops, again),
                               settings={**roof.settings, "peak_rounds": 2})
    sweep = sweep_from_seconds(roof, first.m, first.seconds, first.k, first.n,
                               first.bytes_per_element, first.fraction)
    return LabRun(roof, sweep)


def _steps(quick, device, m_values, overrides):
    cfg = dict(_SETTINGS[(device, bool(quick))])
    cfg.update(overrides)
    sizes = np.atleast_1d(cfg["matmul_sizes"]).size
    return cfg["repeats"] * (1 + 2 * sizes) + len(m_values)


def main(argv=None) -> int:
    """``python -m infra_calc measure [--json FILE] [--quick] [--device {cpu,cuda}]``."""
    p = argparse.ArgumentParser(prog="python -m infra_calc measure",
                                description="Measure this machine's roofline (STREAM-style triad, "
                                            "matmul peak) and the J13 Q-projection GEMM for M = 1..1024.")
    p.add_argument("--json", metavar="FILE", help="write the measurement to FILE (JSON)")
    p.add_argument("--quick", action="store_true", help="smaller arrays, fewer repeats (a few seconds)")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                   help="cpu (float32, NumPy) or cuda (BF16, PyTorch); default cpu")
    p.add_argument("--no-progress", action="store_true", help="do not draw the progress bar")
    args = p.parse_args(argv)
    device = _check_device(args.device)
    bar = None
    if not args.no_progress:
        bar = ProgressBar(_steps(args.quick, device, DEFAULT_M, {}))
    t0 = time.perf_counter()
    try:
        result = run(args.quick, device, progress=bar.step if bar else None)
    finally:
        if bar:
            bar.close()
    print("\n".join(result.report()))
    if device == "cpu":
        print(gpu_note())
    print(f"Measured in {time.perf_counter() - t0:.1f} s.")
    if args.json:
        result.to_json(args.json)
        print(f"wrote {args.json}")
    return 0
