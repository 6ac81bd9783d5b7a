"""BAHSIC / FOHSIC and the HSIC estimators against their definitions (Song et al. 2012)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from fsbench.algorithms.alignment import alignment
from fsbench.algorithms.feature_statistics import feature_statistic, gram_from_statistic, updated_inner
from fsbench.algorithms.hsic import BAHSIC, FOHSIC, hsic, label_gram
from fsbench.algorithms.kernels import make_kernel, resolve_gamma
from fsbench.algorithms.registry import get_selector, info
from fsbench.algorithms.targets import class_target
from fsbench.data.synthetic import weston_nonlinear_draw


def _data(m=8, d=3, seed=0, n_classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    y = np.arange(m) % n_classes
    rng.shuffle(y)
    return X, y


def _rbf(X, gamma=0.3):
    return make_kernel("rbf", gamma=gamma).gram(X)


def test_biased_estimator_is_the_trace_formula():
    X, y = _data(m=9)
    K, L = _rbf(X), label_gram(y)
    m = K.shape[0]
    H = np.eye(m) - np.ones((m, m)) / m
    assert hsic(K, L, "biased") == pytest.approx(np.trace(K @ H @ L @ H) / (m - 1) ** 2, rel=1e-12)


def test_unbiased_estimator_is_the_u_statistic():
    # HSIC_1 is the U-statistic of h = K_st L_st + K_st L_uv - 2 K_st L_su over distinct (s, t, u, v)
    X, y = _data(m=8, n_classes=3)
    K, L = _rbf(X), label_gram(y)
    total, count = 0.0, 0
    for s, t, u, v in itertools.permutations(range(8), 4):
        total += K[s, t] * L[s, t] + K[s, t] * L[u, v] - 2 * K[s, t] * L[s, u]
        count += 1
    assert hsic(K, L, "unbiased") == pytest.approx(total / count, rel=1e-10)


@pytest.mark.parametrize("estimator", ["biased", "unbiased"])
def test_plus_minus_one_labels_are_twice_the_delta_kernel(estimator):
    # yy^T = 2·delta - 1 with y in {±1}: neither estimator sees the constant
    X, y = _data(m=10)
    K = _rbf(X)
    s = np.where(y == 1, 1.0, -1.0)
    twice = 2 * hsic(K, label_gram(y), estimator)
    assert hsic(K, np.outer(s, s), estimator) == pytest.approx(twice, rel=1e-10)


def test_balanced_labels_normalise_by_class_size():
    y = np.array([0, 0, 0, 1, 1, 2])
    L = label_gram(y, "balanced")
    assert L[0, 1] == pytest.approx(1 / 3) and L[3, 4] == pytest.approx(1 / 2) and L[5, 5] == 1.0
    assert L[0, 3] == 0.0


def test_biased_hsic_is_the_centred_alignment_numerator():
    X, y = _data(m=12, n_classes=3)
    K, L = _rbf(X), class_target(y)
    m = K.shape[0]
    H = np.eye(m) - np.ones((m, m)) / m
    Kc, Lc = H @ K @ H, H @ L @ H
    numerator = hsic(K, L, "biased") * (m - 1) ** 2
    centred_alignment = alignment(Kc, Lc)[0]
    assert numerator / (np.linalg.norm(Kc) * np.linalg.norm(Lc)) == pytest.approx(centred_alignment, 1e-10)


def test_biased_hsic_is_sas_numerator_for_a_centred_target():
    # equal class sizes: Vert's target has zero row sums, so HLH = L and <HKH, L> = <K, L> (SAS's numerator)
    X, y = _data(m=12, n_classes=3)
    K, L = _rbf(X), class_target(y)
    assert np.allclose(L.sum(axis=1), 0.0)
    a, _ = alignment(K, L)
    numerator = hsic(K, L, "biased") * (K.shape[0] - 1) ** 2
    assert numerator / (np.linalg.norm(K) * np.linalg.norm(L)) == pytest.approx(a, rel=1e-10)


@pytest.mark.parametrize("name", ["linear", "rbf", "poly"])
@pytest.mark.parametrize("sign", [-1, +1])
def test_updated_inner_matches_explicit_gram_matrices(name, sign):
    rng = np.random.default_rng(1)
    X, C = rng.normal(size=(15, 4)), rng.normal(size=(15, 3))
    W = rng.normal(size=(15, 15))
    kern = make_kernel(name, gamma=0.2, degree=2).resolved(X)
    S = feature_statistic(kern, X)
    got = updated_inner(kern, S, C if sign > 0 else X, W, sign)
    want = []
    for f in range(3 if sign > 0 else 4):
        Xf = np.column_stack([X, C[:, f]]) if sign > 0 else np.delete(X, f, axis=1)
        want.append(np.vdot(gram_from_statistic(kern, feature_statistic(kern, Xf)), W))
    assert np.allclose(got, want, rtol=1e-10, atol=1e-10)


def _naive_bahsic(X, y, step_fraction=0.1):
    """Algorithm 1 written out: explicit Gram matrices, median width on the survivors, 10 % per step."""
    L = label_gram(y)
    remaining = list(range(X.shape[1]))
    worst_first = []
    while len(remaining) > 1:
        gamma = resolve_gamma("median", X[:, remaining])
        values = [hsic(_rbf(X[:, [r for r in remaining if r != j]], gamma), L) for j in remaining]
        n_drop = max(1, int(np.floor(step_fraction * len(remaining) + 0.5)))
        n_drop = min(n_drop, len(remaining) - 1)
        # largest HSIC after removal first; ties: the higher index first
        order = sorted(range(len(remaining)), key=lambda i: (-values[i], -remaining[i]))[:n_drop]
        dropped = [remaining[i] for i in order]
        worst_first += dropped
        remaining = [r for r in remaining if r not in dropped]
    worst_first += remaining
    ranking = np.empty(X.shape[1], dtype=int)
    ranking[np.array(worst_first[::-1])] = np.arange(1, X.shape[1] + 1)
    return ranking


def _naive_fohsic(X, y):
    L = label_gram(y)
    d = X.shape[1]
    gamma_all = resolve_gamma("median", X)
    selected: list[int] = []
    while len(selected) < d:
        k = len(selected) + 1
        cands = [j for j in range(d) if j not in selected]
        values = [hsic(_rbf(X[:, selected + [j]], gamma_all * d / k), L) for j in cands]
        selected.append(cands[int(np.argmax(values))])
    ranking = np.empty(d, dtype=int)
    ranking[np.array(selected)] = np.arange(1, d + 1)
    return ranking


def test_bahsic_is_algorithm_1():
    X, y = _data(m=30, d=12, seed=3, n_classes=3)
    X[:, 2] += 2.0 * y
    np.testing.assert_array_equal(BAHSIC().fit(X, y).ranking_, _naive_bahsic(X, y))


def test_fohsic_is_greedy_forward_selection():
    X, y = _data(m=30, d=7, seed=4)
    X[:, 5] += 1.5 * y
    est = FOHSIC().fit(X, y)
    np.testing.assert_array_equal(est.ranking_, _naive_fohsic(X, y))
    assert est.n_iter_ == 7 and len(est.hsic_) == 7


def test_bahsic_hsic_path_starts_with_all_features():
    X, y = _data(m=20, d=10, seed=5)
    est = BAHSIC(step=1).fit(X, y)
    gamma = resolve_gamma("median", X)
    assert est.hsic_[0] == pytest.approx(hsic(_rbf(X, gamma), label_gram(y)), rel=1e-10)
    assert est.n_iter_ == 9


@pytest.mark.parametrize("cls", [BAHSIC, FOHSIC])
def test_weston_nonlinear_toy_finds_both_relevant_features(cls):
    # x2 alone is independent of y; HSIC on the joint kernel sees it
    # (BAHSIC by elimination, FOHSIC once x1 is in)
    rng = np.random.default_rng(11)
    X, y, _ = weston_nonlinear_draw(100, rng, n_features=20)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    assert set(np.argsort(cls().fit(X, y).ranking_)[:2]) == {0, 1}


def test_registered_with_citation():
    for name in ("bahsic", "fohsic"):
        sel = info(name)
        assert "Song" in sel.citation and sel.kind == "rank"
        assert get_selector(name).fit(*_data(m=12, d=4)).ranking_.size == 4


def test_unbiased_needs_four_samples():
    X, y = _data(m=3, d=2)
    with pytest.raises(ValueError, match="at least 4 samples"):
        BAHSIC().fit(X, y)
