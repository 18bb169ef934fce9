"""infra_calc.units: byte, time and rate units, each with its kind and scale (their text is
infra_calc.display's)."""
from itertools import pairwise

import pytest

from infra_calc import units
from infra_calc.units import GB, UNITS, GiB, Unit


def scale(unit):
    return UNITS[unit].scale


def test_the_one_table_of_scales_keeps_decimal_and_binary_apart():
    assert 24 * GiB / GB == pytest.approx(25.769803776)         # a 24 GiB card, in GB
    # the byte constants are the table's scales
    for name in ("KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB"):
        assert getattr(units, name) == scale(name) and UNITS[name].kind == "bytes", name
    # each decimal byte prefix is 1000 of the one below, each binary one 1024
    for row, step in ((("B", "KB", "MB", "GB", "TB"), 1000), (("B", "KiB", "MiB", "GiB", "TiB"), 1024)):
        assert [scale(b) / scale(a) for a, b in pairwise(row)] == [step] * 4, row
    # 1 s = 1,000 ms = 10^6 µs; 1 h = 3,600 s; 100 % = 1; a TFLOP/s is 1,000 GFLOP/s
    assert 1000 * scale("ms") == 1e6 * scale("µs") == 100 * scale("%") == 1
    assert scale("h") == 3600 * scale("s")
    assert scale("TFLOP/s") == 1000 * scale("GFLOP/s")
    assert scale("GiB/s") == scale("GiB") / scale("s")
    assert all(isinstance(u.scale, float) and u.scale > 0 for u in UNITS.values())


def test_every_unit_has_its_kind_beside_its_scale():
    """One table: each unit's kind is written there, not read off its name (KB, h, years
    and the Greek μs are units of time and bytes too)."""
    assert all(isinstance(unit, Unit) and unit.kind for unit in UNITS.values())
    kinds = {u: UNITS[u].kind for u in ("KB", "B", "bytes", "GiB", "h", "years", "μs", "µs", "ns")}
    assert kinds == {"KB": "bytes", "B": "bytes", "bytes": "bytes", "GiB": "bytes", "h": "time",
                     "years": "time", "μs": "time", "µs": "time", "ns": "time"}
    assert UNITS["μs"] == UNITS["µs"] == UNITS["us"] == Unit("time", 1e-6)   # Greek mu, micro sign
    assert UNITS["GiB/s"] == Unit("bandwidth", 2.0**30) and UNITS["tok/s"] == Unit("rate", 1.0)
    # a count's kind is the thing counted: rows and requests do not convert into each other
    assert UNITS["rows"].kind != UNITS["requests"].kind == UNITS["request"].kind


def test_si_throughout():
    """A unit of one kind is a multiple of that kind's SI unit, which has scale 1 (an area
    in mm² with scale 1 would not be)."""
    si = {"time": "s", "bytes": "B", "work": "FLOP", "compute rate": "FLOP/s",
          "bandwidth": "B/s", "rate": "tokens/s", "intensity": "FLOP/byte", "ratio": "×"}
    assert all(UNITS[u] == Unit(kind, 1.0) for kind, u in si.items())
    assert "mm²" not in UNITS
