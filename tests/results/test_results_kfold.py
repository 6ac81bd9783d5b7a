"""K-fold results in compare, stability and ground truth: every (repeat, fold) is a split of its own.

Two result sets: the committed Ring 2015 UCI results relabelled as 5 repeats × 2 folds (the subset searches'
chosen subsets then differ between the two folds of a repeat), and a tiny real ``fsbench run`` with
``folds: 2`` (its folds' training sizes differ by one row). The stability must equal Nogueira's Φ̂
computed here, independently, from the raw ``rankings.csv`` / ``results.csv`` rows.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import REPO, cli

from fsbench.data import get_card
from fsbench.results.compare import compare_selectors
from fsbench.results.ground_truth import ground_truth_tables
from fsbench.results.loading import load_result_sets, read_results
from fsbench.results.stability import stability_table
from fsbench.results.stats import paired_ttests
from fsbench.results.stats_compare import build_blocks

RING_UCI = REPO / "results" / "ring2015" / "uci"


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _nogueira(subsets: list[set[int]], d: int) -> float:
    """Φ̂ of Nogueira, Sechidis & Brown (2018), Eq. in §4, written from scratch on sets."""
    m = len(subsets)
    k_bar = sum(len(s) for s in subsets) / m
    p = [sum(f in s for s in subsets) / m for f in range(d)]
    s2 = [m / (m - 1) * pf * (1 - pf) for pf in p]
    return 1 - (sum(s2) / d) / ((k_bar / d) * (1 - k_bar / d))


def _raw_subsets(
    out: Path, selector: str, s: int, dataset: str = "liver_bupa"
) -> dict[tuple[str, str], set[int]]:
    """(repeat, fold) → the features ``selector`` selected at S, from the raw files: a subset search's
    ``subset`` column where results.csv has one, else the top S of its rankings.csv order."""
    chosen = {
        (r["repeat"], r["fold"]): {int(f) for f in r["subset"].split()}
        for r in _rows(out / "results.csv")
        if (r["dataset"], r["selector"], r["n_features"]) == (dataset, selector, str(s))
        and r["status"] == "ok"
        and r["subset"]
    }
    if chosen:
        return chosen
    return {
        (r["repeat"], r["fold"]): {int(f) for f in r["order"].split()[:s]}
        for r in _rows(out / "rankings.csv")
        if (r["dataset"], r["selector"]) == (dataset, selector)
    }


# --------------------------------------------------------------------------- Ring 2015 UCI relabelled
@pytest.fixture(scope="module")
def relabelled(tmp_path_factory) -> tuple[Path, Path]:
    """(original, relabelled): repeat r → repeat r // 2, fold r % 2, in results.csv and rankings.csv."""
    if not (RING_UCI / "results.csv").is_file():
        pytest.skip("the committed Ring 2015 UCI results are absent")
    base = tmp_path_factory.mktemp("ring")
    out = base / "uci_kfold"
    out.mkdir()
    shutil.copy(RING_UCI / "run.json", out / "run.json")
    for name in ("results.csv", "rankings.csv"):
        rows = _rows(RING_UCI / name)
        for r in rows:
            rep = int(r["repeat"])
            r["repeat"], r["fold"] = str(rep // 2), str(rep % 2)
        with open(out / name, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    return RING_UCI, out


def test_relabelled_kfold_stability_is_nogueira_of_every_fold(relabelled):
    original, kfold = relabelled
    st = stability_table(load_result_sets([kfold]))
    row = st[(st.dataset == "liver_bupa") & (st.selector == "B&B KL") & (st.n_features == 2)].iloc[0]
    subsets = _raw_subsets(kfold, "B&B KL", 2)
    assert len(subsets) == 10 and row["repeats"] == 10
    assert len({frozenset(s) for s in subsets.values()}) > 1  # the folds of a repeat choose differently
    assert row["nogueira"] == pytest.approx(_nogueira(list(subsets.values()), 6), abs=1e-12)
    # one fold's subset for both folds of a repeat (the bug) gives another value
    one_fold = [subsets[(r, "0")] for r in ("0", "1", "2", "3", "4") for _ in (0, 1)]
    assert abs(_nogueira(one_fold, 6) - row["nogueira"]) > 0.05
    # the same ten subsets as the original labelling: every setting's stability is unchanged
    orig = stability_table(load_result_sets([original]))
    cols = ["dataset", "selector", "n_features"]
    a = orig.set_index(cols)["nogueira"].sort_index()
    b = st.set_index(cols)["nogueira"].sort_index()
    assert a.index.equals(b.index)
    assert (a - b).abs().max() < 1e-12


def test_relabelled_kfold_compare_accepts_it_and_matches_the_original(relabelled):
    original, kfold = relabelled
    blocks = build_blocks(load_result_sets([kfold]))
    plain = build_blocks(load_result_sets([original]))
    assert (blocks.n_repeats.to_numpy() == plain.n_repeats.to_numpy()).all()  # 10 splits per block
    assert (blocks.values.to_numpy() - plain.values.to_numpy()).__abs__().max() < 1e-12
    res = cli("compare", kfold)
    assert res.exit_code == 0, res.stderr
    assert res.stdout.startswith("metric: error (lower is better);")


def test_relabelled_kfold_paired_ttests_pair_every_fold(relabelled):
    original, kfold = relabelled
    cols = ["dataset", "n_features", "a", "b"]
    t_kfold = paired_ttests(read_results(kfold)).set_index(cols).sort_index()
    t_plain = paired_ttests(read_results(original)).set_index(cols).sort_index()
    assert (t_kfold["n_pairs"] == t_plain["n_pairs"]).all() and (t_kfold["n_pairs"] >= 10).any()
    pd.testing.assert_series_equal(t_kfold["t"], t_plain["t"])


# --------------------------------------------------------------------------- a real 5 x 2-fold run
KFOLD_CONFIG = {
    "name": "kfold",
    "seed": 3,
    "dataset": "liver_bupa",  # 345 rows: the two folds train on 172 and 173
    "kernel": {"name": "rbf", "gamma": "n_features"},
    "selectors": [
        "fisher",
        {
            "name": "branch_and_bound",
            "label": "bb",
            "params": {"criterion": "mean_distance", "search": "chen", "kernel": "poly", "degree": 3},
        },
        "all",
    ],
    "protocol": {"folds": 2, "repeats": 5, "n_features": [2, 3]},
}


@pytest.fixture(scope="module")
def kfold_run(tmp_path_factory) -> Path:
    if not get_card("liver_bupa").available():
        pytest.skip("liver_bupa not found (set FSBENCH_DATA_DIR to the mirror)")
    base = tmp_path_factory.mktemp("kfold")
    cfg = base / "kfold.yaml"
    cfg.write_text(yaml.safe_dump(KFOLD_CONFIG))
    res = cli("run", cfg, "--out", base / "out", "--no-progress", "--jobs", "1")
    assert res.exit_code == 0, res.stderr
    return base / "out"


@pytest.mark.slow  # a real run of 30 tasks
def test_real_kfold_run_stability_compare_and_ground_truth(kfold_run):
    rows = _rows(kfold_run / "results.csv")
    assert {r["fold"] for r in rows} == {"0", "1"} and {r["status"] for r in rows} == {"ok"}
    assert len({r["n_train"] for r in rows}) == 2  # the folds' own training sizes differ by a row
    sets = load_result_sets([kfold_run])
    assert sets[0].results["n_train"].nunique() == 1  # ... and are one setting for the analyses
    assert set(sets[0].rankings["n_train"]) == set(sets[0].results["n_train"])
    assert read_results(kfold_run)["n_train"].nunique() == 1  # the reports' and plots' reader too

    st = stability_table(sets)
    for sel in ("fisher", "bb"):
        for s in (2, 3):
            subsets = _raw_subsets(kfold_run, sel, s)
            assert len(subsets) == 10
            row = st[(st.selector == sel) & (st.n_features == s)]
            assert len(row) == 1 and row["repeats"].item() == 10
            assert row["nogueira"].item() == pytest.approx(_nogueira(list(subsets.values()), 6), abs=1e-12)

    comp = compare_selectors(sets, keep_full=False)
    assert comp.friedman.n_blocks == 2 and (comp.blocks.n_repeats == 10).all()  # S = 2, 3; 5 x 2 splits
    for s in (2, 3):
        for sel in ("fisher", "bb"):
            errs = [float(r["error"]) for r in rows if r["selector"] == sel and r["n_features"] == str(s)]
            assert comp.blocks.values.xs(s, level="n_features")[sel].item() == pytest.approx(
                sum(errs) / len(errs), abs=1e-12
            )
    res = cli("compare", kfold_run)
    assert res.exit_code == 0, res.stderr
    assert not res.stdout.startswith("error")

    # ground truth with a stated relevant set: exact recovery counted over the 10 splits
    relevant = frozenset({0, 1})
    _, success = ground_truth_tables(sets, relevant={"liver_bupa": relevant})
    for sel in ("fisher", "bb"):
        top2 = _raw_subsets(kfold_run, sel, 2)
        row = success[success.selector == sel]
        assert row["repeats"].item() == 10
        assert row["successes"].item() == sum(s == set(relevant) for s in top2.values())
