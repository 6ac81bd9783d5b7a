"""The modules of :mod:`fsbench.data` import each other without a cycle, and each one imports on its own."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import fsbench.data

DATA_DIR = Path(fsbench.data.__file__).resolve().parent
MODULES = sorted(p.stem for p in DATA_DIR.glob("*.py") if p.stem != "__init__")


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(module: str) -> set[str]:
    """Sibling modules that ``fsbench.data.<module>`` imports at run time, at any depth (lazy imports too).

    ``if TYPE_CHECKING:`` blocks are skipped (never executed); ``from fsbench.data import x`` counts as
    the submodule ``x`` when it is one, as the package itself (``__init__``) otherwise.
    """
    tree = ast.parse((DATA_DIR / f"{module}.py").read_text(encoding="utf-8"))
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "fsbench.data":
                for alias in node.names:
                    found.add(alias.name if alias.name in MODULES else "__init__")
            elif node.module.startswith("fsbench.data."):
                found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("fsbench.data."):
                    found.add(alias.name.split(".")[2])
                elif alias.name == "fsbench.data":
                    found.add("__init__")
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    found.discard(module)
    return found


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def dfs(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := dfs(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := dfs(start)):
            return cycle
    return None


def test_no_import_cycle_between_data_modules() -> None:
    graph = {m: _runtime_imports(m) for m in MODULES}
    assert graph["cards"] and graph["dataset"], "the import scan found nothing: is the parser broken?"
    cycle = _find_cycle(graph)
    assert cycle is None, " -> ".join(cycle or [])


def test_cycle_finder_sees_lazy_imports() -> None:
    # the old layout: cards -> dataset (inside a method), dataset -> download (inside a function) -> cards
    assert _find_cycle({"cards": {"dataset"}, "dataset": {"download"}, "download": {"cards"}}) == [
        "cards",
        "dataset",
        "download",
        "cards",
    ]


@pytest.mark.parametrize("module", MODULES)
def test_each_module_imports_first(module: str) -> None:
    """Importing any data module first, in a fresh interpreter, works (no half-initialised partner)."""
    code = f"import fsbench.data.{module}"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_public_names_still_exported() -> None:
    from fsbench.data import (  # noqa: F401  (the names other modules import from fsbench.data)
        DatasetCard,
        DatasetError,
        DatasetWarning,
        SyntheticDataset,
        TableDataset,
        data_search_path,
        describe,
        generator_names,
        get_card,
        list_cards,
        open_dataset,
        register_generator,
        verify,
    )
    from fsbench.data.cards import cards_dir
    from fsbench.data.download import download_url, fetch, load_openml  # noqa: F401

    assert cards_dir().is_dir()
