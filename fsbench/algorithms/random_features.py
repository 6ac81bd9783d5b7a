r"""Random Fourier features for the scaled RBF kernel: kernel-target alignment in time linear in N.

The exact SAS criterion (:mod:`fsbench.algorithms.alignment`) needs the N×N Gram matrix of
:math:`k_w(x, z) = \exp(-\gamma\lVert w\circ(x - z)\rVert^2)`. Here the kernel is replaced by random
Fourier features (Rahimi & Recht 2007): with :math:`\Omega \in \mathbb R^{D\times m}`,
:math:`\Omega_{dk} \sim \mathcal N(0, 2\gamma)` and phases :math:`b_k \sim U[0, 2\pi)`,

.. math:: Z(w) = \sqrt{2/m}\,\cos(U),\qquad U = (X\circ w)\,\Omega + \mathbf 1 b^\top,
   \qquad \mathbb E[ZZ^\top] = K_w .

**Numerator.** Every target of :mod:`fsbench.algorithms.targets` is constant on class blocks,
:math:`K^* = E B E^\top` (E: N×C class indicators, B: C×C,
:func:`~fsbench.algorithms.targets.class_target_table`; Vert's target is
:math:`B = \tfrac{C}{C-1} I - \tfrac{1}{C-1}\mathbf 1\mathbf 1^\top`). With the class sums
:math:`S = E^\top Z` (C×m),

.. math:: \langle ZZ^\top, K^*\rangle_F = \operatorname{tr}(B\,S S^\top),\qquad
   \lVert K^*\rVert_F^2 = \textstyle\sum_{cc'} B_{cc'}^2\, n_c n_{c'} \quad\text{(exact, from the counts)}.

**Denominator.** :math:`\lVert K_w\rVert_F \approx \lVert ZZ^\top\rVert_F = \lVert G\rVert_F` with
:math:`G = Z^\top Z` (m×m, accumulated over row blocks: O(N·m²)). The criterion is then the exact
alignment of the PSD matrix :math:`ZZ^\top` with the target,

.. math:: f = \frac{\operatorname{tr}(B S S^\top)}{\lVert G\rVert_F\,\lVert K^*\rVert_F} \in [-1, 1]

(or the Frobenius numerator alone, for SFS). Choices, and why:

* *Not* an unbiased estimate of :math:`\lVert K_w\rVert_F^2`. One was tried first, O(N·m): for RBF,
  :math:`K\circ K` is the RBF kernel of width 2γ, so :math:`\lVert K\rVert_F^2 = \mathbf 1^\top
  (K\circ K)\mathbf 1 \approx \lVert Z'^\top\mathbf 1\rVert^2` with a second feature map. The ascent
  exploited it: the ratio is not bounded by Cauchy–Schwarz and, with D free scale factors, the
  estimated denominator can be driven towards 0. Measured (Weston nonlinear toy, N = 2000, D = 52):
  at m = 50 the "alignment" reached 3.3; at m = 200 the ascent ended at w ≈ 50 on every feature
  (:math:`K_w \approx I`, exact alignment :math:`1/\sqrt N = 0.022`) with an estimate of 0.074. The
  alignment of :math:`ZZ^\top` cannot exceed 1, so this failure is impossible.
* The price is a bias: :math:`\mathbb E\lVert ZZ^\top\rVert_F^2 = \lVert K\rVert_F^2 +
  \sum_{ij}(1 + K_{ij}^4/2 - K_{ij}^2)/m` (the variance of every entry), an excess of order N²/m that
  lowers the estimate most for narrow kernels (where :math:`\lVert K\rVert_F^2 \to N`). The unbiased
  U-statistic :math:`\tfrac{m}{m-1}(\lVert G\rVert_F^2 - \sum_k G_{kk}^2)` would reopen the unbounded
  ratio above, so it is not used.
* The diagonal of :math:`ZZ^\top` (:math:`1 + \tfrac1m\sum_k\cos 2U_{ik}`, not exactly 1) is **not
  corrected**: its error is zero-mean and affects N of the N² entries — O(N/m) of the O(N²/m)
  excess above and O(N/√m) against an O(N²) numerator — and a corrected matrix would no longer be
  :math:`ZZ^\top` (PSD, bounded alignment).

**Gradient (exact for the approximate criterion).** With :math:`n_k = \lVert G\rVert_F`,
:math:`n_t = \lVert K^*\rVert_F`, :math:`k_t = \operatorname{tr}(BSS^\top)`, and
:math:`\partial\lVert G\rVert_F^2/\partial Z = 4ZG`:

.. math:: \frac{\partial f}{\partial Z_i} = P_i = \frac{2}{n_k n_t}(BS)_{c_i}
   - \frac{2 k_t}{n_k^3 n_t}\,(Z_i G)

(for ``"frobenius"``: :math:`P_i = 2(BS)_{c_i}`). Since :math:`\partial Z_{ik}/\partial w_d =
-\sqrt{2/m}\,\sin(U_{ik})\,X_{id}\Omega_{dk}`,

.. math:: \frac{\partial f}{\partial w_d} = -\sqrt{2/m}\sum_k \Omega_{dk}\,(X^\top V)_{dk},\qquad
   V = P\circ\sin U,

one (D×N)·(N×m) GEMM, plus the (N×m)·(m×m) product ZG: O(N·m·(m + D)).

**Passes and memory.** P needs the global S and G, so an evaluation is two passes over the rows, in
blocks of ≈ 2²⁰/m rows (no N×m matrix is ever held): the *value* pass (projection GEMM, cosine,
class sums, :math:`G \mathrel{+}= Z_b^\top Z_b` by SYRK) at every trial point of the line search, and the
*gradient* pass (projection and cosine again, :math:`Z_b G`, sine of the same projection, one GEMM)
only at accepted points, as in the dense ascent. The gradient pass cannot reuse the value pass's
blocks (they would be N×m) nor be merged with it (P needs the G of all rows). Memory beyond X: one
copy of X in class order in the block precision with a column of ones that carries b through the
projection (N·(D+1)·4 bytes, made once so that no block gathers rows), O(m² + m·(D + C)) and
three reused work arrays of ≈ 2²⁰ numbers. ``n_jobs`` > 1 splits the
blocks into that many contiguous ranges, one thread each with its own work arrays and partial sums
and one BLAS thread (SciPy's SYRK holds the GIL, so the threads use numpy's, which frees it, on
4× larger blocks to amortise the m×m addition it needs). Time per pass against the arithmetic
floor (the kernels alone): ``benchmarks/rff_floor.py``.

**Normaliser rows** (``normaliser_rows`` = n < N, off by default). Both passes above cost
O(N·m²) for :math:`G`, and at large m that term is most of the floor (``benchmarks/rff_floor.py``).
With n rows :math:`s` evenly spaced in class order (so every class keeps its share), the
normaliser is estimated as :math:`\lVert G_s\rVert_F` with
:math:`G_s = \tfrac Nn Z_s^\top Z_s`; the numerator still uses all N rows. The N·m² work becomes
n·m², the rest of a pass stays O(N·m·D). The gradient gets :math:`-\beta\tfrac Nn Z_i G_s` on the
rows of :math:`s` only. What changes:

* :math:`\lVert G_s\rVert_F^2` counts the n diagonal terms :math:`\lVert z_i\rVert^4 \approx 1`
  with weight :math:`(N/n)^2`: an excess of about :math:`N^2/n` against :math:`\lVert K\rVert_F^2`,
  which lies between N (a very narrow kernel) and N² (a very wide one). The estimate is therefore
  *larger* than the full one, most for narrow kernels: it can push the ascent towards wider kernels
  but never rewards a narrow one, so the failure of the unbiased normaliser above cannot occur
  through it. The criterion may exceed the alignment of :math:`ZZ^\top` by the ratio
  :math:`\lVert G\rVert_F/\lVert G_s\rVert_F` (sampling error of n rows), no longer bounded by 1
  exactly.
* **Rule, stated before measuring it:** n = 10·m where N > 10·m. The features' own relative
  error in :math:`\lVert K\rVert_F` is O(1/√m); the n-row estimate adds O(1/√n), so n = 10·m keeps
  the second about √10 ≈ 3 times below the first. The default stays all rows; the measured effect
  on rankings is ``benchmarks/rff_normaliser.py`` (RESULTS.md).

**Precision.** The blocks are computed in float32 (``dtype``): numpy's float32 sin/cos are
vectorised and ~25× faster than float64 here, and their rounding (~10⁻⁷ relative) is far below the
sampling error of the features (~1/√m ≥ 10⁻²); per-block sums are float32 (ZᵀZ over
:data:`FLUSH_ROWS` rows), their totals float64. The float64 mode exists for checking the gradient
against finite differences.

**Width.** ``gamma="median"`` needs all pairwise distances (O(N²)); for N above
:data:`MEDIAN_MAX_ROWS` it is resolved on that many evenly spaced rows (deterministic, and
spread over files sorted by class), otherwise on all rows as in the exact path.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.linalg.blas import get_blas_funcs
from sklearn.utils import check_random_state
from threadpoolctl import threadpool_limits

from fsbench.algorithms.kernels import Kernel, make_kernel
from fsbench.algorithms.targets import class_table_norm, class_target_table

#: Rows used to resolve a named gamma rule (the median heuristic is O(rows²) in time and memory:
#: 5000 rows = 1.25·10⁷ pairs, ≈ 0.5 GB transient). Data sets up to this size get the exact rule.
MEDIAN_MAX_ROWS = 5000

#: Elements of one row block of an N×m array (float32: 4 MB).
BLOCK_ELEMENTS = 2**20

#: Rows whose ZᵀZ is summed in the block precision before being added to the float64 total
#: (float32: relative rounding ≲ 10⁻⁵, far below the features' sampling error ~1/√m).
FLUSH_ROWS = 2**15


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
) -> tuple[np.ndarray, np.ndarray]:
    """Frequencies Ω (D×m, entries N(0, 2γ)) and phases b (m, U[0, 2π)).

    Ω is drawn as standard normals times √(2γ), so the same ``random_state`` gives the same
    directions for every γ.
    """
    rng = check_random_state(random_state)
    omega = rng.standard_normal((n_features, n_components)) * np.sqrt(2.0 * gamma)
    b = rng.uniform(0.0, 2.0 * np.pi, n_components)
    return omega, b


class RFFAlignment:
    r"""Kernel-target alignment of the random-feature kernel :math:`Z(w)Z(w)^\top` and its gradient in ``w``.

    Parameters
    ----------
    X : (N, D) data (copied once, in class order and in ``dtype``).
    y : (N,) class labels.
    omega, b : the random features (:func:`draw_features`).
    target : {"vert", "uneven"}
        :func:`~fsbench.algorithms.targets.class_target_table`.
    criterion : {"alignment", "frobenius"}
        The alignment (SAS) or its numerator :math:`\langle ZZ^\top, K^*\rangle_F` (SFS).
    dtype : numpy float dtype, default float32
        Precision of the row blocks (totals are float64); see the module notes.
    n_jobs : int, default 1
        Threads over contiguous ranges of row blocks (one BLAS thread each).

    Notes
    -----
    ``value(w)`` is the value pass; ``gradient(w, state)`` the gradient pass, given the ``state``
    (the global sums) that ``value`` returned for the same ``w``.
    """

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        omega: np.ndarray,
        b: np.ndarray,
        target: str = "vert",
        criterion: str = "alignment",
        dtype=np.float32,
        n_jobs: int = 1,
        normaliser_rows: int | None = None,
    ):
        if criterion not in ("alignment", "frobenius"):
            raise ValueError(f"unknown criterion {criterion!r}; expected 'alignment' or 'frobenius'")
        self.omega = np.asarray(omega, dtype=float)
        self.m = self.omega.shape[1]
        self.dtype = np.dtype(dtype)
        self.b = np.asarray(b, dtype=self.dtype)
        self.criterion = criterion
        self.n_jobs = max(1, int(n_jobs))
        _, codes, counts = np.unique(np.asarray(y), return_inverse=True, return_counts=True)
        codes = codes.reshape(-1)
        B = class_target_table(counts, target)
        self.B = B
        # Rows are visited class by class (the criterion is a sum over rows, so the order is free):
        # inside a block every class is one contiguous slice, so class sums need no indicator GEMM.
        order = np.argsort(codes, kind="stable")
        codes = codes[order]
        # One copy of X in class order and in the block precision (N·D·4 bytes in float32), made
        # once: a gather X[idx] per block and pass cost a random read of every row of X each time.
        # A last column of ones carries the phases b through the projection GEMM (U = [X 1][Ω_w; b]),
        # which saves a read and write of every block for U += b.
        Xo = np.empty((X.shape[0], X.shape[1] + 1), dtype=self.dtype)
        Xo[:, :-1] = np.asarray(X)[order]
        Xo[:, -1] = 1.0
        self.X = Xo
        self.target_norm = class_table_norm(B, counts)
        # ‖G‖_F from a subsample (module notes, "Normaliser rows"): evenly spaced rows of the
        # class-ordered copy, so every class keeps its share; None (or ≥ N rows): all rows.
        self.sub, self.sub_weight = None, 1.0
        n = Xo.shape[0]
        if criterion == "alignment" and normaliser_rows is not None and normaliser_rows < n:
            idx = np.unique(np.linspace(0, n - 1, max(2, int(normaliser_rows))).round().astype(np.intp))
            self.sub, self.sub_weight = np.ascontiguousarray(Xo[idx]), n / idx.size
        # whether the passes over all rows accumulate ZᵀZ (else only the class sums)
        self._full_gram = criterion == "alignment" and self.sub is None
        # Threads get 4x larger blocks: their ZᵀZ is a fresh product added to the accumulator (numpy
        # has no in-place SYRK), and larger blocks amortise that m×m addition.
        self.block = max(1, BLOCK_ELEMENTS * (4 if self.n_jobs > 1 else 1) // self.m)
        self.scale = np.sqrt(2.0 / self.m)
        self._syrk = get_blas_funcs("syrk", dtype=self.dtype)
        # Block boundaries and class segments, fixed for the fit.
        self._plan = []
        for start in range(0, codes.size, self.block):
            c = codes[start : start + self.block]
            bounds = np.concatenate(([0], np.flatnonzero(np.diff(c)) + 1, [c.size]))
            segments = [(int(c[lo]), slice(int(lo), int(hi))) for lo, hi in zip(bounds[:-1], bounds[1:])]
            self._plan.append((start, start + c.size, segments))
        self._work: dict[int, dict[str, np.ndarray]] = {}  # work arrays of each thread

    # ------------------------------------------------------------------ blocks
    def _buffer(self, work: dict, name: str, rows: int, cols: int | None = None) -> np.ndarray:
        """A reusable work array of one thread (allocated once per fit: no page faults per block)."""
        buf = work.get(name)
        if buf is None:
            buf = work[name] = np.empty((self.block, cols or self.m), dtype=self.dtype)
        return buf[:rows]

    def _projection(self, w: np.ndarray) -> np.ndarray:
        """[Ω_w; b] in the block precision: the rows' projection is ``[X 1] @ this``."""
        return np.vstack((np.asarray(w, dtype=float)[:, None] * self.omega, self.b)).astype(self.dtype)

    def _run(self, part, w: np.ndarray) -> list:
        """``part(ow, blocks, work)`` over the blocks: in one call, or over ``n_jobs`` contiguous ranges.

        With ``n_jobs`` > 1 every thread takes a contiguous range of blocks with its own work arrays
        and partial sums, BLAS on one thread each (numpy frees the GIL in its products and in cos/sin;
        the parts are returned in range order, so the sums do not depend on the scheduling).
        """
        ow = self._projection(w)
        if self.n_jobs == 1:
            return [part(ow, self._plan, self._work.setdefault(0, {}))]
        cuts = np.linspace(0, len(self._plan), self.n_jobs + 1).astype(int)
        ranges = [self._plan[lo:hi] for lo, hi in zip(cuts[:-1], cuts[1:]) if hi > lo]
        with threadpool_limits(limits=1), ThreadPoolExecutor(len(ranges)) as pool:
            futures = [pool.submit(part, ow, r, self._work.setdefault(i, {})) for i, r in enumerate(ranges)]
            return [f.result() for f in futures]

    # ------------------------------------------------------------------ passes
    def _value_part(self, ow: np.ndarray, blocks: list, work: dict) -> tuple[np.ndarray, np.ndarray | None]:
        """Class sums (unscaled) and ZᵀZ (upper triangle at least, unscaled) of ``blocks``."""
        S = np.zeros((self.B.shape[0], self.m))
        G = np.zeros((self.m, self.m)) if self._full_gram else None
        # Column sums of a block as a GEMV with a ones vector: ~7x faster than a float64-accumulating
        # np.sum over axis 0; the block's partial sum is then added to a float64 total.
        ones = np.ones(self.block, dtype=self.dtype)
        if G is not None and self.n_jobs == 1:
            # SciPy's SYRK accumulates in place into a block-precision m×m array (Fortran order: no
            # m×m temporary per block); it holds the GIL, so threads use numpy's ZᵀZ (also SYRK).
            acc = work.setdefault("acc", np.zeros((self.m, self.m), dtype=self.dtype, order="F"))
            acc.fill(0.0)
        elif G is not None:
            acc = work.setdefault("acc", np.zeros((self.m, self.m), dtype=self.dtype))
            acc.fill(0.0)
            prod = work.setdefault("prod", np.empty((self.m, self.m), dtype=self.dtype))
        rows = 0
        for start, stop, segments in blocks:
            Zc = np.matmul(self.X[start:stop], ow, out=self._buffer(work, "U", stop - start))
            np.cos(Zc, out=Zc)
            for c, sl in segments:
                S[c] += ones[: sl.stop - sl.start] @ Zc[sl]
            if G is None:
                continue
            if self.n_jobs == 1:
                # ZcᵀZc (upper triangle) by SYRK: half the flops of a GEMM. Zc.T is Fortran-ordered,
                # so BLAS reads it without a copy.
                acc = self._syrk(1.0, Zc.T, beta=1.0, c=acc, trans=0, lower=0, overwrite_c=1)
                work["acc"] = acc
            else:
                np.matmul(Zc.T, Zc, out=prod)  # numpy calls SYRK for AᵀA, without the GIL
                acc += prod
            # flushed into the float64 total every FLUSH_ROWS rows
            rows += stop - start
            if rows >= FLUSH_ROWS:
                G += acc
                acc.fill(0.0)
                rows = 0
        if G is not None:
            G += acc
        return S, G

    def value(self, w: np.ndarray) -> tuple[float, dict]:
        """Criterion at ``w`` and the state its gradient needs (class sums S, G = ZᵀZ)."""
        parts = self._run(self._value_part, w)
        S = sum(p[0] for p in parts[1:]) + parts[0][0]
        S *= self.scale
        kt = float(np.sum(S * (self.B @ S)))
        if self.criterion != "alignment":
            return kt, {"S": S, "kt": kt}
        if self.sub is None:
            G = sum(p[1] for p in parts[1:]) + parts[0][1]
            G = np.triu(G) + np.triu(G, 1).T
        else:
            G = np.zeros((self.m, self.m))
            ow = self._projection(w)
            for a in range(0, self.sub.shape[0], self.block):
                Zb = np.cos(self.sub[a : a + self.block] @ ow)
                G += Zb.T @ Zb
            G *= self.sub_weight
        G *= self.scale**2
        nk = float(np.linalg.norm(G))
        nt = self.target_norm
        if nk == 0.0 or nt == 0.0:
            return 0.0, {"zero": True}
        return kt / (nk * nt), {"S": S, "G": G, "kt": kt, "nk": nk}

    def gradient(self, w: np.ndarray, state: dict) -> np.ndarray:
        """:math:`\\partial f/\\partial w` at ``w`` from the ``state`` of :meth:`value` at the same ``w``."""
        if state.get("zero"):
            return np.zeros(self.omega.shape[0])
        S, kt = state["S"], state["kt"]
        if self.criterion == "frobenius":
            R = 2.0 * (self.B @ S)
            Gq = None
        else:
            nk, nt = state["nk"], self.target_norm
            R = (2.0 / (nk * nt)) * (self.B @ S)
            # -β Z G with Z = √(2/m) cos U: the √(2/m) of Z is folded into G here.
            Gq = ((-2.0 * kt / (nk**3 * nt)) * self.scale * state["G"]).astype(self.dtype)
        R = R.astype(self.dtype)
        # With a normaliser subsample, the -β Z G term lives on its rows only, weighted by N / rows
        # (∂‖G‖_F/∂Z_i of G = (N/n_s) Σ_{i∈s} Z_iᵀZ_i); the passes over all rows carry R alone.
        Gs = None
        if Gq is not None and self.sub is not None:
            Gs, Gq = (Gq * self.dtype.type(self.sub_weight)).astype(self.dtype), None

        def part(ow: np.ndarray, blocks: list, work: dict) -> np.ndarray:
            A = np.zeros((self.omega.shape[0] + 1, self.m))  # the last row is the ones column's (unused)
            for start, stop, segments in blocks:
                Xb = self.X[start:stop]
                U = np.matmul(Xb, ow, out=self._buffer(work, "U", stop - start))
                # P = R[class] - β Z G, then V = P ∘ sin U (the -√(2/m) of ∂Z/∂U is applied at the
                # end). cos and sin of the same U: the projection is computed once per block and pass.
                P = self._buffer(work, "P", stop - start)
                if Gq is not None:
                    Zc = np.cos(U, out=self._buffer(work, "Z", stop - start))
                    np.matmul(Zc, Gq, out=P)
                else:
                    P.fill(0.0)
                for c, sl in segments:
                    P[sl] += R[c]
                P *= np.sin(U, out=U)
                A += Xb.T @ P
            return A

        A = sum(self._run(part, w))
        if Gs is not None:
            ow = self._projection(w)
            for a in range(0, self.sub.shape[0], self.block):
                Xb = self.sub[a : a + self.block]
                U = Xb @ ow
                A += Xb.T @ ((np.cos(U) @ Gs) * np.sin(U))
        return -self.scale * np.einsum("dk,dk->d", self.omega, A[:-1])

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
    n_components: int,
    random_state=None,
    dtype=np.float32,
    n_jobs: int = 1,
    normaliser_rows: int | None = None,
) -> Callable[[np.ndarray], tuple[float, Callable[[], np.ndarray]]]:
    """Draw the features for the resolved RBF kernel ``kern`` and return ``evaluate(w) -> (f, gradient)``."""
    omega, b = draw_features(X.shape[1], n_components, kern._gamma(), random_state)
    crit = RFFAlignment(
        X,
        y,
        omega,
        b,
        target=target,
        criterion=criterion,
        dtype=dtype,
        n_jobs=n_jobs,
        normaliser_rows=normaliser_rows,
    )
    return crit.objective()
