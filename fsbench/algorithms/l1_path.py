r"""The L1-regularised linear SVM, features ranked by where they enter its regularisation path.

For :math:`C` just above :func:`sklearn.svm.l1_min_c` every weight of the L1-penalised squared-hinge
SVM (``LinearSVC(penalty="l1", dual=False)``) is zero; as :math:`C` grows, features enter the model
one after another. A feature that enters earlier is needed at a stronger penalty (Zhu, Rosset, Hastie
& Tibshirani 2004, "1-norm support vector machines"; the scikit-learn example "Regularization path of
L1-Logistic Regression" walks the same grid).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC, l1_min_c
from sklearn.utils._param_validation import Interval

from fsbench.algorithms.base import BaseSelector, ranking_from_order


def c_grid(X: np.ndarray, y: np.ndarray, n_Cs: int, C_ratio: float) -> np.ndarray:
    """``n_Cs`` values of C from :func:`sklearn.svm.l1_min_c` to ``C_ratio`` times it, evenly in log."""
    c0 = l1_min_c(X, y, loss="squared_hinge")
    return c0 * np.logspace(0, np.log10(C_ratio), n_Cs)


def entry_order(coefs: np.ndarray) -> np.ndarray:
    """Feature indices, best first, from the weights along a path.

    Parameters
    ----------
    coefs : ndarray of shape (n_Cs, n_machines, D)
        The weights at each C, smallest C first (one row per one-vs-rest machine).

    Returns
    -------
    ndarray of int
        By the first C where any machine gives the feature a non-zero weight; ties (same C, or never
        entered) by the summed |w| at the largest C, then by index.
    """
    active = np.any(coefs != 0, axis=1)  # (n_Cs, D)
    n_Cs, D = active.shape
    entry = np.where(active.any(axis=0), active.argmax(axis=0), n_Cs)
    last = np.abs(coefs[-1]).sum(axis=0)
    return np.lexsort((np.arange(D), -last, entry))


class L1SVMPath(BaseSelector):
    r"""Rank features by where they enter the L1-regularised linear SVM's path.

    ``LinearSVC(penalty="l1", loss="squared_hinge", dual=False)`` (liblinear; one-vs-rest for more
    than two classes) is fitted on a log grid of C from ``l1_min_c`` (all weights zero) to ``C_ratio``
    times it. **Ranking rule:** by the grid index at which a feature first has a non-zero weight in
    any machine (:func:`entry_order`); ties and the features that never enter by their summed |w| at
    the largest C, then by index.

    Parameters
    ----------
    n_Cs : int, default 30
        Grid points.
    C_ratio : float, default 1e4
        Largest C / smallest C.
    tol : float, default 1e-4
        liblinear's stopping tolerance.
    max_iter : int, default 1000
        liblinear's iteration cap per fit.
    random_state : int, RandomState or None, default None
        Seeds liblinear's coordinate order (the solver visits the features in a random order each
        pass; where it stops short of the optimum, that order decides which weights are non-zero).
        In a run it is the task's selector seed, so a rerun of a task gives the same ranking; ``None``
        reads numpy's global random state.
    n_features_to_select : int, float or None

    Attributes
    ----------
    ranking_, Cs_, entry_ (grid index at which each feature entered; ``n_Cs`` if it never did),
    coef_path_ (n_Cs × machines × D), n_iter_ (fits, = ``n_Cs``), n_not_converged_ (fits at which
    liblinear hit ``max_iter``: its ``ConvergenceWarning``s, not re-emitted), converged_ (no such fit;
    the run's ``converged`` column)
    """

    description = "L1-regularised linear SVM: order in which features enter the regularisation path"
    citation = "Zhu, Rosset, Hastie & Tibshirani 2004, NIPS 16 (1-norm SVM); liblinear, Fan et al. 2008"
    supported_kernels: tuple[str, ...] = ()

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "n_Cs": [Interval(Integral, 2, None, closed="left")],
        "C_ratio": [Interval(Real, 1, None, closed="neither")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_Cs: int = 30,
        C_ratio: float = 1e4,
        tol: float = 1e-4,
        max_iter: int = 1000,
        random_state=None,
        n_features_to_select: int | float | None = None,
    ):
        self.n_Cs = n_Cs
        self.C_ratio = C_ratio
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_features_to_select = n_features_to_select

    def _fit(self, X, y):
        self.Cs_ = c_grid(X, y, self.n_Cs, self.C_ratio)
        coefs = []
        n_not_converged = 0
        for C in self.Cs_:
            # Without random_state liblinear's coordinate order came from numpy's global state, so a
            # rerun of the same task could rank differently (sonar, 100 training points, default
            # parameters: five global states gave five different rankings).
            svm = LinearSVC(
                penalty="l1",
                loss="squared_hinge",
                dual=False,
                C=C,
                tol=self.tol,
                max_iter=self.max_iter,
                random_state=self.random_state,
            )
            # One fit at a time, so that a fit is counted once however many warnings it gives.
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                coefs.append(svm.fit(X, y).coef_)
            capped = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
            n_not_converged += bool(capped)
            for w in caught:  # only the convergence warnings become diagnostics; the others go on
                if w not in capped:
                    warnings.warn(w.message, w.category, stacklevel=2)
        self.n_not_converged_ = n_not_converged
        self.converged_ = n_not_converged == 0
        self.n_iter_ = len(self.Cs_)
        self.coef_path_ = np.stack(coefs)
        order = entry_order(self.coef_path_)
        entry = np.any(self.coef_path_ != 0, axis=1)
        self.entry_ = np.where(entry.any(axis=0), entry.argmax(axis=0), self.n_Cs)
        self.ranking_ = ranking_from_order(order)
