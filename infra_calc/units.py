"""Unit constants and the one table of units, each with its kind and scale (no formatting:
that is :mod:`infra_calc.display`).

Everything in :mod:`infra_calc` is SI: seconds, bytes, FLOPs, FLOP/s and
bytes/s.  The source chapters mix decimal gigabytes (GB = 10**9 bytes) and
binary gibibytes (GiB = 2**30 bytes); the constants below keep the two apart,
:data:`K_TOKENS` is the K of a context length, and :data:`UNITS` gives every unit the
book prints or reads its :class:`Unit`: what it measures and the SI value of one of it.
:mod:`infra_calc.display` scales by it, the answer checker converts between units of one
kind by it, and :mod:`infra_calc.measurements` reads the kind and scale of a printed unit
from it.

Examples
--------
>>> from infra_calc import units
>>> 80 * units.GiB / units.GB
85.89934592
>>> units.UNITS["GiB/s"]
Unit(kind='bandwidth', scale=1073741824.0)
"""
from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB",
    "MS", "US", "K_TOKENS", "BF16_BYTES", "Unit", "UNITS",
]

# decimal (SI) prefixes
KB, MB, GB, TB = 1e3, 1e6, 1e9, 1e12
# binary (IEC) prefixes
KiB, MiB, GiB, TiB = 2**10, 2**20, 2**30, 2**40
# time
MS, US = 1e-3, 1e-6
#: Bytes of one BF16 number, 2: the library's one default width of a weight, a cached K/V element
#: and a GEMM operand when a call names none (Workload, ModelSpec's byte counts, the roofline).
BF16_BYTES = 2
#: the K of a context length ("8K tokens" = 8,192): 2**10 tokens, as the source writes them
K_TOKENS = 2**10


class Unit(NamedTuple):
    """A unit: ``kind``, what it measures (two units convert into each other only when
    their kinds are equal), and ``scale``, the SI value of one of it (a value in the unit
    is ``si_value / scale``)."""

    kind: str
    scale: float


#: unit -> :class:`Unit`, the one table of units, written kind by kind.  A count's kind is
#: the thing counted, so "4 rows" is not an answer in requests; "rate" is tokens per second
#: (the word :data:`infra_calc.measurements.METRICS` uses).
UNITS: dict[str, Unit] = {unit: Unit(kind, float(scale)) for kind, scales in {
    "time": {"years": 365.25 * 86400.0, "h": 3600.0, "s": 1.0, "ms": MS,
             "µs": US, "μs": US, "us": US, "ns": 1e-9},          # µ micro sign, μ Greek mu
    "bytes": {"B": 1.0, "KB": KB, "MB": MB, "GB": GB, "TB": TB,
              "KiB": KiB, "MiB": MiB, "GiB": GiB, "TiB": TiB, "bytes": 1.0},
    "work": {"FLOP": 1.0, "FLOPs": 1.0, "kFLOP": 1e3, "MFLOP": 1e6, "MFLOPs": 1e6,
             "GFLOP": 1e9, "GFLOPs": 1e9, "TFLOP": 1e12, "TFLOPs": 1e12, "PFLOP": 1e15},
    "compute rate": {"FLOP/s": 1.0, "GFLOP/s": 1e9, "TFLOP/s": 1e12, "PFLOP/s": 1e15},
    "bandwidth": {"B/s": 1.0, "GB/s": GB, "TB/s": TB, "GiB/s": GiB},
    "rate": {"tokens/s": 1.0, "token/s": 1.0, "tok/s": 1.0},
    "intensity": {"FLOP/byte": 1.0, "FLOP/B": 1.0},
    "ratio": {"×": 1.0, "x": 1.0},
    "percentage": {"%": 0.01},                                   # a fraction shown in %
    "power": {"W": 1.0},                                         # a card's printed power limit
    "tokens": {"tokens": 1.0, "token": 1.0},
    "requests": {"requests": 1.0, "request": 1.0},
    "rows": {"rows": 1.0}, "cards": {"cards": 1.0}, "experts": {"experts": 1.0},
    "layers": {"layers": 1.0}, "elements": {"elements": 1.0},
    "parameters": {"B params": 1e9},
    "number": {"thousand": 1e3, "million": 1e6, "billion": 1e9},  # scale words of a count
}.items() for unit, scale in scales.items()}
