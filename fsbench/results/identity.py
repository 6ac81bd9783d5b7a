"""What a result directory is: which paper (or benchmark) its runs belong to, and who writes its report.

A run records its config's ``paper:`` key in ``run.json`` (``effective_config.paper``), so a result
directory knows its paper without being told. A paper folder of a project — ``results/<name>`` beside
``configs/<name>`` — is *managed* by ``fsbench build``: its ``REPORT.md`` and every derived file are what
the build makes of the committed run tables, and no other command may write a different one there
(a generic report replacing a paper's comparison would silently delete it).

:func:`report_target` turns ``fsbench report DIR [--paper P] [--out F]`` into one of two actions:

``build``
    ``DIR`` is a managed paper folder and the report goes to its ``REPORT.md``: the command builds what
    ``fsbench build --paper <name>`` builds (the same files, byte for byte).
``write``
    Any other directory: one report at ``--out`` (default ``DIR/REPORT.md``), compared with the paper its
    runs name (or ``--paper``) when that paper's folder is found.

Refused, with one line: a ``--paper`` that contradicts the runs' ``paper:`` key (or the managed folder's
name), and a report whose file would land inside a managed paper folder (or on the results root above
several) where the build writes nothing of the kind.

This module reads only ``run.json`` files and directory names: no numeric library, so that the CLI can
refuse quickly.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fsbench.results.run_state import read_run_json

#: Files of a paper folder in ``configs/<name>`` that give its report a layout of its own.
PAPER_FILES = ("paper_values.yaml", "notes.md", "hooks.py")


class ReportTargetError(ValueError):
    """A report that would contradict the runs' paper or overwrite what the build writes (one line)."""


@dataclass(frozen=True)
class ReportTarget:
    """What ``fsbench report`` does for a directory (see the module docstring)."""

    action: str  # "build" or "write"
    #: ``build``: the results and configs roots and the paper folder's name
    results_root: Path | None = None
    configs_root: Path | None = None
    name: str | None = None
    #: ``write``: the paper folder to compare with / lay out by (None: a generic report), and the file
    paper_dir: str | Path | None = None
    out: Path | None = None


def _run_jsons(results_dir: Path) -> list[Path]:
    if (results_dir / "run.json").is_file():
        return [results_dir / "run.json"]
    # a run's task store holds no run.json; rglob is cheap next to reading the tables
    return sorted(p for p in results_dir.rglob("run.json") if "tasks" not in p.relative_to(results_dir).parts)


def declared_papers(results_dir: Path) -> dict[str, list[str]]:
    """The ``paper:`` keys of the runs under ``results_dir``: paper name → the config files naming it.

    Runs whose config has no ``paper:`` key (a user's own experiment) are not listed.
    """
    found: dict[str, list[str]] = {}
    for rj in _run_jsons(Path(results_dir)):
        run = read_run_json(rj.parent)
        if run is None:
            continue
        paper = (run.get("effective_config") or {}).get("paper")
        if paper:
            found.setdefault(str(paper), []).append(str(run.get("config_file") or rj.parent))
    return found


def managed_folder(path: Path) -> tuple[Path, Path, str] | None:
    """``(results_root, configs_root, name)`` when ``path`` is, or lies inside, a paper folder that
    ``fsbench build`` writes: ``<root>/results/<name>`` (any folder name) beside ``<root>/configs/<name>``."""
    path = Path(path).resolve()
    for folder in [path, *path.parents]:
        if folder.parent == folder:
            break
        configs = folder.parent.parent / "configs"
        if (configs / folder.name).is_dir() and folder.parent.name != "configs":
            return folder.parent, configs, folder.name
    return None


def managed_children(path: Path) -> list[Path]:
    """The managed paper folders directly under ``path`` (``path`` is a results root)."""
    path = Path(path)
    if not path.is_dir():
        return []
    return sorted(
        d for d in path.iterdir() if d.is_dir() and (m := managed_folder(d)) and m[0] == path.resolve()
    )


def _paper_folder(name: str, configs: list[str], cwd_configs: Path) -> Path | None:
    """The configs folder of paper ``name``: the folder of the config files that ran it, else
    ``configs/<name>`` under the working directory; only a folder with paper files counts."""
    candidates = [Path(c).parent for c in configs] + [cwd_configs / name]
    for folder in candidates:
        if folder.name == name and any((folder / f).is_file() for f in PAPER_FILES):
            return folder
    return None


def _shown(path: Path) -> Path:
    """``path`` relative to the working directory where it lies below it (as the user typed it)."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


def report_target(
    results_dir: Path, paper: str | Path | None = None, out: Path | None = None
) -> ReportTarget:
    """Decide what ``fsbench report results_dir [--paper paper] [--out out]`` does.

    Parameters
    ----------
    results_dir : Path
        A result directory or a parent of several.
    paper : str or Path, optional
        ``--paper``: a paper folder or its bare name; it only overrides the runs' ``paper:`` key when that
        key is absent, and must agree with it otherwise.
    out : Path, optional
        ``--out``: the report's file.

    Returns
    -------
    ReportTarget

    Raises
    ------
    ReportTargetError
        A mismatch between ``paper`` and the runs, or a report that would overwrite what the build writes.
    """
    results_dir = Path(results_dir)
    declared = declared_papers(results_dir)
    asked = Path(paper).name if paper is not None else None
    if asked is not None and declared and set(declared) != {asked}:
        raise ReportTargetError(
            f"{results_dir}: its runs belong to {', '.join(sorted(declared))} (the paper: key of "
            f"{next(iter(declared.values()))[0]}), not to --paper {paper}; leave --paper out"
        )
    managed = managed_folder(results_dir)
    target = Path(out) if out is not None else results_dir / "REPORT.md"
    if managed is not None:
        results_root, configs_root, name = managed
        home = results_root / name
        shown = _shown(home)
        if asked is not None and asked != name:
            raise ReportTargetError(
                f"{results_dir}: is the paper folder {name} (beside {_shown(configs_root / name)}), "
                f"not --paper {paper}"
            )
        if results_dir.resolve() == home and target.resolve() == home / "REPORT.md":
            return ReportTarget("build", results_root=results_root, configs_root=configs_root, name=name)
        if target.resolve().is_relative_to(home):
            raise ReportTargetError(
                f"{target}: inside the paper folder {shown}, whose files only `fsbench build` writes; report "
                f"the whole folder (fsbench report {shown}) or write elsewhere with --out FILE"
            )
    elif managed_children(results_dir) and target.resolve().is_relative_to(results_dir.resolve()):
        names = ", ".join(d.name for d in managed_children(results_dir))
        raise ReportTargetError(
            f"{results_dir}: holds the paper folders {names}, each reported by its own build; report one "
            f"(fsbench report {results_dir / names.split(', ')[0]}) or write elsewhere with --out FILE"
        )
    folder: str | Path | None = None
    if paper is not None:
        folder = paper
    elif len(declared) == 1:
        ((name, configs),) = declared.items()
        folder = _paper_folder(name, configs, Path("configs"))
    return ReportTarget("write", paper_dir=folder, out=target)
