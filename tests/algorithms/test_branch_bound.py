"""Ring & Eskofier 2015: RKHS criteria, Gaussian criteria, branch-and-bound searches, exhaustive wrapper."""

import warnings
from itertools import combinations
from math import comb

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.svm import SVC

from fsbench.algorithms.branch_bound import (
    BranchAndBound,
    ExhaustiveWrapper,
    NonMonotoneCriterionWarning,
    SubsetSearch,
)
from fsbench.algorithms.kernels import make_kernel
from fsbench.algorithms.rkhs_criteria import gaussian_criterion, is_monotone, rkhs_criterion

SEARCHES = ("narendra_fukunaga", "yu_yuan", "chen")


def two_class(seed, n=60, D=9, informative=4, shift=1.5):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.5).astype(int)
    X = rng.normal(size=(n, D))
    k = min(informative, D)
    X[:, :k] += y[:, None] * rng.uniform(0.2, shift, size=k)
    return X, y


def split(y):
    return np.flatnonzero(y == 0), np.flatnonzero(y == 1)


# ------------------------------------------------------------------------------ criteria
def test_mean_distance_equals_explicit_feature_map_poly2():
    X, y = two_class(0, n=30, D=2)
    phi = np.column_stack(
        [
            np.ones(len(X)),
            np.sqrt(2) * X[:, 0],
            np.sqrt(2) * X[:, 1],
            X[:, 0] ** 2,
            X[:, 1] ** 2,
            np.sqrt(2) * X[:, 0] * X[:, 1],
        ]
    )
    K = make_kernel("poly", degree=2, offset=1.0).gram(X)
    np.testing.assert_allclose(K, phi @ phi.T, rtol=1e-12)
    a, b = split(y)
    explicit = np.sum((phi[a].mean(0) - phi[b].mean(0)) ** 2)
    assert rkhs_criterion(K, a, b, "mean_distance") == pytest.approx(explicit, rel=1e-12)


def test_low_rank_criteria_are_projected_mean_and_covariance_terms_linear_kernel():
    """Linear kernel: J_KL = ½[Δmᵀ(I−P2)Δm + tr(Σ1^(r)(I−P2))], J_B = ⅛Δmᵀ(I−Π)Δm (our derivation)."""
    X, y = two_class(1, n=50, D=6)
    a, b = split(y)
    r = 2
    K = X @ X.T
    m1, m2 = X[a].mean(0), X[b].mean(0)
    S1 = np.cov(X[a], rowvar=False, bias=True)
    S2 = np.cov(X[b], rowvar=False, bias=True)
    l1, U1 = np.linalg.eigh(S1)
    l2, U2 = np.linalg.eigh(S2)
    U1, l1, U2 = U1[:, ::-1][:, :r], l1[::-1][:r], U2[:, ::-1][:, :r]
    P2 = U2 @ U2.T
    I = np.eye(6)
    dm = m1 - m2
    S1r = U1 @ np.diag(l1) @ U1.T
    kl = 0.5 * (dm @ (I - P2) @ dm + np.trace(S1r @ (I - P2)))
    assert rkhs_criterion(K, a, b, "kl", n_eigenvectors=r) == pytest.approx(kl, rel=1e-9)
    Q, _ = np.linalg.qr(np.hstack([U1, U2]))
    bh = 0.125 * dm @ (I - Q @ Q.T) @ dm
    assert rkhs_criterion(K, a, b, "bhattacharyya", n_eigenvectors=r) == pytest.approx(bh, rel=1e-8)


def test_rkhs_criteria_match_literal_ecst_formulas_poly():
    """Transcription check against ALGORITHMS.md §9.2 written with explicit n×n matrices."""
    X, y = two_class(2, n=40, D=4)
    a, b = split(y)
    K = make_kernel("poly", degree=3, offset=1.0).gram(X)
    K11, K12, K21, K22 = K[np.ix_(a, a)], K[np.ix_(a, b)], K[np.ix_(b, a)], K[np.ix_(b, b)]
    n1, n2, r, al = a.size, b.size, 3, 0.5
    s1, s2 = np.ones(n1) / n1, np.ones(n2) / n2
    a11, a12, a22 = s1 @ K11 @ s1, s1 @ K12 @ s2, s2 @ K22 @ s2

    def top(Kcc, s):
        n = Kcc.shape[0]
        J = (np.eye(n) - np.outer(s, np.ones(n))) / np.sqrt(n)
        lam, Q = np.linalg.eigh(J.T @ Kcc @ J)
        idx = np.argsort(lam)[::-1][:r]
        return lam[idx], J @ Q[:, idx]

    L1, V1 = top(K11, s1)
    L2, V2 = top(K22, s2)
    b11, b12, b21, b22 = K11 @ s1, K12 @ s2, K21 @ s1, K22 @ s2
    P = np.zeros((n1 + n2, 2 * r))
    P[:n1, :r] = np.sqrt(1 - al) * V1
    P[n1:, r:] = np.sqrt(al) * V2
    L12 = np.sqrt(al * (1 - al)) * V1.T @ K12 @ V2
    L = np.block([[al * np.diag(L1), L12], [L12.T, al * np.diag(L2)]])
    B = P @ np.linalg.inv(L) @ P.T
    u1, u2 = np.concatenate([b11, b21]), np.concatenate([b12, b22])
    xi11, xi12, xi22 = a11 - u1 @ B @ u1, a12 - u1 @ B @ u2, a22 - u2 @ B @ u2
    jb = 0.5 * al * (1 - al) * (xi11 + xi22 - 2 * xi12)
    assert rkhs_criterion(K, a, b, "bhattacharyya", r) == pytest.approx(jb, rel=1e-7)
    A1, B2 = V1 @ V1.T, V2 @ np.diag(1 / L2) @ V2.T
    t121, t222 = a11 - b21 @ B2 @ b21, a22 - b22 @ B2 @ b22
    t122, t221 = a12 - b21 @ B2 @ b22, a12 - b22 @ B2 @ b21
    eta = np.trace(A1 @ K12 @ B2 @ K21)
    jkl = 0.5 * (t121 + t222 - t122 - t221 + L1.sum() - eta)
    assert rkhs_criterion(K, a, b, "kl", r) == pytest.approx(jkl, rel=1e-7)
    assert rkhs_criterion(K, a, b, "mean_distance") == pytest.approx(a11 - 2 * a12 + a22, rel=1e-12)
    # KL is asymmetric: the class order matters
    assert rkhs_criterion(K, b, a, "kl", r) != pytest.approx(jkl, rel=1e-3)
    # regularisation shrinks the projections: with a huge ρ the KL tends to ½(‖Δm‖² + tr Λ1)
    big = rkhs_criterion(K, a, b, "kl", r, regularization=1e12)
    assert big == pytest.approx(0.5 * (a11 - 2 * a12 + a22 + L1.sum()), rel=1e-6)


def test_gaussian_criteria_one_dimensional_closed_forms():
    rng = np.random.default_rng(3)
    x1, x2 = rng.normal(1.0, 2.0, size=(200, 1)), rng.normal(-0.5, 0.7, size=(150, 1))
    # unbiased variances (ddof=1), as ECST's MathUtilities.covarianceMatrix
    m1, m2, v1, v2 = x1.mean(), x2.mean(), x1.var(ddof=1), x2.var(ddof=1)
    kl = np.log(np.sqrt(v2) / np.sqrt(v1)) + (v1 + (m1 - m2) ** 2) / (2 * v2) - 0.5
    bh = 0.25 * (m1 - m2) ** 2 / (v1 + v2) + 0.5 * np.log((v1 + v2) / (2 * np.sqrt(v1 * v2)))
    assert gaussian_criterion(x1, x2, "gaussian_kl") == pytest.approx(kl, rel=1e-12)
    assert gaussian_criterion(x1, x2, "gaussian_bhattacharyya") == pytest.approx(bh, rel=1e-12)


def test_gaussian_kl_matches_monte_carlo_and_bhattacharyya_symmetry():
    rng = np.random.default_rng(4)
    X1 = rng.multivariate_normal([0, 0, 1], [[2, 0.5, 0], [0.5, 1, 0.3], [0, 0.3, 1.5]], size=400)
    X2 = rng.multivariate_normal([1, -1, 0], [[1, -0.2, 0], [-0.2, 0.8, 0], [0, 0, 0.5]], size=300)
    kl = gaussian_criterion(X1, X2, "gaussian_kl")

    def logpdf(Z, X):
        mu, S = X.mean(0), np.cov(X, rowvar=False)
        d = Z - mu
        return -0.5 * (np.sum(d @ np.linalg.inv(S) * d, 1) + np.log(np.linalg.det(2 * np.pi * S)))

    mu1, S1 = X1.mean(0), np.cov(X1, rowvar=False)
    Z = np.random.default_rng(5).multivariate_normal(mu1, S1, size=200_000)
    mc = np.mean(logpdf(Z, X1) - logpdf(Z, X2))
    assert kl == pytest.approx(mc, rel=0.02)
    b12 = gaussian_criterion(X1, X2, "gaussian_bhattacharyya")
    assert b12 == pytest.approx(gaussian_criterion(X2, X1, "gaussian_bhattacharyya"), rel=1e-12)
    assert gaussian_criterion(X1, X1, "gaussian_kl") == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(FloatingPointError):
        gaussian_criterion(X1[:2], X2[:2], "gaussian_kl")  # singular covariances
    assert np.isfinite(gaussian_criterion(X1[:2], X2[:2], "gaussian_kl", regularization=0.1))


def test_monotonicity_poly_holds_and_rbf_can_fail():
    rng = np.random.default_rng(6)
    X, y = two_class(7, n=40, D=6)
    a, b = split(y)
    poly = make_kernel("poly", degree=3, offset=1.0)
    for _ in range(30):
        big = np.sort(rng.choice(6, size=int(rng.integers(2, 7)), replace=False))
        small = np.sort(rng.choice(big, size=int(rng.integers(1, big.size)), replace=False))
        j_small = rkhs_criterion(poly.gram(X[:, small]), a, b)
        j_big = rkhs_criterion(poly.gram(X[:, big]), a, b)
        assert j_small <= j_big + 1e-9 * abs(j_big)
    # RBF: adding a wide noise feature to a perfectly separating one lowers the mean distance
    y2 = np.repeat([0, 1], 10)
    X2 = np.column_stack([np.where(y2 == 1, 5.0, 0.0) + 0.01 * rng.normal(size=20), 50 * rng.normal(size=20)])
    rbf = make_kernel("rbf", gamma=0.5)
    a2, b2 = split(y2)
    assert rkhs_criterion(rbf.gram(X2[:, :1]), a2, b2) > rkhs_criterion(rbf.gram(X2), a2, b2)
    assert is_monotone("mean_distance", "poly", 3, 1.0) and is_monotone("gaussian_kl", "rbf")
    assert not is_monotone("mean_distance", "rbf") and not is_monotone("kl", "poly")
    assert not is_monotone("mean_distance", "poly", 2.5, 1.0)


def test_eigenvector_count_is_validated():
    X, y = two_class(8, n=12, D=3)
    a, b = split(y)
    K = X @ X.T
    with pytest.raises(ValueError):
        rkhs_criterion(K, a, b, "kl", n_eigenvectors=min(a.size, b.size))


# ------------------------------------------------------------------------------ searches
def test_searches_match_brute_force_on_random_monotone_functions():
    rng = np.random.default_rng(0)
    for _ in range(150):
        D = int(rng.integers(2, 9))
        d = int(rng.integers(1, D + 1))
        w, W = rng.random(D), rng.random((D, D)) * rng.random()

        def J(kept, w=w, W=W):
            return float(w[kept].sum() + W[np.ix_(kept, kept)].sum())

        best = max(J(np.array(c)) for c in combinations(range(D), d))
        for search in SEARCHES + ("exhaustive",):
            s = SubsetSearch(J, D, d, search).run()
            assert s.value == pytest.approx(best, rel=1e-12), (D, d, search)
            assert J(s.best) == pytest.approx(s.value) and s.best.size == d


def test_chen_first_leaf_keeps_first_d_features():
    calls = []

    def J(kept):
        calls.append(kept.tolist())
        return float(kept.sum())

    SubsetSearch(J, 7, 3, "chen").run()
    assert calls[0] == [0, 1, 2]


@pytest.mark.parametrize("seed,d", [(0, 3), (1, 3), (2, 5), (3, 2), (4, 7)])
def test_branch_and_bound_equals_exhaustive_optimum(seed, d):
    """Exact optimum for every variant; evaluation counts ≤ exhaustive where B&B pays off.

    The Narendra–Fukunaga ordering costs one evaluation per available feature at each expanded
    node, so NF/Yu–Yuan can exceed C(D, d) when d is small relative to D (here d = 2: up to 48
    vs 36); only Chen is checked there.
    """
    X, y = two_class(seed)
    ex = BranchAndBound(d=d, search="exhaustive").fit(X, y)
    assert ex.n_evaluations_ == comb(X.shape[1], d)
    J = ex.criterion_function(X, y)
    brute = max(combinations(range(X.shape[1]), d), key=lambda c: J(np.array(c)))
    assert ex.subset_.tolist() == list(brute)
    for search in SEARCHES:
        with warnings.catch_warnings():
            warnings.simplefilter("error", NonMonotoneCriterionWarning)  # poly mean distance: no warning
            bb = BranchAndBound(d=d, search=search).fit(X, y)
        assert bb.subset_.tolist() == ex.subset_.tolist(), search
        assert bb.criterion_value_ == pytest.approx(ex.criterion_value_, rel=1e-12)
        if search == "chen" or d >= 3:
            assert bb.n_evaluations_ <= ex.n_evaluations_, search
        assert bb.optimality_guaranteed_
    chen = BranchAndBound(d=d, search="chen").fit(X, y)
    assert chen.n_evaluations_ < ex.n_evaluations_


def test_gaussian_criteria_through_the_estimator_and_class_order():
    X, y = two_class(4, n=80, D=5)
    for crit in ("gaussian_kl", "gaussian_bhattacharyya"):
        ex = BranchAndBound(d=2, criterion=crit, search="exhaustive").fit(X, y)
        bb = BranchAndBound(d=2, criterion=crit, search="chen").fit(X, y)
        assert bb.subset_.tolist() == ex.subset_.tolist()
    full = BranchAndBound(d=5, criterion="gaussian_kl").fit(X, y)
    a, b = split(y)
    assert full.criterion_value_ == pytest.approx(gaussian_criterion(X[a], X[b], "gaussian_kl"))
    labels = np.where(y == 0, "b", "a")  # classes_[0] = "a" = our class 1 → KL(X[b] ‖ X[a])
    swapped = BranchAndBound(d=5, criterion="gaussian_kl").fit(X, labels)
    assert swapped.criterion_value_ == pytest.approx(gaussian_criterion(X[b], X[a], "gaussian_kl"))


def test_ranking_subset_first_and_attributes():
    X, y = two_class(5)
    bb = BranchAndBound(d=3).fit(X, y)
    assert np.all(np.diff(bb.subset_) > 0)
    assert set(bb.order_[:3]) == set(bb.subset_.tolist())
    assert sorted(bb.ranking_) == list(range(1, X.shape[1] + 1))
    J = bb.criterion_function(X, y)
    assert bb.criterion_value_ == pytest.approx(J(bb.subset_))
    # the 4th feature is the best single addition to the subset
    others = np.setdiff1d(np.arange(X.shape[1]), bb.subset_)
    gains = [J(np.sort(np.append(bb.subset_, f))) for f in others]
    assert bb.order_[3] == others[int(np.argmax(gains))]
    assert BranchAndBound(d=20).fit(X, y).subset_.tolist() == list(range(X.shape[1]))


@pytest.mark.parametrize(
    "params",
    [{"kernel": "rbf", "criterion": "mean_distance"}, {"criterion": "kl"}, {"criterion": "bhattacharyya"}],
)
def test_non_monotone_criteria_warn(params):
    X, y = two_class(6, n=40, D=5)
    with pytest.warns(NonMonotoneCriterionWarning):
        bb = BranchAndBound(d=2, **params).fit(X, y)
    assert not bb.optimality_guaranteed_
    with warnings.catch_warnings():
        warnings.simplefilter("error", NonMonotoneCriterionWarning)
        ex = BranchAndBound(d=2, search="exhaustive", **params).fit(X, y)
    assert ex.optimality_guaranteed_


def test_multiclass_is_sum_over_pairs():
    X, y = two_class(7, n=60, D=4)
    y3 = y + (X[:, 3] > 1).astype(int) * 2 * (1 - y)
    bb = BranchAndBound(d=4).fit(X, y3)
    K = make_kernel("poly", degree=3, offset=1.0).gram(X)
    g = [np.flatnonzero(y3 == c) for c in range(3)]
    total = sum(rkhs_criterion(K, g[i], g[j]) for i, j in ((0, 1), (0, 2), (1, 2)))
    assert bb.criterion_value_ == pytest.approx(total)


# ------------------------------------------------------------------------------ wrapper
def test_exhaustive_wrapper_scores_and_optimum():
    X, y = two_class(8, n=60, D=5, informative=2, shift=3.0)
    w = ExhaustiveWrapper(d=2, cv=3).fit(X, y)
    assert w.n_evaluations_ == comb(5, 2)
    assert set(w.subset_.tolist()) == {0, 1}
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    Xs = X[:, w.subset_]
    K = make_kernel("rbf", gamma=1.0 / (2 * 2)).gram(Xs)
    acc = cross_val_score(SVC(kernel="precomputed", C=1.0), K, y, cv=folds).mean()
    assert w.criterion_value_ == pytest.approx(acc)
    assert set(w.order_[:2]) == {0, 1}
