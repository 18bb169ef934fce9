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
import re

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


#: Where a default ``hw`` is the source's card (CONTRIBUTING: "a figure or an explorer may give
#: its subject and ``hw`` defaults (the source's case)"): the figures, the explorers, the
#: capacity planner's state and the source's cases themselves (``scenarios``).  Anywhere
#: else ``hw`` has no default, or None, meaningful only with a
#: :class:`~infra_calc.workload.Workload` (which carries its card).
SOURCE_CASE_MODULES = ("figures.", "widgets.", "planner.", "scenarios.")

#: Sizes a card function may require, to call it without its card.
REQUIRED_SIZES = {"prompt_tokens": 64, "output_tokens": 8, "draft_tokens": 2,
                  "prefix_tokens": 16, "cached_tokens": 16}

DEFAULT_HW = [k for k in CARD_FUNCTIONS
              if inspect.signature(FUNCTIONS[k]).parameters["hw"].default is not inspect.Parameter.empty
              and not k.startswith(SOURCE_CASE_MODULES)]


def _doc_of(f, name):
    """The numpydoc entry of parameter ``name`` in ``f``'s docstring, or ''; an entry
    "As for :func:`other`" is ``other``'s."""
    lines = inspect.getdoc(f).splitlines()
    for i, line in enumerate(lines):
        if name in line.split(" :")[0].split(", ") and not line.startswith(" "):
            rest = lines[i + 1:]
            end = next((j for j, x in enumerate(rest) if x and not x.startswith(" ")), len(rest))
            entry = "\n".join([line, *rest[:end]])
            other = re.search(r"As for :func:`~?infra_calc\.([\w.]+)`", entry)
            return _doc_of(FUNCTIONS[other[1]], name) if other else entry
    return ""


def test_a_default_hw_is_none_and_needs_a_workload():
    assert {"decode.model_decode_step", "estimate.estimate", "generation.generation_time"} <= set(DEFAULT_HW)


@pytest.mark.parametrize("key", DEFAULT_HW)
def test_a_default_hw_never_picks_a_card(key):
    """Outside the source's cases a default ``hw`` is None, which only a Workload may
    take (its own card): with a model and no card the call is refused, naming ``hw``, and the
    docstring says so."""
    f = FUNCTIONS[key]
    params = inspect.signature(f).parameters
    assert params["hw"].default is None, f"{key}: hw defaults to {params['hw'].default!r}"
    sizes = {n: v for n, v in REQUIRED_SIZES.items()
             if n in params and params[n].default is inspect.Parameter.empty}
    with pytest.raises(TypeError, match="hw"):
        f("llama-2-7b", **sizes)
    doc = _doc_of(f, "hw")
    assert "None" in doc and "Workload" in doc, f"{key}: its docstring does not say what hw=None means"


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
    lambda: ic.amdahl_speedup(0.6, 2),                            # f and s could trade places
    lambda: ic.amdahl_time(100e-6, 0.6, 2),
    lambda: ic.expected_tokens_per_step(4, 0.8),                   # a count and a probability
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
#: A size a function requires (no default) keeps its place too: ``generation_time(m, hw, *,
#: batch=None, prompt_tokens, output_tokens, cards=None, ...)``,
#: ``decode_step(params, hw, *, batch=1, bytes_per_param, kv_bytes=0)``.  A function's
#: own options (``weight_read``, ``comm``, a lever's ``draft_tokens`` ...) may sit anywhere.
NOT_IN_A_WORKLOAD = {"context": ("prompt_tokens", "output_tokens"),
                     "kv_bytes_per_element": ("kv_bytes",)}
SIZE_ORDER = tuple(name for f in dataclasses.fields(ic.Workload) if f.kw_only
                   for name in (f.name, *NOT_IN_A_WORKLOAD.get(f.name, ())))

SIZED = {k: f for k, f in FUNCTIONS.items()
         if len(set(SIZE_ORDER) & set(inspect.signature(f).parameters)) > 1}

def _keyword_sizes(f):
    return [p for p in inspect.signature(f).parameters.values()
            if p.kind == p.KEYWORD_ONLY and p.name in SIZE_ORDER]


def _in_order(given):
    """``given`` in the order of :data:`SIZE_ORDER`, required or not."""
    return sorted(given, key=lambda p: SIZE_ORDER.index(p.name))


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
    def required_in_place(*, batch=None, prompt_tokens, output_tokens, cards=None):
        pass

    def required_first(*, prompt_tokens, output_tokens, batch=None):
        pass

    def shuffled(*, prompt_tokens, cards=None, batch=None):
        pass

    assert _keyword_sizes(required_in_place) == _in_order(_keyword_sizes(required_in_place))
    assert _keyword_sizes(required_first) != _in_order(_keyword_sizes(required_first))
    assert _keyword_sizes(shuffled) != _in_order(_keyword_sizes(shuffled))


@pytest.mark.parametrize("name", sorted(SIZED))
def test_size_options_come_in_one_order(name):
    """``batch`` before ``context`` before ``prompt_tokens`` before ``cards`` ...
    (:data:`SIZE_ORDER`) in every signature, required sizes in their place, so a reader who
    knows one function's keywords reads the next one's in the same order."""
    given = _keyword_sizes(SIZED[name])
    assert given == _in_order(given), f"{name}: {[p.name for p in given]}, not in the order of SIZE_ORDER"


#: Inputs of unit one (SI's: a count of requests, tokens or cards, a fraction, a
#: probability, a factor), by the names the package gives them: two of them could trade
#: places unseen (``amdahl_speedup(2, 0.6)``), so after the subject they are keyword-only
#: (CONTRIBUTING: "keyword-only where inputs of one unit could trade places").
UNIT_ONE = {*SIZE_ORDER[:SIZE_ORDER.index("cards") + 1], "tokens", "draft_tokens",
            "acceptance", "prefix_tokens", "cached_tokens", "f", "s"}


def test_unit_one_covers_the_counts():
    assert {"batch", "context", "prompt_tokens", "output_tokens", "cards"} <= UNIT_ONE


@pytest.mark.parametrize("key", FUNCTIONS)
def test_numbers_of_unit_one_are_keyword_only_after_the_subject(key):
    params = [p for p in inspect.signature(FUNCTIONS[key]).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "hw"]
    loose = [p.name for p in params[1:] if p.name in UNIT_ONE]
    assert not (loose and (params[0].name in UNIT_ONE or len(loose) > 1)), (
        f"{key}: {[p.name for p in params]} by position; {loose} could trade places "
        f"(make them keyword-only)")
