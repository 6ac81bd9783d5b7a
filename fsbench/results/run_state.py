"""A run's task files and how far it got: read by the runner and by the table side alike.

The format of a task file (docs/results.md): ``{"payload": {...}, "sha256": <sha256 of the canonical JSON
of the payload>}``. :func:`read_task_file` is the one check of it; :func:`run_state` counts a run's
progress from ``run.json`` or, for a run that never wrote its final counts (interrupted), from its task
files or its tables. Standard library only: the CLI and the runner import it without numeric libraries.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fsbench.results.table_files import open_table, table_file


def canonical_json(obj: Any) -> str:
    """The JSON text a task file's checksum is computed over (sorted keys, no spaces)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def read_task_file(path: Path, task_id: str) -> dict:
    """The checked payload of a task file, read only.

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        The file does not parse, its checksum does not match, or it holds another task.
    """
    try:
        doc = json.loads(Path(path).read_text())
        payload = doc["payload"]
        if hashlib.sha256(canonical_json(payload).encode()).hexdigest() != doc["sha256"]:
            raise ValueError("checksum mismatch")
        if payload["task_id"] != task_id:
            raise ValueError("task id mismatch")
        return payload
    except FileNotFoundError:
        raise
    except (ValueError, KeyError, TypeError, OSError) as exc:
        raise ValueError(f"{path}: unreadable task file ({exc})") from None


@dataclass(frozen=True)
class RunState:
    """How far the run in one output directory got (:func:`run_state`)."""

    #: finished tasks (ok or failed): valid task files, or, with none, the tasks the tables hold
    n_done: int
    #: tasks the run planned (``run.json``'s ``n_tasks``); None where it was never recorded
    n_tasks: int | None
    #: ``run.json`` records the end of a run
    finished: bool

    @property
    def partial(self) -> bool:
        """The run has not finished all its planned tasks (an unknown plan counts as unfinished)."""
        return not self.finished or self.n_tasks is None or self.n_done < self.n_tasks

    def describe(self) -> str:
        """``"N of M tasks"`` (``"N tasks of an unknown total"`` when the plan was never recorded)."""
        if self.n_tasks is None:
            return f"{self.n_done} tasks of an unknown total"
        return f"{self.n_done} of {self.n_tasks} tasks"


def count_task_files(root: Path) -> int:
    """Valid task files under ``root/tasks`` (read only: a corrupt one is not counted, not deleted)."""
    n = 0
    for path in Path(root, "tasks").glob("*.json"):
        try:
            read_task_file(path, path.stem)
        except (FileNotFoundError, ValueError):
            continue
        n += 1
    return n


def _tasks_in_results(root: Path) -> int:
    try:
        path = table_file(root, "results")
    except ValueError:  # both forms: not countable here, the reader says why
        return 0
    if path is None:
        return 0
    with open_table(path) as fh:
        return len({r.get("task_id") for r in csv.DictReader(fh)} - {None, ""})


def read_run_json(root: Path) -> dict | None:
    """``run.json`` of a run's output directory when it is an fsbench run's (it has a config hash), else
    None (absent, unreadable, or another program's provenance file)."""
    info = None
    with contextlib.suppress(OSError, ValueError):
        info = json.loads((Path(root) / "run.json").read_text())
    return info if isinstance(info, dict) and "config_hash" in info else None


def run_state(root: Path) -> RunState | None:
    """The state of the run in ``root``; None when ``root`` holds no fsbench run (no ``run.json`` with a
    config hash, no task file). Read only.

    A finished run's counts are ``run.json``'s. An unfinished one (interrupted: Ctrl-C, SIGTERM, kill -9)
    never wrote its final counts, so they are taken from its task store, which is written task by task:
    the valid task files, else (a fresh clone: no task files) the tasks in ``results.csv``. Its planned
    task count is the ``n_tasks`` that :func:`fsbench.run.engine.run_experiment` records at the start.
    """
    root = Path(root)
    info = read_run_json(root)
    total = info.get("n_tasks") if info else None
    total = int(total) if isinstance(total, int) else None
    if info and info.get("finished") is not None and info.get("n_done") is not None:
        # finished: run.json's counts, without checksumming every task file of a large run
        return RunState(int(info["n_done"]), total, True)
    n_files = count_task_files(root)
    if info is None and n_files == 0:
        return None
    return RunState(n_files or _tasks_in_results(root), total, False)


def partial_runs(root: Path) -> list[tuple[Path, RunState]]:
    """Runs at or under ``root`` that have not finished all their tasks, with their :func:`run_state`."""
    root = Path(root)
    found = [root / "run.json"] if (root / "run.json").exists() else sorted(root.rglob("run.json"))
    out = []
    for rj in found:
        state = run_state(rj.parent)
        if state is not None and state.partial:
            out.append((rj.parent, state))
    return out
