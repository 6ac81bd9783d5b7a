"""The code of a task (:mod:`fsbench.run.code`): the static fsbench import closure of the protocol and the
selector's module, read from source text, so that any commit can be hashed the same way."""

from __future__ import annotations

from fsbench.run.code import EXCLUDED, changed_modules, closure, code_hash, selector_roots

SOURCES = {
    "fsbench/evaluation/protocol.py": (
        "from fsbench.algorithms.kernels import rbf\nimport fsbench.algorithms.registry\n"
    ),
    "fsbench/algorithms/__init__.py": "",
    "fsbench/algorithms/kernels.py": "import numpy as np\n",
    "fsbench/algorithms/registry.py": "X = {'a': 'fsbench.algorithms.sel:A'}\n",
    "fsbench/algorithms/sel.py": "def f():\n    from .helpers import g  # a lazy, relative import\n",
    "fsbench/algorithms/helpers.py": "from fsbench.config import experiment\n",
    "fsbench/config/experiment.py": "from fsbench.algorithms import kernels\n",
}


def reader(sources):
    return lambda rel: sources.get(rel)


def test_the_closure_follows_lazy_and_relative_imports_and_leaves_out_the_pinned_modules():
    mods = closure(selector_roots("fsbench.algorithms.sel"), reader(SOURCES))
    assert set(mods) == {
        "fsbench.evaluation.protocol",
        "fsbench.algorithms",
        "fsbench.algorithms.kernels",
        "fsbench.algorithms.sel",
        "fsbench.algorithms.helpers",
    }
    assert not set(mods) & EXCLUDED  # registry and config are pinned otherwise


def test_an_edit_changes_the_hash_of_exactly_the_selectors_that_reach_it():
    before = reader(SOURCES)
    edited = reader(
        {**SOURCES, "fsbench/algorithms/helpers.py": "from fsbench.config import experiment  # edited\n"}
    )
    sel_old, sel_new = (closure(selector_roots("fsbench.algorithms.sel"), r) for r in (before, edited))
    assert code_hash(sel_old) != code_hash(sel_new)
    assert changed_modules(sel_old, sel_new) == ["fsbench.algorithms.helpers"]
    # a selector outside fsbench (a user's class) has the protocol's code only: unaffected
    assert code_hash(closure(selector_roots("mine"), before)) == code_hash(
        closure(selector_roots("mine"), edited)
    )
    # adding a selector to the registry changes no task's code
    grown = reader({**SOURCES, "fsbench/algorithms/registry.py": "X = {'a': 1, 'b': 2}\n"})
    assert closure(selector_roots("fsbench.algorithms.sel"), grown) == sel_old


def test_a_missing_selector_module_is_marked():
    mods = closure(selector_roots("fsbench.algorithms.gone"), reader(SOURCES))
    assert mods["fsbench.algorithms.gone"] == "missing"
