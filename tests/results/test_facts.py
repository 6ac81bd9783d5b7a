"""Marked prose numbers (:mod:`fsbench.results.facts`): the committed docs and notes agree with the
committed files, a hand-edited number fails the check and the build writes it back, every marker names a
known fact that computes cheaply, and the rendering keeps the text's style.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

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
    """Every marked number of README.md, docs/*.md and configs/*/notes.md is what its fact computes."""
    stale = facts.check(REPO)
    assert not stale, "stale prose numbers (run `fsbench build`):\n" + "\n".join(m.line(REPO) for m in stale)


def test_every_marker_names_a_known_fact_and_every_fact_is_used():
    markers = _markers()
    assert len(markers) > 100  # the docs and notes do mark their numbers
    used = set()
    for m in markers:
        f, _, _ = parse_key(m.key)  # raises on an unknown name or a wrong number of arguments
        used.add(f.name)
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
    from fsbench.config import load_experiment
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
