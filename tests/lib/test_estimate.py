"""infra_calc.estimate: one model on one or more cards, what the command line prints."""
import dataclasses
import json
import math

import pytest

import infra_calc as ic
from infra_calc.estimate import default_context
from infra_calc.units import KiB


@pytest.mark.parametrize("hw", list(ic.CATALOG))
@pytest.mark.parametrize("model", list(ic.MODELS))
def test_every_pair_with_defaults_is_estimated(model, hw):
    """A default is never refused: the context defaults to min(8192, the model's limit)."""
    est = ic.estimate(model, hw, bytes_per_param=2, batch=8)
    assert est.context == min(8192, ic.model(model).max_position_embeddings)
    assert est.context_from == "default"
    assert est.t_step >= max(est.t_read, est.t_compute) > 0
    # without overlap both limbs are paid: more than the larger, at most twice it
    limb = max(est.t_read, est.t_compute)
    assert limb < est.t_step_serial <= 2 * limb * (1 + 1e-12)
    assert est.max_batch >= 0 and isinstance(est.fits, bool)
    if est.max_batch >= 8:
        assert est.fits
    json.dumps(est.to_dict(), allow_nan=False)            # strict JSON


def test_memory_is_the_workloads_record_as_on_every_result():
    """The estimate holds memory as every chapter-3 result does (HoldsMemory): ``fits`` is
    the decode step's; the JSON nests the record under its own names."""
    w = ic.Workload("Qwen3-8B", "RTX 4090", batch=6, context=8192)
    est = ic.estimate("Qwen3-8B", "RTX 4090", batch=6, context=8192)
    assert isinstance(est, ic.capacity.HoldsMemory)
    assert est.memory == w.memory and est.memory_per_card == w.memory_per_card
    assert not est.fits and est.memory.headroom < 0
    d = est.to_dict()
    assert d["memory"] == dataclasses.asdict(est.memory)
    assert (d["fits"], d["everything_fits"]) == (False, False)


def test_everything_fits_adds_the_request_to_the_decode_steps_fits():
    """A short decode context fits while the request's longest context does not: ``fits``
    (the step's, as on every result) and ``everything_fits`` (the request too) differ, in
    the attribute, the JSON and the closing line of the table."""
    est = ic.estimate("Qwen3-8B", "RTX 4090", batch=6, context=1024, prompt_tokens=8192,
                      output_tokens=16)
    assert est.fits and not est.request.fits and not est.everything_fits
    d = est.to_dict()
    assert (d["fits"], d["everything_fits"], d["request"]["fits"]) == (True, False, False)
    assert "DOES NOT FIT" in est.table()
    ok = ic.estimate("Qwen3-8B", "RTX 4090", batch=1, context=1024, prompt_tokens=512)
    assert ok.fits and ok.everything_fits and "DOES NOT FIT" not in ok.table()


def test_max_batch_is_the_workloads():
    w = ic.Workload("qwen3-8b", "H100 SXM", batch=8, context=8192)
    assert ic.estimate(w).max_batch == w.max_batch() == 55
    assert w.with_(batch=55).fits and not w.with_(batch=56).fits


def test_qwen_h100():
    est = ic.estimate("qwen3-8b", "H100 SXM", bytes_per_param=2, batch=8, context=8192)
    assert est.memory.weights == 2 * 8_190_735_360
    assert est.memory.kv == 8 * 8192 * 144 * KiB
    assert est.bound == "memory" and est.max_batch == 55 and est.model is ic.model("qwen3-8b")


def test_cards_apply_to_everything():
    one = ic.estimate("llama-70b", "A100 80GB", context=8192)
    four = ic.estimate("llama-70b", "A100 80GB", context=8192, cards=4)
    assert not one.fits and four.fits
    assert four.memory.weights < one.memory.weights / 3 and four.memory.kv == one.memory.kv / 4
    assert four.t_comm > 0 and four.t_step == pytest.approx(four.t_floor + four.t_comm)
    assert four.max_batch > one.max_batch


def test_a_request_fixes_the_default_context():
    est = ic.estimate("Llama-3.1-8B", "H100 SXM", prompt_tokens=2048, output_tokens=256)
    assert est.context == 2048 + 256 - 1 and est.context_from == "the request's last step"
    assert est.t_step == pytest.approx(est.request.tpot_last)
    short = ic.estimate("Llama-2-7B", "H100 SXM", prompt_tokens=4000)     # 256 would pass 4,096
    assert short.request.output_tokens == 97 and short.request.max_context == 4096


def test_strict_json_says_why_a_number_is_null():
    est = ic.estimate("Llama-3.1-8B", "H100 SXM", batch=8, context=4096)
    assert math.isinf(est.batch_turning_point_kv)
    d = est.to_dict()
    assert d["batch_turning_point_kv"] is None and "S_max" in d["null_reasons"]["batch_turning_point_kv"]
    assert d["fits"] is True and d["model"]["name"] == "Llama-3.1-8B"
    json.dumps(d, allow_nan=False)


def test_table_says_when_it_does_not_fit():
    text = ic.estimate("Llama-2-70B", "A100 80GB").table()
    assert "DOES NOT FIT" in text and "NO: short by" in text


@pytest.mark.parametrize("call, match", [
    (lambda: ic.estimate("qwen3-8b", "H100", batch=0), r"batch \(requests\) must be >= 1"),
    (lambda: ic.estimate("gpt-9", "H100"), "unknown model"),
    (lambda: ic.estimate("qwen3-8b", "H100", output_tokens=10), "needs prompt"),
    (lambda: ic.estimate("Llama-2-7B", "H100", prompt_tokens=4097),
     r"prompt_tokens \(tokens\) must be <= 4,096"),
    (lambda: ic.estimate("Llama-2-7B", "H100", context=5000), r"context \(tokens\) must be <= 4,096"),
])
def test_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_moe_estimate_is_the_floor_and_names_the_routing_model():
    """An MoE step's bound reads k experts per layer; the uniform-routing step is a model,
    printed on its own line, never as the step."""
    e = ic.estimate("Mixtral-8x7B", "H100 SXM", batch=64, context=512)
    floor = ic.model_decode_step("Mixtral-8x7B", "H100 SXM", batch=64, context=512)
    uniform = ic.model_decode_step("Mixtral-8x7B", "H100 SXM", batch=64, context=512,
                                   routing="uniform")
    assert e.t_step == pytest.approx(floor.t_step) and e.t_step < e.t_step_uniform_routing / 3
    assert e.t_step_uniform_routing == pytest.approx(uniform.t_step)
    text = e.table()
    assert "uniform routing (a model)" in text and "2 of 8 experts" in text
    dense = ic.estimate("Llama-3.1-8B", "H100 SXM", batch=8)
    assert dense.t_step_uniform_routing == dense.t_step
    assert "uniform routing" not in dense.table()


def test_help_calls_no_model_a_floor():
    from infra_calc.cli import _ESTIMATE_HELP

    text = " ".join(_ESTIMATE_HELP.split())
    assert "Every time is a floor" not in text
    assert "a model" in text and "k experts per layer" in text


def test_every_parameter_after_hw_is_keyword_only_as_the_docstring_says():
    import inspect

    params = list(inspect.signature(ic.estimate).parameters.values())
    assert [p.name for p in params[:2]] == ["model", "hw"]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[2:])


def test_a_workload_keeps_its_context_and_its_card():
    w = ic.Workload("llama-2-70b", "H100 SXM", context=1024, batch=4)
    e = ic.estimate(w)                                   # hw defaults to the workload's
    assert (e.context, e.context_from, e.batch) == (1024, "given", 4)
    assert ic.estimate(w, "H100 SXM", context=1024).context == 1024
    other = ic.estimate(w, context=2048)             # a size given with it replaces the workload's
    assert (other.context, other.batch) == (2048, 4)
    assert other.t_step == ic.estimate(w.with_(context=2048)).t_step
    empty = ic.estimate(w.with_(context=0))          # no cache: the estimate picks, as for a model
    assert (empty.context, empty.context_from) == default_context(w.model)
    assert empty == ic.estimate("llama-2-70b", "H100 SXM", batch=4)
    with pytest.raises(ValueError, match=r"context \(tokens\) must be >= 1"):
        ic.estimate(w, context=0)                    # a given context is checked
    with pytest.raises(TypeError, match="hw"):
        ic.estimate("llama-2-70b")


def test_math_reaches_the_estimate():
    bf = ic.estimate("llama-2-70b", "H100 SXM", context=1024)
    f8 = ic.estimate("llama-2-70b", "H100 SXM", context=1024, math="fp8")
    h = ic.accelerator("H100 SXM")
    assert f8.t_compute == pytest.approx(bf.t_compute * h.peak_flops / h.peak("fp8"))


def test_the_json_has_no_memory_names_of_its_own():
    """Each memory field once, under the record's own name (``d["memory"]["kv"]`` is
    ``e.memory.kv``), no flattened or renamed copies at the top."""
    e = ic.estimate("Qwen3-8B", "RTX 4090", context=8192)
    d = e.to_dict()
    names = {f.name for f in dataclasses.fields(ic.CapacityCheck)}
    assert set(d["memory"]) == names
    assert not ({"weight_bytes", "kv_bytes", "total_memory", "headroom", "decode_fits"}
                | (names - {"fits"})) & set(d)


def test_the_j07_turning_batch_uses_the_math_precision():
    """B* = b_W Π / (2β) with Π the peak of the math asked for (FP8's, about twice BF16's)."""
    bf16 = ic.estimate("llama-2-70b", "H100 SXM").batch_turning_point
    fp8 = ic.estimate("llama-2-70b", "H100 SXM", math="fp8").batch_turning_point
    assert fp8 == pytest.approx(ic.batch_turning_point("H100 SXM", bytes_per_param=2, math="fp8"))
    h100 = ic.accelerator("H100 SXM")
    assert fp8 / bf16 == pytest.approx(h100.peak("fp8") / h100.peak("bf16")) and fp8 > 1.9 * bf16


def test_changed_accelerator_keeps_its_figures_through_estimate():
    h = ic.accelerator("H100 SXM")
    fast = h.with_(peak_flops=2 * h.peak_flops, mem_capacity=40e9)
    est = ic.estimate("qwen3-8b", fast, bytes_per_param=2, batch=8, context=8192)
    assert est.hw == fast
    assert est.hw.peak_flops == 2 * h.peak_flops and est.hw.mem_capacity == 40e9
    assert est.memory.capacity == 40e9
