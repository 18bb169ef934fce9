"""Reading a Hugging Face ``config.json``: its fields, checked, and exact parameter counts.

:func:`spec_fields` turns a config (a path, a directory holding
``config.json``, or the loaded dictionary) into the keyword arguments of
:class:`~infra_calc.modelspec.ModelSpec`, counting parameters tensor by tensor
for the ``model_type`` values in :data:`SUPPORTED_MODEL_TYPES`.  Errors name
the file and the key.  :meth:`ModelSpec.from_hf_config` is the public entry.
"""
from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from .ledger import gated_mlp_params

__all__ = ["SUPPORTED_MODEL_TYPES", "spec_fields", "count_parameters"]

SUPPORTED_MODEL_TYPES = ("llama", "mistral", "qwen2", "qwen3", "mixtral", "qwen3_moe")
"""``model_type`` values whose parameters :meth:`ModelSpec.from_hf_config` counts."""

_DEFAULT_ARCHITECTURE = {
    "llama": "LlamaForCausalLM",
    "mistral": "MistralForCausalLM",
    "qwen2": "Qwen2ForCausalLM",
    "qwen3": "Qwen3ForCausalLM",
    "mixtral": "MixtralForCausalLM",
    "qwen3_moe": "Qwen3MoeForCausalLM",
}



def spec_fields(path_or_dict, *, name=None, source=None) -> dict:
    """Keyword arguments of a ``ModelSpec`` for one config (see :meth:`ModelSpec.from_hf_config`)."""
    if isinstance(path_or_dict, Mapping):
        cfg = dict(path_or_dict)
        label = "config.json"
        if name is None:
            name = _name_from_dict(cfg)
        if source is None:
            source = "config dict"
    elif isinstance(path_or_dict, (str, os.PathLike)):
        path = Path(path_or_dict)
        if path.is_dir():
            if not (path / "config.json").is_file():
                raise ValueError(f"model directory {str(path)!r} has no config.json")
            path = path / "config.json"
        cfg = _read_json(path)
        label = str(path)
        if name is None:
            name = _name_from_path(path)
        if source is None:
            source = f"config file {path}"
    else:
        raise TypeError(
            "path_or_dict must be a path to a config.json or a dict, "
            f"got {type(path_or_dict).__name__}"
        )
    if not isinstance(name, str) or not name.strip():
        raise TypeError(f"name must be a non-empty string, got {name!r}")
    if not isinstance(source, str):
        raise TypeError(f"source must be a string, got {type(source).__name__}")
    return dict(name=name, source=source, **count_parameters(cfg, label=label))


# ---------------------------------------------------------------- config I/O
def _read_json(path: Path) -> dict:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read model config {str(path)!r}: {exc.strerror or exc}") from exc
    try:
        cfg = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"model config {str(path)!r} is not valid JSON: {exc.msg} "
            f"(line {exc.lineno}, column {exc.colno})"
        ) from exc
    except UnicodeDecodeError as exc:
        raise ValueError(f"model config {str(path)!r} is not valid JSON text: {exc}") from exc
    if not isinstance(cfg, dict):
        raise ValueError(
            f"model config {str(path)!r} must hold a JSON object (a Hugging Face config.json), "
            f"got a JSON {type(cfg).__name__}"
        )
    return cfg


def _name_from_path(path: Path) -> str:
    if path.name == "config.json":
        parent = path.resolve().parent.name
        if parent:
            return parent
    return path.stem or str(path)


def _name_from_dict(cfg: dict) -> str:
    given = cfg.get("_name_or_path")
    if isinstance(given, str) and given.strip():
        return given.rstrip("/").rsplit("/", 1)[-1] or given
    archs = cfg.get("architectures")
    if isinstance(archs, list) and archs and isinstance(archs[0], str):
        return archs[0]
    mt = cfg.get("model_type")
    return f"{mt} model" if isinstance(mt, str) and mt else "model"


# ------------------------------------------------------------ config parsing
_MISSING = object()


class _Config:
    """Typed access to one config dictionary, with errors naming the key."""

    def __init__(self, cfg: dict, label: str, model_type: str):
        self.cfg = cfg
        self.label = label
        self.model_type = model_type

    def get_int(self, key: str, default=_MISSING, minimum: int = 1) -> int:
        value = self.cfg.get(key)
        if value is None:
            if default is _MISSING:
                why = "is missing required key" if key not in self.cfg else "has null for required key"
                raise ValueError(f"{self.label} {why} {key!r} (model_type {self.model_type!r})")
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(
                f"{self.label} key {key!r} must be a whole number, "
                f"got {type(value).__name__} {value!r} (model_type {self.model_type!r})"
            )
        if isinstance(value, float):
            if not value.is_integer():
                raise ValueError(
                    f"{self.label} key {key!r} must be a whole number, got {value!r} "
                    f"(model_type {self.model_type!r})"
                )
            value = int(value)
        if value < minimum:
            raise ValueError(
                f"{self.label} key {key!r} must be >= {minimum}, got {value} "
                f"(model_type {self.model_type!r})"
            )
        return value

    def get_bool(self, key: str, default: bool = False) -> bool:
        value = self.cfg.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise ValueError(
                f"{self.label} key {key!r} must be true or false, "
                f"got {type(value).__name__} {value!r} (model_type {self.model_type!r})"
            )
        return value

    def get_int_list(self, key: str) -> list:
        value = self.cfg.get(key)
        if value is None:
            return []
        if not isinstance(value, (list, tuple)) or any(
            isinstance(v, bool) or not isinstance(v, int) for v in value
        ):
            raise ValueError(
                f"{self.label} key {key!r} must be a list of layer indices, got {value!r} "
                f"(model_type {self.model_type!r})"
            )
        return list(value)

    def error(self, message: str) -> ValueError:
        return ValueError(f"{self.label}: {message} (model_type {self.model_type!r})")


def count_parameters(cfg: dict, *, label: str = "config.json") -> dict:
    """Count the parameters of one config dictionary, tensor by tensor.

    Returns the keyword arguments of a ``ModelSpec`` but ``name`` and
    ``source``; ``label`` names the config in error messages.

    Notes
    -----
    With ``d`` = ``hidden_size``, ``n_q``/``n_kv`` heads of width ``d_h``, FFN
    width ``f`` and vocabulary ``V``:

    * embeddings ``V*d``; LM head another ``V*d`` unless
      ``tie_word_embeddings``; final RMSNorm ``d``;
    * per layer: ``q`` ``d*n_q*d_h``, ``k`` and ``v`` ``d*n_kv*d_h``
      each, ``o`` ``n_q*d_h*d``; two RMSNorm weights ``2*d``;
    * attention biases: ``qwen2`` always has q, k, v biases (none on
      o); ``llama``, ``qwen3`` and ``qwen3_moe`` have q, k, v and o
      biases only when ``attention_bias`` is true; ``mistral`` and
      ``mixtral`` have none;
    * ``qwen3`` and ``qwen3_moe`` add q/k RMSNorm weights, ``2*d_h``;
    * dense MLP gate/up/down ``3*d*f`` (+ ``2*f + d`` biases for
      ``llama`` with ``mlp_bias``);
    * MoE layer: ``E`` experts of ``3*d*f`` each plus a router
      ``d*E`` (no bias).  ``qwen3_moe`` layers listed in
      ``mlp_only_layers`` or skipped by ``decoder_sparse_step`` use a
      dense MLP of ``intermediate_size`` instead.

    Norm scales and biases are also counted as ``vector_params`` (weights
    applied elementwise, no matrix product).  When absent (or null),
    ``head_dim`` is ``hidden_size // num_attention_heads`` and
    ``num_key_value_heads`` is ``num_attention_heads``;
    ``tie_word_embeddings``, ``attention_bias`` and ``mlp_bias`` default to
    false.
    """
    supported = ", ".join(SUPPORTED_MODEL_TYPES)
    mt = cfg.get("model_type")
    if mt is None:
        why = "has no 'model_type' key" if "model_type" not in cfg else "has null for 'model_type'"
        raise ValueError(f"{label} {why}; supported model types: {supported}")
    if not isinstance(mt, str) or mt not in SUPPORTED_MODEL_TYPES:
        raise ValueError(f"{label}: unsupported model_type {mt!r}; supported model types: {supported}")
    c = _Config(cfg, label, mt)

    layers = c.get_int("num_hidden_layers")
    hidden = c.get_int("hidden_size")
    vocab = c.get_int("vocab_size")
    heads = c.get_int("num_attention_heads")
    kv_heads = c.get_int("num_key_value_heads", default=heads)
    if "head_dim" in cfg and cfg["head_dim"] is not None:
        head_dim = c.get_int("head_dim")
    else:
        if hidden % heads:
            raise c.error(
                f"'head_dim' is absent and hidden_size={hidden} is not divisible by "
                f"num_attention_heads={heads}"
            )
        head_dim = hidden // heads
    if kv_heads > heads or heads % kv_heads:
        raise c.error(
            f"'num_key_value_heads'={kv_heads} must divide 'num_attention_heads'={heads}"
        )
    tied = c.get_bool("tie_word_embeddings", default=False)

    q_out, kv_out = heads * head_dim, kv_heads * head_dim

    # ---- attention, per layer
    attn = hidden * q_out + 2 * hidden * kv_out + q_out * hidden
    vec = 0                   # elementwise weights per layer: biases and norm scales
    if mt == "qwen2":
        vec += q_out + 2 * kv_out                        # q, k, v biases; o has none
    elif mt in ("llama", "qwen3", "qwen3_moe") and c.get_bool("attention_bias"):
        vec += q_out + 2 * kv_out + hidden               # q, k, v and o biases
    if mt in ("qwen3", "qwen3_moe"):
        vec += 2 * head_dim                              # q_norm, k_norm
    attn += vec
    norms = 2 * hidden                                   # input + post-attention RMSNorm
    vec += norms
    mlp_bias = 0              # MLP biases over all layers

    # ---- feed-forward, per layer
    num_experts = top_k = 0
    expert = 0                # parameters of one expert
    moe_layers = 0
    if mt in ("llama", "mistral", "qwen2", "qwen3"):
        intermediate = c.get_int("intermediate_size")
        dense_mlp = gated_mlp_params(hidden, intermediate)
        if mt == "llama" and c.get_bool("mlp_bias"):
            dense_mlp += 2 * intermediate + hidden       # gate, up, down biases
            mlp_bias = layers * (2 * intermediate + hidden)
        ffn_total = layers * dense_mlp
    elif mt == "mixtral":
        intermediate = c.get_int("intermediate_size")
        num_experts = c.get_int("num_local_experts")
        top_k = c.get_int("num_experts_per_tok")
        expert = gated_mlp_params(hidden, intermediate)  # w1, w2, w3
        moe_layers = layers
        ffn_total = layers * (num_experts * expert + hidden * num_experts)
    else:  # qwen3_moe
        num_experts = c.get_int("num_experts", minimum=0)
        step = c.get_int("decoder_sparse_step", default=1)
        mlp_only = c.get_int_list("mlp_only_layers")
        bad = [i for i in mlp_only if not 0 <= i < layers]
        if bad:
            raise c.error(f"'mlp_only_layers' holds {bad[0]}, outside 0..{layers - 1}")
        mlp_only = set(mlp_only)
        moe_layers = sum(
            1 for i in range(layers)
            if i not in mlp_only and num_experts > 0 and (i + 1) % step == 0
        )
        dense_layers = layers - moe_layers
        ffn_total = 0
        if moe_layers:
            intermediate = c.get_int("moe_intermediate_size")
            top_k = c.get_int("num_experts_per_tok")
            expert = gated_mlp_params(hidden, intermediate)
            ffn_total += moe_layers * (num_experts * expert + hidden * num_experts)
        if dense_layers:
            dense_intermediate = c.get_int("intermediate_size")
            ffn_total += dense_layers * gated_mlp_params(hidden, dense_intermediate)
        if not moe_layers:                               # degenerate: every layer dense
            intermediate, num_experts = dense_intermediate, 0
    if num_experts and top_k > num_experts:
        key = "num_local_experts" if mt == "mixtral" else "num_experts"
        raise c.error(f"'num_experts_per_tok'={top_k} exceeds {key!r}={num_experts}")

    embed = vocab * hidden
    lm_head = 0 if tied else vocab * hidden
    total = embed + layers * (attn + norms) + ffn_total + hidden + lm_head
    active = total - moe_layers * (num_experts - top_k) * expert

    archs = cfg.get("architectures")
    if isinstance(archs, list) and archs and isinstance(archs[0], str):
        architecture = archs[0]
    else:
        architecture = _DEFAULT_ARCHITECTURE[mt]

    return dict(
        params=total, active_params=active, layers=layers, hidden=hidden, heads=heads,
        kv_heads=kv_heads, head_dim=head_dim, intermediate=intermediate, vocab=vocab,
        num_experts=num_experts, experts_per_token=top_k if num_experts else 0,
        tie_word_embeddings=tied, architecture=architecture,
        max_position_embeddings=c.get_int("max_position_embeddings", default=0, minimum=0),
        vector_params=layers * vec + mlp_bias + hidden,  # + the final norm
        moe_layers=moe_layers if num_experts else 0,
    )


# ------------------------------------------------------------------- catalog
