"""An independent reference for the model tests: every tensor a Hugging Face model holds.

``hf_tensor_shapes`` lists the tensors the way the ``transformers`` modeling
code names them, so counts derived from it (parameters, the matrix weights a
token multiplies, the elementwise weights) do not reuse the library's formulas.
Also public configs (copied from the Hugging Face ``config.json`` files, only
the keys that shape the tensors) and tiny synthetic configs, one per model type.
"""
from __future__ import annotations

import math

__all__ = ["hf_tensor_shapes", "reference_count", "reference_matmul", "reference_vector",
           "shipped_config", "attention_flops_by_pairs", "SHIPPED_FILES",
           "MIXTRAL_8X7B", "MISTRAL_7B_V01", "QWEN25_7B", "QWEN25_3B", "LLAMA31_8B",
           "LLAMA32_3B", "QWEN3_30B_A3B", "PUBLIC_TOTALS", "TINY"]


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


def reference_matmul(cfg, experts_used=None, head=True):
    """Matrix weights one token multiplies (2-D tensors), from the tensor listing.

    The input-embedding table is a gather, not a product, unless it is tied:
    then it is the LM head.  ``head=False`` leaves the LM head out (a prompt
    token at prefill).  ``experts_used`` keeps ``k`` experts per MoE layer.
    """
    shapes = hf_tensor_shapes(cfg, experts_used)
    tied = cfg.get("tie_word_embeddings", False)
    total = 0
    for name, shape in shapes.items():
        if len(shape) != 2:
            continue
        if name == "model.embed_tokens.weight" and not (tied and head):
            continue
        if name == "lm_head.weight" and not head:
            continue
        total += math.prod(shape)
    return total


def reference_vector(cfg):
    """Elementwise weights (1-D tensors: norm scales, biases), from the tensor listing."""
    return sum(math.prod(s) for s in hf_tensor_shapes(cfg).values() if len(s) == 1)


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

SHIPPED_FILES = {"Qwen3-8B": "qwen3-8b.json",
                 "DeepSeek-R1-Distill-Llama-70B": "deepseek-r1-distill-llama-70b.json",
                 "Llama-3.1-8B": "llama-3.1-8b.json", "Llama-2-7B": "llama-2-7b.json",
                 "Llama-2-70B": "llama-2-70b.json", "Mixtral-8x7B": "mixtral-8x7b.json"}


def shipped_config(name):
    """The shipped ``config.json`` of a catalog model, as a dictionary."""
    import json
    from importlib import resources

    res = resources.files("infra_calc") / "data" / "models" / SHIPPED_FILES[name]
    return json.loads(res.read_text(encoding="utf-8"))


def attention_flops_by_pairs(cfg, pairs):
    """FLOPs of ``pairs`` (query, key) pairs: per pair, per head, per layer, ``Q·K`` and ``P·V``,
    ``d_h`` multiply-adds each (2 FLOPs per multiply-add)."""
    d = cfg["hidden_size"]
    nq = cfg["num_attention_heads"]
    hd = cfg.get("head_dim") or d // nq
    return pairs * cfg["num_hidden_layers"] * nq * (2 * hd + 2 * hd)
