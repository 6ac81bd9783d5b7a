r"""Two-class separability criteria for branch-and-bound selection (Ring & Eskofier 2015; ALGORITHMS.md §9.2).

**In RKHS** (Ring's ECST ``ReproducingKernelHilbertSpaceEvaluator``, after Zhou & Chellappa, TPAMI
28(6), 2006). Samples of class 1 then class 2, Gram blocks :math:`K_{11}, K_{12}, K_{22}`,
:math:`s_c = \mathbf 1/n_c`, :math:`a_{11} = s_1^\top K_{11}s_1`, :math:`a_{12} = s_1^\top K_{12}s_2`,
:math:`a_{22} = s_2^\top K_{22}s_2`;
:math:`J_c = (I - s_c\mathbf 1^\top)/\sqrt{n_c}`, top-r eigenpairs :math:`(Q_c, \Lambda_c)` of
:math:`J_c^\top K_{cc}J_c` (r = ``n_eigenvectors``), :math:`V_c = J_cQ_c`; :math:`b_{11} = K_{11}s_1`,
:math:`b_{21} = K_{21}s_1`, :math:`b_{12} = K_{12}s_2`, :math:`b_{22} = K_{22}s_2`.

``mean_distance``
    :math:`J_M = a_{11} - 2a_{12} + a_{22} = \lVert m_1 - m_2\rVert^2_{\mathcal H}` (Ring's new
    criterion; exact, no eigendecomposition).
``bhattacharyya``
    Chernoff distance at α = ½: :math:`P = \mathrm{blockdiag}(\sqrt{1-\alpha}V_1, \sqrt\alpha V_2)`,
    :math:`L = \begin{pmatrix}\alpha\Lambda_1 & \sqrt{\alpha(1-\alpha)}V_1^\top K_{12}V_2\\ \cdot^\top &
    \alpha\Lambda_2\end{pmatrix}`, :math:`B = PL^{-1}P^\top`, :math:`u_1 = [b_{11}; b_{21}]`,
    :math:`u_2 = [b_{12}; b_{22}]`, :math:`\xi_{kl} = a_{kl} - u_k^\top Bu_l`,
    :math:`J_B = \tfrac12\alpha(1-\alpha)(\xi_{11} + \xi_{22} - 2\xi_{12})`.
    (:math:`u_k^\top B u_l = m_k^\top \Pi m_l` with Π the projector on the span of both classes'
    top principal directions, so :math:`J_B = \tfrac18\lVert(I-\Pi)(m_1-m_2)\rVert^2`.)
``kl``
    :math:`\mathrm{KL}(\text{class 1}\,\|\,\text{class 2})`: :math:`A_1 = V_1V_1^\top`,
    :math:`B_2 = V_2\Lambda_2^{-1}V_2^\top`, :math:`\theta_{121} = a_{11} - b_{21}^\top B_2b_{21}`,
    :math:`\theta_{222} = a_{22} - b_{22}^\top B_2b_{22}`, :math:`\theta_{122} = a_{12} - b_{21}^\top
    B_2b_{22}`, :math:`\theta_{221} = a_{12} - b_{22}^\top B_2b_{21}`,
    :math:`\eta_{12} = \mathrm{tr}(A_1K_{12}B_2K_{21})`,
    :math:`J_{KL} = \tfrac12(\theta_{121} + \theta_{222} - \theta_{122} - \theta_{221} +
    \mathrm{tr}\Lambda_1 - \eta_{12})`. **Asymmetric**: class 1 is the *first* class of the pair.
    (With :math:`P_2` the projector on class 2's top-r principal directions in feature space and
    :math:`\Sigma_1^{(r)}` class 1's rank-r covariance, this is
    :math:`\tfrac12[\Delta m^\top(I-P_2)\Delta m + \mathrm{tr}(\Sigma_1^{(r)}(I-P_2))]`.)

Both low-rank criteria thus measure what lies *outside* the retained principal subspaces (checked
in the tests with the linear kernel): with r as large as the span of the data, :math:`J_B = 0`.

As in ECST there is no log-determinant term and no explicit regulariser. ``regularization`` ρ ≥ 0
[D] is a ridge on the Gram matrix of the retained basis: :math:`L \to L + \rho I` and
:math:`\Lambda_2^{-1} \to (\Lambda_2 + \rho I)^{-1}` (a "soft" projector); ρ = 0 reproduces ECST.
Robustness [D]: eigenpairs with :math:`\lambda \le 10^{-12}\max(1,\lambda_{\max})` are dropped from
the inverses (and :math:`L^{-1}` is a pseudo-inverse), :math:`r \le \min(n_1, n_2) - 1` is required,
and a non-finite value raises (ECST throws as well).

**Gaussian, in input space** (ECST ``ProbabilisticDistanceEvaluator``, for comparison): sample
means and *unbiased* class covariances :math:`\Sigma_c = \frac{1}{n_c-1}\sum_{i\in c}(x_i-\mu_c)
(x_i-\mu_c)^\top` (divide by :math:`n_c - 1`, like MATLAB's ``cov``). Reason: Ring's own code does
this — ECST ``src/ecst/utilities/MathUtilities.java``, ``covarianceMatrix(double[] mean, Instances)``
scales the scatter by ``1.0 / (numInstances() - 1.0)``, and
``src/ecst/algorithm/featureselection/evaluator/ProbabilisticDistanceEvaluator.java``
(``buildEvaluator``) uses it for both classes, with :math:`\bar\Sigma = (\Sigma_1+\Sigma_2)/2`
(github.com/ma2th/ecst, commit 4d81d97). Each class therefore needs at least 2 samples.

``gaussian_bhattacharyya``
    :math:`\tfrac18\Delta\mu^\top\bar\Sigma^{-1}\Delta\mu
    + \tfrac12\ln\frac{|\bar\Sigma|}{\sqrt{|\Sigma_1||\Sigma_2|}}`,
    :math:`\bar\Sigma = (\Sigma_1+\Sigma_2)/2`;
``gaussian_kl``
    :math:`\tfrac12\Delta\mu^\top\Sigma_2^{-1}\Delta\mu + \tfrac12\ln\frac{|\Sigma_2|}{|\Sigma_1|} +
    \tfrac12\mathrm{tr}(\Sigma_2^{-1}\Sigma_1 - I)` (class 1 ‖ class 2).

Here ρ is added to the diagonal of both covariances; a singular covariance with ρ = 0 raises.

**Monotonicity** (what B&B needs: :math:`F_i\subset F_j \Rightarrow J(F_i)\le J(F_j)`) — see
:func:`is_monotone`: the Gaussian divergences are exact divergences between the Gaussian models,
whose marginals are the models of the subsets (data-processing inequality), so they are monotone;
``mean_distance`` is monotone for the linear kernel and for :math:`(o + s\,x\cdot z)^\delta` with
:math:`o \ge 0`, :math:`s > 0` and integer δ (the subset's feature map is a coordinate projection of
the superset's: the expansion of :math:`(o + s(a + b))^\delta` contains that of
:math:`(o+sa)^\delta` and only non-negative cross terms); it is **not** guaranteed for the RBF
kernel, nor are the low-rank ``bhattacharyya``/``kl`` for any kernel.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from scipy.linalg import eigh

RKHS_CRITERIA = ("mean_distance", "bhattacharyya", "kl")
GAUSSIAN_CRITERIA = ("gaussian_bhattacharyya", "gaussian_kl")
CRITERIA = RKHS_CRITERIA + GAUSSIAN_CRITERIA

_ALPHA = 0.5  # Chernoff α of the Bhattacharyya distance
_EIG_TOL = 1e-12


def _top_eig(Kcc: np.ndarray, r: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-r eigenpairs of :math:`J^\\top K J` and :math:`V = JQ` (descending eigenvalues)."""
    n = Kcc.shape[0]
    # J^T K J with J = (I - 11^T/n)/sqrt(n): double centring divided by n
    row = Kcc.mean(axis=0)
    Kc = (Kcc - row[None, :] - row[:, None] + row.mean()) / n
    Kc = 0.5 * (Kc + Kc.T)
    lam, Q = eigh(Kc, subset_by_index=[n - r, n - 1])
    lam, Q = lam[::-1], Q[:, ::-1]
    V = (Q - Q.mean(axis=0, keepdims=True)) / np.sqrt(n)  # J Q
    return lam, V


def _safe_inverse_diag(lam: np.ndarray, rho: float) -> np.ndarray:
    tol = _EIG_TOL * max(1.0, float(np.max(lam, initial=0.0)))
    keep = lam > tol if rho == 0 else lam + rho > 0
    return np.where(keep, 1.0 / np.where(keep, lam + rho, 1.0), 0.0)


def rkhs_criterion(
    K: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    criterion: str = "mean_distance",
    n_eigenvectors: int = 3,
    regularization: float = 0.0,
) -> float:
    """A two-class RKHS criterion from a Gram matrix ``K`` and the row indices of the two classes.

    ``first`` is class 1 of the module docstring (it matters for the asymmetric ``kl``).
    """
    K11 = K[np.ix_(first, first)]
    K22 = K[np.ix_(second, second)]
    K12 = K[np.ix_(first, second)]
    n1, n2 = first.size, second.size
    b11 = K11.mean(axis=1)
    b22 = K22.mean(axis=1)
    b12 = K12.mean(axis=1)  # K12 s2 (n1)
    b21 = K12.mean(axis=0)  # K21 s1 (n2)
    a11, a22, a12 = b11.mean(), b22.mean(), b12.mean()
    if criterion == "mean_distance":
        return float(a11 - 2.0 * a12 + a22)
    r = n_eigenvectors
    if not (isinstance(r, Integral) and 1 <= r <= min(n1, n2) - 1):
        raise ValueError(
            f"n_eigenvectors must be an int in [1, min(n1, n2) - 1] = [1, {min(n1, n2) - 1}]; got {r!r}"
        )
    rho = float(regularization)
    lam1, V1 = _top_eig(K11, r)
    lam2, V2 = _top_eig(K22, r)
    if criterion == "bhattacharyya":
        al = _ALPHA
        C12 = np.sqrt(al * (1 - al)) * (V1.T @ K12 @ V2)
        L = np.block([[np.diag(al * lam1), C12], [C12.T, np.diag(al * lam2)]]) + rho * np.eye(2 * r)
        Linv = np.linalg.pinv(L, rcond=_EIG_TOL, hermitian=True)
        # P^T u_k without forming P: P = blockdiag(sqrt(1-α) V1, sqrt(α) V2)
        pu1 = np.concatenate([np.sqrt(1 - al) * (V1.T @ b11), np.sqrt(al) * (V2.T @ b21)])
        pu2 = np.concatenate([np.sqrt(1 - al) * (V1.T @ b12), np.sqrt(al) * (V2.T @ b22)])
        xi11 = a11 - pu1 @ Linv @ pu1
        xi12 = a12 - pu1 @ Linv @ pu2
        xi22 = a22 - pu2 @ Linv @ pu2
        val = 0.5 * al * (1 - al) * (xi11 + xi22 - 2.0 * xi12)
    elif criterion == "kl":
        inv2 = _safe_inverse_diag(lam2, rho)
        c21 = V2.T @ b21
        c22 = V2.T @ b22
        theta121 = a11 - c21 @ (inv2 * c21)
        theta222 = a22 - c22 @ (inv2 * c22)
        theta122 = a12 - c21 @ (inv2 * c22)
        theta221 = theta122  # b22^T B2 b21 = b21^T B2 b22 (B2 symmetric)
        M = V1.T @ K12 @ V2  # η12 = tr(V1 V1^T K12 V2 Λ2^-1 V2^T K21) = ||M Λ2^-1/2||_F^2
        eta12 = float(np.sum(M * M * inv2[None, :]))
        val = 0.5 * (theta121 + theta222 - theta122 - theta221 + lam1.sum() - eta12)
    else:
        raise ValueError(f"unknown RKHS criterion {criterion!r}; expected one of {RKHS_CRITERIA}")
    if not np.isfinite(val):
        raise FloatingPointError(f"{criterion} criterion is not finite (singular class covariance?)")
    return float(val)


def gaussian_criterion(X1: np.ndarray, X2: np.ndarray, criterion: str, regularization: float = 0.0) -> float:
    r"""Bhattacharyya distance or KL divergence (X1 ‖ X2) between Gaussian fits of two classes.

    Parameters
    ----------
    X1, X2 : ndarray of shape (n_1, d) and (n_2, d)
        Samples of class 1 and class 2; each needs :math:`n_c \ge 2`.
    criterion : {"gaussian_bhattacharyya", "gaussian_kl"}
    regularization : float, default 0.0
        ρ added to the diagonal of both class covariances.

    Returns
    -------
    float
        The criterion (module docstring), with the unbiased covariances
        :math:`\Sigma_c = \frac{1}{n_c-1}\sum_{i\in c}(x_i-\mu_c)(x_i-\mu_c)^\top + \rho I`
        (divide by :math:`n_c-1`, as Ring's ECST ``MathUtilities.covarianceMatrix`` does).
    """
    d = X1.shape[1]
    if min(X1.shape[0], X2.shape[0]) < 2:
        # the unbiased estimate divides by n_c - 1: undefined for a single sample
        raise ValueError(f"{criterion}: each class needs at least 2 samples (unbiased covariance)")
    mu = X1.mean(axis=0) - X2.mean(axis=0)
    S1 = np.atleast_2d(np.cov(X1, rowvar=False, ddof=1)) + regularization * np.eye(d)
    S2 = np.atleast_2d(np.cov(X2, rowvar=False, ddof=1)) + regularization * np.eye(d)
    if criterion == "gaussian_bhattacharyya":
        Sb = 0.5 * (S1 + S2)
        ok, ld = _chol_logdet(Sb)
        ok1, ld1 = _chol_logdet(S1)
        ok2, ld2 = _chol_logdet(S2)
        if not (ok and ok1 and ok2):
            raise FloatingPointError(
                "gaussian_bhattacharyya: singular class covariance; set regularization > 0"
            )
        val = 0.125 * mu @ np.linalg.solve(Sb, mu) + 0.5 * (ld - 0.5 * (ld1 + ld2))
    elif criterion == "gaussian_kl":
        ok1, ld1 = _chol_logdet(S1)
        ok2, ld2 = _chol_logdet(S2)
        if not (ok1 and ok2):
            raise FloatingPointError("gaussian_kl: singular class covariance; set regularization > 0")
        S2inv_S1 = np.linalg.solve(S2, S1)
        val = 0.5 * (mu @ np.linalg.solve(S2, mu) + ld2 - ld1 + np.trace(S2inv_S1) - d)
    else:
        raise ValueError(f"unknown Gaussian criterion {criterion!r}; expected one of {GAUSSIAN_CRITERIA}")
    if not np.isfinite(val):
        raise FloatingPointError(f"{criterion} is not finite")
    return float(val)


def _chol_logdet(S: np.ndarray) -> tuple[bool, float]:
    try:
        L = np.linalg.cholesky(S)
    except np.linalg.LinAlgError:
        return False, np.nan
    dg = np.diag(L)
    if np.any(dg <= 1e-150):
        return False, np.nan
    return True, 2.0 * float(np.sum(np.log(dg)))


def is_monotone(
    criterion: str, kernel: str, degree: float = 3, offset: float = 1.0, scale: float = 1.0
) -> bool:
    """Whether ``criterion`` with ``kernel`` is guaranteed monotone in the feature subset (see module)."""
    if criterion in GAUSSIAN_CRITERIA:
        return True
    if criterion != "mean_distance":
        return False
    if kernel == "linear":
        return True
    if kernel == "poly":
        return float(degree).is_integer() and degree >= 1 and offset >= 0 and scale > 0
    return False
