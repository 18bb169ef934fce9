"""What machine a measurement ran on: platform, CPU, caches, NumPy and BLAS (no timing)."""
from __future__ import annotations

import importlib.util
import os
import pathlib
import platform

import numpy as np

__all__ = ["machine_description", "short_description"]


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


def short_description(desc: dict) -> str:
    """One line naming the machine of a :func:`machine_description` dict."""
    return (f"{desc.get('cpu', '?')}, {desc.get('cpu_count', '?')} CPUs, {desc.get('platform', '?')}, "
            f"numpy {desc.get('numpy', '?')}, BLAS {desc.get('blas', '?')}")


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
