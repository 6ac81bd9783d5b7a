"""``fsbench build``: every derived file regenerated from the run tables, deterministically, and
``--check`` finds a derived file that differs from the build, is missing, or is stale.

The fast tests build a made-up paper folder (``results/mini``, plain report: ``configs/mini`` has no
``paper_values.yaml``) whose run tables are written directly (no task runs); the slow one copies the
inputs of two committed paper folders.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO, cli
from results_helpers import fixed_ranker, random_ranker, write_result_dir

from fsbench.build import (
    build,
    build_copy,
    check_build,
    copy_inputs,
    derived_files,
    find_papers,
    is_input,
)
from fsbench.results.tables import FIGURE_METADATA

D = 10


def _finished(run_dir: Path) -> None:
    """Mark the run as finished, as the runner does (``fsbench build`` refuses unfinished runs)."""
    info = json.loads((run_dir / "run.json").read_text())
    info.update(n_tasks=1, n_done=1, n_failed=0)
    (run_dir / "run.json").write_text(json.dumps(info, indent=1))


def _error(sel: str, n: int, r: int, s: int, rng: np.random.Generator) -> float:
    return float(
        np.clip(0.4 - 0.05 * s - (0.1 if sel == "good" else 0.0) + 0.02 * rng.standard_normal(), 0, 1)
    )


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """``(results, configs)`` holding the paper folder ``mini``: a sweep over n_train (Weston toy: ground
    truth known) and a sweep over S; the hand-written notes live in its configs folder."""
    results, configs = tmp_path / "results", tmp_path / "configs"
    (configs / "mini").mkdir(parents=True)
    sels = {"good": fixed_ranker([0, 1], D), "noise": random_ranker(D)}
    for name, kw in (
        ("sweep_n", {"n_train": (20, 40), "s_values": (2,)}),
        ("sweep_s", {"n_train": (30,), "s_values": (2, 4, 6)}),
    ):
        d = write_result_dir(
            results / "mini" / name,
            experiment=name,
            dataset="weston_nonlinear",
            d=D,
            selectors=sels,
            error=_error,
            repeats=4,
            **kw,
        )
        _finished(d)
    (configs / "mini" / "notes.md").write_text("Hand-written.\n")
    (results / "not_a_paper").mkdir()  # no configs/not_a_paper: not built
    return results, configs


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _png_text_chunks(data: bytes) -> list[bytes]:
    """Keywords of the PNG's text chunks (tEXt, zTXt, iTXt)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    i, keys = 8, []
    while i < len(data):
        n = int.from_bytes(data[i : i + 4], "big")
        kind = data[i + 4 : i + 8]
        if kind in (b"tEXt", b"zTXt", b"iTXt"):
            keys.append(data[i + 8 : i + 8 + n].split(b"\0")[0])
        i += 12 + n
    return keys


def test_inputs_and_derived_files(tree):
    results, configs = tree
    root = results / "mini"
    (root / "sweep_n" / "tasks").mkdir()
    (root / "sweep_n" / "tasks" / "abc.json").write_text("{}")
    (root / "sweep_n" / "plots").mkdir()
    (root / "sweep_n" / "plots" / "old.png").write_bytes(b"x")
    (root / "REPORT.html").write_text("<html></html>")  # on demand, not committed: not checked
    assert is_input(root / "sweep_n" / "results.csv", root)
    assert not is_input(root / "REPORT_notes.md", root)  # notes live in configs/<paper>/notes.md
    assert is_input(root / "sweep_n" / "tasks" / "abc.json", root)
    assert derived_files(root) == [root / "sweep_n" / "plots" / "old.png"]
    assert [p.name for p in find_papers(results, configs)] == ["mini"]


def test_build_twice_gives_the_same_bytes_without_dates_or_versions(tree, tmp_path):
    results, configs = tree
    # a stale derived file in place is deleted by the build
    stale = results / "mini" / "sweep_s" / "plots" / "error_vs_S_gone.png"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"stale")
    # a second paper folder, so that the parallel build (jobs=2) runs papers' reports in workers too
    shutil.copytree(results / "mini", results / "mini2")
    shutil.copytree(configs / "mini", configs / "mini2")
    a = build_copy(results, tmp_path / "a", configs)
    b = build_copy(results, tmp_path / "b", configs, jobs=2)
    assert a.papers == b.papers == ["mini", "mini2"] and stale.exists()  # a copy was built: results only read
    files_a, files_b = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert files_a.keys() == files_b.keys()
    assert [k for k in files_a if files_a[k] != files_b[k]] == []
    assert "not_a_paper" not in {Path(k).parts[0] for k in files_a}
    assert "mini/sweep_s/plots/error_vs_S_gone.png" not in files_a
    (results / "mini" / "REPORT.html").write_text("<html>stale</html>")  # on demand: deleted too
    build(results, configs)  # in place
    assert not stale.exists() and not (results / "mini" / "REPORT.html").exists()
    assert _files(results / "mini") == {
        k[len("mini/") :]: v for k, v in files_a.items() if k.startswith("mini/")
    }

    names = set(files_a)
    for want in (
        "mini/REPORT.md",
        "mini/sweep_n/stability.md",
        "mini/sweep_n/ground_truth.md",
        "mini/sweep_n/plots/cpu_time.md",
        "mini/sweep_n/plots/error_vs_n_weston_nonlinear_linear_S2.png",
        "mini/sweep_s/plots/error_vs_S_weston_nonlinear_linear_n30.pdf",
    ):
        assert want in names, want
    pngs = [k for k in names if k.endswith(".png")]
    pdfs = [k for k in names if k.endswith(".pdf")]
    assert pngs and pdfs
    for k in pngs:
        assert b"Software" not in _png_text_chunks(files_a[k]), k
    for k in pdfs:
        data = files_a[k]
        for key in FIGURE_METADATA["pdf"]:
            assert f"/{key}".encode() not in data, (k, key)
        assert b"atplotlib" not in data, k  # no "Matplotlib v3.x" anywhere


def test_check_finds_differing_missing_and_stale_files(tree):
    results, configs = tree
    build(results, configs)
    built, n_derived = _files(results), len(derived_files(results / "mini"))
    report = results / "mini" / "REPORT.md"
    report.write_text(report.read_text() + "edited\n")
    png = results / "mini" / "sweep_s" / "plots" / "error_vs_S_weston_nonlinear_linear_n30.png"
    png.unlink()
    stale = results / "mini" / "sweep_n" / "plots" / "old_figure.pdf"
    stale.write_bytes(b"%PDF")
    res = check_build(results, configs)
    assert not res.ok
    assert res.differing == ["mini/REPORT.md"]
    assert res.missing == ["mini/sweep_s/plots/error_vs_S_weston_nonlinear_linear_n30.png"]
    assert res.extra == ["mini/sweep_n/plots/old_figure.pdf"]
    assert res.n_files == n_derived
    # the files in place were only read
    assert report.read_text().endswith("edited\n") and not png.exists() and stale.exists()

    out = cli("build", results, "--configs", configs, "--check")
    assert out.exit_code == 1
    lines = out.stdout.splitlines()
    assert lines[0].startswith("build check: 1 differing, 1 missing, 1 stale of ")
    assert lines[1:] == [
        "differs  mini/REPORT.md",
        "missing  mini/sweep_s/plots/error_vs_S_weston_nonlinear_linear_n30.png",
        "stale    mini/sweep_n/plots/old_figure.pdf",
    ]
    build(results, configs)
    assert _files(results) == built


def test_check_fails_on_a_run_json_recording_a_dirty_tree(tree):
    """A committed run whose run.json says git_dirty: true is not pinned by its commit: the check fails
    and names it, even when every derived file is up to date."""
    results, configs = tree
    build(results, configs)
    assert check_build(results, configs).ok
    run_json = results / "mini" / "sweep_n" / "run.json"
    info = json.loads(run_json.read_text())
    info["git_dirty"] = True
    run_json.write_text(json.dumps(info, indent=1))
    res = check_build(results, configs)
    assert not res.ok and res.dirty == ["mini/sweep_n/run.json"]
    assert not (res.differing or res.missing or res.extra)
    out = cli("build", results, "--configs", configs, "--check")
    assert out.exit_code == 1
    assert "git_dirty: true" in out.stdout.splitlines()[0]
    assert out.stdout.splitlines()[1:] == ["dirty    mini/sweep_n/run.json"]


def test_build_html_writes_every_papers_page_beside_its_report(tree):
    results, configs = tree
    out = cli("build", results, "--configs", configs, "--html")
    assert out.exit_code == 0, out.stderr
    page = results / "mini" / "REPORT.html"
    assert str(page) in out.stdout and "<html" in page.read_text().lower()
    assert page not in derived_files(results / "mini")  # on demand: not a derived file, not checked
    assert cli("build", results, "--configs", configs, "--check").exit_code == 0


def test_check_takes_the_same_picture_in_other_bytes_as_equal(tree):
    """Another encoder or a version in the metadata changes a PNG's bytes, not its picture; a drawing
    that changed (one pixel) is a difference."""
    from matplotlib.image import imread, imsave

    results, configs = tree
    build(results, configs)
    png = results / "mini" / "sweep_s" / "plots" / "error_vs_S_weston_nonlinear_linear_n30.png"
    pixels = imread(png)
    imsave(png, pixels, metadata={"Software": "another matplotlib"})
    res = check_build(results, configs)
    assert res.ok and res.same_picture == [png.relative_to(results).as_posix()]
    pixels[0, 0, :3] = 1 - pixels[0, 0, :3]
    imsave(png, pixels)
    assert check_build(results, configs).differing == [png.relative_to(results).as_posix()]


def test_unfinished_run_is_refused(tree):
    results, configs = tree
    run = results / "mini" / "sweep_n" / "run.json"
    info = json.loads(run.read_text())
    run.write_text(json.dumps({**info, "n_done": 0}))
    out = cli("build", results, "--configs", configs)
    assert out.exit_code == 2 and "has not finished" in out.stderr
    assert cli("build", results, "--configs", configs, "--paper", "nope").exit_code == 2


@pytest.mark.slow
def test_committed_paper_folders_build_byte_identically(tmp_path):
    """A committed paper folder, built twice in fresh interpreters with other string-hash seeds: the same
    bytes (a plain folder's two builds are compared by ``test_build_twice_gives_the_same_bytes...``)."""
    src = tmp_path / "inputs"
    for paper in ("ring2015",):
        if not (REPO / "results" / paper).is_dir():
            pytest.skip(f"no committed results/{paper}")
        copy_inputs(REPO / "results" / paper, src / paper)
    built = []
    for seed in ("1", "2"):
        out = tmp_path / f"build{seed}"
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(REPO), MPLBACKEND="Agg")
        res = subprocess.run(
            [sys.executable, "-m", "fsbench.cli", "build", str(src), "--out", str(out), "--jobs", "1"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert res.returncode == 0, res.stderr[-2000:]
        built.append(_files(out))
    assert built[0].keys() == built[1].keys()
    assert [k for k in built[0] if built[0][k] != built[1][k]] == []
    assert any(k.endswith("REPORT.md") for k in built[0])
    shutil.rmtree(tmp_path / "build1")
