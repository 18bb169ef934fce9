"""The command line: estimate (decode, request, cards, JSON), forecast, list, --help, and bad input."""
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

import infra_calc as ic
from infra_calc.cli import main

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
    # the read leaves the untied embedding table out of the weights, and says so
    assert "weights a step touches: the embedding table gathered, not read" in r.stdout
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
    assert data["fits"] is True and data["everything_fits"] is True and data["cards"] == 4
    assert data["memory"]["fits"] is True and data["request"]["fits"] is True
    assert data["batch_turning_point_kv"] is None and data["null_reasons"]["batch_turning_point_kv"]
    g = ic.generation_time("llama-70b", "H100 SXM", prompt_tokens=2000, output_tokens=256, cards=4)
    assert data["request"]["total"] == pytest.approx(g.total)
    assert data["request"]["weight_read"] == g.weight_read == "touched"   # the mode, not bytes


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


def test_help_shows_the_library_defaults_and_both_commands_take_the_same_sizes():
    from infra_calc.estimate import DEFAULT_CONTEXT, DEFAULT_OUTPUT_TOKENS
    est, fc = run("estimate", "--help").stdout, run("forecast", "--help").stdout
    flat = " ".join(est.split())                  # argparse wraps the option help
    assert f"else {DEFAULT_CONTEXT:,} capped by the model" in flat
    assert f"otherwise {DEFAULT_CONTEXT:,}, or the model's" in flat
    assert f"default {DEFAULT_OUTPUT_TOKENS}, capped by the model" in flat
    for flag in ("--model", "--hw", "--bytes-per-param", "--kv-bytes-per-element", "--batch",
                 "--cards", "--prompt", "--output-tokens", "--math", "--engine", "--json"):
        assert flag in est and flag in fc, flag
    assert "--kv-bytes " not in est + fc


E = ["estimate", "--model", "qwen3-8b", "--hw", "H100"]


@pytest.mark.parametrize("args, needle", [
    (["estimate", "--model", "gpt-9", "--hw", "H100"], "argument --model: unknown model 'gpt-9'"),
    (["estimate", "--model", "qwen3-8b", "--hw", "V100"],
     "argument --hw: unknown accelerator 'V100'; known names: H100 SXM, A100 80GB"),
    (["forecast", "--model", "qwen3-8b", "--hw", "V100", "--prompt", "1", "--output-tokens", "2"],
     "argument --hw: unknown accelerator 'V100'"),
    (["estimate", "--model", "/nonexistent/config.json", "--hw", "H100"], "config.json"),
    (["reproduce", "j99"], "invalid choice"),
    (["nope"], "invalid choice"),
    (["figures", "--format", "gif"], "argument --format: invalid choice: 'gif'"),
    (["measure", "--device", "tpu"], "argument --device: invalid choice: 'tpu'"),
    (["measure", "--json", "/nonexistent/m.json"], "--json /nonexistent/m.json: there is no folder"),
])
def test_bad_input_one_line_exit_2(args, needle):
    r = run(*args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert needle in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


# every flag's bad values: the flag as typed, its unit, the value as typed (never a parameter
# of the Python function, never a value converted to bytes)
@pytest.mark.parametrize("flags, message", [
    (["--workspace-gib", "-1"], "--workspace-gib (GiB) must be >= 0, got -1"),
    (["--workspace-gib", "-1e-5"], "--workspace-gib (GiB) must be >= 0, got -1e-5"),
    (["--workspace-gib", "nan"], "--workspace-gib (GiB) must not be NaN"),
    (["--workspace-gib", "lots"], "--workspace-gib (GiB) must be a number, got 'lots'"),
    (["--workspace-gib", "1e300"], "--workspace-gib (GiB) must be <= "),
    (["--kv-bytes-per-element", "0"], "--kv-bytes-per-element (bytes/element) must be > 0, got 0"),
    (["--kv-bytes-per-element", "nan"], "--kv-bytes-per-element (bytes/element) must not be NaN"),
    (["--kv-bytes-per-element", "-inf"], "--kv-bytes-per-element (bytes/element) must not be -inf"),
    (["--kv-bytes-per-element", "1e300"], "--kv-bytes-per-element (bytes/element) must be <= 8, got 1e300"),
    (["--bytes-per-param", "-1"], "--bytes-per-param (bytes/parameter) must be > 0, got -1"),
    (["--bytes-per-param", "inf"], "--bytes-per-param (bytes/parameter) must be finite, got inf"),
    (["--bytes-per-param", "1e300"], "--bytes-per-param (bytes/parameter) must be <= 8, got 1e300"),
    (["--batch", "0"], "--batch (requests) must be >= 1, got 0"),
    (["--batch", "1.5"], "--batch (requests) must be a whole number, got 1.5"),
    (["--batch", "many"], "--batch (requests) must be a whole number, got 'many'"),
    (["--batch", str(10**30)], f"--batch (requests) must be at most 9,223,372,036,854,775,807 "
                               f"(a 64-bit whole number), got {10**30}"),
    (["--context", "0"], "--context (tokens) must be >= 1, got 0"),
    (["--context", "100000"], "--context (tokens) must be <= 40,960, the max_position_embeddings "
                              "of Qwen3-8B; got 100,000"),
    (["--cards", "0"], "--cards must be >= 1, got 0"),
    (["--cards", "3"], "--cards must divide the 32 query heads of Qwen3-8B, got 3"),
    (["--prompt", "-5"], "--prompt (tokens) must be >= 1, got -5"),
    (["--prompt", "40961"], "--prompt (tokens) must be <= 40,960, the max_position_embeddings "
                            "of Qwen3-8B; got 40,961"),
    (["--prompt", "100", "--output-tokens", "0"], "--output-tokens (tokens) must be >= 1, got 0"),
    (["--prompt", "40960", "--output-tokens", "2"],
     "--prompt + --output-tokens - 1 (tokens) must be <= 40,960"),
    (["--output-tokens", "10"], "--output-tokens (tokens) needs --prompt (tokens)"),
])
def test_every_bad_flag_value_names_the_flag_its_unit_and_the_value_typed(flags, message):
    r = run(*E, *flags)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"python -m infra_calc estimate: error: {message}"), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


@pytest.mark.parametrize("cmd", ["estimate", "forecast"])
def test_a_flag_is_spelled_whole(cmd):
    # argparse would take a prefix ("--kv-bytes" for "--kv-bytes-per-element") by default
    r = run(cmd, "--model", "qwen3-8b", "--hw", "H100 SXM", "--prompt", "100",
            "--output-tokens", "10", "--kv-bytes", "1")
    assert r.returncode == 2 and "unrecognized arguments: --kv-bytes 1" in r.stderr, r.stderr


def test_a_whole_number_may_be_typed_as_a_float_or_with_underscores():
    r = run(*E, "--batch", "1e1", "--context", "1_000", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["batch"] == 10 and json.loads(r.stdout)["context"] == 1000


def test_a_prompt_of_the_whole_context_with_one_output_token_fits():
    """P + O - 1 is the longest context: one output token needs no decode step."""
    r = run(*E, "--prompt", "40960", "--output-tokens", "1")
    assert r.returncode == 0, r.stderr
    assert "none (one output token: no decode step)" in r.stdout
    g = ic.generation_time("qwen3-8b", "H100", prompt_tokens=40960, output_tokens=1)
    assert g.max_context == 40960 and g.tpot == 0
    assert ic.estimate("qwen3-8b", "H100", prompt_tokens=40960).request.output_tokens == 1
    with pytest.raises(ValueError, match="prompt_tokens \\+ output_tokens - 1"):
        ic.generation_time("qwen3-8b", "H100", prompt_tokens=40960, output_tokens=2)


def test_does_not_fit_names_the_context_that_does_not_fit():
    r = run(*E, "--batch", "40", "--prompt", "30000", "--output-tokens", "10000")
    assert "DOES NOT FIT" in r.stdout
    assert "Qwen3-8B, 40 requests x 39,999 tokens of context, needs more" in r.stdout
    r = run(*E, "--batch", "100", "--context", "20000")
    assert "Qwen3-8B, 100 requests x 20,000 tokens of context, needs more" in r.stdout


def test_huge_times_are_scaled():
    r = run(*E, "--batch", str(10**11), "--prompt", "30000", "--output-tokens", "10000")
    assert r.returncode == 0, r.stderr
    assert "years" in r.stdout
    numbers = re.findall(r"([\d,]+\.\d+) (?:ms|s|h)\b", r.stdout)
    assert numbers and all(float(x.replace(",", "")) < 1e4 for x in numbers), numbers


def test_bare_command_prints_its_usage():
    r = run()
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith("usage: python -m infra_calc") and "estimate" in r.stderr


def test_a_directory_without_config_json_is_not_an_unknown_model(tmp_path):
    r = run("estimate", "--model", str(tmp_path), "--hw", "H100")
    assert r.returncode == 2
    assert f"model directory '{tmp_path}' has no config.json" in r.stderr
    assert "unknown model" not in r.stderr


def test_list_shows_aliases_and_what_llama_70b_names():
    r = run("list")
    assert r.returncode == 0 and "H100 SXM" in r.stdout and "Qwen3-8B" in r.stdout
    line = next(x for x in r.stdout.splitlines() if "DeepSeek-R1-Distill-Llama-70B" in x)
    assert "llama-70b" in line and "Llama-3.3-70B" in line
    assert "(also: H100, H100 SXM5)" in r.stdout
    assert "(also: qwen3-8b" not in r.stdout      # spellings the lookup forgives are not listed


# ------------------------------------------------------------- fit (infra_calc.crossval)
def test_fit_writes_only_where_out_says(tmp_path, capsys):
    """No default path: without --out the command refuses, naming the flag, and the packaged
    knobs are left as they were; with it, the fresh fit goes to that file."""
    from importlib import resources

    from infra_calc.crossval import evaluate, knobs_csv

    packaged = resources.files("infra_calc").joinpath("data", "forecast_knobs.csv")
    before = packaged.read_bytes()
    with pytest.raises(SystemExit) as exc:
        main(["fit"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "the following arguments are required: --out" in err
    assert err.startswith("python -m infra_calc fit: error:") and err.count("\n") == 1
    assert packaged.read_bytes() == before
    out = tmp_path / "knobs.csv"
    assert main(["fit", "--out", str(out)]) == 0
    assert f"knobs written to {out}" in capsys.readouterr().out
    assert out.read_text(encoding="utf-8") == knobs_csv(evaluate())
    assert packaged.read_bytes() == before


# ------------------------------------------------------------- the forecast (infra_calc.forecasting)
def test_cli_forecast_text_json_and_errors(capsys):
    args = ["forecast", "--model", "llama-2-7b", "--hw", "A100", "--prompt", "128",
            "--output-tokens", "64"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "a MODEL, not a bound" in out and "floor" in out and "TPOT" in out
    assert main(args + ["--json", "--engine", "vLLM"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["engine"] == "vLLM" and d["tpot"]["low"] <= d["tpot"]["value"] <= d["tpot"]["high"]
    assert d["floor"]["tpot"] < d["tpot"]["value"]
    assert main(args + ["--engine", "nope"]) == 2
    assert "unknown engine 'nope'; known names" in capsys.readouterr().err
    assert main(args + ["--math", "fp8"]) == 2
    assert "math='fp8'" in capsys.readouterr().err
    # continuous batching under load: the TPOT grows, the total and the rate stay
    loaded = args[:-1] + ["64", "--batch", "16", "--json"]
    assert main(loaded) == 0
    static = json.loads(capsys.readouterr().out)
    assert main(loaded + ["--continuous"]) == 0
    cb = json.loads(capsys.readouterr().out)
    assert cb["continuous"] and not static["continuous"]
    assert cb["tpot"]["value"] > static["tpot"]["value"] and cb["total"] == static["total"]
    assert main(args + ["--batch", "16", "--continuous"]) == 0
    assert "continuous batching" in capsys.readouterr().out


def test_cli_estimate_prints_the_forecast_beside_the_floor(capsys):
    assert main(["estimate", "--model", "llama-2-7b", "--hw", "A100", "--prompt", "128"]) == 0
    out = capsys.readouterr().out
    assert "forecast (a MODEL, not a bound)" in out
    assert main(["estimate", "--model", "llama-2-7b", "--hw", "A100"]) == 0
    assert "forecast" not in capsys.readouterr().out          # no request, no forecast
    assert main(["estimate", "--model", "llama-2-7b", "--hw", "A100", "--prompt", "16",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["forecast"]["kind"].startswith("a model")


def test_estimate_takes_the_math_precision():
    r = run("estimate", "--model", "llama-2-70b", "--hw", "H100 SXM", "--context", "1024",
            "--math", "fp8", "--json")
    data = json.loads(r.stdout)
    est = ic.estimate("llama-2-70b", "H100 SXM", context=1024, math="fp8")
    assert data == json.loads(json.dumps(est.to_dict()))
    assert data["t_compute"] < ic.estimate("llama-2-70b", "H100 SXM", context=1024).t_compute
    bad = run("estimate", "--model", "llama-2-70b", "--hw", "H100 SXM", "--math", "fp4")
    assert bad.returncode == 2 and "fp4" in bad.stderr
