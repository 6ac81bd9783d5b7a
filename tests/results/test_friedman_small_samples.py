"""Friedman / Iman–Davenport on small or perfectly ordered tables: no infinite statistic and no
p-value from the large-sample approximations below Demšar's N > 10 (§3.2.2)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from results_helpers import random_ranker, write_result_dir
from typer.testing import CliRunner

from fsbench.cli import app
from fsbench.results.stats_compare import MIN_BLOCKS, friedman_test

D = 10


def test_identical_rankings_give_no_infinite_f_and_no_f_p_value():
    perfect = pd.DataFrame([[1, 2, 3]] * MIN_BLOCKS, columns=list("abc"), dtype=float)
    res = friedman_test(perfect)
    assert res.chi2 == MIN_BLOCKS * 2  # chi2_F = N(k-1)
    assert res.identical_rankings and not np.isinf(res.ff) and np.isnan(res.ff) and np.isnan(res.p_ff)
    assert res.p_withheld is None and 0 < res.p_chi2 < 0.05  # enough blocks: chi2_F's p-value stands


def test_too_few_blocks_withhold_every_p_value():
    few = pd.DataFrame([[1, 2], [1, 2], [2, 1], [1, 2]], columns=["a", "b"], dtype=float)
    res = friedman_test(few)
    assert np.isnan(res.p_chi2) and np.isnan(res.p_ff) and np.isnan(res.p_chi2_ties)
    assert "Demšar 2006, §3.2.2" in res.p_withheld and "4 blocks" in res.p_withheld


def _near_chance(sel, n, r, s, rng):
    # two selectors near chance, the same order in every block: the trial's F_F = inf, p = 0 case
    return 0.5 + (0.001 if sel == "b" else 0.0)


def test_compare_on_four_blocks_claims_nothing(tmp_path):
    sel = {"a": random_ranker(D), "b": random_ranker(D)}
    out = write_result_dir(
        tmp_path / "r",
        experiment="r",
        dataset="ds",
        d=D,
        selectors=sel,
        error=_near_chance,
        n_train=(30, 60),
        s_values=(2, 4),
    )
    res = CliRunner().invoke(app, ["compare", str(out)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "4 blocks" in res.output
    assert "inf" not in res.output.replace("info", "")
    assert "reject 'all selectors perform alike'" not in res.output
    assert "no verdict" in res.output and "Demšar 2006" in res.output
    assert "every block ranks the selectors identically" in res.output
