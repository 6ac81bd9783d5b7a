"""examples/: the user selector of docs/selectors.md, and the README's run -> report -> compare example.

The README's commands are read from its "Example" code block and run as written, with two changes: the
output goes to a temporary directory and the run uses ``--repeats 2``. The files the README's table says
they write must then exist.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fsbench.cli import app
from fsbench.config.experiment import load_experiment

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
README = REPO / "README.md"


@pytest.fixture
def meandiff_cls(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    sys.modules.pop("meandiff", None)
    from meandiff import MeanDiff

    return MeanDiff


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_meandiff_ranks_the_separating_feature_first(meandiff_cls, kernel):
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 30)
    X = rng.normal(size=(90, 5))
    X[:, 3] += 4.0 * y  # only feature 3 depends on the class
    sel = meandiff_cls(kernel=kernel, gamma=0.5).fit(X, y)
    assert sel.ranking_[3] == 1
    assert sorted(sel.ranking_) == [1, 2, 3, 4, 5]


def test_example_config_is_valid_and_names_the_plugin():
    exp = load_experiment(EXAMPLES / "meandiff.yaml")
    assert exp.plugins == (str(EXAMPLES.resolve()),)
    assert "meandiff:MeanDiff" in {s.name for s in exp.selectors}


def _readme_example() -> list[list[str]]:
    """The fsbench command lines of the README's example block, as argument lists (without `fsbench`)."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Example", 1)[1]
    block = re.search(r"^```bash\n(.*?)^```", section, flags=re.S | re.M).group(1)
    lines = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    return [shlex.split(line)[1:] for line in lines if line.startswith("fsbench ")]


@pytest.mark.slow
def test_readme_example_runs_and_writes_the_files_it_lists(tmp_path, monkeypatch):
    commands = _readme_example()
    assert [c[0] for c in commands] == ["run", "report", "compare"]
    monkeypatch.chdir(tmp_path)  # the README's relative results/ paths land in tmp_path
    for args in commands:
        args = [str(REPO / a) if a.startswith("examples/") else a for a in args]
        if args[0] == "run":
            args += ["--repeats", "2", "--no-progress"]
        res = CliRunner().invoke(app, args, catch_exceptions=False)
        assert res.exit_code == 0, (args, res.output)

    out = tmp_path / "results" / "meandiff_vs_fisher"
    df = pd.read_csv(out / "results.csv")
    assert set(df["status"]) == {"ok"}
    assert set(df["selector"]) == {"all", "fisher", "MeanDiff"}
    assert df.groupby(["n_train", "repeat"])["split_seed"].nunique().eq(1).all()  # paired splits
    ranks = pd.read_csv(out / "rankings.csv")
    md = ranks[ranks["selector"] == "MeanDiff"]
    assert len(md) == 2 * 2 and all(sorted(map(int, o.split())) == list(range(52)) for o in md["order"])

    readme = README.read_text(encoding="utf-8")
    written = {
        "results.csv": out / "results.csv",
        "rankings.csv": out / "rankings.csv",
        "run.json": out / "run.json",
        "tasks/": out / "tasks",
        "REPORT.md": out / "REPORT.md",
        "plots/": out / "plots",
        "stability.csv": out / "stability.csv",
        "ranks": out / "compare" / "ranks.md",
        "friedman": out / "compare" / "friedman.md",
        "posthoc": out / "compare" / "posthoc.md",
        "cd_diagram.png": out / "compare" / "cd_diagram.png",
        "compare.html": out / "compare" / "compare.html",
    }
    for name, path in written.items():
        assert f"`{name}`" in readme, f"the README's example table does not list {name}"
        assert path.exists(), f"{path} missing"
    assert any((out / "plots").glob("error_vs_*.png"))
    assert any(out.glob("ground_truth*.csv"))
