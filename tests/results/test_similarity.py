"""Ranking similarity between selectors on the same splits (fsbench.results.similarity)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from results_helpers import fixed_ranker, random_ranker, write_result_dir
from scipy.stats import kendalltau, spearmanr

from fsbench.results.loading import load_result_sets
from fsbench.results.similarity import cluster_order, plot_similarity, ranking_similarity

D = 8


def _dir(tmp_path: Path) -> Path:
    # "same" repeats "base" every split, "reverse" reverses it; "noise" is a fresh permutation
    def base(n, r, rng):
        return np.roll(np.arange(D), r)

    return write_result_dir(
        tmp_path / "exp",
        experiment="exp",
        dataset="toy",
        d=D,
        selectors={
            "base": base,
            "same": base,
            "reverse": lambda n, r, rng: base(n, r, rng)[::-1],
            "noise": random_ranker(D),
            "fixed": fixed_ranker([3, 1], D),
        },
        error=lambda s, n, r, S, rng: 0.1,
        repeats=5,
        baseline=False,
    )


@pytest.mark.parametrize("method", ["spearman", "kendall"])
def test_identical_and_reversed_rankings(tmp_path: Path, method: str) -> None:
    m, c = ranking_similarity(load_result_sets([_dir(tmp_path)]), method)
    assert m.loc["base", "same"] == pytest.approx(1.0)
    assert m.loc["base", "reverse"] == pytest.approx(-1.0)
    assert (c.loc["base", ["same", "reverse", "noise", "fixed"]] == 5).all()
    assert np.allclose(m.to_numpy(), m.to_numpy().T)


@pytest.mark.parametrize(("method", "ref"), [("spearman", spearmanr), ("kendall", kendalltau)])
def test_mean_over_splits_equals_scipy(tmp_path: Path, method: str, ref) -> None:
    sets = load_result_sets([_dir(tmp_path)])
    rk = sets[0].rankings
    want = []
    for r in range(5):
        a = rk[(rk.selector == "base") & (rk.repeat == r)].order_idx.iloc[0]
        b = rk[(rk.selector == "noise") & (rk.repeat == r)].order_idx.iloc[0]
        ra, rb = np.argsort(a), np.argsort(b)  # rank of each feature
        want.append(ref(ra, rb).statistic)
    m, _ = ranking_similarity(sets, method)
    assert m.loc["base", "noise"] == pytest.approx(np.mean(want), abs=1e-12)


def test_clusters_put_alike_selectors_together(tmp_path: Path) -> None:
    m, _ = ranking_similarity(load_result_sets([_dir(tmp_path)]))
    order = cluster_order(m)
    assert abs(order.index("base") - order.index("same")) == 1
    paths = plot_similarity(m, tmp_path / "sim", "Spearman")
    assert all(p.stat().st_size > 0 for p in paths)


def test_partial_orders_and_selection_are_left_out(tmp_path: Path) -> None:
    d = _dir(tmp_path)
    rk = (d / "rankings.csv").read_text().splitlines()
    # the "fixed" selector keeps only its first two features (a subset search's partial order)
    rk = [line if ",fixed," not in line else line.rsplit(",", 1)[0] + ",3 1" for line in rk]
    (d / "rankings.csv").write_text("\n".join(rk) + "\n")
    sets = load_result_sets([d])
    m, _ = ranking_similarity(sets)
    assert "fixed" not in m.index
    m2, _ = ranking_similarity(sets, selectors=["base", "reverse"])
    assert list(m2.index) == ["base", "reverse"]
