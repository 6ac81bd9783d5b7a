"""The run lock: ``run.lock`` in the output directory names the host and pid of the one run writing
there; a stale lock of a dead process on the same host is taken over, one from another host never broken."""

from __future__ import annotations

import contextlib
import json
import os
import socket
from pathlib import Path

from fsbench.run.errors import RunError
from fsbench.run.provenance import utc_now


class RunLock:
    """``run.lock`` holding owner host and pid; a stale lock of a dead local process is taken over."""

    def __init__(self, out: Path):
        self.path = Path(out) / "run.lock"
        self.held = False

    def acquire(self) -> None:
        me = {"host": socket.gethostname(), "pid": os.getpid(), "since": utc_now()}
        for _ in range(3):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                owner = self._read()
                if owner is None:
                    self.path.unlink(missing_ok=True)  # empty/corrupt lock from a crash while writing it
                    continue
                if owner.get("host") != me["host"]:
                    raise RunError(
                        f"{self.path}: locked by pid {owner.get('pid')} on host {owner.get('host')} "
                        f"since {owner.get('since')}; if that run is dead, delete the lock file"
                    ) from None
                if _pid_alive(int(owner.get("pid", -1))):
                    raise RunError(
                        f"{self.path}: another fsbench run (pid {owner.get('pid')} on host "
                        f"{owner.get('host')}, since {owner.get('since')}) is writing to this output "
                        "directory"
                    ) from None
                self.path.unlink(missing_ok=True)  # stale: its owner is dead
                continue
            with os.fdopen(fd, "w") as fh:
                fh.write(json.dumps(me))
                fh.flush()
                os.fsync(fh.fileno())
            self.held = True
            return
        raise RunError(f"{self.path}: could not take the lock")

    def _read(self) -> dict | None:
        try:
            return json.loads(self.path.read_text())
        except (OSError, ValueError):
            return None

    def release(self) -> None:
        if self.held:
            self.path.unlink(missing_ok=True)
            self.held = False


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (killed, not yet reaped) is dead for our purposes.
    with contextlib.suppress(OSError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            return False
    return True
