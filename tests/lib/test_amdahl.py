"""infra_calc.amdahl: Amdahl's law."""
import math

import numpy as np
import pytest

import infra_calc as ic


def test_amdahl():
    assert round(ic.amdahl_speedup(0.6, s=2), 2) == 1.43
    assert ic.amdahl_limit(0.6) == pytest.approx(2.5)
    assert ic.amdahl_speedup(0.6, s=np.inf) == pytest.approx(2.5)
    assert ic.amdahl_time(100e-6, f=0.6, s=2) == pytest.approx(70e-6)
    assert ic.amdahl_time(100e-6, f=0.6, s=4) == pytest.approx(55e-6)
    assert ic.amdahl_limit(1.0) == math.inf
    with pytest.raises(ValueError, match=r"f \(fraction"):
        ic.amdahl_speedup(1.2, s=2)
    with pytest.raises(ValueError, match=r"s \(speed-up"):
        ic.amdahl_speedup(0.5, s=0)
