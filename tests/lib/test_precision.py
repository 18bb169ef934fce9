"""infra_calc.precision: a card at a lower-precision peak, and how the turning points move."""
import pytest

import infra_calc as ic

BIG, SMALL, MOE, H100 = "DeepSeek-R1-Distill-Llama-70B", "Llama-3.1-8B", "Mixtral-8x7B", "H100 SXM"


# ------------------------------------------------------------------ lower precision
def test_the_card_level_functions_take_the_precision():
    h = ic.accelerator(H100)
    assert h.ridge() == h.ridge_point == h.ridge("FP16")
    # the H100 SXM's published dense peaks: 1,978.9 TFLOP/s FP8, 989.4 TFLOP/s BF16 (twice)
    assert h.ridge("fp8") == pytest.approx(2 * h.ridge(), rel=1e-3)
    assert ic.attainable_flops(1e6, h, math="fp8") == h.peak("fp8")
    assert ic.attainable_flops(1.0, h, math="fp8") == pytest.approx(ic.attainable_flops(1.0, h),
                                                                    rel=1e-15)  # on the slope
    pt = ic.gemm_roofline(512, 8192, 8192, h, math="fp8")
    assert pt.ridge == h.ridge("fp8") and pt.bound == "memory"
    assert ic.gemm_roofline(512, 8192, 8192, h).bound == "compute"
    m8 = ic.critical_rows(8192, 8192, h, bytes_per_element=1, math="fp8")
    assert m8 > ic.critical_rows(8192, 8192, h, bytes_per_element=1)
    # B* moves with the peak: twice the batch at twice the peak
    assert ic.batch_turning_point(h, bytes_per_param=1, math="fp8") == pytest.approx(
        2 * ic.batch_turning_point(h, bytes_per_param=1), rel=1e-3)
    w = ic.Workload(BIG, H100, context=512, math="fp8")
    assert ic.turning_batch(BIG, H100, context=512, math="fp8") == ic.turning_batch(w)
    assert ic.critical_context(BIG, H100, math="fp8") == ic.critical_context(w)
    assert ic.critical_context(BIG, H100, math="fp8") < ic.critical_context(BIG, H100)
    for call in (lambda: h.ridge("fp4"), lambda: ic.critical_rows(8192, 8192, h, math="fp4"),
                 lambda: ic.turning_batch(BIG, H100, math="fp4")):
        with pytest.raises(ValueError, match="fp4"):
            call()
    assert not hasattr(ic, "at_math")


def test_precision_moves_the_turning_points_as_bytes_times_peak():
    base = ic.precision_point(BIG, H100, bytes_per_param=2)
    w4 = ic.precision_point(BIG, H100, bytes_per_param=0.5)          # weight-only int4
    f8 = ic.precision_point(BIG, H100, math="fp8", bytes_per_param=1)
    assert w4.ridge == base.ridge and f8.ridge == pytest.approx(2 * base.ridge, rel=1e-3)
    assert w4.b_star_no_kv == pytest.approx(base.b_star_no_kv / 4)
    assert f8.b_star_no_kv == pytest.approx(base.b_star_no_kv, rel=1e-3)
    assert w4.b_star < base.b_star / 3.9 and f8.b_star == pytest.approx(base.b_star, rel=0.01)
    assert f8.s_max < 0.55 * base.s_max                              # the math got cheaper
    assert w4.s_max == pytest.approx(base.s_max, rel=1e-3)           # b_W enters only via a row
    assert f8.t_step_1 == pytest.approx(w4.t_step_1 * 2, rel=0.01)
    b = ic.model_decode_step(BIG, H100, batch=1, context=0, bytes_per_param=1, math="fp8")
    assert f8.t_step_1 == b.t_step


def test_precision_point_refuses_a_precision_the_card_lacks():
    with pytest.raises(ValueError, match="fp4"):
        ic.precision_point(SMALL, H100, math="fp4")


def test_precision_point_keeps_the_workloads_routing_and_cards():
    w = ic.Workload(MOE, H100, routing="uniform", context=512)
    pt = ic.precision_point(w)
    assert pt.b_star == ic.turning_batch(w)
    assert pt.b_star != ic.turning_batch(w.with_(routing="floor"))    # routing was not dropped
    assert pt.s_max == ic.critical_context(w)
    two = ic.Workload(BIG, H100, cards=2, context=512)
    assert ic.precision_point(two).b_star == ic.turning_batch(two)
    f8 = ic.Workload(BIG, H100, math="fp8", bytes_per_param=1)
    assert ic.precision_point(f8).math == "fp8"                       # the workload's math kept


def test_precision_point_states_its_memory():
    pt = ic.precision_point(BIG, H100, bytes_per_param=1, context=512)
    w = ic.Workload(BIG, H100, bytes_per_param=1, context=512)
    assert pt.memory == w.memory and pt.weight_bytes == w.resident_weight_bytes()
    assert pt.fits == w.fits
