"""Comparisons at fractions of D, accuracy against selection time, and pooling parts of one experiment."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import cli
from results_helpers import fixed_ranker, random_ranker, write_result_dir

from fsbench.config.experiment import FeatureFractions
from fsbench.config.files import fraction_size
from fsbench.results.compare import compare_selectors, run_compare
from fsbench.results.cost import accuracy_vs_time, pareto_front, selection_time
from fsbench.results.fractions import (
    at_fractions,
    best_per_dataset,
    compare_at_fractions,
    complete_selectors,
    fraction_grid,
    rank_table,
)
from fsbench.results.loading import load_result_sets
from fsbench.results.pooling import PoolError, pool_result_sets
from fsbench.results.stats_compare import CompareError, build_blocks

FRACTIONS = (0.1, 0.5)
#: dataset -> D; the fractions resolve to S = 1, 5 / 2, 10 / 4, 20 (3 and 7 are off the grid)
SIZES = {"a": 10, "b": 20, "c": 40, "d": 30}


def on_grid(d: int) -> set[int]:
    return {fraction_size(f, d) for f in FRACTIONS}


def error_of(d: int):
    """``good`` is best exactly at the fractions' S and worst at every other S; ``mid`` beats ``bad``."""

    def error(sel: str, n: int, r: int, s: int, rng: np.random.Generator) -> float:
        base = {"good": 0.1, "new": 0.15, "mid": 0.2, "all": 0.25, "bad": 0.3}[sel]
        if sel == "good" and s not in on_grid(d):
            base = 0.5
        return base + 0.01 * rng.random()

    return error


def write_fraction_run(
    root: Path, datasets=("a", "b", "c"), selectors=("good", "mid", "bad"), baseline=True, seed=0
) -> Path:
    """One result directory per dataset, S = the fractions' S plus one off-grid S, fractions in run.json
    (the split seeds are the helper's, the same in every call: parts of one experiment)."""
    for i, ds in enumerate(datasets):
        d = SIZES[ds]
        rankers = {s: (fixed_ranker([0, 1], d) if s == "good" else random_ranker(d)) for s in selectors}
        path = write_result_dir(
            root / ds,
            experiment="bench",
            dataset=ds,
            d=d,
            selectors=rankers,
            error=error_of(d),
            s_values=tuple(sorted(on_grid(d) | {3})),
            repeats=4,
            baseline=baseline,
            seed=seed + i,
        )
        info = json.loads((path / "run.json").read_text())
        info["effective_config"]["protocol"] = {"n_features": {"fraction_of_D": list(FRACTIONS)}}
        (path / "run.json").write_text(json.dumps(info))
    return root


def test_fraction_size_is_the_runs_rule():
    for d in (1, 2, 3, 4, 7, 10, 52, 256, 4026):
        for f in (0.01, 0.05, 0.1, 0.2, 0.25, 0.3, 0.5, 1.0):
            assert fraction_size(f, d) == FeatureFractions.size(f, d)
    assert fraction_size(0.3, 4) == 1 and fraction_size(0.5, 4) == 2  # half-up: 1.2 -> 1, 2.0 -> 2


def test_blocks_at_a_fraction_are_the_datasets_at_their_own_S(tmp_path):
    sets = load_result_sets([write_fraction_run(tmp_path)])
    for f in FRACTIONS:
        b = build_blocks(sets, fraction=f)
        assert len(b.values) == 3  # one block per dataset
        got = {idx[1]: idx[-1] for idx in b.values.index}
        assert got == {ds: fraction_size(f, SIZES[ds]) for ds in "abc"}
    # every S pooled: the off-grid S = 3, where good is worst, counts too
    assert len(build_blocks(sets).values) > 3
    with pytest.raises(CompareError, match="fraction"):
        build_blocks(sets, fraction=1.5)


def test_a_selector_best_on_every_dataset_has_average_rank_one(tmp_path):
    sets = load_result_sets([write_fraction_run(tmp_path)])
    assert fraction_grid(sets) == list(FRACTIONS)
    fcs = compare_at_fractions(sets)
    assert [fc.fraction for fc in fcs] == list(FRACTIONS)
    ranks = rank_table(fcs)
    for f in FRACTIONS:
        g = ranks[ranks["fraction"] == f].set_index("selector")
        assert g.loc["good", "average_rank"] == 1.0
        assert g.loc["mid", "average_rank"] == 2.0
        assert g.loc["bad", "average_rank"] == 3.0
        assert bool(g.loc["good", "best"]) and int(g["best"].sum()) == 1
        assert g["datasets"].eq(3).all()
        # the best is never significantly worse than itself
        assert bool(g.loc["good", "not_worse_holm"]) and bool(g.loc["good", "not_worse_nemenyi"])
    # k = 3 selectors over N = 3 datasets: the CD (Nemenyi) is q * sqrt(k (k + 1) / (6 N))
    assert ranks["cd"].iloc[0] == pytest.approx(2.343 * np.sqrt(3 * 4 / 18), rel=1e-3)
    # over every S, the off-grid S = 3 (good worst there) is a block too: good is no longer rank 1
    pooled_s = compare_selectors(sets)
    assert pooled_s.friedman.average_ranks["good"] > 1.0


def test_not_worse_than_the_best_follows_the_posthoc_tests(tmp_path):
    sets = load_result_sets([write_fraction_run(tmp_path, datasets=("a", "b", "c", "d"))])
    fc = compare_at_fractions(sets, [0.5])[0]
    ranks = rank_table([fc]).set_index("selector")
    post = fc.comparison.posthoc
    for sel in ("mid", "bad"):
        row = post[(post["a"] == "good") & (post["b"] == sel)].iloc[0]
        assert bool(ranks.loc[sel, "not_worse_nemenyi"]) == (not row["nemenyi_significant"])
        assert bool(ranks.loc[sel, "not_worse_holm"]) == (not row["holm_significant"])


def test_best_per_dataset_names_the_winner_and_the_first_fraction_reaching_it(tmp_path):
    sets = load_result_sets([write_fraction_run(tmp_path)])
    best = best_per_dataset(compare_at_fractions(sets))
    assert len(best) == 3 * len(FRACTIONS)
    assert set(best["best"]) == {"good"}
    assert best["S"].tolist() == [fraction_size(f, SIZES[ds]) for ds in "abc" for f in FRACTIONS]
    # one overall row per dataset, at the fraction of its lowest error
    overall = best[best["overall"]]
    assert sorted(overall["dataset"]) == ["a", "b", "c"]
    for _, g in best.groupby("dataset"):
        assert g.loc[g["overall"], "best_error"].iloc[0] == g["best_error"].min()


def test_equal_best_errors_are_all_named_and_the_smallest_fraction_wins():
    from fsbench.results.fractions import FractionComparison

    class _Blocks:
        metric = "error"

        def __init__(self, s):
            names = ["source", "dataset", "kernel", "n_train", "n_features"]
            idx = pd.MultiIndex.from_tuples([("src", "x", "rbf", 50, s)], names=names)
            self.values = pd.DataFrame({"p": [0.2], "q": [0.2], "r": [0.3]}, index=idx)

    class _Comp:
        def __init__(self, s):
            self.blocks = _Blocks(s)

    fcs = [FractionComparison(0.1, _Comp(1)), FractionComparison(0.5, _Comp(5))]  # type: ignore[arg-type]
    best = best_per_dataset(fcs)
    assert best["best"].tolist() == ["p, q", "p, q"]
    assert best["overall"].tolist() == [True, False]


def test_at_fractions_selects_each_datasets_S():
    t = pd.DataFrame(
        {"dataset": ["a"] * 3 + ["c"] * 2, "n_features": [1, 3, 5, 4, 20], "d": [10] * 3 + [40] * 2}
    )
    out = at_fractions(t, FRACTIONS)
    assert sorted(zip(out["fraction"], out["dataset"], out["n_features"])) == [
        (0.1, "a", 1),
        (0.1, "c", 4),
        (0.5, "a", 5),
        (0.5, "c", 20),
    ]
    by_source = at_fractions(t.drop(columns="d").assign(source="s"), [0.1], {("s", "a"): 10, ("s", "c"): 40})
    assert sorted(by_source["n_features"]) == [1, 4]


def test_pareto_front_minimises_both():
    x = np.array([1.0, 2.0, 3.0, 1.0, np.nan])
    y = np.array([5.0, 3.0, 4.0, 6.0, 1.0])
    # (3, 4) is dominated by (2, 3); (1, 6) by (1, 5); NaN never optimal
    assert pareto_front(x, y).tolist() == [True, True, False, False, False]


def test_accuracy_vs_time(tmp_path):
    ranks = pd.DataFrame(
        {"selector": ["fast", "fast", "slow", "slow", "both"], "average_rank": [3.0, 2.0, 1.0, 1.0, 3.0]}
    )
    times = pd.DataFrame({"selector": ["fast", "slow", "both"], "median_fit_cpu_s": [0.1, 10.0, 1.0]})
    t = accuracy_vs_time(ranks, times).set_index("selector")
    assert t.loc["fast", "average_rank"] == 2.5 and t.loc["fast", "comparisons"] == 2
    assert t.loc["fast", "pareto"] and t.loc["slow", "pareto"] and not t.loc["both", "pareto"]
    sets = load_result_sets([write_fraction_run(tmp_path)])
    st = selection_time(sets).set_index("selector")
    assert st.loc["good", "tasks"] == 3 * 4  # one fit per task, whatever the number of S
    assert st.loc["good", "median_fit_cpu_s"] == pytest.approx(0.01)


def test_parts_of_one_experiment_pool_and_others_do_not(tmp_path):
    write_fraction_run(tmp_path / "base")
    write_fraction_run(tmp_path / "mine", selectors=("new",), baseline=False, seed=7)
    sets = load_result_sets([tmp_path / "base", tmp_path / "mine"])
    pooled = pool_result_sets(sets, "bench")
    assert set(pooled.results["source"]) == {"bench"}
    assert len(pooled.results) == sum(len(s.results) for s in sets)
    # the added selector is paired with the others on the shared splits: between good and mid everywhere
    fc = compare_at_fractions([pooled], [0.5])[0]
    assert fc.comparison is not None and fc.comparison.friedman.n_blocks == 3
    assert fc.comparison.friedman.average_ranks.to_dict() == {"good": 1.0, "new": 2.0, "mid": 3.0, "bad": 4.0}
    text = run_compare([tmp_path], pool=True, fraction=0.5)[0]
    assert "3 blocks (dir, dataset, kernel, n_train) at S = 0.5 of D" in text
    assert "4 selectors: bad, good, mid, new" in text
    # the same selector in two parts: refused
    write_fraction_run(tmp_path / "again", selectors=("mid",), baseline=False, seed=9)
    with pytest.raises(PoolError, match="more than one"):
        pool_result_sets(load_result_sets([tmp_path / "base", tmp_path / "again"]))
    # other splits (another seed): refused
    other = tmp_path / "other"
    write_result_dir(
        other / "a",
        experiment="x",
        dataset="a",
        d=10,
        selectors={"new": random_ranker(10)},
        error=lambda *a: 0.2,
        s_values=(1, 5),
        repeats=4,
        baseline=False,
    )
    res = pd.read_csv(other / "a" / "results.csv")
    res["split_seed"] += 1
    res.to_csv(other / "a" / "results.csv", index=False)
    with pytest.raises(PoolError, match="split_seed"):
        pool_result_sets(load_result_sets([tmp_path / "base", other]))
    with pytest.raises(CompareError, match="split_seed"):
        run_compare([tmp_path / "base", other], pool=True)


def test_compare_command_takes_fraction_and_pool(tmp_path):
    write_fraction_run(tmp_path / "base")
    write_fraction_run(tmp_path / "mine", selectors=("new",), baseline=False, seed=7)
    out = cli("compare", tmp_path, "--pool", "--fraction", "0.1", "--out", tmp_path / "cmp")
    assert out.exit_code == 0, out.stderr
    assert "3 blocks (dir, dataset, kernel, n_train) at S = 0.1 of D" in out.stdout
    ranks = pd.read_csv(tmp_path / "cmp" / "ranks.csv").set_index("selector")
    assert ranks.loc["good", "average_rank"] == 1.0 and ranks.loc["new", "average_rank"] == 2.0
    # without --pool a block never spans two directories: no selector is in all six
    assert cli("compare", tmp_path, "--fraction", "0.1").exit_code == 2


def test_a_selector_missing_on_one_dataset_is_named_not_allowed_to_drop_it(tmp_path):
    write_fraction_run(tmp_path)
    f = tmp_path / "b" / "results.csv"
    res = pd.read_csv(f)
    res.loc[res["selector"] == "mid", "status"] = "error"
    res.to_csv(f, index=False)
    sets = [
        pool_result_sets(load_result_sets([tmp_path]))
    ]  # one experiment, as the benchmark's report reads it
    complete, missing = complete_selectors(sets)
    assert complete == ["bad", "good"] and missing == {"mid": ["b"]}
    # with every selector, the dataset where mid failed is no block; without mid, every dataset is one
    assert compare_at_fractions(sets, [0.5])[0].comparison.friedman.n_blocks == 2
    assert compare_at_fractions(sets, [0.5], selectors=complete)[0].comparison.friedman.n_blocks == 3
