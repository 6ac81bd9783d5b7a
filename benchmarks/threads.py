"""Thread benchmark (issue 15, left open there): does ``n_jobs`` > 1 speed up the blocked exact passes?

``python -m benchmarks.threads`` — SAS (RBF, median width, D = 50, the z-scored Weston linear toy of
:func:`benchmarks.common.weston_data`) on the blocked path (``memory_limit`` =
:data:`benchmarks.scale.BLOCKED_LIMIT`) with ``n_jobs`` in :data:`JOBS`. Measured: the **wall** time of
one value pass plus one gradient pass
(:func:`benchmarks.scale._exact_passes`), median over the repeats of :func:`benchmarks.timing.measure`,
with BLAS held at one thread (the runner's rule, so that ``n_jobs`` is the only parallelism), and the
speed-up over ``n_jobs = 1``. CPU time is not the measure here: threads add CPU time, they save wall time.

The machine's load average is recorded: a speed-up can only show on cores that are free. Results:
``benchmarks/results/f_threads.json`` and section (f) of ``RESULTS.md``
(:func:`benchmarks.report.threads_section`).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path as FilePath

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks.common import RESULTS_DIR, THREADS_FILE, weston_data
from benchmarks.report import render_markdown
from benchmarks.scale import BLOCKED_LIMIT, TINY_BLOCKED_LIMIT, _exact_passes
from benchmarks.timing import environment, measure
from fsbench.algorithms.alignment import SAS

GRID = (5_000, 10_000, 20_000)
TINY_GRID = (300,)
JOBS = (1, 2)
D = 50


def case(n: int, n_jobs: int, memory_limit: str, repeats: int = 3) -> dict[str, object]:
    """Median wall and CPU seconds of one value + gradient pass of blocked SAS with ``n_jobs`` threads."""
    X, y = weston_data(n, D, seed=0)
    sel = SAS(kernel="rbf", gamma="median", memory_limit=memory_limit, n_jobs=n_jobs)
    sel._validate_params()
    w = np.ones(D)
    with threadpool_limits(limits=1):
        passes = _exact_passes(sel, X, y, w)
        one = {"iteration": lambda: (passes["value"](), passes["gradient"]())}
        t = measure(one, repeats=repeats)["iteration"]
    return {
        "N": n,
        "n_jobs": n_jobs,
        "wall_s": float(np.median(t.wall)),
        "cpu_s": float(np.median(t.cpu)),
        "repeats": len(t.wall),
        "load_average": os.getloadavg(),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.threads", description=__doc__.split("\n")[0])
    p.add_argument("--tiny", action="store_true", help="smoke sizes (seconds); numbers not meaningful")
    p.add_argument("--out", type=FilePath, default=RESULTS_DIR)
    args = p.parse_args(argv)
    grid, limit = (TINY_GRID, TINY_BLOCKED_LIMIT) if args.tiny else (GRID, BLOCKED_LIMIT)
    rows = []
    for n in grid:
        base = None
        for j in JOBS:
            r = case(n, j, limit, repeats=2 if args.tiny else 3)
            base = r["wall_s"] if j == 1 else base
            r["speedup"] = base / r["wall_s"] if r["wall_s"] > 0 else float("nan")
            rows.append(r)
            print(
                f"N={n:>6} n_jobs={j}: wall {r['wall_s']:.3f} s, cpu {r['cpu_s']:.3f} s, "
                f"speed-up {r['speedup']:.2f}x, load {r['load_average'][0]:.2f}"
            )
    args.out.mkdir(parents=True, exist_ok=True)
    name = "f_threads_tiny.json" if args.tiny else THREADS_FILE
    doc = {"memory_limit": limit, "D": D, "cases": rows, "environment": environment()}
    (args.out / name).write_text(json.dumps(doc, indent=1) + "\n")
    (args.out / "RESULTS.md").write_text(render_markdown(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
