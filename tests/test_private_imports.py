"""Private names (a leading underscore) imported across modules of ``fsbench``, read with :mod:`ast`.

A name another module imports is that module's API: it gets a public name (issue 36 renamed the shared
figure style of :mod:`fsbench.plots.style`: ``new_figure``, ``save_figure``, ...; and the helpers of
:mod:`fsbench.papers.values` and :mod:`fsbench.papers.cells` its neighbours use: ``dataset_entries``,
``entry_name``, ``first_sentence``, ``format_p``). :data:`KNOWN` lists the imports left as they are,
each group with the reason; the test fails on an import not listed, and on a listed one that no longer
occurs (so that the list only shrinks).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: (importing module's path, imported module, private name) left as they are.
KNOWN: frozenset[tuple[str, str, str]] = frozenset(
    {
        # fsbench/algorithms/, resampling and protocol: frozen while a benchmark run resumes (their code
        # hash is part of every selector's); rename them when no run is in progress
        ("fsbench/algorithms/forests.py", "fsbench.algorithms.clinical", "_NaNTolerantSelector"),
        ("fsbench/algorithms/svm.py", "fsbench.algorithms.coupling", "_MIN_PROB"),
        ("fsbench/algorithms/svm.py", "fsbench.algorithms.coupling", "_couple_ht"),
        ("fsbench/algorithms/svm.py", "fsbench.algorithms.coupling", "_couple_wlw"),
        ("fsbench/algorithms/__init__.py", "fsbench.algorithms.registry", "_SELECTORS"),
        ("fsbench/cli.py", "fsbench.algorithms.registry", "_SELECTORS"),
        ("fsbench/evaluation/protocol.py", "fsbench.evaluation.resampling", "_take"),
        # one concern in two files: the claim checks were split out of claims.py, the cell comparison's
        # context and rank tables are compare's
        ("fsbench/papers/claims.py", "fsbench.papers.checks", "_check_compare_experiments"),
        ("fsbench/papers/claims.py", "fsbench.papers.checks", "_check_rank_share"),
        ("fsbench/papers/claims.py", "fsbench.papers.checks", "_check_ratio"),
        ("fsbench/papers/claims.py", "fsbench.papers.checks", "_check_significance"),
        ("fsbench/papers/claims.py", "fsbench.papers.checks", "_combine"),
        ("fsbench/papers/claims.py", "fsbench.papers.checks", "_ne"),
        ("fsbench/papers/claims.py", "fsbench.papers.checks", "_not_run"),
        ("fsbench/papers/claims.py", "fsbench.papers.checks", "_quantify"),
        ("fsbench/papers/claims.py", "fsbench.papers.checks", "_x_label"),
        ("fsbench/papers/compare.py", "fsbench.papers.cells", "_Ctx"),
        ("fsbench/papers/compare.py", "fsbench.papers.cells", "_compare_rank_table"),
    }
)


def private_imports() -> set[tuple[str, str, str]]:
    """Every ``from fsbench.x import _name`` of ``fsbench/`` (dunders excepted), anywhere in a module."""
    found = set()
    for path in sorted((ROOT / "fsbench").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            module = node.module or ""  # fsbench has no relative imports
            if not module.startswith("fsbench"):
                continue
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.add((path.relative_to(ROOT).as_posix(), module, alias.name))
    return found


def test_no_private_name_is_imported_across_modules() -> None:
    found = private_imports()
    new = sorted(found - KNOWN)
    assert not new, f"private names imported from another module (make them public): {new}"


def test_known_private_imports_still_occur() -> None:
    gone = sorted(KNOWN - private_imports())
    assert not gone, f"no longer imported: remove from KNOWN {gone}"
