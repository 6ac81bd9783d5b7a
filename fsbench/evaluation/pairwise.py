"""Per-pair selection (``protocol.selection: per_pair``): one ranking per pair of classes.

Ramona et al. 2012 (§V-B4) classify the ten USPS digits with "a pairwise scheme [...] (45 SVMs
trained)". fsbench's default reads the selection as global (one top-S pixel subset for all 45
machines); this module is the other reading, run with the full protocol:

1. for every pair of classes (a, b), a < b, a clone of the task's selector is fitted on the pair's
   training points only (labels 0 = a, 1 = b), giving the pair its own ranking;
2. for every S, pair (a, b)'s machine is trained on its own top-S features and the machines are
   combined by the protocol's pairwise classifier
   (:func:`fsbench.evaluation.classifiers.fit_predict_per_pair`: Platt + Hastie–Tibshirani for
   ``svm_coupling``, voting for ``svm``).

Each pair's machine resolves the kernel's width rule (e.g. ``gamma: median``) on its own training points
and columns — there is no single column set to resolve it on once, as the global classifier does — so
even the ``all`` baseline differs slightly from the global one under a width rule (with a numeric
``gamma`` it is the same machine). The selector of a pair is built for the pair's points
(:func:`fsbench.evaluation.protocol.build_selector`), so a user class gets the width rule resolved on them
too.

The selection CPU / wall time of a task is the sum over its pairs. The pairs' rankings are kept in the
task file (``ranking.pair_orders``, keyed ``"a-b"`` by class index); ``rankings.csv`` has no single order
for such a task (its ``order`` is empty, as for a transformer), so the stability report leaves it out.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np


@dataclass
class PairRankings:
    """The per-pair fits of one selector on one training set."""

    #: (a, b) class indices (values of ``y``), a < b, in :func:`itertools.combinations` order
    pairs: list[tuple[int, int]]
    #: per pair, the column indices of the selector's input, best first
    orders: list[np.ndarray]
    #: summed over the pairs
    fit_cpu_s: float
    fit_wall_s: float
    n_iter: int
    converged: bool


def fit_per_pair(make_selector, X: np.ndarray, y: np.ndarray, fit_timed) -> PairRankings:
    """Fit a selector on the points of every pair of classes of ``y``.

    Parameters
    ----------
    make_selector : callable
        ``make_selector(X_pair)`` returns an unfitted ranker (``ranking_`` after ``fit``) for the pair's
        points ``X_pair``.
    X : ndarray of shape (n, D)
        The selection data (columns in the order the selector sees them).
    y : ndarray of shape (n,)
        Class indices.
    fit_timed : callable
        ``fit_timed(est, X, y) -> (cpu_s, wall_s)``, the protocol's timed fit.

    Returns
    -------
    PairRankings

    Raises
    ------
    ValueError
        If ``y`` has fewer than two classes, or a fitted clone has no complete ``ranking_`` (a
        transformer or a subset search cannot be run per pair).
    """
    classes = np.unique(y)
    if classes.size < 2:
        raise ValueError("per-pair selection needs at least two classes in the training set")
    D = X.shape[1]
    pairs, orders = [], []
    cpu = wall = 0.0
    n_iter, converged = 0, True
    for a, b in combinations(range(classes.size), 2):
        idx = np.flatnonzero((y == classes[a]) | (y == classes[b]))
        est = make_selector(X[idx])
        c, w = fit_timed(est, X[idx], (y[idx] == classes[b]).astype(int))
        rank = np.asarray(getattr(est, "ranking_", []))
        if rank.shape != (D,) or sorted(rank.tolist()) != list(range(1, D + 1)):
            raise ValueError("per-pair selection needs a ranker: ranking_ must be a complete order 1..D")
        pairs.append((int(classes[a]), int(classes[b])))
        orders.append(np.argsort(rank, kind="stable"))
        cpu, wall = cpu + c, wall + w
        n_iter += int(getattr(est, "n_iter_", 0) or 0)
        converged = converged and bool(getattr(est, "converged_", True))
    return PairRankings(pairs, orders, cpu, wall, n_iter, converged)
