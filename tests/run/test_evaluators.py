"""``protocol.evaluators``: more classifiers on the same top-S subsets, with no reselection."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import cli, write_config

from fsbench.results.loading import read_results

SMALL = {
    "name": "evals",
    "seed": 3,
    "dataset": "weston_nonlinear",
    "kernel": {"name": "rbf", "gamma": "median"},
    "selectors": ["all", "fisher", "random_ranking"],
    "protocol": {"n_train": 40, "n_test": 100, "repeats": 2, "n_features": [2, 5]},
}
EVALUATORS = [{"name": "knn", "k": 5}, "random_forest", "logreg"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("evals")
    plain = write_config(tmp / "plain.yaml", SMALL)
    more = write_config(tmp / "more.yaml", SMALL, protocol={"evaluators": EVALUATORS})
    for cfg, out in ((plain, tmp / "plain"), (more, tmp / "more")):
        res = cli("run", cfg, "--out", out, "--no-progress")
        assert res.exit_code == 0, res.stderr
    return tmp / "plain", tmp / "more"


def test_every_subset_is_scored_by_every_evaluator_without_reselection(runs):
    plain, more = runs
    rows = read_results(more, evaluators=True)
    ranked = rows[rows["selector"] != "all"]
    counts = ranked.groupby(["task_id", "n_features"])["classifier"].apply(list)
    assert all(c == ["svm", "knn_k5", "random_forest", "logreg"] for c in counts), counts.head()
    # the protocol's classifier's rows are those of the run without evaluators, bit for bit: the same
    # splits, the same rankings (nothing reselected), the same SVM
    keys = ["dataset", "selector", "repeat", "n_features"]
    a = read_results(plain).set_index(keys).sort_index()
    b = read_results(more).set_index(keys).sort_index()
    pd.testing.assert_series_equal(a["error"], b["error"])
    assert (b["classifier"] == "svm").all()
    ra = pd.read_csv(plain / "rankings.csv").set_index("task_id")["order"]
    rb = pd.read_csv(more / "rankings.csv").set_index("task_id")["order"]
    assert sorted(ra.tolist()) == sorted(rb.tolist())
    # the evaluators see different errors (they are other learners), in [0, 1]
    other = rows[rows["classifier"] != "svm"]
    assert other["error"].between(0, 1).all() and other["error"].nunique() > 1


@pytest.mark.parametrize(
    ("evaluators", "message"),
    [
        (["svm"], "evaluated already"),
        ([{"name": "knn", "k": 3}, {"name": "knn", "k": 3}], "knn_k3 is evaluated already"),
        ([{"name": "random_forest", "C": 1.0}], "C does not apply to classifier 'random_forest'"),
        (["tree"], "expected one of"),
        ([], "non-empty list"),
    ],
)
def test_bad_evaluators_are_one_line_errors(tmp_path, evaluators, message):
    cfg = write_config(tmp_path / "bad.yaml", SMALL, protocol={"evaluators": evaluators})
    res = cli("run", cfg, "--out", tmp_path / "out", "--no-progress")
    assert res.exit_code == 2 and len(res.stderr_lines) == 1, res.stderr
    assert message in res.stderr and "protocol.evaluators" in res.stderr
    assert not (tmp_path / "out").exists()


def test_rankings_top_keeps_the_first_max_s_features_of_the_same_orders(runs, tmp_path):
    plain, _ = runs
    cfg = write_config(tmp_path / "top.yaml", SMALL, protocol={"rankings": "top"})
    assert cli("run", cfg, "--out", tmp_path / "top", "--no-progress").exit_code == 0
    full = pd.read_csv(plain / "rankings.csv", dtype=str, keep_default_na=False).set_index("task_id")
    top = pd.read_csv(tmp_path / "top" / "rankings.csv", dtype=str, keep_default_na=False).set_index(
        "task_id"
    )
    for tid, row in top.iterrows():
        kept = row["order"].split()
        assert kept == full.loc[tid, "order"].split()[:5]  # max(S) = 5 of D = 52
        assert row["scores"] == ""
    # the results are those of the full store
    pd.testing.assert_series_equal(read_results(plain)["error"], read_results(tmp_path / "top")["error"])
