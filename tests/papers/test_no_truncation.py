"""Nothing the report writes is cut: a dataset card's first sentence and a claim's evidence are whole."""

from __future__ import annotations

from test_paper_compare import frame, rows

from fsbench.papers.claims import FAILS, evaluate_check
from fsbench.papers.values import card_note


def test_a_long_first_sentence_of_a_card_is_whole(tmp_path):
    words = " ".join(f"w{i}" for i in range(150))  # ~900 characters, one sentence
    (tmp_path / "toy.yaml").write_text(f"name: toy\nnotes: 'Label: {words} has 1 missing label. Second.'\n")
    note = card_note("toy", tmp_path)
    assert note == f"Label: {words} has 1 missing label."
    assert "…" not in note


def test_a_claims_evidence_names_every_point_and_every_failing_pair():
    # five selectors that differ a lot at six S values: "not significant" fails at every S for all 10 pairs
    xs = [1.0, 2.0, 3.0, 5.0, 10.0, 20.0]
    sels = ["a", "b", "c", "d", "e"]
    df = frame(*(rows("e", s, {x: 0.1 + 0.15 * i for x in xs}, sd=0.001) for i, s in enumerate(sels)))
    chk = {"kind": "not_significant", "selectors": sels, "x": "n_features", "aggregate": "each"}
    res = evaluate_check(chk, df, "e")
    assert res.status == FAILS
    assert "…" not in res.detail
    for x in xs:
        assert f"S = {x:g}: 0/10 pairs not significant" in res.detail
    pairs = [f"{a}–{b}" for i, a in enumerate(sels) for b in sels[i + 1 :]]
    # every failing pair at every S, not the first three
    assert all(res.detail.count(f"{p} p") == len(xs) for p in pairs), res.detail
