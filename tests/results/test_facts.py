"""Marked prose numbers (:mod:`fsbench.results.facts`): the committed docs and notes agree with the
committed files, a hand-edited number fails the check and the build writes it back, every marker names a
known fact that computes cheaply, and the rendering keeps the text's style.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO, cli
from results_helpers import fixed_ranker, random_ranker, write_result_dir

from fsbench.results import facts
from fsbench.results.facts import (
    FACTS,
    FactContext,
    FactError,
    compute,
    doc_files,
    find_markers,
    parse_key,
    render,
    strip_markers,
)


def _markers() -> list[facts.Marker]:
    return [m for f in doc_files(REPO) for m in find_markers(f.read_text(encoding="utf-8"), f)]


# --------------------------------------------------------------------------- the committed docs
def test_committed_docs_and_notes_agree_with_the_committed_files():
    """Every marked number of README.md, docs/*.md and configs/*/{notes,departures}.md is what its fact
    computes."""
    assert REPO / "configs" / "kife2011" / "departures.md" in doc_files(REPO)
    stale = facts.check(REPO)
    assert not stale, "stale prose numbers (run `fsbench build`):\n" + "\n".join(m.line(REPO) for m in stale)


def test_every_marker_names_a_known_fact_and_every_fact_is_used():
    markers = _markers()
    assert len(markers) > 100  # the docs and notes do mark their numbers
    used: set[str] = set()

    def names(key: str) -> None:  # a fact and the facts its nested keys name (difference, minimum, ...)
        f, args, _ = parse_key(key)  # raises on an unknown name or a wrong number of arguments
        used.add(f.name)
        for a in args:
            if a.split("(", 1)[0] in FACTS and a.endswith(")"):
                names(a)

    for m in markers:
        names(m.key)
    assert set(FACTS) == used, f"registered but never used: {sorted(set(FACTS) - used)}"
    for f in FACTS.values():
        assert f.doc, f"fact {f.name} has no docstring"


def test_every_fact_computes_cheaply():
    """Each fact's first computation on a file (a fresh context: nothing cached) takes a few seconds at
    most; one marker per (fact, source) pair, the rest of a file's markers read the cache."""
    first: dict[tuple[str, str], str] = {}
    for m in _markers():
        f, args, _ = parse_key(m.key)
        first.setdefault((f.name, args[0] if args else ""), m.key)
    slow = []
    for key in first.values():
        t0 = time.perf_counter()
        compute(key, FactContext(REPO))
        if (dt := time.perf_counter() - t0) > 3.0:  # ~0.2 s on an idle machine; headroom for a loaded one
            slow.append(f"{key}: {dt:.1f} s")
    assert not slow, slow


def test_report_notes_show_the_numbers_without_markers():
    """A paper's report shows its notes without the marker comments (PaperFolder.notes strips them)."""
    for f in doc_files(REPO):
        if f.name == "notes.md" and find_markers(f.read_text(encoding="utf-8"), f):
            report = REPO / "results" / f.parent.name / "REPORT.md"
            if report.is_file():
                assert "<!-- fact:" not in report.read_text(encoding="utf-8"), report


# --------------------------------------------------------------------------- a hand edit, on a real doc
def test_a_hand_edited_number_fails_the_check_and_update_writes_it_back(tmp_path):
    """docs/benchmark.md, copied: its task count edited to the stale 4,370 of an earlier audit."""
    original = (REPO / "docs" / "benchmark.md").read_text(encoding="utf-8")
    key = "run_tasks(benchmark/benchmark)"
    marked = f"<!-- fact: {key} -->"
    assert marked in original
    value = render(compute(key, FactContext(REPO)), "1,000")
    doc = tmp_path / "benchmark.md"
    doc.write_text(original.replace(f"{marked}{value}<", f"{marked}4,370<"), encoding="utf-8")

    stale = facts.check(REPO, files=[doc])
    assert [(m.marker.key, m.marker.text, m.expected) for m in stale] == [(key, "4,370", value)]
    assert stale[0].line().startswith(f"{doc}:{stale[0].marker.line}: {key} is '{value}'")

    changed, failed = facts.update(REPO, files=[doc])
    assert changed == [doc] and not failed
    assert doc.read_text(encoding="utf-8") == original
    assert facts.check(REPO, files=[doc]) == []


def test_a_marker_naming_no_known_fact_fails_the_check(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text(
        "A <!-- fact: no_such_fact(a) -->3<!-- /fact --> and a <!-- fact: papers -->9<!-- /fact -->.\n"
    )
    lines = [m.line(tmp_path) for m in facts.check(REPO, files=[doc])]
    assert lines[0] == "x.md:1: no_such_fact(a): cannot be computed (unknown fact 'no_such_fact')"
    assert lines[1].startswith("x.md:1: papers is '")
    changed, failed = facts.update(REPO, files=[doc])
    assert changed == [doc] and [m.marker.key for m in failed] == ["no_such_fact(a)"]
    assert "no_such_fact(a) -->3<" in doc.read_text()  # a marker whose fact fails is left as it is


# --------------------------------------------------------------------------- fsbench build, end to end
@pytest.fixture
def mini(tmp_path: Path) -> tuple[Path, Path]:
    """``(results, configs)``: a plain report folder ``mini`` with one run and marked notes."""
    results, configs = tmp_path / "results", tmp_path / "configs"
    (configs / "mini").mkdir(parents=True)
    d = write_result_dir(
        results / "mini" / "sweep",
        experiment="sweep",
        dataset="weston_nonlinear",
        d=10,
        selectors={"good": fixed_ranker([0, 1], 10), "noise": random_ranker(10)},
        error=lambda sel, n, r, s, rng: 0.1 * s + (0.0 if sel == "good" else 0.2) + 0.01 * r,
        repeats=4,
    )
    info = json.loads((d / "run.json").read_text())
    info.update(n_tasks=12, n_done=12, n_failed=0)  # 3 selectors x 4 repeats, as the runner records
    (d / "run.json").write_text(json.dumps(info, indent=1))
    return results, configs


def _notes(tasks: str, error: str) -> str:
    return (
        f"Ran <!-- fact: run_tasks(mini/sweep) -->{tasks}<!-- /fact --> tasks; good at S = 2: "
        f"<!-- fact: error_pct(mini/sweep, good, 2) -->{error}<!-- /fact --> %.\n"
    )


def test_build_check_fails_on_an_edited_number_and_build_writes_it_back(mini):
    results, configs = mini
    notes = configs / "mini" / "notes.md"
    notes.write_text(_notes("12", "21.5"))  # good at S = 2: 0.2 + 0.01 r, mean over r = 0..3 = 21.5 %
    assert cli("build", results, "--configs", configs).exit_code == 0
    report = (results / "mini" / "REPORT.md").read_text()
    assert "Ran 12 tasks; good at S = 2: 21.5 %." in report and "<!-- fact" not in report
    assert cli("build", results, "--configs", configs, "--check").exit_code == 0

    notes.write_text(_notes("13", "21.5"))  # a hand edit
    out = cli("build", results, "--configs", configs, "--check")
    assert out.exit_code == 1
    assert "differs: configs/mini/notes.md:1: run_tasks(mini/sweep) is '12', the text says '13'" in out.stdout

    out = cli("build", results, "--configs", configs)
    assert out.exit_code == 0 and "marked numbers updated" in out.stdout
    assert notes.read_text() == _notes("12", "21.5")
    assert "Ran 12 tasks" in (results / "mini" / "REPORT.md").read_text()
    assert cli("build", results, "--configs", configs, "--check").exit_code == 0


def test_build_rebuilds_a_report_whose_notes_quote_that_report(mini, monkeypatch):
    """A fact read from the report (its line count here) is only known after the build; the notes then
    change, and the report that shows them is built again, so the check passes after one build."""

    def report_lines(ctx: FactContext, paper: str) -> int:
        # a made-up fact of this test (fsbench's own facts read comparison.json, never REPORT.md)
        return len((ctx.results / paper / "REPORT.md").read_text(encoding="utf-8").splitlines())

    monkeypatch.setitem(FACTS, "report_lines", facts.Fact("report_lines", report_lines, "lines", ("paper",)))
    results, configs = mini
    notes = configs / "mini" / "notes.md"
    notes.write_text("The report has <!-- fact: report_lines(mini) -->0<!-- /fact --> lines.\n")
    out = cli("build", results, "--configs", configs)
    assert out.exit_code == 0, out.stderr
    n = len((results / "mini" / "REPORT.md").read_text().splitlines())
    assert f"The report has {n} lines." in (results / "mini" / "REPORT.md").read_text()
    assert cli("build", results, "--configs", configs, "--check").exit_code == 0


# --------------------------------------------------------------------------- the planner's task count
def test_config_tasks_counts_as_the_planner_does():
    """``config_tasks`` reads the YAML without the selector registry (results layer); it must count what
    :func:`fsbench.run.plan.expand` plans, for every benchmark track and every config a marker names."""
    from fsbench.config.experiment import load_experiment
    from fsbench.run.plan import expand

    named = {parse_key(m.key)[1][0] for m in _markers() if parse_key(m.key)[0].name == "config_tasks"}
    configs = {
        p.relative_to(REPO / "configs").with_suffix("").as_posix()
        for p in (REPO / "configs" / "benchmark").glob("*.yaml")
    }
    for c in sorted(named | configs):
        exp = load_experiment(REPO / "configs" / f"{c}.yaml")
        assert compute(f"config_tasks({c})", FactContext(REPO)) == len(expand(exp)), c


# --------------------------------------------------------------------------- markers and rendering
@pytest.mark.parametrize(
    ("value", "written", "expected"),
    [
        (3610, "4,370", "3,610"),  # the text's thousands separator
        (3610, "4370", "3610"),
        (4.479277, "4.48", "4.48"),  # its decimals
        (187.03, "187", "187"),
        (78.04999999999998, "78.1", "78.1"),  # half away from zero after float noise is cut
        (44.5, "44", "45"),
        (-0.01, "0.0", "0.0"),  # no "-0.0"
        (6, "six", "six"),  # a word stays a word
        (4, "Four", "Four"),
        (25, "twenty", "25"),  # past twenty: digits
        (12345.678, "", "12,345.68"),  # a new marker
        (7, "", "7"),
        ("boruta, fspp", "fspp", "boruta, fspp"),  # a string as it is
        (0.0644, "+0.064", "+0.064"),  # a signed difference keeps its sign style
        (-1.41, "+1.4", "−1.4"),
        (-3.49, "−1.4", "−3.5"),
        (2.855e-6, "3e-6", "3e-6"),  # scientific notation: the mantissa's digits, no exponent padding
        (7.978e-17, "7e-17", "8e-17"),
        (0.0123, "1.2e-3", "1.2e-2"),
    ],
)
def test_render_keeps_the_style_of_the_text(value, written, expected):
    assert render(value, written) == expected


def test_markers_in_code_are_examples_and_an_unclosed_one_is_refused():
    text = (
        "a <!-- fact: papers -->5<!-- /fact --> b\n"
        "`<!-- fact: papers -->9<!-- /fact -->` shown as code\n"
        "```\n<!-- fact: papers -->\n```\n"
    )
    assert [(m.key, m.text, m.line) for m in find_markers(text)] == [("papers", "5", 1)]
    assert strip_markers(text) == text.replace("<!-- fact: papers -->5<!-- /fact -->", "5", 1)
    with pytest.raises(FactError, match=r":2: a '<!-- fact: KEY -->' without"):
        find_markers("ok\n<!-- fact: papers -->5 and no end\n")


def test_parse_key_quotes_labels_and_takes_filters():
    f, args, kw = parse_key('error_pct(p/x, "scss eps=1e-3 (default)", 2, dataset=sonar, kernel=rbf)')
    assert f.name == "error_pct" and args == ["p/x", "scss eps=1e-3 (default)", "2"]
    assert kw == {"dataset": "sonar", "kernel": "rbf"}
    assert parse_key("error_pct(p/x, kfds reg=1e-5, 3)")[1] == ["p/x", "kfds reg=1e-5", "3"]  # not a filter
    with pytest.raises(FactError, match="takes 2 argument"):
        parse_key("run_wall(p/x)")


def test_run_facts_read_run_json(tmp_path):
    d = tmp_path / "results" / "p" / "r"
    d.mkdir(parents=True)
    info = {
        "config_hash": "0" * 64,  # an fsbench run's run.json (read_run_json)
        "n_tasks": 40,
        "n_failed": 1,
        "git_commit": "0123456789abcdef",
        "started": "2026-01-01T00:00:00+00:00",
        "finished": "2026-01-01T00:30:00+00:00",
        "excluded_selectors": ["b"],
        "effective_config": {
            "selectors": ["all", "a", {"name": "x:B", "label": "b"}, "c"],
            "dataset": ["d1", "d2"],
        },
    }
    (d / "run.json").write_text(json.dumps(info))
    ctx = FactContext(tmp_path, tmp_path / "results")
    got = {k: compute(f"{k}(p/r)", ctx) for k in ("run_tasks", "run_failed", "run_commit", "run_rankers")}
    assert got == {"run_tasks": 40, "run_failed": 1, "run_commit": "0123456", "run_rankers": 2}
    assert compute("run_excluded(p/r)", ctx) == "b" and compute("run_datasets(p/r)", ctx) == 2
    assert compute("run_wall(p/r, min)", ctx) == 30.0
    with pytest.raises(FactError, match="do not divide"):  # 40 tasks over 3 selectors run
        compute("run_tasks_per_selector(p/r)", ctx)
    shutil.rmtree(d)
    with pytest.raises(FactError, match="no result directory"):
        compute("run_tasks(p/r)", FactContext(tmp_path, tmp_path / "results"))  # a fresh cache


# --------------------------------------------------------------------------- groups, pairs, tables
@pytest.fixture
def pairs_ctx(tmp_path: Path) -> FactContext:
    """``p/r``: selectors ``good`` and ``noise`` on 6 splits at S = 2, 4 (and ``all`` at S = 10), errors
    known in closed form; ``good`` fits in 0.01 s, ``noise`` in 0.04 s; ``p/r2``: the same with ``good``
    one point worse everywhere; ``p/n``: fit CPU 1e-4·n² over n = 100, 200, 400."""
    import pandas as pd

    def err(sel: str, n: int, r: int, s: int, rng) -> float:
        return (0.10 + 0.01 * r if sel == "good" else 0.30 - 0.03 * r) + 0.01 * s

    def write(rel: str, error, n_train=(50,)) -> Path:
        d = write_result_dir(
            tmp_path / "results" / rel,
            experiment=rel.replace("/", "_"),
            dataset="toy",
            d=10,
            selectors={"good": fixed_ranker([0, 1], 10), "noise": random_ranker(10)},
            error=error,
            n_train=n_train,
        )
        df = pd.read_csv(d / "results.csv")
        df["fit_cpu_s"] = [0.01 if s == "good" else 0.04 for s in df["selector"]]
        df["fit_wall_s"] = 2 * df["fit_cpu_s"]
        if rel == "p/n":
            df["fit_cpu_s"] = 1e-4 * df["n_train"] ** 2
        df.to_csv(d / "results.csv", index=False)
        return d

    write("p/r", err)
    write("p/r2", lambda sel, n, r, s, rng: err(sel, n, r, s, rng) + (0.01 if sel == "good" else 0.0))
    write("p/n", err, n_train=(100, 200, 400))
    return FactContext(tmp_path, tmp_path / "results")


def test_paired_facts_compute_the_paired_statistics(pairs_ctx):
    from scipy import stats

    ctx = pairs_ctx
    r = np.arange(6)
    good, noise = 100 * (0.12 + 0.01 * r), 100 * (0.32 - 0.03 * r)  # S = 2
    d = good - noise  # -20, -16, ..., 0: good better on 5 splits, tied on the last
    args = "p/r, error_pct, good, 2, noise, 2"
    assert compute(f"paired_diff({args})", ctx) == pytest.approx(d.mean())
    assert compute(f"paired_n({args})", ctx) == 6
    assert compute(f"paired_better({args})", ctx) == 5 and compute(f"paired_worse({args})", ctx) == 0
    assert compute(f"paired_t_p({args})", ctx) == pytest.approx(stats.ttest_rel(good, noise).pvalue)
    assert compute(f"paired_wilcoxon_p({args})", ctx) == pytest.approx(stats.wilcoxon(d).pvalue)
    t_nb = d.mean() / np.sqrt((1 / 6 + 100 / 50) * d.var(ddof=1))  # n_test 100, n_train 50
    assert compute(f"paired_t_nb({args})", ctx) == pytest.approx(t_nb)
    # accuracy is better when higher: the same splits, the other way round
    assert compute("paired_better(p/r, accuracy_pct, noise, 2, good, 2)", ctx) == 0
    assert compute("paired_worse(p/r, accuracy_pct, noise, 2, good, 2)", ctx) == 5
    assert compute("paired_speedup(p/r, fit_cpu_s, good, 2, noise, 2)", ctx) == pytest.approx(4.0)
    assert compute("paired_n(p/r, error_pct, good, *, noise, *)", ctx) == 12  # every S with itself
    assert compute("paired_n(p/r, error_pct, good, max, all, max)", ctx) == 6  # S = 4 against S = 10
    with pytest.raises(FactError, match="both selectors"):
        compute("paired_n(p/r, error_pct, good, *, noise, 2)", ctx)
    with pytest.raises(FactError, match="share no split"):
        compute("paired_n(p/r, error_pct, good, 3, noise, 2)", ctx)
    # counted over groups (one dataset here)
    grouped = f"{args}, dataset"
    assert compute(f"groups({grouped})", ctx) == 1 and compute(f"groups_better({grouped})", ctx) == 1
    assert compute(f"groups_significant({grouped})", ctx) == int(stats.ttest_rel(good, noise).pvalue < 0.05)
    assert compute(f"groups_max_distance({grouped})", ctx) == pytest.approx(abs(d.mean()))
    with pytest.raises(FactError, match="group by"):
        compute(f"groups({args}, selector)", ctx)


def test_group_facts_compute_over_the_groups(pairs_ctx):
    ctx = pairs_ctx
    r = np.arange(6)
    means = {("good", 2): 12 + r.mean(), ("good", 4): 14 + r.mean(), ("noise", 2): 32 - 3 * r.mean()}
    means[("noise", 4)] = means[("noise", 2)] + 2
    key = "p/r, error_pct, selector+n_features, selector=good;noise"
    assert compute(f"group_min({key})", ctx) == pytest.approx(min(means.values()))
    assert compute(f"group_max({key})", ctx) == pytest.approx(max(means.values()))
    assert compute("group_std_min(p/r, error_pct, selector, n_features=2)", ctx) == pytest.approx(
        np.std(r, ddof=1)
    )
    assert compute("group_std_max(p/r, error_pct, selector, n_features=2)", ctx) == pytest.approx(
        3 * np.std(r, ddof=1)
    )
    assert compute("group_count(p/r, split_seed, selector=good)", ctx) == 6
    assert compute("group_count(p/r, selector+n_features)", ctx) == 5  # all at S = 10 only
    assert (
        compute("group_max(p/r, n_features, selector, S=max, selector=good)", ctx) == 4
    )  # largest S per task
    assert compute("max_shift(p/r, p/r2, error_pct, selector+n_features)", ctx) == pytest.approx(1.0)
    assert compute("fit_cpu_total(p/r, selector=noise)", ctx) == pytest.approx(6 * 0.04)  # one fit per task
    assert compute("fit_ratio_mean(p/r, noise, good)", ctx) == pytest.approx(4.0)
    assert compute("cpu_slope(p/n, good, 100)", ctx) == pytest.approx(2.0)
    with pytest.raises(FactError, match="fewer than two"):
        compute("cpu_slope(p/n, good, 400)", ctx)
    with pytest.raises(FactError, match="no metric or column"):
        compute("group_min(p/r, nonsense, selector)", ctx)


def test_arithmetic_facts_read_nested_keys(pairs_ctx):
    ctx = pairs_ctx
    a, b = "error_pct(p/r, good, 2)", "error_pct(p/r, noise, 2)"
    va, vb = compute(a, ctx), compute(b, ctx)
    assert compute(f'difference("{a}", "{b}")', ctx) == pytest.approx(va - vb)
    assert compute(f'distance("{a}", "{b}")', ctx) == pytest.approx(abs(va - vb))
    assert compute(f'ratio("{b}", "{a}")', ctx) == pytest.approx(vb / va)
    assert compute(f'total("{a}", "{b}", "{a}")', ctx) == pytest.approx(2 * va + vb)
    assert compute(f'minimum("{a}", "{b}")', ctx) == va and compute(f'maximum("{b}")', ctx) == vb
    # a nested key quotes its own arguments with single quotes
    inner = "group_max(p/r, error_pct, selector, selector='good', n_features=4)"
    nested = f'difference("{inner}", "error_pct(p/r, good, 4)")'
    assert compute(nested, ctx) == pytest.approx(0.0)
    with pytest.raises(FactError, match="at least 1"):
        parse_key("minimum()")
    with pytest.raises(FactError, match="is text"):
        compute('minimum("run_commit(p/r)")', ctx)


def test_csv_and_comparison_facts(tmp_path):
    (tmp_path / "t.csv").write_text("dataset,k,ki\na,1,0.5\na,2,0.25\nb,1,0.75\n")
    paper = tmp_path / "results" / "pp"
    paper.mkdir(parents=True)
    cells = [
        {
            "setting": "N = 30, D = 5",
            "method": "sas",
            "paper": 1.0,
            "ours": 1.0,
            "diff": 0.0,
            "ours_seconds": 0.002,
        },
        {
            "setting": "N = 30, D = 50",
            "method": "sas",
            "paper": 2.0,
            "ours": 4.0,
            "diff": 2.0,
            "ours_seconds": 0.008,
        },
        {
            "setting": "N = 30, D = 500",
            "method": "sas",
            "paper": 9.0,
            "ours": 6.0,
            "diff": -3.0,
            "ours_seconds": 0.012,
        },
        {
            "setting": "N = 30, D = 5",
            "method": "kfds",
            "paper": 3.0,
            "ours": 3.5,
            "diff": 0.5,
            "ours_seconds": 0.007,
        },
    ]
    differing = [
        {"cell": 1, "cls": "unexplained", "reading": None},
        {"cell": 2, "cls": "explained", "reading": "r1"},
    ]
    table = {"id": "t9", "name": "IX", "differing_name": "IX", "cells": cells, "differing": differing}
    slopes = [{"table": "t9", "method": "sas", "ours": 0.56, "paper": 0.84}]
    (paper / "comparison.json").write_text(
        json.dumps({"tables": [table], "readings": [], "cpu_shape": {"slopes": slopes}})
    )
    ctx = FactContext(tmp_path, tmp_path / "results")

    assert compute("csv(t.csv, ki, dataset=a, k=2)", ctx) == 0.25
    with pytest.raises(FactError, match="2 rows match"):
        compute("csv(t.csv, ki, dataset=a)", ctx)
    # a setting's leading parts: "D = 5" is not a prefix of "D = 50" or "D = 500"
    assert compute("report_cell(pp, IX, ours, method=sas, setting='N = 30, D = 5')", ctx) == 1.0
    assert compute('report_cell(pp, IX, ours_ms, method=kfds, setting="N = 30")', ctx) == pytest.approx(7.0)
    assert compute("report_cell_max(pp, IX, ours_ms, method=sas, setting=N = 30)", ctx) == pytest.approx(12.0)
    assert compute("report_cell_min(pp, IX, paper, setting='N = 30, D = 50;N = 30, D = 500')", ctx) == 2.0
    with pytest.raises(FactError, match="3 cells match"):
        compute("report_cell(pp, IX, ours, method=sas)", ctx)
    assert compute("report_differing(pp, IX, differing, method=sas)", ctx) == 2
    assert compute("report_differing(pp, IX, explained, reading=r1)", ctx) == 1
    assert compute("report_differing(pp, IX, differing, method=kfds)", ctx) == 0
    assert compute("report_gap_min(pp, IX, method=sas)", ctx) == 2.0
    assert compute("report_gap_max(pp, IX)", ctx) == 3.0
    assert compute("report_slope(pp, t9, sas, ours)", ctx) == 0.56
    with pytest.raises(FactError, match="no slope"):
        compute("report_slope(pp, t9, kfds, ours)", ctx)
