"""A made-up sixth paper, built in a temporary directory, gets its report with no change to ``fsbench/``.

A paper is a folder of data: one tiny ``fsbench run`` config and a ``paper_values.yaml`` with one printed
table and one claim. ``fsbench run`` then ``fsbench report RESULTS --paper FOLDER`` must give the paper
comparison (the summary counts, the table's cell with a verdict, the claim's verdict); a ``notes.md``
and a ``hooks.py`` in the folder are placed where the folder's ``report`` layout says.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fsbench.cli import app

CONFIG = """
name: sixth_toy
description: "Table I — a linear toy, error at S = 2"
seed: 6
dataset: weston_linear
kernel: linear
selectors: [all, fisher, arom]
protocol:
  n_train: [40]
  n_test: 200
  repeats: 3
  n_features: [2, 4]  # [D] the grid of Table I
"""

VALUES = """
paper: sixth
title: "A sixth paper"
citation: "A. Author, Journal of Made-up Results 6:1-6, 2026"
schema_version: 1
tables:
  - id: table1
    number: I
    caption: "Error rates on the linear toy"
    experiment: sixth_toy
    metric: error
    unit: "%"
    statistic: mean ± std over 3 draws
    cells:
      - {dataset: weston_linear, kernel: linear, S: 2, method: fisher, value: 15.0, std: 5.0}
      - {dataset: weston_linear, kernel: linear, S: 2, method: arom, value: 12.0, std: 4.0}
figures: []
claims:
  - id: fisher_finds_signal
    table: table1
    source: "4"
    quote: "Fisher is far better than chance with two features."
    statement: "Fisher's error at S = 2 is below 40 % (chance is 50 %)."
    checks:
      - {kind: below, selectors: [fisher], x: n_features, range: [2, 2], value: 40}
"""

HOOKS = """
def sections(ctx):
    n = len(ctx.rows)
    return ["## Extra section from hooks.py", "", f"{n} result rows under {ctx.results_dir.name}.", ""]
"""


def _cli(args: list[str]) -> str:
    res = CliRunner().invoke(app, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.output


@pytest.fixture(scope="module")
def sixth(tmp_path_factory) -> tuple[Path, Path]:
    """(paper folder, results directory) of the made-up paper, run once."""
    tmp = tmp_path_factory.mktemp("sixth")
    paper = tmp / "configs" / "sixth"
    paper.mkdir(parents=True)
    (paper / "toy.yaml").write_text(CONFIG)
    (paper / "paper_values.yaml").write_text(VALUES)
    results = tmp / "results"
    _cli(["run", str(paper / "toy.yaml"), "--out", str(results / "toy"), "--no-progress"])
    return paper, results


def test_sixth_paper_report_has_the_comparison_and_the_claim_verdict(sixth):
    paper, results = sixth
    out = _cli(["report", str(results), "--paper", str(paper)])
    text = (results / "REPORT.md").read_text()
    assert str(results / "REPORT.md") in out
    assert text.startswith("# Report: results\n")
    assert "## Comparison with the paper sixth — summary" in text
    assert "## Paper vs ours: sixth" in text and "_A. Author, Journal of Made-up Results" in text
    # the table: one row per printed cell, each with our number and a verdict
    assert "### Table I — Error rates on the linear toy (`sixth_toy`)" in text
    table = text[text.index("### Table I — Error rates") : text.index("### Claims")]
    cells = [ln for ln in table.splitlines() if ln.startswith("| weston_linear, linear, S = 2 |")]
    assert [ln.split(" | ")[1] for ln in cells] == ["fisher", "arom"], cells
    assert all(re.search(r"\| [✓✗] [^|]+ \|$", ln) for ln in cells), cells
    m = re.search(r"Table cells: (\d+) of (\d+) comparable cells agree", text)
    assert m and m.group(2) == "2"
    # the claim: evaluated on the run (fisher at S = 2 is far from chance on the linear toy)
    assert "`fisher_finds_signal`" in text
    assert "**Claims: 1 hold, 0 do not hold, 0 not evaluable**" in text
    # the config's [D] choice is listed under the substitutions; the experiment's own section follows
    assert "[D] the grid of Table I" in text
    assert "## sixth_toy" in text and "## Stability of the selected subsets" in text


def test_sixth_paper_notes_hooks_and_layout_are_data_of_the_folder(sixth, tmp_path):
    paper, results = sixth
    folder = shutil.copytree(paper, tmp_path / "sixth")  # the folder's own copy, changed below
    (folder / "notes.md").write_text("## Why we differ (hand-written)\n\nBecause of three draws.\n")
    (folder / "hooks.py").write_text(HOOKS)
    with (folder / "paper_values.yaml").open("a") as fh:
        fh.write('report:\n  title: "Sixth et al. 2026"\n  sections: [summary, hooks, notes, comparison]\n')
    out = tmp_path / "R.md"
    _cli(["report", str(results), "--paper", str(folder), "--out", str(out)])
    text = out.read_text()
    assert text.startswith("# Sixth et al. 2026\n")
    order = [
        "## Comparison with the paper sixth — summary",
        "## Extra section from hooks.py",
        "## Why we differ (hand-written)",
        "## Paper vs ours: sixth",
    ]
    at = [text.index(h) for h in order]
    assert at == sorted(at), at
    n_rows = 3 * (1 + 2 + 2)  # repeats × (all at D, fisher and arom at two S)
    assert f"{n_rows} result rows under results." in text
    # sections left out of the layout are not written
    assert "## sixth_toy" not in text and "Stability of the selected subsets" not in text


def test_unknown_paper_and_unknown_section_are_one_line_errors(sixth, tmp_path):
    paper, results = sixth
    res = CliRunner().invoke(app, ["report", str(results), "--paper", str(tmp_path / "nope")])
    assert res.exit_code == 2 and "no paper values for" in res.output
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "paper_values.yaml").write_text(VALUES + "report:\n  sections: [summary, appendix]\n")
    res = CliRunner().invoke(app, ["report", str(results), "--paper", str(folder)])
    assert res.exit_code == 2 and "unknown report section(s) ['appendix']" in res.output


def test_sixth_paper_declares_producers_without_hooks(sixth, tmp_path):
    """A producer is declared data: a metric against k and a fixed line, in the order given, no hooks.py."""
    paper, results = sixth
    folder = shutil.copytree(paper, tmp_path / "sixth")  # the folder's own copy, changed below
    with (folder / "paper_values.yaml").open("a") as fh:
        fh.write(
            "report:\n  sections: [producers, comparison]\n  producers:\n"
            "    - {kind: markdown, text: '## Declared first'}\n"
            "    - {kind: metric_vs_k, run: toy, heading: '## Error against k', caption: error per k}\n"
        )
    res = tmp_path / "results"
    shutil.copytree(results / "toy", res / "toy")  # its own copy: the producer writes beside the run
    _cli(["report", str(res), "--paper", str(folder), "--out", str(tmp_path / "R.md")])
    text = (tmp_path / "R.md").read_text()
    assert text.index("## Declared first") < text.index("## Error against k") < text.index("## Paper vs ours")
    summary = (res / "summary.csv").read_text().splitlines()
    assert summary[0] == "dataset,selector,k,mean,std,count" and len(summary) == 1 + 1 + 2 + 2  # all at D
    assert "| fisher |" in text and "Mean fit wall time" in text
    assert (res / "plots" / "metric_vs_k.png").is_file() and (res / "stability.csv").is_file()


@pytest.mark.parametrize(
    ("declared", "message"),
    [
        ("[{kind: curves}]", "report.producers[0]: unknown producer kind 'curves'; known:"),
        ("[{kind: timing_vs_n, run: t, heading: h, dpi: 9}]", "producer 'timing_vs_n' takes no ['dpi']"),
        ("[{kind: timing_vs_n, heading: h}]", "producer 'timing_vs_n' needs ['run']"),
        ("[timing_vs_n]", "report.producers[0]: expected a mapping with a 'kind' key"),
    ],
)
def test_a_bad_producer_declaration_is_a_one_line_error(sixth, tmp_path, declared, message):
    paper, results = sixth
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "paper_values.yaml").write_text(VALUES + f"report:\n  producers: {declared}\n")
    res = CliRunner().invoke(app, ["report", str(results), "--paper", str(folder)])
    assert res.exit_code == 2 and message in res.output and str(folder / "paper_values.yaml") in res.output
    assert len(res.output.strip().splitlines()) == 1, res.output


DIAG_MODULE = '''
"""The sixth paper's own diagnostic: the gap between the two class means of each split (its folder)."""
import numpy as np

from fsbench.diagnostics.base import Diagnostic


class MeanGap(Diagnostic):
    name = "mean_gap"
    columns = ["method", "gap"]
    defaults = {"scale": 1.0}

    def run(self, task, data, rng):
        scale = self.settings_of(task)
        y = data.y_tr
        gap = float(np.linalg.norm(data.X_tr[y == y.max()].mean(0) - data.X_tr[y != y.max()].mean(0)))
        return [{"method": "meangap", "gap": scale * gap}]

    def settings_of(self, task):
        return float({**self.defaults, **task.settings}["scale"])

    def render(self, out, exp):
        df = self.ok_rows(out)
        path = out / "gap.md"
        path.write_text(f"mean gap {df['gap'].mean():.3f} over {len(df)} splits\\n")
        return [path]
'''

DIAG_CONFIG = """
name: sixth_gap
description: "Table II — the class-mean gap of the linear toy (the paper's own diagnostic)"
seed: 6
dataset: weston_linear
kernel: linear
diagnostic: sixth_gap:MeanGap   # sixth_gap.py in this folder
plugins: ["."]
settings: {scale: 1.0}
protocol:
  n_train: [40]
  n_test: 200
  repeats: 3
"""

DIAG_TABLE = """
  - id: table2
    number: II
    caption: "Class-mean gap"
    experiment: sixth_gap
    metric: value
    column: gap
    digits: 2
    method_column: method
    unit: "Euclidean norm"
    statistic: mean over 3 draws
    cells:
      - {dataset: weston_linear, method: meangap, value: 1000.0}
"""


def test_sixth_paper_with_its_own_diagnostic_in_its_folder(tmp_path):
    """A diagnostic is a plug-in like a selector: ``module:Class`` in the paper's folder runs through
    ``fsbench diagnose``, renders, and its table is compared and counted, with no change to ``fsbench/``."""
    paper = tmp_path / "configs" / "sixth"
    paper.mkdir(parents=True)
    (paper / "sixth_gap.py").write_text(DIAG_MODULE)
    (paper / "gap.yaml").write_text(DIAG_CONFIG)
    (paper / "paper_values.yaml").write_text(
        VALUES.replace("tables:\n", "tables:\n" + DIAG_TABLE.lstrip("\n"), 1)
    )
    results = tmp_path / "results"
    out = _cli(["diagnose", str(paper / "gap.yaml"), "--out", str(results / "gap"), "--no-progress"])
    assert "sixth_gap: 3 tasks (0 resumed, 3 run, 0 failed)" in out
    assert (results / "gap" / "gap.md").read_text().startswith("mean gap ")
    rows = (results / "gap" / "results.csv").read_text().splitlines()
    assert rows[0].split(",")[2] == "diagnostic" and all(",mean_gap," in r for r in rows[1:])
    _cli(["run", str(_write_toy(paper)), "--out", str(results / "toy"), "--no-progress"])
    _cli(["report", str(results), "--paper", str(paper)])
    text = (results / "REPORT.md").read_text()
    assert "### Table II — Class-mean gap (`sixth_gap`)" in text
    gap_rows = [ln for ln in text.splitlines() if ln.startswith("| weston_linear") and "meangap" in ln]
    # 1000 is far from any gap of z-scored data: compared, disagrees, listed among the differing cells
    assert "✗ outside tolerance" in gap_rows[0] and "unexplained" in gap_rows[1]
    m = re.search(r"Table cells: (\d+) of (\d+) comparable cells agree", text)
    assert m and m.group(2) == "3"  # table I's two cells and table II's one
    # a class that is not a Diagnostic is refused in one line
    (paper / "bad.yaml").write_text(DIAG_CONFIG.replace("sixth_gap:MeanGap", "numpy:ndarray"))
    res = CliRunner().invoke(app, ["diagnose", str(paper / "bad.yaml"), "--out", str(tmp_path / "bad")])
    assert res.exit_code == 2 and "is not a subclass of fsbench.diagnostics.base.Diagnostic" in res.output


def _write_toy(paper: Path) -> Path:
    (paper / "toy.yaml").write_text(CONFIG)
    return paper / "toy.yaml"
