"""One forecast assembly: ``forecast`` and the fit's rows run the same ``forecast_terms``."""
import numpy as np
import pytest

import infra_calc as ic
from infra_calc import fit, forecasting
from infra_calc.reality import workload_for


@pytest.fixture(scope="module")
def every_step():
    """The fit's rows with every decode step kept (no sampling), so a row's prediction is the
    forecast's figure itself."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fit, "SAMPLES", 10**6)
        data = fit.load_data()
    return data.rows + data.holdout


def test_forecast_equals_the_fits_prediction_for_a_measurements_inputs(every_step):
    k = forecasting.knobs().k
    kinds = set()
    for row in every_step:
        m = row.m
        p, o, stated = fit.lengths(m, row.kind)
        continuous = stated and m.scenario in forecasting.CONTINUOUS_SCENARIOS
        f = ic.forecast(workload_for(m), prompt_tokens=p, output_tokens=o, continuous=continuous)
        value, floor = {"ttft": (f.ttft, f.floor.prefill.t_floor),
                        "tpot": (f.tpot, f.floor.floor_tpot_mean)}.get(
            row.kind, (f.total, f.floor.floor_total))
        assert fit.predict([row], k)[0] == pytest.approx(value.value, rel=1e-12), m.id
        assert row.floor == pytest.approx(floor, rel=1e-12), m.id
        kinds.add((row.kind, row.share > 0, workload_for(m).model.is_moe))
    # every kind of row, one under continuous batching and a mixture of experts among them
    assert {k[0] for k in kinds} == {"ttft", "tpot", "total", "rate"}
    assert any(k[1] for k in kinds) and any(k[2] for k in kinds)


def test_the_terms_are_the_floor_s_and_the_uniform_routing_model_s():
    w = ic.Workload("mixtral-8x7b", "H100", batch=8, cards=2)
    t = forecasting.forecast_terms(w, 64, 16, continuous=True)
    req = dict(prompt_tokens=64, output_tokens=16)
    uni = ic.generation_time(w.with_(routing="uniform"), **req)
    assert t.floor.floor_total == ic.generation_time(w, **req).floor_total < uni.floor_total
    assert np.array_equal(t.steps[0], uni.steps.t_read) and t.prefill[0] == uni.prefill.t_read
    assert t.share == forecasting.prefill_share(8, 16) > 0
    one = ic.generation_time(w.with_(routing="uniform", batch=1), prompt_tokens=64,
                             output_tokens=1)
    assert t.prefill_one[0] == one.prefill.t_read
    static = forecasting.forecast_terms(w, 64, 16)
    assert static.share == 0 and static.prefill_one == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("name", ["bytes_per_param", "kv_bytes_per_element", "batch", "cards",
                                  "math"])
def test_any_size_given_with_a_workload_is_refused_even_its_default(name):
    w = ic.Workload("llama-2-7b", "A100", bytes_per_param=1, kv_bytes_per_element=1, batch=2,
                    cards=2, math="fp16")
    with pytest.raises(ValueError, match=f"^{name} must not be given with a Workload"):
        ic.forecast(w, prompt_tokens=8, output_tokens=8, **{name: ic.Workload.default(name)})
