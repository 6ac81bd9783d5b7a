"""The benchmark's report (configs/benchmark: notes.md + hooks.py, no paper values), built by ``fsbench
build`` from a small synthetic benchmark whose answer is known: ``good`` is best on every dataset at every
fraction of D, and the only selector that ranks the toy's relevant features first."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import REPO
from results_helpers import fixed_ranker, random_ranker, write_result_dir

from fsbench.build import BuildError, build
from fsbench.config.files import fraction_size

FRACTIONS = (0.1, 0.3)
SIZES = {"a": 10, "b": 20, "c": 40, "weston_nonlinear": 52}
ERRORS = {"good": 0.1, "mid": 0.2, "all": 0.25, "bad": 0.3}


def _benchmark(results: Path) -> Path:
    for i, (ds, d) in enumerate(SIZES.items()):
        path = write_result_dir(
            results / "benchmark" / "benchmark" / ds,
            experiment="benchmark",
            dataset=ds,
            d=d,
            selectors={"good": fixed_ranker([0, 1], d), "mid": random_ranker(d), "bad": random_ranker(d)},
            error=lambda sel, n, r, s, rng: ERRORS[sel] + 0.01 * rng.random(),
            s_values=tuple(sorted({fraction_size(f, d) for f in FRACTIONS})),
            repeats=4,
            seed=i,
        )
        info = json.loads((path / "run.json").read_text())
        info["effective_config"]["protocol"] = {"n_features": {"fraction_of_D": list(FRACTIONS)}}
        info.update(n_tasks=1, n_done=1, n_failed=0)  # finished (the build refuses a partial run)
        info["excluded_selectors"] = ["slow"]  # defined in the config, left out of the run
        (path / "run.json").write_text(json.dumps(info))
    return results


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    results = _benchmark(tmp_path_factory.mktemp("bench") / "results")
    summary = build(results, REPO / "configs", papers=["benchmark"])
    assert summary.papers == ["benchmark"]
    return results / "benchmark"


def test_the_report_has_every_section(built):
    text = (built / "REPORT.md").read_text()
    assert text.startswith("# Benchmark")
    for heading in (
        "## Headline",
        "## Critical-difference diagrams over the datasets, at each fraction of D",
        "## Accuracy against selection time",
        "## Best method per dataset",
        "## Stability (Nogueira)",
        "## Ground truth on the toys",
        "## Similarity of the selectors' rankings",
        "## Runs",
    ):
        assert heading in text, heading
    # the hand-written notes come first, from configs/benchmark/notes.md
    notes = (REPO / "configs" / "benchmark" / "notes.md").read_text().strip().splitlines()[0]
    assert notes in text
    # every linked figure exists
    for line in text.splitlines():
        if line.startswith("!["):
            assert (built / line.split("](", 1)[1].rstrip(")")).is_file(), line


def test_cd_numbers_at_each_fraction(built):
    ranks = pd.read_csv(built / "analysis" / "ranks_by_fraction.csv")
    assert sorted(ranks["fraction"].unique()) == list(FRACTIONS)
    for f in FRACTIONS:
        g = ranks[ranks["fraction"] == f].set_index("selector")
        assert g.loc["good", "average_rank"] == 1.0 and g.loc["mid", "average_rank"] == 2.0
        assert g.loc["bad", "average_rank"] == 3.0
        assert (g["datasets"] == len(SIZES)).all()
        tag = f"{f:g}".replace(".", "p")
        assert (built / "analysis" / f"cd_nemenyi_{tag}.png").is_file()
        assert (built / "analysis" / f"cd_wilcoxon_holm_{tag}.png").is_file()
    assert "all" not in set(ranks["selector"])  # the baseline exists only at S = D
    text = (built / "REPORT.md").read_text()
    assert "| 10 % | 4 | 3 | good |" in text  # headline: the control at 10 % of D, 4 datasets, k = 3


def test_the_headline_tests_against_the_control(built):
    """Holm over the k − 1 comparisons with the best-ranked selector, the tables labelled so; the all-pairs
    tests only in the CD section, never called the more powerful."""
    res = pd.read_csv(built / "analysis" / "control_comparisons.csv")
    assert set(res["fraction"]) == set(FRACTIONS)
    for f in FRACTIONS:
        g = res[res["fraction"] == f]
        assert set(g["control"]) == {"good"} and set(g["selector"]) == {"good", "mid", "bad"}
        assert (g["k"] == 3).all() and (g["n_blocks"] == len(SIZES)).all()
        # N = 4 datasets: the smallest two-sided Wilcoxon p is 0.125, nothing is significantly worse
        assert g["wilcoxon_not_worse"].all()
        assert g["correction"].str.contains("k - 1 = 2 comparisons with the control good").all()
    text = (built / "REPORT.md").read_text()
    head = text.split("## Headline", 1)[1].split("\n## ", 1)[0]
    assert "not significantly worse (Wilcoxon, Holm over k − 1)" in head
    assert "significantly worse (rank z-test, Holm over k − 1)" in head
    # the rank z-test, on ranks alone (bad always last: z = 2.83), finds what Wilcoxon cannot at N = 4
    assert "| 10 % | 4 | 3 | good | 3: good, mid, bad | none | bad |" in head
    assert "more powerful" not in text
    cd = text.split("## Critical-difference diagrams", 1)[1].split("\n## ", 1)[0]
    assert "Holm over all 3 pairs" in cd and "Nemenyi (all pairs)" not in head


def test_best_per_dataset_and_accuracy_vs_time(built):
    best = pd.read_csv(built / "analysis" / "best_per_dataset.csv")
    assert set(best["best"]) == {"good"}
    # no best over the fractions: that would choose S by the test error
    assert "overall" not in best.columns
    assert "| overall |" not in (built / "REPORT.md").read_text()
    want = {(ds, f): fraction_size(f, d) for ds, d in SIZES.items() for f in FRACTIONS}
    assert {(r.dataset, r.fraction): r.S for r in best.itertuples()} == want
    acc = pd.read_csv(built / "analysis" / "accuracy_vs_time.csv").set_index("selector")
    # equal fit times: the most accurate selector alone is on the front
    assert acc.loc["good", "pareto_rank"] and not acc.loc["bad", "pareto_rank"]
    assert acc.loc["good", "average_rank"] == 1.0


def test_ground_truth_and_similarity(built):
    gt = pd.read_csv(built / "analysis" / "ground_truth_success.csv").set_index("selector")
    assert gt.loc["good", "success_rate"] == 1.0  # ranks x1, x2 first in every repeat
    assert set(gt["dataset"]) == {"weston_nonlinear"}
    sim = pd.read_csv(built / "analysis" / "similarity_spearman.csv").set_index("selector")
    assert set(sim.index) == {"good", "mid", "bad"}  # the baseline's arbitrary order is not a ranking
    assert np.allclose(np.diag(sim.loc[sim.index, sim.index].to_numpy()), 1.0)


def test_a_benchmark_not_run_yet_is_not_built(tmp_path):
    results = tmp_path / "results"
    (results / "other").mkdir(parents=True)
    with pytest.raises(BuildError, match="benchmark: not run yet"):
        build(results, REPO / "configs", papers=["benchmark"])
    (results / "benchmark").mkdir()  # a folder without a result table (e.g. a run's leftovers)
    with pytest.raises(BuildError, match="not run yet"):
        build(results, REPO / "configs", papers=["benchmark"])


def test_bootstrap_intervals_of_the_average_ranks(built):
    boot = pd.read_csv(built / "analysis" / "rank_bootstrap.csv")
    assert set(boot["fraction"]) == set(FRACTIONS) and set(boot["selector"]) == {"good", "mid", "bad"}
    assert (boot["n_boot"] == 2000).all() and (boot["seed"] == 0).all() and (boot["n_blocks"] == 4).all()
    good = boot[boot["selector"] == "good"]
    # first on every dataset: first in every resample
    assert (good["ci_low"] == 1.0).all() and (good["ci_high"] == 1.0).all()
    assert (good["share_best"] == 1).all()
    text = (built / "REPORT.md").read_text()
    assert "B = 2000 times (seed 0)" in text
    assert "| good | 1.0 [1.0, 1.0] | 1.0 [1.0, 1.0] |" in text


def test_does_selection_help(built):
    """good (error 0.10) beats all features (0.25) on every dataset, bad (0.30) loses on every one."""
    wtl = pd.read_csv(built / "analysis" / "wins_ties_losses.csv").set_index(["selector", "fraction"])
    for f in FRACTIONS:
        assert tuple(wtl.loc[("good", f), ["wins", "ties", "losses"]]) == (len(SIZES), 0, 0)
        assert tuple(wtl.loc[("bad", f), ["wins", "ties", "losses"]]) == (0, 0, len(SIZES))
    assert wtl["rule"].str.startswith("two-sided paired t-test").all()
    rel = pd.read_csv(built / "analysis" / "difference_to_all.csv").set_index(["selector", "fraction"])
    assert abs(rel.loc[("good", 0.1), "median"] + 0.15) < 0.01  # 0.10 − 0.25, up to the noise
    assert (rel["datasets"] == len(SIZES)).all()
    text = (built / "REPORT.md").read_text()
    part = text.split("## Does selection help?", 1)[1].split("\n## ", 1)[0]
    assert "The rule: two-sided paired t-test" in part
    assert f"| good | {len(SIZES)} / 0 / 0 |" in part and f"| bad | 0 / 0 / {len(SIZES)} |" in part


def test_what_was_run_is_counted_and_stated(built):
    text = (built / "REPORT.md").read_text()
    part = text.split("## What was run", 1)[1].split("\n## ", 1)[0]
    assert "**3 rankers** (bad, good, mid;" in part and f"**{len(SIZES)} datasets** × 4 repeats" in part
    assert "left out of this run: slow** (1 selector," in part and "The reason is their cost" in part
    # the S of each fraction per dataset, S = 1 flagged: a (D = 10) has S = 1 at 10 %
    assert "| a | 10 | **1** ⚑ | 3 |" in part
    assert "| weston_nonlinear | 52 | 5 | 16 |" in part
    assert "| *datasets with S = 1* |  | 1 | 0 |" in part
    for word in ("issue #", "issue's"):
        assert word not in text


def test_bayesian_signed_rank_of_the_leading_selectors(built):
    bayes = pd.read_csv(built / "analysis" / "bayes_signed_rank.csv")
    for f in FRACTIONS:
        g = bayes[bayes["fraction"] == f]
        # the three best-ranked (good, mid, bad) pairwise, and each against all features
        assert sorted(zip(g["a"], g["b"])) == sorted(
            [
                ("good", "mid"),
                ("good", "bad"),
                ("mid", "bad"),
                ("good", "all"),
                ("mid", "all"),
                ("bad", "all"),
            ]
        )
    assert (bayes["rope"] == 0.01).all() and (bayes["n_blocks"] == len(SIZES)).all()
    assert np.allclose(bayes[["p_a_better", "p_equivalent", "p_b_better"]].sum(axis=1), 1.0)
    # good's error is 15 points below all features' on every dataset: never "all better" nor equivalent
    ga = bayes[(bayes["a"] == "good") & (bayes["b"] == "all")]
    assert (ga["p_a_better"] > ga["p_b_better"]).all() and (ga["decision"] != "all").all()
    text = (built / "REPORT.md").read_text()
    assert "region of practical equivalence of ±1 percentage point of error" in text
