"""Kuncheva's consistency index and the Nogueira–Sechidis–Brown stability estimator.

Reference numbers: the demo notebook of Nogueira, Sechidis & Brown's reference implementation
(repository nogueirs/JMLR2018, ``python/stabilityDemo.ipynb``): Z1 (three identical subsets) → 1.0,
Z2 (the three 2-subsets of 3 features) → −0.5, and the printed random 10 × 10 matrix Z3 below →
Φ̂ = −0.037037037037 with variance 0.00516666666667.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from results_helpers import fixed_ranker, random_ranker, write_result_dir
from scipy import stats

from fsbench.results.loading import load_result_sets
from fsbench.results.stability import (
    kuncheva_consistency,
    nogueira_stability,
    plot_error_vs_stability,
    selection_matrix,
    stability_table,
)

Z3 = np.array(
    [
        [1, 1, 1, 1, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 1, 0, 1, 1, 1, 0, 0],
        [0, 1, 0, 0, 0, 1, 1, 1, 0, 0],
        [1, 1, 0, 0, 1, 0, 1, 0, 0, 0],
        [0, 1, 1, 0, 1, 1, 0, 0, 0, 0],
        [0, 1, 1, 1, 0, 0, 1, 0, 0, 0],
        [1, 0, 0, 1, 0, 0, 0, 0, 1, 1],
        [0, 0, 0, 1, 0, 1, 1, 1, 0, 0],
        [0, 0, 1, 1, 1, 1, 0, 0, 0, 0],
        [0, 0, 0, 0, 1, 0, 0, 1, 1, 1],
    ]
)


def test_identical_subsets_are_perfectly_stable():
    z = selection_matrix([np.array([3, 1, 0, 2, 4])] * 5, s=2)
    assert kuncheva_consistency(z) == 1.0
    res = nogueira_stability(z)
    assert res.stability == pytest.approx(1.0)
    assert res.variance == pytest.approx(0.0)


def test_hand_computed_pairs():
    d = 4
    # {0,1} vs {0,2}: r = 1, (1·4 − 2²) / (2·2) = 0; {0,1} vs {2,3}: (0 − 4) / 4 = −1
    assert kuncheva_consistency(selection_matrix([[0, 1, 2, 3], [0, 2, 1, 3]], 2, d)) == pytest.approx(0.0)
    assert kuncheva_consistency(selection_matrix([[0, 1, 2, 3], [2, 3, 0, 1]], 2, d)) == pytest.approx(-1.0)
    # three subsets: pairs give 0, -1, 0 -> mean -1/3
    z = selection_matrix([[0, 1, 2, 3], [0, 2, 1, 3], [2, 3, 0, 1]], 2, d)
    assert kuncheva_consistency(z) == pytest.approx(-1 / 3)
    # undefined at S = 0 and S = D
    assert np.isnan(kuncheva_consistency(selection_matrix([[0, 1, 2, 3]] * 3, 4, d)))
    assert np.isnan(nogueira_stability(selection_matrix([[0, 1, 2, 3]] * 3, 4, d)).stability)


def test_reference_implementation_demo_values():
    assert nogueira_stability(np.array([[1, 1, 0]] * 3)).stability == pytest.approx(1.0)
    assert nogueira_stability(np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1]])).stability == pytest.approx(-0.5)
    res = nogueira_stability(Z3)
    assert res.stability == pytest.approx(-0.037037037037, abs=1e-12)
    assert res.variance == pytest.approx(0.00516666666667, abs=1e-13)
    half = stats.norm.ppf(0.975) * np.sqrt(res.variance)
    assert (res.lower, res.upper) == pytest.approx((res.stability - half, res.stability + half))
    wider = nogueira_stability(Z3, alpha=0.01)
    assert wider.lower < res.lower and wider.upper > res.upper


def test_nogueira_equals_mean_kuncheva_for_equal_sizes():
    rng = np.random.default_rng(1)
    for m, d, s in [(5, 10, 3), (30, 34, 5), (12, 57, 40)]:
        z = selection_matrix([rng.permutation(d) for _ in range(m)], s, d)
        assert nogueira_stability(z).stability == pytest.approx(kuncheva_consistency(z), abs=1e-12)


def test_kuncheva_by_brute_force():
    rng = np.random.default_rng(2)
    d, k = 9, 4
    sets = [set(rng.choice(d, k, replace=False)) for _ in range(6)]
    z = np.zeros((6, d), bool)
    for i, s in enumerate(sets):
        z[i, list(s)] = True
    pairs = [(len(a & b) * d - k * k) / (k * (d - k)) for a, b in itertools.combinations(sets, 2)]
    assert kuncheva_consistency(z) == pytest.approx(np.mean(pairs))


def test_confidence_interval_covers_a_known_population_value():
    # a procedure that always keeps features 0..2 and swaps in one random feature in place of one
    # of them with probability 1/2: the population stability is well defined; check 95 % coverage
    rng = np.random.default_rng(3)
    d, m, s = 20, 40, 3
    big = []
    for _ in range(4000):
        o = rng.permutation(d)
        big.append(np.r_[[0, 1, 2], o[o > 2]] if rng.random() < 0.5 else np.r_[[0, 1], o[o > 1]])
    truth = nogueira_stability(selection_matrix(big, s, d)).stability
    covered = 0
    for _ in range(200):
        idx = rng.choice(len(big), m, replace=False)
        res = nogueira_stability(selection_matrix([big[i] for i in idx], s, d))
        covered += res.lower <= truth <= res.upper
    assert 0.88 <= covered / 200 <= 0.99


def test_stability_table_from_result_dirs(tmp_path):
    d = 8
    write_result_dir(
        tmp_path / "exp",
        experiment="exp",
        dataset="toy",
        d=d,
        selectors={"stable": fixed_ranker([0, 1, 2, 3], d), "noisy": random_ranker(d)},
        error=lambda sel, n, r, s, rng: 0.1 if sel == "stable" else 0.3,
        n_train=(20, 40),
        s_values=(2, 4, d),
        repeats=10,
    )
    sets = load_result_sets([tmp_path])
    t = stability_table(sets)
    # 2 selectors x 2 n_train x 3 S; the baseline "all" is skipped
    assert len(t) == 12 and set(t["selector"]) == {"stable", "noisy"}
    stable = t[(t.selector == "stable") & (t.n_features < d)]
    assert (stable["nogueira"] == 1.0).all() and (stable["kuncheva"] == 1.0).all()
    assert t.loc[t.n_features == d, "nogueira"].isna().all()  # undefined at S = D
    noisy = t[(t.selector == "noisy") & (t.n_features < d)]
    assert (noisy["nogueira"] < 0.6).all()
    assert (t["repeats"] == 10).all() and (t["d"] == d).all()
    assert (t.loc[t.selector == "stable", "mean_error"] == 0.1).all()
    # "stable" is both more stable and more accurate: the only Pareto-optimal selector below S = D
    below = t[t.n_features < d]
    assert list(below.loc[below["pareto"], "selector"].unique()) == ["stable"]
    fig = plot_error_vs_stability(t)
    assert fig is not None and len([a for a in fig.axes if a.has_data()]) == 2  # one panel per n_train
