"""Comparing k selectors over N blocks: Friedman, Iman–Davenport, Nemenyi and Wilcoxon–Holm.

Follows J. Demšar, "Statistical comparisons of classifiers over multiple data sets", JMLR 7:1–30 (2006):

* in every block the selectors are ranked by their mean error (rank 1 = lowest, ties get the average
  rank; means equal up to rounding noise are ties: :func:`fsbench.results.ties.at_resolution`); ``R_j`` is
  selector j's average rank over the N blocks;
* Friedman's statistic ``chi2_F = 12N / (k(k+1)) * (sum_j R_j^2 - k(k+1)^2 / 4)``, chi-square with k−1
  degrees of freedom — Demšar's form, *without* the tie correction (that one, as computed by
  ``scipy.stats.friedmanchisquare``, is reported too, as ``chi2_ties``);
* Iman and Davenport's ``F_F = (N−1) chi2_F / (N(k−1) − chi2_F)``, F-distributed with k−1 and
  (k−1)(N−1) degrees of freedom (less conservative than chi2_F). When every block ranks the selectors
  the same way without ties, chi2_F = N(k−1) and F_F's denominator is 0: F_F is then not a number (NaN,
  never ``inf``), the result says so (``identical_rankings``) and no p-value is taken from the F
  approximation;
* both p-values come from large-sample approximations; Demšar (2006, §3.2.2) gives N > 10 and k > 5 as
  the rule of thumb for them and exact tables for smaller ones. With fewer than :data:`MIN_BLOCKS` blocks
  no p-value is given (NaN, with the reason in ``p_withheld``) and no omnibus verdict is drawn; only the
  N half of the rule is enforced, since most comparisons here have k ≤ 5 selectors and Iman–Davenport's
  F_F was proposed for exactly such small k;
* Nemenyi's post-hoc test: two selectors differ when their average ranks differ by at least
  ``CD = q_alpha sqrt(k(k+1) / (6N))``, ``q_alpha`` the studentized range quantile (infinite degrees of
  freedom) divided by sqrt(2) (Demšar's Table 5a); pairwise p-values from the same distribution;
* the more powerful alternative: the Wilcoxon signed-rank test on every pair's block means (zero
  differences split between the signs, Demšar §3.1.3: ``zero_method="zsplit"``), its p-values corrected
  for the k(k−1)/2 comparisons with Holm's step-down procedure.

Blocks
------
A block is one (result directory, dataset, kernel, n_train, S) in which every compared selector has at least
one ``ok`` split; the block value of a selector is its mean over the splits in which *all* compared
selectors are ``ok`` (the splits are shared, so the means stay paired). A split is a repeat, or under k-fold
one (repeat, fold): every fold of every repeat counts once (under k-fold, n_train is the setting's,
:func:`fsbench.results.loading.load_result_sets`). The block values are taken at the metric's resolution
(:func:`fsbench.results.ties.at_resolution`, within each block), so that the ranks, the wins/ties/losses and
the Wilcoxon differences see a tie where the means differ only by rounding. Blocks at S = D are left out by
default: there every input-feature ranker trains the same SVM on all features, so the errors are identical
by construction and the block only adds ties. The all-features baseline (selector ``all``, whatever its
label: :func:`fsbench.results.loading.baseline_labels`) exists only at S = D and is therefore left out
unless asked for. Blocks of one dataset at different S are *not* independent (nested
feature sets, the same splits), which the Friedman test assumes; the p-values are therefore optimistic.
``per_dataset=True`` first averages the metric over the S grid, giving one block per (directory, dataset,
kernel, n_train): fewer, but independent, blocks.

``fraction=f`` keeps, on every dataset, only the S that the fraction f of its D resolves to
(:func:`fsbench.config.files.fraction_size`, the rule of ``protocol.n_features: {fraction_of_D: [...]}``;
D from the rankings, else the baseline's S): one block per (directory, dataset, kernel, n_train), so that
datasets of different D are compared at the same share of their features — the blocks are then the
datasets, independent as the Friedman test assumes. On a small D several fractions can resolve to the same
S (iris, D = 4: 5 % to 30 % all give S = 1); each fraction then reuses that block.

Library choice
--------------
Neither scikit-posthocs (0.17.1) nor autorank (1.3.0) is used, although both install from the registry:

* everything needed is in scipy already (``chi2``, ``f``, ``studentized_range``, ``wilcoxon``,
  ``rankdata``); the formulas are a few lines each and are checked here against Demšar's worked example;
* neither package computes the Iman–Davenport F_F, which Demšar recommends over chi2_F;
* autorank chooses the test itself (Shapiro–Wilk normality, then Bartlett/Levene, then repeated-measures
  ANOVA + Tukey *or* Friedman + Nemenyi), so the method in a report could change with the data; its
  omnibus p-value is scipy's tie-corrected Friedman test;
* scikit-posthocs' ``posthoc_nemenyi_friedman`` is the same studentized-range computation as here, but
  the package pulls in statsmodels and seaborn (autorank: statsmodels, seaborn, baycomp, jinja2) for a
  few functions, and its critical-difference diagram needs the significance matrix built by hand anyway.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from fsbench.config.files import fraction_size
from fsbench.results.loading import ResultSet
from fsbench.results.pairing import common_splits, split_columns_of
from fsbench.results.schema import BASELINE
from fsbench.results.ties import at_resolution

#: Columns identifying one block.
BLOCK = ["source", "dataset", "kernel", "n_train", "n_features"]


class CompareError(ValueError):
    """A comparison that cannot be made (unknown metric or selector, too few selectors or blocks)."""


# --------------------------------------------------------------------------- rank statistics
def rank_blocks(values: pd.DataFrame, higher_is_better: bool = False) -> pd.DataFrame:
    """Rank the columns (methods) within each row (block): 1 = best, ties get the average rank.

    Values equal up to rounding noise are ties (:func:`fsbench.results.ties.at_resolution`).

    Parameters
    ----------
    values : DataFrame
        Blocks × methods, no missing value.
    higher_is_better : bool
        Rank 1 goes to the largest value (accuracy, AUC) instead of the smallest (error).

    Returns
    -------
    DataFrame
        Ranks, same index and columns as ``values``.
    """
    arr = values.to_numpy(dtype=float)
    if np.isnan(arr).any():
        raise CompareError("cannot rank blocks with missing values")
    ranks = stats.rankdata(at_resolution(-arr if higher_is_better else arr), method="average", axis=1)
    return pd.DataFrame(ranks, index=values.index, columns=values.columns)


def friedman_from_average_ranks(average_ranks: Sequence[float], n_blocks: int) -> tuple[float, float]:
    """Friedman's chi2_F and Iman–Davenport's F_F from the average ranks (Demšar 2006, §3.2.2).

    Parameters
    ----------
    average_ranks : sequence of float
        R_j of the k methods.
    n_blocks : int
        N, the number of blocks (data sets) the ranks were averaged over.

    Returns
    -------
    chi2_F, F_F : float
        ``F_F`` is NaN when every block ranks the methods the same way without ties
        (chi2_F = N(k−1)): the formula divides by zero there, and an infinite statistic would read as
        infinitely strong evidence from as few as two blocks.
    """
    r = np.asarray(average_ranks, dtype=float)
    k, n = len(r), int(n_blocks)
    chi2 = 12.0 * n / (k * (k + 1)) * (np.sum(r**2) - k * (k + 1) ** 2 / 4.0)
    denom = n * (k - 1) - chi2
    ff = (n - 1) * chi2 / denom if denom > 1e-12 else np.nan
    return float(chi2), float(ff)


#: Fewest blocks for which chi2_F and F_F get a p-value: Demšar (2006, §3.2.2) recommends N > 10 (and
#: k > 5) for the chi-squared approximation of the Friedman statistic; smaller tables need the exact
#: distribution, which fsbench does not compute, so it gives no p-value rather than a wrong one.
MIN_BLOCKS = 11


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman and Iman–Davenport tests over N blocks and k methods."""

    n_blocks: int
    k: int
    average_ranks: pd.Series  # sorted, best first
    chi2: float  # Demšar's chi2_F (no tie correction)
    p_chi2: float
    ff: float  # Iman–Davenport F_F
    p_ff: float
    df_num: int  # k − 1
    df_den: int  # (k − 1)(N − 1)
    chi2_ties: float  # with the tie correction (= scipy.stats.friedmanchisquare)
    p_chi2_ties: float
    #: every block ranks the methods identically without ties: chi2_F = N(k−1), F_F undefined (NaN)
    identical_rankings: bool = False
    #: why the p-values are NaN (too few blocks for the approximations), None when they are given
    p_withheld: str | None = None

    def as_frame(self) -> pd.DataFrame:
        """One-row table of the statistics."""
        return pd.DataFrame(
            [
                {
                    "N (blocks)": self.n_blocks,
                    "k (selectors)": self.k,
                    "chi2_F": self.chi2,
                    "df": self.df_num,
                    "p (chi2_F)": self.p_chi2,
                    "F_F (Iman-Davenport)": self.ff,
                    "df1": self.df_num,
                    "df2": self.df_den,
                    "p (F_F)": self.p_ff,
                    "chi2_F tie-corrected": self.chi2_ties,
                    "p (tie-corrected)": self.p_chi2_ties,
                    "identical rankings": self.identical_rankings,
                    "p withheld": self.p_withheld or "",
                }
            ]
        )


def friedman_test(ranks: pd.DataFrame) -> FriedmanResult:
    """Friedman's chi2_F, Iman–Davenport's F_F and their p-values from within-block ranks.

    Parameters
    ----------
    ranks : DataFrame
        Blocks × methods, as returned by :func:`rank_blocks` (at least 2 blocks and 2 methods).
    """
    n, k = ranks.shape
    if n < 2 or k < 2:
        raise CompareError(f"the Friedman test needs at least 2 blocks and 2 selectors, got {n} and {k}")
    avg = ranks.mean(axis=0).sort_values(kind="stable")
    chi2, ff = friedman_from_average_ranks(avg.to_numpy(), n)
    df1, df2 = k - 1, (k - 1) * (n - 1)
    # tie correction: divide by 1 − sum over blocks and tie groups of (t^3 − t) / (N k (k^2 − 1))
    ties = 0.0
    for row in ranks.to_numpy():
        _, counts = np.unique(row, return_counts=True)
        ties += float(np.sum(counts**3 - counts))
    c = 1.0 - ties / (n * k * (k * k - 1))
    chi2_ties = chi2 / c if c > 1e-12 else np.nan
    identical = bool(chi2 >= n * (k - 1) - 1e-9)
    withheld = None
    if n < MIN_BLOCKS:
        withheld = (
            f"{n} blocks: too few for the chi-squared and F approximations of the Friedman test "
            f"(Demšar 2006, §3.2.2: N > 10 and k > 5); no p-value is given"
        )
    p_chi2 = float(stats.chi2.sf(chi2, df1))
    p_ties = float(stats.chi2.sf(chi2_ties, df1)) if np.isfinite(chi2_ties) else np.nan
    p_ff = float(stats.f.sf(ff, df1, df2)) if np.isfinite(ff) else np.nan
    if withheld is not None:
        p_chi2 = p_ties = p_ff = np.nan
    return FriedmanResult(
        n_blocks=n,
        k=k,
        average_ranks=avg,
        chi2=chi2,
        p_chi2=p_chi2,
        ff=ff,
        p_ff=p_ff,
        df_num=df1,
        df_den=df2,
        chi2_ties=float(chi2_ties),
        p_chi2_ties=p_ties,
        identical_rankings=identical,
        p_withheld=withheld,
    )


def nemenyi_critical_value(k: int, alpha: float = 0.05) -> float:
    """q_alpha of the two-tailed Nemenyi test: studentized range quantile (df = ∞) / sqrt(2)."""
    if k < 2:
        raise CompareError("the Nemenyi test needs at least 2 selectors")
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))


def critical_difference(k: int, n_blocks: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical difference of average ranks, ``q_alpha sqrt(k(k+1) / (6N))``."""
    return nemenyi_critical_value(k, alpha) * float(np.sqrt(k * (k + 1) / (6.0 * n_blocks)))


def nemenyi_pvalue(rank_diff: float, k: int, n_blocks: int) -> float:
    """Two-sided Nemenyi p-value of a difference of average ranks (inverse of :func:`critical_difference`)."""
    z = abs(rank_diff) / np.sqrt(k * (k + 1) / (6.0 * n_blocks))
    return float(stats.studentized_range.sf(z * np.sqrt(2.0), k, np.inf))


def holm_adjust(pvalues: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values (reject where adjusted p < alpha).

    The i-th smallest of m p-values is multiplied by m − i + 1; a running maximum keeps the order, so a
    hypothesis is rejected only if every smaller p-value is rejected too (Holm 1979; Demšar §3.2.2).
    """
    p = np.asarray(pvalues, dtype=float)
    m = len(p)
    if m == 0:
        return p
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adj
    return out


def wilcoxon_pair(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Wilcoxon signed-rank test of paired samples; zeros split between the signs (Demšar §3.1.3).

    Returns
    -------
    T, p : float
        ``T`` = min(R+, R−); ``p`` two-sided. All-zero differences give (nan, 1.0): no evidence of a
        difference, rather than scipy's undefined result.
    """
    d = np.asarray(x, float) - np.asarray(y, float)
    if len(d) == 0 or np.all(d == 0):
        return float("nan"), 1.0
    res = stats.wilcoxon(d, zero_method="zsplit", alternative="two-sided")
    return float(res.statistic), float(res.pvalue)


def posthoc_table(values: pd.DataFrame, ranks: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Every pair of methods: Nemenyi on the average ranks and Holm-corrected Wilcoxon on the block values.

    Parameters
    ----------
    values : DataFrame
        Blocks × methods, lower is better; compared at their resolution
        (:func:`fsbench.results.ties.at_resolution`).
    ranks : DataFrame
        :func:`rank_blocks` of ``values``.
    alpha : float
        Family-wise significance level of both tests.

    Returns
    -------
    DataFrame
        One row per pair, ``a`` the one with the better average rank: average ranks and their
        difference, ``nemenyi_p``/``nemenyi_significant`` (equivalent to rank_diff ≥ CD), blocks where ``a``
        wins, ties and loses, the median difference a − b of the block values, the Wilcoxon ``T`` and
        p-value, the Holm-adjusted p-value and ``holm_significant``.
    """
    n, k = values.shape
    values = _resolved(values)
    avg = ranks.mean(axis=0).sort_values(kind="stable")
    rows = []
    for a, b in combinations(list(avg.index), 2):
        d = values[a].to_numpy(float) - values[b].to_numpy(float)
        t, p = wilcoxon_pair(values[a].to_numpy(), values[b].to_numpy())
        rows.append(
            {
                "a": a,
                "b": b,
                "rank_a": avg[a],
                "rank_b": avg[b],
                "rank_diff": avg[b] - avg[a],
                "nemenyi_p": nemenyi_pvalue(avg[b] - avg[a], k, n),
                "wins_a": int(np.sum(d < 0)),
                "ties": int(np.sum(d == 0)),
                "losses_a": int(np.sum(d > 0)),
                "median_diff": float(np.median(d)),
                "wilcoxon_T": t,
                "wilcoxon_p": p,
            }
        )
    cols = [
        "a",
        "b",
        "rank_a",
        "rank_b",
        "rank_diff",
        "nemenyi_p",
        "nemenyi_significant",
        "wins_a",
        "ties",
        "losses_a",
        "median_diff",
        "wilcoxon_T",
        "wilcoxon_p",
        "holm_p",
        "holm_significant",
    ]
    out = pd.DataFrame(rows)
    if out.empty:
        return pd.DataFrame(columns=cols)
    out["nemenyi_significant"] = out["nemenyi_p"] < alpha
    out["holm_p"] = holm_adjust(out["wilcoxon_p"].to_numpy())
    out["holm_significant"] = out["holm_p"] < alpha
    return out[cols]


def posthoc_vs_control(
    values: pd.DataFrame,
    ranks: pd.DataFrame | None = None,
    control: str | None = None,
    alpha: float = 0.05,
    higher_is_better: bool = False,
) -> pd.DataFrame:
    r"""Every method against one control: Wilcoxon signed-rank and the rank z-test, Holm over k − 1.

    Demšar (2006, §3.2.2) and García & Herrera (2008, JMLR 9:2677–2694, §2–3): when the question is
    "which methods are not worse than the best one", comparing every method with a control needs only
    k − 1 hypotheses instead of the k(k − 1)/2 of all pairs, so the step-down correction is milder and
    the tests more powerful. The control defaults to the method with the lowest average rank.

    * Wilcoxon signed-rank test of each method's block values against the control's (two-sided, zero
      differences split between the signs, as :func:`wilcoxon_pair` and :func:`posthoc_table`);
    * the rank z-test, for reference (Demšar's eq. for the Bonferroni–Dunn / Holm procedures):

      .. math:: z = \frac{R_i - R_c}{\sqrt{k(k+1)/(6N)}},\qquad p = 2\,(1 - \Phi(|z|)),

      R the average ranks over the N blocks;
    * each family of k − 1 p-values Holm-adjusted (:func:`holm_adjust`).

    A method is *significantly worse* than the control when its Holm-adjusted p-value is below
    ``alpha`` and the difference points its way: for Wilcoxon, the signed ranks of (method − control)
    sum above zero (below zero when higher is better; zsplit ranks, so the direction agrees with the
    statistic); for the z-test, R_i > R_c.

    Parameters
    ----------
    values : DataFrame
        Blocks × methods, no missing value; compared at their resolution
        (:func:`fsbench.results.ties.at_resolution`).
    ranks : DataFrame, optional
        Within-block ranks (:func:`rank_blocks`); default: ranked here. Given, they decide the average
        ranks, the control and the z-test (a published rank table, say).
    control : str, optional
        The control; default the method with the lowest average rank (the first in column order on a tie).
    alpha : float
        Family-wise level of each family of k − 1 comparisons.
    higher_is_better : bool
        The values are accuracies (rank 1 = largest) rather than errors.

    Returns
    -------
    DataFrame
        One row per method, the control first, then by average rank: ``selector``, ``average_rank``,
        ``control``, ``is_control``, ``n_blocks``, ``k``, ``wins`` / ``ties`` / ``losses`` (blocks where
        the method is better than / equal to / worse than the control), ``median_diff`` (method − control),
        ``wilcoxon_T``, ``wilcoxon_p``, ``wilcoxon_holm_p``, ``wilcoxon_not_worse``, ``z``, ``z_p``,
        ``z_holm_p``, ``z_not_worse`` and ``correction`` (what the adjustment corrects for). The control's
        row has no test (NaN) and is "not worse" by definition.
    """
    if values.shape[1] < 2 or values.shape[0] < 1:
        raise CompareError(f"need at least 2 methods and 1 block against a control, got {values.shape}")
    values = _resolved(values)
    if ranks is None:
        ranks = rank_blocks(values, higher_is_better)
    n, k = ranks.shape
    avg = ranks.mean(axis=0).sort_values(kind="stable")
    control = avg.index[0] if control is None else control
    if control not in avg.index:
        raise CompareError(f"control {control!r} is not one of {list(avg.index)}")
    se = float(np.sqrt(k * (k + 1) / (6.0 * n)))
    sign = -1.0 if higher_is_better else 1.0  # +1: a positive (method − control) difference is worse
    others = [m for m in avg.index if m != control]
    rows = []
    for m in others:
        d = sign * (values[m].to_numpy(float) - values[control].to_numpy(float))
        t, p = wilcoxon_pair(values[m].to_numpy(), values[control].to_numpy())
        # the direction of the signed-rank statistic: zsplit ranks of |d| (zeros included), signed
        r = stats.rankdata(np.abs(d))
        z = (avg[m] - avg[control]) / se
        rows.append(
            {
                "selector": m,
                "wins": int(np.sum(d < 0)),
                "ties": int(np.sum(d == 0)),
                "losses": int(np.sum(d > 0)),
                "median_diff": float(np.median(values[m].to_numpy(float) - values[control].to_numpy(float))),
                "wilcoxon_T": t,
                "wilcoxon_p": p,
                "_worse_w": float(np.sum(r * np.sign(d))) > 0,
                "z": float(z),
                "z_p": float(2.0 * stats.norm.sf(abs(z))),
            }
        )
    out = pd.DataFrame(rows)
    out["wilcoxon_holm_p"] = holm_adjust(out["wilcoxon_p"].to_numpy())
    out["z_holm_p"] = holm_adjust(out["z_p"].to_numpy())
    out["wilcoxon_not_worse"] = ~((out["wilcoxon_holm_p"] < alpha) & out["_worse_w"])
    out["z_not_worse"] = ~((out["z_holm_p"] < alpha) & (out["z"] > 0))
    ctrl = {"selector": control, "wins": 0, "ties": n, "losses": 0, "median_diff": 0.0}
    ctrl.update(wilcoxon_not_worse=True, z_not_worse=True)
    out = pd.concat([pd.DataFrame([ctrl]), out.drop(columns="_worse_w")], ignore_index=True)
    out["average_rank"] = out["selector"].map(avg)
    out["control"] = control
    out["is_control"] = out["selector"] == control
    out["n_blocks"] = n
    out["k"] = k
    out["correction"] = (
        f"Holm over the k - 1 = {k - 1} comparisons with the control {control} "
        f"(family-wise alpha = {alpha:g})"
    )
    cols = [
        "selector",
        "average_rank",
        "control",
        "is_control",
        "n_blocks",
        "k",
        "wins",
        "ties",
        "losses",
        "median_diff",
        "wilcoxon_T",
        "wilcoxon_p",
        "wilcoxon_holm_p",
        "wilcoxon_not_worse",
        "z",
        "z_p",
        "z_holm_p",
        "z_not_worse",
        "correction",
    ]
    out[["wilcoxon_not_worse", "z_not_worse"]] = out[["wilcoxon_not_worse", "z_not_worse"]].astype(bool)
    return out[cols]


def cliques(average_ranks: pd.Series, significant: set[frozenset[str]]) -> list[list[str]]:
    """Maximal groups of methods, contiguous in rank order, with no significant pair inside.

    These are the groups a critical-difference diagram joins with a bar. For the Nemenyi test they are
    the runs of methods whose average ranks span less than the CD.

    Parameters
    ----------
    average_ranks : Series
        Method → average rank.
    significant : set of frozenset
        The pairs found significantly different.

    Returns
    -------
    list of list of str
        Groups of at least two methods, best group first; none contains another.
    """
    names = list(average_ranks.sort_values(kind="stable").index)
    spans = []
    for i in range(len(names)):
        j = i
        while j + 1 < len(names) and not any(
            frozenset((names[x], names[j + 1])) in significant for x in range(i, j + 1)
        ):
            j += 1
        if j > i:
            spans.append((i, j))
    maximal = [s for s in spans if not any(o != s and o[0] <= s[0] and s[1] <= o[1] for o in spans)]
    return [names[i : j + 1] for i, j in maximal]


# --------------------------------------------------------------------------- CD diagram
def plot_cd_diagram(
    average_ranks: pd.Series,
    groups: list[list[str]],
    cd: float | None = None,
    title: str | None = None,
):
    """Critical-difference diagram in Demšar's layout (Fig. 1 of the paper).

    The axis carries the average ranks with the best (rank 1) on the right; every method is joined to
    its label, the better half on the right; thick bars join the methods of each group that the
    post-hoc test cannot tell apart; the CD, if given, is drawn above the axis.

    Parameters
    ----------
    average_ranks : Series
        Method → average rank.
    groups : list of list of str
        Cliques to join (:func:`cliques`).
    cd : float, optional
        Critical difference to draw (Nemenyi); omitted for tests without one (Wilcoxon–Holm).
    title : str, optional
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    # function-level: matplotlib loads only when a figure is drawn (not for tables or the console report)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    avg = average_ranks.sort_values(kind="stable")
    names, k = list(avg.index), len(avg)
    lo, hi = 1, max(k, 2)
    n_right = (k + 1) // 2
    right, left = names[:n_right], names[n_right:][::-1]  # the worst method's label nearest the axis
    rows = max(len(right), len(left))
    y_clique0, clique_step = -0.25, 0.13
    y_label0 = y_clique0 - clique_step * len(groups) - 0.2
    row_step = 0.3
    y_min = y_label0 - row_step * (rows - 1) - 0.3
    y_max = 0.9 if cd is not None else 0.45
    fig = plt.figure(figsize=(7.5, y_max - y_min + (0.3 if title else 0)))
    ax = fig.add_axes((0.22, 0.0, 0.56, 1.0 if not title else (y_max - y_min) / (y_max - y_min + 0.3)))
    ax.set_xlim(hi + 0.05, lo - 0.05)  # reversed: rank 1 on the right, as in Demšar's Fig. 1
    ax.set_ylim(y_min, y_max)
    ax.axis("off")
    ax.plot([lo, hi], [0, 0], color="black", lw=1)
    for t in range(lo, hi + 1):
        ax.plot([t, t], [0, 0.08], color="black", lw=1)
        ax.text(t, 0.12, str(t), ha="center", va="bottom", fontsize=9)
    for tt in np.arange(lo + 0.5, hi, 1.0):
        ax.plot([tt, tt], [0, 0.04], color="black", lw=0.7)
    if cd is not None:
        y_cd = 0.6
        ax.plot([hi, hi - cd], [y_cd, y_cd], color="black", lw=1.5)
        for x in (hi, hi - cd):
            ax.plot([x, x], [y_cd - 0.05, y_cd + 0.05], color="black", lw=1.5)
        ax.text(hi - cd / 2, y_cd + 0.07, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=9)
    for side, members in (("right", right), ("left", left)):
        for j, name in enumerate(members):
            r = float(avg[name])
            y = y_label0 - row_step * j
            edge = lo - 0.1 if side == "right" else hi + 0.1
            ax.plot([r, r, edge], [0, y, y], color="black", lw=0.8)
            label = f"{name} ({r:.2f})" if side == "right" else f"({r:.2f}) {name}"
            ax.text(
                edge,
                y,
                " " + label + " " if side == "right" else label + " ",
                va="center",
                ha="left" if side == "right" else "right",
                fontsize=9,
            )
    for i, g in enumerate(groups):
        rs = [float(avg[m]) for m in g]
        y = y_clique0 - clique_step * i
        ax.plot([min(rs) - 0.03, max(rs) + 0.03], [y, y], color="black", lw=3, solid_capstyle="butt")
    if title:
        fig.suptitle(title, fontsize=10, y=0.995, va="top")
    return fig


def _resolved(values: pd.DataFrame) -> pd.DataFrame:
    """Blocks × methods at the metric's resolution, each block (row) on its own."""
    return pd.DataFrame(
        at_resolution(values.to_numpy(dtype=float)), index=values.index, columns=values.columns
    )


# --------------------------------------------------------------------------- blocks from result directories
@dataclass
class Blocks:
    """Block × selector means of a metric, with what was left out and why."""

    values: pd.DataFrame  # index: BLOCK columns (or without n_features when per_dataset), columns: selectors
    n_repeats: (
        pd.Series
    )  # splits (repeats, or (repeat, fold) pairs) averaged per block, shared by all selectors
    selectors: list[str]
    metric: str
    notes: list[str] = field(default_factory=list)
    #: the (block, split) pairs averaged: BLOCK columns, ``repeat`` (and ``fold``, −1 outside k-fold)
    splits: pd.DataFrame = field(default_factory=pd.DataFrame)


def full_set_sizes(sets: list[ResultSet]) -> dict[tuple[str, str], int]:
    """D per (source, dataset): from the rankings' order length, else from the baseline's S."""
    sizes: dict[tuple[str, str], int] = {}
    for s in sets:
        for ds, d in s.n_features.items():
            sizes[(s.source, ds)] = d
        base = s.results[
            s.results["selector"].astype(str).isin(s.baseline_labels) & (s.results["status"] == "ok")
        ]
        for ds, d in base.groupby("dataset")["n_features"].max().items():
            sizes.setdefault((s.source, str(ds)), int(d))
    return sizes


def build_blocks(
    sets: list[ResultSet],
    metric: str = "error",
    selectors: Sequence[str] | None = None,
    include_all: bool = False,
    keep_full: bool = False,
    per_dataset: bool = False,
    fraction: float | None = None,
) -> Blocks:
    """Mean of ``metric`` per block and selector over the splits every selector finished.

    Parameters
    ----------
    sets : list of ResultSet
        Result directories (:func:`fsbench.results.loading.load_result_sets`).
    metric : str
        A numeric column of ``results.csv`` where lower is better (``error``, ``balanced_error``,
        ``fit_cpu_s``).
    selectors : sequence of str, optional
        Selector labels to compare; default: those present in every directory (the all-features baseline,
        whatever its label, only with ``include_all``).
    include_all : bool
        Keep the all-features baseline (it exists only at S = D, so only S = D blocks remain).
    keep_full : bool
        Keep blocks at S = D (identical errors for input-feature rankers).
    per_dataset : bool
        Average over the S grid first: one block per (directory, dataset, kernel, n_train).
    fraction : float, optional
        Keep only S = ``fraction_size(fraction, D)`` of each dataset (module docstring, Blocks); datasets
        whose D is unknown or that have no result at that S are left out, with a note.

    Returns
    -------
    Blocks
        ``values`` at the metric's resolution (:func:`fsbench.results.ties.at_resolution`, per block).
    """
    if not sets:
        raise CompareError("no results.csv found")
    df = pd.concat([s.results for s in sets], ignore_index=True)
    if metric not in df.columns or not pd.api.types.is_numeric_dtype(df[metric]):
        numeric = [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c])]
        raise CompareError(f"metric {metric!r} is not a numeric column of results.csv; numeric: {numeric}")
    ok = df[df["status"] == "ok"]
    present = {s.source: set(ok.loc[ok["source"] == s.source, "selector"]) for s in sets}
    union = set().union(*present.values())
    baseline = set().union(*(s.baseline_labels for s in sets)) & union
    notes: list[str] = []
    if selectors:
        unknown = [x for x in selectors if x not in union]
        if unknown:
            raise CompareError(f"selector(s) {unknown} not found; present: {sorted(union)}")
        chosen = list(dict.fromkeys(selectors))
    else:
        common = set.intersection(*present.values())
        chosen = sorted(common - (baseline if not include_all else set()))
        for sel in sorted(union - set(chosen)):
            if sel in baseline and not include_all:
                notes.append(f"{sel}: the all-features baseline (only at S = D) is left out; --include-all")
            else:
                missing = [src for src, p in present.items() if sel not in p]
                notes.append(f"{sel}: left out, absent from {', '.join(missing)}; --selector to choose")
    if include_all and not baseline:
        notes.append(f"--include-all: these results have no '{BASELINE}' baseline")
    if len(chosen) < 2:
        raise CompareError(f"need at least 2 selectors to compare, got {chosen}")
    d = ok[ok["selector"].isin(chosen)]
    if fraction is not None:
        d = _at_fraction(d, sets, fraction, notes)
    if not keep_full and not baseline & set(chosen):
        sizes = full_set_sizes(sets)
        full = np.array(
            [
                sizes.get((src, str(ds))) == s
                for src, ds, s in zip(d["source"], d["dataset"], d["n_features"])
            ],
            dtype=bool,
        )
        n_full = d.loc[full, BLOCK].drop_duplicates().shape[0]
        if n_full:
            notes.append(f"{n_full} block(s) at S = D left out (same SVM for every ranker); --keep-full")
        d = d[~full]
    # k-fold: one row per (repeat, fold); no fold (holdout) must stay a key, not NaN
    d, split = split_columns_of(d)
    key = [*BLOCK, *split, "selector"]
    if d.duplicated(key).any():
        raise CompareError(f"results hold several rows for one ({', '.join(['block', *split, 'selector'])})")
    n_before = d[BLOCK].drop_duplicates().shape[0]
    # paired: only the splits in which every selector finished (the one pairing rule, fsbench.results.pairing)
    if set(chosen) <= set(d["selector"]):
        d, _ = common_splits(d, chosen, (), BLOCK, split, "selector", metric, "status")
    else:  # a selector without any row here: no block has all of them
        d = d.iloc[0:0]
    wide = d.set_index(key)[metric].unstack("selector").reindex(columns=chosen).dropna()
    splits = wide.index.to_frame(index=False)
    grouped = wide.groupby(level=BLOCK, sort=True)
    values, n_rep = grouped.mean(), grouped.size()
    if len(values) < n_before:
        notes.append(f"{n_before - len(values)} block(s) left out: not every selector has a result there")
    if per_dataset:
        coarse = BLOCK[:-1]
        n_rep = n_rep.groupby(level=coarse).min()
        values = values.groupby(level=coarse, sort=True).mean()
    if len(values) < 2:
        raise CompareError(
            f"only {len(values)} block(s) where all of {chosen} have results; nothing to compare"
        )
    return Blocks(
        values=_resolved(values), n_repeats=n_rep, selectors=chosen, metric=metric, notes=notes, splits=splits
    )


def _at_fraction(d: pd.DataFrame, sets: list[ResultSet], fraction: float, notes: list[str]) -> pd.DataFrame:
    """The rows of ``d`` at S = ``fraction_size(fraction, D)`` of their (source, dataset); notes the rest."""
    if not 0 < fraction <= 1:
        raise CompareError(f"--fraction must be in (0, 1], got {fraction}")
    sizes = full_set_sizes(sets)
    target = [sizes.get((src, str(ds))) for src, ds in zip(d["source"], d["dataset"])]
    unknown = sorted({str(ds) for ds, t in zip(d["dataset"], target) if t is None})
    if unknown:
        notes.append(
            f"{', '.join(unknown)}: D unknown (no ranking, no baseline), left out at a fraction of D"
        )
    s_at = np.array([fraction_size(fraction, t) if t is not None else -1 for t in target], dtype=int)
    keep = d["n_features"].to_numpy(dtype=int) == s_at
    missing = sorted(set(map(str, d["dataset"])) - set(map(str, d.loc[keep, "dataset"])) - set(unknown))
    if missing:
        notes.append(f"{', '.join(missing)}: no result at S = {fraction:g} of D, left out")
    return d[keep]


def block_table(blocks: Blocks, ranks: pd.DataFrame) -> pd.DataFrame:
    """Long table of every block: selector, mean metric, rank, repeats (the raw material of the tests)."""
    v = blocks.values.stack().rename(blocks.metric)
    r = ranks.stack().rename("rank")
    out = pd.concat([v, r], axis=1).reset_index()
    out = out.rename(columns={out.columns[len(blocks.values.index.names)]: "selector"})
    reps = blocks.n_repeats.rename("repeats").reset_index()
    return out.merge(reps, on=list(blocks.values.index.names), how="left")


def rank_summary(blocks: Blocks, ranks: pd.DataFrame) -> pd.DataFrame:
    """Per selector: average rank, blocks won (rank 1, shared wins count), mean and median of the metric."""
    avg = ranks.mean(axis=0)
    resolved = _resolved(blocks.values)
    out = pd.DataFrame(
        {
            "selector": avg.index,
            "average_rank": avg.to_numpy(),
            # shared first places (at the metric's resolution) count as wins for each of the tied selectors
            "best_in_blocks": resolved.eq(resolved.min(axis=1), axis=0).sum().reindex(avg.index).to_numpy(),
            f"mean_{blocks.metric}": blocks.values.mean(axis=0).reindex(avg.index).to_numpy(),
            f"median_{blocks.metric}": blocks.values.median(axis=0).reindex(avg.index).to_numpy(),
        }
    )
    return out.sort_values("average_rank", kind="stable").reset_index(drop=True)
