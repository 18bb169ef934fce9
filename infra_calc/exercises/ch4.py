"""Exercises for chapter 4, "from bound to forecast" (not in the source: ids ``ch4-n*``).

=======  ============================================================  ============
id       idea                                                          book's number
=======  ============================================================  ============
ch4-n1   the share of the floor a measurement reaches                   Exercise 4.1
ch4-n2   a claim faster than its floor is misread (a rate per what?)    Exercise 4.2
ch4-n3   the forecast's step: the read at a fraction, plus fixed costs  Exercise 4.3
ch4-n4   the same knobs on several cards: the all-reduces' fixed cost   Exercise 4.4
ch4-n5   a claim checked against the fitted forecast and its band       Exercise 4.5
=======  ============================================================  ============

The floors come from :func:`~infra_calc.generation.generation_time` and
:func:`~infra_calc.parallel.tensor_parallel_step`.  Exercises 4.3 and 4.4 give their
knobs (``ETA_M``, ``C_LAYER``, ``C_AR``) as assumptions of the question: they illustrate the
model of the chapter, ``T = max(R/(η_m β), F/(η_f Π)) + T_comm + c_layer L + c_ar n_ar``
(``T_comm`` the ring all-reduce model's time, zero on one card), and are not fitted values.
Exercise 4.5 uses the fitted knobs (:func:`infra_calc.forecasting.forecast` with a family's
stored knobs), so its answer follows the stored fit.  :func:`selftest_values`
computes what the self-test page shows.
"""
from __future__ import annotations

from ..generation import generation_time
from ..models import model
from ..parallel import tensor_parallel_step
from .spec import Exercise, register, yes_no

CARD = "H100 SXM"
#: 4.1: a request and the mean time per output token an engine is said to measure
N1_MODEL, N1_PROMPT, N1_OUTPUT, N1_TPOT_MS = "Qwen3-8B", 1000, 200, 7.5
#: 4.2: a claimed rate for a tensor-parallel group, without saying per what
N2_MODEL, N2_CARDS, N2_BATCH, N2_CONTEXT, N2_RATE = "Llama-3.1-8B", 2, 32, 1024, 8000.0
#: 4.3 and 4.4: assumed knobs (not fitted): bandwidth fraction, cost per layer, per all-reduce
N3_MODEL, N4_CARDS = "Llama-3.1-8B", 4
ETA_M, C_LAYER, C_AR = 0.8, 20e-6, 15e-6
#: 4.5: a claimed time per output token for one request on one card, and the engine named
N5_MODEL, N5_ENGINE, N5_PROMPT, N5_OUTPUT, N5_CLAIM_MS = "Llama-3.1-8B", "vLLM", 1000, 200, 5.0


def _forecast_step(st, layers, n_ar):
    """The chapter's model on one step ``st`` with the assumed knobs (the math at full peak),
    with the ring all-reduce model's ``st.t_comm`` (zero on one card)."""
    return max(st.t_read / ETA_M, st.t_compute) + st.t_comm + C_LAYER * layers + C_AR * n_ar


# --- 4.1 -------------------------------------------------------------------------
def _n1():
    return generation_time(N1_MODEL, CARD, prompt_tokens=N1_PROMPT, output_tokens=N1_OUTPUT)


def n1():
    """Share of the floor's mean TPOT that a measured N1_TPOT_MS reaches, %."""
    return 100 * float(_n1().floor_tpot_mean) / (N1_TPOT_MS * 1e-3)


register(Exercise(
    "ch4-n1",
    f"An engine serving one request of {N1_MODEL} in BF16 on one {CARD}, a {N1_PROMPT:,}-token "
    f"prompt and {N1_OUTPUT} output tokens, measures a mean time per output token of "
    f"{N1_TPOT_MS:g} ms. What share of the floor does it reach, in %?",
    "%", n1,
    lambda: (f"Floor of the mean decode step over the growing cache: "
             f"{_n1().floor_tpot_mean * 1e3:.3f} ms; share = floor / measured = "
             f"{n1():.1f}%."),
    rel_tol=0.02,
    hints=("The floor of each decode step reads the weights and a cache that grows by one "
           "token a step; average the steps, then divide by the measurement.",),
    title="Exercise 4.1",
))


# --- 4.2 -------------------------------------------------------------------------
def _n2():
    return tensor_parallel_step(N2_MODEL, CARD, cards=N2_CARDS, batch=N2_BATCH, context=N2_CONTEXT)


def n2():
    """Step time, ms, if N2_RATE were output tokens/s per GPU."""
    return 1e3 * N2_BATCH / (N2_RATE * N2_CARDS)


register(Exercise(
    "ch4-n2",
    f"A table gives {N2_RATE:,.0f} output tokens/s for {N2_MODEL} in BF16 on {N2_CARDS} {CARD} "
    f"cards (tensor parallel), {N2_BATCH} sequences of about {N2_CONTEXT:,} tokens of cache, "
    "without saying whether the rate is per GPU or for the pair. If it were per GPU, how long "
    "would one decode step of the batch take, in ms? Is that reading possible?",
    "ms", n2,
    lambda: (f"Per GPU, the pair makes {N2_RATE * N2_CARDS:,.0f} tokens/s, so a step of "
             f"{N2_BATCH} tokens takes {n2():.3f} ms; the floor of the step is "
             f"{_n2().t_floor * 1e3:.3f} ms."),
    hints=("One decode step makes one token for each sequence of the batch, on all the cards "
           "of the group at once.",),
    parts=(yes_no("Is the per-GPU reading possible?",
                  lambda: bool(n2() * 1e-3 >= _n2().t_floor),
                  "Compare the step time with the floor of the same step."),),
    title="Exercise 4.2",
))


# --- 4.3 -------------------------------------------------------------------------
def _n3_step(cards):
    return tensor_parallel_step(N3_MODEL, CARD, cards=cards, batch=1, context=0)


def n3():
    """The model's step, ms: N3_MODEL, BF16, batch 1, empty cache, one card."""
    return 1e3 * _forecast_step(_n3_step(1), model(N3_MODEL).layers, 0)


register(Exercise(
    "ch4-n3",
    f"Assume an engine reads at {ETA_M:.0%} of an {CARD}'s bandwidth and pays "
    f"{C_LAYER * 1e6:g} µs per layer per step. Under the chapter's model, how long is one "
    f"decode step of {N3_MODEL} in BF16, batch 1, empty cache, on one card, in ms?",
    "ms", n3,
    lambda: (f"Read floor {_n3_step(1).t_read * 1e3:.3f} ms / {ETA_M} + "
             f"{model(N3_MODEL).layers} layers × {C_LAYER * 1e6:g} µs = {n3():.3f} ms "
             "(the math is far below the read at batch 1)."),
    hints=("At batch 1 the read decides: slow it by the bandwidth fraction, then add the cost "
           "of every layer.",),
    title="Exercise 4.3",
))


# --- 4.4 -------------------------------------------------------------------------
def n4():
    """The model's share of the floor on N4_CARDS cards, % (same knobs, plus T_comm and C_AR)."""
    st = _n3_step(N4_CARDS)
    layers = model(N3_MODEL).layers
    return 100 * st.t_floor / _forecast_step(st, layers, 2 * layers)


register(Exercise(
    "ch4-n4",
    f"The same engine and step as Exercise 4.3, now split by tensor parallelism over "
    f"{N4_CARDS} cards. The all-reduces add two costs, as in the chapter's model: the time the "
    f"book's ring all-reduce model gives them, and {C_AR * 1e6:g} µs of fixed cost for each of "
    "the two per layer. What share of the step's floor does the model's step reach, in %?",
    "%", n4,
    lambda: (f"Floor per card {_n3_step(N4_CARDS).t_floor * 1e3:.3f} ms; model "
             f"{_n3_step(N4_CARDS).t_read * 1e3:.3f}/{ETA_M} + "
             f"{_n3_step(N4_CARDS).t_comm * 1e3:.3f} (ring all-reduces) + "
             f"{model(N3_MODEL).layers} × ({C_LAYER * 1e6:g} + 2 × {C_AR * 1e6:g}) µs: "
             f"share {n4():.1f}%."),
    rel_tol=0.02,
    hints=("Each card reads a quarter of the weights (plus what every card keeps whole); the "
           "fixed costs do not shrink with the cards, and the ring model's all-reduce time "
           "comes on top of them.",),
    title="Exercise 4.4",
))


# --- 4.5 -------------------------------------------------------------------------
def _n5():
    from ..forecasting import forecast

    return forecast(N5_MODEL, CARD, prompt_tokens=N5_PROMPT, output_tokens=N5_OUTPUT,
                    engine=N5_ENGINE)


def n5():
    """The forecast TPOT with N5_ENGINE's fitted knobs, ms."""
    return 1e3 * _n5().tpot.value


def _n5_inside():
    b = _n5().tpot
    return bool(b.low <= N5_CLAIM_MS * 1e-3 <= b.high)


register(Exercise(
    "ch4-n5",
    f"A vendor says {N5_ENGINE} serves one request of {N5_MODEL} in BF16 on one {CARD}, a "
    f"{N5_PROMPT:,}-token prompt and {N5_OUTPUT} output tokens, at {N5_CLAIM_MS:g} ms per "
    f"output token. What time per output token does the chapter's forecast give with "
    f"{N5_ENGINE}'s fitted knobs, in ms? Is the claim inside the forecast's band?",
    "ms", n5,
    lambda: (f"ic.forecast(..., engine={N5_ENGINE!r}).tpot: {n5():.3f} ms, band "
             f"{_n5().tpot.low * 1e3:.3f} to {_n5().tpot.high * 1e3:.3f} ms; floor "
             f"{_n5().floor.floor_tpot_mean * 1e3:.3f} ms."),
    rel_tol=0.02,
    hints=("Call ic.forecast with the engine named; its tpot is a band with a value, a low "
           "and a high end.",),
    parts=(yes_no("Is the claim inside the forecast's band?", _n5_inside,
                  "Compare the claim with the two ends of the band."),),
    title="Exercise 4.5",
))


# --- the numbers the self-test page shows ------------------------------------------
def selftest_values():
    """The numbers ``book/4_forecast/06_self_test.ipynb`` shows, as a :class:`~infra_calc.PageValues`."""
    from ..display import PageValues, shown

    v = PageValues()
    layers = model(N3_MODEL).layers
    v.n1_tpot = shown(N1_TPOT_MS * 1e-3, "ms", 1)
    v.n1_p = shown(N1_PROMPT, "tokens", 0)
    v.n1_o = shown(N1_OUTPUT, "tokens", 0)
    v.n1_floor = shown(float(_n1().floor_tpot_mean), "ms", 3)
    v.n1 = shown(n1() / 100, "%", 1)
    v.n2_rate = shown(N2_RATE, "tokens/s", 0)
    v.n2_cards = shown(N2_CARDS, "cards", 0)
    v.n2_batch = shown(N2_BATCH, "requests", 0)
    v.n2_ctx = shown(N2_CONTEXT, "tokens", 0)
    v.n2 = shown(n2() * 1e-3, "ms", 3)
    v.n2_floor = shown(_n2().t_floor, "ms", 3)
    v.n2_group = shown(N2_BATCH / N2_RATE, "ms", 3)
    v.eta_m = shown(ETA_M, "%", 0)
    v.c_layer = shown(C_LAYER, "µs", 0)
    v.c_ar = shown(C_AR, "µs", 0)
    v.layers = shown(layers, digits=0)
    v.n3_read = shown(_n3_step(1).t_read, "ms", 3)
    v.n3 = shown(n3() * 1e-3, "ms", 3)
    v.n4_cards = shown(N4_CARDS, "cards", 0)
    v.n4_floor = shown(_n3_step(N4_CARDS).t_floor, "ms", 3)
    v.n4_read = shown(_n3_step(N4_CARDS).t_read, "ms", 3)
    assert (C_LAYER + 2 * C_AR) * layers > _n3_step(N4_CARDS).t_floor, "4.4: fixed costs vs floor"
    v.n4_fixed = shown((C_LAYER + 2 * C_AR) * layers, "ms", 3)
    v.n4_comm = shown(_n3_step(N4_CARDS).t_comm, "ms", 3)
    v.n4 = shown(n4() / 100, "%", 1)
    f5 = _n5()
    floor5 = f5.floor.floor_tpot_mean
    v.n5_claim = shown(N5_CLAIM_MS * 1e-3, "ms", 1)
    v.n5_p = shown(N5_PROMPT, "tokens", 0)
    v.n5_o = shown(N5_OUTPUT, "tokens", 0)
    v.n5 = shown(f5.tpot.value, "ms", 3)
    v.n5_lo = shown(f5.tpot.low, "ms", 3)
    v.n5_hi = shown(f5.tpot.high, "ms", 3)
    v.n5_floor = shown(floor5, "ms", 3)
    v.n5_rows = shown(f5.rows, "rows", 0)
    v.n5_inside = "yes" if _n5_inside() else "no"
    v.n5_above_floor = "yes" if N5_CLAIM_MS * 1e-3 >= floor5 else "no"
    return v
