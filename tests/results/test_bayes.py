"""The Bayesian signed-rank test (Benavoli et al. 2017) through baycomp, against known numbers.

Known numbers:

* baycomp's documented example (docs/functions.rst of the baycomp repository, "Multiple data sets"):
  ``two_on_multiple(nbc, j48, rope=1)`` → (0.23014, 0.00674, 0.76312) — naive Bayes against J48, average
  accuracies (%) over 10 × 10-fold cross-validation on 54 UCI data sets, prior strength 0.5 (baycomp's
  default, then and now), 50,000 samples, unseeded (its README prints (0.23124, 0.00666, 0.7621) for the same
  call: the Monte-Carlo spread is about 0.002). NBC's 54 averages are printed in baycomp's quick guide
  (``data.get_data("nbc", aggregate=True)``); J48's are the means of the 100 scores of each data set in
  baycomp's docs/code/accuracies.txt, computed exactly (5 decimals);
* a closed form of the model: with one block whose difference exceeds twice the ROPE, the posterior weights
  are (w_0, w_1) ~ Dir(s, 1), θ_A = 1 − w_0², θ_= = w_0², and A is the most probable region when
  w_0 < 2^(−1/2): P(A better) = P(Beta(s, 1) < 2^(−1/2)) = 2^(−s/2).
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

from fsbench.results import bayes
from fsbench.results.bayes import MissingExtraError, bayes_comparisons, bayesian_signed_rank

NBC = [
    95.94595, 71.39521, 83.3377, 49.98591, 76.16673, 86.21744, 86.21744, 81.87252, 52.8114, 75.04,
    71.93504, 50.12499, 72.03123, 60.0, 83.6875, 84.36091, 98.31118, 89.40237, 93.33322, 87.79086,
    87.59993, 56.84723, 85.09998, 62.66532, 74.63639, 96.38929, 95.76072, 90.29939, 92.16903, 93.37478,
    80.41671, 87.72004, 75.26002, 68.11142, 47.19786, 91.14715, 85.59372, 86.62217, 93.81435, 76.71185,
    92.19582, 89.82622, 79.21932, 95.41686, 59.03334, 62.06667, 46.32085, 58.78783, 79.968, 64.92861,
    98.70582, 97.19638, 57.61428, 93.98181,
]  # fmt: skip
J48 = [
    98.64226, 77.2214, 77.1957, 49.49834, 83.50006, 86.28991, 86.28991, 80.21214, 64.20668, 72.17,
    72.31167, 39.66248, 71.50976, 60.0, 78.57087, 80.51726, 99.18611, 90.11586, 93.59991, 99.43702,
    85.79996, 56.84723, 76.37137, 64.09357, 97.80228, 98.91727, 100.0, 97.18137, 78.59252, 96.60513,
    73.16674, 88.61625, 74.32345, 69.77806, 41.00794, 94.14284, 88.9546, 89.9792, 97.841, 74.67613,
    92.63445, 92.85163, 81.05974, 94.16605, 63.5, 77.66667, 46.78335, 76.53533, 74.872, 60.95248,
    90.72864, 95.03683, 57.0753, 92.60908,
]  # fmt: skip

pytest.importorskip("baycomp")


def test_baycomps_documented_example_nbc_against_j48():
    assert len(NBC) == len(J48) == 54
    p_nbc, p_rope, p_j48 = bayesian_signed_rank(NBC, J48, rope=1, prior=0.5, higher_is_better=True)
    np.testing.assert_allclose([p_nbc, p_rope, p_j48], [0.23014, 0.00674, 0.76312], atol=0.01)
    assert p_nbc + p_rope + p_j48 == pytest.approx(1.0)
    # the same question asked on error rates (100 − accuracy): lower is better, same answer
    acc = bayesian_signed_rank(NBC, J48, rope=1, prior=0.5, nsamples=5_000, higher_is_better=True)
    err = bayesian_signed_rank(100 - np.array(NBC), 100 - np.array(J48), rope=1, prior=0.5, nsamples=5_000)
    assert err == pytest.approx(acc)


@pytest.mark.parametrize("prior", [1.0, 0.5])
def test_one_block_beyond_the_rope_has_the_closed_form(prior):
    p_a, p_eq, p_b = bayesian_signed_rank([0.10], [0.20], rope=0.01, prior=prior, nsamples=20_000, seed=3)
    assert p_a == pytest.approx(
        2 ** (-prior / 2), abs=0.015
    )  # Monte-Carlo sd 0.003  # 0.707 for s = 1, 0.841 for s = 0.5
    assert p_b == 0.0 and p_eq == pytest.approx(1 - p_a)


def test_swapping_the_methods_swaps_the_probabilities_and_the_seed_fixes_them():
    rng = np.random.default_rng(0)
    a = rng.uniform(0.1, 0.3, 12)
    b = a + rng.normal(0.005, 0.01, 12)
    ab = bayesian_signed_rank(a, b, rope=0.01, nsamples=5_000, seed=1)
    ba = bayesian_signed_rank(b, a, rope=0.01, nsamples=5_000, seed=1)
    assert ab == pytest.approx(ba[::-1])
    assert bayesian_signed_rank(a, b, rope=0.01, nsamples=5_000, seed=1) == ab
    p_a, p_eq, p_b = bayesian_signed_rank(a, b, rope=0.0, nsamples=5_000, seed=1)
    assert p_eq == 0.0 and p_a + p_b == pytest.approx(1.0)
    with pytest.raises(ValueError):
        bayesian_signed_rank(a, b[:-1])
    with pytest.raises(ValueError):
        bayesian_signed_rank(a, b, rope=-0.1)


def test_without_baycomp_one_line_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "baycomp", None)  # import_module("baycomp") now raises ImportError
    with pytest.raises(MissingExtraError, match=r"pip install 'fsbench\[stats\]'") as info:
        bayesian_signed_rank([0.1, 0.2], [0.2, 0.3])
    assert "\n" not in str(info.value) and bayes.EXTRA == "stats"


def long_table() -> pd.DataFrame:
    """Two fractions, 8 datasets, 3 repeats: ``best`` and ``twin`` within 0.001, ``far`` 0.05 worse,
    ``all`` (the baseline) 0.04 worse than ``best``."""
    rng = np.random.default_rng(5)
    rows = []
    for f in (0.1, 0.5):
        for k in range(8):
            base = rng.uniform(0.05, 0.3)
            for sel, shift in (("best", 0.0), ("twin", 0.001), ("far", 0.05), ("all", 0.04)):
                for r in range(3):
                    v = base + shift + rng.normal(0, 0.002)
                    rows.append({"fraction": f, "dataset": f"d{k}", "selector": sel, "repeat": r, "value": v})
    return pd.DataFrame(rows)


def test_comparisons_pair_the_leaders_and_each_leader_with_all_features():
    t = long_table()
    t.loc[(t.selector == "all") & (t.dataset == "d0") & (t.repeat == 0), "status"] = "error"
    t["status"] = t["status"].fillna("ok")
    res = bayes_comparisons(t, n_leading=2, nsamples=3_000, by="fraction")
    assert len(res) == 2 * 3  # per fraction: best–twin, best–all, twin–all
    r = res[res.fraction == 0.1].set_index(["a", "b"])
    assert set(r.index) == {("best", "twin"), ("best", "all"), ("twin", "all")}
    assert r.loc[("best", "twin"), "decision"] == "equivalent"  # 0.001 apart, ROPE 0.01
    assert r.loc[("best", "all"), "decision"] == "best"  # 0.04 lower error on every dataset
    assert r.loc[("best", "all"), "p_a_better"] > 0.95
    assert (res["n_blocks"] == 8).all() and (res["rope"] == 0.01).all() and (res["prior"] == 1.0).all()
    again = bayes_comparisons(t, n_leading=2, nsamples=3_000, by="fraction")
    pd.testing.assert_frame_equal(res, again)  # seeded
    named = bayes_comparisons(t, leading=["far", "best"], baseline="none", nsamples=1_000, by="fraction")
    assert set(zip(named.a, named.b)) == {("far", "best")}  # no baseline in the table: leaders only
