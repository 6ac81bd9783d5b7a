"""Local worker processes (loky): the pool that runs tasks and the contract check of user classes, and how
they end with the run.

* :func:`local_executor` — loky's reusable pool with fsbench's settings. The contract check of the user
  selector classes (:func:`check_contracts`) runs in it too, before the run starts, so that a class
  whose ``fit`` kills its process (segfault, out-of-memory kill, ``os._exit``) is refused in one line
  instead of taking ``fsbench run`` down; its worker is then reused by the run's tasks (same settings),
  so the check costs no extra process start.
* No orphans: every worker runs :func:`fsbench.processes.watch_parent`, a thread that ends the worker
  within :data:`fsbench.processes.PARENT_POLL` seconds once the process that started it is gone
  (``kill -9`` of ``fsbench run``).
  loky's resource tracker ends by itself once no process holds its pipe, i.e. with the last worker.
  An interrupted run (Ctrl-C, or SIGTERM turned into the same :class:`KeyboardInterrupt` by
  :func:`sigterm_as_interrupt`) kills its workers at once (``shutdown(kill_workers=True)``, in
  :func:`fsbench.run.backends.local_results`) instead of waiting for the tasks in flight.
"""

from __future__ import annotations

import contextlib
import faulthandler
import hashlib
import json
import os
import re
import signal
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from fsbench.algorithms.registry import resolve
from fsbench.config.experiment import KernelConfig, SelectorConfig
from fsbench.evaluation.plugins import CHECK_SHAPE, ContractError, contract_failure, contract_key, source_of
from fsbench.evaluation.plugins import activate as activate_plugins
from fsbench.processes import worker_pool
from fsbench.run.errors import RunError


def plugin_code(hashes: Iterable[str | None]) -> str:
    """Digest of the user classes' source hashes: a new value gives new worker processes (a reused worker
    keeps the user modules it imported)."""
    return hashlib.sha256(json.dumps(sorted({h for h in hashes if h})).encode()).hexdigest()


def local_executor(max_workers: int, code: str):
    """fsbench's worker pool (:func:`fsbench.processes.worker_pool`) with ``FSBENCH_PLUGIN_CODE`` = ``code``.

    The same settings everywhere make loky reuse the pool between calls, e.g. the contract check's
    worker for the run's tasks; another ``code`` (other user classes) replaces it.
    """
    return worker_pool(max_workers, {"FSBENCH_PLUGIN_CODE": code})


def kill_pool(executor) -> None:
    """Kill the workers of ``executor`` now (SIGKILL; tasks in flight are lost, finished ones are saved)."""
    with contextlib.suppress(Exception):  # already broken or shut down: nothing left to kill
        executor.shutdown(wait=True, kill_workers=True)


class Terminated(KeyboardInterrupt):
    """SIGTERM received: handled like Ctrl-C (finished tasks saved, workers killed, exit code 130)."""


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` in the main thread, so that the run stops as
    on Ctrl-C (workers killed, tables written, lock released) instead of dying on the spot. Elsewhere
    than in the main thread (where no handler can be set) the block changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise Terminated("SIGTERM")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def death_cause(exc: BaseException) -> str:
    """``SIGSEGV (exit code -11)`` from loky's TerminatedWorkerError (or what is known of it)."""
    m = re.search(r"exit codes of the workers are \{([^}]*)\}", str(exc))
    codes = re.findall(r"(\w+)\((-?\d+)\)", m.group(1)) if m else []
    if not codes:
        return "the worker process ended abruptly"
    name, code = codes[0]
    if name.startswith("SIG"):
        cause = f"{name} (exit code {code})"
        if name == "SIGKILL":
            cause += ", killed (out of memory?)"
        return cause
    return f"exit code {code}"


# --------------------------------------------------------------------------- the contract check
#: contract key (:func:`fsbench.evaluation.plugins.contract_key`) -> the failure (None: passed); validate()
#: runs once from the command line and again in run_experiment, and the check fits the class.
_CHECKED: dict[str, str | None] = {}


def _contract_in_worker(sel: SelectorConfig, kernels: list, paths: list[str], crash_log: str) -> str | None:
    """Worker side of :func:`check_contracts`: the parent's import path, the fault handler's dump to
    ``crash_log`` (not to the terminal), then :func:`fsbench.evaluation.plugins.contract_failure`."""
    activate_plugins([p for p in paths if p not in sys.path])  # a reused worker predates them
    with open(crash_log, "w") as log:
        faulthandler.enable(file=log)
        try:
            return contract_failure(sel, kernels)
        finally:
            faulthandler.enable()  # back to stderr, as loky set it up


def _where(dump: str, path: str | None) -> str:
    """``", in _fit (mod.py, line 12)"``: the innermost frame of the fault handler's dump in the user's
    file (else the innermost frame), or nothing."""
    frames = re.findall(r'File "([^"]+)", line (\d+) in (\S+)', dump)
    if not frames:
        return ""
    file, line, func = next((f for f in frames if path and f[0] == path), frames[0])
    return f", in {func} ({Path(file).name}, line {line})"


def check_contracts(sels: Sequence[SelectorConfig], kernels: Iterable[KernelConfig]) -> None:
    """Check each user class of ``sels`` against the selector contract in a worker process.

    One worker fits the classes one after the other (:func:`fsbench.evaluation.plugins.check_contract`);
    results are cached for the life of this process. A class whose check kills the worker (a signal, the
    out-of-memory killer, an exit) is refused like one that breaks the contract, naming its file and the
    cause; the check's processes are not left behind.

    Parameters
    ----------
    sels : sequence of fsbench.config.SelectorConfig
        The user classes of an experiment, in config order.
    kernels : iterable of fsbench.config.KernelConfig
        The experiment kernels.

    Raises
    ------
    fsbench.evaluation.plugins.ContractError
        For the first class (config order) that fails, with ``selector`` set to its entry.
    RunError
        When no worker process can be started.
    """
    kernels = list(dict.fromkeys(kernels))  # distinct, in config order
    executor, crash_log = None, ""
    try:
        for sel in sels:
            key = contract_key(sel, kernels)
            if key not in _CHECKED:
                if executor is None:
                    # the run's tasks of these classes get the same code, hence this pool (local_executor)
                    executor = local_executor(
                        1, plugin_code(source_of(resolve(s.name))["sha256"] for s in sels)
                    )
                    fd, crash_log = tempfile.mkstemp(prefix="fsbench-check-", suffix=".log")
                    os.close(fd)
                _CHECKED[key] = _check_in(executor, sel, kernels, crash_log)
            if _CHECKED[key] is not None:
                err = ContractError(_CHECKED[key])
                err.selector = sel
                raise err
    finally:
        if crash_log:
            Path(crash_log).unlink(missing_ok=True)


def _check_in(executor, sel: SelectorConfig, kernels: list, crash_log: str) -> str | None:
    """The contract failure of ``sel`` (None: passed) checked in a worker of ``executor``."""
    try:
        return executor.submit(_contract_in_worker, sel, kernels, list(sys.path), crash_log).result()
    except BrokenProcessPool as exc:
        path = source_of(resolve(sel.name))["path"]
        dump = Path(crash_log).read_text(errors="replace")
        return (
            f"{sel.name} ({path}): the process checking it (a fit on the {CHECK_SHAPE[0]} x {CHECK_SHAPE[1]} "
            f"check problem) died: {death_cause(exc)}{_where(dump, path)}"
        )
    except Exception as exc:  # e.g. no process can be started
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise RunError(
            f"cannot run the contract check of {sel.name} in a worker process: {type(exc).__name__}: {first}"
        ) from None
