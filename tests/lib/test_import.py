"""`import infra_calc` has no side effects and stays light."""
import importlib
import pathlib
import re
import subprocess
import sys

import pytest

LIGHT = ("sympy", "matplotlib", "ipywidgets", "IPython", "tqdm", "infra_calc.models",
         "infra_calc.measure", "infra_calc.figures")


def test_import_does_not_pull_heavy_modules():
    code = ("import sys, infra_calc; "
            f"print(sorted(m for m in {LIGHT!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert out.stderr == ""


def test_lazy_names_load_on_first_use():
    code = ("import sys, infra_calc as ic; m = ic.model('qwen3-8b'); "
            "print(m.name, 'infra_calc.models' in sys.modules, "
            "ic.MODELS is sys.modules['infra_calc.models'].MODELS)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["Qwen3-8B", "True", "True"]


def test_public_api_names():
    import infra_calc as ic
    for name in ["Accelerator", "accelerator", "ModelSpec", "gemm_flops", "gemm_bytes",
                 "arithmetic_intensity", "critical_rows", "attainable_flops", "read_time",
                 "compute_time", "step_time", "mbu", "decode_step", "batch_turning_point",
                 "capacity_check", "max_batch", "capacity_reading", "decimal_reading",
                 "shape_efficiency", "padded_rows", "amdahl_speedup", "estimate", "model", "shown"]:
        assert callable(getattr(ic, name)), name
    # one name for one thing: the aliases and the pages' bookkeeping stay in their modules
    for name in ("ridge_point", "Shown", "PageValues", "fix_scenarios",
                 "planner_state"):
        assert name not in ic.__all__ and not hasattr(ic, name), name
    assert set(ic.__all__) <= set(dir(ic))
    importlib.import_module("infra_calc.estimate")    # the submodule shares the function's name
    assert callable(ic.estimate)


def _stub():
    """``name -> module`` of the package's stub ``__init__.pyi`` (read, not imported); a
    submodule the stub names (``from . import source``) maps to None."""
    import ast

    import infra_calc as ic
    tree = ast.parse(pathlib.Path(ic.__file__).with_suffix(".pyi").read_text(encoding="utf-8"))
    return {a.name: node.module for node in tree.body
            if isinstance(node, ast.ImportFrom) for a in node.names}


def test_each_name_is_its_modules_own():
    """The stub's one list of names: each is in its module's ``__all__``, re-exported
    (``x as x``), and the package hands out that module's object; ``__all__`` is the stub's
    names and ``__version__``."""
    import ast

    import infra_calc as ic
    stub = _stub()
    for name, module in stub.items():
        mod = importlib.import_module(f"infra_calc.{module or name}")
        if module is None:
            assert getattr(ic, name) is mod, name
        else:
            assert name in mod.__all__, (name, module)
            assert getattr(ic, name) is getattr(mod, name), (name, module)
    assert ic.__all__ == sorted([*stub, "__version__"])
    tree = ast.parse(pathlib.Path(ic.__file__).with_suffix(".pyi").read_text(encoding="utf-8"))
    assert all(a.asname == a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
               for a in n.names)


def test_a_function_named_as_its_module_stays_the_function():
    """``infra_calc.estimate`` is a module and ``ic.estimate`` the function: importing the
    submodule first (as the command line does) must not shadow the function (lazy_loader's
    guard; with a plain module type the import would bind the module in its place)."""
    code = ("import infra_calc as ic, types, sys; {plain}import infra_calc.cli; "
            "print(callable(ic.estimate))")
    for plain, want in (("", "True"), ("ic.__class__ = types.ModuleType; ", "False")):
        out = subprocess.run([sys.executable, "-c", code.format(plain=plain)],
                             capture_output=True, text=True, check=True)
        assert out.stdout.strip() == want, plain


def test_every_public_module_is_an_attribute_on_first_use():
    """The submodules come from the package's folder: one the package never imports
    (``ledger``) loads as ``ic.ledger``; a private one (``_parser``) is not an attribute."""
    code = ("import sys, infra_calc as ic; print('infra_calc.ledger' in sys.modules, "
            "ic.ledger is sys.modules['infra_calc.ledger'], hasattr(ic, '_parser'), "
            "'planner' in dir(ic))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "False", "True"]


# ------------------------------------------------------------------ import cycles
def _import_graph(dynamic=None):
    """{module: modules it imports} inside infra_calc and bookkit, lazy (function-level)
    imports and ``importlib.import_module`` calls included: a call with a constant name is
    an edge, the package's own lazy loader (``__getattr__``) has an edge to every module of
    stub ``__init__.pyi`` (read as the package's imports: lazy_loader imports them) and of
    its ``_SUBMODULES``, the exercise registry one to every module of its
    ``CHAPTERS``, and any other call (a name computed at run time, which
    this graph cannot see) is listed in ``dynamic`` as ``module:line``."""
    import ast
    import pathlib

    import bookkit
    import infra_calc as ic
    from bookkit.exercises import registry

    lazy = {f"infra_calc.{m}" for m in ic._SUBMODULES}
    chapters = {f"bookkit.exercises.{m}" for m in registry.CHAPTERS}
    graph = {}
    paths = [p for pkg in (ic, bookkit) for suffix in ("*.py", "*.pyi")
             for p in pathlib.Path(pkg.__file__).parent.rglob(suffix)]
    for path in paths:
        rel = path.relative_to(pathlib.Path(ic.__file__).parents[1]).with_suffix("")
        parts = list(rel.parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        name = ".".join(parts)
        package = parts if is_pkg else parts[:-1]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[:len(package) - (node.level - 1)]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                # "from pkg import name": the submodule pkg.name if there is one, else pkg
                targets = [(mod, f"{mod}.{a.name}") for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [(a.name, a.name) for a in node.names]
            elif isinstance(node, ast.Call) and getattr(node.func, "attr",
                                                        getattr(node.func, "id", None)) == "import_module":
                arg = node.args[0] if node.args else None
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    targets = [(arg.value, arg.value)]
                elif name == "infra_calc":
                    targets = [(m, m) for m in lazy]
                elif name == "bookkit.exercises.registry":
                    targets = [(m, m) for m in chapters]
                else:
                    targets = []
                    if dynamic is not None:
                        dynamic.append(f"{name}:{node.lineno}")
            else:
                continue
            deps |= {t for t in targets if t[0].split(".")[0] in ("infra_calc", "bookkit")}
        graph[name] = graph.get(name, set()) | deps      # __init__.py and its stub
    return {m: {sub if sub in graph else mod for mod, sub in deps} - {m}
            for m, deps in graph.items()}


def _cycles(graph):
    """Every strongly connected component with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles_lazy_imports_included():
    assert _cycles(_import_graph()) == []


def test_no_import_is_hidden_from_the_graph():
    """Every import the cycle test cannot see is a bug of the graph: no module but the
    package's lazy loader and the exercise registry (each importing the modules of its own
    table) imports a module whose name is computed at run time."""
    dynamic = []
    graph = _import_graph(dynamic)
    assert dynamic == []
    assert "infra_calc.models" in graph["infra_calc"]          # the lazy loader's edges
    assert {"bookkit.exercises.ch1", "bookkit.exercises.ch4"} <= graph["bookkit.exercises.registry"]


def _imports_of_the_book(graph):
    """``module -> bookkit modules it imports``, for the modules of infra_calc that import any."""
    return {m: sorted(d for d in deps if d.split(".")[0] == "bookkit")
            for m, deps in graph.items()
            if m.split(".")[0] == "infra_calc" and any(d.split(".")[0] == "bookkit" for d in deps)}


def test_the_library_never_imports_the_book_machinery():
    """infra_calc is the numeric library: no module of it imports bookkit, lazily or not
    (bookkit imports infra_calc, so one such import would also be a cycle in waiting)."""
    graph = _import_graph()
    assert "bookkit.exercises.ch1" in graph and "infra_calc.step" in graph["bookkit.exercises.ch1"]
    assert _imports_of_the_book(graph) == {}
    planted = {**graph, "infra_calc.display": graph["infra_calc.display"] | {"bookkit.pagevalues"}}
    assert _imports_of_the_book(planted) == {"infra_calc.display": ["bookkit.pagevalues"]}


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_library_modules_import_no_matplotlib():
    mods = ["infra_calc.estimate", "infra_calc.generation", "infra_calc.kv", "infra_calc.reality",
            "infra_calc.cli", "infra_calc.reproduce", "infra_calc.display", "bookkit"]
    code = ("import sys, importlib\n"
            f"for m in {mods!r}: importlib.import_module(m)\n"
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_package_docstring_says_which_functions_broadcast():
    """The step, bound and kv functions take arrays; a Workload's workspace, the request's
    batch and estimate take scalars only (the sentence in infra_calc/__init__.py)."""
    import numpy as np

    import infra_calc as ic
    from infra_calc.bound import bounds
    b = np.array([1, 8])
    for got in (ic.read_time(b * 1e9, "H100"), ic.compute_time(b * 1e12, "H100"),
                ic.step_time(b * 1e12, b * 1e9, "H100"),
                bounds(b * 1e12, b * 1e9, ic.accelerator("H100")).t_floor,
                ic.decode_step(70e9, "H100", bytes_per_param=1, batch=b).t_step,
                ic.turning_batch("llama-70b", "H100", context=b * 100),
                ic.critical_context("llama-70b", "H100", cards=b),
                ic.model_decode_step("llama-70b", "H100", batch=b, context=b * 100).t_step):
        assert np.shape(got) == (2,)
    for call in (lambda: ic.Workload("llama-70b", "H100", workspace=b * 1e9),
                 lambda: ic.estimate("llama-70b", "H100", batch=b),
                 lambda: ic.forecast("llama-70b", "H100", prompt_tokens=100, output_tokens=10,
                                     batch=b),
                 lambda: ic.generation_time("llama-70b", "H100", prompt_tokens=100,
                                            output_tokens=10, batch=b)):
        with pytest.raises(TypeError, match="single"):
            call()


def test_the_version_is_pyprojects():
    """``__version__`` is read from the installed package, so it is pyproject.toml's."""
    from pathlib import Path

    import tomllib

    import infra_calc as ic
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert ic.__version__ == pyproject["project"]["version"]


#: A cross-reference in a docstring (``:func:`~infra_calc.x.y``` and the other roles), with a
#: full dotted target; the book has no API pages, so Sphinx never resolves them.
XREF = re.compile(r":(?:func|class|data|mod|attr|meth|exc):`~?((?:infra_calc|bookkit)(?:\.\w+)+)`")


def _resolves(target: str) -> bool:
    parts = target.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for name in parts[k:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def test_every_docstring_cross_reference_names_something_that_exists():
    root = pathlib.Path(__file__).resolve().parents[2]
    files = sorted([*(root / "infra_calc").rglob("*.py"), *(root / "bookkit").rglob("*.py")])
    broken = [f"{p.relative_to(root)}:{i}: {t}" for p in files
              for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
              for t in XREF.findall(line) if not _resolves(t)]
    assert not broken, broken
    assert not _resolves("infra_calc.hardware.capacity_reading")     # the check can fail
