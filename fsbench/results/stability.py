"""Stability of the selected feature subsets across repeats, from ``rankings.csv``.

At a given S, split i of a (dataset, kernel, n_train, selector) selects the top S of its ranking; the M
splits give a binary matrix Z (M × d, z_if = 1 if feature f is among split i's top S). A split is a
repeat, or under k-fold one (repeat, fold): each fold's ranking is a row of its own
(:func:`fsbench.results.loading.ranking_splits`), and the ``repeats`` column counts the splits. Two
measures:

* **Kuncheva's consistency index** (L. I. Kuncheva, "A stability index for feature selection", AIAC
  2007): for two subsets of size k with r features in common, ``I_C = (r d − k²) / (k (d − k))`` — the
  overlap corrected for the overlap k²/d expected by chance; averaged over all M(M−1)/2 pairs of
  repeats. Undefined at k = 0 and k = d (every subset is then the same by construction).
* **The Nogueira–Sechidis–Brown estimator** (S. Nogueira, K. Sechidis, G. Brown, "On the stability of
  feature selection algorithms", JMLR 18(174):1–54, 2018):
  ``Φ̂ = 1 − (1/d) Σ_f s_f² / ((k̄/d)(1 − k̄/d))`` with ``s_f² = M/(M−1) p̂_f (1 − p̂_f)`` the unbiased
  variance of feature f's selection indicator and k̄ the mean subset size. Φ̂ is asymptotically normal;
  its variance is estimated by ``v = (4/M²) Σ_i (φ_i − φ̄)²`` with
  ``φ_i = [ (1/d) Σ_f z_if p̂_f − k_i k̄/d² + (Φ̂/2)(2 k_i k̄/d² − k_i/d − k̄/d + 1) ] / ((k̄/d)(1 − k̄/d))``,
  and the (1 − α) confidence interval is ``Φ̂ ± z_{1−α/2} √v``. The formulas follow the authors'
  reference implementation (repository nogueirs/JMLR2018, ``python/stability/__init__.py``; its MATLAB
  ``getStabilityVariance.m`` writes the same φ_i in another, algebraically equal form); the test
  reproduces the numbers printed in the authors' demo notebook.

The subset of a repeat at S is the top S of its ranking, except for subset searches fitted once per S
(branch-and-bound, exhaustive wrappers), whose choice at S is the ``subset`` column of ``results.csv``
(their sets for different S need not be nested; :meth:`fsbench.results.loading.ResultSet.top_sets`).
With the same k in every repeat (always the case here) Φ̂ equals the mean pairwise Kuncheva index
exactly (Nogueira et al. note this; the test checks it), so the two columns agree and the confidence
interval holds for both. Rankers and searches only: transformers (empty ``order``) and the all-features
baseline (whose "ranking" is an arbitrary order, whatever its label) are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from fsbench.results.loading import ResultSet, ranking_splits

GROUP = ["source", "dataset", "kernel", "n_train", "selector"]


def selection_matrix(orders: list[np.ndarray] | np.ndarray, s: int, d: int | None = None) -> np.ndarray:
    """Binary matrix (repeats × d) of the top ``s`` features of every ranking (best first)."""
    orders = [np.asarray(o) for o in orders]
    d = int(d if d is not None else max(len(o) for o in orders))
    z = np.zeros((len(orders), d), dtype=bool)
    for i, o in enumerate(orders):
        z[i, o[:s]] = True
    return z


def kuncheva_consistency(z: np.ndarray) -> float:
    """Mean Kuncheva index over all pairs of rows of a binary selection matrix.

    Parameters
    ----------
    z : ndarray of shape (M, d)
        Selection matrix; every row must select the same number k of features.

    Returns
    -------
    float
        NaN when undefined: fewer than 2 rows, k = 0 or k = d.
    """
    z = np.asarray(z, dtype=float)
    m, d = z.shape
    k = z.sum(axis=1)
    if m < 2 or not np.all(k == k[0]):
        if m >= 2:
            raise ValueError("Kuncheva's index needs subsets of equal size")
        return float("nan")
    k = float(k[0])
    if k == 0 or k == d:
        return float("nan")
    overlap = z @ z.T  # r_ij
    iu = np.triu_indices(m, 1)
    return float(np.mean((overlap[iu] * d - k * k) / (k * (d - k))))


@dataclass(frozen=True)
class NogueiraStability:
    """Stability estimate Φ̂, its estimated variance and (1 − alpha) confidence interval."""

    stability: float
    variance: float
    lower: float
    upper: float


def nogueira_stability(z: np.ndarray, alpha: float = 0.05) -> NogueiraStability:
    """Nogueira–Sechidis–Brown stability of a binary selection matrix, with its confidence interval.

    Parameters
    ----------
    z : ndarray of shape (M, d)
        Selection matrix (M ≥ 2 feature sets over d features).
    alpha : float
        1 − confidence level of the interval.

    Returns
    -------
    NogueiraStability
        All NaN when undefined (M < 2, or every set empty or complete: k̄ ∈ {0, d}).
    """
    z = np.asarray(z, dtype=float)
    m, d = z.shape
    kbar = z.sum(axis=1).mean()
    denom = (kbar / d) * (1.0 - kbar / d)
    if m < 2 or denom <= 0:
        nan = float("nan")
        return NogueiraStability(nan, nan, nan, nan)
    p = z.mean(axis=0)
    phi_hat = 1.0 - (m / (m - 1.0)) * np.mean(p * (1.0 - p)) / denom
    k = z.sum(axis=1)
    phi_i = (
        (z @ p) / d - k * kbar / d**2 + (phi_hat / 2.0) * (2.0 * k * kbar / d**2 - k / d - kbar / d + 1.0)
    ) / denom
    var = 4.0 / m**2 * float(np.sum((phi_i - phi_i.mean()) ** 2))
    half = float(stats.norm.ppf(1.0 - alpha / 2.0)) * np.sqrt(var)
    return NogueiraStability(float(phi_hat), var, float(phi_hat - half), float(phi_hat + half))


def _s_grid(results: pd.DataFrame | None) -> dict[tuple, list[int]]:
    if results is None or results.empty:
        return {}
    ok = results[results["status"] == "ok"]
    return {
        tuple(key): sorted(int(s) for s in g.unique())
        for key, g in ok.groupby(GROUP, sort=False)["n_features"]
    }


def stability_table(
    sets: list[ResultSet],
    s_values: list[int] | None = None,
    alpha: float = 0.05,
    metric: str = "error",
) -> pd.DataFrame:
    """Stability of every (directory, dataset, kernel, n_train, selector) at each S, with the mean error.

    Parameters
    ----------
    sets : list of ResultSet
        Result directories with ``rankings.csv`` (others are skipped).
    s_values : list of int, optional
        S values to use; default: the S grid of ``results.csv`` for the same selector and setting.
    alpha : float
        1 − confidence level of Nogueira's interval.
    metric : str
        ``results.csv`` column averaged (over ok repeats) at the same S, for the error-vs-stability view.

    Returns
    -------
    DataFrame
        Tidy: GROUP columns, ``n_features`` (S), ``d``, ``repeats``, ``kuncheva``, ``nogueira``,
        ``nogueira_var``, ``ci_low``, ``ci_high``, ``mean_<metric>`` and ``pareto`` (no other selector of the
        same setting and S is at least as stable and at least as accurate, and better in one).
    """
    rows = []
    for rs in sets:
        if rs.rankings is None or rs.rankings.empty:
            continue
        grid = _s_grid(rs.results)
        means = {}
        if rs.results is not None and metric in rs.results.columns:
            ok = rs.results[rs.results["status"] == "ok"]
            means = ok.groupby([*GROUP, "n_features"])[metric].mean().to_dict()
        r = rs.rankers()
        for key, g in r.groupby(GROUP, sort=False):
            d = int(g["order_len"].max())
            if (g["order_len"] != d).any():
                raise ValueError(f"{rs.source}: rankings of {key} have different lengths")
            g, splits = ranking_splits(g)  # one ranking per split: repeat, or (repeat, fold) under k-fold
            orders = list(g["order_idx"])
            for s in s_values if s_values is not None else grid.get(tuple(key), []):
                if not 0 < s <= d:
                    continue
                z = selection_matrix(rs.top_sets(tuple(key)[1:], s, splits, orders), s, d)
                nog = nogueira_stability(z, alpha)
                rows.append(
                    {
                        **dict(zip(GROUP, key)),
                        "n_features": int(s),
                        "d": d,
                        "repeats": len(orders),
                        "kuncheva": kuncheva_consistency(z),
                        "nogueira": nog.stability,
                        "nogueira_var": nog.variance,
                        "ci_low": nog.lower,
                        "ci_high": nog.upper,
                        f"mean_{metric}": means.get((*key, s), np.nan),
                    }
                )
    cols = [*GROUP, "n_features", "d", "repeats", "kuncheva", "nogueira", "nogueira_var", "ci_low"]
    cols += ["ci_high", f"mean_{metric}", "pareto"]
    if not rows:
        return pd.DataFrame(columns=cols)
    out = pd.DataFrame(rows)
    out["pareto"] = _pareto(out, f"mean_{metric}")
    return out[cols]


def _pareto(df: pd.DataFrame, err: str) -> pd.Series:
    """Pareto optimality within each (setting, S): higher stability and lower error are better."""
    flags = pd.Series(False, index=df.index)
    for _, g in df.groupby([*GROUP[:-1], "n_features"], sort=False):
        st, er = g["nogueira"].to_numpy(), g[err].to_numpy()
        for i, idx in enumerate(g.index):
            if np.isnan(st[i]) or np.isnan(er[i]):
                continue
            dominated = np.any((st >= st[i]) & (er <= er[i]) & ((st > st[i]) | (er < er[i])))
            flags[idx] = not dominated
    return flags


def plot_error_vs_stability(
    table: pd.DataFrame, metric: str = "error", alpha: float = 0.05, title: str | None = None
):
    """Error vs stability (Pareto view), one panel per (directory, dataset, kernel, n_train).

    Each selector is a line through its S values (marker size grows with S) at x = Nogueira's Φ̂ with
    its confidence interval, y = mean ``metric`` at the same S; filled markers are Pareto-optimal at their
    S (no selector both more stable and more accurate), hollow ones dominated.

    Returns
    -------
    matplotlib.figure.Figure or None
        None when the table has no defined stability.
    """
    # function-level: matplotlib loads only when a figure is drawn (not for tables or the console report)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    err = f"mean_{metric}"
    t = table.dropna(subset=["nogueira", err])
    if t.empty:
        return None
    panels = list(t.groupby(GROUP[:-1], sort=False))
    ncols = min(3, len(panels))
    nrows = -(-len(panels) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, 4.2 * nrows), squeeze=False)
    selectors = list(dict.fromkeys(t["selector"]))
    colors = {s: plt.get_cmap("tab10")(i % 10) for i, s in enumerate(selectors)}
    for ax, (key, g) in zip(axes.flat, panels):
        smax = g["n_features"].max()
        for sel, gs in g.groupby("selector", sort=False):
            gs = gs.sort_values("n_features")
            c = colors[sel]
            ax.plot(gs["nogueira"], gs[err], "-", color=c, lw=1, alpha=0.7, label=sel)
            ax.errorbar(
                gs["nogueira"],
                gs[err],
                # clipped at 0: with zero variance the CI collapses and round-off can go negative
                xerr=np.clip([gs["nogueira"] - gs["ci_low"], gs["ci_high"] - gs["nogueira"]], 0.0, None),
                fmt="none",
                ecolor=c,
                elinewidth=0.6,
                alpha=0.6,
            )
            sizes = 12 + 60 * gs["n_features"] / smax
            pareto = gs["pareto"].astype(bool).to_numpy()
            ax.scatter(gs["nogueira"][pareto], gs[err][pareto], s=sizes[pareto], color=c, zorder=3)
            ax.scatter(
                gs["nogueira"][~pareto],
                gs[err][~pareto],
                s=sizes[~pareto],
                facecolors="white",
                edgecolors=[c],
                zorder=3,
            )
        src, ds, kern, n = key
        ax.set_title(f"{src}: {ds}, {kern}, n_train={n}", fontsize=9)
        ax.set_xlabel(f"stability (Nogueira Φ̂, {100 * (1 - alpha):g} % CI)")
        ax.set_ylabel(f"mean {metric}")
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(panels) :]:
        ax.axis("off")
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    # one legend for all panels, outside them: inside, it hides points of the first panel
    handles = {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(
        list(handles.values()),
        list(handles),
        loc="upper left",
        bbox_to_anchor=(1.0, 0.98),
        fontsize=8,
        title="marker size ∝ S\nfilled = Pareto-optimal at its S",
        title_fontsize=8,
    )
    return fig
