"""Pages show what the reader came for: every built ``REPORT.html`` has unique navigation entries and ids,
no empty section, no table longer than :data:`fsbench.results.html.MAX_TABLE_ROWS` rows and no link to a
CSV or figure that does not resolve (:func:`fsbench.results.page_check.page_problems`, the standard
library's HTML parser: no browser needed).

The findings of a user test of the pages, each reproduced here:

* Ramona 2012's page had a section "Selectors across datasets" saying only "Not computed: need at least
  2 selectors to compare, got []": a section with nothing to show is now left out, its reason said in one
  line under the navigation;
* the benchmark's page added a Friedman test over 82 pooled, non-independent (dataset, S) blocks
  (p = 9.65e-29) that contradicted its own per-fraction tests, and the generic stability (1,477 rows) and
  ground-truth (254 rows) tables under headings of their own beside the benchmark's summaries of the same
  analyses (so the navigation listed both twice): a report with statistics of its own gets none added;
* a table too long for the page is shown by its first rows with a link to the CSV of all of them.

The committed pages are rendered into a temporary folder (their links re-pointed at the committed files)
and checked; in headless Chromium too, where it is installed (no table wider than the page, every image
loaded).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from results_helpers import fixed_ranker, read_report_page, write_result_dir

from fsbench.results.experiment_tables import GROUND_TRUTH_SECTION, STABILITY_SECTION
from fsbench.results.html import (
    MAX_TABLE_ROWS,
    TABLE_HEAD_ROWS,
    Provenance,
    Section,
    Table,
    write_html,
)
from fsbench.results.page_check import page_problems, page_structure, probe_layout
from fsbench.results.report_html import ACROSS_DATASETS, write_report_html

ROOT = Path(__file__).resolve().parents[2]
#: The committed paper folders with a report (results/<name>/REPORT.md beside configs/<name>).
PAPERS = sorted(
    p.parent.name
    for p in (ROOT / "results").glob("*/REPORT.md")
    if (ROOT / "configs" / p.parent.name).is_dir()
)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: A report section's body that shows something (a table).
TABLE = "| a | b |\n|---|---|\n| 1 | 2 |"


def _error(sel: str, n: int, r: int, s: int, rng: np.random.Generator) -> float:
    # selectors differ by a fixed offset, with noise: a comparison across datasets has something to rank
    return 0.1 + 0.01 * (sum(map(ord, sel)) % 7) + 0.002 * rng.standard_normal()


def _results(root: Path, selectors_per_dir: dict[str, list[str]], dataset: str = "toy") -> Path:
    for i, (name, sels) in enumerate(selectors_per_dir.items()):
        write_result_dir(
            root / name,
            experiment=name,
            dataset=dataset,
            d=8,
            selectors={s: fixed_ranker([j % 8], 8) for j, s in enumerate(sels)},
            error=_error,
            repeats=4,
            seed=i,
        )
    return root


def _report(root: Path, sections: dict[str, str]) -> Path:
    md = root / "REPORT.md"
    md.write_text("# Report\n\n" + "".join(f"## {t}\n\n{body}\n\n" for t, body in sections.items()))
    return md


def _h2(page: Path) -> list[str]:
    return [s.title for s in page_structure(page).sections]


def test_a_section_with_nothing_to_show_is_left_out_with_one_line_of_reason(tmp_path):
    """Ramona 2012's finding: result directories with no two selectors in common (every experiment its
    own methods) have no comparison across them — no heading over "Not computed"."""
    root = _results(tmp_path / "res", {"exp_a": ["sas", "scss"], "exp_b": ["fisher", "rfe"]})
    md = _report(root, {"Ranks": TABLE, STABILITY_SECTION: TABLE})
    page = write_report_html(md, root)
    assert ACROSS_DATASETS not in _h2(page)
    text = page.read_text(encoding="utf-8")
    assert "Not computed" not in text
    # the reason once, under the navigation, where a reader looks for the section
    assert text.count(f"Not on this page: <strong>{ACROSS_DATASETS}</strong>") == 1
    assert text.index("Not on this page") < text.index("<section>")
    assert "result directories, and none did" in text
    assert page_problems(page) == []


def test_an_empty_section_is_flagged_by_the_check_and_dropped_by_the_writer(tmp_path):
    page = write_html(
        tmp_path / "p.html",
        [
            Section("Shown", ["Some text.", pd.DataFrame({"a": [1, 2]})]),
            Section("Blank", ["  \n"]),  # nothing to show, no reason: not on the page at all
            Section("Skipped", reason="there is nothing to compare."),
        ],
    )
    assert _h2(page) == ["Shown"]
    assert "Blank" not in page.read_text(encoding="utf-8")
    assert page_problems(page) == []
    # the page the old writer made: a heading over one "Not computed" line
    old = tmp_path / "old.html"
    old.write_text(
        "<nav><ul><li><a href='#s0'>Across</a></li></ul></nav><section><h2 id='s0'>Across</h2>"
        "<p>Not computed: need at least 2 selectors to compare, got []</p></section>"
    )
    assert page_problems(old) == [
        "section 'Across' shows nothing: 'Not computed: need at least 2 selectors to compare, got []'"
    ]


def test_a_report_with_statistics_of_its_own_gets_none_added(tmp_path):
    """The benchmark's finding: its report (laid out without fsbench's generic analysis) states its
    statistics per fraction of D and its own stability and ground-truth summaries; the page adds no
    pooled Friedman test and no second stability or ground-truth section."""
    sels = ["fisher", "rfe", "sas", "scss"]
    root = _results(tmp_path / "res", {"a": sels, "b": sels, "c": sels}, dataset="weston_nonlinear")
    own = {
        "Headline": "Per fraction of D, one block per dataset.\n\n| S | best |\n|---|---|\n| 5 % | sas |",
        "Stability (Nogueira)": "| selector | 5 % of D |\n|---|---|\n| fisher | 0.7 |",
        "Ground truth on the toys": "| dataset | exact |\n|---|---|\n| weston_nonlinear | 3/4 |",
    }
    page = write_report_html(_report(root, own), root)
    assert _h2(page) == [*own, "Provenance"]
    text = page.read_text(encoding="utf-8")
    assert "Friedman" not in text and ACROSS_DATASETS not in text
    nav = [t for t, _ in page_structure(page).nav]
    assert sum("Stability" in t for t in nav) == 1 and sum("Ground truth" in t for t in nav) == 1
    assert page_problems(page) == []


def test_a_report_with_the_generic_analysis_keeps_the_comparison_across_datasets(tmp_path):
    sels = ["fisher", "rfe", "sas", "scss"]
    root = _results(tmp_path / "res", {f"e{i}": sels for i in range(4)})
    md = _report(root, {"Ranks": TABLE, STABILITY_SECTION: TABLE, GROUND_TRUTH_SECTION: TABLE})
    page = write_report_html(md, root)
    assert _h2(page) == ["Ranks", STABILITY_SECTION, GROUND_TRUTH_SECTION, ACROSS_DATASETS, "Provenance"]
    assert "Friedman chi2_F" in page.read_text(encoding="utf-8")
    assert page_problems(page) == []


def test_a_long_table_is_summarised_with_a_link_to_its_csv(tmp_path):
    n = MAX_TABLE_ROWS + 50
    frame = pd.DataFrame({"pair": [f"p{i}" for i in range(n)], "p": np.linspace(0, 1, n)})
    csv = tmp_path / "REPORT_tables" / "pairs.csv"
    csv.parent.mkdir()
    frame.to_csv(csv, index=False)
    page = write_html(tmp_path / "REPORT.html", [Section("Pairs", [Table(frame, csv)])], link_from=tmp_path)
    s = page_structure(page)
    assert s.tables == [("Pairs", TABLE_HEAD_ROWS)]
    assert "REPORT_tables/pairs.csv" in s.links
    assert f"The first {TABLE_HEAD_ROWS} of {n} rows" in page.read_text(encoding="utf-8")
    assert page_problems(page) == []
    # a short one is shown whole; the CSV of a long one must exist
    short = write_html(tmp_path / "short.html", [Section("S", [Table(frame.head(5), tmp_path / "none.csv")])])
    assert page_structure(short).tables == [("S", 5)]
    with pytest.raises(ValueError, match="does not exist"):
        write_html(tmp_path / "x.html", [Section("P", [Table(frame, tmp_path / "none.csv")])])
    # the check: the same table whole is too long for a page
    whole = write_html(tmp_path / "whole.html", [Section("Pairs", [frame])])
    assert page_problems(whole) == [f"a table of {n} rows (over {MAX_TABLE_ROWS}) in section 'Pairs'"]


def test_every_pair_of_many_selectors_goes_to_a_csv_beside_the_page(tmp_path):
    """16 selectors: 120 pairs of post-hoc tests, more than a page's table; the first rows are shown and
    all of them written to ``REPORT_tables/posthoc.csv`` beside the page."""
    sels = [f"sel{i:02d}" for i in range(16)]
    root = _results(tmp_path / "res", {f"e{i}": sels for i in range(3)})
    page = write_report_html(_report(root, {STABILITY_SECTION: TABLE}), root)
    posthoc = root / "REPORT_tables" / "posthoc.csv"
    assert len(pd.read_csv(posthoc)) == 16 * 15 // 2
    s = page_structure(page)
    assert "REPORT_tables/posthoc.csv" in s.links
    assert max(rows for _, rows in s.tables) <= MAX_TABLE_ROWS
    assert page_problems(page) == []


def test_the_check_names_repeated_entries_and_links_that_do_not_resolve(tmp_path):
    (tmp_path / "there.csv").write_text("a\n1\n")
    page = tmp_path / "p.html"
    page.write_text(
        "<nav><ul><li><a href='#s0-a'>A</a></li><li><a href='#s1-a'>A</a></li></ul></nav>"
        "<section><h2 id='s0-a'>A</h2><p><a href='there.csv'>ok</a> <a href='gone.csv'>gone</a> "
        "<a href='#nowhere'>x</a> <a href='https://example.org/x.csv'>web</a></p><ul><li>x</li></ul>"
        "<img src='gone.png'></section>"
        "<section><h2 id='s0-a'>A</h2><table><tbody><tr><td>1</td></tr></tbody></table></section>"
    )
    assert page_problems(page) == [
        "navigation entry 'A' appears more than once",
        "id 's0-a' appears more than once",
        "link '#s1-a': no element with that id on the page",
        "link 'gone.csv': no such file beside the page",
        "link '#nowhere': no element with that id on the page",
        "link 'gone.png': no such file beside the page",
    ]


def test_links_of_the_report_resolve_from_a_page_written_elsewhere(tmp_path):
    """REPORT.md links its tables relative to itself; a page written in another folder (``out``) links
    them relative to the page."""
    sels = ["fisher", "rfe"]
    root = _results(tmp_path / "res", {"a": sels, "b": sels})
    (root / "analysis").mkdir()
    (root / "analysis" / "ranks.csv").write_text("selector,rank\nfisher,1\n")
    md = _report(root, {"Ranks": f"All of them: [`ranks.csv`](analysis/ranks.csv#top).\n\n{TABLE}"})
    page = write_report_html(md, root, out=tmp_path / "elsewhere" / "deep" / "REPORT.html")
    assert "../../res/analysis/ranks.csv#top" in page_structure(page).links
    assert page_problems(page) == []


def test_the_provenance_says_the_package_versions_once_per_set_of_runs_that_share_them(tmp_path):
    """A column of package versions beside 64-character hashes made the provenance table wider than the
    page on every report; the versions are now one line under the table per set of runs."""
    run = {
        "experiment": "x",
        "config_hash": "ab" * 32,
        "commits": ["cd" * 20],
        "versions": {"numpy": "2.4.6"},
    }
    runs = {"a": run, "b": run, "c_d": {**run, "versions": {"numpy": "2.3.0"}}}
    page = write_html(tmp_path / "p.html", [Section("Provenance", [Provenance(runs)])])
    text = page.read_text(encoding="utf-8")
    assert "package versions" not in text
    assert "<p>Package versions (<code>a</code>, <code>b</code>): numpy 2.4.6</p>" in text
    assert "<p>Package versions (<code>c_d</code>): numpy 2.3.0</p>" in text
    assert "ab" * 32 in text and "cd" * 20 in text  # hashes whole, allowed to break anywhere
    assert '<td class="text">c_<wbr>d</td>' in text  # a directory's name breaks after its underscores


def _committed_page(paper: str, tmp_path: Path) -> Path:
    """The page ``fsbench report results/<paper> --html-only`` writes, written into ``tmp_path``."""
    folder = ROOT / "results" / paper
    return write_report_html(folder / "REPORT.md", folder, out=tmp_path / paper / "REPORT.html")


@pytest.mark.slow  # 5-20 s per page on 2 cores (Ramona 2012's: 40 experiments)
@pytest.mark.parametrize("paper", PAPERS)
def test_every_committed_page_has_a_sound_structure(paper, tmp_path):
    page = _committed_page(paper, tmp_path)
    read_report_page(page)  # no script, nothing outside the folder, every image resolves
    assert page_problems(page) == []
    s = page_structure(page)
    headings = [x.title for x in s.sections]
    if paper == "benchmark":  # its own statistics only: no generic section added, no heading twice
        assert ACROSS_DATASETS not in headings and STABILITY_SECTION not in headings
        assert len(headings) == len(set(headings))
        assert "Friedman chi2_F = 177" not in page.read_text(encoding="utf-8")


@pytest.mark.slow  # one page in headless Chromium: ~20 s
@pytest.mark.skipif(CHROMIUM is None, reason="no chromium (apt-get install -y chromium)")
def test_the_benchmark_page_in_chromium_has_no_table_wider_than_the_page(tmp_path):
    """A browser's layout: the provenance table (64-character hashes, a column of package versions) was
    wider than the page, readable only by scrolling sideways."""
    if "benchmark" not in PAPERS:
        pytest.skip("no committed benchmark report")
    page = _committed_page("benchmark", tmp_path)
    layout = probe_layout(page, CHROMIUM)
    assert layout.problems == []
    assert layout.height > 1000
