"""``fsbench report``: a Markdown report of result directories, optionally against a paper's values.

For every experiment found under ``RESULTS_DIR`` (a directory holding ``results.csv``) the report
shows its figures (drawn by :mod:`fsbench.plots` if missing), a table of mean ± std test error per
selector and S with the paired-t-test verdict against the best method of the cell, failed tasks,
and provenance (commit, repeats). With ``--paper`` (a paper folder such as ``configs/<paper>/``, or its
bare name) it adds, from the paper's machine-readable values (``paper_values.yaml``), paper value vs ours,
the difference and whether it is significant given both standard deviations, and whether each qualitative
claim holds; a summary at the top states the agreement rule and counts the cells that agree and the claims
that hold. The folder's hand-written ``notes.md`` (why the numbers differ, what was substituted) and the
sections of its ``hooks.py`` are placed where its layout says (:mod:`fsbench.papers.folder`). Every report
ends with the stability of every experiment and, where the relevant features are known, their recovery
(:mod:`fsbench.results.experiment_tables`, which writes ``stability.csv/.md`` and ``ground_truth*.csv/.md``
beside each experiment).

One writer serves every paper: nothing here names a paper.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fsbench.papers.cells import method_frame
from fsbench.papers.folder import PaperFolder, ReportContext, report_layout
from fsbench.papers.page import analysis_section, runs_table
from fsbench.papers.render import paper_sections
from fsbench.papers.values import PAPER_VALUES
from fsbench.plots import plot_results
from fsbench.results.loading import (
    find_result_dirs,
    is_diagnostic,
    load_rows,
    no_results_message,
    partial_runs,
    read_results,
    read_run,
)
from fsbench.results.schema import BASELINE
from fsbench.results.tables import md_table
from fsbench.results.ties import at_resolution
from fsbench.stats import paired_ttests, rank_shares, summary


def _shown(d: Path, root: Path) -> str:
    """A result directory as the report shows it: relative to the report's folder, or by its own name when
    it is that folder (never a bare ``.``)."""
    rel = d.relative_to(root) if d.is_relative_to(root) else d
    return d.name if rel == Path(".") else rel.as_posix()


def _pct(x: float) -> str:
    return "–" if x != x else f"{100 * x:.1f}"


def experiment_section(d: Path, root: Path) -> tuple[str, pd.DataFrame]:
    """Markdown for one experiment directory (paths shown relative to ``root``); also returns its results
    table."""
    df = read_results(d)
    run = read_run(d)
    exp = str(df["experiment"].iloc[0]) if len(df) else d.name
    cfg = run.get("effective_config", {})
    lines = [f"## {exp}", ""]
    if cfg.get("description"):
        lines += [f"_{cfg['description']}_", ""]
    n_failed = int((df["status"] != "ok").sum())
    n_tasks = df["task_id"].nunique()
    commits = sorted(set(df["git_commit"].astype(str)))
    lines += [
        f"- results: `{_shown(d, root)}` — {n_tasks} tasks, "
        f"{df['repeat'].nunique()} repeats, {n_failed} failed row(s)",
        f"- fsbench commit(s): {', '.join(c[:12] for c in commits)}; config hash "
        f"`{str(run.get('config_hash', '?'))[:12]}`",
        "",
    ]
    plots = d / "plots"
    if not plots.exists() or not any(plots.glob("*.png")):
        plot_results([d])
    for png in sorted(plots.glob("*.png")):
        rel = png.relative_to(root) if png.is_relative_to(root) else png
        lines += [f"![{png.stem}]({rel.as_posix()})", ""]
    if n_failed:
        msgs = df.loc[df["status"] != "ok", "message"].astype(str).value_counts().head(5)
        lines += ["Failed tasks (most frequent messages):", ""]
        lines += [f"- {count}× {msg}" for msg, count in msgs.items()] + [""]

    s = summary(df)
    t = paired_ttests(df)
    legend = (
        "test error in % (mean ± std over repeats); bold = lowest mean (every one of equal means), "
        "≈ = not significantly different "
        f"from it (paired t-test, 5 %); `{BASELINE}` = SVM on all features"
    )
    for (ds, kern), cell in s.groupby(["dataset", "kernel"], sort=False):
        tt = t[(t.dataset == ds) & (t.kernel == kern)]
        sels = list(dict.fromkeys(cell["selector"]))
        n_values = sorted(cell["n_train"].unique())
        S_values = sorted(cell.loc[cell["selector"] != BASELINE, "n_features"].unique())
        if len(n_values) > 1 and len(S_values) == 1:  # a sweep over n_train (toy figures)
            blocks = [
                (
                    f"**{ds}, {kern} kernel, S = {S_values[0]}** — {legend}",
                    "n_train",
                    [(n, cell[cell["n_train"] == n], S_values[0]) for n in n_values],
                )
            ]
        else:
            blocks = [
                (
                    f"**{ds}, {kern} kernel, n_train = {n}** — {legend}",
                    "S",
                    [(S, cell[cell["n_train"] == n], S) for S in S_values],
                )
                for n in n_values
            ]
        for title, key, items in blocks:
            rows = []
            for label, c_n, S in items:
                c = c_n[(c_n["n_features"] == S) & (c_n["selector"] != BASELINE)].set_index("selector")
                base = c_n[c_n["selector"] == BASELINE].set_index("selector")
                n = int(c_n["n_train"].iloc[0])
                # every mean tied with the lowest at the metric's resolution is a best (bold)
                resolved = pd.Series(at_resolution(c["mean"].to_numpy()), index=c.index)
                bests = set(resolved.index[resolved == resolved.min()]) if len(c) else set()
                best = resolved.idxmin() if len(c) else None
                ct = tt[(tt.n_train == n) & (tt.n_features == S)]
                row = [str(label)]
                for sel in sels:
                    src = base if sel == BASELINE else c
                    if sel not in src.index:
                        row.append("")
                        continue
                    txt = f"{_pct(src.loc[sel, 'mean'])} ± {_pct(src.loc[sel, 'std'])}"
                    if sel in bests:
                        txt = f"**{txt}**"
                    elif sel != BASELINE and best is not None:
                        pair = ct[((ct.a == sel) & (ct.b == best)) | ((ct.a == best) & (ct.b == sel))]
                        if len(pair) and not pair["significant"].iloc[0]:
                            txt += " ≈"
                    row.append(txt)
                rows.append(row)
            lines += [title, "", md_table([key, *sels], rows), ""]
    return "\n".join(lines), df


def method_labels(df: pd.DataFrame, methods: pd.DataFrame) -> dict[str, str]:
    """Display name of each pooled method: the config label(s) it carries in the experiment tables.

    The ranks table pools rows by :func:`fsbench.papers.cells.method_frame`, which replaces labels by
    registry names (so that ``Fisher`` in one config and ``fisher`` in another are one method); the other
    tables of the report name selectors by label. Mapping back keeps the labels everywhere; a method
    labelled differently in different configs is shown with all its labels, ``fisher / Fisher``.

    Parameters
    ----------
    df : DataFrame
        Result rows, ``selector`` = config label.
    methods : DataFrame
        ``method_frame(df)`` (same index).

    Returns
    -------
    dict
        Pooled method (``methods["selector"]``) → label(s) joined by `` / ``, in order of appearance.
    """
    pairs = pd.DataFrame(
        {"method": methods["selector"].astype(str), "label": df.loc[methods.index, "selector"].astype(str)}
    ).drop_duplicates()
    return {m: " / ".join(dict.fromkeys(g["label"])) for m, g in pairs.groupby("method", sort=False)}


def _ranks_lines(frames: list[pd.DataFrame]) -> list[str]:
    """The "Ranks over all cells" section of the experiments' rows (empty without rows)."""
    if not frames:
        return []
    all_df = pd.concat(frames, ignore_index=True)
    methods = method_frame(all_df)
    shares = rank_shares(methods)  # one row per method even where configs label it differently
    if shares.empty:
        return []
    labels = method_labels(all_df, methods)
    rows = [
        [
            labels.get(str(r.selector), str(r.selector)),
            str(int(r.cells)),
            _pct(r.first),
            _pct(r.second),
            _pct(r.rest),
            _pct(r.tied_first),
        ]
        for r in shares.itertuples()
    ]
    return [
        "## Ranks over all cells",
        "",
        "Share (%) of cells (dataset × kernel × n_train × S) where each method has the lowest mean error "
        "(first), the second lowest, or a lower rank; `tied first` counts cells where it is not "
        "significantly worse than the best (paired t-test, 5 %). The all-features baseline is excluded. "
        "Methods are named by their config labels, as in the tables below; a method labelled differently "
        "in different experiments is one row with all its labels (`fisher / Fisher`).",
        "",
        md_table(["method", "cells", "first", "second", "rest", "tied first"], rows),
        "",
    ]


def partial_lines(results_dir: Path, root: Path) -> list[str]:
    """A warning line per run under ``results_dir`` that has not finished all its tasks (``fsbench report
    --allow-incomplete``): its tables hold only the saved tasks. Empty for finished runs, so their reports
    are unchanged."""
    lines = []
    for path, state in partial_runs(results_dir):
        try:
            where = _shown(path, root)
        except ValueError:
            where = path.as_posix()
        lines.append(
            f"> **Partial results**: `{where}`: the run has not finished ({state.describe()}); its tables "
            "and figures hold only the saved tasks."
        )
    return [*lines, ""] if lines else []


def write_report(
    results_dir: Path, paper_dir: Path | str | PaperFolder | None = None, out: Path | None = None
) -> Path:
    """Write ``REPORT.md`` for the results under ``results_dir``; return its path.

    The one report writer of every paper: the page is laid out by the paper folder's ``report`` mapping
    (title and order of the sections, :mod:`fsbench.papers.folder`), the comparison comes from its
    ``paper_values.yaml``, the discussion from its ``notes.md``, and a section data cannot express from
    its ``hooks.py``.

    Parameters
    ----------
    results_dir : Path
        A result directory or a parent of several.
    paper_dir : Path, str or PaperFolder, optional
        The paper folder (``configs/<paper>``), or a bare paper name resolved to ``configs/<name>``;
        without it the report has no paper comparison. A :class:`~fsbench.papers.folder.PaperFolder`
        is used as it is (:meth:`~fsbench.papers.folder.PaperFolder.plain`: notes and hooks, no comparison).
    out : Path, optional
        The report's path (default ``results_dir/REPORT.md``); links are relative to its directory.

    Returns
    -------
    Path

    Raises
    ------
    FileNotFoundError
        If there is no result table under ``results_dir`` or no paper values in the paper folder.
    """
    results_dir = Path(results_dir)
    if isinstance(paper_dir, PaperFolder) or paper_dir is None:
        paper = paper_dir
    else:
        paper = PaperFolder.open(paper_dir)
    title, layout = report_layout(paper)
    if not find_result_dirs([results_dir]):
        raise FileNotFoundError(no_results_message([results_dir]))
    out = Path(out) if out is not None else results_dir / "REPORT.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    root = out.parent

    # experiments' tables (a diagnostic has its own columns)
    dirs = [d for d in find_result_dirs([results_dir]) if not is_diagnostic(d)]
    experiments: list[tuple[str, pd.DataFrame]] = []
    if "experiments" in layout or "ranks" in layout:
        experiments = [experiment_section(d, root) for d in dirs]
    summary_lines: list[str] = []
    paper_text = ""
    if paper is not None and paper.compared and ("summary" in layout or "comparison" in layout):
        # diagnostics' tables too: a paper table may be reproduced by a diagnostic (their own columns)
        summary_lines, paper_text = paper_sections(
            paper.name, load_rows([results_dir]), root, values_path=paper.path / PAPER_VALUES
        )

    def section(name: str) -> list[str]:
        if name == "summary":
            return summary_lines
        if name == "comparison":
            return [paper_text] if paper is not None and paper.compared else []
        if name == "notes":  # the hand-written discussion (likeliest reasons for differences)
            notes = paper.notes if paper is not None else None
            return [notes.rstrip(), ""] if notes else []
        if name == "runs":
            return ["## Runs", "", runs_table(results_dir), ""]
        if name == "ranks":
            return _ranks_lines([df for _, df in experiments])
        if name == "experiments":
            return [text for text, _ in experiments]
        if name == "hooks":
            hook = getattr(paper.hooks, "sections", None) if paper is not None else None
            if hook is None:
                return []
            ctx = ReportContext(results_dir, paper.path, root, paper.values)
            return [str(line) for line in hook(ctx)]
        return analysis_section(results_dir, root)  # "analysis": stability and ground truth

    lines = [f"# {title.replace('{results}', results_dir.name)}", ""]
    lines += partial_lines(results_dir, root)
    for name in layout:
        lines += section(name)
    out.write_text("\n".join(lines) + "\n")
    return out
