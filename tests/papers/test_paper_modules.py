"""fsbench.papers.{values, sources, cells, checks, claims, comparison, readings, compare, render, page,
folder}: the layering of the paper comparison, and no module of the library named after a paper.

The comparison is split by concern with imports flowing one way, page → render → compare → readings →
comparison → claims → checks → cells → sources → values, so that e.g. reading a paper's values does not
pull in the Markdown renderer, and the comparison object (``comparison``) does not pull in the code that
computes it (and nothing pulls in an algorithm).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fsbench

ROOT = Path(__file__).resolve().parents[2]
#: Bottom to top: a module may import only the ones before it.
LAYERS = [
    "values",
    "sources",
    "cells",
    "checks",
    "claims",
    "comparison",
    "readings",
    "compare",
    "render",
    "page",
    "folder",
]
PAPERS = ROOT / "fsbench" / "papers"


def _env(**extra: str) -> dict[str, str]:
    """Environment of a child interpreter that imports the same fsbench as this process."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    src = str(Path(fsbench.__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH", "")) if p)
    env.update(extra)
    return env


def _fsbench_imports(path: Path) -> set[str]:
    """Every ``fsbench...`` module a source file (or every file of a package) imports, at top level or
    inside functions."""
    out: set[str] = set()
    for f in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                out |= {a.name for a in node.names if a.name.startswith("fsbench")}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("fsbench"):
                out.add(node.module)
    return out


def _layer_path(name: str) -> Path:
    """A layer's module file, or its package directory (``readings`` is a package)."""
    return PAPERS / name if (PAPERS / name).is_dir() else PAPERS / f"{name}.py"


@pytest.mark.parametrize("i", range(len(LAYERS)), ids=LAYERS)
def test_modules_import_only_lower_layers(i):
    # static, so that a lazy import inside a function (invisible to the sys.modules check) is caught too
    upper = {f"fsbench.papers.{m}" for m in LAYERS[i + 1 :]} | {"fsbench.report"}
    found = _fsbench_imports(_layer_path(LAYERS[i]))
    # a package's modules are its own layer: fsbench.papers.readings.x may import fsbench.papers.readings.y
    above = {m for m in found if any(m == u or m.startswith(f"{u}.") for u in upper)}
    assert not above, f"fsbench.papers.{LAYERS[i]} imports {sorted(above)}"


def test_importing_a_layer_loads_no_layer_above_it():
    # one fresh interpreter, bottom-up: each import must leave every module above it unloaded
    code = (
        "import sys\n"
        f"layers = {LAYERS!r}\n"
        "bad = []\n"
        "for i, m in enumerate(layers):\n"
        "    __import__(f'fsbench.papers.{m}')\n"
        "    above = [f'fsbench.papers.{u}' for u in layers[i + 1:]]\n"
        "    bad += [f'{m} loaded {u}' for u in above if u in sys.modules]\n"
        "    bad += [f'{m} loaded {a}' for a in sys.modules if a.startswith('fsbench.algorithms')]\n"
        "print('; '.join(bad))\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], env=_env(), cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == ""


# The Ramona report (and every other committed report) rendered deterministically from the committed
# results: tests/papers/test_report_regenerate.py.


def test_no_library_module_names_a_paper():
    # papers are folders of data (configs/<paper>/, hooks.py included); the library serves any of them
    papers = [p.parent.name for p in (ROOT / "configs").glob("*/paper_values.yaml")]
    assert papers
    for f in sorted((ROOT / "fsbench").rglob("*.py")):
        text = f.read_text(encoding="utf-8")
        named = [p for p in papers if p in text or p in f.stem]
        assert not named, f"{f.relative_to(ROOT)} names {named}"
