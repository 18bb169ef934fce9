"""The model catalog: shipped Hugging Face configs, found by forgiving names.

Six real configs ship with the package (``infra_calc/data/models/*.json``)
and are reachable through :func:`model` and :data:`MODELS`; they are parsed
on first use, so importing this module is cheap.  The shape maths lives in
:mod:`infra_calc.modelspec`, the config parsing in :mod:`infra_calc.hf_config`.

>>> model("qwen3 8b").name
'Qwen3-8B'
"""
from __future__ import annotations

import functools
import json
import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources

import numpy as np

from ._names import NameIndex, listed
from .modelspec import ModelSpec

__all__ = [
    "MODELS",
    "UnknownModelError",
    "model",
    "model_names",
    "model_listing",
]


@dataclass(frozen=True)
class _Shipped:
    name: str
    filename: str
    source: str
    aliases: tuple[str, ...] = ()
    #: What ``python -m infra_calc list`` says beside the aliases.
    note: str = ""


_SHIPPED = (
    _Shipped(
        "Qwen3-8B", "qwen3-8b.json", "Hugging Face Qwen/Qwen3-8B config.json",
    ),
    _Shipped(
        "DeepSeek-R1-Distill-Llama-70B", "deepseek-r1-distill-llama-70b.json",
        "Hugging Face deepseek-ai/DeepSeek-R1-Distill-Llama-70B config.json",
        aliases=("r1-distill-llama-70b", "deepseek-r1-70b", "r1-70b", "llama-70b", "llama-3.3-70b"),
        note="llama-70b and llama-3.3-70b name its base model, Llama-3.3-70B, which has the "
             "same tensors (Llama-2-70B is its own entry)",
    ),
    _Shipped(
        "Llama-3.1-8B", "llama-3.1-8b.json", "Hugging Face meta-llama/Llama-3.1-8B config.json",
        aliases=("llama-3-8b", "llama-8b", "Llama-3.1-8B-Instruct"),
    ),
    _Shipped(
        "Llama-2-7B", "llama-2-7b.json", "Hugging Face meta-llama/Llama-2-7b-hf config.json",
        aliases=("llama-7b",),
    ),
    _Shipped(
        "Llama-2-70B", "llama-2-70b.json", "Hugging Face meta-llama/Llama-2-70b-hf config.json",
    ),
    _Shipped(
        "Mixtral-8x7B", "mixtral-8x7b.json",
        "Hugging Face mistralai/Mixtral-8x7B-v0.1 config.json",
        aliases=("mixtral", "Mixtral-8x7B-Instruct", "mixtral-8x7b-v0.1"),
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


def model_listing() -> list[str]:
    """One line per shipped model, in catalog order: its name, the aliases that differ from
    it in more than spelling, and its note (what ``python -m infra_calc list`` prints)."""
    return [listed(entry) for entry in _SHIPPED]


def model(name) -> ModelSpec:
    """The one way a model is named: a spec, a catalog name or a Hugging Face config.

    Catalog names forgive case, spaces, dashes, underscores and dots.  This is
    what every function that takes a model, and the command line's ``--model``, uses.

    Parameters
    ----------
    name : ModelSpec, str, os.PathLike or Mapping
        A :class:`ModelSpec` (returned unchanged); a canonical name (see
        :func:`model_names`), an alias such as ``"qwen3-8b"``, ``"llama-70b"``
        or ``"r1-70b"``, or a Hugging Face repo id such as ``"Qwen/Qwen3-8B"``;
        a path to a Hugging Face ``config.json`` (any string naming an existing
        file, ending in ``.json``, or naming a directory that holds
        ``config.json``, unless it is also a catalog name); or a config
        dictionary.

    Returns
    -------
    ModelSpec

    Raises
    ------
    UnknownModelError
        (a :class:`ValueError` and :class:`KeyError`) for an unknown name;
        the message lists the known names.
    ValueError
        An unreadable or unsupported config file.
    TypeError
        ``name`` has an unsupported type.

    Examples
    --------
    >>> model("deepseek_r1_distill_llama_70b").name
    'DeepSeek-R1-Distill-Llama-70B'
    """
    if isinstance(name, ModelSpec):
        return name
    if isinstance(name, (os.PathLike, Mapping)):
        return ModelSpec.from_hf_config(name)
    if isinstance(name, str):
        if name.strip() and (os.path.isfile(name) or name.strip().lower().endswith(".json")
                             or (os.path.isdir(name) and name not in MODELS)):
            return ModelSpec.from_hf_config(name)
        return MODELS[name]
    if isinstance(name, (numbers.Number, np.ndarray, list, tuple)) and not isinstance(name, bool):
        raise TypeError("model must be a ModelSpec, a catalog name or a path to a config.json, "
                        f"not a number ({name!r}): a parameter count alone says nothing of the "
                        "layers and KV heads, so pass the model")
    raise TypeError(
        "model must be a ModelSpec, a catalog name or a path to a config.json, "
        f"got {type(name).__name__}"
    )
