r"""A default number of random features for RFF-SAS, by a rule fixed before its study (issue #23).

``python -m benchmarks.rff_default_m {run,render}`` writes ``benchmarks/results/``:

``rff_default_m.json`` (``run``)
    For every case and seed below: two disjoint samples A and B of the case's rows, each z-scored on
    itself (as the protocol does on a training split); exact SAS (``SAS(kernel="rbf")``, defaults)
    fitted on A and on B, and RFF-SAS (``approximation="rff"``, ``n_components`` = m,
    ``random_state`` = seed, other parameters default, float32 blocks) fitted on A for every m of
    :data:`~benchmarks.rff_agreement.M_GRID`. Recorded per fit: the ranking, iterations, convergence,
    CPU time.
``RFF_DEFAULT_M.md`` (``render``)
    The tables, included in ``RESULTS.md`` by ``benchmarks.report``.

Why a second study. The first one (``benchmarks/rff_agreement.py``, ``RFF.md``) asked for a median
Spearman ≥ 0.9 over *all* D features. On the toys 196 of 202 (50 of 52) features are noise whose
order carries nothing, and exact SAS itself moves on real data when its free width rule moves; no m
met that rule, and the default became the largest m of the grid, which costs an hour at N = 10⁶. The
rule below replaces a fixed tolerance by a yardstick that costs nothing to justify: **the sampling
error of exact SAS itself.** An approximation whose ranking is as close to exact SAS on the same rows
as exact SAS is to itself on an independent sample of the same size changes nothing a user could
detect from data.

**Agreement measure.** Average overlap of the top 10 (the top of the ranking is what selection at
small S uses):

.. math:: \mathrm{AO}_{10}(a, b) = \frac1{10}\sum_{k=1}^{10}\frac{|T_k(a)\cap T_k(b)|}{k},

with :math:`T_k` the k best-ranked features; 1 = the same top 10 in the same order.

**Samples.** Weston toys: A and B are two independent draws of 2000 rows (seeds s and s + 1000).
Letter: 10,000 of the 16,000 training rows drawn without replacement, split into two sets of
5000. Spambase and Satimage: a random half and the other half of all rows. Seeds 10, 11, 12 (not
those of the first study, whose results had been read when this rule was written).

**Rule (fixed before the run).** For each (case, seed) let
:math:`\delta_m = \mathrm{AO}_{10}(\mathrm{RFF}_A(m), \mathrm{SAS}_A) -
\mathrm{AO}_{10}(\mathrm{SAS}_B, \mathrm{SAS}_A)`. The default ``n_components`` is the smallest m of
the grid whose **median δ over all (case, seed) pairs is ≥ 0**. If no m qualifies, there is no
default: ``approximation="rff"`` then requires ``n_components`` from the user (the issue's "keep the
user's choice explicit"). :func:`choose_m` applies the rule to the JSON file.
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
from benchmarks.rff_agreement import CASES, M_GRID, RESULTS_DIR, _zscore, toy_data
from fsbench.algorithms.alignment import SAS
from fsbench.data import open_dataset

SEEDS = (10, 11, 12)
TOP = 10
FILE = "rff_default_m.json"
#: Rows per sample of Letter (two disjoint samples of the training file).
LETTER_ROWS = 5000


def average_overlap(rank_a: np.ndarray, rank_b: np.ndarray, top: int = TOP) -> float:
    """AO of the module docstring: mean over k = 1..top of |T_k(a) ∩ T_k(b)| / k (rankings 1 = best)."""
    order_a, order_b = np.argsort(rank_a, kind="stable"), np.argsort(rank_b, kind="stable")
    top = min(top, order_a.size)
    return float(np.mean([len(set(order_a[:k]) & set(order_b[:k])) / k for k in range(1, top + 1)]))


def samples(case: str, seed: int) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """The two disjoint samples ``(X_A, y_A), (X_B, y_B)`` of a case, each z-scored on itself."""
    if case in ("weston_linear", "weston_nonlinear"):
        return toy_data(case, 2000, None, seed), toy_data(case, 2000, None, seed + 1000)
    d = open_dataset(case)
    X, y = np.array(d.X, dtype=float), np.asarray(d.y)
    rng = np.random.default_rng(seed)
    if case == "letter":
        idx = rng.choice(X.shape[0], 2 * LETTER_ROWS, replace=False)
        a, b = idx[:LETTER_ROWS], idx[LETTER_ROWS:]
    else:
        idx = rng.permutation(X.shape[0])
        a, b = idx[: X.shape[0] // 2], idx[X.shape[0] // 2 :]
    a, b = np.sort(a), np.sort(b)
    return (_zscore(X[a]), y[a]), (_zscore(X[b]), y[b])


def _fit(est: SAS, X: np.ndarray, y: np.ndarray) -> dict:
    c0 = time.process_time()
    est.fit(X, y)
    return {
        "ranking": est.ranking_.tolist(),
        "n_iter": int(est.n_iter_),
        "converged": bool(est.converged_),
        "cpu_s": time.process_time() - c0,
    }


def run(out: Path, cases=CASES, seeds=SEEDS, m_grid=M_GRID) -> dict:
    """Run (or resume) the study; every finished fit is appended to a ``.partial`` JSONL file."""
    done = ResumeLog(out, FILE, lambda r: (r["case"], r["seed"], r["fit"]))
    load0 = [round(x, 2) for x in os.getloadavg()]
    with threadpool_limits(limits=1):
        for case in cases:
            for seed in seeds:
                keys = ["exact_A", "exact_B", *(f"rff_{m}" for m in m_grid)]
                if all((case, seed, k) in done for k in keys):
                    continue
                (XA, yA), (XB, yB) = samples(case, seed)
                for k in keys:
                    if (case, seed, k) in done:
                        continue
                    if k.startswith("exact"):
                        X, y = (XA, yA) if k == "exact_A" else (XB, yB)
                        rec = _fit(SAS(kernel="rbf"), X, y)
                    else:
                        m = int(k.split("_")[1])
                        est = SAS(kernel="rbf", approximation="rff", n_components=m, random_state=seed)
                        X, y = XA, yA
                        rec = _fit(est, X, y)
                    rec.update(case=case, seed=seed, fit=k, N=int(X.shape[0]), D=int(X.shape[1]))
                    done.add(rec)
                    print(f"{case} seed {seed} {k}: {rec['n_iter']} it, {rec['cpu_s']:.0f} s", flush=True)
    doc = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "rule": "smallest m with median over (case, seed) of AO10(RFF_A(m), SAS_A) - AO10(SAS_B, SAS_A) >= 0",
        "m_grid": list(m_grid),
        "seeds": list(seeds),
        "cases": list(cases),
        "blas_threads": 1,
        "loadavg_at_start": load0,
        "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],
        "records": done.records(),
    }
    doc["chosen_m"] = choose_m(doc)
    (out / FILE).write_text(json.dumps(doc, indent=1) + "\n")
    done.close()
    return doc


def deltas(doc: dict) -> dict[int, list[dict]]:
    """Per m: for every (case, seed) with all fits, AO of RFF vs exact, AO of exact B vs A, and δ."""
    fits = {(r["case"], r["seed"], r["fit"]): r for r in doc["records"]}
    out: dict[int, list[dict]] = {}
    for m in doc["m_grid"]:
        rows = []
        for case in doc["cases"]:
            for seed in doc["seeds"]:
                a, b, r = (fits.get((case, seed, k)) for k in ("exact_A", "exact_B", f"rff_{m}"))
                if a is None or b is None or r is None:
                    continue
                ao_rff = average_overlap(np.asarray(r["ranking"]), np.asarray(a["ranking"]))
                ao_ref = average_overlap(np.asarray(b["ranking"]), np.asarray(a["ranking"]))
                rows.append(
                    {"case": case, "seed": seed, "ao_rff": ao_rff, "ao_ref": ao_ref, "delta": ao_rff - ao_ref}
                )
        out[m] = rows
    return out


def choose_m(doc: dict) -> int | None:
    """The rule of the module docstring: the smallest m with median δ ≥ 0, else None (no default)."""
    for m, rows in deltas(doc).items():
        if rows and float(np.median([r["delta"] for r in rows])) >= 0:
            return int(m)
    return None


def render(out: Path = RESULTS_DIR) -> str:
    """``RFF_DEFAULT_M.md`` from ``rff_default_m.json``."""
    doc = json.loads((out / FILE).read_text())
    per_m = deltas(doc)
    chosen = doc["chosen_m"]
    fits = {(r["case"], r["seed"], r["fit"]): r for r in doc["records"]}
    lines = [
        "# Random-feature SAS: the default number of features (issue #23)",
        "",
        "Generated by `python -m benchmarks.rff_default_m render`; rule and method in the docstring of "
        "`benchmarks/rff_default_m.py` (committed before the run). "
        f"Run {doc['date']}, one BLAS thread, load average {doc['loadavg_at_start']} at start, "
        f"{doc['loadavg_at_end']} at end (2 cores shared with other jobs). Seeds {doc['seeds']}.",
        "",
        "Rule: the smallest m whose median over all (case, seed) pairs of δ = AO₁₀(RFF-SAS on A, exact SAS "
        "on A) − AO₁₀(exact SAS on B, exact SAS on A) is ≥ 0, A and B two disjoint samples of the same "
        "size. **"
        + (
            f"Chosen m = {chosen}."
            if chosen is not None
            else "No m qualifies: no default, n_components required."
        )
        + "**",
        "",
        "| m | pairs | median AO₁₀ RFF vs exact | median AO₁₀ exact B vs A | median δ | min δ "
        "| cases with median δ ≥ 0 | median CPU s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for m, rows in per_m.items():
        if not rows:
            continue
        d = np.array([r["delta"] for r in rows])
        per_case = {c: np.median([r["delta"] for r in rows if r["case"] == c]) for c in doc["cases"]}
        cpu = np.median([fits[(r["case"], r["seed"], f"rff_{m}")]["cpu_s"] for r in rows])
        lines.append(
            f"| {m} | {len(rows)} | {np.median([r['ao_rff'] for r in rows]):.3f} | "
            f"{np.median([r['ao_ref'] for r in rows]):.3f} | {np.median(d):+.3f} | {d.min():+.3f} | "
            f"{sum(v >= 0 for v in per_case.values())} of {len(per_case)} | {cpu:.1f} |"
        )
    lines += [
        "",
        "Per case: median over seeds of AO₁₀(RFF-SAS on A, exact SAS on A); first column "
        "AO₁₀(exact SAS on B, exact SAS on A), the yardstick.",
        "",
        "| case | N×D per sample | exact B vs A | " + " | ".join(f"m={m}" for m in per_m) + " |",
        "|---|---|---|" + "---|" * len(per_m) + "",
    ]
    for case in doc["cases"]:
        any_rows = [r for r in per_m[doc["m_grid"][0]] if r["case"] == case]
        if not any_rows:
            continue
        a = fits[(case, any_rows[0]["seed"], "exact_A")]
        ref = np.median([r["ao_ref"] for r in any_rows])
        cells = [f"{np.median([r['ao_rff'] for r in per_m[m] if r['case'] == case]):.2f}" for m in per_m]
        lines.append(f"| {case} | {a['N']}×{a['D']} | {ref:.2f} | " + " | ".join(cells) + " |")
    md = "\n".join(lines) + "\n"
    write_included(out, "RFF_DEFAULT_M.md", md)  # RESULTS.md includes it whole
    return md


def main(argv: list[str] | None = None) -> int:
    return run_render_main(__doc__, "python -m benchmarks.rff_default_m", run, render, argv)


if __name__ == "__main__":
    sys.exit(main())
