"""No unused public function or class in the data layer and the plotting modules.

A public top-level name of these modules must be referenced somewhere else in ``fsbench/``, ``tests/`` or
``benchmarks/``; dead helpers (``store.require_file``, ``plots.load_results``) were removed, and this keeps
new ones from piling up.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PLOTTING = ("plots.py", "plots_cpu.py", "figure_style.py")
CHECKED = sorted([*(REPO / "fsbench" / "data").glob("*.py"), *(REPO / "fsbench" / f for f in PLOTTING)])
SOURCES = [
    *(REPO / "fsbench").rglob("*.py"),
    *(REPO / "tests").rglob("*.py"),
    *(REPO / "benchmarks").rglob("*.py"),
]


def _public_definitions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.name
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.ClassDef))
        and not node.name.startswith("_")
        and not node.decorator_list  # registered by a decorator: used through the registry
    ]


@pytest.mark.parametrize("path", CHECKED, ids=[p.name for p in CHECKED])
def test_public_names_are_used(path: Path) -> None:
    texts = {p: p.read_text(encoding="utf-8") for p in SOURCES if p != Path(__file__).resolve()}
    unused = []
    for name in _public_definitions(path):
        pattern = re.compile(rf"\b{re.escape(name)}\b")
        uses = sum(len(pattern.findall(text)) for text in texts.values()) - 1  # minus the definition
        if uses == 0:
            unused.append(name)
    assert not unused, f"{path.relative_to(REPO)}: unused public names {unused}"
