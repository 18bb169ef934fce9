"""infra_calc.units: byte, time and rate units (their text is infra_calc.display's)."""
import pytest

from infra_calc import units
from infra_calc.units import BYTE_UNITS, GB, UNIT_SCALES, GiB


def test_the_one_table_of_scales_keeps_decimal_and_binary_apart():
    assert 24 * GiB / GB == pytest.approx(25.769803776)         # a 24 GiB card, in GB
    assert all(UNIT_SCALES[u] == s for u, s in BYTE_UNITS.items())
    assert (UNIT_SCALES["ms"], UNIT_SCALES["µs"], UNIT_SCALES["%"]) == (units.MS, units.US, 0.01)
    assert UNIT_SCALES["TFLOP/s"] == units.TERA and UNIT_SCALES["GiB/s"] == GiB
    assert all(isinstance(s, float) and s > 0 for s in UNIT_SCALES.values())
