"""Published figures: pytest-mpl compares each figure function with its committed PNG.

`--mpl` is in pytest's addopts (pyproject.toml); without it pytest-mpl compares nothing.
"""
import json
import pathlib

import matplotlib
import pytest

matplotlib.use("Agg")

from infra_calc import figures  # noqa: E402
from infra_calc.figures import FIGURES, SAVE_KWARGS, STYLE  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
FIG_DIR = ROOT / "book" / "figures"


def test_mpl_comparison_is_active(request):
    assert request.config.getoption("--mpl"), "pytest-mpl compares nothing without --mpl"


def test_required_figures_registered():
    assert len(FIGURES) >= 9
    for spec in FIGURES.values():
        assert spec.caption.strip().endswith(".")


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
                                   style=STYLE, savefig_kwargs=SAVE_KWARGS, tolerance=2)
    def test():
        return FIGURES[fig_id].func()
    test.__name__ = f"test_figure_{fig_id.replace('-', '_')}"
    return test


for _fid in sorted(FIGURES):
    _t = _make_test(_fid)
    globals()[_t.__name__] = _t
del _fid, _t
