"""The calling convention (stated once, in CONTRIBUTING.md, "The library first"), held for
every public function of the package and every callable of ``infra_calc.__all__`` (functions
and classes).

"Every public function" is each function without a leading underscore defined in a public
module of ``infra_calc`` (found with :mod:`pkgutil`), and each function a public module's
``__all__`` re-exports from a private one (``figures.render_all``, from
``figures._registry``); a private module's helpers (``_validate.check_number``) are the
package's own plumbing.  :data:`NOT_SCANNED` lists what is left out, and :data:`DISPLAY_SHAPE`
the one exception (the display family), each with its reason; an exception no longer needed
fails too.
"""
import dataclasses
import importlib
import inspect
import pkgutil

import pytest

import infra_calc as ic

#: A GEMM's shape is one subject of three numbers: ``hw`` may follow all three (the lab's
#: sweep passes its rows as ``m_values``).
GEMM_SHAPES = (("m", "k", "n"), ("rows", "k", "n"), ("m_values", "k", "n"))

#: Modules (and packages) the scan leaves out, and why; their names in ``ic.__all__`` are
#: still scanned.
NOT_SCANNED = {
    "infra_calc.__main__": "runs the command line when imported",
}

#: The one exception to keyword-only options: the display family, every function of
#: ``infra_calc.display`` that returns a ``Shown`` and takes more than its value, has one
#: shape (display.py's docstring): the value, how it reads (a unit; shown_prefixed: the units
#: to pick from; tokens_k: the K's spelling), then the digits, all by position, as every page
#: and printout writes ``shown(t, 'ms', 3)``.  Its positional parameters, by function:
DISPLAY_SHAPE = {"shown": ("value", "unit", "digits"), "shown_up": ("value", "unit", "digits"),
                 "sig": ("value", "unit", "digits"), "round_sig": ("value", "unit", "digits"),
                 "shown_e": ("value", "unit", "digits"),
                 "shown_prefixed": ("value", "units", "digits"),
                 "tokens_k": ("tokens", "suffix")}

#: Functions (``module.name`` under ``infra_calc``) whose options may be passed by position.
POSITIONAL_OPTIONS = {f"display.{name}" for name in DISPLAY_SHAPE}


def _key(obj) -> str:
    return f"{obj.__module__.removeprefix('infra_calc.')}.{obj.__qualname__}"


def _skipped(module: str) -> bool:
    return any(module == m or module.startswith(m + ".") for m in NOT_SCANNED)


def _public_functions() -> dict:
    """``module.name`` -> function, for every public function of the package (see the
    module's docstring) and every function of ``infra_calc.__all__``."""
    found = {_key(getattr(ic, n)): getattr(ic, n) for n in ic.__all__
             if inspect.isfunction(getattr(ic, n))}
    for info in pkgutil.walk_packages(ic.__path__, "infra_calc."):
        if _skipped(info.name) or any(p.startswith("_") for p in info.name.split(".")):
            continue
        module = importlib.import_module(info.name)
        exported = set(getattr(module, "__all__", ()))
        for name, obj in vars(module).items():
            if (inspect.isfunction(obj) and not name.startswith("_")
                    and not _skipped(obj.__module__)
                    and (obj.__module__ == info.name or name in exported)):
                found[_key(obj)] = obj
    return dict(sorted(found.items()))


FUNCTIONS = _public_functions()
CARD_FUNCTIONS = [k for k, f in FUNCTIONS.items() if "hw" in inspect.signature(f).parameters
                  and inspect.signature(f).parameters["hw"].kind != inspect.Parameter.KEYWORD_ONLY]
CLASSES = {n: getattr(ic, n) for n in ic.__all__ if inspect.isclass(getattr(ic, n))}


def _positional_options(obj):
    """Parameters of ``obj`` that have a default yet can be passed by position, and any
    ``*args``; in a function with a card by position, its subject and ``hw`` are not
    options."""
    params = list(inspect.signature(obj).parameters.values())
    hw = [i for i, p in enumerate(params) if p.name == "hw" and p.kind != p.KEYWORD_ONLY]
    start = hw[0] + 1 if hw else 1      # a subject may default (the packaged rows, the report)
    return [p.name for p in params[start:]
            if p.kind == p.VAR_POSITIONAL
            or (p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                and p.default is not p.empty)]


def test_the_scan_covers_the_package():
    # the chapter functions, the figures, the explorers, the lab and a re-export from a
    # private module are found; the modules left out are not
    assert {"step.decode_step", "decode.model_decode_step",
            "comm.ring_allreduce_time", "step.mbu", "display.shown_up", "display.sig",
            "figures.ch3.kv_regions_figure", "figures.ch2_memory.amdahl_curves",
            "widgets.moe.moe_padding_explorer", "crossval.cross_validate",
            "measure.bench.gemm_seconds", "figures._registry.render_all",
            "planner.planner_state", "hf_config.spec_fields"} <= set(FUNCTIONS)
    assert not any(k.startswith("_validate.") for k in FUNCTIONS)
    assert len(FUNCTIONS) > 150          # the walk reaches every subpackage
    # a renamed `hw` would hide a card function from the card rule
    assert {"step.decode_step", "generation.generation_time", "roofline.critical_rows",
            "bound.bounds", "step.mbu", "figures.ch3.prefill_figure"} <= set(CARD_FUNCTIONS)


@pytest.mark.parametrize("key", CARD_FUNCTIONS)
def test_every_parameter_after_hw_is_keyword_only(key):
    params = list(inspect.signature(FUNCTIONS[key]).parameters.values())
    names = [p.name for p in params]
    i = names.index("hw")
    before = tuple(names[:i])
    assert i <= 2 or before in GEMM_SHAPES, f"{key}: hw is parameter {i + 1} after {before}"
    assert all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params[:i + 1])
    late = [p.name for p in params[i + 1:] if p.kind not in (p.KEYWORD_ONLY, p.VAR_KEYWORD)]
    assert not late, f"{key}: {late} after hw can be passed by position"


@pytest.mark.parametrize("key", [*FUNCTIONS, *CLASSES])
def test_every_option_is_keyword_only(key):
    loose = _positional_options(FUNCTIONS[key] if key in FUNCTIONS else CLASSES[key])
    if key in POSITIONAL_OPTIONS:
        assert loose, f"{key} has no positional option left: drop it from POSITIONAL_OPTIONS"
    else:
        assert not loose, (f"{key}: {loose} have defaults but can be passed by position "
                           f"(make them keyword-only)")


def _public_methods() -> dict:
    """``Class.method`` -> function, for every public method the package's classes define
    (their bases in the package included; dataclass-made methods are not public)."""
    found = {}
    for cls in CLASSES.values():
        for base in cls.__mro__:
            if not base.__module__.startswith("infra_calc"):
                continue
            for name, fn in vars(base).items():
                if inspect.isfunction(fn) and not name.startswith("_"):
                    found[f"{base.__qualname__}.{name}"] = fn
    return dict(sorted(found.items()))


METHODS = _public_methods()


@pytest.mark.parametrize("key", METHODS)
def test_every_methods_option_is_keyword_only(key):
    """A method takes its subject (``self``) and one size by position; any further input
    with a default is an option, keyword-only (``spec.decode_weight_bytes(b_w, batch,
    routing="uniform")``)."""
    params = list(inspect.signature(METHODS[key]).parameters.values())[2:]
    loose = [p.name for p in params if p.kind == p.VAR_POSITIONAL
             or (p.kind == p.POSITIONAL_OR_KEYWORD and p.default is not p.empty)]
    assert not loose, f"{key}: {loose} have defaults but can be passed by position"


def test_the_method_scan_reaches_the_records():
    assert {"ParameterLedger.decode_weight_bytes", "ParameterLedger.attention_flops",
            "ModelSpec.kv_bytes_per_token", "Workload.memory_at"} <= set(METHODS)


def test_every_exception_is_scanned():
    assert set(POSITIONAL_OPTIONS) <= set(FUNCTIONS)
    # the display family, read from the code: what returns a Shown and takes more than a value
    family = {f"display.{n}" for n, f in vars(ic.display).items() if inspect.isfunction(f)
              and f.__module__ == "infra_calc.display" and not n.startswith("_")
              and inspect.signature(f).return_annotation == "Shown"
              and len(inspect.signature(f).parameters) > 1}
    assert family == POSITIONAL_OPTIONS
    assert {"ModelSpec", "Workload", "Accelerator"} <= set(CLASSES)


@pytest.mark.parametrize("name", DISPLAY_SHAPE)
def test_the_display_family_has_one_shape(name):
    params = inspect.signature(getattr(ic.display, name)).parameters.values()
    assert tuple(p.name for p in params if p.kind == p.POSITIONAL_OR_KEYWORD) == DISPLAY_SHAPE[name]
    assert all(p.kind == p.KEYWORD_ONLY for p in params if p.kind != p.POSITIONAL_OR_KEYWORD)


@pytest.mark.parametrize("call", [
    lambda: ic.model_decode_step("llama-2-70b", "H100 SXM", 8),
    lambda: ic.decode_step(70e9, 1, "H100 SXM"),                 # the old order
    lambda: ic.generation_time("Llama-3.1-8B", "H100 SXM", 1000, 200),
    lambda: ic.ring_allreduce_time(1e6, 8, "H100 SXM"),           # the old order
    lambda: ic.critical_rows(4096, 4096, "H100 SXM", 2),
    lambda: ic.arithmetic_intensity(64, 4096, 4096, 2),
    lambda: ic.route_tokens(64, 256, 8),                          # two counts of experts
    lambda: ic.capacity_check(80e9, 16e9, 4e9, 2e9),              # workspace is keyword-only
    lambda: ic.capacity_check(80e9, 16e9, 4e9),                   # so are weights and kv
    lambda: ic.mbu(20e9, "H100 SXM", 10e-3),                       # the measured time too
    lambda: ic.display.shown_e(80e9, "B", 0, 9),                   # the exponent is keyword-only
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
    assert ic.display.shown_e(85.899e9, "B", 1) == "85.9e9 B"


#: The one order of the size and precision options, wherever a function takes them: the
#: fields of a :class:`~infra_calc.workload.Workload`, in its order (the requests, their
#: context, the cards, the byte widths, the math precision, the expert routing, the
#: workspace), with the sizes a workload does not hold beside their kin: a request's lengths
#: after the context, the cache's bytes themselves after its bytes per element.
#: A function may put the sizes it requires (no default) first, in this order among
#: themselves, then its optional ones, in this order: ``generation_time(m, hw, *,
#: prompt_tokens, output_tokens, batch=None, ...)``; or keep them all in this order
#: (``decode_step(params, hw, *, batch=1, bytes_per_param, kv_bytes=0)``).  A function's
#: own options (``weights``, ``comm``, a lever's ``drafts`` ...) may sit anywhere.
NOT_IN_A_WORKLOAD = {"context": ("prompt_tokens", "output_tokens"),
                     "kv_bytes_per_element": ("kv_bytes",)}
SIZE_ORDER = tuple(name for f in dataclasses.fields(ic.Workload) if f.kw_only
                   for name in (f.name, *NOT_IN_A_WORKLOAD.get(f.name, ())))

SIZED = {k: f for k, f in FUNCTIONS.items()
         if len(set(SIZE_ORDER) & set(inspect.signature(f).parameters)) > 1}

def _keyword_sizes(f):
    return [p for p in inspect.signature(f).parameters.values()
            if p.kind == p.KEYWORD_ONLY and p.name in SIZE_ORDER]


def _orders(given):
    """The two orders allowed: :data:`SIZE_ORDER`, or required sizes first, then it."""
    return (sorted(given, key=lambda p: SIZE_ORDER.index(p.name)),
            sorted(given, key=lambda p: (p.default is not p.empty, SIZE_ORDER.index(p.name))))


def test_the_sizes_beside_the_workloads_are_not_its_fields():
    fields = {f.name for f in dataclasses.fields(ic.Workload)}
    assert set(NOT_IN_A_WORKLOAD) <= fields
    assert not fields & {n for names in NOT_IN_A_WORKLOAD.values() for n in names}


def test_the_size_order_covers_the_chapter_functions():
    assert {"decode.model_decode_step", "prefill.prefill_step",
            "generation.generation_time", "kv.turning_batch", "estimate.estimate",
            "step.decode_step", "precision.precision_point", "prefix.cached_prefill_step",
            "levers.speculative_step", "planner.planner_state", "forecasting.forecast",
            "widgets.kv.kv_explorer"} <= set(SIZED)


def test_a_required_size_is_required_not_none():
    """A size a function cannot do without has no default (the signature says so, and a
    call without it is refused by Python, naming it), not ``None`` and a check inside."""
    for key in ("generation.generation_time", "prefill.prefill_step",
                "prefix.cached_prefill_step", "forecasting.forecast"):
        params = inspect.signature(FUNCTIONS[key]).parameters
        assert params["prompt_tokens"].default is inspect.Parameter.empty, key
    assert inspect.signature(ic.generation_time).parameters["output_tokens"].default \
        is inspect.Parameter.empty
    with pytest.raises(TypeError, match="output_tokens"):
        ic.generation_time("Llama-3.1-8B", "H100 SXM", prompt_tokens=100)


def test_the_size_order_refuses_a_shuffle():
    def required_after(*, batch=None, prompt_tokens, output_tokens, cards=None):
        pass

    def shuffled(*, prompt_tokens, cards=None, batch=None):
        pass

    def neither(*, output_tokens, prompt_tokens, batch=None):
        pass

    assert _keyword_sizes(required_after) in _orders(_keyword_sizes(required_after))
    assert _keyword_sizes(shuffled) not in _orders(_keyword_sizes(shuffled))
    assert _keyword_sizes(neither) not in _orders(_keyword_sizes(neither))


@pytest.mark.parametrize("name", sorted(SIZED))
def test_size_options_come_in_one_order(name):
    """``batch`` before ``context`` before ``cards`` ... (:data:`SIZE_ORDER`) in every signature,
    the required sizes possibly first, so a reader who knows one function's keywords reads
    the next one's in the same order."""
    given = _keyword_sizes(SIZED[name])
    assert given in _orders(given), f"{name}: {[p.name for p in given]}, not in the order of SIZE_ORDER"
