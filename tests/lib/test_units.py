"""infra_calc.units: byte, time and rate units (their text is infra_calc.display's)."""
import pytest

from infra_calc.units import GiB


def test_units():
    from infra_calc import units
    assert units.to_unit(24 * GiB, "GB") == pytest.approx(25.769803776)
    with pytest.raises(ValueError, match="unit must be one of"):
        units.to_unit(1, "GB ")
