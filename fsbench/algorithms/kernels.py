r"""Kernels, scaled kernels and their scale-factor derivatives — written once, used everywhere.

Every kernel-based selector and the evaluation protocol build their Gram matrices here.
A *scaled kernel* (Ramona et al. 2012, §III-B) applies per-feature scale factors ``w`` before
the base kernel,

.. math:: k_w(x, z) = k(w \circ x, w \circ z),

and the selectors that optimise ``w`` (SAS, SCSS, SFS, R2W2, ...) need, for a weight matrix
:math:`M` (N×N), the contraction of the feature-wise derivative matrices with :math:`M`,

.. math:: g_d = \sum_{ij} M_{ij}\, \partial K_{w,ij} / \partial w_d ,\qquad d = 1..D.

:meth:`Kernel.scale_gradient` computes all :math:`g_d` with one N×N×D matrix product instead
of D separate N×N derivative matrices:

* linear, :math:`k_w = \sum_d w_d^2 x_d z_d`:
  :math:`g_d = 2 w_d\, x_d^\top M x_d`;
* RBF, :math:`k_w = \exp(-\gamma \sum_d w_d^2 (x_d - z_d)^2)`, with :math:`P = M \circ K_w`:
  :math:`g_d = -2\gamma w_d \sum_{ij} P_{ij}(x_{id}-x_{jd})^2
  = -2\gamma w_d\,[ (x_d^2)^\top (P\mathbf 1 + P^\top \mathbf 1) - 2 x_d^\top P x_d ]`;
* polynomial, :math:`k_w = (o + s \sum_d w_d^2 x_d z_d)^\delta`, with
  :math:`P = M \circ \delta (o + s\langle w\circ x, w\circ z\rangle)^{\delta-1}`:
  :math:`g_d = 2 s w_d\, x_d^\top P x_d`.

The term :math:`x_d^\top P x_d` for every d is ``sum(X * (P @ X), axis=0)``: one GEMM.

Conventions: RBF is :math:`\exp(-\gamma\lVert x-z\rVert^2)`; polynomial is
:math:`(\text{offset} + \text{scale}\,\langle x, z\rangle)^\text{degree}`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

# the names and the gamma rule, defined where reading a config does not import scikit-learn; re-exported
from fsbench.algorithms.kernel_names import GAMMA_RULES as GAMMA_RULES
from fsbench.algorithms.kernel_names import KERNEL_PARAMS as KERNEL_PARAMS
from fsbench.algorithms.kernel_names import KERNELS as KERNELS
from fsbench.algorithms.kernel_names import parse_gamma as parse_gamma


def sq_distances(X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
    """Squared Euclidean distances between the rows of ``X`` and ``Z`` (one GEMM, clipped at 0)."""
    Z = X if Z is None else Z
    xx = np.einsum("ij,ij->i", X, X)
    zz = xx if Z is X else np.einsum("ij,ij->i", Z, Z)
    D2 = _sq_distances_from(X, Z, xx, zz)
    if Z is X:
        np.fill_diagonal(D2, 0.0)
    return D2


def _sq_distances_from(X: np.ndarray, Z: np.ndarray, xx: np.ndarray, zz: np.ndarray) -> np.ndarray:
    """:func:`sq_distances` from the rows' squared norms (for blocks of rows and columns)."""
    # In place on the GEMM's output: N×N temporaries cost more than the GEMM itself when D is small.
    D2 = X @ Z.T
    D2 *= -2.0
    D2 += xx[:, None]
    D2 += zz[None, :]
    np.maximum(D2, 0.0, out=D2)
    return D2


#: Largest n whose pair indices :func:`_upper_pairs` keeps (int32: at most 8 MB each, 4 kept).
_CACHED_PAIRS_MAX_N = 2048


def _upper_pairs(n: int) -> np.ndarray:
    """Flat indices of the pairs i < j of an n×n matrix, in ``np.triu_indices(n, 1)`` order.

    Cached up to :data:`_CACHED_PAIRS_MAX_N`: selectors that re-resolve the width at every
    elimination step (FSPP, RFE with ``gamma="median"``) ask for the same n each time, and building
    the indices cost as much as the median itself.
    """
    return _upper_pairs_cached(n) if n <= _CACHED_PAIRS_MAX_N else _upper_pairs_of(n)


def _upper_pairs_of(n: int) -> np.ndarray:
    i, j = np.triu_indices(n, k=1)
    return i * n + j


@lru_cache(maxsize=4)
def _upper_pairs_cached(n: int) -> np.ndarray:
    idx = _upper_pairs_of(n).astype(np.int32)
    idx.flags.writeable = False  # shared between callers
    return idx


#: Bins per level of :func:`median_sq_distance`'s blocked selection.
_MEDIAN_BINS = 1 << 16


def median_sq_distance(X: np.ndarray, block: tuple[int, int] | None = None) -> float | None:
    r"""Median of :math:`\lVert x_i - x_j\rVert^2` over the pairs i < j of distinct rows (None if none).

    Pairs of identical rows are left out: their GEMM-computed distance is round-off (~1e-16), which
    would give an absurd width; "identical" means below :math:`10^{-10}\max_i\lVert x_i\rVert^2`.
    The median of an even count is the mean of the two middle values (as :func:`numpy.median`).

    Parameters
    ----------
    X : (N, D) rows.
    block : None for one N×N matrix of distances (about 4 N×N arrays of memory), or (rows, cols):
        the same median computed *exactly* in O(rows·cols + bins) memory by selection over blocks of
        the matrix — a histogram pass over :data:`_MEDIAN_BINS` bins locates the middle values,
        then a pass collects the values of their bins (another histogram inside a bin first if it
        holds more than max(2²⁰, 4·rows·cols) values), each pass recomputing the distances.
    """
    n = X.shape[0]
    if n < 2:
        return None
    xx = np.einsum("ij,ij->i", X, X)
    scale = float(xx.max()) if X.size else 0.0
    thr = 1e-10 * max(scale, 1e-300)
    if block is None:
        d2 = sq_distances(X).ravel().take(_upper_pairs(n))
        d2 = d2[d2 > thr]
        return float(np.median(d2)) if d2.size else None
    rows, cols = block

    def values():  # the distances of the pairs i < j above the threshold, block by block
        for a in range(0, n, rows):
            b = min(a + rows, n)
            for c in range(a, n, cols):
                e = min(c + cols, n)
                D2 = _sq_distances_from(X[a:b], X[c:e], xx[a:b], xx[c:e])
                keep = D2 > thr
                if c < b:  # the block crosses the diagonal: j > i only
                    keep &= np.arange(c, e)[None, :] > np.arange(a, b)[:, None]
                yield D2[keep]

    return _median_of_stream(values, hi=4.0 * scale, cap=max(1 << 20, 4 * rows * cols))


def _median_of_stream(values, hi: float, cap: int) -> float | None:
    """Exact median of the values yielded by ``values()`` (called once per pass), all in [0, ``hi``].

    A window is a chain of histogram bins (level by level, each bin recomputed with the same
    formula, so membership is exact); it is narrowed until the bins of the middle ranks hold at
    most ``cap`` values, which are then collected and sorted.
    """
    levels: list[tuple[float, float, int]] = []  # (low, 1/width, chosen bin) of each narrowing

    def in_window(v):
        for lo, inv, k in levels:
            v = v[np.minimum(((v - lo) * inv).astype(np.int64), _MEDIAN_BINS - 1) == k]
        return v

    lo, inv = 0.0, (_MEDIAN_BINS / hi if hi > 0 else 1.0)
    ranks: list[int] | None = None
    while True:
        counts = np.zeros(_MEDIAN_BINS, dtype=np.int64)
        vmin, vmax = np.inf, -np.inf
        for v in values():
            v = in_window(v)
            if v.size:
                idx = np.clip(((v - lo) * inv).astype(np.int64), 0, _MEDIAN_BINS - 1)
                counts += np.bincount(idx, minlength=_MEDIAN_BINS)
                vmin, vmax = min(vmin, float(v.min())), max(vmax, float(v.max()))
        m = int(counts.sum())
        if ranks is None:
            if m == 0:
                return None
            ranks = [(m - 1) // 2, m // 2]  # the middle value(s), 0-based
        if vmin == vmax:  # every value of the window is the same (ties): nothing left to separate
            return vmin
        cum = np.cumsum(counts)
        bins = [int(np.searchsorted(cum, r, side="right")) for r in ranks]
        below = [int(cum[k] - counts[k]) for k in bins]
        if bins[0] != bins[1] or counts[bins[0]] <= cap:
            break
        # both middle values in one crowded bin: narrow the window to it and histogram again
        levels.append((lo, inv, bins[0]))
        ranks = [r - below[0] for r in ranks]
        lo, inv = lo + bins[0] / inv, inv * _MEDIAN_BINS
    # collect the values of the (at most two) bins holding the middle ranks
    chosen = sorted(set(bins))
    got: dict[int, list[np.ndarray]] = {k: [] for k in chosen}
    for v in values():
        v = in_window(v)
        idx = np.clip(((v - lo) * inv).astype(np.int64), 0, _MEDIAN_BINS - 1)
        for k in chosen:
            got[k].append(v[idx == k])
    mid = [float(np.sort(np.concatenate(got[k]))[r - b]) for k, r, b in zip(bins, ranks, below)]
    return (mid[0] + mid[1]) / 2


def resolve_gamma(gamma: float | str, X: np.ndarray, block: tuple[int, int] | None = None) -> float:
    r"""Turn an RBF ``gamma`` (a number, a named rule or a multiple of one) into a number, using ``X``.

    Rules (all computed on the rows of ``X`` only, i.e. on the training split):

    ``"median"``
        Median heuristic, :math:`\gamma = 1/\operatorname{median}_{i<j}\lVert x_i - x_j\rVert^2` over
        the pairs of distinct rows (γ = 1 if all rows are equal).
        Chosen as fsbench's default for selectors: with an arbitrary fixed γ the Gram matrix of
        unscaled high-dimensional data (e.g. the Weston toys with 50 noise features of variance
        20) is ≈ identity and scale-factor gradients vanish.
    ``"n_features"``
        :math:`\gamma = 1/(2D)`, i.e. :math:`\exp(-\lVert x-z\rVert^2/(2s^2))` with
        :math:`s^2 = D` — ALGORITHMS.md §0.2's proposal for z-scored data.
    ``"scale"``
        scikit-learn's rule :math:`\gamma = 1/(D\,\operatorname{Var}(X))`.

    A multiple of a rule (``"median/4"``, ``"0.25*median"``, :func:`parse_gamma`) is the rule's value
    times the factor; an estimator that hands ``gamma`` to an inner estimator fitted on the same rows
    gets the same number. ``block`` = (rows, cols) computes the median in blocks of the distance matrix
    (the same number, in bounded memory; :func:`median_sq_distance`).
    """
    base, factor = parse_gamma(gamma)
    if isinstance(base, float):
        return base
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    if base == "median":
        # Pairs of identical rows (frequent in zero-inflated or discretised features) are left out.
        med = median_sq_distance(X, block)
        return factor * (1.0 / med if med is not None and med > 0 else 1.0)
    if base == "n_features":
        return factor / (2.0 * max(d, 1))
    var = float(X.var())  # "scale"
    return factor * (1.0 / (d * var) if var > 0 else 1.0)


@lru_cache(maxsize=4)
def _upper_triangle(n: int) -> np.ndarray:
    """Boolean mask of the pairs i < j of an n×n matrix (row-major, as ``np.triu_indices(n, 1)``).

    Indexing with it gives the same elements in the same order as the two index arrays of
    ``triu_indices``, but without building and gathering through them (the median rule runs at every
    iteration of the elimination selectors).
    """
    mask = np.triu(np.ones((n, n), dtype=bool), k=1)
    mask.flags.writeable = False
    return mask


@dataclass(frozen=True)
class Kernel:
    """A base kernel with its parameters; all methods accept optional scale factors ``w``.

    Parameters
    ----------
    name : {"linear", "rbf", "poly"}
    gamma : float or str
        RBF width in :math:`\\exp(-\\gamma\\lVert x-z\\rVert^2)`; a rule name from
        :data:`GAMMA_RULES` must be resolved with :meth:`resolved` before use.
    degree, offset, scale : float
        Polynomial :math:`(\\text{offset} + \\text{scale}\\langle x,z\\rangle)^\\text{degree}`.
    """

    name: str = "linear"
    gamma: float | str = "median"
    degree: float = 3
    offset: float = 1.0
    scale: float = 1.0

    def __post_init__(self) -> None:
        if self.name not in KERNELS:
            raise ValueError(f"unknown kernel {self.name!r}; expected one of {KERNELS}")
        if self.name == "poly":
            if not (isinstance(self.degree, Real) and self.degree > 0):
                raise ValueError(f"poly degree must be a positive number, got {self.degree!r}")
            if not isinstance(self.scale, Real) or not isinstance(self.offset, Real):
                raise ValueError("poly offset and scale must be numbers")

    # ------------------------------------------------------------------ parameters
    def resolved(self, X: np.ndarray, block: tuple[int, int] | None = None) -> Kernel:
        """Return a copy whose named ``gamma`` rule is evaluated on ``X`` (training data).

        ``block``: see :func:`resolve_gamma` (bounded memory for the median rule).
        """
        if self.name == "rbf":
            return replace(self, gamma=resolve_gamma(self.gamma, X, block))
        return self

    def _gamma(self) -> float:
        if isinstance(self.gamma, str):
            raise ValueError(f"gamma rule {self.gamma!r} not resolved; call Kernel.resolved(X_train) first")
        return float(self.gamma)

    # ------------------------------------------------------------------ evaluation
    def gram(self, X: np.ndarray, Z: np.ndarray | None = None, w: np.ndarray | None = None) -> np.ndarray:
        """Gram matrix :math:`K_{ij} = k_w(x_i, z_j)` (``Z=None`` means ``Z = X``)."""
        if Z is None:
            n = X.shape[0]
            return self.gram_block(self.scaled(X, w), slice(0, n), slice(0, n))
        left, _ = self._operands(X if w is None else X * w)
        _, right = self._operands(Z if w is None else Z * w)
        return self._from_product(left @ right.T, diagonal=False)

    def _operands(self, Xw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r"""Row operands (L, R) whose product :math:`L_A R_B^\top` is the kernel's inner statistic.

        Linear and polynomial: :math:`\langle a, b\rangle` (L = R = the rows). RBF:
        :math:`-\gamma\lVert a-b\rVert^2 = 2\gamma\langle a,b\rangle - \gamma\lVert a\rVert^2
        - \gamma\lVert b\rVert^2` as ONE GEMM of rows extended by two columns,
        :math:`[2\gamma a, -\gamma\lVert a\rVert^2, -1]\cdot[b, 1, \gamma\lVert b\rVert^2]^\top`:
        every pass over an N×N output counts when D is small, the two columns cost 2/D of the GEMM.
        """
        if self.name != "rbf":
            return Xw, Xw
        g = self._gamma()
        sq = g * np.einsum("ij,ij->i", Xw, Xw)
        ones = np.ones((Xw.shape[0], 1))
        return np.hstack((2.0 * g * Xw, -sq[:, None], -ones)), np.hstack((Xw, ones, sq[:, None]))

    def _from_product(self, S: np.ndarray, diagonal: bool) -> np.ndarray:
        """Kernel values from the product ``S`` of :meth:`_operands` (in place).

        ``diagonal``: ``S`` is a square block of the same rows, whose diagonal is made exact.
        """
        if self.name == "linear":
            return S
        if self.name == "rbf":
            np.minimum(S, 0.0, out=S)  # round-off above 0 is clipped, the diagonal is exactly 1
            if diagonal:
                np.fill_diagonal(S, 0.0)
            return np.exp(S, out=S)
        S *= self.scale
        S += self.offset
        return np.power(S, self.degree, out=S)

    # ------------------------------------------------------------------ blocks of K_w
    def scaled(self, X: np.ndarray, w: np.ndarray | None = None) -> ScaledData:
        """What every block of :math:`K_w` needs, computed once per ``w`` in O(N·D) (:class:`ScaledData`)."""
        w = np.ones(X.shape[1]) if w is None else np.asarray(w, dtype=float)
        Xw = X * w
        left, right = self._operands(Xw)
        X2 = X * X if self.name == "rbf" else None
        return ScaledData(X=X, w=w, Xw=Xw, left=left, right=right, X2=X2)

    def gram_block(self, data: ScaledData, rows: slice, cols: slice) -> np.ndarray:
        """Block ``K_w[rows, cols]`` of the scaled Gram matrix of ``data.X`` (a new C-ordered array).

        ``rows == cols`` marks a diagonal block, whose diagonal is exact (RBF: 1). ``gram(X, w=w)`` is
        the one block ``rows = cols = slice(0, N)``.
        """
        return self._from_product(data.left[rows] @ data.right[cols].T, diagonal=rows == cols)

    def diag(self, X: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
        """:math:`k_w(x_i, x_i)` without forming the Gram matrix."""
        Xw = X if w is None else X * w
        if self.name == "rbf":
            return np.ones(X.shape[0])
        sq = np.einsum("ij,ij->i", Xw, Xw)
        if self.name == "linear":
            return sq
        return (self.offset + self.scale * sq) ** self.degree

    def with_zero(self, X: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
        """:math:`k_w(x_i, 0)` for every row (the origin is not moved by scaling)."""
        n = X.shape[0]
        if self.name == "linear":
            return np.zeros(n)
        if self.name == "rbf":
            Xw = X if w is None else X * w
            return np.exp(-self._gamma() * np.einsum("ij,ij->i", Xw, Xw))
        return np.full(n, float(self.offset) ** self.degree)

    def zero_zero(self) -> float:
        """:math:`k(0, 0)`."""
        if self.name == "linear":
            return 0.0
        if self.name == "rbf":
            return 1.0
        return float(self.offset) ** self.degree

    # ------------------------------------------------------------------ derivatives
    def scale_gradient(self, X: np.ndarray, M: np.ndarray, K: np.ndarray, w: np.ndarray) -> np.ndarray:
        r"""All D contractions :math:`g_d = \sum_{ij} M_{ij}\,\partial K_{w,ij}/\partial w_d`.

        The one-block case of :meth:`scale_gradient_block`.

        Parameters
        ----------
        X : (N, D) unscaled data used to build ``K``.
        M : (N, N) weight matrix (need not be symmetric).
        K : (N, N) the scaled Gram matrix ``self.gram(X, w=w)`` (reused, not recomputed).
        w : (D,) scale factors.
        """
        n = X.shape[0]
        return self.scale_gradient_block(self.scaled(X, w), slice(0, n), slice(0, n), M, K)

    def scale_gradient_block(
        self,
        data: ScaledData,
        rows: slice,
        cols: slice,
        M: np.ndarray,
        K: np.ndarray,
        overwrite: bool = False,
    ) -> np.ndarray:
        r"""The part of :meth:`scale_gradient` from one block: :math:`\sum_{i\in R, j\in C} M_{ij}\,
        \partial K_{w,ij}/\partial w_d` for every d.

        Summing it over blocks that tile the N×N index set gives the whole contraction, so the
        Gram matrix is never needed in one piece (with the formulas of the module docstring
        restricted to rows R and columns C; for RBF :math:`\sum_{i\in R,j\in C}P_{ij}(x_{id}-x_{jd})^2
        = (x^2_{Rd})^\top P\mathbf 1 + (x^2_{Cd})^\top P^\top\mathbf 1 - 2\,x_{Rd}^\top P x_{Cd}`).

        Parameters
        ----------
        data : :meth:`scaled` of the data and the scale factors.
        rows, cols : the block.
        M : (|R|, |C|) the weights of the block.
        K : (|R|, |C|) ``gram_block(data, rows, cols)`` (RBF only; ignored otherwise).
        overwrite : whether ``M`` may be overwritten (saves one block-sized temporary).
        """
        X, w = data.X, data.w
        Xr, Xc = X[rows], X[cols]
        if self.name == "linear":
            return 2.0 * w * _quad_forms(Xr, M, Xc)
        if self.name == "rbf":
            P = np.multiply(M, K, out=M if overwrite else None)
            t = data.X2[rows].T @ P.sum(axis=1)
            t += data.X2[cols].T @ P.sum(axis=0)
            t -= 2.0 * _quad_forms(Xr, P, Xc)
            return -2.0 * self._gamma() * w * t
        # polynomial: ∂K/∂w_d = δ·base^{δ-1}·s·2 w_d x_d z_d, base = offset + scale·⟨w∘x, w∘z⟩
        base = data.left[rows] @ data.right[cols].T
        base *= self.scale
        base += self.offset
        np.power(base, self.degree - 1, out=base)
        base *= self.degree
        P = np.multiply(M, base, out=M if overwrite else base)
        return 2.0 * self.scale * w * _quad_forms(Xr, P, Xc)


@dataclass(frozen=True)
class ScaledData:
    r"""Data and scale factors prepared once per ``w`` for blocks of :math:`K_w` (:meth:`Kernel.scaled`).

    Attributes
    ----------
    X : (N, D) unscaled data; w : (D,) scale factors; Xw : :math:`X\circ w`.
    left, right : the row operands of ``Kernel._operands`` (a Gram block is a function of
        ``left[rows] @ right[cols].T``).
    X2 : :math:`X\circ X` (RBF, for :meth:`Kernel.scale_gradient_block`), else None.
    """

    X: np.ndarray
    w: np.ndarray
    Xw: np.ndarray
    left: np.ndarray
    right: np.ndarray
    X2: np.ndarray | None


class GammaRule(StrOptions):
    """scikit-learn parameter constraint: a gamma rule string accepted by :func:`parse_gamma`.

    (A :class:`StrOptions` only because scikit-learn accepts no other constraint classes.)
    """

    def __init__(self):
        super().__init__(set(GAMMA_RULES))

    def is_satisfied_by(self, val) -> bool:
        if not isinstance(val, str):
            return False
        try:
            parse_gamma(val)
        except ValueError:
            return False
        return True

    def __str__(self) -> str:
        return f"a str among {GAMMA_RULES} or a multiple of one (RULE/NUMBER, RULE*NUMBER, NUMBER*RULE)"


#: scikit-learn ``_parameter_constraints`` of the flat kernel parameters of a selector (``kernel``,
#: ``gamma``, ``degree``, ``offset``, ``scale``; :func:`make_kernel`), declared once for every selector.
KERNEL_CONSTRAINTS: dict[str, list] = {
    "kernel": [StrOptions(set(KERNELS)), Kernel],
    "gamma": [Interval(Real, 0, np.inf, closed="neither"), GammaRule()],
    "degree": [Interval(Real, 0, np.inf, closed="neither")],
    "offset": [Interval(Real, -np.inf, np.inf, closed="neither")],
    "scale": [Interval(Real, -np.inf, np.inf, closed="neither")],
}


def _quad_forms(X: np.ndarray, P: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
    """:math:`x_d^\top P z_d` for every column d of ``X`` and ``Z`` (default ``Z = X``) with one GEMM."""
    return np.einsum("id,id->d", X, P @ (X if Z is None else Z))


def make_kernel(
    kernel: str | Kernel = "linear",
    *,
    gamma: float | str = "median",
    degree: float = 3,
    offset: float = 1.0,
    scale: float = 1.0,
) -> Kernel:
    """Build a :class:`Kernel` from flat estimator parameters (sklearn-style)."""
    if isinstance(kernel, Kernel):
        return kernel
    return Kernel(name=kernel, gamma=gamma, degree=degree, offset=offset, scale=scale)


def joachims_C(kernel: Kernel, X: np.ndarray, w: np.ndarray | None = None) -> float:
    r"""SVMlight's default C, :math:`\hat C = 1/\bar R^2` (ALGORITHMS.md §5; Ramona 2012 fn. 4).

    :math:`\bar R = \frac1n\sum_i \lVert\phi(x_i) - \phi(0)\rVert
    = \frac1n \sum_i \sqrt{k(x_i,x_i) - 2k(x_i,0) + k(0,0)}` — the squared *mean distance*
    to the image of the origin, recomputed for every training set (and scaling).

    The formula itself is :func:`joachims_C_from_sq_distances` (one implementation, also used by the
    pairwise classifiers, which know only the distances of a pair's points).
    """
    return joachims_C_from_sq_distances(origin_sq_distances(kernel, X, w))


def joachims_C_gradient(kernel: Kernel, X: np.ndarray, w: np.ndarray) -> tuple[float, np.ndarray]:
    r""":func:`joachims_C` and its derivative with respect to the scale factors ``w`` (O(N·D)).

    With :math:`q_i = \sum_d w_d^2 x_{id}^2` and :math:`\delta_i = \lVert\phi(w\circ x_i)-\phi(0)\rVert`,
    every kernel here gives :math:`\partial\delta_i^2/\partial w_d = 2 w_d x_{id}^2 h_i` with

    * linear: :math:`h_i = 1`;
    * RBF: :math:`\delta_i^2 = 2 - 2e^{-\gamma q_i}`, :math:`h_i = 2\gamma e^{-\gamma q_i}`;
    * polynomial (:math:`o` offset, :math:`s` scale, :math:`\delta` degree):
      :math:`h_i = \delta s\,(o + s q_i)^{\delta-1}` (:math:`k(x,0)`, :math:`k(0,0)` do not depend on w).

    Then :math:`\partial\bar R/\partial w_d = \frac{w_d}{n}\sum_i x_{id}^2 h_i/\delta_i` (samples at the
    origin, :math:`\delta_i = 0`, are skipped) and :math:`\partial\hat C/\partial w = -2\bar R^{-3}\,
    \partial\bar R/\partial w`. Used by selectors whose objective contains :math:`\hat C(w)` itself,
    e.g. the L2-soft-margin kernel :math:`K + I/\hat C` of R2W2.

    Returns
    -------
    C : float
    dC_dw : (D,) array
    """
    kernel = kernel.resolved(X)
    w = np.asarray(w, dtype=float)
    X2 = X * X
    q = X2 @ (w * w)
    if kernel.name == "linear":
        d2 = q
        h = np.ones_like(q)
    elif kernel.name == "rbf":
        e = np.exp(-kernel._gamma() * q)
        d2 = 2.0 - 2.0 * e
        h = 2.0 * kernel._gamma() * e
    else:
        base = kernel.offset + kernel.scale * q
        d2 = base**kernel.degree - 2.0 * kernel.with_zero(X, w) + kernel.zero_zero()
        h = kernel.degree * kernel.scale * np.power(base, kernel.degree - 1)
    dist = np.sqrt(np.maximum(d2, 0.0))
    r = float(np.mean(dist))
    if not np.isfinite(r) or r <= 0:
        return 1.0, np.zeros_like(w)
    coef = np.divide(h, dist, out=np.zeros_like(dist), where=dist > 0)
    dr = w * (X2.T @ coef) / X.shape[0]
    return 1.0 / (r * r), -2.0 * dr / r**3


def origin_sq_distances(kernel: Kernel, X: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    r"""Per-sample :math:`\lVert\phi(x_i)-\phi(0)\rVert^2 = k(x_i,x_i) - 2k(x_i,0) + k(0,0)`.

    Lets a classifier on a precomputed Gram matrix apply Joachims' rule to any subset of its
    training points (one-vs-one pairs): see :func:`joachims_C_from_sq_distances`. The gamma rule
    is resolved on ``X``.
    """
    kernel = kernel.resolved(X)
    d2 = kernel.diag(X, w) - 2.0 * kernel.with_zero(X, w) + kernel.zero_zero()
    return np.maximum(d2, 0.0)


def joachims_C_from_sq_distances(d2: np.ndarray) -> float:
    r"""Joachims' :math:`\hat C = 1/\bar R^2` from per-sample squared distances to the origin's image.

    ``d2`` is :func:`origin_sq_distances` (of a subset of the training points, e.g. one pair);
    :math:`\bar R = \operatorname{mean}_i \sqrt{d2_i}`. The only implementation of the formula:
    :func:`joachims_C` calls it on all the points.
    """
    r = float(np.mean(np.sqrt(np.maximum(np.asarray(d2, dtype=float), 0.0))))
    if not np.isfinite(r) or r <= 0:
        # Every sample at the origin: no scale to match; C is irrelevant to the (degenerate) SVM.
        return 1.0
    return 1.0 / (r * r)


# ---------------------------------------------------------------------------------------------
# Centring in feature space (kernel PCA, GDA/KDA): training statistics applied to any point
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GramCentering:
    r"""Centring on the training mean in feature space, :math:`\tilde\phi(x) = \phi(x) - \bar\phi`.

    With :math:`\bar\phi = \frac1N\sum_i \phi(x_i)` over the N training points, the statistics are the
    column means :math:`\bar k_j = \frac1N\sum_i K_{ij}` of the training Gram matrix and its grand mean
    :math:`\bar{\bar k}`, and for any point x with training kernel row :math:`k_x = (k(x, x_i))_i`

    .. math:: \tilde k(x, x_j) = k(x, x_j) - \tfrac1N k_x^\top\mathbf 1 - \bar k_j + \bar{\bar k},
       \qquad \lVert\tilde\phi(x)\rVert^2 = k(x, x) - \tfrac2N k_x^\top\mathbf 1 + \bar{\bar k}.

    On the training set the first formula is :math:`\tilde K = HKH` with
    :math:`H = I - \mathbf 1\mathbf 1^\top/N`; test points are centred with the *training* statistics
    (never their own mean).
    """

    col_means: np.ndarray
    grand_mean: float

    @classmethod
    def from_gram(cls, K: np.ndarray) -> GramCentering:
        """Statistics of the (N, N) training Gram matrix ``K``."""
        col = np.asarray(K, dtype=float).mean(axis=0)
        return cls(col_means=col, grand_mean=float(col.mean()))

    def center(self, Kt: np.ndarray) -> np.ndarray:
        r"""Centred kernel values :math:`\tilde k(x, x_j)` from ``Kt`` (M, N) = :math:`k(x, x_j)`.

        ``center(K_train)`` is :math:`HKH`.
        """
        Kt = np.asarray(Kt, dtype=float)
        return Kt - Kt.mean(axis=1, keepdims=True) - self.col_means[None, :] + self.grand_mean

    def center_diag(self, kxx: np.ndarray, Kt: np.ndarray) -> np.ndarray:
        r""":math:`\lVert\tilde\phi(x)\rVert^2` from :math:`k(x, x)` (M,) and ``Kt`` (M, N)."""
        return np.asarray(kxx, dtype=float) - 2.0 * np.asarray(Kt, dtype=float).mean(axis=1) + self.grand_mean
