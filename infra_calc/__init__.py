"""infra_calc: the calculator behind the book *Estimating LLM Inference*.

Small pure functions, SI units throughout (seconds, bytes, FLOPs, FLOP/s,
bytes/s).  Numpy arrays broadcast in the step and bound functions
(``read_time``, ``compute_time``, ``step_time``, ``bounds``, ``decode_step``,
``batch_turning_point``), the roofline, GEMM and capacity functions, the
``kv`` functions (``critical_context``, ``turning_batch``, ``kv_weight_batch``,
``decode_region``) and the one-pass chapter-3 functions (``model_decode_step``,
``prefill_step``, the levers), through a Workload's
sizes.  Scalars only: a Workload's ``workspace``, ``generation_time``'s sizes
(batch, cards, prompt and output tokens), and ``estimate`` and ``forecast``.
Importing the package
has no side effects and does not import sympy, matplotlib or ipywidgets; the
model catalog (:mod:`infra_calc.models`), chapter 3's modules (one checked
:class:`~infra_calc.workload.Workload` in, results with ``fits`` and
``memory_per_card`` out) and the plotting (:mod:`infra_calc.figures`), widget
(:mod:`infra_calc.widgets`) and measurement (:mod:`infra_calc.measure`)
modules are imported on first use.  Every bound is computed once, in
:mod:`infra_calc.bound`.

One calling convention: a function that takes a card is
``f(subject, hw, *, sizes...)``.  The subject (a model, a parameter count,
FLOPs and bytes, a GEMM shape ``m, k, n``) comes first, then the card ``hw``,
then only keyword-only parameters (``batch=``, ``context=``,
``bytes_per_param=``, ``cards=``...), so no size after the card lands in
another's slot.  A function without a card keeps its subject positional and
its options (every parameter with a default) by keyword:
``arithmetic_intensity(m, k, n, bytes_per_element=2)``; its required inputs
are positional, in the formula's order (``amdahl_time(t_total, f, s)``), or
keyword-only where inputs of one unit could trade places
(``capacity_check(capacity, *, weights, kv, workspace)``).  A
record (:class:`~infra_calc.modelspec.ModelSpec`, built from a config) takes
every field by keyword.  ``tests/lib/test_api_convention.py`` holds this for
every name in ``__all__`` and every public function of the public modules (it walks them).

>>> import infra_calc as ic
>>> ic.shown(ic.read_time(70e9, "H100 SXM"), "ms", 3)
20.896 ms
>>> ic.shown(ic.decode_step(70e9, "H100 SXM", bytes_per_param=1, batch=8).t_read, "ms", 3)
20.896 ms
"""
# ruff: noqa: F401  (the imports below are the package's names; __all__ lists them)
import importlib as _importlib
import importlib.metadata as _metadata
import pkgutil as _pkgutil
from types import ModuleType as _ModuleType

from . import source, units
from .accelerators import (
    CATALOG,
    accelerator,
    accelerator_names,
    capacity_reading,
    decimal_reading,
)
from .amdahl import amdahl_limit, amdahl_speedup, amdahl_time
from .bound import Bounds, bounds
from .capacity import (
    CapacityCheck,
    capacity_check,
    kv_cache_bytes,
    max_batch,
    max_context,
)
from .estimate import Estimate, estimate
from .hardware import READINGS, Accelerator
from .roofline import (
    RooflinePoint,
    arithmetic_intensity,
    attainable_flops,
    critical_rows,
    gemm_bytes,
    gemm_flops,
    gemm_roofline,
    intensity_limit,
)
from .shape import (
    PaddedGemm,
    PaddedRows,
    pad_to_tile,
    padded_gemm,
    padded_rows,
    route_tokens,
    shape_efficiency,
)
from .step import (
    DecodeStep,
    batch_turning_point,
    compute_time,
    decode_step,
    mbu,
    read_time,
    step_time,
)

try:    # pyproject.toml holds the version; the installed package's metadata reads it
    __version__ = _metadata.version("infra_calc")
except _metadata.PackageNotFoundError:    # a source tree on the path, never installed
    __version__ = "0+unknown"

#: Public names fetched from their module on first use, one row per module.  The rows
#: stay by hand: a module's ``__all__`` holds more than the package shows, and reading
#: it would import the module.  Each name is one of its module's ``__all__`` and is that
#: module's own object (tests/lib/test_import.py holds both).  Most of these modules are
#: imported on first use; ``display`` is already loaded, by ``step``'s import above.
_LAZY_FROM = {
    "models": ("MODELS", "model", "model_names"),
    "modelspec": ("ModelSpec",),
    # one workload, and chapter 3: the whole request
    "workload": ("Workload", "DEFAULT_WORKSPACE"),
    "kv": ("critical_context", "turning_batch", "kv_weight_batch", "decode_region"),
    "decode": ("ModelDecodeStep", "model_decode_step"),
    "prefill": ("PrefillStep", "prefill_step"),
    "generation": ("GenerationTime", "generation_time"),
    "comm": ("ring_allreduce_time", "in_switch_allreduce_time", "allreduce_time"),
    "sharding": ("CardShare", "card_share"),
    # numbers as the prose shows them (Shown stays infra_calc.display's, a page's PageValues
    # is bookkit's; a page's planner state is infra_calc.planner.planner_state)
    "display": ("shown",),
    # chapter 4: a forecast (a model resting on the floor)
    "forecasting": ("Forecast", "forecast", "Band", "forecast_engines"),
    # chapter 3: levers the floor assumes away
    "levers": ("expected_tokens_per_step", "SpeculativeStep", "speculative_step",
               "speculative_critical_context", "speculative_turning_batch"),
    "prefix": ("SharedPrefixStep", "shared_prefix_step", "CachedPrefill",
               "cached_prefill_step", "mean_ttft"),
    "precision": ("PrecisionPoint", "precision_point"),
    # the capacity planner's state (its function stays in infra_calc.planner)
    "planner": ("PlannerState",),
}
#: The same table by name: name -> module.
_LAZY = {name: module for module, names in _LAZY_FROM.items() for name in names}

#: Submodules reachable as attributes, imported on first use: every public module and
#: subpackage in the package's folder (``pkgutil`` lists the folder; it imports nothing).
_SUBMODULES = tuple(m.name for m in _pkgutil.iter_modules(__path__) if not m.name.startswith("_"))

#: Submodules that are part of the public names themselves.
_PUBLIC_MODULES = ("source", "units")

#: Every public name, from one list each: the names imported above (less the
#: submodules their imports bind), the lazy ones, and the public modules.
__all__ = sorted(
    {n for n, v in globals().items() if not n.startswith("_") and not isinstance(v, _ModuleType)}
    | set(_LAZY) | set(_PUBLIC_MODULES) | {"__version__"})


def __getattr__(name):
    if name in _LAZY:
        value = getattr(_importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return _importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'infra_calc' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_SUBMODULES))
