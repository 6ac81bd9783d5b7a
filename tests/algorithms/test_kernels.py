"""The shared kernel module: Gram matrices, scale-factor gradients, Joachims' C, targets."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel

from fsbench.algorithms.kernels import Kernel, joachims_C, origin_sq_distances, resolve_gamma, sq_distances
from fsbench.algorithms.targets import class_target

rng = np.random.default_rng(0)
X = rng.normal(size=(15, 4))
Z = rng.normal(size=(7, 4))


def test_gram_matches_sklearn():
    np.testing.assert_allclose(Kernel("linear").gram(X, Z), X @ Z.T)
    np.testing.assert_allclose(Kernel("rbf", gamma=0.3).gram(X, Z), rbf_kernel(X, Z, gamma=0.3), atol=1e-12)
    np.testing.assert_allclose(
        Kernel("poly", degree=3, offset=1.5, scale=0.7).gram(X, Z),
        polynomial_kernel(X, Z, degree=3, gamma=0.7, coef0=1.5),
    )


@pytest.mark.parametrize("name", ["linear", "rbf", "poly"])
def test_scaled_kernel_is_kernel_of_scaled_data(name):
    k = Kernel(name, gamma=0.2, degree=2)
    w = rng.uniform(0.1, 2, 4)
    np.testing.assert_allclose(k.gram(X, Z, w=w), k.gram(X * w, Z * w), atol=1e-12)
    np.testing.assert_allclose(k.diag(X, w), np.diag(k.gram(X, w=w)), atol=1e-12)
    np.testing.assert_allclose(k.with_zero(X, w), k.gram(X * w, np.zeros((1, 4)))[:, 0], atol=1e-12)
    assert k.zero_zero() == pytest.approx(k.gram(np.zeros((1, 4)))[0, 0])


@pytest.mark.parametrize("name", ["linear", "rbf", "poly"])
def test_scale_gradient_equals_finite_differences(name):
    k = Kernel(name, gamma=0.15, degree=3, offset=1.0, scale=0.5)
    w = rng.uniform(0.5, 1.5, 4)
    M = rng.normal(size=(15, 15))  # not symmetric on purpose
    g = k.scale_gradient(X, M, k.gram(X, w=w), w)
    eps = 1e-6
    fd = np.array(
        [
            (np.vdot(M, k.gram(X, w=w + eps * e)) - np.vdot(M, k.gram(X, w=w - eps * e))) / (2 * eps)
            for e in np.eye(4)
        ]
    )
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


def test_joachims_C_by_hand():
    # linear: R̄ = mean ‖x_i‖
    Xs = np.array([[3.0, 4.0], [0.0, 1.0], [6.0, 8.0]])  # norms 5, 1, 10 → mean 16/3
    assert joachims_C(Kernel("linear"), Xs) == pytest.approx(1.0 / (16 / 3) ** 2)
    # rbf: ‖φ(x) − φ(0)‖² = 2 − 2 exp(−γ‖x‖²)
    g = 0.01
    d = np.sqrt(2 - 2 * np.exp(-g * np.array([25.0, 1.0, 100.0])))
    assert joachims_C(Kernel("rbf", gamma=g), Xs) == pytest.approx(1.0 / d.mean() ** 2)
    # poly (1 + ⟨x,z⟩)²: K(x,x) − 2K(x,0) + K(0,0) = (1 + ‖x‖²)² − 1
    d = np.sqrt((1 + np.array([25.0, 1.0, 100.0])) ** 2 - 1)
    assert joachims_C(Kernel("poly", degree=2), Xs) == pytest.approx(1.0 / d.mean() ** 2)
    # scaled: the same as on scaled data
    w = np.array([0.5, 2.0])
    assert joachims_C(Kernel("linear"), Xs, w) == pytest.approx(joachims_C(Kernel("linear"), Xs * w))


def test_joachims_C_has_one_implementation(monkeypatch: pytest.MonkeyPatch) -> None:
    """joachims_C is origin_sq_distances + joachims_C_from_sq_distances (the pairwise SVM's rule)."""
    from fsbench.algorithms import kernels

    real = kernels.joachims_C_from_sq_distances
    calls = []
    monkeypatch.setattr(kernels, "joachims_C_from_sq_distances", lambda d2: calls.append(d2) or real(d2))
    w = np.linspace(0.5, 1.5, X.shape[1])
    for kern in (Kernel("linear"), Kernel("rbf", gamma="median"), Kernel("poly", degree=3)):
        expected = real(origin_sq_distances(kern, X, w))
        assert kernels.joachims_C(kern, X, w) == expected
    assert len(calls) == 3
    assert kernels.joachims_C(Kernel("linear"), np.zeros((4, 2))) == 1.0  # every sample at the origin


def test_gamma_rules():
    D2 = sq_distances(X)
    iu = np.triu_indices(15, 1)
    assert resolve_gamma("median", X) == pytest.approx(1 / np.median(D2[iu]))
    assert resolve_gamma("n_features", X) == pytest.approx(1 / 8)
    assert resolve_gamma(0.5, X) == 0.5
    with pytest.raises(ValueError, match="gamma"):
        resolve_gamma("nope", X)
    with pytest.raises(ValueError, match="gamma"):
        resolve_gamma(-1.0, X)
    with pytest.raises(ValueError, match="not resolved"):
        Kernel("rbf", gamma="median").gram(X)


def test_targets():
    y = np.array([0, 0, 1, 2])
    T = class_target(y)
    assert T[0, 1] == 1 and T[0, 2] == -0.5 and T[2, 3] == -0.5 and np.all(np.diag(T) == 1)
    y2 = np.array([0, 1, 1, 0])
    s = np.where(y2 == 1, 1.0, -1.0)
    np.testing.assert_array_equal(class_target(y2), np.outer(s, s))  # Vert's target = yyᵀ for C = 2
    U = class_target(np.array([0, 0, 0, 1]), "uneven")
    assert U[0, 0] == pytest.approx(1 / 9) and U[0, 3] == pytest.approx(-1 / 3) and U[3, 3] == 1
    # Vert's multiclass target is positive semidefinite (a valid kernel, eq. 10)
    assert np.linalg.eigvalsh(class_target(rng.integers(0, 4, 30))).min() > -1e-9


def test_median_rule_ignores_identical_rows():
    # zero-inflated column: most rows identical; round-off distances must not give an absurd gamma
    Xd = np.zeros((50, 1)) - 0.3
    Xd[:5, 0] = np.arange(5.0)
    g = resolve_gamma("median", Xd)
    d = np.array([abs(a - b) ** 2 for i, a in enumerate(Xd[:, 0]) for b in Xd[i + 1 :, 0] if a != b])
    assert g == pytest.approx(1 / np.median(d))
    assert resolve_gamma("median", np.ones((10, 3))) == 1.0
