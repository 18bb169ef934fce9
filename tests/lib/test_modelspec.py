"""infra_calc.modelspec: the shape of a model, its validation, KV and weight bytes.

The parameter ledger it inherits (infra_calc.ledger): tests/lib/test_ledger.py."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from model_reference import (
    LLAMA31_8B,
    reference_count,
    reference_matmul,
)

import infra_calc as ic
from infra_calc.models import model
from infra_calc.modelspec import ModelSpec

KiB = 1024


GOOD = dict(name="toy", params=1000, active_params=1000, layers=2, hidden=16, heads=4,
            kv_heads=2, head_dim=4, intermediate=32, vocab=10)


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
    with pytest.raises(exc, match=r"^kv_bytes_per_element \(bytes\)"):
        model("qwen3-8b").kv_bytes_per_token(bad)


def test_str_mentions_name_and_kv():
    text = str(model("qwen3-8b"))
    assert "Qwen3-8B" in text and "144 KiB" in text


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
