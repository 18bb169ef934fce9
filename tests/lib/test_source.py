"""infra_calc.source: the source chapters' inputs, each named once, and their cards read the
way the chapters read them."""
from types import MappingProxyType

import pytest

import infra_calc as ic
from infra_calc import source as S
from infra_calc.units import GB, GiB


@pytest.mark.parametrize("card, name, label", [(S.j07_h100, "H100 SXM", 80),
                                               (S.j07_a100, "A100 80GB", 80),
                                               (S.j13_rtx4090, "RTX 4090", 24)])
def test_a_source_card_reads_its_label_in_decimal_gigabytes(card, name, label):
    acc, physical = card(), ic.accelerator(name)
    assert acc.mem_capacity == label * GB < physical.mem_capacity == label * GiB
    assert (acc.peak_flops, acc.mem_bandwidth) == (physical.peak_flops, physical.mem_bandwidth)


def test_j13_reads_the_h100_as_the_catalog_does():
    assert S.j13_h100() == ic.accelerator("H100 SXM")


def test_every_input_is_named_and_cannot_be_changed_in_place():
    for name in S.__all__:
        value = getattr(S, name)
        assert not isinstance(value, (list, dict, set)), name     # tuples and read-only maps
    for table in (S.TPU_V1_AREA_SOURCE, S.TPU_V1_AREA_PAPER):
        assert isinstance(table, MappingProxyType)
        assert all(0 < share < 1 for share in table.values()) and sum(table.values()) <= 1
    with pytest.raises(TypeError):
        S.TPU_V1_AREA_SOURCE["Control"] = 0.5


def test_the_inputs_describe_the_models_they_name():
    j07, j13 = ic.model(S.J07_MODEL), ic.model(S.J13_MODEL)
    # J07 rounds N to 70e9; the resident 8-bit weights carry group scales on top of N bytes
    assert abs(j07.params - S.J07_PARAMS) < 0.01 * S.J07_PARAMS
    assert S.J07_PARAMS * S.J07_BYTES_PER_PARAM < S.J07_WEIGHTS_8BIT < 1.1 * j07.params
    assert (S.J13_K, S.J13_N) == (j13.hidden, j13.heads * j13.head_dim)   # W_Q of Qwen3-8B
    assert list(S.J07_BATCHES) == sorted(S.J07_BATCHES) and S.J07_CONTEXT > 0
    assert 0 < S.MOE_TOP_K < S.MOE_EXPERTS and 0 < S.AMDAHL_F < 1
