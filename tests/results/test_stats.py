"""Paired t-tests and rank shares against direct scipy computations on a small synthetic table."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fsbench.results.stats import paired_ttests, rank_shares, ranks, summary, welch_from_summary


def _table(seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for S in (2, 5):
        base = rng.normal(0.3, 0.05, 10)  # shared split effect: pairing matters
        for sel, shift in (("a", 0.0), ("b", 0.02), ("c", 0.10)):
            for r in range(10):
                rows.append(
                    {
                        "experiment": "e",
                        "dataset": "d",
                        "kernel": "linear",
                        "n_train": 50,
                        "n_features": S,
                        "selector": sel,
                        "repeat": r,
                        "status": "ok",
                        "error": base[r] + shift + rng.normal(0, 0.005),
                    }
                )
    rows.append({**rows[0], "status": "failed", "error": 9.0})  # failed rows are ignored
    return pd.DataFrame(rows)


def test_paired_ttests_match_scipy():
    df = _table()
    t = paired_ttests(df)
    assert len(t) == 2 * 3  # 2 cells x 3 pairs
    d = df[(df.status == "ok") & (df.n_features == 2)]
    a = d[d.selector == "a"].sort_values("repeat")["error"].to_numpy()
    b = d[d.selector == "b"].sort_values("repeat")["error"].to_numpy()
    row = t[(t.n_features == 2) & (t.a == "a") & (t.b == "b")].iloc[0]
    ref = stats.ttest_rel(a, b)
    assert row["p"] == pytest.approx(ref.pvalue) and row["t"] == pytest.approx(ref.statistic)
    assert row["significant"]  # paired: the shared split effect cancels
    assert not stats.ttest_ind(a, b).pvalue < 0.05  # unpaired would miss it


def test_ranks_and_shares():
    df = _table()
    r = ranks(df)
    assert set(r.loc[r.selector == "a", "rank"]) == {1}
    assert set(r.loc[r.selector == "c", "rank"]) == {3}
    sh = rank_shares(df).set_index("selector")
    assert sh.loc["a", "first"] == 1.0 and sh.loc["b", "second"] == 1.0 and sh.loc["c", "rest"] == 1.0
    assert (sh[["first", "second", "rest"]].sum(axis=1) == 1).all()
    s = summary(df)
    assert (s["n"] == 10).all()


def test_welch():
    p = welch_from_summary(10.0, 1.0, 30, 10.0, 1.0, 30)
    assert p == pytest.approx(1.0)
    assert welch_from_summary(10.0, 1.0, 30, 12.0, 1.0, 30) < 1e-6


def test_single_selector_gives_an_empty_test_table_with_columns():
    df = _table()
    t = paired_ttests(df[df.selector == "a"])
    assert t.empty and {"dataset", "a", "b", "significant"} <= set(t.columns)
