"""Lower bounds on the time of one decode step.

One step must at least read every byte it needs (``T_read = R/β``) and do
every FLOP it needs (``T_compute = F/Π``).  When reads and math overlap the
step takes at least the larger of the two; when they run one after the other
it takes their sum.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import check_int, check_number, unwrap
from .accelerators import accelerator
from .bound import Bounds, bounds, crossover, tokens_per_s
from .hardware import Accelerator

__all__ = ["read_time", "compute_time", "step_time", "mbu", "DecodeStep", "decode_step",
           "batch_turning_point"]


def read_time(nbytes, hw):
    """Read lower bound :math:`T_{read} = R / \\beta`, seconds.

    Parameters
    ----------
    nbytes : float or array_like
        Bytes read from memory, ``R`` (>= 0).
    hw : Accelerator or str
        Supplies the bandwidth ``β`` in bytes/s.
    """
    nbytes = check_number(nbytes, "nbytes", "bytes", allow_zero=True)
    return bounds(0.0, nbytes, accelerator(hw)).t_read


def compute_time(flops, hw, *, math="bf16"):
    """Compute lower bound :math:`T_{compute} = F / \\Pi`, seconds.

    Parameters
    ----------
    flops : float or array_like
        FLOPs performed, ``F`` (>= 0).
    hw : Accelerator or str
        Supplies the dense peak ``Π`` in FLOP/s.
    math : str, keyword-only
        Math precision whose dense peak ``Π`` bounds the math (default ``"bf16"``).
    """
    flops = check_number(flops, "flops", "FLOPs", allow_zero=True)
    return bounds(flops, 0.0, accelerator(hw), math=math).t_compute


def step_time(flops, nbytes, hw, *, math="bf16", overlap=True):
    """Lower bound on one step, seconds.

    :math:`\\max(F/\\Pi, R/\\beta)` when reads and math overlap (``overlap=True``),
    :math:`F/\\Pi + R/\\beta` when they are serial; ``Π`` the dense peak at ``math``
    (default ``"bf16"``).
    """
    flops = check_number(flops, "flops", "FLOPs", allow_zero=True)
    nbytes = check_number(nbytes, "nbytes", "bytes", allow_zero=True)
    return bounds(flops, nbytes, accelerator(hw), overlap=overlap, math=math).t_floor


def mbu(nbytes, hw, *, seconds):
    """Memory-bandwidth utilisation of a measured step, a fraction.

    .. math:: \\mathrm{MBU} = \\frac{R / t}{\\beta}

    the bandwidth the step achieved (the bytes it had to read over its measured
    time) divided by the card's bandwidth; equally the read floor
    :func:`read_time` over the measured time, so 1 is a step at its read floor.

    Parameters
    ----------
    nbytes : float or array_like
        Bytes the step had to read, ``R`` (>= 0).
    hw : Accelerator or str
        Supplies the bandwidth ``β`` in bytes/s.
    seconds : float or array_like, keyword-only
        The step's measured time ``t``, seconds (> 0).

    Returns
    -------
    float or numpy.ndarray
        ``R / t / β`` (arrays broadcast).

    >>> round(mbu(20e9, "H100 SXM", seconds=10e-3), 3)      # 2 TB/s of 3.35 TB/s
    0.597
    """
    nbytes = check_number(nbytes, "nbytes", "bytes", allow_zero=True)
    t = check_number(seconds, "seconds", "the measured step time")
    return unwrap(np.asarray(nbytes) / np.asarray(t) / accelerator(hw).mem_bandwidth)


@dataclass(frozen=True)
class DecodeStep(Bounds):
    """Result of :func:`decode_step` (SI units: seconds, bytes, FLOPs).

    Its times and labels are its :class:`~infra_calc.bound.Bounds` (one card:
    ``t_comm = 0``, so ``t_step = t_floor``).  Each number is a float for scalar
    inputs and an array for array inputs.
    """

    #: The accelerator the step ran on, exactly as given (a changed copy keeps its figures).
    hw: Accelerator
    #: Parameters used per token, ``N``.
    params: float | np.ndarray
    #: Stored bytes per weight, ``b_W``.
    bytes_per_param: float | np.ndarray
    #: Requests decoded together, ``B``.
    batch: float | np.ndarray
    #: Bytes read this step, ``R = b_W N + R_KV``.
    bytes_read: float | np.ndarray
    #: FLOPs this step, ``F = 2 B N``.
    flops: float | np.ndarray
    #: Throughput ``B / T_step``, tokens per second.
    tokens_per_s: float | np.ndarray
    #: ``T_read / B``, seconds: a throughput figure, not a latency.
    read_time_per_output: float | np.ndarray

    @property
    def ratio(self):
        """``t_read / t_compute``: how many times slower reading is than math."""
        return unwrap(np.asarray(self.t_read) / np.asarray(self.t_compute))


def read_time_per_output(t_read, batch):
    """``T_read / B``, seconds per output token: a throughput figure, not a latency (the one
    place it is computed, for :func:`decode_step` and :func:`infra_calc.estimate`)."""
    return unwrap(np.asarray(t_read, dtype=float) / np.asarray(batch, dtype=float))


def decode_step(params, hw, *, batch=1, bytes_per_param, kv_bytes=0, math="bf16",
                overlap=True) -> DecodeStep:
    """Estimate one decode step of a dense model (one new token per request).

    The batch of ``B`` requests shares one read of the weights:

    - bytes read  :math:`R = b_W N + R_{KV}`
    - FLOPs       :math:`F = 2 B N`
    - :math:`T_{read} = R/\\beta`, :math:`T_{compute} = F/\\Pi`,
      :math:`T_{step} = \\max(T_{read}, T_{compute})` (sum when ``overlap=False``)
    - throughput :math:`B / T_{step}` tokens/s; per-output read time
      :math:`T_{read}/B` (a throughput figure, not a latency).

    Parameters
    ----------
    params : float or array_like
        Parameters used per token, ``N``.
    hw : Accelerator or str
    batch : int or array_like, keyword-only
        Requests decoded together, ``B`` (>= 1).
    bytes_per_param : float or array_like, keyword-only
        Stored bytes per weight, ``b_W`` (1 for 8-bit, 0.5 for 4-bit).
    kv_bytes : float or array_like, keyword-only
        KV-cache bytes the whole batch reads this step, ``R_KV`` (default 0): an
        amount of cache, as :attr:`DecodeStep.bytes_read` counts it, not the
        per-element width ``kv_bytes_per_element`` of the chapter-3 functions.
    math : str, keyword-only
        Math precision whose dense peak ``Π`` bounds the math (default ``"bf16"``).
    overlap : bool, keyword-only
        Whether reads and math overlap.

    Chapter 1's count of a parameter count on one card: no ``context``, ``cards``,
    ``routing``, ``workspace`` or ``comm``, which need a model's shape;
    :func:`~infra_calc.decode.model_decode_step` takes them.
    """
    acc = accelerator(hw)
    n = check_number(params, "params", "parameters")
    bw = check_number(bytes_per_param, "bytes_per_param", "bytes/parameter")
    b = check_int(batch, "batch", "requests", minimum=1)
    kv = check_number(kv_bytes, "kv_bytes", "bytes", allow_zero=True)
    r = bw * n + kv
    f = 2.0 * b * n
    t = bounds(f, r, acc, overlap=overlap, math=math)
    return DecodeStep(
        **vars(t), hw=acc, params=n, bytes_per_param=bw, batch=b, bytes_read=unwrap(r),
        flops=unwrap(f), tokens_per_s=tokens_per_s(b, t.t_step),
        read_time_per_output=read_time_per_output(t.t_read, b),
    )


def batch_turning_point(hw, *, bytes_per_param, math="bf16"):
    """Batch size where compute catches up with the read of the weights, requests (not rounded).

    Setting :math:`2BN/\\Pi = b_W N/\\beta` gives J07's

    .. math:: B^* = \\frac{b_W \\Pi}{2\\beta},

    the same for every model: a dense decode step without its KV cache.  With
    the cache, attention and a model's own weights, the turning point depends
    on the context: :func:`infra_calc.kv.turning_batch`.

    Parameters
    ----------
    hw : Accelerator or str
    bytes_per_param : float or array_like, keyword-only
        Stored bytes per weight, ``b_W``.
    math : str, keyword-only
        Math precision whose dense peak is ``Π`` (default ``"bf16"``;
        :meth:`~infra_calc.hardware.Accelerator.peak`).
    """
    bw = check_number(bytes_per_param, "bytes_per_param", "bytes/parameter")
    # per weight: b_W bytes once, 2 FLOPs a request
    return crossover(0.0, bw, accelerator(hw), flops_slope=2.0, bytes_slope=0.0, math=math)

