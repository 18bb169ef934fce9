"""Chapter 4's data helpers in infra_calc.figures.ch4: the shares of the floor, the held-out
baseline and the explorer's range."""
import numpy as np
import pytest

from infra_calc.figures import ch4


def test_every_decode_row_is_slower_than_its_floor():
    rows = ch4.decode_fractions()
    assert len(rows) >= 40
    assert all(0 < f <= 1 for _, f in rows)
    assert len({m.id for m, _ in rows}) == len(rows)


def test_a_held_out_row_is_never_predicted_from_its_own_group_or_publisher():
    rows = ch4.decode_fractions()
    for by in ("group", "publisher"):
        for m, _share, pred in ch4.held_out_shares(by):
            others = [g for o, g in rows if getattr(o, by) != getattr(m, by)
                      and o.engine == m.engine]
            if not others:
                others = [g for o, g in rows if getattr(o, by) != getattr(m, by)]
            assert pred == pytest.approx(np.median(others)), (by, m.id)


def test_held_out_refuses_an_unknown_split():
    with pytest.raises(ValueError, match="by"):
        ch4.held_out_shares("row")


def test_share_range_is_ordered_and_refuses_an_unknown_engine():
    for engine in ch4.ENGINE_FAMILIES:
        lo, hi = ch4.share_range(engine)
        assert 0 < lo < hi <= 1
    with pytest.raises(ValueError, match="engine: unknown engine family 'SGLang'"):
        ch4.share_range("SGLang")


def test_the_range_is_never_faster_than_the_floor():
    _, floor, (fast, slow) = ch4.forecast_panel_state("Llama-3.1-8B", "H100 SXM", "vLLM", 8,
                                                      1000, 200, 2)
    assert floor <= fast < slow


def test_measured_step_time_of_a_batch_one_rate():
    row = next(m for m, _ in ch4.decode_fractions() if m.id == "gptfast-7b-base-a100-tp1-tput")
    assert ch4.measured_step_time(row) == pytest.approx(1 / row.value)
