"""Does selection help? Each selector against the SVM on all features, per dataset and pooled.

* :func:`vs_all_per_dataset` — on every dataset (at each fraction of D), a selector's test error at S
  against the all-features SVM's on the splits both finished, with a paired test over those splits: a win,
  a tie or a loss;
* :func:`wins_ties_losses` — the counts of those outcomes per selector and fraction;
* :func:`relative_error` — the selector's error relative to all features (difference, or ratio), pooled
  over the datasets: median and quartiles per selector and fraction, against the realised S/D.

The rule of a win (stated once, :data:`RULE`): a two-sided paired t-test over the splits (repeats) both
finished, at alpha = 0.05 — Ramona et al. (2012) compare methods with Student t-tests at the 5 % level
(:func:`fsbench.results.stats.paired_t`, whose edge cases are fixed there) — ``win`` when significant and the
selector's mean error is lower, ``loss`` when significant and higher, ``tie`` otherwise (means equal at the
metric's resolution are a tie). The random splits overlap in their training sets, so the test is liberal
(Nadeau & Bengio 2003): a win is evidence on that dataset's splits, not proof for the dataset. The Wilcoxon
signed-rank test (``test="wilcoxon"``, zero differences split) is the non-parametric alternative; with 10
repeats its smallest two-sided p-value is 0.002.

The pooled measure is the *difference* error_selector − error_all (in error units; −0.01 = one percentage
point better than all features): a ratio divides by the all-features error, which is near 0 on the easy
datasets (iris, the Weston toys) and would let them dominate the pooled quartiles. ``measure="ratio"`` gives
error_selector / error_all (NaN where error_all is 0) for comparison.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from fsbench.results.pairing import columns, common_splits, groups
from fsbench.results.schema import BASELINE
from fsbench.results.stats import paired_t
from fsbench.results.stats_compare import wilcoxon_pair
from fsbench.results.ties import at_resolution

#: The rule of a win / tie / loss against all features, as the tables state it.
RULE = (
    "two-sided paired {test} over the splits both finished, alpha = {alpha:g}: win (loss) when significant "
    "and the selector's mean error is lower (higher), tie otherwise"
)


def vs_all_per_dataset(
    table: pd.DataFrame,
    baseline: str = BASELINE,
    alpha: float = 0.05,
    test: str = "t",
    by: str | Sequence[str] = "fraction",
    block: str | Sequence[str] = "dataset",
    split: str | Sequence[str] = "repeat",
    selector: str = "selector",
    value: str = "value",
    status: str = "status",
) -> pd.DataFrame:
    """Every selector against ``baseline`` on every block: paired test over the common splits, the outcome.

    Parameters
    ----------
    table : DataFrame
        Long table with the baseline's rows in every group (:func:`fsbench.results.pairing.fraction_rows`
        repeats them at each fraction). ``S`` and ``D`` columns, where present, give the realised S/D.
    baseline : str
        The all-features selector's label.
    alpha : float
        Level of each per-dataset test (not corrected: one decision per dataset, counted, not combined).
    test : {"t", "wilcoxon"}
        Paired t-test (:func:`fsbench.results.stats.paired_t`) or Wilcoxon signed-rank
        (:func:`fsbench.results.stats_compare.wilcoxon_pair`).
    by, block, split, selector, value, status
        Column names.

    Returns
    -------
    DataFrame
        One row per (group, block, selector): the ``by`` and ``block`` columns, ``selector``, ``n_pairs``
        (common splits), ``mean_selector``, ``mean_all``, ``difference`` (selector − all), ``ratio``
        (selector / all, NaN where all is 0), ``s_over_d`` (NaN without ``S`` / ``D``), ``statistic``,
        ``p``, ``outcome`` (``win`` / ``tie`` / ``loss``) and ``rule``.
    """
    if test not in ("t", "wilcoxon"):
        raise ValueError(f"test must be 't' or 'wilcoxon', got {test!r}")
    by, block, split = columns(by), columns(block), columns(split)
    rule = RULE.format(test="t-test" if test == "t" else "Wilcoxon signed-rank test", alpha=alpha)
    rows = []
    for key, g in groups(table, by):
        names = g[selector].astype(str)
        if baseline not in set(names):
            continue
        for sel in sorted(set(names) - {baseline}):
            kept, _ = common_splits(g, [sel, baseline], (), block, split, selector, value, status)
            wide = kept.pivot_table(index=[*block, *split], columns=selector, values=value, aggfunc="first")
            own = kept[kept[selector].astype(str) == sel]
            if {"S", "D"} <= set(own.columns):
                s_over_d = (own["S"] / own["D"]).groupby([own[c] for c in block], sort=True).mean()
            else:
                s_over_d = pd.Series(dtype=float)
            for bkey, w in wide.groupby(level=block, sort=True):
                bkey = bkey if isinstance(bkey, tuple) else (bkey,)
                x, y = w[sel].to_numpy(float), w[baseline].to_numpy(float)
                mx, my = at_resolution([x.mean(), y.mean()])
                stat, p = paired_t(x, y) if test == "t" else wilcoxon_pair(x, y)
                significant = bool(p < alpha) if p == p else False
                outcome = "tie" if not significant or mx == my else ("win" if mx < my else "loss")
                sd = s_over_d.get(bkey if len(bkey) > 1 else bkey[0], np.nan)
                rows.append(
                    {
                        **key,
                        **dict(zip(block, bkey)),
                        "selector": sel,
                        "n_pairs": len(w),
                        "mean_selector": float(x.mean()),
                        "mean_all": float(y.mean()),
                        # at the metric's resolution: equal means give a difference of exactly 0
                        "difference": float(mx - my),
                        "ratio": float(mx / my) if my != 0 else np.nan,
                        "s_over_d": float(sd),
                        "statistic": float(stat),
                        "p": float(p),
                        "outcome": outcome,
                        "rule": rule,
                    }
                )
    return pd.DataFrame(rows)


def wins_ties_losses(per_dataset: pd.DataFrame, by: str | Sequence[str] = "fraction") -> pd.DataFrame:
    """Counts of :func:`vs_all_per_dataset`'s outcomes per (group, selector).

    Returns
    -------
    DataFrame
        The ``by`` columns, ``selector``, ``wins``, ``ties``, ``losses``, ``datasets`` and ``rule``; by
        wins − losses, best first.
    """
    by = columns(by)
    counts = (
        per_dataset.groupby([*by, "selector"], sort=True)["outcome"]
        .value_counts()
        .unstack(fill_value=0)
        .reindex(columns=["win", "tie", "loss"], fill_value=0)
        .rename(columns={"win": "wins", "tie": "ties", "loss": "losses"})
        .reset_index()
    )
    counts.columns.name = None
    counts["datasets"] = counts[["wins", "ties", "losses"]].sum(axis=1)
    counts["rule"] = per_dataset["rule"].iloc[0] if len(per_dataset) else ""
    net = counts["wins"] - counts["losses"]
    order = counts.assign(_net=-net).sort_values([*by, "_net", "selector"], kind="stable").index
    return counts.loc[order].reset_index(drop=True)


def relative_error(
    per_dataset: pd.DataFrame, measure: str = "difference", by: str | Sequence[str] = "fraction"
) -> pd.DataFrame:
    """A selector's error relative to all features, pooled over the datasets: median and quartiles.

    Parameters
    ----------
    per_dataset : DataFrame
        Output of :func:`vs_all_per_dataset` (means over the splits both finished).
    measure : {"difference", "ratio"}
        error_selector − error_all (default; module docstring) or error_selector / error_all.
    by : str or sequence of str
        Group columns (the fraction of D).

    Returns
    -------
    DataFrame
        The ``by`` columns, ``selector``, ``measure``, ``datasets``, ``q1``, ``median``, ``q3`` (numpy's
        linear quantiles over the datasets), ``share_below_all`` (datasets where the selector's mean error is
        lower) and ``s_over_d`` (the realised S/D, mean over the datasets: on a small D the fraction's S
        rounds to a larger share).
    """
    if measure not in ("difference", "ratio"):
        raise ValueError(f"measure must be 'difference' or 'ratio', got {measure!r}")
    rows = []
    for key, g in groups(per_dataset, [*columns(by), "selector"]):
        v = g[measure].to_numpy(dtype=float)
        v = v[np.isfinite(v)]
        q1, med, q3 = np.quantile(v, [0.25, 0.5, 0.75]) if v.size else (np.nan,) * 3
        rows.append(
            {
                **key,
                "measure": measure,
                "datasets": int(v.size),
                "q1": float(q1),
                "median": float(med),
                "q3": float(q3),
                "share_below_all": float(np.mean(g["difference"].to_numpy() < 0)),
                "s_over_d": float(g["s_over_d"].mean()),
            }
        )
    return pd.DataFrame(rows)
