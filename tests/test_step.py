"""Tests of infra_calc.step: read, compute and step bounds, one decode step."""
import infra_calc as ic
from infra_calc import source as S


def test_changed_accelerator_keeps_its_figures_through_decode_step():
    """A card changed with ``with_`` keeps its own figures, not the catalog's under its name."""
    h = S.j07_h100()
    fast = h.with_(peak_flops=2 * h.peak_flops)           # still named "H100 SXM"
    step = ic.decode_step(70e9, 1, fast)
    assert step.hw == fast
    assert step.hw.peak_flops == 2 * h.peak_flops
    assert step.hw.mem_capacity == 80e9                   # the source's reading, not 80 GiB
    assert ic.batch_turning_point(step.hw, step.bytes_per_param) == 2 * ic.batch_turning_point(h, 1)


def test_changed_accelerator_keeps_its_figures_through_estimate():
    h = ic.accelerator("H100 SXM")
    fast = h.with_(peak_flops=2 * h.peak_flops, mem_capacity=40e9)
    est = ic.estimate("qwen3-8b", fast, bytes_per_param=2, batch=8, context=8192)
    assert est.hw == fast
    assert est.hw.peak_flops == 2 * h.peak_flops and est.hw.mem_capacity == 40e9
    assert est.capacity == 40e9
