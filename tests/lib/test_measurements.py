"""The measurements table (infra_calc/data/measurements.csv) and its loader."""
import csv
import io
import pathlib
import re

import pytest

from infra_calc import measurements as M
from infra_calc import reality

ROOT = pathlib.Path(__file__).resolve().parents[2]
CSV = ROOT / "infra_calc" / "data" / "measurements.csv"

#: the goals of issue 24 §1, counted over the rows that are evidence (not excluded, not reruns)
GOALS = {"rows": 80, "groups": 25, "publishers": 5, "vendors": 3, "engines": 3}


def counts(rows):
    return {"rows": len(rows), "groups": len({m.group for m in rows}),
            "publishers": len({m.publisher for m in rows}),
            "vendors": len({m.vendor for m in rows}), "engines": len({m.engine for m in rows})}


def raw_rows():
    with CSV.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def to_text(rows):
    out = io.StringIO()
    w = csv.DictWriter(out, M.COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return out.getvalue()


def template(**changes):
    """A valid row (a copy of a packaged one) with some fields changed."""
    row = dict(next(r for r in raw_rows() if r["id"] == "trtllm-70b-throughput"))
    row.update({"id": "x", "group": "test group", "sets": "", "dup_of": ""}, **changes)
    return row


# ---------------------------------------------------------------- the goals, counted from the file
def test_counts_meet_the_goals():
    got = counts(M.independent())
    assert all(got[k] >= GOALS[k] for k in GOALS), got
    assert {"NVIDIA", "AMD", "Intel"} <= {m.vendor for m in M.independent()}
    assert {"TensorRT-LLM", "vLLM"} <= {m.engine for m in M.independent()}


def test_the_file_is_what_the_loader_reads():
    assert [m.id for m in M.load()] == [r["id"] for r in raw_rows()]
    assert list(raw_rows()[0]) == list(M.COLUMNS)


def test_every_row_has_provenance():
    for m in M.load():
        assert m.url.startswith("https://") and m.publisher and m.source and m.group, m.id
        if m.repo:
            assert re.fullmatch(r"[0-9a-f]{40}", m.commit) and m.path, m.id
            assert m.commit in m.url and m.repo in m.url, m.id
        else:
            assert m.table, m.id
        assert m.date == "" or re.fullmatch(r"\d{4}-\d{2}-\d{2}", m.date), m.id


def test_values_are_copied_as_printed():
    raw = {r["id"]: r for r in raw_rows()}
    # MLPerf: the log's ns integers and tokens/s with its decimals, not SI-converted
    r = raw["mlperf5.1-0001-llama2-70b-interactive-ttft"]
    assert (r["value"], r["unit"]) == ("201330486", "ns")
    assert raw["mlperf5.1-0001-llama2-70b-interactive-tput"]["value"] == "8840.42"
    assert raw["gptfast-7b-base-a100-tp1-gbs"]["value"] == "1397.31"
    m = next(x for x in M.load() if x.id == "mlperf5.1-0001-llama2-70b-interactive-ttft")
    assert m.value_si == pytest.approx(0.201330486)


def test_derived_fields_name_their_derivation():
    for m in M.load():
        for field, how in m.derived_fields.items():
            assert field in M.COLUMNS and how, m.id
        if m.id.startswith("mlperf") and m.batch and m.scenario != "Offline":
            assert "Little's law" in m.derived_fields["batch"], m.id


def test_littles_law_batch_matches_its_derivation():
    by_id = {m.id: m for m in M.load()}
    checked = 0
    for m in by_id.values():
        if m.metric == "tpot" and "Little's law" in m.derived_fields.get("batch", ""):
            tput = by_id[m.id[:-len("tpot")] + "tput"]
            copies = m.system_cards / m.cards
            assert m.batch == max(1, round(tput.value_si * m.value_si / copies)), m.id
            checked += 1
    assert checked >= 20


def test_the_reality_check_reads_its_own_rows_through_the_loader():
    rows = reality.measurements()
    assert all(isinstance(m, M.Measurement) and "reality" in m.sets.split() for m in rows)
    assert len(rows) == 18 and len(M.load()) > len(rows)


# ---------------------------------------------------------------------------------- the traps
def test_trap_mlperf41_labels_fp8_weights_fp16():
    rows = [m for m in M.load() if m.source.startswith("MLPerf Inference v4.1")
            and "configs" in m.table]
    assert len(rows) >= 20
    for m in rows:
        assert m.precision == "fp16" and m.weight_precision == "fp8", m.id
        assert "labels the weights fp16" in m.derived_fields["weight_precision"], m.id
        assert m.bytes_per_param == 1.0 and m.math_precision == "fp8"
    # a row that changes the printed precision without saying so is refused
    bad = template(precision="fp16", weight_precision="fp8", derived="")
    with pytest.raises(M.MeasurementError, match=r"row 'x': field 'weight_precision'"):
        M.parse(to_text([bad]))


def test_trap_throughput_unit_per_gpu_per_tp_group_per_system():
    per_gpu = template(id="g", unit="out tok/s/GPU", value="500", cards="2", system_cards="2")
    per_tp = template(id="t", unit="out tok/s/TP group", value="1000", cards="2", system_cards="2")
    system = template(id="s", metric="output_throughput", unit="Tokens/s", value="4000",
                      cards="2", system_cards="8")
    g, t, s = M.parse(to_text([per_gpu, per_tp, system]))
    assert g.output_rate_per_card == t.output_rate_per_card == s.output_rate_per_card == 500
    # TensorRT-LLM's own tables: v0.5 per TP group, v0.6.1 per GPU, 0.19.0 per TP group again
    basis = {}
    for m in M.load():
        if m.engine == "TensorRT-LLM" and not m.source.startswith("MLPerf"):
            basis.setdefault(m.engine_version, set()).add(m.unit)
    assert basis["v0.5"] == {"out tok/s/TP group", "ms"}
    assert basis["v0.6.1"] == {"out tok/s/GPU"}
    assert basis["0.19.0"] == {"out tok/s/TP group"}
    for m in M.load():
        if m.unit == "out tok/s/TP group":
            assert m.output_rate_per_card == pytest.approx(m.value / m.cards)
            assert "unit" in m.derived_fields, m.id
    # the packaged TensorRT-LLM v0.6.1 rows are per GPU as printed
    m = next(x for x in M.load() if x.id == "trtllm-70b-throughput")
    assert m.unit == "out tok/s/GPU" and m.output_rate_per_card == m.value
    # an MLPerf system rate is divided over the system's cards
    m = next(x for x in M.load() if x.id == "mlperf5.1-0001-llama2-70b-interactive-tput")
    assert m.output_rate_per_card == pytest.approx(8840.42 / 8)
    with pytest.raises(M.MeasurementError, match=r"row 'x': field 'unit'"):
        M.parse(to_text([template(unit="ms")]))


def test_trap_input_and_output_tokens_counted_in_a_throughput():
    both = template(id="b", tokens_counted="input+output", value="400", prompt_tokens="100",
                    output_tokens="300", cards="1", system_cards="1")
    (b,) = M.parse(to_text([both]))
    assert b.output_rate_per_card == pytest.approx(300)
    (nolen,) = M.parse(to_text([template(tokens_counted="input+output", prompt_tokens="")]))
    with pytest.raises(M.MeasurementError, match=r"row 'x': field 'prompt_tokens'"):
        _ = nolen.output_rate_per_card
    with pytest.raises(M.MeasurementError, match=r"row 'x': field 'tokens_counted'"):
        M.parse(to_text([template(tokens_counted="")]))
    assert all(m.tokens_counted for m in M.load() if M.METRICS[m.metric] == "rate")


def test_trap_mlperf_reruns_are_one_group():
    rows = M.load()
    by_id = {m.id: m for m in rows}
    dups = [m for m in rows if m.dup_of]
    assert len(dups) >= 50
    for m in dups:
        p = by_id[m.dup_of]
        assert (p.group, p.metric, p.model, p.hardware_as_printed, p.system_cards,
                p.engine_version, p.scenario) == (m.group, m.metric, m.model,
                                                  m.hardware_as_printed, m.system_cards,
                                                  m.engine_version, m.scenario), m.id
    # NVIDIA's B200 recipe rerun by partners: one group, one primary per metric
    b200 = [m for m in rows if m.group.startswith("mlperf5.1/TensorRT 10.11/NVIDIA B200-SXM-180GBx8/"
                                                  "llama2-70b-99/Server")]
    assert len({m.publisher for m in b200}) >= 3
    assert {by_id[m.dup_of].publisher for m in b200 if m.dup_of} == {"NVIDIA"}
    keys = [(m.group, m.metric) for m in M.independent() if m.id.startswith("mlperf")]
    assert len(keys) == len(set(keys))
    with pytest.raises(M.MeasurementError, match=r"row 'x': field 'dup_of'"):
        M.parse(to_text([template(dup_of="nowhere")]))


def test_trap_mixed_and_preview_systems_are_excluded_with_a_reason():
    rows = M.load()
    mixed = [m for m in rows if "(x" in m.hardware_as_printed]
    preview = [m for m in rows if m.id.startswith("mlperf4.1-0074-")]
    assert mixed and preview
    assert all("mixed" in m.exclude for m in mixed)
    assert all("preview" in m.exclude for m in preview)
    assert not set(mixed + preview) & set(M.independent())
    reasons = r"(mixed|preview) system: |same run: |prefill shared: |the stated batch does not fit: "
    assert all(re.search(reasons, m.exclude) for m in rows if m.excluded)


# ------------------------------------------------------- NeMo Framework's Llama-2 results page
NEMO_URL = "https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/llama.html"


def test_nemo_rows_are_present_with_their_provenance():
    nemo = [m for m in M.load() if m.id.startswith("nemo-")]
    tput = [m for m in nemo if m.metric == "output_throughput"]
    # Llama-2-7B, TP 1/2/4/8, batch 1/2/4/8, A100 80GB SXM4 and H100 80GB HBM3
    assert len(tput) == 32 and len(nemo) == 64
    assert {(m.cards, m.batch) for m in tput} == {(c, b) for c in (1, 2, 4, 8) for b in (1, 2, 4, 8)}
    assert {m.hardware_as_printed for m in tput} == {"A100 80GB SXM4", "H100 80GB HBM3"}
    for m in nemo:
        assert m.url == NEMO_URL and not m.repo and "Chatbot Conversation" in m.table, m.id
        assert (m.prompt_tokens, m.output_tokens, m.model) == (128, 20, "Llama-2-7B"), m.id
        assert "read on 2026-12-02" in m.note, m.id
        assert m.group.startswith(f"nvidia/NeMo Framework/{m.hardware_as_printed}/Llama-2-7B "
                                  f"TP{m.cards} "), m.id
    # one group per card and TP (the batch sweep is one recipe): 8 groups
    assert len({m.group for m in nemo}) == 8


def test_nemo_throughput_is_derived_from_sentences_per_second_and_not_counted_twice():
    by_id = {m.id: m for m in M.load()}
    m = by_id["nemo-7b-a100-tp1-b1-tput"]
    # printed 4.3 sentences/s x 20 output tokens, the whole system's rate
    assert (m.value, m.unit, m.tokens_counted) == (86.0, "tok/s", "output")
    assert "sentences/s" in m.derived_fields["value"] and "x 20" in m.derived_fields["value"]
    assert by_id["nemo-7b-h100-tp8-b8-tput"].output_rate_per_card == pytest.approx(62.0 * 20 / 8)
    lat = by_id["nemo-7b-a100-tp1-b1-latency"]
    assert (lat.value, lat.unit) == (234.0, "ms")
    for m in by_id.values():
        if m.id.startswith("nemo-") and m.metric == "e2e_latency":
            t = by_id[m.id[:-len("latency")] + "tput"]
            # the page's throughput is batch / latency to its one printed decimal
            assert t.value / 20 == pytest.approx(m.batch / m.value_si, abs=0.07), m.id
            assert m.excluded and m.exclude.startswith(f"same run: {t.id} ") and not t.excluded
    assert not [m for m in M.independent() if m.id.startswith("nemo-") and m.metric != "output_throughput"]


# --------------------------------------------------------------------------- malformed rows
@pytest.mark.parametrize("field, value", [
    ("batch", "eight"), ("batch", "0"), ("cards", "1.5"), ("system_cards", ""),
    ("value", "fast"), ("value", "-3"), ("metric", "speed"), ("unit", "tok/min"),
    ("url", "github.com/x"), ("commit", "138f96d"), ("date", "May 2024"),
    ("vendor", "Acme"), ("math_precision", "fp9"), ("model", ""),
    ("derived", "a note without a field"), ("prompt_tokens", "many")])
def test_a_malformed_row_is_refused_naming_row_and_field(field, value):
    with pytest.raises(M.MeasurementError, match=rf"measurements.csv row 'x': field '{field}'"):
        M.parse(to_text([template(**{field: value})]))


def test_a_web_row_needs_its_table_and_ids_are_unique():
    web = template(repo="", commit="", path="", table="")
    with pytest.raises(M.MeasurementError, match=r"row 'x': field 'table'"):
        M.parse(to_text([web]))
    with pytest.raises(M.MeasurementError, match=r"row 'x': field 'id' is repeated"):
        M.parse(to_text([template(), template()]))
    with pytest.raises(M.MeasurementError, match=r"row 'x': field 'cards'"):
        M.parse(to_text([template(cards="16", system_cards="8")]))
    with pytest.raises(M.MeasurementError, match="columns missing: note"):
        M.parse("\n".join(to_text([template()]).splitlines()[0:1]).replace(",note", ""))


# ------------------------------------------------ NVIDIA NIM's concurrency sweep (5000 in, 500 out)
def test_nim_sweep_batch_by_littles_law_and_loaded_itl_fitted_under_continuous_batching():
    by_id = {m.id: m for m in M.load()}
    sweep = [m for m in by_id.values() if m.id.startswith("nim-70b-tput-5000-c")]
    assert len(sweep) == 8
    for t in sweep:
        c = int(t.id.rsplit("-c", 1)[1])
        assert (t.prompt_tokens, t.output_tokens, t.system_cards, t.cards) == (5000, 500, 2, 2)
        assert t.unit == "Tokens/s" and t.output_rate_per_card == pytest.approx(t.value / 2)
        assert not t.excluded and "read on 2026-12-02" in t.note
        if c == 1:
            assert t.batch == 1
            continue
        itl, ttft = by_id[f"nim-70b-itl-5000-c{c}"], by_id[f"nim-70b-ttft-5000-c{c}"]
        # the batch is derived (Little's law: tokens/s x ITL), the same on both rows
        assert "Little's law" in t.derived_fields["batch"] and itl.batch == t.batch
        assert t.batch == round(t.value_si * itl.value_si) <= c
        # the throughput counts output tokens only: c x 500 / (TTFT + 499 ITL)
        assert c * 500 / (ttft.value_si + 499 * itl.value_si) == pytest.approx(t.value, rel=0.01)
        assert ttft.batch is None                        # TTFT under load: queueing
        # the loaded ITL is evidence now: the forecast's TPOT under continuous batching counts
        # the arriving prompts' prefills (infra_calc.forecasting.prefill_share), said in the note
        assert not itl.excluded and "continuous batching under load" in itl.note
    assert by_id["nim-70b-tput-5000-c250"].value == 920.12
    assert by_id["nim-70b-itl-5000-c50"].value == 59.73


# ------------------------------------------- AMD's ROCm vLLM latency table (MI300X, Llama 3.1 70B FP8)
def test_rocm_vllm_latency_rows_are_present_as_printed_with_their_provenance():
    rows = [m for m in M.load() if m.id.startswith("rocmvllm-")]
    assert len(rows) == 16 and {m.prompt_tokens for m in rows} == {128, 2048}
    assert {m.batch for m in rows} == {1, 2, 4, 8, 16, 32, 64, 128}
    for m in rows:
        assert (m.repo, m.path) == ("ROCm/vllm", "docs/dev-docker/README.md") and m.commit in m.url
        assert (m.vendor, m.accelerator, m.engine, m.cards, m.output_tokens) == \
            ("AMD", "MI300X", "vLLM", 8, 2048), m.id
        assert m.metric == "e2e_latency" and m.unit == "s" and not m.excluded, m.id
        # the FP8 KV cache is read from the README's command: derived, said so
        assert m.kv_precision == "fp8" and "--kv-cache-dtype fp8" in m.derived_fields["kv_precision"]
    raw = {r["id"]: r for r in raw_rows()}
    assert raw["rocmvllm-70b-fp8-mi300x-tp8-in128-b8"]["value"] == "20.180"
    assert raw["rocmvllm-70b-fp8-mi300x-tp8-in2048-b128"]["value"] == "62.420"
    assert len({m.group for m in rows}) == 2                 # one group per input length


# ------------------------------------------- LMDeploy's static benchmark (A100, Llama-2 7B and 70B)
def test_lmdeploy_rows_are_present_as_printed_with_their_derivations_marked():
    rows = [m for m in M.load() if m.id.startswith("lmdeploy-")]
    assert len(rows) == 50 and len({m.group for m in rows}) == 2
    for m in rows:
        assert (m.repo, m.path, m.date) == ("InternLM/lmdeploy", "docs/en/benchmark/a100_fp16.md",
                                            "2023-12-06") and m.commit in m.url, m.id
        assert (m.engine, m.engine_version, m.accelerator, m.precision) == \
            ("LMDeploy", "v0.1.0a1", "A100 80GB", "FP16"), m.id
        printed = dict(re.findall(r"(tp|batch|prompt_tokens|output_tokens) (\d+)", m.note))
        assert (m.cards, m.batch, m.prompt_tokens, m.output_tokens) == tuple(
            int(printed[k]) for k in ("tp", "batch", "prompt_tokens", "output_tokens")), m.id
        d = m.derived_fields
        assert "tp" in d["system_cards"] and "FP16" in d["math_precision"], m.id
        if m.metric == "itl":        # the median per-token latency, fitted as the mean TPOT
            assert m.table.endswith("column 50%(s)"), m.id
            assert f"token latency 50% {m.value:g} s" in m.note, m.id
            assert "median" in d["value"] and "assumption" in d["value"], m.id
        else:                        # FTL(ave), printed, at batch 1 only
            assert (m.metric, m.batch) == ("ttft", 1) and "value" not in d, m.id
            assert f"FTL(ave) {m.value:g} s" in m.note, m.id


def test_the_readme_counts_the_rows_of_each_source():
    """infra_calc/data/README.md's table of sources gives each id prefix's row count."""
    text = (CSV.parent / "README.md").read_text(encoding="utf-8")
    stated = {p: int(n) for p, n in re.findall(r"^\| `([a-z0-9.]+)-\*` \((\d+)\) \|", text, re.M)}
    ids = [m.id for m in M.load()]
    assert sum(stated.values()) == len(ids)
    assert stated == {p: sum(i.startswith(p + "-") for i in ids) for p in stated}


# ------------------------------------------------------------- one reading of a row
def _one(**changes):
    [m] = M.parse(to_text([template(**changes)]))
    return m


def test_a_rows_figure_is_read_once_from_its_metric():
    assert {M.KINDS.get(metric, "") for metric in M.METRICS} == {"ttft", "tpot", "total", "rate", ""}
    assert _one(metric="itl", unit="ms", tokens_counted="").kind == "tpot"
    assert _one(metric="e2e_latency", unit="s", tokens_counted="").kind == "total"
    assert _one().kind == "rate"
    assert _one(metric="mem_bandwidth", unit="GB/s", tokens_counted="").kind == ""


def test_a_rows_math_precision_is_one_the_catalog_has_a_peak_for():
    from infra_calc.hardware import MATH_PRECISIONS
    assert {m.math for m in M.load()} <= set(MATH_PRECISIONS)
    assert _one(math_precision="fp4").math == "fp4"
    assert _one(math_precision="int8", weight_precision="int8", precision="int8").math == "bf16"
    assert _one(math_precision="", precision="FP8", weight_precision="fp8").math == "fp8"
    assert _one(math_precision="", precision="", weight_precision="").math == "bf16"


def test_a_serving_load_is_read_from_one_scenario_table():
    assert _one(scenario="concurrency").continuous and not _one(scenario="concurrency").offered_load
    assert all(_one(scenario=s).continuous and _one(scenario=s).offered_load
               for s in ("Server", "Interactive"))
    assert not _one(scenario="Offline").continuous and not _one(scenario="Offline").offered_load


def test_unstated_lengths_read_by_each_policy():
    both = _one(prompt_tokens="", output_tokens="", tokens_counted="output",
                metric="output_throughput", unit="tok/s")
    assert not both.lengths_stated
    assert both.lengths(policy="zero") == (0, 0)
    assert both.lengths(policy="shortest") == (1, 2)
    ttft = _one(metric="ttft", unit="ms", tokens_counted="", prompt_tokens="128", output_tokens="")
    assert ttft.lengths_stated and ttft.lengths(policy="shortest") == (128, 1)
    assert ttft.lengths(policy="zero") == (128, 0)
    stated = _one(metric="tpot", unit="ms", tokens_counted="", prompt_tokens="5", output_tokens="1")
    assert stated.lengths(policy="zero") == (5, 1) and stated.lengths(policy="shortest") == (5, 2)
    with pytest.raises(ValueError, match="'zero' or 'shortest'"):
        both.lengths(policy="stated")
