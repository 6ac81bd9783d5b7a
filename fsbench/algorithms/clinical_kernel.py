r"""The clinical kernel of Paul et al. 2015 (eqs. 1–2) and its per-feature subkernels.

This module is the kernel-math home of the Paul 2015 selectors (a sibling of
:mod:`fsbench.algorithms.kernels`, kept separate because it is self-contained and sizeable).

For :math:`p` features the clinical kernel averages univariate subkernels,

.. math:: k(x_i, x_j) = \frac1p \sum_{f=1}^{p} k_f(x_{if}, x_{jf}), \qquad
   k_f(a, b) = \begin{cases} \mathbb 1[a = b] & f \text{ categorical (overlap kernel)}\\[2pt]
   \dfrac{(\max_f - \min_f) - |a - b|}{\max_f - \min_f} & f \text{ continuous (triangular kernel)}
   \end{cases}

Conventions (ALGORITHMS.md §8.1 [D]; documented choices):

* ``max_f``/``min_f`` come from the **training** data only; other data (test points) are clipped to
  :math:`[\min_f, \max_f]` so that every :math:`k_f \in [0, 1]`. Within the range
  :math:`k_f(a,b) = \max(0, 1 - |a-b|/R_f)` is the triangular kernel, which is positive
  semi-definite (its Fourier transform is a squared sinc); the clipping keeps that true for test points.
* A constant training feature (:math:`R_f = 0`) has :math:`k_f \equiv 1`.
* **Missing values** (NaN) are not discussed by Paul et al.: :math:`k_f(a, b) = 0` whenever *a* or *b*
  is missing — including :math:`k_f(a, a)` — i.e. no evidence of similarity. Zeroing the rows and
  columns of the missing entries is a congruence :math:`D K_f D` with a 0/1 diagonal :math:`D`, so each
  subkernel, and the average, stays PSD; the price is :math:`k(x, x) < 1` for a sample with missing
  values (the same for training and test points, so no train/test inconsistency is introduced).
  Averaging only over the jointly observed features would keep the diagonal at 1 but is not PSD in
  general, which is why it was not chosen.
* Categorical values are compared as numbers (any numeric coding of the categories works); an unseen
  category simply has overlap 0 with every training value.

Removing a set :math:`R` of features from a current set :math:`F` (:math:`|F| = p`) needs no
recomputation (Paul §2.3): :math:`K^{(-R)} = (p\,K - \sum_{f\in R} K_f)/(p - |R|)`
(:func:`remove_subkernels`).

Memory: all subkernels of *n* training points take :math:`p\,n^2` floats. :class:`SubkernelBank`
stores them when that fits in ``max_bytes`` (default 512 MB) and otherwise recomputes them in chunks
(:math:`O(n^2)` per feature, vectorised), so that arrhythmia-sized problems (p = 279) still work.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Stack the subkernels when p·n·m·8 bytes is at most this (else recompute them in chunks).
DEFAULT_MAX_BYTES = 512 * 2**20
#: Size of one chunk of subkernels computed at once.
_CHUNK_BYTES = 32 * 2**20


def categorical_mask(categorical: Sequence | np.ndarray | None, n_features: int) -> np.ndarray:
    """Normalise a ``categorical`` parameter to a boolean mask of length ``n_features``.

    ``None`` means every feature is continuous; a boolean array-like of length ``n_features`` is a
    mask; any other array-like holds 0-based column indices (negative indices count from the end).
    """
    if categorical is None:
        return np.zeros(n_features, dtype=bool)
    arr = np.asarray(categorical)
    if arr.ndim != 1:
        raise ValueError(
            f"categorical must be None, a 1-D boolean mask or a list of indices; got {categorical!r}"
        )
    if arr.dtype == bool:
        if arr.size != n_features:
            raise ValueError(f"categorical mask has {arr.size} entries but X has {n_features} features")
        return arr.copy()
    if arr.size == 0:
        return np.zeros(n_features, dtype=bool)
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"categorical indices must be integers; got {categorical!r}")
    if arr.min() < -n_features or arr.max() >= n_features:
        raise ValueError(f"categorical index out of range for {n_features} features: {categorical!r}")
    mask = np.zeros(n_features, dtype=bool)
    mask[arr] = True
    return mask


class ClinicalKernel:
    r"""The clinical kernel with training-split ranges (see the module docstring for the conventions).

    Parameters
    ----------
    categorical : bool mask, list of indices or None
        Which features use the overlap kernel; ``None`` = all continuous (triangular kernel).

    Attributes (after :meth:`fit`)
    ------------------------------
    categorical_ : (p,) bool
    min_, max_ : (p,) float
        Training extremes of each feature, NaN ignored (0 for an all-missing feature).
    n_missing_ : int
        Number of missing entries in the training data.
    """

    def __init__(self, categorical: Sequence | np.ndarray | None = None):
        self.categorical = categorical

    def fit(self, X: np.ndarray) -> ClinicalKernel:
        """Record the per-feature training ranges."""
        X = np.asarray(X, dtype=float)
        p = X.shape[1]
        self.categorical_ = categorical_mask(self.categorical, p)
        observed = ~np.isnan(X)
        any_obs = observed.any(axis=0)
        lo = np.where(observed, X, np.inf).min(axis=0)
        hi = np.where(observed, X, -np.inf).max(axis=0)
        self.min_ = np.where(any_obs, lo, 0.0)
        self.max_ = np.where(any_obs, hi, 0.0)
        self.n_missing_ = int((~observed).sum())
        return self

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Continuous columns clipped to the training range and mapped to [0, 1]; categorical kept.

        With :math:`u = (\\mathrm{clip}(x) - \\min_f)/R_f` the triangular subkernel is
        :math:`1 - |u_a - u_b|`; a constant feature maps to 0 (so :math:`k_f \\equiv 1`). NaN stays NaN.
        """
        X = np.asarray(X, dtype=float)
        if X.shape[1] != self.min_.size:
            raise ValueError(f"X has {X.shape[1]} features, the kernel was fitted on {self.min_.size}")
        U = X.copy()
        cont = ~self.categorical_
        rng = self.max_ - self.min_
        safe = np.where(rng > 0, rng, 1.0)
        # A constant feature: clip() maps every observed value to min_f, hence u = 0 and k_f = 1.
        U[:, cont] = (np.clip(X[:, cont], self.min_[cont], self.max_[cont]) - self.min_[cont]) / safe[cont]
        return U

    def gram(self, X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
        """Clinical kernel matrix :math:`K_{ij} = k(x_i, z_j)` (``Z=None`` means ``Z = X``)."""
        U = self.transform(X)
        V = None if Z is None else self.transform(Z)
        return subkernel_sum(U, self.categorical_, V) / max(U.shape[1], 1)

    def subkernels(self, X: np.ndarray, Z: np.ndarray | None = None, features=None) -> np.ndarray:
        """The stack :math:`(K_f)_{f}` of shape (len(features), n, m)."""
        U = self.transform(X)
        V = None if Z is None else self.transform(Z)
        feats = np.arange(U.shape[1]) if features is None else np.asarray(features, dtype=int)
        return _subkernel_chunk(U, V, self.categorical_, feats)


def _subkernel_chunk(U: np.ndarray, V: np.ndarray | None, cat: np.ndarray, feats: np.ndarray) -> np.ndarray:
    """Subkernels of the transformed data ``U`` (n×p) against ``V`` (m×p) for ``feats``: (|feats|, n, m)."""
    A = U[:, feats].T[:, :, None]  # (f, n, 1)
    B = (U if V is None else V)[:, feats].T[:, None, :]  # (f, 1, m)
    c = cat[feats][:, None, None]
    with np.errstate(invalid="ignore"):
        out = np.where(c, (A == B).astype(float), 1.0 - np.abs(A - B))
    # NaN on either side: no evidence of similarity (NaN == x is False already for categorical).
    return np.nan_to_num(out, nan=0.0, copy=False)


def _chunks(feats: np.ndarray, n: int, m: int):
    size = max(1, _CHUNK_BYTES // max(1, 8 * n * m))
    for start in range(0, feats.size, size):
        yield feats[start : start + size]


def subkernel_sum(
    U: np.ndarray,
    cat: np.ndarray,
    V: np.ndarray | None = None,
    features: np.ndarray | None = None,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    r""":math:`\sum_f w_f K_f` over ``features`` of transformed data (chunked; ``weights`` default 1)."""
    feats = np.arange(U.shape[1]) if features is None else np.asarray(features, dtype=int)
    m = U.shape[0] if V is None else V.shape[0]
    out = np.zeros((U.shape[0], m))
    w = np.ones(feats.size) if weights is None else np.asarray(weights, dtype=float)
    pos = 0
    for ch in _chunks(feats, U.shape[0], m):
        S = _subkernel_chunk(U, V, cat, ch)
        out += np.tensordot(w[pos : pos + ch.size], S, axes=1)
        pos += ch.size
    return out


def remove_subkernels(K: np.ndarray, K_removed: np.ndarray, p: int, n_removed: int) -> np.ndarray:
    r"""Clinical kernel of :math:`F\setminus R` from that of F: :math:`(pK - \sum_{f\in R}K_f)/(p-|R|)`.

    Parameters
    ----------
    K : clinical kernel over the current p features.
    K_removed : :math:`\sum_{f \in R} K_f`, the sum of the removed subkernels.
    p, n_removed : :math:`|F|` and :math:`|R|` (``n_removed < p``).
    """
    if not 0 <= n_removed < p:
        raise ValueError(f"cannot remove {n_removed} of {p} features")
    return (p * K - K_removed) / (p - n_removed)


class SubkernelBank:
    r"""All training subkernels :math:`K_f` of one training set, stored or recomputed on demand.

    Parameters
    ----------
    kernel : a fitted :class:`ClinicalKernel`.
    X : (n, p) training data.
    max_bytes : int
        Store the (p, n, n) stack when it fits; otherwise recompute chunks on demand.
    """

    def __init__(self, kernel: ClinicalKernel, X: np.ndarray, max_bytes: int = DEFAULT_MAX_BYTES):
        self.U = kernel.transform(X)
        self.cat = kernel.categorical_
        n, p = self.U.shape
        self.n, self.p = n, p
        self.stack = None
        if 8 * p * n * n <= max_bytes:
            self.stack = _subkernel_chunk(self.U, None, self.cat, np.arange(p))

    def subkernel(self, f: int) -> np.ndarray:
        """:math:`K_f` (n×n)."""
        if self.stack is not None:
            return self.stack[f]
        return _subkernel_chunk(self.U, None, self.cat, np.array([f]))[0]

    def weighted_sum(self, features: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        r""":math:`\sum_{f \in \text{features}} w_f K_f` (``weights`` default 1)."""
        feats = np.asarray(features, dtype=int)
        w = np.ones(feats.size) if weights is None else np.asarray(weights, dtype=float)
        if self.stack is not None:
            w_all = np.zeros(self.p)
            np.add.at(w_all, feats, w)
            return np.tensordot(w_all, self.stack, axes=1)  # no copy of the stack
        return subkernel_sum(self.U, self.cat, None, feats, w)

    def quad_forms(self, v: np.ndarray, features: np.ndarray) -> np.ndarray:
        r""":math:`v^\top K_f v` for every f in ``features``, using only the rows where :math:`v \ne 0`."""
        feats = np.asarray(features, dtype=int)
        nz = np.flatnonzero(v)
        vs = v[nz]
        if nz.size == 0 or feats.size == 0:
            return np.zeros(feats.size)
        if self.stack is not None:
            return (self.stack @ v @ v)[feats]  # (p, n) then (p,): no copy of the stack
        Us = self.U[nz]
        out = np.empty(feats.size)
        pos = 0
        for ch in _chunks(feats, nz.size, nz.size):
            S = _subkernel_chunk(Us, None, self.cat, ch)
            out[pos : pos + ch.size] = np.einsum("fij,i,j->f", S, vs, vs, optimize=True)
            pos += ch.size
        return out
