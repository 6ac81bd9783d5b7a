"""Ground-truth scoring of the scenario track (recall, precision/FDR, exact recovery, who finds R) against
hand-computed values, on a small result directory of the Madelon scenario (D = 100, R = 0..11, I = 0..4)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from results_helpers import fixed_ranker, write_result_dir

from fsbench.results.ground_truth import (
    RECOVERY_COLUMNS,
    SPLIT_COLUMNS,
    WHO_FINDS_COLUMNS,
    bootstrap_mean_interval,
    chance_hits_pvalue,
    ground_truth_tables,
    main,
    recovery_by_split,
    recovery_table,
    who_finds_markdown,
    who_finds_table,
    write_recovery_tables,
)
from fsbench.results.loading import load_result_sets

D = 100
ORACLE = list(range(12))
# the redundant and repeated copies first, then two noise features, then the informative ones
COPIES = [5, 6, 7, 8, 9, 10, 11, 20, 21, 0, 1, 2, 3, 4]
BLIND = list(range(50, 62))


def _madelon_dir(path):
    def half(n, r, rng):  # the oracle in even repeats, COPIES in odd ones
        return fixed_ranker(ORACLE if r % 2 == 0 else COPIES, D)(n, r, rng)

    return write_result_dir(
        path,
        experiment="scen",
        dataset="scen_madelon",
        d=D,
        selectors={
            "oracle": fixed_ranker(ORACLE, D),
            "copies": fixed_ranker(COPIES, D),
            "half": half,
            "blind": fixed_ranker(BLIND, D),
        },
        error=lambda *a: 0.2,
        s_values=(5, 10),
        repeats=4,
    )


@pytest.fixture
def per_split(tmp_path) -> pd.DataFrame:
    return recovery_by_split(load_result_sets([_madelon_dir(tmp_path / "scen")]))


def _at(df: pd.DataFrame, selector: str, s: int) -> pd.DataFrame:
    return df[(df["selector"] == selector) & (df["n_features"] == s)]


def test_per_split_metrics_by_hand(per_split):
    assert list(per_split.columns) == SPLIT_COLUMNS
    assert set(per_split["selector"]) == {"oracle", "copies", "half", "blind"}  # never the baseline
    assert sorted(per_split["n_features"].unique()) == [5, 10, 12]  # the grid and r = 12
    assert (per_split["relevant"] == 12).all() and (per_split["informative"] == 5).all()
    assert (per_split["D"] == D).all()
    # COPIES: top 5 = x6..x10 (5 relevant, none informative); top 10 = x6..x12, x21, x22, x1 (8 relevant,
    # 1 informative); top 12 adds x2, x3 (10 relevant, 3 informative); all of R within the first 14
    c5, c10, c12 = (_at(per_split, "copies", s).iloc[0] for s in (5, 10, 12))
    assert (c5.hits, c5.recall, c5.precision, c5.fdr, c5.recall_informative) == (5, 5 / 12, 1.0, 0.0, 0.0)
    assert (c10.hits, c10.recall, c10.precision, c10.recall_informative) == (8, 8 / 12, 0.8, 0.2)
    assert c10.fdr == pytest.approx(0.2)
    assert (c12.hits, c12.recall, c12.precision, c12.recall_informative) == (10, 10 / 12, 10 / 12, 0.6)
    assert not c12.success and not c12.exact and c12.s_full == 14
    assert c5.chance_recall == 0.05 and c12.chance_recall == 0.12
    o = _at(per_split, "oracle", 12)
    assert o["exact"].all() and o["success"].all() and (o["s_full"] == 12).all() and (o["recall"] == 1).all()
    o5 = _at(per_split, "oracle", 5).iloc[0]
    assert (o5.recall, o5.precision, o5.recall_informative, o5.success) == (5 / 12, 1.0, 1.0, False)
    # exact recovery does not depend on S: the oracle's rows at S = 5 say exact too
    assert _at(per_split, "oracle", 5)["exact"].all()
    # BLIND: nothing in its top 12; the relevant features follow in index order, at ranks 13..24
    b = _at(per_split, "blind", 12)
    assert (b["hits"] == 0).all() and (b["fdr"] == 1).all() and (b["s_full"] == 24).all()
    h = _at(per_split, "half", 12).sort_values("repeat")
    assert h["exact"].tolist() == [True, False, True, False] and h["repeat"].tolist() == [0, 1, 2, 3]


def test_aggregated_table_by_hand(per_split):
    t = recovery_table(per_split)
    assert list(t.columns) == RECOVERY_COLUMNS
    row = t[(t["selector"] == "half") & (t["n_features"] == 12)].iloc[0]
    assert row.repeats == 4 and row.recall == pytest.approx((1 + 10 / 12) / 2)
    assert 10 / 12 <= row.recall_ci_low <= row.recall <= row.recall_ci_high <= 1.0
    assert (row.exact, row.exact_rate, row.successes) == (2, 0.5, 2)
    assert row.recall_informative == pytest.approx((1 + 0.6) / 2)
    lo, hi = (row.exact_ci_low, row.exact_ci_high)
    assert lo == pytest.approx(0.15003, abs=1e-4) and hi == pytest.approx(0.84997, abs=1e-4)  # Wilson 2/4
    o = t[(t["selector"] == "oracle") & (t["n_features"] == 12)].iloc[0]
    assert (o.recall_ci_low, o.recall_ci_high, o.precision, o.fdr) == (1.0, 1.0, 1.0, 0.0)
    c = t[(t["selector"] == "copies") & (t["n_features"] == 10)].iloc[0]
    assert c.precision == pytest.approx(0.8) and c.fdr == pytest.approx(0.2) and c.successes == 0
    assert c.precision_ci_low == pytest.approx(0.8) and c.precision_ci_high == pytest.approx(0.8)


def test_agrees_with_the_existing_ground_truth_tables(tmp_path):
    sets = load_result_sets([_madelon_dir(tmp_path / "scen")])
    share, success = ground_truth_tables(sets)
    t = recovery_table(recovery_by_split(sets)).set_index(["selector", "n_features"])
    for row in share.itertuples():
        assert t.loc[(row.selector, row.n_features), "precision"] == pytest.approx(row.share_relevant)
        assert t.loc[(row.selector, row.n_features), "recall"] == pytest.approx(row.recall)
    for row in success.itertuples():
        assert t.loc[(row.selector, 12), "exact_rate"] == row.success_rate


def test_who_finds_by_hand(per_split):
    who = who_finds_table(per_split)
    assert list(who.columns) == WHO_FINDS_COLUMNS
    # best first: exact-recovery rate, then recall at r
    assert who["selector"].tolist() == ["oracle", "half", "copies", "blind"]
    w = who.set_index("selector")
    assert w.loc["oracle", "exact"] == 4 and w.loc["copies", "recall_at_r"] == pytest.approx(10 / 12)
    assert w.loc["copies", "recall_informative_at_r"] == pytest.approx(0.6)
    assert w.loc["half", "s_full_median"] == 13  # median of 12, 14, 12, 14
    assert w.loc["blind", "p_chance"] == 1.0 and w.loc["oracle", "p_chance"] < 1e-50
    assert w.loc["oracle", "chance_recall_at_r"] == 0.12
    md = who_finds_markdown(who)
    assert "### scen_madelon" in md and "|R| = r = 12, informative core |I| = 5" in md
    assert "| oracle | 4/4 | 100 [51, 100] | 1.00 | 1.00 |" in md


def test_chance_pvalue_and_bootstrap_by_hand():
    # D = 4, r = 2: a random top 2 holds 2, 1, 0 of the 2 relevant with probability 1/6, 4/6, 1/6
    assert chance_hits_pvalue(2, 4, 2, 1) == pytest.approx(1 / 6)
    assert chance_hits_pvalue(4, 4, 2, 2) == pytest.approx(1 / 36)
    assert chance_hits_pvalue(3, 4, 2, 2) == pytest.approx(2 * (1 / 6) * (4 / 6) + 1 / 36)
    assert chance_hits_pvalue(0, 4, 2, 3) == 1.0
    assert bootstrap_mean_interval(np.array([0.5] * 7)) == (0.5, 0.5)
    v = np.array([0.0, 1.0, 1.0, 0.0, 1.0])
    lo, hi = bootstrap_mean_interval(v)
    assert (lo, hi) == bootstrap_mean_interval(v) and 0.0 <= lo < 0.6 < hi <= 1.0  # seeded, covers the mean
    assert np.isnan(bootstrap_mean_interval(np.array([]))[0])


def test_write_recovery_tables_and_main(tmp_path, capsys):
    d = _madelon_dir(tmp_path / "scen")
    files = write_recovery_tables(load_result_sets([d]), tmp_path / "out")
    assert [f.name for f in files] == [
        "recovery_splits.csv",
        "recovery.csv",
        "recovery_who_finds.csv",
        "recovery.md",
    ]
    assert main([str(d)]) == 0 and (d / "recovery.md").read_text() == files[3].read_text()
    assert "recovery.md" in capsys.readouterr().out
    # a dataset without known relevant features: nothing written
    other = write_result_dir(
        tmp_path / "iono",
        experiment="iono",
        dataset="ionosphere",
        d=34,
        selectors={"f": fixed_ranker([0, 1], 34)},
        error=lambda *a: 0.1,
    )
    assert write_recovery_tables(load_result_sets([other]), tmp_path / "none") == []
