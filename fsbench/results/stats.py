"""Statistics over result tables: summaries, paired t-tests between selectors, rank shares.

Ramona et al. 2012 compare methods with Student t-tests at the 5 % level (§V). Every selector of
an experiment sees the same splits (seeds depend on dataset, n_train and repeat only), so the tests
here are *paired* over splits (``scipy.stats.ttest_rel``): a split is a repeat, or under k-fold one
(repeat, fold).

Every comparison here — the means of :func:`paired_summary`, the t-tests, the ranks and rank shares — is
over the splits that *every* selector compared in the cell finished
(:func:`fsbench.results.pairing.paired_cells`): a selector that failed in some repeats is compared with the
others on the repeats it finished, and the others' means are taken over those same repeats. Only
:func:`summary` keeps each selector's own repeats (a selector's number on its own, e.g. beside a paper's
printed value).

Every ranking here ranks values at the metric's resolution (:func:`fsbench.results.ties.at_resolution`):
means that differ only by floating-point rounding are ties.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from fsbench.results import pairing
from fsbench.results.schema import BASELINE
from fsbench.results.ties import at_resolution

#: Columns that identify one comparison cell (a point of a figure or a table cell).
CELL = list(pairing.CELL)


def ok_rows(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["status"] == "ok"]


def summary(df: pd.DataFrame, value: str = "error") -> pd.DataFrame:
    """Mean, std (n−1) and number of repeats of ``value`` per cell and selector, each selector over its own
    finished repeats: not for comparing selectors (:func:`paired_summary` is)."""
    g = ok_rows(df).groupby([*CELL, "selector"], sort=False)[value]
    return g.agg(mean="mean", std="std", n="count").reset_index()


def paired_summary(df: pd.DataFrame, value: str = "error") -> pd.DataFrame:
    """Mean, std (n−1) and n of ``value`` per cell and selector over the splits every selector of the cell
    finished (:func:`fsbench.results.pairing.paired_cells`).

    Parameters
    ----------
    df : DataFrame
        Result rows, failed ones included (they count the protocol's splits); only the selectors to be
        compared (leave out the all-features baseline where it is not compared).
    value : str
        The compared column.

    Returns
    -------
    DataFrame
        ``CELL`` columns, ``selector``, ``mean``, ``std``, ``n`` (splits averaged, the same for every
        selector of a cell) and ``splits`` (the protocol's splits of the cell's setting: ``n < splits``
        where some compared selector did not finish every split). A selector that finished no split of a
        cell, and every selector of a cell without a split all of them finished, has no row.
    """
    kept, report = pairing.paired_cells(df, value)
    cols = [*CELL, "selector", "mean", "std", "n", "splits"]
    if kept.empty:
        return pd.DataFrame(columns=cols)
    s = kept.groupby([*CELL, "selector"], sort=False)[value].agg(mean="mean", std="std", n="count")
    return s.reset_index().merge(report[[*CELL, "splits"]], on=CELL, how="left")[cols]


def paired_t(a, b) -> tuple[float, float]:
    """Two-sided paired t-test of ``a`` against ``b`` (matched samples): (t, p).

    Edge cases, fixed once for every report: fewer than 2 pairs gives (NaN, NaN); differences that are all
    equal give p = 1 when they are 0 (no difference) and p = 0 otherwise (a constant shift, t = ±inf),
    where scipy would return NaN.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    diff = a - b
    if diff.size < 2:
        return np.nan, np.nan
    if np.allclose(diff, diff[0]):
        return (0.0, 1.0) if diff[0] == 0 else (float(np.copysign(np.inf, diff[0])), 0.0)
    res = stats.ttest_rel(a, b)
    return float(res.statistic), float(res.pvalue)


def paired_ttests(df: pd.DataFrame, value: str = "error", alpha: float = 0.05) -> pd.DataFrame:
    """Paired t-test between every pair of selectors in every cell.

    Pairs are matched on the split (``repeat``, and ``fold`` under k-fold), over the splits that *every*
    selector of the cell in ``df`` finished (:func:`fsbench.results.pairing.paired_cells`), the splits its
    means are taken over (:func:`paired_summary`): pass only the selectors compared. Returns one row per
    (cell, a, b) with the mean difference a − b, the t statistic, the two-sided p-value, the number of
    pairs and ``significant`` (p < alpha). Identical samples give p = 1 (no difference), not NaN.
    """
    kept, _ = pairing.paired_cells(df, value)
    return _ttests(kept, value, alpha)


def _ttests(kept: pd.DataFrame, value: str, alpha: float) -> pd.DataFrame:
    """:func:`paired_ttests` on rows already restricted to their cells' common splits."""
    rows = []
    split = [c for c in ("repeat", "fold") if c in kept.columns]
    for cell, d in kept.groupby(CELL, sort=False) if len(kept) else []:
        wide = d.pivot_table(index=split, columns="selector", values=value, aggfunc="first")
        arr = wide.to_numpy(dtype=float)  # (a NaN only where a selector lacks a split: dropped per pair)
        for (i, a), (j, b) in combinations(enumerate(wide.columns), 2):
            keep = ~(np.isnan(arr[:, i]) | np.isnan(arr[:, j]))
            x, y = arr[keep, i], arr[keep, j]
            n = int(keep.sum())
            diff = x - y
            t, p = paired_t(x, y)
            rows.append(
                {
                    **dict(zip(CELL, cell)),
                    "a": a,
                    "b": b,
                    "mean_diff": float(diff.mean()) if n else np.nan,
                    "t": t,
                    "p": p,
                    "n_pairs": n,
                    "significant": bool(p < alpha) if p == p else False,
                }
            )
    cols = [*CELL, "a", "b", "mean_diff", "t", "p", "n_pairs", "significant"]
    return pd.DataFrame(rows, columns=cols)


def ranks(
    df: pd.DataFrame, methods: list[str] | None = None, value: str = "error", alpha: float = 0.05
) -> pd.DataFrame:
    """Rank of each method in each cell by mean ``value`` (1 = lowest error).

    ``rank`` is the plain rank of the mean at the metric's resolution (:func:`at_resolution`; ties share
    the lower rank); ``tied_first`` says whether the method is the best (several are where the best means
    tie) or not significantly worse than the best (paired t-test at ``alpha``). Means and tests are over the
    splits every ranked method of the cell finished (:func:`paired_summary`).
    The all-features baseline is excluded unless listed in ``methods``.
    """
    names = df["selector"].astype(str)
    df = df[names.isin(methods)] if methods is not None else df[names != BASELINE]
    kept, _ = pairing.paired_cells(df, value)
    if kept.empty:
        return pd.DataFrame()
    s = kept.groupby([*CELL, "selector"], sort=False)[value].agg(mean="mean", std="std", n="count")
    s = s.reset_index()
    tests = _ttests(kept, value, alpha)
    out = []
    for cell, d in s.groupby(CELL, sort=False):
        if len(d) < 2:
            continue
        d = d.copy()
        resolved = pd.Series(at_resolution(d["mean"].to_numpy()), index=d.index)
        d["rank"] = resolved.rank(method="min").astype(int)
        bests = set(d.loc[resolved == resolved.min(), "selector"])
        best = d.loc[resolved.idxmin(), "selector"]
        t = tests
        for k, v in zip(CELL, cell):
            t = t[t[k] == v]
        tied = []
        for sel in d["selector"]:
            if sel in bests:
                tied.append(True)
                continue
            m = t[((t.a == sel) & (t.b == best)) | ((t.a == best) & (t.b == sel))]
            tied.append(not bool(m["significant"].iloc[0]) if len(m) else False)
        d["tied_first"] = tied
        out.append(d)
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame()


def rank_shares(df: pd.DataFrame, methods: list[str] | None = None, value: str = "error") -> pd.DataFrame:
    """Share of cells where each method ranks first, second, or lower (Ramona 2012 Table VII)."""
    r = ranks(df, methods, value)
    if r.empty:
        return pd.DataFrame(columns=["selector", "cells", "first", "second", "rest", "tied_first"])
    g = r.groupby("selector", sort=False)
    res = pd.DataFrame(
        {
            "cells": g.size(),
            "first": g["rank"].apply(lambda x: float(np.mean(x == 1))),
            "second": g["rank"].apply(lambda x: float(np.mean(x == 2))),
            "rest": g["rank"].apply(lambda x: float(np.mean(x > 2))),
            "tied_first": g["tied_first"].mean().astype(float),
        }
    ).reset_index()
    return res


def welch_from_summary(m1: float, s1: float, n1: int, m2: float, s2: float, n2: int) -> float:
    """Two-sided p-value of Welch's t-test from means, stds and counts (paper value vs ours)."""
    if n1 < 2 or n2 < 2 or not np.isfinite([m1, s1, m2, s2]).all():
        return float("nan")
    res = stats.ttest_ind_from_stats(m1, s1, n1, m2, s2, n2, equal_var=False)
    return float(res.pvalue)


def loglog_slope(x: Iterable[float], y: Iterable[float]) -> float:
    """Least-squares slope of :math:`\\log y` on :math:`\\log x`: the exponent b of :math:`y \\propto x^b`.

    Used for the fitted exponent of the CPU-time figures (:mod:`fsbench.plots.cpu`), the slopes compared
    with a paper's CPU-time table (:mod:`fsbench.papers.cpu_shape`) and the producer ``timing_vs_n``
    (:mod:`fsbench.results.producers.timing`).

    Parameters
    ----------
    x, y : iterables of positive numbers
        Paired coordinates; points with a non-positive or non-finite coordinate are left out.

    Returns
    -------
    float
        The slope; NaN when the usable points have fewer than two distinct x (no line to fit).
    """
    x, y = np.asarray(list(x), dtype=float), np.asarray(list(y), dtype=float)
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    if np.unique(x[keep]).size < 2:
        return float("nan")
    return float(np.polyfit(np.log(x[keep]), np.log(y[keep]), 1)[0])
