"""Model shapes: parameter counts, the parameter ledger, and KV-cache bytes.

A :class:`ModelSpec` holds the handful of numbers the performance chapters
need: the total parameter count ``P`` (every stored weight: what memory must
hold), the layer and head geometry (which fixes the KV cache per token) and,
for mixture-of-experts models, how many parameters one token actually uses.

Which of them a token multiplies and which bytes a decode step reads is the
parameter ledger, :mod:`infra_calc.ledger` (``matmul_params``,
``decode_weight_bytes`` ...), inherited by every spec.

:meth:`ModelSpec.from_hf_config` (with :mod:`infra_calc.hf_config`) reads a
Hugging Face ``config.json`` and counts parameters exactly.

Examples
--------
>>> from infra_calc.models import model
>>> m = model("qwen3 8b")
>>> m.params
8190735360
>>> m.kv_bytes_per_token()          # BF16 K and V, all 36 layers
147456
>>> model("r1-70b").kv_bytes_per_token(kv_bytes_per_element=1)   # FP8 cache
163840
"""
from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass

import numpy as np

from ._validate import check_int, check_number
from .display import round_sig, shown
from .hf_config import spec_fields
from .ledger import ParameterLedger
from .units import BF16_BYTES

__all__ = ["ModelSpec"]

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



@dataclass(frozen=True, kw_only=True)
class ModelSpec(ParameterLedger):
    """Shape of one decoder-only transformer.

    The parameter ledger (``matmul_params``, ``shared_params``,
    ``decode_weight_bytes`` ...) comes from :class:`~infra_calc.ledger.ParameterLedger`.
    Every field is passed by keyword (``from_hf_config`` does): ten whole numbers in a
    row are too easy to misorder.

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
    vector_params : int, optional
        Weights applied elementwise, not multiplied into a matrix product:
        RMSNorm scales and biases (``from_hf_config`` counts them exactly).
        None (the default) takes the two norms per layer and the final norm,
        ``2 L d + d``.
    moe_layers : int, optional
        Decoder layers that hold routed experts, as the config says
        (``from_hf_config`` counts ``mlp_only_layers`` and
        ``decoder_sparse_step``).  None (the default) takes every layer of a
        mixture of experts and 0 for a dense model.

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
    vector_params: int | None = None
    moe_layers: int | None = None

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip():
            raise TypeError(f"name must be a non-empty string, got {self.name!r}")
        for field, unit, minimum in _INT_FIELDS:
            self._set_whole(field, unit, minimum)
        if isinstance(self.tie_word_embeddings, np.bool_):
            object.__setattr__(self, "tie_word_embeddings", bool(self.tie_word_embeddings))
        if not isinstance(self.tie_word_embeddings, bool):
            raise TypeError(
                f"tie_word_embeddings must be a bool, got {type(self.tie_word_embeddings).__name__}"
            )
        for field in ("architecture", "source"):
            if not isinstance(getattr(self, field), str):
                raise TypeError(f"{field} must be a string, got {type(getattr(self, field)).__name__}")
        # the two counts a config may state, else derived from the checked fields above
        if self.vector_params is None:
            object.__setattr__(self, "vector_params", 2 * self.layers * self.hidden + self.hidden)
        if self.moe_layers is None:
            object.__setattr__(self, "moe_layers", self.layers if self.num_experts else 0)
        self._set_whole("vector_params", "parameters", 0)
        self._set_whole("moe_layers", "layers", 0)
        self._check_consistent()

    def _set_whole(self, field, unit, minimum):
        """Field ``field`` checked as one whole number >= ``minimum`` (``unit`` for the message)."""
        raw = getattr(self, field)
        if np.ndim(raw) != 0:
            raise TypeError(f"{field} ({unit}) must be a single whole number, not an array")
        object.__setattr__(self, field, check_int(raw, field, unit, minimum=minimum))

    def _check_consistent(self):
        """The fields agree with each other (heads, experts, parameter counts)."""
        if self.moe_layers > self.layers or (self.num_experts == 0) != (self.moe_layers == 0):
            raise ValueError(
                f"moe_layers (layers) must be between 1 and layers={self.layers} for a mixture of "
                f"experts and 0 for a dense model, got {self.moe_layers} with "
                f"num_experts={self.num_experts}")
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
        if self.body_matmul_params <= 0:
            raise ValueError(
                f"the fields contradict each other: active_params={self.active_params} leaves no "
                f"matrix weights besides the vocabulary tables (vector_params={self.vector_params}, "
                f"vocab x hidden = {self.vocab * self.hidden})")

    # ------------------------------------------------------------------ sizes
    @property
    def is_moe(self) -> bool:
        """True for a mixture-of-experts model (``num_experts > 0``)."""
        return self.num_experts > 0

    def kv_bytes_per_token(self, kv_bytes_per_element=BF16_BYTES):
        """KV-cache bytes one token occupies, summed over all layers.

        .. math:: m_{KV} = 2 \\cdot L \\cdot n_{kv} \\cdot d_h \\cdot b

        The factor 2 is one key and one value vector; ``L`` is ``layers``,
        ``n_kv`` is ``kv_heads`` (so grouped-query attention shrinks the
        cache by ``heads / kv_heads``), ``d_h`` is ``head_dim`` and ``b`` is
        ``kv_bytes_per_element``.

        Parameters
        ----------
        kv_bytes_per_element : float or array_like, optional
            Bytes per cached element, in bytes: 2 for BF16/FP16 (default),
            1 for FP8, 0.5 for 4-bit.

        Returns
        -------
        int, float or numpy.ndarray
            Bytes per token (bytes/token).  An ``int`` when
            ``kv_bytes_per_element`` is an integer, a ``float`` for other
            scalars, a float array for array input.

        Raises
        ------
        TypeError, ValueError
            ``kv_bytes_per_element`` is not a positive finite number.

        Examples
        --------
        >>> from infra_calc.models import model
        >>> model("Qwen3-8B").kv_bytes_per_token()      # 2*36*8*128*2
        147456
        """
        per_element = 2 * self.layers * self.kv_heads * self.head_dim
        return _scale(per_element, kv_bytes_per_element, "kv_bytes_per_element")

    def weight_bytes(self, bytes_per_param=BF16_BYTES):
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

    def with_kv_heads(self, kv_heads) -> ModelSpec:
        """The same model with ``kv_heads`` KV heads per layer, its K/V projections resized.

        ``with_kv_heads(heads)`` is plain multi-head attention (no GQA): the
        cache per token and the K/V projection weights grow by ``heads / kv_heads``.
        """
        n = check_int(kv_heads, "kv_heads", "heads", minimum=1, scalar=True)
        resized = dataclasses.replace(self, name=f"{self.name} ({n} KV heads)", kv_heads=n)
        extra = resized.kv_projection_params - self.kv_projection_params
        return dataclasses.replace(resized, params=self.params + extra,
                                   active_params=self.active_params + extra)

    def check_context(self, tokens, *, name="context"):
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
        def billions(n):
            return shown(n, "billion", 2, bare=True)

        moe = (f", MoE {self.experts_per_token}/{self.num_experts} experts, "
               f"{billions(self.active_params)}B active") if self.is_moe else ""
        return (f"{self.name}: {billions(self.params)}B params{moe}, {self.layers} layers, "
                f"{self.heads} q / {self.kv_heads} kv heads x {self.head_dim}, "
                f"{round_sig(self.kv_bytes_per_token(), 'KiB', 6)} KV/token (BF16)")

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
            :data:`~infra_calc.hf_config.SUPPORTED_MODEL_TYPES` (the message
            lists them); a required key is missing, or a key holds the wrong
            type or an out-of-range value (the message names the key).
        TypeError
            ``path_or_dict`` is neither a path nor a mapping.

        Notes
        -----
        The count, tensor by tensor, is documented in
        :func:`infra_calc.hf_config.count_parameters`.

        Examples
        --------
        >>> cfg = {"model_type": "llama", "vocab_size": 128256, "hidden_size": 4096,
        ...        "intermediate_size": 14336, "num_hidden_layers": 32,
        ...        "num_attention_heads": 32, "num_key_value_heads": 8}
        >>> ModelSpec.from_hf_config(cfg, name="Llama-3.1-8B").params
        8030261248
        """
        return cls(**spec_fields(path_or_dict, name=name, source=source))


def _scale(count: int, factor, name: str):
    """``count * factor`` with ``factor`` validated as positive bytes."""
    value = check_number(factor, name, "bytes")
    if isinstance(factor, numbers.Integral) and not isinstance(factor, (bool, np.bool_)):
        return count * int(factor)
    return count * value


