"""Chapter 4's data helpers in infra_calc.figures.ch4: the shares of the floor, the explorer's
forecast panel and the TTFT rows under heavy load."""
import pytest

import infra_calc as ic
from infra_calc.figures import ch4


def test_every_decode_row_is_slower_than_its_floor():
    rows = ch4.decode_fractions()
    assert len(rows) >= 40
    assert all(0 < f <= 1 for _, f in rows)
    assert len({m.id for m, _ in rows}) == len(rows)


def test_the_panel_is_the_library_forecast_and_never_faster_than_the_floor():
    f = ch4.forecast_panel_state("Llama-3.1-8B", "H100 SXM", engine="vLLM", batch=8, prompt_tokens=1000,
                                 output_tokens=200, cards=2)
    g = ic.forecast("Llama-3.1-8B", "H100 SXM", prompt_tokens=1000, output_tokens=200,
                    batch=8, cards=2, engine="vLLM")
    assert f.tpot == g.tpot and f.engine == "vLLM"
    assert f.floor.floor_step_times.mean() <= f.tpot.low <= f.tpot.value <= f.tpot.high
    pooled = ch4.forecast_panel_state("Llama-3.1-8B", "H100 SXM", engine="any", batch=1, prompt_tokens=1000,
                                      output_tokens=200, cards=1)
    assert ch4.engine_label(pooled) == "pooled" and ch4.engine_label(f) == "vLLM"


def test_the_panel_refuses_an_unknown_engine_naming_the_known_ones():
    with pytest.raises(ValueError, match="unknown engine 'SGLang'; known names: any"):
        ch4.forecast_panel_state("Llama-3.1-8B", "H100 SXM", engine="SGLang", batch=1, prompt_tokens=1000,
                                 output_tokens=200, cards=1)


def test_heavy_load_ttft_rows_are_the_loaded_ttft_rows_only():
    rows = ch4.heavy_load_ttft()
    assert rows, "the data set holds MLPerf Server TTFT rows"
    for m, t, ratio in rows:
        assert m.metric == "ttft" and m.offered_load
        if t is None:
            assert ratio is None and not (m.prompt_tokens and m.cards)
        else:
            assert ratio == pytest.approx(m.value_si / t)


def test_heavy_load_ttft_forecasts_a_row_that_states_its_prompt(monkeypatch):
    import dataclasses

    from infra_calc import measurements

    row = next(m for m in measurements.independent() if m.metric == "ttft"
               and m.offered_load and m.cards and m.accelerator == "H100 SXM")
    stated = dataclasses.replace(row, prompt_tokens=800)
    monkeypatch.setattr(ch4, "independent", lambda: [stated])
    [(m, t, ratio)] = ch4.heavy_load_ttft()
    w = ic.reality.workload_for(stated).with_(batch=1)
    assert t == pytest.approx(ic.forecast(w, prompt_tokens=800, output_tokens=1).ttft.value)
    assert ratio == pytest.approx(stated.value_si / t)
