"""The classes of a default's differing cells: explained by the table's one whole-table reading, paper
inconsistent, unexplained.

Rules in :mod:`fsbench.papers.readings`. A reading's cells are compared by the engine's own comparison,
passed in (``compare``): nothing here decides agreement.

**One reading per table.** Every reading of a table is first compared as a whole table
(:class:`WholeTable`): each cell takes the reading's number where the reading applies to it (none where
the reading has no result for it) and keeps the default's where the reading leaves it alone (a reading
of one method, one dataset or one cell changes only those). The reading with ``explains: true`` under
which the most cells of the whole table agree — the first declared on a tie — is the table's
**explaining reading**, and a differing cell of the default is *explained* only when it agrees under
that reading. A cell that only another reading closes is not explained; the other readings are
sensitivity tables (their whole-table counts are listed, and their numbers shown beside the cell).
So no count of explained cells mixes two readings.
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


@dataclass
class WholeTable:
    """One reading of a table compared as a whole table (the rule in the module docstring).

    ``compared`` cells have a number under the reading (counted: agree or differ, not doubtful), of
    which ``agree`` agree; ``closes`` differing cells of the default agree under it and ``loses``
    agreeing cells of the default do not (they differ, or the reading has no number for them);
    ``explains`` marks the table's explaining reading (at most one per table).
    """

    reading: Reading
    compared: int
    agree: int
    closes: int
    loses: int
    explains: bool = False


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


def whole_table(
    cells: list[CellResult], reading: Reading, mine: Mapping[tuple[int, str], CellResult], applies: set[int]
) -> WholeTable:
    """A reading compared as a whole table (the rule in the module docstring).

    Parameters
    ----------
    cells : list of CellResult
        The default's comparison of the table.
    reading : Reading
    mine : mapping
        (index of the paper-values cell, quantity) → the reading's comparison of it.
    applies : set of int
        Indices of the paper-values cells the reading applies to (:func:`reading_table`).

    Returns
    -------
    WholeTable
    """
    compared = agree = closes = loses = 0
    for c in cells:
        if c.cell_index in applies:
            rc = mine.get((c.cell_index, c.quantity))
            counted, agrees = (
                (rc is not None and rc.counted),
                (rc is not None and rc.counted and rc.status == "agree"),
            )
        else:  # the reading leaves this cell as the default has it
            counted, agrees = c.counted, c.counted and c.status == "agree"
        compared += counted
        agree += agrees
        if c.counted and c.status == "differ" and agrees:
            closes += 1
        if c.counted and c.status == "agree" and not agrees:
            loses += 1
    return WholeTable(reading, compared, agree, closes, loses)


def explaining_reading(whole: list[WholeTable]) -> WholeTable | None:
    """The table's explaining reading: of the readings with ``explains: true``, the one under which the
    most cells of the whole table agree, the first declared on a tie; None if no such reading closes a
    differing cell of the default."""
    best: WholeTable | None = None
    for w in whole:  # in declaration order: a later reading replaces the best only with more agreeing cells
        if w.reading.explains and (best is None or w.agree > best.agree):
            best = w
    return best if best is not None and best.closes else None


def classify_table(
    table: Mapping[str, Any],
    cells: list[CellResult],
    readings: list[Reading],
    compare: Compare,
) -> tuple[list[Classified], ByReading, list[WholeTable]]:
    """Classify every differing cell of one table under its one explaining reading.

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
    whole : list of WholeTable
        Every reading of the table compared as a whole, in declaration order; the explaining one (if
        any) has ``explains`` set.
    """
    mine = [r for r in readings if r.table == table.get("id")]
    by_reading: ByReading = {}
    whole: list[WholeTable] = []
    for r in mine:
        t, index = reading_table(table, r)
        by_reading[r.id] = {(index[rc.cell_index], rc.quantity): rc for rc in compare(t)} if index else {}
        whole.append(whole_table(cells, r, by_reading[r.id], set(index)))
    chosen = explaining_reading(whole)
    if chosen is not None:
        chosen.explains = True
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
        closing = [
            (r, rc) for r, rc in tried if chosen is not None and r is chosen.reading and rc.status == "agree"
        ]
        if closing:
            r, rc = closing[0]
            out.append(Classified(i, c, EXPLAINED, r, rc, tried=tried))
        elif raw.get("paper_inconsistent"):
            ev = " ".join(str(raw["paper_inconsistent"]).split())
            out.append(Classified(i, c, INCONSISTENT, evidence=ev, tried=tried))
        else:
            out.append(Classified(i, c, UNEXPLAINED, tried=tried))
    return out, by_reading, whole


def class_counts(classified: list[Classified]) -> dict[str, int]:
    """Number of differing cells per class (every class present, possibly 0)."""
    return {k: sum(c.cls == k for c in classified) for k in CLASSES}


def counts_line(counts: Mapping[str, int], where: str = "") -> str:
    """``Of N differing cells[ where]: a explained by a reading, b paper inconsistent, c unexplained.``"""
    n = sum(counts.values())
    w = f" {where}" if where else ""
    return (
        f"Of {n} differing cells{w}: {counts.get(EXPLAINED, 0)} explained by a reading, "
        f"{counts.get(INCONSISTENT, 0)} paper inconsistent, {counts.get(UNEXPLAINED, 0)} unexplained."
    )
