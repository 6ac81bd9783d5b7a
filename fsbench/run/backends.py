"""Execution backends: they run tasks and yield each task's result as it comes.

Local worker processes (loky, :func:`local_results`: a task whose process dies is found and recorded as
failed, the pool restarted), threads of this process (:func:`threading_results`) and dask futures
(:func:`dask_results`, on a running cluster or a :func:`dask_local` one). Every task runs in
:func:`run_one` with one BLAS thread.
"""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import os
import time
import traceback
from collections import deque
from collections.abc import Generator, Iterator
from concurrent.futures import FIRST_COMPLETED, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import joblib
from threadpoolctl import threadpool_limits

from fsbench._malloc import tune_malloc
from fsbench.evaluation.plugins import activate as activate_plugins
from fsbench.evaluation.protocol import Task, TaskResult, failed_result
from fsbench.run.checks import SCHEDULER_TIMEOUT
from fsbench.run.errors import RunError
from fsbench.run.kinds import kind_of
from fsbench.run.workers import death_cause, kill_pool, local_executor, plugin_code

#: Environment variables a local worker takes from this process at every task: a reused worker
#: process (loky keeps them between runs of one Python process) would otherwise keep those it
#: started with. None = unset.
WORKER_ENV = ("FSBENCH_DATA_DIR", "FSBENCH_CACHE_DIR", "FSBENCH_CARDS_DIR")


def _worker_env() -> dict[str, str | None]:
    env: dict[str, str | None] = {k: os.environ.get(k) for k in WORKER_ENV}
    env.update({k: v for k, v in os.environ.items() if k.startswith("FSBENCH_")})
    return env


def run_one(task: Task, env: dict[str, str | None] | None = None, crash_log: str | None = None):
    """Worker entry point: one BLAS thread per task, on every backend; freed N×N temporaries reused.

    ``env`` is applied first (local workers); ``crash_log`` is a file the fault handler writes to if
    the process dies of a fatal signal while running the task (removed when the task returns), so
    the parent can store where it crashed and tell the culprit from the other tasks in flight.
    """
    tune_malloc()
    for key, value in (env or {}).items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    activate_plugins(task.plugins)
    log = open(crash_log, "w") if crash_log else None  # noqa: SIM115 - closed in finally
    if log is not None:
        faulthandler.enable(file=log)
    started = time.perf_counter()
    try:
        with threadpool_limits(limits=1):
            result = kind_of(task.diagnostic, task.plugins).execute(task)
    finally:
        if log is not None:
            faulthandler.enable()  # back to stderr, as loky set it up
            log.close()
            Path(crash_log).unlink(missing_ok=True)
    result.code_hash = task.code_hash
    # the whole task's wall time (data, selection, every classifier), for the run's ETA (fsbench.run.eta);
    # an attribute, not a field: it is not written to the task file or the tables
    result.task_wall_s = time.perf_counter() - started
    return result


def _crash_log(crash_dir: Path, task: Task) -> Path:
    # ".*.tmp": a log left by a killed run is removed by TaskStore.clean_partials
    return crash_dir / f".{task.task_id}.crash.tmp"


def _read_crash_log(crash_dir: Path, task: Task) -> str:
    path = _crash_log(crash_dir, task)
    try:
        text = path.read_text(errors="replace").strip()
    except OSError:
        text = ""
    path.unlink(missing_ok=True)
    return text


def _crashed(task: Task, exc: BaseException, log: str) -> TaskResult:
    cause = death_cause(exc)
    tb = log or f"worker died: {cause}; no fault-handler output (a SIGKILL, or an exit without a signal)"
    return failed_result(task, f"worker died: {cause}", tb)


def _raised(task: Task, exc: BaseException) -> TaskResult:
    """A task whose worker call raised outside run_task (e.g. a result that could not be sent back)."""
    tb = "".join(traceback.format_exception(exc))
    return failed_result(task, f"running the task: {type(exc).__name__}: {exc}", tb)


def _until_crash(
    queue: deque[Task], jobs: int, env: dict, crash_dir: Path, code: str
) -> Generator[TaskResult, None, tuple[list[Task], BaseException] | None]:
    """Run the queued tasks in a pool of ``jobs`` processes, yielding results, until the queue is empty
    (return None) or a worker dies (return the tasks in flight then, and the error)."""
    # One task per future, at most `jobs` in flight: a dead worker then points at a handful of tasks.
    executor = local_executor(max(1, min(jobs, len(queue))), code)
    try:
        return (yield from _submit_until_crash(executor, queue, jobs, env, crash_dir))
    except BaseException:
        # Ctrl-C, SIGTERM (sigterm_as_interrupt) or the run stopped reading results: the tasks in flight
        # are abandoned, so their workers are killed now rather than left to finish them unseen.
        kill_pool(executor)
        raise


def _submit_until_crash(
    executor, queue: deque[Task], jobs: int, env: dict, crash_dir: Path
) -> Generator[TaskResult, None, tuple[list[Task], BaseException] | None]:
    in_flight: dict[Any, Task] = {}
    while queue or in_flight:
        while queue and len(in_flight) < jobs:
            task = queue.popleft()
            try:
                fut = executor.submit(run_one, task, env, str(_crash_log(crash_dir, task)))
            except (BrokenProcessPool, RuntimeError) as exc:  # the pool broke since the last result
                queue.appendleft(task)
                if not in_flight:
                    return [], exc
                break
            in_flight[fut] = task
        done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
        for fut in done:
            task = in_flight.pop(fut)
            try:
                result = fut.result()
            except BrokenProcessPool as exc:
                # The pool is gone: the other tasks in flight either finished or fail the same way.
                suspects = [task]
                wait(in_flight)
                for other, t in in_flight.items():
                    try:
                        yield other.result()
                    except BrokenProcessPool:
                        suspects.append(t)
                    except Exception as other_exc:
                        yield _raised(t, other_exc)
                return suspects, exc
            except Exception as exc:
                yield _raised(task, exc)
            else:
                yield result
    return None


def local_results(todo: list[Task], jobs: int, crash_dir: Path) -> Iterator[TaskResult]:
    """Run ``todo`` in ``jobs`` worker processes (loky), yielding each task's result when it comes.

    With ``jobs`` = 1 too the tasks run in a worker process, not in this one: a selector that kills
    its process (segfault, out-of-memory kill, ``os._exit``) then costs its task, not the run. A dead
    worker breaks the whole pool and every task in flight is a suspect: the culprit is the one whose
    fault-handler log is not empty (a fatal signal Python could report), else each suspect is run
    again alone until the one that dies is found. The culprit gets a failed result ``worker died:
    SIGSEGV (exit code -11)`` with the fault handler's dump as traceback; the others run again in a
    new pool (each crash costs one pool start, about a second).
    """
    queue = deque(todo)
    env = _worker_env()
    # Workers outlive a run (loky reuses them within a Python session, e.g. a notebook) and keep the
    # user modules they imported: a new digest of the user classes' sources gives new workers.
    code = plugin_code(t.code_hash for t in todo)
    empty = 0
    while queue:
        crash = yield from _until_crash(queue, jobs, env, crash_dir, code)
        if crash is None:
            return
        suspects, exc = crash
        empty = empty + 1 if not suspects else 0
        if empty >= 3:
            raise RuntimeError(f"worker processes keep breaking before running a task: {exc}")
        logs = {t.task_id: _read_crash_log(crash_dir, t) for t in suspects}
        dumped = [t for t in suspects if logs[t.task_id]]
        if len(suspects) == 1 or len(dumped) == 1:
            culprit = suspects[0] if len(suspects) == 1 else dumped[0]
            yield _crashed(culprit, exc, logs[culprit.task_id])
            queue.extendleft(reversed([t for t in suspects if t is not culprit]))
            continue
        for t in suspects:  # no way to tell: each alone
            again = yield from _until_crash(deque([t]), 1, env, crash_dir, code)
            if again is not None:
                yield _crashed(t, again[1], _read_crash_log(crash_dir, t))


def threading_results(todo: list[Task], jobs: int) -> Iterator[TaskResult]:
    """Threads of this process (joblib): no protection against a crash."""
    par = joblib.Parallel(n_jobs=jobs, backend="threading", return_as="generator_unordered", batch_size=1)
    yield from par(joblib.delayed(run_one)(t) for t in todo)


def dask_results(client, todo: list[Task]) -> Iterator[TaskResult]:
    """One dask future per task. A task whose workers died (distributed gives up after
    ``distributed.scheduler.allowed-failures`` deaths with ``KilledWorker``) or that raised outside
    run_task is recorded as failed; a future the cluster lost stops the run.

    On a cluster with the scheduler's defaults (3 allowed failures, up to 2 tasks per worker thread),
    a task queued behind the culprit on the same worker may be blamed too; ``--retry-failed`` runs
    it again. ``--backend dask-local`` configures its scheduler so that it is not (:func:`dask_local`).
    """
    from distributed import KilledWorker, as_completed  # optional dependency (fsbench[dask]): lazy

    futures = client.map(run_one, todo, pure=False)
    by_key = {f.key: t for f, t in zip(futures, todo)}
    for fut in as_completed(futures):
        task = by_key.pop(fut.key)
        if fut.status == "error":
            exc = fut.exception()
            if isinstance(exc, KilledWorker):
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                yield failed_result(task, "worker died: dask KilledWorker", f"KilledWorker: {first}")
            else:
                yield _raised(task, exc)
            continue
        yield fut.result()  # raises if the cluster lost the task: the run stops (RunError)


def connect_scheduler(address: str):
    """A dask Client of the scheduler at ``address``, or RunError within :data:`SCHEDULER_TIMEOUT`."""
    from dask.distributed import Client  # optional dependency (fsbench[dask]): lazy

    try:
        return Client(address, timeout=SCHEDULER_TIMEOUT)
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RunError(
            f"--scheduler {address}: cannot reach the dask scheduler within {SCHEDULER_TIMEOUT} s ({first})"
        ) from None


@contextlib.contextmanager
def dask_local(workers: int | None) -> Iterator[Any]:
    """A LocalCluster of single-threaded worker processes and its client (closed afterwards).

    Its scheduler sends each worker one task at a time (``worker-saturation`` 1.0) and gives up on a
    task at the first death of its worker (``allowed-failures`` 0): the dead worker's task is then the
    culprit for sure, and it is recorded at once instead of killing three more workers (as with the
    defaults, under which a task queued behind it on the same worker is blamed too).
    """
    # optional dependency (fsbench[dask]), imported only for --backend dask-local
    import dask
    from dask.distributed import Client, LocalCluster

    settings = {"distributed.scheduler.worker-saturation": 1.0, "distributed.scheduler.allowed-failures": 0}
    with dask.config.set(settings):
        cluster = LocalCluster(
            n_workers=workers or 2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=logging.ERROR,  # a worker killed by a task is reported per task, not as log noise
        )
    client = Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()
