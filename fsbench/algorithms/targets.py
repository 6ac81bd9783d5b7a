r"""Ideal ("target") kernels built from the labels.

Binary problems (Cristianini's alignment) use :math:`K^* = y y^\top` with :math:`y \in \{-1,+1\}`;
multiclass problems use Vert's target (Ramona 2012, eq. 10),

.. math:: K^*_{ij} = 1 \text{ if } y_i = y_j, \quad -1/(C-1) \text{ otherwise},

which reduces to :math:`y y^\top` for C = 2. The "uneven" binary target of Ramona §IV-B uses
:math:`\hat y_i \in \{1/n_1, -1/n_2\}`.

Every label matrix used by the selectors (these targets, the class-averaging projector of SCSS,
:math:`\mathbf 1\mathbf 1^\top`) is a *class-pair table*: :math:`Z_{ij} = A_{c(i)\,c(j)}` for a C×C
matrix A and the class index c(i) of sample i. The selectors keep the table, never the N×N matrix
(:func:`expand_class_table` builds it where a dense matrix is wanted).
"""

from __future__ import annotations

import numpy as np


def class_target_table(counts: np.ndarray, kind: str = "vert") -> np.ndarray:
    r"""The C×C table A of the target, :math:`K^*_{ij} = A_{c(i)c(j)}`, for classes of sizes ``counts``.

    Parameters
    ----------
    counts : (C,) class sizes, in the order of the class indices.
    kind : {"vert", "uneven"}
        ``"vert"``: :math:`A_{cc} = 1`, :math:`A_{cc'} = -1/(C-1)` (:math:`A = 0` for C = 1).
        ``"uneven"``: :math:`A = vv^\top` with :math:`v = (1/n_1, -1/n_2)` (two classes only).
    """
    counts = np.asarray(counts)
    C = counts.size
    if kind == "vert":
        off = -1.0 / (C - 1) if C > 1 else 0.0
        return np.where(np.eye(C, dtype=bool), 1.0, off)
    if kind == "uneven":
        if C != 2:
            raise ValueError("the 'uneven' target is defined for two classes only")
        v = np.array([1.0 / counts[0], -1.0 / counts[1]])
        return np.outer(v, v)
    raise ValueError(f"unknown target {kind!r}; expected 'vert' or 'uneven'")


def expand_class_table(table: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The N×N matrix :math:`Z_{ij} = A_{c(i)c(j)}` of the table ``table`` (A) and class indices ``codes``."""
    return np.take(table[codes], codes, axis=1)


def class_table_norm(table: np.ndarray, counts: np.ndarray) -> float:
    r""":math:`\lVert Z\rVert_F = (\sum_{cc'} n_c n_{c'} A_{cc'}^2)^{1/2}` of a class-pair table, in O(C²)."""
    counts = np.asarray(counts, dtype=float)
    return float(np.sqrt(counts @ (np.asarray(table) ** 2) @ counts))


def class_target(y: np.ndarray, kind: str = "vert") -> np.ndarray:
    r"""Target Gram matrix for class labels ``y`` (N×N; :func:`class_target_table` gives its table).

    Parameters
    ----------
    y : (N,) class labels (e.g. indices 0..C-1).
    kind : {"vert", "uneven"}
        ``"vert"``: Vert's multiclass target (= :math:`yy^\top` for two classes).
        ``"uneven"``: :math:`\hat y\hat y^\top` with :math:`\hat y_i = 1/n_1` or :math:`-1/n_2`
        (two classes only).
    """
    _, codes, counts = np.unique(np.asarray(y), return_inverse=True, return_counts=True)
    return expand_class_table(class_target_table(counts, kind), codes.ravel())
