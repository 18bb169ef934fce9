"""Units and formatting.

Everything in :mod:`infra_calc` is SI: seconds, bytes, FLOPs, FLOP/s and
bytes/s.  The source chapters mix decimal gigabytes (GB = 10**9 bytes) and
binary gibibytes (GiB = 2**30 bytes); the constants below keep the two apart
and the helpers always print the unit they used.

Examples
--------
>>> from infra_calc import units
>>> 80 * units.GiB / units.GB
85.89934592
>>> units.fmt_bytes(24 * units.GiB, "GB")
'25.77 GB'
"""
from __future__ import annotations

from ._validate import check_number

__all__ = [
    "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB",
    "MEGA", "GIGA", "TERA",
    "MS", "US", "BYTE_UNITS",
    "to_unit", "fmt_bytes", "fmt_time", "fmt_flops", "fmt_rate",
]

# decimal (SI) prefixes
MEGA, GIGA, TERA = 1e6, 1e9, 1e12
KB, MB, GB, TB = 1e3, 1e6, 1e9, 1e12
# binary (IEC) prefixes
KiB, MiB, GiB, TiB = 2**10, 2**20, 2**30, 2**40
# time
MS, US = 1e-3, 1e-6

BYTE_UNITS = {"B": 1, "KB": KB, "MB": MB, "GB": GB, "TB": TB,
              "KiB": KiB, "MiB": MiB, "GiB": GiB, "TiB": TiB}


def to_unit(nbytes, unit: str = "GB"):
    """Convert a byte count into ``unit`` (one of :data:`BYTE_UNITS`).

    ``to_unit(x, "GB") = x / 1e9`` while ``to_unit(x, "GiB") = x / 2**30``.
    """
    if unit not in BYTE_UNITS:
        raise ValueError(f"unit must be one of {sorted(BYTE_UNITS)}, got {unit!r}")
    nbytes = check_number(nbytes, "nbytes", "bytes", allow_zero=True)
    return nbytes / BYTE_UNITS[unit]


def fmt_bytes(nbytes, unit: str = "GB", digits: int = 2) -> str:
    """Format a byte count with an explicit unit, e.g. ``'16.38 GB'``."""
    return f"{to_unit(nbytes, unit):,.{digits}f} {unit}"


def fmt_time(seconds, unit: str = "ms", digits: int = 2) -> str:
    """Format a time in ``s``, ``ms`` or ``us``, e.g. ``'20.90 ms'``."""
    scale = {"s": 1.0, "ms": MS, "us": US, "μs": US}
    if unit not in scale:
        raise ValueError(f"unit must be one of {sorted(scale)}, got {unit!r}")
    seconds = check_number(seconds, "seconds", "s", allow_zero=True, allow_inf=True)
    return f"{seconds / scale[unit]:,.{digits}f} {unit}"


def fmt_flops(flops, unit: str = "GFLOPs", digits: int = 2) -> str:
    """Format a FLOP count, e.g. ``'140.00 GFLOPs'``."""
    scale = {"FLOPs": 1.0, "MFLOPs": MEGA, "GFLOPs": GIGA, "TFLOPs": TERA}
    if unit not in scale:
        raise ValueError(f"unit must be one of {sorted(scale)}, got {unit!r}")
    flops = check_number(flops, "flops", "FLOPs", allow_zero=True)
    return f"{flops / scale[unit]:,.{digits}f} {unit}"


def fmt_rate(value, unit: str = "TFLOP/s", digits: int = 1) -> str:
    """Format a throughput: ``TFLOP/s``, ``GFLOP/s``, ``TB/s`` or ``GB/s``."""
    scale = {"TFLOP/s": TERA, "GFLOP/s": GIGA, "TB/s": TB, "GB/s": GB}
    if unit not in scale:
        raise ValueError(f"unit must be one of {sorted(scale)}, got {unit!r}")
    value = check_number(value, "value", unit, allow_zero=True)
    return f"{value / scale[unit]:,.{digits}f} {unit}"
