"""``fsbench report``: a Markdown report of result directories, optionally against a paper's values.

For every experiment found under ``RESULTS_DIR`` (a directory holding ``results.csv``) the report
shows its figures (drawn by :mod:`fsbench.plots` if missing), a table of mean ± std test error per
selector and S with the paired-t-test verdict against the best method of the cell, failed tasks,
and provenance (commit, repeats). With ``--paper`` (a paper folder such as ``configs/<paper>/``, or its
bare name) it adds, from the paper's machine-readable values (``paper_values.yaml``), paper value vs ours,
the difference and whether it is significant given both standard deviations, and whether each qualitative
claim holds; a summary at the top states the agreement rule and counts the cells that agree and the claims
that hold. That comparison is computed once into an object (:mod:`fsbench.papers.comparison`), written
beside the report as ``comparison.json`` and rendered into it. The folder's hand-written ``notes.md``
(why the numbers differ, what was substituted) and the sections of its ``hooks.py`` are placed where its
layout says (:mod:`fsbench.papers.folder`). Every report ends with the stability of every experiment
and, where the relevant features are known, their recovery (:mod:`fsbench.results.experiment_tables`,
which writes ``stability.csv/.md`` and ``ground_truth*.csv/.md`` beside each experiment).

One writer serves every paper: nothing here names a paper.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from fsbench.papers.cells import method_frame
from fsbench.papers.compare import compare_paper
from fsbench.papers.comparison import PaperComparison, write_comparison
from fsbench.papers.folder import PaperFolder, ReportContext, report_layout
from fsbench.papers.page import runs_table
from fsbench.papers.render import render_comparison
from fsbench.papers.values import PAPER_VALUES
from fsbench.plots.experiment import plot_results
from fsbench.results.crossdataset import cross_dataset_sections
from fsbench.results.crossdataset.common import ANALYSIS
from fsbench.results.experiment_tables import (
    ExperimentTables,
    analysis_markdown,
    experiment_tables,
    save_experiment_tables,
)
from fsbench.results.loading import Results, read_results, read_run
from fsbench.results.producers import run_producers
from fsbench.results.schema import BASELINE
from fsbench.results.stats import paired_summary, paired_ttests, rank_shares, summary
from fsbench.results.tables import md_table
from fsbench.results.ties import at_resolution


def _shown(d: Path, root: Path) -> str:
    """A result directory as the report shows it: relative to the report's folder, or by its own name when
    it is that folder (never a bare ``.``)."""
    rel = d.relative_to(root) if d.is_relative_to(root) else d
    return d.name if rel == Path(".") else rel.as_posix()


def _pct(x: float) -> str:
    return "–" if x != x else f"{100 * x:.1f}"


def experiment_section(
    d: Path, root: Path, df: pd.DataFrame | None = None, run: dict | None = None
) -> tuple[str, pd.DataFrame]:
    """Markdown for one experiment directory (paths shown relative to ``root``); also returns its results
    table.

    ``df`` and ``run`` are the directory's ``results.csv`` and ``run.json`` where the caller has read them
    (:class:`~fsbench.results.loading.Results`), else they are read here. The figures shown are those in
    ``d/plots`` (drawn by :func:`produce` before the page is rendered); nothing is written.
    """
    df = read_results(d) if df is None else df
    run = read_run(d) if run is None else run
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
    for png in sorted((d / "plots").glob("*.png")):
        rel = png.relative_to(root) if png.is_relative_to(root) else png
        lines += [f"![{png.stem}]({rel.as_posix()})", ""]
    if n_failed:
        lines += [
            f"{df.loc[df['status'] != 'ok', 'task_id'].nunique()} task(s) failed: listed under "
            f"*{FAILED_SECTION}*; the tables compare every selector on the splits all of them finished.",
            "",
        ]

    own = summary(df)  # each selector over its own repeats: the baseline, which is not compared
    compared = df[df["selector"].astype(str) != BASELINE]
    s = paired_summary(compared)  # the compared selectors, on the splits all of them finished in the cell
    t = paired_ttests(compared)
    protocol = _protocol_splits(df)
    legend = (
        "test error in % (mean ± std over repeats); bold = lowest mean (every one of equal means), "
        "≈ = not significantly different "
        f"from it (paired t-test, 5 %); `{BASELINE}` = SVM on all features"
    )
    for (ds, kern), cell in own.groupby(["dataset", "kernel"], sort=False):
        tt = t[(t.dataset == ds) & (t.kernel == kern)]
        sc = s[(s.dataset == ds) & (s.kernel == kern)]
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
            short = False  # some cell of the table is over fewer splits than the protocol's
            unpaired_seen = False  # some cell has no split that all its selectors finished
            for label, c_n, S in items:
                n = int(c_n["n_train"].iloc[0])
                base = c_n[c_n["selector"] == BASELINE].set_index("selector")
                c = sc[(sc.n_train == n) & (sc.n_features == S)].set_index("selector")
                m = protocol.get((ds, kern, n), 0)
                # every mean tied with the lowest at the metric's resolution is a best (bold)
                resolved = pd.Series(at_resolution(c["mean"].to_numpy()), index=c.index)
                bests = set(resolved.index[resolved == resolved.min()]) if len(c) else set()
                best = resolved.idxmin() if len(c) else None
                ct = tt[(tt.n_train == n) & (tt.n_features == S)]
                unpaired = c_n[(c_n["n_features"] == S) & (c_n["selector"] != BASELINE)].set_index("selector")
                row = [str(label)]
                for sel in sels:
                    if sel == BASELINE:
                        src = base
                    elif sel in c.index:
                        src = c
                    elif sel in unpaired.index:  # no split every selector of the cell finished
                        src = unpaired
                    else:
                        row.append("")
                        continue
                    k = int(src.loc[sel, "n"])
                    txt = f"{_pct(src.loc[sel, 'mean'])} ± {_pct(src.loc[sel, 'std'])}"
                    if src is unpaired:
                        txt += f" (n={k}, not paired)"
                        unpaired_seen = True
                    elif k < m:
                        txt += f" (n={k})"
                        short = True
                    if sel in bests:
                        txt = f"**{txt}**"
                    elif sel != BASELINE and best is not None:
                        pair = ct[((ct.a == sel) & (ct.b == best)) | ((ct.a == best) & (ct.b == sel))]
                        if len(pair) and not pair["significant"].iloc[0]:
                            txt += " ≈"
                    row.append(txt)
                rows.append(row)
            note = ""
            if short:
                note = (
                    "; (n=k) = the cell's means, bold mark and t-tests are over the k splits that every "
                    "selector of the cell finished, fewer than the protocol's (failed tasks: "
                    f"*{FAILED_SECTION}*), `{BASELINE}` over its own"
                )
            if unpaired_seen:
                note += (
                    "; not paired = no split that every selector of the cell finished: own means, no marks"
                )
            lines += [title + note, "", md_table([key, *sels], rows), ""]
    return "\n".join(lines), df


def _protocol_splits(df: pd.DataFrame) -> dict[tuple, int]:
    """(dataset, kernel, n_train) → the protocol's number of splits: the (repeat, fold) pairs any selector has
    a row in, finished or failed (a failed task has a row)."""
    split = [c for c in ("repeat", "fold") if c in df.columns]
    d = df[["dataset", "kernel", "n_train", *split]].copy()
    if "fold" in d.columns:
        d["fold"] = pd.to_numeric(d["fold"], errors="coerce").fillna(-1)
    return {
        k: int(v) for k, v in d.drop_duplicates().groupby(["dataset", "kernel", "n_train"]).size().items()
    }


#: The heading of the list of failed tasks (left out of a report without one).
FAILED_SECTION = "Failed tasks"


def failed_lines(frames: list[tuple[str, pd.DataFrame]]) -> list[str]:
    """The *Failed tasks* section: one row per (result directory, dataset, n_train, selector, message) with
    the repeats (and folds) that failed; empty when no task failed.

    Parameters
    ----------
    frames : list of (str, DataFrame)
        Each result directory as the report shows it, and its rows.

    Returns
    -------
    list of str
    """
    rows = []
    total = 0
    for where, df in frames:
        if "status" not in df.columns:
            continue
        bad = df[df["status"] != "ok"]
        if "task_id" in bad.columns:
            bad = bad.drop_duplicates("task_id")  # one row per task
        total += len(bad)
        bad = bad.assign(message=bad["message"].fillna("").astype(str) if "message" in bad.columns else "")
        keys = [c for c in ("dataset", "n_train", "selector", "message") if c in bad.columns]
        for key, g in bad.groupby(keys, sort=True):
            v = dict(zip(keys, key))
            splits = g.sort_values([c for c in ("repeat", "fold") if c in g.columns], kind="stable")
            fold = splits["fold"] if "fold" in splits.columns else pd.Series(float("nan"), index=splits.index)
            named = [
                f"{int(r)}" if pd.isna(pd.to_numeric(f, errors="coerce")) else f"{int(r)} (fold {int(f)})"
                for r, f in zip(splits["repeat"], fold)
            ]
            rows.append(
                [
                    f"`{where}`",
                    str(v.get("dataset", "")),
                    str(v.get("n_train", "")),
                    str(v.get("selector", "")),
                    ", ".join(named),
                    str(v.get("message", "")),
                ]
            )
    if not rows:
        return []
    return [
        f"## {FAILED_SECTION}",
        "",
        f"{total} task(s) failed. The tables above compare every selector of a cell on the splits that all "
        "of them finished, so a selector's failed repeats are left out for every selector of its cells "
        "(a cell over fewer splits than the protocol's shows its n). Tracebacks: "
        "`<result directory>/tasks/<task_id>.json`.",
        "",
        md_table(["results", "dataset", "n_train", "selector", "repeat(s)", "message"], rows, escape=True),
        "",
    ]


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


def partial_lines(results: Results, root: Path) -> list[str]:
    """A warning line per run under the results' root that has not finished all its tasks (``fsbench
    report --allow-incomplete``): its tables hold only the saved tasks. Empty for finished runs, so their
    reports are unchanged."""
    lines = []
    for path, state in results.partial:
        try:
            where = _shown(path, root)
        except ValueError:
            where = path.as_posix()
        lines.append(
            f"> **Partial results**: `{where}`: the run has not finished ({state.describe()}); its tables "
            "and figures hold only the saved tasks."
        )
    return [*lines, ""] if lines else []


@dataclass
class ReportInputs:
    """What :func:`produce` computed for a report, for :func:`render_report` to lay out.

    Attributes
    ----------
    experiments : list of (Path, str, DataFrame)
        Each experiment directory, its section's Markdown and its rows.
    comparison : PaperComparison or None
        The comparison with the paper (None: the page has none).
    tables : list of ExperimentTables
        The stability and ground-truth tables of every result directory.
    hooks : list of str
        The Markdown of the paper's ``hooks`` section (its files written).
    producers : list of str
        The Markdown of the producers the layout declares (:mod:`fsbench.results.producers`; their files
        written).
    cross_dataset : list of str
        The Markdown of the cross-dataset report (:mod:`fsbench.results.crossdataset`; its files written).
    """

    experiments: list[tuple[Path, str, pd.DataFrame]] = field(default_factory=list)
    comparison: PaperComparison | None = None
    tables: list[ExperimentTables] = field(default_factory=list)
    hooks: list[str] = field(default_factory=list)
    producers: list[str] = field(default_factory=list)
    cross_dataset: list[str] = field(default_factory=list)


def produce(results: Results, paper: PaperFolder | None, layout: list[str], root: Path) -> ReportInputs:
    """Compute what the report shows and write the files it links, before anything is rendered.

    Written: the figures of an experiment that has none yet (``plots/``, :func:`fsbench.plots.plot_results`;
    ``fsbench build`` draws them all beforehand), ``comparison.json`` beside the report (the object the docs'
    status block and the prose facts read), each directory's stability and ground-truth tables
    (:func:`fsbench.results.experiment_tables.save_experiment_tables`), the cross-dataset report's tables and
    figures under ``<results>/analysis`` and whatever the paper's declared producers and hooks write. Only
    the parts the layout shows.
    """
    out = ReportInputs()
    if "experiments" in layout or "ranks" in layout:
        for d in results.experiment_dirs:
            if "experiments" in layout and not any((d / "plots").glob("*.png")):
                plot_results([d])
            text, df = experiment_section(d, root, results.results(d), results.run(d))
            out.experiments.append((d, text, df))
    if paper is not None and paper.compared and ("summary" in layout or "comparison" in layout):
        # diagnostics' tables too: a paper table may be reproduced by a diagnostic (their own columns)
        out.comparison = compare_paper(paper.name, results.rows(), values_path=paper.path / PAPER_VALUES)
        write_comparison(out.comparison, root)
    if "analysis" in layout:
        out.tables = experiment_tables(results.sets)
        save_experiment_tables(out.tables)
    ctx = ReportContext(results.root, paper.path, root, paper.values, results) if paper is not None else None
    if "hooks" in layout and ctx is not None and getattr(paper.hooks, "sections", None) is not None:
        out.hooks = [str(line) for line in paper.hooks.sections(ctx)]
    if "producers" in layout and ctx is not None:
        where = f"{paper.path / PAPER_VALUES}: report.producers"
        out.producers = run_producers(paper.layout.get("producers") or [], ctx, where)
    if "cross_dataset" in layout:
        out.cross_dataset = cross_dataset_sections(results.sets, results.root / ANALYSIS, root)
    return out


def render_report(
    results: Results,
    paper: PaperFolder | None,
    title: str,
    layout: list[str],
    root: Path,
    inputs: ReportInputs,
) -> str:
    """The report's Markdown, laid out by ``layout`` from what :func:`produce` computed; writes nothing."""
    summary_lines: list[str] = []
    paper_text = ""
    if inputs.comparison is not None:
        summary_lines, paper_text = render_comparison(inputs.comparison)

    def section(name: str) -> list[str]:
        if name == "summary":
            return summary_lines
        if name == "comparison":
            return [paper_text] if paper is not None and paper.compared else []
        if name == "notes":  # the hand-written discussion (likeliest reasons for differences)
            notes = paper.notes if paper is not None else None
            return [notes.rstrip(), ""] if notes else []
        if name == "runs":
            return ["## Runs", "", runs_table(results), ""]
        if name == "ranks":
            return _ranks_lines([df for _, _, df in inputs.experiments])
        if name == "experiments":
            return [text for _, text, _ in inputs.experiments]
        if name == "hooks":
            return inputs.hooks
        if name == "producers":
            return inputs.producers
        if name == "cross_dataset":
            return inputs.cross_dataset
        return analysis_markdown(inputs.tables, root)  # "analysis": stability and ground truth

    lines = [f"# {title.replace('{results}', results.root.name)}", ""]
    lines += partial_lines(results, root)
    for name in layout:
        lines += section(name)
    # whatever the layout: the failed tasks, whose splits every comparison above leaves out (none: none)
    read = {d: df for d, _, df in inputs.experiments}
    lines += failed_lines(
        [(_shown(d, root), read[d] if d in read else results.results(d)) for d in results.dirs]
    )
    return "\n".join(lines) + "\n"


def write_report(
    results_dir: Path,
    paper_dir: Path | str | PaperFolder | None = None,
    out: Path | None = None,
    cross_dataset: bool = False,
) -> Path:
    """Write ``REPORT.md`` for the results under ``results_dir``; return its path.

    The one report writer of every paper: the page is laid out by the paper folder's ``report`` mapping
    (title and order of the sections, :mod:`fsbench.papers.folder`), the comparison comes from its
    ``paper_values.yaml``, the discussion from its ``notes.md``, and a section data cannot express from
    its ``hooks.py``. The directory is read once (:class:`~fsbench.results.loading.Results`); :func:`produce`
    computes and writes what the page links, :func:`render_report` lays the page out.

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
    cross_dataset : bool
        Add the cross-dataset report (:mod:`fsbench.results.crossdataset`) after the ranks, where the
        layout does not name it: the page of a benchmark of one's own (``fsbench report --cross-dataset``).

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
    if cross_dataset and "cross_dataset" not in layout:
        at = layout.index("ranks") + 1 if "ranks" in layout else len(layout)
        layout = [*layout[:at], "cross_dataset", *layout[at:]]
    results = Results(results_dir)
    out = Path(out) if out is not None else results_dir / "REPORT.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    root = out.parent
    inputs = produce(results, paper, layout, root)
    out.write_text(render_report(results, paper, title, layout, root, inputs))
    return out
