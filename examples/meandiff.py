"""A feature selector of your own, plugged into fsbench without touching fsbench (docs/selectors.md).

``MeanDiff`` ranks each feature by the kernel distance between its class means (the squared maximum mean
discrepancy of one feature, class against the rest, summed over classes). It is a plain scikit-learn
estimator: ``fit(X, y)`` sets ``ranking_`` (1 = best, a permutation of 1..D). fsbench names it in a config
as ``meandiff:MeanDiff`` and imports it from the config's ``plugins:`` directory (see meandiff.yaml).
"""

import numpy as np
from sklearn.base import BaseEstimator


class MeanDiff(BaseEstimator):
    """Rank features by the one-feature kernel distance between class means (MMD²).

    Parameters
    ----------
    kernel : {"linear", "rbf"}
        Inherited from the experiment's ``kernel`` unless the config sets it in ``params``.
    gamma : float
        RBF width; fsbench resolves a rule such as ``median/4`` to a number on the training split first.
    random_state : int or None
        The task's seed (derived from names, the same on every rerun); unused here.
    """

    def __init__(self, kernel="linear", gamma=1.0, random_state=None):
        self.kernel = kernel
        self.gamma = gamma
        self.random_state = random_state

    def fit(self, X, y):
        """Score every feature; ``y`` holds class indices 0..C-1 whatever the dataset's labels are."""
        X, y = np.asarray(X, dtype=float), np.asarray(y)
        scores = np.zeros(X.shape[1])
        for j in range(X.shape[1]):
            x = X[:, j : j + 1]
            K = np.exp(-self.gamma * (x - x.T) ** 2) if self.kernel == "rbf" else x @ x.T
            for c in np.unique(y):
                a, b = y == c, y != c
                scores[j] += K[a][:, a].mean() + K[b][:, b].mean() - 2 * K[a][:, b].mean()
        self.scores_ = scores  # optional: written to rankings.csv
        self.ranking_ = np.argsort(np.argsort(-scores, kind="stable")) + 1  # required: 1 = best
        return self
