"""Our numbers for a printed cell or a claim check: which result rows, which column, in which unit.

A layer of the paper comparison of ``fsbench report --paper`` (render → claims → cells → sources →
values). A table of ``paper_values.yaml`` and a claim check both say where our numbers come from with
the same keys (the file's FORMAT header documents them):

* ``experiment`` — one experiment name, a list of them (pooled), or a mapping dataset → experiment
  (a table whose datasets were run as separate experiments, e.g. KIFE Table II);
* ``where`` — ``{column: value}`` filters on the result rows (e.g. ``gamma_rule: median`` for a
  diagnostic run at several settings);
* ``method_column`` — the column naming the method (default ``selector``; e.g. ``learner`` in a
  diagnostic's table);
* ``methods`` — ``{paper method id: our selector label}`` where the paper's method is one of several
  labels of the same selector (e.g. ``mmi: "MMI (24 it.)"`` beside ``"MMI (100 it.)"``); rows of those
  labels are renamed to the paper's id;
* otherwise a method is named by its fsbench selector name or by its config label (:func:`method_frame`
  replaces labels by names where that is unambiguous and keeps the label in ``label``;
  :func:`name_methods` goes back to labels for a check that names labels);
* ``datasets`` — keep only these datasets; ``n_features`` — keep only this S (a number, or a mapping
  dataset → S); ``at: own`` — one row per task, at its largest S (a transformer's own output
  dimension, the all-features baseline's D);
* ``metric`` — :func:`metric`: ``error`` (%), ``accuracy`` (%), ``fit_cpu_s`` (s, one value per fit),
  any other column of the rows as it is (lower is better), or ``{column: c, equals: v}`` = the share
  (%) of rows where ``c`` equals ``v``.

Result rows are those of ``results.csv`` (experiments) and of diagnostics' tables, concatenated; only
rows with ``status == "ok"`` are used. :func:`method_frame` (labels → registry names where that is
unambiguous) runs before the renaming by ``methods``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Metric:
    """How a result column becomes a number in a table's or check's unit.

    ``value = scale · column + offset`` per row (``equals``: 100 · [column == equals]); ``per_task``
    keeps one row per fit (:func:`one_per_fit`: fit times are measured once per fit, whatever the number of
    S evaluated).
    """

    name: str
    column: str
    unit: str = ""
    scale: float = 1.0
    offset: float = 0.0
    higher_is_better: bool = False
    per_task: bool = False
    equals: str | None = None

    def values(self, rows: pd.DataFrame) -> pd.Series:
        """The metric of every row, in its unit."""
        if self.equals is not None:
            return 100.0 * (rows[self.column].astype(str).str.strip() == self.equals).astype(float)
        col = pd.to_numeric(rows[self.column], errors="coerce")
        return col * self.scale + self.offset if (self.scale, self.offset) != (1.0, 0.0) else col

    def convert(self, mean: float, std: float) -> tuple[float, float]:
        """A mean and std of the raw column in the metric's unit (linear, so mean and std convert)."""
        return self.scale * mean + self.offset, abs(self.scale) * std

    def fmt(self, v: float) -> str:
        """A value with its unit, for check details."""
        if self.unit == "s":
            return f"{v:.3g} s"
        if self.unit == "%":
            return f"{v:.2f} %"
        return f"{v:.3g}"


_NAMED = {
    "error": Metric("error", "error", "%", 100.0),
    "accuracy": Metric("accuracy", "error", "%", -100.0, 100.0, higher_is_better=True),
    "fit_cpu_s": Metric("fit_cpu_s", "fit_cpu_s", "s", per_task=True),
    "cpu_time": Metric("cpu_time", "fit_cpu_s", "s", per_task=True),
    "fit_time": Metric("fit_time", "fit_cpu_s", "s", per_task=True),
}


def metric(spec: Any, column: str | None = None) -> Metric:
    """The :class:`Metric` of a ``metric`` entry (see the module docstring).

    Parameters
    ----------
    spec : str or dict
        ``error`` | ``accuracy`` | ``fit_cpu_s`` (aliases ``cpu_time``, ``fit_time``) | ``value`` (then
        ``column`` names the column) | any result column | ``{column: c, equals: v}`` |
        ``{column: c, better: higher}``.
    column : str, optional
        The column of ``metric: value`` (a table's ``column`` key).
    """
    if isinstance(spec, Mapping):
        col = str(spec["column"])
        if "equals" in spec:
            return Metric(f"{col} = {spec['equals']}", col, "%", equals=str(spec["equals"]).strip())
        return Metric(col, col, higher_is_better=spec.get("better") == "higher")
    spec = "error" if spec is None else str(spec)
    if spec in _NAMED:
        return _NAMED[spec]
    if spec == "value":
        if not column:
            raise ValueError("metric `value` needs a `column`")
        return Metric(column, column)
    return Metric(spec, spec)


def experiments_of(spec: Any) -> list[str]:
    """The experiment names of an ``experiment`` entry (str, list or mapping dataset → name)."""
    if spec is None:
        return []
    if isinstance(spec, Mapping):
        return [str(v) for v in dict.fromkeys(spec.values()) if v]
    if isinstance(spec, (list, tuple)):
        return [str(v) for v in spec]
    return [str(spec)]


def experiment_for(spec: Any, dataset: Any) -> str | None:
    """The experiment of one dataset under an ``experiment`` entry (None: no experiment runs it)."""
    if isinstance(spec, Mapping):
        v = spec.get(dataset)
        return str(v) if v else None
    names = experiments_of(spec)
    return names[0] if len(names) == 1 else None


def method_frame(df: pd.DataFrame) -> pd.DataFrame:
    """Results with ``selector`` set to the fsbench selector name where that is unambiguous.

    The paper values name methods by ``selector_name``; results group by ``selector`` (the label).
    Within each experiment whose labels map one-to-one to names, the label is replaced by the name
    (e.g. ``AROM`` → ``arom``); otherwise the labels are kept.

    Parameters
    ----------
    df : DataFrame
        Rows of results.csv.

    Returns
    -------
    DataFrame
        A copy, with the config label kept in ``label``.
    """
    df = df.copy()
    if "selector" in df.columns:
        # a diagnostic's table may bring its own `label` column: rows of other tables then have none
        df["label"] = df["label"].fillna(df["selector"]) if "label" in df.columns else df["selector"]
    if df.empty or "selector_name" not in df.columns:
        return df
    pairs = df[["experiment", "selector", "selector_name"]].drop_duplicates()
    n = pairs.groupby("experiment").agg(
        pairs=("selector", "size"), labels=("selector", "nunique"), names=("selector_name", "nunique")
    )
    exps = n.index[(n["pairs"] == n["labels"]) & (n["pairs"] == n["names"])]
    mask = df["experiment"].isin(exps)
    df.loc[mask, "selector"] = df.loc[mask, "selector_name"].astype(str)
    return df


def one_per_fit(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per fit, for fit times: a ranker or transformer is fitted once per task and evaluated at
    several S (its rows repeat the fit time), a subset search is fitted once per S (each row its own)."""
    return rows.drop_duplicates(["task_id", "fit_cpu_s"]) if "fit_cpu_s" in rows.columns else rows


def ok_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Rows whose task succeeded."""
    return df[df["status"] == "ok"]


def same_value(col: pd.Series, value: Any) -> pd.Series:
    """``col == value`` tolerant of the CSV's types (a number read as text or the other way)."""
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        return pd.to_numeric(col, errors="coerce") == float(value)
    return col.astype(str) == str(value)


def select_rows(
    df: pd.DataFrame, spec: Mapping[str, Any], experiments: Iterable[str], ok_only: bool = True
) -> pd.DataFrame:
    """The ok rows (all rows if not ``ok_only``) of ``experiments`` that a table or check takes its
    numbers from.

    Applies, in order: ``method_column`` (copied to ``selector``), ``methods`` (our labels renamed to
    the paper's ids), ``where``, ``datasets``, ``n_features`` and ``at: own`` (see the module
    docstring). ``df`` is expected to have gone through :func:`method_frame`.

    Returns
    -------
    DataFrame
        A copy (possibly empty).
    """
    rows = df[df["experiment"].isin(list(experiments))] if len(df) else df
    if rows.empty:
        return rows.copy()
    rows = (ok_rows(rows) if ok_only else rows).copy()
    mcol = spec.get("method_column")
    if mcol:
        rows["selector"] = rows[mcol].astype(str)
    renames = {str(ours): str(paper) for paper, ours in (spec.get("methods") or {}).items()}
    if renames:  # our labels (or names) → the paper's ids
        label = rows["label"] if "label" in rows.columns else rows["selector"]
        rows["selector"] = [
            renames.get(str(lab), renames.get(str(s), s)) for lab, s in zip(label, rows["selector"])
        ]
    for col, value in (spec.get("where") or {}).items():
        rows = rows[same_value(rows[col], value)] if col in rows.columns else rows.iloc[0:0]
    if spec.get("datasets"):
        rows = rows[rows["dataset"].astype(str).isin([str(d) for d in spec["datasets"]])]
    nf = spec.get("n_features")
    if isinstance(nf, Mapping):
        want = rows["dataset"].map(lambda d: nf.get(d, np.nan)).astype(float)
        rows = rows[rows["n_features"].astype(float) == want]
    elif nf is not None:
        rows = rows[rows["n_features"].astype(float) == float(nf)]
    if spec.get("at") == "own" and len(rows):
        # a transformer's own output dimension = the largest S its task was evaluated at
        rows = rows.loc[rows.groupby("task_id", sort=False)["n_features"].idxmax()]
        rows = rows.assign(n_features=-1)  # one common "S" so that methods pair up in tests
    return rows


def d_of(dataset: Any) -> float:
    """D of a dataset entry labelled ``..._D<D>`` (Ramona Table IX), else NaN."""
    m = re.search(r"_D(\d+)$", str(dataset))
    return float(m.group(1)) if m else float("nan")


def x_columns(x: Any) -> list[str]:
    """The columns of an ``x`` entry: a column name or a list of them (``D`` = the dataset's D)."""
    return [str(c) for c in x] if isinstance(x, (list, tuple)) else [str(x)]


def is_numeric_x(x: Any) -> bool:
    """Whether ``x`` is one numeric abscissa (S, n, D) rather than categories (datasets, cells)."""
    cols = x_columns(x)
    return len(cols) == 1 and cols[0] in ("n_features", "n_train", "D")


def with_x(df: pd.DataFrame, x: Any) -> pd.DataFrame:
    """``df`` with ``_x``: the abscissa value (a float), or a category label for categorical ``x``
    (``dataset``, or several columns: ``"liver_bupa, S = 2"``); rows without one are dropped."""
    df = df.copy()
    cols = x_columns(x)
    if is_numeric_x(x):
        if cols[0] == "D":
            df["_x"] = df["dataset"].map(d_of)
        else:
            df["_x"] = df[cols[0]].astype(float)
        return df[df["_x"].notna()]
    if not all(c in df.columns for c in cols):
        return df.iloc[0:0].assign(_x="")
    labels = {"n_features": "S", "n_train": "n"}

    def label(row: tuple) -> str:
        return ", ".join(
            str(v) if c == "dataset" else f"{labels.get(c, c)} = {_num_text(v)}" for c, v in zip(cols, row)
        )

    df["_x"] = [label(r) for r in df[cols].itertuples(index=False, name=None)]
    return df


def _num_text(v: Any) -> str:
    try:
        return f"{float(v):g}"
    except (TypeError, ValueError):
        return str(v)


def name_methods(rows: pd.DataFrame, names: Iterable[str]) -> pd.DataFrame:
    """``rows`` with methods named as ``names`` name them: by config label if every name is a label and
    not every name is a selector name (``TAKES`` is a label whether or not the experiment has a second
    label of the same selector), else as they are."""
    names = set(names)
    if not names or "label" not in rows.columns or names <= set(rows["selector"].astype(str)):
        return rows
    if names <= set(rows["label"].astype(str)):
        return rows.assign(selector=rows["label"])
    return rows
