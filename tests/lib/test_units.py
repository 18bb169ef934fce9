"""infra_calc.units: byte, time and rate units and their formatting."""
import pytest

from infra_calc.units import GiB


def test_units():
    from infra_calc import units
    assert units.fmt_bytes(24 * GiB, "GB") == "25.77 GB"
    assert units.fmt_bytes(24 * GiB, "GiB") == "24.00 GiB"
    assert units.fmt_time(20.896e-3) == "20.90 ms"
    assert units.fmt_flops(140e9) == "140.00 GFLOPs"
    assert units.fmt_rate(989.4e12) == "989.4 TFLOP/s"
    with pytest.raises(ValueError, match="unit must be one of"):
        units.to_unit(1, "GB ")
