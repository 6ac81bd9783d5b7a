"""fsbench.processes.worker_pool (``fsbench run``, ``build``, ``plot --jobs``) leaves no orphan."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import REPO, subprocess_env, wait_for

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


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_end_with_the_process_that_started_them() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD], env=subprocess_env(), cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    try:
        pids = {int(p) for p in proc.stdout.readline().split()}
        assert pids and proc.pid not in pids and all(_alive(p) for p in pids)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert wait_for(lambda: not any(_alive(p) for p in pids), timeout=10, interval=0.1), pids
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
