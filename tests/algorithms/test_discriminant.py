"""GDA/KDA, KIFE and MMI (Liu et al. 2011 and its baselines): exact gradients, eigen-equations, mappings."""

import numpy as np
import pytest

from fsbench.algorithms.discriminant import (
    GDA,
    KDA,
    KIFE,
    MMI,
    kife_weights,
    lda_directions,
    neighborhood_mask,
    quadratic_mi,
)
from fsbench.algorithms.kernel_space import KOBL
from fsbench.algorithms.kernels import Kernel, sq_distances
from fsbench.algorithms.registry import get_selector

rng = np.random.default_rng(3)


def _nn1(Ztr, ytr, Zte, yte):
    return float(np.mean(ytr[np.argmin(sq_distances(Zte, Ztr), axis=1)] == yte))


def _blobs(n, n_classes, seed, d=4, sep=1.5):
    r = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    X = r.normal(size=(n, d))
    ang = 2 * np.pi * y / n_classes
    X[:, 0] += sep * np.cos(ang)
    X[:, 1] += sep * np.sin(ang)
    return X, y


def _torkkola_loops(Y, y, sigma):
    """V_IN + V_ALL - 2 V_BTW written as in Liu et al. eqs. (11)-(14), with explicit sums."""
    n = len(y)
    G = lambda u: np.exp(-(u @ u) / (4 * sigma**2))  # noqa: E731  G(u, 2σ²I)
    classes = np.unique(y)
    J = {p: np.sum(y == p) for p in classes}
    v_in = sum(
        G(Y[k] - Y[l]) for p in classes for k in np.flatnonzero(y == p) for l in np.flatnonzero(y == p)
    )
    v_all = sum((J[p] / n) ** 2 for p in classes) * sum(G(Y[k] - Y[l]) for k in range(n) for l in range(n))
    v_btw = sum(
        J[p] / n * sum(G(Y[j] - Y[k]) for j in np.flatnonzero(y == p) for k in range(n)) for p in classes
    )
    return (v_in + v_all - 2 * v_btw) / n**2


def _fd(fun, x, h=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = h
        g[idx] = (fun(x + e) - fun(x - e)) / (2 * h)
    return g


# --------------------------------------------------------------------------- quadratic MI
def test_quadratic_mi_equals_torkkola_sums():
    Y = rng.normal(size=(14, 2))
    y = np.array([0] * 5 + [1] * 6 + [2] * 3)
    val, _ = quadratic_mi(Y, y, 0.7)
    assert val == pytest.approx(_torkkola_loops(Y, y, 0.7), rel=1e-12)


def test_quadratic_mi_gradient_matches_finite_differences():
    Y = rng.normal(size=(12, 2))
    y = rng.integers(0, 3, 12)
    _, g = quadratic_mi(Y, y, 0.8)
    fd = _fd(lambda Z: quadratic_mi(Z, y, 0.8)[0], Y)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-10)


# --------------------------------------------------------------------------- KIFE
@pytest.mark.parametrize("counts", ["local", "global"])
def test_kife_with_all_neighbours_is_torkkola_mi(counts):
    # Liu et al. Theorem 1: k = N - 1 gives E(B) = V_IN + V_ALL - 2 V_BTW
    X, y = _blobs(24, 3, 0)
    est = KIFE(n_neighbors=100, counts=counts, max_iter=2, validation_fraction=None).fit(X, y)
    B = rng.normal(size=est.dual_coef_.shape)
    Y = est.K_ @ B
    assert est.objective(B, sigma=0.9) == pytest.approx(quadratic_mi(Y, y, 0.9)[0], rel=1e-10)


@pytest.mark.parametrize(("counts", "k"), [("local", 5), ("global", 5), ("local", 3), ("local", 100)])
def test_kife_gradient_matches_finite_differences(counts, k):
    X, y = _blobs(20, 3, 1)
    est = KIFE(n_neighbors=k, counts=counts, n_components=2, max_iter=3, validation_fraction=None).fit(X, y)
    B = est.dual_coef_ + 0.1 * rng.normal(size=est.dual_coef_.shape)
    nb = est.neighborhood(B)  # neighbourhoods (and σ) held fixed: E is smooth in B
    sigma = 0.5
    g = est.gradient(B, sigma=sigma, neighbors=nb)
    fd = _fd(lambda Bv: est.objective(Bv, sigma=sigma, neighbors=nb), B)
    assert np.abs(g).max() > 0
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-9 * np.abs(g).max())


def test_kife_paper_gradient_constant_is_off_by_two_for_one_sided_terms():
    # d/dy_i G(y_j - y_i, 2σ²I) = G (y_j - y_i)/(2σ²), not /σ² as in Liu et al. eq. (8)
    yi, yj, s = np.array([0.3, -0.2]), np.array([1.0, 0.4]), 0.6
    G = lambda a: np.exp(-np.sum((yj - a) ** 2) / (4 * s * s))  # noqa: E731
    fd = _fd(G, yi)
    np.testing.assert_allclose(fd, G(yi) * (yj - yi) / (2 * s * s), rtol=1e-7)


def test_kife_weights_and_neighbourhoods():
    Y = np.array([[0.0], [0.1], [0.2], [5.0], [5.1]])
    nb = neighborhood_mask(Y, 1)
    assert nb.sum(axis=1).tolist() == [2] * 5 and np.all(np.diag(nb))
    assert nb[3, 4] and nb[4, 3] and not nb[0, 3]
    y = np.array([0, 0, 1, 1, 1])
    Om = kife_weights(y, 2, nb, 1, "local")
    # point 0: neighbourhood {0, 1}, both class 0 → a = (1 - 2/2)² + 0 = 0
    assert Om[0, 0] == 0 and Om[0, 1] == 0
    # point 2: {2, 1}, one of each → a = (1 - 1/2)² + (1/2)² = 1/2: +a on itself, -(1-a) on point 1
    assert Om[2, 2] == pytest.approx(0.5 / 25) and Om[2, 1] == pytest.approx(-0.5 / 25)


def test_kife_gda_initialisation_reproduces_gda_projection():
    X, y = _blobs(40, 3, 2)
    kife = KIFE(max_iter=0).fit(X, y)
    gda = GDA(n_components=2).fit(X, y)
    # K B0 equals GDA's centred projection up to a constant shift per direction
    diff = kife.embedding_ - gda.embedding_
    np.testing.assert_allclose(diff - diff.mean(axis=0), 0, atol=1e-8)
    Xt = rng.normal(size=(5, 4))
    dt = kife.transform(Xt) - gda.transform(Xt)
    np.testing.assert_allclose(dt - diff.mean(axis=0), 0, atol=1e-8)


def test_kife_ascent_and_validation_bookkeeping():
    X, y = _blobs(90, 3, 4, sep=1.2)
    est = KIFE(max_iter=15).fit(X, y)
    assert est.n_iter_ >= 1 and est.best_iter_ is not None and est.n_steps_ <= est.best_iter_
    assert est.validation_scores_[0] <= est.validation_scores_.max()
    plain = KIFE(max_iter=10, validation_fraction=None).fit(X, y)
    assert plain.best_iter_ is None and plain.n_steps_ == plain.history_.size <= 10
    lda = KIFE(init="lda", max_iter=5, validation_fraction=None).fit(X, y)
    assert lda.n_components_ == 2 and np.all(np.isfinite(lda.embedding_))


# --------------------------------------------------------------------------- MMI / LDA
def test_mmi_gradient_matches_finite_differences():
    X, y = _blobs(25, 3, 5, d=3)
    est = MMI(n_components=2, max_iter=3).fit(X, y)
    W = est.components_.T + 0.05 * rng.normal(size=(3, 2))
    g = est.gradient(W, sigma=0.7)
    fd = _fd(lambda Wv: est.objective(Wv, sigma=0.7), W)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-10)


def test_mmi_is_orthonormal_and_increases_mi():
    X, y = _blobs(60, 3, 6, d=5, sep=1.0)
    est = MMI(n_components=2).fit(X, y)
    W = est.components_
    np.testing.assert_allclose(W @ W.T, np.eye(2), atol=1e-10)
    start = MMI(n_components=2, max_iter=0).fit(X, y)
    assert est.objective(est.components_.T, sigma=est.sigma_) > start.objective(
        start.components_.T, sigma=est.sigma_
    )


def test_lda_directions_solve_the_generalised_eigenproblem():
    X, y = _blobs(50, 3, 7, d=4)
    W, lam = lda_directions(X, y, 3, reg=0.0)
    means = np.array([X[y == c].mean(0) for c in range(3)])
    Sw = sum((X[y == c] - means[c]).T @ (X[y == c] - means[c]) for c in range(3))
    Sb = sum(np.sum(y == c) * np.outer(means[c] - X.mean(0), means[c] - X.mean(0)) for c in range(3))
    np.testing.assert_allclose(Sb @ W[:, :2], Sw @ W[:, :2] * lam[:2], atol=1e-8)
    assert lam[0] >= lam[1] > 1e-6 and abs(lam[2]) < 1e-8


# --------------------------------------------------------------------------- GDA / KDA
def test_gda_satisfies_generalised_eigen_equation():
    X, y = _blobs(45, 3, 8)
    gda = GDA(eig_tol=1e-12).fit(X, y)
    K = Kernel("rbf", gamma=gda.kernel_.gamma).gram(X)
    n = len(y)
    H = np.eye(n) - 1.0 / n
    Kc = H @ K @ H
    Wb = np.zeros((n, n))
    for c in range(3):
        idx = np.flatnonzero(y == c)
        Wb[np.ix_(idx, idx)] = 1.0 / idx.size
    A = gda.dual_coef_
    assert gda.n_components_ == 2 and np.all((gda.eigenvalues_ > 0) & (gda.eigenvalues_ <= 1 + 1e-9))
    lhs = Kc @ Wb @ Kc @ A
    rhs = Kc @ Kc @ A * gda.eigenvalues_
    np.testing.assert_allclose(lhs, rhs, atol=1e-6 * np.abs(lhs).max())
    np.testing.assert_allclose(np.einsum("ij,ij->j", A, Kc @ A), 1.0, rtol=1e-8)
    # test points: centred with the training statistics (standard formula, written out)
    Xt = rng.normal(size=(7, 4))
    Kt = Kernel("rbf", gamma=gda.kernel_.gamma).gram(Xt, X)
    one_n, one_t = np.full((n, n), 1.0 / n), np.full((7, n), 1.0 / n)
    Kt_c = Kt - one_t @ K - Kt @ one_n + one_t @ K @ one_n
    np.testing.assert_allclose(gda.transform(Xt), Kt_c @ A, atol=1e-10)


def test_kda_uses_kobl_dimension_capped_at_c_minus_1():
    X, y = _blobs(60, 2, 9)
    kobl = KOBL().fit(X)
    # a fixed eigenvalue floor for both, so that completion is the only difference
    kda = KDA(eig_tol=1e-6).fit(X, y)
    assert kda.n_components_requested_ == kobl.n_components_ > 1
    assert kda.n_components_ == 1
    full = KDA(complete=True, eig_tol=1e-6).fit(X, y)
    assert full.n_components_ == kobl.n_components_
    np.testing.assert_allclose(full.embedding_[:, 0], kda.embedding_[:, 0], atol=1e-10)
    np.testing.assert_allclose(full.eigenvalues_[1:], 0, atol=1e-8)
    # completed directions have unit norm in feature space; E(M) decreases with more directions
    assert full.reconstruction_cost_ < kda.reconstruction_cost_


# --------------------------------------------------------------------------- transformers
@pytest.mark.parametrize("name", ["gda", "kda", "kife", "mmi"])
def test_transform_of_training_data_equals_fit_time_coordinates(name):
    X, y = _blobs(50, 3, 10)
    est = get_selector(name).fit(X, y)
    assert est.kind == "transform" and not hasattr(est, "ranking_")
    np.testing.assert_allclose(est.transform(X), est.embedding_, atol=1e-8)
    Xt = rng.normal(size=(6, 4))
    np.testing.assert_allclose(est.transform(Xt)[2:4], est.transform(Xt[2:4]), atol=1e-10)


@pytest.mark.parametrize("cls", [KIFE, GDA, MMI])
def test_1nn_on_projection_beats_chance(cls):
    # 3 classes on a ring in 2 of 4 dimensions; chance = 1/3; measured 0.89-0.97 over 4 draws
    X, y = _blobs(90, 3, 11, sep=2.5)
    Xt, yt = _blobs(300, 3, 12, sep=2.5)
    est = cls().fit(X, y)
    acc = _nn1(est.embedding_, y, est.transform(Xt), yt)
    assert acc > 0.6, acc


def test_kda_eq19_expansion_residual_bounds_the_projection_residual():
    """Eq. (19) line 2 (Σ⟨v_j, φ⟩v_j) is a point of the span, so its residual is never below the orthogonal
    projection's (line 1); with KDA's single unit-norm discriminant direction the two are equal."""
    X, y = _blobs(60, 2, 4)
    one = KDA(n_components=1, eig_tol=1e-3).fit(X, y)
    assert one.reconstruction_cost(formula="expansion") == pytest.approx(one.reconstruction_cost(), rel=1e-9)
    full = KDA(n_components=8, complete=True, eig_tol=1e-3).fit(X, y)
    span, expn = full.reconstruction_cost(), full.reconstruction_cost(formula="expansion")
    assert expn >= span - 1e-12
    assert full.reconstruction_cost(X[:10], formula="expansion") >= full.reconstruction_cost(X[:10]) - 1e-12
    with pytest.raises(ValueError, match="formula"):
        full.reconstruction_cost(formula="bogus")
