"""Claims under the readings (:mod:`fsbench.papers.readings.claims`): every claim re-evaluated by its own
checks with a reading's rows in place of the default's, beside the default verdict.

* a verdict that differs between the default and a reading (figure reading with a method mapping; table
  reading that reads another column; table reading of another experiment at another ``where``);
* which readings a claim is re-evaluated under (its figure's, or the same run's when they replace a method
  it names) and which not;
* a reading that covers fewer points than the default is not set beside the default's verdict;
* the verdicts survive comparison.json, are rendered, and the committed TAKES report shows them.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from conftest import cell_rows

from fsbench.papers.checks import FAILS, HOLDS, NOT_EVALUABLE
from fsbench.papers.compare import compare_values
from fsbench.papers.comparison import from_json, read_comparison, to_json
from fsbench.papers.render import render_comparison

ROOT = Path(__file__).resolve().parents[2]


def _rows(
    experiment: str, selector: str, mean: float, dataset: str, name: str | None = None, n: int = 10
) -> pd.DataFrame:
    # deterministic errors around `mean` (no RNG); `name` = the selector's registry name (default: the label)
    return cell_rows(experiment, selector, mean, dataset=dataset, n=n, name=name)


def _claim(cid: str, figure: str, a: str, b: str) -> dict:
    return {
        "id": cid,
        "figure": figure,
        "statement": f"{a} better than {b} on every dataset",
        "checks": [{"kind": "better", "selectors": [a], "than": [b], "x": "dataset", "aggregate": "each"}],
    }


#: Two figures drawn from one run (fig2: a vs b; fig3: c vs b), and readings of fig2.
VALUES = {
    "figures": [{"id": "fig2", "experiment": "run"}, {"id": "fig3", "experiment": "run"}],
    "claims": [_claim("a_beats_b", "fig2", "a", "b"), _claim("c_beats_b", "fig3", "c", "b")],
    "readings": [
        {
            "id": "a_variant",
            "figure": "fig2",
            "experiment": "variants",
            "methods": {"a": "a (variant)"},
            "label": "a read otherwise",
            "changes": "a's stop rule",
        },
        {
            "id": "c_variant",
            "figure": "fig2",
            "experiment": "variants",
            "methods": {"c": "c (variant)"},
            "label": "c read otherwise",
            "changes": "c's stop rule",
        },
        {
            "id": "a_half",
            "figure": "fig2",
            "experiment": "half",
            "methods": {"a": "a (half)"},
            "label": "a on one dataset",
            "changes": "a's width",
        },
        {
            "id": "moved",
            "figure": "fig2",
            "methods": {"a": "a"},
            "set": {"S": 2},
            "label": "a at S = 2",
            "changes": "S",
        },
    ],
}


def _frame() -> pd.DataFrame:
    parts = []
    for ds in ("d1", "d2"):
        parts += [
            _rows("run", "a", 0.30, ds),  # the default: a worse than b on both datasets
            _rows("run", "b", 0.20, ds),
            _rows("run", "c", 0.10, ds),  # c better than b on both
            _rows("variants", "a (variant)", 0.10, ds, name="a"),  # the reading: a better than b
            _rows("variants", "c (variant)", 0.40, ds, name="c"),  # the reading: c worse than b
        ]
    parts.append(_rows("half", "a (half)", 0.10, "d1", name="a"))  # one dataset of two only
    return pd.concat(parts, ignore_index=True)


def _under(cmp, claim_id: str) -> dict:
    (cl,) = [c for c in cmp.claims if c.id == claim_id]
    return cl, {u.reading: u for u in cl.readings}


def test_a_verdict_differs_between_the_default_and_a_figure_reading() -> None:
    cmp = compare_values("toy", VALUES, {}, _frame())
    cl, under = _under(cmp, "a_beats_b")
    assert cl.status == FAILS  # the default's verdict is the default's, whatever the readings say
    assert under["a_variant"].status == HOLDS and under["a_variant"].comparable
    # the reading's a (10 %) in place of the default's (30 %), b the default's own
    assert "d1: a 10.00 %, b 20.00 %; d2: a 10.00 %, b 20.00 %" in under["a_variant"].checks[0].detail
    # the claim of the other figure drawn from the same run, under a reading of c declared for fig2
    cl3, under3 = _under(cmp, "c_beats_b")
    assert cl3.status == HOLDS and under3["c_variant"].status == FAILS and under3["c_variant"].comparable
    # the figure reading lists the claims it flips, default vs reading
    (fr,) = [f for f in cmp.figure_readings if f.reading == "c_variant"]
    assert [(c.id, c.default, c.reading) for c in fr.claims] == [("c_beats_b", HOLDS, FAILS)]
    summary, body = render_comparison(cmp)
    assert "#### Claims under the readings" in body
    assert "| `a_beats_b` | ✗ does not hold | `a_variant` a read otherwise | ✓ holds | **changes** |" in body
    assert "| `c_beats_b` | ✓ holds | `c_variant` c read otherwise | ✗ does not hold | **changes** |" in body
    assert "  - under reading `a_variant` (a read otherwise): ✓ holds" in body


def test_a_claim_is_re_evaluated_only_under_readings_of_methods_it_names() -> None:
    cmp = compare_values("toy", VALUES, {}, _frame())
    _, under = _under(cmp, "a_beats_b")
    assert list(under) == ["a_variant", "a_half", "moved"]  # c_variant replaces no method a_beats_b names
    _, under3 = _under(cmp, "c_beats_b")
    assert list(under3) == ["c_variant"]


def test_a_reading_with_fewer_points_is_not_set_beside_the_default() -> None:
    cmp = compare_values("toy", VALUES, {}, _frame())
    _, under = _under(cmp, "a_beats_b")
    half = under["a_half"]
    # the reading has a on d1 only: the check compares 1 of the default's 2 datasets
    assert not half.comparable and half.note == "check 1: 1 of the default's 2 points"
    (fr,) = [f for f in cmp.figure_readings if f.reading == "a_half"]
    assert fr.claims == []
    _, body = render_comparison(cmp)
    assert "not comparable (check 1: 1 of the default's 2 points): ✓ holds |  |" in body


def test_a_reading_that_moves_cells_is_not_re_evaluated() -> None:
    cmp = compare_values("toy", VALUES, {}, _frame())
    _, under = _under(cmp, "a_beats_b")
    moved = under["moved"]
    assert moved.status == NOT_EVALUABLE and not moved.comparable and not moved.checks
    assert moved.note.startswith("not re-evaluated: the reading moves cells to other settings (set: S)")


def _table_rows(experiment: str, gamma_rule: str, kobl: tuple[float, float], kgs: tuple[float, float]):
    # a diagnostic's table: the method in `learner`, two measured columns (E on the training split, held out)
    rows = []
    for ds in ("d1", "d2", "d3"):
        for learner, (e_train, e_test) in (("kobl", kobl), ("kgs", kgs)):
            for rep in range(5):
                rows.append(
                    {
                        "experiment": experiment,
                        "dataset": ds,
                        "learner": learner,
                        "gamma_rule": gamma_rule,
                        "repeat": rep,
                        "split_seed": 100 + rep,
                        "E_train": e_train + 0.001 * rep,
                        "E_test": e_test + 0.001 * rep,
                        "status": "ok",
                        "task_id": f"{experiment}-{ds}-{rep}",
                    }
                )
    return pd.DataFrame(rows)


TABLE_VALUES = {
    "tables": [
        {
            "id": "table2",
            "number": "2",
            "experiment": "t2",
            "metric": "value",
            "column": "E_train",
            "method_column": "learner",
            "where": {"gamma_rule": "median"},
            "cells": [],
        },
    ],
    "claims": [
        {
            "id": "kobl_smallest",
            "table": "table2",
            "statement": "E(KOBL) < E(KGS)",
            "checks": [
                {
                    "kind": "better",
                    "selectors": ["kobl"],
                    "than": ["kgs"],
                    "metric": "E_train",
                    "x": "dataset",
                    "aggregate": "each",
                }
            ],
        },
    ],
    "readings": [
        {
            "id": "held_out",
            "table": "table2",
            "table_set": {"column": "E_test"},
            "label": "E held out",
            "changes": "where E is measured",
        },
        {
            "id": "wide",
            "table": "table2",
            "table_set": {"where": {"gamma_rule": "median/4"}},
            "label": "wide",
            "changes": "the width",
        },
        {
            "id": "other_run",
            "table": "table2",
            "experiment": "t2_half",
            "table_set": {"where": {"gamma_rule": "median/2"}},
            "label": "half",
            "changes": "the width",
        },
    ],
}


def test_table_readings_read_their_column_and_rows() -> None:
    df = pd.concat(
        [
            _table_rows("t2", "median", kobl=(0.10, 0.40), kgs=(0.20, 0.30)),  # E_train: kobl smaller
            _table_rows("t2", "median/4", kobl=(0.10, 0.20), kgs=(0.20, 0.30)),  # same ordering
            _table_rows("t2_half", "median/2", kobl=(0.30, 0.10), kgs=(0.20, 0.30)),  # kobl larger
        ],
        ignore_index=True,
    )
    cmp = compare_values("toy", TABLE_VALUES, {}, df)
    cl, under = _under(cmp, "kobl_smallest")
    assert cl.status == HOLDS
    # `column: E_test` replaces the check's metric E_train: on held-out points kobl 0.40 > kgs 0.30
    assert under["held_out"].status == FAILS and under["held_out"].comparable
    assert "kobl 0.402, kgs 0.302" in under["held_out"].checks[0].detail
    assert under["wide"].status == HOLDS  # `where` read from the same run: median/4 rows
    # another experiment's rows in place of the default's, read at the reading's `where`
    assert (
        under["other_run"].status == FAILS and "kobl 0.302, kgs 0.202" in under["other_run"].checks[0].detail
    )


def test_claim_verdicts_under_readings_survive_comparison_json() -> None:
    cmp = compare_values("toy", VALUES, {}, _frame())
    text = to_json(cmp)
    back = from_json(text)
    assert to_json(back) == text
    assert [(u.reading, u.status, u.comparable) for u in back.claims[0].readings] == [
        (u.reading, u.status, u.comparable) for u in cmp.claims[0].readings
    ]
    assert render_comparison(back) == render_comparison(cmp)


def test_takes_report_shows_each_figure_claim_under_every_run_reading() -> None:
    """The committed TAKES comparison: every claim of Figs. 2–3 that names TAKES is shown under each
    reading of TAKES that was run, the KOBL (all Dim) reading among them, and REPORT.md prints the rows."""
    cmp = read_comparison(ROOT / "results" / "takes2011")
    report = (ROOT / "results" / "takes2011" / "REPORT.md").read_text(encoding="utf-8")
    run = {r.id for r in cmp.readings if r.ran}
    takes_readings = {"takes_kffs_klms", "takes_kffs_d_rounds", "takes_kobl_all_dim", "takes_unweighted"}
    width_readings = {r for r in run if r.startswith("takes_fig23_gamma_")}
    assert takes_readings <= run and width_readings
    for cl in cmp.claims:
        if not cl.where.startswith("fig"):
            continue
        names = {u.reading for u in cl.readings}
        assert width_readings <= names, cl.id  # every method replaced: every claim of the run
        if "TAKES" in cl.statement:
            assert takes_readings <= names, (cl.id, names)
        for u in cl.readings:
            assert f"| `{cl.id}` | " in report and f"`{u.reading}` {u.label}" in report
