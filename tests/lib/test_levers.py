"""infra_calc.levers: speculative verify passes, shared prefixes, lower precision."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import infra_calc as ic

BIG, SMALL, MOE, H100 = "DeepSeek-R1-Distill-Llama-70B", "Llama-3.1-8B", "Mixtral-8x7B", "H100 SXM"
batches = st.integers(1, 512)
contexts = st.integers(0, 8192)
models = st.sampled_from([BIG, SMALL, MOE, "Qwen3-8B"])


# ------------------------------------------------------------------- acceptance model
def test_expected_tokens_is_the_geometric_sum():
    for k in range(0, 9):
        for a in (0.0, 0.3, 0.7, 0.95):
            assert np.isclose(ic.expected_tokens_per_step(k, a), sum(a ** j for j in range(k + 1)))
    assert ic.expected_tokens_per_step(5, 1.0) == 6.0
    assert ic.expected_tokens_per_step(0, 0.9) == 1.0
    assert ic.expected_tokens_per_step(7, 0.0) == 1.0


@given(k=st.integers(0, 64), a=st.floats(0.0, 1.0))
def test_expected_tokens_between_one_and_k_plus_one(k, a):
    e = ic.expected_tokens_per_step(k, a)
    assert 1.0 - 1e-12 <= e <= k + 1 + 1e-9


@pytest.mark.parametrize("bad, word", [(dict(drafts=-1, acceptance=0.5), "drafts"),
                                       (dict(drafts=1.5, acceptance=0.5), "drafts"),
                                       (dict(drafts=2, acceptance=1.2), "acceptance"),
                                       (dict(drafts=2, acceptance=-0.1), "acceptance")])
def test_expected_tokens_refuses_bad_input(bad, word):
    with pytest.raises((ValueError, TypeError), match=word):
        ic.expected_tokens_per_step(**bad)


# ------------------------------------------------------------------ speculative step
@settings(max_examples=40)
@given(m=models, b=batches, s=contexts, bw=st.sampled_from([0.5, 1, 2]))
def test_speculative_with_no_drafts_is_the_plain_step(m, b, s, bw):
    plain = ic.model_decode_step(m, H100, batch=b, context=s, bytes_per_param=bw)
    spec = ic.speculative_step(m, H100, batch=b, context=s, drafts=0, acceptance=0.6, bytes_per_param=bw)
    for f in ("bytes_read", "flops", "t_read", "t_compute", "t_step", "kv_bytes", "weight_bytes"):
        assert np.isclose(getattr(spec, f), getattr(plain, f), rtol=1e-12), f
    assert spec.bound == plain.bound
    assert np.isclose(spec.t_per_token_floor, plain.t_step, rtol=1e-12)
    assert np.isclose(spec.t_per_token_expected, plain.t_step, rtol=1e-12)
    assert spec.tokens_expected == 1.0 and spec.rejected_share == 0.0


def test_verify_pass_counts_tokens_against_one_read():
    b, s, k = 4, 1000, 3
    m = ic.model(SMALL)
    st_ = ic.speculative_step(m, H100, batch=b, context=s, drafts=k)
    plain = ic.model_decode_step(m, H100, batch=b, context=s)
    assert st_.tokens == b * (k + 1)
    assert np.isclose(st_.kv_bytes, plain.kv_bytes)                 # each cache read once
    assert np.isclose(st_.weight_bytes, m.decode_weight_bytes(2, b * (k + 1)))
    assert np.isclose(st_.flops_linear, 2 * b * (k + 1) * m.matmul_params)
    att = 4 * b * m.layers * m.heads * m.head_dim * ((k + 1) * s + k * (k + 1) / 2)
    assert np.isclose(st_.flops_attention, att)
    assert np.isclose(st_.t_step, max(st_.bytes_read / 3.35e12, st_.flops / 989.4e12))


def test_per_token_floor_falls_while_memory_bound_then_stops():
    k = np.arange(0, 40)
    st_ = ic.speculative_step(BIG, H100, batch=64, context=2048, drafts=k, bytes_per_param=1)
    bound = np.asarray(st_.bound)
    first = int(np.argmax(bound == "compute"))
    assert 0 < first < 39 and (bound[first:] == "compute").all()
    per = np.asarray(st_.t_per_token_floor)
    assert (np.diff(per[:first + 1]) < 0).all()                     # falls while memory-bound
    # compute-bound: the floor per token is the math per token, nearly flat (the
    # attention over the draft block adds a little with each draft)
    tail = per[first + 1:]
    assert (np.diff(tail) >= 0).all() and tail[-1] / tail[0] < 1.01


def test_draft_steps_are_paid_and_the_model_has_an_optimum():
    k = np.arange(0, 16)
    st_ = ic.speculative_step(BIG, H100, batch=1, context=2048, drafts=k, acceptance=0.7,
                              draft=SMALL, bytes_per_param=1)
    d = ic.model_decode_step(SMALL, H100, batch=1, context=2048, bytes_per_param=1)
    assert np.allclose(st_.t_draft, k * d.t_step)
    e = np.asarray(st_.t_per_token_expected)
    best = int(np.argmin(e))
    assert 0 < best < 15                                            # helps, then hurts
    assert (np.asarray(st_.t_per_token_floor) <= e + 1e-15).all()   # the floor is below the model
    free = ic.speculative_step(BIG, H100, batch=1, context=2048, drafts=k, acceptance=0.7, bytes_per_param=1)
    assert (np.asarray(free.t_per_token_expected) <= e).all()


def test_draft_weights_count_against_capacity():
    a = ic.speculative_step(BIG, H100, batch=1, context=2048, drafts=4, bytes_per_param=1)
    b = ic.speculative_step(BIG, H100, batch=1, context=2048, drafts=4, draft=SMALL, bytes_per_param=1)
    assert np.isclose(b.memory_per_card - a.memory_per_card,
                      ic.Workload(SMALL, H100, bytes_per_param=1, context=2048, workspace=0)
                      .memory_per_card())


def test_speculative_refuses_bad_input():
    with pytest.raises(ValueError, match="drafts"):
        ic.speculative_step(SMALL, H100, batch=1, context=0, drafts=-2)
    with pytest.raises(ValueError, match="acceptance"):
        ic.speculative_step(SMALL, H100, batch=1, context=0, drafts=2, acceptance=2)
    with pytest.raises(TypeError, match="drafts"):
        ic.speculative_step(SMALL, H100, batch=1, context=0)


@settings(max_examples=30)
@given(m=models, bw=st.sampled_from([0.5, 1, 2]), s=contexts)
def test_speculative_turning_points_with_no_drafts_are_chapter_3s(m, bw, s):
    assert np.isclose(ic.speculative_critical_context(m, H100, drafts=0, bytes_per_param=bw),
                      ic.critical_context(m, H100, bytes_per_param=bw), rtol=1e-9)
    assert np.isclose(ic.speculative_turning_batch(m, H100, context=s, drafts=0, bytes_per_param=bw),
                      ic.turning_batch(m, H100, context=s, bytes_per_param=bw), rtol=1e-6)


def test_drafts_raise_s_max_and_lower_b_star():
    k = np.array([0, 1, 3, 7])
    s_max = ic.speculative_critical_context(BIG, H100, drafts=k, bytes_per_param=1)
    assert (np.diff(s_max) > 0).all()
    b0 = ic.speculative_turning_batch(BIG, H100, context=0, drafts=k, bytes_per_param=1)
    assert (np.diff(b0) < 0).all()
    assert np.allclose(b0 * (k + 1), b0[0], rtol=0.02)               # about B*/(k+1) at S = 0
    # at the turning batch the verify pass is just compute-bound
    for kk, bb in zip(k[1:], ic.speculative_turning_batch(BIG, H100, context=1024, drafts=k[1:],
                                                         bytes_per_param=1), strict=True):
        lo = ic.speculative_step(BIG, H100, batch=int(np.floor(bb)), context=1024, drafts=kk,
                                 bytes_per_param=1)
        hi = ic.speculative_step(BIG, H100, batch=int(np.ceil(bb)), context=1024, drafts=kk,
                                 bytes_per_param=1)
        assert lo.bound == "memory" and hi.bound == "compute"


# ------------------------------------------------------------------ shared prefix
@settings(max_examples=40)
@given(m=models, s=contexts, frac=st.floats(0, 1), b=batches)
def test_shared_prefix_with_one_request_or_none_shared_is_plain(m, s, frac, b):
    sp = int(frac * s)
    one = ic.shared_prefix_step(m, H100, batch=1, context=s, prefix=sp)
    plain1 = ic.model_decode_step(m, H100, batch=1, context=s)
    none = ic.shared_prefix_step(m, H100, batch=b, context=s, prefix=0)
    plain = ic.model_decode_step(m, H100, batch=b, context=s)
    for got, want in ((one, plain1), (none, plain)):
        for f in ("t_step", "t_read", "t_compute", "kv_bytes", "flops", "memory_per_card"):
            assert np.isclose(getattr(got, f), getattr(want, f), rtol=1e-12), f
        assert got.bound == want.bound and got.fits == want.fits
    shared = ic.shared_prefix_step(m, H100, batch=b, context=s, prefix=sp)
    assert shared.t_step <= plain.t_step * (1 + 1e-12)
    assert np.isclose(shared.flops, plain.flops)                     # attention still over S


def test_shared_prefix_reads_the_prefix_once():
    m = ic.model(BIG)
    st_ = ic.shared_prefix_step(m, H100, batch=32, context=4096, prefix=3072, bytes_per_param=1)
    assert np.isclose(st_.kv_bytes, (3072 + 32 * 1024) * m.kv_bytes_per_token())
    assert np.isclose(st_.kv_bytes_unshared, 32 * 4096 * m.kv_bytes_per_token())


def test_shared_prefix_refuses_a_prefix_longer_than_the_context():
    with pytest.raises(ValueError, match="prefix"):
        ic.shared_prefix_step(SMALL, H100, batch=4, context=100, prefix=101)
    with pytest.raises(ValueError, match="prefix"):
        ic.shared_prefix_step(SMALL, H100, batch=4, context=100, prefix=-1)


@settings(max_examples=30)
@given(m=models, p=st.integers(1, 16000), b=st.integers(1, 8))
def test_cached_prefill_with_nothing_cached_is_prefill(m, p, b):
    got = ic.cached_prefill_step(m, H100, prompt_tokens=p, cached=0, batch=b)
    want = ic.prefill_step(m, H100, prompt_tokens=p, batch=b)
    for f in ("t_step", "t_read", "t_compute", "flops", "bytes_read"):
        assert np.isclose(getattr(got, f), getattr(want, f), rtol=1e-12), f


def test_cached_prefill_attention_still_sees_the_prefix():
    m = ic.model(SMALL)
    p, pc = 4096, 3072
    got = ic.cached_prefill_step(m, H100, prompt_tokens=p, cached=pc)
    n = p - pc
    f = (2 * n * m.body_matmul_params + 2 * m.lm_head_params
         + 2 * m.layers * m.heads * m.head_dim * (p * (p + 1) - pc * (pc + 1)))
    assert np.isclose(got.flops, f)
    assert np.isclose(got.prefix_kv_bytes, pc * m.kv_bytes_per_token())
    assert np.isclose(got.bytes_read, m.decode_weight_bytes(2, n) + p * m.kv_bytes_per_token())
    t = ic.cached_prefill_step(m, H100, prompt_tokens=p, cached=np.arange(0, p, 512)).t_step
    assert (np.diff(t) < 0).all()


def test_cached_prefill_needs_one_new_token():
    with pytest.raises(ValueError, match="cached"):
        ic.cached_prefill_step(SMALL, H100, prompt_tokens=100, cached=100)


def test_mean_ttft_is_the_mix_and_checks_the_rate():
    assert ic.mean_ttft(0.25, 1.0, 5.0) == 4.0
    assert ic.mean_ttft(0, 1.0, 5.0) == 5.0 and ic.mean_ttft(1, 1.0, 5.0) == 1.0
    with pytest.raises(ValueError, match="hit_rate"):
        ic.mean_ttft(1.5, 1.0, 2.0)
    with pytest.raises(ValueError, match="t_miss"):
        ic.mean_ttft(0.5, 1.0, -2.0)


# ------------------------------------------------------------------ lower precision
def test_at_math_is_the_card_at_that_peak():
    h = ic.accelerator(H100)
    assert ic.at_math(h) is h and ic.at_math(h, math="FP16") is h
    f8 = ic.at_math(h, math="fp8")
    assert f8.peak_flops == h.peak("fp8") and f8.mem_bandwidth == h.mem_bandwidth
    assert "fp8" in f8.name
    with pytest.raises(ValueError, match="fp4"):
        ic.at_math(h, math="fp4")


def test_precision_moves_the_turning_points_as_bytes_times_peak():
    base = ic.precision_point(BIG, H100, bytes_per_param=2)
    w4 = ic.precision_point(BIG, H100, bytes_per_param=0.5)          # weight-only int4
    f8 = ic.precision_point(BIG, H100, math="fp8", bytes_per_param=1)
    assert w4.ridge == base.ridge and f8.ridge == pytest.approx(2 * base.ridge, rel=1e-3)
    assert w4.b_star_j07 == pytest.approx(base.b_star_j07 / 4)
    assert f8.b_star_j07 == pytest.approx(base.b_star_j07, rel=1e-3)
    assert w4.b_star < base.b_star / 3.9 and f8.b_star == pytest.approx(base.b_star, rel=0.01)
    assert f8.s_max < 0.55 * base.s_max                              # the math got cheaper
    assert w4.s_max == pytest.approx(base.s_max, rel=1e-3)           # b_W enters only via a row
    assert f8.t_step_1 == pytest.approx(w4.t_step_1 * 2, rel=0.01)
    b = ic.model_decode_step(BIG, H100, batch=1, context=0, bytes_per_param=1, math="fp8")
    assert f8.t_step_1 == b.t_step


def test_precision_point_refuses_a_precision_the_card_lacks():
    with pytest.raises(ValueError, match="fp4"):
        ic.precision_point(SMALL, H100, math="fp4")


def test_round_floor_of_any_schedule_against_the_serial_sum():
    k = np.arange(0, 13)
    one = ic.speculative_step(BIG, H100, batch=1, context=2048, drafts=k, draft=SMALL, bytes_per_param=1)
    # B = 1: every pass is memory-bound, so overlapping gains nothing and the two agree
    assert np.allclose(one.t_per_token_floor, one.t_per_token_serial, rtol=1e-12)
    b32 = ic.speculative_step(BIG, H100, batch=32, context=2048, drafts=k, draft=SMALL, bytes_per_param=1)
    d = ic.model_decode_step(SMALL, H100, batch=32, context=2048, bytes_per_param=1)
    f = b32.flops + k * d.flops
    r = b32.bytes_read + k * d.bytes_read
    assert np.allclose(b32.t_round_floor, np.maximum(f / 989.4e12, r / 3.35e12), rtol=1e-12)
    assert np.allclose(b32.t_round, b32.t_step + k * d.t_step, rtol=1e-12)
    assert (b32.t_round_floor <= b32.t_round * (1 + 1e-12)).all()   # no schedule beats the floor
    comp = np.asarray(b32.bound) == "compute"
    assert comp.any() and (b32.t_round_floor[comp] < b32.t_round[comp]).all()
    # k = 0: the plain decode step, whichever schedule
    plain = ic.model_decode_step(BIG, H100, batch=32, context=2048, bytes_per_param=1)
    assert np.isclose(b32.t_per_token_floor[0], plain.t_step, rtol=1e-12)
    assert np.isclose(b32.t_per_token_serial[0], plain.t_step, rtol=1e-12)
