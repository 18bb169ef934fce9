"""Tests for the appendices: the catalog figure, the stored {eval} values of the appendix
notebooks, the six errata of the source notes and the glossary's source/book marks."""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

import infra_calc as ic
from bookkit import stored_values
from infra_calc import source as S

ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------- the notebooks
def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_placeholders_removed():
    for stem in ("accelerators", "models", "source_notes", "formulas"):
        assert not (ROOT / "book" / "appendix" / f"{stem}.md").exists()
    assert not (ROOT / "book" / "0_start" / "how_to_use.md").exists()


def _number(text: str) -> float:
    return float(re.sub(r"[^0-9.\-]", "", text.replace("−", "-")))


NOTES = ROOT / "book" / "appendix" / "source_notes.ipynb"


def test_source_notes_lists_six_errata():
    text = "\n".join("".join(c["source"]) for c in _load(NOTES)["cells"] if c["cell_type"] == "markdown")
    numbered = [int(n) for n in re.findall(r"^## (\d+)\. ", text, flags=re.M)]
    assert numbered == [1, 2, 3, 4, 5, 6]


def test_source_notes_stored_values():
    g = stored_values(NOTES)
    # (1) the smallest whole batch reaching the H100 ridge
    assert _number(g["v.mstar_ceil"]) == 346 == math.ceil(ic.critical_rows(4096, 4096, "H100 SXM"))
    assert _number(g["v.mstar"]) == pytest.approx(345.11)
    # (2) the M = 256 shortfall: 22.9 % from the printed (rounded) inputs, 23.0 % unrounded
    assert (g["v.short_printed"], g["v.short_exact1"], g["v.short_exact2"]) == ("22.9%", "23.0%", "22.95%")
    # (3) half the parameters halves both bounds; 4-bit weights halve the read only
    assert (g["v.half_tr"], g["v.half_tc"]) == ("10.45 ms", "0.0707 ms")
    assert (g["v.q4_tr"], g["v.q4_tc"]) == ("10.45 ms", "0.1415 ms")
    # (4) binary capacities: 4 -> 5 on the RTX 4090, 2 -> 4 on the H100
    assert (g["v.b4090_src"], g["v.b4090_phys"]) == ("4", "5")
    assert (g["v.bh100_src"], g["v.bh100_phys"]) == ("2", "4")
    assert g["v.c4090_phys"] == "25.77 GB"
    # (5), (6) TPU v1 area: buffers 37 %, compute 30 %; the UB alone ~1/3, the MMU alone 1/4
    assert (g["v.buf"], g["v.comp"], g["v.paper_sum"]) == ("37%", "30%", "79%")
    assert (g["v.ub"], g["v.mmu"]) == ("33%", "25%")
    # smaller things
    assert g["v.i1"] == "0.9995 FLOP/byte"
    assert g["v.tput1"] == "47.86 tokens/s"
    assert _number(g["v.n_checked"]) >= 40


def test_source_notes_values_match_library():
    """The stored values agree with what the library computes today."""
    g = stored_values(NOTES)
    q = ic.model("Qwen3-8B")
    phys = ic.max_batch(ic.accelerator("RTX 4090").mem_capacity, weights=q.weight_bytes(2),
                        context=8192, kv_bytes_per_token=q.kv_bytes_per_token(2),
                        workspace=S.J13_WORKSPACE)
    assert _number(g["v.b4090_phys"]) == phys
    assert _number(g["v.ridge"]) == pytest.approx(ic.accelerator("H100 SXM").ridge_point, abs=0.005)


def test_accelerator_and_model_pages_values():
    acc = stored_values(ROOT / "book" / "appendix" / "accelerators.ipynb")
    assert _number(acc["v.count"]) == len(ic.CATALOG)
    n_reached = sum(1 for a in ic.CATALOG.values()
                    if ic.arithmetic_intensity(256, 4096, 4096) >= a.ridge_point)
    assert _number(acc["v.n_reached"]) == n_reached
    mod = stored_values(ROOT / "book" / "appendix" / "models.ipynb")
    assert _number(mod["v.total"]) == ic.model("Qwen3-8B").params
    assert _number(mod["v.p70"]) == ic.model("DeepSeek-R1-Distill-Llama-70B").params

    how = stored_values(ROOT / "book" / "0_start" / "how_to_use.ipynb")
    assert how["v.gib_4090"] == "24 GiB" and how["v.gb_4090"] == "25.77 GB"


def test_catalog_figure_shown_on_page():
    nb = _load(ROOT / "book" / "appendix" / "accelerators.ipynb")
    text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert "```{figure} ../figures/catalog-ridge-points.svg" in text
    assert ":name: catalog-ridge-points" in text
    assert "{numref}`catalog-ridge-points`" in text
    assert (ROOT / "book" / "figures" / "catalog-ridge-points.svg").is_file()


GLOSSARY = ROOT / "book" / "appendix" / "glossary.md"


def _glossary_rows() -> dict[str, str]:
    """Chinese term -> "source" or "book", from the glossary's tables."""
    rows = {}
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cols = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cols) == 5 and cols[2] in ("source", "book"):
            rows[cols[1]] = cols[2]
    return rows


def test_glossary_marks_every_term():
    rows = _glossary_rows()
    assert len(rows) >= 40
    table_lines = [line for line in GLOSSARY.read_text(encoding="utf-8").splitlines()
                   if line.startswith("| ") and not line.startswith("| term")]
    assert len(table_lines) == len(rows), "a glossary row without a source/book mark"


@pytest.mark.parametrize("term", ["解码步", "屋顶线模型", "阿姆达尔定律", "脉动阵列", "分组查询注意力",
                                  "高带宽内存", "最大批大小"])
def test_glossary_terms_not_in_the_source_are_the_books(term):
    assert _glossary_rows().get(term) == "book"


@pytest.mark.parametrize("term", ["统一数据缓冲", "显存", "判据", "权重复用", "部分和"])
def test_glossary_source_terms(term):
    assert _glossary_rows().get(term) == "source"
    assert "统一缓冲 " not in GLOSSARY.read_text(encoding="utf-8")


def test_formula_sheet_checks_ran():
    nb = _load(ROOT / "book" / "appendix" / "formulas.ipynb")
    outs = "".join("".join(o.get("text", "")) for c in nb["cells"] for o in c.get("outputs", []))
    assert "every library function agrees with its formula" in outs
    n = int(outs.split(" checks:")[0].split()[-1])
    assert n >= 40
