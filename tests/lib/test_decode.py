"""infra_calc.decode: one decode step of a model, checked against the tensor listing; over
n cards, the per-card floor and communication as a model."""
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from model_reference import (
    TINY,
    attention_flops_by_pairs,
    reference_count,
    reference_matmul,
    shipped_config,
)

import infra_calc as ic
from infra_calc.units import GiB

DENSE = ["Llama-3.1-8B", "Qwen3-8B", "Llama-2-70B", "DeepSeek-R1-Distill-Llama-70B", "Llama-2-7B"]


def _kv_per_token(cfg, b):
    nq = cfg["num_attention_heads"]
    hd = cfg.get("head_dim") or cfg["hidden_size"] // nq
    return 2 * cfg["num_hidden_layers"] * cfg.get("num_key_value_heads", nq) * hd * b


@pytest.mark.parametrize("name", DENSE)
@pytest.mark.parametrize("batch, context", [(1, 0), (8, 1000), (64, 4000)])
def test_dense_step_from_first_principles(name, batch, context):
    """FLOPs: every matrix weight a token multiplies (the gathered table is no product), and
    attention over each cached token; bytes: every weight but the table's unused rows, and the cache."""
    cfg = shipped_config(name)
    st_ = ic.model_decode_step(name, "H100 SXM", batch=batch, context=context)
    flops = 2 * batch * reference_matmul(cfg) + attention_flops_by_pairs(cfg, batch * context)
    unused_rows = (cfg["vocab_size"] - batch) * cfg["hidden_size"]
    weights = 2 * (reference_count(cfg) - unused_rows)
    kv = batch * context * _kv_per_token(cfg, 2)
    assert st_.flops == pytest.approx(flops, rel=1e-12)
    assert st_.bytes_read == pytest.approx(weights + kv, rel=1e-12)
    # a batch far below B* (about 295 at two bytes a weight on the H100 SXM): the read bounds it
    assert st_.bound == "memory" and st_.t_step == pytest.approx((weights + kv) / 3.35e12)


def test_mixtral_reads_the_experts_the_batch_hits():
    cfg = shipped_config("Mixtral-8x7B")
    one = ic.model_decode_step("Mixtral-8x7B", "H100 SXM", batch=1)
    # batch 1: the two experts it routes to, one embedding row
    assert one.weight_bytes == pytest.approx(
        2 * (reference_count(cfg, experts_used=2) - (cfg["vocab_size"] - 1) * cfg["hidden_size"]))
    big = ic.model_decode_step("Mixtral-8x7B", "H100 SXM", batch=64, routing="uniform")
    active = ic.model_decode_step("Mixtral-8x7B", "H100 SXM", batch=64, weight_read="active")
    assert big.routing == "uniform"
    assert big.weight_bytes > 2.4 * active.weight_bytes     # nearly every expert is read
    assert big.flops == active.flops == pytest.approx(2 * 64 * reference_matmul(cfg, 2))
    # the floor: two experts per layer, 63 more gathered rows than batch 1
    floor = ic.model_decode_step("Mixtral-8x7B", "H100 SXM", batch=64)
    assert floor.routing == "floor"
    assert floor.weight_bytes == pytest.approx(one.weight_bytes + 2 * 63 * cfg["hidden_size"])
    assert floor.t_step < big.t_step and floor.flops == big.flops


def test_default_is_what_a_step_touches():
    m = ic.model("Llama-3.1-8B")
    touched = ic.model_decode_step(m, "H100 SXM")
    active = ic.model_decode_step(m, "H100 SXM", weight_read="active")
    total = ic.model_decode_step(m, "H100 SXM", weight_read="total")
    assert touched.weight_read == "touched"
    assert touched.weight_bytes == m.decode_weight_bytes(2, 1)
    assert active.weight_bytes == total.weight_bytes == m.params * 2      # dense: the same
    assert touched.weight_bytes < active.weight_bytes


def test_memory_and_fits_on_every_result():
    st_ = ic.model_decode_step("Llama-2-70B", "A100 80GB", batch=1, context=2048)
    m = ic.model("Llama-2-70B")
    assert st_.memory_per_card == pytest.approx(2 * m.params + 2048 * m.kv_bytes_per_token()
                                                + 2 * GiB)
    assert st_.fits is False and st_.t_step > 0           # computed, not refused
    huge = ic.model_decode_step("Llama-3.1-8B", "H100 SXM", batch=10**6, context=1024)
    assert huge.fits is False and np.isfinite(huge.t_step)


def test_regions_are_consistent_with_the_bound():
    st_ = ic.model_decode_step("llama-70b", "H100 SXM", batch=np.array([1, 64, 1000]),
                               context=np.array([10, 32768, 10]))
    assert list(st_.region) == ["weight-read", "kv-read", "compute"]
    assert list(st_.bound) == ["memory", "memory", "compute"]


@settings(max_examples=60)
@given(st.sampled_from(DENSE + ["Mixtral-8x7B"]), st.integers(1, 512), st.integers(0, 4000))
def test_step_grows_with_batch_and_context(name, b, s):
    a = ic.model_decode_step(name, "H100 SXM", batch=b, context=s)
    more_b = ic.model_decode_step(name, "H100 SXM", batch=b + 1, context=s)
    more_s = ic.model_decode_step(name, "H100 SXM", batch=b, context=s + 1)
    assert more_b.t_step >= a.t_step and more_s.t_step >= a.t_step


def test_changed_objects_keep_their_figures():
    h = ic.accelerator("H100 SXM")
    fast = h.with_(peak_flops=2 * h.peak_flops)
    spec = dataclasses.replace(ic.model("Llama-3.1-8B"), source="a changed copy")
    st_ = ic.model_decode_step(spec, fast, batch=8, context=1024)
    assert st_.hw is fast and st_.model is spec


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="context"):
        ic.model_decode_step("Llama-2-7B", "H100", context=4097)
    with pytest.raises(ValueError,
                       match=r"weight_read must be one of \('touched', 'active', 'total'\), got 'all'"):
        ic.model_decode_step("Llama-2-7B", "H100", weight_read="all")
    with pytest.raises(ValueError, match=r"batch \(requests\) must be at most"):
        ic.model_decode_step("Llama-3.1-8B", "H100", batch=10**30)
    with pytest.raises(ValueError, match=r"kv_bytes_per_element \(bytes/element\) must not be NaN"):
        ic.model_decode_step("Llama-3.1-8B", "H100", kv_bytes_per_element=float("nan"))


@pytest.mark.parametrize("name, cards", [("Llama-3.1-8B", 1), ("Llama-3.1-8B", 4),
                                         ("Mixtral-8x7B", 2), ("tied", 1)])
@pytest.mark.parametrize("routing", ["floor", "uniform"])
def test_the_weight_read_is_the_turning_points_linear_terms_plus_the_experts(name, cards,
                                                                            routing):
    """A step's weight read is R0 + B r (kv.per_request_terms at an empty cache) plus the
    routed experts the batch hits, for every batch: the turning points solve the same step."""
    from infra_calc.decode import decode_coefficients, routed_expert_bytes
    from infra_calc.kv import per_request_terms

    spec = (ic.ModelSpec.from_hf_config(dict(TINY["llama"], tie_word_embeddings=True))
            if name == "tied" else name)
    w = ic.Workload(spec, "H100 SXM", cards=cards, routing=routing, context=0)
    r0, r1, _ = per_request_terms(w)
    for b in (1, 2, 37, 4096):
        read = decode_coefficients(w.with_(batch=b)).weight_bytes
        assert read == pytest.approx(r0 + b * r1 + routed_expert_bytes(w, float(b)), rel=1e-12)


MODELS = st.sampled_from(["Llama-3.1-8B", "Llama-2-7B", "Llama-2-70B",
                          "DeepSeek-R1-Distill-Llama-70B", "Qwen3-8B", "Mixtral-8x7B"])
ACCS = st.sampled_from(["H100 SXM", "A100 80GB", "H200 SXM", "B200", "MI300X", "RTX 4090"])


@settings(max_examples=80)
@given(MODELS, ACCS, st.integers(1, 512), st.integers(0, 4000), st.sampled_from([0.5, 1, 2]),
       st.sampled_from([1, 2]))
def test_one_card_has_no_communication(name, hw, b, s, bpp, kvb):
    d = ic.model_decode_step(name, hw, batch=b, context=s, bytes_per_param=bpp,
                             kv_bytes_per_element=kvb)
    assert d.cards == 1 and d.comm_bytes > 0 and d.t_comm == 0.0
    assert d.t_step == d.t_floor == max(d.t_read, d.t_compute) and d.bound == d.floor_bound


def test_per_card_bytes_by_hand_with_replicated_kv_heads():
    """16 cards on a model with 8 KV heads: each card reads one KV head per layer
    (its cache and its K/V projection) and 1/16 of everything else."""
    m = ic.model("llama-70b")
    b, s = 4, 1000
    tp = ic.model_decode_step(m, "H100 SXM", cards=16, batch=b, context=s)
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
    tp = ic.model_decode_step(m, h, cards=4, batch=8)
    msg = 2 * 8 * m.hidden
    ar = 2 * 3 / 4 * msg / h.link_bandwidth + 2 * 3 * h.link_latency
    assert tp.t_comm == pytest.approx(2 * m.layers * ar)
    assert tp.t_floor == tp.t_read > tp.t_compute          # batch 8, far below B*: the read
    assert tp.t_step == pytest.approx(tp.t_floor + tp.t_comm) and tp.comm == "ring"
    ov = ic.model_decode_step(m, h, cards=4, batch=8, overlap_comm=True)
    assert ov.t_step == pytest.approx(max(tp.t_floor, tp.t_comm)) and ov.overlap_comm
    ins = ic.model_decode_step(m, h, cards=4, batch=8, comm="in-switch")
    assert ins.t_comm < tp.t_comm and ins.t_floor == tp.t_floor


def test_past_one_node_the_network_is_charged():
    m = ic.model("llama-70b")
    eight = ic.model_decode_step(m, "H100 SXM", cards=8, batch=64, context=2048)
    sixteen = ic.model_decode_step(m, "H100 SXM", cards=16, batch=64, context=2048)
    assert sixteen.t_comm > 3 * eight.t_comm


def test_communication_can_dominate_over_pcie():
    tp = ic.model_decode_step("Llama-3.1-8B", "RTX 4090", cards=8, batch=64)
    assert tp.bound == "communication" and tp.floor_bound == "memory"


def test_memory_per_card_with_more_cards():
    one = ic.model_decode_step("Llama-2-70B", "A100 80GB", cards=1)
    two = ic.model_decode_step("Llama-2-70B", "A100 80GB", cards=2)
    assert not one.fits and two.fits and two.memory_per_card < one.memory_per_card


def test_cards_vectorised():
    tp = ic.model_decode_step("llama-70b", "H100 SXM", cards=np.array([1, 2, 4, 8]))
    assert np.all(np.diff(tp.t_read) < 0) and tp.t_comm[0] == 0


@pytest.mark.parametrize("call, match", [
    (lambda: ic.model_decode_step("llama-70b", "H100", cards=0), "cards"),
    (lambda: ic.model_decode_step("llama-70b", "H100", cards=3), "cards must divide the 64"),
    (lambda: ic.model_decode_step("llama-70b", "H100", cards=2, context=-1), "context"),
    (lambda: ic.model_decode_step("llama-70b", "Ascend 910B", cards=2), "link_bandwidth"),
    (lambda: ic.model_decode_step("llama-70b", "H100", cards=2, comm="tree"), "comm"),
    (lambda: ic.model_decode_step("llama-70b", "H100", cards=2, overlap_comm="yes"), "overlap_comm"),
])
def test_bad_cards_or_comm_names_the_parameter(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
