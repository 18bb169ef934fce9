"""infra_calc.parallel: a decode step over n cards: the per-card floor, and communication as a model."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import infra_calc as ic

MODELS = st.sampled_from(["Llama-3.1-8B", "Llama-2-7B", "Llama-2-70B",
                          "DeepSeek-R1-Distill-Llama-70B", "Qwen3-8B", "Mixtral-8x7B"])
ACCS = st.sampled_from(["H100 SXM", "A100 80GB", "H200 SXM", "B200", "MI300X", "RTX 4090"])


@settings(max_examples=80)
@given(MODELS, ACCS, st.integers(1, 512), st.integers(0, 4000), st.sampled_from([0.5, 1, 2]),
       st.sampled_from([1, 2]))
def test_one_card_is_the_model_decode_step(name, hw, b, s, bpp, kvb):
    tp = ic.tensor_parallel_step(name, hw, cards=1, batch=b, context=s, bytes_per_param=bpp,
                                 kv_bytes_per_element=kvb)
    d = ic.model_decode_step(name, hw, batch=b, context=s, bytes_per_param=bpp,
                             kv_bytes_per_element=kvb)
    assert tp.t_comm == 0.0 and tp.t_step == d.t_step and tp.t_floor == d.t_step
    assert (tp.bytes_read, tp.flops, tp.bound, tp.memory_per_card, tp.fits) == \
        (d.bytes_read, d.flops, d.bound, d.memory_per_card, d.fits)


def test_per_card_bytes_by_hand_with_replicated_kv_heads():
    """16 cards on a model with 8 KV heads: each card reads one KV head per layer
    (its cache and its K/V projection) and 1/16 of everything else."""
    m = ic.model("llama-70b")
    b, s = 4, 1000
    tp = ic.tensor_parallel_step(m, "H100 SXM", cards=16, batch=b, context=s)
    d, dh, L = m.hidden, m.head_dim, m.layers
    kv_proj_one_head = L * 2 * d * dh                     # K and V, one head, every layer
    vec = m.vector_params                                   # norms: every card
    other = m.decode_weight_bytes(1, b) - m.kv_projection_params - vec
    weights = 2 * (other / 16 + kv_proj_one_head + vec)
    cache = b * s * 2 * L * 1 * dh * 2                      # one KV head, BF16
    assert tp.kv_heads_per_card == 1
    assert tp.bytes_read == pytest.approx(weights + cache, rel=1e-12)
    flops = 2 * b * ((m.matmul_params - m.kv_projection_params) / 16 + kv_proj_one_head) \
        + 4 * b * s * L * (m.heads / 16) * dh
    assert tp.flops == pytest.approx(flops, rel=1e-12)


def test_floor_and_communication_kept_apart():
    m = ic.model("llama-70b")
    h = ic.accelerator("H100")
    tp = ic.tensor_parallel_step(m, h, cards=4, batch=8)
    msg = 2 * 8 * m.hidden
    ar = 2 * 3 / 4 * msg / h.link_bandwidth + 2 * 3 * h.link_latency
    assert tp.t_comm == pytest.approx(2 * m.layers * ar)
    assert tp.t_floor == tp.t_read > tp.t_compute          # batch 8, far below B*: the read
    assert tp.t_step == pytest.approx(tp.t_floor + tp.t_comm) and tp.comm == "ring"
    ov = ic.tensor_parallel_step(m, h, cards=4, batch=8, overlap_comm=True)
    assert ov.t_step == pytest.approx(max(tp.t_floor, tp.t_comm)) and ov.overlap_comm
    ins = ic.tensor_parallel_step(m, h, cards=4, batch=8, comm="in-switch")
    assert ins.t_comm < tp.t_comm and ins.t_floor == tp.t_floor


def test_past_one_node_the_network_is_charged():
    m = ic.model("llama-70b")
    eight = ic.tensor_parallel_step(m, "H100 SXM", cards=8, batch=64, context=2048)
    sixteen = ic.tensor_parallel_step(m, "H100 SXM", cards=16, batch=64, context=2048)
    assert sixteen.t_comm > 3 * eight.t_comm


def test_communication_can_dominate_over_pcie():
    tp = ic.tensor_parallel_step("Llama-3.1-8B", "RTX 4090", cards=8, batch=64)
    assert tp.bound == "communication" and tp.floor_bound == "memory"


def test_memory_per_card_with_more_cards():
    one = ic.tensor_parallel_step("Llama-2-70B", "A100 80GB", cards=1)
    two = ic.tensor_parallel_step("Llama-2-70B", "A100 80GB", cards=2)
    assert not one.fits and two.fits and two.memory_per_card < one.memory_per_card


def test_cards_vectorised():
    tp = ic.tensor_parallel_step("llama-70b", "H100 SXM", cards=np.array([1, 2, 4, 8]))
    assert np.all(np.diff(tp.t_read) < 0) and tp.t_comm[0] == 0


@pytest.mark.parametrize("call, match", [
    (lambda: ic.tensor_parallel_step("llama-70b", "H100", cards=0), "cards"),
    (lambda: ic.tensor_parallel_step("llama-70b", "H100", cards=3), "cards must divide the 64"),
    (lambda: ic.tensor_parallel_step("llama-70b", "H100", cards=2, context=-1), "context"),
    (lambda: ic.tensor_parallel_step("llama-70b", "Ascend 910B", cards=2), "link_bandwidth"),
    (lambda: ic.tensor_parallel_step("llama-70b", "H100", cards=2, comm="tree"), "comm"),
    (lambda: ic.tensor_parallel_step("llama-70b", "H100", cards=2, overlap_comm="yes"), "overlap_comm"),
])
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
