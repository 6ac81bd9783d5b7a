r"""Discriminant feature extraction: GDA/KDA, KIFE and MMI (ALGORITHMS.md §11, §10.3).

All are scikit-learn transformers (``kind = "transform"``) that learn a projection on the training split and
map any point with the training statistics.

GDA (Baudat & Anouar 2000) [R]
    In the feature space centred on the training mean, maximise between-class over total inertia:
    :math:`\lambda\,\tilde K\tilde K\alpha = \tilde K W\tilde K\alpha` with
    :math:`W = \operatorname{blockdiag}(\mathbf 1\mathbf 1^\top/n_c)`. Solved through
    :math:`\tilde K = P\Gamma P^\top`: the eigenvectors β of :math:`P^\top W P` (eigenvalue λ ∈ [0, 1]) give
    :math:`\alpha = P\Gamma^{-1}\beta`, normalised so that :math:`\alpha^\top\tilde K\alpha = 1` (unit-norm
    direction in feature space). At most C−1 eigenvalues are non-zero.
KIFE (Liu et al. 2011) [V §III]
    Gradient ascent of the informative energy of the projections :math:`Y = KB` (B: N×D coefficients).
MMI (Torkkola 2003)
    Gradient ascent of the quadratic (Rényi) mutual information between the labels and a linear projection
    :math:`y = W^\top x` with orthonormal W.

Pairwise Gaussian energies
--------------------------
KIFE's energies and Torkkola's quadratic MI are both :math:`E(Y) = \sum_{ij}\Omega_{ij}\,G_{ij}` with
:math:`G_{ij} = G(y_i - y_j, 2\sigma^2 I) = \exp(-\lVert y_i - y_j\rVert^2/(4\sigma^2))` (Liu et al. define
:math:`G(u, \sigma^2) = \exp(-u^\top u/(2\sigma^2))`) and a weight matrix Ω fixed by the labels (and, for
KIFE, the neighbourhoods). The exact derivative is

.. math:: \frac{\partial E}{\partial y_i} = \frac{2}{4\sigma^2}\sum_j (\Omega_{ij}+\Omega_{ji})\,G_{ij}\,
   (y_j - y_i) = \frac{1}{2\sigma^2}\sum_j (\Omega_{ij}+\Omega_{ji})\,G_{ij}\,(y_j - y_i),

i.e. :math:`\partial E/\partial Y = \tfrac{1}{2\sigma^2}(AY - \operatorname{diag}(A\mathbf 1)Y)` with
:math:`A = (\Omega+\Omega^\top)\circ G`; then :math:`\partial E/\partial B = K\,\partial E/\partial Y`
(KIFE) and :math:`\partial I/\partial W = X^\top\partial I/\partial Y` (MMI).

**Fix of the paper's gradient (KIFE eqs. 8–9).** Liu et al. write
:math:`\partial E_c/\partial y_{ci} = \frac1N\sum_j G(y_{cj}-y_{ci}, 2\sigma^2 I)(y_{cj}-y_{ci})/\sigma^2`.
With their G, :math:`\partial G(y_j - y_i, 2\sigma^2 I)/\partial y_i = G\cdot(y_j - y_i)/(2\sigma^2)`:
the one-sided derivative has :math:`2\sigma^2`, not :math:`\sigma^2`, in the denominator (ALGORITHMS.md
§11.1). Moreover :math:`y_{ci}` also appears in the energies of the *other* points (the
:math:`\Omega_{ji}` terms), which eq. (7) omits; with a symmetric Ω the two omissions cancel exactly
(:math:`2\times 1/(2\sigma^2) = 1/\sigma^2`), but KIFE's Ω is not symmetric (:math:`a_i` depends on i).
fsbench uses the exact derivative above, which the tests check against finite differences.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral, Real

import numpy as np
import scipy.linalg
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from fsbench.algorithms.kernel_space import (
    KOBL,
    THRESHOLD_CONSTRAINT,
    KernelSpaceTransformer,
    expansion_residual_norms,
    span_residual_norms,
)
from fsbench.algorithms.kernels import GramCentering, Kernel, sq_distances

# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def _onehot(y: np.ndarray, n_classes: int) -> np.ndarray:
    T = np.zeros((y.size, n_classes))
    T[np.arange(y.size), y] = 1.0
    return T


def _complete_orthonormal(Q: np.ndarray, candidates: np.ndarray, m: int, tol: float = 1e-8) -> np.ndarray:
    """Append to the orthonormal columns of Q the candidate columns, in order, orthonormalised against all
    previous ones (twice-iterated Gram–Schmidt; near-dependent candidates skipped) until Q has m columns."""
    cols = [Q[:, j] for j in range(Q.shape[1])]
    for v in candidates.T:
        if len(cols) >= m:
            break
        v = v.astype(float).copy()
        n0 = float(np.linalg.norm(v))
        if n0 == 0:
            continue
        for _ in range(2):
            for q in cols:
                v -= (q @ v) * q
        nv = float(np.linalg.norm(v))
        if nv > tol * n0:
            cols.append(v / nv)
    if not cols:
        return np.zeros((Q.shape[0], 0))
    return np.column_stack(cols)


def gaussian_pair_energy(Y: np.ndarray, Omega: np.ndarray, sigma: float) -> tuple[float, np.ndarray]:
    r""":math:`E = \sum_{ij}\Omega_{ij}\exp(-\lVert y_i-y_j\rVert^2/(4\sigma^2))` and its exact dE/dY.

    The Gaussian window :math:`G(u, 2\sigma^2 I)` of Liu et al. / Torkkola is an RBF Gram matrix of the
    projections with :math:`\gamma = 1/(4\sigma^2)` (built by :class:`~fsbench.algorithms.kernels.Kernel`).
    """
    s = 4.0 * sigma * sigma
    G = Kernel("rbf", gamma=1.0 / s).gram(Y)
    value = float(np.vdot(Omega, G))
    A = (Omega + Omega.T) * G
    dY = (2.0 / s) * (A @ Y - A.sum(axis=1)[:, None] * Y)
    return value, dY


def median_sigma(Y: np.ndarray, D2: np.ndarray | None = None) -> float:
    r"""[D] σ = 0.5 × the median pairwise distance of the projected points (ALGORITHMS.md §11.3); 1 if 0."""
    if D2 is None:
        D2 = sq_distances(Y)
    n = D2.shape[0]
    if n < 2:
        return 1.0
    med = float(np.median(D2[np.triu_indices(n, k=1)]))
    return 0.5 * float(np.sqrt(med)) if med > 0 else 1.0


def _resolve_sigma(sigma, Y: np.ndarray, D2: np.ndarray | None = None) -> float:
    if isinstance(sigma, str):
        if sigma != "median":
            raise ValueError(f"sigma must be a positive number or 'median', got {sigma!r}")
        return median_sigma(Y, D2)
    if not (isinstance(sigma, Real) and np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a positive number or 'median', got {sigma!r}")
    return float(sigma)


def quadratic_mi_weights(y: np.ndarray, n_classes: int) -> np.ndarray:
    r"""Ω of Torkkola's quadratic MI, :math:`I_T = V_{IN} + V_{ALL} - 2V_{BTW} = \sum_{ij}\Omega_{ij}G_{ij}`.

    With :math:`q_p = J_p/N` and :math:`Q = \sum_p q_p^2` (Liu et al. eqs. 11–14):
    :math:`\Omega_{ij} = ([c_i = c_j] + Q - q_{c_i} - q_{c_j})/N^2`.
    """
    n = y.size
    q = np.bincount(y, minlength=n_classes) / n
    Q = float(q @ q)
    same = (y[:, None] == y[None, :]).astype(float)
    return (same + Q - q[y][:, None] - q[y][None, :]) / (n * n)


def quadratic_mi(Y: np.ndarray, y: np.ndarray, sigma: float, n_classes: int | None = None):
    """Torkkola's quadratic mutual information of projections ``Y`` (N, D) and labels (class indices).

    Returns ``(I_T, dI/dY)``; see :func:`quadratic_mi_weights` and :func:`gaussian_pair_energy`.
    """
    y = np.asarray(y)
    n_classes = int(y.max()) + 1 if n_classes is None else n_classes
    return gaussian_pair_energy(Y, quadratic_mi_weights(y, n_classes), sigma)


def lda_directions(
    X: np.ndarray, y: np.ndarray, n_classes: int, reg: float = 1e-6
) -> tuple[np.ndarray, np.ndarray]:
    r"""Linear discriminant directions: :math:`S_b w = \lambda (S_w + \epsilon I) w`, eigenvalues descending.

    :math:`S_w = \sum_c\sum_{i\in c}(x_i - m_c)(x_i - m_c)^\top`,
    :math:`S_b = \sum_c n_c (m_c - m)(m_c - m)^\top`,
    :math:`\epsilon = \text{reg}\cdot\operatorname{tr}S_w/d` (or reg if :math:`S_w = 0`). Only the first
    min(C−1, d) directions are discriminant. Returns (W (d, d) columns, eigenvalues).
    """
    n, d = X.shape
    T = _onehot(y, n_classes)
    counts = T.sum(axis=0)
    means = (T.T @ X) / np.maximum(counts, 1)[:, None]
    m = X.mean(axis=0)
    Xw = X - means[y]
    Sw = Xw.T @ Xw
    Mb = (means - m) * np.sqrt(counts)[:, None]
    Sb = Mb.T @ Mb
    tr = float(np.trace(Sw))
    eps = reg * tr / d if tr > 0 else reg
    lam, W = scipy.linalg.eigh(Sb, Sw + eps * np.eye(d))
    return W[:, ::-1], lam[::-1]


# ---------------------------------------------------------------------------------------------
# GDA / KDA
# ---------------------------------------------------------------------------------------------


def _backtrack(
    x: np.ndarray,
    g: np.ndarray,
    M: np.ndarray,
    Om,
    sigma: float,
    f: float,
    gn2: float,
    eta: float,
    retract: Callable[[np.ndarray], np.ndarray] | None = None,
    halvings: int = 40,
) -> tuple[np.ndarray, float] | None:
    """Armijo backtracking for an ascent step of the energy of the projection ``M @ x``: the first
    ``x + η g`` (``retract``-ed, e.g. re-orthonormalised; η halved each time) whose energy is at least
    ``f + 1e-4·η·‖g‖²``. Returns ``(point, energy)``, or None if none within ``halvings``."""
    for _ in range(halvings):
        point = x + eta * g if retract is None else retract(x + eta * g)
        value = gaussian_pair_energy(M @ point, Om, sigma)[0]
        if value >= f + 1e-4 * eta * gn2:
            return point, value
        eta *= 0.5
    return None


#: Candidate eigenvalue floors τ for ``eig_tol="cv"`` (fixed in advance; descending, so ties → larger τ).
GDA_EIG_TOL_GRID: tuple[float, ...] = tuple(10.0**-j for j in range(1, 13))
#: τ when no cross-validation fold is possible (a class with a single sample): ALGORITHMS.md §11.2.
GDA_EIG_TOL_FALLBACK = 1e-10


def _descending_eigh(Kc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    gam, P = np.linalg.eigh(Kc)
    return gam[::-1], P[:, ::-1]


def _gda_directions(
    gam: np.ndarray, P: np.ndarray, T: np.ndarray, tol: float, m: int, complete: bool
) -> tuple[np.ndarray, np.ndarray, int]:
    r"""GDA's α (N, ≤ m), λ and the number of λ > 1e-10, from :math:`\tilde K = P\Gamma P^\top` (descending).

    Eigenvalues :math:`\Gamma_{ii} \le \tau\Gamma_{11}` are dropped; the eigenvectors β of
    :math:`P^\top WP = MM^\top` are the left singular vectors of M; the first min(m, C−1) are kept
    (completed to m along the kernel principal axes if ``complete``).
    """
    top = float(gam[0]) if gam.size else 0.0
    keep = gam > tol * top if top > 0 else np.zeros(gam.size, dtype=bool)
    gam, P = gam[keep], P[:, keep]
    n_classes = T.shape[1]
    # a class absent from a CV training fold has an all-zero column: keep it zero, not NaN
    M = P.T @ (T / np.sqrt(np.maximum(T.sum(axis=0), 1.0)))  # P^T W P = M M^T
    U, s, _ = np.linalg.svd(M, full_matrices=False)
    n_disc = int((s * s > 1e-10).sum())
    n_dir = min(max(1, n_classes - 1), U.shape[1])
    beta = U[:, : min(m, n_dir)]
    if complete and m > beta.shape[1]:
        beta = _complete_orthonormal(beta, np.eye(gam.size), min(m, gam.size))
    lam = np.einsum("ij,ij->j", M.T @ beta, M.T @ beta) if beta.size else np.zeros(beta.shape[1])
    alpha = P @ (beta / gam[:, None])
    norm2 = np.einsum("ij,ij->j", beta, beta / gam[:, None])
    return alpha / np.sqrt(norm2), lam, n_disc


def _select_gda_eig_tol(
    K: np.ndarray, y: np.ndarray, n_classes: int, m: int, complete: bool, allowed: np.ndarray | None = None
) -> tuple[float, np.ndarray | None]:
    """τ of :data:`GDA_EIG_TOL_GRID` with the best stratified-CV 1-NN accuracy on the training data only.

    Each fold's GDA is fitted on the fold's training part (its own centring and eigendecomposition); the
    validation part is projected with those statistics. ``allowed`` masks the grid (NaN score for the
    others). Returns (τ, mean accuracy per grid value).
    """
    n_splits = min(3, int(np.bincount(y, minlength=n_classes).min()))
    if n_splits < 2:
        return GDA_EIG_TOL_FALLBACK, None
    if allowed is None:
        allowed = np.ones(len(GDA_EIG_TOL_GRID), dtype=bool)
    scores = np.zeros(len(GDA_EIG_TOL_GRID))
    folds = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=0)
    for tr, va in folds.split(np.zeros((y.size, 1)), y):
        Ktr = K[np.ix_(tr, tr)]
        cent = GramCentering.from_gram(Ktr)
        Kc = cent.center(Ktr)
        Kc = 0.5 * (Kc + Kc.T)
        Kva = cent.center(K[np.ix_(va, tr)])
        gam, P = _descending_eigh(Kc)
        T = _onehot(y[tr], n_classes)
        for j, tol in enumerate(GDA_EIG_TOL_GRID):
            if not allowed[j]:
                continue
            alpha = _gda_directions(gam, P, T, tol, m, complete)[0]
            scores[j] += _nn1_accuracy(Kc @ alpha, y[tr], Kva @ alpha, y[va]) * va.size
    scores = np.where(allowed, scores / y.size, np.nan)
    # nanargmax returns the first maximum: the grid is descending, so ties go to the larger τ
    return float(GDA_EIG_TOL_GRID[int(np.nanargmax(scores))]), scores


#: scikit-learn constraints shared by the discriminant transformers.
_EIG_TOL = [Interval(Real, 0, 1, closed="neither"), StrOptions({"cv"})]
_SIGMA = [Interval(Real, 0, np.inf, closed="neither"), StrOptions({"median"})]
_ASCENT = {
    "max_iter": [Interval(Integral, 0, None, closed="left")],
    "step_size": [Interval(Real, 0, np.inf, closed="neither")],
    "tol": [Interval(Real, 0, None, closed="left")],
}


class GDA(KernelSpaceTransformer):
    r"""Generalized Discriminant Analysis (Baudat & Anouar 2000): kernel LDA on the centred feature space.

    Generalised eigenproblem :math:`\lambda\,\tilde K\tilde K\alpha = \tilde K W\tilde K\alpha` (module
    docstring), solved through :math:`\tilde K = P\Gamma P^\top` restricted to the eigenvalues
    :math:`\Gamma_{ii} > \tau\,\Gamma_{11}` ([R] Baudat & Anouar drop the null space of
    :math:`\tilde K`; ALGORITHMS.md §11.2). λ is the ratio of between-class to total inertia (∈ [0, 1]).

    **Output dimension.** C−1 directions by default: the between-class inertia of C class means has rank
    at most C−1, and Liu et al. 2011 (§IV, the KIFE paper that uses GDA as a baseline) note that GDA's
    "dimension reduction number is controlled by the number of classes". All C−1 leading eigenvectors are
    returned, including any whose λ is numerically zero (``n_discriminant_`` counts those with
    λ > 1e-10).

    **Eigenvalue floor τ** (the only regularisation). Without a floor (τ at round-off level) the whitened
    space has ~N dimensions and GDA collapses every training class onto a point (λ = 1), which generalises
    poorly and leaves KIFE started from it with a zero gradient; the appropriate τ depends on the data and
    the kernel. Public implementations fix it to a constant (STPRtool ``gda.m``: 1e-3; van der Maaten's
    drtoolbox ``gda.m``: 1e-5). Default [D] ``eig_tol="cv"``: τ is chosen **inside the training data
    only**, by stratified 3-fold cross-validation (shuffled with seed 0; fewer folds if a class has fewer
    than 3 samples) of the 1-NN accuracy of the projection, over the grid :data:`GDA_EIG_TOL_GRID` =
    :math:`10^{-1},\dots,10^{-12}` fixed in advance; ties go to the larger τ (the more regularised). The
    kernel parameters are those resolved on the whole training set. With ``complete=True`` only the τ
    that keep at least m eigenvalues of the full training :math:`\tilde K` are candidates, so that the
    requested m directions can be delivered (KDA at KOBL's Dim). With a class of a single sample no fold is
    possible and τ = :data:`GDA_EIG_TOL_FALLBACK` (1e-10, ALGORITHMS.md §11.2). A number fixes τ.
    The selection costs one eigendecomposition per fold, about (1 + 3·(2/3)³) ≈ 1.9 times the O(N³) of a
    fixed τ; fit times (e.g. a timing table) include it.
    Projection of x: :math:`\sum_i \alpha_i\tilde k(x_i, x)` with the test kernel centred by the training
    statistics (:class:`~fsbench.algorithms.kernels.GramCentering`). O(N³).

    Parameters
    ----------
    kernel : {"rbf", "linear", "poly"}, default "rbf"
        RBF with the median rule [D ALGORITHMS.md §11.4: the kernel of Liu et al. is not stated].
    gamma, degree, offset, scale
        Kernel parameters (see :class:`~fsbench.algorithms.kernel_space.KOBL`).
    n_components : int or None, default None
        None: C−1 directions (see above). A larger int is capped at C−1 (and at the number of kept
        eigenvalues) unless ``complete``.
    eig_tol : "cv" or float, default "cv"
        Relative floor τ on the eigenvalues of :math:`\tilde K`: "cv" selects it by cross-validation
        within the training data (see above); a float in (0, 1) fixes it.
    complete : bool, default False
        If more directions are asked than there are discriminant ones, complete them with λ = 0 directions
        [D]: the kernel principal axes (by decreasing eigenvalue of :math:`\tilde K`, i.e. unit vectors of
        the whitened β-space) orthogonalised against the previous directions. Used by :class:`KDA` and by
        KIFE's initialisation when D > C−1.

    Attributes
    ----------
    dual_coef_ : (N, m) α, normalised :math:`\alpha^\top\tilde K\alpha = 1`.
    eigenvalues_ : (m,) λ (Rayleigh quotients; 0 for completed directions).
    n_discriminant_ : int — directions with λ > 1e-10.
    eig_tol_ : float — the τ used; eig_tol_scores_ : (len(grid),) mean validation 1-NN accuracy per grid
    value (None when τ is fixed or no fold is possible).
    n_components_, embedding_ (N, m) = :math:`\tilde K\alpha`, centering_, X_fit_, kernel_,
    residual_norms_, reconstruction_cost_ (eq. 19 of Xu et al. for the non-orthogonal basis
    :math:`v_j = \sum_i\alpha_{ij}\tilde\phi(x_i)`, on the uncentred φ, as in their Table 2).
    """

    description = "GDA: generalized (kernel) discriminant analysis, C-1 directions"
    citation = "Baudat & Anouar 2000, Neural Comput. 12:2385-2404"
    _supervised = True

    _parameter_constraints: dict = {
        **KernelSpaceTransformer._parameter_constraints,
        "eig_tol": _EIG_TOL,
        "complete": ["boolean"],
    }

    def __init__(
        self,
        kernel: str = "rbf",
        gamma: float | str = "median",
        degree: float = 3,
        offset: float = 1.0,
        scale: float = 1.0,
        n_components: int | None = None,
        eig_tol: float | str = "cv",
        complete: bool = False,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.offset = offset
        self.scale = scale
        self.n_components = n_components
        self.eig_tol = eig_tol
        self.complete = complete

    def _requested(self, X: np.ndarray) -> int | None:
        return self.n_components

    def _fit(self, X: np.ndarray, y: np.ndarray | None) -> None:
        kern = self._kernel(X)
        K = kern.gram(X)
        n_classes = self.classes_.size
        req = self._requested(X)
        # "controlled by the number of classes": C-1 directions unless asked otherwise
        m = max(1, n_classes - 1) if req is None else int(req)
        cent = GramCentering.from_gram(K)
        Kc = cent.center(K)
        Kc = 0.5 * (Kc + Kc.T)
        gam, P = _descending_eigh(Kc)
        if self.eig_tol == "cv":
            grid = np.asarray(GDA_EIG_TOL_GRID)
            allowed = np.ones(grid.size, dtype=bool)
            if self.complete and gam.size and gam[0] > 0:
                # completion needs m kept eigenvalues: only the τ that keep them can deliver m directions
                kept = (gam[None, :] > grid[:, None] * gam[0]).sum(axis=1)
                allowed = kept >= min(m, int((gam > 0).sum()))
                if not allowed.any():
                    allowed[-1] = True
            tol, scores = _select_gda_eig_tol(K, y, n_classes, m, bool(self.complete), allowed)
        else:
            tol, scores = float(self.eig_tol), None
        alpha, lam, n_disc = _gda_directions(gam, P, _onehot(y, n_classes), tol, m, bool(self.complete))
        self.eig_tol_ = tol
        self.eig_tol_scores_ = scores
        self.kernel_ = kern
        self.X_fit_ = X.copy()
        self.centering_ = cent
        self.dual_coef_ = alpha
        self.eigenvalues_ = lam
        self.n_discriminant_ = n_disc
        self.n_components_ = int(alpha.shape[1])
        self.embedding_ = Kc @ alpha
        self.residual_norms_ = self._residuals(np.diag(K), self.embedding_)
        self.reconstruction_cost_ = float(self.residual_norms_.mean())

    def _transform(self, X: np.ndarray) -> np.ndarray:
        return self.centering_.center(self.kernel_.gram(X, self.X_fit_)) @ self.dual_coef_

    def _residuals(self, kxx: np.ndarray, Z: np.ndarray, formula: str = "span") -> np.ndarray:
        c = self.centering_
        T = Z + (c.col_means - c.grand_mean) @ self.dual_coef_  # <v_j, φ(x)> with the uncentred φ(x)
        gram = self.dual_coef_.T @ self.embedding_  # <v_i, v_j> = α_iᵀ K̃ α_j
        gram = 0.5 * (gram + gram.T)
        if formula == "expansion":
            return expansion_residual_norms(kxx, T, gram)
        return span_residual_norms(kxx, T, gram)

    def reconstruction_cost(self, X=None, formula: str = "span") -> float:
        r"""Average residual norm of :math:`\phi(x)` (eq. 19 of Xu et al.; training set if ``X`` is None).

        ``formula="span"`` (default): the distance to the span of the directions (eq. 19, first line);
        ``"expansion"``: :math:`\lVert\phi - \sum_j\langle v_j,\phi\rangle v_j\rVert` (eq. 19, second line,
        which equals the first only for an orthonormal basis;
        :func:`~fsbench.algorithms.kernel_space.expansion_residual_norms`).
        """
        check_is_fitted(self, "embedding_")
        if formula not in ("span", "expansion"):
            raise ValueError(f"formula must be 'span' or 'expansion', got {formula!r}")
        if X is None:
            if formula == "span":
                return self.reconstruction_cost_
            kxx = self.kernel_.diag(self.X_fit_)
            return float(self._residuals(kxx, self.embedding_, formula).mean())
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return float(self._residuals(self.kernel_.diag(X), self._transform(X), formula).mean())


class KDA(GDA):
    r"""KDA baseline of Xu et al. 2011: GDA with the target dimension set to KOBL's Dim.

    Xu et al. give KDA "the same dimensionality as learned by KOBL" (§4.1, Table 2). A discriminant analysis
    has at most C−1 directions with non-zero between-class inertia, so by default (``complete=False``) the
    output is capped at C−1: ``n_components_requested_`` records KOBL's Dim, ``n_components_`` what is
    output. With ``complete=True`` the remaining Dim − (C−1) directions are zero-eigenvalue directions
    completed along the kernel principal axes (see :class:`GDA`), which is what a reconstruction-cost table
    at Dim needs. Formulation: GDA's generalised eigenproblem (the paper cites Mika et al.'s binary KFD; GDA
    is its multiclass form).

    Parameters
    ----------
    n_components : "kobl", int or None, default "kobl"
        "kobl": KOBL's adaptive Dim on the same training data and kernel (threshold ``f``).
    f : str or callable, default "linear"
        KOBL's threshold function when ``n_components="kobl"``.
    Other parameters as :class:`GDA`.
    """

    description = "KDA: kernel discriminant analysis with KOBL's dimension (capped at C-1 unless completed)"
    citation = "Xu, Shen, Ping & Zhao 2011, CIKM §4 (KDA baseline); Baudat & Anouar 2000"

    _parameter_constraints: dict = {
        **GDA._parameter_constraints,
        "n_components": [Interval(Integral, 1, None, closed="left"), StrOptions({"kobl"}), None],
        "f": THRESHOLD_CONSTRAINT,
    }

    def __init__(
        self,
        kernel: str = "rbf",
        gamma: float | str = "median",
        degree: float = 3,
        offset: float = 1.0,
        scale: float = 1.0,
        n_components: int | str | None = "kobl",
        eig_tol: float | str = "cv",
        complete: bool = False,
        f: str | Callable[[float], float] = "linear",
    ):
        super().__init__(
            kernel=kernel,
            gamma=gamma,
            degree=degree,
            offset=offset,
            scale=scale,
            n_components=n_components,
            eig_tol=eig_tol,
            complete=complete,
        )
        self.f = f

    def _requested(self, X: np.ndarray) -> int | None:
        if self.n_components == "kobl":
            kobl = KOBL(
                kernel=self.kernel,
                gamma=self.gamma,
                degree=self.degree,
                offset=self.offset,
                scale=self.scale,
                f=self.f,
            ).fit(X)
            self.n_components_requested_ = int(max(1, kobl.n_components_))
        else:
            self.n_components_requested_ = self.n_components
        return self.n_components_requested_


# ---------------------------------------------------------------------------------------------
# KIFE
# ---------------------------------------------------------------------------------------------
def kife_weights(
    y: np.ndarray, n_classes: int, neighbors: np.ndarray, n_neighbors: int, counts: str = "local"
) -> np.ndarray:
    r"""Ω of KIFE's objective (Liu et al. eqs. 2–6) for a fixed neighbourhood mask.

    :math:`E(B) = \frac1N\sum_i [a_i E_c(y_i) - (1-a_i)E_{p\ne c}(y_i)]` with
    :math:`E_c(y_i) = \frac1N\sum_{j\in\mathcal N_i, c_j = c_i} G_{ij}` and
    :math:`E_{p\ne c}(y_i) = \frac1N\sum_{j\in\mathcal N_i, c_j\ne c_i} G_{ij}`, so
    :math:`\Omega_{ij} = [j\in\mathcal N_i]\,(a_i \text{ if } c_j = c_i \text{ else } -(1-a_i))/N^2`.
    :math:`\mathcal N_i` = i itself and its k nearest neighbours (``neighbors[i]``, boolean row);
    :math:`a_i = (1 - J_{c_i}/(k+1))^2 + \sum_{p\ne c_i}(J_p/(k+1))^2`, where J counts

    * ``"local"`` [D]: the members of each class in :math:`\mathcal N_i` (k+1 points);
    * ``"global"``: the class sizes in the training set (the literal reading of the paper).

    With k = N−1 both readings coincide and :math:`E = V_{IN} + V_{ALL} - 2V_{BTW}` (Theorem 1, checked by the
    tests). With k ≪ class size the global reading gives :math:`a \gg 1`: both energies get large *positive*
    weights (:math:`a E_c + (a-1) E_{p\ne c}`), which rewards collapsing every neighbourhood regardless of
    class — hence the local default, which keeps :math:`a_i \le 2` and is a local quadratic MI.
    """
    n = y.size
    k1 = min(int(n_neighbors), n - 1) + 1
    T = _onehot(y, n_classes)
    if counts == "local":
        J = neighbors.astype(float) @ T  # (N, C) class counts in each neighbourhood, self included
    elif counts == "global":
        J = np.broadcast_to(T.sum(axis=0), (n, n_classes))
    else:
        raise ValueError(f"counts must be 'local' or 'global', got {counts!r}")
    q = J / k1
    qc = q[np.arange(n), y]
    a = (1.0 - qc) ** 2 + (q * q).sum(axis=1) - qc * qc
    same = y[:, None] == y[None, :]
    Om = np.where(same, a[:, None], -(1.0 - a)[:, None])
    return np.where(neighbors, Om, 0.0) / (n * n)


def neighborhood_mask(Y: np.ndarray, n_neighbors: int, D2: np.ndarray | None = None) -> np.ndarray:
    """Boolean (N, N): row i marks i and its ``n_neighbors`` nearest other points (Euclidean, in Y)."""
    n = Y.shape[0]
    k = min(int(n_neighbors), n - 1)
    if k >= n - 1:
        return np.ones((n, n), dtype=bool)
    if D2 is None:
        D2 = sq_distances(Y)
    D2 = D2.copy()
    np.fill_diagonal(D2, np.inf)
    idx = np.argpartition(D2, k - 1, axis=1)[:, :k] if k > 0 else np.zeros((n, 0), dtype=int)
    mask = np.zeros((n, n), dtype=bool)
    mask[np.arange(n)[:, None], idx] = True
    np.fill_diagonal(mask, True)
    return mask


def _nn1_accuracy(Ytr: np.ndarray, ytr: np.ndarray, Yva: np.ndarray, yva: np.ndarray) -> float:
    D2 = sq_distances(Yva, Ytr)
    return float(np.mean(ytr[np.argmin(D2, axis=1)] == yva))


class KIFE(KernelSpaceTransformer):
    r"""Kernel-based Informative Feature Extraction (Liu, Liu, Ding & Zhang 2011), gradient ascent on B.

    Projections :math:`Y = KB` (uncentred training Gram matrix K, B: N×D), objective :func:`kife_weights` /
    :func:`gaussian_pair_energy` with the exact gradient
    :math:`\partial E/\partial B = K\,\partial E/\partial Y` (module docstring: fix of the paper's
    eqs. 8–9). Test points: :math:`k(x, X_{train})B`.

    Ascent [D, ALGORITHMS.md §11.1, adapted]: at every step the neighbourhoods (k nearest neighbours in the
    current projection), the :math:`a_i` and σ are recomputed from the current Y and then held fixed while
    the step is chosen (a surrogate valid near Y). The first trial step is a trust region in the projected
    space, :math:`\lVert K\eta g\rVert_F = \text{step\_size}\cdot\lVert Y - \bar Y\rVert_F` (scale-free in B,
    unlike the spec's :math:`\eta = 0.1/\lVert g\rVert_F`: B from GDA is dominated by the whitened
    small-eigenvalue directions), then Armijo backtracking (halving, sufficient increase
    :math:`10^{-4}\eta\lVert g\rVert^2`). The trial is *not* grown from step to step: on a 200-point
    synthetic problem (two classes by radius in 2 of 4 dimensions; test 1-NN accuracy 0.85 at the GDA start)
    doubling it made the surrogate ascent wander down to 0.63 after 100 steps; with the fixed trust region
    0.87 after 30 steps, 0.85 after 100, 0.88 with the validated step count. Stops after ``max_iter``
    steps, when backtracking fails (e.g. zero gradient: every neighbourhood pure — also the case when GDA
    already collapses each training class, so KIFE then returns its GDA start), or when the relative
    increase of a step falls below ``tol``.

    Number of steps [V: "by cross-validation"; D]: with ``validation_fraction`` a stratified split of the
    training data is held out, the ascent runs on the rest, and the number of steps t* with the best 1-NN
    validation accuracy (ties: the later step) is kept; the ascent stops ``n_iter_no_change`` steps after the
    last strict improvement. The model is then refitted on all training data with t* steps. Without
    validation (or when a class has fewer than 2 samples) the ascent runs to ``max_iter``/convergence.

    Parameters
    ----------
    kernel : default "rbf"; gamma : default "median"; degree, offset, scale
        [D §11.4: the paper does not state its kernel].
    n_components : int or None, default None
        D, the output dimension; None = C−1 (at least 1) [D] (the paper uses D ≤ C−1 everywhere).
    n_neighbors : int, default 5
        k of the neighbourhoods [V: k = 5 chosen from {3, 5, 7, 9, 11}]; ≥ N−1 means all points (MI).
    counts : {"local", "global"}, default "local"
        How :math:`J_p` in :math:`a_c` is counted, see :func:`kife_weights` [D].
    sigma : float or "median", default "median"
        Width in :math:`G(u, 2\sigma^2 I)`; "median" = 0.5 × median pairwise distance of the current
        projections, recomputed every step [D: Torkkola's rule was not re-read].
    init : {"gda", "lda"}, default "gda"
        [V] GDA initialisation: :math:`B_0 = \alpha - \bar\alpha` (GDA's centred-kernel projection up to a
        constant shift; completed as in :class:`GDA` when D > C−1). "lda": B₀ solves the kernel ridge
        regression :math:`(K + \lambda I)B_0 = XW_{LDA}` (centred), λ = 1e-3·tr K/N [D].
    eig_tol : "cv" or float, default "cv" — GDA's eigenvalue floor for the initialisation (see :class:`GDA`).
    max_iter : int, default 100
    step_size : float, default 0.1
    tol : float, default 1e-6
    validation_fraction : float or None, default 0.2
    n_iter_no_change : int, default 10
    random_state : int or None, default 0 — the validation split.

    Attributes
    ----------
    dual_coef_ : (N, D) B; X_fit_; kernel_; K_ (N, N) training Gram matrix (for :meth:`objective`);
    embedding_ (N, D) = K B; sigma_ (σ of the last step); objective_ (E at the end, with sigma_);
    history_ (objective per step, each with that step's σ and neighbourhoods);
    n_iter_ (ascent iterations started, validation phase included, ≥ 1 if max_iter ≥ 1); n_steps_ (steps
    accepted in the final fit); best_iter_ (t*, None without validation);
    validation_scores_ (1-NN validation accuracy per step, t = 0 first); converged_; n_components_.
    """

    description = (
        "KIFE: kernel informative-energy projection Y = KB by gradient ascent (GDA init, k-NN energy)"
    )
    citation = (
        "Liu, Liu, Ding & Zhang 2011, Kernel-based informative feature extraction via gradient learning"
    )
    _supervised = True
    _parameter_constraints: dict = {
        **KernelSpaceTransformer._parameter_constraints,
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "counts": [StrOptions({"local", "global"})],
        "init": [StrOptions({"gda", "lda"})],
        **_ASCENT,
        "sigma": _SIGMA,
        "eig_tol": _EIG_TOL,
        "validation_fraction": [Interval(Real, 0, 1, closed="neither"), None],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        kernel: str = "rbf",
        gamma: float | str = "median",
        degree: float = 3,
        offset: float = 1.0,
        scale: float = 1.0,
        n_components: int | None = None,
        n_neighbors: int = 5,
        counts: str = "local",
        sigma: float | str = "median",
        init: str = "gda",
        eig_tol: float | str = "cv",
        max_iter: int = 100,
        step_size: float = 0.1,
        tol: float = 1e-6,
        validation_fraction: float | None = 0.2,
        n_iter_no_change: int = 10,
        random_state: int | None = 0,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.offset = offset
        self.scale = scale
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.counts = counts
        self.sigma = sigma
        self.init = init
        self.eig_tol = eig_tol
        self.max_iter = max_iter
        self.step_size = step_size
        self.tol = tol
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state

    # -- objective -------------------------------------------------------------------------------
    def neighborhood(self, B: np.ndarray, K: np.ndarray | None = None) -> np.ndarray:
        """The neighbourhood mask of the projection KB (fitted K by default)."""
        K = self.K_ if K is None else K
        return neighborhood_mask(K @ B, self.n_neighbors)

    def _energy(self, K, y, B, sigma, neighbors):
        Y = K @ B
        D2 = sq_distances(Y)
        if neighbors is None:
            neighbors = neighborhood_mask(Y, self.n_neighbors, D2)
        s = _resolve_sigma(self.sigma_ if sigma is None else sigma, Y, D2)
        Om = kife_weights(y, self.classes_.size, neighbors, self.n_neighbors, self.counts)
        f, dY = gaussian_pair_energy(Y, Om, s)
        return f, K @ dY

    def objective(
        self, B: np.ndarray, sigma: float | None = None, neighbors: np.ndarray | None = None
    ) -> float:
        """E(B) on the training data, with σ = ``sigma_`` and the neighbourhoods of KB unless given."""
        check_is_fitted(self, "K_")
        return self._energy(self.K_, self._y, np.asarray(B, dtype=float), sigma, neighbors)[0]

    def gradient(
        self, B: np.ndarray, sigma: float | None = None, neighbors: np.ndarray | None = None
    ) -> np.ndarray:
        """Exact ∂E/∂B (N, D) at fixed σ and neighbourhoods (see :meth:`objective`)."""
        check_is_fitted(self, "K_")
        return self._energy(self.K_, self._y, np.asarray(B, dtype=float), sigma, neighbors)[1]

    # -- fitting ---------------------------------------------------------------------------------
    def _init_B(self, X: np.ndarray, y: np.ndarray, K: np.ndarray, D: int) -> np.ndarray:
        if self.init == "gda":
            est = GDA(
                kernel=self.kernel_,
                n_components=D,
                eig_tol=self.eig_tol,
                complete=True,
            )
            est.classes_ = np.arange(self.classes_.size)
            est._fit(X, y)
            B = est.dual_coef_
            B = B - B.mean(axis=0)
        else:
            W = _linear_init(X, y, self.classes_.size, D)
            target = X @ W
            target -= target.mean(axis=0)
            lam = 1e-3 * float(np.trace(K)) / K.shape[0]
            B = scipy.linalg.solve(K + lam * np.eye(K.shape[0]), target, assume_a="pos")
        if B.shape[1] < D:  # rank-deficient data: pad with zero columns (constant projections)
            B = np.hstack([B, np.zeros((B.shape[0], D - B.shape[1]))])
        return B

    def _ascend(self, K, y, B, n_steps, monitor=None):
        """Run at most ``n_steps`` ascent steps; ``monitor(B, t)`` returns False to stop early."""
        history: list[float] = []
        steps = iters = 0
        converged = False
        sigma = None
        for _ in range(n_steps):
            iters += 1
            Y = K @ B
            D2 = sq_distances(Y)
            nb = neighborhood_mask(Y, self.n_neighbors, D2)
            sigma = _resolve_sigma(self.sigma, Y, D2)
            Om = kife_weights(y, self.classes_.size, nb, self.n_neighbors, self.counts)
            f, dY = gaussian_pair_energy(Y, Om, sigma)
            g = K @ dY
            gn2 = float(np.vdot(g, g))
            if not np.isfinite(gn2) or gn2 <= 0:
                converged = True
                break
            # First trial (a trust region): move the projections by step_size × their spread, scale-free in B.
            # Not grown from the previous step: the neighbourhoods and σ frozen within a step are a valid
            # surrogate only locally (growing steps were measured to wreck the 1-NN accuracy).
            Kg = float(np.linalg.norm(K @ g))
            spread = float(np.linalg.norm(Y - Y.mean(axis=0)))
            eta = self.step_size * spread / Kg if Kg > 0 and spread > 0 else 1.0 / np.sqrt(gn2)
            step = _backtrack(B, g, K, Om, sigma, f, gn2, eta)
            if step is None:  # no sufficient increase within 40 halvings: a stationary point
                converged = True
                break
            B, fn = step
            steps += 1
            history.append(fn)
            if (fn - f) <= self.tol * max(abs(f), 1e-300):
                converged = True
                break
            if monitor is not None and not monitor(B, steps):
                break
        return B, steps, iters, history, converged, sigma

    def _fit(self, X: np.ndarray, y: np.ndarray | None) -> None:
        n_classes = self.classes_.size
        D = max(1, n_classes - 1) if self.n_components is None else int(self.n_components)
        kern = self._kernel(X)
        self.kernel_ = kern
        K = kern.gram(X)
        counts = np.bincount(y, minlength=n_classes)
        use_val = self.validation_fraction is not None and self.max_iter > 0 and counts.min() >= 2
        n_val = int(np.ceil(self.validation_fraction * y.size)) if use_val else 0
        if use_val and (n_val < n_classes or y.size - n_val < n_classes):
            use_val = False
        total_iters = 0
        self.best_iter_ = None
        self.validation_scores_ = None
        if use_val:
            tr, va = train_test_split(
                np.arange(y.size), test_size=n_val, stratify=y, random_state=self.random_state
            )
            Ktr, Kva = K[np.ix_(tr, tr)], K[np.ix_(va, tr)]
            B0 = self._init_B(X[tr], y[tr], Ktr, D)
            scores = [_nn1_accuracy(Ktr @ B0, y[tr], Kva @ B0, y[va])]
            state = {"best": scores[0], "best_t": 0, "since": 0}

            def monitor(B, t):
                acc = _nn1_accuracy(Ktr @ B, y[tr], Kva @ B, y[va])
                scores.append(acc)
                if acc > state["best"]:
                    state.update(best=acc, best_t=t, since=0)
                else:
                    if acc == state["best"]:
                        state["best_t"] = t
                    state["since"] += 1
                return state["since"] < self.n_iter_no_change

            _, _, iters, _, _, _ = self._ascend(Ktr, y[tr], B0, self.max_iter, monitor)
            total_iters += iters
            self.best_iter_ = int(state["best_t"])
            self.validation_scores_ = np.asarray(scores)
            n_final = self.best_iter_
        else:
            n_final = self.max_iter
        B0 = self._init_B(X, y, K, D)
        B, steps, iters, history, converged, sigma = self._ascend(K, y, B0, n_final)
        total_iters += iters
        Y = K @ B
        self.sigma_ = sigma if sigma is not None else _resolve_sigma(self.sigma, Y)
        self.X_fit_ = X.copy()
        self.K_ = K
        self._y = y
        self.dual_coef_ = B
        self.embedding_ = Y
        self.n_components_ = int(B.shape[1])
        self.history_ = np.asarray(history)
        self.n_iter_ = int(total_iters)
        self.n_steps_ = int(steps)
        self.converged_ = bool(converged or use_val)
        self.objective_ = float(self.objective(B))

    def _transform(self, X: np.ndarray) -> np.ndarray:
        return self.kernel_.gram(X, self.X_fit_) @ self.dual_coef_


# ---------------------------------------------------------------------------------------------
# MMI (Torkkola 2003)
# ---------------------------------------------------------------------------------------------
def _orthonormalize(W: np.ndarray) -> np.ndarray:
    r"""Polar factor :math:`W(W^\top W)^{-1/2} = UV^\top` (W = USVᵀ): the nearest orthonormal matrix."""
    U, _, Vt = np.linalg.svd(W, full_matrices=False)
    return U @ Vt


def _linear_init(X: np.ndarray, y: np.ndarray, n_classes: int, D: int) -> np.ndarray:
    """[D] Orthonormal d×D start: the min(D, C−1) LDA directions, then the principal axes (Gram–Schmidt in
    that order; dependent candidates skipped)."""
    d = X.shape[1]
    W_lda, _ = lda_directions(X, y, n_classes)
    n_lda = min(D, n_classes - 1, d)
    Xc = X - X.mean(axis=0)
    _, _, Vt = np.linalg.svd(Xc, full_matrices=False)
    cand = np.hstack([W_lda[:, :n_lda], Vt.T, np.eye(d)])
    W = _complete_orthonormal(np.zeros((d, 0)), cand, min(D, d))
    return W


class MMI(KernelSpaceTransformer):
    r"""Maximum quadratic mutual information linear projection (Torkkola 2003), as the KIFE baseline.

    Maximises :math:`I_T(W) = V_{IN} + V_{ALL} - 2V_{BTW}` of :math:`Y = XW` (:func:`quadratic_mi`) by
    gradient ascent over W with :math:`W^\top W = I`: step
    :math:`W \leftarrow \operatorname{orth}(W + \eta\,X^\top\partial I/\partial Y)` with the polar
    re-orthonormalisation :math:`W(W^\top W)^{-1/2}` [R], Armijo
    backtracking (as :class:`KIFE`; sufficient increase measured with the gradient's component tangent to
    the orthonormality constraint), σ = 0.5 × median pairwise distance of the projections, recomputed every
    step [D §11.3]. Initialised with LDA [V: Liu et al. "LDA is used as an initial state of MMI"]
    (:func:`lda_directions`, then principal axes when D > C−1, orthonormalised). No kernel: a linear method.

    Parameters
    ----------
    n_components : int or None, default None
        D; None = C−1 (at least 1) [D].
    sigma : float or "median", default "median"
    max_iter : int, default 100
    step_size : float, default 0.1
        First trial step :math:`\lVert\eta g\rVert_F` = step_size (W has unit-norm columns).
    tol : float, default 1e-6
        Stop when a step increases :math:`I_T` by less than tol (relative).

    Attributes
    ----------
    components_ : (D, d) = Wᵀ; embedding_ (N, D) = XW; sigma_; objective_ (I_T at sigma_); history_;
    n_iter_ (iterations started); n_steps_ (steps accepted); converged_; n_components_; X_fit_ (kept for
    :meth:`objective`).
    """

    description = "MMI: linear projection maximising Torkkola's quadratic mutual information (LDA init)"
    citation = "Torkkola 2003, JMLR 3:1415-1438"
    _supervised = True
    #: A linear method without a ``kernel`` parameter: it never inherits the experiment's kernel.
    supported_kernels: tuple[str, ...] = ()

    # a linear method: no kernel parameters
    _parameter_constraints: dict = {
        "n_components": KernelSpaceTransformer._parameter_constraints["n_components"],
        **_ASCENT,
        "sigma": _SIGMA,
    }

    def __init__(
        self,
        n_components: int | None = None,
        sigma: float | str = "median",
        max_iter: int = 100,
        step_size: float = 0.1,
        tol: float = 1e-6,
    ):
        self.n_components = n_components
        self.sigma = sigma
        self.max_iter = max_iter
        self.step_size = step_size
        self.tol = tol

    def objective(self, W: np.ndarray, sigma: float | None = None) -> float:
        """:math:`I_T(XW)` on the training data at σ = ``sigma_`` unless given (W not re-orthonormalised)."""
        check_is_fitted(self, "components_")
        s = self.sigma_ if sigma is None else sigma
        return quadratic_mi(self.X_fit_ @ W, self._y, s, self.classes_.size)[0]

    def gradient(self, W: np.ndarray, sigma: float | None = None) -> np.ndarray:
        """Exact :math:`\\partial I_T/\\partial W = X^\\top\\partial I_T/\\partial Y` (d, D) at fixed σ."""
        check_is_fitted(self, "components_")
        s = self.sigma_ if sigma is None else sigma
        return self.X_fit_.T @ quadratic_mi(self.X_fit_ @ W, self._y, s, self.classes_.size)[1]

    def _fit(self, X: np.ndarray, y: np.ndarray | None) -> None:
        n_classes = self.classes_.size
        D = max(1, n_classes - 1) if self.n_components is None else int(self.n_components)
        W = _linear_init(X, y, n_classes, D)
        Om = quadratic_mi_weights(y, n_classes)
        history: list[float] = []
        steps = iters = 0
        converged = False
        sigma = _resolve_sigma(self.sigma, X @ W)
        for _ in range(self.max_iter):
            iters += 1
            Y = X @ W
            sigma = _resolve_sigma(self.sigma, Y)
            f, dY = gaussian_pair_energy(Y, Om, sigma)
            g = X.T @ dY
            gt = g - W @ (0.5 * (W.T @ g + g.T @ W))  # tangent part (Stiefel manifold)
            gn2 = float(np.vdot(gt, gt))
            if not np.isfinite(gn2) or gn2 <= 1e-300:
                converged = True
                break
            eta = self.step_size / np.sqrt(float(np.vdot(g, g)))  # trust region: ‖ηg‖ = step_size
            step = _backtrack(W, g, X, Om, sigma, f, gn2, eta, retract=_orthonormalize)
            if step is None:
                converged = True
                break
            W, fn = step
            steps += 1
            history.append(fn)
            if (fn - f) <= self.tol * max(abs(f), 1e-300):
                converged = True
                break
        self.X_fit_ = X.copy()
        self._y = y
        self.sigma_ = float(sigma)
        self.components_ = W.T
        self.embedding_ = X @ W
        self.n_components_ = int(W.shape[1])
        self.history_ = np.asarray(history)
        self.n_iter_ = int(iters)
        self.n_steps_ = int(steps)
        self.converged_ = bool(converged)
        self.objective_ = float(self.objective(W))

    def _transform(self, X: np.ndarray) -> np.ndarray:
        return X @ self.components_.T
