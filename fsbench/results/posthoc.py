"""Rank-based comparisons of selectors over datasets, on long tables (:mod:`fsbench.results.pairing`).

* :func:`control_comparisons` — every selector against the best-ranked one (the control), Wilcoxon
  signed-rank and the rank z-test, Holm over the k − 1 comparisons (Demšar 2006; García & Herrera 2008);
* :func:`not_worse_sets` — the headline: the selectors not significantly worse than the control;
* :func:`all_pairs` — Nemenyi and Holm-corrected Wilcoxon over all k(k − 1)/2 pairs, the tests of the
  critical-difference diagrams (:func:`fsbench.results.stats_compare.posthoc_table`, reused);
* :func:`rank_bootstrap` — percentile bootstrap intervals of every selector's average rank, resampling
  datasets;
* :func:`order_agreement` — Kendall's τ and Spearman's ρ between the average-rank orders of evaluators.

Each function takes a long table (``by`` groups such as the fraction of D or an evaluator, ``block`` =
dataset, ``selector``, ``value``, ``split`` = repeat), pairs it on the splits every compared selector
finished (:func:`fsbench.results.pairing.common_splits`), and returns a tidy DataFrame; none reads or writes a
file. Lower values are better (errors) unless ``higher_is_better``.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from fsbench.results.pairing import columns, groups, paired_values
from fsbench.results.stats_compare import CompareError, posthoc_table, posthoc_vs_control, rank_blocks


def _wide(
    table: pd.DataFrame,
    block: str | Sequence[str],
    split: str | Sequence[str],
    selector: str,
    value: str,
    status: str,
) -> pd.DataFrame:
    """Paired block values of every selector of ``table``; at least 2 blocks and 2 selectors."""
    wide = paired_values(table, None, block, split, selector, value, status)
    if wide.shape[0] < 2 or wide.shape[1] < 2:
        raise CompareError(
            f"need at least 2 blocks and 2 selectors with common splits, got {wide.shape[0]} and "
            f"{wide.shape[1]}"
        )
    return wide


def control_comparisons(
    table: pd.DataFrame,
    by: str | Sequence[str] = (),
    block: str | Sequence[str] = "dataset",
    split: str | Sequence[str] = "repeat",
    selector: str = "selector",
    value: str = "value",
    status: str = "status",
    control: str | None = None,
    alpha: float = 0.05,
    higher_is_better: bool = False,
) -> pd.DataFrame:
    r"""Post-hoc tests of every selector against the best-ranked one, per ``by`` group, Holm over k − 1.

    In each group the selectors are compared on the blocks (datasets) where all of them have common
    splits; each block value is a selector's mean over those splits. Within every block the selectors are
    ranked (1 = best, ties share the average rank, as Friedman's test does); the control is the selector
    with the lowest average rank R_c. Each other selector i is compared with it by

    * the Wilcoxon signed-rank test on the N paired block values (two-sided, zero differences split);
    * the rank z-test :math:`z = (R_i - R_c) / \sqrt{k(k+1)/(6N)}` (Demšar 2006, §3.2.2), for reference;

    and each family of k − 1 p-values is Holm-adjusted: the comparisons corrected for are those with the
    control only (García & Herrera 2008, JMLR 9:2677–2694), not all pairs. See
    :func:`fsbench.results.stats_compare.posthoc_vs_control` for the columns.

    Parameters
    ----------
    table : DataFrame
        Long table (:mod:`fsbench.results.pairing`); every selector in it is compared.
    by, block, split, selector, value, status
        Column names.
    control : str, optional
        Fix the control instead of taking the best-ranked selector.
    alpha : float
        Family-wise level of each group's k − 1 comparisons.
    higher_is_better : bool
        Values are accuracies rather than errors.

    Returns
    -------
    DataFrame
        The ``by`` columns, then the columns of :func:`fsbench.results.stats_compare.posthoc_vs_control`
        (``wilcoxon_not_worse``: not significantly worse than the control under Holm over k − 1;
        ``correction`` names the family).

    Raises
    ------
    CompareError
        A group with fewer than 2 blocks or 2 selectors on common splits.
    """
    frames = []
    for key, g in groups(table, by):
        wide = _wide(g, block, split, selector, value, status)
        res = posthoc_vs_control(wide, None, control, alpha, higher_is_better)
        frames.append(res.assign(**key)[[*key, *res.columns]])
    return pd.concat(frames, ignore_index=True)


def not_worse_sets(
    comparisons: pd.DataFrame, by: str | Sequence[str] = (), column: str = "wilcoxon_not_worse"
) -> pd.DataFrame:
    """The headline of :func:`control_comparisons`: per group, the selectors not significantly worse than the
    control (the control included), in average-rank order.

    Parameters
    ----------
    comparisons : DataFrame
        Output of :func:`control_comparisons`.
    by : str or sequence of str
        Its group columns.
    column : str
        ``wilcoxon_not_worse`` (the test of the headline) or ``z_not_worse``.

    Returns
    -------
    DataFrame
        The ``by`` columns, ``control``, ``k``, ``n_blocks``, ``n_not_worse``, ``not_worse`` and
        ``worse`` (selector names joined by ``", "``) and ``correction``.
    """
    rows = []
    for key, g in groups(comparisons, by):
        g = g.sort_values(["is_control", "average_rank"], ascending=[False, True], kind="stable")
        keep = g[g[column].astype(bool)]["selector"].tolist()
        rows.append(
            {
                **key,
                "control": g["control"].iloc[0],
                "k": int(g["k"].iloc[0]),
                "n_blocks": int(g["n_blocks"].iloc[0]),
                "n_not_worse": len(keep),
                "not_worse": ", ".join(keep),
                "worse": ", ".join(g[~g[column].astype(bool)]["selector"]),
                "correction": g["correction"].iloc[0],
            }
        )
    return pd.DataFrame(rows)


def all_pairs(
    table: pd.DataFrame,
    by: str | Sequence[str] = (),
    block: str | Sequence[str] = "dataset",
    split: str | Sequence[str] = "repeat",
    selector: str = "selector",
    value: str = "value",
    status: str = "status",
    alpha: float = 0.05,
    higher_is_better: bool = False,
) -> pd.DataFrame:
    """Nemenyi and Wilcoxon–Holm over all k(k − 1)/2 pairs, per ``by`` group (the CD diagrams' tests).

    :func:`fsbench.results.stats_compare.posthoc_table` on the paired block values of each group (the
    same blocks as :func:`control_comparisons`); Holm here corrects for every pair. With
    ``higher_is_better`` the values are negated first (``wins_a`` and ``median_diff`` read as on errors).

    Returns
    -------
    DataFrame
        The ``by`` columns, then :func:`fsbench.results.stats_compare.posthoc_table`'s columns.
    """
    frames = []
    for key, g in groups(table, by):
        wide = _wide(g, block, split, selector, value, status)
        sign = -1.0 if higher_is_better else 1.0  # posthoc_table ranks lower values first
        res = posthoc_table(sign * wide, rank_blocks(wide, higher_is_better), alpha)
        frames.append(res.assign(**key)[[*key, *res.columns]])
    return pd.concat(frames, ignore_index=True)


def rank_bootstrap(
    table: pd.DataFrame,
    by: str | Sequence[str] = (),
    block: str | Sequence[str] = "dataset",
    split: str | Sequence[str] = "repeat",
    selector: str = "selector",
    value: str = "value",
    status: str = "status",
    n_boot: int = 2000,
    level: float = 0.95,
    seed: int = 0,
    higher_is_better: bool = False,
) -> pd.DataFrame:
    r"""Bootstrap percentile intervals of every selector's average rank, resampling the datasets.

    The N blocks (datasets) are drawn N times with replacement, B = ``n_boot`` times. In each resample the
    selectors are ranked within every drawn block as Friedman's test ranks them (1 = best, ties share the
    average rank) and the ranks are averaged over the N drawn blocks,
    :math:`R^{*b}_j = \frac1N \sum_{i=1}^N r_{I_{bi}, j}`; a block's ranks depend only on that block's
    values, so drawing a block draws its row of ranks. The interval is the percentile interval
    [q_{(1-level)/2}, q_{(1+level)/2}] of the B values (Efron & Tibshirani 1993, ch. 13), with numpy's
    default (linear) quantile. It says how much the average rank owes to *which* datasets were benchmarked,
    not to the splits. Seeded: ``numpy.random.default_rng(seed)``, the same draws in every group.

    Parameters
    ----------
    table : DataFrame
        Long table; every selector in it is ranked.
    by, block, split, selector, value, status
        Column names.
    n_boot : int
        B, the number of resamples (default 2,000).
    level : float
        Coverage of the interval (default 0.95).
    seed : int
        Seed of the resampling.
    higher_is_better : bool
        Values are accuracies rather than errors.

    Returns
    -------
    DataFrame
        The ``by`` columns, ``selector``, ``average_rank`` (on the data as observed), ``ci_low``,
        ``ci_high``, ``share_best`` (the share of resamples in which the selector has the lowest average
        rank; a tie shares the resample), ``n_blocks``, ``n_boot``, ``level``, ``seed``; by average rank.
    """
    if n_boot < 1 or not 0 < level < 1:
        raise ValueError(f"need n_boot >= 1 and 0 < level < 1, got {n_boot} and {level}")
    lo_q, hi_q = (1 - level) / 2, (1 + level) / 2
    frames = []
    for key, g in groups(table, by):
        ranks = rank_blocks(_wide(g, block, split, selector, value, status), higher_is_better)
        r = ranks.to_numpy()
        n = r.shape[0]
        rng = np.random.default_rng(seed)
        boot = r[rng.integers(0, n, size=(n_boot, n))].mean(axis=1)  # B × k average ranks
        best = np.isclose(boot, boot.min(axis=1, keepdims=True), rtol=0, atol=1e-12)
        share = (best / best.sum(axis=1, keepdims=True)).mean(axis=0)
        out = pd.DataFrame(
            {
                "selector": ranks.columns,
                "average_rank": r.mean(axis=0),
                "ci_low": np.quantile(boot, lo_q, axis=0),
                "ci_high": np.quantile(boot, hi_q, axis=0),
                "share_best": share,
                "n_blocks": n,
                "n_boot": n_boot,
                "level": level,
                "seed": seed,
            }
        ).sort_values("average_rank", kind="stable")
        frames.append(out.assign(**key)[[*key, *out.columns]])
    return pd.concat(frames, ignore_index=True)


def order_agreement(
    ranks: pd.DataFrame,
    evaluator: str = "evaluator",
    selector: str = "selector",
    value: str = "average_rank",
    by: str | Sequence[str] = (),
) -> pd.DataFrame:
    r"""Kendall's τ and Spearman's ρ between the selector orders of every pair of evaluators.

    Each evaluator (a classifier scoring the selected subsets, a metric, …) orders the selectors by their
    average rank; two orders are compared over the selectors both rank. Kendall's τ_b (ties handled,
    :func:`scipy.stats.kendalltau`) is (concordant − discordant pairs) over the pairs,
    :math:`\tau_b = (n_c - n_d) / \sqrt{(n_0 - n_1)(n_0 - n_2)}`; Spearman's ρ is Pearson's correlation of
    the ranks (:func:`scipy.stats.spearmanr`); both with their two-sided p-values (Kendall 1938;
    Spearman 1904). 1 is the same order, −1 the reverse.

    Parameters
    ----------
    ranks : DataFrame
        One row per (by, evaluator, selector) with the average rank, e.g. :func:`control_comparisons` or
        :func:`rank_bootstrap` run with ``by=[..., evaluator]``.
    evaluator, selector, value : str
        Column names.
    by : str or sequence of str
        Groups compared separately (the fraction of D).

    Returns
    -------
    DataFrame
        The ``by`` columns, ``evaluator_a``, ``evaluator_b``, ``n_selectors``, ``kendall_tau``,
        ``kendall_p``, ``spearman_rho``, ``spearman_p`` (NaN with fewer than 2 common selectors).
    """
    rows = []
    for key, g in groups(ranks, columns(by)):
        orders = {str(e): s.set_index(selector)[value] for e, s in g.groupby(evaluator, sort=True)}
        for a, b in combinations(sorted(orders), 2):
            common = sorted(set(orders[a].index) & set(orders[b].index), key=str)
            x = orders[a].reindex(common).to_numpy(dtype=float)
            y = orders[b].reindex(common).to_numpy(dtype=float)
            if len(common) >= 2:
                kt, sr = stats.kendalltau(x, y), stats.spearmanr(x, y)
                tau, tau_p, rho, rho_p = kt.statistic, kt.pvalue, sr.statistic, sr.pvalue
            else:
                tau = tau_p = rho = rho_p = np.nan
            rows.append(
                {
                    **key,
                    "evaluator_a": a,
                    "evaluator_b": b,
                    "n_selectors": len(common),
                    "kendall_tau": float(tau),
                    "kendall_p": float(tau_p),
                    "spearman_rho": float(rho),
                    "spearman_p": float(rho_p),
                }
            )
    return pd.DataFrame(rows)
