"""Multiclass SVM with probabilities: Platt scaling, pairwise coupling, the classifiers."""

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.datasets import make_blobs

from fsbench.algorithms.coupling import (
    couple_hastie_tibshirani,
    couple_wu_lin_weng,
    platt_fit,
    platt_proba,
    platt_targets,
)
from fsbench.algorithms.kernels import Kernel, joachims_C, origin_sq_distances
from fsbench.algorithms.svm import PairwiseCouplingSVC, PairwiseKernelSVC


def _random_r(rng, n, k):
    r = np.zeros((n, k, k))
    iu = np.triu_indices(k, 1)
    r[:, iu[0], iu[1]] = rng.uniform(0.02, 0.98, size=(n, iu[0].size))
    return r


def _ht_objective(p, r, W):
    k = p.size
    val = 0.0
    for i in range(k):
        for j in range(i + 1, k):
            mu = p[i] / (p[i] + p[j])
            rij = r[i, j]
            val += W[i, j] * (rij * np.log(rij / mu) + (1 - rij) * np.log((1 - rij) / (1 - mu)))
    return val


@pytest.mark.parametrize("k", [3, 4, 6])
def test_hastie_tibshirani_matches_brute_force_minimum(k):
    rng = np.random.default_rng(k)
    r = _random_r(rng, 4, k)
    W = rng.integers(20, 200, size=(k, k)).astype(float)
    W = np.triu(W, 1) + np.triu(W, 1).T
    p, n_iter = couple_hastie_tibshirani(r, W, tol=1e-10, max_iter=100000)
    assert n_iter < 100000
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    for s in range(r.shape[0]):
        # minimise the weighted KL objective on the simplex (softmax parametrisation)
        res = minimize(
            lambda th, s=s: _ht_objective(np.exp(th - th.max()) / np.exp(th - th.max()).sum(), r[s], W),
            np.zeros(k),
            method="BFGS",
            options={"gtol": 1e-11},
        )
        q = np.exp(res.x - res.x.max())
        q /= q.sum()
        np.testing.assert_allclose(p[s], q, atol=2e-5)
        assert _ht_objective(p[s], r[s], W) <= _ht_objective(q, r[s], W) + 1e-9


def test_hastie_tibshirani_default_tolerance_is_close():
    rng = np.random.default_rng(0)
    r = _random_r(rng, 50, 5)
    p_default, n_iter = couple_hastie_tibshirani(r)
    p_tight, _ = couple_hastie_tibshirani(r, tol=1e-12, max_iter=100000)
    assert 1 < n_iter <= 1000
    np.testing.assert_allclose(p_default, p_tight, atol=1e-4)


def test_wu_lin_weng_matches_brute_force_qp():
    rng = np.random.default_rng(1)
    k = 5
    r = _random_r(rng, 6, k)
    p = couple_wu_lin_weng(r)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert np.all(p >= 0)
    full = r.copy()
    iu = np.triu_indices(k, 1)
    full[:, iu[1], iu[0]] = 1 - r[:, iu[0], iu[1]]
    for s in range(r.shape[0]):
        R = full[s]
        Q = -R * R.T
        np.fill_diagonal(Q, (R**2).sum(axis=0) - np.diag(R) ** 2)
        res = minimize(
            lambda q, Q=Q: 0.5 * q @ Q @ q,
            np.full(k, 1.0 / k),
            jac=lambda q, Q=Q: Q @ q,
            constraints=[{"type": "eq", "fun": lambda q: q.sum() - 1}],
            bounds=[(0, 1)] * k,
            method="SLSQP",
            options={"ftol": 1e-14, "maxiter": 1000},
        )
        np.testing.assert_allclose(p[s], res.x, atol=1e-6)


@pytest.mark.parametrize("couple", [couple_hastie_tibshirani, couple_wu_lin_weng])
def test_consistent_pairwise_probabilities_are_recovered(couple):
    rng = np.random.default_rng(2)
    truth = rng.dirichlet(np.ones(4), size=3)
    r = truth[:, :, None] / (truth[:, :, None] + truth[:, None, :])
    out = couple(r)
    p = out[0] if isinstance(out, tuple) else out
    np.testing.assert_allclose(p, truth, atol=1e-5)


def _platt_nll(ab, dec, t):
    f = dec * ab[0] + ab[1]
    return np.sum(np.logaddexp(0, f) - (1 - t) * f)  # −t log p − (1−t) log(1−p), p = 1/(1+e^f)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_platt_fit_matches_direct_minimisation(seed):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(80) < 0.4, 1, -1)
    dec = 1.5 * y + rng.normal(scale=1.2, size=80)
    A, B = platt_fit(dec, y)
    t = platt_targets(y)
    res = minimize(_platt_nll, np.zeros(2), args=(dec, t), method="BFGS", options={"gtol": 1e-10})
    np.testing.assert_allclose([A, B], res.x, atol=1e-4)
    assert A < 0  # a larger decision value means a larger P(y = +1)
    p = platt_proba(dec, A, B)
    assert np.all((p > 0) & (p < 1))


def test_platt_targets_are_libsvm_smoothing():
    t = platt_targets(np.array([1, 1, 1, -1, -1]))
    np.testing.assert_allclose(t, [4 / 5, 4 / 5, 4 / 5, 1 / 4, 1 / 4])


def test_platt_fit_separable_data_stays_finite():
    dec = np.array([-3.0, -2.0, -1.5, 1.0, 2.0, 4.0])
    A, B = platt_fit(dec, np.sign(dec))
    assert np.isfinite(A) and np.isfinite(B) and A < 0


def _three_blobs(seed=0, n=240):
    X, y = make_blobs(n, centers=[[0, 0, 0], [6, 0, 0], [0, 6, 0]], cluster_std=1.0, random_state=seed)
    return X, np.array(["a", "b", "c"])[y]


@pytest.mark.parametrize("coupling", ["hastie_tibshirani", "wu_lin_weng"])
def test_easy_three_class_problem(coupling):
    X, y = _three_blobs()
    Xtr, ytr, Xte, yte = X[:150], y[:150], X[150:], y[150:]
    clf = PairwiseKernelSVC(kernel="rbf", coupling=coupling, random_state=0).fit(Xtr, ytr)
    P = clf.predict_proba(Xte)
    assert P.shape == (90, 3)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert np.all(P >= 0)
    pred = clf.predict(Xte)
    np.testing.assert_array_equal(pred, clf.classes_[P.argmax(axis=1)])
    assert np.mean(pred == yte) >= 0.97
    dfn = clf.decision_function(Xte)
    assert dfn.shape == (90, 3)
    np.testing.assert_array_equal(clf.classes_[dfn.argmax(axis=1)], pred)
    assert clf.pairwise_decision(Xte).shape == (90, 3)  # C(C-1)/2 = 3 pairs


def test_precomputed_classifier_and_joachims_C_per_pair():
    X, y = _three_blobs(1, 150)
    kern = Kernel("rbf", gamma="median").resolved(X)
    K = kern.gram(X)
    clf = PairwiseCouplingSVC(random_state=0).fit(K, y, origin_sq_dist=origin_sq_distances(kern, X))
    np.testing.assert_array_equal(clf.pairs_, [[0, 1], [0, 2], [1, 2]])
    for (i, j), C in zip(clf.pairs_, clf.pair_C_, strict=True):
        mask = np.isin(y, clf.classes_[[i, j]])
        assert C == pytest.approx(joachims_C(kern, X[mask]))
        assert clf.pair_counts_[list(map(tuple, clf.pairs_)).index((i, j))] == mask.sum()
    # same result as the raw-feature wrapper
    wrap = PairwiseKernelSVC(kernel="rbf", random_state=0).fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(K), wrap.predict_proba(X), atol=1e-10)
    # decision values use only the support columns
    dec = clf.pairwise_decision(K)
    np.testing.assert_allclose(dec, clf.pairwise_decision(K[:, clf.support_], support_only=True))
    # positive pairwise decision favours the pair's first class
    first = y == clf.classes_[0]
    assert np.mean(dec[first, 0] > 0) > 0.9
    with pytest.raises(ValueError, match="origin_sq_dist"):
        PairwiseCouplingSVC().fit(K, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(K[:, :10])


def test_fixed_C_binary_and_reproducibility():
    X, y = _three_blobs(2, 160)
    keep = y != "c"
    X, y = X[keep], y[keep]
    K = X @ X.T
    a = PairwiseCouplingSVC(C=0.5, random_state=3).fit(K, y)
    b = PairwiseCouplingSVC(C=0.5, random_state=3).fit(K, y)
    c = PairwiseCouplingSVC(C=0.5, random_state=4).fit(K, y)
    np.testing.assert_array_equal(a.pair_C_, [0.5])
    np.testing.assert_array_equal(a.predict_proba(K), b.predict_proba(K))
    assert (a.probA_[0], a.probB_[0]) != (c.probA_[0], c.probB_[0])  # the CV folds differ
    P = a.predict_proba(K)
    # two classes: the coupled probability is the Platt sigmoid itself (clipped)
    r = np.clip(platt_proba(a.pairwise_decision(K)[:, 0], a.probA_[0], a.probB_[0]), 1e-7, 1 - 1e-7)
    np.testing.assert_allclose(P[:, 0], r, atol=1e-6)
    df = a.decision_function(K)
    assert df.shape == (K.shape[0],)
    np.testing.assert_allclose(df, np.log(P[:, 1]) - np.log(P[:, 0]))
    np.testing.assert_array_equal(a.classes_[(df > 0).astype(int)], a.predict(K))
    assert np.mean((df > 0) == (y == a.classes_[1])) > 0.9


@pytest.mark.parametrize(
    "est",
    [PairwiseKernelSVC(n_folds=2, random_state=0), PairwiseCouplingSVC(C=1.0, n_folds=2, random_state=0)],
    ids=["kernel", "precomputed"],
)
def test_sklearn_classifier_checks(est):
    from sklearn.utils.estimator_checks import check_estimator

    expected = {}
    if isinstance(est, PairwiseCouplingSVC):
        # this check feeds raw (n, 2) features to a precomputed-kernel estimator (ignores the pairwise tag)
        expected["check_decision_proba_consistency"] = "needs a square Gram matrix"
    res = check_estimator(est, on_fail=None, expected_failed_checks=expected)
    failed = [r["check_name"] for r in res if r["status"] == "failed"]
    assert failed == []


def test_class_block_decision_equals_dense_product():
    # _decision multiplies each class's support vectors with that class's pairs only; same values
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 5))
    y = np.argmax(X[:, :4] + 0.5 * rng.normal(size=(120, 4)), axis=1)
    clf = PairwiseKernelSVC(C=1.0, random_state=0).fit(X, y)
    svc = clf.svc_
    Ks = clf.kernel_.gram(X, clf.support_vectors_)
    dense = Ks @ svc.dual_coef_ + svc.intercept_
    np.testing.assert_allclose(svc._decision(Ks), dense, rtol=1e-12, atol=1e-12)
    # bitwise the accumulation intercept + block i + block j into each pair's column, with the block
    # products computed transposed as _decision does
    acc = np.tile(svc.intercept_, (Ks.shape[0], 1))
    cls_sv = np.searchsorted(svc.classes_, y[svc.support_])
    for c in np.unique(cls_sv):
        a, b = np.searchsorted(cls_sv, [c, c + 1])
        cols = np.flatnonzero((svc.pairs_[:, 0] == c) | (svc.pairs_[:, 1] == c))
        acc[:, cols] += (np.ascontiguousarray(svc.dual_coef_[a:b][:, cols].T) @ Ks[:, a:b].T).T
    np.testing.assert_array_equal(svc._decision(Ks), acc)
    # support vectors are grouped by class, and a pair's column is zero outside its two classes
    cls = np.searchsorted(svc.classes_, y[svc.support_])
    assert np.all(np.diff(cls) >= 0)
    for p, (i, j) in enumerate(svc.pairs_):
        assert not np.any(svc.dual_coef_[(cls != i) & (cls != j), p])


@pytest.mark.parametrize("seed", range(4))
def test_direct_libsvm_fit_is_bitwise_svc(seed):
    # _fit_binary calls scikit-learn's libsvm binding directly (SVC.fit's validation dominated the
    # pairwise fits); the machine must be exactly the one SVC(kernel="precomputed") trains
    from sklearn.svm import SVC

    from fsbench.algorithms.svm import _binary_parts, _fit_binary

    rng = np.random.default_rng(seed)
    n = 30 + 17 * seed
    X = rng.normal(size=(n, 4))
    yb = np.where(X[:, 0] + 0.8 * rng.normal(size=n) > 0.3 * seed, 1, -1)
    K = Kernel("rbf", gamma=0.4).gram(X) if seed % 2 else X @ X.T
    C = [0.3, 1.0, 7.0, 100.0][seed]
    got = _fit_binary(K, yb, C, 1e-3)
    want = _binary_parts(SVC(kernel="precomputed", C=C, tol=1e-3).fit(K, yb))
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert got[2] == want[2]


@pytest.mark.parametrize("seed", range(3))
def test_direct_libsvm_fit_on_kept_points_is_bitwise_the_submatrix_fit(seed):
    # the Platt CV trains on K with the test fold weighted 0 instead of copying K[train][:, train]
    from sklearn.svm import SVC

    from fsbench.algorithms.svm import _binary_parts, _fit_binary

    rng = np.random.default_rng(10 + seed)
    n = 60 + 40 * seed
    X = rng.normal(size=(n, 4))
    yb = np.where(X[:, 1] + rng.normal(size=n) > 0, 1, -1)
    K = Kernel("rbf", gamma=0.3).gram(X)
    keep = rng.integers(0, 5, n) != 0
    got = _fit_binary(K, yb, 2.0, 1e-3, keep=keep)
    sub = np.flatnonzero(keep)
    want = _binary_parts(SVC(kernel="precomputed", C=2.0, tol=1e-3).fit(K[np.ix_(sub, sub)], yb[sub]))
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert got[2] == want[2]
