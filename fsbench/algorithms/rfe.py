r"""SVM recursive feature elimination (Guyon, Weston, Barnhill & Vapnik 2002; ALGORITHMS.md §4).

Repeat until one feature is left: train an SVM on the surviving features, score every surviving
feature f by the change of :math:`W^2(\alpha) = \breve\alpha^\top K\breve\alpha`
(:math:`\breve\alpha_i = \alpha_i y_i`) when f is deleted **with α frozen**, and eliminate the
lowest-scoring features. Features eliminated later rank better; the last survivor ranks 1.

Criterion, with :math:`W^2_{(-f)} = \breve\alpha^\top K^{(-f)}\breve\alpha`
(:func:`fsbench.algorithms.kernels.removal_contractions`, all f at once):

* ``"signed"`` (Guyon 2002; Spider's ``rfe``, used by Ramona 2012):
  :math:`DJ(f) = \tfrac12(W^2 - W^2_{(-f)})`, remove the smallest;
* ``"abs"`` (Paul et al. 2015, eq. 4): :math:`|W^2 - W^2_{(-f)}|`, remove the smallest.

For the linear kernel :math:`W^2 - W^2_{(-f)} = w_f^2` with :math:`w = \sum_i\breve\alpha_i x_i`, so
both criteria are Guyon's :math:`w_f^2` rule and the elimination order is that of
``sklearn.feature_selection.RFE(SVC(kernel="linear"), step=1)`` (checked in the tests).

Multiclass [D]: one SVM per class against the rest, all trained on the same Gram matrix with the
same C; the criterion is the **sum** of the per-machine criteria (for the linear kernel
:math:`\sum_c w_{c,f}^2`). Two classes use a single machine. (scikit-learn's ``RFE(SVC)`` sums
over the one-vs-one machines instead.)

Implementation: the SVMs use ``SVC(kernel="precomputed")``. The feature-additive part of the
kernel (:math:`XX^\top`, or the squared distances for RBF;
:func:`fsbench.algorithms.kernels.feature_statistic`) is computed once and *downdated* after each
elimination (:math:`S \leftarrow S - X_rX_r^\top`), so an iteration costs O(N²·r) for the Gram
matrix instead of O(N²·D), plus the SVM and the criterion (O(N·D) linear; O(m²·D) RBF and
polynomial over the m support vectors).

Defaults [D]: ``step=1`` (exact RFE, one feature per iteration: Ramona 2012's timing table
implies it, ALGORITHMS.md §4.3; Paul 2015 uses ``step=0.2``); ``C=None`` → Joachims'
:math:`\hat C` recomputed on the surviving features at every iteration (Ramona 2012 §V-B);
an RBF ``gamma`` rule (default ``"median"``) is re-resolved on the surviving features at every
iteration, as a classifier trained on those features would resolve it (a numeric gamma stays
fixed); the SVC tolerance is libsvm's 1e-3. Ties in the criterion eliminate the higher feature
index first, so that the lower index ranks better, as in :func:`ranking_from_scores`.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.svm import SVC

from fsbench.algorithms.base import BaseSelector, ranking_from_order
from fsbench.algorithms.kernels import (
    feature_statistic,
    gram_from_statistic,
    joachims_C,
    make_kernel,
    removal_contractions,
)

CRITERIA = ("signed", "abs")


def n_to_remove(step: int | float, n_remaining: int) -> int:
    """Features eliminated in one iteration: ``step`` itself (int) or round(step·n) ≥ 1 (fraction).

    Rounding is half-up; at least one feature always survives.
    """
    if isinstance(step, Integral) and not isinstance(step, bool):
        m = int(step)
    else:
        m = max(1, int(np.floor(step * n_remaining + 0.5)))
    return max(0, min(m, n_remaining - 1))


def check_step(step) -> None:
    ok_int = isinstance(step, Integral) and not isinstance(step, bool) and step >= 1
    ok_frac = isinstance(step, Real) and not isinstance(step, (Integral, bool)) and 0 < step < 1
    if not (ok_int or ok_frac):
        raise ValueError(f"step must be a positive int or a fraction in (0, 1); got {step!r}")


class SVMRFE(BaseSelector):
    r"""SVM-RFE: backward elimination by the frozen-α change of :math:`\breve\alpha^\top K\breve\alpha`.

    Parameters
    ----------
    kernel : {"linear", "rbf", "poly"}, default "linear"
    gamma : float or {"median", "n_features", "scale"}, default "median"
        RBF width :math:`\exp(-\gamma\lVert x-z\rVert^2)`; a rule is re-resolved on the surviving
        features at each iteration.
    degree, offset, scale : float
        Polynomial kernel :math:`(\text{offset} + \text{scale}\langle x,z\rangle)^\text{degree}`.
    step : int or float, default 1
        Features eliminated per iteration (int), or that fraction of the surviving features
        (float in (0, 1), rounded half-up, at least 1; Paul 2015 uses 0.2).
    C : float or None, default None
        Fixed SVM C, or None for Joachims' :math:`\hat C` recomputed at every iteration.
    criterion : {"signed", "abs"}, default "signed"
        Guyon/Spider :math:`\tfrac12(W^2 - W^2_{(-f)})` or Paul's :math:`|W^2 - W^2_{(-f)}|`
        (identical orders for the linear kernel).
    n_features_to_select : int, float or None
        Only for ``get_support``/``transform``; the ranking is always complete.

    Attributes
    ----------
    ranking_ : (D,) 1 = last survivor.
    n_iter_ : number of elimination iterations (SVM trainings per machine).
    C_ : (n_iter_,) the C used at each iteration.
    """

    description = "SVM-RFE: recursive elimination by the frozen-alpha change of ||w||^2 (lin/RBF/poly)"
    citation = "Guyon, Weston, Barnhill & Vapnik 2002, Mach. Learn. 46:389-422; Paul et al. 2015"

    def __init__(
        self,
        kernel: str = "linear",
        gamma: float | str = "median",
        degree: float = 3,
        offset: float = 1.0,
        scale: float = 1.0,
        step: int | float = 1,
        C: float | None = None,
        criterion: str = "signed",
        n_features_to_select: int | float | None = None,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.offset = offset
        self.scale = scale
        self.step = step
        self.C = C
        self.criterion = criterion
        self.n_features_to_select = n_features_to_select

    def _check_params(self) -> None:
        check_step(self.step)
        if self.criterion not in CRITERIA:
            raise ValueError(f"criterion must be one of {CRITERIA}, got {self.criterion!r}")
        if self.C is not None and not (isinstance(self.C, Real) and np.isfinite(self.C) and self.C > 0):
            raise ValueError(f"C must be a positive number or None (Joachims' rule), got {self.C!r}")

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        self._check_params()
        base = make_kernel(
            self.kernel, gamma=self.gamma, degree=self.degree, offset=self.offset, scale=self.scale
        )
        n_classes = int(y.max()) + 1
        targets = (
            [np.where(y == 1, 1, -1)]
            if n_classes == 2
            else [np.where(y == c, 1, -1) for c in range(n_classes)]
        )
        S = feature_statistic(base, X)
        remaining = np.arange(X.shape[1])
        worst_first: list[np.ndarray] = []
        Cs: list[float] = []
        while remaining.size > 1:
            Xr = X[:, remaining]
            kern = base.resolved(Xr)
            K = gram_from_statistic(kern, S)
            C = float(self.C) if self.C is not None else joachims_C(kern, Xr)
            crit = np.zeros(remaining.size)
            for yb in targets:
                a = _signed_duals(K, yb, C)
                sv = np.flatnonzero(a)
                w2 = float(a[sv] @ K[np.ix_(sv, sv)] @ a[sv])
                diff = w2 - removal_contractions(kern, Xr, a)
                crit += 0.5 * diff if self.criterion == "signed" else np.abs(diff)
            m = n_to_remove(self.step, remaining.size)
            # ascending criterion; ties: the higher index goes first (the lower index ranks better)
            order = np.lexsort((-np.arange(remaining.size), crit))
            drop = remaining[order[:m]]
            worst_first.append(drop)
            Cs.append(C)
            S -= feature_statistic(base, X[:, drop])
            remaining = np.setdiff1d(remaining, drop, assume_unique=True)
        worst_first.append(remaining)
        self.ranking_ = ranking_from_order(np.concatenate(worst_first)[::-1])
        self.n_iter_ = len(Cs)
        self.C_ = np.asarray(Cs)


def _signed_duals(K: np.ndarray, yb: np.ndarray, C: float) -> np.ndarray:
    r"""Full-length :math:`\breve\alpha = \alpha\circ y` of an SVC on the precomputed ``K`` (0 off SVs)."""
    a = np.zeros(yb.size)
    if np.all(yb == yb[0]):  # one class only (cannot happen for binary problems): no machine
        return a
    svc = SVC(kernel="precomputed", C=C).fit(K, yb)
    a[svc.support_] = svc.dual_coef_[0]
    return a
