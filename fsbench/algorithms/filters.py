r"""Univariate filters and the no-selection baseline.

Their one parameter, ``n_features_to_select``, is declared by :class:`~fsbench.algorithms.base.BaseSelector`.
"""

from __future__ import annotations

import numpy as np

from fsbench.algorithms.base import BaseSelector, ranking_from_order, ranking_from_scores


class AllFeatures(BaseSelector):
    """No selection: every feature, in input order (the all-features SVM baseline of the papers)."""

    description = "no selection: all features (baseline SVM line of the papers' figures)"
    citation = "-"
    baseline_all = True

    def _fit(self, X, y):
        self.ranking_ = ranking_from_order(np.arange(X.shape[1]))
        self.scores_ = np.zeros(X.shape[1])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # it reads nothing: mixed-type data with missing values (Paul 2015)
        return tags


class FisherScore(BaseSelector):
    r"""Fisher criterion (Ramona 2012, eq. 1), generalised to C classes.

    Two classes: :math:`r_F(d) = (\mu_{1,d}-\mu_{2,d})^2 / (\sigma_{1,d}^2 + \sigma_{2,d}^2)` with
    unbiased (n−1) variances, as MATLAB ``std`` in the Spider toolbox.

    C classes (ALGORITHMS.md §12.3 [D]): the between/within ratio

    .. math:: r_F(d) = \frac{\sum_c n_c(\mu_{c,d}-\mu_d)^2}{\sum_c n_c\sigma_{c,d}^2}.

    A feature whose within-class variance is 0 scores 0 when its class means agree too
    (a constant feature carries no information) and +inf when they differ (it separates the
    classes perfectly). Ties keep the input order.
    """

    description = "Fisher criterion (between/within class variance ratio per feature)"
    citation = "Ramona et al. 2012, eq. (1); multiclass ratio generalisation"

    def _fit(self, X, y):
        C = int(y.max()) + 1
        if C == 2:
            a, b = X[y == 0], X[y == 1]
            var = lambda Z: Z.var(axis=0, ddof=1) if Z.shape[0] > 1 else np.zeros(Z.shape[1])  # noqa: E731
            num = (a.mean(axis=0) - b.mean(axis=0)) ** 2
            den = var(a) + var(b)
        else:
            mu = X.mean(axis=0)
            num = np.zeros(X.shape[1])
            den = np.zeros(X.shape[1])
            for c in range(C):
                Xc = X[y == c]
                num += Xc.shape[0] * (Xc.mean(axis=0) - mu) ** 2
                den += Xc.shape[0] * Xc.var(axis=0)
        scale = np.maximum(np.abs(X).max(axis=0), 1.0)
        tiny_num = num <= 1e-24 * scale**2
        with np.errstate(divide="ignore", invalid="ignore"):
            scores = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.where(tiny_num, 0.0, np.inf))
        self.scores_ = scores
        self.ranking_ = ranking_from_scores(scores)
