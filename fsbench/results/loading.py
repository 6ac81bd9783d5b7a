"""Find and read result directories (schema: :mod:`fsbench.results.schema`, docs/results.md).

A *result directory* holds ``results.csv`` and usually ``rankings.csv`` and ``run.json``. A path given
by the user is either such a directory or a parent of several (searched recursively), as for
``fsbench plot``. Each directory gets a short unique ``source`` name (its base name, or more of its
path where base names collide) that the analyses use in place of the full path.

Splits
------
A task's data split is its ``repeat``, or under k-fold (``protocol.folds``) its (``repeat``, ``fold``):
every fold of a repeat is a split of its own, with its own ranking and, for a subset search, its own chosen
subsets. The analyses key everything per split by :func:`split_key`. Under k-fold a row's ``n_train`` is its
fold's training size, which differs by a row or so between folds when K does not divide the data;
:func:`read_results` (and :func:`load_result_sets`, for ``rankings.csv`` too) therefore sets ``n_train`` of
every k-fold row to the setting's size — the smallest training size among the folds of the same (experiment,
dataset), shared by all selectors — so that the folds of a setting stay one setting (one stability group,
one compare block).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from fsbench.results.run_state import RunState, partial_runs, run_state  # noqa: F401 - re-exported
from fsbench.results.schema import BASELINE
from fsbench.results.table_files import has_table, is_table_file, open_table, table_file


def baseline_labels(results: pd.DataFrame | None) -> set[str]:
    """Labels of the all-features baseline in a ``results.csv`` table: ``all`` and every label the ``all``
    selector runs under (a config may name it, e.g. ``KNNC``).

    The one rule by which the analyses recognise the baseline: it is evaluated only at S = D, and its
    "ranking" is an arbitrary order.
    """
    if results is None or "selector_name" not in results.columns:
        return {BASELINE}
    names = results["selector_name"].astype(str)
    return {BASELINE, *results.loc[names == BASELINE, "selector"].astype(str)}


@dataclass
class ResultSet:
    """One result directory: its tables and run metadata (``None`` where a file is absent)."""

    path: Path
    source: str
    results: pd.DataFrame
    rankings: pd.DataFrame | None
    run: dict | None
    _chosen: dict[tuple, np.ndarray] | None = field(default=None, repr=False)

    @property
    def baseline_labels(self) -> set[str]:
        """Labels of the all-features baseline in this directory (:func:`baseline_labels`)."""
        return baseline_labels(self.results)

    def rankers(self) -> pd.DataFrame:
        """Rows of ``rankings.csv`` with a ranking of the input features: not the baseline (whose order is
        arbitrary), not a transformer (empty ``order``)."""
        if self.rankings is None:
            return pd.DataFrame()
        r = self.rankings
        return r[(r["order_len"] > 0) & ~r["selector"].astype(str).isin(self.baseline_labels)]

    def chosen_subsets(self) -> dict[tuple, np.ndarray]:
        """(dataset, kernel, n_train, selector, S, repeat, fold) → the feature subset a subset search chose
        at S in that split (``fold`` as :func:`split_key` gives it: None outside k-fold).

        From the ``subset`` column of ``results.csv`` (empty for rankers). A search fitted once per S
        (branch-and-bound, exhaustive wrappers) chooses sets that need not be nested, so the top S of its
        task's ``order`` is not its choice at S; analyses of the selected sets use these instead.
        """
        if self._chosen is None:
            self._chosen = {}
            r = self.results
            if r is not None and "subset" in r.columns:
                r = r[(r["status"] == "ok") & r["subset"].notna()]
                folds = r["fold"] if "fold" in r.columns else pd.Series(None, index=r.index, dtype=object)
                for row, fold in zip(r.itertuples(index=False), folds):
                    feats = _parse_subset(row.subset)
                    if feats.size:
                        key = (row.dataset, row.kernel, row.n_train, row.selector, row.n_features)
                        self._chosen[(*key, *split_key(row.repeat, fold))] = feats
        return self._chosen

    def top_sets(self, key: tuple, s: int, splits: list[tuple], orders: list[np.ndarray]) -> list[np.ndarray]:
        """The features selected at S in each split of ``key`` = (dataset, kernel, n_train, selector): a
        subset search's choice where ``results.csv`` records one, else the top S of the ranking.

        Parameters
        ----------
        key : tuple
            (dataset, kernel, n_train, selector).
        s : int
            S.
        splits : list of tuple
            The (repeat, fold) of each ranking, as :func:`split_key` gives them (:func:`ranking_splits`).
        orders : list of ndarray
            The rankings (feature indices, best first), one per split.
        """
        chosen = self.chosen_subsets()
        return [chosen.get((*key, s, *split), o[:s]) for split, o in zip(splits, orders)]

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


def split_columns(df: pd.DataFrame) -> list[str]:
    """The columns naming a split of the data: ``repeat``, and ``fold`` where the table has one (k-fold)."""
    return ["repeat", "fold"] if "fold" in df.columns else ["repeat"]


def split_key(repeat: object, fold: object = None) -> tuple[int, int | None]:
    """(repeat, fold) of a row as a hashable key: ``fold`` None outside k-fold (empty, NaN or absent)."""
    try:
        f = float(fold)  # type: ignore[arg-type]  # "0", 0, 0.0 (pandas reads the column either way)
    except (TypeError, ValueError):  # None, ""
        f = float("nan")
    return int(repeat), None if f != f else int(f)


def ranking_splits(rows: pd.DataFrame) -> tuple[pd.DataFrame, list[tuple[int, int | None]]]:
    """Rows of ``rankings.csv`` sorted by split, and the :func:`split_key` of each."""
    folds = rows["fold"] if "fold" in rows.columns else pd.Series(np.nan, index=rows.index)
    keys = [split_key(r, f) for r, f in zip(rows["repeat"], folds)]
    order = sorted(range(len(keys)), key=lambda i: (keys[i][0], -1 if keys[i][1] is None else keys[i][1]))
    return rows.iloc[order], [keys[i] for i in order]


def _kfold_sizes(results: pd.DataFrame) -> pd.Series | None:
    """(experiment, dataset) → the smallest training size among the k-fold rows; None without k-fold rows."""
    if not {"fold", "n_train", "experiment", "dataset"} <= set(results.columns):
        return None
    kfold = pd.to_numeric(results["fold"], errors="coerce").notna()
    n_train = pd.to_numeric(results["n_train"], errors="coerce")
    if not kfold.any():
        return None
    return n_train[kfold].groupby([results["experiment"], results["dataset"]]).min()


def _pool_fold_sizes(df: pd.DataFrame, sizes: pd.Series) -> None:
    """Set ``n_train`` of the k-fold rows of ``df`` to their setting's size in place."""
    if not {"fold", "n_train", "experiment", "dataset"} <= set(df.columns):
        return
    rows = pd.to_numeric(df["fold"], errors="coerce").notna().to_numpy()
    if not rows.any():
        return
    keys = pd.MultiIndex.from_frame(df.loc[rows, ["experiment", "dataset"]])
    new = sizes.reindex(keys).to_numpy(dtype=float)
    n_train = pd.to_numeric(df["n_train"], errors="coerce").to_numpy(dtype=float)
    n_train[rows] = np.where(np.isnan(new), n_train[rows], new)
    # integers where every row has a size (a failed task's row may have none)
    df["n_train"] = n_train.astype(int) if not np.isnan(n_train).any() else n_train


def _parse_subset(v: object) -> np.ndarray:
    """A ``subset`` cell ("0 3 5", or a number where pandas read a one-feature subset) as indices."""
    if isinstance(v, str):
        return np.array(v.split(), dtype=np.int64)
    if isinstance(v, (int, float, np.number)) and v == v:
        return np.array([int(v)], dtype=np.int64)
    return np.array([], dtype=np.int64)


def find_result_dirs(paths: Iterable[Path | str]) -> list[Path]:
    """Result directories under ``paths`` (a directory with ``results.csv``, or a parent of several), in
    the order given and in path order under each parent, each once.

    The paths are as found (relative where ``paths`` are), so that a report can show them relative to
    its own directory; :func:`load_result_sets` resolves them.
    """
    found: list[Path] = []
    for p in map(Path, paths):
        if p.is_file() and is_table_file(p):
            found.append(p.parent)
        elif has_table(p):
            found.append(p)
        elif p.is_dir():
            tables = [f for pattern in ("results.csv", "results.csv.gz") for f in p.rglob(pattern)]
            found.extend(sorted({f.parent for f in tables}))
    # keep the first occurrence: the same directory reached twice must not count twice as blocks
    unique: dict[Path, Path] = {}
    for d in found:
        unique.setdefault(d.resolve(), d)
    return list(unique.values())


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


def read_results(path: Path | str, evaluators: bool = False) -> pd.DataFrame:
    """``results.csv`` of a result directory (or the file itself), as written by the store.

    ``subset`` stays a string (a one-feature subset would otherwise be read as a number); diagnostics'
    tables, which carry their own columns, are read the same way. Under k-fold, ``n_train`` is the
    setting's, not the fold's (module docstring, Splits).

    A run with ``protocol.evaluators`` writes one row per evaluator of each top-S subset, the protocol's
    own classifier first; only those first rows are returned unless ``evaluators`` (every row, told apart
    by the ``classifier`` column), so that every table and figure made for one classifier stays one.
    """
    f = _results_file(path)
    # a column absent from the header is ignored by ``dtype``; pandas decompresses a .gz by its suffix
    df = pd.read_csv(f, low_memory=False, dtype={"subset": str})
    if not evaluators:
        df = primary_rows(df)
    sizes = _kfold_sizes(df)
    if sizes is not None:  # k-fold: the folds of a setting are one setting (module docstring, Splits)
        _pool_fold_sizes(df, sizes)
    return df


def _results_file(path: Path | str) -> Path:
    """The results table of a result directory (either form), or ``path`` itself when it names one."""
    path = Path(path)
    if is_table_file(path):
        return path
    f = table_file(path, "results")
    if f is None:
        raise FileNotFoundError(f"{path}: no results.csv (or results.csv.gz)")
    return f


def primary_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The rows of each task's own classifier (its first row's ``classifier``): one row per task and S."""
    if "classifier" not in df.columns or "task_id" not in df.columns or df["classifier"].nunique() < 2:
        return df
    first = df.groupby("task_id", sort=False)["classifier"].transform("first")
    return df[df["classifier"] == first].reset_index(drop=True)


def read_table(path: Path | str) -> pd.DataFrame:
    """A derived table a producer wrote (a CSV under a results folder, e.g. ``recovery_who_finds.csv`` or a
    report's ``stability.csv``), as pandas reads it: the one place besides the result tables where a CSV of
    the results is read."""
    return pd.read_csv(path)


def read_run(path: Path | str) -> dict:
    """``run.json`` of a result directory (an empty dict where the run wrote none)."""
    f = Path(path) / "run.json"
    return json.loads(f.read_text()) if f.is_file() else {}


def is_diagnostic(path: Path | str) -> bool:
    """Whether the result directory (or ``results.csv``) holds a diagnostic's table (own columns)."""
    with open_table(_results_file(path)) as fh:
        return "diagnostic" in fh.readline().strip().split(",")


def load_rows(paths: Iterable[Path | str], diagnostics: bool = True) -> pd.DataFrame:
    """The rows of every result table under ``paths`` concatenated (diagnostics' own columns included
    unless ``diagnostics`` is False; missing columns are NaN)."""
    dirs = [d for d in find_result_dirs(paths) if diagnostics or not is_diagnostic(d)]
    frames = [f for f in (read_results(d) for d in dirs) if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["experiment", "status"])


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
    dirs = [d.resolve() for d in find_result_dirs(paths)]
    return [
        _result_set(d, source, read_results(d), read_run(d)) for d, source in zip(dirs, _source_names(dirs))
    ]


def _result_set(path: Path, source: str, results: pd.DataFrame, run: dict) -> ResultSet:
    """A :class:`ResultSet` of a directory whose ``results.csv`` and ``run.json`` are read (``results`` is
    taken over: a ``source`` column is inserted); its ``rankings.csv`` is read here."""
    rank_file = table_file(path, "rankings")
    rankings = read_rankings(rank_file) if rank_file is not None else None
    sizes = _kfold_sizes(results)
    if rankings is not None and sizes is not None:
        _pool_fold_sizes(rankings, sizes)  # the same settings as results.csv
    for df in (results, rankings):
        if df is not None:
            df.insert(0, "source", source)
    return ResultSet(path=path, source=source, results=results, rankings=rankings, run=run or None)


class Results:
    """A results directory (one result directory, or a parent of several), read once.

    The report and its producers take their tables from here instead of reading the directory again:
    each ``results.csv`` and ``run.json`` is read once, on first use, and ``rankings.csv`` only when the
    result sets (:attr:`sets`) are asked for. What is handed out is a copy where the caller could change
    it, so one section cannot change what the next one sees.

    Parameters
    ----------
    root : Path
        The directory given by the user; :attr:`dirs` are as :func:`find_result_dirs` finds them under it
        (relative where ``root`` is).

    Raises
    ------
    FileNotFoundError
        If there is no result table under ``root`` (:func:`no_results_message`).
    """

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self.dirs: list[Path] = find_result_dirs([self.root])
        if not self.dirs:
            raise FileNotFoundError(no_results_message([self.root]))
        self._tables: dict[Path, pd.DataFrame] = {}
        self._runs: dict[Path, dict] = {}

    def results(self, d: Path) -> pd.DataFrame:
        """``results.csv`` of the directory ``d`` (one of :attr:`dirs`), as :func:`read_results` reads it."""
        if d not in self._tables:
            self._tables[d] = read_results(d)
        return self._tables[d].copy()

    def run(self, d: Path) -> dict:
        """``run.json`` of the directory ``d`` (an empty dict where there is none)."""
        if d not in self._runs:
            self._runs[d] = read_run(d)
        return json.loads(json.dumps(self._runs[d]))  # a deep copy of plain JSON

    def is_diagnostic(self, d: Path) -> bool:
        """Whether ``d`` holds a diagnostic's table (its own columns, :func:`is_diagnostic`)."""
        if d not in self._tables:
            return is_diagnostic(d)  # the header only: a diagnostic's table may be read by its renderer
        return "diagnostic" in self._tables[d].columns

    @property
    def experiment_dirs(self) -> list[Path]:
        """The directories of experiments (not diagnostics), in :attr:`dirs` order."""
        return [d for d in self.dirs if not self.is_diagnostic(d)]

    def rows(self, diagnostics: bool = True) -> pd.DataFrame:
        """Every directory's rows concatenated, as :func:`load_rows` gives them."""
        dirs = [d for d in self.dirs if diagnostics or not self.is_diagnostic(d)]
        frames = [f for f in (self.results(d) for d in dirs) if len(f)]
        return (
            pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["experiment", "status"])
        )

    @cached_property
    def _sets(self) -> list[ResultSet]:
        resolved = [d.resolve() for d in self.dirs]
        return [
            _result_set(r, source, self.results(d), self.run(d))
            for d, r, source in zip(self.dirs, resolved, _source_names(resolved))
        ]

    @property
    def sets(self) -> list[ResultSet]:
        """Every directory as a :class:`ResultSet` (with ``rankings.csv``), as :func:`load_result_sets`
        gives them; read once, and handed out as copies (a caller may add columns)."""
        return [
            ResultSet(
                path=rs.path,
                source=rs.source,
                results=rs.results.copy(),
                rankings=None if rs.rankings is None else rs.rankings.copy(),
                run=json.loads(json.dumps(rs.run)) if rs.run is not None else None,
            )
            for rs in self._sets
        ]

    @cached_property
    def partial(self) -> list[tuple[Path, RunState]]:
        """The runs under :attr:`root` that have not finished all their tasks (:func:`partial_runs`)."""
        return partial_runs(self.root)


def no_results_message(paths: Iterable[Path | str]) -> str:
    """Why ``paths`` hold no ``results.csv``, for ``fsbench plot`` / ``compare`` / ``report``: when a run
    was interrupted before it first wrote its tables, its finished tasks are still in ``tasks/``, and the
    message says how many and how to get the tables (:func:`fsbench.run.store.run_state`)."""
    paths = [Path(p) for p in paths]
    message = f"no results.csv found under {', '.join(map(str, paths))}"
    runs: list[Path] = []
    for p in paths:
        if (p / "run.json").is_file() or (p / "tasks").is_dir():
            runs.append(p)
        elif p.is_dir():
            runs += sorted({f.parent for f in p.rglob("run.json")} | {f.parent for f in p.rglob("tasks")})
    for d in runs:
        state = run_state(d)
        if state is None or state.n_done == 0 or has_table(d):
            continue
        message += (
            f"; {d} holds {state.n_done} finished task file(s) of an unfinished run ({state.describe()}), "
            "interrupted before its tables were written: run the same `fsbench run` command to resume it "
            "(the tables are rewritten as it goes and when it stops, Ctrl-C included)"
        )
    return message
