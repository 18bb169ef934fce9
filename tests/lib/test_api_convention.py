"""One API convention: ``f(subject, hw, *, sizes...)`` for every public function taking a card,
and for every callable of ``infra_calc.__all__`` (functions and classes): options by keyword.

The subject (a model, a parameter count, FLOPs and bytes, a GEMM shape ``m, k, n``) comes
first, then the card ``hw``, then only keyword-only parameters: a size can never land in
the wrong slot by position.  Without a card the rule reads: a positional parameter is
required (the subject's inputs) or is ``hw``; every parameter with a default, and any
``*args``, is keyword-only.  A required input may be keyword-only too, where inputs of one
unit could trade places (``capacity_check(capacity, *, weights, kv, workspace)``).  :data:`POSITIONAL_OPTIONS`
lists the exceptions, each with its reason, and an exception that is no longer needed
fails too.
"""
import inspect
from types import ModuleType

import pytest

import infra_calc as ic

#: A GEMM's shape is one subject of three numbers: ``hw`` may follow all three.
GEMM_SHAPES = (("m", "k", "n"), ("rows", "k", "n"))

#: Callables of ``infra_calc.__all__`` whose options may be passed by position, and why.
POSITIONAL_OPTIONS = {
    "shown": "shown(value, unit, digits): the unit and the digits say how the one value is "
             "read, and every page and printout writes them by position (shown(t, 'ms', 3))",
}


def _functions_with_a_card():
    out = []
    for name in ic.__all__:
        obj = getattr(ic, name)
        if inspect.isfunction(obj) and "hw" in inspect.signature(obj).parameters:
            out.append(name)
    return out


CARD_FUNCTIONS = _functions_with_a_card()
CALLABLES = [n for n in ic.__all__
             if callable(getattr(ic, n)) and not isinstance(getattr(ic, n), ModuleType)]

#: Module-level functions outside ``infra_calc.__all__`` held to the options rule too
#: (the rest of the modules' ``__all__`` is not scanned: see CONTRIBUTING.md).
MODULE_FUNCTIONS = ["decode.step_parts", "decode.decode_counts", "decode.decode_coefficients",
                    "decode.weight_read_params", "display.shown_e"]


def _positional_options(obj):
    """Parameters of ``obj`` other than ``hw`` that have a default yet can be passed by
    position, and any ``*args``."""
    return [p.name for p in inspect.signature(obj).parameters.values()
            if p.kind == p.VAR_POSITIONAL
            or (p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                and p.default is not p.empty and p.name != "hw")]


def test_the_convention_covers_the_chapter_functions():
    # the scan finds the card-taking functions (a renamed `hw` would hide one)
    assert {"decode_step", "model_decode_step", "tensor_parallel_step", "generation_time",
            "ring_allreduce_time", "critical_rows", "bounds"} <= set(CARD_FUNCTIONS)


@pytest.mark.parametrize("name", CARD_FUNCTIONS)
def test_every_parameter_after_hw_is_keyword_only(name):
    params = list(inspect.signature(getattr(ic, name)).parameters.values())
    names = [p.name for p in params]
    i = names.index("hw")
    before = tuple(names[:i])
    assert i <= 2 or before in GEMM_SHAPES, f"{name}: hw is parameter {i + 1} after {before}"
    assert all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params[:i + 1])
    late = [p.name for p in params[i + 1:] if p.kind not in (p.KEYWORD_ONLY, p.VAR_KEYWORD)]
    assert not late, f"{name}: {late} after hw can be passed by position"


def test_the_convention_covers_every_callable():
    # functions without a card and the classes a reader builds are scanned too
    assert {"capacity_check", "max_batch", "kv_cache_bytes", "arithmetic_intensity",
            "gemm_flops", "amdahl_speedup", "padded_rows", "ModelSpec", "Workload",
            "Accelerator"} <= set(CALLABLES)
    assert set(CARD_FUNCTIONS) <= set(CALLABLES)
    assert set(POSITIONAL_OPTIONS) <= set(CALLABLES)


@pytest.mark.parametrize("name", CALLABLES)
def test_every_option_is_keyword_only(name):
    loose = _positional_options(getattr(ic, name))
    if name in POSITIONAL_OPTIONS:
        assert loose, f"{name} has no positional option left: drop it from POSITIONAL_OPTIONS"
    else:
        assert not loose, (f"{name}: {loose} have defaults but can be passed by position "
                           f"(make them keyword-only)")


@pytest.mark.parametrize("path", MODULE_FUNCTIONS)
def test_a_module_functions_options_are_keyword_only(path):
    import importlib

    module, name = path.split(".")
    obj = getattr(importlib.import_module(f"infra_calc.{module}"), name)
    assert not _positional_options(obj), f"{path}: options can be passed by position"


@pytest.mark.parametrize("call", [
    lambda: ic.model_decode_step("llama-2-70b", "H100 SXM", 8),
    lambda: ic.decode_step(70e9, 1, "H100 SXM"),                 # the old order
    lambda: ic.tensor_parallel_step("llama-2-70b", "H100 SXM", 8),
    lambda: ic.generation_time("Llama-3.1-8B", "H100 SXM", 1000, 200),
    lambda: ic.ring_allreduce_time(1e6, 8, "H100 SXM"),           # the old order
    lambda: ic.critical_rows(4096, 4096, "H100 SXM", 2),
    lambda: ic.arithmetic_intensity(64, 4096, 4096, 2),
    lambda: ic.capacity_check(80e9, 16e9, 4e9, 2e9),              # workspace is keyword-only
    lambda: ic.capacity_check(80e9, 16e9, 4e9),                   # so are weights and kv
    lambda: ic.ModelSpec("toy", 1000, 1000, 2, 16, 4, 2, 4, 32, 10),  # a record: every field by name
    lambda: ic.Workload("llama-2-70b", "H100 SXM", 1),
])
def test_a_size_by_position_is_refused(call):
    with pytest.raises(TypeError):
        call()


def test_the_keyword_call_works():
    step = ic.model_decode_step("llama-2-70b", "H100 SXM", batch=8, context=1024)
    assert step.batch == 8 and step.context == 1024
    assert ic.decode_step(70e9, "H100 SXM", bytes_per_param=1).bytes_per_param == 1


#: The one order of the size and precision options, wherever a function takes them: the
#: requests and their lengths, the cards, the byte widths (per weight, per cached element, or
#: the cache's bytes themselves), the math precision, the expert routing, the workspace.
#: A function's own options (``weights``, ``comm``, a lever's ``drafts`` ...) may sit anywhere.
SIZE_ORDER = ("batch", "context", "prompt_tokens", "output_tokens", "cards", "bytes_per_param",
              "kv_bytes_per_element", "kv_bytes", "math", "routing", "workspace")

#: Functions outside ``infra_calc.__all__`` that take these sizes too.
SIZED_MODULE_FUNCTIONS = ["planner.planner_state", "step.fix_scenarios", "widgets.kv.kv_explorer"]


def _sized_functions():
    import importlib

    out = {n: getattr(ic, n) for n in CALLABLES if inspect.isfunction(getattr(ic, n))}
    for path in SIZED_MODULE_FUNCTIONS:
        module, name = path.rsplit(".", 1)
        out[path] = getattr(importlib.import_module(f"infra_calc.{module}"), name)
    return {k: f for k, f in out.items()
            if len(set(SIZE_ORDER) & set(inspect.signature(f).parameters)) > 1}


SIZED = _sized_functions()

#: Functions whose keywords keep another order, and why (an entry no longer needed fails).
SIZE_ORDER_EXCEPTIONS = {
    "forecast": "infra_calc.forecasting (the chapter-4 forecast, not in issue 22's chapter-3 "
                "modules) names the request first: prompt_tokens, output_tokens, then batch",
}


def _keyword_sizes(f):
    return [p.name for p in inspect.signature(f).parameters.values()
            if p.kind == p.KEYWORD_ONLY and p.name in SIZE_ORDER]


def test_the_size_order_covers_the_chapter_functions():
    assert {"model_decode_step", "tensor_parallel_step", "prefill_step", "generation_time",
            "turning_batch", "estimate", "decode_step", "precision_point", "cached_prefill_step",
            "speculative_step", "planner.planner_state"} <= set(SIZED)


@pytest.mark.parametrize("name", sorted(SIZED))
def test_size_options_come_in_one_order(name):
    """``batch`` before ``context`` before ``cards`` ... (:data:`SIZE_ORDER`) in every signature,
    so a reader who knows one function's keywords reads the next one's in the same order."""
    given = _keyword_sizes(SIZED[name])
    in_order = given == sorted(given, key=SIZE_ORDER.index)
    if name in SIZE_ORDER_EXCEPTIONS:
        assert not in_order, f"{name} is in SIZE_ORDER: drop it from SIZE_ORDER_EXCEPTIONS"
    else:
        assert in_order, f"{name}: {given}, not in the order of SIZE_ORDER"
