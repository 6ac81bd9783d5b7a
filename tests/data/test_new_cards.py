"""The 33 cards added for the mirror's high-dimensional (.mat) and KEEL (.dat) sets parse to what they claim.

The numbers below are written independently of the cards (from the mirror's INDEX.md / PROVENANCE.md and from
loading the files), so a wrong card fails here even though the loader checks the card's own ``expected``.
The quirks the cards' notes state (discretised values, constant columns, shared patients, relabelled
files) are checked too, so that a note cannot silently go stale.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from fsbench.data import TableDataset, get_card, open_dataset
from fsbench.data.cards import card_names


def _mirror() -> Path | None:
    env = [Path(p) for p in os.environ.get("FSBENCH_DATA_DIR", "").split(os.pathsep) if p.strip()]
    fallback = Path(__file__).resolve().parents[3] / "shared" / "datasets"
    # an older mirror without the new folders counts as absent (skip, not fail)
    return next((d for d in [*env, fallback] if (d / "allaml" / "ALLAML.mat").is_file()), None)


MIRROR = _mirror()
pytestmark = [
    pytest.mark.mirror,
    pytest.mark.skipif(MIRROR is None, reason="mirror with the new sets not found: set FSBENCH_DATA_DIR"),
]


def _seq(counts: list[int], start: int = 1) -> dict[int, int]:
    return {start + i: c for i, c in enumerate(counts)}


# card: (n, D, class counts, number of categorical columns, number of constant columns)
HIGH_DIM: dict[str, tuple] = {
    "allaml": (72, 7129, {"ALL": 47, "AML": 25}, 0, 0),
    "leukemia": (72, 7070, {"ALL": 47, "AML": 25}, 0, 0),
    "colon": (62, 2000, {"normal": 22, "tumour": 40}, 0, 0),
    "nci9": (60, 9712, _seq([9, 9, 8, 5, 7, 6, 8, 6, 2]), 0, 0),
    "glioma": (50, 4434, _seq([14, 7, 14, 15]), 0, 0),
    "prostate_ge": (102, 5966, {"normal": 50, "tumour": 52}, 0, 0),
    "tox_171": (171, 5748, _seq([45, 45, 39, 42]), 0, 0),
    "arcene": (200, 10000, {1: 88, 2: 112}, 0, 39),
    "tumors_9": (60, 5726, _seq([7, 8, 6, 6, 8, 8, 2, 6, 9]), 0, 0),
    "adenoma": (36, 7457, {1: 18, 2: 18}, 0, 0),
    "brain_tumor_2": (50, 10367, _seq([7, 14, 15, 14]), 0, 0),
}
KEEL: dict[str, tuple] = {
    "bands": (365, 19, {"band": 135, "noband": 230}, 0, 0),
    "breast_ljubljana": (277, 9, {"no-recurrence-events": 196, "recurrence-events": 81}, 8, 0),
    "chess_krvskp": (3196, 36, {"nowin": 1527, "won": 1669}, 36, 0),
    "contraceptive": (1473, 9, {"no_use": 629, "long_term": 333, "short_term": 511}, 4, 0),
    "housevotes": (232, 16, {"democrat": 124, "republican": 108}, 16, 0),
    "led7digit": (500, 7, _seq([45, 37, 51, 57, 52, 52, 47, 57, 53, 49], 0), 0, 0),
    "magic": (19020, 10, {"g": 12332, "h": 6688}, 0, 0),
    "marketing": (6876, 13, _seq([1255, 529, 505, 618, 527, 846, 784, 1069, 743]), 8, 0),
    "keel_monk2": (432, 6, {0: 204, 1: 228}, 6, 0),
    "movement_libras": (360, 90, _seq([24] * 15), 0, 0),
    "mushroom": (5644, 22, {"e": 3488, "p": 2156}, 22, 1),
    "optdigits": (5620, 64, _seq([554, 571, 557, 572, 568, 558, 558, 566, 554, 562], 0), 0, 2),
    "penbased": (10992, 16, _seq([1143, 1143, 1144, 1055, 1144, 1055, 1056, 1142, 1055, 1055], 0), 0, 0),
    "ringnorm": (7400, 20, {0: 3664, 1: 3736}, 0, 0),
    "saheart": (462, 9, {0: 302, 1: 160}, 1, 0),
    "splice": (3190, 60, {"EI": 767, "IE": 768, "N": 1655}, 60, 0),
    "texture": (5500, 40, {k: 500 for k in (2, 3, 4, 6, 7, 8, 9, 10, 12, 13, 14)}, 0, 0),
    "tictactoe": (958, 9, {"negative": 332, "positive": 626}, 9, 0),
    "twonorm": (7400, 20, {0: 3703, 1: 3697}, 0, 0),
    "vowel": (990, 13, _seq([90] * 11, 0), 3, 0),
    "wdbc": (569, 30, {"B": 357, "M": 212}, 0, 0),
    "wine": (178, 13, {1: 59, 2: 71, 3: 48}, 0, 0),
}
EXPECTED = {**HIGH_DIM, **KEEL}


@pytest.fixture(autouse=True)
def _use_mirror(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FSBENCH_DATA_DIR", str(MIRROR))
    monkeypatch.setenv("FSBENCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("FSBENCH_CARDS_DIR", raising=False)


def _counts(y: np.ndarray) -> dict:
    labels, counts = np.unique(y, return_counts=True)
    return {lbl.item(): int(c) for lbl, c in zip(labels, counts, strict=True)}


def _n_constant(X: np.ndarray) -> int:
    return int((X.max(axis=0) == X.min(axis=0)).sum())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_card_parses_to_expected(name: str) -> None:
    n, d, counts, n_cat, n_const = EXPECTED[name]
    ds = open_dataset(name)
    assert isinstance(ds, TableDataset)
    assert ds.source.startswith("mirror")
    assert ds.X.shape == (n, d) and ds.X.dtype == np.float64
    assert len(ds.feature_names) == d and ds.categorical.shape == (d,)
    assert int(ds.categorical.sum()) == n_cat
    assert _counts(ds.y) == counts
    assert np.isfinite(ds.X).all()  # every new card is `missing: none`
    assert _n_constant(ds.X) == n_const
    assert ds.X_test is None
    card = get_card(name)
    assert (card.n_samples, card.n_features, card.missing) == (n, d, "none")
    assert card.notes and card.sources[0].id == "mirror"


def test_names_avoid_the_ring_clash() -> None:
    # KEEL's 'ring' is Breiman's ringnorm; 'ring' next to ring_fig1 / the ring2015 configs would mislead
    names = set(card_names())
    assert {"ringnorm", "keel_monk2"} <= names and not {"ring", "monk2"} & names


@pytest.mark.parametrize("name", ["leukemia", "colon", "nci9", "lymphoma"])
def test_discretised_sets(name: str) -> None:
    assert np.unique(open_dataset(name).X).tolist() == [-2.0, 0.0, 2.0]


def test_allaml_and_leukemia_are_the_same_patients() -> None:
    allaml, leukemia = open_dataset("allaml"), open_dataset("leukemia")
    # the files code the classes the other way round; after the class maps the rows agree one by one
    np.testing.assert_array_equal(allaml.y, leukemia.y)
    # leukemia column j is a monotone discretisation of allaml column j + 59: no rank inversions
    a, lk = allaml.X[:, 59:], leukemia.X
    order = np.argsort(a, axis=0, kind="stable")
    assert (np.diff(np.take_along_axis(lk, order, axis=0), axis=0) >= 0).all()
    # allaml's genes are z-scored over all 72 samples (the note's "small leak")
    np.testing.assert_allclose(allaml.X.mean(axis=0), 0, atol=1e-5)
    np.testing.assert_allclose(allaml.X.std(axis=0, ddof=1), 1, atol=1e-5)


def test_glioma_is_brain_tumor_2_relabelled() -> None:
    glioma, brain = open_dataset("glioma"), open_dataset("brain_tumor_2")
    np.testing.assert_array_equal(brain.y, np.array([4, 1, 2, 3])[glioma.y - 1])
    assert glioma.X.min() == pytest.approx(np.log10(20))


def test_tiny_classes() -> None:
    assert min(_counts(open_dataset("nci9").y).values()) == 2
    assert _counts(open_dataset("tumors_9").y)[7] == 2


def test_keel_monk2_follows_the_monk3_rule() -> None:
    ds = open_dataset("keel_monk2")
    a = {name: ds.X[:, j] for j, name in enumerate(ds.feature_names)}
    monk3 = ((a["jacket_color"] == 3) & (a["holding"] == 1)) | (
        (a["jacket_color"] != 4) & (a["body_shape"] != 3)
    )
    np.testing.assert_array_equal(ds.y, monk3.astype(int))
    assert len(np.unique(ds.X, axis=0)) == 432  # every attribute combination once


def test_string_levels_are_coded_in_sorted_order() -> None:
    breast = open_dataset("breast_ljubljana")
    # lexicographic, not numeric: the interval '5-9' sits between '45-49' and '50-54'
    assert breast.categories["tumor_size"].index("5-9") == 9
    assert not breast.categorical[breast.feature_names.index("deg_malig")]
    tic = open_dataset("tictactoe")
    assert all(levels == ["b", "o", "x"] for levels in tic.categories.values())
    splice = open_dataset("splice")
    assert {lvl for levels in splice.categories.values() for lvl in levels} == set("ACDGNRST")
    # integer-coded nominal columns keep their values (contraceptive's husband_occupation is 1..4)
    cmc = open_dataset("contraceptive")
    j = cmc.feature_names.index("husband_occupation")
    assert cmc.categorical[j] and np.unique(cmc.X[:, j]).tolist() == [1.0, 2.0, 3.0, 4.0]


def test_texture_stores_one_feature_four_times() -> None:
    X = open_dataset("texture").X
    for j in (10, 20, 30):
        np.testing.assert_array_equal(X[:, 0], X[:, j])
