"""infra_calc.step: read, compute and step bounds, one decode step."""
import numpy as np
import pytest

import infra_calc as ic
from infra_calc import source as S


def test_j07_bounds():
    h = S.j07_h100()
    step = ic.decode_step(70e9, h, bytes_per_param=1)
    assert round(step.t_read * 1e3, 2) == 20.90
    assert round(step.t_compute * 1e3, 4) == 0.1415
    assert round(step.ratio, 1) == 147.7
    assert step.bound == "memory" and step.t_step == step.t_read
    assert round(1 / step.t_step, 1) == 47.9
    b8 = ic.decode_step(70e9, h, bytes_per_param=1, batch=8)
    assert round(b8.t_compute * 1e3, 2) == 1.13
    assert round(b8.read_time_per_output * 1e3, 2) == 2.61
    assert round(b8.tokens_per_s) == 383
    b148 = ic.decode_step(70e9, h, bytes_per_param=1, batch=148)
    assert b148.bound == "compute" and round(b148.t_compute * 1e3, 2) == 20.94


def test_three_fixes():
    h = S.j07_h100()
    double_pi = ic.decode_step(70e9, h.with_(peak_flops=2 * h.peak_flops), bytes_per_param=1)
    assert round(double_pi.t_compute * 1e3, 4) == 0.0707 and round(double_pi.t_step * 1e3, 2) == 20.90
    double_bw = ic.decode_step(70e9, h.with_(mem_bandwidth=2 * h.mem_bandwidth), bytes_per_param=1)
    assert round(double_bw.t_read * 1e3, 2) == 10.45
    half_n = ic.decode_step(35e9, h, bytes_per_param=1)
    assert round(half_n.t_read * 1e3, 2) == 10.45 and round(half_n.t_compute * 1e3, 4) == 0.0707
    four_bit = ic.decode_step(70e9, h, bytes_per_param=0.5)
    assert round(four_bit.t_read * 1e3, 2) == 10.45 and round(four_bit.t_compute * 1e3, 4) == 0.1415


def test_step_time_max_vs_sum():
    assert ic.step_time(989.4e12, 3.35e12, "H100 SXM") == 1.0
    assert ic.step_time(989.4e12, 3.35e12, "H100 SXM", overlap=False) == 2.0
    with pytest.raises(TypeError, match="overlap"):
        ic.step_time(1, 1, "H100", overlap="yes")


def test_batch_turning_point():
    assert round(ic.batch_turning_point("H100 SXM", bytes_per_param=1), 1) == 147.7
    assert ic.batch_turning_point("H100 SXM", bytes_per_param=2) == pytest.approx(2 * 147.6716, rel=1e-5)


def test_a100():
    a = S.j07_a100()
    assert round(ic.read_time(70e9, a) * 1e3, 1) == 34.3
    assert round(ic.compute_time(140e9, a) * 1e3, 3) == 0.449


def test_decode_step_arrays():
    res = ic.decode_step(70e9, "H100 SXM", bytes_per_param=1, batch=np.array([1, 100, 200]))
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


def test_changed_accelerator_keeps_its_figures_through_decode_step():
    """A card changed with ``with_`` keeps its own figures, not the catalog's under its name."""
    h = S.j07_h100()
    fast = h.with_(peak_flops=2 * h.peak_flops)           # still named "H100 SXM"
    step = ic.decode_step(70e9, fast, bytes_per_param=1)
    assert step.hw == fast
    assert step.hw.peak_flops == 2 * h.peak_flops
    assert step.hw.mem_capacity == 80e9                   # the source's reading, not 80 GiB
    assert (ic.batch_turning_point(step.hw, bytes_per_param=step.bytes_per_param)
            == 2 * ic.batch_turning_point(h, bytes_per_param=1))




def test_mbu_is_the_read_floor_over_the_measured_time():
    """A step measured at its read floor uses the whole bandwidth; twice as slow, half of it;
    the bytes and times broadcast; a time of zero is refused."""
    hw = ic.accelerator("H100 SXM")
    r = 20e9
    floor = ic.read_time(r, hw)
    assert np.isclose(ic.mbu(r, hw, seconds=floor), 1.0, rtol=1e-12)
    assert np.isclose(ic.mbu(r, hw, seconds=2 * floor), 0.5, rtol=1e-12)
    assert np.isclose(ic.mbu(r, hw.with_(mem_bandwidth=2 * hw.mem_bandwidth), seconds=floor), 0.5,
                      rtol=1e-12)
    got = ic.mbu(np.array([r, 2 * r]), "H100 SXM", seconds=np.array([floor, floor]))
    assert np.allclose(got, [1.0, 2.0], rtol=1e-12)
    with pytest.raises(ValueError, match="seconds"):
        ic.mbu(r, hw, seconds=0.0)


def test_chapter_one_steps_take_the_math_precision():
    """compute_time, step_time and decode_step bound the math at the precision named, as
    batch_turning_point does: at B* of FP8 the FP8 step is exactly on its ridge."""
    import infra_calc as ic
    acc = ic.accelerator("H100 SXM")
    assert ic.compute_time(1e15, acc, math="fp8") == pytest.approx(1e15 / acc.peak("fp8"))
    assert ic.step_time(1e15, 0.0, acc, math="fp8") == ic.compute_time(1e15, acc, math="fp8")
    b = ic.batch_turning_point(acc, bytes_per_param=1, math="fp8")
    st = ic.decode_step(70e9, acc, bytes_per_param=1, batch=round(b), math="fp8")
    assert st.t_compute == pytest.approx(2 * round(b) * 70e9 / acc.peak("fp8"))
    assert st.t_compute == pytest.approx(st.t_read, rel=1e-2)
