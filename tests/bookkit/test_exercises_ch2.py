"""bookkit.exercises.ch2: chapter 2's exercises and their answers."""
from __future__ import annotations

import math

import pytest

import infra_calc as ic
from bookkit import exercises
from infra_calc.units import GiB

QWEN = ic.model("Qwen3-8B")
W_BF16 = 8190735360 * 2          # Qwen3-8B parameters x 2 bytes
M_KV = 2 * 36 * 8 * 128 * 2      # 2 (K, V) x layers x kv heads x head dim x 2 bytes = 144 KiB


# --------------------------------------------------------------------------- exercises
def test_source_exercises_keep_source_answers():
    assert round(exercises.expected("ch2-1"), 1) == exercises.get("ch2-1").source_answer == 62.1
    assert round(exercises.expected("ch2-2"), 1) == exercises.get("ch2-2").source_answer == 295.3
    assert exercises.expected("ch2-3") == exercises.get("ch2-3").source_answer == 4096
    assert exercises.expected("ch2-4") == exercises.get("ch2-4").source_answer == 4


def _m_star(pi, beta, k=4096, n=4096):
    ridge = pi / beta
    return ridge * k * n / (k * n - ridge * (k + n))


def _padding_cost(rows, tile_rows, k=4096, n=4096, pi=989.4e12, beta=3.35e12):
    padded = -(-rows // tile_rows) * tile_rows
    t_read = 2 * (rows * k + k * n + rows * n) / beta
    return (max(2 * padded * k * n / pi, t_read) / max(2 * rows * k * n / pi, t_read) - 1) * 100


VOCAB_ROWS = 151936 * 4096 * 2 - 4096 * 2        # the untied embedding table, less the row gathered


@pytest.mark.parametrize("ex_id, value", [
    ("ch2-n1", _m_star(1307.4e12, 5.3e12)),
    ("ch2-n2", 2 * 989.4e12 / 3.35e12),
    ("ch2-n3", (24 * GiB - W_BF16 - 2 * GiB) // (4 * M_KV)),
    ("ch2-n4", _padding_cost(300, 128)),
    ("ch2-n5", (1 - 1 / 2) / (1 - 1 / 4) * 100),
    ("ch2-n6", (W_BF16 - VOCAB_ROWS + 4096 * M_KV) / 3.35e12 / 8e-3 * 100),
])
def test_new_exercises_answers(ex_id, value):
    assert math.isclose(exercises.expected(ex_id), value, rel_tol=1e-9)
    assert exercises.check(ex_id, value).correct
    assert not exercises.check(ex_id, value * 1.2 + 1).correct


def test_new_exercise_values_and_count():
    new = [i for i in exercises.exercise_ids("ch2") if i.startswith("ch2-n")]
    assert new == [f"ch2-n{k}" for k in range(1, 7)]
    assert round(exercises.expected("ch2-n1")) == 280
    assert exercises.expected("ch2-n3") == 12276
    # the boundary is exact: 4 requests fit at S_max tokens, not at S_max + 1
    cap, w, ws = 24 * GiB, QWEN.weight_bytes(2), 2 * GiB
    s_max = exercises.expected("ch2-n3")
    kw = dict(weights=w, kv_bytes_per_token=M_KV, workspace=ws)
    assert ic.max_batch(cap, context=s_max, **kw) == 4 and ic.max_batch(cap, context=s_max + 1, **kw) == 3
    # Amdahl turned around: the f found gives the target back
    assert math.isclose(ic.amdahl_speedup(exercises.expected("ch2-n5") / 100, s=4), 2.0)
    # padding in time costs less than the padded FLOPs suggest (compute-bound once padded)
    assert 0 < exercises.expected("ch2-n4") < (384 / 300 - 1) * 100




def test_choice_parts_take_their_label_from_bounds():
    """2.1's and 2.8's labels are the bound.bounds label of the GEMM (a tie is compute)."""
    from infra_calc import gemm_roofline
    from infra_calc import source as S

    pt = gemm_roofline(64, S.J13_K, S.J13_N, S.j13_h100(), bytes_per_element=S.J13_BYTES_PER_ELEMENT)
    assert pt.bound == "memory" and pt.intensity < S.j13_h100().ridge_point
    assert exercises.get("ch2-1").parts[0].answer() == "bandwidth-bound"
    assert exercises.get("ch2-n4").parts[0].answer() == "compute"
