r"""Univariate filters and the baselines that read no labels or all features.

* :class:`AllFeatures` (no selection) and :class:`RandomRanking` (a seeded random order);
* :class:`FisherScore` (Ramona 2012, eq. 1) and two scikit-learn filters, :class:`ANOVAF` (``f_classif``)
  and :class:`MutualInfo` (``mutual_info_classif``).

Their common parameter, ``n_features_to_select``, is declared by
:class:`~fsbench.algorithms.base.BaseSelector`.
"""

from __future__ import annotations

import warnings
from numbers import Integral

import numpy as np
from sklearn.feature_selection import f_classif, mutual_info_classif
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval

from fsbench.algorithms.base import BaseSelector, ranking_from_order, ranking_from_scores
from fsbench.algorithms.clinical_kernel import categorical_mask


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


class RandomRanking(BaseSelector):
    """A random order of the features, seeded by ``random_state``: the floor any selector should beat.

    Constant features are *not* moved to the end (unlike every other selector): the baseline reads
    nothing from the data but its width.

    Parameters
    ----------
    random_state : int, RandomState or None, default None
        The task's seed in a run: the same split gets the same order on every rerun.
    n_features_to_select : int, float or None
    """

    description = "random ranking (seeded permutation): the chance baseline"
    citation = "-"
    rank_constant_last = False
    _parameter_constraints: dict = {**BaseSelector._parameter_constraints, "random_state": ["random_state"]}

    def __init__(self, random_state=None, n_features_to_select: int | float | None = None):
        self.random_state = random_state
        self.n_features_to_select = n_features_to_select

    def _fit(self, X, y):
        self.ranking_ = ranking_from_order(check_random_state(self.random_state).permutation(X.shape[1]))


class ANOVAF(BaseSelector):
    r"""ANOVA F statistic per feature: scikit-learn's ``f_classif``, higher first.

    :math:`F_d = \frac{\sum_c n_c(\mu_{c,d}-\mu_d)^2/(C-1)}{\sum_c\sum_{i\in c}(x_{id}-\mu_{c,d})^2/(n-C)}`.
    Up to the constant factor :math:`(n-C)/(C-1)` this is the C-class ratio of :class:`FisherScore`,
    so the two rank alike except where Fisher's two-class form (unpooled variances) differs. A feature
    whose F is undefined (constant within every class) ranks last; ties by index.
    """

    description = "ANOVA F statistic (scikit-learn f_classif), univariate"
    citation = "Fisher 1925 (analysis of variance); scikit-learn f_classif, Pedregosa et al. 2011"

    def _fit(self, X, y):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", (RuntimeWarning, UserWarning))  # constant features: F = NaN
            scores, _ = f_classif(X, y)
        self.scores_ = np.asarray(scores, dtype=float)
        self.ranking_ = ranking_from_scores(self.scores_)


class MutualInfo(BaseSelector):
    """Mutual information between each feature and the class: scikit-learn's ``mutual_info_classif``.

    Continuous features: the k-nearest-neighbour estimator of Kraskov et al. 2004 in Ross's (2014) form
    for a discrete target; scikit-learn adds a little noise to them, seeded by ``random_state``.
    Categorical features (``categorical``): the plug-in estimate from the contingency table of the
    feature's values and the classes (scikit-learn's ``discrete_features``). Higher first, ties by
    index.

    Parameters
    ----------
    n_neighbors : int, default 3
        k of the estimator (scikit-learn's default).
    categorical : bool mask, list of indices or None, default None
        Features whose values are categories (scikit-learn's ``discrete_features``). ``None``: every
        feature is continuous (scikit-learn's default for dense data). A run passes the dataset card's
        mask, in the column order the selector sees, as it does to the Relief adapters.
    random_state : int, RandomState or None, default None
    n_features_to_select : int, float or None
    """

    description = "mutual information with the class (scikit-learn mutual_info_classif, kNN estimator)"
    citation = "Kraskov, Stoegbauer & Grassberger 2004, Phys. Rev. E 69; Ross 2014, PLoS ONE 9(2)"

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "categorical": ["array-like", None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_neighbors: int = 3,
        categorical=None,
        random_state=None,
        n_features_to_select: int | float | None = None,
    ):
        self.n_neighbors = n_neighbors
        self.categorical = categorical
        self.random_state = random_state
        self.n_features_to_select = n_features_to_select

    def _fit(self, X, y):
        # The kNN estimator on an integer-coded categorical column measures distances between codes
        # (and the many ties among them, broken only by the added noise); the contingency table
        # reads the categories as categories.
        discrete = categorical_mask(self.categorical, X.shape[1])
        if discrete.any():
            # Category codes 0..K-1 in the order of the values: the same contingency tables, but a run
            # z-scores the codes, and scikit-learn warns on every non-integer "label" it is given.
            X = X.copy()
            for j in np.flatnonzero(discrete):
                X[:, j] = np.unique(X[:, j], return_inverse=True)[1]
        self.scores_ = mutual_info_classif(
            X, y, discrete_features=discrete, n_neighbors=self.n_neighbors, random_state=self.random_state
        )
        self.ranking_ = ranking_from_scores(self.scores_)
