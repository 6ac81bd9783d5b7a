"""``fsbench report --html``: one HTML page with the report, comparisons, stability, ground truth and
provenance; every figure of the folder is on it, linked beside the page, and resolves."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from results_helpers import HtmlPage, read_report_page
from typer.testing import CliRunner

from fsbench.cli import app
from fsbench.results.html import unresolved_images
from fsbench.results.report_html import write_report_html

ROOT = Path(__file__).resolve().parents[2]

CONFIG = """
name: {name}
seed: 3
dataset: {dataset}
kernel: {{name: rbf, gamma: median}}
selectors: [all, fisher, rfe]
protocol: {{n_train: [20, 30], n_test: 30, repeats: 3, n_features: [2, 4], stratify: false}}
"""


@pytest.mark.slow  # > 10 s on 2 cores
def test_report_html_has_all_sections_and_every_figure(tmp_path):
    runner = CliRunner()
    for name, ds in (("toy_a", "weston_nonlinear"), ("toy_b", "weston_linear")):
        cfg = tmp_path / f"{name}.yaml"
        cfg.write_text(CONFIG.format(name=name, dataset=ds))
        res = runner.invoke(app, ["run", str(cfg), "--out", str(tmp_path / "res" / name), "--no-progress"])
        assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["report", str(tmp_path / "res"), "--html"])
    assert res.exit_code == 0, res.output
    page = read_report_page(tmp_path / "res" / "REPORT.html")
    stability, truth = "Stability of the selected subsets", "Ground truth: recovery of the relevant features"
    for section in ("Selectors across datasets", stability, truth, "Provenance"):
        assert page.headings.count(section) == 1, page.headings
    # stability and ground truth once each: REPORT.md's tables, their figures left to `fsbench compare`
    assert not {"Stability", "Ground truth (synthetic data)"} & set(page.headings), page.headings
    assert stability not in page.images_under and truth not in page.images_under
    text = (tmp_path / "res" / "REPORT.html").read_text(encoding="utf-8")
    assert text.count("fsbench compare &lt;result dirs&gt; --out DIR") == 2
    # every figure under the folder is on the page, linked relative to it; only the CD diagram embedded
    pngs = sorted(p.relative_to(tmp_path / "res").as_posix() for p in (tmp_path / "res").rglob("*.png"))
    assert len(pngs) >= 4
    assert sorted(s for s in page.images if not s.startswith("data:")) == pngs
    assert [s for s in page.images if s.startswith("data:")] == [page.images[-1]]
    assert page.images_under.get("Selectors across datasets") == 1
    run = json.loads((tmp_path / "res" / "toy_a" / "run.json").read_text())
    assert run["config_hash"][:12] in (tmp_path / "res" / "REPORT.html").read_text(encoding="utf-8")


def test_report_refuses_an_unfinished_run_and_writes_nothing(tmp_path):
    runner = CliRunner()
    cfg = tmp_path / "toy.yaml"
    cfg.write_text(CONFIG.format(name="toy", dataset="weston_nonlinear"))
    out = tmp_path / "res" / "toy"
    assert runner.invoke(app, ["run", str(cfg), "--out", str(out), "--no-progress"]).exit_code == 0
    info = json.loads((out / "run.json").read_text())
    info["n_done"] = info["n_tasks"] - 1  # as left by an interrupted run
    (out / "run.json").write_text(json.dumps(info))
    res = runner.invoke(app, ["report", str(tmp_path / "res")])
    assert res.exit_code == 2
    assert "has not finished" in res.output and "--allow-incomplete" in res.output
    assert not (tmp_path / "res" / "REPORT.md").exists()
    res = runner.invoke(app, ["report", str(tmp_path / "res"), "--allow-incomplete"])
    assert res.exit_code == 0 and (tmp_path / "res" / "REPORT.md").exists()


def _markdown_counts(md: str) -> tuple[int, int]:
    """List items and pipe tables of a Markdown text (outside code blocks)."""
    items = tables = 0
    in_code = False
    for line in md.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
        elif not in_code:
            items += bool(re.match(r"\s*([-*+]|\d+[.)])\s+\S", line))
            tables += bool(re.match(r"\|\s*:?-{3,}", line))
    return items, tables


@pytest.mark.slow  # ~15 s on 2 cores: the comparison across Paul's six datasets
def test_a_committed_papers_page_has_its_lists_tables_and_every_figure(tmp_path):
    """Paul 2015's page from its committed REPORT.md and figures (copied): Markdown lists are lists,
    tables are tables, every figure of the folder is on the page and every ``<img>`` resolves; in a real
    browser too when chromium is installed (its DOM, ``--dump-dom``)."""
    src = ROOT / "results" / "paul2015"
    if not (src / "REPORT.md").is_file():
        pytest.skip("no committed Paul 2015 report")
    dst = tmp_path / "paul2015"
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("tasks", "REPORT.html"))
    page_path = write_report_html(dst / "REPORT.md", dst)
    assert page_path == dst / "REPORT.html"
    page = read_report_page(page_path)
    md_items, md_tables = _markdown_counts((dst / "REPORT.md").read_text(encoding="utf-8"))
    assert md_items >= 10 and md_tables >= 6
    nav = len(page.headings)  # one table-of-contents entry per section
    assert page.tags.get("li", 0) == md_items + nav
    assert page.tags.get("table", 0) >= md_tables + 1  # + provenance
    # every figure under the folder, among them the paper's own plots/bcr_vs_k.png, which REPORT.md omits
    pngs = sorted(p.relative_to(dst).as_posix() for p in dst.rglob("*.png"))
    assert "plots/bcr_vs_k.png" in pngs
    assert sorted(s for s in page.images if not s.startswith("data:")) == pngs
    assert unresolved_images(page_path) == []
    (dst / "plots" / "bcr_vs_k.png").unlink()  # the check fails once a figure is gone
    assert unresolved_images(page_path) == ["plots/bcr_vs_k.png"]

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return
    res = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page_path.as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr[-2000:]
    dom = HtmlPage()
    dom.feed(res.stdout)
    # the browser's document has the same lists, tables and images as the parsed file
    for tag in ("li", "ul", "table", "img", "details"):
        assert dom.tags.get(tag, 0) == page.tags.get(tag, 0), tag


def test_html_only_renders_the_committed_report_without_rewriting_it(tmp_path):
    src = ROOT / "results" / "ring2015"
    dst = tmp_path / "ring2015"
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("tasks", "REPORT.html"))
    before = (dst / "REPORT.md").read_bytes()
    res = CliRunner().invoke(app, ["report", str(dst), "--html-only"])
    assert res.exit_code == 0, res.output
    assert (dst / "REPORT.html").is_file() and (dst / "REPORT.md").read_bytes() == before
    assert unresolved_images(dst / "REPORT.html") == []
    (dst / "REPORT.md").unlink()
    res = CliRunner().invoke(app, ["report", str(dst), "--html-only"])
    assert res.exit_code == 2 and "no REPORT.md to render" in res.output
