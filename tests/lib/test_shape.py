"""infra_calc.shape: tile padding and MoE routing."""
import pytest

import infra_calc as ic


def test_shape_efficiency():
    assert ic.shape_efficiency(16, 16, 16) == 1.0
    assert ic.shape_efficiency(2, 4096, 4096) == 2 / 16
    # [m, k] @ [k, n], as gemm_flops: a short reduction pads k, not n
    assert ic.shape_efficiency(16, 8, 16) == 0.5 and ic.shape_efficiency(16, 16, 8, tile=(16, 16, 8)) == 1.0
    assert ic.shape_efficiency(17, 16, 16, tile=(16, 16, 16)) == pytest.approx(17 / 32)
    with pytest.raises(TypeError, match="tile"):
        ic.shape_efficiency(1, 1, 1, tile=16)


def test_moe_padding():
    u = ic.padded_rows(ic.route_tokens(64, experts=256, top_k=8, skew=0.0), tile_rows=16)
    c = ic.padded_rows(ic.route_tokens(64, experts=256, top_k=8, skew=1.0), tile_rows=16)
    assert (u.executed, u.useful, u.active_experts) == (4096, 512, 256)
    assert (c.executed, c.useful, c.active_experts) == (512, 512, 8)
    assert u.waste_ratio == 8.0 and c.efficiency == 1.0
    assert (u.rows_per_expert, c.rows_per_expert) == (2, 64)
    assert (u.padding_ratio, c.padding_ratio) == (8.0, 1.0)
    # uneven rows: the mean rounds down; the last tile's padding is no routing's fault
    odd = ic.padded_rows([1, 0, 20], tile_rows=16)
    assert (odd.rows_per_expert, odd.executed, odd.waste_ratio) == (10, 48, 48 / 21)
    assert odd.padding_ratio == 48 / 32
    assert ic.padded_rows([0, 0]).rows_per_expert == 0 and ic.padded_rows([0]).padding_ratio == 1.0
    mid = ic.padded_rows(ic.route_tokens(64, experts=256, top_k=8, skew=0.5), tile_rows=16)
    assert 512 <= mid.executed <= 4096 and mid.useful == 512
    with pytest.raises(ValueError, match="top_k"):
        ic.route_tokens(64, experts=4, top_k=8)
    with pytest.raises(ValueError, match=r"skew"):
        ic.route_tokens(64, experts=256, top_k=8, skew=1.5)
    with pytest.raises(ValueError, match=r"rows \(rows per expert\) must be >= 0"):
        ic.padded_rows([1, -1])


# --------------------------------------------------------------------------- padded_gemm
H100 = ic.accelerator("H100 SXM")


def test_padded_gemm_counts_by_hand():
    # two experts, 2 and 20 rows, 16-row tiles: executed rows 16 + 32
    g = ic.padded_gemm([2, 0, 20], 64, 32, H100, bytes_per_element=2, tile=(16, 16, 16))
    assert g.useful_flops == 2 * 22 * 64 * 32
    assert g.executed_flops == 2 * 48 * 64 * 32
    # the expert with no rows is not read: two weights, and only real rows
    assert g.bytes_read == 2 * ((2 + 20) * 64 + 2 * 64 * 32 + (2 + 20) * 32)
    # 196,608 FLOPs on 12,416 bytes: 15.8 FLOP/byte, far below the ridge (295): the read of
    # 12,416 B at 3.35 TB/s, 3.71 ns, bounds it; the padding costs math, not time
    assert g.bound == "memory" and g.t_floor == g.t_read == pytest.approx(12416 / 3.35e12)
    assert g.t_compute_useful / g.t_compute == pytest.approx(22 / 48)
    assert g.efficiency == pytest.approx(22 / 48)
    # k and n short of a tile are padded too
    h = ic.padded_gemm(1, 10, 20, H100, bytes_per_element=2, tile=(16, 16, 16))
    assert h.executed_flops == 2 * 16 * 16 * 32


def test_padded_gemm_memory_bound_zeros_cost_nothing():
    # the source's uniform routing: 2 rows per expert, I about 2 FLOP/byte on an H100
    u = ic.padded_gemm(ic.route_tokens(64, experts=256, top_k=8, skew=0.0), 4096, 4096, H100)
    assert u.efficiency == 0.125 and u.bound == "memory"
    assert u.padding_slowdown == 1.0 and u.t_floor == u.t_read
    assert u.useful_flops / u.bytes_read == pytest.approx(2.0, rel=1e-3)
    # concentrated: 8 experts' weights instead of 256
    c = ic.padded_gemm(ic.route_tokens(64, experts=256, top_k=8, skew=1.0), 4096, 4096, H100)
    assert c.efficiency == 1.0 and u.t_floor / c.t_floor == pytest.approx(31.0, rel=0.01)


def test_padded_gemm_compute_bound_zeros_cost_their_share():
    # a single compute-bound GEMM: the padded arithmetic sets the time
    g = ic.padded_gemm(4000, 4096, 4096, H100, tile=(128, 16, 16))
    assert g.bound == "compute" and g.t_compute_useful > g.t_read
    assert g.padding_slowdown == pytest.approx(4096 / 4000)
    assert g.useful_throughput == pytest.approx(g.efficiency * H100.peak_flops)


def test_padded_gemm_throughput_is_a_min_never_a_product():
    for rows in (1, 2, 16, 100, 300, 1000, 5000):
        for mt in (16, 64, 128):
            g = ic.padded_gemm(rows, 4096, 4096, H100, tile=(mt, 16, 16))
            intensity = g.useful_flops / g.bytes_read
            expect = min(g.efficiency * H100.peak_flops, intensity * H100.mem_bandwidth)
            assert g.useful_throughput == pytest.approx(expect)
            assert g.padding_slowdown >= 1.0


def test_padded_gemm_errors_name_the_parameter():
    with pytest.raises(ValueError, match=r"rows \(rows per GEMM\) must be >= 0"):
        ic.padded_gemm([2, -1], 4096, 4096, H100)
    with pytest.raises(ValueError, match=r"at least one row"):
        ic.padded_gemm([0, 0], 4096, 4096, H100)
    with pytest.raises(ValueError, match=r"k \(elements\) must be > 0"):
        ic.padded_gemm(2, 0, 4096, H100)
    with pytest.raises(TypeError, match=r"tile must be a tuple"):
        ic.padded_gemm(2, 4096, 4096, H100, tile=16)
    with pytest.raises(ValueError, match=r"tile\[0\] \(m_t\) \(rows\) must be >= 1"):
        ic.padded_gemm(2, 4096, 4096, H100, tile=(0, 16, 16))
    with pytest.raises(TypeError, match=r"k and n must be single numbers"):
        ic.padded_gemm(2, [4096, 8192], 4096, H100)
    with pytest.raises(ValueError, match=r"unknown accelerator|not in the catalog|B9000"):
        ic.padded_gemm(2, 4096, 4096, "B9000")
