"""fsbench.papers (values, cells, claims, render): paper values vs our results (``fsbench report --paper``).

Synthetic results tables (the columns of results.csv) with hand-made numbers: every check kind of the
paper-values FORMAT in a holding and a failing case, the unit conversions, Welch's test against scipy,
and the report end to end on a temporary results directory.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats

from fsbench.papers.cells import compare_table, judge_with_std, method_frame, normalise_row, to_paper_unit
from fsbench.papers.claims import FAILS, HOLDS, NOT_CHECKABLE, NOT_EVALUABLE, evaluate_check, evaluate_claim
from fsbench.papers.render import paper_sections
from fsbench.papers.values import config_defaults, load_paper_values, paper_values_path, read_configs
from fsbench.results.paper_values import split_defaults
from fsbench.results.schema import RESULT_COLUMNS

ROOT = Path(__file__).resolve().parents[2]
RAMONA = ROOT / "configs" / "ramona2012"
#: Per-repeat offsets shared by every selector (paired design): mean 0, sample std 1.
OFFSETS = np.array([-1.5, -0.5, 0.5, 1.5]) / np.std([-1.5, -0.5, 0.5, 1.5], ddof=1)


def rows(
    experiment: str,
    selector: str,
    means: dict[float, float],
    *,
    x: str = "n_features",
    sd: float = 0.01,
    offsets: np.ndarray | None = None,
    dataset: str = "toy",
    kernel: str = "linear",
    n_train: int = 100,
    S: int = 2,
    cpu: dict[float, float] | None = None,
    label: str | None = None,
    repeats: int = 4,
) -> list[dict]:
    """Rows of results.csv: ``error`` = means[x] + sd · offsets[repeat] (means in [0, 1])."""
    off = OFFSETS if offsets is None else np.asarray(offsets, float)
    out = []
    for xv, m in means.items():
        for r in range(repeats):
            ntr, s, ds = n_train, S, dataset
            if x == "n_features":
                s = int(xv)
            elif x == "n_train":
                ntr = int(xv)
            else:  # D: the dataset label
                ds = f"{dataset}_D{int(xv)}"
            e = float(m + sd * off[r % len(off)])
            row = dict.fromkeys(RESULT_COLUMNS, "")
            row.update(
                schema_version=1,
                experiment=experiment,
                dataset=ds,
                kernel=kernel,
                selector=label or selector,
                selector_name=selector,
                params="{}",
                n_select=ntr,
                n_train=ntr,
                n_test=50,
                repeat=r,
                split_seed=r,
                classifier="svm",
                C=1.0,
                n_features=s,
                error=e,
                balanced_error=e,
                fit_cpu_s=(cpu or {}).get(xv, 0.01) * (1 + 0.01 * off[r % len(off)]),
                fit_wall_s=0.01,
                n_iter=1,
                converged=True,
                redraws=0,
                status="ok",
                message="",
                git_commit="abc123",
                task_id=f"{experiment}-{ds}-{kernel}-{selector}-{ntr}-{r}-{s if x == 'n_features' else ''}",
            )
            out.append(row)
    return out


def frame(*parts: list[dict]) -> pd.DataFrame:
    return pd.DataFrame([r for p in parts for r in p], columns=RESULT_COLUMNS)


XS = [10.0, 20.0, 30.0]


@pytest.fixture(scope="module")
def toy() -> pd.DataFrame:
    """Experiment "toy" over S = 10, 20, 30 (errors in %):

    a: 10 11 12 (best), b: 20 21 12 (a beats b except at S = 30 where they tie), c: 30 30.3 30.1
    (flat), d: 25 15 10 (falls with S), all: 1 (the baseline, ignored by default).
    """
    pct = lambda *v: dict(zip(XS, (x / 100 for x in v)))  # noqa: E731
    return frame(
        rows("toy", "a", pct(10, 11, 12)),
        rows("toy", "b", pct(20, 21, 12)),
        rows("toy", "c", pct(30, 30.3, 30.1)),
        rows("toy", "d", pct(25, 15, 10)),
        rows("toy", "all", {40.0: 0.01}),
    )


def ev(check: dict, df: pd.DataFrame, experiment: str = "toy"):
    return evaluate_check(check, df, experiment)


# ----------------------------------------------------------------------------- (a) check kinds
@pytest.mark.parametrize(
    "check, status",
    [
        ({"kind": "better", "selectors": ["a"], "than": ["b", "c"]}, HOLDS),
        ({"kind": "better", "selectors": ["b"], "than": ["a"]}, FAILS),
        ({"kind": "better", "selectors": ["a"], "than": ["b"], "aggregate": "each"}, FAILS),  # tie at 30
        ({"kind": "better", "selectors": ["a"], "than": ["b"], "aggregate": "majority"}, HOLDS),
        ({"kind": "better", "selectors": ["b"], "than": ["a"], "aggregate": "any"}, FAILS),
        ({"kind": "better", "selectors": ["a"], "than": ["b"], "range": [30, 30]}, FAILS),
        ({"kind": "better", "selectors": ["a"], "than": ["b"], "range": [10, 20]}, HOLDS),
        ({"kind": "not_worse", "selectors": ["b"], "than": ["a"], "range": [30, 30], "tolerance": 0}, HOLDS),
        ({"kind": "not_worse", "selectors": ["b"], "than": ["a"], "tolerance": 7}, HOLDS),  # 17.67 vs 11
        ({"kind": "not_worse", "selectors": ["b"], "than": ["a"], "tolerance": 6.5}, FAILS),
        ({"kind": "close", "selectors": ["a", "b"], "range": [30, 30], "tolerance": 0.1}, HOLDS),
        ({"kind": "close", "selectors": ["a", "b"], "tolerance": 2}, FAILS),
        ({"kind": "best", "selectors": ["a"]}, HOLDS),  # `all` (1 %) is not among the default pool
        ({"kind": "best", "selectors": ["d"]}, FAILS),
        ({"kind": "best", "selectors": ["d"], "aggregate": "any"}, HOLDS),  # lowest at S = 30
        ({"kind": "best", "selectors": ["b"], "among": ["b", "c", "d"], "range": [10, 10]}, HOLDS),
        ({"kind": "worst", "selectors": ["c"], "aggregate": "each"}, HOLDS),
        ({"kind": "worst", "selectors": ["d"]}, FAILS),
        ({"kind": "level", "selectors": ["a"], "value": 11, "tolerance": 0.5}, HOLDS),
        ({"kind": "level", "selectors": ["a"], "value": 15, "tolerance": 2}, FAILS),
        ({"kind": "above", "selectors": ["c"], "value": 29.9, "aggregate": "each"}, HOLDS),
        ({"kind": "above", "selectors": ["a", "c"], "value": 12}, FAILS),
        ({"kind": "below", "selectors": ["a"], "value": 12.1, "aggregate": "each"}, HOLDS),
        ({"kind": "below", "selectors": ["d"], "value": 12, "aggregate": "each"}, FAILS),
        ({"kind": "min_level", "selectors": ["a", "b", "d"], "value": 10.5, "tolerance": 0.6}, HOLDS),
        ({"kind": "min_level", "selectors": ["b", "c"], "value": 10, "tolerance": 1}, FAILS),  # min 12
        ({"kind": "trend", "selectors": ["d"], "direction": "decreasing", "tolerance": 10}, HOLDS),  # -15
        ({"kind": "trend", "selectors": ["d"], "direction": "decreasing", "tolerance": 16}, FAILS),
        ({"kind": "trend", "selectors": ["a"], "direction": "increasing", "tolerance": 0}, HOLDS),
        ({"kind": "trend", "selectors": ["a", "d"], "direction": "increasing"}, FAILS),
        (
            {"kind": "trend", "selectors": ["a", "c", "d"], "direction": "increasing", "quantifier": "most"},
            HOLDS,
        ),
        (
            {"kind": "trend", "selectors": ["a", "d", "b"], "direction": "increasing", "quantifier": "most"},
            FAILS,
        ),
        ({"kind": "flat", "selectors": ["c"], "tolerance": 0.5}, HOLDS),
        ({"kind": "flat", "selectors": ["c", "a"], "tolerance": 0.5}, FAILS),
        ({"kind": "gain", "selectors": ["a"], "value": 2, "tolerance": 0.1}, HOLDS),  # 12 - 10
        ({"kind": "gain", "selectors": ["a"], "value": 0, "tolerance": 1}, FAILS),
        (
            {
                "kind": "difference",
                "selectors": ["a", "c"],
                "than": ["b"],
                "value": 10,
                "tolerance": 0.01,
                "range": [10, 10],
            },
            HOLDS,
        ),
        ({"kind": "difference", "selectors": ["a"], "than": ["b"], "value": 3, "tolerance": 1}, FAILS),
        ({"kind": "better", "selectors": ["a"], "than": ["zz"]}, NOT_EVALUABLE),  # no such selector
        ({"kind": "better", "selectors": ["a"], "than": ["b"], "range": [40, 50]}, NOT_EVALUABLE),
        ({"kind": "better", "experiment": "absent", "selectors": ["a"], "than": ["b"]}, NOT_EVALUABLE),
        ({"kind": "no_such_kind", "selectors": ["a"]}, NOT_EVALUABLE),
    ],
)
def test_check_kinds(toy, check, status):
    res = ev(check, toy)
    assert res.status == status, res.detail


def test_check_detail_has_the_deciding_numbers(toy):
    res = ev({"kind": "better", "selectors": ["a"], "than": ["b"], "x": "n_features", "range": [10, 30]}, toy)
    assert res.status == HOLDS
    assert "a 11.00 %" in res.detail and "b 17.67 %" in res.detail and "S ∈ [10, 30]" in res.detail
    res = ev({"kind": "trend", "selectors": ["d"], "direction": "increasing"}, toy)
    assert res.status == FAILS and "d -15.00" in res.detail
    res = ev({"kind": "better", "experiment": "gone", "selectors": ["a"], "than": ["b"]}, toy)
    assert "gone" in res.detail and "not run" in res.detail


def test_significance_checks():
    # a and b differ by a constant 5 points on every repeat (p = 0); a and c differ by ±1 point
    # alternating (mean difference 0, p = 1)
    df = frame(
        rows("sig", "a", {10.0: 0.10, 20.0: 0.10}),
        rows("sig", "b", {10.0: 0.15, 20.0: 0.15}),
        rows("sig", "c", {10.0: 0.10, 20.0: 0.10}, offsets=OFFSETS + np.array([0.5, -0.5, 0.5, -0.5])),
    )
    assert ev({"kind": "significant", "selectors": ["a"], "than": ["b"]}, df, "sig").status == HOLDS
    assert (
        ev({"kind": "significant", "selectors": ["a", "b"], "aggregate": "each"}, df, "sig").status == HOLDS
    )
    assert (
        ev({"kind": "significant", "selectors": ["a", "b", "c"], "aggregate": "each"}, df, "sig").status
        == FAILS
    )
    assert ev({"kind": "not_significant", "selectors": ["c"], "than": ["a"]}, df, "sig").status == HOLDS
    res = ev(
        {"kind": "not_significant", "selectors": ["a"], "than": ["b"], "aggregate": "majority"}, df, "sig"
    )
    assert res.status == FAILS and "0/1 pairs not significant" in res.detail
    # fewer than two paired repeats: not evaluable rather than "not significant"
    one = frame(rows("one", "a", {10.0: 0.1}, repeats=1), rows("one", "b", {10.0: 0.2}, repeats=1))
    assert ev({"kind": "not_significant", "selectors": ["a", "b"]}, one, "one").status == NOT_EVALUABLE


def test_compare_experiments_and_rank_share():
    df = frame(
        rows("A", "a", {10.0: 0.10, 20.0: 0.12}),
        rows("A", "b", {10.0: 0.14, 20.0: 0.13}),
        rows("B", "a", {10.0: 0.12, 20.0: 0.125}),
        rows("B", "b", {10.0: 0.04, 20.0: 0.05}, dataset="other"),
    )
    ce = {"kind": "compare_experiments", "experiments": ["A", "B"]}
    # min A = 10 (a at S = 10), min B = 4 (b at S = 10)
    assert ev({**ce, "relation": "better", "value": 5}, df).status == HOLDS
    assert ev({**ce, "relation": "better", "value": 7}, df).status == FAILS
    assert ev({**ce, "relation": "not_better", "tolerance": 0.5}, df).status == FAILS
    assert ev({**ce, "relation": "not_better", "tolerance": 6.5}, df).status == HOLDS
    assert ev({**ce, "experiments": ["A", "C"], "relation": "better"}, df).status == NOT_EVALUABLE
    rs = {"kind": "rank_share", "experiments": ["A", "B"]}
    # cells: A S=10 (a first), A S=20 (a first), B/toy (a only: skipped), B/other (b only: skipped)
    assert ev({**rs, "selectors": ["a"], "relation": "at_least", "value": 100}, df).status == HOLDS
    assert ev({**rs, "selectors": ["b"], "relation": "at_least", "value": 1}, df).status == FAILS
    assert ev({**rs, "selectors": ["b"], "relation": "at_most", "value": 0}, df).status == HOLDS
    res = ev({**rs, "selectors": ["b"], "rank": "first_or_second", "relation": "at_least", "value": 100}, df)
    assert res.status == HOLDS and "b 100.0 % of 2 cells" in res.detail


def test_cpu_checks_slope_and_x_D():
    n = [100.0, 200.0, 400.0]
    df = frame(
        rows("t8", "sas", {v: 0.1 for v in n}, x="n_train", cpu={v: 1e-4 * v**2 for v in n}, label="SAS"),
        rows("t8", "kfds", {v: 0.1 for v in n}, x="n_train", cpu={v: 1e-3 * v for v in n}, label="KFDS"),
        rows(
            "t9", "r2w2", {6.0: 0.1, 500.0: 0.1}, x="D", dataset="weston_linear", cpu={6.0: 2.0, 500.0: 5.0}
        ),
        rows("t9", "sas", {6.0: 0.1, 500.0: 0.1}, x="D", dataset="weston_linear", cpu={6.0: 1.0, 500.0: 9.0}),
    )
    base = {"metric": "fit_cpu_s", "x": "n_train", "experiment": "t8"}
    assert (
        ev({**base, "kind": "slope", "selectors": ["sas"], "value": 2, "tolerance": 0.1}, df).status == HOLDS
    )
    assert (
        ev({**base, "kind": "slope", "selectors": ["sas", "kfds"], "value": 2, "tolerance": 0.5}, df).status
        == FAILS
    )
    assert (
        ev({**base, "kind": "slope", "selectors": ["kfds"], "value": 1, "tolerance": 0.1}, df).status == HOLDS
    )
    res = ev({**base, "kind": "better", "selectors": ["kfds"], "than": ["sas"], "aggregate": "each"}, df)
    assert res.status == HOLDS, res.detail  # labels (SAS, KFDS) are matched by selector_name
    d9 = {"metric": "fit_cpu_s", "x": "D", "experiment": "t9", "aggregate": "each"}
    assert (
        ev({**d9, "kind": "better", "selectors": ["r2w2"], "than": ["sas"], "range": [500, 2000]}, df).status
        == HOLDS
    )
    assert (
        ev({**d9, "kind": "better", "selectors": ["r2w2"], "than": ["sas"], "range": [5, 2000]}, df).status
        == FAILS
    )
    assert ev({**d9, "kind": "best", "selectors": ["sas"], "range": [5, 50]}, df).status == HOLDS


def test_evaluate_claim_combines_checks(toy):
    ok = {"kind": "best", "selectors": ["a"]}
    bad = {"kind": "best", "selectors": ["d"]}
    missing = {"kind": "best", "experiment": "nope", "selectors": ["a"]}
    assert evaluate_claim({"checks": [ok, ok]}, toy, "toy")[0] == HOLDS
    assert evaluate_claim({"checks": [ok, bad, missing]}, toy, "toy")[0] == FAILS
    assert evaluate_claim({"checks": [ok, missing]}, toy, "toy")[0] == NOT_EVALUABLE
    assert evaluate_claim({"checks": []}, toy, "toy") == (NOT_CHECKABLE, [])


def test_method_frame_uses_names_only_when_unambiguous():
    df = frame(
        rows("x", "sas", {2.0: 0.1}, label="SAS"),
        rows("y", "sas", {2.0: 0.1}, label="SAS-200"),
        rows("y", "sas", {2.0: 0.1}, label="SAS-10"),
    )
    out = method_frame(df)
    assert set(out.loc[out.experiment == "x", "selector"]) == {"sas"}
    assert set(out.loc[out.experiment == "y", "selector"]) == {"SAS-200", "SAS-10"}


# ----------------------------------------------------------------------------- (b) units
def test_unit_conversions():
    assert to_paper_unit(0.052, 0.011, "error") == pytest.approx((5.2, 1.1))
    assert to_paper_unit(0.052, 0.011, "accuracy") == pytest.approx((94.8, 1.1))
    with pytest.raises(ValueError):
        to_paper_unit(0.1, 0.1, "cpu_time")
    assert normalise_row({"a": 2.0, "b": 6.0, "c": 0.0}) == {"a": 1.0, "b": 3.0, "c": 0.0}


@pytest.fixture(scope="module")
def ramona() -> dict:
    return load_paper_values("ramona2012")


@pytest.fixture(scope="module")
def configs() -> dict:
    return read_configs(RAMONA)


def _table(values: dict, tid: str) -> dict:
    return next(t for t in values["tables"] if t["id"] == tid)


def test_accuracy_table_cells(ramona, configs):
    # Table VI, Ionosphere S = 5: SAS 92.0 ± 2.3 (accuracy %); ours: error 8 % ± 2 → 92 ± 2
    df = frame(
        rows("tab6_gmkl", "sas", {5.0: 0.08}, sd=0.02, dataset="ionosphere", kernel="rbf"),
        rows("tab6_gmkl", "scss", {5.0: 0.20}, sd=0.02, dataset="ionosphere", kernel="rbf"),
    )
    cells = compare_table(_table(ramona, "table6"), df, configs)
    by = {(c.setting, c.method): c for c in cells}
    sas = by[("ionosphere, rbf, S = 5", "sas")]
    assert sas.ours == pytest.approx(92.0) and sas.ours_std == pytest.approx(2.0) and sas.n_ours == 4
    assert sas.diff == pytest.approx(0.0) and sas.status == "agree" and sas.within_std
    scss = by[("ionosphere, rbf, S = 5", "scss")]  # 80 vs 91.1 ± 2.8: far outside
    assert scss.ours == pytest.approx(80.0) and scss.status == "differ" and scss.p < 0.05
    assert by[("ionosphere, rbf, S = 5", "gmkl")].status == "external"
    assert by[("ionosphere, rbf, S = 10", "sas")].status == "not run"
    doubtful = by[("parkinsons, rbf, S = 3", "gmkl")]
    assert doubtful.doubtful and not doubtful.counted


def test_error_table_and_missing(ramona, configs):
    # Table V (7 iterations in the config): S = 50, SAS 10.0 ± 2.5 (error %)
    df = frame(rows("tab5_usps_binary", "sas", {50.0: 0.105}, sd=0.02, dataset="usps_binary", kernel="rbf"))
    cells = compare_table(_table(ramona, "table5"), df, configs)
    sas = next(c for c in cells if c.method == "sas" and c.setting.endswith("S = 50"))
    assert sas.ours == pytest.approx(10.5) and sas.n_paper == 7 and sas.diff == pytest.approx(0.5)
    wang = next(c for c in cells if c.method == "wang_kcs")
    assert wang.status == "external" and wang.paper_std is None
    yeast = compare_table(_table(ramona, "table3"), df, configs)
    assert {c.status for c in yeast} == {"not available"}


def test_cpu_table_normalised_to_the_whole_table(ramona, configs):
    # Table VIII is printed normalised to its lowest time (= 1, kfds at N = 10..50), so N = 5 keeps its
    # printed values 6, 14, 65, 42, 2 (a per-row normalisation would give 3, 7, 32.5, 21, 1). Ours: the
    # table's fastest mean is kfds at N = 10 (0.05 s), so N = 5 becomes 6, 14, 65, 10, 2.
    cpu5 = {"arom": 0.3, "r2w2": 0.7, "rfe": 3.25, "sas": 0.5, "kfds": 0.1, "fisher": 0.001}
    df = frame(
        *(
            rows(
                "tab8_cpu_vs_n",
                m,
                {5.0: 0.1, 10.0: 0.1},
                x="n_train",
                dataset="weston_linear_D30",
                cpu={5.0: t, 10.0: 0.05 if m == "kfds" else 10 * t},
                label=m.upper(),
            )
            for m, t in cpu5.items()
        )
    )
    cells = {
        c.method: c
        for c in compare_table(_table(ramona, "table8"), df, configs)
        if c.setting.startswith("N = 5,")
    }
    assert set(cells) == {"arom", "r2w2", "rfe", "sas", "kfds"}  # fisher is not a column: not the base
    paper = {m: c.paper_norm for m, c in cells.items()}
    assert paper == pytest.approx({"arom": 6, "r2w2": 14, "rfe": 65, "sas": 42, "kfds": 2})
    ours = {m: c.ours for m, c in cells.items()}
    assert ours == pytest.approx({"arom": 6, "r2w2": 14, "rfe": 65, "sas": 10, "kfds": 2}, rel=1e-9)
    assert all(cells[m].status == "agree" for m in ("arom", "r2w2", "rfe", "kfds"))
    assert cells["sas"].status == "differ" and cells["sas"].ours_seconds == pytest.approx(0.5)


def test_rank_share_table(ramona, configs):
    # §V-C from tab6 only: sas first in both cells, scss second, kfds third
    df = frame(
        *(
            rows("tab6_gmkl", m, {5.0: e, 10.0: e}, dataset="sonar", kernel="rbf")
            for m, e in {"sas": 0.1, "scss": 0.2, "kfds": 0.3}.items()
        )
    )
    cells = compare_table(_table(ramona, "table7"), df, configs)
    by = {(c.setting, c.method): c for c in cells}
    first = by[("§V-C, first", "sas")]  # paper 37.9; ours 100 over k = 2: tolerance 100·sqrt(.379·.621/2)
    assert first.ours == pytest.approx(100.0) and first.n_ours == 2
    assert first.tolerance == pytest.approx(100 * np.sqrt(0.379 * 0.621 / 2)) and first.status == "differ"
    assert by[("§V-C, second", "scss")].ours == pytest.approx(100.0)
    assert by[("§V-B, first", "sas")].status == "not run"


# ----------------------------------------------------------------------------- (c) Welch
@pytest.mark.parametrize(
    "paper, ps, n_p, ours, os_, n_o",
    [(6.7, 1.0, 30, 7.4, 1.2, 10), (10.0, 2.5, 7, 10.5, 2.0, 4), (92.0, 2.3, 30, 90.0, 0.5, 30)],
)
def test_welch_matches_scipy(paper, ps, n_p, ours, os_, n_o):
    diff, within, p, status = judge_with_std(paper, ps, n_p, ours, os_, n_o)
    ref = stats.ttest_ind_from_stats(paper, ps, n_p, ours, os_, n_o, equal_var=False).pvalue
    assert p == pytest.approx(ref, rel=1e-12)
    assert diff == pytest.approx(ours - paper) and within == (abs(ours - paper) <= ps)
    assert status == ("agree" if within or ref >= 0.05 else "differ")


def test_table_cell_p_value_is_welch(ramona, configs):
    df = frame(rows("tab6_gmkl", "kfds", {5.0: 0.09}, sd=0.03, dataset="ionosphere", kernel="rbf"))
    c = next(c for c in compare_table(_table(ramona, "table6"), df, configs) if c.method == "kfds")
    ours = df["error"] * 100
    ref = stats.ttest_ind_from_stats(88.7, 3.1, 30, 100 - ours.mean(), ours.std(ddof=1), 4, equal_var=False)
    assert c.p == pytest.approx(ref.pvalue, rel=1e-9) and c.n_paper == 30


# ----------------------------------------------------------------------------- config text
def test_defaults_from_config_text():
    text = (
        "# Header line.\n#\n# NOT EXPRESSIBLE: one thing\n# continued.\n#\n"
        "# [D] first choice\n# continued. [D] second choice\nname: x\n"
        "protocol:\n  repeats: 30   # [D] as in V-B\n  n_test: 5  # plain comment\n"
    )
    assert config_defaults(text) == [
        "NOT EXPRESSIBLE: one thing continued.",
        "[D] first choice continued.",
        "[D] second choice",
        "`repeats: 30` — [D] as in V-B",
    ]
    assert split_defaults("[D] a, uses D = 6 [D]; a true D = 5 needs more. [D] b") == [
        "[D] a, uses D = 6 [D]; a true D = 5 needs more.",
        "[D] b",
    ]
    # a tag closing the paragraph's first sentence: that sentence is the item, never a bare "[D] ."
    assert split_defaults("Header (x; y). The protocol below is a proposal [D]. Then [D] b") == [
        "[D] The protocol below is a proposal. Then",
        "[D] b",
    ]
    cfgs = read_configs(RAMONA)
    assert cfgs["tab5_usps_binary"].repeats() == 7 and cfgs["tab4_neumann"].repeats("pima") == 30
    assert "no copy" in cfgs["tab3_yeast"].unavailable and "(" not in cfgs["tab3_yeast"].unavailable


def test_missing_paper_values(tmp_path):
    with pytest.raises(FileNotFoundError, match=re.escape(str(tmp_path / "nope" / "paper_values.yaml"))):
        load_paper_values("nope", paper_values_path("nope", tmp_path))
    assert paper_values_path("ramona2012") == RAMONA / "paper_values.yaml"


# ----------------------------------------------------------------------------- (d) end to end
def _write(out: Path, df: pd.DataFrame) -> None:
    out.mkdir(parents=True)
    df.to_csv(out / "results.csv", index=False)


def test_report_end_to_end(tmp_path):
    from conftest import cli

    res_dir = tmp_path / "results"
    sel = {"sas": 0.08, "scss": 0.09, "kfds": 0.11}
    _write(
        res_dir / "tab6_gmkl",
        frame(
            *(
                rows("tab6_gmkl", m, {5.0: e, 10.0: e}, dataset="ionosphere", kernel="rbf")
                for m, e in sel.items()
            )
        ),
    )
    fig1a = {"fisher": 0.15, "arom": 0.05, "r2w2": 0.045, "kfds": 0.055, "sas": 0.16, "scss": 0.15}
    _write(
        res_dir / "fig1a_weston_linear",
        frame(
            *(
                rows("fig1a_weston_linear", m, {50.0: e, 100.0: e}, x="n_train", dataset="weston_linear")
                for m, e in fig1a.items()
            )
        ),
    )
    # the paper folder, copied: its own hand-written notes.md (a folder is given by its path)
    folder = tmp_path / "configs" / "ramona2012"
    shutil.copytree(RAMONA, folder)
    (folder / "notes.md").write_text("## Why our numbers differ (hand-written)\n\nBecause.\n")
    r = cli("report", res_dir, "--paper", folder)
    assert r.exit_code == 0, r.stderr
    text = (res_dir / "REPORT.md").read_text()
    head = text[: text.index("## Paper vs ours")]
    assert "## Comparison with the paper ramona2012 — summary" in head
    # the hand-written notes follow the generated summary
    assert head.index("## Why our numbers differ (hand-written)") > head.index("**Claims:")
    m = re.search(r"\*\*Table cells: (\d+) of (\d+) comparable cells agree with the paper\*\*", head)
    # tab6: 3 methods x Ionosphere S = 5, 10; Table VII §V-C: 3 methods x first/second/rest
    assert m and int(m.group(2)) == 6 + 9
    m = re.search(r"\*\*Claims: (\d+) hold, (\d+) do not hold, (\d+) not evaluable\*\*", head)
    assert m and int(m.group(1)) >= 1 and int(m.group(3)) > 0
    claims = yaml.safe_load((RAMONA / "paper_values.yaml").read_text())["claims"]
    assert f"— {len(claims)} in all" in head
    assert "### Substitutions and defaults" in head and "**tab6_gmkl**" in head and "[D] 70 %" in head
    assert "dataset not available" in head  # Table III (yeast_brown)
    assert "| VI | `tab6_gmkl` | compared | 6 |" in head
    body = text[text.index("## Paper vs ours") :]
    assert "| ionosphere, rbf, S = 5 | sas | 92.0 ± 2.3 | 92.0 ± 1.0 (n = 4) | +0.0 |" in body
    assert "✓ **fig1a.redundant_plateau**" in body and "✓ **fig1a.complementary_methods_succeed**" in body
    assert "? **fig5a.flat_above_100**" in body and "dataset not available" in body
    assert "### Table VIII" in body and "Not run" in body


def test_report_unknown_paper_is_one_line(tmp_path):
    from conftest import cli

    _write(tmp_path / "r" / "x", frame(rows("x", "a", {2.0: 0.1}), rows("x", "b", {2.0: 0.2})))
    r = cli("report", tmp_path / "r", "--paper", "nosuchpaper")
    assert r.exit_code == 2
    assert len(r.stderr_lines) == 1 and "nosuchpaper" in r.stderr and "paper_values.yaml" in r.stderr


def test_paper_sections_direct_with_empty_results():
    summary, text = paper_sections("ramona2012", frame(rows("unrelated", "a", {2.0: 0.1})))
    assert any("0 of 0 comparable cells" in line for line in summary)
    assert "no experiment of the paper is in these results" in "\n".join(summary)
    assert "Table II" in text and text.count("→ not evaluable") > 10
