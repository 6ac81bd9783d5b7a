"""Environment checks made before anything is created: backend options (:func:`check_backend_options`)
and the output directory (:func:`check_output`)."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from fsbench.run.errors import RunError

#: Values of ``--backend``.
BACKENDS = ("loky", "threading", "dask", "dask-local")
#: Seconds to wait for a dask scheduler (``--backend dask``) before giving up.
SCHEDULER_TIMEOUT = 5
_SCHEDULER_ADDRESS = re.compile(r"^(?:tcp|tls)://(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})/?$")


def check_backend_options(backend: str, scheduler: str | None, workers: int | None) -> None:
    """Refuse backend options that are missing, malformed or do not apply (RunError, one line).

    Checked before anything is created: ``--backend dask`` needs ``--scheduler tcp://HOST:PORT``,
    ``--scheduler`` applies to ``--backend dask`` only and ``--workers`` to ``--backend dask-local``
    only (a silently ignored option would run something else than the user asked for).
    """
    if backend not in BACKENDS:
        raise RunError(f"unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}")
    if scheduler is not None and backend != "dask":
        raise RunError(f"--scheduler applies to --backend dask only, not --backend {backend}")
    if workers is not None and backend != "dask-local":
        raise RunError(
            f"--workers applies to --backend dask-local only, not --backend {backend}"
            + (" (use --jobs)" if backend in ("loky", "threading") else "")
        )
    if backend == "dask":
        if not scheduler:
            raise RunError("--backend dask needs --scheduler tcp://HOST:PORT (or use --backend dask-local)")
        m = _SCHEDULER_ADDRESS.match(scheduler)
        if m is None or not 1 <= int(m.group(1)) <= 65535:
            raise RunError(f"--scheduler {scheduler!r}: expected tcp://HOST:PORT, e.g. tcp://10.0.0.5:8786")
    if backend in ("dask", "dask-local"):
        try:
            import dask.distributed  # noqa: F401  (optional dependency: only probed when asked for)
        except ImportError:
            raise RunError(f"--backend {backend} needs dask.distributed: pip install fsbench[dask]") from None


def check_output(out: Path) -> None:
    """Refuse an output directory that cannot be used, creating nothing (RunError, one line).

    ``out`` must be a directory, or not exist yet; the directory itself, or the nearest existing
    parent of a new one, must accept a new entry. That is tried, not inferred from permission bits
    (root ignores them; a read-only file system or an immutable directory does not): a temporary
    directory is made there and removed at once.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise RunError(f"output directory {out}: exists and is not a directory")
    probe = out
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if not probe.is_dir():
        raise RunError(f"output directory {out}: {probe} is a file, not a directory")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".fsbench-write-test-", dir=probe))
    except OSError as exc:
        raise RunError(f"output directory {out}: cannot write in {probe} ({exc.strerror})") from None
