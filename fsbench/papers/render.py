"""Markdown of the paper comparison: the ``--paper`` part of ``fsbench report``.

The top layer of the paper comparison (render → claims → cells → values). :func:`paper_sections`
reads a paper's values and configs (:mod:`fsbench.papers.values`), compares every printed table
(:mod:`fsbench.papers.cells`) and evaluates every claim (:mod:`fsbench.papers.claims`), and writes

* one Markdown table per printed table with cells: setting, method, the paper's value (± std), ours
  in the paper's unit, the difference and a verdict (the agreement rule is that of
  :func:`fsbench.papers.cells.compare_table`; the table legends restate it briefly);
* where the paper declares a ``cpu_shape`` rule, its CPU-time tables compared by their shape (log-log
  slopes with bootstrap CIs, Kendall's τ of the order of methods; :mod:`fsbench.papers.cpu_shape`);
* the verdict of every claim (holds / does not hold / not evaluable) with the numbers deciding it;
* a summary for the top of ``REPORT.md`` (counts, and the substitutions and defaults of the
  experiments in the results).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from fsbench.papers.cells import (
    NO_STD_RULES,
    RELATIVE_TOL,
    VALUE_METRICS,
    CellResult,
    _compare_rank_table,
    _Ctx,
    _fmt_p,
    _setting,
    agreement_rule,
    compare_in_context,
    method_frame,
    ours_text,
)
from fsbench.papers.claims import FAILS, HOLDS, NOT_CHECKABLE, NOT_EVALUABLE, evaluate_claim
from fsbench.papers.cpu_shape import compare_cpu_shape, cpu_shape_markdown, cpu_shape_summary
from fsbench.papers.readings import ReadingsReport
from fsbench.papers.sources import experiments_of
from fsbench.papers.values import (
    DEFAULT_REPEATS,
    card_note,
    load_paper_values,
    paper_values_path,
    read_configs,
)
from fsbench.results.paper_values import pm
from fsbench.results.tables import md_table

_MARK = {HOLDS: "✓", FAILS: "✗", NOT_EVALUABLE: "?", NOT_CHECKABLE: "–"}
_ROMAN_ORDER = ["table2", "table3", "table4", "table5", "table6", "table7", "table8", "table9"]


def _one_line(text: Any) -> str:
    return " ".join(str(text).split())


def _exp_tag(exp: Any) -> str:
    names = experiments_of(exp)
    return f" ({', '.join(f'`{e}`' for e in names)})" if names else ""


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


def _unit(table: dict[str, Any]) -> str:
    if table["metric"] in ("error", "accuracy"):
        return f"{table['metric']} %"
    return str(table.get("unit") or table.get("column") or table["metric"])


def _error_table_md(table: dict[str, Any], cells: list[CellResult], ctx: _Ctx) -> list[str]:
    exps = experiments_of(table.get("experiment"))
    unit = _unit(table)
    cfg = ctx.configs.get(exps[0]) if exps else None
    n_paper = cfg.repeats() if cfg else DEFAULT_REPEATS
    lines = [
        f"{unit}; paper: {table.get('statistic', '')}; ours: mean ± std over our repeats (n), each method "
        "over the repeats it finished (a cell is compared with the paper's number, not with another method: "
        "not paired)"
        + (f"; Welch's t-test with the paper's n = {n_paper} (config `repeats`)" if n_paper else "")
        + f". Agrees = within the paper's ± std or not significantly different (5 %); "
        f"without a paper std: {NO_STD_RULES[table['metric']]}.",
        "",
    ]
    rows = []
    digits = {"value": int(table.get("digits", 1))}
    digits.update({str(v.get("label", k)): int(v.get("digits", 1)) for k, v in _also(table).items()})
    for c in cells:
        verdict = c.verdict + (" ⚠ doubtful" if c.doubtful else "")
        nd = digits.get(c.quantity or "value", 1)
        rows.append(
            [
                c.setting,
                c.method + (f" ({c.quantity})" if c.quantity else ""),
                pm(c.paper, c.paper_std, nd) + (" (ext.)" if c.status == "external" else ""),
                ours_text(c, nd),
                _fmt_diff(c.diff, nd),
                _fmt_p(c.p) if c.p == c.p else "–",
                verdict,
            ]
        )
    lines += md_table(
        ["setting", "method", "paper", "ours", "diff", "Welch p", "verdict"], rows, escape=True
    ).splitlines()
    return lines


def _also(table: dict[str, Any]) -> dict[str, Any]:
    return table.get("also_compare") or {}


#: How a CPU-time table's legend says why it is normalised, unless the table says it (``normalisation``).
_CPU_NORMALISATION = "the one rule for CPU-time cells: only ratios compare across machines"


def _cpu_table_md(table: dict[str, Any], cells: list[CellResult]) -> list[str]:
    lines = [
        "CPU time, normalised to the fastest entry of the whole table on both sides "
        f"({table.get('normalisation') or _CPU_NORMALISATION}); ours = mean selection "
        f"CPU time (`fit_cpu_s`) over the repeats each method finished (not paired). Without a paper std: "
        f"{NO_STD_RULES['cpu_time']}.",
        "",
    ]
    rows = []
    for c in cells:
        rows.append(
            [
                c.setting + (f" ({c.note})" if c.note and "ours:" in c.note else ""),
                c.method,
                f"{c.paper:g}",
                _fmt(c.paper_norm, 1),
                ours_text(c),
                f"{c.ours_seconds:.3g}" if c.ours_seconds == c.ours_seconds else "–",
                _fmt_diff(c.diff),
                f"×{c.ratio:.2g}" if c.ratio == c.ratio else "–",
                c.verdict + (" ⚠ doubtful" if c.doubtful else ""),
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


def _rank_table_md(cells: list[CellResult], notes: dict[str, str]) -> list[str]:
    lines = [
        "Share (%) of cells where the method ranks first / second / lower, ours from `fsbench.stats."
        "rank_shares` over the section's experiments present in these results (fsbench's own methods "
        "only; the paper's §V-C ranks include the external methods). "
        + "; ".join(notes.values())
        + f". Without a paper std: {NO_STD_RULES['rank_share']}.",
        "",
    ]
    rows = []
    for c in cells:
        ours = "not run" if c.ours != c.ours else f"{c.ours:.1f} (k = {c.n_ours})"
        rows.append(
            [
                c.setting,
                c.method,
                f"{c.paper:.1f}",
                ours,
                _fmt_diff(c.diff),
                c.verdict + (" ⚠ doubtful" if c.doubtful else ""),
            ]
        )
    lines += md_table(
        ["setting", "method", "paper", "ours", "diff", "verdict"], rows, escape=True
    ).splitlines()
    return lines


def _paper_only_md(table: dict[str, Any]) -> list[str]:
    """The paper's values of a table we have no results for, in the printed layout."""
    cells = table.get("cells", [])
    methods = list(dict.fromkeys([*(table.get("columns") or []), *(str(c["method"]) for c in cells)]))
    methods = [m for m in methods if any(str(c.get("method")) == m for c in cells)]
    ext = {str(c["method"]) for c in cells if c.get("external")}
    grid: dict[str, dict[str, str]] = {}
    for c in cells:
        v = pm(float(c["value"]), float(c["std"]) if c.get("std") is not None else None)
        grid.setdefault(_setting(c), {})[str(c["method"])] = v + (" ⚠" if c.get("doubtful") else "")
    header = ["setting", *(f"{m} (ext.)" if m in ext else m for m in methods)]
    rows = [[k, *(row.get(m, "") for m in methods)] for k, row in grid.items()]
    return md_table(header, rows, escape=True).splitlines() + [
        "",
        "(ext.) = copied by the paper from another publication; ⚠ = doubtful.",
    ]


def _table_counts(cells: list[CellResult]) -> dict[str, int]:
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


def _substitutions(ctx: _Ctx) -> list[str]:
    lines = []
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
        lines.append(f"- **{name}** (`{cfg.file.name}`)" + (f" — {desc}" if desc else ""))
        lines += [f"  - {_esc(i)}" for i in items] or ["  - (none stated)"]
    return lines or ["- no experiment of the paper is in these results"]


def paper_sections(
    paper: str,
    all_df: pd.DataFrame,
    root: Path,
    values_path: Path | None = None,
    cards_dir: Path | None = None,
) -> tuple[list[str], str]:
    """Paper-vs-ours Markdown for ``fsbench report --paper PAPER``.

    Parameters
    ----------
    paper : str
        Paper id (``configs/<paper>/paper_values.yaml``).
    all_df : DataFrame
        The rows of every results.csv found by the report.
    root : Path
        Directory of REPORT.md (kept for relative links; unused for now).
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
    path = Path(values_path) if values_path is not None else paper_values_path(paper)
    values = load_paper_values(paper, path)
    configs = read_configs(path.parent)
    df = method_frame(all_df) if len(all_df) else all_df
    ctx = _Ctx(values, configs, df, cards_dir)
    readings = ReadingsReport(values, all_df, configs, cards_dir=cards_dir)  # the readings section

    title = values.get("citation") or values.get("title") or paper
    body = [f"## Paper vs ours: {paper}", "", f"_{_esc(title)}_", ""]
    per_table: list[tuple[dict[str, Any], list[CellResult], str]] = []
    tables = sorted(
        (t for t in values.get("tables", []) if t.get("cells")),
        key=lambda t: _ROMAN_ORDER.index(t["id"]) if t["id"] in _ROMAN_ORDER else 99,
    )
    for t in tables:
        metric = t.get("metric")
        exp = t.get("experiment")
        head = f"### Table {t.get('number', '?')} — {t.get('caption', '')}" + _exp_tag(exp)
        body += [head, ""]
        if metric in (*VALUE_METRICS, "cpu_time"):
            cells = compare_in_context(t, ctx)
            footnotes = readings.add_table(t, cells)  # classifies differing cells, marks substitutions
            if ctx.ran(t):
                status = "compared"
                body += _cpu_table_md(t, cells) if metric == "cpu_time" else _error_table_md(t, cells, ctx)
                body += footnotes
            else:
                status = ctx.missing_reason((experiments_of(exp) or [None])[0])
                body += [
                    f"**{status[0].upper()}{status[1:]}.** The paper's values ({t.get('unit', '')}):",
                    "",
                ]
                body += _paper_only_md(t)
        elif metric == "rank_share":
            cells, notes = _compare_rank_table(t, ctx)
            readings.add_table(t, cells, mark=False)
            present = any(e in ctx.experiments for exps in (t.get("sections") or {}).values() for e in exps)
            status = "compared" if present else "not run (no experiment of the table's sections)"
            body += _rank_table_md(cells, notes)
        else:
            continue
        per_table.append((t, cells, status))
        body.append("")
    # CPU-time tables by their shape (slopes, order), when the paper declares a rule: beside the cells
    shape = compare_cpu_shape(values, df)
    if shape is not None:
        body += cpu_shape_markdown(shape)

    # ---- claims
    entries = {e["id"]: e for e in [*values.get("figures", []), *values.get("tables", [])]}
    claim_rows = []
    claim_lines: list[str] = []
    tally = {HOLDS: 0, FAILS: 0, NOT_EVALUABLE: 0, NOT_CHECKABLE: 0}
    for cl in values.get("claims", []):
        refs = cl.get("figure") or cl.get("table") or ""
        refs = [str(r) for r in refs] if isinstance(refs, list) else [str(refs)]
        where = ", ".join(refs)
        entry = entries.get(refs[0], {})  # a claim on several figures reads the first one's experiment
        status, results = evaluate_claim(cl, df, entry.get("experiment"), ctx.missing_reason, entry)
        tally[status] += 1
        marks = readings.claim_marker(cl.get("figure") or cl.get("table"))  # substitutions of its data
        claim_rows.append(
            [f"{_MARK[status]} {status}", f"`{cl['id']}`{marks}", where, cl.get("statement", "")]
        )
        place = ", ".join(x for x in (where, f"§{cl.get('source', '?')}") if x)
        claim_lines.append(f"- {_MARK[status]} **{cl['id']}** ({place}) — **{status}**")
        claim_lines.append(f"  - paper: “{_esc(cl.get('quote', ''))}”")
        for chk, r in zip(cl.get("checks") or [], results):
            claim_lines.append(f"  - {_MARK[r.status]} `{chk.get('kind')}`: {_esc(r.detail)} → {r.status}")
        if cl.get("defaults"):
            claim_lines.append(f"  - _choices: {_esc(' '.join(str(cl['defaults']).split()))}_")
        if cl.get("paper_consistent") is not None:
            consistent = str(cl["paper_consistent"]).lower()
            claim_lines.append(f"  - _paper's own numbers consistent with the statement: {consistent}_")
    body += [
        f"### Claims ({len(claim_rows)})",
        "",
        "Each claim holds when all its checks hold (the checks and every tolerance or range the paper "
        "does not state are in `paper_values.yaml`, marked [D]); not evaluable = results missing.",
        "",
        *md_table(["result", "claim", "where", "statement"], claim_rows, escape=True).splitlines(),
        "",
        *claim_lines,
        "",
        *readings.section(),
    ]

    # ---- summary
    tot = {k: 0 for k in _table_counts([])}
    trows = []
    numbers = [t.get("number", t["id"]) for t, _, _ in per_table]
    for t, cells, status in per_table:
        k = _table_counts(cells)
        for key in tot:
            tot[key] += k[key]
        number = t.get("number", t["id"])
        trows.append(
            [
                f"{number} (`{t['id']}`)" if numbers.count(number) > 1 else number,
                _exp_tag(t.get("experiment"))[2:-1] or "sections",
                status,
                str(k["compared"]),
                str(k["agree"]),
                str(k["agree_secondary"]),
                str(k["differ"]),
                str(k["external"]),
                str(k["doubtful"]),
            ]
        )
    n_claims = sum(tally.values())
    no_cells = values.get("no_table_cells")
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
    summary = [
        f"## Comparison with the paper {paper} — summary",
        "",
        agreement_rule(),
        "",
        *([f"- **No printed table cell can be compared**: {_one_line(no_cells)}"] if no_cells else []),
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
        f"{tally[NOT_CHECKABLE]} not machine-checkable — {n_claims} in all.",
        *(cpu_shape_summary(shape) if shape is not None else []),
        *readings.summary_lines(),
        "",
        *(md_table(header, trows, escape=True).splitlines() + [""] if trows else []),
        "### Substitutions and defaults (experiments in these results)",
        "",
        "Per experiment: the first sentence of each dataset card's notes, then the config's [D] choices "
        "(defaults where the paper is silent) and its caveats.",
        "",
        *_substitutions(ctx),
        "",
    ]
    return summary, "\n".join(body)
