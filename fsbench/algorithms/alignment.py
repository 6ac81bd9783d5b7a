r"""Kernel-target alignment selectors (Ramona et al. 2012, §III).

Alignment of the scaled Gram matrix :math:`K = K_w` with a target :math:`K^*`:

.. math:: A(K, K^*) = \frac{\langle K, K^*\rangle_F}{\lVert K\rVert_F\,\lVert K^*\rVert_F},
   \qquad
   \frac{\partial A}{\partial K} = \frac{K^*}{\lVert K\rVert\lVert K^*\rVert}
   - \frac{\langle K,K^*\rangle\, K}{\lVert K\rVert^3\lVert K^*\rVert}.

**SAS** (scaled alignment selection, Algorithm 1) maximises A over the scale factors by gradient
ascent from 1 and ranks by :math:`|w_d|`. The target is Vert's multiclass kernel (eq. 10), i.e.
:math:`yy^\top` for two classes. For the RBF kernel the width is absorbed by the scale factors
(eq. 6); it only fixes the starting point, so ``gamma`` defaults to the median heuristic on the
training split (with an arbitrary γ the Gram matrix of unscaled data is ≈ I and the gradient
vanishes).

Both criteria are functions of the reductions :math:`\langle K, K^*\rangle_F` and
:math:`\lVert K\rVert_F^2` (the target is a class-pair table, :mod:`fsbench.algorithms.targets`), so
they are evaluated block by block within ``memory_limit``
(:mod:`fsbench.algorithms.gram_blocks`): the scalars of :func:`alignment_terms` combine the
reductions into the value and into the weights of :math:`K^*` and K in :math:`\partial A/\partial K`.
``approximation="rff"`` replaces the N×N Gram matrix by random Fourier features
(:mod:`fsbench.algorithms.random_features`): O(N·m·(m + D)) time per pass and
O(m² + m·D) memory beyond X, for large N.
"""

from __future__ import annotations

import warnings
from numbers import Integral

import numpy as np
from scipy.linalg.blas import daxpy as _axpy
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions

from fsbench.algorithms.gram_blocks import (
    DEFAULT_MEMORY_LIMIT,
    GradientWeights,
    GramStats,
    resolve_n_jobs,
)
from fsbench.algorithms.random_features import rff_kernel, rff_objective
from fsbench.algorithms.scaled import ScaledKernelAscent
from fsbench.algorithms.targets import class_table_norm, class_target_table


class SAS(ScaledKernelAscent):
    """Scaled alignment selection: gradient ascent of the kernel-target alignment over scale factors.

    Parameters
    ----------
    kernel : {"linear", "rbf", "poly"}
    gamma : float or {"median", "n_features", "scale"}
        RBF width (rule resolved on the training data).
    degree, offset, scale : float
        Polynomial kernel :math:`(\\text{offset} + \\text{scale}\\langle x, z\\rangle)^\\text{degree}`.
    max_iter : int, default 200
    tol : float, default 1e-6
        Stop when the alignment changes by less than ``tol`` (relative to max(1, |A|)).
    step_size : float, default 1.0
        Norm of the first trial step in scale-factor space (Armijo backtracking afterwards).
    target : {"vert", "uneven"}, default "vert"
    n_features_to_select : int, float or None
    memory_limit : int, float, str or None, default "1GiB"
        Budget for the N×N-sized temporaries (bytes, or e.g. ``"512MB"``, ``"2GiB"``; None = no
        limit): the Gram matrix is formed whole if it fits, else block by block with the same result
        up to round-off (:class:`~fsbench.algorithms.scaled.ScaledKernelAscent`).
    n_jobs : int or None, default 1
        Threads over the blocks (blocked path; -1 = every core). With ``approximation="rff"``: threads
        over ranges of row blocks, one BLAS thread each.
    approximation : {None, "rff"}, default None
        ``None``: the exact alignment of the N×N Gram matrix. ``"rff"``: random Fourier features
        (:mod:`fsbench.algorithms.random_features`) — the alignment and its exact gradient in w in
        O(N·m·(m + D)) per pass without any N×N matrix; ``kernel="rbf"`` only (others are refused).
        A named ``gamma`` rule is then resolved on at most 5000 evenly spaced training rows.
    n_components : int, required with ``approximation="rff"``
        Number m of random features (``approximation="rff"`` only); time per pass O(N·m·(m + D)).
        **No default**, by the rule stated in advance in ``benchmarks/rff_default_m.py``: a default m
        would be the smallest of {50, …, 2000} whose ranking agrees with exact SAS on the same rows
        at least as well (median over cases and seeds of the top-10 average overlap) as exact SAS
        agrees with itself on an independent sample of the same size. No m qualified
        (``benchmarks/results/RESULTS.md``, section (i)), and the earlier rule of
        ``benchmarks/rff_agreement.py`` found none either, so the choice — and its cost — stays
        the user's; m = 500–2000 is the range studied.
    random_state : int, RandomState or None, default None
        Draws the random features once per fit (``approximation="rff"`` only; the protocol passes the
        task's selector seed).
    normaliser_rows : int or None, default None
        ``approximation="rff"`` only: estimate the normaliser ‖K_w‖_F from this
        many evenly spaced training rows (class-stratified) instead of all N — the N·m² part of each
        pass becomes n·m² (:mod:`fsbench.algorithms.random_features`, "Normaliser rows"). None, or a
        number ≥ N: all rows (the default; the criterion is then the bounded alignment of
        ZZᵀ). A rule for choosing it, and its measured effect, are in the module notes.

    Attributes
    ----------
    ranking_, scores_ (= |w|), scale_factors_, criterion_ (final alignment), n_iter_, converged_
    gram_path_ : {"dense", "blocked", "rff"}; block_rows_, block_cols_ : int or None
        How the Gram matrix was walked (``memory_limit``; None for ``"rff"``).
    """

    description = "scaled kernel-target alignment: gradient ascent on scale factors (multiclass)"
    citation = "Ramona, Richard & David 2012, IEEE TNNLS 23(10), Alg. 1"

    #: scikit-learn parameter constraints: checked at the start of ``fit`` and by ``fsbench run`` before
    #: any work starts (a config with e.g. ``max_iter: -1`` is refused with exit code 2).
    _parameter_constraints: dict = {
        **ScaledKernelAscent._parameter_constraints,
        "target": [StrOptions({"vert", "uneven"})],
        "approximation": [StrOptions({"rff"}), None],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
        "normaliser_rows": [Interval(Integral, 2, None, closed="left"), None],
    }

    #: Criterion of the random-feature path (:class:`SFS` uses the alignment's numerator).
    _rff_criterion = "alignment"
    #: Precision of its row blocks (float64 only to check the gradient by finite differences).
    _rff_dtype = np.float32

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
        target: str = "vert",
        n_features_to_select: int | float | None = None,
        memory_limit: int | float | str | None = DEFAULT_MEMORY_LIMIT,
        n_jobs: int | None = 1,
        approximation: str | None = None,
        n_components: int | None = None,
        random_state=None,
        normaliser_rows: int | None = None,
    ):
        super().__init__(
            kernel=kernel,
            gamma=gamma,
            degree=degree,
            offset=offset,
            scale=scale,
            max_iter=max_iter,
            tol=tol,
            step_size=step_size,
            n_features_to_select=n_features_to_select,
            memory_limit=memory_limit,
            n_jobs=n_jobs,
        )
        self.target = target
        self.approximation = approximation
        self.n_components = n_components
        self.random_state = random_state
        self.normaliser_rows = normaliser_rows

    def _validate_params(self) -> None:
        super()._validate_params()
        if self.approximation is not None and self.kernel != "rbf":
            rff_kernel(self.kernel, self.gamma, np.zeros((1, 1)))  # raises the explanatory ValueError
        if self.approximation is not None and self.n_components is None:
            raise ValueError(
                f"approximation={self.approximation!r} needs n_components (the number m of random "
                "features; time per pass O(N·m·(m + D))): there is no default, because no m agreed with "
                "exact SAS as well as exact SAS agrees with itself on new data "
                "(benchmarks/results/RESULTS.md, section (i)); m = 500 to 2000 is the range studied"
            )

    def _objective(self, X, y):
        if self.approximation is None:
            return super()._objective(X, y)
        kern = rff_kernel(self.kernel, self.gamma, X)
        self.kernel_ = kern
        self.gram_path_ = "rff"
        self.block_rows_ = self.block_cols_ = None
        return rff_objective(
            kern,
            X,
            y,
            target=self.target,
            criterion=self._rff_criterion,
            n_components=self.n_components,
            random_state=self.random_state,
            dtype=self._rff_dtype,
            n_jobs=resolve_n_jobs(self.n_jobs),
            normaliser_rows=getattr(self, "normaliser_rows", None),  # SFS has no normaliser
        )

    _needs_sq_norm = True

    def _prepare(self, gram):
        # the target as a class-pair table and its norm: fixed during the ascent, computed once
        self.target_table_ = class_target_table(gram.counts, self.target)
        self.target_norm_ = class_table_norm(self.target_table_, gram.counts)

    def _criterion(self, stats: GramStats) -> tuple[float, GradientWeights]:
        a, c_target, c_gram = alignment_terms(
            stats.inner(self.target_table_), stats.sq_norm, self.target_norm_
        )
        return a, GradientWeights(table=c_target * self.target_table_, gram=c_gram)


def alignment_terms(kt: float, kk: float, target_norm: float) -> tuple[float, float, float]:
    r"""Alignment from its reductions, and the weights of :math:`\partial A/\partial K = c_T K^* + c_K K`.

    With :math:`\langle K,K^*\rangle = ` ``kt``, :math:`\lVert K\rVert^2 = ` ``kk`` and
    :math:`\lVert K^*\rVert = ` ``target_norm``: :math:`A = kt/(\lVert K\rVert\lVert K^*\rVert)`,
    :math:`c_T = 1/(\lVert K\rVert\lVert K^*\rVert)`, :math:`c_K = -A/\lVert K\rVert^2`
    (all 0 when a norm is 0).

    Returns
    -------
    (A, c_T, c_K)
    """
    nk = float(np.sqrt(kk))
    nt = float(target_norm)
    if nk == 0.0 or nt == 0.0:
        return 0.0, 0.0, 0.0
    a = kt / (nk * nt)
    return a, 1.0 / (nk * nt), -a / kk


def alignment(K: np.ndarray, T: np.ndarray, target_norm: float | None = None) -> tuple[float, np.ndarray]:
    r"""Kernel-target alignment and its derivative with respect to the entries of ``K`` (dense matrices).

    ``target_norm`` (:math:`\lVert T\rVert_F`) may be passed when it is fixed across calls. The
    formulas are :func:`alignment_terms`.
    """
    nt = float(np.linalg.norm(T)) if target_norm is None else float(target_norm)
    a, c_target, c_gram = alignment_terms(float(np.vdot(K, T)), float(np.vdot(K, K)), nt)
    M = np.multiply(K, c_gram)
    if M.flags.c_contiguous and T.flags.c_contiguous and T.dtype == np.float64:
        _axpy(T.ravel(), M.ravel(), a=c_target)  # M += c_T·T in place (BLAS), without an N×N temporary
    else:
        M += c_target * T
    return a, M


class SFS(SAS):
    r"""Scaled Frobenius selection: SAS with the alignment's numerator :math:`\langle K, K^*\rangle_F` only.

    Ramona et al. 2012, §V-C: the criterion of Neumann et al. 2005 (KTA selection) and, with the
    uneven target, :math:`\tfrac{n}{n_1 n_2}\operatorname{tr} S_b` — Wang's 2008 lower bound
    (ALGORITHMS.md §12.1–12.2). Gradient ascent over the scale factors from :math:`w = \mathbf 1`
    exactly as :class:`SAS`, with :math:`\partial F/\partial K = K^*`.

    The criterion has no normalisation, so it is bounded only for the RBF kernel
    (:math:`0 < k_w \le 1`):

    * ``kernel="linear"`` is refused (ValueError): :math:`F = \sum_d w_d^2\, x_d^\top K^* x_d` grows
      without bound along every feature with :math:`x_d^\top K^* x_d > 0` (Ramona §V: "the weight
      factors diverge to infinity").
    * ``kernel="poly"`` is accepted but diverges too (F is a polynomial of degree 2·degree in w with
      a positive leading part along the discriminative features). What happens: the Armijo step
      doubles after every accepted step, so F grows super-exponentially (observed on the Weston
      nonlinear toy, n = 50: F ≈ 1e8 → 1e307 in 5–7 accepted steps, degree 2 and 3) until the
      gradient overflows. The fit then stops (``converged_ = False``, one ``ConvergenceWarning``;
      numpy's overflow warnings are silenced) and ranks by :math:`|w_d|` of the last finite iterate:
      the features that grew fastest first. No extra cap is added — the divergence ends the run
      within a few steps, far below ``max_iter``. Treat polynomial SFS as an experiment, not as a
      reproduction of the paper (which shows RBF results only).

    Parameters
    ----------
    kernel : {"rbf", "poly"}, default "rbf"
    gamma : float or {"median", "n_features", "scale"}, default "median"
        RBF width (rule resolved on the training data; absorbed by the scale factors).
    degree, offset, scale : float
        Polynomial kernel :math:`(\text{offset} + \text{scale}\langle x, z\rangle)^\text{degree}`.
    max_iter : int, default 200
    tol : float, default 1e-6
        Stop when F changes by less than ``tol`` relative to max(1, |F|).
    step_size : float, default 1.0
    target : {"vert", "uneven"}, default "vert"
        Vert's multiclass target (:math:`yy^\top` for two classes) or the uneven-class target.
    n_features_to_select : int, float or None
    memory_limit : int, float, str or None, default "1GiB"
    n_jobs : int or None, default 1
        As in :class:`SAS` (block-wise evaluation of :math:`\langle K, K^*\rangle_F` when the Gram
        matrix does not fit in ``memory_limit``).
    approximation, n_components, random_state
        As for :class:`SAS`: ``approximation="rff"`` estimates :math:`\langle K, K^*\rangle_F` with
        random Fourier features (RBF only).

    Attributes
    ----------
    ranking_, scores_ (= |w|), scale_factors_, criterion_ (final F), n_iter_, converged_
    """

    description = "scaled Frobenius criterion <K, K*>_F (alignment numerator): gradient ascent, rbf/poly"
    citation = "Ramona, Richard & David 2012, IEEE TNNLS 23(10), §V-C (after Neumann et al. 2005)"

    def __init__(
        self,
        kernel: str = "rbf",
        gamma: float | str = "median",
        degree: float = 3,
        offset: float = 1.0,
        scale: float = 1.0,
        max_iter: int = 200,
        tol: float = 1e-6,
        step_size: float = 1.0,
        target: str = "vert",
        n_features_to_select: int | float | None = None,
        memory_limit: int | float | str | None = DEFAULT_MEMORY_LIMIT,
        n_jobs: int | None = 1,
        approximation: str | None = None,
        n_components: int | None = None,
        random_state=None,
    ):
        super().__init__(
            kernel=kernel,
            gamma=gamma,
            degree=degree,
            offset=offset,
            scale=scale,
            max_iter=max_iter,
            tol=tol,
            step_size=step_size,
            target=target,
            n_features_to_select=n_features_to_select,
            memory_limit=memory_limit,
            n_jobs=n_jobs,
            approximation=approximation,
            n_components=n_components,
            random_state=random_state,
        )

    supported_kernels = ("rbf", "poly")
    #: SAS's constraints without ``normaliser_rows``: the Frobenius criterion has no normaliser
    _parameter_constraints: dict = {
        k: v for k, v in SAS._parameter_constraints.items() if k != "normaliser_rows"
    }
    _rff_criterion = "frobenius"

    _LINEAR_MSG = (
        "SFS cannot use the linear kernel: the Frobenius criterion <K, K*>_F grows without bound "
        "as the scale factors grow (Ramona et al. 2012, §V). Use kernel='rbf' (or SAS/SCSS)."
    )

    def _validate_params(self) -> None:
        super()._validate_params()
        if isinstance(self.kernel, str) and self.kernel == "linear":
            raise ValueError(self._LINEAR_MSG)

    def _kernel(self, X):
        kern = super()._kernel(X)
        if kern.name == "linear":
            raise ValueError(self._LINEAR_MSG)
        return kern

    _needs_sq_norm = False

    def _criterion(self, stats: GramStats) -> tuple[float, GradientWeights]:
        return stats.inner(self.target_table_), GradientWeights(table=self.target_table_)

    def _fit(self, X, y):
        # A polynomial SFS run diverges until the Gram matrix overflows; that end is expected and
        # reported once below instead of as numpy overflow warnings.
        with np.errstate(over="ignore", invalid="ignore"):
            super()._fit(X, y)
        if not self.converged_ and self.n_iter_ < self.max_iter:
            warnings.warn(
                f"SFS diverged: the Frobenius criterion overflowed after {self.n_iter_} steps "
                f"(kernel={self.kernel_.name!r}; it is unbounded for polynomial kernels). The ranking "
                "is that of the last finite iterate.",
                ConvergenceWarning,
                stacklevel=2,
            )


class SASRFF(SAS):
    """:class:`SAS` with random Fourier features by default (``approximation="rff"``, RBF kernel).

    The same estimator as ``SAS(kernel="rbf", approximation="rff")``, registered as ``sas_rff`` so that
    a config can name it; under an experiment with another kernel it keeps the RBF kernel.
    """

    description = "SAS with random Fourier features: alignment ascent linear in N, for large N (RBF)"
    citation = "Ramona, Richard & David 2012, Alg. 1; features of Rahimi & Recht 2007"
    supported_kernels = ("rbf",)

    def __init__(
        self,
        kernel: str = "rbf",
        gamma: float | str = "median",
        degree: float = 3,
        offset: float = 1.0,
        scale: float = 1.0,
        max_iter: int = 200,
        tol: float = 1e-6,
        step_size: float = 1.0,
        target: str = "vert",
        n_features_to_select: int | float | None = None,
        memory_limit: int | float | str | None = DEFAULT_MEMORY_LIMIT,
        n_jobs: int | None = 1,
        approximation: str | None = "rff",
        n_components: int | None = None,
        random_state=None,
        normaliser_rows: int | None = None,
    ):
        super().__init__(
            kernel=kernel,
            gamma=gamma,
            degree=degree,
            offset=offset,
            scale=scale,
            max_iter=max_iter,
            tol=tol,
            step_size=step_size,
            target=target,
            n_features_to_select=n_features_to_select,
            memory_limit=memory_limit,
            n_jobs=n_jobs,
            approximation=approximation,
            n_components=n_components,
            random_state=random_state,
            normaliser_rows=normaliser_rows,
        )
