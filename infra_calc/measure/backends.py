"""Array back ends: NumPy on the CPU, PyTorch on a CUDA GPU.

A back end makes arrays (``full``, ``empty``, ``weight``), multiplies
matrices into a given output (``matmul``) and waits for the device
(``sync``).  PyTorch is imported only when the GPU is asked for.
"""
from __future__ import annotations

import importlib.util

import numpy as np

__all__ = ["DTYPES", "NumpyBackend", "TorchBackend", "backend", "check_device", "check_dtype",
           "cuda_available", "gpu_note"]

#: Element types each device accepts.
DTYPES = {"cpu": ("float32", "float64"), "cuda": ("bfloat16", "float16", "float32")}


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


def check_device(device) -> str:
    """``"cpu"``, or ``"cuda"`` where a CUDA GPU is usable; ValueError otherwise."""
    if device not in ("cpu", "cuda"):
        raise ValueError(f"device must be 'cpu' or 'cuda', got {device!r}")
    if device == "cuda" and not cuda_available():
        raise ValueError("device 'cuda' needs PyTorch with a CUDA GPU; " + gpu_note())
    return device


def check_dtype(dtype, device) -> str:
    """The element type's name, if ``device`` accepts it (see :data:`DTYPES`)."""
    name = np.dtype(dtype).name if device == "cpu" and not isinstance(dtype, str) else str(dtype)
    if name not in DTYPES[device]:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES[device])} on {device}, got {dtype!r}")
    return name


class NumpyBackend:
    """NumPy arrays on the CPU."""

    device = "cpu"

    def __init__(self, dtype):
        self.dtype = np.dtype(dtype)
        self.itemsize = self.dtype.itemsize

    def full(self, shape, value):
        return np.full(shape, value, dtype=self.dtype)

    def empty(self, shape):
        return np.empty(shape, dtype=self.dtype)

    def weight(self, k, n):
        """A fixed pseudo-random ``[k, n]`` weight (seed 0), small values."""
        rng = np.random.default_rng(0)
        return ((rng.random((k, n), dtype=np.float32) - 0.5) / 64).astype(self.dtype, copy=False)

    def matmul(self, x, w, out):
        np.matmul(x, w, out=out)

    def sync(self):
        pass


class TorchBackend:  # pragma: no cover - needs PyTorch with CUDA
    """PyTorch tensors on a CUDA GPU."""

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
        """A fixed pseudo-random ``[k, n]`` weight (seed 0), small values."""
        g = self.torch.Generator(device="cuda").manual_seed(0)
        return ((self.torch.rand((k, n), generator=g, device="cuda") - 0.5) / 64).to(self.dtype)

    def matmul(self, x, w, out):
        self.torch.matmul(x, w, out=out)

    def sync(self):
        self.torch.cuda.synchronize()


def backend(device, dtype):
    """The back end for ``device`` (``"cpu"`` or ``"cuda"``) with element type ``dtype``."""
    return NumpyBackend(dtype) if device == "cpu" else TorchBackend(dtype)
