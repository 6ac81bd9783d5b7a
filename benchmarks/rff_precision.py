r"""Random-feature SAS in float32 against float64: does the block precision change the ranking? (issue #23)

``python -m benchmarks.rff_precision {run,render}`` writes ``benchmarks/results/``:

``rff_precision.json`` (``run``)
    For every case and seed of the agreement study (:data:`benchmarks.rff_agreement.CASES`, seeds
    :data:`~benchmarks.rff_agreement.SEEDS`, the same z-scored data) and every m in :data:`M_VALUES`:
    two RFF-SAS fits (``approximation="rff"``, ``n_components`` = m, ``random_state`` = seed, other
    parameters default) that differ only in the precision of the row blocks
    (:attr:`fsbench.algorithms.alignment.SAS._rff_dtype`: float32, the default, or float64). Both draw
    the same random features (Ω and b are drawn in float64 and then cast). Recorded per pair: whether
    the two rankings are identical, how many positions differ, their Spearman correlation and top-10
    overlap, the largest difference of the final scale factors relative to the largest float64 factor,
    the two final criteria, iterations and CPU time.
``RFF_PRECISION.md`` (``render``)
    The table, included in ``RESULTS.md`` by ``benchmarks.report``.

What is measured is the effect of float32 through the whole ascent: a rounding difference early on
can change an Armijo acceptance and so the path, which a per-pass comparison would not show.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks.rff_agreement import CASES, RESULTS_DIR, SEEDS, agreement, case_data
from fsbench.algorithms.alignment import SAS

#: Numbers of random features compared (the default, 2000, is the costlier case; both by default).
M_VALUES = (500, 2000)
FILE = "rff_precision.json"


def fit(X: np.ndarray, y: np.ndarray, m: int, seed: int, dtype: type) -> tuple[SAS, float]:
    """One RFF-SAS fit with row blocks in ``dtype``; returns the estimator and its CPU seconds."""
    est = SAS(kernel="rbf", approximation="rff", n_components=m, random_state=seed)
    est._rff_dtype = dtype  # the class default is float32; an instance attribute overrides it
    c0 = time.process_time()
    est.fit(X, y)
    return est, time.process_time() - c0


def compare(a: SAS, b: SAS) -> dict:
    """How far two fits (``a`` float32, ``b`` float64) differ: rankings, scale factors, criteria."""
    rho, top = agreement(a.ranking_, b.ranking_)
    wa, wb = np.asarray(a.scale_factors_, float), np.asarray(b.scale_factors_, float)
    scale = float(np.max(np.abs(wb))) or 1.0
    return {
        "same_ranking": bool(np.array_equal(a.ranking_, b.ranking_)),
        "n_rank_differences": int(np.sum(a.ranking_ != b.ranking_)),
        "spearman": rho,
        "top10": top,
        "w_max_rel_diff": float(np.max(np.abs(wa - wb)) / scale),
        "criterion_f32": float(a.criterion_),
        "criterion_f64": float(b.criterion_),
        "n_iter_f32": int(a.n_iter_),
        "n_iter_f64": int(b.n_iter_),
    }


def run(out: Path, cases=CASES, seeds=SEEDS, m_values=M_VALUES) -> dict:
    """Run (or resume, from a ``.partial`` JSONL file) every (case, seed, m) pair of fits."""
    partial = out / (FILE + ".partial")
    done = {}
    if partial.exists():
        for line in partial.read_text().splitlines():
            r = json.loads(line)
            done[(r["case"], r["seed"], r["m"])] = r
    load0 = [round(x, 2) for x in os.getloadavg()]
    for case in cases:
        for seed in seeds:
            todo = [m for m in m_values if (case, seed, m) not in done]
            if not todo:
                continue
            X, y, _ = case_data(case, seed)
            for m in todo:
                a, cpu32 = fit(X, y, m, seed, np.float32)
                b, cpu64 = fit(X, y, m, seed, np.float64)
                rec = {"case": case, "seed": seed, "m": m, "N": int(X.shape[0]), "D": int(X.shape[1])}
                rec |= compare(a, b) | {"cpu_s_f32": cpu32, "cpu_s_f64": cpu64}
                done[(case, seed, m)] = rec
                with partial.open("a") as fh:
                    fh.write(json.dumps(rec) + "\n")
                print(
                    f"{case} seed {seed} m={m}: same ranking {rec['same_ranking']}, "
                    f"w diff {rec['w_max_rel_diff']:.1e}, {cpu32:.1f} s / {cpu64:.1f} s",
                    flush=True,
                )
    doc = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "loadavg_at_start": load0,
        "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],
        "blas_threads": 1,
        "records": [done[k] for k in sorted(done)],
    }
    (out / FILE).write_text(json.dumps(doc, indent=1) + "\n")
    partial.unlink(missing_ok=True)
    return doc


def render(out: Path) -> str:
    """``RFF_PRECISION.md`` from ``rff_precision.json`` (empty string if it does not exist)."""
    path = out / FILE
    if not path.exists():
        return ""
    doc = json.loads(path.read_text())
    recs = doc["records"]
    lines = [
        "# Random-feature SAS: float32 against float64 row blocks (issue #23)",
        "",
        "Generated by `python -m benchmarks.rff_precision render`; method in the docstring of "
        f"`benchmarks/rff_precision.py`. Run {doc['date']}, one BLAS thread, load average "
        f"{doc['loadavg_at_start']} at start, {doc['loadavg_at_end']} at end (2 cores shared with other "
        "jobs). "
        "Per (case, m): over the seeds, how many of the float32 fits give exactly the float64 ranking, "
        "the worst Spearman and top-10 overlap between the two, the largest difference of the final scale "
        "factors (relative to the largest float64 factor), the largest relative difference of the final "
        "criteria, and the median CPU time of one fit in each precision.",
        "",
        "| case | N×D | m | identical rankings | min Spearman | min top-10 | max w diff | max criterion diff "
        "| iterations f32 / f64 | CPU s f32 / f64 |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    keys = sorted({(r["case"], r["m"]) for r in recs}, key=lambda k: (CASES.index(k[0]), k[1]))
    for case, m in keys:
        rs = [r for r in recs if r["case"] == case and r["m"] == m]
        crit = max(abs(r["criterion_f32"] - r["criterion_f64"]) / abs(r["criterion_f64"]) for r in rs)
        its = "; ".join(f"{r['n_iter_f32']}/{r['n_iter_f64']}" for r in rs)
        same = sum(r["same_ranking"] for r in rs)
        lines.append(
            f"| {case} | {rs[0]['N']}×{rs[0]['D']} | {m} | {same} of {len(rs)} | "
            f"{min(r['spearman'] for r in rs):.3f} | {min(r['top10'] for r in rs)} | "
            f"{max(r['w_max_rel_diff'] for r in rs):.1e} | {crit:.1e} | {its} | "
            f"{np.median([r['cpu_s_f32'] for r in rs]):.1f} / {np.median([r['cpu_s_f64'] for r in rs]):.1f} |"
        )
    n_same = sum(r["same_ranking"] for r in recs)
    lines += ["", f"Identical rankings in {n_same} of {len(recs)} pairs of fits."]
    text = "\n".join(lines) + "\n"
    (out / "RFF_PRECISION.md").write_text(text)
    return text


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.rff_precision", description=__doc__.split("\n")[0])
    p.add_argument("what", choices=["run", "render"])
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--m", default=",".join(map(str, M_VALUES)), help="comma-separated numbers of features")
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.what == "run":
        with threadpool_limits(limits=1):
            run(
                args.out,
                cases=tuple(c for c in args.cases.split(",") if c),
                m_values=tuple(int(m) for m in args.m.split(",") if m),
            )
    print(render(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
