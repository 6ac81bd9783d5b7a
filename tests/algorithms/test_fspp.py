"""FSPP (permutation sensitivity of coupled SVM posteriors) and its permuted-column Gram matrices."""

import numpy as np
import pytest

from fsbench.algorithms.feature_statistics import (
    ColumnReplacement,
    feature_statistic,
    gram_from_statistic,
    permuted_column_grams,
)
from fsbench.algorithms.kernels import Kernel
from fsbench.algorithms.sensitivity import FSPP
from fsbench.algorithms.svm import PairwiseKernelSVC


def _problem(seed=0, n=150, d=10):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] > 0.5, 2, np.where(X[:, 1] * X[:, 2] > 0, 1, 0))
    return X, y


@pytest.mark.parametrize(
    "kern", [Kernel("linear"), Kernel("rbf", gamma=0.3), Kernel("poly", degree=2, offset=0.5)], ids=str
)
def test_permuted_column_grams_match_explicit_permutation(kern):
    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(9, 4)), rng.normal(size=(5, 4))
    perms = [rng.permutation(9) for _ in range(3)]
    S = feature_statistic(kern, X, Z)
    got = permuted_column_grams(kern, S, X[:, 2], Z[:, 2], perms)
    want = []
    for p in perms:
        Xp = X.copy()
        Xp[:, 2] = X[p, 2]
        want.append(kern.gram(Xp, Z))
    np.testing.assert_allclose(got, np.concatenate(want), rtol=1e-10)


def test_informative_features_rank_top_and_ranking_is_complete():
    X, y = _problem()
    sel = FSPP(random_state=0).fit(X, y)
    assert sorted(sel.ranking_) == list(range(1, 11))
    assert set(np.flatnonzero(sel.ranking_ <= 3)) == {0, 1, 2}
    assert sel.n_iter_ == 9
    assert sel.scores_.shape == (10,)
    assert np.argmax(sel.scores_) == 0
    assert sel.transform(X).shape == X.shape  # n_features_to_select=None keeps all


def test_deterministic_for_fixed_random_state():
    X, y = _problem(1, n=90, d=6)
    a = FSPP(random_state=5).fit(X, y)
    b = FSPP(random_state=5).fit(X, y)
    c = FSPP(random_state=6).fit(X, y)
    np.testing.assert_array_equal(a.ranking_, b.ranking_)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    assert not np.array_equal(a.scores_, c.scores_)


def test_scores_equal_brute_force_permutation_of_the_data():
    X, y = _problem(2, n=60, d=4)
    sel = FSPP(n_permutations=3, coupling="hastie_tibshirani")
    got = sel.sensitivities(X, y, np.random.RandomState(7))
    # the same draws in the same order: classifier seed, then the permutations
    rng = np.random.RandomState(7)
    clf = PairwiseKernelSVC(coupling="hastie_tibshirani", random_state=int(rng.randint(2**31 - 1))).fit(X, y)
    perms = [rng.permutation(60) for _ in range(3)]
    P = clf.predict_proba(X)
    want = []
    for j in range(4):
        diffs = []
        for p in perms:
            Xp = X.copy()
            Xp[:, j] = X[p, j]
            diffs.append(np.abs(P - clf.predict_proba(Xp)).sum(axis=1).mean())
        want.append(np.mean(diffs))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)


def test_constant_feature_has_zero_sensitivity_and_ranks_last():
    X, y = _problem(3, n=90, d=5)
    X[:, 3] = 2.0
    sel = FSPP(random_state=0).fit(X, y)
    assert sel.scores_[3] == pytest.approx(0.0, abs=1e-12)
    assert sel.ranking_[3] == 5


def test_chunked_elimination_above_threshold():
    X, y = _problem(4, n=80, d=12)
    sel = FSPP(step=0.5, step_threshold=5, n_permutations=1, random_state=0).fit(X, y)
    # 12 → 6 → 3 (chunks of 50 % above 5 features) → 2 → 1; with step=2: 12 → 10 → 8 → 6 → 4 → 3 → 2 → 1
    assert sel.n_iter_ == 4
    assert sorted(sel.ranking_) == list(range(1, 13))
    assert FSPP(step=2, step_threshold=5, n_permutations=1, random_state=0).fit(X, y).n_iter_ == 4 + 3


@pytest.mark.parametrize("params", [{"n_permutations": 0}, {"step": 0.0}, {"step_threshold": -1}])
def test_invalid_parameters(params):
    X, y = _problem(0, n=30, d=3)
    with pytest.raises(ValueError):
        FSPP(**params).fit(X, y)


@pytest.mark.parametrize(
    "kern", [Kernel("linear"), Kernel("rbf", gamma=0.3), Kernel("poly", degree=2, offset=0.5)], ids=str
)
@pytest.mark.parametrize("with_gram", [False, True])
def test_column_replacement_rows_equal_the_explicit_kernel(kern, with_gram):
    # any (row, value) pairs, rows repeated (FSPP evaluates each distinct pair once, in blocks)
    rng = np.random.default_rng(1)
    X, Z = rng.normal(size=(11, 4)), rng.normal(size=(6, 4))
    X[:, 1] = np.round(X[:, 1])
    S = feature_statistic(kern, X, Z)
    values, code = np.unique(X[:, 1], return_inverse=True)
    columns = ColumnReplacement(kern, S, gram_from_statistic(kern, S) if with_gram else None)
    rows = columns.rows(Z[:, 1], values, code)
    i = np.sort(rng.integers(0, 11, 25))
    v = rng.integers(0, values.size, 25)
    Xp = X[i].copy()
    Xp[:, 1] = values[v]
    want = kern.gram(Xp, Z)
    np.testing.assert_allclose(rows(i, v), want, rtol=1e-12)
    blocks = np.concatenate([rows(i[a : a + 7], v[a : a + 7]) for a in range(0, 25, 7)])
    np.testing.assert_array_equal(blocks, rows(i, v))  # the blocking changes nothing


def test_column_replacement_value_pair_factors_are_the_same_numbers(monkeypatch):
    # Z = rows of X (support vectors), a column with few distinct values: the RBF factors come from a
    # table over value pairs, gathered into place; bit-identical to computing them per entry.
    from fsbench.algorithms import feature_statistics as fs

    rng = np.random.default_rng(4)
    kern = Kernel("rbf", gamma=0.2)
    X = rng.normal(size=(40, 3))
    X[:, 0] = np.round(2 * X[:, 0]) / 2
    Z = X[rng.choice(40, 24, replace=False)]
    S = feature_statistic(kern, X, Z)
    values, code = np.unique(X[:, 0], return_inverse=True)
    uz, zi = fs._shared_values(values, Z[:, 0])
    np.testing.assert_array_equal(values[uz][zi], Z[:, 0])
    assert fs._shared_values(values, Z[:, 0] + 1e-9) is None  # not among the values
    assert fs._shared_values(values, values) is None  # all distinct: no saving
    i, v = rng.integers(0, 40, 30), rng.integers(0, values.size, 30)
    got = ColumnReplacement(kern, S, gram_from_statistic(kern, S)).rows(Z[:, 0], values, code)(i, v)
    monkeypatch.setattr(fs, "_shared_values", lambda values, z: None)
    want = ColumnReplacement(kern, S, gram_from_statistic(kern, S)).rows(Z[:, 0], values, code)(i, v)
    np.testing.assert_array_equal(got, want)


def test_column_replacement_gram_shortcut_only_within_range():
    # A = K·exp(γ(x−z)²) needs exp(γ·S) finite and K not underflowing: off for far-apart points
    kern = Kernel("rbf", gamma=1.0)
    X = np.array([[0.0, 0.0], [30.0, 0.0]])
    S = feature_statistic(kern, X)
    assert ColumnReplacement(kern, S, gram_from_statistic(kern, S)).gram is None
    assert ColumnReplacement(kern, S / 900.0, gram_from_statistic(kern, S / 900.0)).gram is not None


@pytest.mark.parametrize("keep", [1, 3])
def test_early_stopped_scores_keep_the_lowest_exactly(keep, monkeypatch):
    # _scores(keep=m) abandons a column once its partial sum exceeds the m-th lowest complete score;
    # the m lowest must be bitwise the complete ones, the abandoned ones provably above them
    from fsbench.algorithms import sensitivity

    monkeypatch.setattr(sensitivity, "_BLOCK_BYTES", 1)  # blocks of 32 rows: several partial sums
    X, y = _problem(5, n=90, d=8)
    sel = FSPP(n_permutations=3)
    full = sel.sensitivities(X, y, np.random.RandomState(2))
    order = np.random.default_rng(keep).permutation(8)
    scores, guesses = sel._scores(X, y, np.random.RandomState(2), keep=keep, order=order)
    lowest = np.argsort(full, kind="stable")[:keep]
    np.testing.assert_array_equal(scores[lowest], full[lowest])
    done = np.isfinite(scores)
    np.testing.assert_array_equal(scores[done], full[done])
    assert not done.all()


def _column_args(seed: int, n: int, column: int, n_permutations: int, binary: bool = False) -> tuple:
    """Arguments of ``_sensitivity`` for one column of a small problem (classifier fitted on it)."""
    from sklearn.utils import check_random_state

    from fsbench.algorithms.feature_statistics import (
        ColumnReplacement,
        feature_statistic,
        gram_from_statistic,
    )

    X, y = _problem(seed, n=n, d=4)
    clf = FSPP()._classifier(0).fit(X, y > 0 if binary else y)
    kern, svc, Z = clf.kernel_, clf.svc_, clf.support_vectors_
    S = feature_statistic(kern, X, Z)
    K = gram_from_statistic(kern, S)
    P = svc.proba_from_decision(svc.pairwise_decision(K, support_only=True))
    rng = check_random_state(seed - 5)
    perms = np.stack([rng.permutation(n) for _ in range(n_permutations)])
    return ColumnReplacement(kern, S, K), svc, P, 1 - P.max(axis=1), X[:, column], Z[:, column], perms


def test_partial_sum_stops_just_above_the_limit(monkeypatch):
    # _sensitivity adds non-negative unit sums in a fixed order and stops once above `limit`:
    # the partial score is > limit and <= the complete one (bitwise the same complete score)
    from fsbench.algorithms import sensitivity

    monkeypatch.setattr(sensitivity, "_BLOCK_BYTES", 1)  # blocks of 32 rows
    args = _column_args(6, 120, 0, 3)
    full, complete, guess = sensitivity._sensitivity(*args)
    assert complete and guess == full > 0
    for frac in (0.1, 0.5, 0.9):
        part, complete, _ = sensitivity._sensitivity(*args, limit=frac * full)
        assert not complete and frac * full < part <= full
    part, complete, _ = sensitivity._sensitivity(*args, limit=0.1 * full)
    assert part < full  # stopped before the last block
    assert sensitivity._sensitivity(*args, limit=full) == (full, True, full)


@pytest.mark.parametrize("block_bytes", [1, 1 << 20])
def test_batch_sizes_change_no_sum(block_bytes, monkeypatch):
    # the pairs are added in fixed units of _UNIT, whatever the batches (blocks, groups, and the
    # groups shrunk near a limit, from the prior or the last group): complete and partial scores
    # and guesses are bitwise the same
    from fsbench.algorithms import sensitivity

    monkeypatch.setattr(sensitivity, "_BLOCK_BYTES", block_bytes)
    args = _column_args(7, 150, 1, 4)
    full = sensitivity._sensitivity(*args)[0]
    results = {}
    for group in (1, 2, 7, 1000):
        monkeypatch.setattr(sensitivity, "_GROUP", group)
        results[group] = [
            sensitivity._sensitivity(*args, limit=f * full, prior=prior)
            for f in (0.05, 0.3, 0.7, 0.95, np.inf)
            for prior in (None, 0.2 * full, full, 5 * full)
        ]
    assert all(r == results[1] for r in results.values())
    assert [complete for _, complete, _ in results[1]] == [False] * 16 + [True] * 4


@pytest.mark.parametrize("binary", [False, True], ids=["3 classes", "2 classes"])
def test_batch_sizes_change_no_sum_at_any_pair_count(binary, monkeypatch):
    # One permutation with a cycle of L rows gives exactly L (row, value) pairs, so the last batch
    # holds 1 to 31 of them, or a single row (BLAS would take another path for it): whatever the
    # batches, the complete score is bitwise the same.
    from fsbench.algorithms import sensitivity

    columns, svc, P, doubt, x, z, _ = _column_args(7, 150, 1, 1, binary=binary)
    rng = np.random.default_rng(0)
    for length in [33, 65, 66, 97] + [65] * 12:
        cycle = rng.choice(150, length, replace=False)
        perm = np.arange(150)
        perm[cycle] = np.roll(cycle, 1)
        args = (columns, svc, P, doubt, x, z, perm[None])
        monkeypatch.setattr(sensitivity, "_BLOCK_BYTES", 1 << 20)
        monkeypatch.setattr(sensitivity, "_GROUP", 4)
        want = sensitivity._sensitivity(*args)
        for block_bytes, group, prior in [(1, 1, None), (1, 3, None), (1 << 20, 4, 100 * want[0])]:
            monkeypatch.setattr(sensitivity, "_BLOCK_BYTES", block_bytes)
            monkeypatch.setattr(sensitivity, "_GROUP", group)
            assert sensitivity._sensitivity(*args, limit=2 * want[0], prior=prior) == want


def test_group_size_covers_the_predicted_need():
    from fsbench.algorithms.sensitivity import _UNIT, _group_size

    ranked = np.linspace(2.0, 0.1, 1000)
    sizes = [_group_size(ranked, 1.0, 1.0, need, 640) for need in (0.5, 50.0, 200.0, 1e9)]
    assert all(s % _UNIT == 0 and 0 < s <= 640 for s in sizes)
    assert sizes == sorted(sizes) and sizes[-1] == 640
    # the predicted sum of the group reaches the need (rate 1: the expected changes themselves)
    assert ranked[: sizes[1]].sum() >= 50.0
    for change, expected in ((0.0, 1.0), (1.0, 0.0), (1e308, 1e-10)):
        assert _group_size(ranked, change, expected, 10.0, 640) == 640  # no usable rate: largest
