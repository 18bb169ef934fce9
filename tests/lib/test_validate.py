"""infra_calc._validate: input checks and scalar-or-array results."""
from types import SimpleNamespace

import numpy as np
import pytest

from infra_calc._validate import check_int, check_number, check_one_card, unwrap


def test_unwrap_gives_plain_scalars_and_leaves_arrays():
    assert type(unwrap(np.float64(2.5))) is float
    assert unwrap(np.array("memory"), str) == "memory" and type(unwrap(np.bool_(True), bool)) is bool
    assert type(unwrap(np.int64(3), int)) is int
    arr = np.array([1.0, 2.0])
    assert unwrap(arr) is arr


def test_check_number_and_int_name_parameter_and_unit():
    assert check_number(3, "x", "bytes") == 3.0
    with pytest.raises(ValueError, match=r"x \(bytes\) must be > 0"):
        check_number(0, "x", "bytes")
    with pytest.raises(TypeError, match=r"x \(bytes\) must be a number, got a bool"):
        check_number(True, "x", "bytes")
    with pytest.raises(ValueError, match=r"n \(rows\) must be a whole number"):
        check_int(2.5, "n", "rows")


def test_check_one_card_names_the_function_and_the_alternative():
    check_one_card(SimpleNamespace(cards=1), "f")                          # one card passes
    check_one_card(SimpleNamespace(cards=np.array([1, 1])), "f")
    with pytest.raises(ValueError, match=r"^cards must be 1 for f, got 2$"):
        check_one_card(SimpleNamespace(cards=2), "f")
    with pytest.raises(ValueError, match=r"cards must be 1 for f, got \[1 4\]; use g"):
        check_one_card(SimpleNamespace(cards=np.array([1, 4])), "f", "use g")
