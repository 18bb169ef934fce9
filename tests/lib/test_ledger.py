"""infra_calc.ledger: the parameter counts against the tensor listing (not the library's
formulas), the experts a batch hits, and the bytes a decode step reads."""
from __future__ import annotations

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
    hf_tensor_shapes,
    reference_count,
    reference_matmul,
    reference_vector,
)

from infra_calc.ledger import ROUTINGS, check_routing, layer_kv_projection_params
from infra_calc.models import MODELS, model
from infra_calc.modelspec import ModelSpec

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


@pytest.mark.parametrize("cfg", LEDGER_CONFIGS.values(), ids=list(LEDGER_CONFIGS))
def test_kv_projections_match_the_tensor_listing(cfg):
    """The one K/V projection shape (the ledger's, which the config count adds too)."""
    spec = ModelSpec.from_hf_config(cfg)
    kv = sum(np.prod(shape) for name, shape in hf_tensor_shapes(cfg).items()
             if name.endswith(("k_proj.weight", "v_proj.weight")))
    assert spec.kv_projection_params == kv
    assert spec.layers * layer_kv_projection_params(spec.hidden, spec.kv_heads, spec.head_dim) == kv


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


def test_attention_flops_counts_qk_and_pv():
    spec = model("Llama-3.1-8B")
    # Q K^T: d_h multiply-adds per (query, key, head, layer); P V: the same again
    per_pair = 2 * spec.head_dim + 2 * spec.head_dim
    assert spec.attention_flops(tokens=3, context=100) == 3 * 100 * per_pair * spec.heads * spec.layers


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


def test_routed_params_and_the_gathered_row_against_the_tensor_listing():
    """The routed experts one step reads: k per layer at the floor, every one as the
    uniform model's batch grows without bound; one token's row of an untied table, none
    of a tied one (counted from the listing, not the ledger's formulas)."""
    m = model("Mixtral-8x7B")
    every = reference_count(MIXTRAL_8X7B) - reference_count(MIXTRAL_8X7B, experts_used=0)
    two = reference_count(MIXTRAL_8X7B, experts_used=2) - reference_count(MIXTRAL_8X7B,
                                                                          experts_used=0)
    assert m.routed_params_read(1, routing="uniform") == m.routed_params_read(1e6, routing="floor") == two
    assert m.routed_params_read(np.inf, routing="uniform") == every
    assert np.all(model("Llama-3.1-8B").routed_params_read(np.array([1, 64]), routing="uniform") == 0)
    untied = ModelSpec.from_hf_config(dict(TINY["llama"], tie_word_embeddings=False))
    tied = ModelSpec.from_hf_config(dict(TINY["llama"], tie_word_embeddings=True))
    for spec, row in ((untied, TINY["llama"]["hidden_size"]), (tied, 0)):
        assert spec.gathered_row_params == row
        assert spec.decode_weight_bytes(1, 2) - spec.decode_weight_bytes(1, 1) == row


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
        model("Mixtral-8x7B").decode_weight_bytes(2, batch=bad)
    assert "-9223372036854775808" not in str(info.value)


# --------------------------------------------------------------------------
# Behaviour over the whole catalog
# --------------------------------------------------------------------------
def test_check_routing_returns_the_name_and_refuses_any_other():
    assert [check_routing(r) for r in ROUTINGS] == list(ROUTINGS) == ["floor", "uniform"]
    for bad in ("Uniform", "", "random"):
        with pytest.raises(ValueError, match=r"routing must be one of .*floor.*uniform.*got"):
            check_routing(bad)


@pytest.mark.parametrize("name", list(MODELS))
def test_a_step_reads_at_most_what_is_stored_and_more_as_the_batch_grows(name):
    """Every shipped model: the counts nest (multiplied <= active <= stored), a decode step
    reads no more than the stored weights under either routing, the floor no more than the
    model, and a larger batch never reads less."""
    m = model(name)
    assert m.body_matmul_params < m.matmul_params <= m.active_params <= m.params
    assert 0 < m.shared_params <= m.params
    b = np.array([1, 2, 8, 64, 512, 4096])
    floor = m.decode_weight_bytes(1, b)
    uniform = m.decode_weight_bytes(1, b, routing="uniform")
    assert (np.diff(floor) >= 0).all() and (np.diff(uniform) >= 0).all()
    assert (floor <= uniform * (1 + 1e-12)).all()
    assert (uniform <= m.weight_bytes(1) * (1 + 1e-12)).all()
    assert floor[0] == uniform[0]                     # one token: both read its k experts
