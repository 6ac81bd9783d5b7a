r"""FSPP as it was before the speed-up of issue #15: the "before" of benchmark (d), the oracle of the tests.

A frozen, trimmed copy of ``fsbench.algorithms.sensitivity.FSPP`` (commit bf2f977) and of the parts of
``fsbench.algorithms.svm`` / ``fsbench.algorithms.kernels`` that the speed-up changed:

* the pairwise classifier trains every binary machine through ``sklearn.svm.SVC(kernel="precomputed")``
  (45 machines and 5×45 Platt-CV machines per elimination iteration on 10 classes);
* the Wu–Lin–Weng coupling solves the (C+1)×(C+1) KKT system with ``numpy.linalg.solve``;
* the sensitivity of feature j evaluates the posteriors of **all** R·N permuted rows, the kernel rows
  built by :func:`_permuted_column` (a gather and a product per row) and fed to the class-block
  decision product in cache-sized blocks.

The median rule for the RBF width is computed as it was (through ``np.triu_indices``). What it
imports from fsbench (kernels and their statistics, Joachims' C, the Platt fit and sigmoid, the
Hastie–Tibshirani fixed point, the elimination schedule, the ranking helpers) was not changed by the
speed-up, or only in speed with bitwise the same results. Same parameters, same random draws in
the same order as ``FSPP``: classifier seed, Platt CV folds, then the R permutations, once per
iteration.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from sklearn.svm import SVC
from sklearn.utils import check_random_state

from fsbench.algorithms.base import constant_features_last, ranking_from_order
from fsbench.algorithms.coupling import _couple_ht, platt_fit, platt_proba
from fsbench.algorithms.elimination import n_to_remove
from fsbench.algorithms.feature_statistics import column_statistic, feature_statistic, gram_from_statistic
from fsbench.algorithms.kernels import (
    joachims_C_from_sq_distances,
    make_kernel,
    origin_sq_distances,
    parse_gamma,
    sq_distances,
)

_MIN_PROB = 1e-7
_BLOCK_BYTES = 1 << 20


def _couple_wlw(rp: np.ndarray, pairs: np.ndarray, k: int) -> np.ndarray:
    """WLW coupling by one batched (k+1)×(k+1) KKT solve (``numpy.linalg.solve``)."""
    n = rp.shape[0]
    i, j = pairs[:, 0], pairs[:, 1]
    first = np.zeros((pairs.shape[0], k))
    first[np.arange(pairs.shape[0]), i] = 1.0
    second = np.zeros_like(first)
    second[np.arange(pairs.shape[0]), j] = 1.0
    M = np.zeros((n, k + 1, k + 1))
    off = -rp * (1.0 - rp)
    M[:, i, j] = off
    M[:, j, i] = off
    M[:, np.arange(k), np.arange(k)] = np.square(1.0 - rp) @ first + np.square(rp) @ second
    M[:, :k, k] = 1.0
    M[:, k, :k] = 1.0
    rhs = np.zeros((n, k + 1, 1))
    rhs[:, k, 0] = 1.0
    p = np.linalg.solve(M, rhs)[:, :k, 0]
    p = np.maximum(p, 0.0)
    return p / p.sum(axis=1, keepdims=True)


def _resolved(kern, X):
    """``kern.resolved(X)`` with the median rule as it was computed (through ``np.triu_indices``)."""
    if kern.name != "rbf" or not isinstance(kern.gamma, str):
        return kern.resolved(X)
    base, factor = parse_gamma(kern.gamma)
    if base != "median" or X.shape[0] < 2:
        return kern.resolved(X)
    d2 = sq_distances(X)[np.triu_indices(X.shape[0], k=1)]
    d2 = d2[d2 > 1e-10 * max(float(np.einsum("ij,ij->i", X, X).max()), 1e-300)]
    med = float(np.median(d2)) if d2.size else 0.0
    return replace(kern, gamma=factor * (1.0 / med if med > 0 else 1.0))


class ReferencePairwiseSVC:
    """One-vs-one SVMs (SVC per pair and per Platt-CV fold), Platt sigmoids, pairwise coupling."""

    def __init__(self, kernel, C, coupling, n_folds, random_state):
        self.kernel, self.C, self.coupling, self.n_folds = kernel, C, coupling, n_folds
        self.random_state, self.tol, self.coupling_tol, self.max_iter = random_state, 1e-3, 1e-6, 1000

    def _binary(self, K, yb, C):
        svc = SVC(kernel="precomputed", C=C, tol=self.tol).fit(K, yb)
        return svc.support_, svc.dual_coef_[0].copy(), float(svc.intercept_[0])

    def _cv_decisions(self, Kp, yb, C, rng):
        n = yb.size
        fold = np.empty(n, dtype=int)
        for lab in (1, -1):
            members = np.flatnonzero(yb == lab)
            fold[rng.permutation(members)] = np.arange(members.size) % self.n_folds
        dec = np.zeros(n)
        for f in range(self.n_folds):
            test = np.flatnonzero(fold == f)
            if test.size == 0:
                continue
            train = np.flatnonzero(fold != f)
            ytr = yb[train]
            n_pos = int((ytr > 0).sum())
            if ytr.size == 0:
                dec[test] = 0.0
            elif n_pos == ytr.size:
                dec[test] = 1.0
            elif n_pos == 0:
                dec[test] = -1.0
            else:
                sv, coef, icpt = self._binary(Kp[np.ix_(train, train)], ytr, C)
                dec[test] = Kp[np.ix_(test, train[sv])] @ coef + icpt
        return dec

    def fit(self, X, y):
        """``y``: class indices 0..C-1."""
        kern = _resolved(make_kernel(self.kernel[0], **self.kernel[1]), X)
        d2 = origin_sq_distances(kern, X) if self.C is None else None
        K = kern.gram(X)
        k = int(y.max()) + 1
        rng = check_random_state(self.random_state)
        pairs, counts, svs, coefs, b, A, B = [], [], [], [], [], [], []
        for i in range(k):
            for j in range(i + 1, k):
                idx = np.flatnonzero((y == i) | (y == j))
                yb = np.where(y[idx] == i, 1, -1)
                C = float(self.C) if self.C is not None else joachims_C_from_sq_distances(d2[idx])
                Kp = K[np.ix_(idx, idx)]
                sv, coef, icpt = self._binary(Kp, yb, C)
                a_, b_ = platt_fit(self._cv_decisions(Kp, yb, C, rng), yb)
                pairs.append((i, j))
                counts.append(idx.size)
                svs.append(idx[sv])
                coefs.append(coef)
                b.append(icpt)
                A.append(a_)
                B.append(b_)
        support = np.unique(np.concatenate(svs))
        support = support[np.lexsort((support, y[support]))]
        row = np.full(K.shape[0], -1)
        row[support] = np.arange(support.size)
        dual = np.zeros((support.size, len(pairs)))
        for p, (sv, coef) in enumerate(zip(svs, coefs, strict=True)):
            dual[row[sv], p] = coef
        self.pairs_ = np.asarray(pairs, dtype=int)
        sv_class = y[support]
        self.blocks_ = []
        for c in np.unique(sv_class):
            start, stop = np.searchsorted(sv_class, [c, c + 1])
            cols = np.flatnonzero((self.pairs_[:, 0] == c) | (self.pairs_[:, 1] == c))
            block = np.ascontiguousarray(dual[start:stop][:, cols])
            self.blocks_.append((int(start), int(stop), cols, block))
        self.k_, self.kernel_, self.support_vectors_ = k, kern, X[support]
        self.pair_counts_, self.dual_, self.intercept_ = np.asarray(counts), dual, np.asarray(b)
        self.probA_, self.probB_ = np.asarray(A), np.asarray(B)
        return self

    def decision(self, Ks):
        if self.k_ <= 2:
            return Ks @ self.dual_ + self.intercept_
        out = np.empty((Ks.shape[0], self.intercept_.size))
        out[:] = self.intercept_
        for start, stop, cols, coef in self.blocks_:
            out[:, cols] += Ks[:, start:stop] @ coef
        return out

    def proba(self, dec):
        rp = np.clip(platt_proba(dec, self.probA_, self.probB_), _MIN_PROB, 1.0 - _MIN_PROB)
        k = self.k_
        if self.coupling == "wu_lin_weng":
            return _couple_wlw(rp, self.pairs_, k)
        r = np.zeros((rp.shape[0], k, k))
        r[:, self.pairs_[:, 0], self.pairs_[:, 1]] = rp
        r[:, self.pairs_[:, 1], self.pairs_[:, 0]] = 1.0 - rp
        W = np.zeros((k, k))
        W[self.pairs_[:, 0], self.pairs_[:, 1]] = self.pair_counts_
        return _couple_ht(r, W + W.T, self.coupling_tol, self.max_iter)[0]


def _permuted_column(kernel, S, x, z):
    """rows(src, sl, out) of k(X', Z) with column x of X replaced row-wise by x[src]."""
    T = column_statistic(kernel, x, z)
    Sm = np.subtract(S, T)
    if kernel.name == "rbf":
        g = -kernel._gamma()
        np.maximum(Sm, 0.0, out=Sm)
        Sm *= g
        A = np.exp(Sm, out=Sm)
        T *= g
        E = np.exp(T, out=T)

        def rows(src, sl, out=None):
            blk = np.take(E, src, axis=0, out=out)
            blk *= A[sl]
            return blk

        return rows

    def rows(src, sl, out=None):
        blk = np.take(T, src, axis=0, out=out)
        blk += Sm[sl]
        blk[...] = gram_from_statistic(kernel, blk)
        return blk

    return rows


def sensitivities(params: dict, X: np.ndarray, y: np.ndarray, rng) -> np.ndarray:
    """Old ``FSPP.sensitivities``: scores of every column of ``X`` for one classifier fit."""
    rng = check_random_state(rng)
    kernel = (params["kernel"], {k: params[k] for k in ("gamma", "degree", "offset", "scale")})
    clf = ReferencePairwiseSVC(
        kernel, params["C"], params["coupling"], params["n_folds"], int(rng.randint(np.iinfo(np.int32).max))
    ).fit(X, y)
    kern, Z = clf.kernel_, clf.support_vectors_
    n = X.shape[0]
    S = feature_statistic(kern, X, Z)
    P = clf.proba(clf.decision(gram_from_statistic(kern, S)))
    perms = [rng.permutation(n) for _ in range(params["n_permutations"])]
    R = len(perms)
    scores = np.empty(X.shape[1])
    P_rep = np.tile(P, (R, 1))
    chunk = int(min(n, max(32, _BLOCK_BYTES // (8 * max(Z.shape[0], 1)))))
    buf = np.empty((chunk, Z.shape[0]))
    dec = np.empty((R * n, clf.intercept_.size))
    for j in range(X.shape[1]):
        rows = _permuted_column(kern, S, X[:, j], Z[:, j])
        for r, p in enumerate(perms):
            for a in range(0, n, chunk):
                b = min(a + chunk, n)
                dec[r * n + a : r * n + b] = clf.decision(rows(p[a:b], slice(a, b), out=buf[: b - a]))
        scores[j] = np.abs(clf.proba(dec) - P_rep).sum() / (n * R)
    return scores


DEFAULTS = dict(
    kernel="rbf",
    gamma="median",
    degree=3,
    offset=1.0,
    scale=1.0,
    C=None,
    coupling="wu_lin_weng",
    n_permutations=5,
    step=0.1,
    step_threshold=100,
    n_folds=5,
    random_state=None,
)


def fspp_fit(X: np.ndarray, y: np.ndarray, **params) -> tuple[np.ndarray, np.ndarray, int]:
    """Old ``FSPP(**params).fit(X, y)``: returns ``(ranking_, scores_, n_iter_)``."""
    params = DEFAULTS | params
    X = np.asarray(X, dtype=float)
    _, y = np.unique(y, return_inverse=True)
    rng = check_random_state(params["random_state"])
    remaining = np.arange(X.shape[1])
    worst_first, first_scores, n_iter = [], None, 0
    while remaining.size > 1:
        scores = sensitivities(params, X[:, remaining], y, rng)
        if first_scores is None:
            first_scores = scores
        m = n_to_remove(params["step"], remaining.size) if remaining.size > params["step_threshold"] else 1
        order = np.lexsort((-np.arange(remaining.size), scores))
        drop = remaining[order[:m]]
        worst_first.append(drop)
        remaining = np.setdiff1d(remaining, drop, assume_unique=True)
        n_iter += 1
    worst_first.append(remaining)
    ranking = constant_features_last(ranking_from_order(np.concatenate(worst_first)[::-1]), X)
    return ranking, (first_scores if first_scores is not None else np.zeros(X.shape[1])), n_iter
