"""bookkit.exercises.ch3: chapter 3's exercises, each answer against what it claims to be.

Each answer is checked by the property its question names (a balance, a crossing, a sum),
on the library's step functions or on the tensor listing, not by repeating its formula.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from model_reference import MIXTRAL_8X7B, reference_count

import infra_calc as ic
from bookkit import exercises
from bookkit.exercises import ch3


def test_n1_s_max_is_where_no_batch_turns_compute_bound():
    s = ch3.n1()
    big = 1 << 20
    below = ic.model_decode_step(ch3.N1_MODEL, ch3.CARD, batch=big, context=int(s * 0.9))
    above = ic.model_decode_step(ch3.N1_MODEL, ch3.CARD, batch=big, context=int(s * 1.1))
    assert below.bound == "compute" and above.bound == "memory"


def test_n2_is_where_the_cache_read_equals_the_weight_read():
    b = ch3.n2()
    step = ic.model_decode_step(ch3.N2_MODEL, ch3.CARD, batch=np.array([math.floor(b),
                                                                        math.ceil(b)]),
                                context=ch3.N2_CONTEXT)
    assert step.kv_bytes[0] <= step.weight_bytes[0] and step.kv_bytes[1] >= step.weight_bytes[1]


def test_n3_adds_up_each_cards_memory_and_fits_says_so():
    m = ch3.n3()
    assert m.total == pytest.approx(m.weights + m.kv + m.workspace, rel=1e-12)
    assert m.fits == (m.total <= ic.accelerator(ch3.CARD).mem_capacity)
    one = ic.Workload(ch3.N3_MODEL, ch3.CARD, cards=1, batch=ch3.N3_BATCH,
                      context=ch3.N3_CONTEXT).memory
    assert m.weights < one.weights and m.kv < one.kv               # each card holds a share


def test_n4_prefill_is_compute_bound_and_not_faster_than_its_math():
    pre = ch3.n4()
    assert pre.bound == "compute" and exercises.get("ch3-n4").parts[0].answer() == "compute-bound"
    assert pre.t_step >= pre.flops / ic.accelerator(ch3.CARD).peak_flops * (1 - 1e-12)


def test_n5_speed_up_is_below_the_card_count():
    assert 1.0 < ch3.n5() < ch3.N5_CARDS


def test_n6_uniform_read_counts_the_expected_experts_from_the_tensor_listing():
    m = ic.model(ch3.N6_MODEL)
    e, k, b = m.num_experts, m.experts_per_token, ch3.N6_BATCH
    hit = e * (1 - (1 - k / e) ** b)                     # experts a batch of b hits, on average
    per_expert = (reference_count(MIXTRAL_8X7B, experts_used=1)
                  - reference_count(MIXTRAL_8X7B, experts_used=0))
    others = reference_count(MIXTRAL_8X7B, experts_used=0) - (m.vocab - b) * m.hidden
    assert ch3.n6() == pytest.approx(ch3.N6_BYTES * (others + hit * per_expert), rel=1e-12)


def test_n7_total_is_the_prefill_plus_every_decode_step():
    g = ch3.n7()
    assert g.total == pytest.approx(g.ttft + np.sum(g.step_times), rel=1e-12)
    assert np.size(g.step_times) == ch3.N7_OUTPUT - 1


def test_n8_at_most_k_plus_one_tokens_per_verify_pass():
    st = ch3.n8()
    assert st.t_per_token_floor * (ch3.N8_DRAFTS + 1) == pytest.approx(st.t_round_floor)


def test_n9_the_cached_prefix_saves_products_but_not_attention():
    cached = ch3.n9().t_step
    full = ic.prefill_step(ch3.N9_MODEL, ch3.CARD, prompt_tokens=ch3.N9_PROMPT).t_step
    fresh = ic.prefill_step(ch3.N9_MODEL, ch3.CARD,
                            prompt_tokens=ch3.N9_PROMPT - ch3.N9_CACHED).t_step
    assert fresh < cached < full


def test_selftest_values_show_every_answer():
    v = ch3.selftest_values()
    for i in range(1, 10):
        assert str(getattr(v, f"n{i}")), i
