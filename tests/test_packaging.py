"""fsbench works when installed from a wheel (not only from a checkout): the cards ship inside it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import fsbench.data.paths as paths
from fsbench.data.cards import cards_dir, get_card

REPO = Path(__file__).resolve().parents[1]
FIG1B = REPO / "configs" / "ramona2012" / "fig1b_weston_nonlinear.yaml"


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_package_is_listed_in_pyproject() -> None:
    """The package list is explicit (the cards are a mapped package): a new subpackage must be added."""
    setuptools_cfg = _pyproject()["tool"]["setuptools"]
    listed = set(setuptools_cfg["packages"])
    on_disk = {
        ".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "fsbench").rglob("__init__.py")
    } - {"fsbench._cards"}
    assert on_disk <= listed, f"packages missing from pyproject.toml: {sorted(on_disk - listed)}"
    assert setuptools_cfg["package-dir"] == {paths.CARDS_PACKAGE: "datasets"}
    assert setuptools_cfg["package-data"][paths.CARDS_PACKAGE] == ["*.yaml"]
    assert (REPO / "datasets" / "__init__.py").is_file()


def test_cards_dir_env_then_checkout(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FSBENCH_CARDS_DIR", str(tmp_path))
    assert cards_dir() == tmp_path
    monkeypatch.delenv("FSBENCH_CARDS_DIR")
    assert cards_dir() == REPO / "datasets"
    assert get_card("sonar").path == REPO / "datasets" / "sonar.yaml"


def test_cards_dir_installed_copy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Outside a checkout the installed cards win, even over a ``datasets`` directory beside fsbench."""
    monkeypatch.delenv("FSBENCH_CARDS_DIR", raising=False)
    site = tmp_path / "site-packages"
    (site / "datasets").mkdir(parents=True)  # e.g. another distribution's top-level "datasets" package
    monkeypatch.setattr(paths, "__file__", str(site / "fsbench" / "data" / "paths.py"))
    installed = tmp_path / "installed_cards"
    installed.mkdir()
    monkeypatch.setattr(paths, "_installed_cards", lambda: installed)
    assert cards_dir() == installed
    monkeypatch.setattr(paths, "_installed_cards", lambda: None)
    assert cards_dir() == site / "datasets"  # nothing installed: named in messages only


def _can_build_offline() -> bool:
    """setuptools >= 70.1 builds wheels by itself; older ones need a build environment from the index."""
    try:
        import setuptools
    except ImportError:
        return False
    major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
    return (major, minor) >= (70, 1)


@pytest.mark.slow
def test_non_editable_install_finds_cards_and_runs(tmp_path: Path) -> None:
    start = time.monotonic()
    src, target, out = tmp_path / "src", tmp_path / "site", tmp_path / "out"
    # build from a copy, so that the build's egg-info/build directories never land in the checkout
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("fsbench", "datasets"):
        shutil.copytree(REPO / name, src / name, ignore=ignore)
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(src)]
    if _can_build_offline():
        pip.insert(5, "--no-build-isolation")
    build = subprocess.run(pip, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert build.returncode == 0, build.stderr[-3000:]
    installed = target / "fsbench"
    assert not (target / "datasets").exists()
    n_cards = len(list((REPO / "datasets").glob("*.yaml")))
    assert len(list((installed / "_cards").glob("*.yaml"))) == n_cards
    missing = [
        p.relative_to(REPO)
        for p in (REPO / "fsbench").rglob("*.py")
        if not (target / p.relative_to(REPO)).is_file()
    ]
    assert not missing, f"not installed: {missing}"

    env = {k: v for k, v in os.environ.items() if k not in ("FSBENCH_CARDS_DIR", "PYTHONPATH")}
    env.update(PYTHONPATH=str(target), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MPLBACKEND="Agg")

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(list(args), capture_output=True, text=True, env=env, cwd="/", timeout=120)

    where = run(
        sys.executable,
        "-c",
        "import fsbench, fsbench.data.cards as c; print(fsbench.__file__); print(c.cards_dir())",
    )
    assert where.returncode == 0, where.stderr
    assert where.stdout.split() == [str(installed / "__init__.py"), str(installed / "_cards")]
    listed = run(sys.executable, "-m", "fsbench.cli", "datasets", "list")
    assert listed.returncode == 0, listed.stderr
    names = [line.split()[0] for line in listed.stdout.splitlines() if line.strip()]
    assert len(names) == n_cards and "weston_nonlinear" in names and "sonar" in names
    info = run(str(target / "bin" / "fsbench"), "datasets", "info", "sonar")  # the console script
    assert info.returncode == 0, info.stderr
    assert f"card:      {installed / '_cards' / 'sonar.yaml'}" in info.stdout

    excluded = ["arom", "r2w2", "rfe", "rfe_rbf", "sfs", "sas", "scss", "kfds"]  # keep all + fisher
    res = run(
        sys.executable,
        "-m",
        "fsbench.cli",
        "run",
        str(FIG1B),
        "--repeats",
        "1",
        "--coarse",
        "1",
        "--out",
        str(out),
        "--no-progress",
        *(arg for name in excluded for arg in ("--exclude-selector", name)),
    )
    assert res.returncode == 0, res.stderr
    assert "2 tasks (0 resumed, 2 run, 0 failed)" in res.stdout
    rows = (out / "results.csv").read_text().splitlines()
    assert len(rows) == 3 and all(",ok," in r for r in rows[1:])
    assert time.monotonic() - start < 90
