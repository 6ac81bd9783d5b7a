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
