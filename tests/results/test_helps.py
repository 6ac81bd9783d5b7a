"""Selection against all features: per-dataset wins / ties / losses and the pooled relative error."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fsbench.results.helps import relative_error, vs_all_per_dataset, wins_ties_losses


def table() -> pd.DataFrame:
    """One fraction, three datasets, 10 repeats. ``sel``: 0.05 below all on ``win``, 0.05 above on ``loss``,
    the same mean on ``tie`` (but not the same per repeat); on ``zero`` all features make no error and ``sel``
    0.01 on every repeat."""
    rng = np.random.default_rng(2)
    rows = []
    for ds, shift, base in (("win", -0.05, 0.2), ("loss", 0.05, 0.2), ("tie", 0.0, 0.2), ("zero", 0.01, 0.0)):
        noise, own = rng.normal(0, 0.01, 10), rng.normal(0, 0.01, 10)
        for r in range(10):
            all_err = base if ds == "zero" else base + noise[r]
            sel_err = base + shift + (noise[(r + 1) % 10] if ds == "tie" else own[r])
            if ds == "zero":
                sel_err = shift
            rows += [
                {
                    "fraction": 0.1,
                    "dataset": ds,
                    "selector": "all",
                    "repeat": r,
                    "value": all_err,
                    "S": 40,
                    "D": 40,
                },
                {
                    "fraction": 0.1,
                    "dataset": ds,
                    "selector": "sel",
                    "repeat": r,
                    "value": sel_err,
                    "S": 4,
                    "D": 40,
                },
            ]
    return pd.DataFrame(rows)


def test_each_dataset_is_a_win_a_tie_or_a_loss_by_the_paired_t_test():
    per = vs_all_per_dataset(table()).set_index("dataset")
    assert per.loc["win", "outcome"] == "win" and per.loc["loss", "outcome"] == "loss"
    assert per.loc["tie", "outcome"] == "tie"
    assert per.loc["zero", "outcome"] == "loss"  # a constant shift of +0.01 over 10 repeats
    t = table()
    x = t[(t.dataset == "win") & (t.selector == "sel")]["value"].to_numpy()
    y = t[(t.dataset == "win") & (t.selector == "all")]["value"].to_numpy()
    ref = stats.ttest_rel(x, y)
    assert per.loc["win", "statistic"] == pytest.approx(ref.statistic)
    assert per.loc["win", "p"] == pytest.approx(ref.pvalue)
    assert per.loc["win", "difference"] == pytest.approx(x.mean() - y.mean())
    assert (per["n_pairs"] == 10).all() and (per["s_over_d"] == 0.1).all()
    assert "paired t-test" in per["rule"].iloc[0] and "alpha = 0.05" in per["rule"].iloc[0]
    w = vs_all_per_dataset(table(), test="wilcoxon").set_index("dataset")
    assert w.loc["win", "p"] == pytest.approx(stats.wilcoxon(x - y, zero_method="zsplit").pvalue)
    assert "Wilcoxon" in w["rule"].iloc[0]


def test_only_the_repeats_both_finished_are_paired():
    t = table()
    t["status"] = "ok"
    t.loc[(t.dataset == "win") & (t.selector == "all") & (t.repeat < 3), "status"] = "error"
    per = vs_all_per_dataset(t).set_index("dataset")
    assert per.loc["win", "n_pairs"] == 7 and per.loc["loss", "n_pairs"] == 10
    x = t[(t.dataset == "win") & (t.selector == "sel") & (t.repeat >= 3)]["value"]
    assert per.loc["win", "mean_selector"] == pytest.approx(x.mean())


def test_counts_and_pooled_quartiles():
    per = vs_all_per_dataset(table())
    wtl = wins_ties_losses(per)
    assert wtl[["selector", "wins", "ties", "losses", "datasets"]].values.tolist() == [["sel", 1, 1, 2, 4]]
    rel = relative_error(per).iloc[0]
    d = per["difference"].to_numpy()
    assert (rel["q1"], rel["median"], rel["q3"]) == pytest.approx(tuple(np.quantile(d, [0.25, 0.5, 0.75])))
    assert rel["datasets"] == 4 and rel["s_over_d"] == pytest.approx(0.1)
    assert rel["share_below_all"] == pytest.approx(0.25)
    ratio = relative_error(per, measure="ratio").iloc[0]
    assert ratio["datasets"] == 3  # the ratio is undefined where all features make no error
    with pytest.raises(ValueError):
        relative_error(per, measure="log")
