"""Unit constants and the table of unit scales (no formatting: that is :mod:`infra_calc.display`).

Everything in :mod:`infra_calc` is SI: seconds, bytes, FLOPs, FLOP/s and
bytes/s.  The source chapters mix decimal gigabytes (GB = 10**9 bytes) and
binary gibibytes (GiB = 2**30 bytes); the constants below keep the two apart,
:data:`K_TOKENS` is the K of a context length, and :data:`UNIT_SCALES` gives the SI
value of one of each unit the book prints, which :mod:`infra_calc.display` uses to
turn a value into text.

Examples
--------
>>> from infra_calc import units
>>> 80 * units.GiB / units.GB
85.89934592
"""
from __future__ import annotations

__all__ = [
    "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB",
    "MEGA", "GIGA", "TERA",
    "MS", "US", "K_TOKENS", "BYTE_UNITS", "UNIT_SCALES",
]

# decimal (SI) prefixes
MEGA, GIGA, TERA = 1e6, 1e9, 1e12
KB, MB, GB, TB = 1e3, 1e6, 1e9, 1e12
# binary (IEC) prefixes
KiB, MiB, GiB, TiB = 2**10, 2**20, 2**30, 2**40
# time
MS, US = 1e-3, 1e-6
#: the K of a context length ("8K tokens" = 8,192): 2**10 tokens, as the source writes them
K_TOKENS = 2**10

BYTE_UNITS = {"B": 1, "KB": KB, "MB": MB, "GB": GB, "TB": TB,
              "KiB": KiB, "MiB": MiB, "GiB": GiB, "TiB": TiB}

#: unit -> the SI value of one of it (seconds, bytes, FLOPs, FLOP/s, bytes/s ...): the one
#: table of scales, used by :func:`infra_calc.display.shown`, the answer checker and
#: :data:`infra_calc.measurements.UNITS` (which names a key here for each printed unit).
UNIT_SCALES: dict[str, float] = {
    # time
    "years": 365.25 * 86400.0, "h": 3600.0, "s": 1.0, "ms": MS, "µs": US, "μs": US, "us": US, "ns": 1e-9,
    # bytes, decimal and binary
    **{unit: float(scale) for unit, scale in BYTE_UNITS.items()}, "bytes": 1.0,
    # work
    "FLOP": 1.0, "FLOPs": 1.0, "kFLOP": 1e3, "MFLOP": 1e6, "MFLOPs": 1e6, "GFLOP": 1e9,
    "GFLOPs": 1e9, "TFLOP": 1e12, "TFLOPs": 1e12, "PFLOP": 1e15,
    # rates
    "FLOP/s": 1.0, "GFLOP/s": 1e9, "TFLOP/s": 1e12, "PFLOP/s": 1e15,
    "B/s": 1.0, "GB/s": 1e9, "TB/s": 1e12, "GiB/s": 2.0**30,
    "tokens/s": 1.0, "token/s": 1.0, "tok/s": 1.0,
    # intensity, ratios, counts
    "FLOP/byte": 1.0, "FLOP/B": 1.0, "×": 1.0, "x": 1.0,
    "%": 0.01,                       # a fraction shown as a percentage
    "W": 1.0, "mm²": 1.0,
    "tokens": 1.0, "token": 1.0, "requests": 1.0, "request": 1.0, "rows": 1.0,
    "cards": 1.0, "experts": 1.0, "layers": 1.0, "elements": 1.0,
    # counts with a scale word
    "thousand": 1e3, "million": 1e6, "billion": 1e9, "B params": 1e9,
}
