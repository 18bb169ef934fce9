"""infra_calc.hf_config: config fields, exact parameter counts, errors naming the key."""
from __future__ import annotations

import json
from importlib import resources

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from model_reference import (
    MIXTRAL_8X7B,
    PUBLIC_TOTALS,
    QWEN3_30B_A3B,
    TINY,
    reference_count,
)

from infra_calc.hf_config import SUPPORTED_MODEL_TYPES
from infra_calc.models import model as find_model
from infra_calc.modelspec import ModelSpec


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


def test_null_model_type_is_not_a_missing_key():
    cfg = dict(TINY["llama"], model_type=None)
    with pytest.raises(ValueError, match="has null for 'model_type'") as info:
        ModelSpec.from_hf_config(cfg)
    assert "has no" not in str(info.value)


def test_a_directory_without_config_json_says_so(tmp_path):
    with pytest.raises(ValueError, match="has no config.json"):
        ModelSpec.from_hf_config(tmp_path)
    with pytest.raises(ValueError, match="has no config.json"):
        find_model(str(tmp_path))
