"""Post-hoc tests against a control, all pairs, rank bootstrap and order agreement on long tables.

The hard-coded numbers come from J. Demšar, "Statistical comparisons of classifiers over multiple data
sets", JMLR 7:1–30 (2006): the Holm example after Table 6, comparing C4.5 (the control) with its three
variants by the rank z-test — z p-values 0.016 (C4.5+m+cf), 0.019 (C4.5+m), 0.607 (C4.5+cf), Holm rejects
the first two — and Table 2 / §3.1.3 (Wilcoxon, C4.5+m vs C4.5: T = min(R+, R−) = 12). The data are those of
test_results_stats_compare.py (Table 6).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from test_results_stats_compare import AUC, METHODS, PAPER_RANKS, _frame

from fsbench.results.posthoc import (
    all_pairs,
    control_comparisons,
    not_worse_sets,
    order_agreement,
    rank_bootstrap,
)
from fsbench.results.stats_compare import CompareError, posthoc_table, posthoc_vs_control, rank_blocks


def test_z_test_against_the_control_reproduces_demsars_holm_example():
    res = posthoc_vs_control(_frame(AUC), _frame(PAPER_RANKS), control="C4.5", higher_is_better=True)
    r = res.set_index("selector")
    assert list(res["selector"]) == ["C4.5", "C4.5+m+cf", "C4.5+m", "C4.5+cf"]  # control, then by rank
    # SE = sqrt(4·5 / (6·14)) = 0.488; z = (R_i − R_c) / SE with R from the published ranks
    assert r.loc["C4.5+m+cf", "z"] == pytest.approx((1.964 - 3.143) / 0.488, abs=5e-3)
    # the paper prints 0.607 for the last; its z = 0.25 / 0.488 gives 0.608 (here from unrounded ranks too)
    np.testing.assert_allclose(
        r.loc[["C4.5+m+cf", "C4.5+m", "C4.5+cf"], "z_p"], [0.016, 0.019, 0.607], atol=2e-3
    )
    # Holm over the k − 1 = 3 comparisons: 3 × 0.016, 2 × 0.019 → both below 0.05; 0.607 stays
    np.testing.assert_allclose(
        r.loc[["C4.5+m+cf", "C4.5+m", "C4.5+cf"], "z_holm_p"], [0.048, 0.048, 0.607], atol=2e-3
    )
    assert r["z_not_worse"].all()  # the three differ from C4.5, but by being *better*
    assert (r["k"] == 4).all() and (r["n_blocks"] == 14).all()
    assert "k - 1 = 3 comparisons with the control C4.5" in r.loc["C4.5", "correction"]


def test_wilcoxon_against_the_control_is_the_pairwise_test_holm_corrected_over_k_minus_1():
    res = posthoc_vs_control(_frame(AUC), None, control="C4.5", higher_is_better=True).set_index("selector")
    # Table 2: C4.5+m against C4.5, T = 12, better on 10 data sets, equal on 2, worse on 2
    row = res.loc["C4.5+m"]
    assert row["wilcoxon_T"] == pytest.approx(12.0)
    assert (row["wins"], row["ties"], row["losses"]) == (10, 2, 2)
    others = ["C4.5+m+cf", "C4.5+m", "C4.5+cf"]
    raw = [stats.wilcoxon(AUC[:, METHODS.index(m)] - AUC[:, 0], zero_method="zsplit").pvalue for m in others]
    np.testing.assert_allclose(res.loc[others, "wilcoxon_p"], raw, rtol=1e-12)
    m = len(others)
    order = np.argsort(raw)
    holm = np.empty(m)
    holm[order] = np.minimum(1, np.maximum.accumulate((m - np.arange(m)) * np.asarray(raw)[order]))
    np.testing.assert_allclose(res.loc[others, "wilcoxon_holm_p"], holm, rtol=1e-12)


def test_the_default_control_is_the_best_average_rank_and_worse_means_worse():
    rng = np.random.default_rng(1)
    base = rng.uniform(0.1, 0.3, size=12)
    values = pd.DataFrame(
        {
            "best": base,
            "close": base + 0.001 * rng.standard_normal(12),
            "bad": base + 0.05,
            "good": base + 0.002,
        }
    )
    res = posthoc_vs_control(values).set_index("selector")
    expected = rank_blocks(values).mean().sort_values(kind="stable").index[0]
    assert res["control"].iloc[0] == expected and res.loc[expected, "is_control"]
    assert not res.loc["bad", "wilcoxon_not_worse"] and not res.loc["bad", "z_not_worse"]
    assert res.loc["bad", "losses"] == 12
    assert res.loc["bad", "median_diff"] == pytest.approx(np.median(values["bad"] - values[expected]))
    assert res.loc["close", "wilcoxon_not_worse"]
    # the same values as accuracies: the best is now the one with the largest values
    assert posthoc_vs_control(values, higher_is_better=True)["control"].iloc[0] == "bad"
    with pytest.raises(CompareError):
        posthoc_vs_control(values, control="nobody")


def long_table(
    values: pd.DataFrame, repeats: int = 2, noise: float = 0.0, seed: int = 0, by: dict | None = None
) -> pd.DataFrame:
    """A long table whose per-block means over the repeats are ``values``: exactly without noise (the mean
    of two equal doubles is that double), up to rounding with noise (of mean zero per block)."""
    rng = np.random.default_rng(seed)
    rows = []
    for ds, row in values.iterrows():
        eps = rng.standard_normal(repeats) * noise
        eps -= eps.mean()
        for sel, v in row.items():
            for r in range(repeats):
                rows.append({**(by or {}), "dataset": ds, "selector": sel, "repeat": r, "value": v + eps[r]})
    return pd.DataFrame(rows)


def test_control_comparisons_on_a_long_table_match_the_wide_function_per_group():
    values = pd.DataFrame(-AUC, index=[f"d{i}" for i in range(14)], columns=METHODS)
    table = pd.concat(
        [long_table(values, by={"fraction": 0.1}), long_table(values[::-1], seed=3, by={"fraction": 0.2})]
    )
    res = control_comparisons(table, by="fraction")
    assert list(res["fraction"].unique()) == [0.1, 0.2]
    wide = posthoc_vs_control(values)
    got = res[res["fraction"] == 0.1].drop(columns="fraction").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, wide, check_exact=False, rtol=1e-9)
    sets = not_worse_sets(res, by="fraction")
    assert sets["control"].tolist() == ["C4.5+m+cf", "C4.5+m+cf"]
    assert sets["not_worse"].iloc[0].split(", ")[0] == "C4.5+m+cf"
    assert "k - 1 = 3" in sets["correction"].iloc[0]


def test_a_failed_split_is_dropped_for_every_selector_of_the_block():
    values = pd.DataFrame({"a": [0.1, 0.2, 0.3], "b": [0.2, 0.3, 0.4]}, index=["x", "y", "z"])
    table = long_table(values, repeats=4, noise=1e-3)
    bad = (table["dataset"] == "x") & (table["selector"] == "a") & (table["repeat"] == 0)
    table.loc[bad, "value"] = 5.0  # a huge error on a split that failed...
    table["status"] = np.where(bad, "error", "ok")  # ...is not counted, nor b's value on that split
    res = control_comparisons(table)
    assert res.loc[res["selector"] == "b", "median_diff"].iloc[0] == pytest.approx(0.1)


def test_all_pairs_is_the_existing_posthoc_table_on_the_paired_blocks():
    values = pd.DataFrame(-AUC, index=[f"d{i}" for i in range(14)], columns=METHODS)
    res = all_pairs(long_table(values))
    ref = posthoc_table(values[sorted(METHODS)], rank_blocks(values[sorted(METHODS)]))
    pd.testing.assert_frame_equal(res.reset_index(drop=True), ref, check_exact=False, rtol=1e-9)
    with pytest.raises(CompareError):
        all_pairs(long_table(values.iloc[:1]))  # one block: nothing to compare


def test_rank_bootstrap_is_seeded_resamples_rows_of_ranks_and_brackets_the_observed_rank():
    values = pd.DataFrame(-AUC, index=[f"d{i}" for i in range(14)], columns=METHODS)
    table = long_table(values)
    res = rank_bootstrap(table, n_boot=500, seed=7)
    again = rank_bootstrap(table, n_boot=500, seed=7)
    pd.testing.assert_frame_equal(res, again)
    # the same draws by hand: rank each block, draw block indices, average
    ranks = rank_blocks(values.sort_index()[sorted(METHODS)]).to_numpy()  # blocks in the table's order
    idx = np.random.default_rng(7).integers(0, 14, size=(500, 14))
    boot = np.array([ranks[i].mean(axis=0) for i in idx])
    r = res.set_index("selector").loc[sorted(METHODS)]
    np.testing.assert_allclose(r["ci_low"], np.quantile(boot, 0.025, axis=0))
    np.testing.assert_allclose(r["ci_high"], np.quantile(boot, 0.975, axis=0))
    np.testing.assert_allclose(r["average_rank"], ranks.mean(axis=0))
    assert (r["ci_low"] <= r["average_rank"]).all() and (r["average_rank"] <= r["ci_high"]).all()
    assert r["share_best"].sum() == pytest.approx(1.0)
    assert (res["n_boot"] == 500).all() and (res["level"] == 0.95).all()


def test_a_selector_best_everywhere_has_a_degenerate_interval_at_rank_one():
    values = pd.DataFrame(
        {"top": [0.1, 0.2, 0.3, 0.4], "mid": [0.2, 0.5, 0.4, 0.45], "low": [0.3, 0.6, 0.5, 0.5]}
    )
    res = rank_bootstrap(long_table(values), n_boot=200).set_index("selector")
    assert (res.loc["top", ["average_rank", "ci_low", "ci_high", "share_best"]] == 1.0).all()
    assert (res.loc["low", ["ci_low", "ci_high"]] == 3.0).all()


def test_order_agreement_of_identical_reversed_and_one_swap_orders():
    sel = ["a", "b", "c", "d"]
    ranks = pd.concat(
        [
            pd.DataFrame({"evaluator": "svm", "selector": sel, "average_rank": [1.0, 2.0, 3.0, 4.0]}),
            pd.DataFrame({"evaluator": "knn", "selector": sel, "average_rank": [2.0, 1.0, 3.0, 4.0]}),
            pd.DataFrame({"evaluator": "rf", "selector": sel, "average_rank": [4.0, 3.0, 2.0, 1.0]}),
            pd.DataFrame({"evaluator": "svm2", "selector": sel[:3], "average_rank": [1.5, 2.5, 3.5]}),
        ]
    )
    res = order_agreement(ranks).set_index(["evaluator_a", "evaluator_b"])
    # one adjacent swap of four: 5 of 6 pairs concordant → τ = (5 − 1)/6; ρ = 1 − 6·2/(4·15) = 0.8
    assert res.loc[("knn", "svm"), "kendall_tau"] == pytest.approx(4 / 6)
    assert res.loc[("knn", "svm"), "spearman_rho"] == pytest.approx(0.8)
    assert res.loc[("rf", "svm"), "kendall_tau"] == pytest.approx(-1.0)
    assert res.loc[("rf", "svm"), "spearman_rho"] == pytest.approx(-1.0)
    assert res.loc[("svm", "svm2"), "n_selectors"] == 3  # over the selectors both rank
    assert res.loc[("svm", "svm2"), "kendall_tau"] == pytest.approx(1.0)
    assert len(res) == 6
