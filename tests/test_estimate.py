"""infra_calc.estimate: one model on one accelerator."""
import pytest

import infra_calc as ic
from infra_calc.units import KiB


@pytest.mark.parametrize("hw", ic.accelerator_names())


@pytest.mark.parametrize("model", ic.model_names())


def test_estimate_every_pair(model, hw):
    est = ic.estimate(model, hw, bytes_per_param=2, batch=8, context=8192)
    assert est.t_step >= max(est.t_read, est.t_compute) > 0
    assert est.t_step_serial == pytest.approx(est.t_read + est.t_compute)
    assert est.max_batch >= 0 and isinstance(est.fits, bool)
    if est.max_batch >= 8:
        assert est.fits
    assert "capacity" in est.table()


def test_estimate_qwen_h100():
    est = ic.estimate("qwen3-8b", "H100 SXM", 2, 8, 8192)
    assert est.weight_bytes == 2 * 8_190_735_360
    assert est.kv_bytes == 8 * 8192 * 144 * KiB
    assert est.bound == "memory"
    assert est.max_batch == 55


def test_estimate_errors():
    with pytest.raises(ValueError, match=r"batch \(requests\) must be >= 1"):
        ic.estimate("qwen3-8b", "H100", batch=0)
    with pytest.raises(ValueError, match="unknown model"):
        ic.estimate("gpt-9", "H100")
