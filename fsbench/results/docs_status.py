"""The per-paper status table of ``docs/reproductions.md``, generated from the committed reports.

Result numbers are kept out of the prose of the README and ``docs/``. Where a status table is useful
(how many printed table cells agree with each paper, how many of its claims hold) it is generated from
the summary that opens every committed ``results/<paper>/REPORT.md`` and written between two markers::

    <!-- BEGIN generated: status -->
    ...
    <!-- END generated: status -->

:func:`render_status` builds the block, :func:`update_docs` rewrites it in place (``fsbench build`` calls
it after the reports), and ``tests/test_docs.py`` checks that the committed block equals what
:func:`render_status` gives on the committed reports. Only the reports' summary lines are read (the
lines the one report writer prints under "Comparison with the paper ... — summary"); a result
directory without them (e.g. ``results/scale/``, not a paper) is left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from fsbench.results.tables import md_table

BEGIN = "<!-- BEGIN generated: status -->"
END = "<!-- END generated: status -->"
REPORT = "REPORT.md"

_CELLS = re.compile(r"\*\*Table cells: (\d+) of (\d+) comparable cells agree with the paper\*\*")
_CLAIMS = re.compile(
    r"\*\*Claims: (\d+) hold, (\d+) do not hold, (\d+) not evaluable\*\* \(results missing\), "
    r"(\d+) not machine-checkable — (\d+) in all\."
)
_EXPLAINED = re.compile(r"\*\*Of (\d+) differing cells: (\d+) explained by a reading")
_NO_CELLS = "**No printed table cell can be compared**"


@dataclass(frozen=True)
class PaperStatus:
    """The counts of one paper's report summary."""

    paper: str
    cells_agree: int
    cells_compared: int
    claims_hold: int
    claims_fail: int
    claims_not_evaluable: int
    claims_not_checkable: int
    claims_total: int
    #: differing cells explained by an alternative reading, and all differing cells (None: no readings)
    explained: tuple[int, int] | None
    #: the report says no printed cell of the paper can be compared (our copy of the paper lacks them)
    no_cells: bool


def read_status(report: Path) -> PaperStatus | None:
    """The summary counts of one ``REPORT.md``, or None if it has no paper comparison summary.

    Parameters
    ----------
    report : Path
        A ``results/<paper>/REPORT.md``.

    Returns
    -------
    PaperStatus or None

    Raises
    ------
    ValueError
        The report has a cell count but no claim count (a summary format this module does not know).
    """
    text = report.read_text(encoding="utf-8")
    cells = _CELLS.search(text)
    if cells is None:
        return None
    claims = _CLAIMS.search(text)
    if claims is None:
        raise ValueError(f"{report}: a table-cell count but no claim count in its summary")
    explained = _EXPLAINED.search(text)
    c = [int(g) for g in claims.groups()]
    return PaperStatus(
        paper=report.parent.name,
        cells_agree=int(cells.group(1)),
        cells_compared=int(cells.group(2)),
        claims_hold=c[0],
        claims_fail=c[1],
        claims_not_evaluable=c[2],
        claims_not_checkable=c[3],
        claims_total=c[4],
        explained=(int(explained.group(2)), int(explained.group(1))) if explained else None,
        no_cells=_NO_CELLS in text,
    )


def render_status(results_root: Path, link_prefix: str = "../results") -> str:
    """The status table (Markdown) of every paper report under ``results_root``.

    Parameters
    ----------
    results_root : Path
        The directory holding ``<paper>/REPORT.md`` (the repository's ``results/``).
    link_prefix : str
        How the document that shows the table reaches ``results_root`` (``docs/`` -> ``../results``).

    Returns
    -------
    str
        A Markdown table, one row per paper in name order, ending with a newline.
    """
    header = [
        "paper",
        "report",
        "table cells agreeing / compared",
        "claims holding / stated",
        "differing cells explained by a reading",
    ]
    rows = []
    for report in sorted(Path(results_root).glob(f"*/{REPORT}")):
        st = read_status(report)
        if st is None:
            continue
        cells = f"{st.cells_agree} / {st.cells_compared}" + (
            " (the paper's tables are not in our copy)" if st.no_cells else ""
        )
        others = [
            f"{n} {what}"
            for n, what in (
                (st.claims_fail, "do not hold"),
                (st.claims_not_evaluable, "not evaluable"),
                (st.claims_not_checkable, "not machine-checkable"),
            )
            if n
        ]
        claims = f"{st.claims_hold} / {st.claims_total}" + (f" ({', '.join(others)})" if others else "")
        explained = f"{st.explained[0]} of {st.explained[1]}" if st.explained else "-"
        link = f"[`results/{st.paper}/{REPORT}`]({link_prefix}/{st.paper}/{REPORT})"
        rows.append([st.paper, link, cells, claims, explained])
    return md_table(header, rows)


def replace_block(text: str, block: str) -> str:
    """``text`` with the lines between the :data:`BEGIN` and :data:`END` markers replaced by ``block``.

    Raises
    ------
    ValueError
        The markers are missing, repeated or out of order.
    """
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise ValueError(f"expected one {BEGIN} ... {END} block")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{block}{END}{tail}"


def update_docs(docs_path: Path, results_root: Path, link_prefix: str = "../results") -> bool:
    """Rewrite the generated status block of ``docs_path`` from the reports under ``results_root``.

    Parameters
    ----------
    docs_path : Path
        The document holding the markers (``docs/reproductions.md``).
    results_root : Path
        The directory holding ``<paper>/REPORT.md``.
    link_prefix : str
        See :func:`render_status`.

    Returns
    -------
    bool
        True if the file changed.
    """
    docs_path = Path(docs_path)
    old = docs_path.read_text(encoding="utf-8")
    new = replace_block(old, render_status(results_root, link_prefix))
    if new == old:
        return False
    docs_path.write_text(new, encoding="utf-8")
    return True
