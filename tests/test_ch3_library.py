"""Chapter 3 library: KV-aware turning point, prefill, generation, tensor parallel, MoE bytes."""
import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import infra_calc as ic
from infra_calc.models import ModelSpec

ACCS = st.sampled_from(["H100 SXM", "A100 80GB", "H200 SXM", "B200", "MI300X", "RTX 4090"])
MODELS = st.sampled_from(["Llama-3.1-8B", "Llama-2-7B", "Llama-2-70B",
                          "DeepSeek-R1-Distill-Llama-70B", "Qwen3-8B", "Mixtral-8x7B"])


# ------------------------------------------------------------------ models
@pytest.mark.parametrize("name, params, active", [
    ("Llama-3.1-8B", 8_030_261_248, 8_030_261_248),
    ("Llama-2-7B", 6_738_415_616, 6_738_415_616),
    ("Llama-2-70B", 68_976_648_192, 68_976_648_192),
    ("Mixtral-8x7B", 46_702_792_704, 12_879_925_248),
])
def test_new_configs_exact_parameter_counts(name, params, active):
    m = ic.model(name)
    assert m.params == params
    assert m.active_params == active


def test_max_position_embeddings_read():
    assert ic.model("Llama-2-70B").max_position_embeddings == 4096
    assert ic.model("Mixtral-8x7B").max_position_embeddings == 32768
    assert ic.model("Qwen3-8B").max_position_embeddings == 40960


def test_decode_weight_bytes_dense_untied():
    m = ic.model("Llama-3.1-8B")
    full = m.weight_bytes(2)
    assert m.decode_weight_bytes(2, 1) == full - 2 * (m.vocab - 1) * m.hidden
    assert m.decode_weight_bytes(2, 10) == full - 2 * (m.vocab - 10) * m.hidden
    # a batch larger than the vocabulary gathers at most the whole table
    assert m.decode_weight_bytes(2, 10 * m.vocab) == full


def test_decode_weight_bytes_tied_reads_everything():
    m = ModelSpec("tied", params=1000 * 64 + 10_000, active_params=1000 * 64 + 10_000, layers=1,
                  hidden=64, heads=4, kv_heads=4, head_dim=16, intermediate=128, vocab=1000,
                  tie_word_embeddings=True)
    assert m.decode_weight_bytes(2, 1) == m.weight_bytes(2)
    assert m.decode_weight_bytes(1, 7) == m.weight_bytes(1)


def test_decode_weight_bytes_moe():
    m = ic.model("Mixtral-8x7B")
    assert m.moe_layers == m.layers == 32
    assert m.expert_params == 3 * 4096 * 14336
    assert m.experts_hit(1) == pytest.approx(2)
    assert m.experts_hit(2) == pytest.approx(8 * (1 - (6 / 8) ** 2))
    emb = (m.vocab - 1) * m.hidden
    assert m.decode_weight_bytes(1, 1) == pytest.approx(m.active_params - emb)
    big = m.decode_weight_bytes(1, 4096)
    assert big == pytest.approx(m.params - (m.vocab - 4096) * m.hidden, rel=1e-9)
    b = np.arange(1, 200)
    assert np.all(np.diff(m.decode_weight_bytes(2, b)) > 0)


@given(st.integers(1, 10_000))
def test_experts_hit_between_k_and_e(b):
    m = ic.model("Mixtral-8x7B")
    hit = m.experts_hit(b)
    assert m.experts_per_token - 1e-9 <= hit <= m.num_experts + 1e-9


# ------------------------------------------------------------ turning point
def test_turning_point_backward_compatible():
    for hw in ic.accelerator_names():
        base = ic.batch_turning_point(hw, 1)
        assert ic.batch_turning_point(hw, 1, params=70e9) == base
        assert ic.batch_turning_point(hw, 1, params=70e9, context=0, kv_bytes_per_token=1e5) == base
        assert ic.batch_turning_point(hw, 1, params=70e9, context=4096) == base  # no KV bytes


def test_turning_point_formula():
    h = ic.accelerator("H100 SXM")
    n, bw, s, m = 8e9, 2.0, 300.0, 131072.0
    expect = n * bw / (2 * n * h.mem_bandwidth / h.peak_flops - s * m)
    assert ic.batch_turning_point(h, bw, params=n, context=s, kv_bytes_per_token=m) == \
        pytest.approx(expect, rel=1e-12)


def test_turning_point_needs_params_with_context():
    with pytest.raises(ValueError, match="params"):
        ic.batch_turning_point("H100", 2, context=100, kv_bytes_per_token=1e5)


@settings(max_examples=200)
@given(ACCS, st.floats(1e8, 1e12), st.floats(0.25, 4), st.floats(1e3, 1e7),
       st.floats(0, 3e5), st.floats(0, 3e5))
def test_turning_point_grows_with_context_and_inf_past_smax(hw, n, bw, m, s1, s2):
    lo, hi = sorted((s1, s2))
    b_lo = ic.batch_turning_point(hw, bw, params=n, context=lo, kv_bytes_per_token=m)
    b_hi = ic.batch_turning_point(hw, bw, params=n, context=hi, kv_bytes_per_token=m)
    assert b_hi >= b_lo * (1 - 1e-12)
    s_max = ic.critical_context(n, hw, m)
    for s, b in ((lo, b_lo), (hi, b_hi)):
        assert math.isinf(b) == (s >= s_max)
        if s < s_max:
            assert b > 0


def test_turning_point_vectorised():
    s = np.array([0, 500, 1000, 1446, 1447, 5000])
    b = ic.batch_turning_point("H100", 2, params=70e9, context=s, kv_bytes_per_token=327680)
    assert np.all(np.isfinite(b[:4])) and np.all(np.isinf(b[4:]))
    assert np.all(np.diff(b[:4]) > 0)


def test_critical_context_70b_h100_is_short():
    m = ic.model("llama-70b")
    s = ic.critical_context(m.params, "H100", m.kv_bytes_per_token())
    assert 1000 < s < 2000
    h = ic.accelerator("H100")
    assert s == pytest.approx(2 * m.params * h.mem_bandwidth / (h.peak_flops * m.kv_bytes_per_token()))


def test_regions_and_border():
    m = ic.model("llama-70b")
    kv = m.kv_bytes_per_token()
    assert ic.decode_region(m.params, 2, "H100", 1, 10, kv) == "weight-read"
    assert ic.decode_region(m.params, 2, "H100", 64, 32768, kv) == "kv-read"
    assert ic.decode_region(m.params, 2, "H100", 1000, 10, kv) == "compute"
    bk = ic.kv_weight_batch(m.params, 2, 8192, kv)
    assert bk * 8192 * kv == pytest.approx(m.params * 2)


def test_gqa_moves_the_boundary():
    m = ic.model("llama-70b")
    gqa = m.kv_bytes_per_token()
    mha = gqa * m.heads // m.kv_heads
    assert ic.critical_context(m.params, "H100", mha) == pytest.approx(
        ic.critical_context(m.params, "H100", gqa) / (m.heads / m.kv_heads))


# ---------------------------------------------------------------- prefill
def test_prefill_formulas():
    m = ic.model("Llama-3.1-8B")
    h = ic.accelerator("H100")
    p = ic.prefill_step(m, h, 2000)
    assert p.flops_linear == 2 * 2000 * m.active_params
    assert p.flops_attention == 2 * m.layers * 2000 ** 2 * m.heads * m.head_dim
    assert p.flops == p.flops_linear + p.flops_attention
    assert p.bytes_read == pytest.approx(m.decode_weight_bytes(2, 2000) + 2000 * m.kv_bytes_per_token())
    assert p.t_step == max(p.flops / h.peak_flops, p.bytes_read / h.mem_bandwidth)
    assert p.bound == "compute"
    assert ic.prefill_step(m, h, 10).bound == "memory"
    for field in ("flops", "bytes_read", "t_read", "t_compute", "t_step", "bound"):
        assert hasattr(p, field)


def test_prefill_turns_compute_bound_near_b_star():
    m = ic.model("Llama-3.1-8B")
    b_star = ic.batch_turning_point("H100", 2)
    p = np.arange(1, 1000)
    steps = ic.prefill_step(m, "H100", p)
    first = p[np.argmax(steps.bound == "compute")]
    assert 0.8 * b_star < first < 1.2 * b_star


def test_prefill_vectorised_matches_scalar():
    m = ic.model("Qwen3-8B")
    v = ic.prefill_step(m, "A100", [16, 512, 4096])
    for i, p in enumerate([16, 512, 4096]):
        assert ic.prefill_step(m, "A100", p).t_step == pytest.approx(v.t_step[i])


# ------------------------------------------------------------- generation
@settings(max_examples=40)
@given(MODELS, ACCS, st.integers(1, 3000), st.integers(1, 400), st.integers(1, 64),
       st.sampled_from([1, 2, 4, 8]))
def test_generation_total_is_prefill_plus_steps(name, hw, p, o, b, cards):
    g = ic.generation_time(name, hw, p, o, batch=b, cards=cards)
    steps = [ic.tensor_parallel_step(name, hw, cards, batch=b, context=p + j).t_step
             for j in (1, o - 1)] if o > 1 else []
    assert g.total == pytest.approx(g.prefill.t_step + g.step_times.sum(), rel=1e-12)
    assert g.ttft == g.prefill.t_step
    assert len(g.step_times) == o - 1
    if o > 1:
        assert g.step_times[0] == pytest.approx(steps[0], rel=1e-12)
        assert g.step_times[-1] == pytest.approx(steps[-1], rel=1e-12)
        assert g.tpot_last == g.step_times[-1]
        assert np.all(np.diff(g.step_times) >= -1e-18)
    assert g.tokens_per_s_total == pytest.approx(b * g.tokens_per_s_request)


def test_generation_one_output_token_is_prefill():
    g = ic.generation_time("Llama-3.1-8B", "H100", 100, 1)
    assert g.total == g.ttft and g.tpot_mean == 0.0 and g.step_times.size == 0


# --------------------------------------------------------- tensor parallel
@settings(max_examples=100)
@given(MODELS, ACCS, st.integers(1, 512), st.integers(0, 4000), st.sampled_from([0.5, 1, 2]),
       st.sampled_from([1, 2]))
def test_one_card_equals_decode_step(name, hw, b, s, bpp, kvb):
    m = ic.model(name)
    tp = ic.tensor_parallel_step(m, hw, 1, batch=b, context=s, bytes_per_param=bpp,
                                 kv_bytes_per_element=kvb)
    d = ic.decode_step(m.active_params, bpp, hw, batch=b,
                       kv_bytes=b * s * m.kv_bytes_per_token(kvb))
    assert tp.t_comm == 0.0
    assert tp.t_step == pytest.approx(d.t_step, rel=1e-12)
    assert tp.t_read == pytest.approx(d.t_read, rel=1e-12)
    assert tp.t_compute == pytest.approx(d.t_compute, rel=1e-12)
    assert tp.bound == d.bound


def test_tensor_parallel_comm_formula():
    m = ic.model("llama-70b")
    h = ic.accelerator("H100")
    tp = ic.tensor_parallel_step(m, h, 4, batch=8)
    msg = 2 * 8 * m.hidden
    ar = 2 * 3 / 4 * msg / h.link_bandwidth + 2 * 3 * h.link_latency
    assert tp.t_comm == pytest.approx(2 * m.layers * ar)
    assert tp.t_step == pytest.approx(max(tp.t_read, tp.t_compute) + tp.t_comm)
    ov = ic.tensor_parallel_step(m, h, 4, batch=8, overlap_comm=True)
    assert ov.t_step == pytest.approx(max(tp.t_read, tp.t_compute, tp.t_comm))


def test_tensor_parallel_communication_can_dominate():
    tp = ic.tensor_parallel_step("Llama-3.1-8B", "RTX 4090", 8, batch=64)
    assert tp.bound == "communication"


def test_link_bandwidth_is_per_direction_half_the_datasheet_sum():
    assert ic.accelerator("H100").link_bandwidth == 900e9 / 2
    assert "bidirectional" in ic.accelerator("H100").link_source


# ----------------------------------------------------------- bad input
@pytest.mark.parametrize("call, match", [
    (lambda: ic.prefill_step("llama-70b", "H100", -5), "prompt_tokens"),
    (lambda: ic.generation_time("llama-70b", "H100", 100, 0), "output_tokens"),
    (lambda: ic.generation_time("llama-70b", "H100", -1, 10), "prompt_tokens"),
    (lambda: ic.tensor_parallel_step("llama-70b", "H100", 0), "cards"),
    (lambda: ic.tensor_parallel_step("llama-70b", "H100", 2, context=-1), "context"),
    (lambda: ic.tensor_parallel_step("llama-70b", "Ascend 910B", 2), "link_bandwidth"),
    (lambda: ic.generation_time("Llama-2-70B", "H100", 4000, 200), "max_position_embeddings"),
    (lambda: ic.prefill_step("Llama-2-7B", "H100", 5000), "prompt_tokens"),
    (lambda: ic.model_decode_step("Llama-2-7B", "H100", context=4097), "context"),
    (lambda: ic.critical_context(70e9, "H100", 0), "kv_bytes_per_token"),
    (lambda: ic.model_decode_step("Llama-2-7B", "H100", weights="all"), "weights"),
    (lambda: ic.prefill_step("llama-70b", "H100", 100, batch=[1, 2]), "batch .* single"),
    (lambda: ic.prefill_step("llama-70b", "H100", 100, cards=[1, 2]), "cards .* single"),
    (lambda: ic.generation_time("llama-70b", "H100", [100, 200], 10), "prompt_tokens .* single"),
    (lambda: ic.generation_time("llama-70b", "H100", 100, [1, 2]), "output_tokens .* single"),
])
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_context_limit_refused_not_warned():
    with pytest.raises(ValueError, match="4,096"):
        ic.model_decode_step("Llama-2-70B", "H100", context=8192)
    ic.model_decode_step("Llama-2-70B", "H100", context=4096)   # the limit itself is fine


# ------------------------------------------------------------ widget
def test_kv_explorer_updates_in_place():
    pytest.importorskip("ipywidgets")
    from infra_calc.widgets import kv_explorer

    box = kv_explorer()
    bars = list(box.artists["bars"])
    st = box.state()
    assert bars[1].get_width() == pytest.approx(st.t_kv * 1e3)
    box.controls["context"].value = 16384
    st2 = box.state()
    assert st2.t_kv > st.t_kv
    assert list(box.artists["bars"]) == bars            # same artists, updated
    assert bars[1].get_width() == pytest.approx(st2.t_kv * 1e3)
    assert "kv-read" in box.readout.value or "compute" in box.readout.value
    box.controls["model"].value = "Llama-2-7B"          # context is clipped to its 4,096
    assert box.state().context == 4096


# ------------------------------------- results keep the objects they ran on
def test_changed_accelerator_and_model_keep_their_figures():
    """A card changed with ``with_`` (still named "H100 SXM") and a changed model
    (still named "Llama-3.1-8B") stay in every chapter-3 result: a later look-up
    by name would silently revert to the catalog's figures."""
    h = ic.accelerator("H100 SXM")
    fast = h.with_(peak_flops=2 * h.peak_flops, link_bandwidth=2 * h.link_bandwidth)
    assert fast.name == "H100 SXM"
    spec = dataclasses.replace(ic.model("Llama-3.1-8B"), source="a changed copy")
    results = {
        "model_decode_step": ic.model_decode_step(spec, fast, batch=8, context=1024),
        "prefill_step": ic.prefill_step(spec, fast, 2000),
        "tensor_parallel_step": ic.tensor_parallel_step(spec, fast, 2, batch=8, context=1024),
        "generation_time": ic.generation_time(spec, fast, 2000, 16, cards=2),
    }
    results["generation_time.prefill"] = results["generation_time"].prefill
    for what, res in results.items():
        assert res.hw == fast, what
        assert res.hw.peak_flops == 2 * h.peak_flops, what
        assert res.hw.link_bandwidth == 2 * h.link_bandwidth, what
        assert res.model == spec and res.model.source == "a changed copy", what
    st = results["model_decode_step"]
    assert ic.batch_turning_point(st.hw, 1) == 2 * ic.batch_turning_point(h, 1)
