"""Published figures: pytest-mpl compares each figure function with its committed PNG.

`--mpl` is forced on by tests/conftest.py (and passed by `make test`), so these
comparisons run however pytest is started; the first test fails if they would not.
The files in book/figures/, figures.json and the pages' figure directives must match the
registry exactly.
"""
import json
import re

import pytest
from conftest import FIG_DIR, MARKDOWN_PAGES, NOTEBOOKS, ROOT, page_text
from pytest_mpl.plugin import ImageComparison

from bookkit.roles import FIGURE
from infra_calc.figures import FIGURES, SAVE_KWARGS, STYLE

# a figure directive and its body (group 3)
FIGURE_DIRECTIVE = re.compile(FIGURE.pattern + r"\s*\n(.*?)^\1", re.M | re.S)


def test_mpl_comparison_is_active(request):
    assert request.config.getoption("--mpl"), "pytest-mpl compares nothing without --mpl"
    plugins = request.config.pluginmanager.get_plugins()
    assert any(isinstance(p, ImageComparison) for p in plugins), "pytest-mpl's comparison is not registered"


def test_figure_files_match_registry_exactly():
    for suffix in ("png", "svg"):
        on_disk = sorted(p.stem for p in FIG_DIR.glob(f"*.{suffix}"))
        assert on_disk == sorted(FIGURES), f"book/figures/*.{suffix} differ from the registry"
    for spec in FIGURES.values():
        assert spec.caption.strip().endswith(".")


def shown_figures() -> dict[str, list[str]]:
    """{figure id: [pages]} for every ``{figure} ../figures/<id>.svg`` directive."""
    found: dict[str, list[str]] = {}
    for page in NOTEBOOKS + MARKDOWN_PAGES:
        for m in FIGURE_DIRECTIVE.finditer(page_text(page)):
            target, body = m.group(2), m.group(3)
            if "figures/" not in target:
                continue
            fig_id = target.rsplit("/", 1)[-1].rsplit(".", 1)[0]
            name = re.search(r"^:name:\s*(\S+)", body, re.M)
            assert target.endswith(".svg"), f"{page.name}: figure {target} should show the SVG"
            assert (page.parent / target).is_file(), f"{page.name}: figure {target}: no such file"
            assert name and name.group(1) == fig_id, f"{page.name}: figure {target} needs :name: {fig_id}"
            found.setdefault(fig_id, []).append(page.relative_to(ROOT).as_posix())
    return found


def test_pages_show_exactly_the_registered_figures():
    shown = shown_figures()
    assert sorted(shown) == sorted(FIGURES), \
        f"not shown: {sorted(set(FIGURES) - set(shown))}; not registered: {sorted(set(shown) - set(FIGURES))}"
    twice = {k: v for k, v in shown.items() if len(v) > 1}
    assert not twice, f"figures shown twice (use {{numref}}): {twice}"


def test_manifest_matches_registry():
    manifest = json.loads((FIG_DIR / "figures.json").read_text(encoding="utf-8"))
    assert [m["id"] for m in manifest] == sorted(FIGURES)
    for m in manifest:
        spec = FIGURES[m["id"]]
        assert m["caption"] == spec.caption and m["function"] == spec.function
        assert m["inputs"] == json.loads(json.dumps(spec.inputs))
        for f in m["files"]:
            assert (FIG_DIR / f).is_file(), f


def _make_test(fig_id):
    @pytest.mark.mpl_image_compare(baseline_dir=str(FIG_DIR), filename=f"{fig_id}.png",
                                   style=STYLE, savefig_kwargs=SAVE_KWARGS["png"], tolerance=2)
    def test():
        return FIGURES[fig_id].func()
    test.__name__ = f"test_figure_{fig_id.replace('-', '_')}"
    return test


for _fid in sorted(FIGURES):
    _t = _make_test(_fid)
    globals()[_t.__name__] = _t
del _fid, _t
