"""infra_calc.fit: a measurement becomes a row (its floor, its kind, why it is left out),
faults are counted, the continuous-batching share read from the row's fields."""
import dataclasses
from importlib import resources

import numpy as np
import pytest

from infra_calc import crossval, fit, forecasting
from infra_calc.measurements import load
from infra_calc.reality import workload_for


def test_continuous_batching_rule_reads_the_rows_fields():
    rows = fit.load_data().rows
    shared = [r for r in rows if r.share]
    # every row given the term is a TPOT/ITL under a serving load at batch > 1, lengths stated
    assert shared and all(r.kind == "tpot" and r.m.continuous
                          and r.m.batch > 1 and r.lengths_stated for r in shared)
    assert {r.m.id for r in shared} == {f"nim-70b-itl-5000-c{c}"
                                        for c in (5, 25, 50, 100, 150, 200, 250)}
    for r in shared:
        assert r.share == pytest.approx((r.m.batch - 1) / r.m.output_tokens)
        k = forecasting.knobs(None).fitted
        alone = dataclasses.replace(r, design=r.design._replace(share=np.zeros(1)))
        assert fit.predict([r], k)[0] > fit.predict([alone], k)[0]
    # a static batch, or one request, never gets it
    assert all(not r.share for r in rows if r.m.batch == 1 or not r.m.continuous)


# ------------------------------------------------------------- faults and left-out rows
def test_rows_faster_than_their_floor_are_counted_and_left_out():
    m = next(r for r in load() if r.id == "vllm-8b-latency-h100")
    fast = dataclasses.replace(m, id="fast", group="fast group", value=m.value / 10)
    d = fit.load_data([m, fast])
    assert [r.m.id for r in d.rows] == [m.id]
    assert [(r.m.id, why.split(" by ")[0]) for r, why in d.faults] == [("fast", "faster than its floor")]
    assert crossval.evaluate().data.faults == ()            # the packaged table has none


def test_a_batch_whose_cache_the_card_cannot_hold_is_excluded_not_fitted():
    """LMDeploy's static benchmark prints 64 threads of 2048 + 2048 tokens of Llama-2-7B on one
    A100 80GB; their cache and the weights are more than the card holds, so the engine cannot
    have decoded that batch (its printed FTL(max) of 116 s shows requests waiting): the row is
    excluded with that reason, and at the batch it states it would beat its floor."""
    m = next(r for r in load() if r.id == "lmdeploy-7b-b64-in2048-out2048-itl")
    assert m.excluded and "does not fit" in m.exclude
    w = workload_for(m)
    assert w.kv_bytes_per_card(m.prompt_tokens + m.output_tokens) + w.resident_weight_bytes() \
        > w.hw.mem_capacity
    kept = dataclasses.replace(m, exclude="")
    d = fit.load_data([kept])
    assert [r.m.id for r, _ in d.faults] == [m.id] and d.rows == ()
    assert m.id not in {r.m.id for r in crossval.evaluate().data.rows}


def test_every_fitted_row_s_stated_batch_fits_its_card():
    """The same rule for every row the fit or the held-out check uses: the weights and the
    cache of the stated batch at its full length (P + O tokens) fit on the card. LMDeploy's
    two other 64-request rows of 2176 tokens miss by about 1 % and are excluded with the
    same reason."""
    d = crossval.evaluate().data
    over = []
    for r in d.rows + d.holdout:
        w = workload_for(r.m)
        prompt, output = r.m.lengths(policy="shortest")
        if w.kv_bytes_per_card(prompt + output) + w.resident_weight_bytes() > w.hw.mem_capacity:
            over.append(r.m.id)
    assert over == []
    excluded = [m for m in load() if m.exclude.startswith("the stated batch does not fit")]
    assert len(excluded) == 3


def test_rows_that_cannot_be_forecast_say_why():
    reasons = {why for _, why in crossval.evaluate().data.skipped}
    assert "TTFT under load (queueing)" in reasons
    assert "card not in the catalog" in reasons
    assert any(w.startswith("prompt or output length not stated") for w in reasons)


# ------------------------------------------------ the MLPerf rows' prompt length (not published)
def _mlperf_row(rid="mlperf5.1-0007-llama2-70b-server-tpot", **changes):
    """The raw text of a packaged MLPerf row (a Server TPOT), with some fields changed."""
    import csv
    import io

    from infra_calc import measurements as M
    text = resources.files("infra_calc").joinpath("data", "measurements.csv").read_text("utf-8")
    row = next(r for r in csv.DictReader(io.StringIO(text))
               if r["id"] == rid)
    row.update({"id": "x", "group": "test group", "sets": "", "dup_of": ""}, **changes)
    out = io.StringIO()
    w = csv.DictWriter(out, M.COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerow(row)
    return out.getvalue(), row


def test_mlperf_rows_state_no_prompt_length_and_their_decode_rows_are_left_out():
    mlperf = [m for m in load() if m.repo.startswith("mlcommons/")]
    assert mlperf and all(m.prompt_tokens is None for m in mlperf)   # MLCommons publishes none
    rep = crossval.evaluate()
    assert not any(r.m.repo.startswith("mlcommons/") for r in rep.data.rows + rep.data.holdout)
    why = {m.id: w for m, w in rep.data.skipped}
    m = next(m for m in mlperf if m.id == "mlperf5.1-0007-llama2-70b-server-tpot")
    assert why[m.id].startswith("prompt or output length not stated at a batch above 1")


def test_a_derived_prompt_length_is_marked_derived_with_its_source():
    from infra_calc import measurements as M
    src = ("prompt_tokens: mean input length of the data set, mlcommons/inference@"
           + "0" * 40 + ":language/llama2-70b/README.md")
    text, row = _mlperf_row(prompt_tokens="300", derived=row_derived() + "; " + src)
    (m,) = M.parse(text)
    assert m.prompt_tokens == 300
    assert m.derived_fields["prompt_tokens"].endswith("language/llama2-70b/README.md")
    r = fit.prepare(m)                        # with its length stated the fit can use the row
    assert r.lengths_stated and r.kind == "tpot" and r.y >= r.floor


def test_a_throughput_under_a_set_load_is_left_out_even_with_its_lengths():
    from infra_calc import measurements as M
    rid = "mlperf5.1-0007-llama2-70b-server-tput"
    src = "prompt_tokens: a test value, https://example.org/stats"

    def with_length(rid):
        derived = _mlperf_row(rid)[1]["derived"] + "; " + src
        return M.parse(_mlperf_row(rid, prompt_tokens="300", derived=derived)[0])[0]

    with pytest.raises(fit.Skip, match="throughput under a set load") as exc:
        fit.prepare(with_length(rid))
    assert exc.value.row is not None            # its floor is still there to look for faults
    offline = with_length("mlperf5.1-0007-llama2-70b-offline-tput")
    assert fit.prepare(offline).kind == "rate"  # an Offline throughput is a capacity


def row_derived():
    return _mlperf_row()[1]["derived"]


@pytest.mark.parametrize("prompt, derived, what", [
    ("300", None, "an MLPerf log prints no prompt length"),
    ("300", "prompt_tokens: the mean of the data set", "without its source"),
    ("about 300", "prompt_tokens: https://example.org/stats", "whole number")])
def test_a_malformed_prompt_length_is_refused_naming_row_and_field(prompt, derived, what):
    from infra_calc import measurements as M
    d = row_derived() if derived is None else row_derived() + "; " + derived
    text, _ = _mlperf_row(prompt_tokens=prompt, derived=d)
    with pytest.raises(M.MeasurementError,
                       match=rf"measurements.csv row 'x': field 'prompt_tokens' .*{what}"):
        M.parse(text)
