r"""Stability selection (Meinshausen & Bühlmann 2010) with randomised L1 logistic regression.

Written here: scikit-learn removed ``RandomizedLogisticRegression`` in 0.21 and the
``stability-selection`` package (scikit-learn-contrib) is no longer maintained.

The method
----------
Draw B subsamples :math:`I_b` of :math:`\lfloor N/2\rfloor` training samples without replacement, and
for each a weight :math:`W_{bk} \sim U[\alpha, 1]` per feature (the *randomised lasso*: feature k's L1
penalty is divided by :math:`W_{bk}`, the same as multiplying its column by :math:`W_{bk}` under the
plain penalty). On each subsample fit the L1-penalised logistic regression at every penalty
:math:`\lambda` of a grid, and call :math:`\hat S_b^\lambda` the features with a non-zero coefficient. A
feature's *selection probability* at :math:`\lambda` is the fraction of subsamples that select it,

.. math:: \hat\Pi_k^\lambda = \frac1B \sum_{b=1}^B \mathbf 1\{k \in \hat S_b^\lambda\},

and its stability score is :math:`\max_{\lambda\in\Lambda} \hat\Pi_k^\lambda` over the regularisation
region :math:`\Lambda`. **Ranking rule:** by that score, higher first; ties (e.g. several features at
probability 1, or never selected) by the mean of :math:`\hat\Pi_k^\lambda` over :math:`\Lambda` (a feature
selected at stronger penalties has the larger mean), then by index.

Defaults, fixed in advance from the paper
-----------------------------------------
* B = 100 subsamples of size :math:`\lfloor N/2\rfloor` (the paper's examples use 100);
* weakness :math:`\alpha = 0.5` (the paper's randomised-lasso examples);
* the region :math:`\Lambda`: from the largest penalty downwards, as long as the average number of
  features the subsamples select somewhere in it, :math:`\hat q_\Lambda = \frac1B\sum_b
  |\bigcup_{\lambda\in\Lambda}\hat S_b^\lambda|`, stays at most :math:`q = \sqrt{0.8\,D}`. That is the
  paper's recommendation: with the threshold :math:`\pi_\text{thr} = 0.9`, Theorem 1 bounds the expected
  number of falsely selected features by :math:`q^2/((2\pi_\text{thr}-1)D) = 1`. The first grid point
  is always in :math:`\Lambda` (even if it alone selects more than q on average).

The grid
--------
Penalties in scikit-learn's units (``C`` = 1/λ multiplies the *summed* log-loss of the subsample):
``Cs`` = 30 values, evenly spaced in log over ``C_ratio`` = 10⁴, starting at

.. math:: C_0 = \frac{N}{\lfloor N/2\rfloor}\,\Big/\max_{k,c} \Big|\sum_i x_{ik}\,(y_{ic} - \bar y_c)\Big|,

the smallest C at which the full training set's L1 logistic regression (standardised features, intercept
free) is not empty, rescaled to the subsample's size (the sum over half the samples is about half as
large). Most subsamples select nothing at :math:`C_0` (their weights are below 1); the region ends long
before :math:`10^4 C_0` unless q is raised. An explicit ``Cs`` (array) replaces the grid.

Choices the paper leaves open
-----------------------------
* **Features are standardised** with the training mean and standard deviation before subsampling (the
  lasso's penalty is scale-dependent; the paper assumes standardised predictors); constant ones stay 0
  and are never selected.
* **Intercept:** fitted and nearly unpenalised (liblinear penalises it as a feature of constant value
  ``intercept_scaling``; 100 makes its penalty 1/100 of a feature's).
* **Multiclass:** one-vs-rest; a feature is selected on a subsample if *any* class's machine gives it
  a non-zero coefficient (two classes: one machine). A machine whose subsample holds only one of its two
  labels (a class absent from the subsample) selects nothing.
* **Randomness:** every draw — subsamples, weights, liblinear's coordinate order — comes from
  ``random_state`` in a fixed order (all subsamples, then all weights, then one liblinear seed per grid
  point and subsample, shared by its class machines), so a fit is reproducible from an int seed and
  does not read or change numpy's global state. (``None`` follows scikit-learn: numpy's global
  ``RandomState``.)

Cost
----
One liblinear fit per (grid point, subsample, class machine) in the region and at the first point past
it (needed to see the region end), so the cost depends on where the data end the region. Measured on
random data with two informative features (2 classes, defaults, one BLAS thread, a 2-core VM shared
with other jobs; wall time was 1.5–2.5 times the CPU time):

=================== ============ ==================================== ==========
N, D                CPU per fit  grid points fitted (region + 1)      fits
=================== ============ ==================================== ==========
N = 100, D = 2,000  18 s         15 (q = 40, q̂ = 39.9)                1,500
N = 100, D = 10,000 157 s        18 (q = 89, q̂ = 84.7)                1,800
N = 700, D = 60     2.8 s        9 (q = 6.9, q̂ = 6.9)                 900
=================== ============ ==================================== ==========

A liblinear fit costs about 12 ms at 50 × 2,000 and 90 ms at 50 × 10,000; on tiny data scikit-learn's
per-fit overhead (about 1.5 ms) dominates. Each class adds a machine (one-vs-rest) for C > 2.
"""

from __future__ import annotations

import inspect
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval

from fsbench.algorithms.base import BaseSelector, ranking_from_order

#: liblinear scales the intercept's column by this; its L1 penalty is then 1/INTERCEPT_SCALING of a
#: feature's (an all-but-free intercept, as in the paper's model).
INTERCEPT_SCALING = 100.0


def _l1_params() -> dict:
    """The L1 penalty in this scikit-learn's spelling (``penalty`` is deprecated from 1.8 on)."""
    default = inspect.signature(LogisticRegression).parameters["penalty"].default
    return {"l1_ratio": 1.0} if default == "deprecated" else {"penalty": "l1"}


def standardize(X: np.ndarray) -> np.ndarray:
    """Columns centred and scaled to unit variance (ddof 0); a constant column becomes 0."""
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def first_c(X: np.ndarray, y: np.ndarray) -> float:
    r"""Smallest C at which an L1 logistic regression with a free intercept has a non-zero coefficient.

    For the one-vs-rest problems of ``y`` (one for two classes):
    :math:`1/\max_{k,c} |\sum_i x_{ik}(y_{ic} - \bar y_c)|` — at :math:`w = 0` the intercept fits the
    class frequency and this is where the first feature's gradient reaches the penalty. ``inf`` if no
    feature varies.
    """
    Xc = X - X.mean(axis=0)
    classes = np.unique(y)
    targets = classes[1:] if classes.size == 2 else classes
    grad = max(float(np.abs(Xc.T @ ((y == c) - np.mean(y == c))).max(initial=0.0)) for c in targets)
    return 1.0 / grad if grad > 0 else np.inf


def region_end(unions: np.ndarray, q: float) -> int:
    r"""Number of grid points in the region :math:`\Lambda` (from the first), given union sizes.

    Parameters
    ----------
    unions : ndarray of shape (n_points,)
        :math:`\hat q` after each grid point: the mean over subsamples of the number of features selected
        at that point or an earlier one (non-decreasing).
    q : float

    Returns
    -------
    int
        The largest J with ``unions[J - 1] <= q``, and at least 1.
    """
    return max(1, int(np.searchsorted(unions, q, side="right")))


class StabilitySelection(BaseSelector):
    r"""Stability selection with randomised L1 logistic regression (Meinshausen & Bühlmann 2010).

    Selection probabilities :math:`\hat\Pi_k^\lambda` over B subsamples of half the training set, each
    with random per-feature penalty weights in :math:`[\alpha, 1]`, on a grid of L1 penalties; a
    feature's score is its largest selection probability over the region :math:`\Lambda` (the module
    docstring states the grid, the region rule and the choices the paper leaves open). **Ranking
    rule:** the score, higher first; ties by the mean selection probability over :math:`\Lambda`, then
    by index.

    Parameters
    ----------
    n_subsamples : int, default 100
        B.
    weakness : float, default 0.5
        :math:`\alpha`: weights :math:`W_k \sim U[\alpha, 1]`; 1 gives the plain (non-randomised) lasso.
    q : float or None, default None
        The region's bound on :math:`\hat q_\Lambda`; None: :math:`\sqrt{0.8 D}` (expected false
        selections ≤ 1 at :math:`\pi_\text{thr} = 0.9`). ``inf`` uses the whole grid.
    Cs : int or array-like, default 30
        Grid points from :math:`C_0` (module docstring), or the C values themselves (scikit-learn's C of
        each subsample fit, sorted increasing = decreasing penalty).
    C_ratio : float, default 1e4
        Largest / smallest C of a grid given by its number of points.
    tol : float, default 1e-4
        liblinear's stopping tolerance.
    max_iter : int, default 100
        liblinear's iteration cap per fit (scikit-learn's default).
    random_state : int, RandomState or None, default None
        The source of every random draw; in a run, the task's selector seed.
    n_features_to_select : int, float or None

    Attributes
    ----------
    ranking_
    scores_ : ndarray of shape (n_features,)
        :math:`\max_{\lambda\in\Lambda}\hat\Pi_k^\lambda`.
    selection_probabilities_ : ndarray of shape (n_fitted, n_features)
        :math:`\hat\Pi_k^\lambda` at each grid point fitted (the region and the first point past it).
    Cs_ : ndarray
        The C values fitted.
    n_region_ : int
        Grid points in :math:`\Lambda` (the first ``n_region_`` rows above).
    q_ : float
        The bound used; ``q_hat_``: :math:`\hat q_\Lambda` of the region.
    n_iter_ : int
        liblinear fits.
    n_not_converged_ : int
        Fits that hit ``max_iter`` (their ``ConvergenceWarning``s are counted, not re-emitted);
        ``converged_`` is True when there were none.
    """

    description = "Stability selection: max selection probability of randomised L1 logistic regression"
    citation = "Meinshausen & Buehlmann 2010, J. R. Stat. Soc. B 72(4):417-473"
    supported_kernels: tuple[str, ...] = ()

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "n_subsamples": [Interval(Integral, 1, None, closed="left")],
        "weakness": [Interval(Real, 0, 1, closed="right")],
        "q": [Interval(Real, 0, None, closed="right"), None],  # inf: the whole grid
        "Cs": [Interval(Integral, 1, None, closed="left"), "array-like"],
        "C_ratio": [Interval(Real, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_subsamples: int = 100,
        weakness: float = 0.5,
        q: float | None = None,
        Cs=30,
        C_ratio: float = 1e4,
        tol: float = 1e-4,
        max_iter: int = 100,
        random_state=None,
        n_features_to_select: int | float | None = None,
    ):
        self.n_subsamples = n_subsamples
        self.weakness = weakness
        self.q = q
        self.Cs = Cs
        self.C_ratio = C_ratio
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_features_to_select = n_features_to_select

    def _grid(self, X: np.ndarray, y: np.ndarray, m: int) -> np.ndarray:
        if not isinstance(self.Cs, Integral):
            Cs = np.sort(np.asarray(self.Cs, dtype=float).ravel())
            if Cs.size == 0 or not np.all(Cs > 0):
                raise ValueError("Cs must hold positive C values")
            return Cs
        c0 = first_c(X, y) * X.shape[0] / m
        if not np.isfinite(c0):  # no varying feature: any C selects nothing
            c0 = 1.0
        return c0 * np.logspace(0, np.log10(self.C_ratio), int(self.Cs))

    def _fit(self, X, y):
        N, D = X.shape
        rng = check_random_state(self.random_state)
        B, m = int(self.n_subsamples), N // 2
        Z = standardize(X)
        Cs = self._grid(Z, y, m)
        # every draw up front, in a fixed order: the region's end does not change which numbers are used
        subsamples = np.stack([rng.choice(N, size=m, replace=False) for _ in range(B)])
        weights = rng.uniform(self.weakness, 1.0, size=(B, D))
        seeds = rng.randint(np.iinfo(np.int32).max, size=(Cs.size, B))
        classes = np.unique(y)
        machines = classes[1:] if classes.size == 2 else classes  # one machine for two classes
        q = np.sqrt(0.8 * D) if self.q is None else float(self.q)
        l1 = _l1_params()

        counts, unions_mean = [], []
        union = np.zeros((B, D), dtype=bool)
        fits = not_converged = 0
        for j, C in enumerate(Cs):
            selected = np.zeros((B, D), dtype=bool)
            for b in range(B):
                rows = subsamples[b]
                Xb, yb = Z[rows] * weights[b], y[rows]
                for c in machines:
                    target = yb == c
                    if target.all() or not target.any():
                        continue  # one label only: nothing to fit, nothing selected
                    model = LogisticRegression(
                        C=C,
                        solver="liblinear",
                        intercept_scaling=INTERCEPT_SCALING,
                        tol=self.tol,
                        max_iter=self.max_iter,
                        random_state=int(seeds[j, b]),
                        **l1,
                    )
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always", ConvergenceWarning)
                        model.fit(Xb, target)
                    fits += 1
                    not_converged += any(issubclass(w.category, ConvergenceWarning) for w in caught)
                    selected[b] |= model.coef_.ravel() != 0
            union |= selected
            counts.append(selected.sum(axis=0))
            unions_mean.append(union.sum(axis=1).mean())
            if unions_mean[-1] > q:  # this point is past the region: no later one can be in it
                break
        probs = np.asarray(counts, dtype=float) / B
        n_region = region_end(np.asarray(unions_mean), q)
        inside = probs[:n_region]
        self.selection_probabilities_ = probs
        self.Cs_ = Cs[: probs.shape[0]]
        self.n_region_ = n_region
        self.q_ = q
        self.q_hat_ = float(unions_mean[n_region - 1])
        self.scores_ = inside.max(axis=0)
        self.n_iter_ = fits
        self.n_not_converged_ = not_converged
        self.converged_ = not_converged == 0
        mean = inside.mean(axis=0)
        self.ranking_ = ranking_from_order(np.lexsort((np.arange(D), -mean, -self.scores_)))
