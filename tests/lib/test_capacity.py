"""infra_calc.capacity: the inequality, max batch and max context (readings, planner: own files;
the source's cases: test_scenarios.py)."""

import numpy as np
import pytest

import infra_calc as ic
from infra_calc.units import GiB


def test_max_batch_takes_every_size_by_name():
    with pytest.raises(TypeError):                 # no byte count after the capacity by position
        ic.max_batch(24e9, 16e9, 2 * GiB, 8192, 147456)


def test_max_batch_exact_boundary():
    # capacity exactly equal to weights + 3 requests: 3 fit
    assert ic.max_batch(100 + 3 * 7, weights=100, context=7, kv_bytes_per_token=1, workspace=0) == 3
    assert ic.max_batch(100 + 3 * 7 - 1e-9, weights=100, context=7, kv_bytes_per_token=1,
                        workspace=0) == 2


def test_capacity_errors():
    with pytest.raises(ValueError, match=r"capacity \(bytes\) must be > 0"):
        ic.capacity_check(0, weights=1, kv=1, workspace=0)
    with pytest.raises(ValueError, match=r"context \(tokens\)"):
        ic.max_batch(1e9, weights=1, context=0, kv_bytes_per_token=1, workspace=0)
    assert ic.kv_cache_bytes(context=10, kv_bytes_per_token=3, batch=2) == 60


def test_workspace_is_never_left_out_unseen():
    """The workspace default lives on Workload alone: the raw inequality needs it said."""
    with pytest.raises(TypeError, match="workspace"):
        ic.capacity_check(1e9, weights=1, kv=1)
    with pytest.raises(TypeError, match="workspace"):
        ic.max_batch(1e9, weights=1, context=1, kv_bytes_per_token=1)




def test_max_context_exact_cases():
    # capacity = weights + workspace + 2 requests x 7 tokens x 3 bytes: 7 tokens each fit, 8 do not
    kw = dict(weights=100, batch=2, kv_bytes_per_token=3, workspace=10)
    assert ic.max_context(100 + 10 + 2 * 7 * 3, **kw) == 7
    assert ic.max_context(100 + 10 + 2 * 7 * 3 - 1e-9, **kw) == 6
    assert ic.max_context(100 + 10 + 2 * 8 * 3 - 1, **kw) == 7
    assert ic.max_context(105, **kw) == 0                      # weights and workspace alone overflow
    np.testing.assert_array_equal(ic.max_context(np.array([110, 152]), **kw), [0, 7])
    # J13: 4 Qwen3-8B requests in BF16 on a 24 GiB card with 2 GiB workspace
    q = ic.model("Qwen3-8B")
    assert ic.max_context(24 * GiB, weights=q.weight_bytes(2), batch=4,
                          kv_bytes_per_token=q.kv_bytes_per_token(2), workspace=2 * GiB) == 12276


def test_max_context_refuses_bad_input_by_name_and_unit():
    kw = dict(weights=1, batch=1, kv_bytes_per_token=1, workspace=0)
    for name, unit in (("batch", "requests"), ("kv_bytes_per_token", "bytes/token")):
        with pytest.raises(ValueError, match=rf"{name} \({unit}\)"):
            ic.max_context(1e9, **{**kw, name: 0})
    with pytest.raises(ValueError, match=r"weights \(bytes\)"):
        ic.max_context(1e9, **{**kw, "weights": -1})
    with pytest.raises(ValueError, match=r"capacity \(bytes\)"):
        ic.max_context(float("nan"), **kw)
    with pytest.raises(TypeError):
        ic.max_context(1e9, 1, 1, 1, 0)                         # every size by name


def test_kv_cache_bytes_checks_sizes_as_a_workload_does():
    """One check for a request's sizes: whole numbers, context 0 allowed (a fresh request)."""
    assert ic.kv_cache_bytes(0, 131072) == 0.0
    assert list(ic.kv_cache_bytes(np.array([0, 8, 16]), 2.0, batch=3)) == [0.0, 48.0, 96.0]
    for bad, name in (({"context": 10.5}, "context"), ({"context": -1}, "context"),
                      ({"batch": 1.5}, "batch"), ({"batch": -2}, "batch")):
        kwargs = {"context": 10, "kv_bytes_per_token": 3, **bad}
        with pytest.raises(ValueError, match=rf"{name} \(\w+\)"):
            ic.kv_cache_bytes(**kwargs)
        if bad.get("batch", 1) != -2 and bad.get("context", 0) != -1:   # a Workload says the same
            field = {"batch": bad.get("batch", 1), "context": bad.get("context", 10)}
            with pytest.raises(ValueError, match=rf"{name} \(\w+\) must be a whole number"):
                ic.Workload("qwen3-8b", "H100 SXM", **field)


def test_workload_kv_is_kv_cache_bytes_per_card():
    w = ic.Workload("llama-2-70b", "H100 SXM", batch=4, context=1024, cards=2)
    assert w.kv_bytes_per_card() == ic.kv_cache_bytes(1024, w.kv_bytes_per_token_per_card, batch=4)
    with pytest.raises(ValueError, match=r"context \(tokens\) must be a whole number"):
        w.kv_bytes_per_card(10.5)


def _lever_caches():
    """Every cache the chapter-3 levers and turning points hold or read, bytes, by name."""
    from infra_calc.kv import per_request_terms

    def w(**sizes):
        return ic.Workload("Llama-3.1-8B", "H100 SXM", **{"batch": 4, "context": 1024, **sizes})

    shared = ic.shared_prefix_step(w(), prefix_tokens=256)
    cached = ic.cached_prefill_step(w(cards=2), prompt_tokens=1024, cached_tokens=512)
    spec = ic.speculative_step(w(), draft_tokens=3, acceptance=0.7, draft="Qwen3-8B")
    return {"Workload.memory.kv": w().memory.kv,
            "SharedPrefixStep.kv_bytes": shared.kv_bytes,
            "SharedPrefixStep.kv_bytes_unshared": shared.kv_bytes_unshared,
            "SharedPrefixStep.memory.kv": shared.memory.kv,
            "CachedPrefill.prefix_kv_bytes": cached.prefix_kv_bytes,
            "CachedPrefill.memory.kv": cached.memory.kv,
            "SpeculativeStep.kv_bytes": spec.kv_bytes,
            "SpeculativeStep.rejected_kv_bytes": spec.rejected_kv_bytes,
            "SpeculativeStep.memory.kv": spec.memory.kv,       # the draft model's cache too
            "per_request_terms cache": (per_request_terms(w())[1]
                                        - per_request_terms(w(context=0))[1])}


def test_kv_cache_bytes_is_the_one_place_the_levers_take_their_cache_from(monkeypatch):
    """Triple kv_cache_bytes wherever the package bound it: every cache of the levers triples,
    so none of them computes B S m_KV by hand."""
    import sys

    before = _lever_caches()                       # imports every module that binds it
    real = ic.capacity.kv_cache_bytes
    for mod in [m for n, m in sys.modules.items() if n.startswith("infra_calc")]:
        if getattr(mod, "kv_cache_bytes", None) is real:
            monkeypatch.setattr(mod, "kv_cache_bytes", lambda *a, **k: 3 * real(*a, **k))
    after = _lever_caches()
    for name, value in before.items():
        assert value > 0 and after[name] == pytest.approx(3 * value, rel=1e-12), name
