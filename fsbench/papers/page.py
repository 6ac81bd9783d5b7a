"""The parts every paper report shares: sections of :func:`fsbench.report.write_report` and of hooks.

Besides the paper comparison (computed by :func:`fsbench.papers.compare.compare_paper`, rendered by
:mod:`fsbench.papers.render`), the one report writer (:mod:`fsbench.report`) and a paper folder's hooks
(:mod:`fsbench.papers.folder`) assemble pages from

* :func:`runs_table` — one row per run (``run.json``);

and the stability and ground-truth sections (:mod:`fsbench.results.experiment_tables`).

Paths in the Markdown are relative to the results directory, so that a report regenerated from a copy
of the committed CSVs is byte-identical.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fsbench.results.loading import Results
from fsbench.results.tables import md_table


def _wall(info: dict) -> str:
    if "wall_s" in info:
        return f"{float(info['wall_s']):.0f} s"
    try:
        t0, t1 = pd.Timestamp(info["started"]), pd.Timestamp(info["finished"])
        return f"{(t1 - t0).total_seconds():.0f} s"
    except (KeyError, ValueError, TypeError):
        return "?"


def runs_table(results: Results | Path) -> str:
    """A Markdown table of the runs under a results directory (read, or its path): directory, experiment,
    repeats, wall time, fsbench commit and start time, from each ``run.json``."""
    results = results if isinstance(results, Results) else Results(results)
    results_dir = results.root
    rows = []
    for d in results.dirs:
        info = results.run(d)
        if not info:
            continue
        prot = info.get("effective_config", {}).get("protocol", {})
        rows.append(
            [
                f"`{d.relative_to(results_dir).as_posix()}`",
                str(info.get("experiment", d.name)),
                str(prot.get("repeats", "?")),
                _wall(info),
                str(info.get("git_commit", "?"))[:10],
                str(info.get("started", "?")),
            ]
        )
    return md_table(["result", "experiment", "repeats", "wall", "fsbench commit", "started (UTC)"], rows)
