"""infra_calc.bound: the one two-bound calculation and its tie rule (a tie is compute)."""
import numpy as np
import pytest

import infra_calc as ic
from infra_calc.bound import bound_label, bound_with_comm, floor_time, two_bounds


def test_tie_is_compute_and_labels_broadcast():
    assert bound_label(1.0, 1.0) == "compute"
    assert bound_label(1.0, 0.999) == "memory"
    assert list(bound_label([1.0, 2.0, 3.0], 2.0)) == ["compute", "compute", "memory"]
    assert floor_time([1.0, 3.0], 2.0).tolist() == [2.0, 3.0]


def test_communication_only_when_it_is_the_largest_part():
    assert bound_with_comm(1.0, 2.0, 2.0) == "compute"        # equal to the floor: not larger
    assert bound_with_comm(1.0, 2.0, 2.5) == "communication"
    assert bound_with_comm(3.0, 2.0, 0.0) == "memory"


def test_two_bounds_divides_by_the_card():
    acc = ic.Accelerator("t", 4e12, 2e12, 1e11)
    tr, tc, t, label = two_bounds(4e9, 8e12, acc)
    assert (tr, tc, t, label) == (2e-3, 2.0, 2.0, "compute")


def test_every_caller_uses_the_same_tie_rule():
    """A decode step exactly at the ridge and a GEMM exactly at the ridge are both compute."""
    acc = ic.Accelerator("tie", 2e12, 1e12, 1e12)           # ridge 2 FLOP/byte
    st = ic.decode_step(1e9, 1, acc, batch=1)               # 2e9 FLOPs / 2e12 = 1e9 B / 1e12
    assert st.t_read == st.t_compute and st.bound == "compute"
    # [1, 2] @ [2, 1] in 1-byte elements: F = 4, V = 2 + 2 + 1 = 5 -> not a tie; scale b
    pt = ic.gemm_roofline(1, 2, 1, acc, bytes_per_element=0.4)   # V = 2, I = 2 = ridge
    assert pt.intensity == pytest.approx(acc.ridge_point) and pt.bound == "compute"


def test_only_bound_py_computes_the_label():
    """The two-bound label is written once: no other module compares read and compute times."""
    import pathlib
    import re

    root = pathlib.Path(ic.__file__).parent
    pattern = re.compile(r"np\.where\([^)]*(>=|<=|<|>)[^)]*\"(memory|compute)\"")
    offenders = [p.name for p in root.rglob("*.py")
                 if p.name != "bound.py" and pattern.search(p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_arrays_keep_their_shape():
    lab = bound_label(np.ones((2, 3)), np.zeros((2, 3)))
    assert lab.shape == (2, 3) and (lab == "memory").all()
