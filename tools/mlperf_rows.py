"""Read MLPerf Inference LLM results from a local clone and print measurement rows.

Usage::

    python tools/mlperf_rows.py v5.1 /path/to/inference_results_v5.1/.git [COMMIT] > rows.csv
    python tools/mlperf_rows.py v4.1 /path/to/inference_results_v4.1/.git 4a0c8741...

Every figure is read from the results repository at one commit with ``git show``:
``summary_results.json`` (submitter, system, accelerator, weight data type as labelled,
software, the accuracy field with ``TOKENS_PER_SAMPLE``), each run's
``performance/run_1/mlperf_log_summary.txt`` (completed tokens per second, mean first-token
latency and mean time per output token, in ns) and the submitter's own config of the run
(``closed/<submitter>/configs/<system>/<scenario>/<model>.py`` for TensorRT submissions,
``closed/<submitter>/code/<model>/harness_llm/models/.../<scenario>_<card>.yaml`` for AMD's
vLLM recipe) for tensor/pipeline parallelism, batch and precision.  This script is how the
MLPerf rows of ``infra_calc/data/measurements.csv`` were made; the rows themselves, not this
script, are the project's copy of the data (a reader's clone needs no MLPerf checkout).
"""
from __future__ import annotations

import csv
import json
import re
import subprocess
import sys

MODELS = {"llama2-70b-99": "Llama-2-70B", "llama3.1-8b": "Llama-3.1-8B",
          "mixtral-8x7b": "Mixtral-8x7B"}
CONFIG_MODEL = {"llama2-70b-99": "llama2-70b", "llama3.1-8b": "llama3_1-8b",
                "mixtral-8x7b": "mixtral-8x7b"}   # v4.1 names the config folder the same way
CATALOG = [("H100-SXM", "H100 SXM"), ("H200-SXM", "H200 SXM"), ("B200-SXM", "B200"),
           ("MI300X", "MI300X"), ("L40S", "L40S")]
COLUMNS = ["id", "group", "publisher", "source", "url", "repo", "commit", "path", "table",
           "date", "engine", "engine_version", "model_as_printed", "model",
           "hardware_as_printed", "accelerator", "vendor", "system_cards", "cards",
           "precision", "weight_precision", "math_precision", "kv_precision", "batch",
           "prompt_tokens", "output_tokens", "scenario", "metric", "value", "unit",
           "tokens_counted", "derived", "exclude", "dup_of", "sets", "note"]
REPO = {"v5.1": "mlcommons/inference_results_v5.1", "v4.1": "mlcommons/inference_results_v4.1"}


def show(gitdir, commit, path):
    r = subprocess.run(["git", "--git-dir", gitdir, "show", f"{commit}:{path}"],
                       capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def ls(gitdir, commit, path):
    r = subprocess.run(["git", "--git-dir", gitdir, "ls-tree", "--name-only", f"{commit}:{path}"],
                       capture_output=True, text=True)
    return r.stdout.split() if r.returncode == 0 else []


def log_fields(text):
    def num(pattern):
        m = re.search(pattern + r"\s*:\s*([0-9.]+)", text)
        return m.group(1) if m else None
    return {"valid": "Result is : VALID" in text,
            "tps": num(r"(?:Completed tokens per second|Tokens per second)"),
            "ttft": num(r"Mean First Token latency \(ns\)"),
            "tpot": num(r"Mean Time to Output Token \(ns\)")}


def first(pattern, text):
    m = re.search(pattern, text)
    return m.group(1) if m else None


def nvidia_config(gitdir, commit, sub, platform, scen, model, version):
    """(path, tp, pp, batch, precision, kv) from a TensorRT submission's own config."""
    if version == "v4.1":
        cfgmodel = CONFIG_MODEL[model]
        path = f"closed/{sub}/configs/{cfgmodel}/{scen}/__init__.py"
        text = show(gitdir, commit, path)
        if text is None:
            return None
        cls = platform.replace("_TRT", "").replace("-", "_")
        # the DGX-H100 result runs the class whose server_target_qps its user.conf sets (75)
        dgx = {"llama2-70b": "H100_SXM_80GB_TP2x4", "mixtral-8x7b": "H100_SXM_80GBx8"}
        cls = dgx[cfgmodel] if cls == "DGX_H100_H100_SXM_80GBx8" else cls
        # the class body, and its parents' bodies up to the base (single inheritance)
        body, tp, bs, fp8 = {}, None, None, None
        for m in re.finditer(r"class (\w+)\((\w+)\):\n((?:    .*\n|\n)*)", text):
            body[m.group(1)] = (m.group(2), m.group(3))
        c = cls
        while c in body:
            parent, b = body[c]
            tp = tp or first(r"tensor_parallelism = (\d+)", b)
            bs = bs or first(r"\n    gpu_batch_size = \{'[^']+': (\d+)\}", b)
            fp8 = fp8 or first(r"use_fp8 = (True)", b)
            c = parent
        if cls not in body:
            return None
        return (path + f" (class {cls})", int(tp) if tp else None, 1,
                int(bs) if bs else None, "fp8" if fp8 else None, None)
    names = ls(gitdir, commit, f"closed/{sub}/configs")
    base = re.sub(r"_TRT.*$", "", platform)
    cand = [n for n in names if n == base] or [n for n in names if n.startswith(base)]
    if not cand:
        return None
    path = f"closed/{sub}/configs/{cand[0]}/{scen}/{CONFIG_MODEL[model]}.py"
    text = show(gitdir, commit, path)
    if text is None:
        return None
    block = text.split("AccuracyTarget(0.999)")[0]      # the 99% accuracy target comes first
    tp = first(r"tensor_parallelism: (\d+)", block)
    pp = first(r"pipeline_parallelism: (\d+)", block)
    bs = first(r"gpu_batch_size: \{\s*'[^']+': (\d+)", block)
    prec = first(r"model_fields\.precision: '(\w+)'", block)
    kv = first(r"'kv_cache_dtype': '(\w+)'", block)
    return (path, int(tp) if tp else None, int(pp) if pp else 1, int(bs) if bs else None,
            prec, kv)


def amd_config(gitdir, commit, sub, scen, model, acc):
    card = {"MI300X": "mi300x", "MI325X": "mi325x", "MI355X": "mi355x"}
    c = next((v for k, v in card.items() if k in acc), None)
    if c is None:
        return None
    name = model.split("-99")[0] if model.startswith("llama2") else model
    path = (f"closed/{sub}/code/{model}/harness_llm/models/{name}/"
            f"{scen.lower()}_{c}.yaml")
    text = show(gitdir, commit, path)
    if text is None:
        return None
    tp = first(r"tensor_parallel_size: (\d+)", text)
    q = first(r"quantization: (\w+)", text)
    seqs = first(r"max_num_seqs: (\d+)", text)
    kv = first(r"kv_cache_dtype: \"?(\w+)", text)
    return (path, int(tp) if tp else None, 1, int(seqs) if seqs else None, q, kv)


def kept(version, r):
    """Whether a summary entry is one of the runs the table takes (closed division, an LLM
    of :data:`MODELS`, a loaded or offline scenario, an accelerator; v4.1: NVIDIA's only)."""
    return (r["Model"] in MODELS and r["Category"] == "closed"
            and r["Scenario"] in ("Server", "Interactive", "Offline")
            and not (version == "v4.1" and r["Submitter"] != "NVIDIA")
            and bool(r["Accelerator"]))                 # CPU-only systems have none


def engine_and_vendor(sw, acc):
    """The engine family of the software as printed, and the accelerator's vendor."""
    engine = ("TensorRT-LLM" if sw.startswith("TensorRT") else "vLLM" if sw.startswith("vLLM")
              else "LLMBoost" if "LLMBoost" in sw else sw.split()[0])
    vendor = ("NVIDIA" if "NVIDIA" in acc else "AMD" if "AMD" in acc
              else "Intel" if "Intel" in acc else "")
    return engine, vendor


def run_config(version, gitdir, commit, r, engine, vendor):
    """The submitter's config of the run (:func:`nvidia_config`, :func:`amd_config`), or None."""
    if engine == "TensorRT-LLM":
        return nvidia_config(gitdir, commit, r["Submitter"], r["Platform"], r["Scenario"],
                             r["Model"], version)
    if vendor == "AMD" and engine == "vLLM":
        return amd_config(gitdir, commit, r["Submitter"], r["Scenario"], r["Model"],
                          r["Accelerator"])
    return None


def catalog_name(acc):
    """The catalog's name of the accelerator as printed; empty for a card it lacks."""
    if "NVL" in acc or "GH200" in acc or "CTS" in acc:
        return ""
    return next((c for k, c in CATALOG if k in acc), "")


def exclusion(r):
    """Why a run is not evidence (a mixed or preview system), or empty."""
    if "(x" in r["Accelerator"]:
        return "mixed system: two accelerator types in one result"
    if r["Availability"] != "available":
        return f"{r['Availability']} system: not available when published"
    return ""


def parallelism(r, cfg):
    """``(cfgpath, tp, pp, bs, wprec, mprec, kvprec, derived)`` of a run, from its config
    where one was read, else the summary's weight label (said so in ``derived``)."""
    derived = []
    wprec = r.get("weight_data_types", "").lower()
    if not cfg:
        derived.append("weight_precision: the summary's weight label; no config was read "
                       "to confirm it")
        return "", None, None, None, wprec, "", "", derived
    cfgpath, tp, pp, bs, prec, kvprec = cfg
    mprec = ""
    if prec:
        if prec != wprec:
            derived.append(f"weight_precision: {prec} as the config {cfgpath} sets it; "
                           f"summary_results.json labels the weights {wprec}")
        wprec = mprec = prec
        derived.append(f"math_precision: the config's precision ({prec}) for the GEMMs")
    return cfgpath, tp, pp, bs, wprec, mprec, kvprec or "", derived


def decode_batch(scen, f, n, cards, bs):
    """``(batch, derivation)``: Little's law per model copy (Server, Interactive), the
    config's in-flight limit (Offline), or ``(None, None)`` where neither is known."""
    if cards and scen in ("Server", "Interactive") and f["tpot"] and f["tps"]:
        copies = n / cards
        batch = max(1, round(float(f["tps"]) * float(f["tpot"]) * 1e-9 / copies))
        return batch, ("batch: Little's law, completed tokens/s x mean TPOT / "
                       f"{copies:g} model copies ({n} cards / {cards} per copy), "
                       "the mean number of sequences in decode per copy")
    if cards and scen == "Offline" and bs:
        return bs, ("batch: the config's maximum in-flight batch per copy (gpu_batch_size "
                    "or max_num_seqs); Offline keeps it full, an assumption")
    return None, None


def read_run(version, gitdir, commit, r):
    """Every field of one summary entry's rows, read from its log and config; None for an
    entry the table does not take (see :func:`kept`), without a log, or of another engine."""
    if not kept(version, r):
        return None
    logpath = f"{r['Location']}/performance/run_1/mlperf_log_summary.txt"
    text = show(gitdir, commit, logpath)
    if text is None:
        return None
    acc, sw = r["Accelerator"], r["Software"].split(",")[0].strip()
    engine, vendor = engine_and_vendor(sw, acc)
    if not vendor or engine not in ("TensorRT-LLM", "vLLM", "LLMBoost"):
        return None
    n = int(float(r["a#"])) * int(float(r["Nodes"] or 1))   # a# counts one node's cards
    cfg = run_config(version, gitdir, commit, r, engine, vendor)
    cfgpath, tp, pp, bs, wprec, mprec, kvprec, derived = parallelism(r, cfg)
    cards = (tp or 0) * (pp or 1) or None
    f = log_fields(text)
    batch, how = decode_batch(r["Scenario"], f, n, cards, bs)
    derived += [how] if how else []
    if cards:
        derived.append(f"cards: tensor x pipeline parallelism of the config ({tp}x{pp})")
    tps = first(r"TOKENS_PER_SAMPLE: ([0-9.]+)", r["Accuracy"])
    if tps:
        derived.append("output_tokens: TOKENS_PER_SAMPLE of the accuracy field "
                       "(the mean output length of the accuracy run), rounded")
    return dict(r=r, logpath=logpath, f=f, acc=acc, sw=sw, engine=engine, vendor=vendor, n=n,
                cfgpath=cfgpath, wprec=wprec, mprec=mprec, kvprec=kvprec, cards=cards,
                batch=batch, tps=tps, derived=derived)


def run_rows(version, commit, date, run):
    """The rows of one run: mean TTFT and TPOT (Server, Interactive) and completed tokens/s."""
    r, f, scen, model = run["r"], run["f"], run["r"]["Scenario"], run["r"]["Model"]
    metrics = []
    if scen in ("Server", "Interactive") and f["ttft"] and f["tpot"]:
        metrics += [("ttft", f["ttft"], "ns"), ("tpot", f["tpot"], "ns")]
    if f["tps"]:
        metrics.append(("output_throughput", f["tps"], "Tokens/s"))
    rid0 = f"mlperf{version[1:]}-{r['ID'].split('-')[-1]}-{model.split('-99')[0]}-{scen.lower()}"
    for metric, value, unit in metrics:
        yield {
            "id": f"{rid0}-{metric.replace('output_throughput', 'tput')}",
            "group": f"mlperf{version[1:]}/{run['sw']}/{run['acc']}x{run['n']}/{model}/{scen}",
            "publisher": r["Submitter"], "source": f"MLPerf Inference {version} ({r['ID']})",
            "url": f"https://github.com/{REPO[version]}/blob/{commit}/{run['logpath']}",
            "repo": REPO[version], "commit": commit, "path": run["logpath"],
            "table": "summary_results.json; " + (run["cfgpath"] or "no config read"),
            "date": date, "engine": run["engine"], "engine_version": run["sw"],
            "model_as_printed": model, "model": MODELS[model],
            "hardware_as_printed": run["acc"], "accelerator": catalog_name(run["acc"]),
            "vendor": run["vendor"], "system_cards": run["n"], "cards": run["cards"] or "",
            "precision": r.get("weight_data_types", ""), "weight_precision": run["wprec"],
            "math_precision": run["mprec"], "kv_precision": run["kvprec"],
            # a TTFT's prefill batch is not known: the decode batch is left off its row
            "batch": (run["batch"] or "") if metric != "ttft" else "", "prompt_tokens": "",
            "output_tokens": round(float(run["tps"])) if run["tps"] else "", "scenario": scen,
            "metric": metric, "value": value, "unit": unit,
            "tokens_counted": "output" if metric == "output_throughput" else "",
            "derived": "; ".join(d for d in run["derived"]
                                 if metric != "ttft" or not d.startswith("batch")),
            "exclude": exclusion(r), "dup_of": "", "sets": "",
            "note": (f"{r['System']}; {r['Platform']}; mean over the run"
                     + ("" if f["valid"] else "; log says INVALID")),
        }


def mark_reruns(rows):
    """``dup_of`` of a rerun: the rows of one group (version, software, cards, model and
    scenario) and metric by several submitters point at one primary row (NVIDIA's or AMD's
    where there is one)."""
    same = {}
    for row in rows:
        same.setdefault((row["group"], row["metric"]), []).append(row)
    for rs in same.values():
        primary = next((x for x in rs if x["publisher"] in ("NVIDIA", "AMD")), rs[0])
        for x in rs:
            if x is not primary:
                x["dup_of"] = primary["id"]


def main(version, gitdir, commit="HEAD"):
    """Print the rows of every kept run of the results repository at ``commit``, as CSV."""
    commit = subprocess.check_output(["git", "--git-dir", gitdir, "rev-parse", commit],
                                     text=True).strip()
    summary = json.loads(show(gitdir, commit, "summary_results.json"))
    date = subprocess.check_output(["git", "--git-dir", gitdir, "log", "-1", "--format=%cs",
                                    commit], text=True).strip()   # the commit read
    rows = [row for r in summary if (run := read_run(version, gitdir, commit, r))
            for row in run_rows(version, commit, date, run)]
    mark_reruns(rows)
    csv.DictWriter(sys.stdout, COLUMNS, lineterminator="\n").writerows(rows)


if __name__ == "__main__":
    if len(sys.argv) == 1:
        out = csv.DictWriter(sys.stdout, COLUMNS, lineterminator="\n")
        out.writeheader()
    else:
        main(*sys.argv[1:])
