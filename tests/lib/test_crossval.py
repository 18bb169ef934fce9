"""infra_calc.crossval: stored knobs = a fresh fit, folds that leave whole groups out,
held-out rows never fitted, the model against its baselines, the rows' table."""
import csv
import io
from importlib import resources

import pytest

from infra_calc import crossval, fit, forecasting


def test_a_family_band_needs_enough_groups_not_just_rows():
    rep = crossval.evaluate()
    every = len(rep.cv)
    for fam, kn in forecasting.stored_knobs().items():
        if fam == forecasting.POOLED:
            continue
        mine = [p for p in rep.cv if p.row.family == fam]
        own = len({p.row.group for p in mine}) >= crossval.BAND_MIN_GROUPS
        assert kn.cv_rows == (len(mine) if own else every), fam
    # NIM: a 5000-token sweep of one recipe gives many rows but only 2 groups
    nim = forecasting.stored_knobs()["NVIDIA NIM"]
    assert nim.rows >= crossval.BAND_MIN_GROUPS > nim.groups and nim.cv_rows == every


# ------------------------------------------------------------------------ stored = refit
def _cells(text):
    """The knob file's cells: names and counts as text, the fitted numbers as floats."""
    def cell(c):
        try:
            return c if c.lstrip("-").isdigit() else float(c)
        except ValueError:
            return c
    return [[cell(c) for c in r] for r in csv.reader(io.StringIO(text))]


def test_stored_knobs_are_what_the_data_give():
    """Same rows, names and counts; the fitted numbers to 5 significant digits.  The file
    prints 6 (``%.6g``): the last one can differ between machines (the vectorised sums of
    numpy take a different order on another CPU), so it is not compared."""
    stored = resources.files("infra_calc").joinpath("data", "forecast_knobs.csv").read_text("utf-8")
    fresh = _cells(crossval.knobs_csv(crossval.evaluate()))
    old = _cells(stored)
    assert [len(r) for r in fresh] == [len(r) for r in old], "run `make fit`"
    for a, b in zip(fresh, old, strict=True):
        for x, y in zip(a, b, strict=True):
            if isinstance(x, float) and isinstance(y, float):
                assert x == pytest.approx(y, rel=1e-5, abs=1e-12), (a[0], "run `make fit`")
            else:
                assert x == y, (a[0], "run `make fit`")


# --------------------------------------------------------------- honest cross-validation
@pytest.mark.parametrize("by", ["group", "publisher"])
def test_no_row_is_predicted_by_a_fit_that_saw_its_group(by, monkeypatch):
    rows = crossval.evaluate().data.rows
    seen = []
    real = crossval.fit_knobs

    def spy(train):
        seen.append({getattr(r, by) for r in train})
        return real(train)

    monkeypatch.setattr(crossval, "fit_knobs", spy)
    preds = crossval.cross_validate(rows, by=by)
    assert len(seen) == len({getattr(r, by) for r in rows})
    assert [p.row for p in preds] == list(rows)
    for trained in seen:      # each fold's training set misses exactly one key, the test one
        assert len({getattr(r, by) for r in rows} - trained) == 1
    for p in preds:           # refitting without the row's group gives the same prediction
        train = [r for r in rows if getattr(r, by) != getattr(p.row, by)]
        k = fit.unpack(real(train).get(p.row.family, real(train)[forecasting.POOLED]))
        assert p.model == pytest.approx(fit.predict([p.row], k)[0])


def test_held_out_rows_are_never_fitted():
    rep = crossval.evaluate()
    assert rep.data.holdout
    assert all("holdout" in r.m.sets.split() for r in rep.data.holdout)
    assert not any("holdout" in r.m.sets.split() for r in rep.data.rows)
    held = {r.group for r in rep.data.holdout}
    assert not held & {r.group for r in rep.data.rows}        # whole groups are held out


def test_the_model_beats_both_baselines_on_every_metric():
    cv = crossval.evaluate().cv
    model, eff, floor = (crossval.scores(cv, which=w) for w in ("model", "efficiency", "floor"))
    for metric, s in model.items():
        assert s.median < floor[metric].median and s.p90 < floor[metric].p90, metric
        assert s.p90 < eff[metric].p90 and s.median < eff[metric].median, metric


def test_tpot_under_load_is_reported_apart_never_fitted():
    rep = crossval.evaluate()
    load = crossval.under_load(rep)
    assert len(load) >= 10
    fitted = {r.m.id for r in rep.data.rows + rep.data.holdout}
    for u in load:
        assert u.m.metric == "tpot" and u.m.offered_load and u.m.prompt_tokens is None
        assert u.m.id not in fitted and "holdout" not in u.m.sets.split()
        assert u.forecast >= u.floor and u.measured >= u.floor and u.ratio == u.measured / u.forecast
    assert f"TPOT under load, prompt length not stated (not fitted): {len(load)} rows" in \
        crossval.summary(rep)


def test_the_rows_table_gives_each_prediction_in_its_metric_terms():
    table = crossval.rows_table()
    rep = crossval.evaluate()
    assert [t["id"] for t in table] == [r.m.id for r in rep.data.rows]
    for t in table:
        assert t["error"] == pytest.approx(t["model"] / t["measured"] - 1)
        if t["metric"] == "output_throughput_per_card":
            assert t["floor"] >= t["model"]            # a rate: the floor's is the highest
        else:
            assert t["floor"] <= t["model"]


def test_the_readme_table_of_fitted_rows_is_the_data():
    """infra_calc/data/README.md's rows fitted and groups by publisher, engine and vendor."""
    import pathlib
    import re
    readme = pathlib.Path(fit.__file__).parent / "data" / "README.md"
    stated = re.findall(r"^\| (publisher|engine|vendor) \| ([^|]+) \| (\d+) \| (\d+) \|$",
                        readme.read_text(encoding="utf-8"), re.M)
    rows = crossval.evaluate().data.rows
    expected = []
    for by in ("publisher", "engine", "vendor"):
        for name in sorted({getattr(r.m, by) for r in rows}):
            mine = [r for r in rows if getattr(r.m, by) == name]
            expected.append((by, name, str(len(mine)), str(len({r.group for r in mine}))))
    assert [(by, name.strip(), n, g) for by, name, n, g in stated] == expected
