"""Common base of every fsbench selector.

A selector is a scikit-learn estimator whose ``fit(X, y)`` sets

``ranking_``
    a complete order of the D features: distinct integers 1..D, 1 = best (unlike scikit-learn's
    ``RFE``, which gives every kept feature rank 1);
``scores_`` (optional)
    a per-feature score where the method has a natural one (higher = better);
``n_iter_`` / ``converged_``
    iterations used and whether the stopping rule (not the iteration cap) ended the fit.

``get_support()`` / ``transform()`` come from :class:`sklearn.feature_selection.SelectorMixin`:
the top ``n_features_to_select`` features by rank (``None`` keeps all of them, so the ranking is
the product and ``transform`` is the identity).

Parameters are declared once, as scikit-learn ``_parameter_constraints`` (each subclass extends its
parent's dict); ``fit`` checks them first (``_fit_context``), and ``fsbench run`` checks the same
declaration (``_validate_params``) before any work starts. A check that ties two parameters together
goes in an override of ``_validate_params`` that calls ``super()`` first.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import Interval, RealNotInt
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from fsbench.algorithms.kernels import KERNELS

#: scikit-learn constraint of ``n_features_to_select``: a count, a fraction or None (all).
N_FEATURES_TO_SELECT = [
    Interval(Integral, 1, None, closed="left"),
    Interval(RealNotInt, 0, 1, closed="neither"),
    None,
]


def ranking_from_scores(scores: np.ndarray) -> np.ndarray:
    """Ranks 1..D from scores (higher is better); ties go to the lower feature index."""
    scores = np.asarray(scores, dtype=float)
    # NaN scores (undefined criterion) rank last.
    key = np.where(np.isnan(scores), -np.inf, scores)
    order = np.lexsort((np.arange(key.size), -key))
    return ranking_from_order(order)


def ranking_from_order(order: np.ndarray) -> np.ndarray:
    """Ranks 1..D from feature indices listed best first."""
    order = np.asarray(order, dtype=int)
    ranking = np.empty(order.size, dtype=int)
    ranking[order] = np.arange(1, order.size + 1)
    if np.sort(order).tolist() != list(range(order.size)):
        raise ValueError("order must be a permutation of the feature indices")
    return ranking


def constant_features_last(ranking: np.ndarray, X: np.ndarray) -> np.ndarray:
    """``ranking`` with the columns of ``X`` that hold a single value (NaN ignored) moved to the end.

    The other features keep their relative order; the constant ones keep theirs among themselves.
    """
    present = ~np.isnan(X)
    lo = np.where(present, X, np.inf).min(axis=0)
    hi = np.where(present, X, -np.inf).max(axis=0)
    const = ~(hi > lo)
    if not const.any() or const.all():
        return ranking
    order = np.argsort(ranking, kind="stable")
    return ranking_from_order(np.concatenate([order[~const[order]], order[const[order]]]))


class BaseSelector(SelectorMixin, BaseEstimator):
    """Validate input, encode labels, call ``_fit``, check that the ranking is complete.

    Subclasses implement ``_fit(X, y)`` where ``y`` holds class indices 0..C-1 (``self.classes_``
    keeps the original labels) and set ``ranking_`` there, usually through
    :func:`ranking_from_scores` or :func:`ranking_from_order`.

    Features that are constant on the training data (missing values ignored) are then moved to the
    end of the ranking, keeping the order of the others ([D], :func:`constant_features_last`): no
    criterion can depend on them, and scale-factor methods (SAS, SCSS, R2W2) would otherwise rank
    them *first* — their gradient is zero, so their scale stays at its starting value while the
    others shrink (e.g. the constant Ionosphere feature a2, or USPS border pixels on 14 samples).
    """

    #: One line for ``fsbench selectors list``.
    description: str = ""
    #: Short citation of the method.
    citation: str = ""
    #: Kernels the selector accepts; an experiment's kernel is passed on only if it is listed here
    #: (e.g. AROM and KFDS are linear machines and keep ``kernel="linear"`` in an RBF experiment).
    supported_kernels: tuple[str, ...] = KERNELS
    #: True for the no-selection baseline, which the protocol evaluates once, at S = D.
    baseline_all: bool = False
    #: Move training-constant features to the end of ``ranking_`` (off for searches whose
    #: ``ranking_`` must start with their ``subset_``).
    rank_constant_last: bool = True
    #: scikit-learn parameter constraints (subclasses: ``{**Parent._parameter_constraints, ...}``).
    _parameter_constraints: dict = {"n_features_to_select": N_FEATURES_TO_SELECT}

    def __init__(self, n_features_to_select: int | float | None = None):
        self.n_features_to_select = n_features_to_select

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Check the parameters, then rank the features of ``X`` for the labels ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        allow_nan = self.__sklearn_tags__().input_tags.allow_nan  # NaN = missing, for selectors that say so
        X, y = validate_data(
            self,
            X,
            y,
            dtype=np.float64,
            ensure_min_samples=2,
            ensure_all_finite="allow-nan" if allow_nan else True,
        )
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise ValueError(
                f"{type(self).__name__} needs at least two classes; got only {self.classes_[0]!r}"
            )
        self.n_iter_ = 0
        self.converged_ = True
        self._fit(X, y_idx)
        ranking = np.asarray(self.ranking_)
        if sorted(ranking.tolist()) != list(range(1, X.shape[1] + 1)):
            raise RuntimeError(f"{type(self).__name__} produced an incomplete ranking")
        if self.rank_constant_last:
            self.ranking_ = constant_features_last(ranking, X)
        return self

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _n_selected(self, n_features: int) -> int:
        k = self.n_features_to_select
        if k is None:
            return n_features
        if isinstance(k, Integral) and not isinstance(k, bool) and 1 <= k:
            return min(int(k), n_features)
        if isinstance(k, Real) and 0 < k < 1:
            return max(1, int(round(k * n_features)))
        raise ValueError(
            f"n_features_to_select must be None, a positive int or a fraction in (0,1); got {k!r}"
        )

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "ranking_")
        return self.ranking_ <= self._n_selected(self.ranking_.size)

    @property
    def order_(self) -> np.ndarray:
        """Feature indices, best first (the inverse permutation of ``ranking_``)."""
        check_is_fitted(self, "ranking_")
        return np.argsort(self.ranking_, kind="stable")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
