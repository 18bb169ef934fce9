"""The model catalog: the shipped Hugging Face configs, found by forgiving names.

Six real configs ship with the package (``infra_calc/data/models/*.json``), listed
with their names, aliases and sources in ``infra_calc/data/models.json`` and reachable
through :func:`model` and :data:`MODELS`, a :class:`~infra_calc.catalog.Catalog`: a
config is parsed the first time its entry is read, so importing this module is cheap.
The shape maths lives in :mod:`infra_calc.modelspec`, the config parsing in
:mod:`infra_calc.hf_config`.

>>> model("qwen3 8b").name
'Qwen3-8B'
"""
from __future__ import annotations

import json
import numbers
import os
from collections.abc import Mapping

import numpy as np

from .catalog import DATA, Catalog, UnknownNameError
from .modelspec import ModelSpec

__all__ = [
    "MODELS",
    "UnknownModelError",
    "model",
]


class UnknownModelError(UnknownNameError):
    """A model name that is not in :data:`MODELS` (a ``ValueError`` and ``KeyError``)."""


def _spec(record: dict) -> ModelSpec:
    """The :class:`ModelSpec` of one entry: its config file, parsed."""
    cfg = json.loads(DATA.joinpath("models", record["config"]).read_text(encoding="utf-8"))
    return ModelSpec.from_hf_config(cfg, name=record["name"], source=record["source"])


MODELS = Catalog("model", DATA.joinpath("models.json"), _spec,
                 fields={"config": str, "source": str}, required=("config", "source"),
                 error=UnknownModelError, hint=" (or pass a path to a Hugging Face config.json)")
"""Read-only mapping of canonical name to :class:`ModelSpec`, loaded on first use (it iterates
over the canonical names, in the file's order)."""


def model(name) -> ModelSpec:
    """The one way a model is named: a spec, a catalog name or a Hugging Face config.

    Catalog names forgive case, spaces, dashes, underscores and dots.  This is
    what every function that takes a model, and the command line's ``--model``, uses.

    Parameters
    ----------
    name : ModelSpec, str, os.PathLike or Mapping
        A :class:`ModelSpec` (returned unchanged); a canonical name (see
        :data:`MODELS`), an alias such as ``"qwen3-8b"``, ``"llama-70b"``
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
