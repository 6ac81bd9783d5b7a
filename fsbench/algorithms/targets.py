r"""Ideal ("target") kernels built from the labels.

Binary problems (Cristianini's alignment) use :math:`K^* = y y^\top` with :math:`y \in \{-1,+1\}`;
multiclass problems use Vert's target (Ramona 2012, eq. 10),

.. math:: K^*_{ij} = 1 \text{ if } y_i = y_j, \quad -1/(C-1) \text{ otherwise},

which reduces to :math:`y y^\top` for C = 2. The "uneven" binary target of Ramona §IV-B uses
:math:`\hat y_i \in \{1/n_1, -1/n_2\}`.
"""

from __future__ import annotations

import numpy as np


def class_target(y: np.ndarray, kind: str = "vert") -> np.ndarray:
    r"""Target Gram matrix for class indices ``y`` (0..C-1).

    Parameters
    ----------
    y : (N,) int array of class indices.
    kind : {"vert", "uneven"}
        ``"vert"``: Vert's multiclass target (= :math:`yy^\top` for two classes).
        ``"uneven"``: :math:`\hat y\hat y^\top` with :math:`\hat y_i = 1/n_1` or :math:`-1/n_2`
        (two classes only).
    """
    y = np.asarray(y)
    classes, counts = np.unique(y, return_counts=True)
    C = classes.size
    if kind == "vert":
        same = y[:, None] == y[None, :]
        off = -1.0 / (C - 1) if C > 1 else 0.0
        return np.where(same, 1.0, off)
    if kind == "uneven":
        if C != 2:
            raise ValueError("the 'uneven' target is defined for two classes only")
        yh = np.where(y == classes[0], 1.0 / counts[0], -1.0 / counts[1])
        return np.outer(yh, yh)
    raise ValueError(f"unknown target {kind!r}; expected 'vert' or 'uneven'")
