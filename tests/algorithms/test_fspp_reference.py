"""FSPP against its pre-speed-up copy (``benchmarks/reference_fspp.py``): identical rankings.

The fast FSPP (issue #15) skips the permuted rows whose column value does not change, evaluates each
distinct (row, replacement value) once, solves the coupling by its own elimination and trains the
pairwise machines through libsvm directly. None of that may change which features are eliminated when:
the rankings must be identical and the first-iteration scores equal up to round-off.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # `benchmarks` is a top-level package of the checkout, not installed
    sys.path.insert(0, str(REPO))

from benchmarks import reference_fspp  # noqa: E402
from fsbench.algorithms.sensitivity import FSPP  # noqa: E402


def _data(seed: int, n: int, d: int, n_classes: int):
    """Gaussian features, two of them rounded (many tied values, as image pixels), one constant."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.7 * X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n) > 0).astype(int)
    if n_classes > 2:
        y = y + (X[:, 3] > 0.6).astype(int) * 2 + (n_classes > 3) * (X[:, 4] < -0.8)
        y = np.minimum(y, n_classes - 1)
    X[:, 5 % d] = np.round(X[:, 5 % d])
    X[:, 6 % d] = np.maximum(np.round(2 * X[:, 6 % d]), 0.0)  # mostly one value: background-like
    X[:, d - 1] = 0.3
    return X, y


CASES = [
    # (seed, n, d, classes, params)
    (0, 70, 9, 3, {}),
    (1, 60, 8, 2, {}),
    (2, 64, 9, 4, {"kernel": "linear"}),
    (3, 66, 8, 3, {"kernel": "poly", "degree": 2, "offset": 1.0}),
    (4, 60, 12, 3, {"step": 0.25, "step_threshold": 6}),
    (5, 60, 10, 2, {"step": 3, "step_threshold": 5, "kernel": "linear"}),
    (6, 56, 8, 3, {"coupling": "hastie_tibshirani", "n_permutations": 2}),
    (7, 72, 9, 4, {"C": 0.7, "n_permutations": 4}),
    (8, 60, 9, 2, {"gamma": 0.2, "n_permutations": 1}),
    (9, 80, 10, 3, {"step": 0.5, "step_threshold": 3}),
]


@pytest.mark.parametrize("blocks", ["default", "32 rows"])
@pytest.mark.parametrize("case", CASES, ids=[f"seed{c[0]}" for c in CASES])
def test_fast_fspp_ranks_exactly_as_the_reference(case, blocks, monkeypatch):
    if blocks == "32 rows":  # many blocks per column: the early stops of later iterations happen
        from fsbench.algorithms import sensitivity

        monkeypatch.setattr(sensitivity, "_BLOCK_BYTES", 1)
    seed, n, d, k, params = case
    X, y = _data(seed, n, d, k)
    params = {"random_state": seed, **params}
    fast = FSPP(**params).fit(X, y)
    ranking, scores, n_iter = reference_fspp.fspp_fit(X, y, **params)
    np.testing.assert_array_equal(fast.ranking_, ranking)
    assert fast.n_iter_ == n_iter
    np.testing.assert_allclose(fast.scores_, scores, rtol=1e-10, atol=1e-14)
    # A constant column changes no row: exactly 0 now (the reference added up round-off, ~1e-18).
    assert fast.scores_[d - 1] == 0.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sensitivities_equal_the_reference_for_one_fit(seed):
    X, y = _data(10 + seed, 90, 7, 3)
    sel = FSPP(n_permutations=3)
    got = sel.sensitivities(X, y, np.random.RandomState(seed))
    params = reference_fspp.DEFAULTS | {"n_permutations": 3}
    want = reference_fspp.sensitivities(params, X, y, np.random.RandomState(seed))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-14)
    np.testing.assert_array_equal(np.argsort(got, kind="stable"), np.argsort(want, kind="stable"))
