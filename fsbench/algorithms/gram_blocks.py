r"""Label-matrix criteria of the scaled Gram matrix in bounded memory: exact, block by block.

The scale-factor selectors (SAS, SFS, SCSS; :mod:`fsbench.algorithms.scaled`) maximise a criterion
:math:`f(K_w)` of the N×N scaled Gram matrix. Every one of them depends on :math:`K_w` only through
a few Frobenius reductions with *class-pair tables* — label matrices :math:`Z_{ij} = A_{c(i)c(j)}`
given by a C×C matrix A and the class c(i) of each sample (:mod:`fsbench.algorithms.targets`):

* the class-pair sums :math:`Q_{cc'} = \sum_{c(i)=c,\,c(j)=c'} K_{ij}`, which give
  :math:`\langle K, Z\rangle_F = \sum_{cc'} Q_{cc'}A_{cc'}` for every table and
  :math:`\Sigma(K) = \sum_{cc'} Q_{cc'}` (:math:`Z = \mathbf 1\mathbf 1^\top`);
* :math:`\lVert K\rVert_F^2` (alignment only) and :math:`\operatorname{tr}K`.

Their derivative :math:`M = \partial f/\partial K` is a combination
:math:`M = Z_A + \beta K + \delta I` (:class:`GradientWeights`) whose scalars depend only on the
reductions, and :meth:`Kernel.scale_gradient_block <fsbench.algorithms.kernels.Kernel.scale_gradient_block>`
is a sum over blocks of (i, j). :class:`BlockedGram` therefore evaluates a criterion in two kinds of
passes over blocks of :math:`K_w`, none of which is kept:

* a **value pass** (:meth:`BlockedGram.at`): Gram block, then its contributions to Q, ‖K‖², tr K;
* a **gradient pass** (:meth:`BlockedGram.gradient`), once the scalars are known: the Gram block
  again, the block of M built from them, and its contraction with :math:`\partial K/\partial w`.

Why two passes and not one: a single pass would have to contract every basis matrix
(:math:`Z_A`, K, ...) separately, one N×N×D GEMM each, because their weights are not known
before the pass ends. The ascent needs the gradient only at accepted points, whose value pass its
Armijo test has already made; an accepted step thus costs its trial value passes plus one gradient
pass (one GEMM for the Gram block, one for the contraction), against one GEMM plus one per basis
matrix on *every* trial for the one-pass scheme.

K and M are symmetric for every criterion here, so only the blocks on and above the diagonal are
formed: an off-diagonal block counts twice (half the work of the full matrix). The samples are
sorted by class once, so that a block's label entries are a few constant rectangles.

Memory: blocks of at most ``TILE_ROWS × TILE_COLS`` entries (sized to stay in cache, which also
keeps the elementwise passes cheap), so a pass needs O(block + N·D) memory, plus O(N·D) for the
data (the sorted copy, :math:`X\circ w`, :math:`X\circ X`). When :data:`N_TEMPORARIES` N×N arrays
fit in ``memory_limit`` the whole matrix is one block instead (the *dense path*), kept from the
value pass to the gradient pass, which then skips the second Gram matrix.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, Options, StrOptions

from fsbench.algorithms.kernels import Kernel, ScaledData

#: Default budget of the selectors' ``memory_limit`` (see :func:`parse_memory_limit`).
DEFAULT_MEMORY_LIMIT = "1GiB"

#: N×N (or block-sized) float64 arrays alive at once per block: the Gram block and M (P = M∘K is
#: formed in place); the polynomial gradient needs its base :math:`(o + s\langle x,z\rangle)^{δ-1}` too.
N_TEMPORARIES = {"linear": 2, "rbf": 2, "poly": 3}

#: Block shape of the blocked path (rows × columns). 128 × 2048 float64 = 2 MiB per array: the
#: elementwise passes over a block stay in cache (in L3; a pass over an N×N array in memory costs 2–4×
#: more per entry), the GEMMs stay efficient (inner dimension D or 2048), and the Python overhead per
#: block (~20 NumPy calls) is a few per cent. Timed for one value + gradient pass of SAS (RBF) at
#: N = 10,000, D = 50 on the development machine: 128×1024, 128×2048, 256×2048, 128×4096 and 512×512
#: within 5 % of each other, 64×2048 15 % slower.
TILE_ROWS = 128
TILE_COLS = 2048

_UNITS = {
    "": 1,
    "b": 1,
    "k": 10**3,
    "kb": 10**3,
    "m": 10**6,
    "mb": 10**6,
    "g": 10**9,
    "gb": 10**9,
    "t": 10**12,
    "tb": 10**12,
    "ki": 2**10,
    "kib": 2**10,
    "mi": 2**20,
    "mib": 2**20,
    "gi": 2**30,
    "gib": 2**30,
    "ti": 2**40,
    "tib": 2**40,
}
_MEMORY_SPEC = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-zA-Z]*)\s*$")


def parse_memory_limit(spec: int | float | str | None) -> int | None:
    """Bytes of a memory budget: a positive number of bytes, or a string with a unit.

    Units (case-insensitive): ``B``; decimal ``kB``, ``MB``, ``GB``, ``TB`` (also ``k``, ``M``, ``G``,
    ``T``: powers of 1000); binary ``KiB``, ``MiB``, ``GiB``, ``TiB`` (also ``Ki``, ...: powers of 1024).
    ``None`` means no limit. Fractions are allowed (``"1.5GB"``); the result is rounded down.

    Raises
    ------
    ValueError
        On anything else, or a budget below one byte.

    >>> parse_memory_limit("512MB"), parse_memory_limit("2GiB"), parse_memory_limit(4096)
    (512000000, 2147483648, 4096)
    """
    if spec is None:
        return None
    if isinstance(spec, Real) and not isinstance(spec, bool):
        value = float(spec)
    elif isinstance(spec, str) and (m := _MEMORY_SPEC.match(spec)) and m.group(2).lower() in _UNITS:
        value = float(m.group(1)) * _UNITS[m.group(2).lower()]
    else:
        raise ValueError(
            f"memory_limit must be a positive number of bytes, a string such as '512MB' or '2GiB', "
            f"or None; got {spec!r}"
        )
    if not (math.isfinite(value) and value >= 1):
        raise ValueError(f"memory_limit must be at least one byte, got {spec!r}")
    return int(value)


def resolve_n_jobs(n_jobs: int | None) -> int:
    """Threads for the blocks: a positive int, ``-1`` (every core) or ``None`` (one)."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, Integral) and not isinstance(n_jobs, bool):
        if n_jobs == -1:
            return os.cpu_count() or 1
        if n_jobs >= 1:
            return int(n_jobs)
    raise ValueError(f"n_jobs must be a positive integer, -1 or None; got {n_jobs!r}")


class _MemorySpec(StrOptions):
    """scikit-learn constraint: a memory budget string accepted by :func:`parse_memory_limit`.

    (A :class:`StrOptions` only because scikit-learn accepts no other constraint classes.)
    """

    def __init__(self):
        super().__init__(set(_UNITS))

    def is_satisfied_by(self, val) -> bool:
        if not isinstance(val, str):
            return False
        try:
            parse_memory_limit(val)
        except ValueError:
            return False
        return True

    def __str__(self) -> str:
        return "a str with a unit such as '512MB' or '2GiB'"


#: scikit-learn ``_parameter_constraints`` of ``memory_limit`` and ``n_jobs`` (selectors that walk blocks).
BLOCK_CONSTRAINTS: dict[str, list] = {
    "memory_limit": [Interval(Real, 1, np.inf, closed="left"), _MemorySpec(), None],
    "n_jobs": [Interval(Integral, 1, None, closed="left"), Options(Integral, {-1}), None],
}


@dataclass(frozen=True)
class BlockPlan:
    """How a pass walks :math:`K_w`: one dense block, or blocks of ``rows × cols``."""

    n: int
    dense: bool
    rows: int
    cols: int

    @property
    def path(self) -> str:
        return "dense" if self.dense else "blocked"


def plan_blocks(n: int, kernel: str, memory_limit: int | None, n_jobs: int = 1) -> BlockPlan:
    r"""Choose the dense path or the block shape for N samples within ``memory_limit`` bytes.

    Rule: the dense path if its :data:`N_TEMPORARIES` N×N float64 arrays fit (always when there is
    no limit); otherwise blocks of ``TILE_ROWS × TILE_COLS`` (at most N), shrunk with the same
    aspect ratio until the ``n_jobs`` threads' temporaries fit, down to a single entry.
    """
    per = N_TEMPORARIES[kernel] * 8
    if memory_limit is None or per * n * n <= memory_limit:
        return BlockPlan(n=n, dense=True, rows=n, cols=n)
    cap = max(1, memory_limit // (per * n_jobs))  # entries of one block
    rows = max(1, min(TILE_ROWS, n, math.isqrt(cap * TILE_ROWS // TILE_COLS)))
    cols = max(1, min(TILE_COLS, n, cap // rows))
    return BlockPlan(n=n, dense=False, rows=rows, cols=cols)


#: N×N arrays of the dense median rule (distances, the pair indices, the selected values).
MEDIAN_TEMPORARIES = 4


def median_block(n: int, memory_limit: int | None) -> tuple[int, int] | None:
    """Block shape for the RBF median width rule within ``memory_limit`` (None: the dense computation).

    The dense median (:func:`~fsbench.algorithms.kernels.median_sq_distance`) holds about
    :data:`MEDIAN_TEMPORARIES` N×N arrays; beyond the budget the exact blocked selection is used,
    with the blocks of :func:`plan_blocks`.
    """
    if memory_limit is None or MEDIAN_TEMPORARIES * 8 * n * n <= memory_limit:
        return None
    p = plan_blocks(n, "rbf", memory_limit)
    return (p.rows, p.cols) if not p.dense else (min(n, TILE_ROWS), min(n, TILE_COLS))


@dataclass(frozen=True)
class GramStats:
    r"""The reductions of :math:`K_w` that the label criteria depend on (module docstring)."""

    pair_sums: np.ndarray  #: (C, C) class-pair sums Q
    sq_norm: float | None  #: ‖K‖²_F (None when not asked for)
    trace: float  #: tr K
    n: int

    def inner(self, table: np.ndarray) -> float:
        r""":math:`\langle K, Z\rangle_F` for the class-pair table ``table``."""
        return float(np.vdot(self.pair_sums, table))

    @property
    def total(self) -> float:
        r""":math:`\Sigma(K)`, the sum of all entries."""
        return float(self.pair_sums.sum())


@dataclass(frozen=True)
class GradientWeights:
    r""":math:`M = \partial f/\partial K = Z_A + \text{gram}\cdot K + \text{eye}\cdot I` (A symmetric)."""

    table: np.ndarray
    gram: float = 0.0
    eye: float = 0.0


@dataclass
class GramPoint:
    """A value pass at ``w``: its reductions, and the Gram matrix itself on the dense path."""

    w: np.ndarray
    data: ScaledData
    stats: GramStats
    K: np.ndarray | None = field(default=None, repr=False)

    def release(self) -> None:
        """Drop the cached Gram matrix (the dense path keeps it for one gradient pass)."""
        self.K = None


Block = tuple[slice, slice, float]  # rows, columns, multiplicity (1 on the diagonal, 2 above it)


class BlockedGram:
    r"""Value and gradient passes of class-pair criteria of :math:`K_w` over blocks (module docstring).

    Parameters
    ----------
    kernel : a resolved :class:`~fsbench.algorithms.kernels.Kernel`.
    X : (N, D) training data.
    y : (N,) class labels.
    memory_limit : bytes for the passes' temporaries, or None (always dense); :func:`plan_blocks`.
    n_jobs : threads over row bands of blocks (blocked path only); partial results are added in a
        fixed order, so the result does not depend on it.
    need_sq_norm : compute :math:`\lVert K\rVert_F^2` in the value pass.
    """

    def __init__(
        self,
        kernel: Kernel,
        X: np.ndarray,
        y: np.ndarray,
        memory_limit: int | None,
        n_jobs: int = 1,
        need_sq_norm: bool = True,
    ):
        _, codes, counts = np.unique(np.asarray(y), return_inverse=True, return_counts=True)
        codes = codes.ravel()
        order = np.argsort(codes, kind="stable")
        self.kernel = kernel
        self.X = np.ascontiguousarray(np.asarray(X, dtype=float)[order])
        self.codes = codes[order]
        self.counts = counts
        self.bounds = np.concatenate([[0], np.cumsum(counts)])
        self.n_jobs = n_jobs
        self.need_sq_norm = need_sq_norm
        self.plan = plan_blocks(self.X.shape[0], kernel.name, memory_limit, n_jobs)

    @property
    def n_classes(self) -> int:
        return self.counts.size

    # ------------------------------------------------------------------ layout
    def bands(self) -> list[list[Block]]:
        """The blocks of each row band: its diagonal block, then the blocks to its right."""
        n, p = self.plan.n, self.plan
        if p.dense:
            return [[(slice(0, n), slice(0, n), 1.0)]]
        out = []
        for a in range(0, n, p.rows):
            b = min(a + p.rows, n)
            band = [(slice(a, b), slice(a, b), 1.0)]
            band += [(slice(a, b), slice(c, min(c + p.cols, n)), 2.0) for c in range(b, n, p.cols)]
            out.append(band)
        return out

    def _segments(self, s: slice) -> list[tuple[int, int, int]]:
        """(class, start, stop) of the classes in the sorted range ``s``, positions relative to it."""
        first, last = self.codes[s.start], self.codes[s.stop - 1]
        return [
            (c, max(self.bounds[c], s.start) - s.start, min(self.bounds[c + 1], s.stop) - s.start)
            for c in range(first, last + 1)
        ]

    def _map(self, fn: Callable[[list[Block]], object], bands: Sequence[list[Block]]) -> list:
        if self.n_jobs == 1 or len(bands) == 1:
            return [fn(b) for b in bands]
        err = np.geterr()  # NumPy's error state is per thread: hand the caller's to the workers

        def run(band):
            with np.errstate(**err):
                return fn(band)

        with ThreadPoolExecutor(max_workers=self.n_jobs) as ex:
            return list(ex.map(run, bands))  # in band order: the sums below do not depend on n_jobs

    # ------------------------------------------------------------------ value pass
    def _block_stats(self, K: np.ndarray, rows: slice, cols: slice, mult: float):
        C = self.n_classes
        Q = np.zeros((C, C))
        cseg = self._segments(cols)
        if len(cseg) == 1:
            S = K.sum(axis=1)[:, None]
        else:
            S = np.stack([K[:, lo:hi].sum(axis=1) for _, lo, hi in cseg], axis=1)
        ccls = [c for c, _, _ in cseg]
        for c, lo, hi in self._segments(rows):
            Q[c, ccls] += S[lo:hi].sum(axis=0)
        if mult != 1.0:
            Q = Q + Q.T  # the mirrored block below the diagonal
        kk = mult * float(np.vdot(K, K)) if self.need_sq_norm else 0.0
        tr = float(np.trace(K)) if rows == cols else 0.0
        return Q, kk, tr

    def at(self, w: np.ndarray) -> GramPoint:
        """Value pass at scale factors ``w``: the reductions (and, dense, the Gram matrix)."""
        data = self.kernel.scaled(self.X, w)
        cache: list[np.ndarray] = []

        def band_stats(band):
            Q, kk, tr = 0.0, 0.0, 0.0
            for rows, cols, mult in band:
                K = self.kernel.gram_block(data, rows, cols)
                q, k2, t = self._block_stats(K, rows, cols, mult)
                Q, kk, tr = Q + q, kk + k2, tr + t
                if self.plan.dense:
                    cache.append(K)
            return Q, kk, tr

        parts = self._map(band_stats, self.bands())
        Q = sum(p[0] for p in parts)
        stats = GramStats(
            pair_sums=np.asarray(Q, dtype=float),
            sq_norm=float(sum(p[1] for p in parts)) if self.need_sq_norm else None,
            trace=float(sum(p[2] for p in parts)),
            n=self.plan.n,
        )
        return GramPoint(w=np.asarray(w, dtype=float), data=data, stats=stats, K=cache[0] if cache else None)

    # ------------------------------------------------------------------ gradient pass
    def _weights_block(
        self, weights: GradientWeights, K: np.ndarray | None, rows: slice, cols: slice
    ) -> np.ndarray:
        """The block of M = Z_A + gram·K + eye·I: constant rectangles of the (class-sorted) table."""
        has_gram = weights.gram != 0.0
        # gram·K first, then the constants added in place: no second block-sized temporary
        M = (
            np.multiply(K, weights.gram)
            if has_gram
            else np.empty((rows.stop - rows.start, cols.stop - cols.start))
        )
        cseg = self._segments(cols)
        for cr, rlo, rhi in self._segments(rows):
            for cc, clo, chi in cseg:
                if has_gram:
                    M[rlo:rhi, clo:chi] += weights.table[cr, cc]
                else:
                    M[rlo:rhi, clo:chi] = weights.table[cr, cc]
        if weights.eye != 0.0 and rows == cols:
            M.ravel()[:: M.shape[1] + 1] += weights.eye
        return M

    def gradient(self, point: GramPoint, weights: GradientWeights) -> np.ndarray:
        r""":math:`\partial f/\partial w` at ``point`` for :math:`\partial f/\partial K` = ``weights``.

        Releases the point's cached Gram matrix (dense path).
        """
        data, cached = point.data, point.K
        point.release()
        # The contraction reads K for RBF and for a K term of M; linear and polynomial gradients need
        # only M otherwise, so their blocked pass skips the Gram blocks.
        need_K = self.kernel.name == "rbf" or weights.gram != 0.0

        def band_gradient(band):
            g = np.zeros(self.X.shape[1])
            for rows, cols, mult in band:
                K = (
                    cached
                    if cached is not None
                    else (self.kernel.gram_block(data, rows, cols) if need_K else None)
                )
                M = self._weights_block(weights, K, rows, cols)
                gb = self.kernel.scale_gradient_block(data, rows, cols, M, K, overwrite=True)
                g += gb if mult == 1.0 else mult * gb
            return g

        parts = self._map(band_gradient, self.bands())
        return np.sum(parts, axis=0)
