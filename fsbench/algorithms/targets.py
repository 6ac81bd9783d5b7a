r"""Ideal ("target") kernels built from the labels.

Binary problems (Cristianini's alignment) use :math:`K^* = y y^\top` with :math:`y \in \{-1,+1\}`;
multiclass problems use Vert's target (Ramona 2012, eq. 10),

.. math:: K^*_{ij} = 1 \text{ if } y_i = y_j, \quad -1/(C-1) \text{ otherwise},

which reduces to :math:`y y^\top` for C = 2. The "uneven" binary target of Ramona §IV-B uses
:math:`\hat y_i \in \{1/n_1, -1/n_2\}`.
"""

from __future__ import annotations

import numpy as np


def class_block_target(y: np.ndarray, kind: str = "vert") -> tuple[np.ndarray, np.ndarray]:
    r"""The target as a C×C block matrix: :math:`K^*_{ij} = B_{c_i c_j}` (:func:`class_target`).

    Every target here is constant on the blocks of pairs of classes, so it is
    :math:`K^* = E B E^\top` with :math:`E` the N×C class-indicator matrix. Criteria that never form
    the N×N target use this form (e.g. the random-feature alignment of
    :mod:`fsbench.algorithms.random_features`, where :math:`\langle ZZ^\top, K^*\rangle =
    \operatorname{tr}(B\,S S^\top)` with :math:`S = E^\top Z`).

    Parameters
    ----------
    y : (N,) array of class labels (any values; the classes are ``np.unique(y)``).
    kind : {"vert", "uneven"}

    Returns
    -------
    B : (C, C) float array.
    codes : (N,) int array, the class index 0..C-1 of every sample (``class_target = B[codes][:, codes]``).
    """
    y = np.asarray(y)
    classes, codes, counts = np.unique(y, return_inverse=True, return_counts=True)
    codes = codes.reshape(-1)
    C = classes.size
    if kind == "vert":
        off = -1.0 / (C - 1) if C > 1 else 0.0
        return np.where(np.eye(C, dtype=bool), 1.0, off), codes
    if kind == "uneven":
        if C != 2:
            raise ValueError("the 'uneven' target is defined for two classes only")
        v = np.array([1.0 / counts[0], -1.0 / counts[1]])
        return np.outer(v, v), codes
    raise ValueError(f"unknown target {kind!r}; expected 'vert' or 'uneven'")


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
    B, codes = class_block_target(y, kind)
    return B[codes[:, None], codes[None, :]]
