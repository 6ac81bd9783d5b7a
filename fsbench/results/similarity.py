r"""How alike two selectors rank the features: rank correlation on the same splits, clustered.

For every split (result directory, dataset, kernel, n_train, repeat, fold) and every pair of selectors
with a complete ranking of the D features on that split, the correlation of the two rank vectors —
Spearman's :math:`\rho` (Pearson's correlation of the ranks) or Kendall's :math:`\tau_b` — is taken;
the matrix is the mean over the splits both selectors share, with the number of splits. Selectors are
then clustered by average linkage on :math:`1 - \text{similarity}`, as Bommert et al. (2020, CSDA 143,
§5.3) cluster filter methods by the similarity of their rankings. Partial orders (a subset search's
best subset) and transformers (no ranking) are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.cluster.hierarchy import dendrogram, leaves_list, linkage
from scipy.spatial.distance import squareform
from scipy.stats import kendalltau

from fsbench.results.loading import ResultSet
from fsbench.results.tables import save_figure

METHODS = ("spearman", "kendall")
#: The columns that identify one split of the data (all selectors of a split saw the same samples).
SPLIT_KEYS = ["source", "dataset", "kernel", "n_train", "repeat", "fold"]


def _ranks(order: np.ndarray) -> np.ndarray:
    """Rank vector (0 = best) of a best-first order of feature indices."""
    r = np.empty(order.size, dtype=float)
    r[order] = np.arange(order.size)
    return r


def _correlation(a: np.ndarray, b: np.ndarray, method: str) -> float:
    if method == "spearman":  # the ranks have no ties: Pearson's correlation of the rank vectors
        a, b = a - a.mean(), b - b.mean()
        den = float(np.sqrt((a @ a) * (b @ b)))
        return float(a @ b) / den if den > 0 else np.nan
    return float(kendalltau(a, b).statistic)


def ranking_similarity(
    sets: Sequence[ResultSet], method: str = "spearman", selectors: Sequence[str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Mean rank correlation between every pair of selectors over the splits they share.

    Parameters
    ----------
    sets : result sets (:func:`fsbench.results.loading.load_result_sets`).
    method : {"spearman", "kendall"}
    selectors : the selector labels to compare (default: every selector with a complete ranking).

    Returns
    -------
    (matrix, counts)
        ``matrix``: selectors × selectors mean correlation (diagonal 1); ``counts``: the number of splits
        each pair shares. Both empty if no two selectors share a split.
    """
    if method not in METHODS:
        raise ValueError(f"unknown similarity {method!r}; expected one of {METHODS}")
    frames = [rs.rankings for rs in sets if rs.rankings is not None and len(rs.rankings)]
    if not frames:
        return pd.DataFrame(), pd.DataFrame()
    rk = pd.concat(frames, ignore_index=True)
    # fold: empty for repeated hold-out (and absent in older tables), a key like any other
    rk["fold"] = rk["fold"].astype(str) if "fold" in rk else ""
    full = rk.groupby(["source", "dataset"])["order_len"].transform("max")
    rk = rk[(rk["order_len"] == full) & (rk["order_len"] > 1)]
    if selectors is not None:
        rk = rk[rk["selector"].isin(selectors)]
    names = sorted(rk["selector"].unique())
    idx = {s: i for i, s in enumerate(names)}
    total = np.zeros((len(names), len(names)))
    count = np.zeros((len(names), len(names)), dtype=int)
    for _, split in rk.groupby(SPLIT_KEYS, dropna=False, sort=False):
        split = split.drop_duplicates("selector")
        ranks = {s: _ranks(o) for s, o in zip(split["selector"], split["order_idx"])}
        for a, b in combinations(sorted(ranks), 2):
            c = _correlation(ranks[a], ranks[b], method)
            if np.isnan(c):
                continue
            i, j = idx[a], idx[b]
            total[i, j] += c
            total[j, i] += c
            count[i, j] += 1
            count[j, i] += 1
    keep = [i for i in range(len(names)) if count[i].sum() > 0]
    if len(keep) < 2:
        return pd.DataFrame(), pd.DataFrame()
    names = [names[i] for i in keep]
    total, count = total[np.ix_(keep, keep)], count[np.ix_(keep, keep)]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    np.fill_diagonal(mean, 1.0)
    return pd.DataFrame(mean, index=names, columns=names), pd.DataFrame(count, index=names, columns=names)


def _linkage(matrix: pd.DataFrame) -> np.ndarray:
    """Average linkage on :math:`1 - \\text{similarity}`; pairs sharing no split are the farthest."""
    dist = 1.0 - matrix.to_numpy(dtype=float)
    far = np.nanmax(dist) if np.isfinite(dist).any() else 1.0
    dist = np.clip(np.where(np.isnan(dist), far, dist), 0.0, None)
    dist = (dist + dist.T) / 2
    np.fill_diagonal(dist, 0.0)
    return linkage(squareform(dist, checks=False), method="average")


def cluster_order(matrix: pd.DataFrame) -> list[str]:
    """Selectors in the leaf order of the average-linkage clustering of :func:`_linkage`."""
    names = list(matrix.index)
    if len(names) < 3:
        return names
    return [names[i] for i in leaves_list(_linkage(matrix))]


#: Largest number of selectors whose heat map prints each cell's value (more cells are too small to read).
NUMBERS_MAX = 15
#: Font size (pt) of the cell values.
NUMBER_SIZE = 8


def _cell_text_colour(rgba) -> str:
    """Black or white, whichever contrasts more with a cell of colour ``rgba`` (WCAG relative luminance:
    white on dark red or blue, black on the pale middle of the colour map)."""
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgba[:3]]
    lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    # contrast with black (lum + 0.05) / 0.05 against white 1.05 / (lum + 0.05): equal at lum ~ 0.179
    return "black" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "white"


def _cell_value(v: float) -> str:
    """Two decimals without the leading zero (``.95``, ``-.12``; ``1.00``): four characters fit a cell."""
    text = f"{v:.2f}"
    return text.replace("0.", ".", 1) if text.lstrip("-").startswith("0.") else text


def plot_similarity(matrix: pd.DataFrame, path: Path, title: str = "") -> list[Path]:
    """Clustered heat map of a similarity matrix, with its dendrogram; writes ``path`` (.png and .pdf)."""
    return save_figure(figure_similarity(matrix, title), path)


def figure_similarity(matrix: pd.DataFrame, title: str = ""):
    """The figure of :func:`plot_similarity` (not saved, not closed): each cell's value printed (up to
    :data:`NUMBERS_MAX` selectors) at :data:`NUMBER_SIZE` pt, black or white by the cell's luminance."""
    # matplotlib only where a figure is drawn: keeps it out of the start-up of table-only commands
    import matplotlib.pyplot as plt

    names = list(matrix.index)
    Z = _linkage(matrix) if len(names) >= 3 else None
    # the dendrogram draws its leaves in leaves_list(Z) order: the heat map uses the same order
    order = [names[i] for i in leaves_list(Z)] if Z is not None else names
    m = matrix.loc[order, order].to_numpy(dtype=float)
    n = len(order)
    fig = plt.figure(figsize=(1.6 + 0.42 * n, 2.4 + 0.42 * n))
    try:  # save_figure closes the figure
        ax_d = fig.add_axes((0.22, 0.80, 0.62, 0.15))
        ax = fig.add_axes((0.22, 0.12, 0.62, 0.66))
        if Z is not None:
            dendrogram(
                Z,
                ax=ax_d,
                no_labels=True,
                color_threshold=0,
                above_threshold_color="0.3",
            )
            ax_d.set_xlim(0, 10 * n)  # leaves sit at 5, 15, ...: one per heat-map column
        ax_d.set_axis_off()
        im = ax.imshow(m, vmin=-1, vmax=1, cmap="RdBu_r", aspect="auto")
        ax.set_xticks(range(n), order, rotation=90)
        ax.set_yticks(range(n), order)
        if n <= NUMBERS_MAX:
            for i in range(n):
                for j in range(n):
                    if np.isfinite(m[i, j]):
                        colour = _cell_text_colour(im.cmap(im.norm(m[i, j])))
                        ax.text(
                            j,
                            i,
                            _cell_value(m[i, j]),
                            ha="center",
                            va="center",
                            fontsize=NUMBER_SIZE,
                            color=colour,
                        )
        cax = fig.add_axes((0.86, 0.12, 0.02, 0.66))
        fig.colorbar(im, cax=cax)
        if title:
            ax_d.set_title(title, fontsize=9)
        return fig
    except BaseException:
        plt.close(fig)
        raise
