"""``--help`` metavars a reader understands, and "did you mean" for mistyped commands and names."""

from __future__ import annotations

import re

import pytest
import typer
from conftest import cli, write_config
from typer.testing import CliRunner

from fsbench.cli import app


def _paths(group, path=()):
    out = [path]
    for name, sub in sorted((getattr(group, "commands", None) or {}).items()):
        out += _paths(sub, (*path, name))
    return out


PATHS = _paths(typer.main.get_command(app))


@pytest.mark.parametrize("path", PATHS, ids=[" ".join(p) or "fsbench" for p in PATHS])
def test_help_has_no_type_hint_metavars(path: tuple[str, ...]) -> None:
    res = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    text = res.stdout
    assert "<list[" not in text and not re.search(r"\{\w+\}", text), text
    assert not re.search(r"<(str|path|int|int range|float|float range)>", text), text


def test_help_names_the_values() -> None:
    text = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "80"}).stdout
    assert "run [OPTIONS] CONFIG..." in text
    assert "--exclude-selector SELECTOR" in text and "--jobs N" in text and "--out DIR" in text
    assert "plot [OPTIONS] DIR..." in CliRunner().invoke(app, ["plot", "--help"]).stdout
    assert "info [OPTIONS] SELECTOR" in CliRunner().invoke(app, ["selectors", "info", "--help"]).stdout


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (["sas-info"], "Did you mean 'fsbench selectors info sas'?"),
        (["info-sonar"], "Did you mean 'fsbench datasets info sonar'?"),
        (["repot"], "Did you mean 'report'"),
    ],
)
def test_unknown_command_suggests(args: list[str], hint: str) -> None:
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2
    assert hint in res.stderr.splitlines()[-1]


def test_unknown_selector_suggests() -> None:
    res = cli("selectors", "info", "sass")
    assert res.exit_code == 2 and res.stdout == "" and len(res.stderr_lines) == 1
    assert res.stderr_lines[0].startswith("error: unknown selector 'sass' (did you mean 'sas'")


@pytest.mark.parametrize("command", ["info", "verify", "download"])
def test_unknown_dataset_suggests(command: str) -> None:
    res = cli("datasets", command, "sonr")
    assert res.exit_code == 2 and len(res.stderr_lines) == 1
    assert "unknown dataset 'sonr' (did you mean 'sonar'?)" in res.stderr_lines[0]


def test_nothing_close_no_suggestion() -> None:
    res = cli("selectors", "info", "zzzzzzzz")
    assert res.exit_code == 2 and "did you mean" not in res.stderr


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        (
            {"selectors": ["all", "fishr"]},
            "selectors[1].name: unknown selector 'fishr' (did you mean 'fisher'",
        ),
        (
            {"dataset": "weston_nonlinaer"},
            "unknown dataset 'weston_nonlinaer' (did you mean 'weston_nonlinear'",
        ),
    ],
)
def test_config_error_suggests(tmp_path, changes: dict, expected: str) -> None:
    cfg = write_config(tmp_path / "bad.yaml", **changes)
    res = cli("run", cfg, "--out", tmp_path / "out", "--dry-run")
    assert res.exit_code == 2 and len(res.stderr_lines) == 1, res.stderr
    assert expected in res.stderr_lines[0]
