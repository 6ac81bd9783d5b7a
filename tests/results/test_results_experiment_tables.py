"""``fsbench report`` writes a stability table (or a "no ranking" note) beside every experiment and a
ground-truth table beside those whose relevant features are known (``fsbench.results.experiment_tables``);
subset searches are judged by the subsets they chose (``results.csv``'s ``subset``), and a baseline
labelled otherwise is still the baseline."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from results_helpers import fixed_ranker, random_ranker, write_result_dir

from fsbench.results.experiment_tables import analysis_markdown, write_experiment_tables
from fsbench.results.loading import load_result_sets
from fsbench.results.stability import stability_table


def _error(sel, n, r, s, rng):
    return 0.1 if sel == "good" else 0.3


def test_stability_and_ground_truth_files_and_section(tmp_path):
    root = tmp_path / "res"
    write_result_dir(
        root / "toy",
        experiment="toy",
        dataset="weston_nonlinear",  # a synthetic card: relevant features {0, 1}
        d=10,
        selectors={"good": fixed_ranker([0, 1], 10), "noisy": random_ranker(10)},
        error=_error,
        n_train=(20, 40),
        s_values=(2,),
    )
    diag = root / "diag"
    diag.mkdir()
    pd.DataFrame({"experiment": ["d"], "diagnostic": ["x"], "dataset": ["a"], "status": ["ok"]}).to_csv(
        diag / "results.csv", index=False
    )
    tables = {t.experiment: t for t in write_experiment_tables(root)}
    # the ranker experiment: stability per selector and n (the baseline skipped), ground truth
    st = pd.read_csv(root / "toy" / "stability.csv")
    assert set(st["selector"]) == {"good", "noisy"} and set(st["n_train"]) == {20, 40}
    good = st[st["selector"] == "good"]
    assert np.allclose(good["kuncheva"], 1.0) and np.allclose(good["nogueira"], 1.0)
    assert (st.loc[st["selector"] == "noisy", "nogueira"] < 0.5).all()
    succ = pd.read_csv(root / "toy" / "ground_truth_success.csv").set_index(["selector", "n_train"])
    assert succ.loc[("good", 20), "success_rate"] == 1.0 and succ.loc[("good", 20), "successes"] == 6
    assert (root / "toy" / "ground_truth.md").read_text().startswith("# Ground truth: toy")
    # the diagnostic: a note, no CSV
    assert tables["d"].stability is None and not (diag / "stability.csv").exists()
    assert "No ranking: a diagnostic" in (diag / "stability.md").read_text()
    md = "\n".join(analysis_markdown(list(tables.values()), root))
    assert "## Stability of the selected subsets" in md and "## Ground truth: recovery of the relevant" in md
    assert "### toy (`toy`)" in md and "| good | 1.00 [1.00, 1.00] | 1.00 [1.00, 1.00] |" in md
    assert "| good | 1.00 (6/6) | 1.00 (6/6) |" in md  # exact recovery at n = 20 and 40
    # regenerating gives the same files (deterministic), and a directory that lost its rankings drops its CSV
    before = (root / "toy" / "stability.md").read_bytes()
    write_experiment_tables(root)
    assert (root / "toy" / "stability.md").read_bytes() == before
    (root / "toy" / "rankings.csv").unlink()
    write_experiment_tables(root)
    assert not (root / "toy" / "stability.csv").exists()
    assert "No ranking: no `rankings.csv`" in (root / "toy" / "stability.md").read_text()


def test_transformers_and_a_relabelled_baseline_have_no_ranking(tmp_path):
    d = write_result_dir(
        tmp_path / "proj",
        experiment="proj",
        dataset="toy",
        d=6,
        selectors={"T": lambda n, r, g: np.array([], dtype=int)},  # a transformer writes no order
        error=_error,
    )
    res = pd.read_csv(d / "results.csv")
    res.loc[res["selector"] == "all", "selector"] = "KNNC"  # the baseline under a config label
    res.to_csv(d / "results.csv", index=False)
    rk = pd.read_csv(d / "rankings.csv", keep_default_na=False)
    rk.loc[rk["selector"] == "all", "selector"] = "KNNC"
    rk.to_csv(d / "rankings.csv", index=False)
    (et,) = write_experiment_tables(tmp_path)
    assert et.stability is None and "every method is a transformer" in et.note


def test_subset_searches_are_judged_by_the_subsets_they_chose(tmp_path):
    # a search fitted once per S: its order (one per task) is the S = 2 fit's, its S = 3 choice differs
    d = write_result_dir(
        tmp_path / "bb",
        experiment="bb",
        dataset="toy",
        d=6,
        selectors={"B&B": fixed_ranker([0, 1, 2], 6)},
        error=_error,
        s_values=(2, 3),
        baseline=False,
    )
    res = pd.read_csv(d / "results.csv")
    res["subset"] = np.where(res["n_features"] == 2, "0 1", [f"{r % 2 + 2} 4 5" for r in res["repeat"]])
    res.to_csv(d / "results.csv", index=False)
    (rs,) = load_result_sets([d])
    st = stability_table([rs]).set_index("n_features")
    assert st.loc[2, "kuncheva"] == pytest.approx(1.0)  # "0 1" in every repeat
    # at S = 3 the chosen sets alternate {2, 4, 5} / {3, 4, 5}, not the order's constant top 3 {0, 1, 2}
    assert st.loc[3, "kuncheva"] < 1.0
    assert json.loads((d / "run.json").read_text())["experiment"] == "bb"
