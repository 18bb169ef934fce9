"""infra_calc.hardware: the Accelerator type, its checks, with_ copies and peaks per math precision."""
import pytest

import infra_calc as ic
from infra_calc import source as S
from infra_calc.bound import bounds
from infra_calc.units import GiB


def test_ridge_point():
    assert round(ic.accelerator("H100 SXM").ridge_point, 1) == 295.3
    assert ic.accelerator("H100 SXM").ridge_point == pytest.approx(989.4 / 3.35)


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


# ------------------------------------------------------------- peaks per math precision
@pytest.mark.parametrize("name, math, tflops", [
    ("H100 SXM", "bf16", 989.4), ("H100 SXM", "fp8", 1978.9), ("H200 SXM", "fp8", 1978.9),
    ("B200", "fp8", 4500.0), ("B200", "fp4", 9000.0), ("MI300X", "fp8", 2614.9),
    ("L40S", "fp8", 733.0), ("A100 80GB", "fp16", 312.0),
])
def test_dense_peak_per_math_precision(name, math, tflops):
    acc = ic.accelerator(name)
    assert acc.peak(math) == pytest.approx(tflops * 1e12)
    assert math in acc.math_precisions
    assert "sparsity" in acc.peak_source(math) or math in ("bf16", "fp16")


def test_a_card_without_the_precision_is_refused_naming_math_and_its_precisions():
    with pytest.raises(ValueError, match=r"math='fp8'.*A100 80GB.*bf16, fp16"):
        ic.accelerator("A100").peak("fp8")
    with pytest.raises(ValueError, match=r"math='fp4'.*fp8"):
        ic.accelerator("H100").peak("fp4")
    with pytest.raises(ValueError, match="math='fp8'"):
        ic.Workload("llama-2-7b", "A100", math="fp8")
    with pytest.raises(ValueError, match="math='fp8'"):
        ic.generation_time("llama-2-7b", "A100", prompt_tokens=16, output_tokens=4, math="fp8")


def test_the_math_precision_sets_the_compute_floor():
    acc = ic.accelerator("B200")
    for math in acc.math_precisions:
        assert bounds(1e15, 0.0, acc, math=math).t_compute == pytest.approx(1e15 / acc.peak(math))
    bf, f4 = (ic.prefill_step("llama-2-70b", acc, prompt_tokens=2048, bytes_per_param=0.5, math=m)
              for m in ("bf16", "fp4"))
    assert bf.t_compute == pytest.approx(4 * f4.t_compute)     # FP4 dense = 4x BF16 dense
    g = ic.generation_time("llama-2-70b", acc, prompt_tokens=128, output_tokens=8, batch=256, math="fp4")
    assert g.math == "fp4" and g.steps.t_compute[0] == pytest.approx(
        ic.model_decode_step("llama-2-70b", acc, batch=256, context=129, math="fp4").t_compute)


def test_peaks_entries_are_checked():
    with pytest.raises(ValueError, match="precision must be one of"):
        ic.Accelerator("x", 1e12, 1e12, 1e9, peaks=(("int3", 1e12, "s"),))
    with pytest.raises(TypeError, match="triples"):
        ic.Accelerator("x", 1e12, 1e12, 1e9, peaks=(("fp8", 1e12),))
