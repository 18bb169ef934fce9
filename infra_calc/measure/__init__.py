"""Measure this machine's roofline and test J13's ``M*`` prediction on it.

Three measurements, each with warm-up runs, a few timed repeats and the
median (timed with :func:`time.perf_counter`, or any clock passed as ``clock``):

1. **Memory bandwidth** β with a STREAM-style triad ``a = b + s·c`` over
   arrays far larger than the last-level cache.  NumPy has no fused triad,
   and ``a[:] = b + s * c`` would allocate two temporaries (``s*c`` and the
   sum), moving ``7·n·b`` bytes and touching fresh pages.  We write the triad
   as two in-place passes, ``np.multiply(c, s, out=a); np.add(a, b, out=a)``,
   and count the traffic those passes really make: pass 1 reads ``c`` and
   writes ``a`` (2 arrays), pass 2 reads ``a`` and ``b`` and writes ``a``
   (3 arrays), so **5 · n · itemsize bytes per triad** (the one-kernel STREAM
   triad moves 3 · n · itemsize).  Like STREAM we do not count the extra
   read a cache makes before it writes a line (write-allocate): on a cache
   that allocates on write, pass 1 also reads ``a``, six arrays move, and β
   is 5/6 of what the memory system moved, about a sixth low.  The arrays are
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

The package has one module per job: :mod:`.timing` (median of repeated runs,
injectable clock), :mod:`.backends` (NumPy, PyTorch/CUDA), :mod:`.machine`
(what machine it is), :mod:`.bench` (the measurements), :mod:`.arithmetic`
(prediction, measured ``M*``, overlap models), :mod:`.results` (result types
and their JSON), :mod:`.progress` (``tqdm`` bar) and :mod:`.cli`.
"""
from .arithmetic import (
                         achieved_flops,
                         measured_critical_rows,
                         model_rows_at_fraction,
                         no_overlap_flops,
                         roofline_prediction,
)
from .backends import cuda_available, gpu_note
from .bench import (
                         DEFAULT_M,
                         gemm_seconds,
                         gemm_sweep,
                         matmul_peak,
                         measure_roofline,
                         run,
                         triad_bandwidth,
                         triad_bytes,
)
from .cli import main
from .machine import machine_description
from .progress import ProgressBar
from .results import FORMAT, GemmSweep, LabRun, MachineRoofline, sweep_from_seconds
from .timing import median_seconds

__all__ = [
    "MachineRoofline", "GemmSweep", "LabRun", "ProgressBar",
    "triad_bandwidth", "triad_bytes", "matmul_peak", "gemm_seconds", "gemm_sweep",
    "sweep_from_seconds", "measure_roofline", "run", "median_seconds",
    "measured_critical_rows", "model_rows_at_fraction", "no_overlap_flops", "achieved_flops",
    "roofline_prediction", "machine_description", "cuda_available", "gpu_note", "DEFAULT_M",
    "FORMAT", "main",
]
