"""The command line: estimate (decode, request, cards, JSON), list, --help, and bad input."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

import infra_calc as ic

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "infra_calc", *args],
                          capture_output=True, text=True, cwd=ROOT, env=env)


def test_estimate_table():
    r = run("estimate", "--model", "qwen3-8b", "--hw", "H100 SXM", "--bytes-per-param", "2",
            "--batch", "8", "--context", "8192")
    assert r.returncode == 0, r.stderr
    assert "memory-bound" in r.stdout
    assert "max batch at this context" in r.stdout and r.stdout.split(
        "max batch at this context")[1].split()[0] == "55"


def test_a_default_is_never_refused():
    """Llama-2-7B allows 4,096 tokens: the default context follows the model."""
    r = run("estimate", "--model", "llama-2-7b", "--hw", "H100 SXM")
    assert r.returncode == 0, r.stderr
    assert "4,096 tokens (default)" in r.stdout


def test_estimate_json_matches_library():
    r = run("estimate", "--model", "deepseek-r1-distill-llama-70b", "--hw", "a100",
            "--bytes-per-param", "1", "--json")
    data = json.loads(r.stdout)
    est = ic.estimate("deepseek-r1-distill-llama-70b", "A100 80GB", bytes_per_param=1)
    assert data == json.loads(json.dumps(est.to_dict()))
    assert data["params"] == 70_553_706_496 and data["fits"] is True


def test_json_is_strict_with_a_top_level_fits_for_the_cards_given():
    r = run("estimate", "--model", "llama-70b", "--hw", "H100 SXM", "--cards", "4", "--prompt",
            "2000", "--json")
    assert r.returncode == 0, r.stderr
    assert "Infinity" not in r.stdout and "NaN" not in r.stdout
    data = json.loads(r.stdout)
    assert data["fits"] is True and data["cards"] == 4
    assert data["batch_turning_point_kv"] is None and data["null_reasons"]["batch_turning_point_kv"]
    g = ic.generation_time("llama-70b", "H100 SXM", 2000, 256, cards=4)
    assert data["request"]["total"] == pytest.approx(g.total)


def test_cards_apply_to_the_capacity_block():
    r = run("estimate", "--model", "llama-70b", "--hw", "A100", "--cards", "4")
    assert r.returncode == 0, r.stderr
    assert "capacity per card" in r.stdout and "fits" in r.stdout and "NO" not in r.stdout
    r1 = run("estimate", "--model", "llama-70b", "--hw", "A100")
    assert "NO: short by" in r1.stdout and "DOES NOT FIT" in r1.stdout


def test_one_decode_time_explained():
    r = run("estimate", "--model", "Llama-3.1-8B", "--hw", "H100", "--batch", "4",
            "--prompt", "2000", "--output-tokens", "200", "--cards", "2")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "2 x 2,199 tokens" not in out and "4 x 2,199 tokens (the request's last decode step)" in out
    for label in ("B*(S)", "S_max", "T_comm", "TTFT, time to first token",
                  "TPOT, time per output token (mean)", "over contexts 2,001..2,199",
                  "tokens/s per request"):
        assert label in out, label


def test_help_explains_ttft_tpot_context_and_names_only_real_options():
    r = run("estimate", "--help")
    assert r.returncode == 0
    text = r.stdout
    for needle in ("TTFT", "TPOT", "--context", "--prompt", "P + O - 1", "python -m infra_calc list"):
        assert needle in text, needle
    assert "see --list" not in text


@pytest.mark.parametrize("args, needle", [
    (["estimate", "--model", "gpt-9", "--hw", "H100"], "unknown model 'gpt-9'"),
    (["estimate", "--model", "qwen3-8b", "--hw", "V100"], "unknown accelerator 'V100'"),
    (["estimate", "--model", "qwen3-8b", "--hw", "H100", "--batch", "0"], "batch (requests)"),
    (["estimate", "--model", "qwen3-8b", "--hw", "H100", "--batch", str(10**30)],
     "batch (requests) must be at most"),
    (["estimate", "--model", "qwen3-8b", "--hw", "H100", "--kv-bytes", "nan"],
     "kv_bytes_per_element (bytes/element) must not be NaN"),
    (["estimate", "--model", "qwen3-8b", "--hw", "H100", "--bytes-per-param", "-1"],
     "bytes_per_param (bytes/parameter)"),
    (["estimate", "--model", "qwen3-8b", "--hw", "H100", "--batch", "many"], "invalid int value"),
    (["estimate", "--model", "/nonexistent/config.json", "--hw", "H100"], "config.json"),
    (["estimate", "--model", "Llama-3.1-8B", "--hw", "H100", "--cards", "0"], "cards must be >= 1"),
    (["estimate", "--model", "Llama-3.1-8B", "--hw", "H100", "--cards", "3"], "cards must divide"),
    (["estimate", "--model", "Llama-3.1-8B", "--hw", "H100", "--prompt", "-5"],
     "prompt_tokens (tokens)"),
    (["estimate", "--model", "Llama-3.1-8B", "--hw", "H100", "--prompt", "100",
      "--output-tokens", "0"], "output_tokens (tokens)"),
    (["estimate", "--model", "Llama-3.1-8B", "--hw", "H100", "--output-tokens", "10"],
     "needs prompt"),
    (["estimate", "--model", "Llama-3.1-8B", "--hw", "H100", "--prompt", "200000"],
     "max_position_embeddings"),
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
