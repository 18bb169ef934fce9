"""infra_calc.modelspec: the shape of a model, its parameter ledger, KV and weight bytes."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from model_reference import (
    LLAMA31_8B,
    LLAMA32_3B,
    MIXTRAL_8X7B,
    QWEN3_30B_A3B,
    TINY,
    reference_count,
    reference_matmul,
    reference_vector,
)

import infra_calc as ic
from infra_calc.models import model
from infra_calc.modelspec import ModelSpec

KiB = 1024


def test_weight_bytes():
    m = model("qwen3-8b")
    assert m.weight_bytes() == 2 * 8_190_735_360
    assert isinstance(m.weight_bytes(), int)
    assert m.weight_bytes(1) == 8_190_735_360
    assert m.weight_bytes(0.5) == pytest.approx(8_190_735_360 / 2)
    np.testing.assert_allclose(m.weight_bytes([1, 2]), [8_190_735_360, 2 * 8_190_735_360])
    with pytest.raises(ValueError, match="bytes_per_param"):
        m.weight_bytes(0)


def test_kv_bytes_per_token_scales_with_element_size():
    m = model("r1-70b")
    assert m.kv_bytes_per_token(1) == 163_840
    assert isinstance(m.kv_bytes_per_token(1), int)
    assert m.kv_bytes_per_token(0.5) == pytest.approx(81_920.0)
    assert isinstance(m.kv_bytes_per_token(2.0), float)
    out = m.kv_bytes_per_token(np.array([1, 2, 4]))
    np.testing.assert_array_equal(out, [163_840, 327_680, 655_360])
    assert m.kv_bytes_per_token(np.int64(2)) == 327_680


@pytest.mark.parametrize("bad, exc", [
    (0, ValueError), (-2, ValueError), (float("nan"), ValueError),
    (float("inf"), ValueError), ("2", TypeError), (True, TypeError), (None, TypeError),
])
def test_kv_bytes_per_token_rejects_bad_element_size(bad, exc):
    with pytest.raises(exc, match=r"bytes_per_element \(bytes\)"):
        model("qwen3-8b").kv_bytes_per_token(bad)


def test_str_mentions_name_and_kv():
    text = str(model("qwen3-8b"))
    assert "Qwen3-8B" in text and "144 KiB" in text


GOOD = dict(name="toy", params=1000, active_params=1000, layers=2, hidden=16, heads=4,
            kv_heads=2, head_dim=4, intermediate=32, vocab=10)


def test_spec_defaults_and_frozen():
    spec = ModelSpec(**GOOD)
    assert spec.num_experts == 0 and spec.experts_per_token == 0
    assert spec.tie_word_embeddings is False and spec.architecture == "" and spec.source == ""
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.params = 5
    assert ModelSpec(**dict(GOOD, layers=2.0)).layers == 2
    assert type(ModelSpec(**dict(GOOD, layers=np.int64(2))).layers) is int


@pytest.mark.parametrize("changes, exc, field", [
    ({"layers": 0}, ValueError, "layers"),
    ({"hidden": -1}, ValueError, "hidden"),
    ({"vocab": 2.5}, ValueError, "vocab"),
    ({"heads": "4"}, TypeError, "heads"),
    ({"head_dim": True}, TypeError, "head_dim"),
    ({"params": [1000]}, TypeError, "params"),
    ({"kv_heads": 3}, ValueError, "kv_heads"),
    ({"active_params": 2000}, ValueError, "active_params"),
    ({"active_params": 500}, ValueError, "active_params"),
    ({"experts_per_token": 1}, ValueError, "experts_per_token"),
    ({"num_experts": 4, "experts_per_token": 0, "active_params": 500}, ValueError, "experts_per_token"),
    ({"num_experts": 4, "experts_per_token": 5, "active_params": 500}, ValueError, "experts_per_token"),
    ({"num_experts": -1}, ValueError, "num_experts"),
    ({"name": ""}, TypeError, "name"),
    ({"tie_word_embeddings": "no"}, TypeError, "tie_word_embeddings"),
    ({"source": None}, TypeError, "source"),
])
def test_spec_validation_names_field(changes, exc, field):
    with pytest.raises(exc, match=field):
        ModelSpec(**dict(GOOD, **changes))


def test_spec_moe_ok():
    spec = ModelSpec(**dict(GOOD, num_experts=4, experts_per_token=2, active_params=600))
    assert spec.is_moe and spec.active_params == 600


# --------------------------------------------------------------------------
# The parameter ledger, against the tensor listing (not the library's formulas)
# --------------------------------------------------------------------------
LEDGER_CONFIGS = {"Llama-3.1-8B": LLAMA31_8B, "Llama-3.2-3B (tied)": LLAMA32_3B,
                  "Mixtral-8x7B": MIXTRAL_8X7B, "Qwen3-30B-A3B": QWEN3_30B_A3B,
                  **{f"tiny {k}": v for k, v in TINY.items()}}


@pytest.mark.parametrize("cfg", LEDGER_CONFIGS.values(), ids=list(LEDGER_CONFIGS))
def test_ledger_matches_the_tensor_listing(cfg):
    spec = ModelSpec.from_hf_config(cfg)
    k = cfg.get("num_experts_per_tok") if spec.is_moe else None
    assert spec.matmul_params == reference_matmul(cfg, experts_used=k)
    assert spec.body_matmul_params == reference_matmul(cfg, experts_used=k, head=False)
    assert spec.vector_params == reference_vector(cfg)
    assert spec.lm_head_params == spec.embedding_params == cfg["vocab_size"] * cfg["hidden_size"]


@settings(max_examples=150)
@given(st.sampled_from(sorted(TINY)), st.booleans())
def test_ledger_tied_and_untied(key, tied):
    cfg = dict(TINY[key], tie_word_embeddings=tied)
    spec = ModelSpec.from_hf_config(cfg)
    k = cfg.get("num_experts_per_tok") if spec.is_moe else None
    assert spec.matmul_params == reference_matmul(cfg, experts_used=k)
    assert spec.body_matmul_params == reference_matmul(cfg, experts_used=k, head=False)
    # a decoded token multiplies the head; a prompt token only the body
    assert spec.matmul_params - spec.body_matmul_params == spec.lm_head_params


def test_default_vector_params_are_the_norms():
    spec = ModelSpec(**GOOD)
    assert spec.vector_params == 2 * 2 * 16 + 16
    with pytest.raises(ValueError, match="vector_params"):
        ModelSpec(**dict(GOOD, vector_params=-1))


def test_with_kv_heads_is_the_same_model_with_more_kv_heads():
    cfg = dict(LLAMA31_8B)
    spec = ModelSpec.from_hf_config(cfg)
    mha = spec.with_kv_heads(spec.heads)
    assert mha.params == reference_count(dict(cfg, num_key_value_heads=32))
    assert mha.kv_bytes_per_token() == spec.kv_bytes_per_token() * 4
    assert mha.matmul_params == reference_matmul(dict(cfg, num_key_value_heads=32))


def test_attention_flops_counts_qk_and_pv():
    spec = model("Llama-3.1-8B")
    # Q K^T: d_h multiply-adds per (query, key, head, layer); P V: the same again
    per_pair = 2 * spec.head_dim + 2 * spec.head_dim
    assert spec.attention_flops(3, 100) == 3 * 100 * per_pair * spec.heads * spec.layers


# --------------------------------------------------------------------------
# What a decode step reads
# --------------------------------------------------------------------------
def test_decode_weight_bytes_dense_untied():
    m = model("Llama-3.1-8B")
    full = m.weight_bytes(2)
    assert m.decode_weight_bytes(2, 1) == full - 2 * (m.vocab - 1) * m.hidden
    assert m.decode_weight_bytes(2, 10) == full - 2 * (m.vocab - 10) * m.hidden
    # a batch larger than the vocabulary gathers at most the whole table
    assert m.decode_weight_bytes(2, 10 * m.vocab) == full


def test_decode_weight_bytes_tied_reads_everything():
    cfg = dict(TINY["llama"], tie_word_embeddings=True)
    m = ModelSpec.from_hf_config(cfg)
    assert m.decode_weight_bytes(2, 1) == m.weight_bytes(2) == 2 * reference_count(cfg)


def test_decode_weight_bytes_moe_from_the_tensor_listing():
    m = model("Mixtral-8x7B")
    assert m.moe_layers == m.layers == 32
    # batch 1 reads the two experts it uses, and one row of the input table, under either routing
    one = reference_count(MIXTRAL_8X7B, experts_used=2) - (m.vocab - 1) * m.hidden
    assert m.decode_weight_bytes(1, 1) == pytest.approx(one)
    assert m.decode_weight_bytes(1, 1, routing="uniform") == pytest.approx(one)
    # the floor: any batch reads the two experts, plus its own rows
    assert m.decode_weight_bytes(1, 4096) == pytest.approx(one + 4095 * m.hidden, rel=1e-12)
    # the uniform-routing model: a huge batch reads every expert and (up to V) rows
    big = m.decode_weight_bytes(1, 4096, routing="uniform")
    assert big == pytest.approx(reference_count(MIXTRAL_8X7B) - (m.vocab - 4096) * m.hidden,
                                rel=1e-9)
    b = np.arange(1, 200)
    assert np.all(np.diff(m.decode_weight_bytes(2, b, routing="uniform")) > 0)


def test_experts_hit_by_enumeration():
    """The uniform model E(1 - (1 - k/E)^B) is the mean over every routing of B tokens
    (E = 4, k = 2); the floor is the fewest any routing reads."""
    import itertools

    m = ModelSpec.from_hf_config(TINY["mixtral"])          # E = 4, k = 2
    pairs = list(itertools.combinations(range(4), 2))
    for b in (1, 2, 3):
        hits = [len(set().union(*r)) for r in itertools.product(pairs, repeat=b)]
        assert m.experts_hit(b, routing="uniform") == pytest.approx(sum(hits) / len(hits))
        assert m.experts_hit(b) == min(hits) == 2


@given(st.integers(1, 10_000))
def test_experts_hit_floor_at_or_below_the_model(b):
    m = model("Mixtral-8x7B")
    hit = m.experts_hit(b, routing="uniform")
    assert m.experts_hit(b) == m.experts_per_token - 0.0 <= hit + 1e-9
    assert hit <= m.num_experts + 1e-9
    assert m.decode_weight_bytes(2, b) <= m.decode_weight_bytes(2, b, routing="uniform")


def test_floor_and_model_agree_at_batch_one_and_for_dense():
    mx, dense = model("Mixtral-8x7B"), model("Llama-3.1-8B")
    assert mx.experts_hit(1) == mx.experts_hit(1, routing="uniform") == mx.experts_per_token
    assert mx.decode_weight_bytes(1, 1) == mx.decode_weight_bytes(1, 1, routing="uniform")
    b = np.array([1, 8, 64])
    assert np.array_equal(dense.decode_weight_bytes(2, b),
                          dense.decode_weight_bytes(2, b, routing="uniform"))
    assert dense.experts_hit(8) == dense.experts_hit(8, routing="uniform") == 0.0


def test_a_batch_routed_to_the_same_experts_reads_k():
    """Tokens that all pick the same k experts: the distinct experts read, counted by hand,
    is the floor, far below the uniform model's expectation."""
    m = model("Mixtral-8x7B")
    b = 64
    routes = [(3, 5)] * b                       # every token picks experts 3 and 5
    hit = len(set().union(*routes))
    assert hit == m.experts_hit(b) == 2 < m.experts_hit(b, routing="uniform") - 5
    read = m.decode_weight_bytes(1, b)
    assert read == pytest.approx(m.shared_params + b * m.hidden
                                 + m.moe_layers * hit * m.expert_params, rel=1e-12)


@pytest.mark.parametrize("bad", ["mean", "Floor", None, 1])
def test_routing_must_be_named(bad):
    with pytest.raises(ValueError, match="routing must be one of"):
        model("Mixtral-8x7B").experts_hit(4, routing=bad)
    with pytest.raises(ValueError, match="routing must be one of"):
        model("Mixtral-8x7B").decode_weight_bytes(1, 4, routing=bad)


@pytest.mark.parametrize("bad, match", [
    (10**30, "at most"), (1e30, "at most"), (0, ">= 1"), (2.5, "whole number"),
])
def test_decode_weight_bytes_bad_batch_is_clear(bad, match):
    with pytest.raises(ValueError, match=rf"batch \(tokens\) must .*{match}") as info:
        model("Mixtral-8x7B").decode_weight_bytes(batch=bad)
    assert "-9223372036854775808" not in str(info.value)


def test_moe_layers_are_what_the_config_says():
    """A qwen3_moe config with a dense (mlp_only) layer: the spec keeps the config's count of
    expert layers, so the shared weights are the dense layer's MLP and the attention, not a
    count guessed back from params - active (which is 0 when every expert is active)."""
    cfg = {"model_type": "qwen3_moe", "vocab_size": 1000, "hidden_size": 256,
           "intermediate_size": 4096, "moe_intermediate_size": 128, "num_hidden_layers": 4,
           "num_attention_heads": 4, "num_key_value_heads": 2, "num_experts": 8,
           "num_experts_per_tok": 8, "mlp_only_layers": [0], "max_position_embeddings": 4096}
    m = ic.ModelSpec.from_hf_config(cfg)
    assert m.moe_layers == 3
    expert = 3 * 256 * 128
    assert m.routed_expert_params == 3 * 8 * expert
    assert m.shared_params == m.params - 3 * 8 * expert - 1000 * 256
    assert m.shared_params > 3 * 256 * 4096          # the dense layer's MLP is shared


def test_moe_layers_checked():
    base = ic.model("Mixtral-8x7B")
    with pytest.raises(ValueError, match="moe_layers"):
        dataclasses.replace(base, moe_layers=base.layers + 1)
    with pytest.raises(ValueError, match="moe_layers"):
        dataclasses.replace(ic.model("Llama-3.1-8B"), moe_layers=2)
