r"""Heterogeneous (continuous + categorical) feature selection of Paul, D'Ambrosio & Dupont 2015.

Three RFE selectors share Paul's wrapper (Algorithm 1; ALGORITHMS.md §8.2), fsbench's one
backward-elimination loop (:func:`fsbench.algorithms.elimination.backward_elimination`) with each
selector's importance as its hook: train a model on the surviving features F, drop the ``step`` = 20 %
least important ones
(:math:`\max(1, \mathrm{round}(0.2|F|))`, rounded half-up, so the last iterations drop one feature),
put them on top of the ranking, repeat until every feature is ranked. Ties in the importance drop
the higher feature index first, so that the lower index ranks better.

``rfe_svm_clinical`` (:class:`ClinicalSVMRFE`, §2.3 of the paper)
    SVM on the clinical kernel (:mod:`fsbench.algorithms.clinical_kernel`),
    :math:`J_{SVM}(f) = |W^2(\alpha) - W^2_{(-f)}(\alpha)|` with α frozen (eq. 4). Since
    :math:`K^{(-f)} = (pK - K_f)/(p-1)`, with :math:`q_f = \breve\alpha^\top K_f\breve\alpha` and
    :math:`W^2 = \breve\alpha^\top K\breve\alpha = \frac1p\sum_f q_f`,

    .. math:: W^2 - W^2_{(-f)} = \frac{q_f - W^2}{p - 1},

    so every criterion costs one quadratic form per feature on the support vectors, and the kernel
    of the survivors is the downdate :math:`(pK - \sum_{f\in R}K_f)/(p-|R|)` — never recomputed.
    Note what eq. 4's absolute value implies with this renormalised downdate: a feature is
    *important* when its :math:`q_f` is far from the mean :math:`W^2` in **either** direction.
    A feature with :math:`q_f \approx 0` (e.g. a constant feature, :math:`K_f = \mathbf 1\mathbf
    1^\top`, :math:`q_f = (\sum_i\breve\alpha_i)^2 = 0`) is kept long, a relevant feature whose
    :math:`q_f` happens to sit near the mean of the survivors is dropped, and for the last two
    features the criterion is **always a tie** (:math:`|q_1 - W^2| = |q_2 - W^2|`). Ties of the
    absolute criterion (to 1e-9 relative) are therefore broken by the signed change, then by index.
    ``importance="signed"`` (Guyon's :math:`W^2 - W^2_{(-f)}`, i.e. ranking by :math:`q_f`) is
    available; it is also what eq. 4 gives under the other reading of "remove :math:`k_f` and
    normalize accordingly" (no renormalisation, :math:`K^{(-f)} = K - K_f/p`, whence
    :math:`W^2 - W^2_{(-f)} = q_f/p \ge 0`).
``rfe_mkl_clinical`` (:class:`ClinicalMKLRFE`, §2.4, truncated in our copy)
    One clinical subkernel per feature, :math:`K_\mu = \sum_f \mu_f K_f` on the simplex, learnt by
    SimpleMKL (:func:`simple_mkl`); the importance of f is :math:`\mu_f`.
``rfe_linear_onehot`` (:class:`OneHotLinearSVMRFE`)
    The disjunctive-encoding baseline of the paper's introduction: linear SVM-RFE on the one-hot
    encoding, importance of an original feature = :math:`\sum` of :math:`w_j^2` over its columns.

Multiclass [D] (Paul's tasks are binary): one SVM per class against the rest on the same kernel
and C, importances summed over the machines — the convention of :mod:`fsbench.algorithms.rfe`; for
MKL the machines share one :math:`\mu` and their objectives are summed.

C [D] (ALGORITHMS.md §8.4): ``C=1``. ``C="inverse_mean_diag"`` gives SVMlight's *documented* default
:math:`C = [\mathrm{avg}_i\,k(x_i,x_i)]^{-1}`, which is 1 for the clinical kernel without missing
values. It is not ``C="joachims"`` of the rest of fsbench (:func:`fsbench.algorithms.kernels.joachims_C`,
SVMlight's *implemented* default :math:`1/\bar R^2`, :math:`\bar R = \mathrm{avg}_i\lVert\phi(x_i) -
\phi(0)\rVert`, the mean distance to the image of the origin): there is no origin in a space of
categorical values, so the clinical selectors refuse ``"joachims"``. Where both exist (a linear kernel,
:math:`k(x, 0) = 0`), :math:`\bar R^2 = (\mathrm{avg}_i\lVert x_i\rVert)^2 \le
\mathrm{avg}_i\lVert x_i\rVert^2` (Jensen): Joachims' C is the larger, equal only when all
:math:`\lVert x_i\rVert` are equal. The one-hot baseline has a linear kernel and an origin: there
``"joachims"`` is Joachims' rule. Missing values (NaN) are accepted by the two clinical selectors
(:math:`k_f = 0` for a pair with a missing value) and by the one-hot baseline (see its docstring);
``n_missing_`` reports how many entries were missing.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.svm import SVC
from sklearn.utils._param_validation import Interval, InvalidParameterError, StrOptions

from fsbench.algorithms.base import BaseSelector
from fsbench.algorithms.clinical_kernel import (
    ClinicalKernel,
    SubkernelBank,
    categorical_mask,
    remove_subkernels,
)
from fsbench.algorithms.elimination import STEP_CONSTRAINTS, backward_elimination
from fsbench.algorithms.kernels import joachims_C, make_kernel

IMPORTANCES = ("abs", "signed")
#: libsvm tolerance of the SVMs inside SimpleMKL (tighter than libsvm's 1e-3 so that objective
#: differences along the line search are not dominated by solver error).
_MKL_SVM_TOL = 1e-5
#: libsvm iteration cap of the MKL inner SVMs. scikit-learn's default (-1) is unlimited, and at the
#: tight ``_MKL_SVM_TOL`` libsvm can cycle for hours on a kernel of a few categorical features (many
#: identical rows, e.g. horse_colic late in the RFE); a fit that hits the cap returns its current
#: duals (a ConvergenceWarning), and the MKL line search then simply sees no decrease.
_MKL_SVM_MAX_ITER = 1_000_000
_MAX_HALVINGS = 30


# ---------------------------------------------------------------------------------------------
# shared pieces
# ---------------------------------------------------------------------------------------------
class _NaNTolerantSelector(BaseSelector):
    """:class:`BaseSelector` whose ``fit`` accepts NaN (missing values; the ``allow_nan`` input tag);
    inf is still rejected."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


def machine_targets(y: np.ndarray) -> list[np.ndarray]:
    """±1 targets: one machine for two classes, one per class against the rest otherwise."""
    n_classes = int(y.max()) + 1
    if n_classes == 2:
        return [np.where(y == 1, 1.0, -1.0)]
    return [np.where(y == c, 1.0, -1.0) for c in range(n_classes)]


def svm_duals(
    K: np.ndarray, yb: np.ndarray, C: float, tol: float = 1e-3, max_iter: int = -1
) -> tuple[np.ndarray, float]:
    r"""Signed duals :math:`\breve\alpha = \alpha\circ y` (full length, 0 off support) and the dual
    objective :math:`\sum_i\alpha_i - \tfrac12\breve\alpha^\top K\breve\alpha` of ``SVC(precomputed)``."""
    a = np.zeros(yb.size)
    if np.all(yb == yb[0]):
        return a, 0.0
    svc = SVC(kernel="precomputed", C=C, tol=tol, max_iter=max_iter).fit(K, yb)
    a[svc.support_] = svc.dual_coef_[0]
    sv = svc.support_
    w2 = float(a[sv] @ K[np.ix_(sv, sv)] @ a[sv])
    return a, float(np.abs(a).sum()) - 0.5 * w2


#: The C rule of the clinical selectors (see the module docstring); "joachims" only for the one-hot baseline.
INVERSE_MEAN_DIAG = "inverse_mean_diag"


_JOACHIMS_UNDEFINED = (
    "C='joachims' (1/R̄², R̄ = mean distance to the image of the origin) is undefined for the "
    f"clinical kernel, which has no origin; use C='{INVERSE_MEAN_DIAG}' (1/mean k(x,x))"
)


def _check_C(C, rule: str) -> None:
    """``C`` must be a positive number or the string ``rule`` (for :func:`simple_mkl`, not an estimator)."""
    if isinstance(C, str):
        if C == rule:
            return
        if C == "joachims":
            raise ValueError(_JOACHIMS_UNDEFINED)
    elif isinstance(C, Real) and not isinstance(C, bool) and np.isfinite(C) and C > 0:
        return
    raise ValueError(f"C must be a positive number or {rule!r}, got {C!r}")


def _inverse_mean_diag_C(C, K: np.ndarray) -> float:
    """Numeric C, or SVMlight's documented default :math:`1/\\mathrm{mean}_i k(x_i,x_i)` (see module)."""
    if C == INVERSE_MEAN_DIAG:
        m = float(np.mean(np.diag(K)))
        return 1.0 / m if m > 0 else 1.0
    return float(C)


#: Parameters shared by the RFE selectors of this module (``C``'s rule string differs).
_RFE_CONSTRAINTS: dict = {
    **BaseSelector._parameter_constraints,
    "categorical": ["array-like", None],
    "step": STEP_CONSTRAINTS["step"],
}
_POSITIVE = Interval(Real, 0, np.inf, closed="neither")


class _ClinicalRFEBase(_NaNTolerantSelector):
    supported_kernels: tuple[str, ...] = ()
    _parameter_constraints: dict = {
        **_RFE_CONSTRAINTS,
        "C": [_POSITIVE, StrOptions({INVERSE_MEAN_DIAG})],
    }

    def _validate_params(self) -> None:
        if isinstance(self.C, str) and self.C == "joachims":  # refused by the declaration too: say why
            raise InvalidParameterError(f"The 'C' parameter of {type(self).__name__}: {_JOACHIMS_UNDEFINED}")
        super()._validate_params()

    def _rfe(self, X: np.ndarray, y: np.ndarray) -> None:
        """Paul's Algorithm 1 on the clinical kernel; subclasses provide ``_importance``."""
        kern = ClinicalKernel(self.categorical).fit(X)
        self.categorical_ = kern.categorical_
        self.n_missing_ = kern.n_missing_
        bank = SubkernelBank(kern, X)
        targets = machine_targets(y)
        K = bank.weighted_sum(np.arange(X.shape[1])) / X.shape[1]  # the kernel of the survivors

        def importance(remaining: np.ndarray, n_drop: int) -> tuple:
            return self._importance(bank, K, remaining, targets)

        def downdate(dropped: np.ndarray, remaining: np.ndarray) -> None:
            nonlocal K
            K = remove_subkernels(K, bank.weighted_sum(dropped), remaining.size, dropped.size)

        result = backward_elimination(X.shape[1], importance, self.step, on_eliminate=downdate)
        self.ranking_ = result.ranking
        self._steps = result.n_iter


# ---------------------------------------------------------------------------------------------
# SVM-RFE on the clinical kernel
# ---------------------------------------------------------------------------------------------
class ClinicalSVMRFE(_ClinicalRFEBase):
    r"""RFE with an SVM on the clinical kernel, importance :math:`|W^2(\alpha) - W^2_{(-f)}(\alpha)|`.

    See the module docstring for the criterion and the :math:`O(1)`-per-feature downdate.

    Parameters
    ----------
    categorical : bool mask, list of indices or None, default None
        Categorical features (overlap subkernel); None = all continuous (triangular subkernel).
    C : float or "inverse_mean_diag", default 1.0
        SVM C ([D] ALGORITHMS.md §8.4; "inverse_mean_diag" = 1/mean k(x,x), see the module docstring).
    step : float or int, default 0.2
        Fraction of the survivors dropped per iteration (Paul: 20 %), or a fixed number.
    importance : {"abs", "signed"}, default "abs"
        Paul's eq. 4, or Guyon's signed change (rank by :math:`q_f`).
    n_features_to_select : int, float or None
        Only for ``get_support``/``transform``.

    Attributes
    ----------
    ranking_, n_iter_ (RFE iterations), categorical_ (mask used), n_missing_, C_ (per iteration)
    """

    description = "RFE with an SVM on the clinical kernel (mixed data), |W2 - W2_(-f)| importance"
    citation = "Paul, D'Ambrosio & Dupont 2015, Neurocomputing 169:187-195, Alg. 1 and eq. (4)"
    _parameter_constraints: dict = {
        **_ClinicalRFEBase._parameter_constraints,
        "importance": [StrOptions(set(IMPORTANCES))],
    }

    def __init__(
        self,
        categorical=None,
        C: float | str = 1.0,
        step: float | int = 0.2,
        importance: str = "abs",
        n_features_to_select: int | float | None = None,
    ):
        self.categorical = categorical
        self.C = C
        self.step = step
        self.importance = importance
        self.n_features_to_select = n_features_to_select

    def _fit(self, X, y):
        self._Cs: list[float] = []
        self._rfe(X, y)
        self.n_iter_ = self._steps
        self.C_ = np.asarray(self._Cs)

    def _importance(self, bank, K, remaining, targets):
        p = remaining.size
        C = _inverse_mean_diag_C(self.C, K)
        self._Cs.append(C)
        absolute = np.zeros(p)
        signed = np.zeros(p)
        for yb in targets:
            a, _ = svm_duals(K, yb, C)
            q = bank.quad_forms(a, remaining)
            sv = np.flatnonzero(a)
            w2 = float(a[sv] @ K[np.ix_(sv, sv)] @ a[sv])
            diff = (q - w2) / (p - 1)  # W² − W²_(−f)
            absolute += np.abs(diff)
            signed += diff
        if self.importance == "signed":
            return signed, None
        # Ties of |.| up to rounding (always the case for the last two features) → signed change.
        scale = float(np.abs(absolute).max()) or 1.0
        return np.round(absolute / scale, 9), signed


# ---------------------------------------------------------------------------------------------
# SimpleMKL and MKL-RFE
# ---------------------------------------------------------------------------------------------
def simple_mkl(
    bank: SubkernelBank,
    features: np.ndarray,
    targets: list[np.ndarray],
    C: float | str = 1.0,
    tol: float = 0.01,
    max_iter: int = 100,
    mu0: np.ndarray | None = None,
) -> dict:
    r"""SimpleMKL (Rakotomamonjy, Bach, Canu & Grandvalet, JMLR 9:2491–2521, 2008) on clinical subkernels.

    Minimises the SVM dual optimum :math:`J(\mu) = \sum_{m}\max_{\alpha}\big[\sum_i\alpha_i -
    \tfrac12\breve\alpha^\top K_\mu\breve\alpha\big]` (sum over the machines, L1 soft margin with box
    :math:`[0, C]`), :math:`K_\mu = \sum_f\mu_f K_f`, over the simplex
    :math:`\mu\ge0,\ \sum_f\mu_f = 1` (ALGORITHMS.md §8.4 [D]). J is convex and differentiable with
    :math:`\partial J/\partial\mu_f = -\tfrac12 q_f`,
    :math:`q_f = \sum_m \breve\alpha_m^\top K_f\breve\alpha_m`.

    Why this solver: S1 is truncated before its MKL section; SimpleMKL is the standard
    simplex-constrained MKL of that period (Ramona 2012 cites it), needs only an SVM solver
    (``SVC(precomputed)``) and gradients that cost one quadratic form per subkernel, and its
    weights are exactly the "kernel weights as importances" of the paper.

    One iteration (SimpleMKL's Algorithm 1):

    1. gradient :math:`g = -\tfrac12 q` at the current SVM solution; with :math:`m = \arg\max\mu`
       (ties: first) the reduced gradient :math:`g_f - g_m`, direction :math:`D_f = -(g_f - g_m)`
       for :math:`f \ne m` except :math:`D_f = 0` when :math:`\mu_f = 0` and :math:`g_f > g_m`,
       :math:`D_m = -\sum_{f\ne m} D_f`;
    2. descent to the boundary: step :math:`\gamma_{\max} = \min_{D_f<0} -\mu_f/D_f` (it zeroes the
       weight ν); if J decreases, accept, move :math:`D_\nu` onto :math:`D_m` (so that
       :math:`\sum D = 0` still holds), set :math:`D_\nu = 0` and repeat — without a new gradient;
    3. on the last segment (where J did not decrease) a backtracking line search (halving from
       :math:`\gamma_{\max}/2`, at most 30 times: J can be very curved when a new kernel enters) keeps
       the first point that decreases J;
    4. weights below 1e-8 are set to 0 and μ renormalised.

    Every accepted point decreases J, so ``objective`` is strictly decreasing. Stop when the
    relative duality gap :math:`\tfrac12(\max_f q_f - \sum_f\mu_f q_f)/J(\mu) <` ``tol``
    (SimpleMKL's criterion; the MKL dual is :math:`\sum\alpha - \tfrac12\max_f q_f`), when the
    direction vanishes (KKT point), when an iteration cannot decrease J at the SVM solver's
    precision (``converged`` then reports whether the gap was met), or after ``max_iter``
    iterations.

    Parameters
    ----------
    bank : the subkernels of the training set.
    features : indices (into the bank) of the kernels to combine.
    targets : ±1 targets, one per machine (:func:`machine_targets`).
    C : float or "inverse_mean_diag" (1/mean of the diagonal of the uniform combination).
    tol, max_iter : stopping rule (defaults 0.01 and 100: ALGORITHMS.md §8.4 [D]).
    mu0 : start (default uniform = the clinical kernel).

    Returns
    -------
    dict with ``weights`` (len(features),), ``q`` (the last :math:`q_f`), ``objective`` (J after
    each iteration, the start first), ``gap`` (last relative gap), ``n_iter``, ``converged``,
    ``n_svm`` (SVM trainings per machine).
    """
    _check_C(C, INVERSE_MEAN_DIAG)
    feats = np.asarray(features, dtype=int)
    p = feats.size
    mu = np.full(p, 1.0 / p) if mu0 is None else np.asarray(mu0, dtype=float) / np.sum(mu0)
    if C == INVERSE_MEAN_DIAG:
        C = _inverse_mean_diag_C(C, bank.weighted_sum(feats) / p)
    C = float(C)
    n_svm = [0]

    def solve(weights):
        Kmu = bank.weighted_sum(feats, weights)
        duals, obj = [], 0.0
        for yb in targets:
            a, o = svm_duals(Kmu, yb, C, tol=_MKL_SVM_TOL, max_iter=_MKL_SVM_MAX_ITER)
            duals.append(a)
            obj += o
        n_svm[0] += 1
        return obj, duals

    def clean(w):
        w = np.maximum(w, 0.0)
        w[w < 1e-8] = 0.0
        return w / w.sum()

    J, duals = solve(mu)
    q = sum(bank.quad_forms(a, feats) for a in duals)
    path = [J]
    converged = False
    gap = np.inf
    while True:
        gap = 0.5 * (q.max() - mu @ q) / J if J > 0 else 0.0
        if gap < tol:
            converged = True
            break
        if len(path) > max_iter:
            break
        g = -0.5 * q
        m = int(np.argmax(mu))
        red = g - g[m]
        D = -red
        D[(mu <= 0) & (red > 0)] = 0.0
        D[m] = 0.0
        D[m] = -D.sum()
        dscale = float(np.abs(D).max())
        if dscale <= 1e-12 * max(1.0, float(np.abs(g).max())):
            converged = True
            break
        # 2. descent to the boundary, as long as J decreases
        cur_mu, cur_J, cur_duals = mu, J, duals
        seg_gamma = 1.0
        while True:
            neg = np.flatnonzero(D < 0)
            if neg.size == 0:  # cannot happen on the simplex (sum D = 0, D ≠ 0); be safe
                seg_gamma = 0.0
                break
            ratios = -cur_mu[neg] / D[neg]
            nu = int(neg[np.argmin(ratios)])
            seg_gamma = float(ratios.min())
            trial = cur_mu + seg_gamma * D
            trial[nu] = 0.0
            trial = clean(trial)
            t_J, t_duals = solve(trial)
            if t_J < cur_J:
                cur_mu, cur_J, cur_duals = trial, t_J, t_duals
                if nu == m:  # the largest weight itself vanished: take a fresh gradient
                    seg_gamma = 0.0
                    break
                D = D.copy()
                D[nu] = 0.0
                D[np.abs(D) <= 1e-12 * dscale] = 0.0  # round-off must not become a direction
                D[m] = 0.0
                D[m] = -D.sum()
                if not np.any(D < 0) or not np.any(D):
                    seg_gamma = 0.0
                    break
            else:
                break
        # 3. line search on the last segment
        gamma = 0.5 * seg_gamma
        for _ in range(_MAX_HALVINGS if seg_gamma > 0 else 0):
            trial = clean(cur_mu + gamma * D)
            t_J, t_duals = solve(trial)
            if t_J < cur_J:
                cur_mu, cur_J, cur_duals = trial, t_J, t_duals
                break
            gamma *= 0.5
        if cur_J >= J:  # no decrease at the SVM solver's precision
            break
        mu, J, duals = cur_mu, cur_J, cur_duals
        q = sum(bank.quad_forms(a, feats) for a in duals)
        path.append(J)
    return {
        "weights": mu,
        "q": q,
        "objective": np.asarray(path),
        "gap": float(gap),
        "n_iter": len(path) - 1,
        "converged": converged,
        "n_svm": n_svm[0],
    }


class ClinicalMKLRFE(_ClinicalRFEBase):
    r"""RFE with SimpleMKL over the per-feature clinical subkernels; importance = kernel weight.

    At every RFE iteration SimpleMKL (:func:`simple_mkl`) is run on the surviving subkernels (from
    uniform weights — the clinical kernel — at the first iteration, warm-started afterwards); the
    20 % features of smallest weight are dropped. Many
    weights are exactly 0 (the simplex constraint is sparsifying); ties among them are broken by
    :math:`q_f = \breve\alpha^\top K_f\breve\alpha` at the MKL optimum (larger = closer to entering
    the combination: the negative gradient), then by index. (ALGORITHMS.md §8.4 suggests Paul's
    :math:`J_{SVM}` for that tie-break, which would need another SVM on the uniform kernel;
    :math:`q_f` is free and is the MKL optimality quantity itself.)

    Parameters
    ----------
    categorical : bool mask, list of indices or None, default None
    C : float or "inverse_mean_diag", default 1.0
    step : float or int, default 0.2
    tol : float, default 0.01
        Relative duality gap that stops SimpleMKL.
    max_iter : int, default 100
        SimpleMKL iterations per RFE step.
    warm_start : bool, default True
        [D] Start each RFE step's SimpleMKL from the previous weights of the survivors (plus
        1e-3/|F| each, renormalised, so that no kernel starts excluded) instead of uniform. The
        survivors hold the largest weights, so the start is near the new optimum: on arrhythmia
        (452 × 279, normal vs rest, loaded machine) it cut the SimpleMKL iterations of a full ranking
        from 909 to 107 and the time from 639 s to 68 s with the same top 5. J is convex, so both aim
        at the same optimum (within ``tol``); ``False`` restarts from uniform weights (the clinical kernel).
    n_features_to_select : int, float or None

    Attributes
    ----------
    ranking_, n_iter_ (RFE iterations), converged_ (every MKL run met its gap),
    weights_ : (D,) MKL weights of the first iteration (all features),
    mkl_iter_ : list of SimpleMKL iterations per RFE step,
    objective_ : objective path of the first SimpleMKL run,
    categorical_, n_missing_
    """

    description = "RFE with SimpleMKL over per-feature clinical subkernels; weights as importances"
    citation = "Paul, D'Ambrosio & Dupont 2015, Neurocomputing 169:187-195, §2.4; SimpleMKL (JMLR 2008)"
    _parameter_constraints: dict = {
        **_ClinicalRFEBase._parameter_constraints,
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "warm_start": ["boolean"],
    }

    def __init__(
        self,
        categorical=None,
        C: float | str = 1.0,
        step: float | int = 0.2,
        tol: float = 0.01,
        max_iter: int = 100,
        warm_start: bool = True,
        n_features_to_select: int | float | None = None,
    ):
        self.categorical = categorical
        self.C = C
        self.step = step
        self.tol = tol
        self.max_iter = max_iter
        self.warm_start = warm_start
        self.n_features_to_select = n_features_to_select

    def _fit(self, X, y):
        self._runs: list[dict] = []
        self._rfe(X, y)
        self.n_iter_ = self._steps
        self.mkl_iter_ = [r["n_iter"] for r in self._runs]
        self.converged_ = all(r["converged"] for r in self._runs)
        w = np.zeros(X.shape[1])
        if self._runs:
            w[:] = self._runs[0]["weights"]
            self.objective_ = self._runs[0]["objective"]
        else:  # a single feature: nothing to learn
            w[:] = 1.0
            self.objective_ = np.zeros(0)
        self.weights_ = w
        del self._runs

    def _importance(self, bank, K, remaining, targets):
        mu0 = None
        if self.warm_start and self._runs:
            prev = dict(zip(self._prev_features.tolist(), self._runs[-1]["weights"], strict=True))
            w = np.array([prev[f] for f in remaining.tolist()])
            # every weight > 0 so that no kernel is excluded from the start
            mu0 = w + 1e-3 / remaining.size if w.sum() > 0 else None
        run = simple_mkl(bank, remaining, targets, C=self.C, tol=self.tol, max_iter=self.max_iter, mu0=mu0)
        self._runs.append(run)
        self._prev_features = remaining.copy()
        return run["weights"], run["q"]


# ---------------------------------------------------------------------------------------------
# Baseline: linear SVM-RFE on the disjunctive (one-hot) encoding
# ---------------------------------------------------------------------------------------------
def one_hot_encode(X: np.ndarray, categorical: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Disjunctive encoding for the linear baseline: (Z, group), ``group[j]`` = source feature of column j.

    Continuous features are z-scored with their (training) mean and standard deviation, a missing
    value becomes 0 (= mean imputation), a constant feature becomes 0. A categorical feature with
    k observed values becomes k 0/1 columns (categories sorted); a missing value is the all-zero row.
    """
    cols, groups = [], []
    for f in range(X.shape[1]):
        x = X[:, f]
        obs = ~np.isnan(x)
        if categorical[f]:
            cats = np.unique(x[obs])
            if cats.size == 0:
                cats = np.zeros(1)
            block = (x[:, None] == cats[None, :]).astype(float)
        else:
            mu = x[obs].mean() if obs.any() else 0.0
            sd = x[obs].std() if obs.any() else 0.0
            z = np.where(obs, (x - mu) / (sd if sd > 0 else 1.0), 0.0)
            block = (z if sd > 0 else np.zeros_like(z))[:, None]
        cols.append(block)
        groups.append(np.full(block.shape[1], f))
    return np.hstack(cols), np.concatenate(groups)


class OneHotLinearSVMRFE(_NaNTolerantSelector):
    r"""Linear SVM-RFE on the one-hot encoding; a feature's importance is the sum of its :math:`w_j^2`.

    The disjunctive-encoding alternative discussed by Paul et al. 2015 (§1): continuous features
    z-scored, categorical ones one-hot encoded (:func:`one_hot_encode`), a linear SVM
    (``SVC(kernel="precomputed")`` on :math:`ZZ^\top`), importance of the original feature f
    :math:`\sum_{j\in f} w_j^2` (summed over the machines), 20 % of the surviving *original* features
    dropped per iteration (same wrapper as the clinical selectors). The Gram matrix is downdated by
    the removed columns (:math:`K \leftarrow K - Z_RZ_R^\top`).

    Parameters
    ----------
    categorical : bool mask, list of indices or None, default None
    C : float or "joachims", default 1.0
        "joachims" = SVMlight's :math:`1/\bar R^2` for the linear kernel on the surviving columns.
    step : float or int, default 0.2
    n_features_to_select : int, float or None

    Attributes
    ----------
    ranking_, n_iter_, n_columns_ (width of the encoding), categorical_, n_missing_
    """

    description = "linear SVM-RFE on the one-hot encoding (importance = sum of w^2 over a feature's columns)"
    citation = "Guyon et al. 2002; disjunctive-encoding baseline of Paul et al. 2015, §1"
    supported_kernels: tuple[str, ...] = ()
    _parameter_constraints: dict = {**_RFE_CONSTRAINTS, "C": [_POSITIVE, StrOptions({"joachims"})]}

    def __init__(
        self,
        categorical=None,
        C: float | str = 1.0,
        step: float | int = 0.2,
        n_features_to_select: int | float | None = None,
    ):
        self.categorical = categorical
        self.C = C
        self.step = step
        self.n_features_to_select = n_features_to_select

    def _fit(self, X, y):
        cat = categorical_mask(self.categorical, X.shape[1])
        self.categorical_ = cat
        self.n_missing_ = int(np.isnan(X).sum())
        Z, group = one_hot_encode(X, cat)
        self.n_columns_ = Z.shape[1]
        lin = make_kernel("linear")
        K = lin.gram(Z)  # the Gram matrix of the surviving columns, downdated after every elimination
        targets = machine_targets(y)

        def importance(remaining: np.ndarray, n_drop: int) -> np.ndarray:
            cols = np.flatnonzero(np.isin(group, remaining))
            C = joachims_C(lin, Z[:, cols]) if self.C == "joachims" else float(self.C)
            w2 = np.zeros(Z.shape[1])
            for yb in targets:
                a, _ = svm_duals(K, yb, C)
                w2[cols] += (Z[:, cols].T @ a) ** 2
            return np.bincount(group, weights=w2, minlength=X.shape[1])[remaining]

        def downdate(dropped: np.ndarray, remaining: np.ndarray) -> None:
            nonlocal K
            K = K - lin.gram(Z[:, np.isin(group, dropped)])

        result = backward_elimination(X.shape[1], importance, self.step, on_eliminate=downdate)
        self.ranking_ = result.ranking
        self.n_iter_ = result.n_iter
