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
