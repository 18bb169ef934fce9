"""infra_calc.generation: a whole request, prefill plus one decode step per further token."""
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import infra_calc as ic

MODELS = st.sampled_from(["Llama-3.1-8B", "Llama-2-7B", "Llama-2-70B",
                          "DeepSeek-R1-Distill-Llama-70B", "Qwen3-8B", "Mixtral-8x7B"])
ACCS = st.sampled_from(["H100 SXM", "A100 80GB", "H200 SXM", "B200", "MI300X", "RTX 4090"])


@settings(max_examples=40)
@given(MODELS, ACCS, st.integers(1, 3000), st.integers(1, 400), st.integers(1, 64),
       st.sampled_from([1, 2, 4, 8]))
def test_total_is_prefill_plus_steps(name, hw, p, o, b, cards):
    g = ic.generation_time(name, hw, prompt_tokens=p, output_tokens=o, batch=b, cards=cards)
    assert g.total == pytest.approx(g.prefill.t_step + g.step_times.sum(), rel=1e-12)
    assert g.ttft == g.prefill.t_step and len(g.step_times) == o - 1
    if o > 1:
        first = ic.model_decode_step(name, hw, cards=cards, batch=b, context=p + 1)
        last = ic.model_decode_step(name, hw, cards=cards, batch=b, context=p + o - 1)
        assert g.step_times[0] == pytest.approx(first.t_step, rel=1e-12)
        assert g.step_times[-1] == pytest.approx(last.t_step, rel=1e-12) == g.tpot_last
        assert np.all(np.diff(g.step_times) >= -1e-18)
    assert g.tokens_per_s_total == pytest.approx(b * g.tokens_per_s_request)
    w = ic.Workload(name, hw, batch=b, cards=cards, context=p + o - 1)
    assert g.max_context == p + o - 1 and g.memory_per_card == pytest.approx(w.memory_per_card)
    assert g.fits == w.fits


def test_one_convention_in_one_request():
    for read in ("touched", "active"):
        g = ic.generation_time("Mixtral-8x7B", "H100 SXM", prompt_tokens=512, output_tokens=8, batch=4,
                               weight_read=read)
        pre = ic.prefill_step("Mixtral-8x7B", "H100 SXM", prompt_tokens=512, batch=4, weight_read=read)
        step = ic.model_decode_step("Mixtral-8x7B", "H100 SXM", batch=4, context=513,
                                    weight_read=read)
        assert g.weight_read == read and g.ttft == pre.t_step
        assert g.step_times[0] == pytest.approx(step.t_step, rel=1e-12)


def test_default_reads_what_a_step_touches():
    """TPOT at B = 1 of the 8B models no longer reads the whole input table."""
    for name, over in (("Llama-3.1-8B", 0.069), ("Qwen3-8B", 0.081)):
        g = ic.generation_time(name, "H100 SXM", prompt_tokens=2048, output_tokens=256)
        old = ic.generation_time(name, "H100 SXM", prompt_tokens=2048, output_tokens=256,
                                 weight_read="active")
        assert old.tpot / g.tpot - 1 == pytest.approx(over, abs=0.002)
    active = ic.generation_time("Mixtral-8x7B", "H100 SXM", prompt_tokens=2048, output_tokens=256, batch=64,
                                cards=2, weight_read="active")
    uniform = ic.generation_time("Mixtral-8x7B", "H100 SXM", prompt_tokens=2048, output_tokens=256, batch=64,
                                 cards=2,
                                 routing="uniform")
    floor = ic.generation_time("Mixtral-8x7B", "H100 SXM", prompt_tokens=2048, output_tokens=256, batch=64,
                               cards=2)
    assert uniform.tpot > 2 * active.tpot       # the model: nearly every expert
    assert floor.tpot < active.tpot             # the floor: k experts, no whole table


@pytest.mark.parametrize("cards", [1, 2, 4])
def test_floor_total_leaves_the_all_reduce_model_apart(cards):
    g = ic.generation_time("llama-70b", "H100 SXM", prompt_tokens=1024, output_tokens=64, batch=8,
                           cards=cards)
    assert g.floor_total + g.t_comm == pytest.approx(g.total, rel=1e-12)
    assert g.floor_total == pytest.approx(
        g.prefill.t_floor + g.floor_step_times.sum(), rel=1e-12)
    if cards == 1:
        assert g.t_comm == 0.0 and g.floor_total == g.total
    else:
        assert g.t_comm > 0 and np.all(g.floor_step_times < g.step_times)
        step = ic.model_decode_step("llama-70b", "H100 SXM", cards=cards, batch=8, context=1025)
        assert g.floor_step_times[0] == pytest.approx(step.t_floor, rel=1e-12)


def test_one_output_token_is_the_prefill():
    g = ic.generation_time("Llama-3.1-8B", "H100", prompt_tokens=100, output_tokens=1)
    assert g.total == g.ttft and g.tpot == 0.0 and g.step_times.size == 0
    assert g.max_context == 100


def test_a_request_that_does_not_fit_is_estimated_and_says_so():
    g = ic.generation_time("Llama-2-70B", "A100 80GB", prompt_tokens=2048, output_tokens=256)
    assert g.fits is False and g.total > 0


def test_changed_objects_keep_their_figures():
    h = ic.accelerator("H100 SXM")
    fast = h.with_(peak_flops=2 * h.peak_flops, link_bandwidth=2 * h.link_bandwidth)
    spec = dataclasses.replace(ic.model("Llama-3.1-8B"), source="a changed copy")
    g = ic.generation_time(spec, fast, prompt_tokens=2000, output_tokens=16, cards=2)
    for res in (g, g.prefill):
        assert res.hw is fast and res.model is spec


@pytest.mark.parametrize("call, match", [
    (lambda: ic.generation_time("llama-70b", "H100", prompt_tokens=100, output_tokens=0), "output_tokens"),
    (lambda: ic.generation_time("llama-70b", "H100", prompt_tokens=-1, output_tokens=10), "prompt_tokens"),
    (lambda: ic.generation_time("Llama-2-70B", "H100", prompt_tokens=4000, output_tokens=200),
     "max_position_embeddings"),
    (lambda: ic.generation_time("llama-70b", "H100", prompt_tokens=[100, 200], output_tokens=10),
     "prompt_tokens .* single"),
    (lambda: ic.generation_time("llama-70b", "H100", prompt_tokens=100, output_tokens=[1, 2]),
     "output_tokens .* single"),
    (lambda: ic.generation_time("llama-70b", "H100", prompt_tokens=100), "output_tokens"),
    (lambda: ic.generation_time("llama-70b", "H100", prompt_tokens=100, output_tokens=10, weight_read="all"),
     r"weight_read must be one of \('touched', 'active', 'total'\), got 'all'"),
])
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


@pytest.mark.parametrize("sizes, same_bound", [
    (dict(prompt_tokens=2000, output_tokens=200, batch=32), False),   # compute prefill, memory steps
    (dict(prompt_tokens=2000, output_tokens=200, batch=32, cards=2), False),
    (dict(prompt_tokens=2000, output_tokens=200, batch=32, math="fp8"), False),
    (dict(prompt_tokens=16, output_tokens=50), True),                # every pass memory-bound
    (dict(prompt_tokens=8, output_tokens=4, batch=4096), True),      # every pass compute-bound
    (dict(prompt_tokens=8, output_tokens=4, batch=4096, math="fp8"), True),
])
def test_floor_of_any_schedule_against_the_static_batch(sizes, same_bound):
    """No schedule reads fewer bytes or does less math than all the passes together, and
    none needs more than the static batch's floor; with one bound everywhere, nothing can
    overlap, so the two floors are one."""
    g = ic.generation_time("Llama-3.1-8B", "H100 SXM", **sizes)
    labels = {g.prefill.bound, *np.atleast_1d(g.steps.floor_bound)}
    assert (len(labels) == 1) == same_bound
    reads = g.prefill.t_read + np.sum(g.steps.t_read)
    math = g.prefill.t_compute + np.sum(g.steps.t_compute)
    tol = 1e-12 * g.floor_total
    assert g.floor_any_schedule >= max(reads, math) - tol
    assert g.floor_any_schedule <= g.floor_total + tol
    if same_bound:
        assert np.isclose(g.floor_any_schedule, g.floor_total, rtol=1e-12)
    else:                     # overlapping the prefills' math with the steps' reads could do better
        assert g.floor_any_schedule < g.floor_total * (1 - 1e-6)


def test_the_floor_per_token_and_rate_are_fields_also_with_one_output_token():
    """floor_tpot is the mean of the steps' floors, 0 with no decode step (O = 1: no
    'mean of empty slice'); floor_tokens_per_s_total is B·O over the static batch's floor."""
    g = ic.generation_time("Llama-3.1-8B", "H100 SXM", prompt_tokens=512, output_tokens=64, batch=4)
    assert g.floor_tpot == pytest.approx(float(g.floor_step_times.mean()))
    assert g.floor_tokens_per_s_total == pytest.approx(4 * 64 / g.floor_total)
    one = ic.generation_time("Llama-3.1-8B", "H100 SXM", prompt_tokens=512, output_tokens=1)
    assert one.floor_tpot == 0.0 and one.floor_step_times.size == 0


def test_step_times_are_read_off_the_steps():
    g = ic.generation_time("Llama-3.1-8B", "H100 SXM", prompt_tokens=100, output_tokens=20)
    assert (g.step_times == g.steps.t_step).all() and (g.floor_step_times == g.steps.t_floor).all()
    assert "step_times" not in {f.name for f in dataclasses.fields(g)}     # stored once
    assert g.step_times.size == 19


@pytest.mark.parametrize("kw", [dict(overlap_comm="yes"), dict(comm="tree")])
def test_flag_and_comm_model_are_refused_without_a_decode_step_too(kw):
    with pytest.raises((TypeError, ValueError), match=next(iter(kw))):
        ic.generation_time("llama-3.1-8b", "H100", prompt_tokens=8, output_tokens=1, cards=2, **kw)
