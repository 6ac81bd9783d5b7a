"""fsbench.papers.{values, sources, cells, checks, claims, render, page}: the layering of the paper
comparison, and the Ramona report rendered deterministically from the committed results.

The comparison was one module (``fsbench.paper_compare``, now a re-export shim); it is split by concern
with imports flowing one way, page → render → claims → checks → cells → sources → values, so that e.g.
reading a paper's values does not pull in the Markdown renderer (and nothing pulls in an algorithm).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fsbench

ROOT = Path(__file__).resolve().parents[1]
RAMONA_RESULTS = ROOT / "results" / "ramona2012"
#: Bottom to top: a module may import only the ones before it.
LAYERS = ["values", "sources", "cells", "checks", "claims", "render", "page"]
PAPERS = ROOT / "fsbench" / "papers"


def _env(**extra: str) -> dict[str, str]:
    """Environment of a child interpreter that imports the same fsbench as this process."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    src = str(Path(fsbench.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH", "")) if p)
    env.update(extra)
    return env


def _fsbench_imports(path: Path) -> set[str]:
    """Every ``fsbench...`` module a source file imports, at top level or inside functions."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("fsbench")}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("fsbench"):
            out.add(node.module)
    return out


@pytest.mark.parametrize("i", range(len(LAYERS)), ids=LAYERS)
def test_modules_import_only_lower_layers(i):
    # static, so that a lazy import inside a function (invisible to the sys.modules check) is caught too
    upper = {f"fsbench.papers.{m}" for m in LAYERS[i + 1 :]} | {"fsbench.paper_compare", "fsbench.report"}
    found = _fsbench_imports(PAPERS / f"{LAYERS[i]}.py")
    assert not found & upper, f"fsbench.papers.{LAYERS[i]} imports {sorted(found & upper)}"


def test_importing_a_layer_loads_no_layer_above_it():
    # one fresh interpreter, bottom-up: each import must leave every module above it unloaded
    code = (
        "import sys\n"
        f"layers = {LAYERS!r}\n"
        "bad = []\n"
        "for i, m in enumerate(layers):\n"
        "    __import__(f'fsbench.papers.{m}')\n"
        "    above = [f'fsbench.papers.{u}' for u in layers[i + 1:]] + ['fsbench.paper_compare']\n"
        "    bad += [f'{m} loaded {u}' for u in above if u in sys.modules]\n"
        "    bad += [f'{m} loaded {a}' for a in sys.modules if a.startswith('fsbench.algorithms')]\n"
        "print('; '.join(bad))\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], env=_env(), cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == ""


def test_shim_reexports_the_moved_names():
    import fsbench.paper_compare as pc
    from fsbench.papers import cells, claims, render, values

    assert pc.paper_sections is render.paper_sections
    assert pc.compare_table is cells.compare_table
    assert pc.evaluate_claim is claims.evaluate_claim
    assert pc.load_paper_values is values.load_paper_values
    assert all(hasattr(pc, n) for n in pc.__all__)


#: Child script: the paper part of the Ramona report from the committed results, written to argv[1].
_RENDER = """
import sys
from pathlib import Path
import pandas as pd
from fsbench.plots import find_result_files
from fsbench.papers.render import paper_sections

root = Path(sys.argv[2])
df = pd.concat([pd.read_csv(f) for f in find_result_files([root])], ignore_index=True)
summary, text = paper_sections("ramona2012", df, root)
Path(sys.argv[1]).write_bytes(("\\n".join(summary) + "\\n" + text + "\\n").encode("utf-8"))
"""


@pytest.mark.slow
@pytest.mark.skipif(not (RAMONA_RESULTS / "REPORT.md").is_file(), reason="no committed Ramona results")
def test_ramona_paper_report_renders_identically(tmp_path):
    # two interpreters with different string-hash seeds, so that an order taken from a set or from
    # hashing would show as a difference (the committed REPORT.md must not churn between runs)
    outs = []
    for seed in ("1", "2"):
        out = tmp_path / f"paper_{seed}.md"
        res = subprocess.run(
            [sys.executable, "-c", _RENDER, str(out), str(RAMONA_RESULTS)],
            env=_env(PYTHONHASHSEED=seed, FSBENCH_CONFIGS_DIR=str(ROOT / "configs")),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert res.returncode == 0, res.stderr
        outs.append(out.read_bytes())
    assert len(outs[0]) > 10_000  # the comparison was rendered, not an empty "no experiment" page
    assert outs[0] == outs[1]
