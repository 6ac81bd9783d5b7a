r"""Shared machinery for selectors that optimise the scale factors of a scaled kernel.

:class:`ScaledKernelAscent` maximises a criterion :math:`f(K_w)` of the scaled Gram matrix over
the scale factors ``w`` by gradient ascent from :math:`w = \mathbf 1` and ranks the features by
:math:`|w_d|` (descending) — the scheme of Ramona et al. 2012, Algorithm 1 (SAS) and §IV-C (SCSS).

A subclass provides the criterion as a function of a few reductions of :math:`K_w` with label
matrices (:class:`~fsbench.algorithms.gram_blocks.GramStats`): ``_criterion(stats) -> (f, weights)``,
the value and :math:`M = \partial f / \partial K` (entrywise) as a
:class:`~fsbench.algorithms.gram_blocks.GradientWeights` combination of a class-pair table, K and I.
:class:`~fsbench.algorithms.gram_blocks.BlockedGram` evaluates both over blocks of :math:`K_w`; the
chain rule :math:`\partial f/\partial w_d = \sum_{ij} M_{ij}\,\partial K_{ij}/\partial w_d` is
:meth:`fsbench.algorithms.kernels.Kernel.scale_gradient_block` summed over the blocks (one GEMM for
all D features per block). The whole matrix is one block (the *dense path*) when it fits in
``memory_limit``; otherwise the passes need O(block + N·D) memory and give the same values up to
round-off. A criterion that is not a function of the Gram matrix (SAS with random Fourier features,
:mod:`fsbench.algorithms.random_features`) overrides ``_objective`` instead and gives its value and
gradient in ``w`` directly; the ascent below is the same.

Step size (the paper gives none — ALGORITHMS.md §12.3 [D]): the first trial step moves ``w`` by
``step_size`` in Euclidean norm; Armijo backtracking (sufficient increase
:math:`f(w+\eta g) \ge f(w) + 10^{-4}\eta\lVert g\rVert^2`, halving η) and doubling η after each
accepted step. Stop when :math:`|f_n - f_{n-1}| < \text{tol}\cdot\max(1, |f_n|)`, when no step
increases f, or after ``max_iter`` accepted steps (``converged_ = False``). A trial step needs only
the value (one value pass); the gradient is computed at accepted points only (one gradient pass,
which on the dense path reuses the value pass's Gram matrix).
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval

from fsbench.algorithms.base import BaseSelector, ranking_from_scores
from fsbench.algorithms.gram_blocks import (
    BLOCK_CONSTRAINTS,
    DEFAULT_MEMORY_LIMIT,
    BlockedGram,
    GradientWeights,
    GramStats,
    median_block,
    parse_memory_limit,
    resolve_n_jobs,
)
from fsbench.algorithms.kernels import KERNEL_CONSTRAINTS, Kernel, make_kernel

_ARMIJO_C = 1e-4


class ScaledKernelAscent(BaseSelector):
    """Base class: gradient ascent of a Gram-matrix criterion over kernel scale factors.

    Parameters shared by the subclasses (besides the kernel and the ascent's):

    memory_limit : int, float, str or None, default "1GiB"
        Budget in bytes for the N×N-sized temporaries of one criterion evaluation: a number of bytes
        or a string with a unit (``"512MB"``, ``"2GB"``, ``"1GiB"``;
        :func:`~fsbench.algorithms.gram_blocks.parse_memory_limit`); None = no limit. Within it the
        Gram matrix is formed whole (dense path), otherwise in blocks (O(block + N·D) memory, the
        same criterion, gradient and ranking up to round-off; the median width rule likewise). A few
        N×D copies of the data come on top. The default keeps the dense path up to N ≈ 8,000
        (linear, RBF) and two such fits within a few GB on a shared machine.
    n_jobs : int or None, default 1
        Threads over the blocks (blocked path only; -1 = every core). The default keeps one thread,
        as fsbench's runner gives every task one BLAS thread.

    Fitted attributes ``gram_path_`` ("dense" or "blocked"), ``block_rows_`` and ``block_cols_``
    record the plan (``block_rows_ = block_cols_ = N`` on the dense path).
    """

    #: Whether the criterion needs ‖K‖²_F (one more pass over each block).
    _needs_sq_norm = False

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        **KERNEL_CONSTRAINTS,
        **BLOCK_CONSTRAINTS,
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "step_size": [Interval(Real, 0, None, closed="neither")],
    }

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
        memory_limit: int | float | str | None = DEFAULT_MEMORY_LIMIT,
        n_jobs: int | None = 1,
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
        self.memory_limit = memory_limit
        self.n_jobs = n_jobs

    # -- to implement ----------------------------------------------------------------
    def _prepare(self, gram: BlockedGram) -> None:  # pragma: no cover - abstract
        """Run once before the ascent: fix the label tables (and e.g. a regulariser at w = 1)."""
        raise NotImplementedError

    def _criterion(self, stats: GramStats) -> tuple[float, GradientWeights]:  # pragma: no cover
        raise NotImplementedError

    # -- shared ----------------------------------------------------------------------
    def _kernel(self, X: np.ndarray) -> Kernel:
        """The kernel with its width rule resolved on ``X`` (the median rule within ``memory_limit``)."""
        block = median_block(X.shape[0], parse_memory_limit(self.memory_limit))
        return make_kernel(
            self.kernel, gamma=self.gamma, degree=self.degree, offset=self.offset, scale=self.scale
        ).resolved(X, block)

    def _gram(self, X: np.ndarray, y: np.ndarray) -> BlockedGram:
        """The evaluator of the criterion's passes on the training data (gamma rule resolved on X)."""
        return BlockedGram(
            self._kernel(X),
            X,
            y,
            memory_limit=parse_memory_limit(self.memory_limit),
            n_jobs=resolve_n_jobs(self.n_jobs),
            need_sq_norm=self._needs_sq_norm,
        )

    def _objective(self, X: np.ndarray, y: np.ndarray) -> Callable:
        """``evaluate(w) -> (f, gradient)``: the criterion at ``w`` and a callable giving its gradient in w.

        The default walks the Gram matrix (dense or blocked, :meth:`_gram`) with the subclass's
        ``_prepare``/``_criterion``; the gradient pass runs only when asked for (at accepted points).
        Sets the fitted attributes that describe the walk.
        """
        gram = self._gram(X, y)
        self.kernel_ = gram.kernel
        self.gram_path_ = gram.plan.path
        self.block_rows_ = gram.plan.rows
        self.block_cols_ = gram.plan.cols
        self._prepare(gram)

        def evaluate(w: np.ndarray) -> tuple[float, Callable[[], np.ndarray]]:
            point = gram.at(w)
            f, weights = self._criterion(point.stats)
            return f, lambda: gram.gradient(point, weights)

        return evaluate

    def criterion(self, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[float, np.ndarray]:
        """Criterion value and gradient w.r.t. ``w`` at scale factors ``w`` (for tests and tools).

        ``y`` holds the class labels; the kernel's gamma rule is resolved on ``X``. Dense or blocked
        as in a fit with the same ``memory_limit``.
        """
        self._validate_params()
        X = np.asarray(X, dtype=float)
        f, gradient = self._objective(X, y)(np.asarray(w, dtype=float))
        return f, gradient()

    def _fit(self, X, y):
        evaluate = self._objective(X, y)
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
                gradient_new = None  # free a rejected trial (the dense path's Gram matrix) before the next
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
