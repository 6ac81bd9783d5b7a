r"""R2W2: feature selection by minimising the radius–margin bound over kernel scale factors.

Weston et al. 2000 ("Feature selection for SVMs", NIPS 13) and Chapelle et al. 2002 (Mach. Learn. 46)
bound the leave-one-out error of an SVM by :math:`T = \frac1n R^2W^2` (Ramona et al. 2012, §II-B), where,
for the scaled kernel :math:`k_w(x,z) = k(w\circ x, w\circ z)` (ALGORITHMS.md §2.1):

* :math:`W^2 = \lVert w_h\rVert^2 = \breve\alpha^\top K\breve\alpha` with
  :math:`\breve\alpha = \alpha\circ y` the signed coefficients of an SVM trained on :math:`K = K_w`
  (``sklearn.svm.SVC(kernel="precomputed")``; C = Joachims' :math:`\hat C` of the current scaled kernel,
  :func:`fsbench.algorithms.kernels.joachims_C`, unless a fixed ``C`` is given — Ramona §V-B re-estimates
  :math:`\hat C` for every SVM training, including those inside the R2W2 loop);
* :math:`R^2 = \max_{\beta\in\Delta} \sum_i\beta_iK_{ii} - \beta^\top K\beta`, the squared radius of the
  smallest enclosing ball, solved exactly by the pairwise simplex solver of :mod:`fsbench.algorithms._qp`
  (warm-started from the previous :math:`\beta`), or, with ``radius="variance"``, the feature-space variance
  :math:`\frac1n\sum_iK_{ii} - \frac1{n^2}\sum_{ij}K_{ij}` (:math:`\beta` uniform; Spider's ``use_var2``,
  ALGORITHMS.md §2.4).

Gradient (envelope theorem, ALGORITHMS.md §2.2): with :math:`\alpha, \beta` held at their optima,

.. math:: \frac{\partial (R^2W^2)}{\partial w_d} = \sum_{ij} M_{ij}\frac{\partial K_{ij}}{\partial w_d},
   \qquad M = W^2(\operatorname{diag}\beta - \beta\beta^\top) - R^2\,\breve\alpha\breve\alpha^\top .

The minus sign comes from :math:`W^2` being twice the optimal *dual value* of the hard-margin SVM, so
:math:`\partial W^2/\partial\theta = -\breve\alpha^\top(\partial K/\partial\theta)\breve\alpha`. The D
contractions are one call of :meth:`~fsbench.algorithms.kernels.Kernel.scale_gradient` (one GEMM), on the
Gram matrix already computed for the objective.

Exactness:

* hard margin (separable data, large fixed ``C`` with no :math:`\alpha_i` at the box) and the L2 soft
  margin (``l2_soft=True``: :math:`\tilde K = K + I/C` in both the SVM, trained with a hard margin, and the
  radius) give the exact gradient. With ``l2_soft=True`` and :math:`\hat C` re-estimated, the
  dependence of :math:`I/\hat C(w)` on w is included
  (:math:`+\operatorname{tr}(M)\,\partial(1/\hat C)/\partial w`, from
  :func:`~fsbench.algorithms.kernels.joachims_C_gradient`);
* the default L1 soft margin with :math:`\hat C` re-estimated at every evaluation (what Ramona et al. ran
  with SVMlight, ALGORITHMS.md §2.2 [D]) uses the same formula as an **approximation**: :math:`W^2` is then
  not twice the dual value, and neither the bounded :math:`\alpha_i` nor :math:`\hat C(w)` are
  differentiated.

Multiclass [D]: the paper runs R2W2 on two-class problems only. For C > 2 classes this implementation
minimises the **sum of the C one-vs-rest bounds**, :math:`R^2\sum_c W_c^2` (the radius does not depend
on the labels, so it is shared); its gradient is the same contraction with
:math:`M = (\sum_c W_c^2)(\operatorname{diag}\beta-\beta\beta^\top)
- R^2\sum_c\breve\alpha_c\breve\alpha_c^\top`.
"""

from __future__ import annotations

import math
import warnings
from numbers import Integral, Real

import numpy as np
from scipy.optimize import minimize
from sklearn.svm import SVC
from sklearn.utils._param_validation import Interval, StrOptions

from fsbench.algorithms._qp import enclosing_ball_radius2
from fsbench.algorithms.base import BaseSelector, ranking_from_order
from fsbench.algorithms.kernels import (
    KERNEL_CONSTRAINTS,
    Kernel,
    joachims_C,
    joachims_C_gradient,
    make_kernel,
)

MODES = ("spider", "weston")
RADII = ("qp", "variance")

#: libsvm stopping tolerance inside the bound (tighter than SVC's 1e-3: the gradient needs accurate α).
_SVM_TOL = 1e-6
#: Relative optimality gap of the R² simplex QP.
_QP_TOL = 1e-9
#: The "hard margin" SVM used with l2_soft: C_svm = _HARD_C · max(1, C) (α_i = C·ξ_i stays far below).
_HARD_C = 1e6
#: Projected-gradient steps per elimination round in mode="weston" (ALGORITHMS.md §2.4 [D]).
_WESTON_STEPS = 10
_ARMIJO_C = 1e-4


class RadiusMarginBound:
    r"""The objective :math:`R^2W^2(w)` and its gradient on fixed training data.

    Parameters
    ----------
    kernel : Kernel
        Base kernel with a resolved (numeric) RBF gamma.
    X : (n, D) training data (unscaled).
    Y : (n, P) array of ±1 labels, one column per binary problem (P = 1 for two classes,
        P = C one-vs-rest columns otherwise).
    C : float or None
        Fixed SVM C; None re-estimates Joachims' :math:`\hat C` on the scaled kernel at every call.
    l2_soft : bool
        Use :math:`\tilde K = K + I/C` in the (hard-margin) SVM and in the radius.
    radius : {"qp", "variance"}

    Attributes (of the last evaluation)
    -----------------------------------
    R2, W2 (summed over the P problems), C, beta (warm start of the next QP), alphas (n, P),
    n_evals, n_qp_iter.
    """

    def __init__(
        self,
        kernel: Kernel,
        X: np.ndarray,
        Y: np.ndarray,
        C: float | None = None,
        l2_soft: bool = False,
        radius: str = "qp",
    ):
        self.kernel = kernel
        self.X = X
        self.Y = Y
        self.C_fixed = C
        self.l2_soft = l2_soft
        self.radius = radius
        self.beta: np.ndarray | None = None
        self.n_evals = 0
        self.n_qp_iter = 0
        self.R2 = self.W2 = self.C = float("nan")
        self.alphas = np.zeros_like(Y, dtype=float)
        self.last_w: np.ndarray | None = None
        self.last_grad: np.ndarray | None = None
        self._varying = np.ptp(X, axis=0) > 0

    def _svm_alphas(self, K: np.ndarray, C_svm: float) -> np.ndarray:
        n, P = self.Y.shape
        A = np.zeros((n, P))
        for p in range(P):
            svc = SVC(kernel="precomputed", C=C_svm, tol=_SVM_TOL)
            svc.fit(K, self.Y[:, p])
            # dual_coef_ = y_i α_i on the support vectors (its global sign is irrelevant here)
            A[svc.support_, p] = svc.dual_coef_[0]
        if self.l2_soft and np.max(np.abs(A), initial=0.0) >= 0.999 * C_svm:
            warnings.warn(
                "R2W2 l2_soft: an SVM coefficient reached the 'hard margin' box; the bound is inexact",
                RuntimeWarning,
                stacklevel=3,
            )
        return A

    def __call__(self, w: np.ndarray) -> tuple[float, np.ndarray]:
        """Return :math:`R^2W^2` (summed over the binary problems) and its gradient w.r.t. ``w``."""
        w = np.asarray(w, dtype=float)
        X, n = self.X, self.X.shape[0]
        if not np.any(w[self._varying] != 0):
            # every scaled sample is the same point: no margin, no radius, and Ĉ falls back to 1, so the
            # "bound" there (0 for an L1 margin) is an artefact that must not attract the minimiser
            return np.inf, np.zeros_like(w)
        K = self.kernel.gram(X, w=w)
        dinvC = None
        if self.C_fixed is not None:
            C = float(self.C_fixed)
        elif self.l2_soft:
            C, dC = joachims_C_gradient(self.kernel, X, w)
            dinvC = -dC / (C * C)
        else:
            C = joachims_C(self.kernel, X, w)
        if self.l2_soft:
            Kt = K.copy()
            Kt[np.diag_indices(n)] += 1.0 / C
            C_svm = _HARD_C * max(1.0, C)
        else:
            Kt, C_svm = K, C
        A = self._svm_alphas(Kt, C_svm)
        W2 = float(np.einsum("ip,ip->", A, Kt @ A))
        if self.radius == "qp":
            res = enclosing_ball_radius2(Kt, beta0=self.beta, tol=_QP_TOL)
            beta, R2 = res.beta, res.value
            self.n_qp_iter += res.n_iter
        else:
            beta = np.full(n, 1.0 / n)
            R2 = float(np.mean(np.diag(Kt)) - np.mean(Kt))
        self.beta = beta
        M = W2 * (np.diag(beta) - np.outer(beta, beta)) - R2 * (A @ A.T)
        grad = self.kernel.scale_gradient(X, M, K, w)
        if dinvC is not None:
            grad = grad + np.trace(M) * dinvC
        self.R2, self.W2, self.C, self.alphas = R2, W2, C, A
        self.last_w = w.copy()
        self.last_grad = grad
        self.n_evals += 1
        return R2 * W2, grad


def _order_by_scale(features: np.ndarray, sigma: np.ndarray, grad: np.ndarray | None) -> np.ndarray:
    """``features`` best first: by |σ| (descending), ties by the bound's gradient (most negative first:
    increasing σ would lower the bound most), then by feature index."""
    g = np.zeros(sigma.size) if grad is None else np.where(np.isfinite(grad), grad, 0.0)
    return np.asarray(features)[np.lexsort((features, g, -np.abs(sigma)))]


def binary_problems(y: np.ndarray) -> np.ndarray:
    """±1 label columns: one column for two classes (class 1 = +1), one-vs-rest columns otherwise."""
    y = np.asarray(y)
    classes = np.unique(y)
    if classes.size == 2:
        return np.where(y == classes[1], 1.0, -1.0)[:, None]
    return np.where(y[:, None] == classes[None, :], 1.0, -1.0)


class R2W2(BaseSelector):
    r"""Radius–margin bound (R²W²) minimisation over kernel scale factors (Weston et al. 2000).

    Minimises :math:`R^2W^2(\sigma)` over the scale factors :math:`\sigma \ge 0` of the scaled kernel
    :math:`k_\sigma(x,z) = k(\sigma\circ x, \sigma\circ z)` starting from :math:`\sigma = \mathbf 1`, then
    ranks the features. See the module docstring for the bound, its gradient and when that gradient is exact.

    Parameters
    ----------
    kernel : {"linear", "rbf", "poly"}, default "linear"
    gamma : float or {"median", "n_features", "scale"}, default "median"
        RBF width :math:`\exp(-\gamma\lVert x-z\rVert^2)`; a rule is resolved once on the training data
        at :math:`\sigma = 1` and then kept fixed (the scale factors absorb the width).
    degree, offset, scale : float, default 3, 1.0, 1.0
        Polynomial kernel :math:`(\text{offset} + \text{scale}\langle x, z\rangle)^\text{degree}` (the
        suite-wide defaults of :class:`~fsbench.algorithms.kernels.Kernel`; Weston 2000 used degree 2).
    mode : {"spider", "weston"}, default "spider"
        ``"spider"`` (ALGORITHMS.md §2.4, the Spider ``r2w2_sel`` that Ramona et al. ran): one L-BFGS-B
        minimisation with bounds :math:`\sigma\ge 0`, at most ``max_iter`` iterations, ``ftol = tol`` and
        projected-gradient tolerance ``gtol = tol·‖g(1)‖∞`` [D: relative to the starting gradient,
        since the bound has no natural scale]. [D] If the L-BFGS-B line search fails (the L1-margin
        gradient is only approximate and can violate the Wolfe conditions; seen on 60×4026 linear
        problems at the first iteration), the remaining iterations are projected-gradient steps as in
        ``"weston"``, which only need a decrease of the bound. Features are ranked by :math:`|\sigma|`.
        ``"weston"`` (Weston 2000 as in ALGORITHMS.md §2.4 [D]): on the surviving set F, run up to
        ``min(10, max_iter)`` projected-gradient steps (Armijo backtracking, sufficient decrease
        :math:`f(\sigma^+) \le f(\sigma) + 10^{-4} g^\top(\sigma^+-\sigma)`, first trial step moving the
        largest coordinate by half the largest :math:`\sigma`, step doubled after each accepted step;
        a round also ends when the bound decreases by less than ``tol`` relatively), then remove the
        :math:`m = \max(1, \lceil(|F|-S)/2\rceil)` features with the smallest :math:`|\sigma|`; repeat
        until :math:`|F| = S` and optimise the survivors once more. S = ``n_features_to_select`` (1 if
        None). Ranking: survivors by :math:`|\sigma|`, then removed features in reverse removal order
        (within a round, larger :math:`|\sigma|` first). Removed features are dropped from the data
        (σ = 0); Ĉ is re-estimated on the surviving features.
        Ties in :math:`|\sigma|` (several σ at the bound 0, or σ = 1 when no step was taken) are broken
        by the bound's gradient :math:`g_d` at the final σ, most negative first (the feature whose
        growth would lower the bound most), then by feature index [D] — not by index alone, which
        would favour whichever features come first.
    C : float or None, default None
        Fixed SVM C; None = Joachims' :math:`\hat C` of the current scaled kernel, re-estimated at every
        evaluation (Ramona §V-B).
    l2_soft : bool, default True
        L2 soft margin: :math:`K + I/C` in a hard-margin SVM and in the radius. [D] fsbench's default:
        the radius-margin bound is a bound for this machine (Chapelle et al. 2002) and its gradient is
        exact here; with the L1 soft margin and Ĉ re-estimated at every evaluation (what Ramona 2012 ran
        through SVMlight), the envelope gradient is an approximation (23–300 % off finite differences)
        and the fit found the relevant pair of the Weston nonlinear toy in 4/20 draws vs 9/20
        (spider mode). ``False`` gives the L1 variant. Known weakness: in ``weston`` mode on a linear
        problem (y = sign(x₂ − x₅), 7 features) the L2 variant dropped x₂ before x₃; spider mode and
        the L1 variant keep {x₂, x₅}.
    radius : {"qp", "variance"}, default "qp"
        Exact enclosing-ball radius (simplex QP) or the feature-space variance (Spider's ``use_var2``).
    max_iter : int, default 100
        L-BFGS-B iterations (spider) or gradient steps per elimination round, capped at 10 (weston).
    tol : float, default 1e-4
        Relative decrease of the bound below which the minimisation stops (Spider: TolFun = 1e-4).
    n_features_to_select : int, float or None, default None
        Number of features kept by ``transform``; also the stopping size S of ``mode="weston"``.

    Attributes
    ----------
    ranking_ : (D,) ranks 1..D, 1 = best.
    scale_factors_ : (D,) final σ (0 for features removed in mode "weston").
    scores_ : (D,) :math:`|\sigma|` (higher = better; for mode "weston" ``ranking_`` also orders the removed
        features, which all score 0).
    bound_ : float, final :math:`R^2W^2` (summed over one-vs-rest problems for C > 2; the leave-one-out
        bound is :math:`T = \text{bound\_}/n`).
    radius2_, margin2_ : float, its factors :math:`R^2` and :math:`W^2` (sum over problems).
    n_iter_ : int, L-BFGS-B iterations (spider) or accepted gradient steps over all rounds (weston).
    converged_ : bool, the tolerance (not an iteration cap) ended the minimisation (every round for weston).
    n_evaluations_ : int, objective evaluations (each = one Gram matrix, one SVM per binary problem, one QP).
    kernel_ : Kernel with the resolved gamma.
    """

    description = (
        "radius-margin bound R2W2 minimised over kernel scale factors (multiclass: sum of OvR bounds)"
    )
    citation = (
        "Weston et al. 2000 (NIPS 13); Chapelle et al. 2002 (Mach. Learn. 46); Ramona et al. 2012 §II-B"
    )

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        **KERNEL_CONSTRAINTS,
        "mode": [StrOptions(set(MODES))],
        "C": [Interval(Real, 0, np.inf, closed="neither"), None],
        "l2_soft": ["boolean"],
        "radius": [StrOptions(set(RADII))],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        kernel: str = "linear",
        gamma: float | str = "median",
        degree: float = 3,
        offset: float = 1.0,
        scale: float = 1.0,
        mode: str = "spider",
        C: float | None = None,
        l2_soft: bool = True,
        radius: str = "qp",
        max_iter: int = 100,
        tol: float = 1e-4,
        n_features_to_select: int | float | None = None,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.offset = offset
        self.scale = scale
        self.mode = mode
        self.C = C
        self.l2_soft = l2_soft
        self.radius = radius
        self.max_iter = max_iter
        self.tol = tol
        self.n_features_to_select = n_features_to_select

    # ------------------------------------------------------------------ helpers
    def _kernel(self, X: np.ndarray) -> Kernel:
        return make_kernel(
            self.kernel, gamma=self.gamma, degree=self.degree, offset=self.offset, scale=self.scale
        ).resolved(X)

    def _objective(self, kern: Kernel, X: np.ndarray, y: np.ndarray) -> RadiusMarginBound:
        return RadiusMarginBound(
            kern, X, binary_problems(y), C=self.C, l2_soft=self.l2_soft, radius=self.radius
        )

    def bound_and_gradient(self, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[float, np.ndarray]:
        """:math:`R^2W^2` and its gradient at scale factors ``w`` (for tests and tools).

        The kernel's gamma rule is resolved on ``X`` (as in ``fit``); ``y`` may hold any labels.
        """
        self._validate_params()
        X = np.asarray(X, dtype=float)
        kern = self._kernel(X)
        return self._objective(kern, X, np.asarray(y))(np.asarray(w, dtype=float))

    # ------------------------------------------------------------------ fit
    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        kern = self._kernel(X)
        self.kernel_ = kern
        if self.mode == "spider":
            sigma, obj, n_iter, converged = self._fit_spider(kern, X, y)
            order = _order_by_scale(np.arange(X.shape[1]), sigma, obj.last_grad)
        else:
            sigma, obj, n_iter, converged, order = self._fit_weston(kern, X, y)
        self.scale_factors_ = sigma
        self.scores_ = np.abs(sigma)
        self.ranking_ = ranking_from_order(order)
        self.bound_ = float(obj.R2 * obj.W2)
        self.radius2_ = float(obj.R2)
        self.margin2_ = float(obj.W2)
        self.n_iter_ = int(n_iter)
        self.converged_ = bool(converged)

    def _fit_spider(self, kern: Kernel, X: np.ndarray, y: np.ndarray):
        D = X.shape[1]
        obj = self._objective(kern, X, y)
        sigma = np.ones(D)
        f0, g0 = obj(sigma)
        self.n_evaluations_ = 1
        if self.max_iter == 0 or not np.all(np.isfinite(g0)):
            return sigma, obj, 0, False
        gtol = self.tol * max(float(np.max(np.abs(g0))), np.finfo(float).tiny)
        cache = {"x": sigma.copy(), "fg": (f0, g0)}

        def fun(s):
            if np.array_equal(s, cache["x"]):  # L-BFGS-B starts by re-evaluating x0
                return cache["fg"]
            return obj(s)

        res = minimize(
            fun,
            sigma,
            jac=True,
            method="L-BFGS-B",
            bounds=[(0.0, None)] * D,
            options={"maxiter": self.max_iter, "ftol": self.tol, "gtol": gtol},
        )
        sigma = np.asarray(res.x, dtype=float)
        n_iter = int(res.nit)
        converged = bool(res.success) and n_iter < self.max_iter
        if res.status == 2 and n_iter < self.max_iter:
            # The line search failed: with the L1 soft margin the envelope gradient is only an
            # approximation and can violate the Wolfe conditions. Go on with projected-gradient steps,
            # which only need a decrease of the bound (Armijo), for the remaining budget.
            sigma, steps, converged, _ = self._descend(obj, sigma, self.max_iter - n_iter, None)
            n_iter += steps
        if not np.array_equal(obj.last_w, sigma):
            obj(sigma)  # so that bound_ and its factors describe the returned point
        self.n_evaluations_ = obj.n_evals
        return sigma, obj, n_iter, converged

    def _descend(self, obj: RadiusMarginBound, sigma: np.ndarray, n_steps: int, eta: float | None):
        """Projected gradient descent with Armijo backtracking; returns (σ, steps, converged, eta)."""
        f, g = obj(sigma)
        steps = 0
        converged = False
        for _ in range(n_steps):
            if not (np.isfinite(f) and np.all(np.isfinite(g))):
                break
            if eta is None:
                gmax = float(np.max(np.abs(g)))
                if gmax == 0.0:
                    converged = True
                    break
                eta = 0.5 * float(np.max(np.abs(sigma))) / gmax
            accepted = False
            while True:
                s_new = np.maximum(sigma - eta * g, 0.0)
                d = s_new - sigma
                if np.linalg.norm(d) <= 1e-10 * max(1.0, float(np.linalg.norm(sigma))):
                    break  # projected gradient ≈ 0 at this resolution: stationary
                f_new, g_new = obj(s_new)
                if np.isfinite(f_new) and f_new <= f + _ARMIJO_C * float(g @ d):
                    accepted = True
                    break
                eta *= 0.5
            if not accepted:
                converged = True
                break
            steps += 1
            delta = f - f_new
            sigma, f, g = s_new, f_new, g_new
            eta *= 2.0
            if abs(delta) < self.tol * max(abs(f), np.finfo(float).tiny):
                converged = True
                break
        if not np.array_equal(obj.last_w, sigma):
            obj(sigma)  # the last trial point was rejected: leave the objective's state at σ
        return sigma, steps, converged, eta

    def _fit_weston(self, kern: Kernel, X: np.ndarray, y: np.ndarray):
        D = X.shape[1]
        S = 1 if self.n_features_to_select is None else self._n_selected(D)
        n_steps = min(_WESTON_STEPS, self.max_iter)
        F = np.arange(D)
        sigma = np.ones(D)
        removed: list[int] = []
        total_steps = 0
        n_evals = 0
        all_converged = True
        eta = None
        while True:
            obj = self._objective(kern, X[:, F], y)
            sF, steps, conv, eta = self._descend(obj, sigma[F], n_steps, eta)
            sigma[F] = sF
            total_steps += steps
            n_evals += obj.n_evals
            all_converged &= conv
            if F.size <= S:
                break
            m = max(1, math.ceil((F.size - S) / 2))
            drop = _order_by_scale(F, sF, obj.last_grad)[::-1][:m]  # worst first
            drop = np.searchsorted(F, drop)
            removed.extend(F[drop].tolist())
            sigma[F[drop]] = 0.0
            F = np.delete(F, drop)
        survivors = _order_by_scale(F, sigma[F], obj.last_grad)
        order = np.concatenate([survivors, np.asarray(removed[::-1], dtype=int)])
        self.n_evaluations_ = n_evals
        return sigma, obj, total_steps, all_converged, order
