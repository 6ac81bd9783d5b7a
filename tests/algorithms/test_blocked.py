"""Bounded-memory (blocked) evaluation of SAS, SFS and SCSS: the same criterion, gradient and ranking.

The blocked path (``memory_limit`` too small for the N×N Gram matrix) walks the blocks on and above the
diagonal; these tests force several blocks — with partial last ones — on small problems and compare with
the dense path (``memory_limit=None``), which is the one-block case.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gradient_helpers import fd_check
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

import fsbench.algorithms.kernels as kernels
from fsbench.algorithms.alignment import SAS, SFS
from fsbench.algorithms.gram_blocks import (
    N_TEMPORARIES,
    TILE_COLS,
    TILE_ROWS,
    median_block,
    parse_memory_limit,
    plan_blocks,
)
from fsbench.algorithms.kernels import median_sq_distance
from fsbench.algorithms.separability import SCSS

N, D = 61, 5
CASES = [(SAS, k) for k in ("linear", "rbf", "poly")] + [(SFS, "rbf"), (SFS, "poly")]
CASES += [(SCSS, k) for k in ("linear", "rbf", "poly")]
IDS = [f"{c.__name__}-{k}" for c, k in CASES]
#: Entries per block: 200 gives bands of 3 rows (61 = 20·3 + 1) with one column block each; 40 gives
#: bands of one row cut into column blocks of 40 (the first bands: 40 + 20).
CAPS = (200, 40)


def _limit(kernel: str, cap: int) -> int:
    """The memory_limit whose blocks hold ``cap`` entries (one thread)."""
    return cap * N_TEMPORARIES[kernel] * 8


def _data(n_classes: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, N)  # unbalanced, unsorted classes
    y[:n_classes] = np.arange(n_classes)
    X = rng.normal(size=(N, D))
    X[:, 1] += y
    X[:, 3] -= 0.5 * y
    return X, y, rng.uniform(0.5, 1.5, D)


def _params(kernel):
    return dict(kernel=kernel, degree=2, offset=1.0, scale=0.3)


@pytest.mark.parametrize("cap", CAPS)
def test_small_limits_give_several_partial_blocks(cap):
    p = plan_blocks(N, "rbf", _limit("rbf", cap))
    assert not p.dense and p.rows * p.cols <= cap
    assert N % p.rows != 0 or (N - p.rows) % p.cols != 0  # a partial last block
    assert (N + p.rows - 1) // p.rows >= 3
    if cap == 40:
        assert p.cols < N - p.rows  # a band's blocks right of the diagonal come in several pieces


def test_plan_rule():
    assert plan_blocks(100, "rbf", 16 * 100 * 100).dense  # 2 N×N arrays fit: dense
    assert not plan_blocks(100, "rbf", 16 * 100 * 100 - 1).dense
    assert plan_blocks(100, "poly", 16 * 100 * 100 + 1).dense is False  # poly needs 3 arrays
    assert plan_blocks(10**6, "rbf", None).dense  # no limit: always dense
    p = plan_blocks(50_000, "rbf", 2**30)
    assert (p.rows, p.cols) == (TILE_ROWS, TILE_COLS)
    one, two = plan_blocks(5000, "rbf", 2**20), plan_blocks(5000, "rbf", 2**20, n_jobs=2)
    assert two.rows * two.cols * 2 <= 2**20 // 16 < one.rows * one.cols * 2  # per-thread budgets
    assert median_block(1000, None) is None and median_block(1000, 32 * 1000**2) is None
    assert median_block(1000, 16 * 1000**2) == (TILE_ROWS, 1000)  # criterion dense, median blocked


@pytest.mark.parametrize("cap", CAPS)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize(("cls", "kernel"), CASES, ids=IDS)
def test_blocked_value_and_gradient_equal_dense(cls, kernel, n_classes, cap):
    X, y, w = _data(n_classes)
    f_dense, g_dense = cls(memory_limit=None, **_params(kernel)).criterion(X, y, w)
    f_blocked, g_blocked = cls(memory_limit=_limit(kernel, cap), **_params(kernel)).criterion(X, y, w)
    assert np.abs(g_dense).max() > 0
    assert f_blocked == pytest.approx(f_dense, rel=1e-12, abs=1e-14)
    np.testing.assert_allclose(g_blocked, g_dense, rtol=1e-10, atol=1e-12 * np.abs(g_dense).max())


@pytest.mark.parametrize(("cls", "kernel"), [c for c in CASES if c != (SFS, "poly")], ids=IDS[:4] + IDS[5:])
def test_blocked_fit_equals_dense_fit(cls, kernel):
    # (polynomial SFS diverges by design — see SFS — so its iterates amplify round-off; its blocked
    # value and gradient are compared above)
    X, y, _ = _data(3, seed=1)
    dense = cls(memory_limit=None, max_iter=15, **_params(kernel)).fit(X, y)
    blocked = cls(memory_limit=_limit(kernel, 200), max_iter=15, **_params(kernel)).fit(X, y)
    assert (dense.gram_path_, blocked.gram_path_) == ("dense", "blocked")
    assert dense.block_rows_ == dense.block_cols_ == N and blocked.block_rows_ < N
    assert blocked.n_iter_ == dense.n_iter_ > 1
    np.testing.assert_array_equal(blocked.ranking_, dense.ranking_)
    np.testing.assert_allclose(blocked.scale_factors_, dense.scale_factors_, rtol=1e-8)
    np.testing.assert_allclose(blocked.criterion_history_, dense.criterion_history_, rtol=1e-10)


@pytest.mark.parametrize(("cls", "kernel"), [(SAS, "rbf"), (SFS, "poly"), (SCSS, "linear"), (SCSS, "rbf")])
def test_blocked_gradient_equals_finite_differences(cls, kernel):
    X, y, w = _data(3, seed=2)
    sel = cls(memory_limit=_limit(kernel, 40), **_params(kernel))
    fd_check(sel, X, y, w)


@pytest.mark.parametrize(("cls", "kernel"), [(SAS, "rbf"), (SCSS, "poly")])
def test_threads_give_identical_results(cls, kernel):
    X, y, w = _data(2, seed=3)
    lim = _limit(kernel, 200)
    one = cls(memory_limit=lim, n_jobs=1, **_params(kernel))
    # the budget is shared by the threads: twice the budget gives two threads the same blocks
    two = cls(memory_limit=2 * lim, n_jobs=2, **_params(kernel))
    f1, g1 = one.criterion(X, y, w)
    f2, g2 = two.criterion(X, y, w)
    assert f1 == f2  # partial sums added in band order, whatever the thread that computed them
    np.testing.assert_array_equal(g1, g2)
    a, b = one.set_params(max_iter=8).fit(X, y), two.set_params(max_iter=8).fit(X, y)
    assert (a.block_rows_, a.block_cols_) == (b.block_rows_, b.block_cols_)
    np.testing.assert_array_equal(a.scale_factors_, b.scale_factors_)


def test_threads_keep_the_callers_floating_point_error_state():
    # polynomial SFS diverges until overflow; the fit silences numpy's warnings and says so once, also
    # when the blocks run in worker threads (numpy's error state is per thread)
    X, y, _ = _data(2, seed=4)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        SFS(kernel="poly", degree=3, memory_limit=_limit("poly", 200), n_jobs=2).fit(X, y)
    kinds = {type(r.message) for r in rec}
    assert ConvergenceWarning in kinds and RuntimeWarning not in kinds


def test_median_width_in_blocks_equals_dense():
    X, y, _ = _data(2, seed=5)
    X[7] = X[3]  # identical rows are left out by the rule
    dense = median_sq_distance(X)
    for block in [(1, 1), (3, 7), (16, 61), (64, 2048)]:
        assert median_sq_distance(X, block) == pytest.approx(dense, rel=1e-14)
    a = SAS(kernel="rbf", memory_limit=None).fit(X, y).kernel_.gamma
    b = SAS(kernel="rbf", memory_limit=_limit("rbf", 40)).fit(X, y).kernel_.gamma
    assert b == pytest.approx(a, rel=1e-14)


@pytest.mark.parametrize("kind", ["spread", "ties", "heavy tail"])
@pytest.mark.parametrize("n", [1, 2, 9, 400])
def test_streamed_median_selection_is_exact(monkeypatch, kind, n):
    # few bins and a tiny cap force the narrowing levels and the tie shortcut
    monkeypatch.setattr(kernels, "_MEDIAN_BINS", 4)
    rng = np.random.default_rng(n)
    v = {
        "spread": np.abs(rng.normal(size=n)),
        "ties": np.round(np.abs(rng.normal(size=n)), 1),
        "heavy tail": rng.lognormal(0.0, 5.0, size=n),
    }[kind]
    chunks = np.array_split(v, 5)
    for cap in (1, 3, 1000):
        got = kernels._median_of_stream(lambda: iter(chunks), hi=1.01 * float(v.max()), cap=cap)
        assert got == float(np.median(v))


def test_memory_limit_parsing():
    assert parse_memory_limit(None) is None
    assert parse_memory_limit(4096) == 4096
    assert parse_memory_limit(1e9) == 10**9
    assert parse_memory_limit("512MB") == 512 * 10**6
    assert parse_memory_limit("2GB") == 2 * 10**9
    assert parse_memory_limit("2 gb") == 2 * 10**9
    assert parse_memory_limit("1GiB") == 2**30
    assert parse_memory_limit("1.5KiB") == 1536
    assert parse_memory_limit("100") == 100
    for bad in ["lots", "12 parsecs", "-5MB", "MB", "0", "0.5", 0, -1, 0.2, float("inf"), True, [1]]:
        with pytest.raises(ValueError, match="memory_limit"):
            parse_memory_limit(bad)


@pytest.mark.parametrize("cls", [SAS, SFS, SCSS])
def test_memory_limit_and_n_jobs_validated_in_fit(cls):
    X, y, _ = _data(2)
    for params in [{"memory_limit": "lots"}, {"memory_limit": -1}, {"n_jobs": 0}, {"n_jobs": 1.5}]:
        sel = cls(kernel="rbf", **params)  # stored as given (sklearn), refused in fit
        assert sel.get_params()[next(iter(params))] == next(iter(params.values()))
        with pytest.raises(ValueError, match="memory_limit|n_jobs") as exc:
            sel.fit(X, y)
        if cls is not SCSS:  # SAS and SFS use scikit-learn's parameter constraints
            assert exc.type is InvalidParameterError
    sel = cls(kernel="rbf", n_jobs=-1, memory_limit="2KiB", max_iter=2).fit(X, y)
    assert sel.gram_path_ == "blocked"


@pytest.mark.parametrize("cls", [SAS, SFS, SCSS])
def test_default_limit_keeps_small_problems_dense(cls):
    X, y, _ = _data(2)
    sel = cls(kernel="rbf", max_iter=3).fit(X, y)
    assert sel.memory_limit == "1GiB"
    assert (sel.gram_path_, sel.block_rows_, sel.block_cols_) == ("dense", N, N)


@parametrize_with_checks(
    [cls(kernel="rbf", max_iter=5, memory_limit="4KiB", n_jobs=2) for cls in (SAS, SFS, SCSS)]
)
def test_blocked_path_is_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("n", [2, 7, 300])
def test_upper_pairs_are_triu_order_cached_or_not(n, monkeypatch):
    from fsbench.algorithms import kernels

    D = np.random.default_rng(n).random((n, n))
    i, j = np.triu_indices(n, k=1)
    cached = kernels._upper_pairs(n)
    assert not cached.flags.writeable and cached is kernels._upper_pairs(n)
    monkeypatch.setattr(kernels, "_CACHED_PAIRS_MAX_N", 1)  # the uncached path
    fresh = kernels._upper_pairs(n)
    assert np.array_equal(D.ravel().take(cached), D[i, j]) and np.array_equal(fresh, cached)
