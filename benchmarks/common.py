"""What the benchmarks share: the data, the JSON file names and their header, the verdict words.

A leaf of ``benchmarks/`` (it imports :mod:`benchmarks.timing` only): :mod:`benchmarks.run`,
:mod:`benchmarks.scale` and :mod:`benchmarks.threads` measure and write their JSON files,
:mod:`benchmarks.report` renders ``RESULTS.md`` from them, and none of them imports another's ``main``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks.timing import METHOD, blas_summary
from fsbench.data.synthetic import weston_linear

RESULTS_DIR = Path(__file__).resolve().parent / "results"

#: JSON file of each measurement of :mod:`benchmarks.run` (section letter -> file name).
RUN_FILES = {
    "a": "a_sas_vs_reference.json",
    "b": "b_sas_vs_floor.json",
    "c": "c_rfe_vs_sklearn.json",
    "e": "e_fspp_usps.json",
}
#: JSON file of each mode of :mod:`benchmarks.scale`, section (d).
SCALE_FILES = {"full": "d_sas_scale.json", "quick": "d_sas_scale_quick.json", "tiny": "d_sas_scale_tiny.json"}
#: JSON file of :mod:`benchmarks.threads`, section (f) (``--tiny`` writes ``f_threads_tiny.json``, not shown).
THREADS_FILE = "f_threads.json"
#: SAS iterations of the full fits of (a): their time per iteration includes the Armijo trial steps.
FIT_ITERS = 10


def weston_data(N: int, D: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """z-scored Weston linear toy with D features (the 6 relevant ones first), labels ±1."""
    rng = np.random.default_rng(seed)
    while True:
        X, y = weston_linear(N, rng, n_features=D)
        if np.unique(y).size == 2:
            break
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0), y


def dumps(doc: dict[str, object]) -> str:
    """Indented JSON with lists of numbers kept on one line."""
    text = json.dumps(doc, indent=1)
    return (
        re.sub(
            r"\[\s*([-+0-9.eE,\s]+?)\s*\]",
            lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]",
            text,
        )
        + "\n"
    )


def verdict(ok: bool) -> str:
    """``PASS`` or ``MISS`` (a target met or not)."""
    return "PASS" if ok else "MISS"


def header(env: dict[str, object], tiny: bool) -> dict[str, object]:
    """The fields every benchmark JSON file starts with: date, timing method, machine."""
    return {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "method": METHOD,
        "tiny": tiny,
        "cpu_model": env["cpu_model"],
        "blas": blas_summary(env),
        "environment": env,
    }


def ms(s: float) -> str:
    """Seconds as milliseconds, three significant digits below 10 s."""
    return f"{s * 1e3:.3g}" if s < 10 else f"{s * 1e3:.0f}"


def gb(b: float) -> str:
    """Bytes as GB, two decimals."""
    return f"{b / 1e9:.2f}"


class ResumeLog:
    """Finished records of a long benchmark, one JSON line each in ``<out>/<file>.partial``.

    A killed run restarts where it stopped: records already in the file are not recomputed.
    ``key(record)`` names a record; :meth:`close` removes the file once the JSON document is written.
    """

    def __init__(self, out: Path, file: str, key: Callable[[dict], tuple]):
        self.path = out / (file + ".partial")
        self.key = key
        self.done: dict[tuple, dict] = {}
        if self.path.exists():
            for line in self.path.read_text().splitlines():
                rec = json.loads(line)
                self.done[key(rec)] = rec

    def __contains__(self, k: tuple) -> bool:
        return k in self.done

    def __getitem__(self, k: tuple) -> dict:
        return self.done[k]

    def add(self, rec: dict) -> None:
        self.done[self.key(rec)] = rec
        with self.path.open("a") as fh:
            fh.write(json.dumps(rec) + "\n")

    def records(self) -> list[dict]:
        return [self.done[k] for k in sorted(self.done)]

    def close(self) -> None:
        self.path.unlink(missing_ok=True)


def run_render_main(
    module_doc: str, prog: str, run: Callable[[Path], object], render: Callable[[Path], str], argv=None
) -> int:
    """``python -m <prog> {run,render} [--out DIR]``: run (then render) or render only."""
    p = argparse.ArgumentParser(prog=prog, description=module_doc.split("\n")[0])
    p.add_argument("command", choices=("run", "render"))
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    a = p.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    if a.command == "run":
        run(a.out)
    print(render(a.out))
    return 0
