"""The benchmark's headline set, recomputed from the committed results.csv with pandas and scipy alone.

The library computes, at every fraction of D, the selectors not significantly worse than the best-ranked
one (Wilcoxon signed-rank against that control, Holm over the k − 1 comparisons:
:func:`fsbench.results.posthoc.control_comparisons`). The code below does the same from scratch — the S of
a fraction, the block means over the repeats, the within-dataset ranks, scipy's Wilcoxon test and a
hand-written Holm step-down — and must find the same set at every fraction.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fsbench.results.pairing import fraction_rows
from fsbench.results.posthoc import control_comparisons, not_worse_sets

RESULTS = Path(__file__).resolve().parents[2] / "results" / "benchmark" / "benchmark" / "results.csv"
FRACTIONS = (0.05, 0.1, 0.2, 0.3, 0.5)  # configs/benchmark/benchmark.yaml, protocol.n_features
ALPHA = 0.05

pytestmark = pytest.mark.skipif(not RESULTS.exists(), reason="no committed benchmark results")


def headline_by_hand(df: pd.DataFrame, fraction: float) -> tuple[str, set[str]]:
    """(control, selectors not significantly worse than it), written without fsbench."""
    ok = df[df["status"] == "ok"]
    d_of = ok[ok["selector"] == "all"].groupby("dataset")["n_features"].max()
    s_of = {ds: max(1, min(d, math.floor(fraction * d + 0.5))) for ds, d in d_of.items()}
    rows = ok[(ok["selector"] != "all") & (ok["n_features"] == ok["dataset"].map(s_of))]
    selectors = sorted(rows["selector"].unique())
    # repeats that every selector finished, per dataset
    per = rows.pivot_table(index=["dataset", "repeat"], columns="selector", values="error").dropna()
    means = per.groupby(level="dataset").mean()[selectors]
    means = means.round(10)  # float noise of a mean of 10 rates is far below 1e-10: such means are ties
    ranks = means.rank(axis=1, method="average")
    avg = ranks.mean()
    control = min(selectors, key=lambda s: (avg[s], selectors.index(s)))
    others = [s for s in selectors if s != control]
    pvals, worse = [], []
    for s in others:
        d = (means[s] - means[control]).to_numpy()
        if np.all(d == 0):
            pvals.append(1.0)
            worse.append(False)
            continue
        pvals.append(stats.wilcoxon(d, zero_method="zsplit").pvalue)
        r = stats.rankdata(np.abs(d))
        worse.append(r[d > 0].sum() > r[d < 0].sum())
    # Holm: the i-th smallest p (i = 0, 1, …) is compared with alpha / (m − i); stop at the first kept
    m = len(pvals)
    rejected = set()
    for i, j in enumerate(np.argsort(pvals, kind="stable")):
        if pvals[j] >= ALPHA / (m - i):
            break
        rejected.add(j)
    not_worse = {control} | {s for j, s in enumerate(others) if not (j in rejected and worse[j])}
    return control, not_worse


@pytest.fixture(scope="module")
def committed() -> tuple[pd.DataFrame, pd.DataFrame]:
    df = pd.read_csv(RESULTS)
    table = fraction_rows(df, FRACTIONS)
    res = control_comparisons(table[table["selector"] != "all"], by="fraction", alpha=ALPHA)
    return df, res


@pytest.mark.parametrize("fraction", FRACTIONS)
def test_the_headline_set_is_the_one_scipy_gives(committed, fraction):
    df, res = committed
    control, expected = headline_by_hand(df, fraction)
    sets = not_worse_sets(res, by="fraction").set_index("fraction")
    assert sets.loc[fraction, "control"] == control
    assert set(sets.loc[fraction, "not_worse"].split(", ")) == expected
    assert sets.loc[fraction, "n_blocks"] == df["dataset"].nunique()
