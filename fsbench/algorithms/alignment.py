r"""Kernel-target alignment selectors (Ramona et al. 2012, §III).

Alignment of the scaled Gram matrix :math:`K = K_w` with a target :math:`K^*`:

.. math:: A(K, K^*) = \frac{\langle K, K^*\rangle_F}{\lVert K\rVert_F\,\lVert K^*\rVert_F},
   \qquad
   \frac{\partial A}{\partial K} = \frac{K^*}{\lVert K\rVert\lVert K^*\rVert}
   - \frac{\langle K,K^*\rangle\, K}{\lVert K\rVert^3\lVert K^*\rVert}.

**SAS** (scaled alignment selection, Algorithm 1) maximises A over the scale factors by gradient
ascent from 1 and ranks by :math:`|w_d|`. The target is Vert's multiclass kernel (eq. 10), i.e.
:math:`yy^\top` for two classes. For the RBF kernel the width is absorbed by the scale factors
(eq. 6); it only fixes the starting point, so ``gamma`` defaults to the median heuristic on the
training split (with an arbitrary γ the Gram matrix of unscaled data is ≈ I and the gradient
vanishes).
"""

from __future__ import annotations

import numpy as np

from fsbench.algorithms.scaled import ScaledKernelAscent
from fsbench.algorithms.targets import class_target


class SAS(ScaledKernelAscent):
    """Scaled alignment selection: gradient ascent of the kernel-target alignment over scale factors.

    Parameters
    ----------
    kernel : {"linear", "rbf", "poly"}
    gamma : float or {"median", "n_features", "scale"}
        RBF width (rule resolved on the training data).
    degree, offset, scale : float
        Polynomial kernel :math:`(\\text{offset} + \\text{scale}\\langle x, z\\rangle)^\\text{degree}`.
    max_iter : int, default 200
    tol : float, default 1e-6
        Stop when the alignment changes by less than ``tol`` (relative to max(1, |A|)).
    step_size : float, default 1.0
        Norm of the first trial step in scale-factor space (Armijo backtracking afterwards).
    target : {"vert", "uneven"}, default "vert"
    n_features_to_select : int, float or None

    Attributes
    ----------
    ranking_, scores_ (= |w|), scale_factors_, criterion_ (final alignment), n_iter_, converged_
    """

    description = "scaled kernel-target alignment: gradient ascent on scale factors (multiclass)"
    citation = "Ramona, Richard & David 2012, IEEE TNNLS 23(10), Alg. 1"

    def __init__(
        self,
        kernel: str = "linear",
        gamma: float | str = "median",
        degree: float = 3,
        offset: float = 1.0,
        scale: float = 1.0,
        max_iter: int = 200,
        tol: float = 1e-6,
        step_size: float = 1.0,
        target: str = "vert",
        n_features_to_select: int | float | None = None,
    ):
        super().__init__(
            kernel=kernel, gamma=gamma, degree=degree, offset=offset, scale=scale, max_iter=max_iter,
            tol=tol, step_size=step_size, n_features_to_select=n_features_to_select,
        )
        self.target = target

    def _target(self, y):
        return class_target(y, self.target)

    def _criterion(self, K, T):
        return alignment(K, T)


def alignment(K: np.ndarray, T: np.ndarray) -> tuple[float, np.ndarray]:
    """Kernel-target alignment and its derivative with respect to the entries of ``K``."""
    kt = float(np.vdot(K, T))
    nk = float(np.linalg.norm(K))
    nt = float(np.linalg.norm(T))
    if nk == 0.0 or nt == 0.0:
        return 0.0, np.zeros_like(K)
    a = kt / (nk * nt)
    M = T / (nk * nt) - (a / (nk * nk)) * K
    return a, M
