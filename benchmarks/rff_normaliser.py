r"""RFF-SAS with its normaliser estimated on n = 10·m rows against all rows (issue #23).

``python -m benchmarks.rff_normaliser {run,render}`` writes ``benchmarks/results/``:

``rff_normaliser.json`` (``run``)
    Pairs of RFF-SAS fits that differ only in ``normaliser_rows`` (None = all rows, or n = 10·m,
    the rule of :mod:`fsbench.algorithms.random_features`, "Normaliser rows"), with the same random
    features (``random_state`` = seed), one BLAS thread, float32 blocks:

    * the z-scored Weston linear toy at N = 100,000, D = 50 (6 relevant features): m = 500 with
      ``max_iter`` = 20 for seeds 0, 1, 2, and m = 2000 with ``max_iter`` = 10 for seed 0 (the
      full-normaliser fit costs ~20 s per iteration there);
    * Letter, all 16,000 training rows z-scored, 26 classes: m = 500 (n = 5000), to convergence
      (default ``max_iter`` and ``tol``), seeds 0, 1, 2.

    Recorded per pair: Spearman correlation and AO₁₀ (:func:`benchmarks.rff_default_m.average_overlap`)
    of the two rankings, the top-10 overlap, whether they are identical, the largest difference of
    the final scale factors relative to the largest full-normaliser factor, both final criteria,
    iterations, CPU seconds, and for the toy the relevant features in each top 6.
``RFF_NORMALISER.md`` (``render``)
    The table, included in ``RESULTS.md``.

Nothing here is tuned: n = 10·m was written down (module notes) before this was run, and the
default stays all rows whatever the result.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks.common import ResumeLog, run_render_main
from benchmarks.report import write_included
from benchmarks.rff_agreement import RESULTS_DIR, _zscore, agreement, toy_data
from benchmarks.rff_default_m import average_overlap
from fsbench.algorithms.alignment import SAS
from fsbench.data import open_dataset

FILE = "rff_normaliser.json"
#: (case, N or None for all rows, m, max_iter or None for the default, seeds)
PLAN = (
    ("weston_linear", 100_000, 500, 20, (0, 1, 2)),
    ("weston_linear", 100_000, 2000, 10, (0,)),
    ("letter", None, 500, None, (0, 1, 2)),
)


def data(case: str, N: int | None, seed: int) -> tuple[np.ndarray, np.ndarray]:
    if case == "weston_linear":
        return toy_data(case, N, 50, seed)
    d = open_dataset(case)
    return _zscore(np.array(d.X, dtype=float)), np.asarray(d.y)


def fit(X: np.ndarray, y: np.ndarray, m: int, seed: int, max_iter: int | None, rows: int | None) -> dict:
    kw = {} if max_iter is None else {"max_iter": max_iter}
    est = SAS(
        kernel="rbf", approximation="rff", n_components=m, random_state=seed, normaliser_rows=rows, **kw
    )
    c0 = time.process_time()
    est.fit(X, y)
    return {
        "ranking": est.ranking_.tolist(),
        "w": np.asarray(est.scale_factors_, float).tolist(),
        "criterion": float(est.criterion_),
        "n_iter": int(est.n_iter_),
        "converged": bool(est.converged_),
        "cpu_s": time.process_time() - c0,
    }


def compare(full: dict, sub: dict, toy: bool) -> dict:
    ra, rb = np.asarray(full["ranking"]), np.asarray(sub["ranking"])
    rho, top = agreement(ra, rb)
    wa, wb = np.asarray(full["w"]), np.asarray(sub["w"])
    out = {
        "identical": bool(np.array_equal(ra, rb)),
        "spearman": rho,
        "top10": top,
        "ao10": average_overlap(ra, rb),
        "w_max_rel_diff": float(np.max(np.abs(wa - wb)) / (np.max(np.abs(wa)) or 1.0)),
    }
    if toy:  # relevant features are the first 6 columns
        out["relevant_top6"] = [int(np.sum(np.argsort(r)[:6] < 6)) for r in (ra, rb)]
    return out


def run(out: Path, plan=PLAN) -> dict:
    done = ResumeLog(out, FILE, lambda r: (r["case"], r["m"], r["seed"]))
    load0 = [round(x, 2) for x in os.getloadavg()]
    with threadpool_limits(limits=1):
        for case, N, m, max_iter, seeds in plan:
            for seed in seeds:
                if (case, m, seed) in done:
                    continue
                X, y = data(case, N, seed)
                rows = 10 * m
                full = fit(X, y, m, seed, max_iter, None)
                sub = fit(X, y, m, seed, max_iter, rows)
                rec = {"case": case, "N": int(X.shape[0]), "D": int(X.shape[1]), "m": m, "seed": seed}
                rec |= {"normaliser_rows": rows, "max_iter": max_iter, "full": full, "sub": sub}
                rec["compare"] = compare(full, sub, case == "weston_linear")
                done.add(rec)
                c = rec["compare"]
                print(f"{case} m={m} seed={seed}: identical={c['identical']} rho={c['spearman']:.3f} "
                      f"cpu {full['cpu_s']:.0f}/{sub['cpu_s']:.0f} s", flush=True)  # fmt: skip
    doc = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "blas_threads": 1,
        "loadavg_at_start": load0,
        "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],
        "records": done.records(),
    }
    (out / FILE).write_text(json.dumps(doc, indent=1) + "\n")
    done.close()
    return doc


def render(out: Path = RESULTS_DIR) -> str:
    doc = json.loads((out / FILE).read_text())
    lines = [
        "# RFF-SAS: normaliser on n = 10·m rows against all rows (issue #23)",
        "",
        "Generated by `python -m benchmarks.rff_normaliser render`; method in the docstring of "
        f"`benchmarks/rff_normaliser.py`. Run {doc['date']}, one BLAS thread, load average "
        f"{doc['loadavg_at_start']} at start, {doc['loadavg_at_end']} at end (2 cores shared with other "
        "jobs). Each row: two fits with the same random features, `normaliser_rows` = all or n.",
        "",
        "| case | N×D | m | n | seed | max_iter | identical ranking | Spearman | AO₁₀ | top-10 "
        "| max w diff | criterion all / n | relevant in top 6 all / n | iterations all / n | CPU s all / n |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in doc["records"]:
        c, f, s = r["compare"], r["full"], r["sub"]
        rel = "/".join(map(str, c["relevant_top6"])) if "relevant_top6" in c else "–"
        lines.append(
            f"| {r['case']} | {r['N']}×{r['D']} | {r['m']} | {r['normaliser_rows']} | {r['seed']} | "
            f"{r['max_iter'] or 'default'} | {'yes' if c['identical'] else 'no'} | {c['spearman']:.3f} | "
            f"{c['ao10']:.2f} | {c['top10']} | {c['w_max_rel_diff']:.1e} | {f['criterion']:.4f} / "
            f"{s['criterion']:.4f} | {rel} | {f['n_iter']}/{s['n_iter']} | "
            f"{f['cpu_s']:.0f} / {s['cpu_s']:.0f} |"
        )
    md = "\n".join(lines) + "\n"
    write_included(out, "RFF_NORMALISER.md", md)  # RESULTS.md includes it whole
    return md


def main(argv: list[str] | None = None) -> int:
    return run_render_main(__doc__, "python -m benchmarks.rff_normaliser", run, render, argv)


if __name__ == "__main__":
    sys.exit(main())
