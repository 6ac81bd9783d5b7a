"""Random-Fourier-feature SAS against exact SAS (issue #15): ranking agreement, large-N fit, scaling.

``python -m benchmarks.rff_agreement {study,large,scaling,render}`` writes ``benchmarks/results/``
(the real data sets are read from the mirror: set ``FSBENCH_DATA_DIR``):

``rff_agreement.json`` (``study``)
    For every case and seed: exact SAS (``SAS(kernel="rbf")``, defaults) and RFF-SAS
    (``approximation="rff"``, ``n_components`` = m, ``random_state`` = seed, other parameters equal)
    fitted on the same z-scored data, for m in :data:`M_GRID`. Recorded per fit: the Spearman
    correlation of the two rankings (``ranking_``, all D features), the overlap of their top-10
    features, iterations, convergence, wall/CPU time, and the error of the approximate alignment at
    the RFF optimum against the exact alignment there (|A_rff(w) − A(w)|).
    Cases (N = 2000–5000): ``spambase`` (4601×57, 2 classes; the data are fixed, seeds change the
    features only), ``letter`` (5000 rows drawn without replacement from the 16000 training rows per
    seed, 16 features, 26 classes), ``satimage`` (4435×36, 6 classes; fixed), the Weston linear
    (2000×202) and nonlinear (2000×52) toys (a new draw per seed). Seeds 0, 1, 2.
``rff_large.json`` (``large``)
    One RFF-SAS fit to convergence (default ``max_iter``/``tol``, default m) at N = 10⁶, D = 50 on the
    z-scored Weston linear toy (``n_features=50``; 6 relevant features), in a fresh subprocess:
    wall and CPU time, peak RSS (``ru_maxrss`` of the child, data generation included), iterations,
    and the load average before and after (the cores are shared). Targets: < 2 GB, < 10 min.
``rff_scaling.json`` (``scaling``)
    :func:`rff_iteration` at N = 1000 … 50000, D = 50.
``RFF.md`` (``render``)
    The tables of the three files.

**Rule for the default number of features, fixed before the study was run.** The default
``n_components`` of :class:`fsbench.algorithms.alignment.SAS` is the smallest m of :data:`M_GRID`
whose **median Spearman correlation ≥ 0.9 and median top-10 overlap ≥ 8**, the medians taken over
all (case, seed) pairs of the study; if no m qualifies, the largest m of the grid. (For ``letter``,
D = 16, a top-10 overlap of 6.25 is expected by chance; it enters the pooled medians all the same.)
:func:`choose_m` applies the rule to the JSON file. (Superseded: no m qualified, and the rule of
:mod:`benchmarks.rff_default_m`, written afterwards, found none either, so SAS has no default
``n_components`` now; this study is kept as it was run.)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr
from threadpoolctl import threadpool_limits

from benchmarks.timing import measure
from fsbench.algorithms.alignment import SAS, alignment
from fsbench.algorithms.targets import class_target
from fsbench.data import open_dataset
from fsbench.data.synthetic import weston_linear, weston_nonlinear

RESULTS_DIR = Path(__file__).resolve().parent / "results"
M_GRID = (50, 100, 200, 500, 1000, 2000)
SEEDS = (0, 1, 2)
CASES = ("spambase", "letter", "satimage", "weston_linear", "weston_nonlinear")
#: Rule thresholds (see the module docstring).
RULE_SPEARMAN = 0.9
RULE_TOP10 = 8
TOP = 10
LARGE_N, LARGE_D = 1_000_000, 50
SCALING_N = (1000, 2000, 5000, 10000, 20000, 50000)
#: SAS's default ``n_components`` while this study was the rule (there is none since
#: ``benchmarks/rff_default_m.py``); the scaling and large runs use it when no m is given.
STUDY_DEFAULT_M = 2000
FILES = {"study": "rff_agreement.json", "large": "rff_large.json", "scaling": "rff_scaling.json"}


def _zscore(X: np.ndarray) -> np.ndarray:
    """Column z-scores in place (constant columns centred only), as the protocol's ``standardize``."""
    X = np.asarray(X, dtype=np.float64)
    X -= X.mean(axis=0)
    sd = X.std(axis=0)
    X /= np.where(sd > 0, sd, 1.0)
    return X


def toy_data(generator: str, N: int, D: int | None, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """z-scored Weston toy (``weston_linear`` / ``weston_nonlinear``) with N rows and D features."""
    draw = {"weston_linear": weston_linear, "weston_nonlinear": weston_nonlinear}[generator]
    rng = np.random.default_rng(seed)
    kw = {} if D is None else {"n_features": D}
    while True:
        X, y = draw(N, rng, **kw)
        if np.unique(y).size == 2:
            return _zscore(X), y


def case_data(case: str, seed: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """(X z-scored, y, whether the data depend on the seed) of one study case."""
    if case in ("weston_linear", "weston_nonlinear"):
        return (*toy_data(case, 2000, None, seed), True)
    d = open_dataset(case)
    X, y = np.array(d.X, dtype=float), np.asarray(d.y)
    if case == "letter":
        idx = np.sort(np.random.default_rng(seed).choice(X.shape[0], 5000, replace=False))
        return _zscore(X[idx]), y[idx], True
    return _zscore(X), y, False


def agreement(rank_a: np.ndarray, rank_b: np.ndarray, top: int = TOP) -> tuple[float, int]:
    """Spearman correlation of two complete rankings (1 = best) and the overlap of their top ``top``."""
    rho = float(spearmanr(rank_a, rank_b).statistic)
    top_a = set(np.flatnonzero(rank_a <= top))
    top_b = set(np.flatnonzero(rank_b <= top))
    return rho, len(top_a & top_b)


def _timed_fit(est, X, y) -> tuple[object, float, float]:
    c0, w0 = time.process_time(), time.perf_counter()
    est.fit(X, y)
    return est, time.perf_counter() - w0, time.process_time() - c0


def run_study(out: Path, cases=CASES, seeds=SEEDS, m_grid=M_GRID) -> dict:
    """Run (or resume) the agreement study; every finished fit is appended to a ``.partial`` JSONL file."""
    partial = out / (FILES["study"] + ".partial")
    done: dict[tuple, dict] = {}
    if partial.exists():
        for line in partial.read_text().splitlines():
            r = json.loads(line)
            done[(r["case"], r["seed"], r["m"])] = r
    load_start = list(os.getloadavg())
    for case in cases:
        exact_fixed = None
        for seed in seeds:
            todo = [m for m in (None, *m_grid) if (case, seed, m) not in done]
            if not todo:
                continue
            X, y, seeded = case_data(case, seed)
            key0 = (case, seed, None)
            if key0 not in done:
                if not seeded and exact_fixed is not None:
                    rec = dict(exact_fixed, seed=seed)
                else:
                    est, wall, cpu = _timed_fit(SAS(kernel="rbf"), X, y)
                    rec = {
                        "case": case,
                        "seed": seed,
                        "m": None,
                        "N": int(X.shape[0]),
                        "D": int(X.shape[1]),
                        "n_classes": int(np.unique(y).size),
                        "ranking": est.ranking_.tolist(),
                        "criterion": float(est.criterion_),
                        "n_iter": int(est.n_iter_),
                        "converged": bool(est.converged_),
                        "wall_s": wall,
                        "cpu_s": cpu,
                        "gamma": float(est.kernel_.gamma),
                    }
                done[key0] = rec
                with partial.open("a") as fh:
                    fh.write(json.dumps(rec) + "\n")
                print(f"{case} seed {seed} exact: {rec['n_iter']} it, {rec['wall_s']:.0f} s", flush=True)
            exact = done[key0]
            if not seeded:
                exact_fixed = exact
            ref_rank = np.asarray(exact["ranking"])
            T = None
            for m in m_grid:
                if (case, seed, m) in done:
                    continue
                est = SAS(kernel="rbf", approximation="rff", n_components=m, random_state=seed)
                est, wall, cpu = _timed_fit(est, X, y)
                rho, top = agreement(ref_rank, est.ranking_)
                if T is None:
                    T = class_target(np.unique(y, return_inverse=True)[1])
                # Error of the approximate alignment at the point the RFF ascent stopped.
                a_exact, _ = alignment(est.kernel_.gram(X, w=est.scale_factors_), T)
                rec = {
                    "case": case,
                    "seed": seed,
                    "m": m,
                    "ranking": est.ranking_.tolist(),
                    "spearman": rho,
                    "top10": top,
                    "criterion": float(est.criterion_),
                    "exact_alignment_at_w": float(a_exact),
                    "n_iter": int(est.n_iter_),
                    "converged": bool(est.converged_),
                    "wall_s": wall,
                    "cpu_s": cpu,
                }
                done[(case, seed, m)] = rec
                with partial.open("a") as fh:
                    fh.write(json.dumps(rec) + "\n")
                print(f"{case} seed {seed} m={m}: rho={rho:.3f} top10={top} {wall:.0f} s", flush=True)
    doc = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "rule": (
            f"smallest m with median Spearman >= {RULE_SPEARMAN} and median top-{TOP} overlap >= "
            f"{RULE_TOP10} over all (case, seed) pairs; else the largest m"
        ),
        "m_grid": list(m_grid),
        "seeds": list(seeds),
        "loadavg_at_start": [round(x, 2) for x in load_start],
        "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],
        "blas_threads": 1,
        "records": [done[k] for k in sorted(done, key=lambda k: (k[0], k[1], -1 if k[2] is None else k[2]))],
    }
    doc["chosen_m"] = choose_m(doc)
    (out / FILES["study"]).write_text(json.dumps(doc, indent=1) + "\n")
    return doc


def summary(doc: dict) -> list[dict]:
    """Per m: medians (and minima) of Spearman and top-10 overlap over all (case, seed) pairs."""
    rows = []
    for m in doc["m_grid"]:
        recs = [r for r in doc["records"] if r["m"] == m]
        if not recs:
            continue
        rho = np.array([r["spearman"] for r in recs])
        top = np.array([r["top10"] for r in recs])
        err = np.array([abs(r["criterion"] - r["exact_alignment_at_w"]) for r in recs])
        rows.append(
            {
                "m": m,
                "n": len(recs),
                "median_spearman": float(np.median(rho)),
                "min_spearman": float(rho.min()),
                "median_top10": float(np.median(top)),
                "min_top10": int(top.min()),
                "median_abs_alignment_error": float(np.median(err)),
                "median_wall_s": float(np.median([r["wall_s"] for r in recs])),
            }
        )
    return rows


def choose_m(doc: dict) -> int:
    """The rule of the module docstring applied to a study document."""
    rows = summary(doc)
    for r in rows:
        if r["median_spearman"] >= RULE_SPEARMAN and r["median_top10"] >= RULE_TOP10:
            return int(r["m"])
    return int(max(doc["m_grid"]))


# --------------------------------------------------------------------------------------------- speed
def rff_iteration(N: int, D: int, seed: int = 0, n_components: int | None = None, repeats: int = 3) -> float:
    """Median CPU seconds of one accepted RFF-SAS ascent step at (N, D), one BLAS thread.

    One step = the value pass at a point plus the gradient pass there (what an accepted Armijo step
    costs; a rejected trial costs a value pass only). Data: z-scored Weston linear toy with D features
    (as ``benchmarks.run``); ``n_components`` defaults to :data:`STUDY_DEFAULT_M`. Timing protocol of
    :mod:`benchmarks.timing` (one warm-up call, then ``repeats`` runs).
    """
    X, y = toy_data("weston_linear", N, D, seed)
    m = STUDY_DEFAULT_M if n_components is None else n_components
    sel = SAS(kernel="rbf", approximation="rff", n_components=m, random_state=seed)
    evaluate = sel._objective(X, np.unique(y, return_inverse=True)[1])
    w = np.random.default_rng(seed + 1).uniform(0.5, 1.5, D)

    def step():
        f, gradient = evaluate(w)
        return gradient()

    with threadpool_limits(limits=1):
        t = measure({"step": step}, repeats=repeats, budget_s=60.0)
    return t["step"].median


def run_scaling(out: Path, sizes=SCALING_N, D: int = LARGE_D, m_values=(500, 2000)) -> dict:
    load0 = [round(x, 2) for x in os.getloadavg()]
    rows = []
    for m in m_values:
        for N in sizes:
            s = rff_iteration(N, D, n_components=m)
            rows.append({"N": N, "D": D, "m": m, "cpu_s_per_step": s})
            print(f"m={m} N={N}: {s * 1e3:.1f} ms CPU per accepted step", flush=True)
    doc = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "m_values": list(m_values),
        "method": "rff_iteration(): median CPU of value + gradient pass, one BLAS thread, 3 runs",
        "loadavg_at_start": load0,
        "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],
        "rows": rows,
    }
    (out / FILES["scaling"]).write_text(json.dumps(doc, indent=1) + "\n")
    return doc


def large_child(n_components: int | None = None, max_iter: int | None = None) -> None:
    """Body of the fresh subprocess of ``large``: generate, fit, print one JSON line."""
    t0 = time.perf_counter()
    X, y = toy_data("weston_linear", LARGE_N, LARGE_D, 0)
    t_data = time.perf_counter() - t0
    rss_data = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    params = {"n_components": STUDY_DEFAULT_M if n_components is None else n_components}
    if max_iter is not None:
        params["max_iter"] = max_iter
    est = SAS(kernel="rbf", approximation="rff", random_state=0, **params)
    c0, w0 = time.process_time(), time.perf_counter()
    est.fit(X, y)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    top6 = sorted(int(i) for i in np.argsort(est.ranking_)[:6])
    print(
        json.dumps(
            {
                "N": LARGE_N,
                "D": LARGE_D,
                "n_components": est.n_components,
                "max_iter": est.max_iter,
                "default_n_components": STUDY_DEFAULT_M,
                "data_s": t_data,
                "fit_wall_s": wall,
                "fit_cpu_s": cpu,
                "n_iter": int(est.n_iter_),
                "converged": bool(est.converged_),
                "criterion": float(est.criterion_),
                "top6_features": top6,
                "relevant_features_in_top6": sum(i < 6 for i in top6),
                "peak_rss_after_data_mb": rss_data / 1024,
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
    )


def large_file(n_components: int | None, max_iter: int | None) -> str:
    m = "default" if n_components is None else n_components
    return f"rff_large_m{m}" + ("" if max_iter is None else f"_it{max_iter}") + ".json"


def run_large(
    out: Path, threads: int = 1, n_components: int | None = None, max_iter: int | None = None
) -> dict:
    load0 = [round(x, 2) for x in os.getloadavg()]
    t0 = time.perf_counter()
    extra = [] if n_components is None else ["--n-components", str(n_components)]
    extra += [] if max_iter is None else ["--max-iter", str(max_iter)]
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.rff_agreement", "large-child", "--threads", str(threads), *extra],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    doc = json.loads(proc.stdout.strip().splitlines()[-1])
    doc.update(
        {
            "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "process_wall_s": time.perf_counter() - t0,
            "loadavg_at_start": load0,
            "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],
            "cpu_count": os.cpu_count(),
            "blas_threads": threads,
            "targets": {"peak_rss_mb": 2048, "fit_wall_s": 600},
        }
    )
    (out / large_file(n_components, max_iter)).write_text(json.dumps(doc, indent=1) + "\n")
    return doc


# --------------------------------------------------------------------------------------------- post hoc
#: Relevant features of the toys (the generators put them first; z-scoring keeps the column order).
RELEVANT = {"weston_linear": 6, "weston_nonlinear": 2}
#: Start width of the exact-vs-exact reference (γ = 0.9 × the median rule).
STABILITY_GAMMA = "0.9*median"


def run_stability(out: Path, cases=CASES, seeds=SEEDS) -> dict:
    """Post hoc reference: exact SAS started from γ = 0.9 × median against exact SAS at the default γ.

    Added after the study had been run and read, to tell how far the exact rankings themselves move
    under a small change of the starting point (the width only sets the start: it is absorbed by w).
    It changes nothing in the rule or the chosen m.
    """
    study = json.loads((out / FILES["study"]).read_text())
    exact = {(r["case"], r["seed"]): r for r in study["records"] if r["m"] is None}
    load0 = [round(x, 2) for x in os.getloadavg()]
    recs, fixed = [], {}
    for case in cases:
        for seed in seeds:
            X, y, seeded = case_data(case, seed)
            if not seeded and case in fixed:
                recs.append(dict(fixed[case], seed=seed))
                continue
            est, wall, _ = _timed_fit(SAS(kernel="rbf", gamma=STABILITY_GAMMA), X, y)
            rho, top = agreement(np.asarray(exact[(case, seed)]["ranking"]), est.ranking_)
            rec = {
                "case": case,
                "seed": seed,
                "spearman": rho,
                "top10": top,
                "ranking": est.ranking_.tolist(),
            }
            recs.append(rec)
            fixed[case] = rec
            print(f"{case} seed {seed}: exact vs exact(gamma={STABILITY_GAMMA}) rho={rho:.3f} top10={top}")
    doc = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "what": f"exact SAS with gamma={STABILITY_GAMMA!r} vs exact SAS (gamma='median'), same data",
        "post_hoc": True,
        "loadavg_at_start": load0,
        "records": recs,
    }
    (out / "rff_exact_stability.json").write_text(json.dumps(doc, indent=1) + "\n")
    return doc


def _relevant_found(case: str, ranking) -> int | None:
    k = RELEVANT.get(case)
    return None if k is None else int(sum(i < k for i in np.argsort(ranking)[:k]))


# --------------------------------------------------------------------------------------------- report
def render(out: Path) -> str:
    lines = ["# Random-Fourier-feature SAS (issue #15)", ""]
    lines.append(
        "Generated by `python -m benchmarks.rff_agreement render` from the JSON files next to this one; "
        "method and rule in the docstring of `benchmarks/rff_agreement.py`."
    )
    study = out / FILES["study"]
    if study.exists():
        doc = json.loads(study.read_text())
        lines += [
            "",
            "## Ranking agreement with exact SAS",
            "",
            f"Finished {doc['date']}, one BLAS thread, load average {doc['loadavg_at_start']} at start, "
            f"{doc['loadavg_at_end']} at end (2 cores shared with other jobs). "
            f"Rule fixed in advance: {doc['rule']}. **Chosen m = {doc['chosen_m']}**"
            + (
                " (no m qualified)."
                if all(
                    not (r["median_spearman"] >= RULE_SPEARMAN and r["median_top10"] >= RULE_TOP10)
                    for r in summary(doc)
                )
                else "."
            ),
            "",
            "Pooled over all (case, seed) pairs:",
            "",
            "| m | pairs | median Spearman | min Spearman | median top-10 | min top-10 "
            "| median abs(A_rff − A) at w_rff | median wall s |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in summary(doc):
            lines.append(
                f"| {r['m']} | {r['n']} | {r['median_spearman']:.3f} | {r['min_spearman']:.3f} | "
                f"{r['median_top10']:g} | {r['min_top10']} | {r['median_abs_alignment_error']:.2e} | "
                f"{r['median_wall_s']:.1f} |"
            )
        exact = {(r["case"], r["seed"]): r for r in doc["records"] if r["m"] is None}
        cases = list(dict.fromkeys(r["case"] for r in doc["records"]))

        def per_case(title, cell, head_exact):
            lines.extend(
                [
                    "",
                    title,
                    "",
                    f"| case | N×D, classes | {head_exact} | "
                    + " | ".join(f"m={m}" for m in doc["m_grid"])
                    + " |",
                    "|---|---|---|" + "---|" * len(doc["m_grid"]),
                ]
            )
            for case in cases:
                ex = [r for k, r in exact.items() if k[0] == case]
                e0 = ex[0]
                cells = []
                for m in doc["m_grid"]:
                    recs = [r for r in doc["records"] if r["case"] == case and r["m"] == m]
                    cells.append(cell(case, recs) if recs else "")
                lines.append(
                    f"| {case} | {e0['N']}×{e0['D']}, {e0['n_classes']} | {cell(case, ex, exact=True)} | "
                    + " | ".join(cells)
                    + " |"
                )

        def agree_cell(case, recs, exact=False):
            if exact:
                return "/".join(f"{r['n_iter']}{'' if r['converged'] else '*'}" for r in recs)
            return (
                f"{np.median([r['spearman'] for r in recs]):.2f} / {np.median([r['top10'] for r in recs]):g}"
            )

        per_case(
            "Per case: median over seeds of Spearman / top-10 overlap (exact column: SAS iterations).",
            agree_cell,
            "exact SAS iterations",
        )

        def shortfall_cell(case, recs, exact=False):
            if exact:
                return " / ".join(f"{r['criterion']:.3f}" for r in recs)
            short = [
                (exact_map[(case, r["seed"])]["criterion"] - r["exact_alignment_at_w"])
                / exact_map[(case, r["seed"])]["criterion"]
                for r in recs
            ]
            return f"{100 * np.median(short):.1f}%"

        exact_map = exact
        per_case(
            "Exact alignment reached: exact SAS's final alignment (per seed), and for RFF-SAS the median "
            "relative shortfall of the exact alignment at the RFF optimum, (A(w_exact) − A(w_rff)) / "
            "A(w_exact).",
            shortfall_cell,
            "A(w_exact)",
        )

        def relevant_cell(case, recs, exact=False):
            return "/".join(str(_relevant_found(case, r["ranking"])) for r in recs)

        toy = [c for c in cases if c in RELEVANT]
        if toy:
            keep = cases
            cases = toy
            per_case(
                "Toys (post hoc, added after reading the results): relevant features among the top k "
                "(k = 6 linear, 2 nonlinear), per seed.",
                relevant_cell,
                "exact",
            )
            cases = keep
        lines += [
            "",
            "`*` = stopped at max_iter = 200 without meeting the tolerance. Seeds 0–2; for spambase and "
            "satimage the data are fixed and the seeds change the random features only. On the toys most "
            "features are noise (196 of 202, 50 of 52): their order means nothing for relevance, yet exact "
            "SAS reproduces it (reference below), so the low Spearman there is a real difference between "
            "the two criteria, if an unimportant one; the rule pooled these cases with the real data and "
            "was applied as stated.",
        ]
    stab = out / "rff_exact_stability.json"
    if stab.exists():
        d = json.loads(stab.read_text())
        lines += [
            "",
            "## Reference (post hoc): how much exact SAS moves by itself",
            "",
            f"{d['what']}; run {d['date']}, load {d['loadavg_at_start']}. Median over seeds of Spearman / "
            "top-10 overlap against the exact ranking of the study:",
            "",
            "| case | Spearman / top-10 |",
            "|---|---|",
        ]
        for case in dict.fromkeys(r["case"] for r in d["records"]):
            recs = [r for r in d["records"] if r["case"] == case]
            lines.append(
                f"| {case} | {np.median([r['spearman'] for r in recs]):.2f} / "
                f"{np.median([r['top10'] for r in recs]):g} |"
            )
    for large in sorted(out.glob("rff_large_*.json")):
        d = json.loads(large.read_text())
        ok_t = d["fit_wall_s"] < d["targets"]["fit_wall_s"]
        ok_m = d["peak_rss_mb"] < d["targets"]["peak_rss_mb"]
        capped = d["max_iter"] < 200
        lines += [
            "",
            f"## One fit at N = {d['N']:,}, D = {d['D']}, m = {d['n_components']}"
            + (
                " (then the default)"
                if d["n_components"] == d["default_n_components"]
                else " (not the default)"
            )
            + (f", max_iter = {d['max_iter']}" if capped else ""),
            "",
            f"Run {d['date']} in a fresh subprocess; load average {d['loadavg_at_start']} before, "
            f"{d['loadavg_at_end']} after ({d['cpu_count']} cores, shared; {d['blas_threads']} BLAS "
            "thread(s)). z-scored Weston linear toy (6 relevant features), RFF-SAS, tol 1e-6.",
            "",
            "| fit wall | fit CPU | iterations (converged) | wall per iteration | peak RSS "
            "| relevant in top 6 |",
            "|---|---|---|---|---|---|",
            f"| {d['fit_wall_s']:.0f} s ("
            + ("capped run, not a full fit" if capped else f"{'PASS' if ok_t else 'MISS'} < 600 s")
            + f") | {d['fit_cpu_s']:.0f} s | "
            f"{d['n_iter']} ({d['converged']}) | {d['fit_wall_s'] / max(d['n_iter'], 1):.1f} s | "
            f"{d['peak_rss_mb']:.0f} MB ({'PASS' if ok_m else 'MISS'} < 2048 MB; "
            f"{d['peak_rss_after_data_mb']:.0f} MB after generating the data) | "
            f"{d['relevant_features_in_top6']}/6 |",
        ]
    if any(out.glob("rff_large_*.json")):
        lines += [
            "",
            "Notes (measured by hand on 2026-11-24, not regenerated by this script): one value pass at "
            "N = 10⁶, m = 500, w = 1 took 4.8 s CPU and one gradient pass 8.2 s (1 BLAS thread), "
            "consistent with the scaling table below (12.5 µs per row and step); a fit at N = 50 000, "
            "m = 500 made 1.9 value passes per iteration. That predicts ≈ 17 s CPU per iteration at "
            "N = 10⁶; the fit above used 45 s. The gap was not isolated (the load average was 4–5 on "
            "2 cores during the run; gathering rows in class order and float32 cos/sin at large "
            "arguments were checked and are not the cause). The capped run at m = 2000 (then the default) "
            "gives the cost of one iteration there (start value + gradient + trial steps).",
            "",
            "Issue #23: [RFF_FLOOR.md](RFF_FLOOR.md) (`python -m benchmarks.rff_floor`) times the kernels "
            "of a pass alone (the floor) and counts and times the passes of whole fits against it. A row "
            "gather per block costs 0.16 s CPU per pass at N = 10⁶ (measured 2026-11-26), so it cannot "
            "explain the gap above; a fit's value passes per iteration, which the Armijo search sets, "
            "are counted there.",
        ]
    scaling = out / FILES["scaling"]
    if scaling.exists():
        d = json.loads(scaling.read_text())
        lines += [
            "",
            "## Time per accepted ascent step (D = 50)",
            "",
            f"{d['method']}; load average {d['loadavg_at_start']} → {d['loadavg_at_end']}.",
            "",
            "| m | N | CPU ms per step | µs per row |",
            "|---|---|---|---|",
        ]
        for r in d["rows"]:
            lines.append(
                f"| {r['m']} | {r['N']} | {r['cpu_s_per_step'] * 1e3:.1f} | "
                f"{r['cpu_s_per_step'] / r['N'] * 1e6:.2f} |"
            )
    text = "\n".join(lines) + "\n"
    (out / "RFF.md").write_text(text)
    return text


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.rff_agreement", description=__doc__.split("\n")[0])
    p.add_argument("what", choices=["study", "stability", "large", "large-child", "scaling", "render"])
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--threads", type=int, default=1, help="BLAS threads of the large fit (default 1)")
    p.add_argument("--n-components", type=int, default=None, help="m of the large fit (default: SAS's)")
    p.add_argument("--max-iter", type=int, default=None, help="max_iter of the large fit (default: SAS's)")
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.what == "study":
        with threadpool_limits(limits=1):
            doc = run_study(args.out, cases=tuple(c for c in args.cases.split(",") if c))
        print(f"chosen m = {doc['chosen_m']}")
        render(args.out)  # RFF.md, so that one command runs and reports the study
    elif args.what == "large":
        print(json.dumps(run_large(args.out, args.threads, args.n_components, args.max_iter), indent=1))
    elif args.what == "large-child":
        with threadpool_limits(limits=args.threads):
            large_child(args.n_components, args.max_iter)
    elif args.what == "stability":
        with threadpool_limits(limits=1):
            run_stability(args.out)
    elif args.what == "scaling":
        run_scaling(args.out)
    else:
        print(render(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
