"""One results model: :mod:`fsbench.results.schema` owns the columns, :mod:`fsbench.results.loading` is the
one reader of result directories, and the results package imports nothing above it."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import numpy as np
from results_helpers import fixed_ranker, write_result_dir

import fsbench
import fsbench.plots.experiment as plots
import fsbench.results.stats as stats
from fsbench.results import schema
from fsbench.results.loading import find_result_dirs, is_diagnostic, load_result_sets, load_rows, read_run
from fsbench.run import kinds, store

PACKAGE = Path(fsbench.__file__).resolve().parent
#: Where results.csv / rankings.csv / run.json may be read: the loader, and the run store and engine
#: (they write them and resume from them). Datasets (fsbench/data) are other files.
# run_state.py: the task-file and run.json format both sides read (standard library only, for the CLI)
READERS = {"results/loading.py", "results/run_state.py", "run/store.py", "run/engine.py"}


def _toy(path: Path, experiment: str) -> Path:
    return write_result_dir(
        path,
        experiment=experiment,
        dataset="toy",
        d=6,
        selectors={"fisher": fixed_ranker([0, 1], 6)},
        error=lambda *a: float(np.random.default_rng(0).random()),
        repeats=2,
    )


def _calls(tree: ast.AST) -> list[str]:
    """Names of the functions called in a module (``pd.read_csv`` → ``read_csv``)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            out.append(f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", ""))
    return out


def _joins_run_json(tree: ast.AST) -> bool:
    """Whether the module builds a path to a run.json (``d / "run.json"``): a docstring or a message that
    names the file is not a read."""
    return any(
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Div)
        and isinstance(node.right, ast.Constant)
        and node.right.value == "run.json"
        for node in ast.walk(tree)
    )


def test_only_the_loader_reads_result_tables():
    offenders = []
    for f in sorted(PACKAGE.rglob("*.py")):
        rel = f.relative_to(PACKAGE).as_posix()
        if rel.startswith("data/") or rel in READERS:
            continue
        text = f.read_text(encoding="utf-8")
        tree = ast.parse(text)
        calls = _calls(tree)
        if "read_csv" in calls or ("loads" in calls and _joins_run_json(tree)):
            offenders.append(rel)
    assert offenders == [], f"read result files through fsbench.results.loading: {offenders}"


def test_the_results_package_imports_nothing_above_it():
    # config_files is a leaf (YAML files, the S-fraction rule), below results; fsbench.results.stats is of the
    # results layer (tests/test_imports.py)
    allowed = ("fsbench.results", "fsbench.results.stats", "fsbench.data", "fsbench.config.files")
    for f in sorted((PACKAGE / "results").glob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = (
                    [node.module] if node.module != "fsbench" else [f"fsbench.{a.name}" for a in node.names]
                )
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                if name.startswith("fsbench.") and name != "fsbench.__version__":
                    assert name.startswith(allowed), f"{f.name} imports {name}"
                    if f.name == "schema.py":
                        raise AssertionError(f"schema.py must be a leaf, imports {name}")


def test_the_schema_is_defined_once():
    assert kinds.SelectThenClassify().columns() == list(schema.RESULT_COLUMNS)
    assert store.RANKING_COLUMNS is schema.RANKING_COLUMNS
    assert schema.SCHEMA_VERSION >= 2 and set(schema.TIMING_COLUMNS) <= set(schema.RESULT_COLUMNS)
    assert schema.BASELINE == "all"
    assert plots.BASELINE is schema.BASELINE and stats.BASELINE is schema.BASELINE


def test_result_directories_are_found_once_as_given_and_in_path_order(tmp_path):
    b = _toy(tmp_path / "res" / "b_exp", "b")
    a = _toy(tmp_path / "res" / "a_exp", "a")
    diag = tmp_path / "res" / "c_diag"
    diag.mkdir()
    (diag / "results.csv").write_text("schema_version,experiment,diagnostic,status\n2,c,pixel,ok\n")
    cwd = os.getcwd()
    try:
        os.chdir(tmp_path)
        # a relative path stays relative (reports show paths relative to themselves); a directory reached
        # twice (directly and through its parent, or through results.csv) counts once
        found = find_result_dirs([Path("res"), Path("res/a_exp/results.csv"), a])
        assert found == [Path("res/a_exp"), Path("res/b_exp"), Path("res/c_diag")]
    finally:
        os.chdir(cwd)
    assert [is_diagnostic(d) for d in find_result_dirs([tmp_path / "res"])] == [False, False, True]
    rows = load_rows([tmp_path / "res"])
    assert set(rows["experiment"]) == {"a", "b", "c"} and "diagnostic" in rows.columns
    assert set(load_rows([tmp_path / "res"], diagnostics=False)["experiment"]) == {"a", "b"}
    assert read_run(b)["experiment"] == "b" and read_run(diag) == {}
    sets = load_result_sets([tmp_path / "res"])
    assert [s.source for s in sets] == ["a_exp", "b_exp", "c_diag"]
    assert all(s.path.is_absolute() for s in sets) and sets[2].rankings is None and sets[2].run is None
