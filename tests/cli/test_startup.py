"""Start-up of the command line: the commands that only list or check import no heavy library.

``fsbench --help``, ``selectors list``, ``datasets list`` and a config error must not import scikit-learn,
scipy, pandas or matplotlib (each costs seconds): every check runs in a fresh interpreter and reports which
of them ``sys.modules`` holds afterwards. A module-presence test, not a timing test.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

HEAVY = ("sklearn", "scipy", "pandas", "matplotlib")


def _heavy_after(code: str, tmp_path) -> tuple[list[str], str]:
    """Run ``code`` in a fresh interpreter; the heavy packages it imported, and what it printed."""
    script = textwrap.dedent(code) + textwrap.dedent(
        f"""
        import json as _json, sys as _sys
        _heavy = sorted({{m.split(".")[0] for m in _sys.modules}} & set({HEAVY!r}))
        print("HEAVY=" + _json.dumps(_heavy))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    *out, last = proc.stdout.rstrip("\n").split("\n")
    assert last.startswith("HEAVY="), proc.stdout
    return json.loads(last[len("HEAVY=") :]), "\n".join(out)


def _cli(args: list[str]) -> str:
    """Code that runs ``fsbench ARGS`` in-process and prints its exit code, output and error output."""
    return textwrap.dedent(
        f"""
        from typer.testing import CliRunner
        from fsbench.cli import app
        r = CliRunner().invoke(app, {args!r})
        print("EXIT", r.exit_code)
        print(r.output)
        """
    )


def test_importing_the_cli_imports_no_heavy_module(tmp_path):
    heavy, _ = _heavy_after("from fsbench.cli import app", tmp_path)
    assert heavy == []


def test_help_imports_no_heavy_module(tmp_path):
    heavy, out = _heavy_after(_cli(["--help"]), tmp_path)
    assert heavy == []
    assert "EXIT 0" in out and "selectors" in out


def test_selectors_list_imports_no_selector_module(tmp_path):
    code = _cli(["selectors", "list"]) + textwrap.dedent(
        """
        import sys
        from fsbench.algorithms.registry import _SELECTORS
        loaded = sorted({p.split(":")[0] for p in _SELECTORS.values()} & set(sys.modules))
        print("LOADED", loaded)
        """
    )
    heavy, out = _heavy_after(code, tmp_path)
    assert heavy == []
    assert "EXIT 0" in out and "LOADED []" in out
    assert "sas " in out and "Ramona, Richard & David 2012" in out


def test_selectors_list_reads_what_importing_the_classes_gives():
    """The static reading (ast) of every registered selector equals :func:`registry.info` (imports)."""
    from fsbench.algorithms.registry import _SELECTORS, info
    from fsbench.cli import _static_info

    for name, path in sorted(_SELECTORS.items()):
        static = _static_info(path)
        assert static is not None, f"{name}: falls back to importing {path}"
        meta = info(name)
        assert (static.kind, static.description, static.citation) == (
            meta.kind,
            meta.description,
            meta.citation,
        ), name


def test_static_reading_gives_up_on_what_it_cannot_read(tmp_path, monkeypatch):
    from fsbench.cli import _static_info

    assert _static_info("fsbench.algorithms.no_such_module:X") is None
    assert _static_info("fsbench.algorithms.alignment:NoSuchClass") is None
    assert _static_info("mypackage.selectors:Mine") is None  # a user's class: imported as before


def test_datasets_list_imports_no_heavy_module(tmp_path):
    heavy, out = _heavy_after(_cli(["datasets", "list"]), tmp_path)
    assert heavy == []
    assert "EXIT 0" in out and "weston_nonlinear" in out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "expected a mapping of config keys, got nothing (null)"),
        ("name: x\nbogus_key: 1\n", "bogus_key: unknown key"),
    ],
    ids=["empty", "unknown-key"],
)
def test_a_config_error_imports_no_heavy_module(tmp_path, text, message):
    (tmp_path / "bad.yaml").write_text(text, encoding="utf-8")
    heavy, out = _heavy_after(_cli(["run", "bad.yaml"]), tmp_path)
    assert "EXIT 2" in out and message in out
    assert heavy == []


def test_loading_a_bad_config_imports_no_heavy_module(tmp_path):
    (tmp_path / "bad.yaml").write_text("name: x\nbogus_key: 1\n", encoding="utf-8")
    code = """
        from fsbench.config.experiment import ConfigError, load_experiment
        try:
            load_experiment("bad.yaml")
        except ConfigError as exc:
            print("ERROR", exc)
        """
    heavy, out = _heavy_after(code, tmp_path)
    assert "ERROR" in out and "bogus_key: unknown key" in out
    assert heavy == []


def test_data_package_names_import_on_first_use(tmp_path):
    code = """
        import sys
        import fsbench.data
        from fsbench.data import DatasetError, list_cards, paths
        from fsbench.data.errors import DatasetError as Same
        assert DatasetError is Same and "open_dataset" in dir(fsbench.data)
        print("DATASET_LOADED", "fsbench.data.dataset" in sys.modules)
        """
    heavy, out = _heavy_after(code, tmp_path)
    assert heavy == [] and "DATASET_LOADED False" in out
    import fsbench.data
    from fsbench.data.dataset import open_dataset

    assert fsbench.data.open_dataset is open_dataset
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        fsbench.data.nope  # noqa: B018


def test_algorithms_package_gives_every_registered_class_lazily(tmp_path):
    code = """
        import sys
        import fsbench.algorithms
        before = "fsbench.algorithms.alignment" in sys.modules
        from fsbench.algorithms import SAS
        from fsbench.algorithms.alignment import SAS as Same
        print("BEFORE", before, "SAME", SAS is Same)
        """
    _, out = _heavy_after(code, tmp_path)
    assert "BEFORE False SAME True" in out

    import fsbench.algorithms
    from fsbench.algorithms.registry import _SELECTORS, resolve

    names = {p.partition(":")[2] for p in _SELECTORS.values()}
    assert names <= set(dir(fsbench.algorithms))
    for name, path in _SELECTORS.items():
        assert getattr(fsbench.algorithms, path.partition(":")[2]) is resolve(name)
    with pytest.raises(AttributeError, match="no attribute 'NoSuchSelector'"):
        fsbench.algorithms.NoSuchSelector  # noqa: B018
    from fsbench.algorithms import svm  # submodules are still found

    assert svm.__name__ == "fsbench.algorithms.svm"
