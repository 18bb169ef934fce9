"""Tests of infra_calc.measure (the lab), its figure and its notebook.

Measurements run at tiny sizes; no assertion depends on how fast the machine is.
"""
from __future__ import annotations

import json
import math
import pathlib
import subprocess
import sys

import nbformat
import numpy as np
import pytest

import infra_calc as ic
from infra_calc import measure
from infra_calc.measure import GemmSweep, LabRun, MachineRoofline

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "book" / "5_lab" / "example_run.json"
NOTEBOOKS = sorted((ROOT / "book" / "5_lab").glob("[0-9]*.ipynb"))


def _fake_run(peak=100e9, bw=20e9, m=(1, 2, 4, 8, 16, 32), k=256, n=256):
    roof = MachineRoofline(peak, bw, {"cpu": "test cpu", "cpu_count": 2, "platform": "test",
                                      "numpy": np.__version__, "blas": "none"},
                           settings={"triad_n": 1024, "triad_threads": 1, "matmul_sizes": [64]},
                           date="2026-01-01T00:00:00+00:00")
    f = np.array([1.0, 2.0, 4.0, 8.0, 8.0, 8.0])[: len(m)] * 1e9
    seconds = ic.gemm_flops(np.array(m, float), k, n) / f
    return LabRun(roof, measure.sweep_from_seconds(roof, m, seconds, k=k, n=n, bytes_per_element=4))


# --------------------------------------------------------------------- small measurements

def test_triad_bandwidth_small_is_positive():
    bw = measure.triad_bandwidth(n=2 ** 16, repeats=2, warmup=1, threads=2)
    assert bw > 0 and math.isfinite(bw)
    assert measure.triad_bandwidth(n=2 ** 14, dtype="float64", repeats=1, threads=1) > 0


def test_triad_bytes_counts_five_arrays_on_cpu_three_fused():
    assert measure.triad_bytes(1000, 4) == 5 * 1000 * 4
    assert measure.triad_bytes(1000, 2, device="cuda") == 3 * 1000 * 2


def test_triad_bytes_write_allocate_adds_the_read_of_a():
    assert measure.triad_bytes(1000, 4, write_allocate=True) == 6 * 1000 * 4
    assert measure.triad_bytes(1000, 2, device="cuda", write_allocate=True) == 4 * 1000 * 2


def test_matmul_peak_is_a_finite_rate():
    peak = measure.matmul_peak(sizes=(64, 128), repeats=2)
    assert peak > 0 and math.isfinite(peak)


def test_gemm_sweep_small():
    roof = MachineRoofline(50e9, 10e9)
    sw = measure.gemm_sweep(roof, m_values=(1, 2, 4, 8), k=128, n=128, repeats=2, min_time=0.0)
    assert sw.m == (1, 2, 4, 8)
    assert all(x > 0 for x in sw.seconds) and all(x > 0 for x in sw.flops_per_second)
    # an M x 128 x 128 GEMM is 2 M 128 128 = 32,768 M FLOPs, whatever the time it took
    assert np.allclose(np.array(sw.flops_per_second) * sw.seconds, [32768, 65536, 131072, 262144])
    # by hand, 4-byte elements, K = N = 128: I(M) = 2M 128^2 / (4 (128M + 128^2 + 128M))
    # = 32M / (M + 64) FLOP/byte, below the ridge 50e9 / 10e9 = 5 up to M = 320/27 (32M = 5M + 320)
    m = np.array(sw.m, float)
    assert np.allclose(sw.predicted, 10e9 * 32 * m / (m + 64))         # all on the slope
    assert sw.bytes_per_element == 4.0
    assert sw.predicted_critical_rows == pytest.approx(320 / 27)


def test_measure_roofline_small_overrides():
    roof = measure.measure_roofline(quick=True, triad_n=2 ** 16, matmul_sizes=(64,), repeats=1)
    assert roof.peak_flops > 0 and roof.mem_bandwidth > 0
    # the ridge is where the roofline's two limbs meet: the peak there, half of it at half of it
    acc = roof.accelerator
    assert ic.attainable_flops(roof.ridge_point, acc) == pytest.approx(roof.peak_flops)
    assert ic.attainable_flops(roof.ridge_point / 2, acc) == pytest.approx(roof.peak_flops / 2)
    assert roof.machine["cpu_count"] >= 1 and roof.machine["numpy"] == np.__version__
    assert roof.date and "date" not in repr(roof) and roof.date not in repr(roof)


# --------------------------------------------------------------------- the M* rule and models

def test_measured_critical_rows_interpolates_in_log_log():
    # plateau 8, 90 % = 7.2 reached between M=4 (4) and M=8 (8): log-log line f = M -> M = 7.2
    m = (1, 2, 4, 8, 16, 32)
    f = (1, 2, 4, 8, 8, 8)
    assert measure.measured_critical_rows(m, f, fraction=0.9) == pytest.approx(7.2)
    assert measure.measured_critical_rows(m, f, fraction=0.5) == pytest.approx(4.0)
    assert measure.measured_critical_rows((1, 2), (5, 5)) == 1.0


def test_model_rows_overlap_and_no_overlap():
    hw = ic.Accelerator("x", 100e9, 20e9, 1.0)
    # overlap: I = f I*; no overlap: I = f/(1-f) I*
    for f, scale in ((0.9, 0.9), (0.5, 0.5)):
        m = measure.model_rows_at_fraction(4096, 4096, hw, bytes_per_element=4, fraction=f, overlap=True)
        assert ic.arithmetic_intensity(m, 4096, 4096,
                                       bytes_per_element=4) == pytest.approx(scale * hw.ridge_point)
        m = measure.model_rows_at_fraction(4096, 4096, hw, bytes_per_element=4, fraction=f, overlap=False)
        assert ic.arithmetic_intensity(m, 4096, 4096,
                                       bytes_per_element=4) == pytest.approx(f / (1 - f) * hw.ridge_point)
        assert measure.no_overlap_flops(m, 4096, 4096, hw,
                                        bytes_per_element=4) == pytest.approx(f * hw.peak_flops)
    assert measure.model_rows_at_fraction(4096, 4096, hw, bytes_per_element=4, fraction=1.0) == pytest.approx(
        ic.critical_rows(4096, 4096, hw, bytes_per_element=4))


def test_prediction_is_the_roofline_and_achieved_is_flops_over_seconds():
    hw = ic.Accelerator("x", 100e9, 20e9, 1.0)
    m = (1, 16, 256, 4096)
    predicted, m_star = measure.roofline_prediction(m, 512, 512, hw, bytes_per_element=4)
    i = ic.arithmetic_intensity(np.array(m, float), 512, 512, bytes_per_element=4)
    assert np.allclose(predicted, np.minimum(100e9, i * 20e9))
    assert predicted[-1] == 100e9 and predicted[0] == pytest.approx(i[0] * 20e9)
    assert m_star == ic.critical_rows(512, 512, hw, bytes_per_element=4)
    assert np.allclose(measure.achieved_flops(m, (1.0, 2.0, 4.0, 8.0), 512, 512),
                       [2 * x * 512 * 512 / t for x, t in zip(m, (1.0, 2.0, 4.0, 8.0), strict=True)])


def test_sweep_properties():
    run = _fake_run()
    s = run.sweep
    assert s.plateau == pytest.approx(8e9)
    assert s.measured_critical_rows == pytest.approx(7.2)
    assert s.prediction_error == pytest.approx(7.2 / s.predicted_critical_rows - 1)
    assert s.throughput_at(4) == pytest.approx(4e9)
    with pytest.raises(ValueError, match="m \\(rows\\) = 3"):
        s.throughput_at(3)
    lines = run.report()
    assert any("Predicted M*" in x for x in lines) and any("Measured M*" in x for x in lines)
    assert not any("2026-01-01" in x for x in lines)     # the date never appears in the printout


# --------------------------------------------------------------------- JSON

def test_json_round_trip(tmp_path):
    run = _fake_run()
    p = tmp_path / "run.json"
    run.to_json(p)
    back = LabRun.from_json(p)
    assert back == run
    assert back.roofline.date == run.roofline.date
    assert back.roofline.machine == run.roofline.machine
    assert MachineRoofline.from_json(p) == run.roofline
    assert GemmSweep.from_json(p) == run.sweep
    run.roofline.to_json(tmp_path / "r.json")
    assert MachineRoofline.from_json(tmp_path / "r.json") == run.roofline
    run.sweep.to_json(tmp_path / "s.json")
    assert GemmSweep.from_json(tmp_path / "s.json") == run.sweep
    data = json.loads(p.read_text())
    assert data["format"] == measure.FORMAT and data["roofline"]["ridge_point"] == run.roofline.ridge_point


def test_json_rejects_wrong_format_and_inconsistent_ridge(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text(json.dumps({"format": "other"}))
    with pytest.raises(ValueError, match="format"):
        LabRun.from_json(p)
    d = _fake_run().to_dict()
    d["roofline"]["ridge_point"] = 1.0
    with pytest.raises(ValueError, match="ridge_point"):
        LabRun.from_dict(d)


# --------------------------------------------------------------------- validation

@pytest.mark.parametrize("call, words", [
    (lambda: measure.triad_bandwidth(n=0), ["n", "elements"]),
    (lambda: measure.triad_bandwidth(n=2 ** 12, repeats=0), ["repeats", "timed runs"]),
    (lambda: measure.triad_bandwidth(n=2 ** 12, warmup=-1), ["warmup", "untimed runs"]),
    (lambda: measure.triad_bandwidth(n=2 ** 12, threads=0), ["threads", "CPU threads"]),
    (lambda: measure.triad_bandwidth(n=2 ** 12, dtype="int8"), ["dtype", "float32"]),
    (lambda: measure.triad_bandwidth(n=2 ** 12, device="tpu"), ["device", "cpu"]),
    (lambda: measure.matmul_peak(sizes=(0,)), ["sizes", "matrix rows"]),
    (lambda: measure.gemm_seconds(0), ["m", "rows"]),
    (lambda: measure.gemm_seconds(1, k=-4), ["k", "elements"]),
    (lambda: measure.gemm_seconds(1, min_time=-1.0), ["min_time", "seconds"]),
    (lambda: measure.gemm_sweep(MachineRoofline(1e9, 1e9), m_values=(4, 2)), ["m_values", "increasing"]),
    (lambda: measure.gemm_sweep(MachineRoofline(1e9, 1e9), fraction=1.5), ["fraction", "plateau"]),
    (lambda: measure.measured_critical_rows((1, 2), (1.0,)), ["flops_per_second", "one value per M"]),
    (lambda: MachineRoofline(0.0, 1e9), ["peak_flops", "FLOP/s"]),
    (lambda: MachineRoofline(1e9, -1.0), ["mem_bandwidth", "bytes/s"]),
    (lambda: measure.ProgressBar(0), ["total", "steps"]),
])
def test_argument_errors_name_parameter_and_unit(call, words):
    with pytest.raises(ValueError) as info:
        call()
    for w in words:
        assert w in str(info.value)


def test_type_errors():
    with pytest.raises(TypeError, match="roofline must be a MachineRoofline"):
        measure.gemm_sweep("H100")
    with pytest.raises(TypeError, match="unknown setting"):
        measure.measure_roofline(quick=True, bogus=1)


# --------------------------------------------------------------------- GPU detection, progress

def test_gpu_note_when_torch_missing(monkeypatch):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "torch" else real(name, *a))
    assert measure.cuda_available() is False
    note = measure.gpu_note()
    assert "skipped" in note and "\n" not in note
    with pytest.raises(ValueError, match="cuda"):
        measure.triad_bandwidth(device="cuda")


def test_progress_bar_draws_on_its_stream():
    import io
    buf = io.StringIO()
    bar = measure.ProgressBar(4, stream=buf)
    for i in range(5):
        bar.step(f"part {i}")
    assert bar.done == 4                      # never past the total
    bar.close()
    text = buf.getvalue()
    assert "4/4" in text and "part 4" in text        # the last label and the full count


def test_progress_bar_without_tqdm_names_the_extra(monkeypatch):
    """tqdm is the ``measure`` extra, not a dependency of the library: without it the
    measurement says what to install."""
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)          # import tqdm.auto then fails
    with pytest.raises(ImportError, match=r"infra_calc\[measure\]"):
        measure.ProgressBar(4)


def test_import_has_no_side_effects():
    out = subprocess.run([sys.executable, "-c", "import infra_calc.measure"], capture_output=True,
                         text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0 and out.stdout == "" and out.stderr == ""


# --------------------------------------------------------------------- CLI

@pytest.mark.benchmark                  # a real (quick) run: `make test`'s, not `make check`'s
def test_cli_quick_json_writes_loadable_file(tmp_path):
    p = tmp_path / "run.json"
    out = subprocess.run([sys.executable, "-m", "infra_calc", "measure", "--quick", "--json", str(p)],
                         capture_output=True, text=True, timeout=1800, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    run = LabRun.from_json(p)
    assert run.sweep.m == measure.DEFAULT_M and run.sweep.m[-1] >= 1024
    assert run.roofline.peak_flops > 0 and run.roofline.mem_bandwidth > 0
    assert run.roofline.settings["quick"] is True
    assert "Predicted M*" in out.stdout and "Measured M*" in out.stdout
    assert "Prediction error" in out.stdout and "GB/s" in out.stdout and "GFLOP/s" in out.stdout
    assert measure.gpu_note() in out.stdout
    assert run.roofline.date and run.roofline.date not in out.stdout   # the date only in the JSON
    assert "]" in out.stderr and "/" in out.stderr          # the progress bar went to stderr


def test_cli_bad_option_exits_2():
    out = subprocess.run([sys.executable, "-m", "infra_calc", "measure", "--bogus"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 2 and "--bogus" in out.stderr


# --------------------------------------------------------------------- example and figure

def test_example_json_is_consistent():
    run = LabRun.from_json(EXAMPLE)
    r, s = run.roofline, run.sweep
    assert ic.attainable_flops(r.ridge_point, r.accelerator) == pytest.approx(r.peak_flops)
    assert s.m == measure.DEFAULT_M and s.m[-1] >= 1024
    assert (s.k, s.n, s.bytes_per_element) == (ic.source.J13_K, ic.source.J13_N, 4.0) == (4096, 4096, 4)
    assert (s.peak_flops, s.mem_bandwidth) == (r.peak_flops, r.mem_bandwidth)
    # by hand, 4-byte elements, K = N = 4096: I(M) = 2M K^2 / (4 (2MK + K^2)) = 1024M / (M + 2048)
    # FLOP/byte, which reaches the ridge I* at M* = 2048 I* / (1024 - I*)
    m, ridge = np.array(s.m, float), r.peak_flops / r.mem_bandwidth
    assert np.allclose(s.predicted, np.minimum(r.peak_flops, r.mem_bandwidth * 1024 * m / (m + 2048)))
    assert s.predicted_critical_rows == pytest.approx(2048 * ridge / (1024 - ridge))
    assert r.settings["quick"] is False and r.date


def test_example_figure():
    import matplotlib.pyplot as plt

    from infra_calc.figures import FIGURES, lab

    assert "lab-example-run" in FIGURES and lab.EXAMPLE_RUN == EXAMPLE
    fig = lab.lab_example_run()
    ax = fig.axes[0]
    assert len(fig.axes) == 1
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert "GFLOP/s" in ax.get_ylabel() and "rows M" in ax.get_xlabel()
    measured = [ln for ln in ax.lines if ln.get_label() == "measured (median)"][0]
    run = LabRun.from_json(EXAMPLE)
    assert np.allclose(measured.get_ydata(), np.array(run.sweep.flops_per_second) / 1e9)
    plt.close(fig)


def test_figure_takes_path_and_run(tmp_path):
    import matplotlib.pyplot as plt

    from infra_calc.figures import lab

    run = _fake_run()
    p = tmp_path / "mine.json"
    run.to_json(p)
    for fig in (lab.lab_example_run(path=p), lab.lab_example_run(run=run)):
        ydata = [ln for ln in fig.axes[0].lines if ln.get_label() == "measured (median)"][0].get_ydata()
        assert np.allclose(ydata, [1, 2, 4, 8, 8, 8])
        plt.close(fig)


# --------------------------------------------------------------------- notebook

@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_lab_notebook_executed_without_errors(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code
    for c in code:
        assert c.get("execution_count") is not None, c.source[:60]
        assert not any(o.get("output_type") == "error" for o in c.get("outputs", [])), c.source[:60]
    ignored = [c for c in code if "nbval-ignore-output" in c.metadata.get("tags", [])]
    assert any("measure.run" in c.source for c in ignored)          # live cells are ignored
    shown = [c for c in code if c not in ignored]
    assert any("lab_example_run()" in c.source for c in shown)      # example cells are compared
    assert nb.metadata["kernelspec"]["name"] == "python3"


def test_notebooks_exist():
    """The lab's parametrised notebook tests above would pass vacuously on an empty list."""
    assert NOTEBOOKS, "book/lab has no numbered notebook"


def test_roofline_and_sweep_give_their_accelerator_the_same_way():
    """Both records give the measured roofline as an Accelerator the library's functions take
    as ``hw``, and the ridge point is the Accelerator's own."""
    roof = MachineRoofline(peak_flops=2e12, mem_bandwidth=5e10, machine={"memory_bytes": 8e9})
    acc = roof.accelerator
    assert isinstance(acc, ic.Accelerator) and ic.read_time(5e10, acc) == 1.0
    assert (acc.peak_flops, acc.mem_bandwidth, acc.mem_capacity) == (2e12, 5e10, 8e9)
    assert roof.ridge_point == acc.ridge() == 40.0
    run = _fake_run()
    a, b = run.roofline.accelerator, run.sweep.accelerator
    assert isinstance(b, ic.Accelerator)
    assert (a.name, a.source, a.peak_flops, a.mem_bandwidth) == (b.name, b.source, b.peak_flops,
                                                                 b.mem_bandwidth)
