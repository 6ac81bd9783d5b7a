r"""Shared machinery for selectors that optimise the scale factors of a scaled kernel.

:class:`ScaledKernelAscent` maximises a criterion :math:`f(K_w)` of the scaled Gram matrix over
the scale factors ``w`` by gradient ascent from :math:`w = \mathbf 1` and ranks the features by
:math:`|w_d|` (descending) — the scheme of Ramona et al. 2012, Algorithm 1 (SAS) and §IV-C (SCSS).

A subclass only provides ``_criterion(K, T) -> (f, M)``, the criterion value and the matrix
:math:`M = \partial f / \partial K` (entrywise); the chain rule
:math:`\partial f/\partial w_d = \sum_{ij} M_{ij}\,\partial K_{ij}/\partial w_d` is then one call of
:meth:`fsbench.algorithms.kernels.Kernel.scale_gradient`, which uses one GEMM for all D features.
A criterion that is not a function of the Gram matrix (e.g. SAS with random Fourier features)
overrides ``_objective`` instead and gives its value and gradient in ``w`` directly.

Step size (the paper gives none — ALGORITHMS.md §12.3 [D]): the first trial step moves ``w`` by
``step_size`` in Euclidean norm; Armijo backtracking (sufficient increase
:math:`f(w+\eta g) \ge f(w) + 10^{-4}\eta\lVert g\rVert^2`, halving η) and doubling η after each
accepted step. Stop when :math:`|f_n - f_{n-1}| < \text{tol}\cdot\max(1, |f_n|)`, when no step
increases f, or after ``max_iter`` accepted steps (``converged_ = False``). The Gram matrix of an
accepted point is reused for its gradient, so an iteration costs one gradient (one N×N×D GEMM)
plus one Gram matrix per trial step.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral, Real

import numpy as np

from fsbench.algorithms.base import BaseSelector, ranking_from_scores
from fsbench.algorithms.kernels import Kernel, make_kernel

_ARMIJO_C = 1e-4


class ScaledKernelAscent(BaseSelector):
    """Base class: gradient ascent of a Gram-matrix criterion over kernel scale factors."""

    def __init__(
        self,
        kernel: str = "linear",
        gamma: float | str = "median",
        degree: float = 3,
        offset: float = 1.0,
        scale: float = 1.0,
        max_iter: int = 200,
        tol: float = 1e-6,
        step_size: float = 1.0,
        n_features_to_select: int | float | None = None,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.offset = offset
        self.scale = scale
        self.max_iter = max_iter
        self.tol = tol
        self.step_size = step_size
        self.n_features_to_select = n_features_to_select

    # -- to implement ----------------------------------------------------------------
    def _target(self, y: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _criterion(self, K: np.ndarray, T: np.ndarray) -> tuple[float, np.ndarray]:  # pragma: no cover
        raise NotImplementedError

    def _prepare(self, kern: Kernel, X: np.ndarray, y: np.ndarray, T: np.ndarray) -> None:
        """Hook run once before the ascent (e.g. to fix a regulariser at w = 1)."""

    def _objective(self, kern: Kernel, X: np.ndarray, y: np.ndarray) -> Callable:
        """``evaluate(w) -> (f, gradient)``: the criterion at ``w`` and a callable giving its gradient in w.

        The default forms the Gram matrix of every trial point and keeps it (and ∂f/∂K) for the
        gradient, which the ascent asks for at accepted points only. A subclass whose criterion is
        not a function of the N×N Gram matrix (e.g. a random-feature approximation) overrides this.
        """
        T = self._target(y)
        self._prepare(kern, X, y, T)

        def evaluate(w: np.ndarray) -> tuple[float, Callable[[], np.ndarray]]:
            K = kern.gram(X, w=w)
            f, M = self._criterion(K, T)
            return f, lambda: kern.scale_gradient(X, M, K, w)

        return evaluate

    # -- shared ----------------------------------------------------------------------
    def _check_params(self) -> None:
        if not (isinstance(self.max_iter, Integral) and self.max_iter >= 0):
            raise ValueError(f"max_iter must be a non-negative integer, got {self.max_iter!r}")
        if not (isinstance(self.tol, Real) and self.tol >= 0):
            raise ValueError(f"tol must be a non-negative number, got {self.tol!r}")
        if not (isinstance(self.step_size, Real) and self.step_size > 0):
            raise ValueError(f"step_size must be a positive number, got {self.step_size!r}")

    def _kernel(self, X: np.ndarray) -> Kernel:
        return make_kernel(
            self.kernel, gamma=self.gamma, degree=self.degree, offset=self.offset, scale=self.scale
        ).resolved(X)

    def criterion(self, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[float, np.ndarray]:
        """Criterion value and gradient w.r.t. ``w`` at scale factors ``w`` (for tests and tools).

        ``y`` holds class indices 0..C-1; the kernel's gamma rule is resolved on ``X``.
        """
        f, gradient = self._objective(self._kernel(X), X, y)(w)
        return f, gradient()

    def _fit(self, X, y):
        self._check_params()
        kern = self._kernel(X)
        self.kernel_ = kern
        evaluate = self._objective(kern, X, y)
        w = np.ones(X.shape[1])
        f, gradient = evaluate(w)
        history = [f]
        eta = None
        converged = False
        n_iter = 0
        for _ in range(self.max_iter):
            g = gradient()
            gn2 = float(g @ g)
            if not np.isfinite(gn2) or gn2 == 0.0:
                converged = gn2 == 0.0
                break
            if eta is None:
                eta = self.step_size / np.sqrt(gn2)
            while True:
                w_new = w + eta * g
                f_new, gradient_new = evaluate(w_new)
                if np.isfinite(f_new) and f_new >= f + _ARMIJO_C * eta * gn2:
                    break
                eta *= 0.5
                if eta * np.sqrt(gn2) < 1e-12 * max(1.0, np.linalg.norm(w)):
                    f_new = None
                    break
            if f_new is None:  # no ascent direction left at machine precision: a stationary point
                converged = True
                break
            n_iter += 1
            delta = f_new - f
            w, f, gradient = w_new, f_new, gradient_new
            history.append(f)
            eta *= 2.0
            if abs(delta) < self.tol * max(1.0, abs(f)):
                converged = True
                break
        self.scale_factors_ = w
        self.criterion_ = f
        self.criterion_history_ = np.asarray(history)
        self.n_iter_ = n_iter
        self.converged_ = converged
        self.scores_ = np.abs(w)
        self.ranking_ = ranking_from_scores(self.scores_)
