"""``fsbench build``: every derived file under ``results/`` regenerated from the committed run tables.

A *paper folder* is ``results/<name>/`` with a folder ``configs/<name>/`` of the same name (a paper when
that folder holds ``paper_values.yaml``, compared with the paper by the report; otherwise, e.g.
``configs/scale`` or ``configs/benchmark``, a report without a paper comparison, laid out by the folder's
``notes.md`` and ``hooks.py`` where it has them, :meth:`fsbench.papers.folder.PaperFolder.plain`). A configs
folder whose results are not there yet (no ``results/<name>/``, or no result table under it: a benchmark
not run yet) is not built; :attr:`BuildSummary.not_run` names it.

Under a paper folder, a run writes the **inputs** of the build —
``results.csv``, ``rankings.csv`` and ``run.json`` in each result directory (and its ``tasks/`` store and
``run.lock``, which the build never touches); the hand-written notes live in the paper's configs folder
(``configs/<paper>/notes.md``). Every other file is **derived** and is a pure function of the inputs and
the code:

* per result directory: figures and CPU-time tables (``plots/``, :func:`fsbench.plots.plot_results`), or a
  diagnostic's tables and figures (:meth:`fsbench.diagnostics.base.Diagnostic.render`);
* per paper folder, through the one report entry point (:func:`write_paper_report`): ``REPORT.md`` and
  whatever the report writes beside it — for a paper, ``comparison.json`` (the comparison with the
  paper the report renders, :mod:`fsbench.papers.comparison`; the status block of the docs and the
  prose facts read it), ``stability.*`` and ``ground_truth*`` in every result directory
  (:func:`fsbench.results.experiment_tables.write_experiment_tables`) and the paper's own summaries
  and figures.

:func:`build` deletes every derived file of a paper folder and writes them again, so a file that no step
writes any more cannot stay behind. The build reads only the inputs (it never runs a task) and is
deterministic: figures carry no date or software version (:data:`fsbench.results.tables.FIGURE_METADATA`:
every module that saves a figure passes it, which ``tests/results/test_figure_metadata.py`` checks in the
source), so a rebuild gives the same bytes.

:func:`check_build` rebuilds a copy of the inputs in a temporary directory and compares it with the files in
place: text files byte for byte; figures byte for byte, or, for a PNG whose bytes differ, by its decoded
pixels (:func:`same_picture`: exactly the same pixels), since another zlib/libpng or a figure saved with
a version in its metadata holds the same picture in other bytes. No tolerance: a one-letter change of a
legend label (``wrapper`` → ``wrappes``) moves the root-mean-square pixel difference by only 0.9 (0–255
scale), so a tolerance that absorbed another release's antialiasing would also pass a stale label; a
figure drawn differently by another matplotlib is reported, and rebuilding settles it. A PDF is saved
from the same figure as its PNG twin (:func:`fsbench.results.tables.save_figure`), so a PDF whose twin
has the same pixels is taken as the same drawing.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from matplotlib.image import imread

from fsbench.diagnostics.registry import render_result_dir
from fsbench.papers.folder import HOOKS_FILE, NOTES_FILE, PaperFolder
from fsbench.papers.values import PAPER_VALUES  # in configs/<paper>/: present = compared with the paper
from fsbench.plots.experiment import plot_results
from fsbench.processes import worker_pool
from fsbench.report import write_report
from fsbench.results.loading import find_result_dirs, is_diagnostic
from fsbench.results.run_state import read_run_json
from fsbench.results.table_files import TABLE_FILE_NAMES
from fsbench.run.engine import unfinished_runs

#: Files a run writes into its result directory: read by the build, never written.
INPUT_FILES = TABLE_FILE_NAMES | {"run.json"}
#: A run's own state (its per-task store and lock): neither read nor touched by the build.
RUN_STATE = frozenset({"tasks", "run.lock"})
#: Written on demand and not committed (``fsbench report --html``): not a derived file of the build (the
#: check ignores it), but deleted by a build, which would leave it stale.
ON_DEMAND = frozenset({"REPORT.html"})


class BuildError(RuntimeError):
    """A user error of the build (no paper folder, an unfinished run); reported as one line."""


@dataclass
class Paper:
    """One paper folder: ``results/<name>`` built with the configs in ``configs/<name>``."""

    name: str
    results: Path
    configs: Path

    @property
    def compared(self) -> bool:
        """Whether the report compares with the paper (``paper_values.yaml`` in its configs folder)."""
        return (self.configs / PAPER_VALUES).is_file()


@dataclass
class BuildSummary:
    """What :func:`build` did."""

    papers: list[str]
    written: dict[str, list[Path]] = field(default_factory=dict)  # paper → files now present
    skipped: list[Path] = field(default_factory=list)  # result folders without a configs folder
    not_run: list[str] = field(default_factory=list)  # configs folders with no result table yet
    seconds: float = 0.0


@dataclass
class CheckResult:
    """Derived files of the build that differ from those in place (paths relative to the results root)."""

    differing: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # the build writes them; not in place
    extra: list[str] = field(default_factory=list)  # in place; no build step writes them (stale)
    same_picture: list[str] = field(default_factory=list)  # other bytes, same pixels (see module doc)
    dirty: list[str] = field(default_factory=list)  # run.json files recording git_dirty: true
    n_files: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not (self.differing or self.missing or self.extra or self.dirty)

    def summary(self) -> str:
        """One line: the verdict and the counts."""
        if self.ok:
            tol = f"; {len(self.same_picture)} figure(s) equal by pixels" if self.same_picture else ""
            return f"build check: {self.n_files} derived files up to date{tol} ({self.seconds:.0f} s)"
        if not (self.differing or self.missing or self.extra):
            return (
                f"build check: {self.n_files} derived files up to date, but {len(self.dirty)} run.json "
                "record(s) a dirty working tree (git_dirty: true), so their commit does not pin the code "
                f"that computed them: rerun those from a clean checkout ({self.seconds:.0f} s)"
            )
        dirty = f", {len(self.dirty)} run.json with git_dirty: true" if self.dirty else ""
        return (
            f"build check: {len(self.differing)} differing, {len(self.missing)} missing, "
            f"{len(self.extra)} stale of {self.n_files} derived files{dirty}; run `fsbench build` and commit "
            f"({self.seconds:.0f} s)"
        )

    def lines(self) -> list[str]:
        """One line per file: ``differs``, ``missing`` or ``stale`` and its path."""
        return (
            [f"differs  {p}" for p in self.differing]
            + [f"missing  {p}" for p in self.missing]
            + [f"stale    {p}" for p in self.extra]
            + [f"dirty    {p}" for p in self.dirty]
        )


# ------------------------------------------------------------------------------------------ inventory
def is_input(path: Path, root: Path) -> bool:
    """Whether ``path`` (under the paper folder ``root``) is an input of the build rather than derived.

    Parameters
    ----------
    path : Path
        A file under ``root``.
    root : Path
        The paper folder.

    Returns
    -------
    bool
        True for a run's tables and ``run.json`` and a run's own state.
    """
    rel = Path(path).relative_to(root)
    if rel.name in INPUT_FILES:
        return True
    return any(part in RUN_STATE for part in rel.parts)


def derived_files(root: Path) -> list[Path]:
    """Every derived file under the paper folder ``root``, in path order (not the on-demand ones)."""
    root = Path(root)
    return sorted(
        p for p in root.rglob("*") if p.is_file() and not is_input(p, root) and p.name not in ON_DEMAND
    )


def find_papers(results_root: Path, configs_root: Path, only: list[str] | None = None) -> list[Paper]:
    """The paper folders: ``results_root/<name>`` with a ``configs_root/<name>`` folder, by name.

    Parameters
    ----------
    results_root, configs_root : Path
        ``results/`` and ``configs/``.
    only : list of str or None
        Names to build (each must be a paper folder); ``None``: all.

    Returns
    -------
    list of Paper

    Raises
    ------
    BuildError
        An unknown name in ``only``.
    """
    results_root, configs_root = Path(results_root), Path(configs_root)
    names = sorted(d.name for d in results_root.iterdir() if d.is_dir() and (configs_root / d.name).is_dir())
    if only:
        unknown = sorted(set(only) - set(names))
        not_run = [n for n in unknown if (configs_root / n).is_dir()]
        if not_run:  # a configs folder whose results are not there: say so, not "unknown"
            raise BuildError(f"{', '.join(not_run)}: not run yet (no folder {results_root / not_run[0]})")
        if unknown:
            raise BuildError(
                f"no paper folder {', '.join(unknown)} (a folder under {results_root} with the same name "
                f"under {configs_root}); known: {', '.join(names) or '(none)'}"
            )
        names = [n for n in names if n in only]
    return [Paper(n, results_root / n, configs_root / n) for n in names]


# ------------------------------------------------------------------------------------------ one build
def write_paper_report(paper: Paper) -> Path:
    """The one report entry point for a paper folder (``REPORT.md``; compared with the paper when its
    configs folder has ``paper_values.yaml``; otherwise with the folder's notes and hooks, if any)."""
    if paper.compared:
        return write_report(paper.results, paper_dir=paper.configs)
    own = any((paper.configs / f).is_file() for f in (NOTES_FILE, HOOKS_FILE))
    return write_report(paper.results, paper_dir=PaperFolder.plain(paper.configs) if own else None)


def build_result_dir(result_dir: Path, configs: Path) -> list[Path]:
    """Write the derived files of one result directory: its figures and CPU-time tables, or a
    diagnostic's rendering (stability and ground truth come with the report)."""
    if is_diagnostic(result_dir):
        return render_result_dir(result_dir, configs)
    return plot_results([result_dir])


def _build_report(paper: Paper) -> Path:
    return write_paper_report(paper)


def _build_paper(paper: Paper, dirs: list[Path]) -> Path:
    """Draw every result directory of a paper folder, then write its report."""
    for d in dirs:
        build_result_dir(d, paper.configs)
    return _build_report(paper)


def clean(paper: Paper) -> list[Path]:
    """Delete every derived file of the paper folder and the folders left empty; return the files."""
    files = derived_files(paper.results)
    files += sorted(p for p in paper.results.rglob("*") if p.name in ON_DEMAND and p.is_file())
    for f in files:
        f.unlink()
    for d in sorted((p for p in paper.results.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        if not any(d.iterdir()):
            d.rmdir()
    return files


def check_finished(papers: list[Paper]) -> None:
    """Refuse a run that has not finished all its tasks: its tables are partial (BuildError)."""
    for paper in papers:
        partial = unfinished_runs(paper.results)
        if partial:
            d, done, total = partial[0]
            raise BuildError(
                f"{d}: the run has not finished ({done} of {total} tasks); finish it (run the same command "
                "again) before building"
            )


def build(
    results_root: Path = Path("results"),
    configs_root: Path = Path("configs"),
    papers: list[str] | None = None,
    jobs: int = 1,
    log: Callable[[str], None] | None = None,
) -> BuildSummary:
    """Delete and regenerate every derived file of every paper folder under ``results_root``.

    Parameters
    ----------
    results_root : Path
        ``results/`` (or a copy of its inputs).
    configs_root : Path
        ``configs/``.
    papers : list of str or None
        Paper folders to build; ``None``: every one.
    jobs : int
        Worker processes (joblib): the largest paper's result directories in parallel, then its report
        beside the other papers.
    log : callable or None
        Receives one line per step.

    Returns
    -------
    BuildSummary

    Raises
    ------
    BuildError
        No paper folder, an unknown name in ``papers``, or an unfinished run.
    """
    t0 = time.perf_counter()
    results_root, configs_root = Path(results_root), Path(configs_root)
    if not results_root.is_dir():
        raise BuildError(f"{results_root}: no such directory")
    found = find_papers(results_root, configs_root, papers)
    # a folder with no result table (a benchmark not run yet) has nothing to build: left as it is
    not_run = [p.name for p in found if not find_result_dirs([p.results])]
    found = [p for p in found if p.name not in not_run]
    if configs_root.is_dir():
        not_run += [
            d.name for d in configs_root.iterdir() if d.is_dir() and not (results_root / d.name).exists()
        ]
    if not found and papers:
        raise BuildError(f"{', '.join(papers)}: not run yet (no result table under {results_root})")
    if not found:
        raise BuildError(
            f"no paper folder under {results_root} (a folder with the same name in {configs_root})"
        )
    check_finished(found)
    say = log or (lambda _: None)
    for paper in found:
        removed = clean(paper)
        say(f"{paper.name}: {len(removed)} derived files removed")
    # The paper with the most result directories sets the wall time: its directories are drawn first by
    # every worker, then its report (the longest step) runs beside the other papers, each drawn and
    # reported by one worker.
    dirs = {p.name: find_result_dirs([p.results]) for p in found}
    first, *rest = sorted(found, key=lambda p: (-len(dirs[p.name]), p.name))
    _map(jobs, [(build_result_dir, d, first.configs) for d in dirs[first.name]])
    say(f"{first.name}: {len(dirs[first.name])} result directories drawn ({time.perf_counter() - t0:.0f} s)")
    tasks = [(_build_report, first)] + [(_build_paper, p, dirs[p.name]) for p in rest]
    for p, report in zip([first, *rest], _map(jobs, tasks)):
        say(f"{p.name}: {report}")
    summary = BuildSummary(papers=[p.name for p in found], not_run=sorted(not_run))
    summary.written = {p.name: derived_files(p.results) for p in found}
    summary.skipped = sorted(d for d in results_root.iterdir() if d.is_dir() and d.name not in summary.papers)
    summary.seconds = time.perf_counter() - t0
    return summary


def _call(fn_args: tuple):
    fn, *args = fn_args
    return fn(*args)


def _map(jobs: int, calls: list[tuple]) -> list:
    """``[fn(*args) for fn, *args in calls]``, in ``jobs`` worker processes that end with this one
    (:func:`fsbench.processes.worker_pool`: no orphan after a ``kill -9`` of the build)."""
    if jobs <= 1 or len(calls) <= 1:
        return [_call(c) for c in calls]
    return list(worker_pool(jobs).map(_call, calls))


# ------------------------------------------------------------------------------------------ check
def copy_inputs(src: Path, dst: Path) -> int:
    """Copy the build's inputs (run tables, ``run.json``; not a run's ``tasks/``) of the results
    tree ``src`` to ``dst``; return how many files were copied."""
    n = 0
    for f in sorted(Path(src).rglob("*")):
        if not f.is_file() or any(part in RUN_STATE for part in f.relative_to(src).parts):
            continue
        if f.name in INPUT_FILES:
            target = dst / f.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, target)
            n += 1
    return n


def same_picture(a: Path, b: Path) -> bool:
    """Whether two PNG files decode to the same pixels (same size, every value equal)."""
    return bool(np.array_equal(imread(a), imread(b)))


def compare_trees(built: Path, current: Path, papers: list[str]) -> CheckResult:
    """Compare the derived files of the paper folders ``papers`` in ``built`` (a fresh build) and in
    ``current`` (the files in place): see the module docstring for when two figures are the same."""
    res = CheckResult()
    for name in papers:
        new = {p.relative_to(built).as_posix() for p in derived_files(built / name)}
        old = {p.relative_to(current).as_posix() for p in derived_files(current / name)}
        res.missing += sorted(new - old)
        res.extra += sorted(old - new)
        res.n_files += len(new)
        both = new & old

        def same_png(rel: str) -> bool:
            a, b = built / rel, current / rel
            return a.read_bytes() == b.read_bytes() or same_picture(a, b)

        for rel in sorted(both):
            if (built / rel).read_bytes() == (current / rel).read_bytes():
                continue
            twin = Path(rel).with_suffix(".png").as_posix()
            if rel.endswith(".png") and same_picture(built / rel, current / rel):
                res.same_picture.append(rel)
            elif rel.endswith(".pdf") and twin in both and same_png(twin):
                res.same_picture.append(rel)  # drawn from the same figure as its PNG twin
            else:
                res.differing.append(rel)
    return res


def build_copy(
    results_root: Path,
    out: Path,
    configs_root: Path = Path("configs"),
    papers: list[str] | None = None,
    jobs: int = 1,
    log: Callable[[str], None] | None = None,
) -> BuildSummary:
    """Copy the inputs of the paper folders under ``results_root`` to ``out`` (new or empty) and build
    there; ``results_root`` is only read. Parameters as for :func:`build`."""
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise BuildError(f"{out}: not empty; give a new or empty directory")
    for p in find_papers(results_root, configs_root, papers):
        copy_inputs(p.results, out / p.name)
    return build(out, configs_root, papers, jobs=jobs, log=log)


def dirty_runs(results_root: Path, papers: list[str]) -> list[str]:
    """The ``run.json`` files under the given paper folders that record ``git_dirty: true`` (paths
    relative to ``results_root``): the commit they name is not the code that computed their rows, so a
    committed result must come from a clean tree (provenance, docs/results.md)."""
    found = []
    for name in papers:
        for f in sorted((results_root / name).rglob("run.json")):
            info = read_run_json(f.parent)
            if info is not None and info.get("git_dirty"):
                found.append(f.relative_to(results_root).as_posix())
    return found


def check_build(
    results_root: Path = Path("results"),
    configs_root: Path = Path("configs"),
    papers: list[str] | None = None,
    jobs: int = 1,
    out: Path | None = None,
    log: Callable[[str], None] | None = None,
) -> CheckResult:
    """Build a copy of the inputs under ``results_root`` and compare its derived files with those in
    place (which are not written).

    Parameters
    ----------
    results_root, configs_root, papers, jobs, log
        As for :func:`build`.
    out : Path or None
        Build into this new (or empty) directory and keep it; default a temporary directory.

    Returns
    -------
    CheckResult
    """
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="fsbench-build-") as tmp:
        target = Path(out) if out is not None else Path(tmp) / "results"
        summary = build_copy(results_root, target, configs_root, papers, jobs=jobs, log=log)
        res = compare_trees(target, Path(results_root), summary.papers)
    res.dirty = dirty_runs(Path(results_root), summary.papers)
    res.seconds = time.perf_counter() - t0
    return res
