r"""Random Fourier features for the scaled RBF kernel: kernel-target alignment in O(N·m·D) per pass.

The exact SAS criterion (:mod:`fsbench.algorithms.alignment`) needs the N×N Gram matrix of
:math:`k_w(x, z) = \exp(-\gamma\lVert w\circ(x - z)\rVert^2)`. Here the kernel is replaced by random
Fourier features (Rahimi & Recht 2007): with :math:`\Omega \in \mathbb R^{D\times m}`,
:math:`\Omega_{dk} \sim \mathcal N(0, 2\gamma)` and phases :math:`b_k \sim U[0, 2\pi)`,

.. math:: Z(w) = \sqrt{2/m}\,\cos(U),\qquad U = (X\circ w)\,\Omega + \mathbf 1 b^\top,
   \qquad \mathbb E[ZZ^\top] = K_w .

**Numerator.** Every target of :mod:`fsbench.algorithms.targets` is constant on class blocks,
:math:`K^* = E B E^\top` (E: N×C class indicators, B: C×C,
:func:`~fsbench.algorithms.targets.class_block_target`; Vert's target is
:math:`B = \tfrac{C}{C-1} I - \tfrac{1}{C-1}\mathbf 1\mathbf 1^\top`). With the class sums
:math:`S = E^\top Z` (C×m),

.. math:: \langle ZZ^\top, K^*\rangle_F = \operatorname{tr}(B\,S S^\top),\qquad
   \lVert K^*\rVert_F^2 = \textstyle\sum_{cc'} B_{cc'}^2\, n_c n_{c'} \quad\text{(exact, from the counts)}.

**Denominator.** For the RBF kernel :math:`K_w\circ K_w` is the RBF kernel of width :math:`2\gamma`,
so :math:`\lVert K_w\rVert_F^2 = \mathbf 1^\top (K_w\circ K_w)\mathbf 1` is estimated with a second
feature map of that kernel, :math:`Z' = \sqrt{2/m}\cos(\sqrt2\,(X\circ w)\Omega + \mathbf 1 b'^\top)`
(:math:`\sqrt2\,\Omega_{dk} \sim \mathcal N(0, 4\gamma)`; same Ω, so the projection GEMM is shared,
independent phases b'):

.. math:: \lVert K_w\rVert_F^2 \approx \lVert s'\rVert^2,\qquad s' = Z'^\top\mathbf 1 .

This replaces the textbook :math:`\lVert Z^\top Z\rVert_F^2`. Why (decided before any measurement):

* cost: :math:`Z^\top Z` is an m×m GEMM over N rows, O(N·m²) per evaluation (plus O(N·m²) for
  :math:`ZG` in the gradient) — at N = 10⁶, m = 1000 that is 10¹² flops per pass, the whole
  10-minute budget in a few passes; :math:`\lVert s'\rVert^2` is O(N·m);
* bias: :math:`\mathbb E\lVert Z^\top Z\rVert_F^2 = \lVert K\rVert_F^2
  + \sum_{ij}\operatorname{Var}(Z_i\cdot Z_j)` with
  :math:`\operatorname{Var} = (1 + K_{ij}^4/2 - K_{ij}^2)/m`, an excess of order N²/m (from the
  diagonal of :math:`Z^\top Z`) that grows relative to :math:`\lVert K\rVert^2` as the kernel narrows
  (the ascent would be pushed away from narrow kernels); :math:`\lVert s'\rVert^2` is unbiased and
  never negative.

The price: the estimate is not the alignment of one PSD matrix, so it is not bounded by 1 by
Cauchy–Schwarz. The diagonal of :math:`ZZ^\top` (:math:`1 + \tfrac1m\sum_k\cos 2U_{ik}`, not 1) is
**not corrected**: its error is zero-mean, O(N/√m) in total, against an O(N²) numerator, and a
correction would cost a pass over the per-row norms for no measurable gain.

The criterion is the alignment :math:`f = \operatorname{tr}(BSS^\top)\,/\,(\lVert s'\rVert\,\lVert K^*\rVert)`
(or the Frobenius numerator alone, for SFS).

**Gradient (exact for the approximate criterion).** With :math:`n_k = \lVert s'\rVert`,
:math:`n_t = \lVert K^*\rVert`, :math:`k_t = \operatorname{tr}(BSS^\top)`:

.. math:: \frac{\partial f}{\partial Z_i} = R_{c_i},\quad R = \frac{2}{n_k n_t} B S,\qquad
   \frac{\partial f}{\partial Z'_i} = q = -\frac{k_t}{n_k^3 n_t}\, s',

the same vector for every row of a class (for ``"frobenius"``: :math:`R = 2BS`, q = 0). Since
:math:`\partial U_{ik}/\partial w_d = X_{id}\Omega_{dk}` and :math:`\partial U'_{ik}/\partial w_d =
\sqrt2 X_{id}\Omega_{dk}`,

.. math:: \frac{\partial f}{\partial w_d} = \sum_k \Omega_{dk}\,(X^\top V)_{dk},\qquad
   V_{ik} = -\sqrt{2/m}\,\bigl[R_{c_i k}\sin U_{ik} + \sqrt2\, q_k \sin U'_{ik}\bigr],

one (D×N)·(N×m) GEMM: O(N·m·D).

**Passes and memory.** R and q need the global sums S and s', so an evaluation is two passes over
the rows, in blocks of ≈ 2²⁰/m rows (the N×m matrices are never held): the *value* pass (projection
GEMM, two cosines, class sums) at every trial point of the line search, and the *gradient* pass
(projection again, two sines, one GEMM) only at accepted points, as in the dense ascent. Memory
beyond X: O(m·(D + C)) plus a few blocks of ≈ 2²⁰ numbers.

**Precision.** The blocks are computed in float32 (``dtype``): numpy's float32 sin/cos are
vectorised and ~25× faster than float64 here, and their rounding (~10⁻⁷ relative) is far below the
sampling error of the features (~1/√m ≥ 10⁻²); the per-block sums (≈ 2²⁰/m rows) are float32, their
totals over blocks float64. The
float64 mode exists for checking the gradient against finite differences.

**Width.** ``gamma="median"`` needs all pairwise distances (O(N²)); for N above
:data:`MEDIAN_MAX_ROWS` it is resolved on that many evenly spaced rows (deterministic, and
spread over files sorted by class), otherwise on all rows as in the exact path.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sklearn.utils import check_random_state

from fsbench.algorithms.kernels import Kernel, make_kernel
from fsbench.algorithms.targets import class_block_target

#: Rows used to resolve a named gamma rule (the median heuristic is O(rows²) in time and memory:
#: 5000 rows = 1.25·10⁷ pairs, ≈ 0.5 GB transient). Data sets up to this size get the exact rule.
MEDIAN_MAX_ROWS = 5000

#: Elements of one row block of an N×m array (float32: 4 MB).
BLOCK_ELEMENTS = 2**20

_SQRT2 = float(np.sqrt(2.0))


def rff_kernel(kernel: str, gamma: float | str, X: np.ndarray) -> Kernel:
    """The resolved RBF :class:`~fsbench.algorithms.kernels.Kernel` of a random-feature criterion.

    Parameters
    ----------
    kernel : str
        Must be ``"rbf"`` (random Fourier features approximate shift-invariant kernels only).
    gamma : float or str
        A number or a rule (:func:`~fsbench.algorithms.kernels.resolve_gamma`), resolved on all rows
        of ``X`` if there are at most :data:`MEDIAN_MAX_ROWS`, else on that many evenly spaced rows.
    X : (N, D) training data.

    Raises
    ------
    ValueError
        If ``kernel`` is not ``"rbf"``.
    """
    if kernel != "rbf":
        raise ValueError(
            f"approximation='rff' needs kernel='rbf' (random Fourier features approximate the "
            f"Gaussian kernel only); got kernel={kernel!r}. Use approximation=None for other kernels."
        )
    n = X.shape[0]
    rows = X if n <= MEDIAN_MAX_ROWS else X[np.linspace(0, n - 1, MEDIAN_MAX_ROWS).astype(np.intp)]
    return make_kernel("rbf", gamma=gamma).resolved(rows)


def draw_features(
    n_features: int, n_components: int, gamma: float, random_state=None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Frequencies Ω (D×m, entries N(0, 2γ)) and two phase vectors b, b' (m, U[0, 2π)).

    Ω is drawn as standard normals times √(2γ), so the same ``random_state`` gives the same
    directions for every γ.
    """
    rng = check_random_state(random_state)
    omega = rng.standard_normal((n_features, n_components)) * np.sqrt(2.0 * gamma)
    b = rng.uniform(0.0, 2.0 * np.pi, n_components)
    b2 = rng.uniform(0.0, 2.0 * np.pi, n_components)
    return omega, b, b2


class RFFAlignment:
    r"""Random-feature kernel-target alignment of the scaled RBF kernel and its gradient in ``w``.

    Parameters
    ----------
    X : (N, D) float64 data (not copied; read block by block).
    y : (N,) class labels.
    omega, b, b2 : the random features (:func:`draw_features`).
    target : {"vert", "uneven"}
        :func:`~fsbench.algorithms.targets.class_block_target`.
    criterion : {"alignment", "frobenius"}
        The alignment (SAS) or its numerator :math:`\langle K, K^*\rangle_F` (SFS).
    dtype : numpy float dtype, default float32
        Precision of the row blocks (sums are float64); see the module notes.

    Notes
    -----
    ``value(w)`` is the value pass; ``gradient(w, state)`` the gradient pass, given the
    ``state`` (the global sums) that ``value`` returned for the same ``w``.
    """

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        omega: np.ndarray,
        b: np.ndarray,
        b2: np.ndarray,
        target: str = "vert",
        criterion: str = "alignment",
        dtype=np.float32,
    ):
        if criterion not in ("alignment", "frobenius"):
            raise ValueError(f"unknown criterion {criterion!r}; expected 'alignment' or 'frobenius'")
        self.X = X
        self.omega = np.asarray(omega, dtype=float)
        self.m = self.omega.shape[1]
        self.dtype = np.dtype(dtype)
        self.b = np.asarray(b, dtype=self.dtype)
        self.b2 = np.asarray(b2, dtype=self.dtype)
        self.criterion = criterion
        B, codes = class_block_target(y, target)
        self.B = B
        # Rows are visited class by class (the criterion is a sum over rows, so the order is free):
        # inside a block every class is one contiguous slice, so class sums need no indicator GEMM.
        self.order = np.argsort(codes, kind="stable")
        self.codes = codes[self.order]
        counts = np.bincount(codes, minlength=B.shape[0]).astype(float)
        self.target_norm = float(np.sqrt(counts @ (B * B) @ counts))
        self.block = max(1, BLOCK_ELEMENTS // self.m)
        self.scale = np.sqrt(2.0 / self.m)

    # ------------------------------------------------------------------ blocks
    def _blocks(self, w: np.ndarray):
        """Yield (rows of X, class segments, U, U') block by block; U, U' are fresh float arrays."""
        ow = (np.asarray(w, dtype=float)[:, None] * self.omega).astype(self.dtype)
        n = self.order.size
        for start in range(0, n, self.block):
            idx = self.order[start : start + self.block]
            Xb = self.X[idx].astype(self.dtype, copy=False)
            U = Xb @ ow
            U2 = U * self.dtype.type(_SQRT2)
            U += self.b
            U2 += self.b2
            codes = self.codes[start : start + self.block]
            cuts = np.flatnonzero(np.diff(codes)) + 1
            bounds = np.concatenate(([0], cuts, [codes.size]))
            segments = [(int(codes[lo]), slice(lo, hi)) for lo, hi in zip(bounds[:-1], bounds[1:])]
            yield Xb, segments, U, U2

    # ------------------------------------------------------------------ passes
    def value(self, w: np.ndarray) -> tuple[float, dict]:
        """Criterion at ``w`` and the state its gradient needs (class sums S, s')."""
        C = self.B.shape[0]
        S = np.zeros((C, self.m))
        s2 = np.zeros(self.m)
        # Column sums of a block as a GEMV with a ones vector: ~7x faster than a float64-accumulating
        # np.sum over axis 0; the block's partial sum is then added to a float64 total.
        ones = np.ones(self.block, dtype=self.dtype)
        for _, segments, U, U2 in self._blocks(w):
            np.cos(U, out=U)
            for c, sl in segments:
                S[c] += ones[: sl.stop - sl.start] @ U[sl]
            if self.criterion == "alignment":
                np.cos(U2, out=U2)
                s2 += ones[: U2.shape[0]] @ U2
        S *= self.scale
        s2 *= self.scale
        kt = float(np.sum(S * (self.B @ S)))
        state = {"S": S, "s2": s2, "kt": kt}
        if self.criterion == "frobenius":
            return kt, state
        nk = float(np.linalg.norm(s2))
        nt = self.target_norm
        if nk == 0.0 or nt == 0.0:
            return 0.0, {**state, "zero": True}
        return kt / (nk * nt), {**state, "nk": nk}

    def gradient(self, w: np.ndarray, state: dict) -> np.ndarray:
        """:math:`\\partial f/\\partial w` at ``w`` from the ``state`` of :meth:`value` at the same ``w``."""
        if state.get("zero"):
            return np.zeros(self.omega.shape[0])
        S, s2, kt = state["S"], state["s2"], state["kt"]
        if self.criterion == "frobenius":
            R = 2.0 * (self.B @ S)
            q = None
        else:
            nk, nt = state["nk"], self.target_norm
            R = (2.0 / (nk * nt)) * (self.B @ S)
            q = (-_SQRT2 * kt / (nk**3 * nt)) * s2  # √2 from ∂U'/∂w folded in here
        # The -√(2/m) of ∂Z/∂U is applied once at the end.
        R = R.astype(self.dtype)
        q = None if q is None else q.astype(self.dtype)
        A = np.zeros((self.omega.shape[0], self.m))
        for Xb, segments, U, U2 in self._blocks(w):
            np.sin(U, out=U)
            for c, sl in segments:
                U[sl] *= R[c]
            if q is not None:
                np.sin(U2, out=U2)
                U2 *= q
                U += U2
            A += Xb.T @ U
        return -self.scale * np.einsum("dk,dk->d", self.omega, A)

    def objective(self) -> Callable[[np.ndarray], tuple[float, Callable[[], np.ndarray]]]:
        """``evaluate(w) -> (f, gradient)``, as ``ScaledKernelAscent._objective`` returns it."""

        def evaluate(w: np.ndarray):
            w = np.array(w, dtype=float)
            f, state = self.value(w)
            return f, lambda: self.gradient(w, state)

        return evaluate


def rff_objective(
    kern: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    *,
    target: str = "vert",
    criterion: str = "alignment",
    n_components: int = 1000,
    random_state=None,
    dtype=np.float32,
) -> Callable[[np.ndarray], tuple[float, Callable[[], np.ndarray]]]:
    """Draw the features for the resolved RBF kernel ``kern`` and return ``evaluate(w) -> (f, gradient)``."""
    omega, b, b2 = draw_features(X.shape[1], n_components, kern._gamma(), random_state)
    return RFFAlignment(X, y, omega, b, b2, target=target, criterion=criterion, dtype=dtype).objective()
