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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .ledger import gated_mlp_params, layer_kv_projection_params

__all__ = ["SUPPORTED_MODEL_TYPES", "spec_fields", "count_parameters"]


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


@dataclass(frozen=True)
class _FFN:
    """The feed-forward blocks of one config: parameters over all layers and what a spec keeps."""

    total: int                # weights and biases over all layers
    intermediate: int         # width of a dense MLP, or of one expert
    num_experts: int = 0
    top_k: int = 0
    expert: int = 0           # parameters of one expert
    moe_layers: int = 0
    bias: int = 0             # MLP biases over all layers (elementwise: vector_params)


def _dense_ffn(c: _Config, rules: _Rules, layers: int, hidden: int) -> _FFN:
    """A gated MLP in every layer, ``3*d*f``, plus ``2*f + d`` biases where the rules read ``mlp_bias``."""
    intermediate = c.get_int("intermediate_size")
    bias = 2 * intermediate + hidden if rules.mlp_bias and c.get_bool("mlp_bias") else 0
    return _FFN(layers * (gated_mlp_params(hidden, intermediate) + bias), intermediate,
                bias=layers * bias)


def _moe_block(experts: int, expert: int, hidden: int) -> int:
    """One MoE layer: ``E`` experts of ``expert`` parameters and a router ``d*E`` (no bias)."""
    return experts * expert + hidden * experts


def _check_top_k(c: _Config, ffn: _FFN, experts_key: str) -> _FFN:
    if ffn.num_experts and ffn.top_k > ffn.num_experts:
        raise c.error(f"'num_experts_per_tok'={ffn.top_k} exceeds {experts_key!r}={ffn.num_experts}")
    return ffn


def _mixtral_ffn(c: _Config, rules: _Rules, layers: int, hidden: int) -> _FFN:
    """Every layer an MoE of ``num_local_experts`` experts of ``intermediate_size``."""
    intermediate = c.get_int("intermediate_size")
    experts = c.get_int("num_local_experts")
    top_k = c.get_int("num_experts_per_tok")
    expert = gated_mlp_params(hidden, intermediate)          # w1, w2, w3
    return _check_top_k(c, _FFN(layers * _moe_block(experts, expert, hidden), intermediate,
                                experts, top_k, expert, layers), "num_local_experts")


def _qwen3_moe_ffn(c: _Config, rules: _Rules, layers: int, hidden: int) -> _FFN:
    """MoE layers of ``moe_intermediate_size`` experts, but a dense MLP of ``intermediate_size``
    in the layers listed in ``mlp_only_layers`` or skipped by ``decoder_sparse_step``."""
    experts = c.get_int("num_experts", minimum=0)
    step = c.get_int("decoder_sparse_step", default=1)
    mlp_only = c.get_int_list("mlp_only_layers")
    bad = [i for i in mlp_only if not 0 <= i < layers]
    if bad:
        raise c.error(f"'mlp_only_layers' holds {bad[0]}, outside 0..{layers - 1}")
    mlp_only = set(mlp_only)
    moe_layers = sum(1 for i in range(layers)
                     if i not in mlp_only and experts > 0 and (i + 1) % step == 0)
    total = intermediate = top_k = expert = 0
    if moe_layers:
        intermediate = c.get_int("moe_intermediate_size")
        top_k = c.get_int("num_experts_per_tok")
        expert = gated_mlp_params(hidden, intermediate)
        total += moe_layers * _moe_block(experts, expert, hidden)
    if layers - moe_layers:
        dense_intermediate = c.get_int("intermediate_size")
        total += (layers - moe_layers) * gated_mlp_params(hidden, dense_intermediate)
    if not moe_layers:                                       # degenerate: every layer dense
        intermediate, experts = dense_intermediate, 0
    return _check_top_k(c, _FFN(total, intermediate, experts, top_k, expert, moe_layers),
                        "num_experts")


@dataclass(frozen=True)
class _Rules:
    """How one ``model_type`` lays out its tensors beyond the shared ones."""

    architecture: str         # the class name when the config lists none
    attention_bias: str | None  # "qkv": always q, k, v; "flag": q, k, v, o if attention_bias
    qk_norm: bool = False     # q_norm and k_norm RMSNorm weights, 2*d_h
    mlp_bias: bool = False    # reads mlp_bias (gate, up, down biases)
    ffn: Callable[[_Config, _Rules, int, int], _FFN] = _dense_ffn


_RULES = {
    "llama": _Rules("LlamaForCausalLM", "flag", mlp_bias=True),
    "mistral": _Rules("MistralForCausalLM", None),
    "qwen2": _Rules("Qwen2ForCausalLM", "qkv"),
    "qwen3": _Rules("Qwen3ForCausalLM", "flag", qk_norm=True),
    "mixtral": _Rules("MixtralForCausalLM", None, ffn=_mixtral_ffn),
    "qwen3_moe": _Rules("Qwen3MoeForCausalLM", "flag", qk_norm=True, ffn=_qwen3_moe_ffn),
}
SUPPORTED_MODEL_TYPES = tuple(_RULES)
"""``model_type`` values whose parameters :meth:`ModelSpec.from_hf_config` counts."""


def _model_type(cfg: dict, label: str) -> str:
    supported = ", ".join(SUPPORTED_MODEL_TYPES)
    mt = cfg.get("model_type")
    if mt is None:
        why = "has no 'model_type' key" if "model_type" not in cfg else "has null for 'model_type'"
        raise ValueError(f"{label} {why}; supported model types: {supported}")
    if not isinstance(mt, str) or mt not in _RULES:
        raise ValueError(f"{label}: unsupported model_type {mt!r}; supported model types: {supported}")
    return mt


def _head_dim(c: _Config, hidden: int, heads: int) -> int:
    if c.cfg.get("head_dim") is not None:
        return c.get_int("head_dim")
    if hidden % heads:
        raise c.error(f"'head_dim' is absent and hidden_size={hidden} is not divisible by "
                      f"num_attention_heads={heads}")
    return hidden // heads


def _attention_vectors(c: _Config, rules: _Rules, hidden: int, q_out: int, kv_out: int,
                       head_dim: int) -> int:
    """Elementwise weights of one layer's attention: its biases and q/k norm scales."""
    vec = 0
    if rules.attention_bias == "qkv":
        vec += q_out + 2 * kv_out                            # q, k, v biases; o has none
    elif rules.attention_bias == "flag" and c.get_bool("attention_bias"):
        vec += q_out + 2 * kv_out + hidden                   # q, k, v and o biases
    if rules.qk_norm:
        vec += 2 * head_dim                                  # q_norm, k_norm
    return vec


def count_parameters(cfg: dict, *, label: str = "config.json") -> dict:
    """Count the parameters of one config dictionary, tensor by tensor.

    Returns the keyword arguments of a ``ModelSpec`` but ``name`` and
    ``source``; ``label`` names the config in error messages.  What differs
    between model types is one row of ``_RULES`` each.

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

    Active parameters are the total less ``(E - k)`` experts in each MoE layer.
    Norm scales and biases are also counted as ``vector_params`` (weights
    applied elementwise, no matrix product).  When absent (or null),
    ``head_dim`` is ``hidden_size // num_attention_heads`` and
    ``num_key_value_heads`` is ``num_attention_heads``;
    ``tie_word_embeddings``, ``attention_bias`` and ``mlp_bias`` default to
    false.
    """
    mt = _model_type(cfg, label)
    rules, c = _RULES[mt], _Config(cfg, label, mt)
    layers = c.get_int("num_hidden_layers")
    hidden = c.get_int("hidden_size")
    vocab = c.get_int("vocab_size")
    heads = c.get_int("num_attention_heads")
    kv_heads = c.get_int("num_key_value_heads", default=heads)
    head_dim = _head_dim(c, hidden, heads)
    if kv_heads > heads or heads % kv_heads:
        raise c.error(f"'num_key_value_heads'={kv_heads} must divide 'num_attention_heads'={heads}")
    tied = c.get_bool("tie_word_embeddings", default=False)

    q_out, kv_out = heads * head_dim, kv_heads * head_dim
    vec = _attention_vectors(c, rules, hidden, q_out, kv_out, head_dim)
    attn = 2 * hidden * q_out + layer_kv_projection_params(hidden, kv_heads, head_dim) + vec  # q, o; k, v
    norms = 2 * hidden                                       # input + post-attention RMSNorm
    ffn = rules.ffn(c, rules, layers, hidden)

    total = vocab * hidden * (1 if tied else 2) + layers * (attn + norms) + ffn.total + hidden
    archs = cfg.get("architectures")
    return dict(
        params=total,
        active_params=total - ffn.moe_layers * (ffn.num_experts - ffn.top_k) * ffn.expert,
        layers=layers, hidden=hidden, heads=heads,
        kv_heads=kv_heads, head_dim=head_dim, intermediate=ffn.intermediate, vocab=vocab,
        num_experts=ffn.num_experts, experts_per_token=ffn.top_k if ffn.num_experts else 0,
        tie_word_embeddings=tied,
        architecture=(archs[0] if isinstance(archs, list) and archs and isinstance(archs[0], str)
                      else rules.architecture),
        max_position_embeddings=c.get_int("max_position_embeddings", default=0, minimum=0),
        vector_params=layers * (vec + norms) + ffn.bias + hidden,  # + the final norm
        moe_layers=ffn.moe_layers if ffn.num_experts else 0,
    )

