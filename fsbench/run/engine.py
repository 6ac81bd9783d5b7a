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
or unreadable while task files exist); when tasks are both finished and still to compute and a finished
task was computed by other code than today's (its selector's code hash, :mod:`fsbench.run.code`, at the
commit its rows record; :func:`check_code`), unless ``--allow-mixed-code`` (a finished run is only
re-tabulated, whatever the commit); and when finished tasks of a user selector were computed from
another version of its source file, finished run or not, unless ``--allow-mixed-code``, which keeps them
and says so. ``--fresh`` discards the task files and starts over.

:func:`dry_run` makes the same checks and counts without writing anything or running a task.

:func:`validate` opens every dataset (hashing and parsing card files), checks every selector's
parameters and fits every user selector class on a tiny problem (:mod:`fsbench.evaluation.plugins`, in a
worker process: :mod:`fsbench.run.workers`), so bad input stops the run before the lock, ``run.json`` or any
task; :func:`check_backend_options` and :func:`check_output` do the same for the environment.

Tasks run in worker processes (loky, also for ``--jobs 1``; or dask futures), one task per future: an
exception inside a task is recorded by :func:`fsbench.evaluation.protocol.run_task` with its traceback, and a
task whose process dies (segfault, out-of-memory kill) is recorded as failed by
:func:`local_results` / :func:`dask_results`; either way the other tasks go on. Ctrl-C and SIGTERM
stop the run (exit 130) and kill its loky workers; after ``kill -9`` they end by themselves within
seconds (:func:`fsbench.processes.watch_parent`).
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from fsbench.algorithms.registry import resolve
from fsbench.config.experiment import Experiment
from fsbench.evaluation.protocol import Task
from fsbench.results.schema import SCHEMA_VERSION
from fsbench.results.table_files import TABLE_FILE_NAMES
from fsbench.run.backends import (
    connect_scheduler,
    dask_local,
    dask_results,
    local_results,
    run_one,
    threading_results,
)
from fsbench.run.checks import check_backend_options, check_output
from fsbench.run.code import changed_modules, closure, code_hash, commit_known, git_reader, selector_roots
from fsbench.run.errors import RunError
from fsbench.run.eta import GroupEta
from fsbench.run.kinds import kind_of
from fsbench.run.lock import RunLock
from fsbench.run.plan import expand, plugin_sources, validate
from fsbench.run.provenance import git_commit, package_versions, utc_now
from fsbench.run.store import (
    RunState,
    TaskStore,
    atomic_write,
    read_task_file,
    run_state,
    tasks_in_tables,
    write_tables,
)
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
    #: failed tasks of an earlier run kept as failed (not rerun: no ``--retry-failed``)
    n_failed_kept: int = 0
    #: one-line notices, e.g. what ``--allow-mixed-code`` let through
    notes: tuple[str, ...] = ()


def read_previous(exp: Experiment, out: Path, *, fresh: bool) -> dict | None:
    """The ``run.json`` of an existing output directory that ``exp`` may resume (None: nothing to
    resume, or ``fresh``); raise :class:`RunError` when it may not. Reads only."""
    out = Path(out)
    if fresh or not out.is_dir():
        return None
    run_json = out / "run.json"
    previous = None
    if run_json.exists():
        try:
            previous = json.loads(run_json.read_text())
        except ValueError:
            previous = None
    if previous is None and any((out / "tasks").glob("*.json")):
        raise RunError(
            f"{out}: holds task results but no readable run.json, so their config cannot be checked; "
            "use --out NEWDIR, or --fresh to discard them"
        )
    if (
        previous is not None
        and not exp.accepts_hash(previous.get("config_hash"))
        and added_selectors(previous.get("effective_config"), exp.effective) is None
    ):
        raise RunError(
            f"{out}: holds results of a different effective config (hash "
            f"{str(previous.get('config_hash'))[:12]} vs {exp.config_hash[:12]}); rerun with the same "
            "config and overrides, use --out NEWDIR, or --fresh to discard them"
        )
    return previous


#: Config keys that may change between runs into one store when selectors are added (a description
#: naming the methods run cannot change a result).
_ADDABLE_KEYS = ("selectors", "description")


def added_selectors(previous: Any, effective: dict[str, Any]) -> list[str] | None:
    """Labels of the selectors a config adds to an earlier run's, when nothing else that could change a
    result differs; else None.

    A task's id and seeds depend on the selector's label, never on its position in the list, so the
    earlier selectors' tasks stay valid: adding a method to a finished experiment runs only its tasks
    (as ``--exclude-selector`` followed by a full run does). Every earlier entry must be in the new list
    unchanged; only ``selectors`` and ``description`` may differ.
    """
    if not isinstance(previous, dict):
        return None
    rest_old = {k: v for k, v in previous.items() if k not in _ADDABLE_KEYS}
    rest_new = {k: v for k, v in effective.items() if k not in _ADDABLE_KEYS}
    old, new = previous.get("selectors") or [], effective.get("selectors") or []
    if json.dumps(rest_old, sort_keys=True, default=str) != json.dumps(rest_new, sort_keys=True, default=str):
        return None
    canon = [json.dumps(e, sort_keys=True, default=str) for e in new]
    old_canon = [json.dumps(e, sort_keys=True, default=str) for e in old]
    if any(e not in canon for e in old_canon):
        return None
    added = [e for e, c in zip(new, canon, strict=True) if c not in old_canon]
    labels = [str(e.get("label", e.get("name")) if isinstance(e, dict) else e) for e in added]
    return labels or None


def _added_note(exp: Experiment, previous: dict | None, kept: int) -> list[str]:
    """The note of a run that adds selectors to an earlier run's store (:func:`added_selectors`)."""
    if previous is None or exp.accepts_hash(previous.get("config_hash")):
        return []
    added = added_selectors(previous.get("effective_config"), exp.effective) or []
    return [f"selector(s) added to this store: {', '.join(added)}; its {kept} earlier task(s) are kept"]


def prepare_output(exp: Experiment, out: Path, *, fresh: bool, commit: str) -> tuple[dict, dict | None]:
    """Check ``run.json`` of an existing output directory; return (the run.json to write, the old one)."""
    out.mkdir(parents=True, exist_ok=True)
    previous = read_previous(exp, out, fresh=fresh)
    if fresh:
        for f in (out / "tasks").glob("*.json") if (out / "tasks").exists() else []:
            f.unlink()
        for name in TABLE_FILE_NAMES:
            (out / name).unlink(missing_ok=True)
    info = {
        "schema_version": SCHEMA_VERSION,
        "experiment": exp.name,
        "config_file": exp.source,
        "config_hash": exp.config_hash,
        "effective_config": exp.effective,
        "git_commit": commit,
        "versions": package_versions(),
        "host": socket.gethostname(),
        "started": utc_now(),
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


def _task_commit(payload: dict, default: str) -> str:
    """The commit that computed a finished task (its rows record it)."""
    if payload.get("commit"):
        return str(payload["commit"])
    rows = payload.get("rows") or [{}]
    return str(rows[0].get("git_commit") or default)


def current_code(exp: Experiment) -> dict[str, tuple[str, dict[str, str]]]:
    """Selector name → (its module, the closure of the code that computes its tasks now,
    :mod:`fsbench.run.code`)."""
    out = {}
    for sel in exp.selectors:
        if sel.name in out:
            continue
        try:
            module = resolve(sel.name).__module__
        except Exception:  # validate() has refused unknown selectors already
            module = ""
        out[sel.name] = (module, closure(selector_roots(module)))
    return out


def check_code(
    out: Path,
    previous: dict | None,
    commit: str,
    now: dict[str, tuple[str, dict[str, str]]],
    done: Iterable[tuple[Task, dict]],
    n_todo: int,
    allow: bool,
) -> list[str]:
    """Refuse to add rows to rows that other code computed (unless ``allow``, which returns the one-line
    note to show instead).

    A finished task's code is its selector's closure (:mod:`fsbench.run.code`) at the commit its rows
    record: ``run.json``'s ``code`` record of that commit, else read from git history. Resuming across
    commits is allowed where that code equals today's for every finished task; where it does not, the
    resume is refused, naming the selectors and the modules that changed. Nothing is mixed when no task
    is left to compute (a finished run is only re-tabulated, e.g. by ``make reproduce-all`` after later
    commits), nor when no finished task is on disk.
    """
    done = list(done)
    if previous is None or not done or n_todo == 0:
        return []
    recorded = previous.get("code") or {}
    groups: dict[tuple[str, str], int] = {}
    for t, p in done:
        key = (_task_commit(p, str(previous.get("git_commit", "unknown"))), t.selector.name)
        groups[key] = groups.get(key, 0) + 1
    problems = []
    for (old_commit, name), n in sorted(groups.items()):
        if name not in now:
            continue
        module, mine = now[name]
        old_hash = (recorded.get(old_commit) or {}).get(name)
        if old_hash is None and old_commit == commit:
            continue  # the same commit, with no record of other code (an older run.json)
        if old_hash == code_hash(mine):
            continue
        if old_hash is None and not commit_known(old_commit):
            problems.append(f"{name}: {n} task(s) of commit {old_commit[:12]}, not in this checkout's git")
            continue
        old = closure(selector_roots(module), git_reader(old_commit)) if commit_known(old_commit) else {}
        if old and code_hash(old) == code_hash(mine):
            continue
        changed = changed_modules(old, mine) if old else ["(no record of its code)"]
        shown = ", ".join(changed[:4]) + (f" and {len(changed) - 4} more" if len(changed) > 4 else "")
        problems.append(f"{name}: {n} task(s) of commit {old_commit[:12]}; changed since: {shown}")
    if not problems:
        return []
    if allow:
        return [f"kept rows of other code (--allow-mixed-code; each row records its commit): {problems[0]}"]
    more = f" (and {len(problems) - 1} more selector(s))" if len(problems) > 1 else ""
    raise RunError(
        f"{out}: finished tasks were computed by other code than this commit's ({commit[:12]}): "
        f"{problems[0]}{more}; finish the run with their commit, pass --allow-mixed-code (each row records "
        "its commit), or --fresh"
    )


def code_record(previous: dict | None, commit: str, now: dict[str, tuple[str, dict[str, str]]]) -> dict:
    """``run.json``'s ``code``: per commit that computed tasks, each selector's code hash."""
    record = dict((previous or {}).get("code") or {})
    record[commit] = {name: code_hash(mods) for name, (_, mods) in sorted(now.items())}
    return record


def check_plugin_code(
    out: Path,
    previous: dict | None,
    sources: dict[str, dict[str, str | None]],
    done: Iterable[tuple[Task, dict]],
    allow: bool,
) -> list[str]:
    """Refuse to reuse tasks of a user selector computed from another version of its source file
    (unless ``allow``, which returns one-line notes saying which tasks were kept).

    This holds for a finished run too — unlike :func:`check_commit`, whose finished runs are only
    re-tabulated: a researcher who edits their own selector and runs the same command expects the
    new code to be used, not its old rows to be shown without a word. A finished task's source hash
    is its file's ``code_hash`` or, for a task restored from the tables, the one ``run.json`` recorded.
    """
    recorded = (previous or {}).get("plugin_sources") or {}
    done = list(done)
    notes = []
    for name, src in sources.items():
        if not src.get("sha256"):
            continue
        old = (recorded.get(name) or {}).get("sha256")
        hashes = [p.get("code_hash") or old for t, p in done if t.selector.name == name]
        stale = sorted({h for h in hashes if h and h != src["sha256"]})
        if not stale:
            continue
        n_stale = sum(h in stale for h in hashes)
        if not allow:
            raise RunError(
                f"{out}: {n_stale} finished task(s) of selector {name} were computed from another "
                f"version of {src['path']} (sha256 {stale[0][:12]}, now {src['sha256'][:12]}); restore "
                "that file, pass --allow-mixed-code to keep them (each task file records its "
                "code_hash), or --fresh to recompute everything"
            )
        notes.append(
            f"kept {n_stale} finished task(s) of selector {name} computed from another version of "
            f"{src['path']} (sha256 {stale[0][:12]}, now {src['sha256'][:12]}) (--allow-mixed-code)"
        )
    return notes


def split_done(
    tasks: list[Task], lookup: Callable[[str], dict | None], retry_failed: bool
) -> tuple[list[Task], list[tuple[Task, dict]]]:
    """(tasks to run, finished (task, payload) pairs kept): a task is kept when ``lookup`` finds its
    payload, unless it failed and ``retry_failed``."""
    todo, done = [], []
    for t in tasks:
        payload = lookup(t.task_id)
        if payload is None or (retry_failed and payload["status"] != "ok"):
            todo.append(t)
        else:
            done.append((t, payload))
    return todo, done


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
    eta: Callable[[float | None], None] | None = None,
) -> RunSummary:
    """Run (or resume) every task of ``exp`` into ``out``.

    Everything that can be refused is refused before ``out`` is touched: backend options, the config
    (:func:`validate`), the output directory (:func:`check_output`) and, for ``--backend dask``, the
    scheduler's reachability. A task that fails — by an exception, or by killing its worker process —
    is recorded as failed and the others go on.

    ``progress(done, total)`` is called as tasks finish; ``eta(seconds or None)`` just before it with the
    wall time left (:class:`fsbench.run.eta.GroupEta`: None until every group with tasks left has a
    measured task).
    """
    check_backend_options(backend, scheduler, workers)
    if exp.jobs is not None:  # e.g. CPU-time tables: the config says how many tasks may run at once
        jobs = min(jobs, exp.jobs)
    validate(exp)
    out = Path(out)
    check_output(out)
    with contextlib.ExitStack() as stack:  # the dask client / local cluster, closed at the end
        # connected before the output directory is created: an unreachable scheduler leaves nothing
        client = stack.enter_context(connect_scheduler(scheduler)) if backend == "dask" else None
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
                store.restore_from_tables(
                    (t.task_id for t in tasks), rankings=kind_of(exp.diagnostic, exp.plugins).rankings
                )
            todo, done = split_done(tasks, store.get, retry_failed)
            skipped = len(tasks) - len(todo)
            now = current_code(exp)
            notes = check_code(out, previous, commit, now, done, len(todo), allow_mixed_code)
            notes += _added_note(exp, previous, skipped)
            notes += check_plugin_code(out, previous, sources, done, allow_mixed_code)
            failed_kept = sum(p["status"] != "ok" for _, p in done)

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
                    n_failed_kept=failed_kept,
                    notes=tuple(notes),
                )

            if not todo and previous is not None:
                # nothing to compute: re-tabulate, and keep run.json's record of who computed the rows
                n_done, n_failed = write_tables(out, tasks, store)
                if progress:
                    progress(skipped, len(tasks))
                previous.update(n_tasks=len(tasks), n_done=n_done, n_failed=n_failed)
                previous["excluded_selectors"] = list(exp.excluded)
                # added selectors with no task yet (or excluded ones): the hash and the
                # config it is the hash of are updated together
                previous["config_hash"] = exp.config_hash
                previous["effective_config"] = exp.effective
                previous["finished"] = previous.get("finished") or utc_now()
                atomic_write(out / "run.json", json.dumps(previous, indent=2, default=str))
                return summary(0, n_failed)
            if skipped == 0:
                info["commits"] = [commit]  # no earlier row survives
            info["code"] = code_record(previous if skipped else None, commit, now)
            # the plan, recorded before the first task: an interrupted run never writes its final counts,
            # and `fsbench report` / `plot` then say "N of M tasks" from this and the task store
            info["n_tasks"] = len(tasks)
            atomic_write(out / "run.json", json.dumps(info, indent=2, default=str))
            if progress:
                progress(skipped, len(tasks))
            if todo:
                if backend == "loky":
                    results = local_results(todo, jobs, store.dir)
                elif backend == "threading":
                    results = threading_results(todo, jobs)
                else:
                    if client is None:  # dask-local: started only when there is work
                        client = stack.enter_context(dask_local(workers))
                    results = dask_results(client, todo)
                last_flush = time.monotonic()
                done_count = skipped
                group_of = {t.task_id: (t.dataset, t.kernel.name, t.selector.label) for t in todo}
                # tasks at once: a dask scheduler may have any number of workers (1: an upper bound)
                at_once = {"loky": jobs, "threading": jobs, "dask-local": workers or 2}.get(backend, 1)
                clock = GroupEta(group_of.values(), at_once)
                # closed on any way out: an interrupted run kills its loky workers (SIGTERM too), instead
                # of leaving them to finish tasks nobody reads (threads cannot be killed: not closed)
                closing = contextlib.closing(results) if backend == "loky" else contextlib.nullcontext()
                try:
                    with sigterm_as_interrupt(), closing:
                        for result in results:
                            store.put(result)
                            done_count += 1
                            if eta:
                                clock.finished(
                                    group_of.get(result.task_id), getattr(result, "task_wall_s", None)
                                )
                                eta(clock.seconds_left())
                            if progress:
                                progress(done_count, len(tasks))
                            if time.monotonic() - last_flush > flush_seconds:
                                write_tables(out, tasks, store)
                                last_flush = time.monotonic()
                except KeyboardInterrupt:
                    # Ctrl-C or SIGTERM (sigterm_as_interrupt): the tables are rewritten from the store, so
                    # that after any exit results.csv / rankings.csv hold exactly the saved tasks (the last
                    # periodic flush may be up to flush_seconds old)
                    write_tables(out, tasks, store)
                    raise
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
            info["finished"] = utc_now()
            info.update(n_tasks=len(tasks), n_done=n_done, n_failed=n_failed)
            atomic_write(out / "run.json", json.dumps(info, indent=2, default=str))
            return summary(len(todo), n_failed)
        finally:
            lock.release()


class UnfinishedRun(NamedTuple):
    """An unfinished run: its directory, finished tasks and planned tasks (None: never recorded)."""

    path: Path
    done: int
    total: int | None

    def describe(self) -> str:
        """``"N of M tasks"``, as :meth:`fsbench.run.store.RunState.describe`."""
        return RunState(self.done, self.total, False).describe()


def unfinished_runs(root: Path) -> list[UnfinishedRun]:
    """Run directories at or under ``root`` whose run has not finished all its tasks: (directory, tasks
    done, tasks planned), from :func:`fsbench.run.store.run_state` (an interrupted run's counts come from
    its task store and the plan ``run.json`` records at the start). A report
    built from them would replace complete committed tables and reports by partial ones, so ``fsbench
    report`` refuses them unless told otherwise."""
    out = []
    root = Path(root)
    for rj in sorted([root / "run.json"] if (root / "run.json").exists() else root.rglob("run.json")):
        try:
            info = json.loads(rj.read_text())
        except (OSError, ValueError):
            info = {"config_hash": None}  # unreadable: reported, with what its task store holds
        if not isinstance(info, dict) or "config_hash" not in info:
            continue  # not an fsbench run (e.g. an old script's provenance file)
        state = run_state(rj.parent) or RunState(0, None, False)
        if state.partial:
            out.append(UnfinishedRun(rj.parent, state.n_done, state.n_tasks))
    return out


@dataclass
class DryRun:
    """What ``fsbench run`` would do (:func:`dry_run`): counts of tasks, and the estimate if asked."""

    out: Path
    n_tasks: int
    #: tasks finished in ``out`` (task files, or rows of its tables) that a run would keep: ok or failed
    n_done: int
    #: of those, failed tasks (kept as failed unless ``--retry-failed``)
    n_failed: int
    #: tasks a run would compute
    n_todo: int
    #: finished task files ``--fresh`` would discard
    n_discarded: int = 0
    #: (dataset label, tasks, tasks to run) in config order
    datasets: list[tuple[str, int, int]] | None = None
    #: one-line notices (what ``--allow-mixed-code`` would let through)
    notes: tuple[str, ...] = ()
    #: per (dataset, kernel, selector) timing, with ``estimate`` only
    groups: list[dict[str, Any]] | None = None
    estimated_cpu_seconds: float | None = None
    estimated_wall_seconds: float | None = None


def dry_run(
    exp: Experiment,
    out: Path,
    *,
    jobs: int = 1,
    fresh: bool = False,
    retry_failed: bool = False,
    allow_mixed_code: bool = False,
    estimate: bool = False,
    sample: int = 1,
) -> DryRun:
    """Validate ``exp``, plan its tasks and count those a run into ``out`` would keep and compute, making
    the same refusals as :func:`run_experiment` (config, mixed code). Nothing is written or fitted
    (beyond :func:`validate`'s contract check of user classes on its tiny problem), and ``out`` is only
    read: task files, or for a fresh clone the committed tables, as a run would restore them.

    With ``estimate``, the task with the largest n_train of each (dataset, kernel, selector) is also run
    ``sample`` time(s) serially (one BLAS thread) and timed, in this process, its result discarded; each
    timing is scaled linearly to its group's task count (an over-estimate for sweeps over n_train, since
    smaller training sets are cheaper).
    """
    if exp.jobs is not None:
        jobs = min(jobs, exp.jobs)
    validate(exp)
    out = Path(out)
    commit, _ = git_commit()
    sources = plugin_sources(exp)
    tasks = expand(exp, commit, {name: src["sha256"] for name, src in sources.items()})
    previous = read_previous(exp, out, fresh=fresh)
    n_discarded = 0
    if fresh and (out / "tasks").is_dir():
        n_discarded = sum(1 for _ in (out / "tasks").glob("*.json"))
    found: dict[str, dict] = {}
    if not fresh and out.is_dir():
        missing = []
        for t in tasks:
            try:
                found[t.task_id] = read_task_file(out / "tasks" / f"{t.task_id}.json", t.task_id)
            except FileNotFoundError:
                missing.append(t.task_id)
            except ValueError:
                pass  # a corrupt file: a run discards it and computes the task
        if previous is not None:  # what run_experiment restores from the tables
            for tid, (rows, _) in tasks_in_tables(
                out, missing, rankings=kind_of(exp.diagnostic, exp.plugins).rankings
            ).items():
                found[tid] = {
                    "task_id": tid,
                    "status": rows[0].get("status", ""),
                    "code_hash": None,
                    "commit": rows[0].get("git_commit"),
                }
    todo, done = split_done(tasks, found.get, retry_failed)
    notes = check_code(out, previous, commit, current_code(exp), done, len(todo), allow_mixed_code)
    notes += _added_note(exp, previous, len(done))
    notes += check_plugin_code(out, previous, sources, done, allow_mixed_code)
    todo_ids = {t.task_id for t in todo}
    per_dataset: dict[str, list[int]] = {}
    for t in tasks:
        counts = per_dataset.setdefault(t.dataset, [0, 0])
        counts[0] += 1
        counts[1] += t.task_id in todo_ids
    result = DryRun(
        out=out,
        n_tasks=len(tasks),
        n_done=len(done),
        n_failed=sum(p["status"] != "ok" for _, p in done),
        n_todo=len(todo),
        n_discarded=n_discarded,
        datasets=[(name, n, k) for name, (n, k) in per_dataset.items()],
        notes=tuple(notes),
    )
    if estimate:
        _estimate(result, tasks, jobs, sample)
    return result


def _estimate(result: DryRun, tasks: list[Task], jobs: int, sample: int) -> None:
    """Time the largest task of every (dataset, kernel, selector) group; fill ``result``'s estimate."""
    groups: dict[tuple, list[Task]] = {}
    for t in tasks:
        groups.setdefault((t.dataset, t.kernel.name, t.selector.label), []).append(t)
    est_total = 0.0
    result.groups = []
    for key, ts in groups.items():
        big = max(ts, key=lambda t: (t.n_train, -t.repeat))
        secs = []
        for _ in range(sample):
            t0 = time.perf_counter()
            res = run_one(big)
            secs.append(time.perf_counter() - t0)
        sec = sorted(secs)[len(secs) // 2]
        est_total += sec * len(ts)
        result.groups.append(
            {
                "dataset": key[0],
                "kernel": key[1],
                "selector": key[2],
                "tasks": len(ts),
                "seconds_per_task": sec,
                "status": res.status,
            }
        )
    result.estimated_cpu_seconds = est_total
    result.estimated_wall_seconds = est_total * result.n_todo / max(result.n_tasks, 1) / max(jobs, 1)
