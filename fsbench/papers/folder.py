"""A paper folder: the data that makes a paper's report, and the small hook interface.

A paper is a folder (``configs/<paper>/``, or anywhere else) holding

* its experiment configs (``*.yaml``, run by ``fsbench run`` / ``fsbench diagnose``);
* ``paper_values.yaml``: the paper's printed numbers and claims (format in its header and
  :mod:`fsbench.papers.values`), and optionally a ``report`` mapping saying how the page is laid out::

      report:
        title: "Report: {results}"        # the page's first heading ({results} = results directory name)
        sections: [summary, notes, ranks, comparison, experiments, analysis]   # the default order
        producers:                        # tables and figures computed from the results, declared
          - {kind: timing_vs_n, run: timing, heading: "## Fit time vs N"}

  The section names are those of :data:`SECTIONS`; ``producers`` is the Markdown of the declared
  producers (:mod:`fsbench.results.producers`: a metric against k, timing against N, own-dimension
  curves, subset searches), in the order declared; ``cross_dataset`` (not in the default order) is the
  cross-dataset report over every result directory (:mod:`fsbench.results.crossdataset`), which a
  benchmark of one's own puts on its page;
* ``notes.md`` (optional): the hand-written discussion, inserted verbatim where ``notes`` stands;
* ``hooks.py`` (optional): only for what neither data nor a declared producer can express (a table
  computed in a paper's own way, a figure of its own). It is loaded by file path (not imported as a
  package module) and may define

  ``sections(ctx: ReportContext) -> list[str]``
      Markdown lines for the ``hooks`` place of the layout; it may write files (summaries, figures)
      under ``ctx.results_dir`` and link them relative to ``ctx.root``.

A folder *without* ``paper_values.yaml`` (a benchmark, ``configs/benchmark/``; ``configs/scale/``) is not
compared with a paper, but its ``notes.md`` and ``hooks.py`` are used the same way
(:meth:`PaperFolder.plain`); having no values file, it may state its layout as the mapping ``REPORT`` (the
``report`` mapping above) in its ``hooks.py``.

Nothing in :mod:`fsbench` names a paper: ``fsbench report RESULTS --paper PAPER`` resolves ``PAPER`` to a
folder (:func:`resolve_paper_dir`) and :func:`fsbench.report.write_report` reads the rest from it.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd

from fsbench.papers.values import PAPER_VALUES, configs_dir, load_paper_values
from fsbench.results.facts import strip_markers
from fsbench.results.loading import Results
from fsbench.results.producers import check_producers

#: The hand-written discussion of a paper, in its folder.
NOTES_FILE = "notes.md"
#: The hook module of a paper, in its folder (optional).
HOOKS_FILE = "hooks.py"
#: The places a report layout may name, in the default order (``hooks``: the hook module's sections).
SECTIONS = (
    "summary",
    "notes",
    "runs",
    "ranks",
    "comparison",
    "hooks",
    "producers",
    "experiments",
    "analysis",
    "cross_dataset",
)
#: The layout of a paper that states none, and of a report without a paper (its paper parts are empty).
DEFAULT_SECTIONS = ("summary", "notes", "ranks", "comparison", "experiments", "analysis")
#: The page title of a paper that states none (``{results}``: the results directory's name).
DEFAULT_TITLE = "Report: {results}"


def resolve_paper_dir(paper: str | Path) -> Path:
    """The folder of a paper given as a folder path or a bare name (``configs/<name>``).

    Parameters
    ----------
    paper : str or Path
        A directory holding ``paper_values.yaml`` (or, not compared with a paper, only ``notes.md`` or
        ``hooks.py``), or the name of one under :func:`configs_dir`.

    Returns
    -------
    Path

    Raises
    ------
    FileNotFoundError
        If neither holds a ``paper_values.yaml`` (the message names both places).
    """
    given = Path(paper)
    named = configs_dir() / str(paper)
    # a folder with paper values first; else one with only notes or hooks (a benchmark: no comparison)
    for files in ((PAPER_VALUES,), (PAPER_VALUES, NOTES_FILE, HOOKS_FILE)):
        for folder in (given, named):
            if any((folder / f).is_file() for f in files):
                return folder
    raise FileNotFoundError(
        f"no paper values for '{paper}': neither {given / PAPER_VALUES} nor {named / PAPER_VALUES} exists"
    )


def load_hooks(path: Path) -> ModuleType | None:
    """The hook module ``path`` (a ``hooks.py``) loaded by file path, or ``None`` if there is none."""
    path = Path(path)
    if not path.is_file():
        return None
    # a name per folder: two papers' hooks never share a module object
    name = "fsbench_paper_hooks_" + "".join(c if c.isalnum() else "_" for c in str(path.parent.resolve()))
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class PaperFolder:
    """One paper folder, read: its name, values, layout, notes and hooks.

    Attributes
    ----------
    path : Path
        The folder (``configs/<paper>``).
    values : dict
        ``paper_values.yaml``, parsed.
    """

    path: Path
    values: dict[str, Any] = field(repr=False)

    @classmethod
    def open(cls, paper: str | Path) -> PaperFolder:
        """Read the folder of ``paper`` (a folder path or a bare name, :func:`resolve_paper_dir`); a folder
        without paper values is opened :meth:`plain`."""
        path = resolve_paper_dir(paper)
        if not (path / PAPER_VALUES).is_file():
            return cls.plain(path)
        return cls(path, load_paper_values(path.name, path / PAPER_VALUES))

    @classmethod
    def plain(cls, path: str | Path) -> PaperFolder:
        """A folder without paper values (not compared with a paper): its notes, hooks and layout only."""
        return cls(Path(path), {})

    @property
    def compared(self) -> bool:
        """Whether the folder has paper values to compare with (``paper_values.yaml``)."""
        return (self.path / PAPER_VALUES).is_file()

    @property
    def name(self) -> str:
        """The paper's id: the folder name (as in "Paper vs ours: <name>")."""
        return self.path.name

    @property
    def layout(self) -> dict[str, Any]:
        """The ``report`` mapping of the values, else the hooks' ``REPORT`` mapping ({} where absent)."""
        return self.values.get("report") or getattr(self.hooks, "REPORT", None) or {}

    @property
    def notes(self) -> str | None:
        """The hand-written ``notes.md`` without the comments that mark its checked numbers (the numbers
        kept: :func:`fsbench.results.facts.strip_markers`), or ``None``."""
        f = self.path / NOTES_FILE
        return strip_markers(f.read_text(encoding="utf-8")) if f.is_file() else None

    @cached_property
    def hooks(self) -> ModuleType | None:
        """The folder's ``hooks.py``, loaded (``None`` if there is none)."""
        return load_hooks(self.path / HOOKS_FILE)


def report_layout(paper: PaperFolder | None) -> tuple[str, list[str]]:
    """(title, section names) of a report: the paper's ``report`` mapping, else the defaults.

    Raises
    ------
    ValueError
        If the layout names a section that does not exist.
    """
    layout = paper.layout if paper is not None else {}
    sections = [str(s) for s in layout.get("sections", DEFAULT_SECTIONS)]
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown:
        where = paper.path / PAPER_VALUES if paper is not None else "the layout"
        raise ValueError(f"{where}: unknown report section(s) {unknown}; known: {', '.join(SECTIONS)}")
    source = paper.path / PAPER_VALUES if paper is not None else "the layout"
    check_producers(layout.get("producers") or [], f"{source}: report.producers")
    return str(layout.get("title", DEFAULT_TITLE)), sections


@dataclass
class ReportContext:
    """What a paper's hooks get: where the results are, where the page goes, and the rows.

    Attributes
    ----------
    results_dir : Path
        The results directory given to ``fsbench report``.
    paper_dir : Path
        The paper folder (``configs/<paper>``): its configs, values and notes.
    root : Path
        The directory of REPORT.md: links in the Markdown are relative to it.
    values : dict
        ``paper_values.yaml``, parsed.
    results : Results, optional
        The directory as the report read it (:class:`~fsbench.results.loading.Results`): a hook takes its
        tables from here rather than reading the directory again. Read on first use when not given.
    """

    results_dir: Path
    paper_dir: Path
    root: Path
    values: dict[str, Any] = field(repr=False)
    results: Results | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.results is None:
            self.results = Results(self.results_dir)

    @cached_property
    def rows(self) -> pd.DataFrame:
        """Every result row under ``results_dir`` (diagnostics' tables included,
        :meth:`fsbench.results.loading.Results.rows`)."""
        return self.results.rows()

    def rel(self, path: Path) -> str:
        """``path`` relative to :attr:`root` (as written in the Markdown), else as it is."""
        try:
            return Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return Path(path).as_posix()
