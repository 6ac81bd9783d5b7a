"""The Table II pixel-bound diagnostic: its error measures and its report."""

import numpy as np
import pandas as pd

from fsbench.experiments.usps_pixel_bound import multiclass_error, pairwise_error, render


def _blobs(seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(3), 60)
    X = np.column_stack([4.0 * y + rng.normal(size=y.size), rng.normal(size=y.size)])  # col 0 informative
    return X[::2], y[::2], X[1::2], y[1::2]


def test_errors_separate_informative_from_noise_columns():
    X_tr, y_tr, X_te, y_te = _blobs()
    assert multiclass_error(X_tr, y_tr, X_te, y_te, [0]) < 0.05
    assert multiclass_error(X_tr, y_tr, X_te, y_te, [1]) > 0.4  # chance is 2/3
    assert pairwise_error(X_tr, y_tr, X_te, y_te, [0]) < 0.05
    assert pairwise_error(X_tr, y_tr, X_te, y_te, [1]) > 0.3  # chance is 1/2


def test_pairwise_error_is_below_the_multiclass_error_on_weak_features():
    # the hypothesis the diagnostic tests: a mean two-class error is much lower than a 10-class one
    rng = np.random.default_rng(1)
    y = np.repeat(np.arange(6), 50)
    X = (y[:, None] == np.arange(6)) * 1.0 + 0.9 * rng.normal(size=(y.size, 6))
    X_tr, y_tr, X_te, y_te = X[::2], y[::2], X[1::2], y[1::2]
    cols = [0, 1, 2]
    assert pairwise_error(X_tr, y_tr, X_te, y_te, cols) < multiclass_error(X_tr, y_tr, X_te, y_te, cols)


def test_render_lists_both_errors_and_the_paper_row():
    df = pd.DataFrame(
        [
            {"source": s, "k": k, "pixel": k, "test_error": 0.5 / k, "pairwise_error": 0.1 / k}
            for s in ("usps", "usps_libsvm_test")
            for k in (5, 10)
        ]
    )
    text = render(df, 60.0)
    assert "| usps | 10.0 | 5.0 |" in text and "| usps | 2.0 | 1.0 |" in text
    assert "8.5–13.8" in text and "6.3–12.4" in text


def test_per_pair_selection_uses_each_pairs_own_features():
    # class k (k = 0..3) is told apart from the others by feature k only: any single global feature
    # leaves classes confused, but each pair's own top-2 features separate it
    from fsbench.experiments.usps_pixel_bound import per_pair_selection_errors

    rng = np.random.default_rng(3)
    y = np.repeat(np.arange(4), 60)
    X = 4.0 * (y[:, None] == np.arange(4)) + rng.normal(size=(y.size, 4))
    X = np.column_stack([X, rng.normal(size=(y.size, 4))])  # 4 noise features
    X_tr, y_tr, X_te, y_te = X[::2], y[::2], X[1::2], y[1::2]
    (S1, _, _), (S2, err2, pair2) = per_pair_selection_errors(X_tr, y_tr, X_te, y_te, "fisher", (1, 2))
    assert (S1, S2) == (1, 2)
    assert err2 < 0.05 and pair2 < 0.05  # two own features per pair: nearly perfect
    assert multiclass_error(X_tr, y_tr, X_te, y_te, [0, 1]) > 0.3  # two global features: not


def test_render_adds_the_per_pair_table_with_paper_values():
    df = pd.DataFrame([{"source": "usps", "k": 5, "pixel": 1, "test_error": 0.3, "pairwise_error": 0.1}])
    pairs = pd.DataFrame(
        [
            {"source": "usps_rest", "selector": "arom", "repeat": r, "S": 5, "error": e, "pair_error": 0.04}
            for r, e in enumerate((0.10, 0.14))
        ]
    )
    text = render(df, 1.0, pairs)
    assert "| usps_rest | arom | 12.0 ± 2.8 [8.5] |" in text
    assert "| usps_rest | arom | 4.0 |" in text
