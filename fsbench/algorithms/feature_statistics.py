r"""Feature-additive kernel statistics: Gram matrices downdated when features are removed or replaced.

For the linear kernel (:math:`XZ^\top`) and the RBF kernel (squared distances) the Gram matrix is a
function of a sum over features, :math:`S = \sum_d s_d(x_d, z_d)`
(:func:`feature_statistic`); removing feature d subtracts one term, replacing a column changes one
term. SVM-RFE (:func:`removal_contractions`, all candidate removals at once) and FSPP
(:class:`ColumnReplacement`, permuted columns) use this instead of recomputing Gram matrices.
Split out of :mod:`fsbench.algorithms.kernels`, whose :class:`~fsbench.algorithms.kernels.Kernel`
these functions take.
"""

from __future__ import annotations

import numpy as np

from fsbench.algorithms.kernels import Kernel, sq_distances

#: Elements per temporary N×N×b block in :func:`removal_contractions` (~16 MB of float64).
_REMOVAL_BLOCK = 2**21


def feature_statistic(kernel: Kernel, X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
    r"""The part of the kernel that is a *sum over features*: :math:`S = \sum_d s_d`.

    * linear, polynomial: :math:`S = XZ^\top`, :math:`s_d(x, z) = x_d z_d`;
    * RBF: :math:`S_{ij} = \lVert x_i - z_j\rVert^2`, :math:`s_d(x, z) = (x_d - z_d)^2`.

    The Gram matrix is :func:`gram_from_statistic` of S, so removing feature f is
    :math:`S - s_f` and replacing column f of X by v is :math:`S - s_f(x_f, z_f) + s_f(v, z_f)`
    — O(N·M) per feature instead of a new O(N·M·D) Gram matrix.
    """
    if kernel.name == "rbf":
        return sq_distances(X, Z)
    return X @ (X if Z is None else Z).T


def column_statistic(kernel: Kernel, x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Feature terms :math:`s_d(x_i, z_j)` of :func:`feature_statistic` for given columns.

    ``x`` (N,) and ``z`` (M,) give an (N, M) matrix; ``x`` (N, b) and ``z`` (M, b) give (N, M, b),
    one slice per column.
    """
    if x.ndim == 1:
        xx, zz = x[:, None], z[None, :]
    else:
        xx, zz = x[:, None, :], z[None, :, :]
    if kernel.name == "rbf":
        diff = xx - zz
        return diff * diff
    return xx * zz


def gram_from_statistic(kernel: Kernel, S: np.ndarray) -> np.ndarray:
    r"""Kernel values from the feature-additive statistic (any array shape, entrywise).

    linear :math:`S`; RBF :math:`\exp(-\gamma\max(S, 0))` (clipping round-off of downdated
    distances); polynomial :math:`(\text{offset} + \text{scale}\,S)^\text{degree}`.
    The kernel must be resolved (numeric gamma).
    """
    if kernel.name == "linear":
        return S
    if kernel.name == "rbf":
        return np.exp(-kernel._gamma() * np.maximum(S, 0.0))
    return (kernel.offset + kernel.scale * S) ** kernel.degree


def replaced_column_gram(
    kernel: Kernel, S: np.ndarray, z: np.ndarray, old: np.ndarray, new: np.ndarray
) -> np.ndarray:
    r"""Gram matrix :math:`k(X', Z)` where :math:`X'` is X with one column ``old`` replaced by ``new``.

    Parameters
    ----------
    kernel : resolved :class:`Kernel`.
    S : (N, M) ``feature_statistic(kernel, X, Z)``.
    z : (M,) the same column of Z.
    old, new : (N,) the column of X and its replacement (e.g. a permutation of it, as in the
        permutation sensitivity of FSPP).
    """
    Sn = S - column_statistic(kernel, old, z)
    Sn += column_statistic(kernel, new, z)
    return gram_from_statistic(kernel, Sn)


class ColumnReplacement:
    r"""Rows of :math:`k(X', Z)` where some rows of X get another value in one column (FSPP).

    Row i of :math:`X'` is row i of X with its value :math:`x_i` in column d replaced by a value u
    (e.g. taken from another row, as in the permutation sensitivity of FSPP). With :math:`s(\cdot,\cdot)`
    the column's term of the feature-additive statistic S (:func:`column_statistic`), the new
    statistic is :math:`S_{i\cdot} - s(x_i, z) + s(u, z)`: O(M) per row instead of O(M·D), the terms
    :math:`s(u, z)` computed once per distinct value. For RBF the kernel factorises,

    .. math:: k(x'_i, z_j) = A_{ij}\, e^{-\gamma (u - z_j)^2}, \qquad
       A_{ij} = e^{-\gamma (S_{ij} - (x_i - z_j)^2)} = K_{ij}\, e^{\gamma (x_i - z_j)^2},

    with the second factor a per-value table. Given the Gram matrix :math:`K = k(X, Z)`, A is K
    times a per-value table too, so a row costs three gathers and two products and no exponential.
    That needs :math:`e^{\gamma S}` far from overflow and K far from underflow: it is used while
    :math:`\gamma\max S \le 600`; otherwise (or without ``gram``)
    :math:`A = e^{-\gamma\max(S - (x_i - z)^2, 0)}` is computed. When the column of Z holds at most
    3/4 as many distinct values as entries, all of them values of the column of X (support vectors
    are training rows), the two per-value tables are gathered from one over pairs of values: the
    same numbers with fewer exponentials.

    Parameters
    ----------
    kernel : resolved :class:`Kernel`.
    S : (N, M) ``feature_statistic(kernel, X, Z)``.
    gram : (N, M) ``gram_from_statistic(kernel, S)``, optional (RBF shortcut above).
    """

    def __init__(self, kernel: Kernel, S: np.ndarray, gram: np.ndarray | None = None):
        self.kernel = kernel
        self.S = S
        self.gram = None
        if gram is not None and kernel.name == "rbf" and S.size and kernel._gamma() * float(S.max()) <= 600.0:
            self.gram = gram

    def rows(self, z: np.ndarray, values: np.ndarray, code: np.ndarray):
        """Row builder for one column: ``x = values[code]`` (N,) of X, ``z`` (M,) of Z.

        Returns a callable ``rows(i, v, out=None)`` → (len(i), M): kernel row ``i[k]`` of
        :math:`X'` with the column value ``values[v[k]]``, for any rows in any order. The indices
        must be valid (0 ≤ i < N, 0 ≤ v < len(values)): they are not checked (gathers with
        ``mode="clip"``, the fast path of ``np.take`` into a buffer), and the callable reuses a
        work buffer, so it is not to be shared between threads. Callers
        evaluate a few hundred rows per call, so that each block stays in cache until it is
        consumed.
        """
        kernel, S, gram = self.kernel, self.S, self.gram
        values = np.asarray(values, dtype=float)
        g = -kernel._gamma() if kernel.name == "rbf" else 0.0
        if gram is not None and kernel.name == "rbf":
            shared = _shared_values(values, z)
            if shared is not None:
                # z's entries are among the column's values (support vectors are training rows), and
                # there are fewer distinct ones than entries: the factors are computed once per pair
                # of values and gathered into place, the same numbers with fewer exponentials.
                uz, zi = shared
                E = column_statistic(kernel, values, values[uz])
                E = np.exp(np.multiply(E, g, out=E), out=E)
                Einv = np.take(1.0 / E, zi, axis=1)
                E = np.take(E, zi, axis=1)
                return self._rbf_rows(gram, E, Einv, code)
        Tv = column_statistic(kernel, values, z)
        if kernel.name != "rbf":

            def rows(i: np.ndarray, v: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
                blk = np.take(Tv, v, axis=0, out=out, mode="clip")
                blk += S[i] - Tv[code[i]]
                blk[...] = gram_from_statistic(kernel, blk)
                return blk

            return rows

        if gram is not None:
            E = np.exp(np.multiply(Tv, g, out=Tv), out=Tv)
            return self._rbf_rows(gram, E, 1.0 / E, code)  # 1/E = e^{γ(x−z)²}: finite, γ·max S ≤ 600
        E = np.exp(g * Tv)

        def rows(i: np.ndarray, v: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
            blk = np.subtract(S[i], Tv[code[i]], out=out)
            np.maximum(blk, 0.0, out=blk)
            blk *= g
            np.exp(blk, out=blk)
            blk *= np.take(E, v, axis=0)
            return blk

        return rows

    @staticmethod
    def _rbf_rows(gram: np.ndarray, E: np.ndarray, Einv: np.ndarray, code: np.ndarray):
        """Row builder of the RBF shortcut: ``K[i] · Einv[code[i]] · E[v]`` (class docstring)."""
        tmp = np.empty((0, gram.shape[1]))

        def rows(i: np.ndarray, v: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
            nonlocal tmp
            if tmp.shape[0] < i.size:
                tmp = np.empty((i.size, gram.shape[1]))
            t = tmp[: i.size]
            # mode="clip" (the indices are valid): with mode="raise", take() into ``out`` goes
            # through a buffer, ~1.4x slower on FSPP's blocks
            blk = np.take(gram, i, axis=0, out=out, mode="clip")
            blk *= np.take(Einv, code[i], axis=0, out=t, mode="clip")
            blk *= np.take(E, v, axis=0, out=t, mode="clip")
            return blk

        return rows


def _shared_values(values: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``(uz, zi)`` with ``z == values[uz][zi]`` when every entry of ``z`` is one of the sorted
    ``values`` and at most 3/4 of them are distinct (else None: a table would save too little)."""
    if z.size == 0:
        return None
    pos = np.minimum(np.searchsorted(values, z), values.size - 1)
    if not np.array_equal(values[pos], z):
        return None
    uz, zi = np.unique(pos, return_inverse=True)
    return (uz, zi.reshape(-1)) if 4 * uz.size <= 3 * z.size else None


def permuted_column_grams(
    kernel: Kernel,
    S: np.ndarray,
    x: np.ndarray,
    z: np.ndarray,
    perms: list[np.ndarray],
    out: np.ndarray | None = None,
) -> np.ndarray:
    r"""Gram matrices :math:`k(X^{(\pi)}, Z)` for several row permutations π of one column of X, stacked.

    :math:`X^{(\pi)}` is X with column x replaced by ``x[π]``; see :class:`ColumnReplacement`.

    Parameters
    ----------
    kernel : resolved :class:`Kernel`.
    S : (N, M) ``feature_statistic(kernel, X, Z)``.
    x : (N,) the column of X; z : (M,) the same column of Z.
    perms : R index arrays of length N.
    out : optional (R·N, M) float64 buffer to write into (saves a large allocation per call).

    Returns
    -------
    (R·N, M) array, the R matrices one below the other (``out`` if given).
    """
    n, m = S.shape
    if out is None:
        out = np.empty((len(perms) * n, m))
    values, code = np.unique(x, return_inverse=True)
    rows = ColumnReplacement(kernel, S).rows(z, values, code)
    every = np.arange(n)
    for r, p in enumerate(perms):
        rows(every, code[p], out=out[r * n : (r + 1) * n])
    return out


def removal_contractions(kernel: Kernel, X: np.ndarray, a: np.ndarray) -> np.ndarray:
    r""":math:`a^\top K^{(-f)} a` for every feature f at once — the frozen-α SVM-RFE criterion.

    :math:`K^{(-f)}` is the Gram matrix of the rows of ``X`` with feature f deleted, ``a`` the
    signed dual coefficients :math:`\breve\alpha_i = \alpha_i y_i` (Guyon 2002; ALGORITHMS.md §4.2):

    * linear, :math:`K^{(-f)} = K - x_f x_f^\top`:
      :math:`a^\top K^{(-f)} a = \lVert X^\top a\rVert^2 - (x_f^\top a)^2`, O(N·D) in total;
    * RBF, :math:`K^{(-f)}_{ij} = \exp(-\gamma(\lVert x_i-x_j\rVert^2 - (x_{if}-x_{jf})^2))`
      (the entrywise factor :math:`\exp(+\gamma(x_{if}-x_{jf})^2)` of Spider's ``get_w``, applied
      to distances so that it cannot overflow);
    * polynomial, :math:`K^{(-f)} = (\text{offset} + \text{scale}(XX^\top - x_f x_f^\top))^\text{degree}`.

    Only the rows with :math:`a_i \ne 0` (support vectors) enter. For RBF and polynomial the
    features are processed in blocks of b with an m×m×b temporary (m support vectors,
    m²b ≤ 2²¹), O(m²·D) work in total and never D full matrices at once. The kernel's gamma rule
    is resolved on ``X``, as in :func:`joachims_C`.

    Returns
    -------
    (D,) array; the full :math:`W^2 = a^\top K a` is ``float(a @ K @ a)``.
    """
    kernel = kernel.resolved(X)
    a = np.asarray(a, dtype=float)
    nz = np.flatnonzero(a)
    n_feat = X.shape[1]
    if nz.size == 0:
        return np.zeros(n_feat)
    Xs, s = X[nz], a[nz]
    if kernel.name == "linear":
        v = Xs.T @ s
        return float(v @ v) - v * v
    return updated_inner(kernel, feature_statistic(kernel, Xs), Xs, np.outer(s, s), sign=-1)


def updated_inner(kernel: Kernel, S: np.ndarray, cols: np.ndarray, W: np.ndarray, sign: int) -> np.ndarray:
    r""":math:`\langle K^{(\pm f)}, W\rangle_F` for every column f of ``cols`` at once.

    :math:`K^{(\pm f)}` is the Gram matrix of the statistic :math:`S \pm s_f` (:func:`feature_statistic`
    with the column ``cols[:, f]`` removed, ``sign=-1``, or added, ``sign=+1``): the candidate removals
    of backward elimination (SVM-RFE through :func:`removal_contractions`, BAHSIC) and the candidate
    additions of forward selection (FOHSIC).

    * linear: :math:`\langle S, W\rangle \pm c_f^\top W c_f`, one GEMM for all f;
    * RBF, polynomial: the columns in blocks of b with an N×N×b temporary (N²b ≤ 2²¹), O(N²·F) work
      and never F full matrices at once.

    Parameters
    ----------
    kernel : resolved :class:`Kernel`.
    S : (N, N) statistic of the current feature set (rows and columns: the same N samples).
    cols : (N, F) the candidate columns (features of the same samples).
    W : (N, N) weight matrix.
    sign : -1 (remove the column from the set) or +1 (add it).

    Returns
    -------
    (F,) array.
    """
    if kernel.name == "linear":
        return float(np.vdot(S, W)) + sign * np.einsum("ij,ij->j", cols, W @ cols)
    n, n_feat = cols.shape
    out = np.empty(n_feat)
    b = max(1, _REMOVAL_BLOCK // max(1, n * n))
    for start in range(0, n_feat, b):
        blk = slice(start, min(start + b, n_feat))
        T = column_statistic(kernel, cols[:, blk], cols[:, blk])
        if sign < 0:
            np.subtract(S[:, :, None], T, out=T)
        else:
            np.add(S[:, :, None], T, out=T)
        out[blk] = np.tensordot(W, gram_from_statistic(kernel, T), axes=([0, 1], [0, 1]))
    return out
