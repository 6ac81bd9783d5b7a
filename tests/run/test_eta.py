"""The run's ETA (fsbench.run.eta): remaining tasks of each (dataset, kernel, selector) group priced at that
group's mean measured wall time, over the workers; no estimate while a group left is unmeasured."""

from __future__ import annotations

import pytest

from fsbench.run.eta import GroupEta, eta_seconds, format_eta


def test_trial_case_cheap_groups_done_first_do_not_hide_the_dear_ones():
    # 190 tasks: 110 cheap (0.1 s) finished first, 80 dear (5 s) left, 1 worker: about 400 s, not 19 s
    clock = GroupEta(["cheap"] * 110 + ["dear"] * 80, jobs=1)
    for _ in range(110):
        clock.finished("cheap", 0.1)
    assert clock.seconds_left() is None  # "dear" has no measured task yet: no guess
    clock.finished("dear", 5.0)
    assert clock.seconds_left() == pytest.approx(79 * 5.0)


def test_eta_is_the_sum_over_groups_over_jobs():
    left = {"a": 10, "b": 4, "done": 0}
    means = {"a": 2.0, "b": 10.0}  # "done" has no task left: its missing measurement does not matter
    assert eta_seconds(left, means, jobs=1) == pytest.approx(60.0)
    assert eta_seconds(left, means, jobs=4) == pytest.approx(15.0)
    # one task left cannot be shared among workers
    assert eta_seconds({"b": 1}, means, jobs=8) == pytest.approx(10.0)
    assert eta_seconds({"a": 3, "c": 1}, means, jobs=2) is None
    assert eta_seconds({}, {}, jobs=2) == 0.0


def test_unmeasured_results_and_format():
    clock = GroupEta(["a", "a"], jobs=1)
    clock.finished("a", None)  # e.g. a worker that died: no timing
    assert clock.seconds_left() is None
    clock.finished("a", 3.0)
    assert clock.seconds_left() == 0.0
    assert format_eta(None) == "-" and format_eta(400.4) == "0:06:40" and format_eta(3725) == "1:02:05"


def test_run_experiment_feeds_the_eta(tmp_path, pinned_commit):
    from conftest import write_config

    from fsbench.config.experiment import load_experiment
    from fsbench.run.engine import run_experiment

    seen: list[float | None] = []
    exp = load_experiment(write_config(tmp_path / "tiny.yaml"))
    run_experiment(exp, tmp_path / "out", eta=seen.append)
    assert len(seen) == 36 and seen[0] is None  # the first task measures only its own group
    assert any(s is not None and s > 0 for s in seen) and seen[-1] == 0.0
