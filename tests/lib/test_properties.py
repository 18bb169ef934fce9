"""Property-based tests (hypothesis) of the library's invariants."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import infra_calc as ic

pos = st.floats(min_value=1e-3, max_value=1e18, allow_nan=False, allow_infinity=False)
bw = st.floats(min_value=1e6, max_value=1e15)
frac = st.floats(min_value=0.0, max_value=1.0)


def hw(peak=1e15, bandwidth=1e12, cap=1e11):
    return ic.Accelerator("test", peak, bandwidth, cap)


@given(nbytes=pos, b1=bw, b2=bw)
def test_read_time_falls_as_bandwidth_rises(nbytes, b1, b2):
    lo, hi = sorted((b1, b2))
    assert ic.read_time(nbytes, hw(bandwidth=hi)) <= ic.read_time(nbytes, hw(bandwidth=lo))


@given(cap=st.floats(1e9, 1e12), weights=st.floats(0, 5e11), ws=st.floats(0, 1e10),
       seq=st.integers(1, 200_000), m_kv=st.floats(1e3, 1e6))
def test_max_batch_fits_and_one_more_does_not(cap, weights, ws, seq, m_kv):
    b = ic.max_batch(cap, weights=weights, context=seq, kv_bytes_per_token=m_kv, workspace=ws)
    assert isinstance(b, int) and b >= 0
    if b > 0:
        assert ic.capacity_check(cap, weights=weights, kv=ic.kv_cache_bytes(seq, m_kv, batch=b),
                                 workspace=ws).fits
    assert not ic.capacity_check(cap, weights=weights,
                                 kv=ic.kv_cache_bytes(seq, m_kv, batch=b + 1), workspace=ws).fits


@given(cap=st.floats(1e9, 1e12), weights=st.floats(0, 5e11), ws=st.floats(0, 1e10),
       batch=st.integers(1, 512), m_kv=st.floats(1e3, 1e6))
def test_max_context_fits_and_one_token_more_does_not(cap, weights, ws, batch, m_kv):
    s = ic.max_context(cap, weights=weights, batch=batch, kv_bytes_per_token=m_kv, workspace=ws)
    assert isinstance(s, int) and s >= 0
    if s > 0:
        assert ic.capacity_check(cap, weights=weights, kv=ic.kv_cache_bytes(s, m_kv, batch=batch),
                                 workspace=ws).fits
    assert not ic.capacity_check(cap, weights=weights,
                                 kv=ic.kv_cache_bytes(s + 1, m_kv, batch=batch), workspace=ws).fits


@given(weights=st.floats(0, 5e11), ws=st.floats(0, 1e10), n=st.integers(1, 512),
       other=st.integers(1, 200_000), m_kv=st.floats(1e3, 1e6))
def test_the_solvers_agree_with_capacity_check_on_an_exact_boundary(weights, ws, n, other, m_kv):
    """A capacity built as the total capacity_check computes for ``n`` requests of ``other``
    tokens (and for ``other`` requests of ``n`` tokens): random capacities almost never land
    there, so the boundary is drawn on purpose."""
    for batch, context in ((n, other), (other, n)):
        kv = ic.kv_cache_bytes(context, m_kv, batch=batch)
        cap = ic.capacity_check(1.0, weights=weights, kv=kv, workspace=ws).total
        sizes = dict(weights=weights, kv_bytes_per_token=m_kv, workspace=ws)
        b = ic.max_batch(cap, context=context, **sizes)
        s = ic.max_context(cap, batch=batch, **sizes)
        for kvs in ((ic.kv_cache_bytes(context, m_kv, batch=k) for k in (b, b + 1)),
                    (ic.kv_cache_bytes(k, m_kv, batch=batch) for k in (s, s + 1))):
            at, over = (ic.capacity_check(cap, weights=weights, kv=k, workspace=ws).fits
                        for k in kvs)
            assert at and not over


@given(i=st.floats(1e-6, 1e9), peak=st.floats(1e9, 1e16), bandwidth=bw)
def test_attainable_below_both_roofs(i, peak, bandwidth):
    acc = hw(peak, bandwidth)
    p = ic.attainable_flops(i, acc)
    assert p <= peak * (1 + 1e-12)
    assert p <= i * bandwidth * (1 + 1e-12)
    # and it is not lower than it must be: it reaches one of the two roofs
    assert p >= min(peak, i * bandwidth) * (1 - 1e-12)


@given(m=st.integers(1, 10_000), k=st.integers(1, 10_000), n=st.integers(1, 10_000),
       tile=st.tuples(st.integers(1, 256), st.integers(1, 256), st.integers(1, 256)))
def test_shape_efficiency_in_unit_interval(m, k, n, tile):
    eta = ic.shape_efficiency(m, k, n, tile=tile)
    assert 0 < eta <= 1
    if m % tile[0] == 0 and k % tile[1] == 0 and n % tile[2] == 0:
        assert eta == 1.0


@given(f=frac, s=st.floats(1.0, 1e6))
def test_amdahl_bounds(f, s):
    sp = ic.amdahl_speedup(f, s=s)
    assert 1 - 1e-12 <= sp <= s * (1 + 1e-12)
    assert sp <= ic.amdahl_limit(f) * (1 + 1e-12)


@given(f=st.floats(0.0, 0.999))
def test_amdahl_tends_to_limit(f):
    limit = 1 / (1 - f)
    assert math.isclose(ic.amdahl_speedup(f, s=1e15), limit, rel_tol=1e-9)
    assert ic.amdahl_speedup(f, s=np.inf) == limit


@settings(max_examples=50)
@given(k=st.integers(16, 65536), n=st.integers(16, 65536))
def test_critical_rows_hits_ridge(k, n):
    h = ic.accelerator("H100 SXM")
    m = ic.critical_rows(k, n, h)
    if math.isinf(m):
        assert ic.intensity_limit(k, n) <= h.ridge_point
    else:
        assert math.isclose(ic.arithmetic_intensity(m, k, n), h.ridge_point, rel_tol=1e-9)


@given(b=st.integers(1, 4096))
def test_decode_bound_switches_at_b_star(b):
    h = ic.accelerator("H100 SXM")
    step = ic.decode_step(70e9, h, bytes_per_param=1, batch=b)
    assert step.bound == ("memory" if b <= ic.batch_turning_point(h, bytes_per_param=1) else "compute")
    if b <= 147:          # B* = 989.4 / (2 x 3.35) = 147.7 requests at one byte a weight
        assert step.t_step == pytest.approx(70e9 / 3.35e12)         # the weights' read, any batch
    else:                 # 2 FLOPs a weight a request
        assert step.t_step / b == pytest.approx(2 * 70e9 / 989.4e12)
