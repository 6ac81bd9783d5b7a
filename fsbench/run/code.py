"""The code that computes a task, as a hash: what lets a run resume across commits.

A task's numbers come from the protocol (splits, standardisation, the classifier, the data's parsing) and
from its selector. Both are fsbench modules, and the modules they import, transitively: the task's *code*
is that static import closure, and its hash is the sha256 of the sorted ``(module, sha256 of source)``
pairs. Two commits with the same hash for a selector compute its tasks with the same source, so their rows
may share one table; a resume that would mix rows of different code is refused, naming the modules that
changed (:func:`fsbench.run.engine.check_code`).

What the closure leaves out, and why (each is pinned otherwise):

- :mod:`fsbench.algorithms.registry` — a table from names to ``module:Class``; the selector's own module is
  hashed instead, so adding a selector to the table does not change the code of the others;
- :mod:`fsbench.config` (the package), :mod:`fsbench.config.experiment` and :mod:`fsbench.config.files` —
  what they produce, the effective config, is hashed into ``run.json``'s ``config_hash`` and checked on
  every resume (:mod:`fsbench.config.classifier_names` is hashed: the classifiers read their specs there);
- :mod:`fsbench.results.schema` — its version is recorded in every row.

The closure is computed from source text (``ast``), never by importing, so the same function hashes the
working tree and any earlier commit (:func:`git_reader`); an import inside a function counts as well.
"""

from __future__ import annotations

import ast
import hashlib
import subprocess
from collections.abc import Callable
from functools import cache, lru_cache
from pathlib import Path

#: Modules whose effect on a task is pinned otherwise (see the module docstring).
EXCLUDED = frozenset(
    {
        "fsbench.algorithms.registry",
        "fsbench.config",
        "fsbench.config.experiment",
        "fsbench.config.files",
        "fsbench.results.schema",
    }
)
#: The protocol's entry module: every task's code starts here.
PROTOCOL = "fsbench.evaluation.protocol"

#: Reads the source of a module path relative to the checkout (``fsbench/a/b.py``); None when absent.
Reader = Callable[[str], "str | None"]

_PACKAGE_DIR = Path(__file__).resolve().parents[1]  # fsbench/


def tree_reader(rel: str) -> str | None:
    """Source of ``rel`` (``fsbench/...``) in the installed package."""
    path = _PACKAGE_DIR.parent / rel
    return path.read_text(encoding="utf-8") if path.is_file() else None


def git_reader(commit: str) -> Reader:
    """A reader of the sources at ``commit`` of the checkout holding this package (``git show``)."""
    root = _PACKAGE_DIR.parent

    @cache
    def read(rel: str) -> str | None:
        try:
            res = subprocess.run(
                ["git", "show", f"{commit}:{rel}"], cwd=root, capture_output=True, timeout=30, check=False
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return res.stdout.decode("utf-8") if res.returncode == 0 else None

    return read


def commit_known(commit: str) -> bool:
    """Whether the checkout's git history holds ``commit`` (a fresh clone does; a wheel install does not)."""
    try:
        res = subprocess.run(
            ["git", "cat-file", "-e", f"{commit}^{{commit}}"],
            cwd=_PACKAGE_DIR.parent,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return res.returncode == 0


def _source(module: str, read: Reader) -> tuple[str, str] | None:
    """(path, source) of an fsbench module under ``read``: ``a/b.py`` or ``a/b/__init__.py``."""
    base = module.replace(".", "/")
    for rel in (f"{base}.py", f"{base}/__init__.py"):
        text = read(rel)
        if text is not None:
            return rel, text
    return None


def _imports(module: str, rel: str, text: str) -> set[str]:
    """fsbench modules named by the import statements of one module (anywhere in it), with
    ``from package import submodule`` resolved to the submodule as well."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return set()
    package = module if rel.endswith("__init__.py") else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{a.name}" for a in node.names)  # kept only where it is a module
    return {m for m in found if m == "fsbench" or m.startswith("fsbench.")}


@lru_cache(maxsize=4096)
def _node(module: str, read: Reader) -> tuple[str, frozenset[str]] | None:
    """(sha256 of the source, fsbench modules it imports) of one module under ``read``; None if absent."""
    found = _source(module, read)
    if found is None:
        return None
    rel, text = found
    return hashlib.sha256(text.encode("utf-8")).hexdigest(), frozenset(_imports(module, rel, text))


def closure(roots: list[str], read: Reader = tree_reader) -> dict[str, str]:
    """Module → sha256 of its source, over the static fsbench import closure of ``roots``.

    Parameters
    ----------
    roots : list of str
        Module names (``fsbench.evaluation.protocol``, a selector's module).
    read : callable
        :func:`tree_reader` (the working tree) or :func:`git_reader` (a commit).

    Returns
    -------
    dict
        Every reachable fsbench module except :data:`EXCLUDED`; a root that does not exist under ``read``
        maps to ``"missing"``.
    """
    seen: dict[str, str] = {}
    todo = list(roots)
    while todo:
        module = todo.pop()
        if module in seen or module in EXCLUDED:
            continue
        node = _node(module, read)
        if node is None:
            if module in roots:
                seen[module] = "missing"
            continue  # a name imported from a module, not a module itself
        seen[module] = node[0]
        # importing a submodule runs its packages' __init__ first
        parents = {module.rsplit(".", k)[0] for k in range(1, module.count(".") + 1)}
        todo.extend((node[1] | parents) - seen.keys())
    return dict(sorted(seen.items()))


def code_hash(modules: dict[str, str]) -> str:
    """One sha256 over a closure (:func:`closure`)."""
    return hashlib.sha256("\n".join(f"{m} {h}" for m, h in modules.items()).encode()).hexdigest()


def selector_roots(selector_module: str) -> list[str]:
    """The closure's roots for a task of a selector defined in ``selector_module``."""
    return [PROTOCOL, selector_module] if selector_module.startswith("fsbench") else [PROTOCOL]


def changed_modules(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """Modules whose source differs between two closures, or that only one of them has."""
    return sorted(m for m in old.keys() | new.keys() if old.get(m) != new.get(m))
