"""The readings part of a paper's report in Markdown, rendered from the comparison object.

The summary's line and table of differing cells per class (with each table's explaining reading), and
the section "Alternative readings and the differing cells" (the readings declared, the substitutions
named, the differing cells of each table with its readings compared as whole tables, the figure
readings), all from a :class:`~fsbench.papers.comparison.PaperComparison` (rules:
:mod:`fsbench.papers.readings`; computed by :class:`~fsbench.papers.readings.report.ReadingsReport`).
"""

from __future__ import annotations

from fsbench.papers.cells import CellResult
from fsbench.papers.comparison import (
    FigureReading,
    PaperComparison,
    ReadingRun,
    SubstitutionNote,
    TableComparison,
)
from fsbench.papers.readings.classify import (
    CLASSES,
    EXPLAINED,
    INCONSISTENT,
    counts_line,
    fmt_ours,
    fmt_paper,
)
from fsbench.papers.values import first_sentence
from fsbench.results.tables import md_table

_FIGURES_INTRO = (
    "The paper prints no numbers for its figures, so a figure reading is shown as its curve beside "
    "the default's (mean test error % ± std over the repeats, paired t-test over the same splits), "
    "with the claims re-evaluated with the reading's rows in place of the default's wherever every "
    "check compares the same points as under the default (all of them, with the checks' numbers: "
    "“Claims under the readings” in the Claims section)."
)


def shown_setting(c: CellResult) -> str:
    """A cell's setting as the report shows it: with its substitution markers (``†k``)."""
    return c.setting + c.marks


def summary_lines(cmp: PaperComparison) -> list[str]:
    """Lines for the report's summary: the counts line and a row per table with differing cells.

    Parameters
    ----------
    cmp : PaperComparison

    Returns
    -------
    list of str
    """
    rows = [
        [
            t.differing_name,
            str(len(t.differing)),
            *(str(sum(d.cls == c for d in t.differing)) for c in CLASSES),
            f"`{t.explaining_reading}`" if t.explaining_reading else "–",
        ]
        for t in cmp.tables
        if t.differing
    ]
    lines = [
        f"- **{counts_line(cmp.differing_counts)}** Each table's explained cells come from its one "
        "explaining reading, the whole-table reading under which the most of its cells agree (section "
        "“Alternative readings” below)."
    ]
    if rows:
        lines += ["", *md_table(["table", "differing", *CLASSES, "explaining reading"], rows).splitlines()]
    return lines


def section(cmp: PaperComparison) -> list[str]:
    """The section “Alternative readings and the differing cells”, in every paper's report; for a paper
    with no comparable table cell it says why (``no_table_cells``) and counts 0.

    Parameters
    ----------
    cmp : PaperComparison

    Returns
    -------
    list of str
    """
    lines = [
        "## Alternative readings and the differing cells",
        "",
        counts_line(cmp.differing_counts),
        "",
        "**One reading per table.** Every reading of a table, run with the full protocol, is first "
        "compared as a whole table under the same agreement rule as the default: each cell takes the "
        "reading's number where the reading applies to it (none where the reading has no result for "
        "it) and keeps the default's where the reading leaves it alone. The reading under which the most "
        "cells of the whole table agree (the first declared on a tie; only readings that may classify "
        "cells) is the table's **explaining reading**. A differing cell of the default (counted cells "
        "only) is **explained** when it agrees with the paper under that reading; **paper "
        "inconsistent** when `paper_values.yaml` quotes evidence from the paper's own numbers or text "
        "against the cell; otherwise **unexplained**. A cell that only another reading closes is not "
        "explained (its number is shown as tried): no count of explained cells mixes two readings. "
        "Readings never replace the default: the cell counts above are the default's.",
        "",
    ]
    if cmp.no_table_cells and not any(t.differing for t in cmp.tables):
        why = cmp.no_table_cells
        lines += [f"No printed table cell can be compared, so no cell is classified: {why}", ""]
    lines += readings_lines(cmp.readings)
    lines += substitution_lines(cmp.substitutions)
    labels = {r.id: r.label for r in cmp.readings}
    classifies = {r.id: r.explains for r in cmp.readings}
    for t in cmp.tables:
        if t.differing:
            lines += _table_block(t, labels, classifies)
    lines += figure_readings_lines(cmp.figure_readings)
    return lines


def readings_lines(readings: list[ReadingRun]) -> list[str]:
    """The table of the readings declared: what each changes, where it ran, whether it classifies."""
    if not readings:
        return ["No readings are declared for this paper (`readings:` in paper_values.yaml).", ""]
    rows = []
    for r in readings:
        use = "yes" if r.explains else f"no: {r.why}"
        missing = "" if r.ran or not r.explains else " (not in these results)"
        arrow = (
            f"`{r.default}` (same runs, {r.same_runs})"
            if r.source == r.default
            else f"`{r.default}` → `{r.source}`"
        )
        rows.append([f"`{r.id}` {r.label}", r.where, f"{arrow}{missing}", r.changes, use])
    return [
        "### Readings",
        "",
        *md_table(["reading", "for", "default → reading", "what it changes", "classifies cells"], rows, True)
        .rstrip()
        .splitlines(),
        "",
    ]


def substitution_lines(notes: list[SubstitutionNote]) -> list[str]:
    """Every substitution marked in the report, with where it applies."""
    if not notes:
        return []
    lines = ["### Substitutions named in this report", ""]
    for s in notes:
        places = ", ".join(s.places) or "–"
        lines.append(f"- †{s.mark} {s.scope} ({s.source}; marked in: {places}): {s.text}")
    return lines + [""]


def footnote_lines(notes: list[SubstitutionNote]) -> list[str]:
    """Markdown lines ``†k substitution (source): text`` for ``notes`` (under a table)."""
    if not notes:
        return []
    lines = [""]
    for s in notes:
        lines.append(f"†{s.mark} **Substitution** ({s.scope}, {s.source}): {first_sentence(s.text)}  ")
    return lines


#: What a CPU-time table's block of differing cells says about its numbers (both sides normalised).
CPU_DIFFERING_NOTE = (
    "CPU times, both sides divided by the fastest entry of the whole table (the comparison's "
    "normalisation; a time the paper prints in seconds is given in brackets)."
)


def _paper_cpu(c: CellResult) -> str:
    """The paper's side of a CPU-time cell: its value ÷ its table minimum, the printed seconds in brackets
    when the paper prints seconds rather than normalised times."""
    shown = f"{c.paper_norm:.1f}"
    if abs(c.paper - c.paper_norm) > 1e-9 * max(1.0, abs(c.paper)):
        shown += f" ({c.paper:g} s)"
    return shown


def whole_table_lines(t: TableComparison, labels: dict[str, str]) -> list[str]:
    """The table's readings compared as whole tables: one row per reading, the default first ([] if the
    table has no reading)."""
    if not t.readings:
        return []
    counted = [c for c in t.cells if c.counted]
    agree = sum(c.status == "agree" for c in counted)
    rows = [["default", str(len(counted)), str(agree), "–", "–", ""]]
    for r in t.readings:
        role = (
            "**explaining reading**"
            if r.explains
            else ("sensitivity" if r.classifies else "sensitivity (declared not to classify)")
        )
        rows.append(
            [
                f"`{r.reading}` {labels.get(r.reading, '')}",
                str(r.compared),
                str(r.agree),
                str(r.closes),
                str(r.loses),
                role,
            ]
        )
    head = [
        "whole table under",
        "cells with a number",
        "agree",
        "differing cells it closes",
        "agreeing cells it loses",
        "role",
    ]
    return [
        "Its readings as whole tables (every cell under one reading; the reading's numbers where it "
        "applies, the default's elsewhere):",
        "",
        *md_table(head, rows, True).rstrip().splitlines(),
        "",
    ]


def _table_block(t: TableComparison, labels: dict[str, str], classifies: dict[str, bool]) -> list[str]:
    counts = {c: sum(d.cls == c for d in t.differing) for c in CLASSES}
    # the name the summary's table of differing cells gives it (number, part, id where two share one)
    name = t.differing_name or (t.number if t.number is not None else t.id)
    head = f"### Table {name} — differing cells"
    # a CPU-time table is compared on normalised times: both sides are shown normalised, one decimal
    cpu = t.metric == "cpu_time"
    nd = 1 if cpu else t.decimals
    rows = []
    for d in t.differing:
        cell = t.cells[d.cell]
        if d.cls == EXPLAINED:
            ev = f"{labels[d.reading]} (`{d.reading}`): {fmt_ours(d.reading_cell, nd)} ✓"
        elif d.cls == INCONSISTENT:
            ev = d.evidence
        else:
            ev = (
                "; ".join(
                    f"{labels[tr.reading]}: {fmt_ours(tr.cell, nd)} "
                    + (
                        (
                            "✓ (not the table's explaining reading)"
                            if classifies.get(tr.reading)
                            else "✓ (does not classify)"
                        )
                        if tr.cell.status == "agree"
                        else "✗"
                    )
                    for tr in d.tried
                )
                or "no reading of this cell"
            )
            if d.tried:
                ev = "tried — " + ev
        method = cell.method + (f" ({cell.quantity})" if cell.quantity else "")
        paper = _paper_cpu(cell) if cpu else fmt_paper(cell, nd)
        rows.append([shown_setting(cell), method, paper, fmt_ours(cell, nd), d.cls, ev])
    sides = ["paper ÷ table min", "ours (default) ÷ table min"] if cpu else ["paper", "ours (default)"]
    return [
        head,
        "",
        counts_line(counts) + " Evidence: the reading that closes the cell and its number (✓ = agrees by "
        "the same rule), the paper's own contradiction, or the readings tried."
        + (f" {CPU_DIFFERING_NOTE}" if cpu else ""),
        "",
        *md_table(["setting", "method", *sides, "class", "evidence"], rows, True).rstrip().splitlines(),
        "",
        *whole_table_lines(t, labels),
    ]


def figure_readings_lines(figures: list[FigureReading]) -> list[str]:
    """The "Figure readings" part of the readings section ([] if no reading is of a figure)."""
    if not figures:
        return []
    lines = ["### Figure readings", "", _FIGURES_INTRO, ""]
    for f in figures:
        lines += _figure_block(f)
    return lines


def _fmt_p(p: float) -> str:
    return "–" if p != p else ("< 0.001" if p < 0.001 else f"{p:.3f}")


def _figure_block(f: FigureReading) -> list[str]:
    head = f"#### {f.where} — {f.label} (`{f.default}` → `{f.source}`)"
    if f.default is None:
        return [head, "", "No default experiment is named for this figure.", ""]
    if f.points is None:
        return [head, "", f.changes, "", "(The curves are not among the rows this section compares.)", ""]
    rows = [
        [
            p.dataset,
            p.method,
            f"{p.x:g}",
            f"{p.default_mean:.1f} ± {p.default_std:.1f} (n = {p.default_n})",
            f"{p.reading_mean:.1f} ± {p.reading_std:.1f} (n = {p.reading_n})",
            f"{p.reading_mean - p.default_mean:+.1f}",
            _fmt_p(p.p),
        ]
        for p in f.points
    ]
    lines = [head, "", f.changes, ""]
    lines += md_table(
        ["dataset", "method", f.x_name, "default", "reading", "reading − default", "paired p"], rows, True
    ).splitlines()
    lines.append("")
    if f.grid_covered < f.grid_points:
        lines += [
            f"The reading has {f.grid_covered} of the default's {f.grid_points} (dataset, method, n, S) "
            "points (a transformer's own dimension, and so its S grid, may differ under a reading).",
            "",
        ]
    if not f.claims:
        return lines + [
            "No claim's checks compare the same points under this reading as under the default.",
            "",
        ]
    rows = [
        [f"`{c.id}`", c.default, c.reading, "changes" if c.default != c.reading else "same"] for c in f.claims
    ]
    return lines + [
        "Claims that read these rows, default vs with the reading's rows in place of the default's:",
        "",
        *md_table(["claim", "default", "with the reading", ""], rows).splitlines(),
        "",
    ]
