"""infra_calc.roofline: GEMM FLOPs and bytes, intensity, ridge point, M*."""
import math

import numpy as np
import pytest

import infra_calc as ic
from infra_calc.units import MiB


def test_q_projection_numbers():
    k = n = 4096
    assert ic.gemm_flops(1, k, n) == 33_554_432
    assert ic.gemm_bytes(1, k, n) == 33_554_432 + 16_384
    assert ic.gemm_bytes(256, k, n) / MiB == 36.0
    assert round(ic.arithmetic_intensity(1, k, n), 1) == 1.0
    assert round(ic.arithmetic_intensity(64, k, n), 1) == 62.1
    assert round(ic.arithmetic_intensity(256, k, n), 1) == 227.6
    assert ic.intensity_limit(k, n) == 2048.0


def test_fewest_compute_rows_is_the_wide_limit_of_critical_rows():
    few = ic.fewest_compute_rows("H100 SXM")
    assert few < ic.critical_rows(4096, 4096, "H100 SXM")
    assert ic.critical_rows(1e9, 1e9, "H100 SXM") == pytest.approx(few, rel=1e-5)
    assert ic.fewest_compute_rows("H100 SXM", bytes_per_element=1, math="fp8") == pytest.approx(
        ic.critical_rows(1e9, 1e9, "H100 SXM", bytes_per_element=1, math="fp8"), rel=1e-5)


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
    assert p.attainable == pytest.approx(p.intensity * h.mem_bandwidth, rel=1e-15)
    p = ic.gemm_roofline(4096, 4096, 4096, "H100 SXM")
    assert p.bound == "compute" and p.fraction_of_peak == 1.0 and p.attainable == h.peak_flops


def test_roofline_broadcasts():
    m = np.arange(1, 1_000_001)
    i = ic.arithmetic_intensity(m, 4096, 4096)
    assert i.shape == m.shape and np.all(np.diff(i) > 0)


def test_one_default_bytes_per_element():
    """Every GEMM function that takes ``bytes_per_element`` defaults to the one constant (BF16)."""
    import dataclasses
    import inspect

    from infra_calc import measure
    from infra_calc.roofline import BYTES_PER_ELEMENT

    assert BYTES_PER_ELEMENT == 2
    for f in (ic.gemm_bytes, ic.arithmetic_intensity, ic.intensity_limit, ic.critical_rows,
              ic.gemm_roofline, ic.padded_gemm, measure.roofline_prediction, measure.no_overlap_flops,
              measure.model_rows_at_fraction, measure.sweep_from_seconds):
        assert inspect.signature(f).parameters["bytes_per_element"].default is BYTES_PER_ELEMENT, f
    field, = (x for x in dataclasses.fields(measure.GemmSweep) if x.name == "bytes_per_element")
    assert field.default is BYTES_PER_ELEMENT
