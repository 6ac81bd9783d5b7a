"""Every figure a build writes carries no date or version: each ``savefig`` / ``imsave`` to a file passes
``metadata=`` (``fsbench.results.tables.figure_metadata``), checked in the source since the build no longer
patches matplotlib to add it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAVERS = {"savefig", "imsave"}
#: Saves that are not build outputs: to an in-memory buffer (the HTML page), or a screenshot's crop.
NOT_BUILT = {("fsbench/results/html.py", "savefig"), ("fsbench/results/page_check.py", "imsave")}


def _saves_without_metadata(source: str) -> list[tuple[int, str]]:
    """(line, name) of each call of a saver without a ``metadata`` keyword."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in SAVERS and not any(k.arg == "metadata" for k in node.keywords):
                out.append((node.lineno, name))
    return out


def test_the_check_finds_a_save_without_metadata():
    src = "fig.savefig('a.png', dpi=100)\nfig.savefig(p, metadata=m)\nplt.imsave(p, x)\n"
    assert _saves_without_metadata(src) == [(1, "savefig"), (3, "imsave")]


def test_every_saved_figure_passes_fixed_metadata():
    files = [*(ROOT / "fsbench").rglob("*.py"), *(ROOT / "configs").rglob("*.py")]
    bad = [
        f"{f.relative_to(ROOT).as_posix()}:{line} {name}"
        for f in files
        for line, name in _saves_without_metadata(f.read_text())
        if (f.relative_to(ROOT).as_posix(), name) not in NOT_BUILT
    ]
    assert not bad, bad
