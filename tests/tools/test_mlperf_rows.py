"""tools/mlperf_rows.py on a tiny results repository built here (a reader has no MLPerf
clone): which runs it keeps, what it derives (cards and precision from the config, the
batch by Little's law or the Offline limit) and how it marks reruns and excluded systems."""
from __future__ import annotations

import contextlib
import csv
import io
import json
import subprocess

from tools import mlperf_rows

LOG = "performance/run_1/mlperf_log_summary.txt"
CONFIG = ("tensor_parallelism: 2\npipeline_parallelism: 1\ngpu_batch_size: {'llama2-70b': 512}\n"
          "model_fields.precision: 'fp8'\n'kv_cache_dtype': 'fp8'\nAccuracyTarget(0.999)\n"
          "tensor_parallelism: 9\n")                      # the 99.9 % block is not read


def _log(tps, ttft=None, tpot=None):
    text = f"Result is : VALID\nCompleted tokens per second: {tps}\n"
    return text + (f"Mean First Token latency (ns): {ttft}\n"
                   f"Mean Time to Output Token (ns): {tpot}\n" if ttft else "")


def _entry(i, sub, scen, acc, sw, loc, platform="DGX_H100_TRT", **changes):
    return {"ID": f"5.1-{i:04d}", "Submitter": sub, "Model": "llama2-70b-99", "Scenario": scen,
            "Category": "closed", "Accelerator": acc, "Location": loc, "Software": sw, "a#": "8",
            "Nodes": "1", "Platform": platform, "System": f"system {i}",
            "Availability": "available", "weight_data_types": "fp16",
            "Accuracy": "ROUGE1: 44.4 TOKENS_PER_SAMPLE: 294.5", **changes}


def _repo(root):
    files = {"closed/NVIDIA/r/Server/" + LOG: _log(9000, 4e8, 3e7),
             "closed/NVIDIA/r/Offline/" + LOG: _log(12000),
             "closed/Dell/r/Server/" + LOG: _log(8800, 4.1e8, 3.1e7),
             "closed/Mango/r/Server/" + LOG: _log(6000, 5e8, 4e7)}
    for sub, plat in (("NVIDIA", "DGX_H100"), ("Dell", "DGX_H100_custom")):
        for scen in ("Server", "Offline"):
            files[f"closed/{sub}/configs/{plat}/{scen}/llama2-70b.py"] = CONFIG
    trt, h100 = "TensorRT 10.11, CUDA 12", "NVIDIA H100-SXM-80GB"
    files["summary_results.json"] = json.dumps([
        _entry(1, "NVIDIA", "Server", h100, trt, "closed/NVIDIA/r/Server"),
        _entry(1, "NVIDIA", "Offline", h100, trt, "closed/NVIDIA/r/Offline"),
        _entry(2, "Dell", "Server", h100, trt, "closed/Dell/r/Server", "DGX_H100_custom_TRT"),
        _entry(3, "Mango", "Server", "AMD MI300X (x4) + AMD MI325X (x4)", "LLMBoost 1.0",
               "closed/Mango/r/Server"),
        _entry(4, "X", "Server", h100, trt, "closed/NVIDIA/r/Server", Category="open"),
        _entry(5, "X", "Server", "", trt, "closed/NVIDIA/r/Server"),          # CPU only
        _entry(6, "X", "Server", h100, trt, "closed/X/no/log")])
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "results"], check=True)
    return str(root / ".git")


def test_rows_of_a_small_results_repository(tmp_path):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        mlperf_rows.main("v5.1", _repo(tmp_path))
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(out.getvalue()),
                                               mlperf_rows.COLUMNS)}
    assert sorted(rows) == sorted(f"mlperf5.1-000{i}-llama2-70b-{s}" for i, ss in (
        (1, ("server-ttft", "server-tpot", "server-tput", "offline-tput")),
        (2, ("server-ttft", "server-tpot", "server-tput")),
        (3, ("server-ttft", "server-tpot", "server-tput"))) for s in ss)
    tpot = rows["mlperf5.1-0001-llama2-70b-server-tpot"]
    # the config's 99 % block: TP 2, FP8 weights and math (the summary labels them fp16)
    assert (tpot["cards"], tpot["weight_precision"], tpot["math_precision"],
            tpot["kv_precision"], tpot["precision"]) == ("2", "fp8", "fp8", "fp8", "fp16")
    # Little's law per copy: 9000 tok/s x 30 ms / (8 cards / 2 per copy)
    assert tpot["batch"] == str(round(9000 * 0.03 / 4)) and "Little's law" in tpot["derived"]
    assert rows["mlperf5.1-0001-llama2-70b-server-ttft"]["batch"] == ""
    assert rows["mlperf5.1-0001-llama2-70b-offline-tput"]["batch"] == "512"
    assert tpot["output_tokens"] == "294" and tpot["accelerator"] == "H100 SXM"
    # Dell's rerun of NVIDIA's recipe: one group, pointing at NVIDIA's row
    dell = rows["mlperf5.1-0002-llama2-70b-server-tpot"]
    assert dell["group"] == tpot["group"] and dell["dup_of"] == tpot["id"]
    assert tpot["dup_of"] == "" and tpot["exclude"] == ""
    mixed = rows["mlperf5.1-0003-llama2-70b-server-tpot"]
    assert mixed["exclude"].startswith("mixed system") and mixed["cards"] == ""
    assert "no config was read" in mixed["derived"]
