"""Tests for the appendices: the catalog figure and the stored outputs of the appendix notebooks."""
from __future__ import annotations

import json
import math
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure

import infra_calc as ic
from infra_calc import source as S
from infra_calc.figures import FIGURES
from infra_calc.figures.catalog import catalog_ridge_points

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = [
    ROOT / "book" / "appendix" / "formulas.ipynb",
    ROOT / "book" / "appendix" / "accelerators.ipynb",
    ROOT / "book" / "appendix" / "models.ipynb",
    ROOT / "book" / "appendix" / "source_notes.ipynb",
    ROOT / "book" / "front" / "how_to_use.ipynb",
]


# ----------------------------------------------------------------- the figure
@pytest.fixture(scope="module")
def ridge_fig():
    fig = catalog_ridge_points()
    yield fig
    plt.close(fig)


def test_catalog_figure_registered():
    spec = FIGURES["catalog-ridge-points"]
    assert spec.caption
    assert spec.function.endswith("catalog_ridge_points")
    assert spec.inputs["k"] == S.J13_K and spec.inputs["n"] == S.J13_N


def test_catalog_figure_one_bar_per_entry(ridge_fig):
    assert isinstance(ridge_fig, Figure)
    ax = ridge_fig.axes[0]
    bars = ax.patches
    assert len(bars) == len(ic.CATALOG)
    widths = [b.get_width() for b in bars]
    expected = sorted(a.ridge_point for a in ic.CATALOG.values())
    assert widths == pytest.approx(expected)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [a.name for a in sorted(ic.CATALOG.values(), key=lambda a: a.ridge_point)]


def test_catalog_figure_axes_and_reference_lines(ridge_fig):
    ax = ridge_fig.axes[0]
    assert "FLOP/byte" in ax.get_xlabel()
    assert ax.get_ylabel()
    xs = sorted(line.get_xdata()[0] for line in ax.get_lines())
    want = [ic.arithmetic_intensity(m, S.J13_K, S.J13_N, 2) for m in (1, 256)]
    assert xs == pytest.approx(want)


def test_catalog_figure_subset_and_errors():
    fig = catalog_ridge_points(names=("H100", "A100"))
    try:
        assert len(fig.axes[0].patches) == 2
    finally:
        plt.close(fig)
    with pytest.raises(ValueError):
        catalog_ridge_points(names=("no such card",))
    with pytest.raises(ValueError):
        catalog_ridge_points(names=())


# ------------------------------------------------------------- the notebooks
def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _glued(path: Path) -> dict:
    """Glue key -> stored text/plain value of every glue() output in a notebook."""
    out = {}
    for cell in _load(path)["cells"]:
        for o in cell.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                data = o.get("data", {})
                plain = [v for k, v in data.items() if k.endswith("text/plain")]
                out[name] = "".join(plain[0]) if plain else ""
    return out


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executed_without_errors(path):
    nb = _load(path)
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code, "no code cells"
    for c in code:
        assert c.get("execution_count") is not None, f"unexecuted cell: {''.join(c['source'])[:60]}"
        for o in c.get("outputs", []):
            assert o["output_type"] != "error", o.get("ename")
            assert o.get("name") != "stderr", "".join(o.get("text", ""))


def test_placeholders_removed():
    for stem in ("accelerators", "models", "source_notes", "formulas"):
        assert not (ROOT / "book" / "appendix" / f"{stem}.md").exists()
    assert not (ROOT / "book" / "front" / "how_to_use.md").exists()


def test_source_notes_glued_values():
    g = _glued(ROOT / "book" / "appendix" / "source_notes.ipynb")
    # (1) the smallest whole batch reaching the H100 ridge
    assert int(g["notes-mstar-ceil"]) == 346 == math.ceil(ic.critical_rows(4096, 4096, "H100 SXM"))
    assert float(g["notes-mstar"]) == pytest.approx(345.112, abs=1e-3)
    # (2) the M = 256 shortfall: 22.9 % from rounded inputs, 23.0 % unrounded
    assert float(g["notes-short-rounded"]) == pytest.approx(22.9)
    assert float(g["notes-short-1dp"]) == pytest.approx(23.0)
    # (3) 4-bit weights halve the read, not the compute
    assert float(g["notes-q4-read"]) == pytest.approx(10.4478, abs=1e-4)
    assert float(g["notes-q4-compute"]) == pytest.approx(0.1415, abs=1e-4)
    assert float(g["notes-half-compute"]) == pytest.approx(0.07075, abs=1e-5)
    # (4) binary capacities: 4 -> 5 on the RTX 4090, 2 -> 4 on the H100
    assert (int(g["notes-4090-bmax-src"]), int(g["notes-4090-bmax-phys"])) == (4, 5)
    assert (int(g["notes-h100-bmax-src"]), int(g["notes-h100-bmax-phys"])) == (2, 4)
    assert float(g["notes-4090-gb"]) == pytest.approx(25.769803776)
    # (5) TPU v1 area: the paper's shares add to 79 %
    assert float(g["notes-tpu-paper-sum"]) == pytest.approx(79.0)
    # (6) smaller things
    assert float(g["notes-i1"]) == pytest.approx(0.99951, abs=1e-5)
    assert float(g["notes-tput1"]) == pytest.approx(47.857, abs=1e-3)
    assert int(g["notes-n-checked"]) >= 40


def test_source_notes_values_match_library():
    """The stored outputs agree with what the library computes today."""
    g = _glued(ROOT / "book" / "appendix" / "source_notes.ipynb")
    q = ic.model("Qwen3-8B")
    phys = ic.max_batch(ic.accelerator("RTX 4090").mem_capacity, q.weight_bytes(2), S.J13_WORKSPACE,
                        8192, q.kv_bytes_per_token(2))
    assert int(g["notes-4090-bmax-phys"]) == phys
    assert float(g["notes-ridge"]) == pytest.approx(ic.ridge_point("H100 SXM"))


def test_accelerator_and_model_pages_glue():
    acc = _glued(ROOT / "book" / "appendix" / "accelerators.ipynb")
    assert int(acc["acc-count"]) == len(ic.CATALOG)
    assert "catalog-ridge-points" in acc
    n_reached = sum(1 for a in ic.CATALOG.values()
                    if ic.arithmetic_intensity(256, 4096, 4096) >= a.ridge_point)
    assert int(acc["acc-n-reached"]) == n_reached
    mod = _glued(ROOT / "book" / "appendix" / "models.ipynb")
    assert int(mod["mod-8b-params"]) == ic.model("Qwen3-8B").params
    assert int(mod["mod-70b-params"]) == ic.model("DeepSeek-R1-Distill-Llama-70B").params
    how = _glued(ROOT / "book" / "front" / "how_to_use.ipynb")
    assert (int(how["how-bmax-src"]), int(how["how-bmax-phys"])) == (4, 5)


def test_catalog_figure_shown_on_page():
    nb = _load(ROOT / "book" / "appendix" / "accelerators.ipynb")
    text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert "```{glue:figure} catalog-ridge-points" in text
    assert ":name: catalog-ridge-points" in text
    assert "{numref}`catalog-ridge-points`" in text
    # stored as PNG, never SVG
    png = [o for c in nb["cells"] for o in c.get("outputs", [])
           if o.get("metadata", {}).get("scrapbook", {}).get("name") == "catalog-ridge-points"]
    assert png
    kinds = list(png[0]["data"])
    assert any(k.endswith("image/png") for k in kinds)
    assert not any(k.endswith("image/svg+xml") for k in kinds)


def test_formula_sheet_checks_ran():
    nb = _load(ROOT / "book" / "appendix" / "formulas.ipynb")
    outs = "".join("".join(o.get("text", "")) for c in nb["cells"] for o in c.get("outputs", []))
    assert "every library function agrees with its formula" in outs
    n = int(outs.split(" checks:")[0].split()[-1])
    assert n >= 40
