"""Markdown of the paper comparison: the ``--paper`` part of ``fsbench report``, rendered from the object.

The top layer of the paper comparison (render → compare → readings → comparison → claims → cells →
values). :func:`render_comparison` writes the Markdown of a
:class:`~fsbench.papers.comparison.PaperComparison` (computed by
:func:`fsbench.papers.compare.compare_paper`) and computes nothing:

* one Markdown table per printed table with cells: setting, method, the paper's value (± std), ours
  in the paper's unit, the difference and a verdict (the agreement rule is that of
  :func:`fsbench.papers.cells.compare_table`; the table legends restate it briefly);
* where the paper declares a ``cpu_shape`` rule, its CPU-time tables compared by their shape (log-log
  slopes with bootstrap CIs, Kendall's τ of the order of methods; :mod:`fsbench.papers.cpu_shape`);
* the verdict of every claim (holds / does not hold / not evaluable) with the numbers deciding it, and
  beside it its verdict under every reading that changes rows it reads;
* the readings section (:mod:`fsbench.papers.readings.markdown`);
* a summary for the top of ``REPORT.md`` (counts, and the substitutions and defaults of the
  experiments in the results).

:func:`paper_sections` computes and renders in one call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from fsbench.papers.cells import NO_STD_RULES, RELATIVE_TOL, CellResult, agreement_rule, format_p, ours_text
from fsbench.papers.claims import FAILS, HOLDS, NOT_CHECKABLE, NOT_EVALUABLE
from fsbench.papers.compare import compare_paper
from fsbench.papers.comparison import ClaimUnderReading, ExperimentChoices, PaperComparison, TableComparison
from fsbench.papers.cpu_shape import cpu_shape_markdown, cpu_shape_summary
from fsbench.papers.readings import markdown as readings_md
from fsbench.papers.readings.markdown import footnote_lines, shown_setting
from fsbench.results.paper_values import pm
from fsbench.results.tables import md_table

_MARK = {HOLDS: "✓", FAILS: "✗", NOT_EVALUABLE: "?", NOT_CHECKABLE: "–"}


def _exp_tag(experiments: list[str]) -> str:
    return f" ({', '.join(f'`{e}`' for e in experiments)})" if experiments else ""


def _fmt(x: float | None, nd: int = 1) -> str:
    if x is None or x != x:
        return "–"
    return f"{x:.{nd}f}"


def _fmt_diff(x: float, nd: int = 1) -> str:
    if x != x:
        return "–"
    v = round(x, nd)
    return f"{v if v != 0 else 0.0:+.{nd}f}"


def _esc(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _verdict(c: CellResult) -> str:
    return c.verdict + (" ⚠ doubtful" if c.doubtful else "")


def _error_table_md(t: TableComparison) -> list[str]:
    lines = [
        f"{t.unit}; paper: {t.statistic}; ours: mean ± std over our repeats (n), each method "
        "over the repeats it finished (a cell is compared with the paper's number, not with another method: "
        "not paired)"
        + (f"; Welch's t-test with the paper's n = {t.n_paper} (config `repeats`)" if t.n_paper else "")
        + f". Agrees = within the paper's ± std or not significantly different (5 %); "
        f"without a paper std: {NO_STD_RULES[t.metric]}.",
        "",
    ]
    rows = []
    for c in t.cells:
        nd = t.digits.get(c.quantity or "value", 1)
        rows.append(
            [
                shown_setting(c),
                c.method + (f" ({c.quantity})" if c.quantity else ""),
                pm(c.paper, c.paper_std, nd) + (" (ext.)" if c.status == "external" else ""),
                ours_text(c, nd),
                _fmt_diff(c.diff, nd),
                format_p(c.p) if c.p == c.p else "–",
                _verdict(c),
            ]
        )
    lines += md_table(
        ["setting", "method", "paper", "ours", "diff", "Welch p", "verdict"], rows, escape=True
    ).splitlines()
    return lines


#: How a CPU-time table's legend says why it is normalised, unless the table says it (``normalisation``).
_CPU_NORMALISATION = "the one rule for CPU-time cells: only ratios compare across machines"


def _cpu_table_md(t: TableComparison) -> list[str]:
    lines = [
        "CPU time, normalised to the fastest entry of the whole table on both sides "
        f"({t.normalisation or _CPU_NORMALISATION}); ours = mean selection "
        f"CPU time (`fit_cpu_s`) over the repeats each method finished (not paired). Without a paper std: "
        f"{NO_STD_RULES['cpu_time']}.",
        "",
    ]
    rows = []
    for c in t.cells:
        rows.append(
            [
                shown_setting(c) + (f" ({c.note})" if c.note and "ours:" in c.note else ""),
                c.method,
                f"{c.paper:g}",
                _fmt(c.paper_norm, 1),
                ours_text(c),
                f"{c.ours_seconds:.3g}" if c.ours_seconds == c.ours_seconds else "–",
                _fmt_diff(c.diff),
                f"×{c.ratio:.2g}" if c.ratio == c.ratio else "–",
                _verdict(c),
            ]
        )
    lines += md_table(
        [
            "setting",
            "method",
            "paper",
            "paper ÷ table min",
            "ours ÷ table min",
            "ours (s)",
            "diff",
            "ratio",
            "verdict",
        ],
        rows,
        escape=True,
    ).splitlines()
    return lines


def _rank_table_md(t: TableComparison) -> list[str]:
    lines = [
        "Share (%) of cells where the method ranks first / second / lower, ours from `fsbench.results.stats."
        "rank_shares` over the section's experiments present in these results (fsbench's own methods "
        "only; the paper's §V-C ranks include the external methods). "
        + "; ".join(t.notes)
        + f". Without a paper std: {NO_STD_RULES['rank_share']}.",
        "",
    ]
    rows = []
    for c in t.cells:
        ours = "not run" if c.ours != c.ours else f"{c.ours:.1f} (k = {c.n_ours})"
        rows.append([shown_setting(c), c.method, f"{c.paper:.1f}", ours, _fmt_diff(c.diff), _verdict(c)])
    lines += md_table(
        ["setting", "method", "paper", "ours", "diff", "verdict"], rows, escape=True
    ).splitlines()
    return lines


def _paper_only_md(t: TableComparison) -> list[str]:
    """The paper's values of a table we have no results for, in the printed layout."""
    # one cell per printed number judged as the cell's value, in the order the paper-values file lists them
    cells = sorted((c for c in t.cells if not c.quantity), key=lambda c: c.cell_index)
    methods = list(dict.fromkeys([*t.columns, *(c.method for c in cells)]))
    methods = [m for m in methods if any(c.method == m for c in cells)]
    ext = {c.method for c in cells if c.status == "external"}
    grid: dict[str, dict[str, str]] = {}
    for c in cells:
        grid.setdefault(c.setting, {})[c.method] = pm(c.paper, c.paper_std) + (" ⚠" if c.doubtful else "")
    header = ["setting", *(f"{m} (ext.)" if m in ext else m for m in methods)]
    rows = [[k, *(row.get(m, "") for m in methods)] for k, row in grid.items()]
    return md_table(header, rows, escape=True).splitlines() + [
        "",
        "(ext.) = copied by the paper from another publication; ⚠ = doubtful.",
    ]


def _table_md(cmp: PaperComparison, t: TableComparison) -> list[str]:
    lines = [
        f"### Table {t.number if t.number is not None else '?'} — {t.caption}" + _exp_tag(t.experiments),
        "",
    ]
    if t.metric == "rank_share":
        return lines + _rank_table_md(t)
    if t.status != "compared":
        return lines + [
            f"**{t.status[0].upper()}{t.status[1:]}.** The paper's values ({t.paper_unit}):",
            "",
            *_paper_only_md(t),
        ]
    lines += _cpu_table_md(t) if t.metric == "cpu_time" else _error_table_md(t)
    notes = {s.mark: s for s in cmp.substitutions}
    return lines + footnote_lines([notes[k] for k in t.footnotes])


#: What the table of claims under the readings shows (rules: :mod:`fsbench.papers.readings.claims`).
CLAIM_READINGS_INTRO = (
    "Every claim re-evaluated by the same checks with a reading's rows in place of the default's, for each "
    "reading that was run and changes rows the claim reads (a reading of its table or figure, or of the same "
    "run, that replaces one of the methods it names). The default's verdicts and counts above are never "
    "changed by a reading. A verdict under a reading is set beside the default's only when every check "
    "compares the same points (datasets, S, n) as under the default; otherwise it is marked not comparable, "
    "with the points the reading covers. The checks' numbers are in the list below."
)


def _under_reading(u: ClaimUnderReading) -> str:
    """A claim's verdict under a reading as the tables show it."""
    if u.note.startswith("not re-evaluated"):
        return u.note
    text = f"{_MARK.get(u.status, '?')} {u.status}"
    return text if u.comparable else f"not comparable ({u.note}): {text}"


def _claim_readings_md(cmp: PaperComparison) -> list[str]:
    """The table of every claim under every reading that touches it ([] if none does)."""
    rows = []
    for cl in cmp.claims:
        for u in cl.readings:
            same = "" if not u.comparable else ("same" if u.status == cl.status else "**changes**")
            rows.append(
                [
                    f"`{cl.id}`",
                    f"{_MARK[cl.status]} {cl.status}",
                    f"`{u.reading}` {u.label}",
                    _under_reading(u),
                    same,
                ]
            )
    if not rows:
        return []
    return [
        "#### Claims under the readings",
        "",
        CLAIM_READINGS_INTRO,
        "",
        *md_table(
            ["claim", "default", "reading", "under the reading", "vs default"], rows, escape=True
        ).splitlines(),
        "",
    ]


def _claims_md(cmp: PaperComparison) -> list[str]:
    rows = []
    lines: list[str] = []
    for cl in cmp.claims:
        rows.append([f"{_MARK[cl.status]} {cl.status}", f"`{cl.id}`{cl.marks}", cl.where, cl.statement])
        place = ", ".join(x for x in (cl.where, f"§{cl.source}") if x)
        lines.append(f"- {_MARK[cl.status]} **{cl.id}** ({place}) — **{cl.status}**")
        lines.append(f"  - paper: “{_esc(cl.quote)}”")
        for chk in cl.checks:
            lines.append(f"  - {_MARK[chk.status]} `{chk.kind}`: {_esc(chk.detail)} → {chk.status}")
        if cl.defaults:
            lines.append(f"  - _choices: {_esc(cl.defaults)}_")
        if cl.paper_consistent is not None:
            lines.append(f"  - _paper's own numbers consistent with the statement: {cl.paper_consistent}_")
        for u in cl.readings:
            lines.append(f"  - under reading `{u.reading}` ({_esc(u.label)}): {_esc(_under_reading(u))}")
            for chk in u.checks:
                lines.append(
                    f"    - {_MARK.get(chk.status, '?')} `{chk.kind}`: {_esc(chk.detail)} → {chk.status}"
                )
    return [
        f"### Claims ({len(rows)})",
        "",
        "Each claim holds when all its checks hold (the checks and every tolerance or range the paper "
        "does not state are in `paper_values.yaml`, marked [D]); not evaluable = results missing.",
        "",
        *md_table(["result", "claim", "where", "statement"], rows, escape=True).splitlines(),
        "",
        *_claim_readings_md(cmp),
        *lines,
        "",
    ]


def _choices_md(choices: list[ExperimentChoices]) -> list[str]:
    lines = []
    for e in choices:
        lines.append(
            f"- **{e.experiment}** (`{e.config}`)" + (f" — {e.description}" if e.description else "")
        )
        lines += [f"  - {_esc(i)}" for i in e.items] or ["  - (none stated)"]
    return lines or ["- no experiment of the paper is in these results"]


def _summary_md(cmp: PaperComparison) -> list[str]:
    tot, tally = cmp.totals, cmp.claim_counts
    trows = [
        [
            t.name,
            _exp_tag(t.experiments)[2:-1] or "sections",
            t.status,
            *(
                str(t.counts[k])
                for k in ("compared", "agree", "agree_secondary", "differ", "external", "doubtful")
            ),
        ]
        for t in cmp.tables
    ]
    header = [
        "table",
        "experiment",
        "status",
        "compared",
        "agree",
        f"agree (secondary, {100 * RELATIVE_TOL:g} %)",
        "differ",
        "external",
        "doubtful",
    ]
    no_cells = cmp.no_table_cells
    return [
        f"## Comparison with the paper {cmp.paper} — summary",
        "",
        agreement_rule(),
        "",
        *([f"- **No printed table cell can be compared**: {no_cells}"] if no_cells else []),
        f"- **Table cells: {tot['agree']} of {tot['compared']} comparable cells agree with the paper** "
        f"({tot['within_std']} within the paper's ± std, {tot['not_sig_only']} more not significantly "
        f"different by Welch's t-test at 5 %, {tot['no_std_ok']} without a paper std within tolerance); "
        f"{tot['differ']} differ. Not compared: {tot['not_run']} not run, {tot['not_available']} dataset "
        f"not available, {tot['external']} external (other papers' numbers, context only), "
        f"{tot['other']} row references / untestable; {tot['doubtful']} doubtful cell(s) flagged and "
        "left out of the counts.",
        *(
            [
                f"- Under the secondary tolerance (no paper std: within max(our std, "
                f"{100 * RELATIVE_TOL:g} % of the paper's number, half a printed digit)): "
                f"{tot['agree_secondary']} of {tot['compared']} agree (main rule: {tot['agree']})."
            ]
            if tot["compared"]
            else []
        ),
        f"- **Claims: {tally[HOLDS]} hold, {tally[FAILS]} do not hold, "
        f"{tally[NOT_EVALUABLE]} not evaluable** (results missing), "
        f"{tally[NOT_CHECKABLE]} not machine-checkable — {sum(tally.values())} in all.",
        *(cpu_shape_summary(cmp.cpu_shape) if cmp.cpu_shape is not None else []),
        *readings_md.summary_lines(cmp),
        "",
        *(md_table(header, trows, escape=True).splitlines() + [""] if trows else []),
        "### Substitutions and defaults (experiments in these results)",
        "",
        "Per experiment: the first sentence of each dataset card's notes, then the config's [D] choices "
        "(defaults where the paper is silent) and its caveats.",
        "",
        *_choices_md(cmp.choices),
        "",
    ]


def render_comparison(cmp: PaperComparison) -> tuple[list[str], str]:
    """The Markdown of a paper comparison: the summary for the top of REPORT.md, and the per-table
    comparisons, the claims and the readings section.

    Parameters
    ----------
    cmp : PaperComparison
        The comparison (:func:`fsbench.papers.compare.compare_paper`, or read back from
        ``comparison.json``).

    Returns
    -------
    summary_lines : list of str
        Lines for the top of REPORT.md: counts of cells and claims, the substitutions and defaults.
    text : str
        The per-table comparisons, the claims and the readings section.
    """
    body = [f"## Paper vs ours: {cmp.paper}", "", f"_{_esc(cmp.title)}_", ""]
    for t in cmp.tables:
        body += [*_table_md(cmp, t), ""]
    if cmp.cpu_shape is not None:
        body += cpu_shape_markdown(cmp.cpu_shape)
    body += _claims_md(cmp)
    body += readings_md.section(cmp)
    return _summary_md(cmp), "\n".join(body)


def paper_sections(
    paper: str,
    all_df: pd.DataFrame,
    values_path: Path | None = None,
    cards_dir: Path | None = None,
) -> tuple[list[str], str]:
    """Paper-vs-ours Markdown for ``fsbench report --paper PAPER``: :func:`~fsbench.papers.compare.
    compare_paper` rendered by :func:`render_comparison`.

    Parameters
    ----------
    paper : str
        Paper id (``configs/<paper>/paper_values.yaml``).
    all_df : DataFrame
        The rows of every results.csv found by the report.
    values_path : Path, optional
        Explicit paper-values file; the experiment configs are read from its directory.
    cards_dir : Path, optional
        Dataset cards directory (default ``FSBENCH_CARDS_DIR`` or ``<repository>/datasets``).

    Returns
    -------
    summary_lines : list of str
        Lines for the top of REPORT.md: counts of cells and claims, the substitutions and defaults.
    text : str
        The per-table comparisons and the claims.

    Raises
    ------
    FileNotFoundError
        If the paper-values file does not exist.
    """
    return render_comparison(compare_paper(paper, all_df, values_path, cards_dir))
