"""The reality check data file and its bounds."""
import csv
import math
import pathlib
import re

import pytest

import infra_calc as ic
from infra_calc import reality

ROOT = pathlib.Path(__file__).resolve().parents[2]
CSV = ROOT / "infra_calc" / "data" / "measurements.csv"


def test_enough_rows_and_independent_sources():
    rows = reality.measurements()
    assert len(rows) >= 6
    publishers = {re.sub(r"\(.*\)", "", r.source).strip() for r in rows}
    hosts = {re.match(r"https://([^/]+)/", r.url).group(1) for r in rows}
    assert len(publishers) >= 3 and len(hosts) >= 3


def test_every_row_names_its_source_and_maps_to_the_catalog():
    for r in reality.measurements():
        assert r.url.startswith("https://") and r.source and r.engine
        assert r.model in ic.MODELS and ic.accelerator(r.accelerator)
        assert r.value > 0 and r.unit and r.batch >= 1 and r.cards >= 1
        assert r.date == "" or re.fullmatch(r"\d{4}-\d{2}-\d{2}", r.date)


def test_values_are_copied_as_printed():
    """Values keep the source's decimals: the CSV text is never reformatted."""
    with CSV.open(encoding="utf-8") as f:
        raw = {r["id"]: r["value"] for r in csv.DictReader(f)}
    assert raw["nim-70b-ttft-5000"] == "406.77"
    assert raw["vllm-8b-latency-h100"] == "997.542"
    assert raw["trtllm-7b-throughput"] == "19694"


def test_bounds_are_below_the_measurements():
    for row in reality.reality_check():
        assert 0 < row.fraction <= 1, row.measurement.id
        assert row.bound_kind in ("memory", "compute")       # floor terms only
        assert math.isclose(row.gap * row.fraction, 1.0)


def test_bound_of_a_ttft_row_is_the_prefill_step():
    m = next(r for r in reality.measurements() if r.id == "trtllm-7b-ttft")
    acc = reality.accelerator_for(m)
    assert m.math == "fp8"                           # the catalog's FP8 peak, not BF16's
    assert reality.workload_for(m).math == "fp8"
    pre = ic.prefill_step(m.model, acc, prompt_tokens=m.prompt_tokens, bytes_per_param=1,
                          kv_bytes_per_element=1,
                          math="fp8")
    bf16 = ic.prefill_step(m.model, acc, prompt_tokens=m.prompt_tokens, bytes_per_param=1,
                           kv_bytes_per_element=1)
    # the same FLOPs at the FP8 peak: the math time shrinks by the ratio of the peaks
    assert pre.flops == bf16.flops and acc.peak("fp8") > acc.peak("bf16")
    assert pre.t_compute / bf16.t_compute == pytest.approx(acc.peak("bf16") / acc.peak("fp8"))
    assert reality.lower_bound(m).bound == pytest.approx(pre.t_step)


def test_the_cache_is_held_at_the_precision_a_row_records():
    """FP4 weights with an FP8 cache: the cache is 1 byte, not the weights' half byte; a row
    that records no cache precision keeps the weights' width."""
    rows = [m for m in ic.measurements.load() if m.accelerator in ic.CATALOG]
    split = next(m for m in rows if m.weight_precision == "fp4" and m.kv_precision == "fp8")
    w = reality.workload_for(split)
    assert w.bytes_per_param == 0.5 and w.kv_bytes_per_element == 1.0
    silent = next(m for m in rows if m.weight_precision == "fp4" and not m.kv_precision)
    assert reality.workload_for(silent).kv_bytes_per_element == 0.5
    none = next(m for m in rows if not m.weight_precision and not m.kv_precision)
    assert reality.workload_for(none).kv_bytes_per_element == 2.0


def test_implied_utilisation_leaves_the_all_reduce_model_out():
    """A multi-card TTFT row: the fraction is taken against the floor terms alone, and the
    ring all-reduce model is reported apart as its share of floor + model."""
    m = next(r for r in reality.measurements() if r.id == "trtllm-70b-ttft")
    acc = reality.accelerator_for(m)
    pre = ic.prefill_step(m.model, acc, prompt_tokens=m.prompt_tokens, bytes_per_param=1,
                          kv_bytes_per_element=1, batch=m.batch, cards=m.cards, math="fp8")
    assert pre.t_comm > 0.2 * pre.t_step                  # the model is a large part here
    row = reality.lower_bound(m)
    assert row.bound == pytest.approx(pre.t_floor)
    assert row.fraction == pytest.approx(pre.t_floor / m.value_si)
    assert row.fraction < pre.t_step / m.value_si - 0.1
    assert row.comm_share == pytest.approx(pre.t_comm / pre.t_step)
    one = next(r for r in reality.reality_check() if r.measurement.cards == 1)
    assert one.comm_share == 0.0


def test_moe_rows_bound_by_the_floor_and_name_the_uniform_model():
    rows = reality.reality_check()
    moe = [r for r in rows if ic.model(r.measurement.model).is_moe]
    assert moe
    for r in moe:      # the floor reads k experts: a smaller bound, a smaller share reached
        assert r.fraction < r.uniform_fraction <= 1
    for r in rows:
        if not ic.model(r.measurement.model).is_moe:
            assert r.uniform_fraction == r.fraction


def test_bound_of_a_latency_row_is_the_whole_request():
    m = next(r for r in reality.measurements() if r.id == "vllm-8b-latency-h100")
    g = ic.generation_time(m.model, m.accelerator, prompt_tokens=32, output_tokens=128, bytes_per_param=2,
                           batch=8, cards=1, weight_read="touched")
    assert reality.lower_bound(m).bound == pytest.approx(g.total)     # one card: no model
    assert g.total == g.floor_total


def test_prefill_share_is_the_prefill_part_of_a_whole_request_bound():
    rows = {r.measurement.id: r for r in reality.reality_check()}
    for r in rows.values():
        m = r.measurement
        if m.metric in ("e2e_latency", "output_throughput_per_gpu"):
            g = ic.generation_time(m.model, reality.accelerator_for(m), prompt_tokens=m.prompt_tokens or 0,
                                   output_tokens=m.output_tokens or 0, bytes_per_param=m.bytes_per_param,
                                   kv_bytes_per_element=m.bytes_per_param, batch=m.batch,
                                   cards=m.cards, math=m.math)
            assert 0 < r.prefill_share < 1
            assert r.prefill_share == pytest.approx(g.prefill.t_floor / g.floor_total)
        else:
            assert r.prefill_share == 0.0
    # the static-batch throughput rows are far from decode-only; the latency rows close to it
    assert rows["trtllm-70b-throughput"].prefill_share > 0.1
    assert rows["vllm-8b-latency-h100"].prefill_share < 0.05


def test_regime_labels_a_whole_request_with_a_large_prefill_mixed():
    from infra_calc.figures import ch3
    assert reality.MIXED_PREFILL_SHARE == ch3.MIXED_PREFILL_SHARE   # the figure draws the same rows apart
    rows = {r.measurement.id: r for r in reality.reality_check()}
    for rid in ("trtllm-7b-throughput", "trtllm-70b-throughput"):
        assert rows[rid].bound_kind == "memory" and rows[rid].regime == "mixed"
    assert rows["trtllm-7b-ttft"].regime == "compute-bound"
    assert rows["inferencebench-8b-tpot-c1"].regime == "memory-bound"
