"""Dataset substitutions named next to the cells they affect: ``†k`` markers and their footnotes.

Substitutions come from data only: a dataset card's ``substitution:`` field, and a ``[D] SUBSTITUTION:``
(or ``[D] SUBSTITUTION (ds1, ds2):``) item of an experiment config's ``notes``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fsbench.papers.cells import CellResult
from fsbench.papers.comparison import SubstitutionNote
from fsbench.papers.readings.markdown import footnote_lines, substitution_lines
from fsbench.papers.values import ConfigInfo, dataset_entries, entry_name, read_card
from fsbench.results.paper_values import split_defaults


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
        e.g. a held-out part of an experiment) uses this substitution."""
        if self.experiment is not None and str(experiment).split(":")[0] != self.experiment:
            return False
        return self.dataset is None or self.dataset == dataset


_SUB = re.compile(r"^\[D\]\s*SUBSTITUTION\s*(?:\(([^)]*)\))?\s*:\s*(.*)$", re.S)


def card_substitution(name: str, cards_dir: Path | None = None) -> str:
    """The ``substitution:`` field of a dataset card ("" if there is none or no card)."""
    card = read_card(name, cards_dir)
    return " ".join(str(card.get("substitution") or "").split()) if card else ""


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
        for e in dataset_entries(cfg.data.get("dataset")):
            card = entry_name(e)  # the card's name; results name the entry by its label if it has one
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

    def mark_cells(self, table: Mapping[str, Any], cells: list[CellResult]) -> list[int]:
        """Set the cells' ``marks``; return the marker numbers of the substitutions they use, in order of
        first use (the footnotes under the table: :meth:`footnotes`)."""
        exp = table.get("experiment")
        raw = list(table.get("cells", []))
        where = f"Table {table.get('number', table.get('id'))}"
        used: list[Substitution] = []
        for c in cells:
            cell = raw[c.cell_index] if 0 <= c.cell_index < len(raw) else {}
            e = exp.get(cell.get("dataset")) if isinstance(exp, Mapping) else exp
            m = self.marker(cell.get("dataset"), e)
            if m:
                c.marks += m
                for s in self.subs:
                    if s.covers(cell.get("dataset"), e) and s not in used:
                        used.append(s)
                        self._note(s, where)
        return [self.used.index(s) + 1 for s in used]

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

    def notes(self) -> list[SubstitutionNote]:
        """Every substitution marked so far, numbered as its marker, with where it was marked."""
        return [
            SubstitutionNote(k, s.scope(), s.source, list(self.affected.get(s, [])), s.text)
            for k, s in enumerate(self.used, 1)
        ]

    def section(self) -> list[str]:
        """Every substitution marked in the report, with where it applies."""
        return substitution_lines(self.notes())

    def footnotes(self, marks: list[int]) -> list[str]:
        """Markdown lines ``†k substitution (source): text`` for the markers ``marks``."""
        notes = self.notes()
        return footnote_lines([notes[k - 1] for k in marks])
