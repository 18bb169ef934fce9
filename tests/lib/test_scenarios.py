"""infra_calc.scenarios: each case of the source chapters against the numbers the source prints
(S23-J07 §7, S23-J13 §7), and read on another card through its ``capacity=`` / ``hw=``."""
import pytest

from infra_calc import scenarios as C
from infra_calc import source as S
from infra_calc.units import GB, MS, GiB, KiB


def rounded(value, unit, digits):
    return round(value / unit, digits)


def test_j07_decode_step_is_the_sources():
    one = C.j07_decode_step()
    assert (rounded(one.bytes_read, GB, 2), rounded(one.flops, 1e9, 2)) == (70.00, 140.00)
    assert (rounded(one.t_read, MS, 3), rounded(one.t_compute, MS, 4)) == (20.896, 0.1415)
    b8, b32, b148 = (C.j07_decode_step(batch=b) for b in (8, 32, 148))
    assert (rounded(b8.t_compute, MS, 3), rounded(b8.read_time_per_output, MS, 3)) == (1.132, 2.612)
    assert round(b8.tokens_per_s, 1) == 382.9
    assert (rounded(b32.t_compute, MS, 2), rounded(b148.t_compute, MS, 2)) == (4.53, 20.94)
    assert b32.bound == "memory" and b148.bound == "compute"
    on_a100 = C.j07_decode_step(hw=S.j07_a100())
    assert (rounded(on_a100.t_read, MS, 1), rounded(on_a100.t_compute, MS, 3)) == (34.3, 0.449)


def test_fix_scenarios_values():
    cases = C.fix_scenarios()
    ms = {k: (round(v.t_read * 1e3, 2), round(v.t_compute * 1e3, 4)) for k, v in cases.items()}
    assert ms["baseline"] == (20.90, 0.1415)
    assert ms["compute doubled"] == (20.90, 0.0707)
    assert ms["bandwidth doubled"] == (10.45, 0.1415)
    assert ms["half the parameters (35B)"] == (10.45, 0.0707)
    assert ms["4-bit weights (70B)"] == (10.45, 0.1415)
    assert ms["batch 8 shares the read"] == (20.90, 1.1320)
    assert len(C.fix_scenarios(four_bit=False)) == 5
    # halving BF16 weights stores 8 bits, and the label says so
    assert "8-bit weights (70B)" in C.fix_scenarios(bytes_per_param=2)


def test_fix_scenarios_take_the_card_given():
    a100 = S.j07_a100()
    cases = C.fix_scenarios(hw=a100, batch=32)
    assert all(c.hw.name == "A100 80GB" for c in cases.values())
    assert cases["compute doubled"].hw.peak_flops == 2 * a100.peak_flops
    assert cases["bandwidth doubled"].hw.mem_bandwidth == 2 * a100.mem_bandwidth
    assert list(cases)[-1] == "batch 32 shares the read"


def test_fix_scenarios_read_the_kv_cache_given():
    # J07 1.7's step: 2 requests of 4096 tokens, each case reads the weights and the caches
    kv = C.j07_kv_bytes_per_token() * 4096 * 2
    cases = C.fix_scenarios(requests=2, kv_bytes=kv)
    base, q4 = cases["baseline"], cases["4-bit weights (70B)"]
    assert base.batch == 2 and base.bytes_read == S.J07_PARAMS * S.J07_BYTES_PER_PARAM + kv
    assert q4.bytes_read == S.J07_PARAMS * S.J07_BYTES_PER_PARAM / 2 + kv   # the cache stays
    assert cases["bandwidth doubled"].t_read == base.t_read / 2
    assert cases["half the parameters (35B)"].flops == base.flops / 2
    # batch 8 of them: four times the cache of 2, one read of the weights
    assert cases["batch 8 shares the read"].bytes_read == base.bytes_read + 3 * kv
    assert C.fix_scenarios()["baseline"] == C.j07_decode_step()
    with pytest.raises(TypeError):
        C.fix_scenarios(S.J07_PARAMS, None, 8)


def test_j07_capacity_is_the_sources():
    chk = C.j07_capacity()       # 73.73 + 2.68 + 2.15 = 78.56 GB <= 80.0 GB
    assert [rounded(x, GB, 2) for x in (chk.weights, chk.kv, chk.workspace, chk.total)] == [
        73.73, 2.68, 2.15, 78.56]
    assert chk.capacity == 80 * GB and chk.fits
    assert rounded(C.j07_kv_bytes_per_token(), KiB, 0) == 320       # 80 layers x 8 KV heads x 128 x 2 x 2 B
    assert rounded(C.j07_left_after_weights(), GB, 2) == 6.27
    assert C.j07_max_batch() == 2                                   # "at most 2 8k requests"
    alone = C.j07_capacity(kv=False, workspace=False)
    assert (alone.kv, alone.workspace, alone.total) == (0.0, 0.0, S.J07_WEIGHTS_8BIT)


def test_j07_capacity_on_another_card_and_context():
    # the physical 80 GiB: 73.73 GB + n x 2.68 GB < 85.90 GB for n = 4, not 5
    assert C.j07_max_batch(capacity=80 * GiB) == 4
    assert C.j07_capacity(capacity=80 * GiB).capacity == 80 * GiB
    assert C.j07_max_batch(context=4096) == 4                      # 6.27 GB / 1.34 GB
    assert rounded(C.j07_capacity(context=4096).kv, GB, 2) == 1.34
    assert not C.j07_capacity(capacity=75 * GB).fits
    # two 8k requests: twice one request's 2.68 GB of cache, 81.25 GB > 80 GB
    two = C.j07_capacity(batch=2)
    assert rounded(two.kv, GB, 2) == 5.37 and rounded(two.total, GB, 2) == 81.25
    assert not two.fits


def test_j13_capacity_is_the_sources():
    alone = C.j13_capacity()     # RTX 4090 24 GB: weights 16.38 GB, remaining 5.47 GB
    assert alone.capacity == 24 * GB and alone.kv == 0.0 and alone.workspace == 2 * GiB
    assert (rounded(alone.weights, GB, 2), rounded(C.j13_left_after_weights(), GB, 2)) == (16.38, 5.47)
    assert C.j13_kv_bytes_per_token() == 144 * KiB
    assert rounded(C.j13_capacity(batch=1).kv, GB, 2) == 1.21       # 8K single request
    four, five = C.j13_capacity(batch=4), C.j13_capacity(batch=5)
    assert (rounded(four.kv, GB, 2), four.fits) == (4.83, True)
    assert (rounded(five.kv, GB, 2), five.fits) == (6.04, False)
    assert C.j13_max_batch(8192) == 4
    assert rounded(C.j13_capacity(batch=1, context=16384).kv, GB, 2) == 2.42
    assert C.j13_max_batch(16384) == 2                              # "16K: ... fits 2"


def test_j13_capacity_args_take_the_card_by_keyword():
    args = C.j13_capacity_args(capacity=24 * GiB)
    assert args["capacity"] == 24 * GiB
    assert {k: v for k, v in args.items() if k != "capacity"} == {
        k: v for k, v in C.j13_capacity_args().items() if k != "capacity"}
    assert C.j13_capacity(batch=5, capacity=24 * GiB).fits          # the physical 25.77e9 bytes
    assert not C.j13_capacity(capacity=10e9).fits
    with pytest.raises(TypeError):
        C.j13_capacity_args(24 * GiB)


def test_j13_padding_is_the_sources():
    # uniform 256 x 16 = 4096 rows / concentrated 8 x 64 = 512 rows -> 8.0x
    uniform, packed = C.j13_padding(0.0), C.j13_padding(1.0)
    assert (uniform.active_experts, uniform.executed) == (256, 4096)
    assert (packed.active_experts, packed.rows_per_expert, packed.executed) == (8, 64, 512)
    assert uniform.padding_ratio == 8.0
    assert uniform.useful == packed.useful == S.MOE_TOKENS * S.MOE_TOP_K
