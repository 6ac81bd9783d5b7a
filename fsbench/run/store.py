"""Durable storage of results: atomic file writes, one self-checksummed file per finished task
(:class:`TaskStore`, also rebuilt from committed tables) and ``results.csv`` / ``rankings.csv`` derived
from the task files in canonical order (:func:`write_tables`)."""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fsbench.evaluation.protocol import Task, TaskResult
from fsbench.results.run_state import (  # noqa: F401 - re-exported: the runner's names
    RunState,
    canonical_json,
    count_task_files,
    read_task_file,
    run_state,
)
from fsbench.results.schema import RANKING_COLUMNS
from fsbench.results.table_files import open_table, table_file, write_table
from fsbench.run.kinds import SelectThenClassify, kind_of

_canonical = canonical_json


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` via a temp file, fsync and rename (readers never see a partial file)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(tmp, mode) as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    with contextlib.suppress(OSError):  # directory fsync makes the rename durable (not on every OS)
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class TaskStore:
    """One JSON file per finished task, each self-checksummed."""

    def __init__(self, root: Path):
        self.dir = Path(root) / "tasks"
        self.dir.mkdir(parents=True, exist_ok=True)

    def clean_partials(self) -> int:
        """Remove temp files left by a killed run (task files and tables); never read as results."""
        n = 0
        for tmp in [*self.dir.glob(".*.tmp"), *self.dir.parent.glob(".*.tmp")]:
            tmp.unlink(missing_ok=True)
            n += 1
        return n

    def path(self, task_id: str) -> Path:
        """The task file of ``task_id``."""
        return self.dir / f"{task_id}.json"

    def put(self, result: TaskResult) -> None:
        """Write a task's result atomically: rows, ranking, and — not in the tables — the code hash of
        a user selector and, for a failed task, its full traceback."""
        payload = {
            "task_id": result.task_id,
            "status": result.status,
            "rows": result.rows,
            "ranking": result.ranking,
            "code_hash": getattr(result, "code_hash", None),
        }
        tb = getattr(result, "traceback", None)
        if tb is None and result.status != "ok" and result.rows:
            tb = result.rows[0].get("traceback")  # a diagnostic's failed row carries its own
        if tb:
            payload["traceback"] = tb
        body = _canonical(payload)
        doc = {"sha256": hashlib.sha256(body.encode()).hexdigest(), "payload": payload}
        atomic_write(self.dir / f"{result.task_id}.json", _canonical(doc))

    def get(self, task_id: str) -> dict | None:
        """The payload of ``task_id``'s file; None when there is none. A file that does not parse or
        whose checksum does not match is deleted (the task will run again)."""
        path = self.path(task_id)
        try:
            return read_task_file(path, task_id)
        except FileNotFoundError:
            return None
        except ValueError:
            path.unlink(missing_ok=True)
            return None

    def restore_from_tables(self, task_ids: Iterable[str], rankings: bool = True) -> int:
        """Rebuild missing task files from ``results.csv`` / ``rankings.csv`` next to ``tasks/``.

        The tables are committed and the task files are not, so a fresh clone has rows but no
        task files; without this, a finished experiment would be recomputed from scratch. A task is
        restored only when both tables hold it (its result rows and its ranking row); values are
        kept as the CSV text, so rewriting the tables reproduces them byte for byte. The caller has
        checked that ``run.json`` holds the same effective config. Returns the number restored.
        """
        wanted = {t for t in task_ids if not self.path(t).exists()}
        found = tasks_in_tables(self.dir.parent, wanted, rankings=rankings)
        for tid, (rows, ranking) in sorted(found.items()):
            status = rows[0].get("status", "")
            self.put(TaskResult(task_id=tid, status=status, rows=rows, ranking=ranking))
        return len(found)


def tasks_in_tables(
    root: Path, task_ids: Iterable[str], rankings: bool = True
) -> dict[str, tuple[list[dict], dict]]:
    """``{task_id: (result rows, ranking row)}`` of the tasks among ``task_ids`` that ``results.csv``
    and (unless ``rankings`` is false: a diagnostic) ``rankings.csv`` in ``root`` both hold. Read only."""
    root = Path(root)
    res_path, rank_path = table_file(root, "results"), table_file(root, "rankings")
    wanted = set(task_ids)
    if not wanted or res_path is None or (rankings and rank_path is None):
        return {}
    rows: dict[str, list[dict]] = {}
    with open_table(res_path) as fh:
        for r in csv.DictReader(fh):
            if r.get("task_id") in wanted:
                if r.get("n_features", "").isdigit():
                    r["n_features"] = int(r["n_features"])  # write_tables sorts on it
                rows.setdefault(r["task_id"], []).append(r)
    ranks: dict[str, dict] = {}
    if not rankings:  # a diagnostic: its rows are all there is
        ranks = {tid: {"task_id": tid} for tid in rows}
    else:
        with open_table(rank_path) as fh:
            for r in csv.DictReader(fh):
                if r.get("task_id") in wanted:
                    ranks[r["task_id"]] = r
    return {tid: (rows[tid], ranks[tid]) for tid in set(rows) & set(ranks)}


def _csv_text(rows: Iterable[dict], columns: list[str]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: _fmt(r.get(k, "")) for k in columns})
    return buf.getvalue()


def _fmt(v: Any) -> Any:
    if isinstance(v, float):
        return repr(v)  # shortest round-trip form: byte-identical across runs for identical values
    if isinstance(v, bool):
        return "true" if v else "false"
    return v


def write_tables(out: Path, tasks: list[Task], store: TaskStore) -> tuple[int, int]:
    """Rewrite results.csv and rankings.csv (not for a diagnostic) from the task files, each gzip-compressed
    when large (:mod:`fsbench.results.table_files`); return (done, failed)."""
    rows, ranks = [], []
    done = failed = 0
    for t in tasks:
        payload = store.get(t.task_id)
        if payload is None:
            continue
        done += 1
        failed += payload["status"] != "ok"
        rows.extend(sorted(payload["rows"], key=lambda r: r.get("n_features", 0)))
        ranks.append(payload["ranking"])
    kind = kind_of(tasks[0].diagnostic, tasks[0].plugins) if tasks else SelectThenClassify()
    write_table(out, "results", _csv_text(rows, kind.columns()), atomic_write)
    if kind.rankings:
        write_table(out, "rankings", _csv_text(ranks, RANKING_COLUMNS), atomic_write)
    return done, failed
