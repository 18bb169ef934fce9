"""The command line: estimate, list, and bad input (one line, exit status 2)."""
import json
import pathlib
import subprocess
import sys

import pytest

import infra_calc as ic

ROOT = pathlib.Path(__file__).resolve().parents[1]


def run(*args):
    return subprocess.run([sys.executable, "-m", "infra_calc", *args],
                          capture_output=True, text=True, cwd=ROOT)


def test_estimate_table():
    r = run("estimate", "--model", "qwen3-8b", "--hw", "H100 SXM", "--bytes-per-param", "2",
            "--batch", "8", "--context", "8192")
    assert r.returncode == 0, r.stderr
    assert "memory-bound" in r.stdout and "max batch at this context   55" in r.stdout


def test_estimate_json_matches_library():
    r = run("estimate", "--model", "deepseek-r1-distill-llama-70b", "--hw", "a100",
            "--bytes-per-param", "1", "--json")
    data = json.loads(r.stdout)
    est = ic.estimate("deepseek-r1-distill-llama-70b", "A100 80GB", 1)
    assert data == json.loads(json.dumps(est.to_dict()))
    assert data["params"] == 70_553_706_496


def test_estimate_config_path():
    path = ROOT / "infra_calc" / "data" / "models" / "qwen3-8b.json"
    r = run("estimate", "--model", str(path), "--hw", "RTX 4090", "--json")
    assert json.loads(r.stdout)["params"] == 8_190_735_360


_MODELS, _HWS = ic.model_names(), ic.accelerator_names()
# every model and every accelerator on the command line at least once (the full grid
# is checked through the library in the library tests)
PAIRS = [(_MODELS[i % len(_MODELS)], _HWS[i % len(_HWS)]) for i in range(max(len(_MODELS), len(_HWS)))]


@pytest.mark.parametrize("model, hw", PAIRS)
def test_estimate_every_model_and_accelerator(model, hw):
    """One command-line run per model and per accelerator: its JSON is the library's estimate."""
    context = min(8192, ic.model(model).max_position_embeddings or 8192)
    r = run("estimate", "--model", model, "--hw", hw, "--context", str(context), "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data == json.loads(json.dumps(ic.estimate(model, hw, context=context).to_dict()))
    assert data["t_step"] > 0


@pytest.mark.parametrize("args, needle", [
    (["estimate", "--model", "gpt-9", "--hw", "H100"], "unknown model 'gpt-9'"),
    (["estimate", "--model", "qwen3-8b", "--hw", "V100"], "unknown accelerator 'V100'"),
    (["estimate", "--model", "qwen3-8b", "--hw", "H100", "--batch", "0"], "batch (requests)"),
    (["estimate", "--model", "qwen3-8b", "--hw", "H100", "--bytes-per-param", "-1"],
     "bytes_per_param (bytes/parameter)"),
    (["estimate", "--model", "qwen3-8b", "--hw", "H100", "--batch", "many"], "invalid int value"),
    (["estimate", "--model", "/nonexistent/config.json", "--hw", "H100"], "config.json"),
    (["reproduce", "j99"], "invalid choice"),
    (["nope"], "invalid choice"),
])
def test_bad_input_one_line_exit_2(args, needle):
    r = run(*args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert needle in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_list():
    r = run("list")
    assert r.returncode == 0 and "H100 SXM" in r.stdout and "Qwen3-8B" in r.stdout
