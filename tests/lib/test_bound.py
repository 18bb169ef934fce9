"""infra_calc.bound: the one two-bound calculation and its tie rule (a tie is compute).

The behavioural check: every result type of the library, put exactly on the ridge of a
card made for it (bandwidth = its bytes, peak = its FLOPs, so both floors are 1 s),
is labelled "compute"; a card with a hair more peak makes it "memory".  A result
builder with its own division or its own tie rule fails here.
"""
import dataclasses

import numpy as np
import pytest

import infra_calc as ic
from infra_calc.bound import Bounds, bounds

CARD = ic.Accelerator("probe", 1e15, 1e12, 1e12)


def _results(acc):
    """One result of each type on ``acc``: (name, bytes read, FLOPs, label, time)."""
    st = ic.decode_step(1e9, acc, bytes_per_param=1, batch=4)
    md = ic.model_decode_step("llama-3.1-8b", acc, batch=4, context=256)
    pf = ic.prefill_step("llama-3.1-8b", acc, prompt_tokens=64)
    rp = ic.gemm_roofline(16, 64, 32, acc)
    pg = ic.padded_gemm([3, 5], 64, 32, acc)
    return [("DecodeStep", st.bytes_read, st.flops, st.bound, st.t_step),
            ("ModelDecodeStep", md.bytes_read, md.flops, md.bound, md.t_step),
            ("PrefillStep", pf.bytes_read, pf.flops, pf.bound, pf.t_step),
            ("RooflinePoint", rp.bytes_read, rp.flops, rp.bound, rp.t_floor),
            ("PaddedGemm", pg.bytes_read, pg.executed_flops, pg.bound, pg.t_floor)]


@pytest.mark.parametrize("i", range(len(_results(CARD))))
def test_every_result_on_its_ridge_is_compute_and_just_below_is_memory(i):
    name, r, f, _, _ = _results(CARD)[i]
    on_ridge = CARD.with_(mem_bandwidth=r, peak_flops=f)     # R/β = F/Π = 1 s
    _, _, _, label, t = _results(on_ridge)[i]
    assert (label, t) == ("compute", 1.0), name
    below = CARD.with_(mem_bandwidth=r, peak_flops=f * (1 + 1e-9))
    assert _results(below)[i][3] == "memory", name


def test_the_floor_is_the_max_or_the_serial_sum():
    b = bounds(1e12, 2e9, CARD)                  # 1 ms math, 2 ms read
    assert (b.t_floor, b.floor_bound) == (b.t_read, "memory")
    s = bounds(1e12, 2e9, CARD, overlap=False)
    assert s.t_floor == pytest.approx(3e-3)
    assert ic.step_time(1e12, 2e9, CARD, overlap=False) == s.t_floor
    assert ic.decode_step(1e9, CARD, bytes_per_param=2, overlap=False).t_step == pytest.approx(
        bounds(2e9, 2e9, CARD, overlap=False).t_floor)


def test_communication_labels_only_when_it_is_the_largest_part():
    base = dict(nbytes=1e9, flops=2e12, hw=CARD)          # floor 2 ms, compute
    assert bounds(**base, t_comm=2e-3).bound == "compute"             # equal: not larger
    assert bounds(**base, t_comm=2.5e-3).bound == "communication"
    assert bounds(**base, t_comm=2.5e-3).floor_bound == "compute"
    assert bounds(**base, t_comm=1e-3).t_step == pytest.approx(3e-3)
    assert bounds(**base, t_comm=1e-3, overlap_comm=True).t_step == pytest.approx(2e-3)


def test_flags_must_be_booleans():
    with pytest.raises(TypeError, match="overlap must be True or False"):
        bounds(1.0, 1.0, CARD, overlap="yes")


def test_arrays_keep_their_shape():
    b = bounds(np.zeros((2, 3)), np.ones((2, 3)) * 1e12, CARD)
    assert b.bound.shape == (2, 3) and (b.bound == "memory").all()


def test_one_argument_order_for_the_two_bounds():
    """``step_time`` and ``bounds`` take the work in the same order, FLOPs then bytes: a
    caller swapping them would get the other floor without an error."""
    import inspect

    for f in (ic.step_time, bounds):
        assert list(inspect.signature(f).parameters)[:2] == ["flops", "nbytes"], f.__name__
    assert bounds(1e12, 0.0, CARD).bound == "compute" and bounds(0.0, 1e12, CARD).bound == "memory"



def test_crossover_is_where_the_label_of_bounds_flips():
    """x* of F0 + x F1 FLOPs against R0 + x R1 bytes; inf where the math never catches up."""
    from infra_calc.bound import crossover

    f, r = np.array([3e11, 2e12]), np.array([4e9, 5e8])      # (F0, F1), (R0, R1)
    x = crossover(f[0], r[0], CARD, flops_slope=f[1], bytes_slope=r[1])
    labels = [bounds(f @ [1, x * a], r @ [1, x * a], CARD).bound for a in (0.999, 1.001)]
    assert labels == ["memory", "compute"] and np.isinf(crossover(0.0, 1.0, CARD, flops_slope=1e9,
                                                                  bytes_slope=1e7))


def _step_records():
    """Every step result type, on one card and on several, with and without overlap."""
    w = ic.Workload("llama-3.1-8b", "H100 SXM", batch=np.array([1, 64]), context=512)
    return [
        (ic.decode_step(1e9, "H100 SXM", bytes_per_param=1, batch=[1, 512]), False),
        (ic.model_decode_step(w), False),
        (ic.model_decode_step(w, cards=4), False),
        (ic.model_decode_step(w, cards=4, overlap_comm=True), True),
        (ic.model_decode_step("Llama-3.1-8B", "RTX 4090", cards=8, batch=64), False),
        (ic.prefill_step("llama-3.1-8b", "H100 SXM", prompt_tokens=[16, 4096]), False),
        (ic.prefill_step("llama-3.1-8b", "H100 SXM", prompt_tokens=[16, 4096], cards=4), False),
    ]


@pytest.mark.parametrize("i", range(len(_step_records())))
def test_every_step_record_is_its_bounds_with_one_meaning_of_t_step(i):
    """Each step result is a Bounds whose seven fields are bounds() of its own FLOPs, bytes
    and communication: t_step = t_floor + t_comm (the larger with overlap_comm), the
    labels those of bounds.  A record that copies the floor into t_step, or its own label,
    fails here (the tensor-parallel and PCIe rows have t_comm > 0)."""
    r, overlap_comm = _step_records()[i]
    assert isinstance(r, Bounds)
    want = bounds(r.flops, r.bytes_read, r.hw, t_comm=r.t_comm, overlap_comm=overlap_comm)
    for f in dataclasses.fields(Bounds):
        np.testing.assert_array_equal(getattr(r, f.name), getattr(want, f.name), err_msg=f.name)
    join = np.maximum if overlap_comm else np.add
    np.testing.assert_allclose(r.t_step, join(r.t_floor, r.t_comm), rtol=1e-15)
    assert np.all(np.asarray(r.t_comm) > 0) == (getattr(r, "cards", 1) > 1)


def test_every_step_result_takes_its_throughput_from_tokens_per_s():
    """B / T_step, written once: each decode result's tokens/s is its batch over its step
    time (the tensor-parallel step's time includes communication)."""
    from infra_calc.bound import tokens_per_s
    st = ic.decode_step(1e9, "H100 SXM", bytes_per_param=1, batch=[1, 4])
    md = ic.model_decode_step("llama-3.1-8b", "H100 SXM", batch=4, context=256)
    tp = ic.model_decode_step("llama-3.1-8b", "H100 SXM", cards=2, batch=4, context=256)
    assert tp.t_comm > 0
    for r in (st, md, tp):
        np.testing.assert_array_equal(r.tokens_per_s, tokens_per_s(r.batch, r.t_step))
        np.testing.assert_allclose(r.tokens_per_s, np.asarray(r.batch) / r.t_step, rtol=1e-15)
    assert tokens_per_s(8, 0.04) == pytest.approx(200.0)


def test_attainable_is_the_lower_roof_exactly():
    """``min(Π, Iβ)``: the slope below the ridge, the flat roof at and above it (and at I = ∞),
    with no rounding of a division on either side."""
    from infra_calc.bound import attainable

    card = ic.Accelerator("x", 300e12, 3e12, 1e12)               # I* = 100 FLOP/byte
    i = np.array([0.1, 0.7, 99.0, 100.0, 101.0, np.inf])             # Π/(Π/(0.7β)) ≠ 0.7β
    assert list(attainable(i, card)) == [0.1 * 3e12, 0.7 * 3e12, 99.0 * 3e12, 300e12, 300e12, 300e12]
    h100 = ic.accelerator("H100 SXM")
    assert attainable(1e6, h100, math="fp8") == h100.peak("fp8") > h100.peak("bf16")
    assert ic.attainable_flops(7.0, card) == attainable(7.0, card)
