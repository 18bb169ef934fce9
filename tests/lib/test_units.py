"""infra_calc.units: byte, time and rate units (their text is infra_calc.display's)."""
from itertools import pairwise

import pytest

from infra_calc.units import BYTE_UNITS, GB, UNIT_SCALES, GiB


def test_the_one_table_of_scales_keeps_decimal_and_binary_apart():
    assert 24 * GiB / GB == pytest.approx(25.769803776)         # a 24 GiB card, in GB
    assert set(BYTE_UNITS) <= set(UNIT_SCALES)
    # each decimal byte prefix is 1000 of the one below, each binary one 1024
    for row, step in ((("B", "KB", "MB", "GB", "TB"), 1000), (("B", "KiB", "MiB", "GiB", "TiB"), 1024)):
        assert [UNIT_SCALES[b] / UNIT_SCALES[a] for a, b in pairwise(row)] == [step] * 4, row
    # 1 s = 1,000 ms = 10^6 µs; 1 h = 3,600 s; 100 % = 1; a TFLOP/s is 1,000 GFLOP/s
    assert 1000 * UNIT_SCALES["ms"] == 1e6 * UNIT_SCALES["µs"] == 100 * UNIT_SCALES["%"] == 1
    assert UNIT_SCALES["h"] == 3600 * UNIT_SCALES["s"]
    assert UNIT_SCALES["TFLOP/s"] == 1000 * UNIT_SCALES["GFLOP/s"]
    assert UNIT_SCALES["GiB/s"] == UNIT_SCALES["GiB"] / UNIT_SCALES["s"]
    assert all(isinstance(s, float) and s > 0 for s in UNIT_SCALES.values())
