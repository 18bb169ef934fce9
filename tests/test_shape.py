"""infra_calc.shape: tile padding and MoE routing."""
import pytest

import infra_calc as ic


def test_shape_efficiency():
    assert ic.shape_efficiency(16, 16, 16) == 1.0
    assert ic.shape_efficiency(2, 4096, 4096) == 2 / 16
    assert ic.shape_efficiency(17, 16, 16, tile=(16, 16, 16)) == pytest.approx(17 / 32)
    with pytest.raises(TypeError, match="tile"):
        ic.shape_efficiency(1, 1, 1, tile=16)


def test_moe_padding():
    u = ic.padded_rows(ic.route_tokens(64, 256, 8, 0.0), 16)
    c = ic.padded_rows(ic.route_tokens(64, 256, 8, 1.0), 16)
    assert (u.executed, u.useful, u.active_experts) == (4096, 512, 256)
    assert (c.executed, c.useful, c.active_experts) == (512, 512, 8)
    assert u.waste_ratio == 8.0 and c.efficiency == 1.0
    mid = ic.padded_rows(ic.route_tokens(64, 256, 8, 0.5), 16)
    assert 512 <= mid.executed <= 4096 and mid.useful == 512
    with pytest.raises(ValueError, match="top_k"):
        ic.route_tokens(64, 4, 8)
    with pytest.raises(ValueError, match=r"skew"):
        ic.route_tokens(64, 256, 8, 1.5)
    with pytest.raises(ValueError, match=r"rows \(rows per expert\) must be >= 0"):
        ic.padded_rows([1, -1])
