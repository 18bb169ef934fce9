"""Exercises for chapter 4, "from bound to forecast" (not in the source: ids ``ch4-n*``).

=======  ============================================================
id       idea
=======  ============================================================
ch4-n1   the share of the floor a measurement reaches
ch4-n2   a claim faster than its floor is misread (a rate per what?)
ch4-n3   the forecast's step: the read at a fraction, plus fixed costs
ch4-n4   the same knobs on several cards: the all-reduces' fixed cost
ch4-n5   a claim checked against the fitted forecast and its band
=======  ============================================================

The floors come from :func:`~infra_calc.generation.generation_time` and
:func:`~infra_calc.decode.model_decode_step`.  Exercises ch4-n3 and ch4-n4 give their
knobs (``ETA_M``, ``C_LAYER``, ``C_AR``) as assumptions of the question: they illustrate the
model of the chapter, ``T = max(R/(η_m β), F/(η_f Π)) + T_comm + c_layer L + c_ar n_ar``
(``T_comm`` the ring all-reduce model's time, zero on one card), and are not fitted values.
Exercise ch4-n5 uses the fitted knobs (:func:`infra_calc.forecasting.forecast` with a family's
stored knobs), so its answer follows the stored fit.  Answers are SI (a fraction for
``"%"``); the self-test page poses the questions and works the solutions with the numbers
:func:`selftest_values` computes.
"""
from __future__ import annotations

from infra_calc.decode import model_decode_step
from infra_calc.display import shown
from infra_calc.forecasting import KnobValues, forecast, pass_time, rate_per_card
from infra_calc.generation import generation_time
from infra_calc.models import model

from ..pagevalues import PageValues
from .spec import Exercise, yes_no

CARD = "H100 SXM"
#: ch4-n1: a request and the mean time per output token an engine is said to measure, s
N1_MODEL, N1_PROMPT, N1_OUTPUT, N1_TPOT = "Qwen3-8B", 1000, 200, 7.5e-3
#: ch4-n2: a claimed rate (tokens/s) for a tensor-parallel group, without saying per what
N2_MODEL, N2_CARDS, N2_BATCH, N2_CONTEXT, N2_RATE = "Llama-3.1-8B", 2, 32, 1024, 8000.0
#: ch4-n3 and ch4-n4: assumed knobs (not fitted): bandwidth fraction, cost per layer, per all-reduce
N3_MODEL, N4_CARDS = "Llama-3.1-8B", 4
ETA_M, C_LAYER, C_AR = 0.8, 20e-6, 15e-6
#: ch4-n5: a claimed time per output token (s) for one request on one card, and the engine named
N5_MODEL, N5_ENGINE, N5_PROMPT, N5_OUTPUT, N5_CLAIM = "Llama-3.1-8B", "vLLM", 1000, 200, 5e-3


#: the assumed knobs as :func:`~infra_calc.forecasting.pass_time` takes them (the math at full peak)
KNOBS = KnobValues(ETA_M, 1.0, C_LAYER, C_AR)


def _forecast_step(st):
    """The chapter's model (:func:`~infra_calc.forecasting.pass_time`) of one
    :func:`_n3_step` ``st`` with :data:`KNOBS` and the ring all-reduce model's ``st.t_comm``
    (zero on one card), s."""
    return float(pass_time(KNOBS, read=st.t_read, compute=st.t_compute, comm=st.t_comm,
                           layers=model(N3_MODEL).layers, cards=st.cards))


# --- ch4-n1 -----------------------------------------------------------------------
def _n1():
    return generation_time(N1_MODEL, CARD, prompt_tokens=N1_PROMPT, output_tokens=N1_OUTPUT)


def n1():
    """Share of the floor's mean TPOT that a measured N1_TPOT reaches, a fraction."""
    return float(_n1().floor_tpot) / N1_TPOT


EX_N1 = Exercise(
    "ch4-n1", "%", n1, rel_tol=0.02,
    hints=("The floor of each decode step reads the weights and a cache that grows by one "
           "token a step; average the steps, then divide by the measurement.",),
)


def _values_n1(v):
    v.n1_tpot = shown(N1_TPOT, "ms", 1)
    v.n1_p = shown(N1_PROMPT, "tokens", 0)
    v.n1_o = shown(N1_OUTPUT, "tokens", 0)
    v.n1_floor = shown(float(_n1().floor_tpot), "ms", 3)
    v.n1 = shown(n1(), "%", 1)


# --- ch4-n2 -----------------------------------------------------------------------
def _n2():
    return model_decode_step(N2_MODEL, CARD, cards=N2_CARDS, batch=N2_BATCH, context=N2_CONTEXT)


def _n2_time(cards):
    """The step, s, in which N2_RATE tokens/s per card on ``cards`` cards make one token for
    each of N2_BATCH requests (:func:`~infra_calc.forecasting.rate_per_card`, its own inverse)."""
    return float(rate_per_card(N2_RATE, batch=N2_BATCH, output_tokens=1, cards=cards))


def n2():
    """Step time if N2_RATE were output tokens/s per GPU, s."""
    return _n2_time(N2_CARDS)


EX_N2 = Exercise(
    "ch4-n2", "ms", n2,
    hints=("One decode step makes one token for each sequence of the batch, on all the cards "
           "of the group at once.",),
    parts=(yes_no("Is the per-GPU reading possible?", lambda: bool(n2() >= _n2().t_floor),
                  "Compare the step time with the floor of the same step."),),
)


def _values_n2(v):
    v.n2_rate = shown(N2_RATE, "tokens/s", 0)
    v.n2_cards = shown(N2_CARDS, "cards", 0)
    v.n2_batch = shown(N2_BATCH, "requests", 0)
    v.n2_ctx = shown(N2_CONTEXT, "tokens", 0)
    v.n2 = shown(n2(), "ms", 3)
    v.n2_floor = shown(_n2().t_floor, "ms", 3)
    v.n2_group = shown(_n2_time(1), "ms", 3)


# --- ch4-n3 -----------------------------------------------------------------------
def _n3_step(cards):
    return model_decode_step(N3_MODEL, CARD, cards=cards, batch=1, context=0)


def n3():
    """The model's step, s: N3_MODEL, BF16, batch 1, empty cache, one card."""
    return _forecast_step(_n3_step(1))


EX_N3 = Exercise(
    "ch4-n3", "ms", n3,
    hints=("At batch 1 the read decides: slow it by the bandwidth fraction, then add the cost "
           "of every layer.",),
)


def _values_n3(v):
    """ch4-n3's numbers and the knobs ch4-n4 shares."""
    v.eta_m = shown(ETA_M, "%", 0)
    v.c_layer = shown(C_LAYER, "µs", 0)
    v.c_ar = shown(C_AR, "µs", 0)
    v.layers = shown(model(N3_MODEL).layers, digits=0)
    v.n3_read = shown(_n3_step(1).t_read, "ms", 3)
    v.n3 = shown(n3(), "ms", 3)


# --- ch4-n4 -----------------------------------------------------------------------
def n4():
    """The model's share of the floor on N4_CARDS cards, a fraction (same knobs, plus T_comm
    and C_AR)."""
    st = _n3_step(N4_CARDS)
    return st.t_floor / _forecast_step(st)


EX_N4 = Exercise(
    "ch4-n4", "%", n4, rel_tol=0.02,
    hints=("Each card reads its share of the weights (plus what every card keeps whole); the "
           "fixed costs do not shrink with the cards, and the ring model's all-reduce time "
           "comes on top of them.",),
)


def _values_n4(v):
    st = _n3_step(N4_CARDS)
    # the fixed costs: the model's pass with no read, math or all-reduce time
    fixed = float(pass_time(KNOBS, read=0.0, compute=0.0, comm=0.0,
                            layers=model(N3_MODEL).layers, cards=N4_CARDS))
    v.n4_cards = shown(N4_CARDS, "cards", 0)
    v.n4_floor = shown(st.t_floor, "ms", 3)
    v.n4_read = shown(st.t_read, "ms", 3)
    assert fixed > st.t_floor, "ch4-n4: fixed costs vs floor"
    v.n4_fixed = shown(fixed, "ms", 3)
    v.n4_comm = shown(st.t_comm, "ms", 3)
    v.n4 = shown(n4(), "%", 1)


# --- ch4-n5 -----------------------------------------------------------------------
def _n5():
    return forecast(N5_MODEL, CARD, prompt_tokens=N5_PROMPT, output_tokens=N5_OUTPUT,
                    engine=N5_ENGINE)


def _n5_inside():
    b = _n5().tpot
    return bool(b.low <= N5_CLAIM <= b.high)


EX_N5 = Exercise(
    "ch4-n5", "ms", lambda: _n5().tpot.value, rel_tol=0.02,
    hints=("Call ic.forecast with the engine named; its tpot is a band with a value, a low "
           "and a high end.",),
    parts=(yes_no("Is the vendor's figure within the band?", _n5_inside,
                  "Compare the claim with the two ends of the band."),),
)


def _values_n5(v):
    f5 = _n5()
    floor5 = f5.floor.floor_tpot
    v.n5_claim = shown(N5_CLAIM, "ms", 1)
    v.n5_p = shown(N5_PROMPT, "tokens", 0)
    v.n5_o = shown(N5_OUTPUT, "tokens", 0)
    v.n5 = shown(f5.tpot.value, "ms", 3)
    v.n5_lo = shown(f5.tpot.low, "ms", 3)
    v.n5_hi = shown(f5.tpot.high, "ms", 3)
    v.n5_floor = shown(floor5, "ms", 3)
    v.n5_rows = shown(f5.rows, "rows", 0)
    v.n5_inside = "yes" if _n5_inside() else "no"
    v.n5_above_floor = "yes" if N5_CLAIM >= floor5 else "no"


# --- the numbers the self-test page shows ------------------------------------------
def selftest_values():
    """The numbers ``book/4_forecast/06_self_test.ipynb`` shows, as a :class:`~bookkit.PageValues`:
    each exercise's set by the ``_values_<id>`` function beside it, in the page's order."""
    return PageValues.from_parts(_values_n1, _values_n2, _values_n3, _values_n4, _values_n5)


#: the chapter's exercises, in the order its self-test page poses them: the registry
#: numbers them from this order (:func:`~bookkit.exercises.registry.with_titles`)
EXERCISES = (EX_N1, EX_N2, EX_N3, EX_N4, EX_N5)
