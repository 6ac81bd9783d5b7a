"""The claim DSL and the table comparison beyond Ramona's error curves (``fsbench.papers.sources``,
``cells``, ``checks``, ``claims``): categorical x (datasets, cells), metrics other than the error, a
method's own output dimension, the paper's method ids mapped to our labels, a diagnostic's columns, the
ratio and one-sided significance checks, value tables with a second printed number, CPU tables with a
row per dataset — and every ``configs/*/paper_values.yaml`` written in that DSL, with each check naming
experiments and methods that exist.

Synthetic result rows with hand-made numbers (``test_paper_compare.rows``): each case holds in one
variant and fails in another.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_paper_compare import frame, rows

from fsbench.papers.cells import compare_table, relative_tolerance
from fsbench.papers.claims import FAILS, HOLDS, NOT_EVALUABLE, evaluate_check, evaluate_claim
from fsbench.papers.sources import metric, name_methods, select_rows
from fsbench.papers.values import load_paper_values, read_configs
from fsbench.results.loading import load_rows

ROOT = Path(__file__).resolve().parents[2]
PAPERS = sorted(p.parent.name for p in (ROOT / "configs").glob("*/paper_values.yaml"))


def pct(*v: float) -> dict[float, float]:
    return dict(zip([2.0] * len(v), (x / 100 for x in v)))


@pytest.fixture(scope="module")
def per_dataset() -> pd.DataFrame:
    """Experiment "e" at S = 2 on three datasets (error %): a beats b on d1 and d2, loses on d3."""
    parts = []
    for ds, (ea, eb) in {"d1": (10, 20), "d2": (10, 12), "d3": (30, 20)}.items():
        parts += [rows("e", "a", pct(ea), dataset=ds), rows("e", "b", pct(eb), dataset=ds)]
    return frame(*parts)


@pytest.mark.parametrize(
    "check, status",
    [
        ({"kind": "better", "selectors": ["a"], "than": ["b"], "x": "dataset", "aggregate": "each"}, FAILS),
        (
            {"kind": "better", "selectors": ["a"], "than": ["b"], "x": "dataset", "aggregate": "majority"},
            HOLDS,
        ),
        (
            {"kind": "better", "selectors": ["a"], "than": ["b"], "x": "dataset", "aggregate": "almost_all"},
            HOLDS,
        ),
        (
            {"kind": "better", "selectors": ["b"], "than": ["a"], "x": "dataset", "aggregate": "almost_all"},
            FAILS,
        ),
        (
            {"kind": "better", "selectors": ["a"], "than": ["b"], "x": "dataset", "datasets": ["d1", "d2"]}
            | {"aggregate": "each"},
            HOLDS,
        ),
        # accuracy: higher is better, so "a better than b" means a's accuracy is higher (its error lower)
        ({"kind": "better", "selectors": ["a"], "than": ["b"], "x": "dataset", "metric": "accuracy"}, HOLDS),
        (
            {"kind": "best", "selectors": ["b"], "x": "dataset", "metric": "accuracy", "aggregate": "any"},
            HOLDS,
        ),
        ({"kind": "above", "selectors": ["a"], "x": "dataset", "metric": "accuracy", "value": 85}, FAILS),
        ({"kind": "above", "selectors": ["a"], "x": "dataset", "metric": "accuracy", "value": 80}, HOLDS),
        ({"kind": "better", "selectors": ["a"], "than": ["zz"], "x": "dataset"}, NOT_EVALUABLE),
    ],
)
def test_categorical_x_and_accuracy(per_dataset, check, status):
    res = evaluate_check(check, per_dataset, "e")
    assert res.status == status, res.detail


def test_accuracy_detail_reads_higher(per_dataset):
    res = evaluate_check(
        {"kind": "better", "selectors": ["a"], "than": ["b"], "x": "dataset", "metric": "accuracy"},
        per_dataset,
        "e",
    )
    assert " > " in res.detail and "83.33 %" in res.detail  # mean accuracy of a over the three datasets


def test_at_own_takes_each_tasks_largest_S():
    # a transformer evaluated at S = 1, 2, 3 (its own output dimension is 3) against a baseline at S = 5
    t = rows("e", "t", {1.0: 0.40, 2.0: 0.30, 3.0: 0.10})
    for r in t:  # one task per repeat, whatever S
        r["task_id"] = f"t-{r['repeat']}"
    base = rows("e", "all", {5.0: 0.20}, label="KNNC")
    df = frame(t, base)
    chk = {"kind": "better", "selectors": ["t"], "than": ["KNNC"], "x": "dataset", "at": "own"}
    assert evaluate_check(chk, df, "e").status == HOLDS  # 10 % at S = 3 < 20 %
    assert (
        evaluate_check({**chk, "at": None, "x": "n_features"}, df, "e").status == NOT_EVALUABLE
    )  # no common S
    own = select_rows(df, {"at": "own"}, ["e"])
    assert sorted(own.groupby("selector")["error"].mean().round(2).tolist()) == [0.1, 0.2]


def test_paper_ids_mapped_to_labels_and_labels_or_names():
    # two labels of one selector: the paper's "m" is the "M (24 it.)" run
    df = frame(
        rows("e", "m", pct(10), label="M (24 it.)"),
        rows("e", "m", pct(30), label="M (100 it.)"),
        rows("e", "g", pct(20), label="G"),
    )
    src = {"methods": {"m": "M (24 it.)", "g": "G"}}
    res = evaluate_check(
        {"kind": "better", "selectors": ["m"], "than": ["g"], "x": "dataset"}, df, "e", source=src
    )
    assert res.status == HOLDS, res.detail
    # without the mapping the labels name the methods (the selector name "m" is ambiguous here)
    res = evaluate_check(
        {"kind": "better", "selectors": ["M (100 it.)"], "than": ["G"], "x": "dataset"}, df, "e"
    )
    assert res.status == FAILS, res.detail
    # one label per selector: method_frame names them by registry name, a check may still use the label
    one = frame(rows("e", "takes", pct(10), label="TAKES"), rows("e", "all", pct(20), label="KNNC"))
    assert (
        evaluate_check({"kind": "better", "selectors": ["TAKES"], "than": ["KNNC"]}, one, "e").status == HOLDS
    )
    assert (
        evaluate_check({"kind": "better", "selectors": ["takes"], "than": ["all"]}, one, "e").status == HOLDS
    )
    labelled = pd.DataFrame({"selector": ["x", "y"], "label": ["X", "Y"]})
    assert list(name_methods(labelled, ["X"])["selector"]) == ["X", "Y"]
    assert list(name_methods(labelled, ["x"])["selector"]) == ["x", "y"]


def _diagnostic(values: dict[tuple[str, str], list[float]]) -> pd.DataFrame:
    """A diagnostic's table: learner column, two settings (gamma_rule), E_train per repeat."""
    out = []
    for (rule, learner), vals in values.items():
        for r, v in enumerate(vals):
            out.append(
                {
                    "experiment": "diag",
                    "dataset": "toy",
                    "kernel": "rbf",
                    "selector": np.nan,
                    "learner": learner,
                    "gamma_rule": rule,
                    "n_train": 50,
                    "repeat": r,
                    "E_train": v,
                    "dim": 10 + r,
                    "status": "ok",
                    "task_id": f"{rule}-{learner}-{r}",
                }
            )
    return pd.DataFrame(out)


DIAG = _diagnostic(
    {
        ("median", "p"): [0.10, 0.12, 0.11],
        ("median", "q"): [0.20, 0.21, 0.22],
        ("median/4", "p"): [0.50, 0.52, 0.51],  # another setting, not compared
        ("median/4", "q"): [0.05, 0.06, 0.07],
    }
)
DIAG_SOURCE = {"experiment": "diag", "method_column": "learner", "where": {"gamma_rule": "median"}}


def test_diagnostic_columns_where_and_method_column():
    chk = {"kind": "better", "selectors": ["p"], "than": ["q"], "metric": "E_train", "x": "dataset"}
    assert evaluate_check(chk, DIAG, source=DIAG_SOURCE).status == HOLDS
    other = {**DIAG_SOURCE, "where": {"gamma_rule": "median/4"}}
    assert evaluate_check(chk, DIAG, source=other).status == FAILS


def test_value_table_with_a_second_printed_number():
    table = {
        "id": "t",
        "experiment": "diag",
        "metric": "value",
        "column": "E_train",
        "method_column": "learner",
        "where": {"gamma_rule": "median"},
        "also_compare": {"dim": {"column": "dim", "methods": ["p"]}},
        "cells": [
            {"dataset": "toy", "method": "p", "value": 0.115, "dim": 11},  # within our std (0.01)
            {"dataset": "toy", "method": "q", "value": 0.30, "dim": 99},  # outside; its dim is not compared
        ],
    }
    cells = compare_table(table, DIAG)
    assert [(c.method, c.quantity, c.status) for c in cells] == [
        ("p", "", "agree"),
        ("p", "dim", "agree"),  # 11 = mean of 10, 11, 12, std 1
        ("q", "", "differ"),
    ]
    assert cells[0].ours == pytest.approx(0.11) and cells[0].n_ours == 3


def test_secondary_relative_tolerance_is_beside_the_main_rule():
    # q: ours 0.21 ± 0.01. 0.23 is outside our std but within 10 % of the paper (0.023): differs by the
    # main rule, agrees by the secondary one; 0.30 fails both; a printed std switches the secondary off.
    table = {
        "id": "t",
        "experiment": "diag",
        "metric": "value",
        "column": "E_train",
        "digits": 2,
        "method_column": "learner",
        "where": {"gamma_rule": "median"},
        "cells": [
            {"dataset": "toy", "method": "q", "value": 0.23},
            {"dataset": "toy", "method": "q", "value": 0.30},
            {"dataset": "toy", "method": "q", "value": 0.23, "std": 0.001},
        ],
    }
    near, far, with_std = compare_table(table, DIAG)
    assert (near.status, near.agree_relative, near.agrees_secondary) == ("differ", True, True)
    assert (far.status, far.agree_relative, far.agrees_secondary) == ("differ", False, False)
    assert with_std.agree_relative is None and with_std.agrees_secondary == (with_std.status == "agree")


def test_relative_tolerance_scales():
    assert relative_tolerance(0.145, 0.003, "value", 3) == pytest.approx(0.0145)
    assert relative_tolerance(90.0, 0.5, "accuracy", 1) == pytest.approx(1.0)  # 10 % of the 10 % error
    assert relative_tolerance(12.0, 0.0, "value", 0) == pytest.approx(1.2)
    assert relative_tolerance(2.0, float("nan"), "value", 0) == pytest.approx(0.5)  # half a printed unit
    assert relative_tolerance(0.1, 0.3, "error", None) == pytest.approx(0.3)  # our std when larger


def test_cpu_table_with_a_row_per_dataset_and_an_unavailable_dataset():
    df = frame(
        rows("e1", "a", pct(10), dataset="iris", cpu={2.0: 1.0}),
        rows("e1", "b", pct(10), dataset="iris", cpu={2.0: 3.0}),
        rows("e2", "a", pct(10), dataset="letter", cpu={2.0: 10.0}),
        rows("e2", "b", pct(10), dataset="letter", cpu={2.0: 100.0}),
    )
    table = {
        "id": "t",
        "metric": "cpu_time",
        "experiment": {"iris": "e1", "letter": "e2"},
        "rows": {"key": "dataset", "values": ["iris", "letter", "nowhere"]},
        "cells": [
            {"dataset": "iris", "method": "a", "value": 1.0},
            {"dataset": "iris", "method": "b", "value": 2.5},  # ours 3 / 1: ×1.2, within a factor 2
            {"dataset": "letter", "method": "a", "value": 10.0},
            {"dataset": "letter", "method": "b", "value": 20.0},  # ours 100: ×5, outside
            {"dataset": "nowhere", "method": "a", "value": 5.0},
        ],
    }
    got = {(c.setting, c.method): c.status for c in compare_table(table, df)}
    assert got == {
        ("iris", "a"): "reference",
        ("iris", "b"): "agree",
        ("letter", "a"): "agree",
        ("letter", "b"): "differ",
        ("nowhere", "a"): "not available",  # no dataset card
    }


def test_indicator_metric_ratio_and_one_sided_significance():
    # a subset search choosing "0 1" in 3 of 4 draws; b never; fit times: b 10x slower than a
    a = rows("e", "a", pct(10), sd=0.05, cpu={2.0: 1.0})
    b = rows("e", "b", pct(40), sd=0.05, cpu={2.0: 10.0})
    for i, r in enumerate(a):
        r["subset"] = "0 1" if i < 3 else "2 3"
    for r in b:
        r["subset"] = "2 3"
    df = frame(a, b)
    share = {"column": "subset", "equals": "0 1"}
    assert metric(share).values(pd.DataFrame({"subset": ["0 1", "2 3", " 0 1 "]})).tolist() == [100, 0, 100]
    chk = {"kind": "above", "selectors": ["a"], "metric": share, "x": "dataset", "value": 75}
    assert evaluate_check(chk, df, "e").status == HOLDS
    assert evaluate_check({**chk, "value": 80}, df, "e").status == FAILS
    ratio = {"kind": "ratio", "selectors": ["a"], "than": ["b"], "metric": "fit_cpu_s", "x": "dataset"}
    assert evaluate_check({**ratio, "value": 10}, df, "e").status == HOLDS
    assert evaluate_check({**ratio, "value": 60}, df, "e").status == FAILS  # 10 is not within ×2 of 60
    assert evaluate_check({**ratio, "value": 6, "factor": 2}, df, "e").status == HOLDS
    nsw = {"kind": "not_significantly_worse", "x": "dataset", "aggregate": "each"}
    assert evaluate_check({**nsw, "selectors": ["a"], "than": ["b"]}, df, "e").status == HOLDS  # better
    assert evaluate_check({**nsw, "selectors": ["b"], "than": ["a"]}, df, "e").status == FAILS  # worse


def test_range_bounds_S_for_a_categorical_x():
    df = frame(rows("e", "a", {1.0: 0.1, 9.0: 0.5}), rows("e", "b", {1.0: 0.2, 9.0: 0.3}))
    chk = {
        "kind": "better",
        "selectors": ["a"],
        "than": ["b"],
        "x": ["dataset", "n_features"],
        "aggregate": "each",
    }
    assert evaluate_check(chk, df, "e").status == FAILS  # a loses at S = 9
    res = evaluate_check({**chk, "range": [1, 5]}, df, "e")
    assert res.status == HOLDS and "toy, S = 1" in res.detail


# ----------------------------------------------------------------------------- every paper's values
@pytest.mark.parametrize("paper", PAPERS)
def test_paper_values_use_the_one_dsl(paper):
    pv = load_paper_values(paper, ROOT / "configs" / paper / "paper_values.yaml")
    configs = read_configs(ROOT / "configs" / paper)
    kinds = {
        "better", "not_worse", "close", "best", "worst", "level", "above", "below", "min_level", "trend",
        "flat", "gain", "difference", "significant", "not_significant", "not_significantly_worse",
        "compare_experiments", "rank_share", "slope", "ratio",
    }  # fmt: skip
    entries = {e["id"]: e for e in [*pv.get("figures", []), *pv.get("tables", [])]}
    assert pv.get("tables") or pv.get("no_table_cells"), "a paper without tables must say why"
    for t in pv.get("tables", []):
        for name in _names(t.get("experiment")):
            assert name in configs, f"{paper} {t['id']}: no config named {name}"
        if t.get("cells"):
            assert t["metric"] in ("error", "accuracy", "value", "cpu_time", "rank_share"), t["id"]
    for cl in pv.get("claims", []):
        refs = cl.get("figure") or cl.get("table")
        for ref in refs if isinstance(refs, list) else [refs] if refs else []:
            assert ref in entries, f"{paper} {cl['id']}: no figure or table {ref}"
        for chk in cl.get("checks") or []:
            assert chk["kind"] in kinds, f"{paper} {cl['id']}: {chk['kind']}"
            assert chk.get("aggregate", "mean") in ("mean", "each", "majority", "almost_all", "any")
            metric(chk.get("metric", "error"))  # parses
            for name in _names(chk.get("experiment")) + [str(e) for e in chk.get("experiments") or []]:
                assert name in configs, f"{paper} {cl['id']}: no config named {name}"


def _names(exp) -> list[str]:
    if exp is None:
        return []
    if isinstance(exp, dict):
        return [str(v) for v in exp.values()]
    return [str(e) for e in exp] if isinstance(exp, list) else [str(exp)]


@pytest.mark.parametrize("paper", ["takes2011", "kife2011", "paul2015", "ring2015"])
def test_every_claim_of_the_committed_results_is_evaluated(paper):
    # a method or column misspelt in a check would make it "not evaluable" on the committed results
    results = ROOT / "results" / paper
    if not results.is_dir():
        pytest.skip(f"no committed results for {paper}")
    pv = load_paper_values(paper, ROOT / "configs" / paper / "paper_values.yaml")
    df = load_rows([results])
    entries = {e["id"]: e for e in [*pv.get("figures", []), *pv.get("tables", [])]}
    for cl in pv["claims"]:
        refs = cl.get("figure") or cl.get("table") or ""
        entry = entries.get(refs[0] if isinstance(refs, list) else refs, {})
        status, res = evaluate_claim(cl, df, entry.get("experiment"), source=entry)
        assert status != NOT_EVALUABLE, (cl["id"], [r.detail for r in res])
