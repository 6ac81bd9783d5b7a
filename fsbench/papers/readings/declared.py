"""Readings as data: the ``readings:`` entries of a paper's values, and the table a reading sees.

The format of an entry is in :mod:`fsbench.papers.readings`. A reading belongs to one table or one figure
of the paper; its default experiment is the one that table or figure names unless it says otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Reading:
    """One reading of an ambiguous protocol point, run with the full protocol.

    The format of its entry is in :mod:`fsbench.papers.readings`.
    """

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


def _item(values: Mapping[str, Any], r: Reading) -> Mapping[str, Any]:
    """The paper-values table or figure the reading belongs to ({} if there is none)."""
    items = values.get("tables", []) if r.table else values.get("figures", [])
    return next((x for x in items if x.get("id") == r.where), {})


def default_experiment(values: Mapping[str, Any], r: Reading) -> str | None:
    """The default experiment of a reading's table or figure, where it names one experiment."""
    e = _item(values, r).get("experiment")
    return e if isinstance(e, str) else None


def default_label(values: Mapping[str, Any], r: Reading) -> str:
    """The reading's default in words: its ``default``, or its table's / figure's experiment(s)."""
    if r.default:
        return r.default
    e = _item(values, r).get("experiment")
    if isinstance(e, Mapping):
        return " / ".join(str(v) for v in e.values())
    return str(e)


def where_name(values: Mapping[str, Any], r: Reading) -> str:
    """``Table <number>`` or ``Fig. <id>`` of the reading."""
    if r.table:
        return f"Table {_item(values, r).get('number', r.table)}"
    return f"Fig. {r.figure.removeprefix('fig')}" if r.figure else "?"
