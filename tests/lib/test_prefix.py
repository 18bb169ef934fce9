"""infra_calc.prefix: a prefix shared by the batch, read once, and a cached prompt prefix."""
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


# ------------------------------------------------------------------ shared prefix
@settings(max_examples=40)
@given(m=models, s=contexts, frac=st.floats(0, 1), b=batches)
def test_shared_prefix_with_one_request_or_none_shared_is_plain(m, s, frac, b):
    sp = int(frac * s)
    one = ic.shared_prefix_step(m, H100, batch=1, context=s, prefix_tokens=sp)
    plain1 = ic.model_decode_step(m, H100, batch=1, context=s)
    none = ic.shared_prefix_step(m, H100, batch=b, context=s, prefix_tokens=0)
    plain = ic.model_decode_step(m, H100, batch=b, context=s)
    for got, want in ((one, plain1), (none, plain)):
        for f in ("t_step", "t_read", "t_compute", "kv_bytes", "flops", "memory_per_card"):
            assert np.isclose(getattr(got, f), getattr(want, f), rtol=1e-12), f
        assert got.bound == want.bound and got.fits == want.fits
    shared = ic.shared_prefix_step(m, H100, batch=b, context=s, prefix_tokens=sp)
    assert shared.t_step <= plain.t_step * (1 + 1e-12)
    assert np.isclose(shared.flops, plain.flops)                     # attention still over S


def test_shared_prefix_reads_the_prefix_once():
    m = ic.model(BIG)
    st_ = ic.shared_prefix_step(m, H100, batch=32, context=4096, prefix_tokens=3072, bytes_per_param=1)
    assert np.isclose(st_.kv_bytes, (3072 + 32 * 1024) * m.kv_bytes_per_token())
    assert np.isclose(st_.kv_bytes_unshared, 32 * 4096 * m.kv_bytes_per_token())


def test_shared_prefix_refuses_a_prefix_longer_than_the_context():
    with pytest.raises(ValueError, match="prefix_tokens"):
        ic.shared_prefix_step(SMALL, H100, batch=4, context=100, prefix_tokens=101)
    with pytest.raises(ValueError, match="prefix_tokens"):
        ic.shared_prefix_step(SMALL, H100, batch=4, context=100, prefix_tokens=-1)


@settings(max_examples=30)
@given(m=models, p=st.integers(1, 16000), b=st.integers(1, 8), n=st.sampled_from([1, 2, 4]))
def test_cached_prefill_with_nothing_cached_is_prefill(m, p, b, n):
    got = ic.cached_prefill_step(m, H100, prompt_tokens=p, cached_tokens=0, batch=b, cards=n)
    want = ic.prefill_step(m, H100, prompt_tokens=p, batch=b, cards=n)
    for f in ("t_step", "t_read", "t_compute", "t_comm", "flops", "bytes_read", "memory_per_card"):
        assert np.isclose(getattr(got, f), getattr(want, f), rtol=1e-12), f
    assert got.bound == want.bound


def _bounds_fields(r):
    return {f: getattr(r, f) for f in vars(bounds(1.0, 1.0, r.hw))}


@pytest.mark.parametrize("cards", [1, 2])
def test_cached_prefill_times_are_the_bounds_of_its_counts(cards):
    """A Bounds of its per-card FLOPs and bytes: t_step = t_floor + t_comm, the new tokens'
    all-reduces on more cards, each card reading its KV heads' share of the prefix."""
    got = ic.cached_prefill_step(BIG, H100, prompt_tokens=4096, cached_tokens=3072, batch=4,
                                 cards=cards, bytes_per_param=1)
    assert isinstance(got, Bounds)
    assert _bounds_fields(got) == vars(bounds(got.flops, got.bytes_read, got.hw, t_comm=got.t_comm))
    assert (got.t_comm > 0) == (cards > 1) and got.t_step == got.t_floor + got.t_comm
    m_card = ic.Workload(BIG, H100, cards=cards).kv_bytes_per_token_per_card
    assert got.prefix_kv_bytes == 3072 * m_card            # 8 KV heads: half each on 2 cards


def test_shared_prefix_times_are_the_bounds_of_its_counts():
    got = ic.shared_prefix_step(BIG, H100, batch=16, context=4096, prefix_tokens=3072)
    assert isinstance(got, Bounds) and got.t_comm == 0 and got.t_step == got.t_floor
    assert _bounds_fields(got) == vars(bounds(got.flops, got.weight_bytes + got.kv_bytes, got.hw))


def test_cached_prefill_attention_still_sees_the_prefix():
    m = ic.model(SMALL)
    p, pc = 4096, 3072
    got = ic.cached_prefill_step(m, H100, prompt_tokens=p, cached_tokens=pc)
    n = p - pc
    f = (2 * n * m.body_matmul_params + 2 * m.lm_head_params
         + 2 * m.layers * m.heads * m.head_dim * (p * (p + 1) - pc * (pc + 1)))
    assert np.isclose(got.flops, f)
    assert np.isclose(got.prefix_kv_bytes, pc * m.kv_bytes_per_token())
    assert np.isclose(got.bytes_read, m.decode_weight_bytes(2, n) + p * m.kv_bytes_per_token())
    t = ic.cached_prefill_step(m, H100, prompt_tokens=p, cached_tokens=np.arange(0, p, 512)).t_step
    assert (np.diff(t) < 0).all()


def test_cached_prefill_needs_one_new_token():
    with pytest.raises(ValueError, match="cached_tokens"):
        ic.cached_prefill_step(SMALL, H100, prompt_tokens=100, cached_tokens=100)


def test_mean_ttft_is_the_mix_and_checks_the_rate():
    assert ic.mean_ttft(0.25, t_hit=1.0, t_miss=5.0) == 4.0
    assert ic.mean_ttft(0, t_hit=1.0, t_miss=5.0) == 5.0
    assert ic.mean_ttft(1, t_hit=1.0, t_miss=5.0) == 1.0
    with pytest.raises(ValueError, match="hit_rate"):
        ic.mean_ttft(1.5, t_hit=1.0, t_miss=2.0)
    with pytest.raises(ValueError, match="t_miss"):
        ic.mean_ttft(0.5, t_hit=1.0, t_miss=-2.0)


def test_mean_ttft_takes_the_two_times_by_name_only():
    """Two floors in seconds cannot trade places by position."""
    with pytest.raises(TypeError):
        ic.mean_ttft(0.25, 1.0, 5.0)


def test_cached_prefill_states_its_memory_with_the_prefix_held_once():
    m = ic.model("Llama-3.1-8B")
    c = ic.cached_prefill_step(m, "H100 SXM", prompt_tokens=4096, cached_tokens=3072, batch=8,
                               workspace=1e9)
    w = ic.Workload(m, "H100 SXM", batch=8, workspace=1e9)
    assert c.memory.kv == (3072 + 8 * 1024) * w.kv_bytes_per_token
    assert c.memory.weights == w.resident_weight_bytes() and c.memory.workspace == 1e9
    assert c.fits and c.memory_per_card == c.memory.total
    one = ic.cached_prefill_step(m, "H100 SXM", prompt_tokens=4096, cached_tokens=0)
    assert one.memory == ic.prefill_step(m, "H100 SXM", prompt_tokens=4096).memory
