"""Layering of ``fsbench`` (and of ``benchmarks/``), read statically from the source with :mod:`ast`.

Every ``import`` / ``from ... import`` of every module is collected — at module level, in class bodies
and inside functions (``if TYPE_CHECKING:`` blocks are skipped: they never run). Relative imports are
resolved, and ``from fsbench.x import name`` counts as an import of ``fsbench.x.name`` when that is a
module, of ``fsbench.x`` otherwise. Three rules:

1. **No cycle** in the import graph of ``fsbench``, nor in that of ``benchmarks`` (function-level
   imports included: a lazy import hides a cycle from the interpreter, not from the design).
2. **No upward import.** Each module of ``fsbench`` belongs to one layer (:data:`LAYERS`, longest
   module prefix wins); a module may import its own layer, ``base``, and the layers its layer lists —
   nothing else. Top to bottom, the order of issue #21 (cli → build/report → papers → results → run →
   protocol/evaluation → algorithms / data → kernels), refined into two stacks that ``cli`` and
   ``build`` join:

   * the *table side* reads the files a run wrote and never computes: ``report`` (report, plots/*)
     → ``papers`` → ``results`` (results/*), which may also read
     ``config`` (YAML configs and their ``base:`` chains, the validated experiment) and ``data``
     (dataset cards);
   * the *computing side*: ``run`` → ``diagnostics`` (beside the protocol: tasks the runner runs, which
     may summarise their output through the results model) → ``evaluation`` (``fsbench.evaluation``:
     protocol, resampling, classifiers, pairwise, plugins) → ``config`` (``fsbench.config``: files,
     the validated experiment and the classifier names it checks, importing no algorithm) →
     ``algorithms`` / ``data``;
   * ``build`` (one build of every artifact) may import both sides; ``cli`` anything;
   * ``base``, importable from everywhere: the package root (its version), ``fsbench._malloc``,
     ``fsbench.algorithms.kernels`` and ``fsbench.results.schema`` (the columns both sides name).

   So ``papers → diagnostics`` (a report that computes), ``results → papers`` and ``diagnostics →
   papers`` are upward.
3. **Function-level imports only for an optional or heavy dependency** (:data:`LAZY_OK`: matplotlib,
   dask, h5py, openml, and scikit-learn's / scipy's file readers, which ``fsbench data list`` does not
   need), each with a ``#`` comment saying why, on the import or in the import lines just above it.
   ``fsbench/cli.py`` is exempt: it imports lazily everywhere so that ``fsbench --help`` starts fast.

:data:`KNOWN_VIOLATIONS` (empty) lists tolerated violations; the test fails on any violation not listed,
and on a listed one that no longer occurs.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: layer -> (module prefixes, layers it may import besides itself and ``base``). A prefix matches the
#: module of that name and every module below it, except ``fsbench``, which matches only the package
#: root (its ``__init__``). ``cli`` may import anything.
LAYERS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "cli": (("fsbench.cli",), ()),
    "build": (
        ("fsbench.build",),
        (
            "report",
            "papers",
            "results",
            "run",
            "diagnostics",
            "evaluation",
            "config",
            "algorithms",
            "data",
        ),
    ),
    "report": (
        ("fsbench.report", "fsbench.plots"),
        ("papers", "results", "config", "data"),
    ),
    "papers": (("fsbench.papers",), ("results", "config", "data")),
    "results": (("fsbench.results",), ("config", "data")),
    "run": (("fsbench.run",), ("diagnostics", "evaluation", "config", "algorithms", "data")),
    "diagnostics": (
        ("fsbench.diagnostics",),
        ("results", "evaluation", "config", "algorithms", "data"),
    ),
    "evaluation": (
        ("fsbench.evaluation",),
        ("config", "algorithms", "data"),
    ),
    "config": (("fsbench.config",), ()),
    "algorithms": (("fsbench.algorithms",), ()),
    "data": (("fsbench.data",), ()),
    "base": (
        (
            "fsbench",
            "fsbench._malloc",
            "fsbench.algorithms.kernels",
            "fsbench.algorithms.kernel_names",
            "fsbench.results.schema",
            "fsbench.results.run_state",
            "fsbench.results.table_files",
            "fsbench.processes",
        ),
        (),
    ),
}

#: Modules a function may import lazily (each with a comment): optional dependencies, or heavy ones that
#: a command which does not need them should not pay for at start-up.
LAZY_OK = ("matplotlib", "dask", "distributed", "h5py", "openml", "sklearn.datasets", "scipy.io")

#: Files where any import may be function-level (start-up time of the command line).
LAZY_ANYWHERE = {"fsbench/cli.py"}

#: (rule, file, imported module) tolerated for now: none. Kept so that a refactoring in several steps can
#: list what it has not fixed yet; an entry that no longer occurs fails the test, so it cannot go stale.
KNOWN_VIOLATIONS: set[tuple[str, str, str]] = set()


@dataclass(frozen=True)
class Import:
    """One imported module (``target``: a module of the walked package, or an external name)."""

    file: str
    line: int
    target: str
    internal: bool
    in_function: bool
    commented: bool


def _modules(package: str) -> dict[str, Path]:
    """Dotted name -> file of every module of ``package`` (a top-level directory of the checkout)."""
    out = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _is_type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def _import_nodes(tree: ast.AST) -> list[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement that can run, and whether it is inside a function."""
    found: list[tuple[ast.Import | ast.ImportFrom, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if _is_type_checking(child):
                for other in child.orelse:
                    visit(other, in_function)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append((child, in_function))
            is_function = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            visit(child, in_function or is_function)

    visit(tree, False)
    return found


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The longest prefix of ``name`` that is a module of the package (None: an external module)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _commented(lines: list[str], node: ast.Import | ast.ImportFrom) -> bool:
    """A ``#`` comment on a line of the import statement, or in the import preamble above it (blank
    lines, imports, ``matplotlib.use(...)``) on a line of its own or on an import of the same package:
    one comment may explain ``import matplotlib``, ``matplotlib.use("Agg")``, ``import matplotlib.pyplot``.
    """
    first = node.lineno - 1
    if any("#" in s for s in lines[first : (node.end_lineno or node.lineno)]):
        return True
    name = node.names[0].name if isinstance(node, ast.Import) else (node.module or "")
    package = name.split(".")[0]
    for line in reversed(lines[:first]):
        line = line.strip()
        if line.startswith("#"):
            return True
        if not line or line.startswith("matplotlib.use("):
            continue
        if not line.startswith(("import ", "from ")):
            return False
        if "#" in line and line.split()[1].split(".")[0] == package:
            return True
    return False


def _imports(package: str) -> tuple[dict[str, Path], list[tuple[str, Import]]]:
    """The modules of ``package`` and every (importing module, import) in them."""
    modules = _modules(package)
    out = []
    for name, path in modules.items():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        rel = path.relative_to(ROOT).as_posix()
        is_pkg = path.name == "__init__.py"
        for node, in_function in _import_nodes(ast.parse(text)):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    parts = name.split(".") if is_pkg else name.split(".")[:-1]
                    parts = parts[: len(parts) - node.level + 1]
                    base = ".".join(parts + ([node.module] if node.module else []))
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            for target in dict.fromkeys(names):
                internal = _resolve(target, modules)
                commented = _commented(lines, node)
                found = internal or target
                imp = Import(rel, node.lineno, found, internal is not None, in_function, commented)
                out.append((name, imp))
    return modules, out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (a path that ends where it starts) per strongly connected component that has one."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def strongconnect(v: str) -> None:  # Tarjan
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                components.append(comp)

    for v in sorted(graph):
        if v not in index:
            strongconnect(v)
    cycles = []
    for comp in components:
        start = min(comp)
        # shortest way back to start inside the component (breadth first)
        prev: dict[str, str] = {}
        frontier = [start]
        while frontier and start not in prev:
            nxt = []
            for v in frontier:
                for w in sorted(graph.get(v, set()) & comp):
                    if w not in prev:
                        prev[w] = v
                        nxt.append(w)
            frontier = nxt
        path = [start]
        while path[-1] != start or len(path) == 1:
            path.append(prev[path[-1]])
        cycles.append(path[::-1])
    return cycles


def _graph(package: str) -> tuple[dict[str, set[str]], dict[tuple[str, str], Import]]:
    modules, imports = _imports(package)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    where: dict[tuple[str, str], Import] = {}
    for src, imp in imports:
        if imp.internal and imp.target != src:
            graph[src].add(imp.target)
            where.setdefault((src, imp.target), imp)
    return graph, where


def layer_of(module: str) -> str | None:
    """The layer of an ``fsbench`` module (longest matching prefix of :data:`LAYERS`), or None."""
    best, best_len = None, -1
    for layer, (prefixes, _) in LAYERS.items():
        for p in prefixes:
            hit = module == p or (p != "fsbench" and module.startswith(p + "."))
            if hit and len(p) > best_len:
                best, best_len = layer, len(p)
    return best


def _may_import(src: str, dst: str) -> bool:
    return src == dst or src == "cli" or dst == "base" or dst in LAYERS[src][1]


def violations() -> set[tuple[str, str, str]]:
    """Every (rule, file, imported module) that breaks rule 2 (``upward``) or 3 (``function-level``)."""
    found = set()
    _, imports = _imports("fsbench")
    for src, imp in imports:
        if imp.internal:
            a, b = layer_of(src), layer_of(imp.target)
            if a and b and not _may_import(a, b):
                found.add(("upward", imp.file, imp.target))
    for package in ("fsbench", "benchmarks"):
        _, imports = _imports(package)
        for _src, imp in imports:
            if not imp.in_function or imp.file in LAZY_ANYWHERE:
                continue
            lazy = any(imp.target == m or imp.target.startswith(m + ".") for m in LAZY_OK)
            lazy_ok = lazy and not imp.internal
            if not (lazy_ok and imp.commented):
                found.add(("function-level", imp.file, imp.target))
    return found


def _describe(v: tuple[str, str, str]) -> str:
    rule, file, target = v
    if rule == "upward":
        return f"{file} imports {target} (layer {layer_of(file[:-3].replace('/', '.'))} → {layer_of(target)})"
    return f"{file}: function-level import of {target} (only LAZY_OK modules, with a comment)"


# ------------------------------------------------------------------------------------------ the checks
@pytest.mark.parametrize("package", ["fsbench", "benchmarks"])
def test_no_import_cycle(package):
    graph, where = _graph(package)
    cycles = _cycles(graph)
    shown = []
    for c in cycles:
        lines = ", ".join(f"{where[a, b].file}:{where[a, b].line}" for a, b in zip(c, c[1:]))
        shown.append(f"{' -> '.join(c)}  ({lines})")
    assert not cycles, "import cycles:\n" + "\n".join(shown)


def test_every_module_has_a_layer():
    missing = [m for m in _modules("fsbench") if layer_of(m) is None]
    assert not missing, f"add these modules to LAYERS: {missing}"


def test_no_upward_or_needless_function_level_import():
    new = sorted(violations() - KNOWN_VIOLATIONS)
    assert not new, "layering violations:\n" + "\n".join(_describe(v) for v in new)


def test_known_violations_still_occur():
    gone = sorted(KNOWN_VIOLATIONS - violations())
    assert not gone, f"fixed, remove from KNOWN_VIOLATIONS: {gone}"


# ------------------------------------------------------------------------------------- the checker itself
def test_checker_finds_a_cycle_and_its_path():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    cycles = sorted(_cycles(graph))
    assert cycles == [["a", "b", "c", "a"], ["e", "e"]]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_checker_sees_function_level_and_relative_imports(tmp_path, monkeypatch):
    pkg = tmp_path / "toy"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from toy.sub import b\n")
    (pkg / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from toy import c\n"
        "def f():\n    from .. import a  # lazy\n    import matplotlib\n"
        "def g():\n    import matplotlib  # optional\n\n    matplotlib.use('Agg')\n"
        "    import matplotlib.pyplot\n"
    )
    (pkg / "c.py").write_text("from .sub.b import f\n")
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    graph, where = _graph("toy")
    assert graph["toy.a"] == {"toy.sub.b"}  # `from toy.sub import b`: the submodule
    assert graph["toy.sub.b"] == {"toy.a"}  # relative, in a function; the TYPE_CHECKING import skipped
    assert graph["toy.c"] == {"toy.sub.b"}
    assert where["toy.sub.b", "toy.a"].in_function and where["toy.sub.b", "toy.a"].commented
    assert _cycles(graph) == [["toy.a", "toy.sub.b", "toy.a"]]
    _, imports = _imports("toy")
    mpl = [i for _, i in imports if i.target.startswith("matplotlib")]
    assert [(i.target, i.in_function, i.internal, i.commented) for i in mpl] == [
        ("matplotlib", True, False, False),  # f: the comment of the import above it is not its own
        ("matplotlib", True, False, True),
        ("matplotlib.pyplot", True, False, True),  # g: one comment for the preamble
    ]


def test_layers_are_read_as_declared():
    assert layer_of("fsbench") == "base"
    assert layer_of("fsbench.algorithms.kernels") == "base"
    assert layer_of("fsbench.algorithms.svm") == "algorithms"
    assert layer_of("fsbench.results.schema") == "base"
    assert layer_of("fsbench.results.loading") == "results"
    assert layer_of("fsbench.diagnostics.base") == "diagnostics"
    assert layer_of("fsbench.config.experiment") == "config"
    assert layer_of("fsbench.evaluation.protocol") == "evaluation"
    assert layer_of("fsbench.nowhere") is None  # the root prefix does not swallow new modules
    assert not _may_import("papers", "diagnostics") and not _may_import("evaluation", "results")
    assert not _may_import("results", "papers") and not _may_import("diagnostics", "papers")
    assert _may_import("run", "evaluation") and _may_import("papers", "results")
    assert _may_import("cli", "papers") and _may_import("evaluation", "base")
    assert _may_import("diagnostics", "results") and _may_import("build", "run")
