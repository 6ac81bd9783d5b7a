"""``n_features: {fraction_of_D: [...]}``: S as fractions of each dataset's D."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import TINY, cli, result_dicts, write_config

from fsbench.config.experiment import FeatureFractions


@pytest.mark.parametrize(
    ("fractions", "D", "expected"),
    [
        ((0.05, 0.1, 0.5, 1.0), 52, [3, 5, 26, 52]),  # 2.6 -> 3, 5.2 -> 5, 26, 52
        ((0.05, 0.1), 6, [1]),  # 0.3 -> 1 (at least one), 0.6 -> 1: one S value
        ((0.25,), 10, [3]),  # 2.5 rounds half up
        ((1.0,), 1, [1]),
    ],
)
def test_fractions_resolve_per_dataset(fractions, D, expected) -> None:
    assert FeatureFractions(fractions).resolve(D) == expected


def test_run_with_fractions_evaluates_the_resolved_sizes(tmp_path: Path) -> None:
    cfg = write_config(
        tmp_path / "frac.yaml",
        {**TINY, "selectors": ["fisher"]},
        protocol={"n_train": 30, "repeats": 2, "n_features": {"fraction_of_D": [0.04, 0.1, 0.5]}},
    )
    res = cli("run", cfg, "--out", tmp_path / "out", "--no-progress")
    assert res.exit_code == 0, res.stderr
    sizes = sorted({int(r["n_features"]) for r in result_dicts(tmp_path / "out")})
    assert sizes == FeatureFractions((0.04, 0.1, 0.5)).resolve(52) == [2, 5, 26]


def test_coarse_thins_a_fraction_grid(tmp_path: Path) -> None:
    from fsbench.config.experiment import load_experiment

    cfg = write_config(
        tmp_path / "frac.yaml",
        protocol={"n_features": {"fraction_of_D": [0.05, 0.1, 0.2, 0.3, 0.5]}},
    )
    exp = load_experiment(cfg, overrides={"coarse": 2})
    assert exp.datasets[0].protocol.n_features == FeatureFractions((0.05, 0.5))
