"""`python -m infra_calc estimate` with the chapter-3 options."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

import infra_calc as ic

ROOT = pathlib.Path(__file__).resolve().parents[1]


def run(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "infra_calc", *args],
                          capture_output=True, text=True, cwd=ROOT, env=env)


def test_estimate_prints_the_new_figures():
    r = run("estimate", "--model", "Llama-3.1-8B", "--hw", "H100", "--batch", "4",
            "--context", "1024", "--prompt", "2000", "--output-tokens", "200", "--cards", "2")
    assert r.returncode == 0, r.stderr
    for label in ("B*(S)", "S_max", "decode step on 2 card(s)", "T_comm",
                  "time to first token", "time per output token", "tokens/s per request"):
        assert label in r.stdout, label


def test_estimate_json_request_matches_library():
    r = run("estimate", "--model", "llama-70b", "--hw", "H100 SXM", "--batch", "8",
            "--context", "4096", "--prompt", "1000", "--output-tokens", "100", "--cards", "4",
            "--json")
    assert r.returncode == 0, r.stderr
    req = json.loads(r.stdout)["request"]
    g = ic.generation_time("llama-70b", "H100 SXM", 1000, 100, 2, batch=8, cards=4)
    tp = ic.tensor_parallel_step("llama-70b", "H100 SXM", 4, batch=8, context=4096)
    assert req["total"] == pytest.approx(g.total)
    assert req["ttft"] == pytest.approx(g.ttft)
    assert req["tp_t_step"] == pytest.approx(tp.t_step) and req["cards"] == 4


def test_plain_json_unchanged_without_new_options():
    r = run("estimate", "--model", "qwen3-8b", "--hw", "H100", "--json")
    assert "request" not in json.loads(r.stdout)


@pytest.mark.parametrize("args, message", [
    (["--cards", "0"], "cards must be >= 1"),
    (["--prompt", "-5"], "prompt_tokens (tokens)"),
    (["--prompt", "100", "--output-tokens", "0"], "output_tokens (tokens)"),
    (["--output-tokens", "10"], "needs prompt"),
    (["--prompt", "200000"], "max_position_embeddings"),
])
def test_estimate_bad_new_options(args, message):
    r = run("estimate", "--model", "Llama-3.1-8B", "--hw", "H100", *args)
    assert r.returncode == 2
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1
