"""infra_calc.catalog: one Catalog type for both catalogs: forgiving names, errors, lazy entries."""
import json

import pytest

import infra_calc as ic
from infra_calc.catalog import Catalog, UnknownNameError, name_key


class UnknownThing(UnknownNameError):
    pass


def _catalog(tmp_path, entries, build=dict, **kw):
    path = tmp_path / "things.json"
    path.write_text(json.dumps({"about": "test", "entries": entries}))
    kw.setdefault("fields", {"size": float})
    return Catalog("thing", path, build, error=UnknownThing, **kw)


QWEN = {"name": "Qwen3-8B", "aliases": ["qwen-3-8b", "q8"], "note": "a note", "size": 8}
H100 = {"name": "H100 SXM", "aliases": ["H100"], "size": 80}


def test_name_key_ignores_case_spaces_dashes_underscores_and_dots():
    assert name_key(" H100_sxm-5.") == "h100sxm5"


def test_names_forgive_case_separators_aliases_and_repo_ids(tmp_path):
    cat = _catalog(tmp_path, [QWEN, H100])
    assert list(cat) == ["Qwen3-8B", "H100 SXM"] and len(cat) == 2
    for name in ("qwen3_8b", "QWEN 3 8B", "Qwen/Qwen3-8B", "qwen.3.8b", "Q8"):
        assert cat[name]["name"] == "Qwen3-8B"
    assert cat["h100"] is cat["H100 SXM"]             # built once
    assert "h100-sxm" in cat and "v100" not in cat and 3 not in cat
    assert cat.get("v100") is None


def test_an_unknown_name_raises_the_catalogs_error_listing_the_known_names(tmp_path):
    cat = _catalog(tmp_path, [QWEN, H100], hint=" (or a path)")
    with pytest.raises(UnknownThing) as info:
        cat["v100"]
    assert str(info.value) == "unknown thing 'v100'; known names: Qwen3-8B, H100 SXM (or a path)"
    assert isinstance(info.value, ValueError) and isinstance(info.value, KeyError)


def test_both_catalogs_are_one_type_with_one_lookup():
    assert type(ic.CATALOG) is type(ic.MODELS) is Catalog
    assert ic.accelerator("h100-sxm").name == "H100 SXM"
    assert ic.model("Qwen/Qwen3-8B").name == "Qwen3-8B"
    for catalog, kind in ((ic.CATALOG, "accelerator"), (ic.MODELS, "model")):
        with pytest.raises(UnknownNameError, match=f"unknown {kind} 'gpt-9'; known names: "):
            catalog["gpt-9"]


def test_an_entry_is_built_the_first_time_it_is_read(tmp_path):
    built = []
    cat = _catalog(tmp_path, [QWEN, H100], build=lambda r: built.append(r["name"]) or r["size"])
    assert list(cat) and len(cat) and "q8" in cat and cat.listing() and built == []
    assert cat["q8"] == 8 and cat["qwen3-8b"] == 8 and built == ["Qwen3-8B"]


def test_listing_shows_aliases_that_differ_in_more_than_spelling_and_the_note(tmp_path):
    cat = _catalog(tmp_path, [QWEN, H100])
    assert cat.listing() == ["Qwen3-8B (also: q8); a note", "H100 SXM (also: H100)"]
    assert cat.listing(label=lambda r: f"{r['name']}: {r['size']}")[1] == "H100 SXM: 80 (also: H100)"


@pytest.mark.parametrize("entries, message", [
    ([{"size": 1}], "things.json: entry 0: missing field 'name'"),
    ([{"name": " "}], "things.json: entry 0: field 'name' must not be empty"),
    ([{"name": "A", "colour": "red"}], "things.json: entry 'A': unknown field 'colour'; known fields: name, "
                                       "aliases, note, size"),
    ([{"name": "A", "size": "big"}], "things.json: entry 'A': field 'size' must be a number, got 'big'"),
    ([{"name": "A", "size": True}], "things.json: entry 'A': field 'size' must be a number, got True"),
    ([{"name": "A", "aliases": "a"}], "things.json: entry 'A': field 'aliases' must be a list"),
    ([{"name": "A", "aliases": [""]}], "things.json: entry 'A': field 'aliases' must list names"),
    ([{"name": "A"}, {"name": "B", "aliases": ["a"]}], "things.json: entry 'B': field 'aliases': 'a' already "
                                                       "names entry 'A'"),
    (["A"], "things.json: entry 0: must be an object"),
])
def test_a_malformed_entry_is_refused_naming_the_entry_and_the_field(tmp_path, entries, message):
    cat = _catalog(tmp_path, entries)
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        cat.find("a")


def test_a_required_field_and_a_build_error_name_the_entry(tmp_path):
    with pytest.raises(ValueError, match="entry 'A': missing field 'size'"):
        list(_catalog(tmp_path, [{"name": "A"}], required=("size",)))

    def build(record):
        raise ValueError("size (bytes) must be > 0, got 0")
    with pytest.raises(ValueError, match=r"things.json: entry 'A': size \(bytes\) must be > 0"):
        _catalog(tmp_path, [{"name": "A", "size": 0}], build=build)["a"]


def test_a_file_without_entries_is_refused(tmp_path):
    path = tmp_path / "things.json"
    path.write_text("[]")
    with pytest.raises(ValueError, match="things.json: must hold a JSON object with an 'entries' list"):
        len(Catalog("thing", path, dict, fields={}))
