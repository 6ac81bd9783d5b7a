"""No unused public function or class in the data layer and the plotting modules.

A public top-level name of these modules must be referenced somewhere else in ``fsbench/``, ``tests/`` or
``benchmarks/``; dead helpers (``store.require_file``, ``plots.load_results``) were removed, and this keeps
new ones from piling up. Two stricter checks (issue 36): the report-page helpers and the diagnostics' base
must be used by the package itself (``fsbench/``, ``configs/``, ``benchmarks/``), not only by tests
(``page.comparison``, a wrapper only tests called, and ``diagnostics.base.json_cell`` were removed); and no
public function of ``fsbench`` keeps a parameter it never reads (``paper_sections``' ``root``). A constant
that several modules name is defined once (:data:`DEFINED_ONCE`) and imported where it is used.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CHECKED = sorted([*(REPO / "fsbench" / "data").glob("*.py"), *(REPO / "fsbench" / "plots").glob("*.py")])
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


#: Modules whose public names must be used by the package, configs or benchmarks (tests alone do not count).
PACKAGE_USED = [REPO / "fsbench" / "papers" / "page.py", REPO / "fsbench" / "diagnostics" / "base.py"]
PACKAGE_SOURCES = [p for p in SOURCES if REPO / "tests" not in p.parents] + [
    *(REPO / "configs").rglob("*.py")
]


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(REPO).with_suffix("").parts)


def _package_uses(module: str) -> set[str]:
    """Names of ``module`` that the package uses: imported by name, as ``module.name`` (its last part),
    or read inside the module itself."""
    used: set[str] = set()
    alias = module.rsplit(".", 1)[-1]
    for path in PACKAGE_SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        own = _module_name(path) == module
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == module:
                used |= {a.name for a in node.names}
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == alias
            ):
                used.add(node.attr)
            elif own and isinstance(node, ast.Name):  # a definition is not a Name node: a real use
                used.add(node.id)
    return used


@pytest.mark.parametrize("path", PACKAGE_USED, ids=[p.name for p in PACKAGE_USED])
def test_public_names_are_used_by_the_package(path: Path) -> None:
    used = _package_uses(_module_name(path))
    unused = [name for name in _public_definitions(path) if name not in used]
    assert not unused, f"{path.relative_to(REPO)}: public names only tests use, or nothing {unused}"


def _unread_parameters(func: ast.FunctionDef) -> list[str]:
    read = {n.id for n in ast.walk(func) if isinstance(n, ast.Name)}
    params = [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]
    return [a.arg for a in params if a.arg not in read and not a.arg.startswith("_")]


def test_no_public_function_has_an_unread_parameter() -> None:
    # top-level public functions only: private callbacks (classifier factories, markdown-it renderers)
    # take the parameters their caller passes, read or not
    unread = []
    for path in sorted((REPO / "fsbench").rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if (
                isinstance(node, ast.FunctionDef)
                and not node.name.startswith("_")
                and not node.decorator_list
            ):
                unread += [f"{path.relative_to(REPO)}:{node.name}({a})" for a in _unread_parameters(node)]
    assert not unread, f"parameters never read: {unread}"


#: Module-level constants of ``fsbench`` that one module defines and the others import (``PAPER_VALUES``
#: was defined both in ``fsbench.build`` and in ``fsbench.papers.values``: two names for one file).
DEFINED_ONCE = ["PAPER_VALUES"]


@pytest.mark.parametrize("name", DEFINED_ONCE)
def test_shared_constant_is_defined_once(name: str) -> None:
    defined = []
    for path in sorted((REPO / "fsbench").rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                defined.append(str(path.relative_to(REPO)))
    assert len(defined) == 1, f"{name} defined in {defined}"
