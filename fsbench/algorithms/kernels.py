r"""Kernels, scaled kernels and their scale-factor derivatives — written once, used everywhere.

Every kernel-based selector and the evaluation protocol build their Gram matrices here.
A *scaled kernel* (Ramona et al. 2012, §III-B) applies per-feature scale factors ``w`` before
the base kernel,

.. math:: k_w(x, z) = k(w \circ x, w \circ z),

and the selectors that optimise ``w`` (SAS, SCSS, SFS, R2W2, ...) need, for a weight matrix
:math:`M` (N×N), the contraction of the feature-wise derivative matrices with :math:`M`,

.. math:: g_d = \sum_{ij} M_{ij}\, \partial K_{w,ij} / \partial w_d ,\qquad d = 1..D.

:meth:`Kernel.scale_gradient` computes all :math:`g_d` with one N×N×D matrix product instead
of D separate N×N derivative matrices:

* linear, :math:`k_w = \sum_d w_d^2 x_d z_d`:
  :math:`g_d = 2 w_d\, x_d^\top M x_d`;
* RBF, :math:`k_w = \exp(-\gamma \sum_d w_d^2 (x_d - z_d)^2)`, with :math:`P = M \circ K_w`:
  :math:`g_d = -2\gamma w_d \sum_{ij} P_{ij}(x_{id}-x_{jd})^2
  = -2\gamma w_d\,[ (x_d^2)^\top (P\mathbf 1 + P^\top \mathbf 1) - 2 x_d^\top P x_d ]`;
* polynomial, :math:`k_w = (o + s \sum_d w_d^2 x_d z_d)^\delta`, with
  :math:`P = M \circ \delta (o + s\langle w\circ x, w\circ z\rangle)^{\delta-1}`:
  :math:`g_d = 2 s w_d\, x_d^\top P x_d`.

The term :math:`x_d^\top P x_d` for every d is ``sum(X * (P @ X), axis=0)``: one GEMM.

Conventions: RBF is :math:`\exp(-\gamma\lVert x-z\rVert^2)`; polynomial is
:math:`(\text{offset} + \text{scale}\,\langle x, z\rangle)^\text{degree}`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from numbers import Real

import numpy as np

KERNELS = ("linear", "rbf", "poly")

#: Named rules for the RBF ``gamma`` that are resolved on the training data.
GAMMA_RULES = ("median", "n_features", "scale")


def sq_distances(X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
    """Squared Euclidean distances between the rows of ``X`` and ``Z`` (one GEMM, clipped at 0)."""
    Z = X if Z is None else Z
    xx = np.einsum("ij,ij->i", X, X)
    zz = xx if Z is X else np.einsum("ij,ij->i", Z, Z)
    D2 = xx[:, None] + zz[None, :] - 2.0 * (X @ Z.T)
    np.maximum(D2, 0.0, out=D2)
    if Z is X:
        np.fill_diagonal(D2, 0.0)
    return D2


def resolve_gamma(gamma: float | str, X: np.ndarray) -> float:
    r"""Turn an RBF ``gamma`` (a number or a named rule) into a number, using training data ``X``.

    Rules (all computed on the rows of ``X`` only, i.e. on the training split):

    ``"median"``
        Median heuristic, :math:`\gamma = 1/\operatorname{median}_{i<j}\lVert x_i - x_j\rVert^2`.
        Chosen as fsbench's default for selectors: with an arbitrary fixed γ the Gram matrix of
        unscaled high-dimensional data (e.g. the Weston toys with 50 noise features of variance
        20) is ≈ identity and scale-factor gradients vanish.
    ``"n_features"``
        :math:`\gamma = 1/(2D)`, i.e. :math:`\exp(-\lVert x-z\rVert^2/(2s^2))` with
        :math:`s^2 = D` — ALGORITHMS.md §0.2's proposal for z-scored data.
    ``"scale"``
        scikit-learn's rule :math:`\gamma = 1/(D\,\operatorname{Var}(X))`.
    """
    if isinstance(gamma, str):
        X = np.asarray(X, dtype=float)
        n, d = X.shape
        if gamma == "median":
            if n < 2:
                return 1.0
            D2 = sq_distances(X)
            med = float(np.median(D2[np.triu_indices(n, k=1)]))
            return 1.0 / med if med > 0 else 1.0
        if gamma == "n_features":
            return 1.0 / (2.0 * max(d, 1))
        if gamma == "scale":
            var = float(X.var())
            return 1.0 / (d * var) if var > 0 else 1.0
        raise ValueError(f"unknown gamma rule {gamma!r}; expected a positive number or one of {GAMMA_RULES}")
    if not isinstance(gamma, Real) or not np.isfinite(gamma) or gamma <= 0:
        raise ValueError(f"gamma must be a positive number or one of {GAMMA_RULES}, got {gamma!r}")
    return float(gamma)


@dataclass(frozen=True)
class Kernel:
    """A base kernel with its parameters; all methods accept optional scale factors ``w``.

    Parameters
    ----------
    name : {"linear", "rbf", "poly"}
    gamma : float or str
        RBF width in :math:`\\exp(-\\gamma\\lVert x-z\\rVert^2)`; a rule name from
        :data:`GAMMA_RULES` must be resolved with :meth:`resolved` before use.
    degree, offset, scale : float
        Polynomial :math:`(\\text{offset} + \\text{scale}\\langle x,z\\rangle)^\\text{degree}`.
    """

    name: str = "linear"
    gamma: float | str = "median"
    degree: float = 3
    offset: float = 1.0
    scale: float = 1.0

    def __post_init__(self) -> None:
        if self.name not in KERNELS:
            raise ValueError(f"unknown kernel {self.name!r}; expected one of {KERNELS}")
        if self.name == "poly":
            if not (isinstance(self.degree, Real) and self.degree > 0):
                raise ValueError(f"poly degree must be a positive number, got {self.degree!r}")
            if not isinstance(self.scale, Real) or not isinstance(self.offset, Real):
                raise ValueError("poly offset and scale must be numbers")

    # ------------------------------------------------------------------ parameters
    def resolved(self, X: np.ndarray) -> Kernel:
        """Return a copy whose named ``gamma`` rule is evaluated on ``X`` (training data)."""
        if self.name == "rbf":
            return replace(self, gamma=resolve_gamma(self.gamma, X))
        return self

    def _gamma(self) -> float:
        if isinstance(self.gamma, str):
            raise ValueError(f"gamma rule {self.gamma!r} not resolved; call Kernel.resolved(X_train) first")
        return float(self.gamma)

    # ------------------------------------------------------------------ evaluation
    def gram(self, X: np.ndarray, Z: np.ndarray | None = None, w: np.ndarray | None = None) -> np.ndarray:
        """Gram matrix :math:`K_{ij} = k_w(x_i, z_j)` (``Z=None`` means ``Z = X``)."""
        Xw = X if w is None else X * w
        Zw = Xw if Z is None else (Z if w is None else Z * w)
        if self.name == "linear":
            return Xw @ Zw.T
        if self.name == "rbf":
            D2 = sq_distances(Xw, None if Z is None else Zw)
            return np.exp(-self._gamma() * D2)
        return (self.offset + self.scale * (Xw @ Zw.T)) ** self.degree

    def diag(self, X: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
        """:math:`k_w(x_i, x_i)` without forming the Gram matrix."""
        Xw = X if w is None else X * w
        if self.name == "rbf":
            return np.ones(X.shape[0])
        sq = np.einsum("ij,ij->i", Xw, Xw)
        if self.name == "linear":
            return sq
        return (self.offset + self.scale * sq) ** self.degree

    def with_zero(self, X: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
        """:math:`k_w(x_i, 0)` for every row (the origin is not moved by scaling)."""
        n = X.shape[0]
        if self.name == "linear":
            return np.zeros(n)
        if self.name == "rbf":
            Xw = X if w is None else X * w
            return np.exp(-self._gamma() * np.einsum("ij,ij->i", Xw, Xw))
        return np.full(n, float(self.offset) ** self.degree)

    def zero_zero(self) -> float:
        """:math:`k(0, 0)`."""
        if self.name == "linear":
            return 0.0
        if self.name == "rbf":
            return 1.0
        return float(self.offset) ** self.degree

    # ------------------------------------------------------------------ derivatives
    def scale_gradient(self, X: np.ndarray, M: np.ndarray, K: np.ndarray, w: np.ndarray) -> np.ndarray:
        r"""All D contractions :math:`g_d = \sum_{ij} M_{ij}\,\partial K_{w,ij}/\partial w_d`.

        Parameters
        ----------
        X : (N, D) unscaled data used to build ``K``.
        M : (N, N) weight matrix (need not be symmetric).
        K : (N, N) the scaled Gram matrix ``self.gram(X, w=w)`` (reused, not recomputed).
        w : (D,) scale factors.
        """
        if self.name == "linear":
            return 2.0 * w * _quad_forms(X, M)
        if self.name == "rbf":
            P = M * K
            X2 = X * X
            row = P.sum(axis=1) + P.sum(axis=0)
            t = X2.T @ row - 2.0 * _quad_forms(X, P)
            return -2.0 * self._gamma() * w * t
        # polynomial: ∂K/∂w_d = δ·base^{δ-1}·s·2 w_d x_d z_d, base = K^{1/δ}
        base = self.offset + self.scale * ((X * w) @ (X * w).T)
        P = M * (self.degree * np.power(base, self.degree - 1))
        return 2.0 * self.scale * w * _quad_forms(X, P)


def _quad_forms(X: np.ndarray, P: np.ndarray) -> np.ndarray:
    """:math:`x_d^\\top P x_d` for every column d of ``X`` with one GEMM."""
    return np.einsum("id,id->d", X, P @ X)


def make_kernel(
    kernel: str | Kernel = "linear",
    *,
    gamma: float | str = "median",
    degree: float = 3,
    offset: float = 1.0,
    scale: float = 1.0,
) -> Kernel:
    """Build a :class:`Kernel` from flat estimator parameters (sklearn-style)."""
    if isinstance(kernel, Kernel):
        return kernel
    return Kernel(name=kernel, gamma=gamma, degree=degree, offset=offset, scale=scale)


def joachims_C(kernel: Kernel, X: np.ndarray, w: np.ndarray | None = None) -> float:
    r"""SVMlight's default C, :math:`\hat C = 1/\bar R^2` (ALGORITHMS.md §5; Ramona 2012 fn. 4).

    :math:`\bar R = \frac1n\sum_i \lVert\phi(x_i) - \phi(0)\rVert
    = \frac1n \sum_i \sqrt{k(x_i,x_i) - 2k(x_i,0) + k(0,0)}` — the squared *mean distance*
    to the image of the origin, recomputed for every training set (and scaling).
    """
    kernel = kernel.resolved(X)
    d2 = kernel.diag(X, w) - 2.0 * kernel.with_zero(X, w) + kernel.zero_zero()
    r = float(np.mean(np.sqrt(np.maximum(d2, 0.0))))
    if not np.isfinite(r) or r <= 0:
        # Every sample at the origin: no scale to match; C is irrelevant to the (degenerate) SVM.
        return 1.0
    return 1.0 / (r * r)
