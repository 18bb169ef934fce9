"""infra_calc.levers: the acceptance model and the speculative verify pass (its step, its
turning points, the round of draft and verify)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import infra_calc as ic
from infra_calc.bound import Bounds, bounds

BIG, SMALL, MOE, H100 = "DeepSeek-R1-Distill-Llama-70B", "Llama-3.1-8B", "Mixtral-8x7B", "H100 SXM"
batches = st.integers(1, 512)
contexts = st.integers(0, 8192)
models = st.sampled_from([BIG, SMALL, MOE, "Qwen3-8B"])


# ------------------------------------------------------------------- acceptance model
def test_expected_tokens_is_the_geometric_sum():
    for k in range(0, 9):
        for a in (0.0, 0.3, 0.7, 0.95):
            assert np.isclose(ic.expected_tokens_per_step(k, acceptance=a), sum(a ** j for j in range(k + 1)))
    assert ic.expected_tokens_per_step(5, acceptance=1.0) == 6.0
    assert ic.expected_tokens_per_step(0, acceptance=0.9) == 1.0
    assert ic.expected_tokens_per_step(7, acceptance=0.0) == 1.0


@given(k=st.integers(0, 64), a=st.floats(0.0, 1.0))
def test_expected_tokens_between_one_and_k_plus_one(k, a):
    e = ic.expected_tokens_per_step(k, acceptance=a)
    assert 1.0 - 1e-12 <= e <= k + 1 + 1e-9


@pytest.mark.parametrize("bad, word", [(dict(draft_tokens=-1, acceptance=0.5), "draft_tokens"),
                                       (dict(draft_tokens=1.5, acceptance=0.5), "draft_tokens"),
                                       (dict(draft_tokens=2, acceptance=1.2), "acceptance"),
                                       (dict(draft_tokens=2, acceptance=-0.1), "acceptance")])
def test_expected_tokens_refuses_bad_input(bad, word):
    with pytest.raises((ValueError, TypeError), match=word):
        ic.expected_tokens_per_step(**bad)


# ------------------------------------------------------------------ speculative step
@settings(max_examples=40)
@given(m=models, b=batches, s=contexts, bw=st.sampled_from([0.5, 1, 2]))
def test_speculative_with_no_drafts_is_the_plain_step(m, b, s, bw):
    plain = ic.model_decode_step(m, H100, batch=b, context=s, bytes_per_param=bw)
    spec = ic.speculative_step(m, H100, batch=b, context=s, draft_tokens=0, acceptance=0.6,
                               bytes_per_param=bw)
    for f in ("bytes_read", "flops", "t_read", "t_compute", "t_step", "kv_bytes", "weight_bytes"):
        assert np.isclose(getattr(spec, f), getattr(plain, f), rtol=1e-12), f
    assert spec.bound == plain.bound
    assert np.isclose(spec.t_per_token_floor, plain.t_step, rtol=1e-12)
    assert np.isclose(spec.t_per_token_expected, plain.t_step, rtol=1e-12)
    assert spec.tokens_expected == 1.0 and spec.rejected_share == 0.0


def test_verify_pass_counts_tokens_against_one_read():
    b, s, k = 4, 1000, 3
    m = ic.model(SMALL)
    st_ = ic.speculative_step(m, H100, batch=b, context=s, draft_tokens=k)
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
    st_ = ic.speculative_step(BIG, H100, batch=64, context=2048, draft_tokens=k, bytes_per_param=1)
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
    st_ = ic.speculative_step(BIG, H100, batch=1, context=2048, draft_tokens=k, acceptance=0.7,
                              draft=SMALL, bytes_per_param=1)
    d = ic.model_decode_step(SMALL, H100, batch=1, context=2048, bytes_per_param=1)
    assert np.allclose(st_.t_draft, k * d.t_step)
    e = np.asarray(st_.t_per_token_expected)
    best = int(np.argmin(e))
    assert 0 < best < 15                                            # helps, then hurts
    assert (np.asarray(st_.t_per_token_floor) <= e + 1e-15).all()   # the floor is below the model
    free = ic.speculative_step(BIG, H100, batch=1, context=2048, draft_tokens=k, acceptance=0.7,
                               bytes_per_param=1)
    assert (np.asarray(free.t_per_token_expected) <= e).all()


def test_draft_weights_count_against_capacity():
    a = ic.speculative_step(BIG, H100, batch=1, context=2048, draft_tokens=4, bytes_per_param=1)
    b = ic.speculative_step(BIG, H100, batch=1, context=2048, draft_tokens=4, draft=SMALL, bytes_per_param=1)
    assert np.isclose(b.memory_per_card - a.memory_per_card,
                      ic.Workload(SMALL, H100, bytes_per_param=1, context=2048, workspace=0)
                      .memory_per_card)


def test_speculative_refuses_bad_input():
    with pytest.raises(ValueError, match="draft_tokens"):
        ic.speculative_step(SMALL, H100, batch=1, context=0, draft_tokens=-2)
    with pytest.raises(ValueError, match="acceptance"):
        ic.speculative_step(SMALL, H100, batch=1, context=0, draft_tokens=2, acceptance=2)
    with pytest.raises(TypeError, match="draft_tokens"):
        ic.speculative_step(SMALL, H100, batch=1, context=0)


@settings(max_examples=30)
@given(m=models, bw=st.sampled_from([0.5, 1, 2]), s=contexts)
def test_speculative_turning_points_with_no_drafts_are_chapter_3s(m, bw, s):
    assert np.isclose(ic.speculative_critical_context(m, H100, draft_tokens=0, bytes_per_param=bw),
                      ic.critical_context(m, H100, bytes_per_param=bw), rtol=1e-9)
    assert np.isclose(ic.speculative_turning_batch(m, H100, context=s, draft_tokens=0, bytes_per_param=bw),
                      ic.turning_batch(m, H100, context=s, bytes_per_param=bw), rtol=1e-6)


def test_drafts_raise_s_max_and_lower_b_star():
    k = np.array([0, 1, 3, 7])
    s_max = ic.speculative_critical_context(BIG, H100, draft_tokens=k, bytes_per_param=1)
    assert (np.diff(s_max) > 0).all()
    b0 = ic.speculative_turning_batch(BIG, H100, context=0, draft_tokens=k, bytes_per_param=1)
    assert (np.diff(b0) < 0).all()
    assert np.allclose(b0 * (k + 1), b0[0], rtol=0.02)               # about B*/(k+1) at S = 0
    # at the turning batch the verify pass is just compute-bound
    for kk, bb in zip(k[1:], ic.speculative_turning_batch(BIG, H100, context=1024, draft_tokens=k[1:],
                                                         bytes_per_param=1), strict=True):
        lo = ic.speculative_step(BIG, H100, batch=int(np.floor(bb)), context=1024, draft_tokens=kk,
                                 bytes_per_param=1)
        hi = ic.speculative_step(BIG, H100, batch=int(np.ceil(bb)), context=1024, draft_tokens=kk,
                                 bytes_per_param=1)
        assert lo.bound == "memory" and hi.bound == "compute"


def test_round_floor_of_any_schedule_against_the_serial_sum():
    k = np.arange(0, 13)
    one = ic.speculative_step(BIG, H100, batch=1, context=2048, draft_tokens=k, draft=SMALL,
                              bytes_per_param=1)
    # B = 1: every pass is memory-bound, so overlapping gains nothing and the two agree
    assert np.allclose(one.t_per_token_floor, one.t_per_token_serial, rtol=1e-12)
    b32 = ic.speculative_step(BIG, H100, batch=32, context=2048, draft_tokens=k, draft=SMALL,
                              bytes_per_param=1)
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


def test_verify_pass_times_are_the_bounds_of_its_counts():
    """A Bounds of the verify pass's FLOPs and bytes (one card: t_step = t_floor)."""
    got = ic.speculative_step(BIG, H100, batch=[1, 64], context=2048, draft_tokens=4,
                              draft=SMALL, bytes_per_param=1)
    assert isinstance(got, Bounds) and (np.asarray(got.t_comm) == 0).all()
    want = vars(bounds(got.flops, got.bytes_read, got.hw))
    for f, v in want.items():
        assert (np.asarray(getattr(got, f)) == v).all(), f
    assert list(got.bound) == ["memory", "compute"]
    assert np.allclose(got.t_round, np.asarray(got.t_step) + got.t_draft, rtol=0)
