"""The classes of a default's differing cells: explained by a reading, paper inconsistent, unexplained.

Rules in :mod:`fsbench.papers.readings`. A reading's cells are compared by the engine's own comparison,
passed in (``compare``): nothing here decides agreement.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fsbench.papers.cells import CellResult, ours_text
from fsbench.papers.readings.declared import Reading, reading_table
from fsbench.results.paper_values import pm

EXPLAINED = "explained"
INCONSISTENT = "paper inconsistent"
UNEXPLAINED = "unexplained"
#: The classes of a differing cell, in the order of precedence.
CLASSES = (EXPLAINED, INCONSISTENT, UNEXPLAINED)

Compare = Callable[[dict[str, Any]], list[CellResult]]


#: Reading id → {(index of the paper-values cell, quantity): the reading's comparison of it}.
ByReading = dict[str, dict[tuple[int, str], CellResult]]


@dataclass
class Classified:
    """A differing cell of the default and its class (rules: :mod:`fsbench.papers.readings`)."""

    index: int
    cell: CellResult
    cls: str
    reading: Reading | None = None
    reading_cell: CellResult | None = None
    evidence: str = ""
    tried: list[tuple[Reading, CellResult]] = field(default_factory=list)


def _decimals(x: float) -> int:
    """Decimals of a printed paper value (1 to 3): ours is shown with as many."""
    text = f"{x:g}"
    return min(max(len(text.split(".")[1]) if "." in text else 1, 1), 3)


def fmt_ours(c: CellResult, nd: int | None = None) -> str:
    """Ours as ``mean ± std (n = …)`` with the paper value's decimals (or ``nd``)."""
    return ours_text(c, _decimals(c.paper) if nd is None else nd)


def fmt_paper(c: CellResult, nd: int | None = None) -> str:
    """The paper's value (± std) with its own decimals (or ``nd``)."""
    return pm(c.paper, c.paper_std, _decimals(c.paper) if nd is None else nd)


def classify_table(
    table: Mapping[str, Any],
    cells: list[CellResult],
    readings: list[Reading],
    compare: Compare,
) -> tuple[list[Classified], ByReading]:
    """Classify every differing cell of one table.

    Parameters
    ----------
    table : mapping
        The paper-values table (its ``cells`` in the order ``cells`` was computed from).
    cells : list of CellResult
        The default's comparison of ``table`` (each with the index of its paper-values cell and the
        printed number it judges, ``cell_index`` and ``quantity``).
    readings : list of Reading
        Every reading of the paper; those of other tables are ignored.
    compare : callable
        The engine's comparison of a table in the paper-values shape (the same agreement rule as for
        ``cells``).

    Returns
    -------
    classified : list of Classified
        One per differing, counted cell of the default.
    by_reading : dict
        Reading id → {(index of the original cell, quantity): the reading's CellResult}.
    """
    mine = [r for r in readings if r.table == table.get("id")]
    by_reading: ByReading = {}
    for r in mine:
        t, index = reading_table(table, r)
        if not index:
            by_reading[r.id] = {}
            continue
        by_reading[r.id] = {(index[rc.cell_index], rc.quantity): rc for rc in compare(t)}
    raw_cells = list(table.get("cells", []))
    out = []
    for c in cells:
        if not (c.counted and c.status == "differ"):
            continue
        i, key = c.cell_index, (c.cell_index, c.quantity)
        raw = raw_cells[i] if 0 <= i < len(raw_cells) else {}
        # the readings that have a number for this cell (a reading without the method is not tried)
        tried = [(r, by_reading[r.id][key]) for r in mine if key in by_reading[r.id]]
        tried = [(r, rc) for r, rc in tried if rc.status in ("agree", "differ")]
        # a reading that leaves this number as it is (e.g. E read elsewhere, Dim unchanged) is not tried
        tried = [
            (r, rc) for r, rc in tried if (rc.ours, rc.ours_std, rc.n_ours) != (c.ours, c.ours_std, c.n_ours)
        ]
        closing = [(r, rc) for r, rc in tried if r.explains and rc.status == "agree"]
        if closing:
            r, rc = closing[0]
            out.append(Classified(i, c, EXPLAINED, r, rc, tried=tried))
        elif raw.get("paper_inconsistent"):
            ev = " ".join(str(raw["paper_inconsistent"]).split())
            out.append(Classified(i, c, INCONSISTENT, evidence=ev, tried=tried))
        else:
            out.append(Classified(i, c, UNEXPLAINED, tried=tried))
    return out, by_reading


def class_counts(classified: list[Classified]) -> dict[str, int]:
    """Number of differing cells per class (every class present, possibly 0)."""
    return {k: sum(c.cls == k for c in classified) for k in CLASSES}


def counts_line(counts: Mapping[str, int], where: str = "") -> str:
    """``Of N differing cells[ where]: a explained, b paper inconsistent, c unexplained.``"""
    n = sum(counts.values())
    w = f" {where}" if where else ""
    return (
        f"Of {n} differing cells{w}: {counts.get(EXPLAINED, 0)} explained by a reading, "
        f"{counts.get(INCONSISTENT, 0)} paper inconsistent, {counts.get(UNEXPLAINED, 0)} unexplained."
    )
