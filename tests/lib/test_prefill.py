"""infra_calc.prefill: the prefill floor, counted from the tensor listing and the causal mask."""
import numpy as np
import pytest
from model_reference import TINY, attention_flops_by_pairs, reference_count, reference_matmul, shipped_config

import infra_calc as ic


def causal_pairs(p):
    """(query, key) pairs a causal mask computes for one prompt of p tokens, counted."""
    return int(np.tril(np.ones((p, p), dtype=bool)).sum())


@pytest.mark.parametrize("name", ["Llama-3.1-8B", "Qwen3-8B", "Llama-2-70B"])
@pytest.mark.parametrize("p, b", [(7, 1), (300, 2), (2048, 1)])
def test_prefill_from_first_principles(name, p, b):
    cfg = shipped_config(name)
    pre = ic.prefill_step(name, "H100 SXM", prompt_tokens=p, batch=b)
    body = reference_matmul(cfg, head=False)                  # no input table, no LM head
    head = cfg["vocab_size"] * cfg["hidden_size"]             # once per request
    att = attention_flops_by_pairs(cfg, b * causal_pairs(p))
    assert pre.flops_linear == pytest.approx(2 * b * p * body + 2 * b * head, rel=1e-12)
    assert pre.flops_attention == pytest.approx(att, rel=1e-12)
    assert pre.flops == pytest.approx(2 * b * p * body + 2 * b * head + att, rel=1e-12)
    rows = min(b * p, cfg["vocab_size"])
    weights = 2 * (reference_count(cfg) - (cfg["vocab_size"] - rows) * cfg["hidden_size"])
    assert pre.weight_bytes == pytest.approx(weights, rel=1e-12)
    # a pass over b p tokens does about b p FLOPs per byte of weight (2 FLOPs a weight a token,
    # 2 bytes a weight): below the H100 SXM's ridge, 989.4 TFLOP/s / 3.35 TB/s = 295 FLOP/byte,
    # the read bounds it; above, the math
    if b * p < 295:
        assert pre.bound == "memory" and pre.t_step == pytest.approx(pre.bytes_read / 3.35e12)
    else:
        assert pre.bound == "compute" and pre.t_step == pytest.approx(pre.flops / 989.4e12)


def test_tied_table_is_the_head_once():
    cfg = dict(TINY["llama"], tie_word_embeddings=True)
    m = ic.ModelSpec.from_hf_config(cfg, name="tiny-tied")
    pre = ic.prefill_step(m, "H100 SXM", prompt_tokens=10)
    assert pre.flops_linear == 2 * 10 * reference_matmul(cfg, head=False) \
        + 2 * cfg["vocab_size"] * cfg["hidden_size"]
    assert pre.weight_bytes == 2 * reference_count(cfg)


def test_moe_prefill_multiplies_k_experts_per_token():
    cfg = shipped_config("Mixtral-8x7B")
    pre = ic.prefill_step("Mixtral-8x7B", "H100 SXM", prompt_tokens=512)
    assert pre.flops_linear == pytest.approx(
        2 * 512 * reference_matmul(cfg, experts_used=2, head=False)
        + 2 * cfg["vocab_size"] * cfg["hidden_size"], rel=1e-12)


def test_old_formula_overstated_the_floor():
    """2 P N_active (whole table, head for every token) was 14.5% above the floor for
    Llama-3.1-8B at P = 2048, and 0.75% for Llama-2-70B."""
    for name, over in (("Llama-3.1-8B", 0.145), ("Llama-2-70B", 0.0075)):
        m = ic.model(name)
        pre = ic.prefill_step(m, "H100 SXM", prompt_tokens=2048)
        old = 2 * 2048 * m.active_params + 2 * m.layers * 2048**2 * m.heads * m.head_dim
        assert old / pre.flops - 1 == pytest.approx(over, abs=0.002)


def test_prefill_turns_compute_bound_near_b_star():
    b_star = ic.batch_turning_point("H100", bytes_per_param=2)
    p = np.arange(1, 1000)
    steps = ic.prefill_step("Llama-3.1-8B", "H100", prompt_tokens=p)
    first = p[np.argmax(steps.bound == "compute")]
    assert 0.8 * b_star < first < 1.2 * b_star


def test_vectorised_matches_scalar_and_memory_is_reported():
    v = ic.prefill_step("Qwen3-8B", "A100", prompt_tokens=[16, 512, 4096])
    for i, p in enumerate([16, 512, 4096]):
        one = ic.prefill_step("Qwen3-8B", "A100", prompt_tokens=p)
        assert one.t_step == pytest.approx(v.t_step[i]) and one.fits == v.fits[i]
    assert ic.prefill_step("Llama-2-70B", "A100", prompt_tokens=100).fits is False


def test_cards_split_the_work_and_add_communication():
    one = ic.prefill_step("llama-70b", "H100 SXM", prompt_tokens=2048)
    four = ic.prefill_step("llama-70b", "H100 SXM", prompt_tokens=2048, cards=4)
    assert four.flops == pytest.approx(one.flops / 4, rel=1e-3)   # K/V projections split too
    assert four.t_comm > 0 and four.t_step == pytest.approx(four.t_floor + four.t_comm)


def test_overlap_comm_takes_the_larger_in_every_prefill():
    kw = dict(prompt_tokens=2048, cards=4, overlap_comm=True)
    over = ic.prefill_step("llama-70b", "H100 SXM", **kw)
    assert over.t_step == pytest.approx(max(over.t_floor, over.t_comm))
    assert over.t_step < over.t_floor + over.t_comm
    cached = ic.cached_prefill_step("llama-70b", "H100 SXM", cached_tokens=0, **kw)
    assert cached.t_step == pytest.approx(over.t_step)
    g = ic.generation_time("llama-70b", "H100 SXM", output_tokens=4, **kw)
    assert g.ttft == over.t_step               # the request overlaps its prefill's all-reduces too


@pytest.mark.parametrize("call, match", [
    (lambda: ic.prefill_step("llama-70b", "H100", prompt_tokens=-5), "prompt_tokens"),
    (lambda: ic.prefill_step("Llama-2-7B", "H100", prompt_tokens=5000), "prompt_tokens"),
    (lambda: ic.prefill_step("llama-70b", "H100", prompt_tokens=100, batch=[1, 2]), "batch .* single"),
    (lambda: ic.prefill_step("llama-70b", "H100", prompt_tokens=100, cards=[1, 2]), "cards .* single"),
    (lambda: ic.prefill_step("llama-70b", "H100", prompt_tokens=100, cards=3), "cards must divide"),
    (lambda: ic.prefill_step("llama-70b", "H100", prompt_tokens=100, weight_read="touch"),
     r"weight_read must be one of \('touched', 'active', 'total'\), got 'touch'"),
])
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
