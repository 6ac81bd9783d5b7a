"""Config → tasks → parallel execution → durable, resumable result store. Knows no algorithm.

Output directory layout (schema version :data:`fsbench.results.schema.SCHEMA_VERSION`, see docs/results.md):

``run.json``
    effective config (after command-line overrides), its sha256, fsbench git commit, package
    versions, host, start/end time, task counts.
``tasks/<task_id>.json``
    one file per finished task, written atomically (temp file + fsync + rename) the moment the
    task's result reaches the parent process. It carries a sha256 of its own payload: a file that
    does not parse or does not match is discarded and the task is run again.
``results.csv`` / ``rankings.csv``
    derived from the task files, in canonical order (config order of datasets, kernels, n_train,
    repeats, selectors; then S), rewritten atomically at the end of every run and periodically.
``run.lock``
    owner host and pid while a run is active. A second run on the directory is refused (exit 2) with
    that host and pid; a lock whose pid is dead on this host is taken over; a lock from another host is
    reported, never broken.

Resuming (the default) skips every task whose file is valid, so a run killed at any point and
started again with the same command ends with the same ``results.csv`` as an uninterrupted run.
A resume is refused when the effective config differs from ``run.json`` (or ``run.json`` is missing
or unreadable while task files exist), and when ``run.json`` names another git commit while tasks
are both finished and still to compute, unless ``--allow-mixed-code`` (a finished run is only
re-tabulated, whatever the commit); ``--fresh`` discards the task files and starts over.

:func:`validate` opens every dataset (hashing and parsing card files), checks every selector's
parameters and fits every user selector class on a tiny problem (:mod:`fsbench.plugins`, in a worker
process: :mod:`fsbench.run.workers`), so bad input stops the run before the lock, ``run.json`` or any
task; :func:`check_backend_options` and :func:`check_output` do the same for the environment.

Tasks run in worker processes (loky, also for ``--jobs 1``; or dask futures), one task per future: an
exception inside a task is recorded by :func:`fsbench.protocol.run_task` with its traceback, and a
task whose process dies (segfault, out-of-memory kill) is recorded as failed by
:func:`_local_results` / :func:`_dask_results`; either way the other tasks go on. Ctrl-C and SIGTERM
stop the run (exit 130) and kill its loky workers; after ``kill -9`` they end by themselves within
seconds (:func:`fsbench.run.workers.watch_parent`).
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fsbench.config import Experiment
from fsbench.protocol import Task
from fsbench.results.schema import SCHEMA_VERSION
from fsbench.run.backends import (
    _connect_scheduler,
    _dask_local,
    _dask_results,
    _local_results,
    _run_one,
    _threading_results,
)
from fsbench.run.checks import check_backend_options, check_output
from fsbench.run.errors import RunError
from fsbench.run.lock import RunLock
from fsbench.run.plan import expand, plugin_sources, validate
from fsbench.run.provenance import _now, git_commit, package_versions
from fsbench.run.store import TaskStore, atomic_write, write_tables
from fsbench.run.workers import sigterm_as_interrupt


@dataclass
class RunSummary:
    out: Path
    n_tasks: int
    n_skipped: int
    n_run: int
    n_failed: int
    seconds: float
    #: the first failed task in canonical order: (its task file, its one-line message)
    first_failure: tuple[Path, str] | None = None
    #: labels of the selectors left out by --exclude-selector
    excluded: tuple[str, ...] = ()


def prepare_output(exp: Experiment, out: Path, *, fresh: bool, commit: str) -> tuple[dict, dict | None]:
    """Check ``run.json`` of an existing output directory; return (the run.json to write, the old one)."""
    out.mkdir(parents=True, exist_ok=True)
    run_json = out / "run.json"
    previous = None
    if run_json.exists():
        try:
            previous = json.loads(run_json.read_text())
        except ValueError:
            previous = None
    if fresh:
        for f in (out / "tasks").glob("*.json") if (out / "tasks").exists() else []:
            f.unlink()
        for name in ("results.csv", "rankings.csv"):
            (out / name).unlink(missing_ok=True)
        previous = None
    elif previous is None and any((out / "tasks").glob("*.json")):
        raise RunError(
            f"{out}: holds task results but no readable run.json, so their config cannot be checked; "
            "use --out NEWDIR, or --fresh to discard them"
        )
    elif previous is not None:
        if not exp.accepts_hash(previous.get("config_hash")):
            raise RunError(
                f"{out}: holds results of a different effective config (hash "
                f"{str(previous.get('config_hash'))[:12]} vs {exp.config_hash[:12]}); rerun with the same "
                "config and overrides, use --out NEWDIR, or --fresh to discard them"
            )
    info = {
        "schema_version": SCHEMA_VERSION,
        "experiment": exp.name,
        "config_file": exp.source,
        "config_hash": exp.config_hash,
        "effective_config": exp.effective,
        "git_commit": commit,
        "versions": package_versions(),
        "host": socket.gethostname(),
        "started": _now(),
        "finished": None,
    }
    if previous is not None:
        info["first_started"] = previous.get("first_started", previous.get("started"))
        info["commits"] = sorted(
            set(previous.get("commits", [previous.get("git_commit", commit)])) | {commit}
        )
    else:
        info["first_started"] = info["started"]
        info["commits"] = [commit]
    return info, previous


def check_commit(
    out: Path, previous: dict | None, commit: str, n_done: int, n_todo: int, allow: bool
) -> None:
    """Refuse to add rows computed by another commit to rows already there (unless ``allow``).

    Nothing is mixed when no task is left to compute (a finished run is only re-tabulated, e.g. by
    ``make reproduce-all`` after later commits) or when no finished task is on disk (task files that
    are absent from a fresh clone are first restored from the committed tables,
    :meth:`TaskStore.restore_from_tables`).
    """
    if previous is None or allow or n_done == 0 or n_todo == 0:
        return
    prev_commit = previous.get("git_commit", "unknown")
    if prev_commit != commit:
        raise RunError(
            f"{out}: was started by fsbench commit {prev_commit[:12]}, this is {commit[:12]}; "
            "finish it with that commit, pass --allow-mixed-code (each row records its commit), "
            "or --fresh"
        )


def check_plugin_code(
    out: Path,
    previous: dict | None,
    sources: dict[str, dict[str, str | None]],
    done: Iterable[tuple[Task, dict]],
    todo: Iterable[Task],
    allow: bool,
) -> None:
    """Refuse to add tasks of a user selector whose source file changed to its tasks computed from the
    old file (unless ``allow``), as :func:`check_commit` does for fsbench's own code.

    A finished task's source hash is its file's ``code_hash`` or, for a task restored from the tables,
    the one ``run.json`` recorded. A selector with nothing left to compute mixes nothing.
    """
    if allow:
        return
    recorded = (previous or {}).get("plugin_sources") or {}
    pending = {t.selector.name for t in todo}
    for name, src in sources.items():
        if name not in pending or not src.get("sha256"):
            continue
        old = (recorded.get(name) or {}).get("sha256")
        hashes = {p.get("code_hash") or old for t, p in done if t.selector.name == name}
        stale = sorted(h for h in hashes if h and h != src["sha256"])
        if stale:
            raise RunError(
                f"{out}: finished tasks of selector {name} were computed from another version of "
                f"{src['path']} (sha256 {stale[0][:12]}, now {src['sha256'][:12]}); restore that file, "
                "pass --allow-mixed-code (each task file records its code_hash), or --fresh"
            )


def _first_failure(tasks: list[Task], store: TaskStore) -> tuple[Path, str] | None:
    for t in tasks:
        payload = store.get(t.task_id)
        if payload is not None and payload["status"] != "ok":
            rows = payload.get("rows") or [{}]
            return store.path(t.task_id), str(rows[0].get("message", ""))
    return None


def run_experiment(
    exp: Experiment,
    out: Path,
    *,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    workers: int | None = None,
    fresh: bool = False,
    allow_mixed_code: bool = False,
    retry_failed: bool = False,
    progress: Callable[[int, int], None] | None = None,
    flush_seconds: float = 30.0,
) -> RunSummary:
    """Run (or resume) every task of ``exp`` into ``out``.

    Everything that can be refused is refused before ``out`` is touched: backend options, the config
    (:func:`validate`), the output directory (:func:`check_output`) and, for ``--backend dask``, the
    scheduler's reachability. A task that fails — by an exception, or by killing its worker process —
    is recorded as failed and the others go on.
    """
    check_backend_options(backend, scheduler, workers)
    if exp.jobs is not None:  # e.g. CPU-time tables: the config says how many tasks may run at once
        jobs = min(jobs, exp.jobs)
    validate(exp)
    out = Path(out)
    check_output(out)
    with contextlib.ExitStack() as stack:  # the dask client / local cluster, closed at the end
        # connected before the output directory is created: an unreachable scheduler leaves nothing
        client = stack.enter_context(_connect_scheduler(scheduler)) if backend == "dask" else None
        commit, dirty = git_commit()
        sources = plugin_sources(exp)
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RunError(f"output directory {out}: cannot create it ({exc.strerror})") from None
        lock = RunLock(out)
        lock.acquire()
        t0 = time.perf_counter()
        try:
            info, previous = prepare_output(exp, out, fresh=fresh, commit=commit)
            info["git_dirty"] = dirty
            info.update(backend=backend, jobs=jobs)
            if backend == "dask-local":
                info["workers"] = workers or 2
            elif backend == "dask":
                info["scheduler"] = scheduler
            info["excluded_selectors"] = list(exp.excluded)
            info["plugin_sources"] = sources
            store = TaskStore(out)
            store.clean_partials()
            tasks = expand(exp, commit, {name: src["sha256"] for name, src in sources.items()})
            if previous is not None:  # same effective config (checked): rows of a fresh clone count
                store.restore_from_tables((t.task_id for t in tasks), rankings=exp.diagnostic is None)
            todo, done = [], []
            for t in tasks:
                payload = store.get(t.task_id)
                if payload is None or (retry_failed and payload["status"] != "ok"):
                    todo.append(t)
                else:
                    done.append((t, payload))
            skipped = len(tasks) - len(todo)
            check_commit(out, previous, commit, skipped, len(todo), allow_mixed_code)
            check_plugin_code(out, previous, sources, done, todo, allow_mixed_code)

            def summary(n_run: int, n_failed: int) -> RunSummary:
                return RunSummary(
                    out=out,
                    n_tasks=len(tasks),
                    n_skipped=skipped,
                    n_run=n_run,
                    n_failed=n_failed,
                    seconds=time.perf_counter() - t0,
                    first_failure=_first_failure(tasks, store) if n_failed else None,
                    excluded=exp.excluded,
                )

            if not todo and previous is not None:
                # nothing to compute: re-tabulate, and keep run.json's record of who computed the rows
                n_done, n_failed = write_tables(out, tasks, store)
                if progress:
                    progress(skipped, len(tasks))
                previous.update(n_tasks=len(tasks), n_done=n_done, n_failed=n_failed)
                previous["excluded_selectors"] = list(exp.excluded)
                previous["config_hash"] = exp.config_hash  # an excluded run of an older fsbench: hash updated
                previous["finished"] = previous.get("finished") or _now()
                atomic_write(out / "run.json", json.dumps(previous, indent=2, default=str))
                return summary(0, n_failed)
            if skipped == 0:
                info["commits"] = [commit]  # no earlier row survives
            atomic_write(out / "run.json", json.dumps(info, indent=2, default=str))
            if progress:
                progress(skipped, len(tasks))
            if todo:
                if backend == "loky":
                    results = _local_results(todo, jobs, store.dir)
                elif backend == "threading":
                    results = _threading_results(todo, jobs)
                else:
                    if client is None:  # dask-local: started only when there is work
                        client = stack.enter_context(_dask_local(workers))
                    results = _dask_results(client, todo)
                last_flush = time.monotonic()
                done_count = skipped
                # closed on any way out: an interrupted run kills its loky workers (SIGTERM too), instead
                # of leaving them to finish tasks nobody reads (threads cannot be killed: not closed)
                closing = contextlib.closing(results) if backend == "loky" else contextlib.nullcontext()
                try:
                    with sigterm_as_interrupt(), closing:
                        for result in results:
                            store.put(result)
                            done_count += 1
                            if progress:
                                progress(done_count, len(tasks))
                            if time.monotonic() - last_flush > flush_seconds:
                                write_tables(out, tasks, store)
                                last_flush = time.monotonic()
                except Exception as exc:
                    # The cluster went away, or worker processes cannot be started: a task's own error or
                    # a dead worker is recorded as that task's failure and never reaches this point.
                    write_tables(out, tasks, store)
                    first = str(exc).splitlines()[0] if str(exc) else ""
                    raise RunError(
                        f"{out}: execution stopped after {done_count - skipped} task(s): "
                        f"{type(exc).__name__}: {first}; finished tasks are saved, run the same command "
                        "to resume"
                    ) from None
            n_done, n_failed = write_tables(out, tasks, store)
            info["finished"] = _now()
            info.update(n_tasks=len(tasks), n_done=n_done, n_failed=n_failed)
            atomic_write(out / "run.json", json.dumps(info, indent=2, default=str))
            return summary(len(todo), n_failed)
        finally:
            lock.release()


def unfinished_runs(root: Path) -> list[tuple[Path, int, int]]:
    """Run directories at or under ``root`` whose ``run.json`` says the run has not finished all its tasks:
    (directory, tasks done, tasks in all). A report built from them would replace complete committed tables
    and reports by partial ones, so ``fsbench report`` refuses them unless told otherwise."""
    out = []
    root = Path(root)
    for rj in sorted([root / "run.json"] if (root / "run.json").exists() else root.rglob("run.json")):
        try:
            info = json.loads(rj.read_text())
        except (OSError, ValueError):
            out.append((rj.parent, 0, -1))
            continue
        if "config_hash" not in info:  # not an fsbench run (e.g. an old script's provenance file)
            continue
        done, total = info.get("n_done"), info.get("n_tasks")
        if info.get("finished") is None or done is None or total is None or done < total:
            out.append((rj.parent, int(done or 0), int(total if total is not None else -1)))
    return out


def dry_run(exp: Experiment, out: Path | None, *, jobs: int = 1, sample: int = 1) -> dict[str, Any]:
    """Validate, count tasks (and those already done in ``out``), time a few tasks, estimate the cost.

    For each (dataset, kernel, selector) the task with the largest n_train is timed ``sample`` time(s)
    serially (one BLAS thread); the estimate scales each timing linearly to that group's task count
    (an over-estimate for sweeps over n_train, since smaller training sets are cheaper).
    """
    validate(exp)
    tasks = expand(exp)
    done = 0
    if out is not None and (Path(out) / "tasks").exists():
        store = TaskStore(Path(out))
        done = sum(store.get(t.task_id) is not None for t in tasks)
    groups: dict[tuple, list[Task]] = {}
    for t in tasks:
        groups.setdefault((t.dataset, t.kernel.name, t.selector.label), []).append(t)
    est_total = 0.0
    per_group = []
    for key, ts in groups.items():
        big = max(ts, key=lambda t: (t.n_train, -t.repeat))
        secs = []
        for _ in range(sample):
            t0 = time.perf_counter()
            res = _run_one(big)
            secs.append(time.perf_counter() - t0)
        sec = sorted(secs)[len(secs) // 2]
        est_total += sec * len(ts)
        per_group.append(
            {
                "dataset": key[0],
                "kernel": key[1],
                "selector": key[2],
                "tasks": len(ts),
                "seconds_per_task": sec,
                "status": res.status,
            }
        )
    return {
        "n_tasks": len(tasks),
        "n_done": done,
        "groups": per_group,
        "estimated_cpu_seconds": est_total,
        "estimated_wall_seconds": est_total * (len(tasks) - done) / max(len(tasks), 1) / max(jobs, 1),
    }
