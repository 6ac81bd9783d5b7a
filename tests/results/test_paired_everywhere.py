"""Issue 35, item 3: every comparison of selectors is over the repeats all of them finished.

The finding: a selector failed on 2 of 6 repeats; Fisher's 51.7 (6 repeats) was bold against its 51.8
(4 repeats), but on the 4 repeats both have, Fisher is at 52.5. Here the same numbers, through the report's
table, its t-tests, the ranks and the failed-task list.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from results_helpers import write_result_dir

from fsbench.cli import _error_table
from fsbench.papers.checks import HOLDS
from fsbench.papers.claims import evaluate_check
from fsbench.report import experiment_section, write_report
from fsbench.results.fractions import FractionComparison, baseline_errors
from fsbench.results.loading import load_result_sets
from fsbench.results.schema import RESULT_COLUMNS
from fsbench.results.stats import paired_summary, paired_ttests, rank_shares
from fsbench.results.stats_compare import build_blocks

#: Test errors per repeat (6 repeats). Fisher: 52.5 % on repeats 0-3, 51.7 % over all 6; ``flaky`` fails on
#: repeats 4 and 5 and has 51.8 % on the other 4; ``steady`` is worse than both on every repeat.
ERRORS = {
    "Fisher": [0.52, 0.53, 0.51, 0.54, 0.501, 0.501],
    "flaky": [0.515, 0.525, 0.505, 0.527, None, None],
    "steady": [0.60, 0.62, 0.61, 0.63, 0.50, 0.50],
}
MESSAGE = "LinAlgError: singular matrix"


def finding_rows() -> pd.DataFrame:
    """results.csv rows of the finding: one dataset, one S = 3 (D = 8), the baseline at S = D."""
    rows = []
    for sel, errs in {**ERRORS, "all": [0.4] * 6}.items():
        for r, e in enumerate(errs):
            failed = e is None
            rows.append(
                {
                    "schema_version": 2,
                    "experiment": "exp",
                    "dataset": "toy",
                    "kernel": "linear",
                    "selector": sel,
                    "selector_name": sel.lower(),
                    "n_train": 50,
                    "n_test": 100,
                    "repeat": r,
                    "split_seed": 1000 + r,
                    "classifier": "svm",
                    "n_features": 0 if failed else (8 if sel == "all" else 3),
                    "error": float("nan") if failed else e,
                    "status": "failed" if failed else "ok",
                    "message": MESSAGE if failed else "",
                    "git_commit": "abc",
                    "task_id": f"{sel}-{r}",
                }
            )
    return pd.DataFrame(rows).reindex(columns=RESULT_COLUMNS)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


@pytest.fixture
def finding_dir(tmp_path: Path) -> Path:
    d = tmp_path / "exp"
    d.mkdir()
    finding_rows().to_csv(d / "results.csv", index=False)
    (d / "run.json").write_text(json.dumps({"config_hash": "0" * 64, "effective_config": {"name": "exp"}}))
    (d / "plots").mkdir()
    (d / "plots" / "placeholder.png").write_bytes(b"")  # no figures drawn for the test
    return d


def test_means_bold_and_ttests_use_the_common_repeats(finding_dir: Path):
    text, _ = experiment_section(finding_dir, finding_dir.parent)
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("| S |"))
    row = next(line for line in lines if line.startswith("| 3 |"))
    cells = dict(zip(_cells(header), _cells(row)))
    # Fisher over the 4 repeats flaky finished: 52.5, not bold; flaky's 51.8 is the lowest
    assert cells["Fisher"].startswith("52.5 ± ") and "(n=4)" in cells["Fisher"]
    assert not cells["Fisher"].startswith("**")
    assert cells["flaky"].startswith("**51.8 ± ") and "(n=4)" in cells["flaky"]
    assert cells["steady"].startswith("61.5 ± ") and "(n=4)" in cells["steady"]
    assert cells["all"] == "40.0 ± 0.0"  # the baseline is not compared: its own 6 repeats, no n shown
    assert "fewer than the protocol's" in text  # the table's legend says what (n=4) means


def test_paired_summary_and_ttests_are_over_the_repeats_every_selector_finished():
    rows = finding_rows()
    compared = rows[rows["selector"] != "all"]
    s = paired_summary(compared).set_index("selector")
    assert s.loc["Fisher", "mean"] == pytest.approx(0.525)
    assert s.loc["flaky", "mean"] == pytest.approx(0.518)
    assert (s["n"] == 4).all() and (s["splits"] == 6).all()
    t = paired_ttests(compared)
    pair = t[(t.a == "Fisher") & (t.b == "steady") | (t.a == "steady") & (t.b == "Fisher")].iloc[0]
    assert pair["n_pairs"] == 4  # both finished 6, but flaky only 4: the cell's tests pair on those 4
    assert (t["n_pairs"] == 4).all()


def test_ranks_are_over_the_common_repeats():
    shares = rank_shares(finding_rows()).set_index("selector")
    assert shares.loc["flaky", "first"] == 1.0 and shares.loc["Fisher", "second"] == 1.0


def test_the_report_lists_the_failed_tasks_and_leaves_the_section_out_without_any(tmp_path, finding_dir):
    report = write_report(finding_dir).read_text()
    section = report[report.index("## Failed tasks") :]
    line = next(ln for ln in section.splitlines() if "flaky" in ln)
    assert "toy" in line and "4, 5" in line and MESSAGE in line
    clean = tmp_path / "clean"
    clean.mkdir()
    rows = finding_rows()
    rows[rows["selector"] != "flaky"].to_csv(clean / "results.csv", index=False)
    (clean / "run.json").write_text((finding_dir / "run.json").read_text())
    (clean / "plots").mkdir()
    (clean / "plots" / "placeholder.png").write_bytes(b"")
    text = write_report(clean).read_text()
    assert "Failed tasks" not in text and "(n=" not in text


def test_the_console_table_after_a_run_compares_on_the_common_repeats():
    lines = _error_table("exp: toy", finding_rows())
    body = {ln.split()[0]: ln.split()[1:] for ln in lines[2:] if not ln.startswith("(")}
    assert body["flaky"][0] == "51.8*" and body["Fisher"][0] == "52.5"
    assert lines[-1].startswith("(failed tasks: at 1 S the means are over the 4 of 6 splits")


def test_a_claim_compares_the_selectors_on_the_common_repeats():
    check = {"kind": "best", "selectors": ["flaky"], "among": ["Fisher", "flaky"], "x": "n_features"}
    result = evaluate_check(check, finding_rows(), experiment="exp")
    assert result.status == HOLDS, result.detail  # 51.8 against Fisher's 52.5 on the same 4 repeats
    assert "52.50" in result.detail and "51.80" in result.detail


def test_the_best_method_tables_baseline_is_over_the_splits_the_comparison_kept():
    rows = finding_rows().assign(source="src")
    kept = pd.DataFrame({"source": "src", "dataset": "toy", "repeat": [0, 1, 2, 3], "fold": -1})
    fc = FractionComparison(0.5, SimpleNamespace(blocks=SimpleNamespace(splits=kept)))
    rows.loc[rows["selector"] == "all", "error"] = [0.1, 0.1, 0.1, 0.1, 0.7, 0.7]
    rs = SimpleNamespace(results=rows, baseline_labels={"all"}, source="src")
    assert baseline_errors([rs], [fc])[("src", "toy")] == pytest.approx(0.1)  # repeats 4, 5 left out
    assert baseline_errors([rs], [])[("src", "toy")] == pytest.approx(0.3)  # nothing compared: all six


def test_cross_dataset_blocks_record_the_splits_they_average(tmp_path):
    def error(sel: str, n: int, r: int, s: int, rng) -> float:
        return {"a": 0.1, "b": 0.2}.get(sel, 0.3) + 0.01 * r

    for ds in ("x", "y"):
        write_result_dir(
            tmp_path / ds,
            experiment=ds,
            dataset=ds,
            d=6,
            selectors={s: (lambda n, r, g: np.arange(6)) for s in ("a", "b")},
            error=error,
        )
    path = tmp_path / "x" / "results.csv"
    df = pd.read_csv(path)
    df.loc[(df.selector == "b") & (df.repeat == 2), ["status", "error"]] = ["failed", np.nan]
    df.to_csv(path, index=False)
    blocks = build_blocks(load_result_sets([tmp_path]))
    x = blocks.splits[blocks.splits["dataset"] == "x"]
    assert 2 not in set(x["repeat"]) and len(x) == 5 * 2  # 5 repeats at each of S = 2, 4
    assert (blocks.n_repeats.xs("x", level="dataset") == 5).all()


def test_a_cell_without_a_split_every_selector_finished_is_shown_unpaired_and_unmarked(tmp_path):
    rows = finding_rows()
    rows = rows[rows["selector"].isin(["Fisher", "flaky"])].copy()
    # Fisher now fails where flaky finished: no repeat has both
    gone = (rows["selector"] == "Fisher") & rows["repeat"].isin([0, 1, 2, 3])
    rows.loc[gone, ["status", "error", "n_features", "message"]] = ["failed", np.nan, 0, MESSAGE]
    d = tmp_path / "exp"
    d.mkdir()
    rows.to_csv(d / "results.csv", index=False)
    (d / "run.json").write_text(json.dumps({"config_hash": "0" * 64, "effective_config": {"name": "exp"}}))
    (d / "plots").mkdir()
    (d / "plots" / "placeholder.png").write_bytes(b"")
    text, _ = experiment_section(d, tmp_path)
    lines = text.splitlines()
    cells = dict(zip(_cells(next(ln for ln in lines if ln.startswith("| S |"))), _cells(lines[-2])))
    assert cells["Fisher"] == "50.1 ± 0.0 (n=2, not paired)" and "(n=4, not paired)" in cells["flaky"]
    assert "**" not in lines[-2] and "≈" not in lines[-2]
    assert "not paired = no split that every selector of the cell finished" in text
