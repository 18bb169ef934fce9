"""bookkit.exercises.ch4: chapter 4's exercises, each answer against what it claims to be.

The assumed knobs of ch4-n3 and ch4-n4 go through :func:`infra_calc.forecasting.pass_time`;
here the step is rebuilt from its floor terms by hand, and ch4-n5 follows the stored fit.
"""
from __future__ import annotations

import pytest

import infra_calc as ic
from bookkit import exercises
from bookkit.exercises import ch4


def test_n1_a_measurement_slower_than_its_floor_reaches_part_of_it():
    assert 0 < ch4.n1() < 1


def test_n2_the_per_gpu_reading_is_faster_than_the_floor():
    floor = ic.model_decode_step(ch4.N2_MODEL, ch4.CARD, cards=ch4.N2_CARDS,
                                    batch=ch4.N2_BATCH, context=ch4.N2_CONTEXT).t_floor
    # N2_RATE per GPU: every card makes N2_RATE tokens/s, so a step of the batch takes
    assert ch4.n2() * ch4.N2_RATE * ch4.N2_CARDS == pytest.approx(ch4.N2_BATCH)
    possible = exercises.get("ch4-n2").parts[0].answer()
    assert ch4.n2() < floor and possible == "no"


@pytest.mark.parametrize("cards", [1, ch4.N4_CARDS])
def test_n3_n4_the_chapters_model_with_the_assumed_knobs(cards):
    st = ic.model_decode_step(ch4.N3_MODEL, ch4.CARD, cards=cards, batch=1, context=0)
    layers = ic.model(ch4.N3_MODEL).layers
    all_reduces = 2 * layers if cards > 1 else 0            # two per layer, on more cards
    step = (max(st.t_read / ch4.ETA_M, st.t_compute) + st.t_comm + ch4.C_LAYER * layers
            + ch4.C_AR * all_reduces)
    if cards == 1:
        assert st.t_comm == 0 and ch4.n3() == pytest.approx(step, rel=1e-12)
    else:
        assert ch4.n4() == pytest.approx(st.t_floor / step, rel=1e-12)


def test_n5_follows_the_stored_fit_and_its_band():
    f = ic.forecast(ch4.N5_MODEL, ch4.CARD, prompt_tokens=ch4.N5_PROMPT,
                    output_tokens=ch4.N5_OUTPUT, engine=ch4.N5_ENGINE)
    assert exercises.expected("ch4-n5") == pytest.approx(f.tpot.value * 1e3)
    assert f.tpot.low <= f.tpot.value <= f.tpot.high
    inside = exercises.get("ch4-n5").parts[0].answer()
    assert inside == ("yes" if f.tpot.low <= ch4.N5_CLAIM <= f.tpot.high else "no")


def test_selftest_values_show_every_answer():
    v = ch4.selftest_values()
    for i in range(1, 6):
        assert str(getattr(v, f"n{i}")), i
