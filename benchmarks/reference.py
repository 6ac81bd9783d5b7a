r"""Reference implementations for the speed benchmarks: the textbook way, kept deliberately simple.

:func:`sas_iteration` is one iteration of SAS (Ramona et al. 2012, Alg. 1) with the RBF kernel written
the straightforward way: the scaled Gram matrix, the kernel-target alignment and its derivative
:math:`M = \partial A/\partial K`, then **one N×N derivative matrix per feature**,

.. math:: \frac{\partial K_{ij}}{\partial w_d} = -2\gamma w_d (x_{id} - x_{jd})^2 K_{ij},
   \qquad g_d = \sum_{ij} M_{ij} \frac{\partial K_{ij}}{\partial w_d},

in a Python loop over d — O(N²·D) elementwise work and D full N×N temporaries per iteration, against
the one N×N×D GEMM of :meth:`fsbench.algorithms.kernels.Kernel.scale_gradient`. It shares no code
with fsbench (the Gram matrix is scikit-learn's :func:`~sklearn.metrics.pairwise.rbf_kernel`), so
``tests/test_benchmarks.py`` can check fsbench's gradient against it.

:func:`floor_ops` are the operations that bound one fast iteration from below: one N×N ``exp`` and
three N×N×D matrix products (the Gram GEMM, the ``P @ X`` of the gradient and one spare).
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics.pairwise import rbf_kernel


def vert_target(y: np.ndarray) -> np.ndarray:
    """Vert's target: 1 for a same-class pair, −1/(C−1) otherwise (:math:`yy^\\top` for two classes)."""
    y = np.asarray(y)
    n_classes = np.unique(y).size
    off = -1.0 / (n_classes - 1) if n_classes > 1 else 0.0
    return np.where(y[:, None] == y[None, :], 1.0, off)


def sas_iteration(X: np.ndarray, T: np.ndarray, w: np.ndarray, gamma: float) -> tuple[float, np.ndarray]:
    """Alignment of the RBF Gram matrix at scale factors ``w`` and its gradient, one feature at a time.

    Parameters
    ----------
    X : (N, D) data; T : (N, N) target kernel; w : (D,) scale factors; gamma : RBF width
        (:math:`k_w(x, z) = \\exp(-\\gamma\\lVert w\\circ x - w\\circ z\\rVert^2)`).

    Returns
    -------
    alignment : float
    gradient : (D,) :math:`\\partial A/\\partial w`
    """
    K = rbf_kernel(X * w, gamma=gamma)
    kt = float(np.sum(K * T))
    nk = float(np.sqrt(np.sum(K * K)))
    nt = float(np.sqrt(np.sum(T * T)))
    a = kt / (nk * nt)
    dA_dK = T / (nk * nt) - kt * K / (nk**3 * nt)
    g = np.empty(X.shape[1])
    for d in range(X.shape[1]):
        diff = X[:, d][:, None] - X[:, d][None, :]
        dK_dw = -2.0 * gamma * w[d] * diff**2 * K  # ∂K/∂w_d, a full N×N matrix
        g[d] = np.sum(dA_dK * dK_dw)
    return a, g


def floor_ops(N: int, D: int, rng: np.random.Generator) -> dict[str, object]:
    """Closures for the lower bound of one iteration: ``exp`` of an N×N matrix and one N×N×D GEMM.

    The GEMM is ``A @ B.T`` with two distinct (N, D) C-ordered operands (a general ``dgemm``,
    2·N²·D flops; ``X @ X.T`` of a single operand would dispatch to the half-cost ``dsyrk``). The
    ``exp`` argument lies in [−8, 0], like :math:`-\\gamma\\lVert x-z\\rVert^2` with the median width.
    """
    A = rng.standard_normal((N, D))
    B = rng.standard_normal((N, D))
    E = -8.0 * rng.random((N, N))
    return {"exp_NxN": lambda: np.exp(E), "gemm_NxNxD": lambda: A @ B.T}
