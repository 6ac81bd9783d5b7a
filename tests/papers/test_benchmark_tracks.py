"""The benchmark's report over several tracks (configs/benchmark/hooks.py): each track analysed on its own,
per evaluator, with a recommendation generated from the numbers and the scenarios' ground truth.

Two tiny tracks are run for real (``fsbench run``): ``classic`` (S as fractions of D) and ``scenarios`` (an
absolute grid of S), on the same three generated datasets, with two evaluators besides the SVM."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from conftest import REPO, cli, write_config
from scipy import stats

from fsbench.build import build
from fsbench.config.files import fraction_size
from fsbench.results.tracks import group_by_track

DATASETS = ["weston_linear", "weston_nonlinear", "scen_xor"]
SELECTORS = ["all", "fisher", "random_ranking", "relieff"]
FRACTIONS = [0.05, 0.2]
GRID = [2, 10]
BASE = {
    "paper": "benchmark",
    "seed": 5,
    "kernel": {"name": "rbf", "gamma": "median"},
    "protocol": {
        "n_train": 40,
        "n_test": 100,
        "repeats": 3,
        "stratify": False,
        "evaluators": [{"name": "knn", "k": 5}, "logreg"],
    },
    "dataset": [{"name": d} for d in DATASETS],
    "selectors": SELECTORS,
}
TRACKS = {"classic": {"fraction_of_D": FRACTIONS}, "scenarios": GRID}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("tracks")
    results = tmp / "results"
    for name, nf in TRACKS.items():
        cfg = write_config(tmp / f"{name}.yaml", {**BASE, "name": name}, protocol={"n_features": nf})
        res = cli("run", cfg, "--out", results / "benchmark" / name, "--no-progress")
        assert res.exit_code == 0, res.stderr
    build(results, REPO / "configs", papers=["benchmark"])
    return results / "benchmark"


def _part(text: str, heading: str) -> str:
    return text.split(heading, 1)[1].split("\n## ", 1)[0]


def test_each_track_has_its_own_sections(built):
    text = (built / "REPORT.md").read_text()
    assert "## Tracks" in text and "| classic | fractions of D | 5 %, 20 % | 3 |" in text
    assert "| scenarios | absolute S | 2, 10 | 3 |" in text
    classic, scen = _part(text, "## Track `classic`"), _part(text, "## Track `scenarios`")
    for heading in ("### Headline", "### Per evaluator", "### Recommendation", "#### S = 5 % of D"):
        assert heading in classic, heading
    for heading in ("### Per evaluator", "### Recommendation", "### Ground truth: who finds"):
        assert heading in scen, heading
    assert "### Ground truth: who finds" not in classic and "### Headline" not in scen
    # kept apart: every test of a track has that track's 3 datasets as blocks, never 6
    for name in TRACKS:
        comps = pd.read_csv(built / "analysis" / name / "evaluator_comparisons.csv")
        assert (comps["n_blocks"] == len(DATASETS)).all()
    ranks = pd.read_csv(built / "analysis" / "classic" / "ranks_by_fraction.csv")
    assert (ranks["datasets"] == len(DATASETS)).all()
    for word in ("issue #", "issue's"):
        assert word not in text


def test_per_evaluator_tables(built):
    text = (built / "REPORT.md").read_text()
    for name, by in (("classic", "fraction"), ("scenarios", "S")):
        comps = pd.read_csv(built / "analysis" / name / "evaluator_comparisons.csv")
        assert set(comps["evaluator"]) == {"svm", "knn_k5", "logreg"}
        assert sorted(comps[by].unique()) == (FRACTIONS if by == "fraction" else GRID)
        agree = pd.read_csv(built / "analysis" / name / "evaluator_agreement.csv")
        assert len(agree) == 3 * 2  # 3 pairs of evaluators at 2 groups
        assert agree["kendall_tau"].between(-1, 1).all()
        part = _part(text, f"## Track `{name}`")
        assert "| selector | knn_k5 | logreg | svm |" in part
        assert "| knn_k5 vs logreg |" in part


def _holm(p: list[float]) -> np.ndarray:
    order = np.argsort(p, kind="stable")
    adj, running = np.empty(len(p)), 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, (len(p) - i) * p[j]))
        adj[j] = running
    return adj


def _expected(rows: pd.DataFrame) -> tuple[str, set[str]]:
    """Control and not-significantly-worse set, recomputed with pandas and scipy from results.csv rows."""
    wide = rows.groupby(["dataset", "selector"])["error"].mean().unstack().round(10)
    ranks = wide.apply(lambda r: pd.Series(stats.rankdata(r), index=wide.columns), axis=1).mean()
    control = ranks.idxmin()
    others = [s for s in wide.columns if s != control]
    p = []
    for s in others:
        d = (wide[s] - wide[control]).to_numpy()
        p.append(1.0 if np.all(d == 0) else stats.wilcoxon(d, zero_method="zsplit").pvalue)
    keep = {s for s, a in zip(others, _holm(p)) if a > 0.05}
    return control, {control, *keep}


def test_the_recommendation_is_the_recomputed_set(built):
    text = (built / "REPORT.md").read_text()
    for name, by in (("classic", "fraction"), ("scenarios", "S")):
        raw = pd.read_csv(built / name / "results.csv")
        raw = raw[(raw["status"] == "ok") & (raw["selector"] != "all")]
        d_of = (
            pd.read_csv(built / name / "results.csv")
            .query("selector == 'all'")
            .groupby("dataset")["n_features"]
            .max()
        )
        rec = pd.read_csv(built / "analysis" / name / "recommendations.csv")
        for (v, ev), g in rec.groupby([by, "evaluator"]):
            rows = raw[raw["classifier"] == ev]
            if by == "fraction":
                s_of = {ds: fraction_size(v, int(d)) for ds, d in d_of.items()}
                rows = rows[rows["n_features"] == rows["dataset"].map(s_of)]
            else:
                rows = rows[rows["n_features"] == v]
            control, keep = _expected(rows)
            assert set(g["selector"]) == keep, (name, v, ev)
            assert g.loc[g["is_control"], "selector"].item() == control
            # the cost named is the median fit CPU seconds of the selector's tasks
            for r in g.itertuples():
                t = raw[raw["selector"] == r.selector].drop_duplicates("task_id")["fit_cpu_s"].median()
                assert np.isclose(r.median_fit_cpu_s, t)
        part = _part(text, f"## Track `{name}`").split("### Recommendation", 1)[1]
        assert "ranks best (average rank" in part and "Pareto front of mean average rank" in part
        front = pd.read_csv(built / "analysis" / name / "rank_cost_front.csv")
        assert front.groupby("evaluator")["pareto"].any().all()


def test_ground_truth_rows_for_the_scenario_track(built):
    who = pd.read_csv(built / "analysis" / "scenarios" / "recovery_who_finds.csv")
    assert set(who["dataset"]) == set(DATASETS)
    assert set(who["selector"]) == set(SELECTORS) - {"all"}
    assert (who["repeats"] == 3).all()
    assert (built / "analysis" / "scenarios" / "recovery.md").is_file()
    text = (built / "REPORT.md").read_text()
    part = _part(text, "## Track `scenarios`")
    assert "| scen_xor | 100 | 2 |" in part and "| weston_linear | 202 | 6 |" in part
    assert "(analysis/scenarios/recovery_who_finds.csv)" in part


def test_any_collection_gets_the_same_page_with_cross_dataset(built, tmp_path):
    """A user's own collection (not a paper folder) gets the benchmark's analyses with
    ``fsbench report --cross-dataset``: the same sections and the same tables as the benchmark's page."""
    import json
    import shutil

    own = tmp_path / "mine"
    for name in TRACKS:
        shutil.copytree(built / name, own / name, ignore=shutil.ignore_patterns("plots", "stability*"))
        run = json.loads((own / name / "run.json").read_text())
        del run["effective_config"]["paper"]  # one's own runs: no paper, so no paper folder's page
        (own / name / "run.json").write_text(json.dumps(run))
    res = cli("report", own, "--cross-dataset")
    assert res.exit_code == 0, res.stderr
    text = (own / "REPORT.md").read_text()
    ours = (built / "REPORT.md").read_text()
    for heading in ("## Tracks", "## Track `classic`", "## Track `scenarios`", "### Recommendation"):
        assert heading in text, heading
    assert _part(text, "## Track `classic`") == _part(ours, "## Track `classic`")
    for name in TRACKS:
        a = pd.read_csv(own / "analysis" / name / "evaluator_comparisons.csv")
        b = pd.read_csv(built / "analysis" / name / "evaluator_comparisons.csv")
        pd.testing.assert_frame_equal(a, b)
    # without the flag, the page has none of it; a paper folder refuses the flag
    plain = cli("report", own, "--out", tmp_path / "plain.md")
    assert plain.exit_code == 0 and "## Tracks" not in (tmp_path / "plain.md").read_text()
    refused = cli("report", REPO / "results" / "benchmark", "--cross-dataset")
    assert refused.exit_code == 2 and "--cross-dataset is for other directories" in refused.stderr


def test_a_run_joins_a_track_by_its_track_key():
    def rs(cfg):
        return SimpleNamespace(run={"effective_config": cfg})

    sets = [
        rs({"name": "scenarios"}),
        rs({"name": "classic"}),
        rs({"name": "pn", "track": "scenarios"}),
        rs({}),
    ]
    got = {k: len(v) for k, v in group_by_track(sets).items()}
    assert got == {"benchmark": 1, "classic": 1, "scenarios": 2}
