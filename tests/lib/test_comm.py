"""infra_calc.comm: the all-reduce models (a ring, an in-switch reduction), never a floor."""
import numpy as np
import pytest

import infra_calc as ic
from infra_calc.comm import in_switch_allreduce_time, link_bandwidth_for, ring_allreduce_time


def test_ring_inside_one_nvlink_domain():
    h = ic.accelerator("H100 SXM")
    msg = 2 * 8 * 8192
    assert ring_allreduce_time(msg, h, cards=4) == pytest.approx(
        2 * 3 / 4 * msg / h.link_bandwidth + 2 * 3 * h.link_latency)
    assert ring_allreduce_time(msg, h, cards=1) == 0.0


def test_past_the_domain_the_ring_runs_at_the_network():
    h = ic.accelerator("H100 SXM")
    assert h.link_domain == 8 and h.internode_bandwidth == 400e9 / 8      # 400 Gb/s per GPU
    assert link_bandwidth_for(h, cards=8) == h.link_bandwidth
    assert link_bandwidth_for(h, cards=16) == h.internode_bandwidth
    msg = 1e8
    t16 = ring_allreduce_time(msg, h, cards=16)
    assert t16 == pytest.approx(2 * 15 / 16 * msg / 50e9 + 2 * 15 * h.link_latency)
    assert t16 > 5 * ring_allreduce_time(msg, h, cards=8)


def test_unknown_network_is_refused_naming_it():
    with pytest.raises(ValueError, match="internode_bandwidth"):
        ring_allreduce_time(1e6, "RTX 4090", cards=16)
    with pytest.raises(ValueError, match="link_bandwidth"):
        ring_allreduce_time(1e6, "Ascend 910B", cards=2)
    fixed = ic.accelerator("RTX 4090").with_(internode_bandwidth=12.5e9)
    assert ring_allreduce_time(1e6, fixed, cards=16) > 0


def test_in_switch_reduction_sends_once():
    h = ic.accelerator("H100 SXM")
    msg = 1e8
    assert in_switch_allreduce_time(msg, h, cards=8) == pytest.approx(msg / h.link_bandwidth
                                                                + 2 * h.link_latency)
    assert in_switch_allreduce_time(msg, h, cards=8) < ring_allreduce_time(msg, h, cards=8)
    with pytest.raises(ValueError, match="in_switch_reduction"):
        in_switch_allreduce_time(msg, "A100 80GB", cards=8)
    with pytest.raises(ValueError, match="link domain"):
        in_switch_allreduce_time(msg, h, cards=16)


def test_latency_is_an_assumption_in_the_catalog():
    for acc in ic.CATALOG.values():
        if acc.link_bandwidth:
            assert acc.link_latency == 1e-6 and "assumption" in acc.link_source
            assert acc.link_domain > 0 and acc.domain_source


def test_vectorised_over_cards():
    t = ring_allreduce_time(1e6, "H100 SXM", cards=np.array([1, 2, 8, 16]))
    assert t[0] == 0 and np.all(np.diff(t) > 0)
