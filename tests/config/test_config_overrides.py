"""Configs as overrides (``base:``): the merge, its refusals, and the committed readings.

A reading config names its base and states only what it changes; the merged (effective) config is what is
validated, hashed and written to ``run.json``. The committed results of every override must therefore
still be this config's results: same config hash, and ``fsbench run`` on a copy of the committed
directory resumes every task and computes none.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import cli

from fsbench.config.experiment import config_kind, load_experiment
from fsbench.config.files import BASE_KEY, ConfigError, config_layers, merge_config, read_config
from fsbench.papers.values import config_defaults, layered_defaults

REPO = Path(__file__).resolve().parents[2]
OVERRIDES = sorted(
    p
    for p in (REPO / "configs").glob("*/*.yaml")
    if p.name != "paper_values.yaml" and BASE_KEY in (yaml.safe_load(p.read_text()) or {})
)
IDS = [f"{p.parent.name}/{p.stem}" for p in OVERRIDES]


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- the merge
def test_nested_mappings_merge_and_lists_and_scalars_replace():
    base = {
        "name": "b",
        "kernel": {"name": "rbf", "gamma": "median"},
        "protocol": {"n_train": [10, 20], "repeats": 30, "C": "joachims"},
        "selectors": ["sas", {"name": "rfe", "params": {"kernel": "linear"}}],
    }
    over = {
        "name": "o",
        "kernel": {"gamma": "n_features"},
        "protocol": {"n_train": [100], "standardize": False},
        "selectors": [{"name": "rfe", "params": {"C_schedule": "once"}}],
    }
    before = json.dumps(base)
    merged = merge_config(base, over)
    assert merged == {
        "name": "o",
        "kernel": {"name": "rbf", "gamma": "n_features"},
        "protocol": {"n_train": [100], "repeats": 30, "C": "joachims", "standardize": False},
        "selectors": [{"name": "rfe", "params": {"C_schedule": "once"}}],  # the list replaced, not merged
    }
    assert list(merged["protocol"]) == ["n_train", "repeats", "C", "standardize"]  # base order, new last
    assert json.dumps(base) == before  # inputs untouched
    merged["kernel"]["name"] = "poly"
    assert base["kernel"]["name"] == "rbf"  # no shared sub-mappings
    # a mapping over a scalar (or a scalar over a mapping) replaces it
    assert merge_config({"kernel": "linear"}, {"kernel": {"name": "rbf"}}) == {"kernel": {"name": "rbf"}}
    assert merge_config({"kernel": {"name": "rbf"}}, {"kernel": "linear"}) == {"kernel": "linear"}


def test_chain_of_bases_merges_deepest_first_and_drops_base(tmp_path):
    (tmp_path / "sub").mkdir()
    _write(tmp_path / "a.yaml", "name: a\nseed: 1\nprotocol: {n_train: [10], repeats: 5}\n")
    _write(tmp_path / "sub" / "b.yaml", "base: ../a.yaml\nname: b\nprotocol: {repeats: 7}\n")
    c = _write(tmp_path / "c.yaml", "base: sub/b.yaml\nname: c\nprotocol: {n_test: 9}\n")
    assert [p.name for p, _ in config_layers(c)] == ["a.yaml", "b.yaml", "c.yaml"]
    assert read_config(c) == {
        "name": "c",
        "seed": 1,
        "protocol": {"n_train": [10], "repeats": 7, "n_test": 9},
    }
    assert BASE_KEY not in read_config(c)


def test_override_loads_like_the_equivalent_full_config(tmp_path):
    full = {
        "name": "x",
        "dataset": "weston_nonlinear",
        "kernel": {"name": "rbf", "gamma": "n_features"},
        "selectors": ["fisher"],
        "protocol": {"n_train": [20], "n_test": 50, "repeats": 2},
    }
    _write(tmp_path / "base.yaml", yaml.safe_dump({**full, "name": "base", "kernel": {"name": "rbf"}}))
    over = _write(tmp_path / "x.yaml", "base: base.yaml\nname: x\nkernel: {gamma: n_features}\n")
    plain = _write(tmp_path / "plain.yaml", yaml.safe_dump(full))
    a, b = load_experiment(over), load_experiment(plain)
    assert a.effective == b.effective and a.config_hash == b.config_hash
    assert a.source == str(over)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("base: nope.yaml\nname: x\n", "base file 'nope.yaml' not found"),
        ("base: [a.yaml]\nname: x\n", "expected a config file path relative to this file"),
        ("base: null\nname: x\n", "expected a config file path relative to this file"),
        ("base: /etc/hosts\nname: x\n", "expected a config file path relative to this file"),
    ],
)
def test_bad_base_is_one_line_naming_file_and_key(tmp_path, text, message):
    cfg = _write(tmp_path / "x.yaml", text)
    with pytest.raises(ConfigError) as err:
        load_experiment(cfg)
    assert str(err.value).startswith(f"{cfg}: base: ") and message in str(err.value)
    assert "\n" not in str(err.value)


def test_base_cycle_is_refused(tmp_path):
    a = _write(tmp_path / "a.yaml", "base: b.yaml\nname: a\n")
    _write(tmp_path / "b.yaml", "base: a.yaml\nname: b\n")
    self_ = _write(tmp_path / "s.yaml", "base: ./s.yaml\nname: s\n")
    for cfg, chain in ((a, "a.yaml -> b.yaml -> a.yaml"), (self_, "s.yaml -> s.yaml")):
        with pytest.raises(ConfigError) as err:
            read_config(cfg)
        assert str(err.value) == f"{cfg}: base: base cycle: {chain}"


def test_broken_base_names_the_base_file_and_who_named_it(tmp_path):
    broken = _write(tmp_path / "broken.yaml", "name: [unclosed\n")
    cfg = _write(tmp_path / "x.yaml", "base: broken.yaml\nname: x\n")
    with pytest.raises(ConfigError) as err:
        read_config(cfg)
    msg = str(err.value)
    assert msg.startswith(f"{broken}: <top>: invalid YAML") and f"(the base of {cfg})" in msg
    assert "\n" not in msg


def test_cli_refuses_a_missing_base_in_one_line(tmp_path):
    cfg = _write(tmp_path / "x.yaml", "base: gone.yaml\nname: x\n")
    res = cli("run", cfg, "--out", tmp_path / "out", "--no-progress")
    assert res.exit_code == 2 and len(res.stderr_lines) == 1
    assert res.stderr_lines[0].startswith(f"error: {cfg}: base: base file 'gone.yaml' not found")
    assert not (tmp_path / "out").exists()


def test_kind_of_an_override_is_that_of_the_merged_config(tmp_path):
    _write(
        tmp_path / "d.yaml",
        "name: d\ndiagnostic: usps_pixel_bound\ndataset: usps\nprotocol: {n_train: [10]}\n",
    )
    over = _write(tmp_path / "o.yaml", "base: d.yaml\nname: o\n")
    assert config_kind(read_config(over)) == "diagnostic"
    with pytest.raises(ConfigError, match="fsbench diagnose"):
        load_experiment(over)  # refused as an experiment, as its base is


# --------------------------------------------------------------------------- [D] comments of a chain
def test_defaults_of_an_override_are_its_own_and_the_base_ones_it_does_not_replace(tmp_path):
    base = (
        "# header of the base [D] base header\n"
        "name: b\n"
        "kernel:\n"
        "  # [D] median width\n"
        "  gamma: median\n"
        "  name: rbf   # [D] rbf because\n"
        "# [D] about the selectors\n"
        "selectors: [sas]\n"
        "protocol:\n"
        "  standardize: true   # [D] z-score\n"
    )
    over = (
        "# the reading [D] own header\nbase: b.yaml\nname: o\nkernel:\n  gamma: n_features   # [D] 1/(2D)\n"
    )
    layers = [
        (base, yaml.safe_load(base)),
        (over, {k: v for k, v in yaml.safe_load(over).items() if k != "base"}),
    ]
    got = layered_defaults(layers)
    assert got == ["[D] own header", "`gamma: n_features` — [D] 1/(2D)", "`name: rbf` — [D] rbf because",
                   "[D] about the selectors", "`standardize: true` — [D] z-score"]  # fmt: skip
    assert layered_defaults(layers[:1]) == config_defaults(base)
    # a list replaced whole takes its comments with it
    over2 = "base: b.yaml\nname: o\nselectors: [scss]\n"
    got2 = layered_defaults([layers[0], (over2, {"name": "o", "selectors": ["scss"]})])
    assert "[D] about the selectors" not in got2 and "[D] median width" in got2


# --------------------------------------------------------------------------- the committed overrides
def test_readings_are_overrides():
    assert len(OVERRIDES) >= 25
    for p in OVERRIDES:
        raw = yaml.safe_load(p.read_text())
        assert raw["name"].endswith(p.stem), f"{p}: its own experiment name"
        assert "description" in raw and p.read_text().startswith("#"), f"{p}: keeps its comment header"


@pytest.mark.parametrize("path", OVERRIDES, ids=IDS)
def test_override_keeps_the_committed_config_hash(path):
    run_json = REPO / "results" / path.parent.name / path.stem / "run.json"
    if not run_json.exists():
        pytest.skip(f"no committed results for {path.stem}")
    info = json.loads(run_json.read_text())
    exp = load_experiment(path, kind=config_kind(read_config(path)))
    assert exp.accepts_hash(info["config_hash"]), f"{path}: the merged config is not the committed run's"
    recorded = {k: v for k, v in info["effective_config"].items() if k != "jobs"}
    assert {k: v for k, v in exp.effective.items() if k != "jobs"} == recorded


def test_committed_override_resumes_everything_and_recomputes_nothing(tmp_path, pinned_commit):
    """A fresh clone's committed tables of a reading: restored as tasks, nothing run, tables unchanged."""
    stem = "fig1a_weston_linear_rfe_c_once"  # synthetic data, 400 tasks
    config = REPO / "configs" / "ramona2012" / f"{stem}.yaml"
    assert BASE_KEY in yaml.safe_load(config.read_text())
    out = tmp_path / stem
    shutil.copytree(REPO / "results" / "ramona2012" / stem, out)
    tables = {n: (out / n).read_bytes() for n in ("results.csv", "rankings.csv", "run.json")}
    n = len((out / "results.csv").read_text().splitlines()) - 1

    res = cli("run", config, "--out", out, "--no-progress")
    assert res.exit_code == 0, res.stderr
    assert f"({n} resumed, 0 run, 0 failed)" in res.stdout
    assert {k: (out / k).read_bytes() for k in tables} == tables  # byte for byte, run.json included


# --------------------------------------------------------------------------- the Makefile's discovery
@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_makefile_classifies_an_override_as_its_base(tmp_path):
    """`make reproduce-<paper>` diagnoses an override of a diagnostic, skips one of an unavailable config."""
    shutil.copy(REPO / "Makefile", tmp_path / "Makefile")
    (tmp_path / "pyproject.toml").touch()
    files = {
        "p/diag.yaml": "name: d\ndiagnostic: usps_pixel_bound\n",
        "p/diag_reading.yaml": "base: diag.yaml\nname: dr\n",
        "p/diag_reading2.yaml": 'base: "diag_reading.yaml"   # a chain\nname: dr2\n',
        "q/gone.yaml": "# DATASET NOT AVAILABLE: no copy\nname: g\n",
        "p/gone_reading.yaml": "base: ../q/gone.yaml\nname: gr\n",
        "p/plain.yaml": "name: plain\n",
        "p/loop.yaml": "base: loop.yaml\nname: loop\n",  # refused by fsbench; make must not hang
    }
    for rel, text in files.items():
        (tmp_path / "configs" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "configs" / rel).write_text(text)
    res = subprocess.run(
        ["make", "-n", "reproduce-p"], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=True
    )
    commands = {
        ln.split()[2]: ln.split()[1]
        for ln in res.stdout.splitlines()
        if "bin/fsbench " in ln and " report " not in ln and " build " not in ln
    }
    assert commands == {
        "configs/p/diag.yaml": "diagnose",
        "configs/p/diag_reading.yaml": "diagnose",
        "configs/p/diag_reading2.yaml": "diagnose",
        "configs/p/plain.yaml": "run",
        "configs/p/loop.yaml": "run",
    }  # gone_reading.yaml is skipped, as its base is
