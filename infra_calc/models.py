"""Model shapes: parameter counts and KV-cache bytes from a Hugging Face config.

A :class:`ModelSpec` holds the handful of numbers the performance chapters
need: the total parameter count ``P`` (which fixes the weight bytes every
decode step streams), the layer and head geometry (which fixes the KV cache
per token) and, for mixture-of-experts models, how many parameters one token
actually touches.

:meth:`ModelSpec.from_hf_config` reads a Hugging Face ``config.json`` and
counts parameters *exactly*, tensor by tensor, for the ``llama``, ``mistral``,
``qwen2``, ``qwen3``, ``mixtral`` and ``qwen3_moe`` model types.  Two real
configs ship with the package (``infra_calc/data/models/*.json``) and are
reachable by forgiving names through :func:`model` and :data:`MODELS`; they
are parsed on first use, so importing this module is cheap.

Examples
--------
>>> from infra_calc.models import model
>>> m = model("qwen3 8b")
>>> m.params
8190735360
>>> m.kv_bytes_per_token()          # BF16 K and V, all 36 layers
147456
>>> model("r1-70b").kv_bytes_per_token(bytes_per_element=1)   # FP8 cache
163840
"""
from __future__ import annotations

import functools
import json
import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from ._names import NameIndex
from ._validate import check_int, check_number

__all__ = [
    "ModelSpec",
    "MODELS",
    "SUPPORTED_MODEL_TYPES",
    "UnknownModelError",
    "model",
    "model_names",
    "resolve_model",
]

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

# (field, unit, minimum) for the integer fields of ModelSpec
_INT_FIELDS = (
    ("params", "parameters", 1),
    ("active_params", "parameters", 1),
    ("layers", "layers", 1),
    ("hidden", "features", 1),
    ("heads", "heads", 1),
    ("kv_heads", "heads", 1),
    ("head_dim", "features", 1),
    ("intermediate", "features", 1),
    ("vocab", "tokens", 1),
    ("num_experts", "experts", 0),
    ("experts_per_token", "experts", 0),
    ("max_position_embeddings", "tokens", 0),
)


@dataclass(frozen=True)
class ModelSpec:
    """Shape of one decoder-only transformer.

    Parameters
    ----------
    name : str
        Display name, e.g. ``"Qwen3-8B"``.
    params : int
        Total parameter count ``P`` (embeddings, every expert and the
        LM head included; a tied LM head is counted once).
    active_params : int
        Parameters one token uses.  Equal to ``params`` for a dense model;
        for a mixture-of-experts model it is everything except the
        experts the router did not select: shared weights plus
        ``experts_per_token`` experts in each MoE layer.
    layers : int
        Number of decoder layers ``L``.
    hidden : int
        Model width ``d`` (``hidden_size``).
    heads : int
        Query heads ``n_q`` per layer.
    kv_heads : int
        Key/value heads ``n_kv`` per layer (``n_kv < n_q`` is grouped-query
        attention); must divide ``heads``.
    head_dim : int
        Width of one attention head ``d_h``.
    intermediate : int
        FFN inner width: the dense MLP's ``intermediate_size``, or one
        expert's width (``moe_intermediate_size``) for MoE models.
    vocab : int
        Vocabulary size ``V``, in tokens.
    num_experts : int, optional
        Routed experts per MoE layer; 0 (the default) for a dense model.
    experts_per_token : int, optional
        Experts the router selects per token (top-k); 0 for a dense model.
    tie_word_embeddings : bool, optional
        True when the LM head shares the input-embedding matrix.
    architecture : str, optional
        Hugging Face architecture class, e.g. ``"LlamaForCausalLM"``.
    source : str, optional
        Where the numbers come from, e.g.
        ``"Hugging Face Qwen/Qwen3-8B config.json"``.
    max_position_embeddings : int, optional
        Longest context the model was built for, in tokens (the config's
        ``max_position_embeddings``); 0 (the default) means unknown.

    Raises
    ------
    TypeError
        A field has the wrong type (the message names the field).
    ValueError
        A field is out of range or the fields contradict each other.
    """

    name: str
    params: int
    active_params: int
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    vocab: int
    num_experts: int = 0
    experts_per_token: int = 0
    tie_word_embeddings: bool = False
    architecture: str = ""
    source: str = ""
    max_position_embeddings: int = 0

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip():
            raise TypeError(f"name must be a non-empty string, got {self.name!r}")
        for field, unit, minimum in _INT_FIELDS:
            raw = getattr(self, field)
            if np.ndim(raw) != 0:
                raise TypeError(f"{field} ({unit}) must be a single whole number, not an array")
            object.__setattr__(self, field, check_int(raw, field, unit, minimum=minimum))
        if isinstance(self.tie_word_embeddings, np.bool_):
            object.__setattr__(self, "tie_word_embeddings", bool(self.tie_word_embeddings))
        if not isinstance(self.tie_word_embeddings, bool):
            raise TypeError(
                f"tie_word_embeddings must be a bool, got {type(self.tie_word_embeddings).__name__}"
            )
        for field in ("architecture", "source"):
            if not isinstance(getattr(self, field), str):
                raise TypeError(f"{field} must be a string, got {type(getattr(self, field)).__name__}")

        if self.kv_heads > self.heads or self.heads % self.kv_heads:
            raise ValueError(
                f"kv_heads (heads) must divide heads: got kv_heads={self.kv_heads}, heads={self.heads}"
            )
        if self.active_params > self.params:
            raise ValueError(
                f"active_params (parameters) must be <= params: got {self.active_params} > {self.params}"
            )
        if self.num_experts == 0:
            if self.experts_per_token != 0:
                raise ValueError(
                    f"experts_per_token (experts) must be 0 for a dense model (num_experts=0), "
                    f"got {self.experts_per_token}"
                )
            if self.active_params != self.params:
                raise ValueError(
                    f"active_params (parameters) must equal params for a dense model (num_experts=0): "
                    f"got {self.active_params} != {self.params}"
                )
        elif not 1 <= self.experts_per_token <= self.num_experts:
            raise ValueError(
                f"experts_per_token (experts) must be between 1 and num_experts={self.num_experts} "
                f"for a mixture-of-experts model, got {self.experts_per_token}"
            )

    # ------------------------------------------------------------------ sizes
    @property
    def is_moe(self) -> bool:
        """True for a mixture-of-experts model (``num_experts > 0``)."""
        return self.num_experts > 0

    def kv_bytes_per_token(self, bytes_per_element=2):
        """KV-cache bytes one token occupies, summed over all layers.

        .. math:: m_{KV} = 2 \\cdot L \\cdot n_{kv} \\cdot d_h \\cdot b

        The factor 2 is one key and one value vector; ``L`` is ``layers``,
        ``n_kv`` is ``kv_heads`` (so grouped-query attention shrinks the
        cache by ``heads / kv_heads``), ``d_h`` is ``head_dim`` and ``b`` is
        ``bytes_per_element``.

        Parameters
        ----------
        bytes_per_element : float or array_like, optional
            Bytes per cached element, in bytes: 2 for BF16/FP16 (default),
            1 for FP8, 0.5 for 4-bit.

        Returns
        -------
        int, float or numpy.ndarray
            Bytes per token (bytes/token).  An ``int`` when
            ``bytes_per_element`` is an integer, a ``float`` for other
            scalars, a float array for array input.

        Raises
        ------
        TypeError, ValueError
            ``bytes_per_element`` is not a positive finite number.

        Examples
        --------
        >>> from infra_calc.models import model
        >>> model("Qwen3-8B").kv_bytes_per_token()      # 2*36*8*128*2
        147456
        """
        per_element = 2 * self.layers * self.kv_heads * self.head_dim
        return _scale(per_element, bytes_per_element, "bytes_per_element")

    def weight_bytes(self, bytes_per_param=2):
        """Bytes needed to hold every parameter: ``params * bytes_per_param``.

        Parameters
        ----------
        bytes_per_param : float or array_like, optional
            Bytes per weight, in bytes: 2 for BF16 (default), 1 for FP8,
            0.5 for 4-bit.

        Returns
        -------
        int, float or numpy.ndarray
            Weight bytes (bytes); an ``int`` when ``bytes_per_param`` is an
            integer.

        Raises
        ------
        TypeError, ValueError
            ``bytes_per_param`` is not a positive finite number.

        Examples
        --------
        >>> from infra_calc.models import model
        >>> model("Qwen3-8B").weight_bytes()
        16381470720
        """
        return _scale(self.params, bytes_per_param, "bytes_per_param")

    @property
    def expert_params(self) -> int:
        """Parameters of one routed expert (gate, up and down): ``3 d f``; 0 if dense."""
        return 3 * self.hidden * self.intermediate if self.is_moe else 0

    @property
    def moe_layers(self) -> int:
        """Decoder layers that hold routed experts (0 for a dense model).

        Recovered from ``params - active_params = L_moe (E - k) P_expert``.
        """
        if not self.is_moe or self.num_experts == self.experts_per_token:
            return self.layers if self.is_moe else 0
        idle = (self.num_experts - self.experts_per_token) * self.expert_params
        return int(round((self.params - self.active_params) / idle))

    def experts_hit(self, batch=1):
        """Expected distinct experts per MoE layer that a batch of tokens touches.

        With uniform routing of ``k`` of ``E`` experts per token,

        .. math:: E_{hit}(B) = E\\,\\bigl(1 - (1 - k/E)^B\\bigr),

        which is ``k`` at ``B = 1`` and tends to ``E``.  0 for a dense model.

        Parameters
        ----------
        batch : int or array_like
            Tokens routed in the same step, ``B`` (>= 1).
        """
        b = check_int(batch, "batch", "tokens", minimum=1)
        if not self.is_moe:
            return 0.0 if np.ndim(b) == 0 else np.zeros(np.shape(b))
        e, k = self.num_experts, self.experts_per_token
        hit = e * (1.0 - (1.0 - k / e) ** np.asarray(b, dtype=float))
        return float(hit) if np.ndim(hit) == 0 else hit

    def decode_weight_bytes(self, bytes_per_param=2, batch=1):
        """Weight bytes one decode step really reads, in bytes.

        .. math:: R_W(B) = b_W\\,\\bigl(P - V d + \\min(B, V)\\,d
                  - L_{moe}\\,(E - E_{hit}(B))\\,P_{expert}\\bigr)

        - every weight is read once, except that an *untied* input
          embedding table (``V d``) contributes only the ``B`` rows it
          gathers (at most ``V``);
        - a *tied* table is read in full once, as the output head (no
          correction);
        - in each of the ``L_moe`` MoE layers only the experts the batch
          hits are read: :meth:`experts_hit` of ``E``, each of
          ``P_expert = 3 d f`` parameters (uniform routing).

        J07 and J13 keep the source's ``N b_W``; this is the refinement of
        chapter 3.

        Parameters
        ----------
        bytes_per_param : float or array_like, optional
            Bytes per weight, in bytes (2 = BF16).
        batch : int or array_like, optional
            Tokens decoded in the step, ``B`` (>= 1).

        Returns
        -------
        float or numpy.ndarray
            Bytes.

        Examples
        --------
        >>> from infra_calc.models import model
        >>> m = model("Qwen3-8B")
        >>> m.weight_bytes() - m.decode_weight_bytes()   # the untied table, less one row
        1244651520.0
        """
        bw = check_number(bytes_per_param, "bytes_per_param", "bytes/parameter")
        b = check_int(batch, "batch", "tokens", minimum=1)
        count = np.asarray(float(self.params))
        if not self.tie_word_embeddings:
            count = count - self.vocab * self.hidden + np.minimum(b, self.vocab) * self.hidden
        if self.is_moe:
            count = count - self.moe_layers * (self.num_experts - np.asarray(self.experts_hit(b))) \
                * self.expert_params
        out = bw * count
        return float(out) if np.ndim(out) == 0 else out

    def check_context(self, tokens, name="context"):
        """Refuse a context longer than ``max_position_embeddings``.

        Raises
        ------
        ValueError
            ``tokens`` exceeds the model's maximum position embeddings (the
            message names the parameter, the model and the limit).  Nothing
            is checked when the limit is unknown (0).
        """
        limit = self.max_position_embeddings
        if limit and np.any(np.asarray(tokens) > limit):
            worst = int(np.max(tokens))
            raise ValueError(
                f"{name} (tokens) must be <= {limit:,}, the max_position_embeddings of "
                f"{self.name}; got {worst:,}")

    def __str__(self) -> str:
        moe = (f", MoE {self.experts_per_token}/{self.num_experts} experts, "
               f"{self.active_params / 1e9:.2f}B active") if self.is_moe else ""
        return (f"{self.name}: {self.params / 1e9:.2f}B params{moe}, {self.layers} layers, "
                f"{self.heads} q / {self.kv_heads} kv heads x {self.head_dim}, "
                f"{self.kv_bytes_per_token() / 1024:g} KiB KV/token (BF16)")

    # ------------------------------------------------------------ from config
    @classmethod
    def from_hf_config(cls, path_or_dict, name=None, *, source=None) -> ModelSpec:
        """Build a spec from a Hugging Face ``config.json``, counting parameters exactly.

        Parameters
        ----------
        path_or_dict : str, os.PathLike or Mapping
            Path to a ``config.json`` (or to a directory holding one), or
            the already-loaded config dictionary.
        name : str, optional
            Display name.  Defaults to the directory name for
            ``.../<model>/config.json``, the file stem for other paths, and
            ``_name_or_path`` (else the architecture) for a dictionary.
        source : str, optional
            Provenance recorded in :attr:`ModelSpec.source`.  Defaults to
            the file path, or ``"config dict"``.

        Returns
        -------
        ModelSpec

        Raises
        ------
        ValueError
            The file cannot be read or is not valid JSON (the message names
            the path); ``model_type`` is missing or not one of
            :data:`SUPPORTED_MODEL_TYPES` (the message lists them); a
            required key is missing, or a key holds the wrong type or an
            out-of-range value (the message names the key).
        TypeError
            ``path_or_dict`` is neither a path nor a mapping.

        Notes
        -----
        Tensor by tensor, with ``d`` = ``hidden_size``, ``n_q``/``n_kv``
        heads of width ``d_h``, FFN width ``f`` and vocabulary ``V``:

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

        When absent (or null), ``head_dim`` is ``hidden_size //
        num_attention_heads`` and ``num_key_value_heads`` is
        ``num_attention_heads``; ``tie_word_embeddings``,
        ``attention_bias`` and ``mlp_bias`` default to false.

        Examples
        --------
        >>> cfg = {"model_type": "llama", "vocab_size": 128256, "hidden_size": 4096,
        ...        "intermediate_size": 14336, "num_hidden_layers": 32,
        ...        "num_attention_heads": 32, "num_key_value_heads": 8}
        >>> ModelSpec.from_hf_config(cfg, name="Llama-3.1-8B").params
        8030261248
        """
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
        counts = _count(cfg, label)
        return cls(name=name, source=source, **counts)


def _scale(count: int, factor, name: str):
    """``count * factor`` with ``factor`` validated as positive bytes."""
    value = check_number(factor, name, "bytes")
    if isinstance(factor, numbers.Integral) and not isinstance(factor, (bool, np.bool_)):
        return count * int(factor)
    return count * value


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


def _count(cfg: dict, label: str) -> dict:
    """Count parameters of one config; return ModelSpec keyword arguments."""
    supported = ", ".join(SUPPORTED_MODEL_TYPES)
    mt = cfg.get("model_type")
    if mt is None:
        raise ValueError(f"{label} has no 'model_type' key; supported model types: {supported}")
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
    if mt == "qwen2":
        attn += q_out + 2 * kv_out                       # q, k, v biases; o has none
    elif mt in ("llama", "qwen3", "qwen3_moe") and c.get_bool("attention_bias"):
        attn += q_out + 2 * kv_out + hidden              # q, k, v and o biases
    if mt in ("qwen3", "qwen3_moe"):
        attn += 2 * head_dim                             # q_norm, k_norm
    norms = 2 * hidden                                   # input + post-attention RMSNorm

    # ---- feed-forward, per layer
    num_experts = top_k = 0
    expert = 0                # parameters of one expert
    moe_layers = 0
    if mt in ("llama", "mistral", "qwen2", "qwen3"):
        intermediate = c.get_int("intermediate_size")
        dense_mlp = 3 * hidden * intermediate
        if mt == "llama" and c.get_bool("mlp_bias"):
            dense_mlp += 2 * intermediate + hidden       # gate, up, down biases
        ffn_total = layers * dense_mlp
    elif mt == "mixtral":
        intermediate = c.get_int("intermediate_size")
        num_experts = c.get_int("num_local_experts")
        top_k = c.get_int("num_experts_per_tok")
        expert = 3 * hidden * intermediate               # w1, w2, w3
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
            expert = 3 * hidden * intermediate
            ffn_total += moe_layers * (num_experts * expert + hidden * num_experts)
        if dense_layers:
            dense_intermediate = c.get_int("intermediate_size")
            ffn_total += dense_layers * 3 * hidden * dense_intermediate
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
    )


# ------------------------------------------------------------------- catalog
@dataclass(frozen=True)
class _Shipped:
    name: str
    filename: str
    source: str
    aliases: tuple[str, ...] = ()


_SHIPPED = (
    _Shipped(
        "Qwen3-8B", "qwen3-8b.json", "Hugging Face Qwen/Qwen3-8B config.json",
        aliases=("qwen3-8b", "qwen-3-8b", "Qwen3 8B"),
    ),
    _Shipped(
        "DeepSeek-R1-Distill-Llama-70B", "deepseek-r1-distill-llama-70b.json",
        "Hugging Face deepseek-ai/DeepSeek-R1-Distill-Llama-70B config.json",
        # same tensors as Llama-3.3-70B (the distillation's base model)
        aliases=("deepseek-r1-distill-llama-70b", "r1-distill-llama-70b", "deepseek-r1-70b",
                 "r1-70b", "llama-70b", "llama-3.3-70b"),
    ),
    _Shipped(
        "Llama-3.1-8B", "llama-3.1-8b.json", "Hugging Face meta-llama/Llama-3.1-8B config.json",
        aliases=("llama-3.1-8b", "llama3.1-8b", "llama-3-8b", "llama-8b", "Llama-3.1-8B-Instruct"),
    ),
    _Shipped(
        "Llama-2-7B", "llama-2-7b.json", "Hugging Face meta-llama/Llama-2-7b-hf config.json",
        aliases=("llama-2-7b", "llama2-7b", "llama-7b"),
    ),
    _Shipped(
        "Llama-2-70B", "llama-2-70b.json", "Hugging Face meta-llama/Llama-2-70b-hf config.json",
        aliases=("llama-2-70b", "llama2-70b"),
    ),
    _Shipped(
        "Mixtral-8x7B", "mixtral-8x7b.json",
        "Hugging Face mistralai/Mixtral-8x7B-v0.1 config.json",
        aliases=("mixtral-8x7b", "mixtral", "Mixtral-8x7B-Instruct", "mixtral-8x7b-v0.1"),
    ),
)


_INDEX = NameIndex(_SHIPPED)


@functools.cache
def _load(entry: _Shipped) -> ModelSpec:
    pkg = __name__.rpartition(".")[0] or "infra_calc"
    res = resources.files(pkg).joinpath("data").joinpath("models").joinpath(entry.filename)
    cfg = json.loads(res.read_text(encoding="utf-8"))
    return ModelSpec.from_hf_config(cfg, name=entry.name, source=entry.source)


class UnknownModelError(ValueError, KeyError):
    """Raised for a model name that is not in the catalog.

    A :class:`ValueError` (like every other bad argument in
    :mod:`infra_calc`) that is also a :class:`KeyError`, so mapping code
    such as ``MODELS.get(name)`` and ``name in MODELS`` behaves normally.
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _unknown(name) -> UnknownModelError:
    return UnknownModelError(
        f"unknown model {name!r}; known names: {', '.join(model_names())} "
        "(or pass a path to a Hugging Face config.json)"
    )


class _Catalog(Mapping):
    """Read-only, lazily loaded mapping of canonical name to :class:`ModelSpec`.

    Keys are the canonical names; lookups forgive case, spaces, dashes,
    underscores and dots and accept aliases.  A config file is parsed the
    first time its entry is read.
    """

    def __getitem__(self, name) -> ModelSpec:
        entry = _INDEX.find(name) if isinstance(name, str) else None
        if entry is None:
            raise _unknown(name)
        return _load(entry)

    def __contains__(self, name) -> bool:
        return isinstance(name, str) and _INDEX.find(name) is not None

    def __iter__(self):
        return iter(_INDEX.names())

    def __len__(self) -> int:
        return len(_SHIPPED)

    def __repr__(self) -> str:
        return f"<infra_calc.models.MODELS: {', '.join(model_names())}>"


MODELS = _Catalog()
"""Read-only mapping of canonical name to :class:`ModelSpec`, loaded on first use."""


def model_names() -> list[str]:
    """Canonical names of the shipped models, in catalog order.

    Returns
    -------
    list of str
    """
    return _INDEX.names()


def model(name) -> ModelSpec:
    """Look up a shipped model, forgiving case, spaces, dashes, underscores and dots.

    Parameters
    ----------
    name : str or ModelSpec
        A canonical name (see :func:`model_names`), an alias such as
        ``"qwen3-8b"``, ``"llama-70b"`` or ``"r1-70b"``, or a Hugging Face
        repo id such as ``"Qwen/Qwen3-8B"``.  A :class:`ModelSpec` is
        returned unchanged.

    Returns
    -------
    ModelSpec

    Raises
    ------
    UnknownModelError
        (a :class:`ValueError` and :class:`KeyError`) for an unknown name;
        the message lists the known names.
    TypeError
        ``name`` is not a string.

    Examples
    --------
    >>> model("deepseek_r1_distill_llama_70b").name
    'DeepSeek-R1-Distill-Llama-70B'
    """
    if isinstance(name, ModelSpec):
        return name
    if not isinstance(name, str):
        raise TypeError(f"model must be a ModelSpec or a catalog name (str), got {type(name).__name__}")
    return MODELS[name]


def resolve_model(x) -> ModelSpec:
    """Turn a :class:`ModelSpec`, catalog name or config path into a ModelSpec.

    This is what the command line's ``--model`` uses.

    Parameters
    ----------
    x : ModelSpec, str, os.PathLike or Mapping
        A spec (returned unchanged); a path to a Hugging Face
        ``config.json`` (any string naming an existing file, an existing
        directory holding ``config.json``, or ending in ``.json``); a
        config dictionary; otherwise a catalog name for :func:`model`.

    Returns
    -------
    ModelSpec

    Raises
    ------
    ValueError
        Unknown catalog name, or an unreadable / unsupported config file.
    TypeError
        ``x`` has an unsupported type.
    """
    if isinstance(x, ModelSpec):
        return x
    if isinstance(x, (os.PathLike, Mapping)):
        return ModelSpec.from_hf_config(x)
    if isinstance(x, str):
        if x.strip() and (os.path.isfile(x) or x.strip().lower().endswith(".json")
                          or (os.path.isdir(x) and os.path.isfile(os.path.join(x, "config.json")))):
            return ModelSpec.from_hf_config(x)
        return model(x)
    raise TypeError(
        "model must be a ModelSpec, a catalog name or a path to a config.json, "
        f"got {type(x).__name__}"
    )
