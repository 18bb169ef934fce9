"""infra_calc.kv: B*(S), S_max and the regions, from the same account as the decode step."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import infra_calc as ic

DENSE = st.sampled_from(["Llama-3.1-8B", "Qwen3-8B", "Llama-2-70B", "DeepSeek-R1-Distill-Llama-70B"])
ACCS = st.sampled_from(["H100 SXM", "A100 80GB", "H200 SXM", "B200", "MI300X"])


def _gap(name, hw, b, s, bpp=2, kvb=2, routing="floor"):
    """compute - read of the model's decode step, seconds (the library's step function)."""
    x = ic.model_decode_step(name, hw, batch=b, context=s, bytes_per_param=bpp,
                             kv_bytes_per_element=kvb, routing=routing)
    return x.t_compute - x.t_read


@settings(max_examples=80)
@given(DENSE, ACCS, st.floats(0.0, 0.95), st.sampled_from([1, 2]))
def test_turning_batch_is_where_the_step_balances(name, hw, frac, bpp):
    """The step's compute - read is linear in B (dense, B <= V): its root from two
    integer batches of the step function equals turning_batch."""
    s = int(frac * ic.critical_context(name, hw, bytes_per_param=bpp))
    b_star = ic.turning_batch(name, hw, context=s, bytes_per_param=bpp)
    g1, g2 = _gap(name, hw, 100, s, bpp), _gap(name, hw, 200, s, bpp)
    root = 100 - g1 * 100 / (g2 - g1)
    assert b_star == pytest.approx(root, rel=1e-6)


@pytest.mark.parametrize("name", ["Mixtral-8x7B"])
@pytest.mark.parametrize("s", [0, 200, 500])
@pytest.mark.parametrize("routing", ["floor", "uniform"])
def test_moe_turning_batch_brackets_the_step(name, s, routing):
    b = ic.turning_batch(name, "H100 SXM", context=s, routing=routing)
    assert (_gap(name, "H100 SXM", math.floor(b), s, routing=routing) < 0
            <= _gap(name, "H100 SXM", math.ceil(b), s, routing=routing))


def test_moe_floor_turns_earlier_than_the_uniform_model():
    """Fewer experts read, so compute catches up at a smaller batch; S_max is the same."""
    floor = ic.turning_batch("Mixtral-8x7B", "H100 SXM", context=200)
    uniform = ic.turning_batch("Mixtral-8x7B", "H100 SXM", context=200, routing="uniform")
    assert floor < uniform / 2
    w = ic.Workload("Mixtral-8x7B", "H100 SXM", routing="uniform")
    assert ic.turning_batch(w, context=200) == uniform
    assert ic.kv_weight_batch("Mixtral-8x7B", "H100 SXM", context=4096) < \
        ic.kv_weight_batch("Mixtral-8x7B", "H100 SXM", context=4096, routing="uniform")
    with pytest.raises(ValueError, match="routing must be one of"):
        ic.Workload("Mixtral-8x7B", "H100 SXM", routing="zipf")


@pytest.mark.parametrize("name", ["Llama-3.1-8B", "llama-70b", "Mixtral-8x7B", "Qwen3-8B"])
def test_s_max_is_where_no_batch_reaches_compute(name):
    s_max = ic.critical_context(name, "H100 SXM")
    assert math.isfinite(ic.turning_batch(name, "H100 SXM", context=math.floor(s_max)))
    assert math.isinf(ic.turning_batch(name, "H100 SXM", context=math.ceil(s_max)))
    limit = ic.model(name).max_position_embeddings
    above = min(math.ceil(s_max) + 50, limit)
    assert _gap(name, "H100 SXM", 50_000, above) < 0      # even a huge batch stays read-bound


@pytest.mark.parametrize("name", ["Llama-3.1-8B", "Llama-2-70B", "Qwen3-8B"])
@pytest.mark.parametrize("cards", [1, 2, 8])
def test_s_max_is_the_root_of_the_steps_own_per_request_slope(name, cards):
    """What each request adds to compute - read, from the step's own times (two batches),
    is linear in S; its root is S_max, on one card and per card with more."""
    def per_request(s):
        a, b = (ic.model_decode_step(name, "H100 SXM", cards=cards, batch=n, context=s)
                for n in (100, 200))
        return ((b.t_compute - b.t_read) - (a.t_compute - a.t_read)) / 100
    root = -per_request(0) * 1000 / (per_request(1000) - per_request(0))
    assert ic.critical_context(name, "H100 SXM", cards=cards) == pytest.approx(root, rel=1e-6)


def test_one_model_one_answer_for_mixtral():
    """The figure and the library use the same S_max: the active parameters' (not the 2413 of
    the total), and the regions of decode_region are those of model_decode_step."""
    s_max = ic.critical_context("Mixtral-8x7B", "H100 SXM")
    assert 600 < s_max < 700
    b, s = np.meshgrid([1, 16, 64, 256, 2048], [0, 512, 1024, 4096])
    reg = ic.decode_region("Mixtral-8x7B", "H100 SXM", batch=b, context=s)
    step = ic.model_decode_step("Mixtral-8x7B", "H100 SXM", batch=b, context=s)
    assert (reg == step.region).all()
    reg = ic.decode_region("Mixtral-8x7B", "H100 SXM", batch=b, context=s, routing="uniform")
    step = ic.model_decode_step("Mixtral-8x7B", "H100 SXM", batch=b, context=s, routing="uniform")
    assert (reg == step.region).all()


def test_bw_only_enters_s_max_through_the_gathered_row():
    s1 = ic.critical_context("Llama-3.1-8B", "H100 SXM", bytes_per_param=1)
    s2 = ic.critical_context("Llama-3.1-8B", "H100 SXM", bytes_per_param=2)
    assert s2 < s1 and (s1 - s2) / s1 < 1e-3
    tied = ic.ModelSpec.from_hf_config(_tied_cfg())      # a tied table has no gathered row
    assert ic.critical_context(tied, "H100", bytes_per_param=1) == \
        ic.critical_context(tied, "H100", bytes_per_param=2)


def _tied_cfg():
    return {"model_type": "llama", "vocab_size": 32000, "hidden_size": 2048,
            "intermediate_size": 5632, "num_hidden_layers": 22, "num_attention_heads": 32,
            "num_key_value_heads": 4, "tie_word_embeddings": True}


def test_attention_intense_enough_means_no_s_max():
    """MQA with 64 heads in FP8 cache on a low-ridge card: attention alone reaches the ridge."""
    cfg = {"model_type": "llama", "vocab_size": 1000, "hidden_size": 8192,
           "intermediate_size": 8192, "num_hidden_layers": 2, "num_attention_heads": 64,
           "num_key_value_heads": 1}
    m = ic.ModelSpec.from_hf_config(cfg, name="mqa")
    slow = ic.accelerator("H100 SXM").with_(peak_flops=1e14)     # ridge 30 FLOP/byte
    assert math.isinf(ic.critical_context(m, slow, kv_bytes_per_element=1))


def test_kv_weight_batch_is_where_the_reads_are_equal():
    for name in ("llama-70b", "Mixtral-8x7B"):
        b = ic.kv_weight_batch(name, "H100 SXM", context=4096)
        lo = ic.model_decode_step(name, "H100 SXM", batch=math.floor(b), context=4096)
        hi = ic.model_decode_step(name, "H100 SXM", batch=math.ceil(b), context=4096)
        assert lo.weight_bytes >= lo.kv_bytes and hi.kv_bytes > hi.weight_bytes


def test_cards_move_the_turning_point_per_card():
    one = ic.turning_batch("llama-70b", "H100 SXM", context=512)
    eight = ic.turning_batch("llama-70b", "H100 SXM", context=512, cards=8)
    assert math.isfinite(one) and math.isfinite(eight) and eight != one


# ------------------------------------------------ one physics whatever the argument
@pytest.mark.parametrize("call", [
    lambda: ic.critical_context(70e9, "H100 SXM"),
    lambda: ic.turning_batch(70e9, "H100 SXM", context=1024),
    lambda: ic.kv_weight_batch(70e9, "H100 SXM", context=8192),
    lambda: ic.decode_region(70e9, "H100 SXM", batch=8, context=10),
])
def test_a_parameter_count_is_refused_not_given_other_physics(call):
    """A number where a model goes is an error naming the parameter, not a second formula."""
    with pytest.raises(TypeError, match="model must be a ModelSpec.*not a number"):
        call()


def test_sizes_after_the_card_are_keyword_only():
    with pytest.raises(TypeError):
        ic.kv_weight_batch("llama-2-70b", "H100 SXM", 4096)       # context must be named
    with pytest.raises(TypeError):
        ic.decode_region("llama-2-70b", "H100 SXM", 8, 1024)


def test_j07_turning_point_is_the_models_at_zero_context_without_the_row():
    """B* = b_W Π / (2β) is what turning_batch gives for a dense model at S = 0, up to the
    gathered row and the norm weights (a few parts in ten thousand)."""
    for hw in ("H100 SXM", "A100 80GB", "MI300X"):
        assert ic.turning_batch("llama-2-70b", hw, context=0, bytes_per_param=1) == pytest.approx(
            ic.batch_turning_point(hw, bytes_per_param=1), rel=2e-3)


@pytest.mark.parametrize("math_", ["bf16", "fp8"])
def test_turning_points_use_the_workloads_math_precision(math_):
    """S_max and B* divide by the peak of the step's own precision, as the step does: at FP8
    the label of model_decode_step flips exactly at turning_batch, and the speculative S_max
    with no drafts is critical_context (the design review found them apart at FP8)."""
    from infra_calc import levers
    from infra_calc.workload import Workload

    w = Workload("llama-3.1-8b", "H100 SXM", batch=1, context=100, math=math_)
    b = ic.turning_batch(w, context=100)
    below = ic.model_decode_step(w.with_(batch=math.floor(b), context=100))
    above = ic.model_decode_step(w.with_(batch=math.ceil(b) + 1, context=100))
    assert (below.bound, above.bound) == ("memory", "compute")
    assert levers.speculative_critical_context(w, draft_tokens=0) == pytest.approx(ic.critical_context(w))


def test_a_moe_turning_batch_under_uniform_routing_is_where_compute_meets_the_read():
    """The root brentq finds, element by element: at B* the step's math equals its read with
    the experts that batch hits, to a rounding, and whole batches either side fall on either
    side of the border."""
    from infra_calc.decode import routed_expert_bytes
    from infra_calc.kv import per_request_terms
    from infra_calc.workload import Workload

    w = Workload("Mixtral-8x7B", "H100 SXM", context=np.array([0, 100, 400]), routing="uniform")
    b = ic.turning_batch(w)
    assert np.all(np.isfinite(b)) and np.all(np.diff(b) > 0)
    r0, r1, c1 = per_request_terms(w)
    read = (r0 + routed_expert_bytes(w, b) + b * r1) / w.hw.mem_bandwidth
    assert np.allclose(b * c1 / w.hw.peak(w.math), read, rtol=1e-14, atol=0)
    for s, bs in zip(w.context, b, strict=True):
        below = ic.model_decode_step(w.with_(batch=math.floor(bs), context=s))
        above = ic.model_decode_step(w.with_(batch=math.ceil(bs), context=s))
        assert (below.bound, above.bound) == ("memory", "compute")
    assert ic.turning_batch(w.with_(context=2000)) == math.inf       # past S_max: no root sought


def test_kv_weight_batch_takes_no_math():
    """A border between two byte counts has no peak in it: no ``math`` to pass and ignore."""
    with pytest.raises(TypeError, match="math"):
        ic.kv_weight_batch("llama-2-70b", "H100 SXM", context=4096, math="fp8")
