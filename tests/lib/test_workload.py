"""infra_calc.workload: one workload, resolved and checked once; memory per card."""
import dataclasses

import numpy as np
import pytest

import infra_calc as ic
from infra_calc.units import GiB
from infra_calc.workload import Workload


def test_resolves_names_once_and_keeps_objects():
    fast = ic.accelerator("H100 SXM").with_(peak_flops=2e15)
    spec = dataclasses.replace(ic.model("Llama-3.1-8B"), source="a changed copy")
    w = Workload(spec, fast, batch=4, context=100)
    assert w.model is spec and w.hw is fast
    w2 = Workload.of(w, batch=8)
    assert w2.model is spec and w2.hw is fast and w2.batch == 8 and w2.context == 100
    assert Workload.of(w) is w
    assert Workload("qwen3-8b", "H100").model is ic.model("Qwen3-8B")


@pytest.mark.parametrize("fields, exc, message", [
    (dict(batch=10**30), ValueError, r"batch \(requests\) must be at most 9,223,372,036,854,775,807"),
    (dict(batch=0), ValueError, r"batch \(requests\) must be >= 1"),
    (dict(kv_bytes_per_element=float("nan")), ValueError,
     r"kv_bytes_per_element \(bytes/element\) must not be NaN"),
    (dict(bytes_per_param=-1), ValueError, r"bytes_per_param \(bytes/parameter\) must be > 0"),
    (dict(context=200_000), ValueError, r"context \(tokens\) must be <= 131,072"),
    (dict(context=-1), ValueError, r"context \(tokens\) must be >= 0"),
    (dict(cards=3), ValueError, r"cards must divide the 32 query heads"),
    (dict(workspace=[1, 2]), TypeError, r"workspace \(bytes\) must be a single number"),
])
def test_bad_fields_name_themselves(fields, exc, message):
    with pytest.raises(exc, match=message):
        Workload("Llama-3.1-8B", "H100 SXM", **fields)


def test_hw_is_required_and_not_twice():
    with pytest.raises(TypeError, match="hw"):
        Workload.of("Llama-3.1-8B")
    w = Workload("Llama-3.1-8B", "H100 SXM")
    with pytest.raises(ValueError, match="hw"):
        Workload.of(w, "A100")


def test_memory_per_card_is_weights_kv_and_workspace():
    m = ic.model("Llama-3.1-8B")
    w = Workload(m, "H100 SXM", batch=8, context=4096)
    expect = m.params * 2 + 8 * 4096 * m.kv_bytes_per_token() + 2 * GiB
    assert w.memory_per_card == pytest.approx(expect, rel=1e-12)
    assert w.fits is True and w.memory is w.memory         # computed once
    assert w.memory_at(context=0).total == pytest.approx(m.params * 2 + 2 * GiB)
    assert w.memory_at(1000, batch=3) == w.with_(batch=3, context=1000).memory   # other sizes


@pytest.mark.parametrize("build", [
    lambda w: ic.model_decode_step(w), lambda w: ic.tensor_parallel_step(w),
    lambda w: ic.prefill_step(w, prompt_tokens=int(w.context)),
    lambda w: ic.generation_time(w, prompt_tokens=int(w.context) - 3, output_tokens=4),
    lambda w: ic.estimate(w.model, w.hw, batch=int(w.batch), context=int(w.context)),
    lambda w: ic.shared_prefix_step(w, prefix=0), lambda w: ic.speculative_step(w, drafts=0),
], ids=["decode", "tensor-parallel", "prefill", "generation", "estimate", "shared-prefix",
        "speculative"])
def test_every_result_fits_exactly_at_capacity_and_not_a_byte_below(build):
    """One memory record: a card whose capacity is the workload's total fits, a byte less not."""
    w = Workload("Qwen3-8B", "H100 SXM", batch=3, context=4096)
    total = w.memory_per_card
    at = w.with_(hw=w.hw.with_(mem_capacity=total))
    below = w.with_(hw=w.hw.with_(mem_capacity=total - 1))
    got = build(at)
    assert got.memory.total == pytest.approx(total, rel=1e-15) and got.memory == at.memory
    assert got.fits is True and build(below).fits is False


def test_70b_bf16_does_not_fit_one_a100_but_fits_two():
    w = Workload("Llama-2-70B", "A100 80GB")
    assert w.fits is False and w.memory_per_card > ic.accelerator("A100").mem_capacity
    assert Workload("Llama-2-70B", "A100 80GB", cards=2).fits is True


def test_cards_split_weights_and_replicate_kv_heads():
    m = ic.model("llama-70b")               # 8 KV heads
    one = Workload(m, "H100 SXM", batch=2, context=1000)
    eight = Workload(m, "H100 SXM", batch=2, context=1000, cards=8)
    sixteen = Workload(m, "H100 SXM", batch=2, context=1000, cards=16)
    assert eight.kv_bytes_per_card() == pytest.approx(one.kv_bytes_per_card() / 8)
    assert sixteen.kv_bytes_per_card() == pytest.approx(eight.kv_bytes_per_card())   # one head each
    assert 16 * sixteen.resident_weight_bytes() > one.resident_weight_bytes()  # copies


def test_arrays_broadcast():
    w = Workload("Qwen3-8B", "H100 SXM", batch=np.array([1, 8]), context=np.array([0, 4096]))
    assert np.shape(w.memory_per_card) == (2,)
