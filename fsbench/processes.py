"""Worker processes that never outlive fsbench: one pool factory for every command that forks workers.

``fsbench run`` (its tasks and the contract check, :mod:`fsbench.run.workers`), ``fsbench build`` and
``fsbench plot --jobs`` take their worker processes from :func:`worker_pool`: loky's reusable pool, whose
workers run :func:`watch_parent` and end as soon as the fsbench process that started them is gone
(``kill -9``, a crash), instead of waiting minutes for their idle timeout.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping

from joblib.externals.loky import get_reusable_executor

#: Seconds between two looks of a worker at its parent process (:func:`watch_parent`).
PARENT_POLL = 0.5
#: Seconds an idle worker waits for a task before it exits (loky's ``timeout``).
IDLE_TIMEOUT = 300
#: Exit code of a worker that ended because fsbench was gone.
ORPHAN_EXIT = 75


def watch_parent(pid: int) -> None:
    """Worker initializer: end this process (``os._exit``) as soon as its parent is no longer ``pid``.

    A worker blocks in its task or waits up to :data:`IDLE_TIMEOUT` for the next one, so without this it
    outlives a ``kill -9`` of fsbench by minutes. Polling ``os.getppid()`` (the worker is re-parented
    when ``pid`` dies) works on every POSIX system; ``prctl(PR_SET_PDEATHSIG)`` is not used because it
    fires when the *thread* that spawned the worker ends, and loky spawns workers from a helper thread.

    Parameters
    ----------
    pid : int
        The pid of the process that starts the pool.
    """

    def watch() -> None:
        while True:
            if os.getppid() != pid:
                os._exit(ORPHAN_EXIT)
            time.sleep(PARENT_POLL)

    threading.Thread(target=watch, name="fsbench-parent-watch", daemon=True).start()


def worker_pool(max_workers: int, env: Mapping[str, str] | None = None):
    """loky's reusable pool of ``max_workers`` processes, each watching this one (:func:`watch_parent`).

    The same settings give the same pool back (loky reuses it between calls); other ``env`` replace it.
    """
    return get_reusable_executor(
        max_workers=max_workers,
        timeout=IDLE_TIMEOUT,
        env=dict(env or {}),
        initializer=watch_parent,
        initargs=(os.getpid(),),
    )
