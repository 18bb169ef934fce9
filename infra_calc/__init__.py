"""infra_calc: the calculator behind the book *Estimating LLM Inference*.

Small pure functions, SI units throughout (seconds, bytes, FLOPs, FLOP/s,
bytes/s).  Numpy arrays broadcast in the step and bound functions
(``read_time``, ``compute_time``, ``step_time``, ``decode_step``,
``batch_turning_point``), the roofline, GEMM and capacity functions, the
``kv`` functions (``critical_context``, ``turning_batch``, ``kv_weight_batch``,
``decode_region``) and the one-pass chapter-3 functions (``model_decode_step``,
``prefill_step``, the levers), through a Workload's
sizes.  Scalars only: a Workload's ``workspace``, ``generation_time``'s sizes
(batch, cards, prompt and output tokens), and ``estimate`` and ``forecast``.
Importing the package
has no side effects and imports none of its modules: each public name (the list:
``__init__.pyi``) and each submodule is imported on first use, so ``import infra_calc``
pulls in no sympy, matplotlib or ipywidgets.  Every bound is computed once, in
:mod:`infra_calc.bound`.

A function that takes a card is ``f(subject, hw, *, sizes...)``, its options keyword-only:
CONTRIBUTING.md ("The library first") states the calling convention, and
``tests/lib/test_api_convention.py`` holds it.

>>> import infra_calc as ic
>>> ic.shown(ic.read_time(70e9, "H100 SXM"), "ms", 3)
20.896 ms
>>> ic.shown(ic.decode_step(70e9, "H100 SXM", bytes_per_param=1, batch=8).t_read, "ms", 3)
20.896 ms
"""
import importlib as _importlib
import importlib.metadata as _metadata
import pkgutil as _pkgutil

import lazy_loader as _lazy

try:    # pyproject.toml holds the version; the installed package's metadata reads it
    __version__ = _metadata.version("infra_calc")
except _metadata.PackageNotFoundError:    # a source tree on the path, never installed
    __version__ = "0+unknown"

#: Every public name, fetched from its module on first use: the stub ``__init__.pyi`` lists
#: each with its module (the one list, which type checkers read too), and lazy_loader
#: reads it.  A name that is also its module's (``estimate``) stays the function when the
#: submodule is imported first: lazy_loader guards that (its ``_ShadowGuardModule``).
_lazy_getattr, _, __all__ = _lazy.attach_stub(__name__, __file__)
__all__ = sorted([*__all__, "__version__"])

#: Submodules reachable as attributes, imported on first use: every public module and
#: subpackage in the package's folder (``pkgutil`` lists the folder; it imports nothing).
_SUBMODULES = tuple(m.name for m in _pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def __getattr__(name):
    if name in __all__ or name not in _SUBMODULES:
        return _lazy_getattr(name)
    return _importlib.import_module(f".{name}", __name__)


def __dir__():
    return sorted({*globals(), *__all__, *_SUBMODULES})
