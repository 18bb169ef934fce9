"""`import infra_calc` has no side effects and stays light."""
import subprocess
import sys


def test_import_does_not_pull_heavy_modules():
    code = ("import sys, infra_calc; "
            "print(sorted(m for m in ('sympy', 'matplotlib', 'ipywidgets', 'IPython') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert out.stderr == ""


def test_public_api_names():
    import infra_calc as ic
    for name in ["Accelerator", "accelerator", "ModelSpec", "gemm_flops", "gemm_bytes",
                 "arithmetic_intensity", "critical_rows", "attainable_flops", "read_time",
                 "compute_time", "step_time", "decode_step", "batch_turning_point",
                 "capacity_check", "max_batch", "shape_efficiency", "padded_rows",
                 "amdahl_speedup", "estimate"]:
        assert callable(getattr(ic, name)), name
    assert set(ic.__all__) <= set(dir(ic))
