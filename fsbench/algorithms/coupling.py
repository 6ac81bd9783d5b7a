r"""Probability calibration and pairwise coupling: Platt's sigmoid, Hastie–Tibshirani, Wu–Lin–Weng.

The probability half of the multiclass SVM of :mod:`fsbench.algorithms.svm` (ALGORITHMS.md §7). It
needs no SVM, only decision values and pairwise probabilities:

1. **Platt sigmoid** of a binary machine's decision value f,
   :math:`P(y=+1 \mid f) = 1/(1+e^{A f+B})` (:func:`platt_proba`). :func:`platt_fit` minimises the
   cross-entropy :math:`\sum_i -t_i\log p_i - (1-t_i)\log(1-p_i)` with LIBSVM's target smoothing
   :math:`t_+ = (N_++1)/(N_++2)`, :math:`t_- = 1/(N_-+2)` (:func:`platt_targets`), by the Newton
   method with backtracking of Lin, Lin & Weng (2007). In the multiclass SVM, pair (i, j)'s
   sigmoid gives :math:`r_{ij}(x) = P(y=i \mid y\in\{i,j\}, x)`.
2. **Pairwise coupling** of the :math:`r_{ij}` (which the caller clips to
   :math:`[10^{-7}, 1-10^{-7}]`, ``_MIN_PROB``, as LIBSVM does) into :math:`p(c\mid x)`, one of
   ``COUPLINGS``:

   * ``"hastie_tibshirani"`` (Hastie & Tibshirani 1998; what Ramona 2012 names): minimise
     :math:`\sum_{i<j} n_{ij}\,\mathrm{KL}(r_{ij}\,\|\,\mu_{ij})`, :math:`\mu_{ij}=p_i/(p_i+p_j)`,
     :math:`n_{ij}` = number of training points of classes i and j, with Weka's simultaneous
     fixed point :math:`p_i \leftarrow p_i \sum_{j} n_{ij} r_{ij} / \sum_j n_{ij}\mu_{ij}`, then
     renormalise (:func:`couple_hastie_tibshirani`; stop when no :math:`p_i` moves by more than
     ``tol`` = 1e-6, at most ``max_iter`` = 1000 iterations);
   * ``"wu_lin_weng"`` (Wu, Lin & Weng 2004, method 2 — LIBSVM's ``multiclass_probability``):
     :math:`\min_p \tfrac12 p^\top Q p` s.t. :math:`\sum p = 1`,
     :math:`Q_{tt}=\sum_{j\ne t} r_{jt}^2`, :math:`Q_{tj} = -r_{jt}r_{tj}`; solved *exactly* from its
     KKT conditions, :math:`p \propto Q^{-1}\mathbf 1` (:func:`couple_wu_lin_weng`), instead of LIBSVM's
     iterative approximation (tolerance 0.005/C).
"""

from __future__ import annotations

import warnings

import numpy as np

COUPLINGS = ("hastie_tibshirani", "wu_lin_weng")

#: LIBSVM's clipping of pairwise probabilities before coupling.
_MIN_PROB = 1e-7


# ---------------------------------------------------------------------------------------------
# Platt scaling
# ---------------------------------------------------------------------------------------------
def _platt_objective(dec: np.ndarray, t: np.ndarray, A: float, B: float) -> float:
    f = dec * A + B
    # t·f + log(1+e^{-f}) for f ≥ 0 and (t−1)·f + log(1+e^{f}) for f < 0: the same value, no overflow
    return float(np.sum(np.where(f >= 0, t * f, (t - 1.0) * f) + np.log1p(np.exp(-np.abs(f)))))


def platt_targets(y: np.ndarray) -> np.ndarray:
    """LIBSVM's smoothed Platt targets: :math:`(N_++1)/(N_++2)` for y > 0, :math:`1/(N_-+2)` otherwise."""
    pos = np.asarray(y) > 0
    n_pos = int(pos.sum())
    n_neg = pos.size - n_pos
    return np.where(pos, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))


def platt_fit(dec: np.ndarray, y: np.ndarray, max_iter: int = 100) -> tuple[float, float]:
    r"""Fit Platt's sigmoid :math:`P(y=1\mid f) = 1/(1+\exp(Af+B))` (Lin, Lin & Weng 2007).

    Minimises the cross-entropy :math:`\sum_i -t_i\log p_i - (1-t_i)\log(1-p_i)` with the smoothed
    targets of :func:`platt_targets`, by Newton's method on (A, B) with a :math:`10^{-12}` ridge on
    the Hessian and Armijo backtracking (sufficient decrease :math:`10^{-4}`, step ≥ 1e-10); stops
    when both gradient components are below 1e-5 or after ``max_iter`` iterations. Start
    :math:`A = 0`, :math:`B = \log((N_-+1)/(N_++1))`.

    Parameters
    ----------
    dec : (n,) decision values.
    y : (n,) labels, positive class where ``y > 0``.

    Returns
    -------
    A, B : float
    """
    dec = np.asarray(dec, dtype=float)
    t = platt_targets(y)
    n_pos = int((np.asarray(y) > 0).sum())
    n_neg = dec.size - n_pos
    A, B = 0.0, float(np.log((n_neg + 1.0) / (n_pos + 1.0)))
    fval = _platt_objective(dec, t, A, B)
    for _ in range(max_iter):
        f = dec * A + B
        e = np.exp(-np.abs(f))
        # p = P(y=1) = 1/(1+e^f), q = 1 - p, both computed without overflow
        p = np.where(f >= 0, e / (1.0 + e), 1.0 / (1.0 + e))
        q = 1.0 - p
        d2 = p * q
        h11 = 1e-12 + float(dec * dec @ d2)
        h22 = 1e-12 + float(d2.sum())
        h21 = float(dec @ d2)
        d1 = t - p
        g1 = float(dec @ d1)
        g2 = float(d1.sum())
        if abs(g1) < 1e-5 and abs(g2) < 1e-5:
            break
        det = h11 * h22 - h21 * h21
        dA = -(h22 * g1 - h21 * g2) / det
        dB = -(-h21 * g1 + h11 * g2) / det
        gd = g1 * dA + g2 * dB
        step = 1.0
        while step >= 1e-10:
            nA, nB = A + step * dA, B + step * dB
            nf = _platt_objective(dec, t, nA, nB)
            if nf < fval + 1e-4 * step * gd:
                A, B, fval = nA, nB, nf
                break
            step /= 2.0
        else:  # line search failed: at the optimum up to round-off
            break
    else:
        if max_iter > 0:
            warnings.warn("platt_fit reached max_iter", RuntimeWarning, stacklevel=2)
    return A, B


def platt_proba(dec: np.ndarray, A: float | np.ndarray, B: float | np.ndarray) -> np.ndarray:
    """:math:`1/(1+\\exp(A f + B))`, computed without overflow (broadcasts A, B over columns)."""
    f = np.multiply(np.asarray(dec, dtype=float), A)
    f += B
    e = np.abs(f)
    np.negative(e, out=e)
    np.exp(e, out=e)
    # e/(1+e) where f >= 0, 1/(1+e) elsewhere: one division of the selected numerator (in place:
    # FSPP calls this on millions of rows)
    p = np.where(f >= 0, e, 1.0)
    np.add(e, 1.0, out=e)
    return np.divide(p, e, out=p)


# ---------------------------------------------------------------------------------------------
# Pairwise coupling
# ---------------------------------------------------------------------------------------------
def _full_pairwise(r: np.ndarray) -> np.ndarray:
    """Fill r[:, j, i] = 1 − r[:, i, j] for i < j (upper triangle is authoritative); diagonal 0."""
    r = np.array(r, dtype=float)
    k = r.shape[-1]
    iu = np.triu_indices(k, 1)
    r[:, iu[1], iu[0]] = 1.0 - r[:, iu[0], iu[1]]
    r[:, np.arange(k), np.arange(k)] = 0.0
    return r


def couple_hastie_tibshirani(
    r: np.ndarray, n_pair: np.ndarray | None = None, tol: float = 1e-6, max_iter: int = 1000
) -> tuple[np.ndarray, int]:
    r"""Hastie–Tibshirani (1998) pairwise coupling with Weka's simultaneous fixed-point update.

    Minimises
    :math:`\sum_{i<j} n_{ij}[r_{ij}\log(r_{ij}/\mu_{ij}) + (1-r_{ij})\log((1-r_{ij})/(1-\mu_{ij}))]`,
    :math:`\mu_{ij} = p_i/(p_i+p_j)`, over the simplex. Start :math:`p = 1/C`; repeat
    :math:`p_i \leftarrow p_i\,\sum_{j\ne i} n_{ij} r_{ij} / \sum_{j\ne i} n_{ij}\mu_{ij}` for all i at
    once (:math:`p_i = 0` if a sum is 0), renormalise, until :math:`\max_i|\Delta p_i| <` ``tol``
    (per sample) or ``max_iter`` iterations.

    Parameters
    ----------
    r : (n, C, C) pairwise probabilities; ``r[:, i, j]`` for i < j is
        :math:`P(y=i\mid y\in\{i,j\})`, the lower triangle is ignored (taken as 1 − r_ij).
    n_pair : (C, C) symmetric weights :math:`n_{ij}`; ones by default.

    Returns
    -------
    p : (n, C) probabilities, rows sum to 1.
    n_iter : the largest number of iterations any sample needed.
    """
    return _couple_ht(_full_pairwise(r), n_pair, tol, max_iter)


def _couple_ht(r: np.ndarray, n_pair, tol: float, max_iter: int) -> tuple[np.ndarray, int]:
    n, k, _ = r.shape
    W = np.ones((k, k)) if n_pair is None else np.array(n_pair, dtype=float)
    W = W.copy()
    np.fill_diagonal(W, 0.0)
    first = np.einsum("ij,nij->ni", W, r)
    p = np.full((n, k), 1.0 / k)
    active = np.arange(n)
    n_iter = 0
    for it in range(1, max_iter + 1):
        pa = p[active]
        den = pa[:, :, None] + pa[:, None, :]
        mu = np.divide(pa[:, :, None], den, out=np.full_like(den, 0.5), where=den > 0)
        second = np.einsum("ij,nij->ni", W, mu)
        fa = first[active]
        ok = (fa > 0) & (second > 0)
        new = np.where(ok, pa * np.divide(fa, second, out=np.zeros_like(fa), where=ok), 0.0)
        new /= new.sum(axis=1, keepdims=True)
        delta = np.abs(new - pa).max(axis=1)
        p[active] = new
        n_iter = it
        active = active[delta >= tol]
        if active.size == 0:
            break
    return p, n_iter


def couple_wu_lin_weng(r: np.ndarray) -> np.ndarray:
    r"""Wu, Lin & Weng (2004) method 2 (LIBSVM's ``multiclass_probability``), solved exactly.

    :math:`\min_p \tfrac12 p^\top Q p` s.t. :math:`\mathbf 1^\top p = 1`, with
    :math:`Q_{tt} = \sum_{j\ne t} r_{jt}^2` and :math:`Q_{tj} = -r_{jt} r_{tj}`. The minimiser solves
    :math:`\begin{pmatrix}Q & \mathbf 1\\ \mathbf 1^\top & 0\end{pmatrix}\binom{p}{b} = \binom{0}{1}`
    i.e. :math:`p = Q^{-1}\mathbf 1/\mathbf 1^\top Q^{-1}\mathbf 1` (see :func:`_couple_wlw` for the
    solve); WLW show it is non-negative for :math:`r_{ij}\in(0,1)` (round-off negatives are clipped
    and the rows renormalised). LIBSVM iterates a coordinate
    method to tolerance 0.005/C instead, so its values differ in the ~3rd decimal.

    Parameters
    ----------
    r : (n, C, C) as in :func:`couple_hastie_tibshirani`.
    """
    r = np.asarray(r, dtype=float)
    k = r.shape[-1]
    pairs = np.column_stack(np.triu_indices(k, 1))
    return _couple_wlw(r[:, pairs[:, 0], pairs[:, 1]], pairs, k)


def _couple_wlw(rp: np.ndarray, pairs: np.ndarray, k: int) -> np.ndarray:
    r"""WLW coupling from the pairwise probabilities ``rp`` (n, P) = :math:`r_{ij}` of ``pairs`` (P, 2).

    Q is assembled from the P pair terms directly — pair (i, j) adds :math:`r_{ji}^2 = (1-r_{ij})^2`
    to :math:`Q_{ii}`, :math:`r_{ij}^2` to :math:`Q_{jj}` and :math:`-r_{ij}r_{ji}` to both
    off-diagonal entries — without the (n, C, C) matrix of all :math:`r`.

    The KKT system gives :math:`p = Q^{-1}\mathbf 1 / \mathbf 1^\top Q^{-1}\mathbf 1`. Q is symmetric
    positive semi-definite (:math:`p^\top Q p = \sum_{i<j}(r_{ji}p_i - r_{ij}p_j)^2`), so
    :math:`Q x = \mathbf 1` is solved by Gaussian elimination without pivoting (Cholesky's
    arithmetic, backward stable on such matrices) on the upper triangle only (the symmetric
    elimination, half the arithmetic), written with the samples as the last, contiguous
    axis: each elimination step is a few array operations over all n systems at once, where a
    batched LAPACK solve pays a call and two copies per sample (FSPP couples millions of rows). Where
    Q is singular to working precision — two classes always (rank one), or exactly consistent
    :math:`r` — the normalised :math:`Q^{-1}\mathbf 1` is still the minimiser's direction; a row
    whose elimination breaks down (a zero pivot) is solved from the (C+1)×(C+1) KKT system instead.
    """
    n = rp.shape[0]
    i, j = pairs[:, 0], pairs[:, 1]
    eye = np.eye(k)
    r = np.ascontiguousarray(rp.T)
    # Q with the right-hand side 1 as an extra column, samples last
    # Q's upper triangle with the right-hand side 1 as an extra column, samples last; the lower
    # triangle is never read (Q is symmetric, and so is every trailing block of the elimination)
    Q = np.empty((k, k + 1, n))
    Q[i, j] = r * (r - 1.0)
    q = 1.0 - r
    diag = np.arange(k)
    Q[diag, diag] = eye[i].T @ (q * q) + eye[j].T @ (r * r)
    Q[:, k] = 1.0
    work = np.empty((k + 1, n))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for s in range(k - 1):
            # row t of the trailing block, from its diagonal on: Q[t, t:] -= (Q[s, t]/Q[s, s]) Q[s, t:]
            lead = Q[s, s + 1 : k] / Q[s, s]
            for t in range(s + 1, k):
                w = np.multiply(lead[t - s - 1], Q[s, t:], out=work[: k + 1 - t])
                Q[t, t:] -= w
        x = Q[:, k]
        x[k - 1] /= Q[k - 1, k - 1]
        for s in range(k - 2, -1, -1):
            x[s] -= np.einsum("tn,tn->n", Q[s, s + 1 : k], x[s + 1 :])
            x[s] /= Q[s, s]
        p = x.T / x.sum(axis=0)[:, None]
    bad = ~np.isfinite(p).all(axis=1)
    if bad.any():
        p[bad] = _wlw_kkt(rp[bad], pairs, k)
    p = np.maximum(p, 0.0)
    return p / p.sum(axis=1, keepdims=True)


def _wlw_kkt(rp: np.ndarray, pairs: np.ndarray, k: int) -> np.ndarray:
    """WLW probabilities from the (C+1)×(C+1) KKT system, one LAPACK solve per row."""
    n = rp.shape[0]
    i, j = pairs[:, 0], pairs[:, 1]
    eye = np.eye(k)
    M = np.zeros((n, k + 1, k + 1))
    off = -rp * (1.0 - rp)
    M[:, i, j] = off
    M[:, j, i] = off
    M[:, np.arange(k), np.arange(k)] = np.square(1.0 - rp) @ eye[i] + np.square(rp) @ eye[j]
    M[:, :k, k] = 1.0
    M[:, k, :k] = 1.0
    rhs = np.zeros((n, k + 1, 1))
    rhs[:, k, 0] = 1.0
    return np.linalg.solve(M, rhs)[:, :k, 0]
