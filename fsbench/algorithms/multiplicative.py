r"""Multiplicative scale-factor updates: AROM (Weston et al. 2003) and KFDS (Ramona et al. 2012).

Both methods rescale the data by per-feature factors :math:`z` (a scaled linear kernel,
:math:`k_z(x, x') = \langle z\circ x, z\circ x'\rangle`), find a discriminant direction
:math:`w_h` on the rescaled data, and update :math:`z \leftarrow z \circ |w_h|`. Features whose
factor becomes negligible are removed. The loop is :class:`MultiplicativeScaling`; the methods only
differ in how :math:`w_h` is obtained:

* **AROM** (approximation of the zero-norm minimisation, L2 variant): a linear SVM,
  :math:`w_h = \sum_i \breve\alpha_i (z\circ x_i)` with :math:`\breve\alpha = \alpha\circ y` from
  the SVM dual;
* **KFDS** (Ramona et al. 2012, §IV-D, Algorithm 2): the kernel Fisher discriminant,
  :math:`w_h = \sum_i \alpha_i (z\circ x_i)` with α the leading eigenvector of :math:`N^{-1}M`.

Loop (Spider ``l0``, ALGORITHMS.md §3.2–3.3; [V] thresholds):

1. on the active features, :math:`X_s = X_{:,A}\circ z_A`; compute the direction(s) and their
   aggregate :math:`a = |w_h|` (several machines/directions: ``aggregate``);
2. :math:`z_A \leftarrow z_A\circ a`;
3. remove (set to 0) every active feature with :math:`z_j \le \text{threshold}\cdot\max_A z`;
   the removed block (sorted by its last z, descending) is prepended to the ranking tail;
4. converged when :math:`\lVert a_{nz} - \mathbf 1\rVert < \text{tol}\,\lVert a_{nz}\rVert` on the
   surviving features (the fixed point :math:`|w_h| = 1`).

Ranking: survivors by :math:`z` descending, then the removed features in reverse removal order,
so the ranking is always complete. Fixed-S mode (``n_features_to_select`` set; Spider
``find_min=0``): the convergence test is skipped and the loop runs until at most S features are
active (or the pass cap is reached; then the survivors are ranked by z as usual). Asking for all
D features (S ≥ D) runs the convergence mode, so that the ranking is still informative.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.linalg
from sklearn.svm import SVC
from sklearn.utils._param_validation import Interval, StrOptions

from fsbench.algorithms.base import BaseSelector, ranking_from_order
from fsbench.algorithms.kernels import joachims_C, make_kernel

_AGGREGATES = ("l1", "l2")


class MultiplicativeScaling(BaseSelector):
    """Shared loop of the multiplicative scale-update selectors (AROM, KFDS).

    Subclasses implement ``_directions(Xs, y) -> (Wh, weights)``: ``Wh`` (m, d) holds m direction
    vectors in the rescaled input space of the d active features and ``weights`` (m,) their
    non-negative weights; the update uses ``a = Σ_k weights_k |Wh_k|`` (``aggregate="l1"``) or
    ``a = sqrt(Σ_k (weights_k Wh_k)²)`` (``"l2"``). Scale-free subclasses (``_scale_free = True``)
    have ``a`` normalised to unit root-mean-square, so that only the direction of ``w_h`` matters,
    and ``z`` renormalised to max 1 after every pass.
    """

    #: The direction has no natural scale: normalise ``a`` to unit RMS before the update.
    _scale_free: bool = False
    #: Pass caps when ``max_iter`` is None: convergence mode, fixed-S mode.
    _default_max_iter: tuple[int, int] = (20, 100)

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "tol": [Interval(Real, 0, None, closed="left")],
        "threshold": [Interval(Real, 0, 1, closed="left")],
        "aggregate": [StrOptions(set(_AGGREGATES))],
    }

    def __init__(
        self,
        max_iter: int | None = None,
        tol: float = 1e-3,
        threshold: float = 1e-3,
        aggregate: str = "l1",
        n_features_to_select: int | float | None = None,
    ):
        self.max_iter = max_iter
        self.tol = tol
        self.threshold = threshold
        self.aggregate = aggregate
        self.n_features_to_select = n_features_to_select

    def _directions(self, Xs: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
        raise NotImplementedError

    def _aggregate(self, Wh: np.ndarray, weights: np.ndarray) -> np.ndarray:
        Wh = np.atleast_2d(Wh) * np.asarray(weights, dtype=float)[:, None]
        if self.aggregate == "l1":
            return np.abs(Wh).sum(axis=0)
        return np.sqrt((Wh * Wh).sum(axis=0))

    def _fit(self, X, y):
        D = X.shape[1]
        S = self._n_selected(D) if self.n_features_to_select is not None else None
        fixed = S is not None and S < D  # asking for all D features: run to convergence instead
        cap = self.max_iter if self.max_iter is not None else self._default_max_iter[int(fixed)]
        z = np.ones(D)
        active = np.arange(D)
        tail: list[int] = []  # removed features, most recently removed first
        converged = False
        n_iter = 0
        for _ in range(cap):
            if fixed and active.size <= S:
                converged = True
                break
            Xs = X[:, active] * z[active]
            Wh, weights = self._directions(Xs, y)
            a = self._aggregate(Wh, weights)
            amax = float(np.max(a)) if a.size else 0.0
            if not np.isfinite(a).all() or amax <= 0.0:
                # no usable direction (e.g. every SVM coefficient is 0): keep the current factors
                break
            if self._scale_free:
                a = a / np.sqrt(np.mean(a * a))
            n_iter += 1
            z[active] *= a
            if self._scale_free:  # the direction is all that matters; keep max z = 1 (no overflow)
                z[active] /= z[active].max()
            za = z[active]
            drop = za <= self.threshold * za.max()
            if drop.any():
                removed = active[drop]
                block = removed[np.lexsort((removed, -za[drop]))]
                tail = block.tolist() + tail
                z[removed] = 0.0
                active = active[~drop]
            a_nz = a[~drop]
            if not fixed and np.linalg.norm(a_nz - 1.0) < self.tol * np.linalg.norm(a_nz):
                converged = True
                break
        else:
            converged = fixed and active.size <= S
        za = z[active]
        survivors = active[np.lexsort((active, -za))]
        self.scale_factors_ = z
        self.n_active_ = int(active.size)
        self.n_iter_ = n_iter
        self.converged_ = bool(converged)
        self.ranking_ = ranking_from_order(np.concatenate([survivors, np.asarray(tail, dtype=int)]))


def _linear_svm_direction(K: np.ndarray, Xs: np.ndarray, yb: np.ndarray, C: float) -> np.ndarray:
    """Primal normal vector :math:`w = \\sum_i \\breve\\alpha_i x_i` of a linear SVM on the Gram ``K``."""
    svc = SVC(kernel="precomputed", C=C).fit(K, yb)
    return svc.dual_coef_[0] @ Xs[svc.support_]


class AROM(MultiplicativeScaling):
    r"""AROM with the L2 norm: zero-norm approximation by multiplicative rescaling with a linear SVM.

    Weston, Elisseeff, Schölkopf & Tipping 2003; Spider's ``l0`` with an ``svm`` child, which
    Ramona et al. 2012 ran as a reference method ("only used with a linear kernel"). Each pass trains
    a linear SVM (``SVC(kernel="precomputed")`` on the Gram matrix of the rescaled active features,
    :math:`K = (X_A\circ z_A)(X_A\circ z_A)^\top`), takes its primal normal vector
    :math:`w = \sum_i \breve\alpha_i (z\circ x_i)` and updates :math:`z \leftarrow z\circ|w|`
    (loop, thresholds and ranking: :mod:`fsbench.algorithms.multiplicative`).

    Multiclass (Ramona §V-B4: "the one-vs.-all multiclass variant of AROM"): one one-vs-rest SVM per
    class and per pass, :math:`z \leftarrow z\circ\sum_c |w_c|` (``aggregate="l1"``, ALGORITHMS.md
    §3.3 [D]) or :math:`z\circ(\sum_c w_c^2)^{1/2}` (``"l2"``). Two classes use a single SVM.

    Parameters
    ----------
    C : float or None, default None
        SVM trade-off. None: Joachims' default :math:`1/\bar R^2`
        (:func:`~fsbench.algorithms.kernels.joachims_C`), recomputed on the rescaled data at every
        pass, as in Spider/SVMlight.
    max_iter : int or None, default None
        Maximum number of passes (SVM trainings per class). None: 20 in convergence mode — the
        brief's "20 passes max"; Spider's ``l0`` stops after its 21st pass (``loop > 20``) — and
        100 in fixed-S mode, where Spider has no cap (ALGORITHMS.md §3.3 [D]).
    tol : float, default 1e-3
        Convergence when :math:`\lVert |w_{nz}| - 1\rVert < \text{tol}\,\lVert |w_{nz}|\rVert` (Spider).
    threshold : float, default 1e-3
        Remove features with :math:`z_j \le \text{threshold}\cdot\max z` (Spider).
    aggregate : {"l1", "l2"}, default "l1"
        Multiclass aggregation of the one-vs-rest normal vectors.
    n_features_to_select : int, float or None
        If set, fixed-S mode: loop until at most this many features survive (no convergence test).

    Attributes
    ----------
    ranking_ : survivors by z descending, then removed features in reverse removal order.
    scale_factors_ : (D,) final z (0 for removed features).
    n_active_ : number of surviving features.
    n_iter_, converged_
    """

    description = "AROM (L2): multiplicative rescaling z <- z*|w| with a linear SVM (zero-norm approx.)"
    citation = "Weston, Elisseeff, Schoelkopf & Tipping 2003, JMLR 3:1439-1461 (Spider l0)"
    supported_kernels = ("linear",)

    _parameter_constraints: dict = {
        **MultiplicativeScaling._parameter_constraints,
        "C": [Interval(Real, 0, np.inf, closed="neither"), None],
    }

    def __init__(
        self,
        C: float | None = None,
        max_iter: int | None = None,
        tol: float = 1e-3,
        threshold: float = 1e-3,
        aggregate: str = "l1",
        n_features_to_select: int | float | None = None,
    ):
        super().__init__(
            max_iter=max_iter,
            tol=tol,
            threshold=threshold,
            aggregate=aggregate,
            n_features_to_select=n_features_to_select,
        )
        self.C = C

    def _directions(self, Xs, y):
        lin = make_kernel("linear")
        K = lin.gram(Xs)
        C = float(self.C) if self.C is not None else joachims_C(lin, Xs)
        n_classes = int(y.max()) + 1
        if n_classes == 2:
            Wh = _linear_svm_direction(K, Xs, y, C)[None, :]
        else:
            Wh = np.stack([_linear_svm_direction(K, Xs, (y == c).astype(int), C) for c in range(n_classes)])
        return Wh, np.ones(Wh.shape[0])


def kfda_directions(K: np.ndarray, y: np.ndarray, reg: float = 1e-3) -> tuple[np.ndarray, np.ndarray]:
    r"""Kernel Fisher discriminant directions (Mika et al. 1999), multiclass.

    With the class-averaging projector :math:`L` (:math:`L_{ij} = 1/n_c` when
    :math:`y_i = y_j = c`) and :math:`J = \mathbf 1\mathbf 1^\top`,

    .. math:: M = K (L - J/n) K = \sum_c n_c (m_c - m)(m_c - m)^\top, \qquad
       N = K (I - L) K = \sum_c K_c (I - \mathbf 1\mathbf 1^\top/n_c) K_c^\top,

    with :math:`(m_c)_j = \frac1{n_c}\sum_{i\in c} K_{ji}`. For two classes M is proportional to
    Mika's :math:`(m_1-m_2)(m_1-m_2)^\top`. N is regularised as
    :math:`N_\mu = N + \mu I`, :math:`\mu = \text{reg}\cdot\operatorname{tr}(N)/n` (ALGORITHMS.md
    §12.3 [D]). The directions are the leading C−1 eigenvectors of :math:`N_\mu^{-1} M`. Since
    :math:`M = U U^\top` with :math:`U = K A` of rank ≤ C−1
    (:math:`A_{:,c} = \sqrt{n_c}\,(e_c/n_c - \mathbf 1/n)`), they are computed exactly from the
    C×C problem :math:`U^\top N_\mu^{-1} U v = \lambda v`, :math:`\alpha = N_\mu^{-1} U v`
    (one Cholesky factorisation instead of an n×n non-symmetric eigenproblem).

    Returns
    -------
    alphas : (C−1, n) expansion coefficients, normalised to :math:`\alpha^\top N_\mu \alpha = 1`
        (unit within-class scatter of the projection), sign arbitrary.
    eigenvalues : (C−1,) the Fisher ratios :math:`\lambda_k = \alpha^\top M\alpha / \alpha^\top N_\mu\alpha`,
        descending.
    """
    n = K.shape[0]
    classes, inv, counts = np.unique(y, return_inverse=True, return_counts=True)
    n_classes = classes.size
    onehot = (inv[:, None] == np.arange(n_classes)[None, :]).astype(float)
    # (I - L) K: rows minus their class mean; I - L is a symmetric projector, so N = RᵀR
    R = K - ((onehot / counts).T @ K)[inv]
    N = R.T @ R
    trN = float(np.trace(N))
    mu = reg * trN / n if trN > 0 else reg * max(float(np.sum(K * K)) / n, 1.0)
    N[np.diag_indices(n)] += mu
    A = (onehot / counts - 1.0 / n) * np.sqrt(counts)
    U = K @ A
    cho = scipy.linalg.cho_factor(N)
    NiU = scipy.linalg.cho_solve(cho, U)
    G = U.T @ NiU
    lam, V = np.linalg.eigh((G + G.T) / 2)
    order = np.argsort(lam)[::-1][: n_classes - 1]
    lam = np.maximum(lam[order], 0.0)
    alphas = (NiU @ V[:, order]).T
    with np.errstate(divide="ignore", invalid="ignore"):
        alphas = np.where(lam[:, None] > 0, alphas / np.sqrt(lam)[:, None], 0.0)
    return alphas, lam


def kfda_normals(
    X: np.ndarray, y: np.ndarray, reg: float = 1e-3, method: str = "auto"
) -> tuple[np.ndarray, np.ndarray]:
    r"""Normal vectors :math:`w_k = X^\top\alpha_k` of the linear-kernel KFDA (:func:`kfda_directions`).

    ``method="dual"`` builds the n×n linear Gram matrix and calls :func:`kfda_directions`
    (O(n³)). ``method="primal"`` gives the same vectors with d×d algebra only (O(nd² + d³)): with
    :math:`K = XX^\top`, :math:`G = X^\top X`, the within-class scatter :math:`S = X^\top(I-L)X` and
    :math:`P = X^\top A`, one has :math:`N_\mu = XSX^\top + \mu I`, :math:`U = XP`,
    :math:`\operatorname{tr}N = \operatorname{tr}(SG)` and, by the push-through identity
    :math:`(\mu I + XSX^\top)^{-1}X = X(\mu I + SG)^{-1}`,

    .. math:: U^\top N_\mu^{-1}U = P^\top G(\mu I + SG)^{-1}P, \qquad
       w = X^\top N_\mu^{-1}Uv = G(\mu I + SG)^{-1}Pv.

    ``"auto"`` takes the primal form when d < n.

    Returns
    -------
    W : (C−1, d) normal vectors (directions normalised to :math:`\alpha^\top N_\mu\alpha = 1`).
    eigenvalues : (C−1,) Fisher ratios, descending.
    """
    n, d = X.shape
    if method not in ("auto", "dual", "primal"):
        raise ValueError(f"method must be 'auto', 'dual' or 'primal', got {method!r}")
    if method == "dual" or (method == "auto" and d >= n):
        alphas, lam = kfda_directions(make_kernel("linear").gram(X), y, reg=reg)
        return alphas @ X, lam
    classes, inv, counts = np.unique(y, return_inverse=True, return_counts=True)
    n_classes = classes.size
    onehot = (inv[:, None] == np.arange(n_classes)[None, :]).astype(float)
    Xc = X - ((onehot / counts).T @ X)[inv]  # within-class centred rows: (I - L) X
    S = Xc.T @ Xc
    G = X.T @ X
    SG = S @ G
    trN = float(np.trace(SG))
    mu = reg * trN / n if trN > 0 else reg * max(float(np.sum(G * G)) / n, 1.0)
    P = X.T @ ((onehot / counts - 1.0 / n) * np.sqrt(counts))
    Z = np.linalg.solve(SG + mu * np.eye(d), P)  # (μI + SG)⁻¹ P
    GZ = G @ Z
    Gm = P.T @ GZ
    lam, V = np.linalg.eigh((Gm + Gm.T) / 2)
    order = np.argsort(lam)[::-1][: n_classes - 1]
    lam = np.maximum(lam[order], 0.0)
    W = (GZ @ V[:, order]).T
    with np.errstate(divide="ignore", invalid="ignore"):
        W = np.where(lam[:, None] > 0, W / np.sqrt(lam)[:, None], 0.0)
    return W, lam


class KFDS(MultiplicativeScaling):
    r"""Kernel Fisher discriminant selection: multiplicative updates with the KFDA direction.

    Ramona et al. 2012, §IV-D, Algorithm 2: from :math:`w = \mathbf 1`, compute the scaled (linear)
    Gram matrix, the KFDA coefficients α (leading eigenvector of :math:`N^{-1}M`,
    :func:`kfda_directions`; computed in the equivalent d×d primal form when d < n,
    :func:`kfda_normals`), the normal vector :math:`w_h = \sum_i \alpha_i (w\circ x_i)` and
    update :math:`w \leftarrow w\circ|w_h|` "until convergence on scale factors". Only the linear
    kernel is possible (:math:`w_h` needs the explicit feature map), as in the paper.

    Choices ([D], documented in ALGORITHMS.md §12.3 or here):

    * :math:`N` is regularised as :math:`N + \text{reg}\cdot\operatorname{tr}(N)/n\cdot I`;
      without it N is singular whenever n ≤ D (and N⁻¹M is then ill-defined);
    * the loop, removal threshold, stopping rule and ranking are AROM's (Spider ``l0``); since an
      eigenvector has no natural scale, :math:`|w_h|` is normalised to unit RMS over the active
      features, so convergence means the scale factors no longer change direction;
    * multiclass: the C−1 leading discriminant directions, each normalised to unit within-class
      scatter (:math:`\alpha^\top N_\mu\alpha = 1`), are aggregated weighted by their Fisher ratio
      :math:`\lambda_k`: :math:`a = \sum_k \lambda_k |w_{h,k}|` (``aggregate="l1"``) or
      :math:`(\sum_k \lambda_k^2 w_{h,k}^2)^{1/2}` (``"l2"``). For two classes both are
      :math:`|w_h|`.

    Parameters
    ----------
    reg : float, default 1e-3
        Relative KFDA regularisation of N.
    max_iter : int or None, default None
        Pass cap; None: 20 (convergence mode) or 100 (fixed-S mode), as AROM.
    tol : float, default 1e-3
    threshold : float, default 1e-3
    aggregate : {"l1", "l2"}, default "l1"
    n_features_to_select : int, float or None
        If set, fixed-S mode (loop until at most this many features survive).

    Attributes
    ----------
    ranking_, scale_factors_ (final w, max-normalised; 0 for removed features), n_active_,
    n_iter_, converged_
    """

    description = "kernel Fisher discriminant selection: multiplicative updates w <- w*|w_h| (linear)"
    citation = "Ramona, Richard & David 2012, IEEE TNNLS 23(10), §IV-D, Alg. 2"
    supported_kernels = ("linear",)

    _scale_free = True

    _parameter_constraints: dict = {
        **MultiplicativeScaling._parameter_constraints,
        "reg": [Interval(Real, 0, np.inf, closed="neither")],
    }

    def __init__(
        self,
        reg: float = 1e-3,
        max_iter: int | None = None,
        tol: float = 1e-3,
        threshold: float = 1e-3,
        aggregate: str = "l1",
        n_features_to_select: int | float | None = None,
    ):
        super().__init__(
            max_iter=max_iter,
            tol=tol,
            threshold=threshold,
            aggregate=aggregate,
            n_features_to_select=n_features_to_select,
        )
        self.reg = reg

    def _directions(self, Xs, y):
        return kfda_normals(Xs, y, reg=float(self.reg))
