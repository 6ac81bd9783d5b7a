"""Provenance of a run: the fsbench git commit, package versions and timestamps recorded in ``run.json``
(the commit in every task and row too)."""

from __future__ import annotations

import importlib.metadata as md
import platform
import subprocess
from datetime import datetime, timezone
from pathlib import Path


def git_commit() -> tuple[str, bool]:
    """(commit, dirty) of the fsbench source tree, or ("unknown", False) outside git."""
    root = Path(__file__).resolve().parents[2]  # fsbench/run/provenance.py -> the checkout
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", "fsbench"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        return commit or "unknown", bool(status)
    except (OSError, subprocess.SubprocessError):
        return "unknown", False


def package_versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in ("fsbench", "numpy", "scipy", "scikit-learn", "pandas", "joblib", "threadpoolctl"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = "not installed"
    return out


def utc_now() -> str:
    """The current time in UTC, ISO 8601 to the second (``run.json``'s and the lock's timestamps).

    Returns
    -------
    str
        E.g. ``2026-01-31T12:00:00+00:00``.
    """
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
