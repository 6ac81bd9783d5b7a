"""Find and read result directories (schema version 1, see README "Result files").

A *result directory* holds ``results.csv`` and usually ``rankings.csv`` and ``run.json``. A path given
by the user is either such a directory or a parent of several (searched recursively), as for
``fsbench plot``. Each directory gets a short unique ``source`` name (its base name, or more of its
path where base names collide) that the analyses use in place of the full path.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

#: The all-features baseline: evaluated only at S = D, and its "ranking" is an arbitrary order.
BASELINE = "all"


@dataclass
class ResultSet:
    """One result directory: its tables and run metadata (``None`` where a file is absent)."""

    path: Path
    source: str
    results: pd.DataFrame
    rankings: pd.DataFrame | None
    run: dict | None

    @property
    def n_features(self) -> dict[str, int]:
        """Number of input features D per dataset, from the length of the rankings' ``order``.

        Transformers (kernel-space methods) leave ``order`` empty; datasets where no selector wrote an
        order are absent from the mapping.
        """
        if self.rankings is None or self.rankings.empty:
            return {}
        r = self.rankings[self.rankings["order_len"] > 0]
        return {str(k): int(v) for k, v in r.groupby("dataset")["order_len"].max().items()}


def find_result_dirs(paths: Iterable[Path | str]) -> list[Path]:
    """Result directories under ``paths`` (a directory with ``results.csv``, or a parent of several)."""
    found: list[Path] = []
    for p in map(Path, paths):
        if p.is_file() and p.name == "results.csv":
            found.append(p.parent)
        elif (p / "results.csv").is_file():
            found.append(p)
        elif p.is_dir():
            found.extend(f.parent for f in sorted(p.rglob("results.csv")))
    # keep the first occurrence: the same directory reached twice must not count twice as blocks
    unique: dict[Path, None] = {}
    for d in found:
        unique.setdefault(d.resolve(), None)
    return list(unique)


def _source_names(dirs: list[Path]) -> list[str]:
    """Shortest path suffixes that tell the directories apart (``fig3b`` or ``quick/fig3b``)."""
    if not dirs:
        return []
    depth = 1
    while True:
        names = ["/".join(d.parts[-depth:]) for d in dirs]
        if len(set(names)) == len(names) or depth >= max(len(d.parts) for d in dirs):
            return names
        depth += 1


def read_rankings(path: Path) -> pd.DataFrame:
    """``rankings.csv`` with ``order`` parsed into integer arrays (column ``order_idx``)."""
    # order/scores stay strings: pandas would otherwise read a one-feature order as an integer
    df = pd.read_csv(path, dtype={"order": str, "scores": str}, keep_default_na=False)
    orders = [
        np.array(s.split(), dtype=np.int64) if s.strip() else np.array([], np.int64) for s in df["order"]
    ]
    df = df.assign(order_idx=pd.Series(orders, index=df.index, dtype=object))
    df["order_len"] = [len(o) for o in orders]
    return df


def load_result_sets(paths: Iterable[Path | str]) -> list[ResultSet]:
    """Every result directory under ``paths``, read; an empty list if none is found."""
    dirs = find_result_dirs(paths)
    sets = []
    for d, source in zip(dirs, _source_names(dirs)):
        results = pd.read_csv(d / "results.csv")
        rankings = read_rankings(d / "rankings.csv") if (d / "rankings.csv").is_file() else None
        run = json.loads((d / "run.json").read_text()) if (d / "run.json").is_file() else None
        for df in (results, rankings):
            if df is not None:
                df.insert(0, "source", source)
        sets.append(ResultSet(path=d, source=source, results=results, rankings=rankings, run=run))
    return sets
