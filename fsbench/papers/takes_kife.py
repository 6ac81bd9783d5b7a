"""``results/<paper>/REPORT.md`` for Xu et al. 2011 (TAKES) and Liu et al. 2011 (KIFE): ours beside theirs.

The page is assembled from

* the paper comparison of :mod:`fsbench.papers.page` (the one report engine): the agreement rule and the
  counts of agreeing table cells and holding claims at the top, then every printed table cell (TAKES
  Table 2; KIFE Table II, accuracy and time) and every claim, from ``configs/<paper>/paper_values.yaml``
  (cells, where our numbers come from, and the claims in the claim DSL) and the result tables;
* the hand-written discussion ``configs/<paper>/report_notes.md`` (findings, differences explained,
  what is missing), after the summary;
* descriptive tables and figures regenerated from each run's ``results.csv`` when the report is written
  (TAKES: Table 2 at both RBF widths with E on held-out points, Figs. 2–3, the timing table; KIFE: every
  run with both readings of the iteration count, the Fig. 2 projections) — no verdicts: those are the
  engine's;
* the stability and ground-truth sections of :func:`fsbench.papers.page.analysis_section`.

Command line: ``fsbench report results/takes2011 --paper takes2011`` (or ``kife2011``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from fsbench.papers import takes_figures, takes_timing
from fsbench.papers.page import analysis_section, comparison, runs_table
from fsbench.papers.tables import mean_std, paper_cells
from fsbench.papers.tables import read_paper_values as load_paper_values
from fsbench.results.tables import md_table

#: The main RBF width rule (fsbench's default, fixed in advance); median/4 is a sensitivity setting.
TAKES_GAMMA_MAIN = "median"


# ------------------------------------------------------------------------------------------ helpers
def _run_info(d: Path) -> dict[str, Any]:
    p = d / "run.json"
    return json.loads(p.read_text()) if p.exists() else {}


def _rel(p: Path, root: Path) -> str:
    try:
        return p.relative_to(root).as_posix()
    except ValueError:
        return p.as_posix()


def _head(paper: str, title: str, results: Path, configs: Path) -> list[str]:
    """Title, the engine's summary (rule, counts, substitutions), the hand-written notes, the runs."""
    summary, text = comparison(paper, results)
    notes = configs / "report_notes.md"
    parts = [title, "", *summary]
    if notes.exists():
        head = f"## Discussion (hand-written: `configs/{paper}/report_notes.md`)"
        parts += [head, "", notes.read_text().strip(), ""]
    parts += ["## Runs", "", runs_table(results), "", text, ""]
    return parts


# ------------------------------------------------------------------------------------------ TAKES
def _takes_table2_compact(summary: pd.DataFrame, paper: pd.DataFrame, rule: str) -> str:
    s = summary[summary["gamma_rule"] == rule]
    rows = []
    for ds in dict.fromkeys(s["dataset"]):
        row = [ds]
        for learner in ("kobl", "kgs", "kpca", "kda"):
            c = s[(s["dataset"] == ds) & (s["learner"] == learner)]
            p = paper[(paper["dataset"] == ds) & (paper["method"] == learner)]
            pv = f"{float(p['value'].iloc[0]):.3f}/{int(p['dim'].iloc[0])}" if not p.empty else "–"
            if c.empty:
                row.append(f"{pv} · –")
                continue
            r = c.iloc[0]
            row.append(f"{pv} · {r.E_train_mean:.3f} / {r.E_test_mean:.3f} / {r.dim_mean:.0f}")
        rows.append(row)
    head = [
        "dataset",
        *[f"{m}: paper E/Dim · ours E train / E test / Dim" for m in ("KOBL", "KGS", "KPCA", "KDA")],
    ]
    return md_table(head, rows)


def _fig_compact(summaries: dict[str, pd.DataFrame]) -> str:
    methods = ("TAKES", "KGS+KFFS", "FSKGS", "FSKPCA", "KDA", "KNNC")
    rows = []
    first = next(iter(summaries.values()))
    for ds in dict.fromkeys(first["dataset"]):
        for rule, s in summaries.items():
            row = [ds, rule]
            for m in methods:
                c = s[(s["dataset"] == ds) & (s["method"] == m)]
                if c.empty:
                    row.append("–")
                    continue
                r = c.iloc[0]
                dim = f"{r.dim_mean:.0f}" if r.dim_min != r.dim_max else f"{r.dim_min}"
                row.append(f"{100 * r.acc_own_mean:.1f} ({dim})")
            rows.append(row)
    return md_table(["dataset", "γ", *[f"{m} acc. (dim)" for m in methods]], rows)


def takes_report(results: Path, configs: Path) -> str:
    """The Markdown of ``results/takes2011/REPORT.md``."""
    pv = load_paper_values(configs / "paper_values.yaml")
    paper = paper_cells(pv, "table2")
    parts = _head("takes2011", f"# Reproduction report — {pv['title']} (Xu et al. 2011)", results, configs)

    t2 = results / "table2_reconstruction"
    if (t2 / "results.csv").exists() and not (t2 / "summary.csv").exists():
        _render_diagnostic(t2)
    if (t2 / "summary.csv").exists():
        summ = pd.read_csv(t2 / "summary.csv")
        rules = list(dict.fromkeys(summ["gamma_rule"]))
        parts += [
            "## Table 2 in detail — reconstruction cost E(M) and Dim at both RBF widths",
            "",
            "The cells counted above are E on the training split (eq. 19 defines E(M) over the N training "
            f"points) and KOBL's Dim, at the main width (γ = {TAKES_GAMMA_MAIN}). Here, without verdicts, "
            "both widths and E on held-out points as well.",
            "",
        ]
        for rule in rules:
            parts += [
                f"**γ = {rule}**. Cells: paper E/Dim · ours mean E on the training split / on held-out "
                "points / mean Dim over the splits.",
                "",
                _takes_table2_compact(summ, paper, rule),
                "",
            ]
        parts += [
            f"![Table 2]({_rel(t2 / 'table2_E.png', results)})",
            "",
            f"Full table with standard deviations (and KDA without completion): "
            f"[`{_rel(t2 / 'table2.md', results)}`]({_rel(t2 / 'table2.md', results)}).",
            "",
        ]

    for d in sorted(results.glob("fig23_gamma_*")):
        if (d / "results.csv").exists():
            takes_figures.run(d)  # figures/ and summaries from results.csv
    figdirs = {
        d.name.replace("fig23_gamma_", ""): d
        for d in sorted(results.glob("fig23_gamma_*"))
        if (d / "figures" / "summary.csv").exists()
    }
    if figdirs:
        label = {"quarter": "median/4", "median": "median"}
        summaries = {label.get(k, k): pd.read_csv(d / "figures" / "summary.csv") for k, d in figdirs.items()}
        summaries = dict(sorted(summaries.items(), key=lambda kv: kv[0] != TAKES_GAMMA_MAIN))
        parts += [
            "## Figs. 2–3 — 1-NN accuracy vs number of selected kernel-space features",
            "",
            "The paper prints no numbers for these figures (images only), so only its claims can be checked "
            "(above, at the main width). Cells: mean 1-NN test accuracy (%) at the method's own output "
            "dimension (mean dimension in brackets) over the splits.",
            "",
            _fig_compact(summaries),
            "",
        ]
        for k, d in sorted(figdirs.items(), key=lambda kv: label.get(kv[0], kv[0]) != TAKES_GAMMA_MAIN):
            for fig in ("fig2", "fig3"):
                parts += [
                    f"![{fig} γ = {label.get(k, k)}]({_rel(d / 'figures' / f'{fig}.png', results)})",
                    "",
                ]
            link = _rel(d / "figures" / "summary.md", results)
            parts += [
                "Per-method table with std, the best point along each curve and paired t-tests: "
                f"[`{link}`]({link}).",
                "",
            ]

    tdir = results / "timing_vs_n"
    if (tdir / "results.csv").exists():
        df = takes_timing.load_timing(tdir)
        med, md = takes_timing.table(df, 1000)
        med.to_csv(tdir / "timing.csv", index=False, float_format="%.6g")
        takes_timing.plot(df, tdir / "timing")
        parts += [
            "## Table 1 / §3.1.3 — fit time vs N",
            "",
            "Median fit CPU seconds over the repeats (output dimension in brackets), one task at a time with "
            "one BLAS thread, and the log-log slope of the medians over N ≥ 1000 (the claims above fit the "
            "means).",
            "",
            md.strip(),
            "",
            f"![timing]({_rel(tdir / 'timing.png', results)})",
            "",
        ]
    return "\n".join(parts + analysis_section(results))


# ------------------------------------------------------------------------------------------ KIFE
KIFE_METHODS = {
    "gda": ["GDA"],
    "mmi": ["MMI (24 it.)", "MMI (100 it.)"],
    "kife": ["KIFE (24 it.)", "KIFE (CV steps)"],
}


def _kife_rows(results: Path, pv: dict[str, Any]) -> str:
    """Every run of Table II (both readings of the iteration count, KNNC) beside the paper's numbers."""
    acc_p = paper_cells(pv, "table2_accuracy")
    time_p = paper_cells(pv, "table2_time")
    t1 = next(t for t in pv["tables"] if t["id"] == "table1")["rows"]
    rows = []
    for spec in t1:
        card, D = spec["card"], int(spec["D"])
        d = results / f"tab2_{card}" if card else None
        df = pd.read_csv(d / "results.csv") if d is not None and (d / "results.csv").exists() else None
        for method, labels in KIFE_METHODS.items():
            pa = acc_p[(acc_p["dataset"] == (card or spec["printed"])) & (acc_p["method"] == method)]
            pt = time_p[(time_p["dataset"] == (card or spec["printed"])) & (time_p["method"] == method)]
            pa_s = f"{float(pa['value'].iloc[0]):.2f}" if not pa.empty else "–"
            pt_s = f"{float(pt['value'].iloc[0]):.3f}" if not pt.empty else "–"
            if df is None:
                rows.append([spec["printed"], method.upper(), pa_s, "not available", pt_s, "–", "–"])
                continue
            for lab in labels:
                r = df[(df["selector"] == lab) & (df["status"] == "ok")]
                if r.empty:
                    continue
                at_D = r[r["n_features"] == D]
                own = r.loc[r.groupby("task_id")["n_features"].idxmax()]
                acc = 100 * (1 - at_D["error"])
                tasks = r.drop_duplicates("task_id")
                cell = mean_std(acc, "{:.2f}")
                if (own["n_features"] != D).any():
                    own_acc = mean_std(100 * (1 - own["error"]), "{:.2f}")
                    cell += f" (S = {int(own['n_features'].iloc[0])}: {own_acc})"
                rows.append(
                    [
                        spec["printed"],
                        lab,
                        pa_s,
                        cell,
                        pt_s,
                        mean_std(tasks["fit_cpu_s"], "{:.3f}"),
                        mean_std(tasks["fit_wall_s"], "{:.3f}"),
                    ]
                )
        if df is not None:
            k = df[(df["selector"] == "KNNC") & (df["status"] == "ok")]
            if not k.empty:
                rows.append(
                    [
                        spec["printed"],
                        "KNNC (all inputs)",
                        "–",
                        mean_std(100 * (1 - k["error"]), "{:.2f}"),
                        "–",
                        "–",
                        "–",
                    ]
                )
    head = [
        "data",
        "method",
        "paper acc. %",
        "ours acc. % at S = D",
        "paper time s",
        "ours CPU s",
        "ours wall s",
    ]
    return md_table(head, rows)


def kife_report(results: Path, configs: Path) -> str:
    """The Markdown of ``results/kife2011/REPORT.md``."""
    pv = load_paper_values(configs / "paper_values.yaml")
    title = f"# Reproduction report — {pv['title']} (Liu et al. 2011, KIFE)"
    parts = _head("kife2011", title, results, configs)
    parts += [
        "## Table II — every run: both readings of the iteration count, seconds",
        "",
        "The cells counted above take the 24-step runs of MMI and KIFE (the paper's timing setting) and "
        "normalised times. Here, without verdicts, every run: mean ± std over the runs, accuracy at S = D "
        "(the paper's D: Iris 2, Statlog 2, Letter 8); GDA has C−1 directions and is also shown at S = C−1 "
        "in brackets. CPU = `time.process_time` of the fit (one BLAS thread), wall = wall clock on a shared "
        "2-core machine. The paper's times come from an unstated machine (MATLAB).",
        "",
        _kife_rows(results, pv),
        "",
    ]
    pdir = results / "fig2_projection"
    if (pdir / "results.csv").exists() and not (pdir / "accuracy.csv").exists():
        _render_diagnostic(pdir)
    if (pdir / "accuracy.csv").exists():
        a = pd.read_csv(pdir / "accuracy.csv")
        rows = [
            [r.method, f"{100 * r.accuracy_2d:.1f}", f"{r.fit_cpu_s:.2f}", str(r.n_iter)]
            for r in a.itertuples()
        ]
        parts += [
            "## Fig. 2 — 2-D projections of Statlog (satimage)",
            "",
            f"![projections]({_rel(pdir / 'projection.png', results)})",
            "",
            md_table(["method", "1-NN test acc. in 2-D (%)", "fit CPU s", "iterations"], rows),
            "",
        ]
    return "\n".join(parts + analysis_section(results))


# ------------------------------------------------------------------------------------------ entry point
def _render_diagnostic(out: Path) -> None:
    """Re-render a diagnostic's derived outputs from its results.csv (a fresh clone has only the CSV)."""
    from fsbench.config import load_experiment
    from fsbench.diagnostics.registry import get_diagnostic

    info = _run_info(out)
    if info.get("config_file"):
        exp = load_experiment(info["config_file"], kind="diagnostic")
        get_diagnostic(exp.diagnostic).render(out, exp)


def write(paper: str, results: Path | None = None, configs: Path | None = None) -> Path:
    """Write ``results/<paper>/REPORT.md``; return its path."""
    results = Path(results or f"results/{paper}")
    configs = Path(configs or f"configs/{paper}")
    builder = {"takes2011": takes_report, "kife2011": kife_report}[paper]
    text = builder(results, configs)
    out = results / "REPORT.md"
    out.write_text(text)
    return out
