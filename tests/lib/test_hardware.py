"""infra_calc.hardware: the accelerator catalog, forgiving lookup, with_ copies."""
import pytest

import infra_calc as ic
from infra_calc import source as S
from infra_calc.units import GB, GiB


def test_catalog_has_required_entries():
    for name in ["H100 SXM", "A100 80GB", "RTX 4090", "H200 SXM", "B200", "L40S", "MI300X",
                 "TPU v5e", "Ascend 910B"]:
        acc = ic.accelerator(name)
        assert acc.source and acc.note
        assert "dense" in (acc.note + acc.source).lower() or acc.vendor == "Google"


def test_catalog_values_are_physical():
    h = ic.accelerator("H100 SXM")
    assert (h.peak_flops, h.mem_bandwidth, h.mem_capacity) == (989.4e12, 3.35e12, 80 * GiB)
    a = ic.accelerator("A100 80GB")
    assert (a.peak_flops, a.mem_bandwidth, a.mem_capacity) == (312e12, 2.039e12, 80 * GiB)
    r = ic.accelerator("RTX 4090")
    assert (r.peak_flops, r.mem_bandwidth, r.mem_capacity) == (165.2e12, 1.008e12, 24 * GiB)
    assert round(r.mem_capacity / GB, 2) == 25.77


@pytest.mark.parametrize("name", ["h100", "H100-SXM", "h100 sxm", " H100_sxm ", "H100.SXM"])


def test_forgiving_lookup(name):
    assert ic.accelerator(name).name == "H100 SXM"


def test_unknown_accelerator_lists_names():
    with pytest.raises(ValueError, match="known names: H100 SXM, A100 80GB"):
        ic.accelerator("V100")
    with pytest.raises(TypeError, match="hw"):
        ic.accelerator(3)


def test_ridge_point():
    assert round(ic.accelerator("H100 SXM").ridge_point, 1) == 295.3
    assert ic.ridge_point("H100 SXM") == pytest.approx(989.4 / 3.35)


def test_accelerator_validation():
    with pytest.raises(ValueError, match=r"mem_bandwidth \(bytes/s\) must be > 0"):
        ic.Accelerator("x", 1e12, 0, 1e9)
    with pytest.raises(TypeError, match=r"peak_flops \(FLOP/s\)"):
        ic.Accelerator("x", "fast", 1e12, 1e9)
    with pytest.raises(ValueError, match="NaN"):
        ic.Accelerator("x", float("nan"), 1e12, 1e9)


def test_with_changes_copy_only():
    h = ic.accelerator("H100 SXM")
    src = S.j07_h100()
    assert src.mem_capacity == 80e9 and h.mem_capacity == 80 * GiB
