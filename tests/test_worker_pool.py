"""fsbench.processes.worker_pool (``fsbench run``, ``build``, ``plot --jobs``) leaves no orphan."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest
from conftest import REPO, process_alive, subprocess_env, wait_for

CHILD = textwrap.dedent(
    """
    import os, sys, time
    from fsbench.processes import worker_pool

    def pid_after(seconds):
        time.sleep(seconds)
        return os.getpid()

    ex = worker_pool(2)
    futures = [ex.submit(pid_after, 0.5), ex.submit(pid_after, 0.5)]
    print(" ".join(str(f.result()) for f in futures), flush=True)
    ex.submit(time.sleep, 120)  # a task in flight when the parent dies
    time.sleep(120)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_end_with_the_process_that_started_them() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD], env=subprocess_env(), cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    try:
        pids = {int(p) for p in proc.stdout.readline().split()}
        assert pids and proc.pid not in pids and all(process_alive(p) for p in pids)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert wait_for(lambda: not any(process_alive(p) for p in pids), timeout=10, interval=0.1), pids
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
