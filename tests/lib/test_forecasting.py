"""infra_calc.forecasting: a forecast is never faster than its floor, the continuous-batching
term only adds to the TPOT, the stored knobs are fractions and costs, the API, the rate per
card; and one forecast assembly: ``forecast`` and the fit's rows run the same
``forecast_terms``.

The `forecast` command and the forecast in `estimate`: tests/lib/test_cli.py."""
import dataclasses
import inspect
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import infra_calc as ic
from infra_calc import fit, forecasting
from infra_calc.reality import workload_for

# ------------------------------------------------------------------ never faster than the floor
eta = st.floats(min_value=1e-3, max_value=1.0)
cost = st.floats(min_value=0.0, max_value=1e-3)
share = st.floats(min_value=0.0, max_value=1.0)
CASES = [("llama-2-7b", "A100 80GB", "bf16", (1, 2, 4)), ("llama-2-70b", "H100 SXM", "fp8", (2, 4, 8)),
         ("mixtral-8x7b", "H200 SXM", "fp8", (1, 2, 8)), ("llama-3.1-8b", "B200", "fp4", (1, 8)),
         ("qwen3-8b", "MI300X", "bf16", (1, 2))]


@settings(max_examples=60)
@given(case=st.sampled_from(CASES), k=st.tuples(eta, eta, cost, cost, share),
       p=st.integers(1, 3700), o=st.integers(1, 300), batch=st.integers(1, 512),
       pick=st.integers(0, 7))
def test_a_forecast_is_never_faster_than_its_floor(case, k, p, o, batch, pick):
    model, card, math, cards = case
    kn = dataclasses.replace(forecasting.knobs(None), eta_mem=k[0], eta_flop=k[1], c_layer=k[2],
                             c_allreduce=k[3], overlap=k[4], band_lo=-0.5, band_hi=0.5)
    with mock.patch.object(forecasting, "stored_knobs", lambda: {forecasting.POOLED: kn}):
        f = ic.forecast(model, card, prompt_tokens=p, output_tokens=o, batch=batch,
                        cards=cards[pick % len(cards)], bytes_per_param=1, math=math)
    g = f.floor
    eps = 1 + 1e-12
    assert f.ttft.value * eps >= g.prefill.t_floor
    assert f.total.value * eps >= g.floor_total
    if o > 1:
        assert f.tpot.value * eps >= g.floor_step_times.mean()
    assert f.output_tokens_per_s.value <= g.batch * o / g.floor_total * eps
    for b in (f.ttft, f.tpot, f.total):                  # no end of a band beats the floor
        assert b.low <= b.value <= b.high
    assert f.ttft.low * eps >= g.prefill.t_floor and f.total.low * eps >= g.floor_total
    assert f.output_tokens_per_s.high <= g.batch * o / g.floor_total * eps


@given(read=st.floats(0, 1), compute=st.floats(0, 1), comm=st.floats(0, 1),
       layers=st.integers(1, 200), cards=st.integers(1, 64), k=st.tuples(eta, eta, cost, cost),
       o=share)
def test_the_step_time_holds_both_floor_terms(read, compute, comm, layers, cards, k, o):
    terms = dict(read=read, compute=compute, comm=comm, layers=layers, cards=cards)
    t = forecasting.pass_time(forecasting.KnobValues(*k, overlap=o), **terms)
    assert t >= max(read, compute) + comm
    assert forecasting.pass_time(forecasting.KnobValues(1, 1, 0, 0), **terms) == \
        max(read, compute) + comm
    # no overlap: the read and the math one after the other
    assert forecasting.pass_time(forecasting.KnobValues(1, 1, 0, 0, overlap=0.0), **terms) == \
        pytest.approx(read + compute + comm)


def test_stored_knobs_are_fractions_and_costs_of_the_right_sign():
    for kn in forecasting.stored_knobs().values():
        assert 0 < kn.eta_mem <= 1 and 0 < kn.eta_flop <= 1 and 0 <= kn.overlap <= 1
        assert kn.c_layer >= 0 and kn.c_allreduce >= 0
        assert kn.band[0] < 0 < kn.band[1] and kn.rows > 0 and kn.groups > 0


@settings(max_examples=40)
@given(case=st.sampled_from(CASES), k=st.tuples(eta, eta, cost, cost), p=st.integers(1, 3700),
       o=st.integers(1, 300), batch=st.integers(1, 512), pick=st.integers(0, 7))
def test_prefill_sharing_only_adds_time_to_the_tpot_and_vanishes_at_batch_one(case, k, p, o,
                                                                              batch, pick):
    model, card, math, cards = case
    kn = dataclasses.replace(forecasting.knobs(None), eta_mem=k[0], eta_flop=k[1], c_layer=k[2],
                             c_allreduce=k[3], band_lo=-0.5, band_hi=0.5)
    kw = dict(prompt_tokens=p, output_tokens=o, batch=batch, cards=cards[pick % len(cards)],
              bytes_per_param=1, math=math)
    with mock.patch.object(forecasting, "stored_knobs", lambda: {forecasting.POOLED: kn}):
        static = ic.forecast(model, card, **kw)
        cb = ic.forecast(model, card, continuous=True, **kw)
    assert cb.continuous and not static.continuous
    assert (cb.ttft, cb.total, cb.output_tokens_per_s) == \
        (static.ttft, static.total, static.output_tokens_per_s)
    if batch == 1 or o == 1:
        assert cb.tpot == static.tpot
        return
    share = forecasting.prefill_share(batch=batch, output_tokens=o)
    assert share == (batch - 1) / o
    with mock.patch.object(forecasting, "stored_knobs", lambda: {forecasting.POOLED: kn}):
        one = ic.forecast(model, card, **{**kw, "batch": 1, "output_tokens": 1})
    assert cb.tpot.value == pytest.approx(static.tpot.value + share * one.ttft.value, rel=1e-9)
    assert cb.tpot.value >= static.tpot.value >= cb.floor.floor_step_times.mean() / (1 + 1e-12)
    assert cb.tpot.low >= static.tpot.low


def test_continuous_must_be_a_bool():
    with pytest.raises(TypeError, match="continuous must be True or False"):
        ic.forecast("llama-2-7b", "A100 80GB", prompt_tokens=8, output_tokens=8, continuous="yes")


# --------------------------------------------------------------------------------- API
def test_forecast_result_and_its_knobs():
    f = ic.forecast("llama-2-70b", "H100 SXM", prompt_tokens=512, output_tokens=128, batch=8,
                    cards=4, bytes_per_param=1, kv_bytes_per_element=1, math="fp8",
                    engine="TensorRT-LLM")
    assert f.engine == "TensorRT-LLM" and f.math == "fp8" and f.floor.math == "fp8"
    assert f.rows == f.knobs.rows > 0 and f.groups == f.knobs.groups > 0
    assert f.total.value == pytest.approx(f.ttft.value + 127 * f.tpot.value)
    assert f.output_tokens_per_s.value == pytest.approx(8 * 128 / f.total.value)
    lo, hi = f.knobs.band
    assert f.tpot.low == pytest.approx(max(f.tpot.value * np.exp(lo), f.floor.floor_step_times.mean()))
    assert f.tpot.high == pytest.approx(f.tpot.value * np.exp(hi))
    assert ic.forecast("llama-2-70b", "H100", prompt_tokens=512, output_tokens=128).engine == "any"
    assert ic.forecast("llama-2-7b", "A100", prompt_tokens=8, output_tokens=8,
                       engine="trtllm").engine == "TensorRT-LLM"
    # an engine is spelt as forgivingly as a catalog name: case, spaces, dashes, underscores, dots
    assert forecasting.knobs("nvidia_nim") is forecasting.knobs("NVIDIA NIM")
    assert forecasting.knobs("TensorRT.llm") is forecasting.knobs("TRT")


def test_unknown_engine_is_refused_with_the_known_names():
    with pytest.raises(ValueError, match=r"unknown engine 'sglang'; known names: any, .*TensorRT-LLM.*vLLM"):
        ic.forecast("llama-2-7b", "A100", prompt_tokens=8, output_tokens=8, engine="sglang")


def test_a_workload_brings_its_own_sizes():
    w = ic.Workload("llama-2-70b", "H100", bytes_per_param=1, kv_bytes_per_element=1, batch=4,
                    cards=2, math="fp8")
    f = ic.forecast(w, prompt_tokens=64, output_tokens=16)
    g = ic.forecast("llama-2-70b", "H100", prompt_tokens=64, output_tokens=16, batch=4, cards=2,
                    bytes_per_param=1, kv_bytes_per_element=1, math="fp8")
    assert f.tpot == g.tpot
    h = ic.forecast(w, prompt_tokens=64, output_tokens=16, batch=8)   # a size given replaces
    k = ic.forecast(w.with_(batch=8), prompt_tokens=64, output_tokens=16)
    assert (h.floor.floor_total, h.tpot) == (k.floor.floor_total, k.tpot)
    assert h.tpot != f.tpot


def test_a_moe_forecast_reads_the_uniform_routing_experts_and_rests_on_the_k_expert_floor():
    f = ic.forecast("mixtral-8x7b", "H100", prompt_tokens=64, output_tokens=16, batch=32, cards=2)
    uni = ic.generation_time("mixtral-8x7b", "H100", prompt_tokens=64, output_tokens=16, batch=32,
                             cards=2, routing="uniform")
    assert f.floor.steps.t_read[0] < uni.steps.t_read[0]      # the floor reads k experts
    kn = f.knobs
    step = forecasting.pass_time(kn.fitted, read=uni.steps.t_read, compute=uni.steps.t_compute,
                                 comm=uni.steps.t_comm, layers=32, cards=2)
    assert f.tpot.value == pytest.approx(step.mean())


def test_the_forecast_fixes_the_routing_its_knobs_were_fitted_under():
    """No ``routing`` option, and a Workload's own routing is not read (the docstring)."""
    assert "routing" not in inspect.signature(ic.forecast).parameters
    sizes = dict(prompt_tokens=64, output_tokens=16)
    w = ic.Workload("mixtral-8x7b", "H100", batch=32, cards=2, routing="uniform")
    a, b = ic.forecast(w, **sizes), ic.forecast(w.with_(routing="floor"), **sizes)
    assert (a.ttft, a.tpot, a.total, a.floor.floor_total) == (b.ttft, b.tpot, b.total, b.floor.floor_total)


def test_rate_per_card_and_the_time_it_implies_are_one_relation():
    t = np.array([0.5, 2.0, 7.25])
    rate = forecasting.rate_per_card(t, batch=8, output_tokens=100, cards=4)
    assert np.allclose(rate * t * 4, 8 * 100)                 # B O tokens in T on n cards
    assert np.allclose(forecasting.rate_per_card(rate, batch=8, output_tokens=100, cards=4), t)


# ------------------------------------------------------------------ one forecast assembly
@pytest.fixture(scope="module")
def every_step():
    """The fit's rows with every decode step kept (no sampling), so a row's prediction is the
    forecast's figure itself."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fit, "SAMPLES", 10**6)
        data = fit.load_data()
    return data.rows + data.holdout


def test_forecast_equals_the_fits_prediction_for_a_measurements_inputs(every_step):
    k = forecasting.knobs().fitted
    kinds = set()
    for row in every_step:
        m = row.m
        p, o = m.lengths(policy="shortest")
        continuous = m.lengths_stated and m.continuous
        f = ic.forecast(workload_for(m), prompt_tokens=p, output_tokens=o, continuous=continuous)
        value, floor = {"ttft": (f.ttft, f.floor.prefill.t_floor),
                        "tpot": (f.tpot, f.floor.floor_tpot)}.get(
            row.kind, (f.total, f.floor.floor_total))
        assert fit.predict([row], k)[0] == pytest.approx(value.value, rel=1e-12), m.id
        assert row.floor == pytest.approx(floor, rel=1e-12), m.id
        kinds.add((row.kind, row.share > 0, workload_for(m).model.is_moe))
    # every kind of row, one under continuous batching and a mixture of experts among them
    assert {k[0] for k in kinds} == {"ttft", "tpot", "total", "rate"}
    assert any(k[1] for k in kinds) and any(k[2] for k in kinds)


def test_the_fit_s_rows_stacked_take_each_row_s_own_time(every_step):
    """The fit evaluates every row at once (:meth:`Design.stack`): each row's time is the one
    it has alone, which the test above holds equal to the forecast."""
    k = forecasting.knobs().fitted
    alone = [fit.predict([r], k)[0] for r in every_step]
    assert np.allclose(fit.predict(every_step, k), alone, rtol=1e-13, atol=0)


def test_a_sampled_design_keeps_the_weight_of_every_step():
    t = forecasting.forecast_terms(ic.Workload("llama-2-7b", "A100 80GB", batch=4),
                                   prompt_tokens=128, output_tokens=200)
    k = forecasting.knobs().fitted
    for figure, weight in (("ttft", 0.0), ("tpot", 1.0), ("total", 199.0), ("rate", 199.0)):
        d = forecasting.design(t, figure, samples=32)
        assert d.steps.shape[0] <= 32 and d.step_weights.sum() == pytest.approx(weight)
        full = forecasting.request_time(k, forecasting.design(t, figure))[0]
        assert forecasting.request_time(k, d)[0] == pytest.approx(full, rel=1e-3)


def test_the_terms_are_the_floor_s_and_the_uniform_routing_model_s():
    w = ic.Workload("mixtral-8x7b", "H100", batch=8, cards=2)
    t = forecasting.forecast_terms(w, prompt_tokens=64, output_tokens=16, continuous=True)
    req = dict(prompt_tokens=64, output_tokens=16)
    uni = ic.generation_time(w.with_(routing="uniform"), **req)
    assert t.floor.floor_total == ic.generation_time(w, **req).floor_total < uni.floor_total
    assert np.array_equal(t.steps[0], uni.steps.t_read) and t.prefill[0] == uni.prefill.t_read
    assert t.share == forecasting.prefill_share(batch=8, output_tokens=16) > 0
    one = ic.generation_time(w.with_(routing="uniform", batch=1), prompt_tokens=64,
                             output_tokens=1)
    assert t.prefill_one[0] == one.prefill.t_read
    static = forecasting.forecast_terms(w, prompt_tokens=64, output_tokens=16)
    assert static.share == 0 and static.prefill_one == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("name", ["bytes_per_param", "kv_bytes_per_element", "batch", "cards",
                                  "math"])
def test_any_size_given_with_a_workload_replaces_the_workloads_even_with_its_default(name):
    w = ic.Workload("llama-2-7b", "A100", bytes_per_param=1, kv_bytes_per_element=1, batch=2,
                    cards=2, math="fp16")
    size = {name: ic.Workload.default(name)}
    f = ic.forecast(w, prompt_tokens=8, output_tokens=8, **size)
    g = ic.forecast(w.with_(**size), prompt_tokens=8, output_tokens=8)
    assert (f.floor.floor_total, f.tpot, f.math) == (g.floor.floor_total, g.tpot, g.math)
    own = ic.forecast(w, prompt_tokens=8, output_tokens=8)     # fp16 and bf16 share A100's peak
    assert (f.tpot, f.math) != (own.tpot, own.math)
