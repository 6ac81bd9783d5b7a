"""Alternative readings of a paper's ambiguous protocol points, the differing cells classified, and the
dataset substitutions named next to the cells they affect.

A paper often leaves a protocol point open (which test digits, which C schedule, which kernel width).
fsbench runs one reading as the **default** (fixed in advance, its reason in the config) and may run
others with the full protocol. Each such reading is declared as data in the paper's
``paper_values.yaml`` under ``readings:`` (format below); this module

* lists every reading of a report, with what it changes and the experiment that ran it;
* recompares, for every reading of a table, the table's cells with the reading's results under the
  **same** agreement rule as the default (the comparison function of :mod:`fsbench.papers.cells` is
  passed in; nothing here decides agreement on its own);
* classifies every differing cell of the default (status ``differ`` and counted):

  - **explained**: a reading with ``explains: true`` has, for the same (dataset, method, S), a cell that
    agrees with the paper (the first such reading in declaration order is shown, with its number);
  - **paper inconsistent**: otherwise, if the paper-values cell carries ``paper_inconsistent: <reason>``
    (evidence from the paper's own numbers or text, quoted);
  - **unexplained**: otherwise (the readings tried are shown with their numbers);

* for figures (no printed cells), shows the default's and the reading's curves side by side with a
  paired t-test per point, and re-evaluates the figure's claims with the reading's rows in place of the
  default's rows when the reading covers the default's whole grid;
* names every dataset substitution next to the cells it affects: a marker ``†k`` on the cell's setting
  and the substitution's text under the table. Substitutions come from data only: a dataset card's
  ``substitution:`` field, and a ``[D] SUBSTITUTION:`` (or ``[D] SUBSTITUTION (ds1, ds2):``) item of
  an experiment config's ``notes``.

Readings never replace the default: the default's cell counts are computed before and without them.

Format of a ``readings:`` entry
-------------------------------
::

    - id: tab2_test_rest              # unique in the file
      table: table2                   # a table id, or `figure: fig2a` for a figure (claims only)
      default: tab2_usps              # the default experiment (default: the table's / figure's experiment)
      experiment: tab2_usps_test_rest # the reading's experiment (default: the default experiment)
      label: 'test on "the rest"'
      changes: what the reading changes, in words (quote the ambiguous text where there is one)
      datasets: {usps: usps_libsvm_test}      # optional: default dataset -> the reading's dataset
      methods: {kife: "KIFE (CV steps)"}      # optional: paper method -> the reading's selector label;
                                              #   without it every method of the table is read as itself
      applies_to: {kernel: rbf, dataset: [liver_bupa]}   # optional: only cells matching these fields
      set: {S: {satimage: 5, letter: 25}}     # optional: cell fields replaced (a value, or per dataset)
      table_set: {column: E_test}             # optional: table keys replaced — where the numbers come
                                              #   from (fsbench.papers.sources: column, where, ...)
      explains: true                  # false: listed and compared but never used to classify a cell;
      why: ...                        #   then `why` is required (reduced protocol, chosen by the
                                      #   paper's numbers, ...)

A cell of a table may carry ``paper_inconsistent: "<evidence, quoting the paper>"``. A compared cell is
matched with a reading's by the paper-values cell it comes from (``CellResult.cell_index``) and the printed
number it judges (``quantity``: a table may compare two numbers per cell, e.g. TAKES Table 2's E and Dim).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from fsbench.papers.cells import CellResult, compare_table, method_frame
from fsbench.papers.tables import md_table, split_defaults
from fsbench.papers.values import ConfigInfo, _cards_dir, _entries, _entry_name, _first_sentence
from fsbench.stats import paired_t

EXPLAINED = "explained"
INCONSISTENT = "paper inconsistent"
UNEXPLAINED = "unexplained"
#: The classes of a differing cell, in the order of precedence.
CLASSES = (EXPLAINED, INCONSISTENT, UNEXPLAINED)

Compare = Callable[[dict[str, Any]], list[CellResult]]


# =========================================================================== readings as data
@dataclass(frozen=True)
class Reading:
    """One reading of an ambiguous protocol point, run with the full protocol (module docstring)."""

    id: str
    label: str
    changes: str
    table: str | None = None
    figure: str | None = None
    default: str | None = None
    experiment: str | None = None
    datasets: Mapping[str, str] = field(default_factory=dict)
    methods: Mapping[str, str] = field(default_factory=dict)
    applies_to: Mapping[str, Any] = field(default_factory=dict)
    set: Mapping[str, Any] = field(default_factory=dict)
    table_set: Mapping[str, Any] = field(default_factory=dict)
    explains: bool = True
    why: str = ""

    @property
    def where(self) -> str:
        """The table or figure id the reading belongs to."""
        return str(self.table or self.figure)

    def source(self, default: str | None) -> str | None:
        """The experiment whose rows the reading uses."""
        return self.experiment or self.default or default

    def applies(self, cell: Mapping[str, Any]) -> bool:
        """Whether the reading concerns this paper-values cell (``applies_to`` and ``methods``)."""
        for k, v in self.applies_to.items():
            allowed = v if isinstance(v, list) else [v]
            if cell.get(k) not in allowed:
                return False
        return not self.methods or str(cell.get("method")) in self.methods


_READING_KEYS = {f.name for f in Reading.__dataclass_fields__.values()}


def read_readings(values: Mapping[str, Any]) -> list[Reading]:
    """The ``readings:`` of a paper-values mapping.

    Parameters
    ----------
    values : mapping
        A parsed ``paper_values.yaml``.

    Returns
    -------
    list of Reading
        In declaration order (the order in which readings are tried for a cell).

    Raises
    ------
    ValueError
        On an unknown key, a missing ``id`` / ``label`` / ``changes``, neither or both of ``table`` and
        ``figure``, a duplicate id, or ``explains: false`` without ``why``.
    """
    out: list[Reading] = []
    seen: set[str] = set()
    for i, raw in enumerate(values.get("readings") or []):
        if not isinstance(raw, dict):
            raise ValueError(f"readings[{i}]: expected a mapping")
        unknown = set(raw) - _READING_KEYS
        if unknown:
            raise ValueError(f"readings[{i}]: unknown key(s) {sorted(unknown)}")
        for k in ("id", "label", "changes"):
            if not raw.get(k):
                raise ValueError(f"readings[{i}]: `{k}` is required")
        if bool(raw.get("table")) == bool(raw.get("figure")):
            raise ValueError(f"readings[{i}] ({raw['id']}): give exactly one of `table` and `figure`")
        if raw["id"] in seen:
            raise ValueError(f"readings[{i}]: duplicate id {raw['id']!r}")
        seen.add(raw["id"])
        explains = bool(raw.get("explains", True))
        if not explains and not raw.get("why"):
            raise ValueError(f"readings[{i}] ({raw['id']}): `explains: false` needs a `why`")
        r = dict(raw)
        r["explains"] = explains
        r["changes"] = " ".join(str(r["changes"]).split())
        r["why"] = " ".join(str(r.get("why") or "").split())
        out.append(Reading(**r))
    return out


def reading_table(table: Mapping[str, Any], reading: Reading) -> tuple[dict[str, Any], list[int]]:
    """The table as the reading sees it, and the indices of the original cells it keeps.

    The experiment becomes the reading's (a table whose experiment is a mapping dataset → name keeps it
    unless the reading names one); the reading's ``table_set`` keys replace the table's; each applicable cell
    gets the reading's dataset, selector and ``set`` fields; the paper's value and std are unchanged.
    """
    exp = table.get("experiment")
    t = {k: v for k, v in table.items() if k != "cells"}
    t["experiment"] = (
        exp
        if isinstance(exp, Mapping) and not reading.experiment
        else reading.source(exp if isinstance(exp, str) else None)
    )
    t.update(reading.table_set)
    t["default_experiment"] = reading.default or exp
    cells, index = [], []
    for i, cell in enumerate(table.get("cells", [])):
        if cell.get("external") or not reading.applies(cell):
            continue
        c = dict(cell)
        ds = c.get("dataset")
        if ds in reading.datasets:
            c["dataset"] = reading.datasets[ds]
        m = str(c.get("method"))
        if m in reading.methods:
            c["method"] = reading.methods[m]
        for k, v in reading.set.items():
            if isinstance(v, Mapping):
                if ds in v:
                    c[k] = v[ds]
            else:
                c[k] = v
        cells.append(c)
        index.append(i)
    t["cells"] = cells
    return t, index


# =========================================================================== classification
#: Reading id → {(index of the paper-values cell, quantity): the reading's comparison of it}.
ByReading = dict[str, dict[tuple[int, str], CellResult]]


@dataclass
class Classified:
    """A differing cell of the default and its class (module docstring)."""

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


def _fmt(c: CellResult, nd: int | None = None) -> str:
    """Ours as ``mean ± std (n = …)`` with the paper value's decimals, or the status where there is none."""
    if c.ours != c.ours:
        return c.verdict or c.status
    nd = _decimals(c.paper) if nd is None else nd
    s = f"{c.ours:.{nd}f}" if c.ours_std != c.ours_std else f"{c.ours:.{nd}f} ± {c.ours_std:.{nd}f}"
    return s + (f" (n = {c.n_ours})" if c.n_ours else "")


def _fmt_paper(c: CellResult, nd: int | None = None) -> str:
    nd = _decimals(c.paper) if nd is None else nd
    return f"{c.paper:.{nd}f}" if c.paper_std is None else f"{c.paper:.{nd}f} ± {c.paper_std:.{nd}f}"


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


# =========================================================================== substitutions
@dataclass(frozen=True)
class Substitution:
    """A dataset (or protocol) substitution: what it replaces, where it is stated, which data it covers."""

    text: str
    source: str
    dataset: str | None = None
    experiment: str | None = None

    def scope(self) -> str:
        """What the substitution concerns, in words."""
        if self.dataset:
            return f"`{self.dataset}`" + (f" in `{self.experiment}`" if self.experiment else "")
        return f"the data of `{self.experiment}`"

    def covers(self, dataset: Any, experiment: str | None) -> bool:
        """Whether a cell of ``dataset`` in ``experiment`` (or its pseudo-experiment ``experiment:part``,
        e.g. :data:`TAKES_HELD_OUT`) uses this substitution."""
        if self.experiment is not None and str(experiment).split(":")[0] != self.experiment:
            return False
        return self.dataset is None or self.dataset == dataset


_SUB = re.compile(r"^\[D\]\s*SUBSTITUTION\s*(?:\(([^)]*)\))?\s*:\s*(.*)$", re.S)


def card_substitution(name: str, cards_dir: Path | None = None) -> str:
    """The ``substitution:`` field of a dataset card ("" if there is none or no card)."""
    f = Path(cards_dir if cards_dir is not None else _cards_dir()) / f"{name}.yaml"
    if not f.is_file():
        return ""
    try:
        card = yaml.safe_load(f.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return ""
    return " ".join(str(card.get("substitution") or "").split()) if isinstance(card, dict) else ""


def substitutions(
    configs: Mapping[str, ConfigInfo], experiments: set[str] | None = None, cards_dir: Path | None = None
) -> list[Substitution]:
    """Every substitution stated by the cards of the configs' datasets and by the configs' notes.

    Parameters
    ----------
    configs : mapping
        Experiment configs by name (:func:`fsbench.papers.values.read_configs`).
    experiments : set of str, optional
        Only these experiments (default: all).
    cards_dir : Path, optional
        Dataset cards directory.

    Returns
    -------
    list of Substitution
        Card substitutions once per dataset (any experiment), then config substitutions per experiment.
    """
    out: list[Substitution] = []
    seen: set[str] = set()
    for name, cfg in configs.items():
        if experiments is not None and name not in experiments:
            continue
        for e in _entries(cfg.data.get("dataset")):
            card = _entry_name(e)  # the card's name; results name the entry by its label if it has one
            key = str(e.get("label") or card) if isinstance(e, dict) else card
            if key in seen:
                continue
            text = card_substitution(card, cards_dir)
            if text:
                seen.add(key)
                out.append(Substitution(text, f"dataset card `{card}`", dataset=key))
        for item in split_defaults(str(cfg.data.get("notes") or "")):
            m = _SUB.match(item)
            if not m:
                continue
            text = " ".join(m.group(2).split())
            scope = [s.strip() for s in (m.group(1) or "").split(",") if s.strip()]
            for ds in scope or [None]:
                out.append(Substitution(text, f"config `{cfg.file.name}`", dataset=ds, experiment=name))
    return out


class SubstitutionMarks:
    """Numbered markers (†1, †2, …) for the substitutions of one report, in order of first use."""

    def __init__(self, subs: list[Substitution]):
        self.subs = subs
        self.used: list[Substitution] = []
        #: substitution → the tables / figures of the report it was marked in
        self.affected: dict[Substitution, list[str]] = {}

    def _note(self, s: Substitution, where: str) -> None:
        places = self.affected.setdefault(s, [])
        if where and where not in places:
            places.append(where)

    def marker(self, dataset: Any, experiment: str | None) -> str:
        """`` †k`` for every substitution covering (dataset, experiment), or ""."""
        marks = []
        for s in self.subs:
            if s.covers(dataset, experiment):
                if s not in self.used:
                    self.used.append(s)
                marks.append(f"†{self.used.index(s) + 1}")
        return (" " + " ".join(marks)) if marks else ""

    def mark_cells(self, table: Mapping[str, Any], cells: list[CellResult]) -> list[str]:
        """Append the markers to the cells' settings; return the footnotes of the markers used here."""
        exp = table.get("experiment")
        raw = list(table.get("cells", []))
        where = f"Table {table.get('number', table.get('id'))}"
        used: list[Substitution] = []
        for c in cells:
            cell = raw[c.cell_index] if 0 <= c.cell_index < len(raw) else {}
            e = exp.get(cell.get("dataset")) if isinstance(exp, Mapping) else exp
            m = self.marker(cell.get("dataset"), e)
            if m:
                c.setting += m
                for s in self.subs:
                    if s.covers(cell.get("dataset"), e) and s not in used:
                        used.append(s)
                        self._note(s, where)
        return self.footnotes(used)

    def mark_experiment(self, where: str, experiment: str | None, datasets: list[str]) -> str:
        """Markers for a figure or claim whose experiment runs on ``datasets`` (no cells to mark)."""
        marks = []
        for ds in datasets:
            for s in self.subs:
                if s.covers(ds, experiment):
                    self._note(s, where)
                    m = self.marker(ds, experiment).strip()
                    marks += [x for x in m.split() if x not in marks]
        return (" " + " ".join(marks)) if marks else ""

    def section(self) -> list[str]:
        """Every substitution marked in the report, with where it applies."""
        if not self.used:
            return []
        lines = ["### Substitutions named in this report", ""]
        for k, s in enumerate(self.used, 1):
            places = ", ".join(self.affected.get(s, [])) or "–"
            lines.append(f"- †{k} {s.scope()} ({s.source}; marked in: {places}): {s.text}")
        return lines + [""]

    def footnotes(self, subs: list[Substitution]) -> list[str]:
        """Markdown lines ``†k substitution (source): text`` for ``subs``."""
        if not subs:
            return []
        lines = [""]
        for s in subs:
            k = self.used.index(s) + 1 if s in self.used else 0
            lines.append(f"†{k} **Substitution** ({s.scope()}, {s.source}): {_first_sentence(s.text, 400)}  ")
        return lines


# =========================================================================== the report section
def _paired(a: pd.DataFrame, b: pd.DataFrame) -> float:
    """Two-sided paired t-test p of two sets of rows (columns split_seed, error) matched on the split."""
    m = a.merge(b, on="split_seed", suffixes=("_a", "_b"))
    if len(m) < 2:
        return float("nan")
    return paired_t(m["error_a"], m["error_b"])[1]


class ReadingsReport:
    """The readings part of one paper's report (module docstring).

    Parameters
    ----------
    values : mapping
        The paper's values (``readings``, ``tables``, ``figures``, ``claims``).
    df : DataFrame
        Every result row of the report, as read (labels not yet mapped to methods).
    configs : mapping
        Experiment configs by name.
    compare : callable, optional
        The engine's comparison of a paper-values table (default :func:`compare_table` on ``df``,
        with the reading's experiment judged with the default's ``repeats`` as the paper's n).
    cards_dir : Path, optional
        Dataset cards directory.
    """

    def __init__(
        self,
        values: Mapping[str, Any],
        df: pd.DataFrame,
        configs: Mapping[str, ConfigInfo],
        compare: Compare | None = None,
        cards_dir: Path | None = None,
    ):
        self.values = values
        self.readings = read_readings(values)
        self.raw = df
        self.df = method_frame(df) if len(df) else df
        self.configs = dict(configs)
        self.cards_dir = cards_dir
        experiments = set(df["experiment"].astype(str)) if len(df) else set()
        self.marks = SubstitutionMarks(substitutions(self.configs, experiments, cards_dir))
        self._compare = compare
        self.tables: list[tuple[Mapping[str, Any], list[Classified], ByReading]] = []

    # ---- comparison under the engine's rule
    def compare(self, table: dict[str, Any]) -> list[CellResult]:
        if self._compare is not None:
            return self._compare(table)
        # the paper's n of Welch's test is the default's `repeats`, whichever experiment is read
        configs = dict(self.configs)
        exp, default = table.get("experiment"), table.get("default_experiment")
        if isinstance(default, str) and default in configs and exp != default:
            configs[exp] = configs[default]
        return compare_table(table, self.df, configs, self.cards_dir)

    def add_table(self, table: Mapping[str, Any], cells: list[CellResult], mark: bool = True) -> list[str]:
        """Classify the differing cells of a compared table and mark its substituted cells.

        Call it after the default's counts are taken and before the table is rendered; returns the
        substitution footnotes to print under the table (empty if none).
        """
        classified, by_reading = classify_table(table, cells, self.readings, self.compare)
        self.tables.append((table, classified, by_reading))
        return self.marks.mark_cells(table, cells) if mark else []

    # ---- output
    def totals(self) -> dict[str, int]:
        tot = dict.fromkeys(CLASSES, 0)
        for _, cl, _ in self.tables:
            for k, v in class_counts(cl).items():
                tot[k] += v
        return tot

    def summary_lines(self) -> list[str]:
        """Lines for the report's summary: the counts line and a row per table."""
        if not self.tables:
            return []
        rows = []
        for t, cl, _ in self.tables:
            k = class_counts(cl)
            if not cl:
                continue
            name = str(t.get("number", t.get("id"))) + (f" ({t['part']})" if t.get("part") else "")
            rows.append([name, str(len(cl)), *(str(k[c]) for c in CLASSES)])
        lines = [f"- **{counts_line(self.totals())}** (section “Alternative readings” below)"]
        if rows:
            lines += ["", *md_table(["table", "differing", *CLASSES], rows).splitlines()]
        return lines

    def section(self) -> list[str]:
        """The section “Alternative readings and the differing cells” (none for a paper with no compared
        table, no reading and no substitution: Paul, Ring)."""
        if not self.tables and not self.readings and not self.marks.section():
            return []
        lines = [
            "## Alternative readings and the differing cells",
            "",
            counts_line(self.totals()),
            "",
            "Each differing cell of the default (counted cells only) is **explained** when a reading "
            "listed below, run with the full protocol, agrees with the paper on the same (dataset, method, "
            "S) under the same agreement rule as the default; **paper inconsistent** when "
            "`paper_values.yaml` quotes evidence from the paper's own numbers or text against the cell; "
            "otherwise **unexplained**. Readings never replace the default: the cell counts above are the "
            "default's.",
            "",
        ]
        lines += self._readings_list()
        lines += self.marks.section()
        for t, cl, by_reading in self.tables:
            if cl:
                lines += self._table_block(t, cl, by_reading)
        lines += self._figure_blocks()
        return lines

    def _readings_list(self) -> list[str]:
        if not self.readings:
            return ["No readings are declared for this paper (`readings:` in paper_values.yaml).", ""]
        present = set(self.df["experiment"].astype(str)) if len(self.df) else set()
        rows = []
        for r in self.readings:
            default = self._default_label(r)
            src = r.source(default)
            ran = src in present or (r.experiment is None and all(x in present for x in default.split(" / ")))
            use = "yes" if r.explains else f"no: {r.why}"
            missing = "" if ran or not r.explains else " (not in these results)"
            arrow = (
                f"`{default}` (same runs, {self._what_differs(r)})"
                if src == default
                else f"`{default}` → `{src}`"
            )
            rows.append(
                [
                    f"`{r.id}` {r.label}",
                    self._where_name(r),
                    f"{arrow}{missing}",
                    r.changes,
                    use,
                ]
            )
        return [
            "### Readings",
            "",
            *md_table(
                ["reading", "for", "default → reading", "what it changes", "classifies cells"], rows, True
            )
            .rstrip()
            .splitlines(),
            "",
        ]

    def claim_marker(self, where: Any) -> str:
        """Substitution markers for a claim's figure or table (its experiment's datasets), or ""."""
        out = ""
        for w in _as_list(where):
            items = [*self.values.get("figures", []), *self.values.get("tables", [])]
            item = next((x for x in items if x.get("id") == w), {})
            exp = item.get("experiment")
            cfg = self.configs.get(exp) if isinstance(exp, str) else None
            if cfg is None:
                continue
            name = (
                f"Fig. {w.removeprefix('fig')}"
                if str(w).startswith("fig")
                else f"Table {item.get('number', w)}"
            )
            for m in self.marks.mark_experiment(name, exp, cfg.datasets).split():
                if m not in out:
                    out += f" {m}"
        return out

    def _default_label(self, r: Reading) -> str:
        if r.default:
            return r.default
        items = self.values.get("tables", []) if r.table else self.values.get("figures", [])
        e = next((x.get("experiment") for x in items if x.get("id") == r.where), None)
        if isinstance(e, Mapping):
            return " / ".join(str(v) for v in e.values())
        return str(e)

    @staticmethod
    def _what_differs(r: Reading) -> str:
        parts = [f"{k} → {v}" for k, v in r.methods.items() if k != v]
        parts += [f"{k} = {v}" for k, v in r.set.items()]
        parts += [f"{k}: {v}" for k, v in r.table_set.items()]
        return "; ".join(parts) or "another selection of rows"

    def _where_name(self, r: Reading) -> str:
        if r.table:
            t = next((t for t in self.values.get("tables", []) if t.get("id") == r.table), {})
            return f"Table {t.get('number', r.table)}"
        return f"Fig. {r.figure.removeprefix('fig')}" if r.figure else "?"

    def _default_of(self, r: Reading) -> str | None:
        items = self.values.get("tables", []) if r.table else self.values.get("figures", [])
        e = next((x.get("experiment") for x in items if x.get("id") == r.where), None)
        return e if isinstance(e, str) else None

    def _table_block(self, t: Mapping[str, Any], cl: list[Classified], by_reading: ByReading) -> list[str]:
        k = class_counts(cl)
        head = f"### Table {t.get('number', t.get('id'))} — differing cells" + (
            f" ({t['part']})" if t.get("part") else ""
        )
        nd = t.get("decimals")
        rows = []
        for c in cl:
            if c.cls == EXPLAINED:
                ev = f"{c.reading.label} (`{c.reading.id}`): {_fmt(c.reading_cell, nd)} ✓"
            elif c.cls == INCONSISTENT:
                ev = c.evidence
            else:
                ev = (
                    "; ".join(
                        f"{r.label}: {_fmt(rc, nd)} "
                        + ("✓ (does not classify)" if rc.status == "agree" else "✗")
                        for r, rc in c.tried
                    )
                    or "no reading of this cell"
                )
                if c.tried:
                    ev = "tried — " + ev
            method = c.cell.method + (f" ({c.cell.quantity})" if c.cell.quantity else "")
            rows.append([c.cell.setting, method, _fmt_paper(c.cell, nd), _fmt(c.cell, nd), c.cls, ev])
        return [
            head,
            "",
            counts_line(k) + " Evidence: the reading that closes the cell and its number (✓ = agrees by "
            "the same rule), the paper's own contradiction, or the readings tried.",
            "",
            *md_table(["setting", "method", "paper", "ours (default)", "class", "evidence"], rows, True)
            .rstrip()
            .splitlines(),
            "",
        ]

    # ---- figures: curves side by side, claims re-evaluated
    def _figure_blocks(self) -> list[str]:
        figs = [r for r in self.readings if r.figure]
        if not figs:
            return []
        lines = [
            "### Figure readings",
            "",
            "The paper prints no numbers for its figures, so a figure reading is shown as its curve beside "
            "the default's (mean test error % ± std over the repeats, paired t-test over the same splits), "
            "and the figure's claims are re-evaluated with the reading's rows in place of the default's "
            "when the reading covers the default's whole grid.",
            "",
        ]
        for r in figs:
            lines += self._figure_block(r)
        return lines

    def _reading_rows(self, r: Reading, default: str) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(default rows, reading rows relabelled as the default) for the reading's methods."""
        d = self.df[self.df["experiment"] == default]
        src = r.source(default)
        raw = self.raw[self.raw["experiment"] == src]
        rd = self.df[self.df["experiment"] == src].copy()
        if len(rd):
            rd["_label"] = raw["selector"].astype(str).to_numpy()
        methods = dict(r.methods) or {m: m for m in d["selector"].astype(str).unique()}
        inv_sel = {}
        for m, lab in methods.items():
            inv_sel[lab] = m
        keep = rd["_label"].isin(inv_sel) if len(rd) else pd.Series(dtype=bool)
        keep = keep | (rd["selector"].isin(inv_sel) if len(rd) else keep)
        rd = rd[keep].copy()
        if len(rd):
            rd["selector"] = [inv_sel.get(a, inv_sel.get(b)) for a, b in zip(rd["_label"], rd["selector"])]
            if r.datasets:  # only the reading's datasets, named as the default's
                inv_ds = {v: k for k, v in r.datasets.items()}
                rd = rd[rd["dataset"].isin(set(inv_ds))].copy()
                rd["dataset"] = rd["dataset"].map(inv_ds)
            rd["experiment"] = default
            rd = rd.drop(columns="_label")
        d = d[d["selector"].isin(set(methods))]
        return d, rd

    def _figure_block(self, r: Reading) -> list[str]:
        default = r.default or self._default_of(r)
        head = f"#### {self._where_name(r)} — {r.label} (`{default}` → `{r.source(default)}`)"
        if default is None:
            return [head, "", "No default experiment is named for this figure.", ""]
        d, rd = self._reading_rows(r, default)
        if rd.empty or d.empty:
            return [head, "", r.changes, "", "(The curves are not among the rows this section compares.)", ""]
        ok_d, ok_r = d[d["status"] == "ok"], rd[rd["status"] == "ok"]
        xs = "n_train" if ok_d["n_train"].nunique() > 1 else "n_features"
        rows = []
        keys = ["dataset", "selector", xs]
        for key, a in ok_d.groupby(keys, sort=True):
            b = ok_r
            for k, v in zip(keys, key):
                b = b[b[k] == v]
            if b.empty:
                continue
            ma, sa, mb, sb = (
                100 * a["error"].mean(),
                100 * a["error"].std(),
                100 * b["error"].mean(),
                100 * b["error"].std(),
            )
            p = _paired(a[["split_seed", "error"]], b[["split_seed", "error"]])
            rows.append(
                [
                    str(key[0]),
                    str(key[1]),
                    f"{key[2]:g}",
                    f"{ma:.1f} ± {sa:.1f} (n = {len(a)})",
                    f"{mb:.1f} ± {sb:.1f} (n = {len(b)})",
                    f"{mb - ma:+.1f}",
                    "–" if p != p else ("< 0.001" if p < 0.001 else f"{p:.3f}"),
                ]
            )
        x_name = "n" if xs == "n_train" else "S"
        lines = [head, "", r.changes, ""]
        lines += md_table(
            ["dataset", "method", x_name, "default", "reading", "reading − default", "paired p"], rows, True
        ).splitlines()
        lines.append("")
        lines += self._claims_under(r, default, d, rd)
        return lines

    def _claims_under(self, r: Reading, default: str, d: pd.DataFrame, rd: pd.DataFrame) -> list[str]:
        from fsbench.papers.claims import evaluate_claim

        grid = ["dataset", "selector", "n_train", "n_features"]
        have = set(map(tuple, rd[grid].drop_duplicates().astype(str).to_numpy()))
        need = set(map(tuple, d[grid].drop_duplicates().astype(str).to_numpy()))
        if not need <= have:
            return [
                "Claims not re-evaluated: the reading covers "
                f"{len(have & need)} of the default's {len(need)} (dataset, method, n, S) points.",
                "",
            ]
        claims = [c for c in self.values.get("claims", []) if r.figure in _as_list(c.get("figure"))]
        if not claims:
            return []
        drop = (self.df["experiment"] == default) & self.df["selector"].isin(set(d["selector"]))
        sub = pd.concat([self.df[~drop], rd], ignore_index=True)
        rows = []
        for cl in claims:
            before, _ = evaluate_claim(cl, self.df, default)
            after, _ = evaluate_claim(cl, sub, default)
            rows.append([f"`{cl['id']}`", before, after, "changes" if before != after else "same"])
        return [
            "Claims of this figure, default vs with the reading's rows in place of the default's:",
            "",
            *md_table(["claim", "default", "with the reading", ""], rows).splitlines(),
            "",
        ]


def _as_list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else [v] if v is not None else []


__all__ = [
    "CLASSES",
    "EXPLAINED",
    "INCONSISTENT",
    "UNEXPLAINED",
    "Classified",
    "Reading",
    "ReadingsReport",
    "Substitution",
    "SubstitutionMarks",
    "card_substitution",
    "class_counts",
    "classify_table",
    "counts_line",
    "read_readings",
    "reading_table",
    "substitutions",
]
