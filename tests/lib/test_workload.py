"""infra_calc.workload: one workload, resolved and checked once; memory per card."""
import dataclasses
import re
import zlib

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
    lambda w: ic.model_decode_step(w),
    lambda w: ic.prefill_step(w, prompt_tokens=int(w.context)),
    lambda w: ic.generation_time(w, prompt_tokens=int(w.context) - 3, output_tokens=4),
    lambda w: ic.estimate(w.model, w.hw, batch=int(w.batch), context=int(w.context)),
    lambda w: ic.shared_prefix_step(w, prefix_tokens=0), lambda w: ic.speculative_step(w, draft_tokens=0),
], ids=["decode", "prefill", "generation", "estimate", "shared-prefix",
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


# ------------------------------------------------ every function honours every field
#: one changed value per Workload field (the base below is a MoE model at batch 4, so
#: routing matters, on a card with FP8 math, so math matters)
_BASE = dict(model="Mixtral-8x7B", hw="H100 SXM", bytes_per_param=2, kv_bytes_per_element=2,
             batch=4, context=128, cards=1, workspace=2 * GiB, routing="floor", math="bf16")
_CHANGED = dict(model="Llama-3.1-8B", hw="H200", bytes_per_param=1, kv_bytes_per_element=1,
                batch=16, context=256, cards=2, workspace=4 * GiB, routing="uniform",
                math="fp8")
_CH3 = {
    "model_decode_step": lambda w: ic.model_decode_step(w),
    "prefill_step": lambda w: ic.prefill_step(w, prompt_tokens=1024),
    "generation_time": lambda w: ic.generation_time(w, prompt_tokens=1024, output_tokens=8),
    "speculative_step": lambda w: ic.speculative_step(w, draft_tokens=2),
    "speculative_critical_context": lambda w: ic.speculative_critical_context(w, draft_tokens=2),
    "speculative_turning_batch": lambda w: ic.speculative_turning_batch(w, draft_tokens=2),
    "shared_prefix_step": lambda w: ic.shared_prefix_step(w, prefix_tokens=64),
    "cached_prefill_step": lambda w: ic.cached_prefill_step(w, prompt_tokens=1024, cached_tokens=512),
    "precision_point": lambda w: ic.precision_point(w),
    "critical_context": lambda w: ic.critical_context(w),
    "turning_batch": lambda w: ic.turning_batch(w),
    "kv_weight_batch": lambda w: ic.kv_weight_batch(w),
    "decode_region": lambda w: ic.decode_region(     # one label a point: a plane of them
        w.with_(batch=w.batch * 2 ** np.arange(10)[:, None], context=w.context * np.arange(1, 33))),
    "estimate": lambda w: ic.estimate(w),
}
_OUTPUT = "solved for (the result is the value of this size at which it holds)"
_NO_MEMORY = "a turning point of time alone: no capacity in it"
#: (function, field): why the result does not depend on it
_IGNORES = {
    **{(f, "workspace"): _NO_MEMORY for f in (
        "speculative_critical_context", "speculative_turning_batch", "critical_context",
        "turning_batch", "kv_weight_batch", "decode_region")},
    **{(f, "batch"): _OUTPUT for f in ("speculative_turning_batch", "turning_batch",
                                       "kv_weight_batch")},
    **{(f, "context"): _OUTPUT for f in ("speculative_critical_context", "critical_context")},
    ("speculative_critical_context", "batch"): "S_max holds at every batch",
    ("critical_context", "batch"): "S_max holds at every batch",
    **{("kv_weight_batch", f): "a balance of bytes (KV read = weight read): no bandwidth "
                               "or peak in it" for f in ("hw", "math")},
    ("speculative_turning_batch", "routing"): "documented to read the floor's k experts "
                                              "whatever the routing (not refused: a gap)",
    ("prefill_step", "context"): "the prompt sets the prefill's tokens",
    ("cached_prefill_step", "context"): "the prompt sets the prefill's tokens",
    ("generation_time", "context"): "the request sets each step's context",
    **{(f, "cards"): "per-request terms split evenly over the cards (8 KV heads on 2): "
                     "their ratio S_max stays" for f in ("speculative_critical_context",
                                                        "critical_context")},
    **{(f, "routing"): "the routing changes what a batch reads, not the per-request terms "
                       "S_max weighs" for f in ("speculative_critical_context",
                                                "critical_context")},
}


def _numbers(x, seen=()):
    """Every number a result holds (its computed figures), the inputs it echoes left out."""
    if isinstance(x, (ic.ModelSpec, ic.Accelerator, type(None))):
        return []
    if dataclasses.is_dataclass(x):
        return [v for f in dataclasses.fields(x) if f.name not in _BASE
                for v in _numbers(getattr(x, f.name))]
    if isinstance(x, dict):
        return [v for k in sorted(x) if k not in _BASE for v in _numbers(x[k])]
    a = np.asarray(x)
    if a.dtype.kind in "biuf":
        return [v for v in np.ravel(a).astype(float)]
    return [float(zlib.crc32(a.tobytes()))] if a.dtype.kind in "US" else []   # a verdict


@pytest.mark.parametrize("field", list(_BASE))
@pytest.mark.parametrize("name", list(_CH3))
def test_every_chapter3_function_honours_every_workload_field(name, field):
    """Change one field of the workload and the function's result changes, unless
    :data:`_IGNORES` says why it cannot."""
    base = Workload(**_BASE)
    changed = base.with_(**{field: _CHANGED[field]})
    a = _numbers(_CH3[name](base))
    try:
        b = _numbers(_CH3[name](changed))
    except ValueError as e:                  # refused, naming the field: honoured too
        assert field in str(e) and (name, field) not in _IGNORES, e
        return
    same = len(a) == len(b) and np.allclose(a, b, rtol=1e-12, atol=0, equal_nan=True)
    if (name, field) in _IGNORES:
        assert same, f"{name} now depends on {field}: drop it from _IGNORES"
    else:
        assert not same, f"{name} ignores the workload's {field}"


def test_the_field_table_covers_every_workload_field():
    assert set(_BASE) == set(_CHANGED) == {f.name for f in dataclasses.fields(Workload)} - {"_"}


def test_the_function_table_covers_every_chapter3_function_that_takes_a_workload():
    import inspect

    ch3 = {"decode", "prefill", "generation", "levers", "prefix", "precision", "kv",
           "estimate"}
    takes = {n for n in ic.__all__ if callable(f := getattr(ic, n)) and inspect.isfunction(f)
             and f.__module__.rsplit(".", 1)[-1] in ch3
             and list(inspect.signature(f).parameters)[:2] == ["model", "hw"]}
    assert takes == set(_CH3)


def test_the_card_share_is_computed_once_per_workload(monkeypatch):
    import infra_calc.workload as wl

    calls = []
    real = wl.card_share

    def counted(*args, **kwargs):
        calls.append(kwargs.get("cards"))
        return real(*args, **kwargs)

    monkeypatch.setattr(wl, "card_share", counted)
    w = wl.Workload("llama-2-70b", "H100 SXM", cards=2)
    assert w.share.cards == w.cards == 2 and w.kv_bytes_per_token_per_card > 0
    w.resident_weight_bytes(), w.memory
    assert calls == [2]


def _restated_defaults():
    """How a docstring would restate a Workload default: "default 2", "(default 2 GiB)",
    ``"bf16"`` (default), "Default 2 each" ...; the values read from the Workload."""
    out = {"2 GiB"} if Workload.default("workspace") == 2 * GiB else set()
    for f in dataclasses.fields(Workload):
        v = Workload.default(f.name)
        if isinstance(v, str):
            out.add(f'``"{v}"``')
        elif isinstance(v, (int, float)) and f.name != "workspace":
            out.add(f"{v:g}")
    alts = "|".join(re.escape(v) for v in sorted(out, key=len, reverse=True))
    return re.compile(rf"[Dd]efault:? (?:{alts})(?![\w.])|(?:{alts}) \(default\)")


@pytest.mark.parametrize("name", list(_CH3))
def test_no_docstring_restates_a_workload_default(name):
    """The defaults live on :class:`Workload` alone; a chapter-3 docstring refers to them
    instead of restating a number that could drift."""
    found = _restated_defaults().findall(getattr(ic, name).__doc__)
    assert not found, f"{name} restates a Workload default: {found}"
