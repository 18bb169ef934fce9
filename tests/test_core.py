"""Unit tests of the calculation modules against the source's numbers."""
import math

import numpy as np
import pytest

import infra_calc as ic
from infra_calc import source as S
from infra_calc.units import GB, GiB, KiB, MiB


# ---------------------------------------------------------------- hardware
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


# ---------------------------------------------------------------- roofline
def test_q_projection_numbers():
    k = n = 4096
    assert ic.gemm_flops(1, k, n) == 33_554_432
    assert ic.gemm_bytes(1, k, n) == 33_554_432 + 16_384
    assert ic.gemm_bytes(256, k, n) / MiB == 36.0
    assert round(ic.arithmetic_intensity(1, k, n), 1) == 1.0
    assert round(ic.arithmetic_intensity(64, k, n), 1) == 62.1
    assert round(ic.arithmetic_intensity(256, k, n), 1) == 227.6
    assert ic.intensity_limit(k, n) == 2048.0


def test_critical_rows():
    m_star = ic.critical_rows(4096, 4096, "H100 SXM")
    assert round(m_star, 1) == 345.1
    assert math.ceil(m_star) == 346
    # at M* the intensity equals the ridge point
    assert ic.arithmetic_intensity(m_star, 4096, 4096) == pytest.approx(295.3432835, rel=1e-9)
    # a narrow GEMM can never reach the ridge
    assert ic.critical_rows(128, 128, "H100 SXM") == math.inf
    arr = ic.critical_rows(np.array([128, 4096]), 4096, "H100 SXM")
    assert np.isinf(arr[0]) and arr[1] == pytest.approx(m_star)


def test_attainable_and_gemm_roofline():
    h = ic.accelerator("H100 SXM")
    assert ic.attainable_flops(1.0, h) == 3.35e12
    assert ic.attainable_flops(1e6, h) == h.peak_flops
    p = ic.gemm_roofline(1, 4096, 4096, "H100 SXM")
    assert p.bound == "memory" and p.fraction_of_peak < 0.01
    p = ic.gemm_roofline(4096, 4096, 4096, "H100 SXM")
    assert p.bound == "compute" and p.fraction_of_peak == 1.0


def test_roofline_broadcasts():
    m = np.arange(1, 1_000_001)
    i = ic.arithmetic_intensity(m, 4096, 4096)
    assert i.shape == m.shape and np.all(np.diff(i) > 0)


# ---------------------------------------------------------------- step
def test_j07_bounds():
    h = S.j07_h100()
    step = ic.decode_step(70e9, 1, h)
    assert round(step.t_read * 1e3, 2) == 20.90
    assert round(step.t_compute * 1e3, 4) == 0.1415
    assert round(step.ratio, 1) == 147.7
    assert step.bound == "memory" and step.t_step == step.t_read
    assert round(1 / step.t_step, 1) == 47.9
    b8 = ic.decode_step(70e9, 1, h, batch=8)
    assert round(b8.t_compute * 1e3, 2) == 1.13
    assert round(b8.read_time_per_output * 1e3, 2) == 2.61
    assert round(b8.tokens_per_s) == 383
    b148 = ic.decode_step(70e9, 1, h, batch=148)
    assert b148.bound == "compute" and round(b148.t_compute * 1e3, 2) == 20.94


def test_three_fixes():
    h = S.j07_h100()
    double_pi = ic.decode_step(70e9, 1, h.with_(peak_flops=2 * h.peak_flops))
    assert round(double_pi.t_compute * 1e3, 4) == 0.0707 and round(double_pi.t_step * 1e3, 2) == 20.90
    double_bw = ic.decode_step(70e9, 1, h.with_(mem_bandwidth=2 * h.mem_bandwidth))
    assert round(double_bw.t_read * 1e3, 2) == 10.45
    half_n = ic.decode_step(35e9, 1, h)
    assert round(half_n.t_read * 1e3, 2) == 10.45 and round(half_n.t_compute * 1e3, 4) == 0.0707
    four_bit = ic.decode_step(70e9, 0.5, h)
    assert round(four_bit.t_read * 1e3, 2) == 10.45 and round(four_bit.t_compute * 1e3, 4) == 0.1415


def test_step_time_max_vs_sum():
    assert ic.step_time(989.4e12, 3.35e12, "H100 SXM") == 1.0
    assert ic.step_time(989.4e12, 3.35e12, "H100 SXM", overlap=False) == 2.0
    with pytest.raises(TypeError, match="overlap"):
        ic.step_time(1, 1, "H100", overlap="yes")


def test_batch_turning_point():
    assert round(ic.batch_turning_point("H100 SXM", 1), 1) == 147.7
    assert ic.batch_turning_point("H100 SXM", 2) == pytest.approx(2 * 147.6716, rel=1e-5)


def test_a100():
    a = S.j07_a100()
    assert round(ic.read_time(70e9, a) * 1e3, 1) == 34.3
    assert round(ic.compute_time(140e9, a) * 1e3, 3) == 0.449


def test_decode_step_arrays():
    res = ic.decode_step(70e9, 1, "H100 SXM", batch=np.array([1, 100, 200]))
    assert list(res.bound) == ["memory", "memory", "compute"]
    assert res.tokens_per_s.shape == (3,)


@pytest.mark.parametrize("kwargs, match", [
    (dict(params=-1, bytes_per_param=1), r"params \(parameters\) must be > 0"),
    (dict(params=70e9, bytes_per_param=0), r"bytes_per_param \(bytes/parameter\) must be > 0"),
    (dict(params=70e9, bytes_per_param=1, batch=0), r"batch \(requests\)"),
    (dict(params=70e9, bytes_per_param=1, batch=2.5), r"batch \(requests\) must be a whole number"),
    (dict(params=float("inf"), bytes_per_param=1), r"params \(parameters\) must be finite"),
    (dict(params=70e9, bytes_per_param=1, kv_bytes=-5), r"kv_bytes \(bytes\) must be >= 0"),
])
def test_decode_step_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ic.decode_step(hw="H100 SXM", **kwargs)


def test_type_errors_name_parameter():
    with pytest.raises(TypeError, match=r"nbytes \(bytes\)"):
        ic.read_time("70e9", "H100 SXM")
    with pytest.raises(TypeError, match=r"flops \(FLOPs\)"):
        ic.compute_time(True, "H100 SXM")
    with pytest.raises(TypeError, match="hw must be an Accelerator"):
        ic.read_time(1.0, None)


# ---------------------------------------------------------------- capacity
def test_j07_capacity():
    h = S.j07_h100()
    kv = ic.kv_cache_bytes(8192, ic.model(S.J07_MODEL).kv_bytes_per_token(2))
    chk = ic.capacity_check(h.mem_capacity, S.J07_WEIGHTS_8BIT, kv, S.J07_WORKSPACE)
    assert round(chk.total / GB, 2) == 78.56 and chk.fits
    assert round(kv / GB, 2) == 2.68 and round(S.J07_WORKSPACE / GB, 2) == 2.15
    m_kv = ic.model(S.J07_MODEL).kv_bytes_per_token(2)
    assert ic.max_batch(h.mem_capacity, S.J07_WEIGHTS_8BIT, 0, 8192, m_kv) == 2
    assert ic.max_batch(80 * GiB, S.J07_WEIGHTS_8BIT, 0, 8192, m_kv) == 4


def test_j13_capacity():
    q = ic.model("Qwen3-8B")
    assert q.kv_bytes_per_token(2) == 144 * KiB
    w = q.weight_bytes(2)
    assert round(w / GB, 2) == 16.38
    args = (w, 2 * GiB, 8192, q.kv_bytes_per_token(2))
    assert ic.max_batch(24e9, *args) == 4
    assert ic.max_batch(24 * GiB, *args) == 5
    assert ic.max_batch(24e9, w, 2 * GiB, 16384, q.kv_bytes_per_token(2)) == 2
    assert ic.max_batch(10e9, *args) == 0


def test_max_batch_exact_boundary():
    # capacity exactly equal to weights + 3 requests: 3 fit
    assert ic.max_batch(100 + 3 * 7, 100, 0, 7, 1) == 3
    assert ic.max_batch(100 + 3 * 7 - 1e-9, 100, 0, 7, 1) == 2


def test_capacity_errors():
    with pytest.raises(ValueError, match=r"capacity \(bytes\) must be > 0"):
        ic.capacity_check(0, 1, 1)
    with pytest.raises(ValueError, match=r"seq_len \(tokens\)"):
        ic.max_batch(1e9, 1, 0, 0, 1)


# ---------------------------------------------------------------- shape
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


# ---------------------------------------------------------------- amdahl
def test_amdahl():
    assert round(ic.amdahl_speedup(0.6, 2), 2) == 1.43
    assert ic.amdahl_limit(0.6) == pytest.approx(2.5)
    assert ic.amdahl_speedup(0.6, np.inf) == pytest.approx(2.5)
    assert ic.amdahl_time(100e-6, 0.6, 2) == pytest.approx(70e-6)
    assert ic.amdahl_time(100e-6, 0.6, 4) == pytest.approx(55e-6)
    assert ic.amdahl_limit(1.0) == math.inf
    with pytest.raises(ValueError, match=r"f \(fraction"):
        ic.amdahl_speedup(1.2, 2)
    with pytest.raises(ValueError, match=r"s \(speed-up"):
        ic.amdahl_speedup(0.5, 0)


# ---------------------------------------------------------------- units
def test_units():
    from infra_calc import units
    assert units.fmt_bytes(24 * GiB, "GB") == "25.77 GB"
    assert units.fmt_bytes(24 * GiB, "GiB") == "24.00 GiB"
    assert units.fmt_time(20.896e-3) == "20.90 ms"
    assert units.fmt_flops(140e9) == "140.00 GFLOPs"
    assert units.fmt_rate(989.4e12) == "989.4 TFLOP/s"
    with pytest.raises(ValueError, match="unit must be one of"):
        units.to_unit(1, "GB ")


# ---------------------------------------------------------------- estimate
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
