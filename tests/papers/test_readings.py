"""fsbench.papers.readings: readings as data, the classification of differing cells, substitution markers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from conftest import cell_rows

from fsbench.papers.cells import compare_table
from fsbench.papers.compare import compare_values
from fsbench.papers.readings import (
    EXPLAINED,
    INCONSISTENT,
    UNEXPLAINED,
    ReadingsReport,
    SubstitutionMarks,
    classify_table,
    counts_line,
    read_readings,
    reading_table,
    substitutions,
)
from fsbench.papers.readings import markdown as readings_md
from fsbench.papers.render import paper_sections
from fsbench.papers.values import read_configs
from fsbench.results.loading import load_rows
from fsbench.results.paper_values import read_paper_values

ROOT = Path(__file__).resolve().parents[2]


def _rows(experiment: str, selector: str, mean: float, n: int = 30, dataset: str = "toy") -> pd.DataFrame:
    # errors spread evenly around `mean` (std ≈ 0.6 points): deterministic, no RNG
    return cell_rows(experiment, selector, mean, dataset=dataset, n=n, spread=0.01)


TABLE = {
    "id": "tableX",
    "number": "X",
    "experiment": "default_exp",
    "metric": "error",
    "cells": [
        {"dataset": "toy", "kernel": "rbf", "S": 5, "method": "a", "value": 10.0, "std": 1.0},
        {"dataset": "toy", "kernel": "rbf", "S": 5, "method": "b", "value": 10.0, "std": 1.0},
        {
            "dataset": "toy",
            "kernel": "rbf",
            "S": 5,
            "method": "c",
            "value": 10.0,
            "std": 1.0,
            "paper_inconsistent": 'the paper\'s own text: "c never goes below 30 %"',
        },
        {"dataset": "toy", "kernel": "rbf", "S": 5, "method": "d", "value": 20.0, "std": 1.0},
    ],
}


@pytest.fixture
def df() -> pd.DataFrame:
    return pd.concat(
        [
            _rows("default_exp", "a", 0.20),  # 20 % vs 10 ± 1: differs
            _rows("default_exp", "b", 0.20),  # differs
            _rows("default_exp", "c", 0.20),  # differs, annotated
            _rows("default_exp", "d", 0.20),  # agrees (20 %)
            _rows("reading_exp", "a", 0.10),  # the reading closes a
            _rows("reading_exp", "b", 0.30),  # the reading does not close b
            _rows("reading_exp", "c", 0.10),  # would close c, but the cell is annotated and...
            _rows("closing_but_not_used", "b", 0.10),  # a reading with explains: false closes b
        ],
        ignore_index=True,
    )


READINGS = {
    "readings": [
        {"id": "r1", "table": "tableX", "experiment": "reading_exp", "label": "reading one", "changes": "x"},
        {
            "id": "r2",
            "table": "tableX",
            "experiment": "closing_but_not_used",
            "label": "tuned",
            "changes": "y",
            "explains": False,
            "why": "chosen by the paper's numbers",
        },
        {"id": "other", "table": "tableY", "experiment": "reading_exp", "label": "z", "changes": "z"},
    ]
}


def _compare(df: pd.DataFrame):
    return lambda t: compare_table(t, df)


def test_classification(df: pd.DataFrame) -> None:
    cells = compare_table(TABLE, df)
    assert [c.status for c in cells] == ["differ", "differ", "differ", "agree"]
    classified, by_reading, whole = classify_table(TABLE, cells, read_readings(READINGS), _compare(df))
    got = {c.cell.method: c for c in classified}
    assert set(got) == {"a", "b", "c"}  # the agreeing cell d is not classified
    # a reading that closes the cell → explained, with the reading and its number
    assert got["a"].cls == EXPLAINED and got["a"].reading.id == "r1"
    assert got["a"].reading_cell.status == "agree" and abs(got["a"].reading_cell.ours - 10.0) < 1e-9
    # a reading that does not close it, and one that does but may not explain → unexplained
    assert got["b"].cls == UNEXPLAINED
    assert {r.id for r, _ in got["b"].tried} == {"r1", "r2"}
    # an explaining reading takes precedence; without one the annotation classifies the cell
    assert got["c"].cls == EXPLAINED
    readings_without_c = read_readings({"readings": [{**READINGS["readings"][0], "methods": {"a": "a"}}]})
    classified, _, _ = classify_table(TABLE, cells, readings_without_c, _compare(df))
    got = {c.cell.method: c for c in classified}
    assert got["c"].cls == INCONSISTENT and "never goes below" in got["c"].evidence
    assert got["b"].cls == UNEXPLAINED and got["b"].tried == []  # r1 no longer reads b
    assert "other" not in by_reading  # a reading of another table is not compared here
    # r1 as a whole table: a and c agree, b differs, d has no number (r1 did not run it)
    (w1, w2) = whole
    assert (w1.reading.id, w1.compared, w1.agree, w1.closes, w1.loses, w1.explains) == (
        "r1",
        3,
        2,
        2,
        1,
        True,
    )
    assert (w2.reading.id, w2.agree, w2.explains) == ("r2", 1, False)  # explains: false is never chosen


def test_readings_never_change_the_default(df: pd.DataFrame) -> None:
    before = [(c.status, c.ours) for c in compare_table(TABLE, df)]
    cells = compare_table(TABLE, df)
    classify_table(TABLE, cells, read_readings(READINGS), _compare(df))
    assert [(c.status, c.ours) for c in cells] == before


#: Four cells, all differing under the default; each reading closes some (rows below).
MIXED = {
    "id": "tableM",
    "number": "M",
    "experiment": "default_exp",
    "metric": "error",
    "cells": [
        {"dataset": "toy", "kernel": "rbf", "S": 5, "method": m, "value": 10.0, "std": 1.0} for m in "abcd"
    ],
}


def _mixed_rows(closing: dict[str, str]) -> pd.DataFrame:
    """Default rows (20 %: every cell differs) and, per reading experiment, 10 % (agrees) for the methods
    it closes and 30 % (differs) for the others."""
    parts = [_rows("default_exp", m, 0.20) for m in "abcd"]
    for exp, closed in closing.items():
        parts += [_rows(exp, m, 0.10 if m in closed else 0.30) for m in "abcd"]
    return pd.concat(parts, ignore_index=True)


def _mixed_readings(*exps: str) -> list:
    return read_readings(
        {"readings": [{"id": e, "table": "tableM", "experiment": e, "label": e, "changes": e} for e in exps]}
    )


def test_explained_cells_never_mix_two_readings() -> None:
    # r_ab closes a and b, r_cd closes c and d, r_abc closes a, b, c: cell by cell, r_ab and r_cd together
    # would explain all four; as whole tables the best one reading is r_abc (3 agreeing cells), so exactly
    # a, b and c are explained, by r_abc alone, and d stays unexplained although r_cd closes it
    df = _mixed_rows({"r_ab": "ab", "r_cd": "cd", "r_abc": "abc"})
    cells = compare_table(MIXED, df)
    assert [c.status for c in cells] == ["differ"] * 4
    classified, _, whole = classify_table(
        MIXED, cells, _mixed_readings("r_ab", "r_cd", "r_abc"), _compare(df)
    )
    got = {c.cell.method: c for c in classified}
    assert {m for m, c in got.items() if c.cls == EXPLAINED} == {"a", "b", "c"}
    assert {c.reading.id for c in classified if c.cls == EXPLAINED} == {"r_abc"}
    assert got["d"].cls == UNEXPLAINED
    assert [(r.id, rc.status) for r, rc in got["d"].tried] == [
        ("r_ab", "differ"),
        ("r_cd", "agree"),
        ("r_abc", "differ"),
    ]
    assert [(w.reading.id, w.agree, w.explains) for w in whole] == [
        ("r_ab", 2, False),
        ("r_cd", 2, False),
        ("r_abc", 3, True),
    ]
    # a tie goes to the first declared: r_cd before r_ab explains c and d, and only them
    classified, _, whole = classify_table(MIXED, cells, _mixed_readings("r_cd", "r_ab"), _compare(df))
    assert {c.cell.method: c.reading.id for c in classified if c.cls == EXPLAINED} == {
        "c": "r_cd",
        "d": "r_cd",
    }
    assert [w.explains for w in whole] == [True, False]


def test_the_explaining_reading_is_the_best_whole_table() -> None:
    # two more cells, e and f, agree under the default. r_many closes three differing cells (a, b, c) but
    # loses e and f; r_two closes two (a, b) and keeps them: as whole tables r_two has more agreeing cells
    # (4 against 3), so it is the explaining reading although r_many closes more of the default's cells
    extra = [{**MIXED["cells"][0], "method": m, "value": 20.0} for m in "ef"]
    table = {**MIXED, "cells": [*MIXED["cells"], *extra]}
    df = pd.concat(
        [
            _mixed_rows({"r_many": "abc", "r_two": "ab"}),
            *(_rows("default_exp", m, 0.20) for m in "ef"),  # agree under the default
            *(_rows("r_many", m, 0.40) for m in "ef"),  # r_many loses them
            *(_rows("r_two", m, 0.20) for m in "ef"),  # r_two keeps them
        ],
        ignore_index=True,
    )
    cells = compare_table(table, df)
    assert [c.status for c in cells] == ["differ"] * 4 + ["agree"] * 2
    classified, _, whole = classify_table(table, cells, _mixed_readings("r_many", "r_two"), _compare(df))
    assert [(w.reading.id, w.agree, w.closes, w.loses, w.explains) for w in whole] == [
        ("r_many", 3, 3, 2, False),
        ("r_two", 4, 2, 0, True),
    ]
    assert {c.cell.method for c in classified if c.cls == EXPLAINED} == {"a", "b"}


def test_a_reading_that_closes_nothing_explains_nothing() -> None:
    df = _mixed_rows({"r_none": ""})
    cells = compare_table(MIXED, df)
    classified, _, whole = classify_table(MIXED, cells, _mixed_readings("r_none"), _compare(df))
    assert all(c.cls == UNEXPLAINED for c in classified) and not any(w.explains for w in whole)


@pytest.mark.parametrize("paper", ["ramona2012", "kife2011", "takes2011", "paul2015", "ring2015"])
def test_committed_explained_counts_come_from_one_whole_table_reading(paper: str) -> None:
    data = json.loads((ROOT / "results" / paper / "comparison.json").read_text(encoding="utf-8"))
    for t in data["tables"]:
        used = {d["reading"] for d in t["differing"] if d["cls"] == EXPLAINED}
        assert len(used) <= 1, f"{paper} {t['id']}: explained cells from {sorted(used)}"
        assert used <= {t["explaining_reading"]}, (paper, t["id"])
        chosen = [r for r in t["readings"] if r["explains"]]
        assert [r["reading"] for r in chosen] == (
            [t["explaining_reading"]] if t["explaining_reading"] else []
        )
        if chosen:  # the most agreeing cells as a whole table among the readings that may classify
            assert chosen[0]["agree"] == max(r["agree"] for r in t["readings"] if r["classifies"])
            assert chosen[0]["closes"] == len(used and [d for d in t["differing"] if d["cls"] == EXPLAINED])


def test_counts_line() -> None:
    counts = {EXPLAINED: 2, INCONSISTENT: 1, UNEXPLAINED: 4}
    assert counts_line(counts) == (
        "Of 7 differing cells: 2 explained by a reading, 1 paper inconsistent, 4 unexplained."
    )
    assert counts_line(dict.fromkeys(counts, 0), "in Table II").startswith(
        "Of 0 differing cells in Table II:"
    )


def test_report_counts_and_section(df: pd.DataFrame) -> None:
    rep = ReadingsReport({"tables": [TABLE], **READINGS}, df, {}, compare=_compare(df))
    rep.add_table(TABLE, compare_table(TABLE, df))
    assert rep.totals() == {EXPLAINED: 2, INCONSISTENT: 0, UNEXPLAINED: 1}
    # the same through the whole comparison (the default compare is the engine's on the same rows)
    cmp = compare_values("p", {"tables": [TABLE], **READINGS}, {}, df)
    assert cmp.differing_counts == rep.totals()
    summary = "\n".join(readings_md.summary_lines(cmp))
    assert "Of 3 differing cells: 2 explained by a reading, 0 paper inconsistent, 1 unexplained." in summary
    text = "\n".join(readings_md.section(cmp))
    assert "`r1` reading one" in text and "no: chosen by the paper's numbers" in text
    assert "reading one (`r1`): 10.0 ± 0.6 (n = 30) ✓" in text


def test_reading_table_maps_dataset_method_and_setting() -> None:
    r = read_readings(
        {
            "readings": [
                {
                    "id": "r",
                    "table": "t",
                    "label": "l",
                    "changes": "c",
                    "datasets": {"toy": "toy_raw"},
                    "methods": {"a": "a (variant)"},
                    "applies_to": {"kernel": "rbf"},
                    "set": {"S": {"toy": 7}},
                }
            ]
        }
    )[0]
    t, index = reading_table(TABLE, r)
    assert index == [0]  # only method a is read
    assert t["experiment"] == "default_exp" and t["default_experiment"] == "default_exp"
    assert t["cells"][0] | {} == {**TABLE["cells"][0], "dataset": "toy_raw", "method": "a (variant)", "S": 7}
    assert TABLE["cells"][0]["S"] == 5  # the paper's table is not modified


@pytest.mark.parametrize("mapped_to", ["A", "a"])
def test_reading_mapping_a_method_finds_its_rows_beside_a_table_with_its_own_label_column(mapped_to) -> None:
    # the table names method "a" by our label "A"; a reading maps "a" to that label or to the fsbench
    # name. Another table of the same results (a diagnostic's) has a `label` column, so after the
    # concatenation the rows of the others have none (NaN): their label must still be found.
    table = {**TABLE, "methods": {"a": "A", "b": "B"}, "cells": TABLE["cells"][:2]}
    rows = pd.concat(
        [
            _rows("default_exp", "A", 0.20),
            _rows("reading_exp", "A", 0.10).assign(selector_name="a"),
            _rows("reading_exp", "A2", 0.30).assign(selector_name="a"),  # labels not one-to-one with names
            _rows("diag", "z", 0.5).assign(label="some label"),
        ],
        ignore_index=True,
    )
    r = read_readings(
        {
            "readings": [
                {
                    "id": "r",
                    "table": "tableX",
                    "experiment": "reading_exp",
                    "label": "l",
                    "changes": "c",
                    "methods": {"a": mapped_to},
                }
            ]
        }
    )[0]
    t, index = reading_table(table, r)
    assert index == [0]
    (cell,) = compare_table(t, rows)
    assert cell.status == "agree" and cell.ours == pytest.approx(10.0)


def test_reading_table_set_replaces_where_the_numbers_come_from() -> None:
    entry = {"id": "r", "table": "tableX", "label": "l", "changes": "c"}
    r = read_readings({"readings": [{**entry, "table_set": {"column": "E_test", "where": {"g": "x"}}}]})[0]
    t, index = reading_table({**TABLE, "column": "E_train", "where": {"g": "y"}}, r)
    assert t["column"] == "E_test" and t["where"] == {"g": "x"} and t["experiment"] == "default_exp"
    assert index == list(range(len(TABLE["cells"])))  # every cell is read, as printed
    # a table whose experiment maps datasets to experiments keeps the mapping unless the reading names one
    per_ds = {**TABLE, "experiment": {"toy": "exp_toy"}}
    assert reading_table(per_ds, r)[0]["experiment"] == {"toy": "exp_toy"}


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"id": "x", "label": "l", "changes": "c"}, "exactly one of"),
        ({"id": "x", "table": "t", "figure": "f", "label": "l", "changes": "c"}, "exactly one of"),
        ({"id": "x", "table": "t", "label": "l", "changes": "c", "explains": False}, "needs a `why`"),
        ({"id": "x", "table": "t", "label": "l"}, "`changes` is required"),
        ({"id": "x", "table": "t", "label": "l", "changes": "c", "colour": 1}, "unknown key"),
    ],
)
def test_read_readings_rejects(entry: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        read_readings({"readings": [entry]})


def test_substitution_markers(tmp_path: Path) -> None:
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "toy.yaml").write_text("name: toy\nsubstitution: a discretised copy, not the paper's data\n")
    (cards / "other.yaml").write_text("name: other\nnotes: the original\n")
    cfgs = tmp_path / "configs"
    cfgs.mkdir()
    (cfgs / "default_exp.yaml").write_text("name: default_exp\ndataset: [toy, other]\n")
    (cfgs / "pool_exp.yaml").write_text(
        "name: pool_exp\ndataset: other\nnotes: >-\n  [D] z-score. [D] SUBSTITUTION (other): the test "
        "pool is the rest of the training file.\n"
    )
    configs = read_configs(cfgs)
    subs = substitutions(configs, cards_dir=cards)
    assert {(s.dataset, s.experiment) for s in subs} == {("toy", None), ("other", "pool_exp")}
    marks = SubstitutionMarks(subs)
    table = {
        "id": "t",
        "number": "II",
        "experiment": "default_exp",
        "cells": [
            {"dataset": "toy", "method": "a", "value": 1.0},
            {"dataset": "other", "method": "a", "value": 1.0},
        ],
    }
    cells = compare_table({**table, "metric": "error"}, pd.DataFrame())
    notes = marks.footnotes(marks.mark_cells(table, cells))
    assert cells[0].marks == " †1" and not cells[1].marks and "†" not in cells[0].setting
    assert any("†1 **Substitution** (`toy`, dataset card `toy`): a discretised copy" in n for n in notes)
    # the config's substitution covers only its own experiment (and its pseudo-experiments)
    assert marks.marker("other", "pool_exp") == " †2" and marks.marker("other", "pool_exp:part") == " †2"
    assert marks.marker("other", "default_exp") == ""
    assert "- †2 `other` in `pool_exp` (config `pool_exp.yaml`" in "\n".join(marks.section())


@pytest.mark.parametrize("paper", ["ramona2012", "kife2011", "takes2011"])
def test_papers_readings_are_well_formed(paper: str) -> None:
    pv = read_paper_values(ROOT / "configs" / paper / "paper_values.yaml")
    readings = read_readings(pv)
    assert readings, f"{paper}: no readings declared"
    configs = read_configs(ROOT / "configs" / paper)
    tables = {t["id"] for t in pv.get("tables", [])}
    figures = {f["id"] for f in pv.get("figures", [])}
    for r in readings:
        assert (r.table in tables) if r.table else (r.figure in figures), r.id
        if r.experiment:
            assert r.experiment in configs, f"{paper}: reading {r.id} names no config {r.experiment!r}"
    for t in pv.get("tables", []):
        for c in t.get("cells") or []:
            if "paper_inconsistent" in c:
                assert '"' in str(c["paper_inconsistent"]), "a paper-inconsistent annotation quotes the paper"


@pytest.mark.parametrize("paper", ["kife2011"])
def test_readings_of_takes_and_kife_through_the_engine(paper: str) -> None:
    # their tables are compared by the engine (value and CPU tables) and classified by the same hook;
    # TAKES's (90 s to load its diagnostics) are counted in its comparison.json, which `make check-build`
    # rebuilds byte for byte
    summary_lines, body = paper_sections(paper, load_rows([ROOT / "results" / paper]))
    summary = "\n".join(summary_lines)
    m = re.search(r"Table cells: (\d+) of (\d+) comparable cells agree", summary)
    assert m and int(m.group(2)) > 0 and int(m.group(1)) <= int(m.group(2))
    n = re.search(
        r"Of (\d+) differing cells: (\d+) explained by a reading, (\d+) paper inconsistent, (\d+)", summary
    )
    assert n and int(n.group(1)) == int(m.group(2)) - int(m.group(1))  # every differing cell is classified
    assert sum(map(int, n.groups()[1:])) == int(n.group(1))
    assert "## Alternative readings and the differing cells" in body and "### Readings" in body
    # the per-table counts name every row once (KIFE prints accuracy and time both as "Table II")
    names = re.findall(r"^\| (.+?) \| \d+ \| \d+ \| \d+ \| \d+ \| (?:`[\w-]+`|–) \|$", summary, flags=re.M)
    assert names and len(names) == len(set(names)), names


def test_figure_reading_uses_only_the_mapped_dataset(df: pd.DataFrame) -> None:
    # a figure reading whose experiment holds the default's dataset and a variant: only the variant is read
    rows = pd.concat(
        [
            _rows("fig_default", "a", 0.20),
            _rows("variants", "a", 0.50),  # the default's dataset in the reading's experiment: not read
            _rows("variants", "a", 0.30, dataset="toy_raw"),
        ],
        ignore_index=True,
    )
    values = {
        "figures": [{"id": "figZ", "experiment": "fig_default"}],
        "readings": [
            {
                "id": "raw",
                "figure": "figZ",
                "experiment": "variants",
                "datasets": {"toy": "toy_raw"},
                "label": "raw",
                "changes": "the scaling",
            }
        ],
    }
    text = "\n".join(readings_md.figure_readings_lines(ReadingsReport(values, rows, {}).figures()))
    assert "| toy | a | 5 | 20.0 ± 0.6 (n = 30) | 30.0 ± 0.6 (n = 30) | +10.0 |" in text


@pytest.mark.parametrize("paper", ["paul2015", "ring2015"])
def test_every_report_has_the_readings_section_and_counts(paper: str) -> None:
    # a paper without a comparable printed cell still gets the section, its counts (0) and the reason
    pv = read_paper_values(ROOT / "configs" / paper / "paper_values.yaml")
    summary_lines, body = paper_sections(paper, load_rows([ROOT / "results" / paper]))
    assert "Of 0 differing cells: 0 explained by a reading, 0 paper inconsistent, 0 unexplained" in body
    assert "## Alternative readings and the differing cells" in body
    why = " ".join(str(pv["no_table_cells"]).split())
    assert f"No printed table cell can be compared, so no cell is classified: {why}" in body
    assert any("Of 0 differing cells" in line for line in summary_lines)


def test_differing_cpu_cells_are_shown_normalised_on_both_sides() -> None:
    """KIFE's Table II prints seconds: its block of differing time cells shows the paper's time ÷ the
    table minimum beside ours ÷ the table minimum (the printed seconds in brackets), under the table's
    own name, never the printed seconds next to our normalised time."""
    from fsbench.papers.comparison import read_comparison

    cmp = read_comparison(ROOT / "results" / "kife2011")
    body = "\n".join(readings_md.section(cmp))
    (time,) = [t for t in cmp.tables if t.id == "table2_time"]
    assert time.differing, "KIFE's time part has differing cells"
    block = body.split(f"### Table {time.differing_name} — differing cells", 1)[1].split("###", 1)[0]
    assert "| setting | method | paper ÷ table min | ours (default) ÷ table min | class | evidence |" in block
    for d in time.differing:
        c = time.cells[d.cell]
        row = f"| {readings_md.shown_setting(c)} | {c.method} | {c.paper_norm:.1f} ({c.paper:g} s) | "
        assert row + f"{c.ours:.1f} ± {c.ours_std:.1f} (n = {c.n_ours}) |" in block, row
    # the two parts of Table II are told apart in their headings
    heads = re.findall(r"^### Table (.+) — differing cells$", body, flags=re.M)
    assert len(heads) == len(set(heads)) == sum(bool(t.differing) for t in cmp.tables)
