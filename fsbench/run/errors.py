"""The one exception of the runner: a refusal to run, reported as one line with exit code 2."""

from __future__ import annotations


class RunError(RuntimeError):
    """A refusal to run (lock held, config changed, mixed code): one line, exit code 2."""
