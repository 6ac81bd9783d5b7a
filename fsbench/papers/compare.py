"""The comparison with a paper computed: :func:`compare_paper` returns a
:class:`~fsbench.papers.comparison.PaperComparison`.

A layer of the paper comparison (render → compare → readings → comparison → claims → cells → values):
:func:`compare_paper` reads a paper's values and configs (:mod:`fsbench.papers.values`), compares every
printed table (:mod:`fsbench.papers.cells`; CPU-time tables also by their shape,
:mod:`fsbench.papers.cpu_shape`), classifies the differing cells by the readings
(:mod:`fsbench.papers.readings`), evaluates every claim (:mod:`fsbench.papers.claims`), on the default
and under every reading that changes rows it reads (:mod:`fsbench.papers.readings.claims`), and returns the
whole as one object. It writes no Markdown: :func:`fsbench.papers.render.render_comparison` renders the
object, and ``comparison.json`` holds it (:mod:`fsbench.papers.comparison`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from fsbench.papers.cells import (
    VALUE_METRICS,
    CellResult,
    _compare_rank_table,
    _Ctx,
    compare_in_context,
    method_frame,
)
from fsbench.papers.claims import FAILS, HOLDS, NOT_CHECKABLE, NOT_EVALUABLE, evaluate_claim
from fsbench.papers.comparison import (
    CheckOutcome,
    ClaimResult,
    DifferingCell,
    ExperimentChoices,
    PaperComparison,
    TableComparison,
    TableReading,
    TriedReading,
)
from fsbench.papers.cpu_shape import compare_cpu_shape
from fsbench.papers.readings import Classified, ReadingsReport, WholeTable
from fsbench.papers.sources import experiments_of
from fsbench.papers.values import (
    DEFAULT_REPEATS,
    ConfigInfo,
    card_note,
    load_paper_values,
    paper_values_path,
    read_configs,
)

#: The order of Ramona's tables (Roman numbers sort wrongly as text); any other table comes after them.
_ROMAN_ORDER = ["table2", "table3", "table4", "table5", "table6", "table7", "table8", "table9"]
#: Every status a claim can have, in the order the summary counts them.
CLAIM_STATUSES = (HOLDS, FAILS, NOT_EVALUABLE, NOT_CHECKABLE)


def _one_line(text: Any) -> str:
    return " ".join(str(text).split())


def _unit(table: Mapping[str, Any]) -> str:
    if table["metric"] in ("error", "accuracy"):
        return f"{table['metric']} %"
    return str(table.get("unit") or table.get("column") or table["metric"])


def table_counts(cells: list[CellResult]) -> dict[str, int]:
    """The counts of one table's cells (the summary's columns and its sentence; the agreement rule of
    :func:`fsbench.papers.cells.compare_table`).

    Parameters
    ----------
    cells : list of CellResult

    Returns
    -------
    dict
        ``compared`` (counted cells: agree or differ, not doubtful), ``agree``, ``agree_secondary``
        (under the secondary tolerance), ``differ``, ``within_std``, ``not_sig_only`` (agree by Welch
        only), ``no_std_ok`` (agree without a paper std), ``not_run``, ``not_available``, ``external``,
        ``doubtful``, ``other`` (row references, untestable).
    """
    counted = [c for c in cells if c.counted]
    with_std = [c for c in counted if c.paper_std is not None]
    return {
        "compared": len(counted),
        "agree": sum(c.status == "agree" for c in counted),
        "agree_secondary": sum(c.agrees_secondary for c in counted),
        "differ": sum(c.status == "differ" for c in counted),
        "within_std": sum(bool(c.within_std) for c in with_std if c.status == "agree"),
        "not_sig_only": sum(c.status == "agree" and not c.within_std for c in with_std),
        "no_std_ok": sum(c.status == "agree" for c in counted if c.paper_std is None),
        "not_run": sum(c.status in ("not run", "failed") for c in cells),
        "not_available": sum(c.status == "not available" for c in cells),
        "external": sum(c.status == "external" for c in cells),
        "doubtful": sum(c.doubtful for c in cells),
        "other": sum(c.status in ("reference", "untestable") for c in cells),
    }


def _differing(cells: list[CellResult], classified: list[Classified]) -> list[DifferingCell]:
    position = {id(c): i for i, c in enumerate(cells)}
    return [
        DifferingCell(
            cell=position[id(c.cell)],
            cls=c.cls,
            reading=c.reading.id if c.reading is not None else None,
            reading_cell=c.reading_cell,
            evidence=c.evidence,
            tried=[TriedReading(r.id, rc) for r, rc in c.tried],
        )
        for c in classified
    ]


def _whole(whole: list[WholeTable]) -> list[TableReading]:
    return [
        TableReading(w.reading.id, w.compared, w.agree, w.closes, w.loses, w.explains, w.reading.explains)
        for w in whole
    ]


def _table(
    t: Mapping[str, Any],
    cells: list[CellResult],
    status: str,
    classified: list[Classified],
    footnotes: list[int],
    notes: list[str],
    ctx: _Ctx,
    whole: list[WholeTable],
) -> TableComparison:
    """One table's comparison (its ``name`` and ``differing_name`` are set once all tables are known)."""
    exps = [str(e) for e in experiments_of(t.get("experiment"))]
    cfg = ctx.configs.get(exps[0]) if exps else None
    digits = {"value": int(t.get("digits", 1))}
    digits.update(
        {str(v.get("label", k)): int(v.get("digits", 1)) for k, v in (t.get("also_compare") or {}).items()}
    )
    return TableComparison(
        id=str(t["id"]),
        number=str(t["number"]) if "number" in t else None,
        part=str(t["part"]) if t.get("part") else None,
        caption=str(t.get("caption", "")),
        experiments=exps,
        metric=str(t["metric"]),
        status=status,
        name="",
        differing_name=None,
        unit=_unit(t),
        paper_unit=str(t.get("unit", "")),
        statistic=str(t.get("statistic", "")),
        n_paper=cfg.repeats() if cfg else DEFAULT_REPEATS,
        digits=digits,
        decimals=int(t["decimals"]) if t.get("decimals") is not None else None,
        normalisation=str(t["normalisation"]) if t.get("normalisation") else None,
        columns=[str(c) for c in t.get("columns") or []],
        notes=notes,
        cells=cells,
        counts=table_counts(cells),
        footnotes=footnotes,
        differing=_differing(cells, classified),
        readings=_whole(whole),
        explaining_reading=next((w.reading.id for w in whole if w.explains), None),
    )


def _name_tables(tables: list[TableComparison]) -> None:
    """How the report names each table: in the count table, its number (with its id where two tables
    share one: KIFE's Table II prints accuracy and time); in the table of differing cells, its number and
    part (with its id where two tables with differing cells share a number and have no part)."""
    numbers = [t.number if t.number is not None else t.id for t in tables]
    for t, number in zip(tables, numbers):
        t.name = f"{number} (`{t.id}`)" if numbers.count(number) > 1 else number
    with_differing = [(t, n) for t, n in zip(tables, numbers) if t.differing]
    numbers = [n for _, n in with_differing]
    for t, number in with_differing:
        name = number + (f" ({t.part})" if t.part else "")
        if numbers.count(number) > 1 and not t.part:
            name += f" (`{t.id}`)"
        t.differing_name = name


def _claim(
    cl: Mapping[str, Any], entries: Mapping[str, Any], ctx: _Ctx, readings: ReadingsReport
) -> ClaimResult:
    refs = cl.get("figure") or cl.get("table") or ""
    refs = [str(r) for r in refs] if isinstance(refs, list) else [str(refs)]
    entry = entries.get(refs[0], {})  # a claim on several figures reads the first one's experiment
    status, results = evaluate_claim(cl, ctx.df, entry.get("experiment"), ctx.missing_reason, entry)
    under = readings.claim_readings(cl, entry, status, results, ctx.missing_reason)
    return ClaimResult(
        id=str(cl["id"]),
        status=status,
        marks=readings.claim_marker(cl.get("figure") or cl.get("table")),  # substitutions of its data
        where=", ".join(refs),
        source=str(cl.get("source", "?")),
        statement=str(cl.get("statement", "")),
        quote=str(cl.get("quote", "")),
        checks=[
            CheckOutcome(str(chk.get("kind")), r.status, r.detail)
            for chk, r in zip(cl.get("checks") or [], results)
        ],
        defaults=_one_line(cl["defaults"]) if cl.get("defaults") else None,
        paper_consistent=str(cl["paper_consistent"]).lower()
        if cl.get("paper_consistent") is not None
        else None,
        readings=under,
    )


def _choices(ctx: _Ctx) -> list[ExperimentChoices]:
    """Per experiment in the results: the first sentence of each dataset card's notes, then the config's
    [D] choices (defaults where the paper is silent) and its caveats."""
    out = []
    for name, cfg in ctx.configs.items():
        if name not in ctx.experiments:
            continue
        items = []
        for ds in cfg.datasets:
            note = card_note(ds, ctx.cards_dir)
            if note:
                items.append(f"dataset `{ds}`: {note}")
            elif note is None and not ctx.dataset_available(ds, name):
                items.append(f"dataset `{ds}`: no dataset card")
        items += cfg.defaults
        desc = cfg.data.get("description")
        out.append(
            ExperimentChoices(name, cfg.file.name, str(desc) if desc else None, [str(i) for i in items])
        )
    return out


def compare_values(
    paper: str,
    values: Mapping[str, Any],
    configs: dict[str, ConfigInfo],
    all_df: pd.DataFrame,
    cards_dir: Path | None = None,
) -> PaperComparison:
    """Compare our results with a paper's values already read (:func:`compare_paper` reads them).

    Parameters
    ----------
    paper : str
        Paper id.
    values : mapping
        The parsed ``paper_values.yaml`` (``tables``, ``claims``, ``readings``, ``cpu_shape``, ...).
    configs : dict
        The paper's experiment configs by name (:func:`fsbench.papers.values.read_configs`).
    all_df : DataFrame
        The rows of every result table found (experiments' and diagnostics').
    cards_dir : Path, optional
        Dataset cards directory (default ``FSBENCH_CARDS_DIR`` or ``<repository>/datasets``).

    Returns
    -------
    PaperComparison
    """
    df = method_frame(all_df) if len(all_df) else all_df
    ctx = _Ctx(dict(values), configs, df, cards_dir)
    readings = ReadingsReport(values, all_df, configs, cards_dir=cards_dir)
    printed = sorted(
        (t for t in values.get("tables", []) if t.get("cells")),
        key=lambda t: _ROMAN_ORDER.index(t["id"]) if t["id"] in _ROMAN_ORDER else 99,
    )
    tables: list[TableComparison] = []
    for t in printed:
        metric = t.get("metric")
        if metric in (*VALUE_METRICS, "cpu_time"):
            cells = compare_in_context(t, ctx)
            # classifies the differing cells and marks the substitutions (the order numbers the markers)
            classified, footnotes, whole = readings.add_table(t, cells)
            if ctx.ran(t):
                status = "compared"
            else:
                status = ctx.missing_reason((experiments_of(t.get("experiment")) or [None])[0])
            notes: list[str] = []
        elif metric == "rank_share":
            cells, by_section = _compare_rank_table(t, ctx)
            classified, footnotes, whole = readings.add_table(t, cells, mark=False)
            present = any(e in ctx.experiments for exps in (t.get("sections") or {}).values() for e in exps)
            status = "compared" if present else "not run (no experiment of the table's sections)"
            notes = list(by_section.values())
        else:
            continue
        tables.append(_table(t, cells, status, classified, footnotes, notes, ctx, whole))
    _name_tables(tables)
    # CPU-time tables by their shape (slopes, order), when the paper declares a rule: beside the cells
    shape = compare_cpu_shape(values, df)
    entries = {e["id"]: e for e in [*values.get("figures", []), *values.get("tables", [])]}
    claims = [_claim(cl, entries, ctx, readings) for cl in values.get("claims", [])]
    totals = table_counts([])
    for t in tables:
        for key in totals:
            totals[key] += t.counts[key]
    no_cells = values.get("no_table_cells")
    return PaperComparison(
        paper=paper,
        title=str(values.get("citation") or values.get("title") or paper),
        tables=tables,
        totals=totals,
        claims=claims,
        claim_counts={s: sum(c.status == s for c in claims) for s in CLAIM_STATUSES},
        readings=readings.runs(),
        differing_counts=readings.totals(),
        substitutions=readings.marks.notes(),
        figure_readings=readings.figures(),
        choices=_choices(ctx),
        cpu_shape=shape,
        no_table_cells=_one_line(no_cells) if no_cells else None,
    )


def compare_paper(
    paper: str, all_df: pd.DataFrame, values_path: Path | None = None, cards_dir: Path | None = None
) -> PaperComparison:
    """Compare our results with a paper: every printed table cell by cell, every claim, the readings.

    Parameters
    ----------
    paper : str
        Paper id (``configs/<paper>/paper_values.yaml``).
    all_df : DataFrame
        The rows of every result table found by the report (experiments' and diagnostics').
    values_path : Path, optional
        Explicit paper-values file; the experiment configs are read from its directory.
    cards_dir : Path, optional
        Dataset cards directory (default ``FSBENCH_CARDS_DIR`` or ``<repository>/datasets``).

    Returns
    -------
    PaperComparison

    Raises
    ------
    FileNotFoundError
        If the paper-values file does not exist.
    """
    path = Path(values_path) if values_path is not None else paper_values_path(paper)
    values = load_paper_values(paper, path)
    return compare_values(paper, values, read_configs(path.parent), all_df, cards_dir)
