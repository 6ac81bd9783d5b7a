"""The comparison with a paper as an object: :class:`PaperComparison`, and its file ``comparison.json``.

A layer of the paper comparison (render → compare → readings → comparison → claims → cells): the
comparison of our results with a paper's printed tables and claims is computed once into this dataclass
tree (:func:`fsbench.papers.compare.compare_paper`), and everything else is rendered from it — the
Markdown of ``REPORT.md`` (:func:`fsbench.papers.render.render_comparison`), the status block of
``docs/reproductions.md`` (:mod:`fsbench.results.docs_status`) and the prose numbers checked against the
committed files (the ``report_*`` facts of :mod:`fsbench.results.facts`). Nothing parses Markdown back.

The tree:

* :class:`PaperComparison` — per printed table a :class:`TableComparison` (every cell as a
  :class:`~fsbench.papers.cells.CellResult`: the paper's value, ours, the verdict; the table's counts;
  its differing cells classified, :class:`DifferingCell`, with the reading that explains each if any;
  its readings compared as whole tables, :class:`TableReading`, one of them the table's explaining
  reading);
  the totals; every claim (:class:`ClaimResult`, with its checks and its verdicts under the readings,
  :class:`ClaimUnderReading`); the readings declared and run
  (:class:`ReadingRun`); the substitutions named (:class:`SubstitutionNote`); the figure readings
  (:class:`FigureReading`); the CPU tables by their shape
  (:class:`~fsbench.papers.cpu_shape.CpuShape`) and the substitutions and defaults of the experiments
  (:class:`ExperimentChoices`).

**The file.** ``fsbench build`` writes :func:`to_json` of the object as ``results/<paper>/comparison.json``
beside ``REPORT.md`` (a derived file of the build, so ``fsbench build --check`` compares it): keys
sorted, no date, floats as Python writes them (the shortest text that reads back to the same float);
NaN is written ``null`` (and ±∞ ``"inf"`` / ``"-inf"``), and read back as NaN where the field is a float.
:func:`from_json` reads it back into the same tree: ``to_json(from_json(text)) == text``. The results
layer, which may not import this one, reads the file as plain JSON
(:mod:`fsbench.results.comparison_file`) by the field names below, and only counts the object stores:
:attr:`TableComparison.counts`, :attr:`PaperComparison.totals`, :attr:`PaperComparison.claim_counts` and
:attr:`PaperComparison.differing_counts`.
"""

from __future__ import annotations

import dataclasses
import json
import math
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from fsbench.papers.cells import CellResult
from fsbench.papers.cpu_shape import CpuShape
from fsbench.results.comparison_file import comparison_path


@dataclass
class TriedReading:
    """A reading that has a number for a differing cell: its id and its comparison of the cell."""

    reading: str
    cell: CellResult


@dataclass
class DifferingCell:
    """A differing, counted cell of the default and its class (rules: :mod:`fsbench.papers.readings`).

    ``cell`` is the cell's position in :attr:`TableComparison.cells`; ``cls`` is ``explained``,
    ``paper inconsistent`` or ``unexplained``; ``reading`` the id of the reading that explains it (with
    ``reading_cell``, that reading's comparison of the cell); ``evidence`` the paper's own contradiction
    (``paper inconsistent``); ``tried`` every reading with a number for the cell.
    """

    cell: int
    cls: str
    reading: str | None = None
    reading_cell: CellResult | None = None
    evidence: str = ""
    tried: list[TriedReading] = field(default_factory=list)


@dataclass
class TableReading:
    """A reading of a table compared as a whole table (rules: :mod:`fsbench.papers.readings.classify`).

    ``compared`` cells have a number under the reading, ``agree`` of them agree; ``closes`` differing
    cells of the default agree under it, ``loses`` agreeing cells of the default do not; ``explains``
    marks the table's one explaining reading, the only one whose cells are counted as explained;
    ``classifies`` is the reading's ``explains:`` declaration (false: listed, never chosen).
    """

    reading: str
    compared: int
    agree: int
    closes: int
    loses: int
    explains: bool
    classifies: bool = True


@dataclass
class TableComparison:
    """One printed table of the paper compared cell by cell.

    ``status`` is ``compared`` or why not (``not run (...)``, ``dataset not available (...)``);
    ``name`` is how the report's count table names the table (its number, with its id where two tables
    share a number) and ``differing_name`` how the table of differing cells names it (its number and
    ``part``; None when no cell of the table differs). ``unit``, ``statistic``, ``n_paper`` (the paper's
    n of Welch's test), ``digits`` (decimals per printed quantity, ``value`` and each ``also_compare``
    label), ``normalisation`` (CPU tables) and ``notes`` (rank tables: the sections' coverage) are what
    the table's legend states; ``paper_unit`` and ``columns`` lay out the paper's values of a table we
    have no results for; ``decimals`` is the table's ``decimals`` (the differing cells' numbers).
    ``footnotes`` are the substitution markers (:attr:`SubstitutionNote.mark`) first named under it.
    ``readings`` are the table's readings compared as whole tables (:class:`TableReading`), in
    declaration order; ``explaining_reading`` is the id of the one whose cells are counted as explained
    (None: no reading of the table closes a differing cell as a whole table).
    """

    id: str
    number: str | None
    part: str | None
    caption: str
    experiments: list[str]
    metric: str
    status: str
    name: str
    differing_name: str | None
    unit: str
    paper_unit: str
    statistic: str
    n_paper: int | None
    digits: dict[str, int]
    decimals: int | None
    normalisation: str | None
    columns: list[str]
    notes: list[str]
    cells: list[CellResult]
    counts: dict[str, int]
    footnotes: list[int] = field(default_factory=list)
    differing: list[DifferingCell] = field(default_factory=list)
    readings: list[TableReading] = field(default_factory=list)
    explaining_reading: str | None = None


@dataclass
class CheckOutcome:
    """One check of a claim: its kind, its status and the numbers deciding it."""

    kind: str
    status: str
    detail: str


@dataclass
class ClaimUnderReading:
    """A claim re-evaluated under one reading (rules: :mod:`fsbench.papers.readings.claims`).

    ``reading`` and ``label`` name the reading; ``status`` and ``checks`` are the claim's verdict and
    checks with the reading's rows in place of the default's. ``comparable`` is whether every check
    compared the same points (datasets, S, n) as under the default: only then is the verdict set beside
    the default's; otherwise ``note`` says which points the reading covers. A claim the rules cannot
    re-evaluate under the reading has status ``not evaluable`` and ``note`` says why.
    """

    reading: str
    label: str
    status: str
    checks: list[CheckOutcome]
    comparable: bool
    note: str = ""


@dataclass
class ClaimResult:
    """One claim of the paper and its verdict (``holds``, ``does not hold``, ``not evaluable``,
    ``not machine-checkable``); ``marks`` are the substitution markers of its data; ``readings`` the
    claim re-evaluated under every reading that changes rows it reads
    (:mod:`fsbench.papers.readings.claims`), beside this default verdict, never in its place."""

    id: str
    status: str
    marks: str
    where: str
    source: str
    statement: str
    quote: str
    checks: list[CheckOutcome]
    defaults: str | None = None
    paper_consistent: str | None = None
    readings: list[ClaimUnderReading] = field(default_factory=list)


@dataclass
class ReadingRun:
    """A reading declared for the paper (``readings:`` in paper_values.yaml) and where it ran.

    ``default`` is the default experiment(s) in words, ``source`` the experiment whose rows the reading
    uses (the default's own when it reads the same runs otherwise: ``same_runs`` says how), ``ran``
    whether those results are present.
    """

    id: str
    label: str
    where: str
    default: str
    source: str | None
    same_runs: str
    ran: bool
    explains: bool
    why: str
    changes: str


@dataclass
class SubstitutionNote:
    """A substitution named in the report: its marker number (``†mark``), what it concerns, where it is
    stated, the tables and figures it was marked in, and its text."""

    mark: int
    scope: str
    source: str
    places: list[str]
    text: str


@dataclass
class FigurePoint:
    """One point of a figure reading's curve: the default's and the reading's test error (%, mean and
    std over the repeats, n) and the paired t-test's p."""

    dataset: str
    method: str
    x: float
    default_mean: float
    default_std: float
    default_n: int
    reading_mean: float
    reading_std: float
    reading_n: int
    p: float


@dataclass
class FigureClaim:
    """A claim that reads a figure reading's rows, evaluated on the default and with the reading's rows in
    place of the default's (where each check compared the same points: :class:`ClaimUnderReading`)."""

    id: str
    default: str
    reading: str


@dataclass
class FigureReading:
    """A reading of a figure: its curve beside the default's and the claims re-evaluated under it.

    ``points`` is None when the curves are not among the rows compared (or no default experiment is
    named: ``default`` None); ``x_name`` is ``S`` or ``n``. ``grid_covered`` of ``grid_points`` is how
    many of the default's (dataset, method, n, S) points the reading has. ``claims`` are the claims whose
    verdict under the reading is comparable with the default's (:class:`ClaimUnderReading`).
    """

    reading: str
    where: str
    label: str
    default: str | None
    source: str | None
    changes: str
    x_name: str = "S"
    points: list[FigurePoint] | None = None
    grid_covered: int = 0
    grid_points: int = 0
    claims: list[FigureClaim] = field(default_factory=list)


@dataclass
class ExperimentChoices:
    """An experiment of the paper in these results: its config, description, and the substitutions
    and defaults it states (dataset cards' notes, the config's [D] choices and caveats)."""

    experiment: str
    config: str
    description: str | None
    items: list[str]


@dataclass
class PaperComparison:
    """Our results compared with one paper: every printed table, claim and reading (see the module
    docstring).

    ``totals`` sums the tables' :attr:`TableComparison.counts`; ``claim_counts`` counts the claims per
    status and ``differing_counts`` the differing cells per class (every status and class present).
    ``no_table_cells`` is why no printed cell of the paper can be compared (None: some can).
    """

    paper: str
    title: str
    tables: list[TableComparison]
    totals: dict[str, int]
    claims: list[ClaimResult]
    claim_counts: dict[str, int]
    readings: list[ReadingRun]
    differing_counts: dict[str, int]
    substitutions: list[SubstitutionNote]
    figure_readings: list[FigureReading]
    choices: list[ExperimentChoices]
    cpu_shape: CpuShape | None = None
    no_table_cells: str | None = None


# =========================================================================== JSON
def _plain(x: Any) -> Any:
    """A value of the tree as JSON data: dataclasses as objects, NaN as null, ±∞ as strings."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: _plain(getattr(x, f.name)) for f in dataclasses.fields(x)}
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        v = float(x)
        if math.isnan(v):
            return None
        return ("inf" if v > 0 else "-inf") if math.isinf(v) else v
    return x


def to_json(comparison: PaperComparison) -> str:
    """``comparison`` as the text of ``comparison.json``: sorted keys, one-space indents, a final
    newline; deterministic (no date; floats as Python writes them).

    Parameters
    ----------
    comparison : PaperComparison

    Returns
    -------
    str
    """
    return (
        json.dumps(_plain(comparison), sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    )


def _typed(tp: Any, x: Any) -> Any:
    """JSON data ``x`` as a value of the type ``tp`` (the field's annotation)."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if x is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]  # the tree has only `X | None` unions
        return _typed(inner, x)
    if tp is float:
        return float("nan") if x is None else float(x)  # "inf" / "-inf" too
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        known = {f.name for f in dataclasses.fields(tp)}
        return tp(**{k: _typed(hints[k], v) for k, v in x.items() if k in known})
    if origin is list:
        return [_typed(args[0], v) for v in x]
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_typed(args[0], v) for v in x)
        return tuple(_typed(a, v) for a, v in zip(args, x))
    if origin is dict:
        return {k: _typed(args[1], v) for k, v in x.items()}
    return x  # str, int, bool, Any, a mapping read from paper_values.yaml


def from_json(text: str) -> PaperComparison:
    """Read the text of a ``comparison.json`` back into the tree (the inverse of :func:`to_json`).

    Parameters
    ----------
    text : str

    Returns
    -------
    PaperComparison
    """
    return _typed(PaperComparison, json.loads(text))


def write_comparison(comparison: PaperComparison, folder: Path) -> Path:
    """Write ``folder/comparison.json`` (:func:`to_json`).

    Parameters
    ----------
    comparison : PaperComparison
    folder : Path
        The report's folder (``results/<paper>``).

    Returns
    -------
    Path
        The file written.
    """
    path = comparison_path(folder)
    path.write_text(to_json(comparison), encoding="utf-8")
    return path


def read_comparison(folder: Path) -> PaperComparison:
    """Read ``folder/comparison.json`` back into the tree (:func:`from_json`).

    Parameters
    ----------
    folder : Path
        The report's folder (``results/<paper>``).

    Returns
    -------
    PaperComparison

    Raises
    ------
    FileNotFoundError
        The folder has no ``comparison.json``.
    """
    return from_json(comparison_path(folder).read_text(encoding="utf-8"))
