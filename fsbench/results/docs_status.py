"""The per-paper status table of ``docs/reproductions.md``, generated from the committed comparisons.

Result numbers are kept out of the prose of the README and ``docs/``. Where a status table is useful
(how many printed table cells agree with each paper, how many of its claims hold) it is generated from
the comparison with the paper that ``fsbench build`` writes beside every report,
``results/<paper>/comparison.json`` (:mod:`fsbench.results.comparison_file`; the object it holds:
:mod:`fsbench.papers.comparison`), and written between two markers::

    <!-- BEGIN generated: status -->
    ...
    <!-- END generated: status -->

:func:`render_status` builds the block, :func:`update_docs` rewrites it in place (``fsbench build`` calls
it after the reports), and ``tests/test_docs.py`` checks that the committed block equals what
:func:`render_status` gives on the committed comparisons. Only the counts the comparison stores are read
(its ``totals``, ``claim_counts`` and ``differing_counts``); ``REPORT.md`` is never read. A result
directory without a ``comparison.json`` (e.g. ``results/scale/``, not a paper) is left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fsbench.results.comparison_file import (
    CLAIM_FAILS,
    CLAIM_HOLDS,
    CLAIM_NOT_CHECKABLE,
    CLAIM_NOT_EVALUABLE,
    COMPARISON_FILE,
    EXPLAINED,
    read_comparison_file,
)
from fsbench.results.tables import md_table

BEGIN = "<!-- BEGIN generated: status -->"
END = "<!-- END generated: status -->"
#: The report each row links to.
REPORT = "REPORT.md"


@dataclass(frozen=True)
class PaperStatus:
    """The counts of one paper's comparison."""

    paper: str
    cells_agree: int
    cells_compared: int
    claims_hold: int
    claims_fail: int
    claims_not_evaluable: int
    claims_not_checkable: int
    claims_total: int
    #: differing cells explained by an alternative reading, and all differing cells
    explained: tuple[int, int]
    #: no printed cell of the paper can be compared (our copy of the paper lacks them)
    no_cells: bool


def read_status(folder: Path) -> PaperStatus | None:
    """The counts of one paper folder's ``comparison.json``, or None if it has none (not a paper).

    Parameters
    ----------
    folder : Path
        A ``results/<paper>`` folder.

    Returns
    -------
    PaperStatus or None
    """
    data = read_comparison_file(folder)
    if data is None:
        return None
    cells, claims, differing = data["totals"], data["claim_counts"], data["differing_counts"]
    return PaperStatus(
        paper=Path(folder).name,
        cells_agree=int(cells["agree"]),
        cells_compared=int(cells["compared"]),
        claims_hold=int(claims[CLAIM_HOLDS]),
        claims_fail=int(claims[CLAIM_FAILS]),
        claims_not_evaluable=int(claims[CLAIM_NOT_EVALUABLE]),
        claims_not_checkable=int(claims[CLAIM_NOT_CHECKABLE]),
        claims_total=sum(int(n) for n in claims.values()),
        explained=(int(differing[EXPLAINED]), sum(int(n) for n in differing.values())),
        no_cells=data.get("no_table_cells") is not None,
    )


def render_status(results_root: Path, link_prefix: str = "../results") -> str:
    """The status table (Markdown) of every paper report under ``results_root``.

    Parameters
    ----------
    results_root : Path
        The directory holding ``<paper>/comparison.json`` (the repository's ``results/``).
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
    for comparison in sorted(Path(results_root).glob(f"*/{COMPARISON_FILE}")):
        st = read_status(comparison.parent)
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
        explained = f"{st.explained[0]} of {st.explained[1]}"
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
    """Rewrite the generated status block of ``docs_path`` from the comparisons under ``results_root``.

    Parameters
    ----------
    docs_path : Path
        The document holding the markers (``docs/reproductions.md``).
    results_root : Path
        The directory holding ``<paper>/comparison.json``.
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
