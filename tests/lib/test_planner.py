"""infra_calc.planner: the capacity planner's state, a Workload's memory at a capacity reading."""
import math

import pytest

import infra_calc as ic
from infra_calc import source as S
from infra_calc.planner import planner_state
from infra_calc.units import GiB

W_BF16 = 8190735360 * 2          # Qwen3-8B parameters x 2 bytes
M_KV = 2 * 36 * 8 * 128 * 2      # 2 (K, V) x layers x kv heads x head dim x 2 bytes = 144 KiB


def test_planner_state_matches_library():
    st = planner_state("Qwen3-8B", "RTX 4090", context=8192, batch=5, workspace=2 * GiB,
                       bytes_per_param=2.0, reading="decimal GB")
    assert st.memory.capacity == 24e9 and st.memory.weights == W_BF16 and st.memory.kv == 5 * 8192 * M_KV
    assert not st.fits and st.max_batch == 4
    assert math.isclose(st.memory.headroom, 24e9 - st.memory.total)
    st2 = planner_state("Qwen3-8B", "RTX 4090", context=8192, batch=5, workspace=2 * GiB,
                        bytes_per_param=2.0, reading="physical GiB")
    assert st2.memory.capacity == 24 * GiB and st2.fits and st2.max_batch == 5
    assert ic.capacity_reading("H200 SXM", reading="decimal GB") == 141e9
    with pytest.raises(ValueError, match="reading"):
        ic.capacity_reading("RTX 4090", reading="kilobytes")


def test_planner_state_defaults_are_the_source_case():
    st = planner_state()
    assert (st.hw, st.model, st.context, st.memory.workspace) == (
        S.j13_rtx4090(), ic.model(S.J13_MODEL), S.J13_CONTEXTS[0], S.J13_WORKSPACE)
    assert st.reading == S.J13_READING == "decimal GB"          # the source's, as the planner's


def test_the_planner_default_is_the_scenario_case():
    """The planner's default setting and the source case of the printout and the exercises
    are one case: the same memory record and the same largest batch."""
    from infra_calc import scenarios as sc
    st = planner_state()
    assert st.memory == sc.j13_capacity(batch=S.J13_BATCH)
    assert st.max_batch == sc.j13_max_batch(S.J13_CONTEXTS[0])


def test_one_mechanism_for_the_capacity_reading():
    """A card read the source's way keeps its label: its physical reading is still 24 GiB."""
    src = S.j13_rtx4090()
    assert src.capacity_reading == "decimal GB"
    assert ic.capacity_reading(src, reading="decimal GB") == 24e9
    assert ic.capacity_reading(src, reading="physical GiB") == 24 * GiB
    st = planner_state("Qwen3-8B", src, reading="physical GiB")
    assert st.memory.capacity == 24 * GiB and st.reading == "physical GiB"
    assert st.hw is src                                    # the object, not its name
    with pytest.raises(ValueError, match="capacity_reading"):
        ic.accelerator("H100").with_(capacity_reading="decimal")


def test_a_changed_card_keeps_its_capacity_in_the_planner_and_the_workload():
    """A card changed to a capacity that is no whole number of GiB (or GB) keeps exactly
    that capacity: the Workload, the planner at the card's own reading, and the planner
    left to its default reading agree on the bytes and on what fits."""
    for cap in (20e9, 20.5 * GiB, 13_000_000_001.0):
        card = ic.accelerator("RTX 4090").with_(mem_capacity=cap)
        w = ic.Workload("Qwen3-8B", card, batch=5, workspace=2 * GiB)
        for st in (planner_state("Qwen3-8B", card, batch=5, workspace=2 * GiB, context=8192),
                   planner_state("Qwen3-8B", card, batch=5, workspace=2 * GiB, context=8192,
                                 reading="physical GiB")):
            assert st.hw is card and st.reading == "physical GiB"
            assert st.memory.capacity == cap == ic.capacity_reading(card) == w.memory.capacity
            assert st.memory == w.memory_at(8192)
            assert st.max_batch == w.max_batch(8192)
        src = S.j13_rtx4090().with_(mem_capacity=cap)       # a source-read card keeps its bytes too
        assert planner_state(hw=src).memory.capacity == cap == ic.capacity_reading(src, reading="decimal GB")
        # the other reading is the same label in the other unit, not rounded to a whole one
        assert math.isclose(ic.capacity_reading(card, reading="decimal GB"), cap / GiB * 1e9)


def test_planner_memory_is_the_workloads_record_at_the_reading():
    st = planner_state("Qwen3-8B", "RTX 4090", context=8192, batch=5, reading="decimal GB")
    w = ic.Workload("Qwen3-8B", "RTX 4090", batch=5)
    assert st.memory == w.memory_at(8192, capacity=24e9)
    assert planner_state(context=10**6).memory.kv == S.J13_BATCH * 10**6 * M_KV   # past the model's limit
    d = planner_state()
    assert (d.hw.name, d.batch, d.bytes_per_param) == (S.J13_HW, S.J13_BATCH, S.J13_BYTES_PER_PARAM)


def test_planner_state_is_model_then_hw_with_one_memory_record():
    from dataclasses import fields

    st = planner_state()
    assert [f.name for f in fields(st)][:2] == ["model", "hw"]           # (subject, hw)
    for name in ("capacity", "weights", "workspace", "kv", "total", "headroom"):
        assert not hasattr(st, name) and hasattr(st.memory, name)   # no aliases of the record
