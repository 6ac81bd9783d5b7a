"""Time left of a run, from the measured cost of its finished tasks, group by group.

Tasks of one experiment differ in cost by orders of magnitude (a greedy backward search against a filter,
n_train = 20 against n_train = 1000), and a run draws them in config order, so the rate of the last few
completions — what a generic progress bar extrapolates — says little about the tasks still to come: at 110 of
190 tasks it showed 0:00:19 with about 400 s left. Here every remaining task is priced at the mean wall time
of the finished tasks of its own (dataset, kernel, selector) group, and no estimate is shown until every group
with tasks left has at least one measurement.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping


def eta_seconds(
    remaining: Mapping[Hashable, int], mean_seconds: Mapping[Hashable, float], jobs: int
) -> float | None:
    """Wall seconds left: the remaining tasks of each group × that group's mean measured wall time, over
    ``jobs`` parallel workers.

    Parameters
    ----------
    remaining : mapping
        Group → tasks of it not finished yet.
    mean_seconds : mapping
        Group → mean wall time of its finished tasks (groups with no finished task absent).
    jobs : int
        Tasks run at once.

    Returns
    -------
    float or None
        None while a group with tasks left has no measurement (its cost is unknown: no guess is shown);
        0.0 when nothing is left. Never less than the dearest single remaining task, which no number of
        workers shortens.
    """
    left = {g: n for g, n in remaining.items() if n > 0}
    if not left:
        return 0.0
    if any(g not in mean_seconds for g in left):
        return None
    work = sum(n * mean_seconds[g] for g, n in left.items())
    return max(work / max(int(jobs), 1), max(mean_seconds[g] for g in left))


class GroupEta:
    """Running :func:`eta_seconds` of a run: groups of the tasks to run, updated as results arrive."""

    def __init__(self, groups: Iterable[Hashable], jobs: int):
        self.jobs = jobs
        self.remaining: dict[Hashable, int] = {}
        for g in groups:
            self.remaining[g] = self.remaining.get(g, 0) + 1
        self._sum: dict[Hashable, float] = {}
        self._n: dict[Hashable, int] = {}

    def finished(self, group: Hashable, seconds: float | None) -> None:
        """One task of ``group`` finished, taking ``seconds`` of wall time (None: not measured)."""
        self.remaining[group] = max(self.remaining.get(group, 0) - 1, 0)
        if seconds is not None:
            self._sum[group] = self._sum.get(group, 0.0) + float(seconds)
            self._n[group] = self._n.get(group, 0) + 1

    def seconds_left(self) -> float | None:
        """:func:`eta_seconds` of what is left."""
        means = {g: self._sum[g] / self._n[g] for g in self._n}
        return eta_seconds(self.remaining, means, self.jobs)


def format_eta(seconds: float | None) -> str:
    """``H:MM:SS``, or ``-`` when there is no estimate yet."""
    if seconds is None:
        return "-"
    s = round(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"
