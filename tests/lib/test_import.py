"""`import infra_calc` has no side effects and stays light."""
import importlib
import subprocess
import sys

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
                 "compute_time", "step_time", "decode_step", "batch_turning_point", "fix_scenarios",
                 "capacity_check", "max_batch", "capacity_reading", "decimal_reading", "planner_state",
                 "shape_efficiency", "padded_rows", "amdahl_speedup", "estimate", "model"]:
        assert callable(getattr(ic, name)), name
    assert set(ic.__all__) <= set(dir(ic))
    importlib.import_module("infra_calc.estimate")    # the submodule shares the function's name
    assert callable(ic.estimate)


# ------------------------------------------------------------------ import cycles
def _import_graph():
    """{module: modules it imports} inside infra_calc, lazy (function-level) imports included."""
    import ast
    import pathlib

    import infra_calc as ic

    root = pathlib.Path(ic.__file__).parent
    graph = {}
    for path in root.rglob("*.py"):
        rel = path.relative_to(root.parent).with_suffix("")
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
            else:
                continue
            deps |= {t for t in targets if t[0].startswith("infra_calc")}
        graph[name] = deps
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


# A parent package importing its own submodules is not a cycle of its own making unless the
# submodule imports the package back; exercises/ is split by another change (its answer
# checker and registry), which removes its cycle.
_OWNED_ELSEWHERE = ()


def test_no_import_cycles_lazy_imports_included():
    cycles = [c for c in _cycles(_import_graph())
              if not all(m.startswith(_OWNED_ELSEWHERE) for m in c)]
    assert cycles == []


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
