"""Report hooks of Liu et al. 2011 (KIFE): every run of Table II, and the Fig. 2 projections.

Loaded by file path by ``fsbench report RESULTS --paper configs/kife2011`` (see
:mod:`fsbench.papers.folder`). The comparison (Table II cells, claims) is the engine's, from
``paper_values.yaml``; :func:`sections` adds, without verdicts, every run with both readings of the
iteration count beside the paper's numbers (``tab2_<card>`` runs), and the 2-D projections of the
``fig2_projection`` diagnostic (re-rendered from its ``results.csv`` if missing).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from fsbench.diagnostics.registry import render_result_dir
from fsbench.papers.folder import ReportContext
from fsbench.results.loading import Results
from fsbench.results.paper_values import mean_std, paper_cells
from fsbench.results.table_files import has_table
from fsbench.results.tables import md_table

#: Paper method id -> our config labels (both readings of the iteration count for MMI and KIFE).
METHODS = {
    "gda": ["GDA"],
    "mmi": ["MMI (24 it.)", "MMI (100 it.)"],
    "kife": ["KIFE (24 it.)", "KIFE (CV steps)"],
}


def _kife_rows(results: Results, pv: dict[str, Any]) -> str:
    """Every run of Table II (both readings of the iteration count, KNNC) beside the paper's numbers."""
    acc_p = paper_cells(pv, "table2_accuracy")
    time_p = paper_cells(pv, "table2_time")
    t1 = next(t for t in pv["tables"] if t["id"] == "table1")["rows"]
    rows = []
    for spec in t1:
        card, D = spec["card"], int(spec["D"])
        d = results.root / f"tab2_{card}" if card else None
        df = results.results(d) if d is not None and has_table(d) else None
        for method, labels in METHODS.items():
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


def sections(ctx: ReportContext) -> list[str]:
    """Table II run by run, and the Fig. 2 projections."""
    results = ctx.results_dir
    parts = [
        "## Table II — every run: both readings of the iteration count, seconds",
        "",
        "The cells counted above take the 24-step runs of MMI and KIFE (the paper's timing setting) and "
        "normalised times. Here, without verdicts, every run: mean ± std over the runs, accuracy at S = D "
        "(the paper's D: Iris 2, Statlog 2, Letter 8); GDA has C−1 directions and is also shown at S = C−1 "
        "in brackets. CPU = `time.process_time` of the fit (one BLAS thread), wall = wall clock on a shared "
        "2-core machine. The paper's times come from an unstated machine (MATLAB).",
        "",
        _kife_rows(ctx.results, ctx.values),
        "",
    ]
    pdir = results / "fig2_projection"
    if has_table(pdir) and not (pdir / "accuracy.csv").exists():
        render_result_dir(pdir, ctx.paper_dir)
    if (pdir / "accuracy.csv").exists():
        a = pd.read_csv(pdir / "accuracy.csv")
        rows = [
            [r.method, f"{100 * r.accuracy_2d:.1f}", f"{r.fit_cpu_s:.2f}", str(r.n_iter)]
            for r in a.itertuples()
        ]
        parts += [
            "## Fig. 2 — 2-D projections of Statlog (satimage)",
            "",
            f"![projections]({ctx.rel(pdir / 'projection.png')})",
            "",
            md_table(["method", "1-NN test acc. in 2-D (%)", "fit CPU s", "iterations"], rows),
            "",
        ]
    return parts
