"""CLI polish (issue 16): ``--version``, help readable at 80 columns, ``selectors info``, the kind column."""

from __future__ import annotations

import click
import pytest
import typer
from conftest import cli
from typer.testing import CliRunner

import fsbench
from fsbench.algorithms.registry import available, info, resolve
from fsbench.cli import app


def test_version() -> None:
    res = cli("--version")
    assert res.exit_code == 0 and res.stdout == f"fsbench {fsbench.__version__}\n"


def _commands(
    group: click.Command, path: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], click.Command]]:
    out = [(path, group)]
    for name, sub in sorted(getattr(group, "commands", {}).items()):
        out += _commands(sub, (*path, name))
    return out


COMMANDS = _commands(typer.main.get_command(app))


def test_every_command_is_covered() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"", "run", "datasets verify", "selectors info", "selectors list"} <= names


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[" ".join(p) or "fsbench" for p, _ in COMMANDS])
def test_help_readable_at_80_columns(path: tuple[str, ...], command: click.Command) -> None:
    res = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "80", "TERMINAL_WIDTH": None})
    assert res.exit_code == 0, res.output
    text = res.stdout
    options = [o for p in command.params if isinstance(p, click.Option) for o in (*p.opts, *p.secondary_opts)]
    for opt in options:
        assert opt in text, f"{opt} missing or cut in `fsbench {' '.join(path)} --help`:\n{text}"
    assert "…" not in text
    too_long = [line for line in text.splitlines() if len(line) > 80]
    assert not too_long, too_long


def test_selectors_list_has_a_kind_column() -> None:
    res = cli("selectors", "list")
    assert res.exit_code == 0
    kinds = {line.split()[0]: line.split()[1] for line in res.stdout.splitlines()}
    assert set(kinds) == set(available())
    assert set(kinds.values()) == {"rank", "transform", "subset"}
    assert kinds["branch_and_bound"] == kinds["exhaustive_wrapper"] == "subset"
    assert kinds["sas"] == kinds["fisher"] == kinds["rfe"] == "rank"
    assert kinds["kpca"] == kinds["takes"] == kinds["kife"] == "transform"
    for name, kind in kinds.items():  # the column agrees with what the protocol does with the class
        assert (kind == "transform") == (getattr(resolve(name), "kind", None) == "transform"), name


@pytest.mark.parametrize(
    ("name", "kind", "cls", "param"),
    [
        ("sas", "rank", "fsbench.algorithms.alignment.SAS", "max_iter"),
        ("kpca", "transform", "fsbench.algorithms.kernel_space.KPCA", "n_components"),
        ("branch_and_bound", "subset", "fsbench.algorithms.branch_bound.BranchAndBound", "d"),
    ],
)
def test_selectors_info(name: str, kind: str, cls: str, param: str) -> None:
    res = cli("selectors", "info", name)
    assert res.exit_code == 0, res.stderr
    meta = info(name)
    lines = res.stdout.splitlines()
    assert lines[0] == f"{name}: {meta.description}"
    assert f"  class:      {cls}" in lines
    assert any(line.startswith(f"  kind:       {kind} — ") for line in lines)
    assert f"  citation:   {meta.citation}" in lines
    defaults = resolve(name)().get_params(deep=False)
    assert meta.params == defaults and param in defaults
    for p, default in defaults.items():
        assert any(line.split() == [p, "=", repr(default)] for line in lines), p


def test_selectors_info_unknown_name() -> None:
    res = cli("selectors", "info", "no_such_selector")
    assert res.exit_code == 2 and res.stdout == ""
    assert len(res.stderr_lines) == 1 and "unknown selector 'no_such_selector'" in res.stderr_lines[0]
