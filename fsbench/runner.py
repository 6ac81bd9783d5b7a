"""The runner's public names, re-exported from :mod:`fsbench.run` (where the code lives, one module per
concern), so that ``from fsbench.runner import ...`` keeps working.

To pin the git commit a run records (tests do), patch ``fsbench.run.engine.git_commit``: that is the name
:func:`run_experiment` calls, and rebinding ``fsbench.runner.git_commit`` does not change it.
"""

from __future__ import annotations

from fsbench.run.backends import WORKER_ENV
from fsbench.run.checks import BACKENDS, SCHEDULER_TIMEOUT, check_backend_options, check_output
from fsbench.run.engine import (
    RunSummary,
    check_commit,
    check_plugin_code,
    dry_run,
    prepare_output,
    run_experiment,
    unfinished_runs,
)
from fsbench.run.errors import RunError
from fsbench.run.lock import RunLock
from fsbench.run.plan import expand, plugin_sources, validate
from fsbench.run.provenance import git_commit, package_versions
from fsbench.run.store import TaskStore, atomic_write, write_tables

__all__ = [
    "BACKENDS",
    "SCHEDULER_TIMEOUT",
    "WORKER_ENV",
    "RunError",
    "RunLock",
    "RunSummary",
    "TaskStore",
    "atomic_write",
    "check_backend_options",
    "check_commit",
    "check_output",
    "check_plugin_code",
    "dry_run",
    "expand",
    "git_commit",
    "package_versions",
    "plugin_sources",
    "prepare_output",
    "run_experiment",
    "unfinished_runs",
    "validate",
    "write_tables",
]
