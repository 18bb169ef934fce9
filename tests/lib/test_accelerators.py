"""infra_calc.accelerators: the catalog read from its data file, forgiving lookup, the capacity readings."""
import json

import pytest

import infra_calc as ic
from infra_calc import source as S
from infra_calc.accelerators import CATALOG, UnknownAcceleratorError
from infra_calc.catalog import DATA
from infra_calc.units import GB, GiB


def test_catalog_has_required_entries():
    for name in ["H100 SXM", "A100 80GB", "RTX 4090", "H200 SXM", "B200", "L40S", "MI300X",
                 "TPU v5e", "Ascend 910B"]:
        acc = ic.accelerator(name)
        assert acc.source and acc.note
        assert "dense" in (acc.note + acc.source).lower() or acc.vendor == "Google"


def test_catalog_values_are_physical():
    h = ic.accelerator("H100 SXM")
    assert (h.peak_flops, h.mem_bandwidth, h.mem_capacity) == (989.4e12, 3.35e12, 80 * GiB)
    a = ic.accelerator("A100 80GB")
    assert (a.peak_flops, a.mem_bandwidth, a.mem_capacity) == (312e12, 2.039e12, 80 * GiB)
    r = ic.accelerator("RTX 4090")
    assert (r.peak_flops, r.mem_bandwidth, r.mem_capacity) == (165.2e12, 1.008e12, 24 * GiB)
    assert round(r.mem_capacity / GB, 2) == 25.77


@pytest.mark.parametrize("name", ["h100", "H100-SXM", "h100 sxm", " H100_sxm ", "H100.SXM"])
def test_forgiving_lookup(name):
    assert ic.accelerator(name).name == "H100 SXM"


def test_unknown_accelerator_lists_names():
    with pytest.raises(UnknownAcceleratorError, match="unknown accelerator 'V100'; known names: "
                                                      "H100 SXM, A100 80GB") as info:
        ic.accelerator("V100")
    assert isinstance(info.value, ValueError) and isinstance(info.value, KeyError)
    assert ic.CATALOG.get("V100") is None and "V100" not in ic.CATALOG and "h100" in ic.CATALOG
    with pytest.raises(TypeError, match="hw"):
        ic.accelerator(3)


# --------------------------------------------------------------------- capacity readings
def test_capacity_reading_physical_or_the_decimal_label():
    assert ic.capacity_reading("H200 SXM", reading="decimal GB") == 141e9
    assert ic.capacity_reading("RTX 4090", reading="physical GiB") == 24 * GiB
    with pytest.raises(ValueError, match="reading"):
        ic.capacity_reading("RTX 4090", reading="kilobytes")
    src = S.j13_rtx4090()                       # a card read the source's way keeps its label
    assert src.capacity_reading == "decimal GB"
    assert ic.capacity_reading(src, reading="physical GiB") == 24 * GiB
    odd = ic.accelerator("RTX 4090").with_(mem_capacity=20e9)   # no whole GiB: kept, not rounded
    assert ic.capacity_reading(odd) == 20e9 and ic.capacity_reading(odd, reading="physical GiB") == 20e9
    assert ic.decimal_reading(odd).mem_capacity == ic.capacity_reading(odd, reading="decimal GB")
    assert ic.capacity_reading(ic.decimal_reading(odd), reading="physical GiB") == 20e9


def test_decimal_reading_is_the_label_in_1e9_bytes():
    for name, label in (("H100 SXM", 80), ("A100 80GB", 80), ("RTX 4090", 24), ("MI300X", 192)):
        acc = ic.decimal_reading(name)
        assert acc.mem_capacity == label * 1e9 == ic.capacity_reading(name, reading="decimal GB")
        assert acc.peak_flops == ic.accelerator(name).peak_flops and "10^9" in acc.note
    assert S.j07_h100() == ic.decimal_reading("H100 SXM")
    assert S.j13_rtx4090().mem_capacity == 24e9


def test_every_figure_of_the_file_has_its_source_beside_it():
    """A link figure comes with ``link_source``, a domain figure with ``domain_source``,
    each lower-precision peak with its own source, and no card repeats another's name."""
    entries = json.loads(DATA.joinpath("accelerators.json").read_text(encoding="utf-8"))["entries"]
    assert [e["name"] for e in entries] == list(CATALOG)
    for e in entries:
        assert e["source"] and e["note"], e["name"]
        if "link_bandwidth" in e or "link_latency" in e:
            assert e["link_source"], e["name"]
        if {"link_domain", "internode_bandwidth", "in_switch_reduction"} & set(e):
            assert e["domain_source"], e["name"]
        assert all(p["source"] for p in e.get("peaks", ())), e["name"]
    acc = CATALOG["H100 SXM"]
    assert acc.link_latency == 1e-6 and "assumption" in acc.link_source
    assert acc.peaks[0][0] == "fp8" and "3,958" in acc.peak_source("fp8")


def _catalog_of(tmp_path, entry):
    from infra_calc.accelerators import _card
    from infra_calc.catalog import Catalog
    path = tmp_path / "accelerators.json"
    path.write_text(json.dumps({"entries": [entry]}))
    return Catalog("accelerator", path, _card, fields=CATALOG._fields,
                   required=CATALOG._required[1:])


GOOD = {"name": "X1", "peak_flops": 1e15, "mem_bandwidth": 2e12, "mem_capacity_gib": 96,
        "source": "a datasheet", "peaks": [{"precision": "fp8", "flops": 2e15, "source": "s"}]}


@pytest.mark.parametrize("change, message", [
    ({"mem_bandwidth": 0}, r"accelerators.json: entry 'X1': mem_bandwidth \(bytes/s\) must be > 0"),
    ({"mem_bandwidth": "fast"}, r"entry 'X1': field 'mem_bandwidth' must be a number, got 'fast'"),
    ({"link_domain": 8.5}, r"entry 'X1': field 'link_domain' must be a whole number"),
    ({"in_switch_reduction": 1}, r"entry 'X1': field 'in_switch_reduction' must be true or false"),
    ({"peak_flop": 1e15}, r"entry 'X1': unknown field 'peak_flop'"),
    ({"source": None}, r"entry 'X1': field 'source' must be a string"),
    ({"peaks": [{"precision": "fp8", "flops": 2e15}]}, r"entry 'X1': field 'peaks' must hold objects"),
    ({"peaks": [{"precision": "int3", "flops": 2e15, "source": "s"}]},
     r"entry 'X1': peaks: precision must be one of"),
])
def test_a_malformed_entry_is_refused_naming_the_entry_and_the_field(tmp_path, change, message):
    catalog = _catalog_of(tmp_path, {**GOOD, **change})
    with pytest.raises(ValueError, match=message):
        catalog["X1"]


def test_a_missing_field_is_refused_when_the_file_is_read(tmp_path):
    catalog = _catalog_of(tmp_path, {k: v for k, v in GOOD.items() if k != "mem_capacity_gib"})
    with pytest.raises(ValueError, match="entry 'X1': missing field 'mem_capacity_gib'"):
        list(catalog)


def test_the_file_reads_capacity_in_gib_and_peaks_as_triples(tmp_path):
    acc = _catalog_of(tmp_path, GOOD)["x-1"]
    assert acc.mem_capacity == 96 * GiB and acc.peaks == (("fp8", 2e15, "s"),)
    assert (acc.link_bandwidth, acc.link_domain, acc.in_switch_reduction) == (0.0, 0, False)


def test_the_file_fields_are_the_fields_of_accelerator():
    """One schema: the file's fields are those of Accelerator, of their annotated types (the
    capacity as ``mem_capacity_gib``, the peaks as a list, ``capacity_reading`` not written)."""
    from dataclasses import fields

    from infra_calc.hardware import Accelerator
    names = {f.name for f in fields(Accelerator)} - {"mem_capacity", "capacity_reading"}
    assert set(CATALOG._fields) == names | {"mem_capacity_gib", "aliases"}
    assert {k: CATALOG._fields[k] for k in ("peak_flops", "link_domain", "in_switch_reduction",
                                            "vendor", "peaks")} == \
        {"peak_flops": float, "link_domain": int, "in_switch_reduction": bool, "vendor": str,
         "peaks": list}
    assert CATALOG._required == ("name", "peak_flops", "mem_bandwidth", "mem_capacity_gib", "source")
