"""Scaling benchmark (issue 15): exact SAS at large N in bounded memory — ``python -m benchmarks.scale``.

For N in :data:`GRID` and D = 50 (the Weston linear toy with 50 features, z-scored:
:func:`benchmarks.common.weston_data`), SAS with the RBF kernel and the median width is measured on each
*path* of :data:`PATHS` — how the criterion is evaluated:

``dense``
    ``memory_limit=None``: the whole N×N Gram matrix, kept from the value pass to the gradient pass.
    Only up to :data:`DENSE_MAX` (never run above 10k on the shared machine: ~2 N×N arrays).
``blocked``
    ``memory_limit=BLOCKED_LIMIT``: the exact blocked evaluation of :mod:`fsbench.algorithms.gram_blocks`
    (blocks of 128 × 2048 entries above the diagonal, the median width by blocked selection).

A path is an entry of :data:`PATHS` (:class:`Path`: the selector, its passes and their floor), so that
another evaluation (e.g. an approximate random-feature SAS, ``"rff"``) is one more small function.

Each (N, path) runs in a **fresh subprocess** (``--child``), which reports

* ``peak_rss_bytes``: ``ru_maxrss`` of the child after a SAS fit with ``max_iter`` = :data:`FIT_ITERS`
  (``tol=0``), measured before anything else allocates (``rss_data_bytes``: after the imports and the
  data, before the fit);
* ``value_s``, ``gradient_s``: one value pass (Gram matrix, reductions, alignment) and one gradient pass
  (what an accepted ascent step adds; on the dense path it reuses the value pass's Gram matrix), their
  sum ``iteration_s`` (one value + gradient evaluation);
* the **floor** of the same passes: the same count of ``exp`` and GEMM work on the same blocks, timed
  as raw NumPy calls (value pass: one Gram GEMM and one ``exp`` per block; gradient pass: the same
  plus the contraction GEMM ``P @ X`` per block — dense: the contraction GEMM only), and the ratios;
* ``fit_per_iteration_s`` = (fit(max_iter=k) − fit(max_iter=0)) / n_iter, which includes the Armijo trial
  value passes (``value_passes_per_step``), against its floor ``value_passes_per_step`` × value floor +
  gradient floor.

The exponent p of time ∝ N^p is fitted (least squares in log–log) per path. Targets (issue 15): the
blocked path at N = 50,000 under 2 GB peak RSS and within 1.5× of its floor per iteration
(value + gradient). Timing protocol: :mod:`benchmarks.timing` (one BLAS thread, median CPU time); the
machine's load average is recorded with every case (other jobs share its 2 cores).

Usage: ``python -m benchmarks.scale`` (full grid, minutes; ``make bench-scale``), ``--quick`` (N ≤ 5,000;
part of ``make bench``), ``--tiny`` (seconds, for the tests). Results: ``benchmarks/results/
d_sas_scale.json`` (``d_sas_scale_quick.json`` with ``--quick``) and a section of ``RESULTS.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path as FilePath

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks.common import RESULTS_DIR, dumps, gb, header, verdict, weston_data
from benchmarks.common import SCALE_FILES as FILES
from benchmarks.report import render_markdown
from benchmarks.timing import environment, measure
from fsbench._malloc import tune_malloc
from fsbench.algorithms.alignment import SAS

GRID = [1000, 2000, 5000, 10_000, 20_000, 50_000]
QUICK_MAX = 5000
TINY_GRID = [300, 700]
D = 50
#: Largest N of the dense path (2 N×N float64 arrays: 1.6 GB at 10k; never more on the shared machine).
DENSE_MAX = 10_000
#: The blocked path's budget: far below every dense need of the grid (dense iff 16·N² ≤ budget, i.e.
#: N ≤ 724), and above the default block's (2 × 128 × 2048 float64 = 4 MiB), so the blocks have their
#: default shape.
BLOCKED_LIMIT = "8MiB"
TINY_BLOCKED_LIMIT = "256KiB"
TARGET_N = 50_000
RSS_TARGET_BYTES = 2 * 10**9
FLOOR_TARGET = 1.5
REPO = FilePath(__file__).resolve().parents[1]


def fit_iters(n: int) -> int:
    """Accepted ascent steps of the timed fit: 5, and 2 from N = 20,000 on (a fit step there takes ~10 s)."""
    return 5 if n < 20_000 else 2


def repeats(n: int) -> int:
    """Timed runs per function (after the warm-up): 5 up to 5,000, 3 at 10,000, then 1 (the warm-up)."""
    return 5 if n <= 5000 else (3 if n <= 10_000 else 1)


# --------------------------------------------------------------------------------------------- paths
@dataclass(frozen=True)
class Path:
    """One way of evaluating SAS, as measured here.

    ``selector(max_iter, tol)`` gives a fresh estimator; ``passes(sel, X, y, w)`` and
    ``floor(sel, X, y, w)`` give ``{"value": fn, "gradient": fn}``: one value pass and one gradient pass
    at scale factors w, and the raw NumPy operations (exp, GEMM) of the same work.
    """

    description: str
    max_n: int | None
    selector: Callable[..., object]
    passes: Callable[..., dict[str, Callable[[], object]]]
    floor: Callable[..., dict[str, Callable[[], object]]]


def _sas(memory_limit):
    def make(max_iter: int = 0, tol: float = 0.0):
        return SAS(kernel="rbf", gamma="median", max_iter=max_iter, tol=tol, memory_limit=memory_limit)

    return make


def _exact_passes(sel, X, y, w):
    """A value pass and a gradient pass of fsbench's SAS (dense or blocked as ``sel.memory_limit`` says)."""
    gram = sel._gram(X, y)
    sel._prepare(gram)
    point = gram.at(w)
    _, weights = sel._criterion(point.stats)
    K0 = point.K  # dense path: the Gram matrix the gradient pass reuses (None when blocked)

    def value():
        p = gram.at(w)
        sel._criterion(p.stats)
        p.release()

    def gradient():
        return gram.gradient(replace(point, K=K0), weights)

    return {"value": value, "gradient": gradient}


def _block_floor(sel, X, y, w):
    """exp + GEMM of the exact passes on the same blocks (the dense path is its one block)."""
    gram = sel._gram(X, y)
    data = gram.kernel.scaled(gram.X, w)
    blocks = [blk for band in gram.bands() for blk in band]
    rng = np.random.default_rng(0)
    args = {}  # one exp argument per block shape, in the range of the RBF exponent
    for rows, cols, _ in blocks:
        shape = (rows.stop - rows.start, cols.stop - cols.start)
        if shape not in args:
            args[shape] = -8.0 * rng.random(shape)
    L, R, Xs = data.left, data.right, gram.X
    dense = gram.plan.dense

    def value():
        for rows, cols, _ in blocks:
            L[rows] @ R[cols].T
            np.exp(args[(rows.stop - rows.start, cols.stop - cols.start)])

    def gradient():
        for rows, cols, _ in blocks:
            E = args[(rows.stop - rows.start, cols.stop - cols.start)]
            if not dense:  # the blocked gradient pass forms its Gram blocks again
                L[rows] @ R[cols].T
                np.exp(E)
            E @ Xs[cols]

    return {"value": value, "gradient": gradient}


def _paths(blocked_limit: str) -> dict[str, Path]:
    return {
        "dense": Path(
            description="whole Gram matrix (memory_limit=None)",
            max_n=DENSE_MAX,
            selector=_sas(None),
            passes=_exact_passes,
            floor=_block_floor,
        ),
        "blocked": Path(
            description=f"exact, blocks above the diagonal (memory_limit={blocked_limit!r})",
            max_n=None,
            selector=_sas(blocked_limit),
            passes=_exact_passes,
            floor=_block_floor,
        ),
        # "rff": Path(...) — an approximate random-feature SAS adds its entry here.
    }


PATHS = _paths(BLOCKED_LIMIT)


# --------------------------------------------------------------------------------------------- child
def _maxrss_bytes() -> int:
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024  # KiB on Linux


def run_case(path_name: str, n: int, paths: dict[str, Path], seed: int = 0) -> dict[str, object]:
    """Measure one (N, path) in this process (meant to be a fresh one: the peak RSS is the process's)."""
    tune_malloc()
    path = paths[path_name]
    load_start = [round(x, 2) for x in os.getloadavg()]
    with threadpool_limits(limits=1):
        X, y = weston_data(n, D, seed)
        rss_data = _maxrss_bytes()
        k = fit_iters(n)
        sel = path.selector(max_iter=k, tol=0.0)
        calls = {"n": 0}
        criterion = sel._criterion

        def counting(stats):  # value passes = criterion evaluations (start + one per trial step)
            calls["n"] += 1
            return criterion(stats)

        sel._criterion = counting
        c0 = time.process_time()
        sel.fit(X, y)
        fit_k_cold = time.process_time() - c0
        rss_fit = _maxrss_bytes()
        n_iter = int(sel.n_iter_)
        passes_per_step = (calls["n"] - 1) / max(n_iter, 1)
        gram_path = sel.gram_path_
        block = [int(sel.block_rows_), int(sel.block_cols_)]
        gamma = float(sel.kernel_.gamma)

        w = np.random.default_rng(seed + 1).uniform(0.5, 1.5, D)
        probe = path.selector()
        ops = path.passes(probe, X, y, w)
        floor = path.floor(probe, X, y, w)
        fns = {
            "value": ops["value"],
            "gradient": ops["gradient"],
            "floor_value": floor["value"],
            "floor_gradient": floor["gradient"],
            "fit_0": lambda: path.selector(max_iter=0).fit(X, y),
        }
        r = repeats(n)
        if r > 1:  # the fit with k steps again, timed with the others; else its first run counts
            fns[f"fit_{k}"] = lambda: path.selector(max_iter=k, tol=0.0).fit(X, y)
        t = measure(
            fns, repeats={f: (max(1, r // 2) if f.startswith("fit") else r) for f in fns}, budget_s=20.0
        )
    fit_k = t[f"fit_{k}"].median if f"fit_{k}" in t else fit_k_cold
    med = {f: t[f].median for f in t}
    iteration = med["value"] + med["gradient"]
    floor_it = med["floor_value"] + med["floor_gradient"]
    fit_per_iter = (fit_k - med["fit_0"]) / max(n_iter, 1)
    fit_floor = passes_per_step * med["floor_value"] + med["floor_gradient"]
    return {
        "path": path_name,
        "N": n,
        "D": D,
        "gram_path": gram_path,
        "block": block,
        "gamma": gamma,
        "rss_data_bytes": rss_data,
        "peak_rss_bytes": rss_fit,
        "value_s": med["value"],
        "gradient_s": med["gradient"],
        "iteration_s": iteration,
        "floor_value_s": med["floor_value"],
        "floor_gradient_s": med["floor_gradient"],
        "floor_iteration_s": floor_it,
        "floor_ratio": iteration / floor_it,
        "fit_iters": k,
        "fit_n_iter": n_iter,
        "value_passes_per_step": passes_per_step,
        "fit_per_iteration_s": fit_per_iter,
        "fit_floor_s": fit_floor,
        "fit_floor_ratio": fit_per_iter / fit_floor,
        "fit_cold_s": fit_k_cold,
        "loadavg_start": load_start,
        "loadavg_end": [round(x, 2) for x in os.getloadavg()],
        "timings": {f: v.as_dict() for f, v in t.items()},
    }


# --------------------------------------------------------------------------------------------- parent
def _spawn(path_name: str, n: int, blocked_limit: str) -> dict[str, object]:
    """Run one case in a fresh interpreter (its peak RSS is then the case's own)."""
    cmd = [
        sys.executable,
        "-m",
        "benchmarks.scale",
        "--child",
        path_name,
        str(n),
        "--blocked-limit",
        blocked_limit,
    ]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    out = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"case {path_name} N={n} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def exponent(ns: list[int], ts: list[float]) -> float | None:
    """Least-squares slope p of log t = a + p log N (None with fewer than two sizes)."""
    if len(ns) < 2:
        return None
    return float(np.polyfit(np.log(ns), np.log(ts), 1)[0])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.scale", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help=f"N ≤ {QUICK_MAX:,} only")
    p.add_argument("--tiny", action="store_true", help="smoke sizes (seconds); targets not meaningful")
    p.add_argument("--out", type=FilePath, default=RESULTS_DIR)
    p.add_argument("--paths", default=None, help=f"comma-separated subset of {', '.join(PATHS)}")
    p.add_argument("--sizes", default=None, help="comma-separated N (default: the grid of the mode)")
    p.add_argument(
        "--blocked-limit", default=None, help=f"memory_limit of the blocked path ({BLOCKED_LIMIT})"
    )
    p.add_argument("--child", nargs=2, metavar=("PATH", "N"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    limit = args.blocked_limit or (TINY_BLOCKED_LIMIT if args.tiny else BLOCKED_LIMIT)
    paths = _paths(limit)
    if args.child:
        print(json.dumps(run_case(args.child[0], int(args.child[1]), paths)))
        return 0
    kind = "tiny" if args.tiny else ("quick" if args.quick else "full")
    grid = TINY_GRID if args.tiny else [n for n in GRID if not args.quick or n <= QUICK_MAX]
    if args.sizes:
        grid = [int(s) for s in args.sizes.split(",")]
    names = [s.strip() for s in args.paths.split(",")] if args.paths else list(paths)
    if not set(names) <= set(paths):
        p.error(f"--paths: expected a subset of {', '.join(paths)}")
    env = environment()
    print(f"load average at start: {env['loadavg_1_5_15']}", flush=True)
    cases = []
    for n in grid:
        for name in names:
            mx = paths[name].max_n
            if mx is not None and n > mx:
                continue
            r = _spawn(name, n, limit)
            cases.append(r)
            print(
                f"  {name:8s} N={n:6d}: iteration {r['iteration_s']:.3g} s (value {r['value_s']:.3g} + "
                f"gradient {r['gradient_s']:.3g}), floor {r['floor_iteration_s']:.3g} s "
                f"({r['floor_ratio']:.2f}x) | "
                f"fit/iter {r['fit_per_iteration_s']:.3g} s ({r['fit_floor_ratio']:.2f}x) | "
                f"peak RSS {gb(r['peak_rss_bytes'])} GB | load {r['loadavg_end']}",
                flush=True,
            )
    exps = {}
    for name in names:
        rs = [r for r in cases if r["path"] == name]
        ns = [r["N"] for r in rs]
        exps[name] = {
            "N": ns,
            "iteration": exponent(ns, [r["iteration_s"] for r in rs]),
            "fit_per_iteration": exponent(ns, [max(r["fit_per_iteration_s"], 1e-9) for r in rs]),
        }
    at = next((r for r in cases if r["path"] == "blocked" and r["N"] == TARGET_N), None)
    if at is None:
        status, summary = "NOT MEASURED", f"blocked N={TARGET_N:,} not in this run"
    else:
        ok_rss = at["peak_rss_bytes"] < RSS_TARGET_BYTES
        ok_floor = at["floor_ratio"] <= FLOOR_TARGET
        status = verdict(ok_rss and ok_floor)
        summary = (
            f"blocked N={TARGET_N:,}: peak RSS {gb(at['peak_rss_bytes'])} GB ({verdict(ok_rss)}), "
            f"iteration / floor {at['floor_ratio']:.2f}x ({verdict(ok_floor)})"
        )
    env_end = [round(x, 2) for x in os.getloadavg()]
    doc = header(env, args.tiny) | {
        "measurement": "exact SAS (RBF, median width): time per iteration and peak RSS vs N, per path",
        "command": "python -m benchmarks.scale" + {"full": "", "quick": " --quick", "tiny": " --tiny"}[kind],
        "blocked_memory_limit": limit,
        "targets": {"N": TARGET_N, "peak_rss_bytes": RSS_TARGET_BYTES, "floor_ratio": FLOOR_TARGET},
        "verdict": status,
        "summary": summary,
        "loadavg_start": env["loadavg_1_5_15"],
        "loadavg_end": env_end,
        "exponents": exps,
        "cases": cases,
    }
    out: FilePath = args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / FILES[kind]).write_text(dumps(doc))
    (out / "RESULTS.md").write_text(render_markdown(out))
    print(f"load average at end: {env_end}")
    print(f"(d) {summary}: {status}")
    for name, e in exps.items():
        if e["iteration"] is not None:
            print(
                f"    {name}: time ~ N^{e['iteration']:.2f} (iteration), "
                f"N^{e['fit_per_iteration']:.2f} (fit/iter)"
            )
    print(f"results: {out / FILES[kind]}, {out / 'RESULTS.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
