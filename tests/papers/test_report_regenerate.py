"""Every committed ``results/<paper>/REPORT.md`` regenerates byte-identically from the committed CSVs,
and ``fsbench report results/<paper> --paper configs/<paper> --html`` writes a page for each paper
(every figure of the folder on it, every image resolving), and every other file it writes is the committed
one (so a report on a copy of the committed directory changes no file but its page), for each paper but
Ramona 2012 and TAKES 2011, whose REPORT.md are checked by
``fsbench build --check`` instead.

Only the inputs are copied to a temporary directory (``results.csv``, ``rankings.csv`` and ``run.json``;
the paper folder ``configs/<paper>`` — values, notes, layout, hooks — is read where it is): every derived
file — summaries, figures, stability and ground-truth tables — is rebuilt by the report, in a fresh
interpreter with another string-hash seed, so that an order taken from a set or a path relative to the
working directory would show as a difference.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from results_helpers import read_report_page

import fsbench
from fsbench.build import compare_trees

ROOT = Path(__file__).resolve().parents[2]
INPUTS = {"results.csv", "rankings.csv", "run.json"}
#: Sections every paper's page has (``## `` headings of REPORT.md, then the HTML's own analyses).
COMMON = ["Paper vs ours: {paper}", "Stability of the selected subsets", "Provenance"]
#: Ramona's report (4 min, 19 experiments' figures) and TAKES's (100 s, its diagnostics' summaries) are
#: left to ``fsbench build --check`` (``make check-build``, a CI step after ``make test``), which rebuilds
#: every paper's REPORT.md and every file beside it byte for byte; the three below keep ``make test`` under
#: its budget and still cover a page with hooks (KIFE), with producers only (Paul) and with a diagnostic-free
#: ground truth (Ring).
EXTRA = {
    "kife2011": ["Table II — every run: both readings of the iteration count, seconds", "Runs"],
    "paul2015": ["Generated tables"],
    "ring2015": ["Ground truth: recovery of the relevant features", "Generated tables"],
}
SLOW: set[str] = set()


def _inputs_copy(src: Path, dst: Path) -> None:
    for f in sorted(src.rglob("*")):
        if f.is_file() and f.name in INPUTS:
            target = dst / f.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, target)


def _env() -> dict[str, str]:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    src = str(Path(fsbench.__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH", "")) if p)
    env["PYTHONHASHSEED"] = "7"
    env["FSBENCH_CONFIGS_DIR"] = str(ROOT / "configs")
    return env


@pytest.mark.parametrize(
    "paper",
    [pytest.param(p, marks=pytest.mark.slow) if p in SLOW else p for p in EXTRA],
)
def test_committed_report_regenerates_and_its_html_shows_every_figure(paper, tmp_path):
    src = ROOT / "results" / paper
    if not (src / "REPORT.md").is_file():
        pytest.skip(f"no committed report for {paper}")
    dst = tmp_path / paper
    folder = ROOT / "configs" / paper  # the paper folder, given as a path (a bare name works too)
    _inputs_copy(src, dst)
    assert not (dst / "REPORT.md").exists()
    res = subprocess.run(
        [sys.executable, "-m", "fsbench.cli", "report", str(dst), "--paper", str(folder), "--html"],
        env=_env(),
        cwd=ROOT,  # diagnostics' run.json name their config relative to the repository
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    got, want = (dst / "REPORT.md").read_bytes(), (src / "REPORT.md").read_bytes()
    if got != want:  # show the first differing line, not two 100 kB blobs
        for i, (a, b) in enumerate(zip(got.decode().splitlines(), want.decode().splitlines())):
            assert a == b, f"line {i + 1} differs"
        assert got == want, "one report is a prefix of the other"
    # every other file the report wrote (its producers', hooks' and analyses' tables and figures) is the
    # committed one, and none is new: a report on a copy of the committed directory changes no file but
    # its page (the build's comparison: bytes, or the same pixels for a figure)
    diff = compare_trees(tmp_path, ROOT / "results", [paper])
    assert (diff.missing, diff.differing) == ([], []), (diff.missing, diff.differing)
    page = read_report_page(dst / "REPORT.html")
    for section in [s.format(paper=paper) for s in COMMON] + EXTRA[paper]:
        assert section in page.headings, (section, page.headings)
    assert f"Comparison with the paper {paper} — summary" in page.headings
    # every figure of the folder is on the page (linked beside it; the CD diagram is embedded)
    pngs = sorted(p.relative_to(dst).as_posix() for p in dst.rglob("*.png"))
    assert sorted(s for s in page.images if not s.startswith("data:")) == pngs
