"""The comparison with a paper as an object (:mod:`fsbench.papers.comparison`), committed as
``results/<paper>/comparison.json``, and nothing in fsbench reading ``REPORT.md`` back.

* the object round-trips through JSON (same text, same Markdown), made up and for every committed paper;
* the Markdown of every committed report is what the committed ``comparison.json`` renders, and its counts
  are the ones the report prints;
* the build writes ``comparison.json`` beside the report (a derived file, byte-identical to the committed
  one);
* the readers of the results layer (status block, prose facts) read the same fields the object writes,
  and no module under ``fsbench/`` opens a ``REPORT.md`` for reading (a static scan), except to render
  the report's own HTML page.
"""

from __future__ import annotations

import ast
import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest
from conftest import cell_rows

from fsbench.papers import checks, readings
from fsbench.papers.cells import CellResult
from fsbench.papers.compare import CLAIM_STATUSES, compare_values
from fsbench.papers.comparison import (
    PaperComparison,
    TableComparison,
    from_json,
    read_comparison,
    to_json,
)
from fsbench.papers.render import render_comparison
from fsbench.results import comparison_file, facts

ROOT = Path(__file__).resolve().parents[2]
PAPERS = sorted(p.parent.name for p in (ROOT / "results").glob(f"*/{comparison_file.COMPARISON_FILE}"))


def _rows(experiment: str, selector: str, mean: float, dataset: str = "toy", n: int = 10) -> pd.DataFrame:
    # deterministic errors around `mean` (no RNG): std ≈ 0.3 points
    return cell_rows(experiment, selector, mean, dataset=dataset, n=n, fit_cpu_s=1.0)


#: A made-up paper: a table compared (one cell agrees, one differs and is explained by a reading, one
#: without a paper std), a table whose experiment did not run, two claims.
VALUES = {
    "citation": "Made Up (2020) | a title with a pipe",
    "tables": [
        {
            "id": "table2",
            "number": "II",
            "caption": "errors",
            "experiment": "exp",
            "metric": "error",
            "statistic": "mean ± std",
            "cells": [
                {"dataset": "toy", "kernel": "rbf", "S": 5, "method": "a", "value": 20.0, "std": 1.0},
                {"dataset": "toy", "kernel": "rbf", "S": 5, "method": "b", "value": 10.0, "std": 0.5},
                {"dataset": "toy", "kernel": "rbf", "S": 5, "method": "c", "value": 20.1},
            ],
        },
        {
            "id": "table3",
            "number": "III",
            "caption": "never run",
            "experiment": "absent",
            "metric": "accuracy",
            "unit": "accuracy %",
            "cells": [{"dataset": "toy", "method": "a", "value": 90.0, "std": 1.0, "doubtful": True}],
        },
    ],
    "claims": [
        {
            "id": "a.beats.b",
            "table": "table2",
            "statement": "a is better than b",
            "quote": "a wins",
            "source": "V",
            "checks": [{"kind": "better", "selectors": ["a"], "than": ["b"], "x": "n_features"}],
        },
        {"id": "vague", "table": "table2", "statement": "it is nice", "quote": "nice"},
    ],
    "readings": [
        {"id": "r1", "table": "table2", "experiment": "exp_reading", "label": "other reading", "changes": "x"}
    ],
}


@pytest.fixture
def made_up() -> PaperComparison:
    df = pd.concat(
        [
            _rows("exp", "a", 0.20),
            _rows("exp", "b", 0.20),  # 20 % vs the paper's 10 ± 0.5: differs
            _rows("exp", "c", 0.20),
            _rows("exp_reading", "b", 0.10),  # the reading closes b
        ],
        ignore_index=True,
    )
    return compare_values("madeup", VALUES, {}, df)


def test_made_up_comparison_holds_cells_verdicts_readings_claims_counts(made_up):
    t2, t3 = made_up.tables
    assert [c.status for c in t2.cells] == ["agree", "differ", "agree"]
    assert t2.counts["compared"] == 3 and t2.counts["agree"] == 2 and t2.counts["differ"] == 1
    (d,) = t2.differing
    assert t2.cells[d.cell].method == "b" and d.cls == readings.EXPLAINED and d.reading == "r1"
    assert d.reading_cell is not None and d.reading_cell.status == "agree"
    assert t3.status.startswith("not run") and t3.counts["compared"] == 0 and t3.counts["doubtful"] == 1
    assert made_up.totals["agree"] == 2 and made_up.totals["compared"] == 3
    assert [c.status for c in made_up.claims] == [checks.FAILS, checks.NOT_CHECKABLE]
    assert made_up.claim_counts == {
        checks.HOLDS: 0,
        checks.FAILS: 1,
        checks.NOT_EVALUABLE: 0,
        checks.NOT_CHECKABLE: 1,
    }
    assert made_up.differing_counts == {
        readings.EXPLAINED: 1,
        readings.INCONSISTENT: 0,
        readings.UNEXPLAINED: 0,
    }
    assert [r.id for r in made_up.readings] == ["r1"] and made_up.readings[0].ran


def _same(a: object, b: object) -> bool:
    """Equal, NaN equal to NaN (a dataclass, list, dict or scalar of the tree)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if hasattr(a, "__dataclass_fields__"):
        return type(a) is type(b) and all(_same(getattr(a, f), getattr(b, f)) for f in a.__dataclass_fields__)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def test_made_up_comparison_round_trips_through_json(made_up):
    text = to_json(made_up)
    back = from_json(text)
    assert _same(back, made_up)  # the same tree, field for field (types included: CellResult, tuples)
    assert to_json(back) == text
    assert render_comparison(back) == render_comparison(made_up)
    data = json.loads(text)
    assert list(data) == sorted(data) and text.endswith("}\n")
    # NaN (a cell without a Welch p) is written null and read back as NaN
    c = made_up.tables[0].cells[2]
    assert (
        math.isnan(c.p)
        and data["tables"][0]["cells"][2]["p"] is None
        and math.isnan(back.tables[0].cells[2].p)
    )
    assert "NaN" not in text and "Infinity" not in text


def test_json_keeps_floats_as_written():
    c = CellResult(table="t", setting="s", method="m", paper=0.1 + 0.2, paper_std=None, ours=float("inf"))
    t = TableComparison(
        id="t", number=None, part=None, caption="", experiments=[], metric="error", status="compared",
        name="t", differing_name=None, unit="error %", paper_unit="", statistic="", n_paper=None,
        digits={"value": 1}, decimals=None, normalisation=None, columns=[], notes=[], cells=[c], counts={},
    )  # fmt: skip
    cmp = PaperComparison("p", "p", [t], {}, [], {}, [], {}, [], [], [])
    text = to_json(cmp)
    assert '"paper": 0.30000000000000004' in text and '"ours": "inf"' in text
    back = from_json(text).tables[0].cells[0]
    assert back.paper == 0.1 + 0.2 and back.ours == float("inf") and back.paper_std is None


@pytest.mark.parametrize("paper", PAPERS)
def test_committed_comparison_round_trips(paper):
    text = (ROOT / "results" / paper / comparison_file.COMPARISON_FILE).read_text(encoding="utf-8")
    assert to_json(from_json(text)) == text


@pytest.mark.parametrize("paper", PAPERS)
def test_committed_report_is_rendered_from_committed_comparison(paper):
    """The paper parts of REPORT.md are what comparison.json renders, and the counts REPORT.md prints
    (read here, in a test, with regular expressions; fsbench itself never reads them back) are the
    comparison's."""
    report = (ROOT / "results" / paper / "REPORT.md").read_text(encoding="utf-8")
    cmp = read_comparison(ROOT / "results" / paper)
    summary, text = render_comparison(cmp)
    assert "\n".join(summary) in report and text in report

    tot, tally = cmp.totals, cmp.claim_counts
    m = re.search(r"\*\*Table cells: (\d+) of (\d+) comparable cells agree with the paper\*\*", report)
    assert m and (int(m[1]), int(m[2])) == (tot["agree"], tot["compared"])
    m = re.search(
        r"\*\*Claims: (\d+) hold, (\d+) do not hold, (\d+) not evaluable\*\* .*?, (\d+) not ", report
    )
    assert m and tuple(map(int, m.groups())) == tuple(tally[s] for s in CLAIM_STATUSES)
    m = re.search(
        r"\*\*Of (\d+) differing cells: (\d+) explained by a reading, (\d+) paper inconsistent, (\d+)", report
    )
    counts = cmp.differing_counts
    assert m and tuple(map(int, m.groups())) == (sum(counts.values()), *(counts[c] for c in readings.CLASSES))
    # the per-table count table: one row per table, with the table's counts
    rows = {r[0]: r for r in _md_rows(report, "| table | experiment | status |")}
    assert set(rows) == {t.name for t in cmp.tables}
    for t in cmp.tables:
        keys = ("compared", "agree", "agree_secondary", "differ", "external", "doubtful")
        assert rows[t.name][3:] == [str(t.counts[k]) for k in keys], t.name
    rows = {r[0]: r for r in _md_rows(report, "| table | differing | explained |")}
    assert set(rows) == {t.differing_name for t in cmp.tables if t.differing}
    for t in cmp.tables:
        if t.differing:
            classes = [str(sum(d.cls == c for d in t.differing)) for c in readings.CLASSES]
            explaining = f"`{t.explaining_reading}`" if t.explaining_reading else "–"
            assert rows[t.differing_name][1:] == [str(len(t.differing)), *classes, explaining]


def _md_rows(text: str, header: str) -> list[list[str]]:
    """The rows (cells stripped) of the first Markdown table whose header line starts with ``header``."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(header)), None)
    if start is None:
        return []
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def test_build_writes_the_comparison_beside_the_report(tmp_path):
    """The build's report entry point writes comparison.json, a derived file, as committed."""
    from fsbench.build import Paper, copy_inputs, derived_files, write_paper_report

    paper = "paul2015"
    if paper not in PAPERS:
        pytest.skip(f"no committed results/{paper}/comparison.json")
    copy_inputs(ROOT / "results" / paper, tmp_path / paper)
    write_paper_report(Paper(paper, tmp_path / paper, ROOT / "configs" / paper))
    built = tmp_path / paper / comparison_file.COMPARISON_FILE
    assert built in derived_files(tmp_path / paper)
    assert built.read_bytes() == (ROOT / "results" / paper / comparison_file.COMPARISON_FILE).read_bytes()


# --------------------------------------------------------------------------- the readers of the file
def test_results_layer_reads_the_fields_the_object_writes(made_up):
    """The results layer may not import this one: the names it reads by hand are the object's."""
    assert (comparison_file.CLAIM_HOLDS, comparison_file.CLAIM_FAILS) == (checks.HOLDS, checks.FAILS)
    assert (comparison_file.CLAIM_NOT_EVALUABLE, comparison_file.CLAIM_NOT_CHECKABLE) == (
        checks.NOT_EVALUABLE,
        checks.NOT_CHECKABLE,
    )
    assert comparison_file.EXPLAINED == readings.EXPLAINED
    data = json.loads(to_json(made_up))
    assert {"totals", "claim_counts", "differing_counts", "no_table_cells", "tables", "readings"} <= set(data)
    assert {"name", "differing_name", "counts", "differing"} <= set(data["tables"][0])
    assert {"source", "default"} <= set(data["readings"][0])


def test_report_facts_read_the_comparison(made_up, tmp_path):
    (tmp_path / "madeup").mkdir()
    (tmp_path / "madeup" / comparison_file.COMPARISON_FILE).write_text(to_json(made_up), encoding="utf-8")
    ctx = facts.FactContext(tmp_path, tmp_path)
    assert facts.compute("report_cells(madeup, II, agree)", ctx) == 2
    assert facts.compute("report_cells(madeup, II, compared)", ctx) == 3
    assert facts.compute('report_cells(madeup, II, "agree (secondary, 10 %)")', ctx) == 2
    assert facts.compute("report_differing(madeup, II, explained)", ctx) == 1
    assert facts.compute("report_readings_own(madeup)", ctx) == 1
    with pytest.raises(facts.FactError):
        facts.compute("report_differing(madeup, III, explained)", ctx)  # no differing cell in III


def test_facts_and_status_never_read_a_report(monkeypatch):
    """Computed on the committed tree, the facts and the status block read no REPORT.md."""
    from fsbench.results.docs_status import render_status

    read = Path.read_text

    def no_report(self: Path, *args, **kwargs) -> str:
        assert self.name != "REPORT.md", f"{self} was read"
        return read(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", no_report)
    assert not facts.check(ROOT)
    assert render_status(ROOT / "results")


#: Modules that may open a REPORT.md for reading, and why. The build's check compares every derived
#: file byte for byte without naming any.
REPORT_READERS = {
    "fsbench/results/report_html.py": "REPORT.html is the page of REPORT.md's own text (Markdown → HTML)",
}
_READS = {"read_text", "read_bytes", "open"}


def _report_reads(tree: ast.Module) -> list[int]:
    """Lines of the calls that open a REPORT.md for reading: ``X.read_text()``, ``X.read_bytes()``,
    ``X.open()`` or ``open(X)`` where X is built from the text "REPORT.md" (directly, through a module
    constant, or through a local name assigned from one) or is a parameter named like a report."""
    docstrings = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
    constants = {
        t.id
        for n in tree.body
        if isinstance(n, ast.Assign)
        and isinstance(n.value, ast.Constant)
        and "REPORT.md" in str(n.value.value)
        for t in n.targets
        if isinstance(t, ast.Name)
    }

    def refers(node: ast.AST, tainted: set[str]) -> bool:
        for n in ast.walk(node):
            if isinstance(n, ast.Constant) and id(n) not in docstrings and "REPORT.md" in str(n.value):
                return True
            if isinstance(n, ast.Name) and (n.id in constants or n.id in tainted):
                return True
        return False

    def scope(root: ast.AST) -> list[ast.AST]:
        """The nodes of one scope: a function with its lambdas and nested functions, or the module
        without its functions (each scanned on its own)."""
        out, todo = [], [root]
        while todo:
            n = todo.pop()
            out.append(n)
            for child in ast.iter_child_nodes(n):
                if not (
                    isinstance(root, ast.Module)
                    and isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
                ):
                    todo.append(child)
        return out

    lines = []
    for fn in [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]:
        nodes = scope(fn)
        tainted = set()
        if not isinstance(fn, ast.Module):
            tainted = {a.arg for a in [*fn.args.args, *fn.args.kwonlyargs] if "report" in a.arg.lower()}
        for _ in range(3):  # names assigned from names assigned from a report path
            for n in nodes:
                pairs = []
                if isinstance(n, ast.Assign):
                    pairs = [(t, n.value) for t in n.targets]
                elif isinstance(n, (ast.AnnAssign, ast.NamedExpr)) and n.value is not None:
                    pairs = [(n.target, n.value)]
                elif isinstance(n, (ast.For, ast.comprehension)):
                    pairs = [(n.target, n.iter)]
                for target, value in pairs:
                    if refers(value, tainted):
                        tainted |= {t.id for t in ast.walk(target) if isinstance(t, ast.Name)}
        for n in nodes:
            if not isinstance(n, ast.Call):
                continue
            f = n.func
            if isinstance(f, ast.Attribute) and f.attr in _READS and refers(f.value, tainted):
                lines.append(n.lineno)
            elif isinstance(f, ast.Name) and f.id == "open" and n.args and refers(n.args[0], tainted):
                lines.append(n.lineno)
    return sorted(set(lines))


def test_no_module_reads_a_report_back():
    found = {}
    for path in sorted((ROOT / "fsbench").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        lines = _report_reads(ast.parse(path.read_text(encoding="utf-8")))
        if lines and rel not in REPORT_READERS:
            found[rel] = lines
    assert not found, f"modules reading REPORT.md (read comparison.json instead): {found}"
    for rel in REPORT_READERS:  # each exception still applies (else it goes)
        assert _report_reads(ast.parse((ROOT / rel).read_text(encoding="utf-8"))), rel


@pytest.mark.parametrize(
    ("source", "reads"),
    [
        ('def f(root):\n    return (root / "REPORT.md").read_text()\n', True),
        (
            'REPORT = "REPORT.md"\ndef f(d):\n    for p in d.glob(f"*/{REPORT}"):\n        p.read_text()\n',
            True,
        ),
        ('def f(d):\n    p = d / "REPORT.md"\n    q = p\n    return open(q).read()\n', True),
        ("def f(report):\n    return report.read_text()\n", True),
        ('def f(d):\n    (d / "REPORT.md").write_text("x")\n    return (d / "a.json").read_text()\n', False),
        ('def f(d):\n    """Reads REPORT.md."""\n    return (d / "comparison.json").read_text()\n', False),
    ],
)
def test_report_read_scan(source, reads):
    assert bool(_report_reads(ast.parse(source))) is reads
