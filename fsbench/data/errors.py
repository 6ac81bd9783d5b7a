"""Exceptions and warnings of :mod:`fsbench.data`."""

from __future__ import annotations


class DatasetError(Exception):
    """A user-facing data problem: unknown card, malformed card, missing or corrupt file, bad values.

    The message is always one line naming the card/file, the key and what was expected, because the CLI
    prints it as is and exits with status 2.
    """


class DatasetWarning(UserWarning):
    """Something a user should know but that does not stop loading (e.g. a hash recorded on first use)."""
