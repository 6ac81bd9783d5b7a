"""``fsbench run`` and ``fsbench report`` end with a compact table: mean test error (%) per selector at
each S, the lowest of each S marked."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import cli, write_config

from fsbench.cli import _TABLE_COLUMNS, _error_table


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("summary")
    cfg = write_config(tmp / "tiny.yaml", protocol={"n_train": [30], "repeats": 2})
    res = cli("run", cfg, "--out", tmp / "out", "--no-progress")
    assert res.exit_code == 0, res.stderr
    return tmp / "out", res


def _table(stdout: str) -> list[str]:
    lines = stdout.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("mean test error (%)"))
    return lines[start : start + 5]


def test_run_prints_the_error_table(tiny_run) -> None:
    out, res = tiny_run
    head, cols, *rows = _table(res.stdout)
    assert head.startswith("mean test error (%) — tiny: weston_nonlinear, rbf kernel, n_train=30")
    assert cols.split() == ["selector", "S=2", "S=4", "S=52"]
    assert [r.split()[0] for r in rows] == ["all", "fisher", "sas"]
    df = pd.read_csv(out / "results.csv")
    mean = df.groupby(["selector", "n_features"])["error"].mean() * 100
    for r in rows:
        sel, *cells = r.split()
        for s, cell in zip((2, 4, 52), cells, strict=True):
            if cell == "-":
                assert (sel, s) not in mean.index
                continue
            assert float(cell.rstrip("*")) == pytest.approx(mean[(sel, s)], abs=0.05)
            assert cell.endswith("*") == (mean[(sel, s)] == mean.xs(s, level="n_features").min())
    assert all(len(line) <= 100 for line in _table(res.stdout))


def test_report_prints_the_error_table(tiny_run) -> None:
    out, run = tiny_run
    res = cli("report", out)
    assert res.exit_code == 0, res.stderr
    assert res.stdout.splitlines()[0] == str(out / "REPORT.md")
    assert _table(res.stdout) == _table(run.stdout)


def test_error_table_caps_columns_and_names() -> None:
    rows = pd.DataFrame(
        [
            {"selector": name, "n_features": s, "error": e}
            for name, e in (("a_very_long_selector_label_indeed", 0.2), ("b", 0.1))
            for s in range(1, 31)
        ]
    )
    head, cols, *lines = _error_table("x", rows)
    shown = cols.split()[1:]
    assert len(shown) == _TABLE_COLUMNS and shown[0] == "S=1" and shown[-1] == "S=30"
    assert all(len(line) <= 100 for line in [head, cols, *lines])
    assert lines[1].split()[0] == "b" and all(c.endswith("*") for c in lines[1].split()[1:])
    assert not any(c.endswith("*") for c in lines[0].split()[1:])
