"""Ring & Eskofier 2015's input-space Gaussian criteria against an independent textbook implementation.

ECST (Ring's toolbox, ``MathUtilities.covarianceMatrix``) estimates the class covariances with the
unbiased 1/(n_c - 1) scaling; the reference below is written from the closed forms with
``np.cov(ddof=1)``, plain ``inv``/``det`` (not the Cholesky path of the implementation).
"""

import numpy as np
import pytest

from fsbench.algorithms.rkhs_criteria import gaussian_criterion


def textbook(X1, X2, criterion):
    m1, m2 = X1.mean(axis=0), X2.mean(axis=0)
    S1 = np.atleast_2d(np.cov(X1, rowvar=False, ddof=1))
    S2 = np.atleast_2d(np.cov(X2, rowvar=False, ddof=1))
    dm = m1 - m2
    if criterion == "gaussian_bhattacharyya":
        S = 0.5 * (S1 + S2)
        return dm @ np.linalg.inv(S) @ dm / 8 + 0.5 * np.log(
            np.linalg.det(S) / np.sqrt(np.linalg.det(S1) * np.linalg.det(S2))
        )
    S2i = np.linalg.inv(S2)
    d = X1.shape[1]
    return 0.5 * (np.trace(S2i @ S1) + dm @ S2i @ dm - d + np.log(np.linalg.det(S2) / np.linalg.det(S1)))


def random_problem(seed, D=8, n1=25, n2=40):
    # unequal class sizes so that 1/n and 1/(n-1) scalings differ between the classes
    rng = np.random.default_rng(seed)
    A1, A2 = rng.normal(size=(D, D)), rng.normal(size=(D, D))
    X1 = rng.normal(size=(n1, D)) @ A1 + rng.normal(size=D)
    X2 = rng.normal(size=(n2, D)) @ A2 + rng.normal(size=D)
    return X1, X2, rng


@pytest.mark.parametrize("criterion", ["gaussian_bhattacharyya", "gaussian_kl"])
def test_gaussian_criteria_equal_textbook_unbiased_covariances_on_random_subsets(criterion):
    worst = 0.0
    for seed in range(5):
        X1, X2, rng = random_problem(seed)
        for _ in range(20):
            size = int(rng.integers(1, X1.shape[1] + 1))
            kept = np.sort(rng.choice(X1.shape[1], size=size, replace=False))
            A, B = X1[:, kept], X2[:, kept]
            # non-degenerate: both class covariances well conditioned on this subset
            assert max(np.linalg.cond(np.atleast_2d(np.cov(Z, rowvar=False))) for Z in (A, B)) < 1e8
            ref = textbook(A, B, criterion)
            ours = gaussian_criterion(A, B, criterion)
            worst = max(worst, abs(ours - ref) / abs(ref))
    assert worst < 1e-6


def test_gaussian_criteria_differ_from_maximum_likelihood_covariances():
    """Guards the estimator choice: the ML (1/n) closed form is *not* what we compute."""
    X1, X2, _ = random_problem(11, D=3, n1=6, n2=9)
    dm = X1.mean(0) - X2.mean(0)
    S1, S2 = np.cov(X1, rowvar=False, bias=True), np.cov(X2, rowvar=False, bias=True)
    S = 0.5 * (S1 + S2)
    ml = dm @ np.linalg.solve(S, dm) / 8 + 0.5 * np.log(
        np.linalg.det(S) / np.sqrt(np.linalg.det(S1) * np.linalg.det(S2))
    )
    ours = gaussian_criterion(X1, X2, "gaussian_bhattacharyya")
    assert abs(ours - ml) / abs(ml) > 1e-3
    assert ours == pytest.approx(textbook(X1, X2, "gaussian_bhattacharyya"), rel=1e-9)


def test_gaussian_criteria_need_two_samples_per_class():
    X1, X2, _ = random_problem(0, D=2)
    with pytest.raises(ValueError, match="at least 2 samples"):
        gaussian_criterion(X1[:1], X2, "gaussian_kl", regularization=0.1)
