"""infra_calc.capacity: the capacity inequality, max batch, planner state (readings: test_hardware)."""
import math

import pytest

import infra_calc as ic
from infra_calc import source as S
from infra_calc.capacity import planner_state
from infra_calc.units import GB, GiB, KiB


def test_j07_capacity():
    h = S.j07_h100()
    kv = ic.kv_cache_bytes(8192, ic.model(S.J07_MODEL).kv_bytes_per_token(2))
    chk = ic.capacity_check(h.mem_capacity, S.J07_WEIGHTS_8BIT, kv, workspace=S.J07_WORKSPACE)
    assert round(chk.total / GB, 2) == 78.56 and chk.fits
    assert round(kv / GB, 2) == 2.68 and round(S.J07_WORKSPACE / GB, 2) == 2.15
    m_kv = ic.model(S.J07_MODEL).kv_bytes_per_token(2)
    assert ic.max_batch(h.mem_capacity, S.J07_WEIGHTS_8BIT, 0, 8192, m_kv) == 2
    assert ic.max_batch(80 * GiB, S.J07_WEIGHTS_8BIT, 0, 8192, m_kv) == 4


def test_j13_capacity():
    q = ic.model("Qwen3-8B")
    assert q.kv_bytes_per_token(2) == 144 * KiB
    w = q.weight_bytes(2)
    assert round(w / GB, 2) == 16.38
    args = (w, 2 * GiB, 8192, q.kv_bytes_per_token(2))
    assert ic.max_batch(24e9, *args) == 4
    assert ic.max_batch(24 * GiB, *args) == 5
    assert ic.max_batch(24e9, w, 2 * GiB, 16384, q.kv_bytes_per_token(2)) == 2
    assert ic.max_batch(10e9, *args) == 0


def test_max_batch_exact_boundary():
    # capacity exactly equal to weights + 3 requests: 3 fit
    assert ic.max_batch(100 + 3 * 7, 100, 0, 7, 1) == 3
    assert ic.max_batch(100 + 3 * 7 - 1e-9, 100, 0, 7, 1) == 2


def test_capacity_errors():
    with pytest.raises(ValueError, match=r"capacity \(bytes\) must be > 0"):
        ic.capacity_check(0, 1, 1)
    with pytest.raises(ValueError, match=r"context \(tokens\)"):
        ic.max_batch(1e9, 1, 0, 0, 1)
    assert ic.kv_cache_bytes(context=10, kv_bytes_per_token=3, batch=2) == 60


W_BF16 = 8190735360 * 2          # Qwen3-8B parameters x 2 bytes
M_KV = 2 * 36 * 8 * 128 * 2      # 2 (K, V) x layers x kv heads x head dim x 2 bytes = 144 KiB


def test_planner_state_matches_library():
    st = planner_state("Qwen3-8B", "RTX 4090", context=8192, batch=5, workspace=2 * GiB,
                       bytes_per_param=2.0, reading="decimal GB")
    assert st.capacity == 24e9 and st.weights == W_BF16 and st.kv == 5 * 8192 * M_KV
    assert not st.fits and st.max_batch == 4
    assert math.isclose(st.headroom, 24e9 - st.total)
    st2 = planner_state("Qwen3-8B", "RTX 4090", context=8192, batch=5, workspace=2 * GiB,
                        bytes_per_param=2.0, reading="physical GiB")
    assert st2.capacity == 24 * GiB and st2.fits and st2.max_batch == 5


def test_planner_state_defaults_are_the_source_case():
    st = planner_state()
    assert (st.hw, st.model, st.context, st.workspace) == (
        ic.accelerator("RTX 4090"), ic.model(S.J13_MODEL), S.J13_CONTEXTS[0], S.J13_WORKSPACE)
    assert st.reading == S.J13_READING == "decimal GB"          # the source's, as the planner's


def test_one_mechanism_for_the_capacity_reading():
    """A card read the source's way keeps its label: its physical reading is still 24 GiB."""
    src = S.j13_rtx4090()
    assert src.capacity_reading == "decimal GB"
    assert ic.capacity_reading(src, reading="decimal GB") == 24e9
    assert ic.capacity_reading(src, reading="physical GiB") == 24 * GiB
    st = planner_state("Qwen3-8B", src, reading="physical GiB")
    assert st.capacity == 24 * GiB and st.reading == "physical GiB"
    assert st.hw is src                                    # the object, not its name
    with pytest.raises(ValueError, match="capacity_reading"):
        ic.accelerator("H100").with_(capacity_reading="decimal")
