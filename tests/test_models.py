"""Tests for infra_calc.models: exact parameter counts, KV bytes, catalog lookup."""
from __future__ import annotations

import ast
import dataclasses
import json
import math
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infra_calc import models
from infra_calc.models import (
    MODELS,
    SUPPORTED_MODEL_TYPES,
    ModelSpec,
    UnknownModelError,
    model,
    model_names,
    resolve_model,
)

KiB = 1024


# --------------------------------------------------------------------------
# Independent reference: enumerate every tensor the way the Hugging Face
# modeling code names it, then add up the element counts.
# --------------------------------------------------------------------------
def hf_tensor_shapes(cfg, experts_used=None):
    """{tensor name: shape} for a config, mirroring transformers' modules.

    ``experts_used`` limits each MoE layer to its first k experts, which
    gives the parameters one token touches.
    """
    mt = cfg["model_type"]
    d = cfg["hidden_size"]
    nq = cfg["num_attention_heads"]
    nkv = cfg.get("num_key_value_heads") or nq
    hd = cfg.get("head_dim") or d // nq
    V = cfg["vocab_size"]
    L = cfg["num_hidden_layers"]
    attn_bias = bool(cfg.get("attention_bias", False))
    shapes = {"model.embed_tokens.weight": (V, d)}
    for i in range(L):
        p = f"model.layers.{i}."
        shapes[p + "self_attn.q_proj.weight"] = (nq * hd, d)
        shapes[p + "self_attn.k_proj.weight"] = (nkv * hd, d)
        shapes[p + "self_attn.v_proj.weight"] = (nkv * hd, d)
        shapes[p + "self_attn.o_proj.weight"] = (d, nq * hd)
        if mt == "qwen2" or (mt in ("llama", "qwen3", "qwen3_moe") and attn_bias):
            shapes[p + "self_attn.q_proj.bias"] = (nq * hd,)
            shapes[p + "self_attn.k_proj.bias"] = (nkv * hd,)
            shapes[p + "self_attn.v_proj.bias"] = (nkv * hd,)
        if mt in ("llama", "qwen3", "qwen3_moe") and attn_bias:
            shapes[p + "self_attn.o_proj.bias"] = (d,)
        if mt in ("qwen3", "qwen3_moe"):
            shapes[p + "self_attn.q_norm.weight"] = (hd,)
            shapes[p + "self_attn.k_norm.weight"] = (hd,)
        shapes[p + "input_layernorm.weight"] = (d,)
        shapes[p + "post_attention_layernorm.weight"] = (d,)

        if mt == "mixtral":
            E = cfg["num_local_experts"]
            f = cfg["intermediate_size"]
            shapes[p + "block_sparse_moe.gate.weight"] = (E, d)
            for e in range(E if experts_used is None else experts_used):
                q = p + f"block_sparse_moe.experts.{e}."
                shapes[q + "w1.weight"] = (f, d)
                shapes[q + "w2.weight"] = (d, f)
                shapes[q + "w3.weight"] = (f, d)
            continue
        if mt == "qwen3_moe":
            E = cfg["num_experts"]
            step = cfg.get("decoder_sparse_step", 1)
            is_moe = (i not in cfg.get("mlp_only_layers", [])) and E > 0 and (i + 1) % step == 0
            if is_moe:
                f = cfg["moe_intermediate_size"]
                shapes[p + "mlp.gate.weight"] = (E, d)
                for e in range(E if experts_used is None else experts_used):
                    q = p + f"mlp.experts.{e}."
                    shapes[q + "gate_proj.weight"] = (f, d)
                    shapes[q + "up_proj.weight"] = (f, d)
                    shapes[q + "down_proj.weight"] = (d, f)
                continue
        f = cfg["intermediate_size"]
        shapes[p + "mlp.gate_proj.weight"] = (f, d)
        shapes[p + "mlp.up_proj.weight"] = (f, d)
        shapes[p + "mlp.down_proj.weight"] = (d, f)
        if mt == "llama" and cfg.get("mlp_bias", False):
            shapes[p + "mlp.gate_proj.bias"] = (f,)
            shapes[p + "mlp.up_proj.bias"] = (f,)
            shapes[p + "mlp.down_proj.bias"] = (d,)
    shapes["model.norm.weight"] = (d,)
    if not cfg.get("tie_word_embeddings", False):
        shapes["lm_head.weight"] = (V, d)
    return shapes


def reference_count(cfg, experts_used=None):
    return sum(math.prod(s) for s in hf_tensor_shapes(cfg, experts_used).values())


# --------------------------------------------------------------------------
# Public configs (copied from the Hugging Face config.json files; only the
# keys that shape the tensors are kept)
# --------------------------------------------------------------------------
MIXTRAL_8X7B = {
    "architectures": ["MixtralForCausalLM"], "model_type": "mixtral",
    "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
    "num_experts_per_tok": 2, "num_hidden_layers": 32, "num_key_value_heads": 8,
    "num_local_experts": 8, "tie_word_embeddings": False, "vocab_size": 32000,
}
MISTRAL_7B_V01 = {
    "architectures": ["MistralForCausalLM"], "model_type": "mistral",
    "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
    "num_hidden_layers": 32, "num_key_value_heads": 8, "sliding_window": 4096,
    "tie_word_embeddings": False, "vocab_size": 32000,
}
QWEN25_7B = {
    "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
    "hidden_size": 3584, "intermediate_size": 18944, "num_attention_heads": 28,
    "num_hidden_layers": 28, "num_key_value_heads": 4, "tie_word_embeddings": False,
    "vocab_size": 152064,
}
QWEN25_3B = {
    "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
    "hidden_size": 2048, "intermediate_size": 11008, "num_attention_heads": 16,
    "num_hidden_layers": 36, "num_key_value_heads": 2, "tie_word_embeddings": True,
    "vocab_size": 151936,
}
LLAMA31_8B = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama",
    "attention_bias": False, "mlp_bias": False, "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 8, "tie_word_embeddings": False, "vocab_size": 128256,
    "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
}
LLAMA32_3B = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama",
    "attention_bias": False, "mlp_bias": False, "head_dim": 128, "hidden_size": 3072,
    "intermediate_size": 8192, "num_attention_heads": 24, "num_hidden_layers": 28,
    "num_key_value_heads": 8, "tie_word_embeddings": True, "vocab_size": 128256,
}
QWEN3_30B_A3B = {
    "architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe",
    "attention_bias": False, "decoder_sparse_step": 1, "head_dim": 128,
    "hidden_size": 2048, "intermediate_size": 6144, "mlp_only_layers": [],
    "moe_intermediate_size": 768, "num_attention_heads": 32, "num_experts": 128,
    "num_experts_per_tok": 8, "num_hidden_layers": 48, "num_key_value_heads": 4,
    "tie_word_embeddings": False, "vocab_size": 151936,
}

PUBLIC_TOTALS = [
    ("Mixtral-8x7B", MIXTRAL_8X7B, 46_702_792_704),
    ("Mistral-7B-v0.1", MISTRAL_7B_V01, 7_241_732_096),
    ("Qwen2.5-7B", QWEN25_7B, 7_615_616_512),
    ("Qwen2.5-3B", QWEN25_3B, 3_085_938_688),
    ("Llama-3.1-8B", LLAMA31_8B, 8_030_261_248),
    ("Llama-3.2-3B", LLAMA32_3B, 3_212_749_824),
    ("Qwen3-30B-A3B", QWEN3_30B_A3B, 30_532_122_624),
]


# --------------------------------------------------------------------------
# Shipped configs
# --------------------------------------------------------------------------
def test_qwen3_8b_exact():
    m = model("Qwen3-8B")
    assert m.params == 8_190_735_360
    assert m.active_params == m.params
    assert m.kv_bytes_per_token() == 147_456 == 144 * KiB
    assert isinstance(m.kv_bytes_per_token(), int)
    assert (m.layers, m.hidden, m.heads, m.kv_heads, m.head_dim) == (36, 4096, 32, 8, 128)
    assert (m.intermediate, m.vocab) == (12288, 151936)
    assert not m.tie_word_embeddings and not m.is_moe
    assert (m.num_experts, m.experts_per_token) == (0, 0)
    assert m.architecture == "Qwen3ForCausalLM"
    assert "Qwen/Qwen3-8B" in m.source
    # Qwen's model card: 8.2B parameters, 6.95B non-embedding
    assert round(m.params / 1e9, 1) == 8.2
    assert round((m.params - 2 * m.vocab * m.hidden) / 1e9, 2) == 6.95


def test_r1_distill_llama_70b_exact():
    m = model("DeepSeek-R1-Distill-Llama-70B")
    assert m.params == 70_553_706_496
    assert m.kv_bytes_per_token() == 327_680 == 320 * KiB
    assert (m.layers, m.hidden, m.heads, m.kv_heads, m.head_dim) == (80, 8192, 64, 8, 128)
    assert (m.intermediate, m.vocab) == (28672, 128256)
    assert not m.tie_word_embeddings and not m.is_moe
    assert m.architecture == "LlamaForCausalLM"
    assert "deepseek-ai/DeepSeek-R1-Distill-Llama-70B" in m.source


@pytest.mark.parametrize("filename, name", [
    ("qwen3-8b.json", "Qwen3-8B"),
    ("deepseek-r1-distill-llama-70b.json", "DeepSeek-R1-Distill-Llama-70B"),
])
def test_shipped_file_is_package_data_and_matches_reference(filename, name):
    res = resources.files("infra_calc").joinpath("data").joinpath("models").joinpath(filename)
    cfg = json.loads(res.read_text(encoding="utf-8"))
    assert model(name).params == reference_count(cfg)
    assert model(name).active_params == reference_count(cfg)


def test_shipped_configs_are_the_hf_files():
    root = resources.files("infra_calc").joinpath("data").joinpath("models")
    qwen = json.loads(root.joinpath("qwen3-8b.json").read_text(encoding="utf-8"))
    assert qwen["model_type"] == "qwen3" and qwen["architectures"] == ["Qwen3ForCausalLM"]
    assert qwen["torch_dtype"] == "bfloat16" and qwen["tie_word_embeddings"] is False
    assert qwen["max_position_embeddings"] == 40960 and qwen["rope_theta"] == 1000000
    r1 = json.loads(root.joinpath("deepseek-r1-distill-llama-70b.json").read_text(encoding="utf-8"))
    assert r1["model_type"] == "llama" and r1["architectures"] == ["LlamaForCausalLM"]
    assert r1["rope_scaling"]["rope_type"] == "llama3" and r1["rope_theta"] == 500000.0
    assert r1["max_position_embeddings"] == 131072 and r1["tie_word_embeddings"] is False


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


# --------------------------------------------------------------------------
# Public totals
# --------------------------------------------------------------------------
@pytest.mark.parametrize("label, cfg, total", PUBLIC_TOTALS, ids=[p[0] for p in PUBLIC_TOTALS])
def test_public_totals(label, cfg, total):
    spec = ModelSpec.from_hf_config(cfg, name=label)
    assert spec.params == total
    assert reference_count(cfg) == total


def test_mixtral_8x7b_active_and_kv():
    spec = ModelSpec.from_hf_config(MIXTRAL_8X7B)
    assert spec.is_moe and (spec.num_experts, spec.experts_per_token) == (8, 2)
    assert spec.intermediate == 14336
    assert spec.active_params == reference_count(MIXTRAL_8X7B, experts_used=2)
    assert round(spec.active_params / 1e9, 1) == 12.9      # Mistral's "12.9B active"
    assert spec.kv_bytes_per_token() == 2 * 32 * 8 * 128 * 2
    assert spec.architecture == "MixtralForCausalLM"


def test_qwen3_30b_a3b_active():
    spec = ModelSpec.from_hf_config(QWEN3_30B_A3B)
    assert spec.is_moe and (spec.num_experts, spec.experts_per_token) == (128, 8)
    assert spec.intermediate == 768
    assert spec.active_params == reference_count(QWEN3_30B_A3B, experts_used=8)
    assert 3.3e9 <= spec.active_params < 3.4e9             # Qwen's "3.3B activated"
    assert round((spec.params - 2 * spec.vocab * spec.hidden) / 1e9, 1) == 29.9


# --------------------------------------------------------------------------
# Synthetic configs, one per model_type, checked against the tensor listing
# --------------------------------------------------------------------------
TINY = {
    "llama": {"model_type": "llama", "vocab_size": 101, "hidden_size": 24,
              "intermediate_size": 40, "num_hidden_layers": 3, "num_attention_heads": 6,
              "num_key_value_heads": 2},
    "llama_biases": {"model_type": "llama", "vocab_size": 101, "hidden_size": 24,
                     "intermediate_size": 40, "num_hidden_layers": 3, "num_attention_heads": 6,
                     "num_key_value_heads": 2, "attention_bias": True, "mlp_bias": True},
    "llama_tied_no_head_dim_no_kv": {"model_type": "llama", "vocab_size": 50, "hidden_size": 16,
                                     "intermediate_size": 32, "num_hidden_layers": 2,
                                     "num_attention_heads": 4, "tie_word_embeddings": True},
    "mistral": {"model_type": "mistral", "vocab_size": 64, "hidden_size": 32,
                "intermediate_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4,
                "num_key_value_heads": 2, "head_dim": None, "sliding_window": 4096},
    "qwen2": {"model_type": "qwen2", "vocab_size": 77, "hidden_size": 20,
              "intermediate_size": 36, "num_hidden_layers": 2, "num_attention_heads": 4,
              "num_key_value_heads": 2},
    "qwen2_tied": {"model_type": "qwen2", "vocab_size": 77, "hidden_size": 20,
                   "intermediate_size": 36, "num_hidden_layers": 2, "num_attention_heads": 4,
                   "num_key_value_heads": 1, "tie_word_embeddings": True},
    "qwen3": {"model_type": "qwen3", "vocab_size": 90, "hidden_size": 16,
              "intermediate_size": 30, "num_hidden_layers": 3, "num_attention_heads": 4,
              "num_key_value_heads": 2, "head_dim": 8},
    "qwen3_bias": {"model_type": "qwen3", "vocab_size": 90, "hidden_size": 16,
                   "intermediate_size": 30, "num_hidden_layers": 3, "num_attention_heads": 4,
                   "num_key_value_heads": 2, "head_dim": 8, "attention_bias": True},
    "mixtral": {"model_type": "mixtral", "vocab_size": 70, "hidden_size": 16,
                "intermediate_size": 24, "num_hidden_layers": 2, "num_attention_heads": 4,
                "num_key_value_heads": 2, "num_local_experts": 4, "num_experts_per_tok": 2},
    "qwen3_moe": {"model_type": "qwen3_moe", "vocab_size": 70, "hidden_size": 16,
                  "intermediate_size": 40, "moe_intermediate_size": 12,
                  "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
                  "head_dim": 8, "num_experts": 6, "num_experts_per_tok": 2},
    "qwen3_moe_mixed": {"model_type": "qwen3_moe", "vocab_size": 70, "hidden_size": 16,
                        "intermediate_size": 40, "moe_intermediate_size": 12,
                        "num_hidden_layers": 6, "num_attention_heads": 4, "num_key_value_heads": 2,
                        "head_dim": 8, "num_experts": 6, "num_experts_per_tok": 2,
                        "decoder_sparse_step": 2, "mlp_only_layers": [3]},
}


@pytest.mark.parametrize("key", sorted(TINY))
def test_tiny_configs_match_tensor_listing(key):
    cfg = TINY[key]
    spec = ModelSpec.from_hf_config(cfg)
    assert spec.params == reference_count(cfg)
    k = cfg.get("num_experts_per_tok")
    assert spec.active_params == reference_count(cfg, experts_used=k)


def test_tiny_llama_by_hand():
    # V=101, d=24, f=40, L=3, 6 q heads and 2 kv heads of d_h=4
    embed = 101 * 24
    attn = 24 * 24 + 2 * 24 * 8 + 24 * 24
    mlp = 3 * 24 * 40
    per_layer = attn + mlp + 2 * 24
    expected = embed + 3 * per_layer + 24 + embed
    assert ModelSpec.from_hf_config(TINY["llama"]).params == expected
    biases = 24 + 8 + 8 + 24 + 40 + 40 + 24          # q, k, v, o; gate, up, down
    assert ModelSpec.from_hf_config(TINY["llama_biases"]).params == expected + 3 * biases


def test_tied_embeddings_count_once():
    cfg = dict(TINY["llama"])
    untied = ModelSpec.from_hf_config(cfg).params
    cfg["tie_word_embeddings"] = True
    tied = ModelSpec.from_hf_config(cfg)
    assert untied - tied.params == 101 * 24
    assert tied.tie_word_embeddings


def test_defaults_for_missing_head_dim_and_kv_heads():
    spec = ModelSpec.from_hf_config(TINY["llama_tied_no_head_dim_no_kv"])
    assert spec.head_dim == 16 // 4 and spec.kv_heads == 4
    assert spec.kv_bytes_per_token() == 2 * 2 * 4 * 4 * 2


def test_qwen2_biases_on_qkv_only():
    cfg = TINY["qwen2"]
    as_llama = dict(cfg, model_type="llama")
    # q (4*5) + k (2*5) + v (2*5) bias per layer, no o bias
    assert ModelSpec.from_hf_config(cfg).params - ModelSpec.from_hf_config(as_llama).params == 2 * 40


def test_qwen3_adds_qk_norms():
    cfg = TINY["qwen3"]
    as_llama = dict(cfg, model_type="llama")
    assert ModelSpec.from_hf_config(cfg).params - ModelSpec.from_hf_config(as_llama).params == 3 * 2 * 8


def test_tiny_mixtral_by_hand():
    # 4 experts of 3*16*24, router 16*4, top-2
    cfg = TINY["mixtral"]
    spec = ModelSpec.from_hf_config(cfg)
    embed = 70 * 16
    attn = 16 * 16 + 2 * 16 * 8 + 16 * 16
    expert = 3 * 16 * 24
    per_layer = attn + 4 * expert + 16 * 4 + 2 * 16
    assert spec.params == 2 * embed + 2 * per_layer + 16
    assert spec.active_params == spec.params - 2 * (4 - 2) * expert
    assert spec.is_moe and spec.intermediate == 24


def test_qwen3_moe_sparse_step_and_mlp_only_layers():
    cfg = TINY["qwen3_moe_mixed"]
    spec = ModelSpec.from_hf_config(cfg)
    # layers 1 and 5 are MoE ((i+1) % 2 == 0, 3 is listed in mlp_only_layers)
    all_moe = ModelSpec.from_hf_config(dict(cfg, decoder_sparse_step=1, mlp_only_layers=[]))
    moe_layer = 6 * 3 * 16 * 12 + 16 * 6
    dense_layer = 3 * 16 * 40
    assert all_moe.params - spec.params == 4 * (moe_layer - dense_layer)
    assert spec.active_params == spec.params - 2 * (6 - 2) * 3 * 16 * 12
    assert spec.intermediate == 12


def test_qwen3_moe_needs_no_intermediate_size_when_all_layers_are_moe():
    cfg = {k: v for k, v in TINY["qwen3_moe"].items() if k != "intermediate_size"}
    assert ModelSpec.from_hf_config(cfg).params == ModelSpec.from_hf_config(TINY["qwen3_moe"]).params


@st.composite
def random_configs(draw):
    mt = draw(st.sampled_from(SUPPORTED_MODEL_TYPES))
    kv = draw(st.integers(1, 4))
    heads = kv * draw(st.integers(1, 4))
    head_dim = draw(st.integers(1, 8))
    cfg = {"model_type": mt, "vocab_size": draw(st.integers(1, 300)),
           "num_hidden_layers": draw(st.integers(1, 5)), "num_attention_heads": heads,
           "intermediate_size": draw(st.integers(1, 50))}
    if draw(st.booleans()):
        cfg["head_dim"] = head_dim
        cfg["hidden_size"] = draw(st.integers(1, 64))
    else:
        cfg["hidden_size"] = heads * head_dim
    if kv != heads or draw(st.booleans()):
        cfg["num_key_value_heads"] = kv
    if draw(st.booleans()):
        cfg["tie_word_embeddings"] = draw(st.booleans())
    if mt in ("llama", "qwen3", "qwen3_moe") and draw(st.booleans()):
        cfg["attention_bias"] = draw(st.booleans())
    if mt == "llama" and draw(st.booleans()):
        cfg["mlp_bias"] = draw(st.booleans())
    if mt == "mixtral":
        cfg["num_local_experts"] = draw(st.integers(1, 5))
        cfg["num_experts_per_tok"] = draw(st.integers(1, cfg["num_local_experts"]))
    if mt == "qwen3_moe":
        cfg["num_experts"] = draw(st.integers(1, 5))
        cfg["num_experts_per_tok"] = draw(st.integers(1, cfg["num_experts"]))
        cfg["moe_intermediate_size"] = draw(st.integers(1, 20))
        cfg["decoder_sparse_step"] = draw(st.integers(1, 3))
        cfg["mlp_only_layers"] = draw(st.lists(
            st.integers(0, cfg["num_hidden_layers"] - 1), unique=True, max_size=3))
    return cfg


@settings(max_examples=200)
@given(random_configs())
def test_random_configs_match_tensor_listing(cfg):
    spec = ModelSpec.from_hf_config(cfg)
    assert spec.params == reference_count(cfg)
    k = cfg.get("num_experts_per_tok") if spec.is_moe else None
    assert spec.active_params == reference_count(cfg, experts_used=k)
    nkv = cfg.get("num_key_value_heads", cfg["num_attention_heads"])
    hd = cfg.get("head_dim", cfg["hidden_size"] // cfg["num_attention_heads"])
    assert spec.kv_bytes_per_token(2) == 2 * cfg["num_hidden_layers"] * nkv * hd * 2


# --------------------------------------------------------------------------
# Reading files
# --------------------------------------------------------------------------
def test_from_dict_and_from_path_agree(tmp_path):
    root = resources.files("infra_calc").joinpath("data").joinpath("models")
    cfg = json.loads(root.joinpath("qwen3-8b.json").read_text(encoding="utf-8"))
    d = tmp_path / "Qwen3-8B"
    d.mkdir()
    path = d / "config.json"
    path.write_text(json.dumps(cfg))
    from_dict = ModelSpec.from_hf_config(cfg)
    from_str = ModelSpec.from_hf_config(str(path))
    from_path = ModelSpec.from_hf_config(path)
    from_dir = ModelSpec.from_hf_config(d)
    assert from_dict.params == from_str.params == from_path.params == from_dir.params == 8_190_735_360
    assert from_path.name == "Qwen3-8B"          # directory name for .../config.json
    assert str(path) in from_path.source
    assert from_dict.name == "Qwen3ForCausalLM"  # no _name_or_path: the architecture
    other = tmp_path / "my-model.json"
    other.write_text(json.dumps(cfg))
    assert ModelSpec.from_hf_config(other).name == "my-model"
    assert ModelSpec.from_hf_config(other, name="X", source="S").name == "X"
    assert ModelSpec.from_hf_config(dict(cfg, _name_or_path="Qwen/Qwen3-8B")).name == "Qwen3-8B"


def test_invalid_json_names_path(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"model_type": "llama",')
    with pytest.raises(ValueError, match="not valid JSON") as info:
        ModelSpec.from_hf_config(path)
    assert str(path) in str(info.value)


def test_missing_file_names_path(tmp_path):
    path = tmp_path / "nope" / "config.json"
    with pytest.raises(ValueError, match="cannot read") as info:
        ModelSpec.from_hf_config(str(path))
    assert str(path) in str(info.value)


def test_json_that_is_not_an_object(tmp_path):
    path = tmp_path / "list.json"
    path.write_text("[1, 2]")
    with pytest.raises(ValueError, match="JSON object") as info:
        ModelSpec.from_hf_config(path)
    assert str(path) in str(info.value)


def test_non_path_non_dict_is_type_error():
    with pytest.raises(TypeError, match="path_or_dict"):
        ModelSpec.from_hf_config(42)


# --------------------------------------------------------------------------
# Config errors
# --------------------------------------------------------------------------
def test_missing_required_key_named():
    cfg = {k: v for k, v in TINY["llama"].items() if k != "num_hidden_layers"}
    with pytest.raises(ValueError) as info:
        ModelSpec.from_hf_config(cfg)
    msg = str(info.value)
    assert "missing required key 'num_hidden_layers'" in msg
    assert "model_type 'llama'" in msg


@pytest.mark.parametrize("mt, key", [
    ("mixtral", "num_local_experts"), ("mixtral", "num_experts_per_tok"),
    ("qwen3_moe", "moe_intermediate_size"), ("qwen3_moe", "num_experts"),
    ("qwen2", "intermediate_size"), ("qwen3", "vocab_size"), ("mistral", "hidden_size"),
])
def test_missing_key_per_model_type(mt, key):
    base = {"mixtral": TINY["mixtral"], "qwen3_moe": TINY["qwen3_moe"], "qwen2": TINY["qwen2"],
            "qwen3": TINY["qwen3"], "mistral": TINY["mistral"]}[mt]
    cfg = {k: v for k, v in base.items() if k != key}
    with pytest.raises(ValueError, match=f"missing required key '{key}'"):
        ModelSpec.from_hf_config(cfg)


def test_missing_key_from_file_names_path_and_key(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({k: v for k, v in TINY["qwen3"].items() if k != "hidden_size"}))
    with pytest.raises(ValueError, match="missing required key 'hidden_size'") as info:
        ModelSpec.from_hf_config(path)
    assert str(path) in str(info.value)


def test_unsupported_model_type_lists_supported():
    with pytest.raises(ValueError, match="unsupported model_type 'gpt2'") as info:
        ModelSpec.from_hf_config({"model_type": "gpt2", "n_layer": 12})
    for mt in SUPPORTED_MODEL_TYPES:
        assert mt in str(info.value)


def test_missing_model_type_lists_supported():
    cfg = {k: v for k, v in TINY["llama"].items() if k != "model_type"}
    with pytest.raises(ValueError, match="model_type") as info:
        ModelSpec.from_hf_config(cfg)
    assert "qwen3_moe" in str(info.value)


@pytest.mark.parametrize("key, value", [
    ("hidden_size", "24"), ("num_hidden_layers", True), ("vocab_size", 10.5),
    ("num_attention_heads", [6]), ("intermediate_size", 0), ("num_key_value_heads", -2),
    ("head_dim", "4"), ("tie_word_embeddings", "false"), ("attention_bias", 1),
    ("mlp_bias", "yes"),
])
def test_wrong_types_name_the_key(key, value):
    cfg = dict(TINY["llama"], **{key: value})
    with pytest.raises(ValueError, match=repr(key)):
        ModelSpec.from_hf_config(cfg)


def test_integral_float_accepted():
    cfg = dict(TINY["llama"], hidden_size=24.0)
    assert ModelSpec.from_hf_config(cfg).params == ModelSpec.from_hf_config(TINY["llama"]).params


def test_inconsistent_configs():
    with pytest.raises(ValueError, match="num_key_value_heads"):
        ModelSpec.from_hf_config(dict(TINY["llama"], num_key_value_heads=4))
    with pytest.raises(ValueError, match="num_experts_per_tok"):
        ModelSpec.from_hf_config(dict(TINY["mixtral"], num_experts_per_tok=5))
    with pytest.raises(ValueError, match="mlp_only_layers"):
        ModelSpec.from_hf_config(dict(TINY["qwen3_moe"], mlp_only_layers=[9]))
    with pytest.raises(ValueError, match="mlp_only_layers"):
        ModelSpec.from_hf_config(dict(TINY["qwen3_moe"], mlp_only_layers="all"))
    with pytest.raises(ValueError, match="head_dim"):
        ModelSpec.from_hf_config(dict(TINY["llama"], hidden_size=25))


# --------------------------------------------------------------------------
# ModelSpec construction
# --------------------------------------------------------------------------
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
# Catalog and lookup
# --------------------------------------------------------------------------
@pytest.mark.parametrize("alias", [
    "Qwen3-8B", "qwen3-8b", "Qwen3 8B", "QWEN3_8B", "qwen3.8b", "qwen-3-8b", "Qwen/Qwen3-8B",
])
def test_qwen_aliases(alias):
    assert model(alias).name == "Qwen3-8B"


@pytest.mark.parametrize("alias", [
    "DeepSeek-R1-Distill-Llama-70B", "deepseek-r1-distill-llama-70b", "deepseek_r1_distill_llama_70b",
    "llama-70b", "Llama 70B", "r1-70b", "R1 70B", "deepseek-ai/DeepSeek-R1-Distill-Llama-70B",
    "llama-3.3-70b",
])
def test_r1_aliases(alias):
    assert model(alias).name == "DeepSeek-R1-Distill-Llama-70B"


def test_model_names_and_mapping():
    assert model_names() == ["Qwen3-8B", "DeepSeek-R1-Distill-Llama-70B", "Llama-3.1-8B",
                             "Llama-2-7B", "Llama-2-70B", "Mixtral-8x7B"]   # + chapter 3's
    assert list(MODELS) == model_names() and len(MODELS) == 6
    assert "qwen3 8b" in MODELS and "gpt-5" not in MODELS and 3 not in MODELS
    assert MODELS["r1-70b"] is model("DeepSeek-R1-Distill-Llama-70B")
    assert MODELS.get("gpt-5") is None
    assert dict(MODELS)["Qwen3-8B"].params == 8_190_735_360
    with pytest.raises(TypeError):
        MODELS["x"] = model("qwen3-8b")


def test_unknown_name_lists_known_names():
    with pytest.raises(ValueError) as info:
        model("gpt-5")
    msg = str(info.value)
    assert "gpt-5" in msg and "Qwen3-8B" in msg and "DeepSeek-R1-Distill-Llama-70B" in msg
    assert isinstance(info.value, KeyError) and isinstance(info.value, UnknownModelError)
    with pytest.raises(KeyError):
        MODELS["gpt-5"]


def test_model_type_errors_and_passthrough():
    spec = model("qwen3-8b")
    assert model(spec) is spec
    with pytest.raises(TypeError):
        model(8)


def test_catalog_is_lazy():
    models._load.cache_clear()
    list(MODELS), len(MODELS), model_names(), "qwen3-8b" in MODELS
    assert models._load.cache_info().currsize == 0
    MODELS["qwen3-8b"]
    assert models._load.cache_info().currsize == 1


def test_module_avoids_heavy_imports():
    tree = ast.parse(Path(models.__file__).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imported.add(node.module.split(".")[0])
    assert not imported & {"sympy", "matplotlib", "ipywidgets"}


def test_resolve_model(tmp_path):
    spec = model("qwen3-8b")
    assert resolve_model(spec) is spec
    assert resolve_model("r1-70b").params == 70_553_706_496
    cfg_dir = tmp_path / "tiny-mixtral"
    cfg_dir.mkdir()
    path = cfg_dir / "config.json"
    path.write_text(json.dumps(TINY["mixtral"]))
    expected = reference_count(TINY["mixtral"])
    assert resolve_model(str(path)).params == expected
    assert resolve_model(path).params == expected
    assert resolve_model(str(cfg_dir)).params == expected
    assert resolve_model(str(cfg_dir)).name == "tiny-mixtral"
    assert resolve_model(TINY["mixtral"]).params == expected
    odd = tmp_path / "weights.cfg"                 # existing file without .json
    odd.write_text(json.dumps(TINY["qwen2"]))
    assert resolve_model(str(odd)).params == reference_count(TINY["qwen2"])
    with pytest.raises(ValueError) as info:
        resolve_model(str(tmp_path / "missing.json"))
    assert "missing.json" in str(info.value)
    with pytest.raises(ValueError, match="known names"):
        resolve_model("no-such-model")
    with pytest.raises(TypeError):
        resolve_model(3.5)
