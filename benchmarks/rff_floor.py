r"""The arithmetic floor of one random-feature SAS iteration, and the fit's time against it (issue #23).

``python -m benchmarks.rff_floor {kernels,fit,render}`` writes ``benchmarks/results/``:

``rff_floor_kernels.json`` (``kernels``)
    The kernels of one iteration timed alone, in float32 on row blocks of the size the code uses
    (:data:`fsbench.algorithms.random_features.BLOCK_ELEMENTS` / m rows), D = 50, for m = 500 and
    2000, with 1 and 2 threads. Per row and block (N_b rows, U = X_bΩ_w + b):

    ========== =================================== ====================== =========================
    kernel     operation                           arithmetic per row     pass
    ========== =================================== ====================== =========================
    project    U = X_b Ω_w (GEMM, N_b×D · D×m)     D·m multiply-adds      value and gradient
    cos        Z = cos U                           m cosines              value and gradient
    colsum     class sums S += 1ᵀZ (GEMV)          m adds                 value
    syrk       G += Z_bᵀZ_b (SYRK, upper half)     m(m+1)/2 multiply-adds value
    zg         Z_b G (GEMM, N_b×m · m×m)           m² multiply-adds       gradient
    sin        sin U                               m sines                gradient
    xtv        X_bᵀ V (GEMM, D×N_b · N_b×m)        D·m multiply-adds      gradient
    ========== =================================== ====================== =========================

    One iteration of the ascent (:class:`fsbench.algorithms.scaled.ScaledKernelAscent`) is one
    gradient pass at the accepted point plus one value pass per trial point of the Armijo line
    search (the first trial step is doubled after every accepted step, then halved until accepted,
    so 1, 2, … value passes; the fit below counts them). **Floor** = (value passes) × (project +
    cos + colsum + syrk) + (gradient passes) × (project + cos + zg + sin + xtv), per row × N: the
    kernels alone, nothing else (no data movement between them, no Python, no elementwise
    products). With 1 thread the CPU time is the floor; with 2 threads the wall time per row of
    both threads together, each on its own blocks with one BLAS thread, as the code with
    ``n_jobs=2`` (its ZᵀZ is numpy's SYRK plus an m×m addition, on blocks 4× larger).
``rff_floor_n{N}_m{m}_j{n_jobs}[_tag].json`` (``fit``)
    One fit of RFF-SAS (``max_iter`` = ``--iters``, default tolerance) on the z-scored Weston
    linear toy (N × 50) in a fresh subprocess, with the value and gradient passes counted and
    timed; then, in the same process (same load), the kernels of ``kernels`` at that m. Recorded:
    wall and CPU time of the fit, passes, peak RSS, the load average (``os.getloadavg``) before
    and after, the floor for the counted passes and the ratio fit / floor (CPU with 1 thread,
    wall with ``n_jobs`` = 2).
``RFF_FLOOR.md`` (``render``)
    The tables. The floor at N = 10⁶ is extrapolated linearly in N from the per-row times of
    timed blocks (every kernel is a sum over row blocks of one size, so its cost is linear in N).

The machine is shared: the load average is recorded with every measurement, and CPU time
(``time.process_time``) is reported besides wall time because other jobs inflate the latter.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from scipy.linalg.blas import get_blas_funcs
from threadpoolctl import threadpool_limits

from benchmarks.common import verdict, weston_data
from benchmarks.report import write_included
from fsbench._malloc import tune_malloc
from fsbench.algorithms import random_features as rf
from fsbench.algorithms.alignment import SAS

RESULTS_DIR = Path(__file__).resolve().parent / "results"
KERNELS_FILE = "rff_floor_kernels.json"
D = 50
M_VALUES = (500, 2000)
N_VALUES = (100_000, 1_000_000)
VALUE_KERNELS = ("project", "cos", "colsum", "syrk")
GRADIENT_KERNELS = ("project", "cos", "zg", "sin", "xtv")
#: Value passes per iteration used for the floor table when no fit at that m was measured.
DEFAULT_VALUE_PASSES = 2.0


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _clock() -> tuple[float, float]:
    return time.process_time(), time.perf_counter()


# --------------------------------------------------------------------------------------------- kernels
def _kernel_calls(m: int, rows: int, threaded: bool, seed: int = 0) -> dict:
    """One callable per kernel on its own block of ``rows`` rows (as the code calls it)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((rows, D + 1)).astype(np.float32)  # + the column of ones
    Om = (rng.standard_normal((D + 1, m)) * 0.3).astype(np.float32)
    U = X @ Om
    Z = np.cos(U)
    out = np.empty_like(U)
    G = (Z.T @ Z).astype(np.float32)
    ones = np.ones(rows, dtype=np.float32)
    syrk = get_blas_funcs("syrk", dtype=np.float32)
    gacc = np.zeros((m, m), dtype=np.float32, order="F")
    prod = np.empty((m, m), dtype=np.float32)

    def syrk_threaded():  # numpy's SYRK for ZᵀZ (frees the GIL), added to the accumulator
        np.matmul(Z.T, Z, out=prod)
        gacc.__iadd__(prod)

    return {
        "project": lambda: np.matmul(X, Om, out=out),
        "cos": lambda: np.cos(U, out=out),
        "colsum": lambda: ones @ Z,
        "syrk": syrk_threaded
        if threaded
        else (lambda: syrk(1.0, Z.T, beta=1.0, c=gacc, trans=0, lower=0, overwrite_c=1)),
        "zg": lambda: np.matmul(Z, G, out=out),
        "sin": lambda: np.sin(U, out=out),
        "xtv": lambda: X.T @ Z,
    }


def kernel_times(m: int, threads: int = 1, repeats: int = 3, min_rows: int = 50_000) -> dict:
    """Per-row CPU and wall µs of every kernel at the code's block size (median over ``repeats``).

    With ``threads`` > 1, as the code with ``n_jobs`` > 1: every thread runs the kernel on its own
    blocks (4× larger), BLAS on one thread each; per-row times are per row of all threads together.
    """
    rows = max(1, rf.BLOCK_ELEMENTS * (4 if threads > 1 else 1) // m)
    sets = [_kernel_calls(m, rows, threads > 1, seed) for seed in range(threads)]
    n_blocks = max(1, min_rows // (rows * threads))
    res = {}
    with threadpool_limits(limits=1), ThreadPoolExecutor(max(1, threads - 1)) as pool:
        for name in sets[0]:

            def call(name=name):
                futures = [pool.submit(lambda f=c[name]: [f() for _ in range(n_blocks)]) for c in sets[1:]]
                for _ in range(n_blocks):
                    sets[0][name]()
                for f in futures:
                    f.result()

            call()  # warm-up
            cpu, wall = [], []
            for _ in range(repeats):
                c0, w0 = _clock()
                call()
                c1, w1 = _clock()
                cpu.append((c1 - c0) / (n_blocks * rows * threads) * 1e6)
                wall.append((w1 - w0) / (n_blocks * rows * threads) * 1e6)
            res[name] = {"cpu_us_per_row": float(np.median(cpu)), "wall_us_per_row": float(np.median(wall))}
    return {"m": m, "D": D, "block_rows": rows, "threads": threads, "kernels": res}


def pass_floor(k: dict, which: str, clock: str = "cpu") -> float:
    """µs per row of one value or gradient pass at the floor (sum of its kernels)."""
    names = VALUE_KERNELS if which == "value" else GRADIENT_KERNELS
    return sum(k["kernels"][n][f"{clock}_us_per_row"] for n in names)


def pass_seconds(
    k: dict, which: str, N: int, clock: str = "cpu", normaliser_rows: int | None = None
) -> float:
    """Seconds of one value or gradient pass at the floor for N rows.

    With ``normaliser_rows`` = n < N (``SAS(normaliser_rows=n)``) the N·m² kernel (SYRK in the value
    pass, ZG in the gradient pass) runs on n rows only, with their own projection and cosine (and
    sine and Xᵀ V in the gradient pass); the N rows do the rest.
    """
    if normaliser_rows is None or normaliser_rows >= N:
        return N * 1e-6 * pass_floor(k, which, clock)
    us = {n: k["kernels"][n][f"{clock}_us_per_row"] for n in k["kernels"]}
    if which == "value":
        every, sub = ("project", "cos", "colsum"), ("project", "cos", "syrk")
    else:
        every, sub = ("project", "cos", "sin", "xtv"), GRADIENT_KERNELS
    return 1e-6 * (N * sum(us[n] for n in every) + normaliser_rows * sum(us[n] for n in sub))


def floor_seconds(
    k: dict,
    N: int,
    n_value: float,
    n_gradient: float,
    clock: str = "cpu",
    normaliser_rows: int | None = None,
) -> float:
    """Seconds of ``n_value`` value and ``n_gradient`` gradient passes at the floor for N rows."""
    return n_value * pass_seconds(k, "value", N, clock, normaliser_rows) + n_gradient * pass_seconds(
        k, "gradient", N, clock, normaliser_rows
    )


def run_kernels(out: Path, m_values=M_VALUES, threads=(1, 2), repeats: int = 3) -> dict:
    tune_malloc()
    rows = []
    for m in m_values:
        for t in threads:
            load0 = _load()
            k = kernel_times(m, t, repeats)
            k.update({"loadavg_at_start": load0, "loadavg_at_end": _load()})
            rows.append(k)
            print(
                json.dumps(
                    {
                        "m": m,
                        "threads": t,
                        **{n: round(v["cpu_us_per_row"], 2) for n, v in k["kernels"].items()},
                    }
                )
            )
    doc = {"date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "cpu_count": os.cpu_count(), "rows": rows}
    (out / KERNELS_FILE).write_text(json.dumps(doc, indent=1) + "\n")
    return doc


# --------------------------------------------------------------------------------------------- fit
def fit_child(N: int, m: int, iters: int, n_jobs: int, normaliser_rows: int | None = None) -> None:
    """Body of the fresh subprocess of ``fit``: generate, fit with counted passes, time the kernels."""
    tune_malloc()  # the configuration fsbench's runner workers use
    X, y = weston_data(N, D, 0)
    rss_data = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    counts = {"value": [0, 0.0, 0.0], "gradient": [0, 0.0, 0.0]}
    for name in counts:
        orig = getattr(rf.RFFAlignment, name)

        def counted(self, *a, _orig=orig, _name=name):
            c0, w0 = _clock()
            r = _orig(self, *a)
            c1, w1 = _clock()
            counts[_name][0] += 1
            counts[_name][1] += c1 - c0
            counts[_name][2] += w1 - w0
            return r

        setattr(rf.RFFAlignment, name, counted)
    load0 = _load()
    est = SAS(
        kernel="rbf",
        approximation="rff",
        n_components=m,
        random_state=0,
        max_iter=iters,
        n_jobs=n_jobs,
        normaliser_rows=normaliser_rows,
    )
    with threadpool_limits(limits=1):  # as fsbench's runner; n_jobs > 1 = threads over blocks
        c0, w0 = _clock()
        est.fit(X, y)
        c1, w1 = _clock()
    load1 = _load()
    k = kernel_times(m, threads=n_jobs, repeats=3, min_rows=50_000)
    k.update({"loadavg_at_start": load1, "loadavg_at_end": _load()})
    top6 = sorted(int(i) for i in np.argsort(est.ranking_)[:6])
    print(
        json.dumps(
            {
                "N": N,
                "D": D,
                "m": m,
                "max_iter": iters,
                "n_jobs": n_jobs,
                "normaliser_rows": normaliser_rows,
                "fit_cpu_s": c1 - c0,
                "fit_wall_s": w1 - w0,
                "n_iter": int(est.n_iter_),
                "converged": bool(est.converged_),
                "value_passes": counts["value"][0],
                "value_cpu_s": counts["value"][1],
                "value_wall_s": counts["value"][2],
                "gradient_passes": counts["gradient"][0],
                "gradient_cpu_s": counts["gradient"][1],
                "gradient_wall_s": counts["gradient"][2],
                "relevant_in_top6": sum(i < 6 for i in top6),
                "ranking": [int(r) for r in est.ranking_],
                "peak_rss_after_data_mb": rss_data / 1024,
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "loadavg_fit": [load0, load1],
                "kernels": k,
            }
        )
    )


def fit_file(N: int, m: int, n_jobs: int, tag: str | None) -> str:
    return f"rff_floor_n{N}_m{m}_j{n_jobs}" + (f"_{tag}" if tag else "") + ".json"


def summarize_fit(doc: dict) -> dict:
    """Floor for the counted passes and the ratios (added to a fit's JSON document)."""
    k, N = doc["kernels"], doc["N"]
    nv, ng = doc["value_passes"], doc["gradient_passes"]
    clock = "cpu" if doc["n_jobs"] == 1 else "wall"
    sub = doc.get("normaliser_rows")
    floor = floor_seconds(k, N, nv, ng, clock, sub)
    fit = doc["fit_cpu_s"] if clock == "cpu" else doc["fit_wall_s"]
    it = max(1, doc["n_iter"])
    return {
        "clock": clock,
        "floor_s": floor,
        "ratio_to_floor": fit / floor,
        "value_passes_per_iteration": (nv - 1) / it,  # the first value pass is at w = 1, before iteration 1
        "fit_s_per_iteration": fit / it,
        "floor_s_per_iteration": floor / it,
        # setup (width rule on 5000 rows, drawing the features, copies of X) and the ascent's own work
        "outside_passes_s": fit - doc[f"value_{clock}_s"] - doc[f"gradient_{clock}_s"],
        "value_pass_ratio": (doc[f"value_{clock}_s"] / nv) / pass_seconds(k, "value", N, clock, sub),
        "gradient_pass_ratio": (doc[f"gradient_{clock}_s"] / max(1, ng))
        / pass_seconds(k, "gradient", N, clock, sub),
    }


def run_fit(
    out: Path,
    N: int,
    m: int,
    iters: int,
    n_jobs: int = 1,
    tag: str | None = None,
    normaliser_rows: int | None = None,
) -> dict:
    load0 = _load()
    t0 = time.perf_counter()
    sub = [] if normaliser_rows is None else ["--normaliser-rows", str(normaliser_rows)]
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.rff_floor", "fit-child", "--n", str(N), "--m", str(m),
         "--iters", str(iters), "--n-jobs", str(n_jobs), *sub],
        capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parents[1],
        env={**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"},
    )  # fmt: skip
    doc = json.loads(proc.stdout.strip().splitlines()[-1])
    doc.update(
        {
            "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "tag": tag,
            "process_wall_s": time.perf_counter() - t0,
            "loadavg_at_start": load0,
            "loadavg_at_end": _load(),
            "cpu_count": os.cpu_count(),
            "targets": {"peak_rss_mb": 2048, "fit_wall_s": 600, "ratio_to_floor": 2.0},
        }
    )
    doc["summary"] = summarize_fit(doc)
    (out / fit_file(N, m, n_jobs, tag)).write_text(json.dumps(doc, indent=1) + "\n")
    return doc


# --------------------------------------------------------------------------------------------- render
def target_floor_lines(kd: dict, per_m: dict[int, list[float]], minutes: float = 10.0) -> list[str]:
    """What the one-thread floor says about the target (10 iterations at N = 10⁶ in ``minutes`` on 2 cores).

    Per m: the floor's CPU time for 10 iterations, the wall time it would take with perfect
    scaling over 2 cores (half), and the share of the two N·m² kernels (ZᵀZ by SYRK in the value
    pass, ZG in the gradient pass) that the bounded alignment needs.
    """
    lines = []
    for k in kd["rows"]:
        if k["threads"] != 1:
            continue
        v = float(np.mean(per_m[k["m"]])) if k["m"] in per_m else DEFAULT_VALUE_PASSES
        total = 10 * floor_seconds(k, 1_000_000, v, 1.0, "cpu")
        quad = (
            10
            * 1_000_000
            * 1e-6
            * (v * k["kernels"]["syrk"]["cpu_us_per_row"] + k["kernels"]["zg"]["cpu_us_per_row"])
        )
        best = total / 2 / 60
        lines.append(
            f"* m = {k['m']}, normaliser on all rows: the one-thread floor of 10 iterations at N = 10⁶ is "
            f"{total / 60:.1f} min of "
            f"CPU; with perfect scaling over 2 cores {best:.1f} min wall, "
            f"{'within' if best < minutes else 'above'} the {minutes:g}-minute target. The N·m² kernels "
            f"(ZᵀZ, ZG) are {100 * quad / total:.0f} % of it."
        )
    return lines


def render(out: Path) -> str:
    """``RFF_FLOOR.md`` from the JSON files in ``out``."""
    lines = [
        "# Random-feature SAS against its arithmetic floor (issue #23)",
        "",
        "Generated by `python -m benchmarks.rff_floor render`; method in the docstring of "
        "`benchmarks/rff_floor.py`. The machine has 2 cores shared with other jobs: the load average "
        "(1/5/15 min) is given with every measurement.",
    ]
    fits = [json.loads(p.read_text()) for p in sorted(out.glob("rff_floor_n*.json"))]
    per_m: dict[int, list[float]] = {}
    for f in fits:  # value passes per iteration of the default estimator (normaliser on all rows)
        if not f.get("normaliser_rows"):
            per_m.setdefault(f["m"], []).append(f["summary"]["value_passes_per_iteration"])
    kf = out / KERNELS_FILE
    if kf.exists():
        kd = json.loads(kf.read_text())
        lines += [
            "",
            "## Kernels alone (µs per row, float32, D = 50; CPU with 1 thread, wall with 2)",
            "",
            f"Run {kd['date']}.",
            "",
            "| m | threads | block rows | "
            + " | ".join(VALUE_KERNELS[:3] + ("syrk",) + GRADIENT_KERNELS[2:])
            + " | value pass | gradient pass | load at start → end |",
            "|---|---|---|" + "---|" * 9 + "---|",
        ]
        names = ("project", "cos", "colsum", "syrk", "zg", "sin", "xtv")
        for k in kd["rows"]:
            clock = "cpu" if k["threads"] == 1 else "wall"
            cells = " | ".join(f"{k['kernels'][n][f'{clock}_us_per_row']:.2f}" for n in names)
            lines.append(
                f"| {k['m']} | {k['threads']} | {k['block_rows']} | {cells} | "
                f"{pass_floor(k, 'value', clock):.1f} | {pass_floor(k, 'gradient', clock):.1f} | "
                f"{k['loadavg_at_start']} → {k['loadavg_at_end']} |"
            )
        lines += [
            "",
            "## Floor per iteration (seconds)",
            "",
            "Floor = v × value pass + 1 × gradient pass, v = value passes per iteration measured by the fits "
            f"below at that m (mean over the fits; {DEFAULT_VALUE_PASSES:g} if none). N = 10⁶ is "
            "extrapolated linearly in N from the per-row times of the timed blocks.",
            "",
            "| m | threads | v | N = 100,000 | N = 1,000,000 (extrapolated) | 10 iterations at N = 10⁶ |",
            "|---|---|---|---|---|---|",
        ]
        for k in kd["rows"]:
            clock = "cpu" if k["threads"] == 1 else "wall"
            v = float(np.mean(per_m[k["m"]])) if k["m"] in per_m else DEFAULT_VALUE_PASSES
            f5, f6 = (floor_seconds(k, n, v, 1.0, clock) for n in N_VALUES)
            lines.append(
                f"| {k['m']} | {k['threads']} | {v:.2f} | {f5:.2f} | {f6:.1f} | {10 * f6 / 60:.1f} min |"
            )
        lines += ["", *target_floor_lines(kd, per_m)]
    if fits:
        lines += [
            "",
            "## Fits against the floor",
            "",
            "A fit (max_iter as given, default tolerance) in a fresh subprocess, its passes counted; "
            "the floor is that of the same passes, from the kernels timed in the same process right "
            "after the fit. Ratio = fit / floor (CPU with 1 thread, wall with 2).",
            "",
            "*normaliser rows*: `SAS(normaliser_rows=n)`, ‖K‖_F estimated on n rows (the N·m² kernels on "
            "those rows only, the floor counted the same way); *all*: the default.",
            "",
            "| tag | N | m | n_jobs | normaliser rows | iterations | value passes / it. | fit s / it. | "
            "floor s / it. | **ratio** | value pass ratio | gradient pass ratio | outside the passes | "
            "fit wall | fit CPU | peak RSS | load (start → end) |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for f in fits:
            s = f["summary"]
            lines.append(
                f"| {f.get('tag') or ''} | {f['N']} | {f['m']} | {f['n_jobs']} | "
                f"{f.get('normaliser_rows') or 'all'} | {f['n_iter']} | "
                f"{s['value_passes_per_iteration']:.2f} | {s['fit_s_per_iteration']:.2f} | "
                f"{s['floor_s_per_iteration']:.2f} | **{s['ratio_to_floor']:.2f}** | "
                f"{s['value_pass_ratio']:.2f} | {s['gradient_pass_ratio']:.2f} | "
                f"{s['outside_passes_s']:.1f} s | "
                f"{f['fit_wall_s']:.0f} s | {f['fit_cpu_s']:.0f} s | "
                f"{f['peak_rss_mb']:.0f} MB | {f['loadavg_at_start']} → {f['loadavg_at_end']} |"
            )
    big = [f for f in fits if f["N"] >= 1_000_000]
    if big:
        lines += [
            "",
            "## The target: N = 10⁶, D = 50, 10 iterations in < 10 min wall, < 2 GB peak RSS",
            "",
            "| tag | m | n_jobs | normaliser rows | iterations | fit wall | < 10 min | peak RSS | < 2 GB | "
            "ratio to floor | relevant in top 6 | load |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for f in big:
            t = f["targets"]
            lines.append(
                f"| {f.get('tag') or ''} | {f['m']} | {f['n_jobs']} | {f.get('normaliser_rows') or 'all'} | "
                f"{f['n_iter']} | {f['fit_wall_s']:.0f} s | "
                f"{verdict(f['fit_wall_s'] < t['fit_wall_s'])} | {f['peak_rss_mb']:.0f} MB | "
                f"{verdict(f['peak_rss_mb'] < t['peak_rss_mb'])} | {f['summary']['ratio_to_floor']:.2f} | "
                f"{f['relevant_in_top6']} of 6 | {f['loadavg_at_start']} → {f['loadavg_at_end']} |"
            )
    text = "\n".join(lines) + "\n"
    write_included(out, "RFF_FLOOR.md", text)  # RESULTS.md includes it whole
    return text


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.rff_floor", description=__doc__.split("\n")[0])
    p.add_argument("what", choices=["kernels", "fit", "fit-child", "render"])
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--m", type=int, default=500)
    p.add_argument("--iters", type=int, default=10, help="max_iter of the fit (default 10)")
    p.add_argument("--n-jobs", type=int, default=1, help="threads of the fit (SAS n_jobs)")
    p.add_argument("--tag", default=None, help="suffix of the fit's JSON file (e.g. 'before')")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument(
        "--normaliser-rows", type=int, default=None, help="SAS normaliser_rows (default: all rows)"
    )
    args = p.parse_args(argv)
    if args.what == "fit-child":
        fit_child(args.n, args.m, args.iters, args.n_jobs, args.normaliser_rows)
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    if args.what == "kernels":
        run_kernels(args.out, repeats=args.repeats)
    elif args.what == "fit":
        doc = run_fit(args.out, args.n, args.m, args.iters, args.n_jobs, args.tag, args.normaliser_rows)
        print(json.dumps({k: v for k, v in doc.items() if k not in ("kernels", "ranking")}, indent=1))
    render(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
