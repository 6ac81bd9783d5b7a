"""Every card parses from the dataset mirror to the shape and class counts of the papers / PROVENANCE.md.

The numbers below are written independently of the cards (from the mirror's PROVENANCE.md and the papers),
so a wrong card fails here even though the loader also checks the card's own expectations.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from fsbench.data import DatasetError, TableDataset, get_card, open_dataset, verify


def _mirror() -> Path | None:
    env = [Path(p) for p in os.environ.get("FSBENCH_DATA_DIR", "").split(os.pathsep) if p.strip()]
    fallback = Path(__file__).resolve().parents[3] / "shared" / "datasets"
    return next((d for d in [*env, fallback] if (d / "sonar" / "sonar.csv").is_file()), None)


MIRROR = _mirror()
pytestmark = [
    pytest.mark.mirror,
    pytest.mark.skipif(MIRROR is None, reason="dataset mirror not found: set FSBENCH_DATA_DIR"),
]

USPS_TRAIN = [1194, 1005, 731, 658, 652, 556, 664, 645, 542, 644]
USPS_TEST = [359, 264, 198, 166, 200, 160, 170, 147, 166, 177]
ARRHYTHMIA = {1: 245, 2: 44, 3: 15, 4: 15, 5: 13, 6: 25, 7: 3, 8: 2, 9: 9, 10: 50, 14: 4, 15: 5, 16: 22}
SAT_TRAIN = {1: 1072, 2: 479, 3: 961, 4: 415, 5: 470, 7: 1038}
SAT_TEST = {1: 461, 2: 224, 3: 397, 4: 211, 5: 237, 7: 470}
LETTER_ALL = dict(
    zip(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        [
            789,
            766,
            736,
            805,
            768,
            775,
            773,
            734,
            755,
            747,
            739,
            761,
            792,
            783,
            753,
            803,
            783,
            758,
            748,
            796,
            813,
            764,
            752,
            787,
            786,
            734,
        ],
    )
)
LETTER_TEST = dict(
    zip(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        [
            156,
            136,
            142,
            167,
            152,
            153,
            164,
            151,
            165,
            148,
            146,
            157,
            144,
            166,
            139,
            168,
            168,
            161,
            161,
            151,
            168,
            136,
            139,
            159,
            145,
            158,
        ],
    )
)
LETTER_TRAIN = {k: LETTER_ALL[k] - LETTER_TEST[k] for k in LETTER_ALL}
# card: (n, D, class counts, (n_test, test class counts) or None, number of categorical columns)
EXPECTED: dict[str, tuple] = {
    "sonar": (208, 60, {"M": 111, "R": 97}, None, 0),
    "ionosphere": (351, 34, {"g": 225, "b": 126}, None, 0),
    "breast_cancer_wisconsin": (683, 9, {"benign": 444, "malignant": 239}, None, 0),
    "spambase": (4601, 57, {"nonspam": 2788, "spam": 1813}, None, 0),
    "lymphoma": (96, 4026, {"DLBCL_FL_CLL": 66, "other": 30}, None, 0),
    "usps": (7291, 256, dict(enumerate(USPS_TRAIN)), (2007, dict(enumerate(USPS_TEST))), 0),
    "usps_binary": (7291, 256, {-1: 4240, 1: 3051}, (2007, {-1: 1187, 1: 820}), 0),
    "parkinsons": (195, 22, {"PD": 147, "healthy": 48}, None, 0),
    "heart_disease_cleveland": (297, 13, {"healthy": 160, "disease": 137}, None, 7),
    "liver_bupa": (345, 6, {1: 145, 2: 200}, None, 0),
    "musk1": (476, 166, {"musk": 207, "non-musk": 269}, None, 0),
    "pima": (768, 8, {"negative": 500, "diabetic": 268}, None, 0),
    "credit_approval_crx": (690, 15, {"+": 307, "-": 383}, None, 9),
    "german_credit": (1000, 20, {"good": 700, "bad": 300}, None, 13),
    "hepatitis": (155, 19, {"die": 32, "live": 123}, None, 13),
    "horse_colic": (300, 21, {"surgical": 191, "non-surgical": 109}, None, 14),
    "cleve_mod": (303, 13, {"healthy": 165, "disease": 138}, None, 7),
    "arrhythmia": (452, 279, ARRHYTHMIA, None, 73),
    "statlog_australian": (690, 14, {0: 383, 1: 307}, None, 8),
    "statlog_heart": (270, 13, {"absent": 150, "present": 120}, None, 7),
    "thyroid": (215, 5, {"normal": 150, "abnormal": 65}, None, 0),
    "satimage": (4435, 36, SAT_TRAIN, (2000, SAT_TEST), 0),
    "letter": (16000, 16, LETTER_TRAIN, (4000, LETTER_TEST), 0),
    "iris": (150, 4, {"Iris-setosa": 50, "Iris-versicolor": 50, "Iris-virginica": 50}, None, 0),
}
# NaN kept by `missing: keep` cards (counts of '?' in PROVENANCE.md, minus those in dropped columns)
MISSING_KEPT = {
    "credit_approval_crx": 67,
    "hepatitis": 167,
    "horse_colic": 1604,
    "cleve_mod": 7,
    "arrhythmia": 408,
}


def _need_h5py() -> None:
    pytest.importorskip("h5py", reason="usps.h5 needs h5py: pip install 'fsbench[hdf5]'")


@pytest.fixture(autouse=True)
def _use_mirror(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FSBENCH_DATA_DIR", str(MIRROR))
    monkeypatch.setenv("FSBENCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("FSBENCH_CARDS_DIR", raising=False)


def _counts(y: np.ndarray) -> dict:
    labels, counts = np.unique(y, return_counts=True)
    return {
        (lbl.item() if hasattr(lbl, "item") else lbl): int(c) for lbl, c in zip(labels, counts, strict=True)
    }


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_card_parses_to_expected(name: str) -> None:
    n, d, counts, test, n_cat = EXPECTED[name]
    if name.startswith("usps"):
        _need_h5py()
    ds = open_dataset(name)
    assert isinstance(ds, TableDataset)
    assert ds.source.startswith("mirror")
    assert ds.X.shape == (n, d) and ds.X.dtype == np.float64
    assert len(ds.feature_names) == d and ds.categorical.shape == (d,)
    assert int(ds.categorical.sum()) == n_cat
    assert _counts(ds.y) == counts
    assert list(ds.classes) == sorted(counts)
    assert not np.isinf(ds.X).any()
    assert int(np.isnan(ds.X).sum()) == MISSING_KEPT.get(name, 0)
    card = get_card(name)
    assert (card.n_samples, card.n_features) == (n, d)
    if test is None:
        assert ds.X_test is None and not card.has_official_test
    else:
        assert ds.X_test.shape == (test[0], d) and _counts(ds.y_test) == test[1]
        assert card.n_test_official == test[0]


def test_all_mirror_files_verify() -> None:
    rows = [r for r in verify() if r[2] not in ("n/a",)]
    mirror_rows = [r for r in rows if r[1].startswith(str(MIRROR))]
    assert mirror_rows, "no card points into the mirror"
    bad = [r for r in mirror_rows if r[2] != "ok"]
    assert not bad, bad
    # every table card has at least one file source found in the mirror
    found = {r[0] for r in mirror_rows}
    for name in EXPECTED:
        assert name in found, name


def test_groups_for_grouped_cv() -> None:
    assert len(set(open_dataset("musk1").groups)) == 92
    park = open_dataset("parkinsons")
    assert len(set(park.groups)) == 32 and park.groups[0] == "phon_R01_S01"
    assert "name" not in park.feature_names and "status" not in park.feature_names


def test_usps_libsvm_test_file_matches_h5_labels() -> None:
    """usps.t.bz2 (LibSVM) has the h5 test labels + 1, row by row, and values in [-1, 1]."""
    from fsbench.data.parsers import parse_libsvm

    _need_h5py()
    table = parse_libsvm(
        {"data": MIRROR / "usps" / "usps.t.bz2"}, {"n_features": 256, "zero_based": False}, "t"
    )
    assert table.X.shape == (2007, 256) and -1.0 <= table.X.min() and table.X.max() <= 1.0
    h5 = open_dataset("usps")
    np.testing.assert_array_equal(table.y.astype(int) - 1, h5.y_test)
    assert 0.0 <= h5.X.min() and h5.X.max() <= 1.0


def test_missing_drop_counts_in_notes() -> None:
    assert "dropped 16 row(s)" in open_dataset("breast_cancer_wisconsin").notes
    assert "dropped 6 row(s)" in open_dataset("heart_disease_cleveland").notes


def test_altered_mirror_copy_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "data" / "sonar" / "sonar.csv"
    copy.parent.mkdir(parents=True)
    shutil.copyfile(MIRROR / "sonar" / "sonar.csv", copy)
    with open(copy, "a") as f:
        f.write("\n")
    monkeypatch.setenv("FSBENCH_DATA_DIR", str(tmp_path / "data"))
    with pytest.raises(DatasetError) as exc:
        open_dataset("sonar")
    msg = str(exc.value)
    expected = get_card("sonar").sources[0].files[0].sha256
    assert f"expected {expected}" in msg and str(copy) in msg and "got " in msg and "\n" not in msg
