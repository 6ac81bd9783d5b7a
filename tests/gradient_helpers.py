"""Finite-difference check of a scale-factor selector's ``criterion(X, y, w) -> (f, gradient)``."""

from __future__ import annotations

import numpy as np


def fd_check(sel, X, y, w, rtol=1e-5):
    """Assert that the analytic gradient equals central differences (step 1e-6); return the value."""
    f, g = sel.criterion(X, y, w)
    h = 1e-6
    fd = np.array(
        [
            (sel.criterion(X, y, w + h * e)[0] - sel.criterion(X, y, w - h * e)[0]) / (2 * h)
            for e in np.eye(w.size)
        ]
    )
    assert np.all(np.isfinite(g)) and np.abs(g).max() > 0
    np.testing.assert_allclose(g, fd, rtol=rtol, atol=1e-8 * np.abs(g).max())
    return f
