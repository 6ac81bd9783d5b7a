"""Prose numbers that are checked against the committed files: named facts and their markers.

A number in ``README.md``, ``docs/*.md`` or a paper's ``configs/<paper>/notes.md`` or
``departures.md`` that states a measured or counted fact about committed results (a task count, a number
of selectors, a speed-up, an error quoted from a table, a count of agreeing cells, a p-value) is wrapped
in a marker naming the fact::

    The first benchmark ran <!-- fact: run_rankers(benchmark/benchmark) -->18<!-- /fact --> rankers ...

The comments render invisibly; the value between them is the number the reader sees. Each fact is a small
function of the committed files (``run.json``, ``results.csv``, ``benchmarks/results/*.json``, the configs,
the counts of the committed comparisons with the papers, ``comparison.json``), registered in
:data:`FACTS` under its name, with arguments in parentheses where one function serves many numbers
(``error_pct(<paper>/<experiment>, sas, 200)``).

* :func:`check` lists every marker whose text differs from what its fact computes (``fsbench build
  --check`` fails on any, and ``tests/results/test_facts.py`` checks the committed docs);
* :func:`update` rewrites the marked values in place (``fsbench build`` calls it, as it rewrites the
  status block of :mod:`fsbench.results.docs_status`);
* :func:`strip_markers` removes the comments and keeps the values: a paper's report shows its notes
  without them (:attr:`fsbench.papers.folder.PaperFolder.notes`), so a report only changes when a value
  does.

**How a value is written.** A fact computes a number or a string. A number is rendered in the style of the
text it replaces: as many decimals as the text has, a thousands separator if the text has one (``3,610``),
an English word if the text is one (``six``, ``Four``; up to twenty), scientific notation with as many
mantissa decimals if the text uses it (a p-value ``3e-6``), and the value's sign if the text has one (a
difference ``+0.064`` or ``−1.4``, with the typographic minus). A new marker with no number in it yet gets
digits (``3,610``; floats with two decimals). Units stay outside the marker
(``<!-- fact: ... -->4.48<!-- /fact -->×``). A string (a list of names, a commit) is compared as it is.

**What may be a fact.** Only what the committed files determine: numbers from a paper, from a measurement
that is not committed, or from the history of a result ("before the rerun: 81.1 %") stay plain prose. A
fact must be cheap (reading a few tables or JSON files; a test bounds each at a few seconds) so that the
check runs in every ``fsbench build --check`` and test run.

Facts that count what a paper's report shows (``report_*``) read the comparison it is rendered from, the
committed ``results/<paper>/comparison.json`` (:mod:`fsbench.results.comparison_file`), never the
Markdown; ``fsbench build`` rewrites the markers again after building the reports and rebuilds a paper
whose notes changed then, since its report shows them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from fsbench.config.files import read_config
from fsbench.results.comparison_file import COMPARISON_FILE, read_comparison_file
from fsbench.results.loading import baseline_labels, find_result_dirs, read_results, read_table
from fsbench.results.run_state import read_run_json
from fsbench.results.stats import loglog_slope
from fsbench.results.table_files import table_file

#: A marker: ``<!-- fact: KEY -->VALUE<!-- /fact -->``; the value is one line without ``<``.
MARKER = re.compile(r"<!-- fact: (?P<key>[^<>]*?) -->(?P<value>[^<\n]*)<!-- /fact -->")
#: ``name`` or ``name(arg, arg, column=value)``; an argument with a comma, a parenthesis or an ``=`` (a
#: selector label such as ``scss eps=1e-3 (default)``) is written in double quotes.
_KEY = re.compile(r"^(?P<name>[A-Za-z_][\w.]*)(?:\((?P<args>.*)\))?$")
#: One argument: a filter whose value is quoted (``setting="sonar, rbf"``, or in single quotes), a double-
#: or single-quoted string (single quotes inside a double-quoted key of :func:`difference`) or text up to
#: the next comma.
_ARG = re.compile(
    r"""\s*(?:(?P<kw>\w+)\s*=\s*(?:"(?P<kwq>[^"]*)"|'(?P<kwsq>[^']*)')|"(?P<quoted>[^"]*)"|'(?P<squoted>[^']*)'|(?P<plain>[^,"']*?))"""
    r"""\s*(?:,|$)"""
)
#: The documents whose markers are checked and rewritten, relative to the repository root.
DOC_GLOBS = ("README.md", "docs/*.md", "configs/*/notes.md", "configs/*/departures.md")

Value = int | float | str

_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty"
).split()


@dataclass
class FactContext:
    """Where the facts read from, and a cache of what they read (one context per check or update).

    Parameters
    ----------
    root : Path
        The repository root (``README.md``, ``docs/``, ``configs/``, ``benchmarks/``).
    results : Path, optional
        The results tree; default ``root / "results"``.
    """

    root: Path
    results: Path | None = None
    _cache: dict[tuple, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.root = Path(self.root)
        self.results = Path(self.results) if self.results is not None else self.root / "results"

    def cached(self, key: tuple, load: Callable[[], Any]) -> Any:
        """``load()`` once per ``key`` in this context."""
        if key not in self._cache:
            self._cache[key] = load()
        return self._cache[key]

    def result_dir(self, rel: str) -> Path:
        """A result directory named relative to the results tree; it must exist."""
        d = self.results / rel
        if not d.is_dir():
            raise FactError(f"no result directory {d}")
        return d

    def run(self, rel: str) -> dict:
        """``run.json`` of a result directory."""
        info = self.cached(("run", rel), lambda: read_run_json(self.result_dir(rel)))
        if not info:
            raise FactError(f"{self.results / rel}: no run.json")
        return info

    def rows(self, rel: str) -> pd.DataFrame:
        """The rows of a result directory's table (its first classifier's, :func:`read_results`)."""
        return self.cached(("rows", rel), lambda: read_results(self.result_dir(rel)))

    def json(self, rel: str) -> Any:
        """A JSON file named relative to the repository root."""
        return self.cached(("json", rel), lambda: json.loads((self.root / rel).read_text(encoding="utf-8")))

    def config(self, rel: str) -> dict:
        """The effective mapping of ``configs/<rel>.yaml`` (its ``base:`` chain merged)."""
        return self.cached(("config", rel), lambda: read_config(self.root / "configs" / f"{rel}.yaml"))

    def comparison(self, paper: str) -> dict[str, Any]:
        """The committed ``comparison.json`` of a paper folder of the results tree, as JSON data."""
        data = self.cached(("comparison", paper), lambda: read_comparison_file(self.results / paper))
        if data is None:
            raise FactError(f"no {COMPARISON_FILE} in {self.results / paper}")
        return data


class FactError(ValueError):
    """A fact that cannot be computed (a missing file, an unknown selector, a malformed marker)."""


@dataclass(frozen=True)
class Fact:
    """A registered fact: its function, what it states, and the arguments a marker gives it."""

    name: str
    compute: Callable[..., Value]
    doc: str
    params: tuple[str, ...] = ()


#: Every fact a marker may name.
FACTS: dict[str, Fact] = {}


def fact(name: str, *params: str) -> Callable[[Callable[..., Value]], Callable[..., Value]]:
    """Register a fact function under ``name``; ``params`` names its positional arguments (a marker
    gives them in order; ``key=value`` filters after them go to the function as keywords)."""

    def register(fn: Callable[..., Value]) -> Callable[..., Value]:
        if name in FACTS:
            raise ValueError(f"fact {name!r} registered twice")
        FACTS[name] = Fact(name, fn, (fn.__doc__ or "").strip().split("\n\n")[0], params)
        return fn

    return register


# --------------------------------------------------------------------------- runs (run.json)
def _run_selectors(info: dict) -> list[str]:
    """Labels of the selectors a run ran: its config's, less those it excluded (``--exclude-selector``)."""
    out = []
    for s in info.get("effective_config", {}).get("selectors", []):
        label = s if isinstance(s, str) else (s.get("label") or s.get("name"))
        out.append(str(label))
    excluded = set(info.get("excluded_selectors") or [])
    return [s for s in out if s not in excluded]


@fact("run_tasks", "result_dir")
def run_tasks(ctx: FactContext, result_dir: str) -> int:
    """Tasks the run planned (``run.json`` ``n_tasks``)."""
    return int(ctx.run(result_dir)["n_tasks"])


@fact("run_failed", "result_dir")
def run_failed(ctx: FactContext, result_dir: str) -> int:
    """Tasks of the run that failed (``run.json`` ``n_failed``)."""
    return int(ctx.run(result_dir)["n_failed"])


@fact("run_commit", "result_dir")
def run_commit(ctx: FactContext, result_dir: str) -> str:
    """The commit that computed the run (``run.json`` ``git_commit``, 7 characters)."""
    return str(ctx.run(result_dir)["git_commit"])[:7]


@fact("run_wall", "result_dir", "unit")
def run_wall(ctx: FactContext, result_dir: str, unit: str) -> float:
    """Wall time of the run in ``s``, ``min`` or ``h``, from ``started`` to ``finished``; refused for a
    resumed run (its wall time is not one interval)."""
    info = ctx.run(result_dir)
    if info.get("first_started", info["started"]) != info["started"]:
        raise FactError(f"{result_dir}: a resumed run has no single wall time")
    seconds = (pd.Timestamp(info["finished"]) - pd.Timestamp(info["started"])).total_seconds()
    per = {"s": 1.0, "min": 60.0, "h": 3600.0}
    if unit not in per:
        raise FactError(f"unit {unit!r}: expected s, min or h")
    return seconds / per[unit]


@fact("run_datasets", "result_dir")
def run_datasets(ctx: FactContext, result_dir: str) -> int:
    """Dataset entries of the run's config."""
    ds = ctx.run(result_dir).get("effective_config", {}).get("dataset", [])
    return len(ds) if isinstance(ds, list) else 1


@fact("run_rankers", "result_dir")
def run_rankers(ctx: FactContext, result_dir: str) -> int:
    """Selectors the run ran, excluded ones and the all-features baseline not counted."""
    return len([s for s in _run_selectors(ctx.run(result_dir)) if s not in baseline_labels(None)])


@fact("run_excluded", "result_dir")
def run_excluded(ctx: FactContext, result_dir: str) -> str:
    """The selectors the run left out (``run.json`` ``excluded_selectors``), comma-separated, in the
    config's order."""
    info = ctx.run(result_dir)
    excluded = set(info.get("excluded_selectors") or [])
    names = [s if isinstance(s, str) else (s.get("label") or s.get("name")) for s in _cfg_selectors(info)]
    return ", ".join(str(s) for s in names if s in excluded)


@fact("run_excluded_count", "result_dir")
def run_excluded_count(ctx: FactContext, result_dir: str) -> int:
    """How many selectors the run left out."""
    return len(ctx.run(result_dir).get("excluded_selectors") or [])


@fact("run_tasks_per_selector", "result_dir")
def run_tasks_per_selector(ctx: FactContext, result_dir: str) -> int:
    """Tasks per selector of the run (one selector added to it runs this many)."""
    info = ctx.run(result_dir)
    n, k = int(info["n_tasks"]), len(_run_selectors(info))
    if k == 0 or n % k:
        raise FactError(f"{result_dir}: {n} tasks do not divide over {k} selectors")
    return n // k


def _cfg_selectors(info: dict) -> list:
    return list(info.get("effective_config", {}).get("selectors", []))


# --------------------------------------------------------------------------- configs (planned tasks)
def _as_list(x: Any) -> list:
    return list(x) if isinstance(x, list) else [x]


@fact("config_tasks", "config")
def config_tasks(ctx: FactContext, config: str) -> int:
    """Tasks a config plans (``configs/<config>.yaml``): per dataset entry, kernels × training sizes ×
    repeats × folds × selectors, as :func:`fsbench.run.plan.expand` counts them (a test compares the two)."""
    cfg = ctx.config(config)
    base_proto = dict(cfg.get("protocol") or {})
    base_kernel = cfg.get("kernel", "linear")
    n_sel = len(cfg.get("selectors") or [])
    total = 0
    for entry in _as_list(cfg.get("dataset")):
        proto = {**base_proto, **((entry.get("protocol") or {}) if isinstance(entry, dict) else {})}
        kernel = entry.get("kernel", base_kernel) if isinstance(entry, dict) else base_kernel
        folds = proto.get("folds") or 1
        total += len(_as_list(kernel)) * len(_as_list(proto["n_train"])) * int(proto["repeats"]) * folds
    return total * n_sel


@fact("config_datasets", "config")
def config_datasets(ctx: FactContext, config: str) -> int:
    """Dataset entries of a config."""
    return len(_as_list(ctx.config(config).get("dataset")))


@fact("config_new_datasets", "config", "base")
def config_new_datasets(ctx: FactContext, config: str, base: str) -> int:
    """Datasets of ``config`` that ``base`` does not have."""

    def names(c: str) -> set[str]:
        return {e if isinstance(e, str) else e["name"] for e in _as_list(ctx.config(c).get("dataset"))}

    return len(names(config) - names(base))


# --------------------------------------------------------------------------- result tables
def _select(ctx: FactContext, result_dir: str, selector: str, filters: dict[str, str]) -> pd.DataFrame:
    """The rows of ``selector`` in a result directory, narrowed by column = value filters."""

    def rows_of_selector() -> pd.DataFrame:
        df = ctx.rows(result_dir)
        labels = df["selector"].astype(str)
        if not (labels == selector).any():
            raise FactError(f"{result_dir}: no selector {selector!r}")
        return df[labels == selector]

    # many markers quote one selector of one table: split it once
    df = ctx.cached(("selector", result_dir, selector), rows_of_selector)
    mask = _filter_mask(df, filters, result_dir)
    # only the columns the facts read: copying every column of a wide table costs more than the rest
    cols = [c for c in (*_ROW_COLUMNS, *filters) if c in df.columns]
    return df.loc[mask, list(dict.fromkeys(cols))]


def _filter_mask(df: pd.DataFrame, filters: dict[str, str], where: str) -> pd.Series:
    """Rows whose ``column`` is ``value`` for every filter; ``a;b`` is either value (a ``|`` would end a
    Markdown table cell)."""
    mask = pd.Series(True, index=df.index)
    for col, val in filters.items():
        if col not in df.columns:
            raise FactError(f"{where}: no column {col!r}")
        mask &= df[col].astype(str).isin(val.split(";"))
    return mask


#: The columns of a result table that the row facts read.
_ROW_COLUMNS = (
    "dataset",
    "kernel",
    "n_train",
    "status",
    "n_features",
    "error",
    "balanced_error",
    "fit_cpu_s",
    "fit_wall_s",
    "task_id",
    "split_seed",
    "n_test",
)


def _at_s(ctx: FactContext, result_dir: str, selector: str, s: str, filters: dict[str, str]) -> pd.Series:
    df = _select(ctx, result_dir, selector, filters)
    df = df[(df["status"] == "ok") & (df["n_features"] == int(s))]
    settings = df.groupby(["dataset", "kernel", "n_train"]).ngroups
    if settings != 1:
        raise FactError(
            f"{result_dir}, {selector}, S = {s}: {settings} settings (dataset, kernel, n_train) match; "
            "narrow with dataset=..., kernel=..., n_train=..."
        )
    return df["error"]


@fact("error_pct", "result_dir", "selector", "S")
def error_pct(ctx: FactContext, result_dir: str, selector: str, s: str, **filters: str) -> float:
    """Mean test error (%) of a selector at S over the finished tasks of one setting (filters
    ``dataset=``, ``kernel=``, ``n_train=`` where the directory holds several)."""
    return float(_at_s(ctx, result_dir, selector, s, filters).mean() * 100)


@fact("accuracy_pct", "result_dir", "selector", "S")
def accuracy_pct(ctx: FactContext, result_dir: str, selector: str, s: str, **filters: str) -> float:
    """Mean test accuracy (%) = 100 − :func:`error_pct`."""
    return 100.0 - error_pct(ctx, result_dir, selector, s, **filters)


@fact("error_std_pct", "result_dir", "selector", "S")
def error_std_pct(ctx: FactContext, result_dir: str, selector: str, s: str, **filters: str) -> float:
    """Standard deviation (%, n − 1) of the test error of a selector at S over the finished tasks."""
    return float(_at_s(ctx, result_dir, selector, s, filters).std(ddof=1) * 100)


@fact("bcr", "result_dir", "selector", "S")
def bcr(ctx: FactContext, result_dir: str, selector: str, s: str, **filters: str) -> float:
    """Mean balanced classification rate (1 − balanced error; Paul 2015's BCR) of a selector at S over
    the finished tasks of one setting."""
    df = _select(ctx, result_dir, selector, filters)
    df = df[(df["status"] == "ok") & (df["n_features"] == int(s))]
    if df.groupby(["dataset", "kernel", "n_train"]).ngroups != 1:
        raise FactError(f"{result_dir}, {selector}, S = {s}: not one setting; narrow with dataset=...")
    return float(1.0 - df["balanced_error"].mean())


@fact("accuracy_pct_final", "result_dir", "selector")
def accuracy_pct_final(ctx: FactContext, result_dir: str, selector: str, **filters: str) -> float:
    """Mean test accuracy (%) of a selector at the largest S of each finished task: a transformer that
    chooses its own output dimension (TAKES) or the all-features reference, one value per split."""
    df = _select(ctx, result_dir, selector, filters)
    df = df[df["status"] == "ok"]
    if df.groupby(["dataset", "kernel", "n_train"]).ngroups != 1:
        raise FactError(f"{result_dir}, {selector}: several settings match; narrow with dataset=...")
    last = df.loc[df.groupby("task_id")["n_features"].idxmax()]
    return float(100.0 - last["error"].mean() * 100)


def _column(ctx: FactContext, result_dir: str, column: str, filters: dict[str, str]) -> pd.Series:
    df = ctx.rows(result_dir)
    if column not in df.columns:
        raise FactError(f"{result_dir}: no column {column!r}")
    if "status" in df.columns:
        df = df[df["status"] == "ok"]
    df = df[_filter_mask(df, filters, result_dir)]
    if df.empty:
        raise FactError(f"{result_dir}: no finished row with {filters}")
    return df[column]


@fact("column_mean", "result_dir", "column")
def column_mean(ctx: FactContext, result_dir: str, column: str, **filters: str) -> float:
    """Mean of a column of a result table over its finished rows matching ``column=value`` filters (a
    diagnostic's own columns, e.g. ``dim`` or ``E_train`` of ``takes_reconstruction``)."""
    return float(_column(ctx, result_dir, column, filters).mean())


@fact("column_sum", "result_dir", "column")
def column_sum(ctx: FactContext, result_dir: str, column: str, **filters: str) -> float:
    """Sum of a column of a result table over its finished rows matching ``column=value`` filters (e.g.
    the wall seconds of a subset search fitted once per S: ``fit_wall_s``)."""
    return float(_column(ctx, result_dir, column, filters).sum())


@fact("column_mean_pct", "result_dir", "column")
def column_mean_pct(ctx: FactContext, result_dir: str, column: str, **filters: str) -> float:
    """100 × :func:`column_mean` (a share or an accuracy in [0, 1] quoted in %)."""
    return 100.0 * column_mean(ctx, result_dir, column, **filters)


def _fit_cpu(
    ctx: FactContext, result_dir: str, selector: str, filters: dict[str, str], column: str = "fit_cpu_s"
) -> pd.Series:
    df = _select(ctx, result_dir, selector, filters)
    # one fit per task: every S row of a task repeats its fit time
    return df[df["status"] == "ok"].drop_duplicates("task_id")[column]


@fact("fit_cpu_mean", "result_dir", "selector")
def fit_cpu_mean(ctx: FactContext, result_dir: str, selector: str, **filters: str) -> float:
    """Mean CPU seconds of one selector fit (one per task) over the finished tasks."""
    return float(_fit_cpu(ctx, result_dir, selector, filters).mean())


@fact("fit_wall_mean", "result_dir", "selector")
def fit_wall_mean(ctx: FactContext, result_dir: str, selector: str, **filters: str) -> float:
    """Mean wall seconds of one selector fit (one per task) over the finished tasks."""
    return float(_fit_cpu(ctx, result_dir, selector, filters, "fit_wall_s").mean())


@fact("fit_cpu_median", "result_dir", "selector")
def fit_cpu_median(ctx: FactContext, result_dir: str, selector: str, **filters: str) -> float:
    """Median CPU seconds of one selector fit (one per task) over the finished tasks."""
    return float(_fit_cpu(ctx, result_dir, selector, filters).median())


@fact("fit_cpu_total", "result_dir")
def fit_cpu_total(ctx: FactContext, result_dir: str, **filters: str) -> float:
    """CPU seconds of every selector fit of a run (one per finished task), summed; ``selector=`` and the
    other filters narrow the tasks."""
    df = _finished(ctx, result_dir, filters)
    return float(df.drop_duplicates("task_id")["fit_cpu_s"].sum())


@fact("cpu_slope", "result_dir", "selector", "n_from")
def cpu_slope(ctx: FactContext, result_dir: str, selector: str, n_from: str, **filters: str) -> float:
    """Log-log slope of a selector's median fit CPU time (one per task) on the training size, over the
    sizes from ``n_from`` up (:func:`fsbench.results.stats.loglog_slope`): its empirical exponent in N."""
    df = _select(ctx, result_dir, selector, filters)
    df = df[(df["status"] == "ok") & (df["n_train"] >= int(n_from))].drop_duplicates("task_id")
    med = df.groupby("n_train")["fit_cpu_s"].median()
    slope = loglog_slope(med.index, med.to_numpy())
    if slope != slope:
        raise FactError(f"{result_dir}, {selector}: fewer than two training sizes from {n_from}")
    return slope


@fact("fit_ratio_mean", "result_dir", "a", "b")
def fit_ratio_mean(ctx: FactContext, result_dir: str, a: str, b: str, **filters: str) -> float:
    """Mean wall seconds of one fit of selector ``a`` over that of selector ``b`` (:func:`fit_wall_mean`
    of each, same filters): how many times longer ``a`` takes."""
    return fit_wall_mean(ctx, result_dir, a, **filters) / fit_wall_mean(ctx, result_dir, b, **filters)


# --------------------------------------------------------------------------- metrics over groups and pairs
#: Metrics computed from a result table's row: (how, lower is better). Any other numeric column is its
#: own metric (lower is better for a time, which is what the paired facts compare).
_METRICS: dict[str, tuple[Callable[[pd.DataFrame], pd.Series], bool]] = {
    "error_pct": (lambda d: d["error"] * 100, True),
    "accuracy_pct": (lambda d: (1 - d["error"]) * 100, False),
    "bcr": (lambda d: 1 - d["balanced_error"], False),
}


def _metric(df: pd.DataFrame, metric: str, where: str) -> tuple[pd.Series, bool]:
    """A metric's values on the rows of ``df`` and whether lower is better."""
    if metric in _METRICS:
        how, lower = _METRICS[metric]
        return how(df).astype(float), lower
    if metric not in df.columns:
        raise FactError(f"{where}: no metric or column {metric!r} (metrics: {', '.join(_METRICS)})")
    return pd.to_numeric(df[metric], errors="coerce"), True


def _finished(ctx: FactContext, result_dir: str, filters: dict[str, str]) -> pd.DataFrame:
    """The finished rows of a result table narrowed by ``column=value`` filters (``a;b``: either);
    ``S=max`` keeps each task's row at its largest S (a transformer's own output dimension)."""
    df = ctx.rows(result_dir)
    if "status" in df.columns:
        df = df[df["status"] == "ok"]
    filters = dict(filters)
    if filters.pop("S", None) == "max":
        df = df.loc[df.groupby("task_id")["n_features"].idxmax()]
    df = df[_filter_mask(df, filters, result_dir)]
    if df.empty:
        raise FactError(f"{result_dir}: no finished row with {filters}")
    return df


def _group_means(
    ctx: FactContext, result_dir: str, metric: str, by: str, filters: dict[str, str]
) -> pd.Series:
    df = _finished(ctx, result_dir, filters)
    cols = by.split("+")
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise FactError(f"{result_dir}: no column {missing[0]!r} to group by")
    values, _ = _metric(df, metric, result_dir)
    return values.groupby([df[c] for c in cols]).mean()


@fact("group_min", "result_dir", "metric", "by")
def group_min(ctx: FactContext, result_dir: str, metric: str, by: str, **filters: str) -> float:
    """The smallest mean of a metric (``error_pct``, ``accuracy_pct``, ``bcr`` or a numeric column) over
    the groups of finished rows by the columns ``by`` (``selector+n_features``): the low end of a range
    quoted over selectors, S values or datasets (filters ``selector=a;b`` narrow the rows)."""
    return float(_group_means(ctx, result_dir, metric, by, filters).min())


@fact("group_max", "result_dir", "metric", "by")
def group_max(ctx: FactContext, result_dir: str, metric: str, by: str, **filters: str) -> float:
    """The largest mean of a metric over the groups of finished rows by the columns ``by`` (the high end
    of a range; as :func:`group_min`)."""
    return float(_group_means(ctx, result_dir, metric, by, filters).max())


def _group_stds(
    ctx: FactContext, result_dir: str, metric: str, by: str, filters: dict[str, str]
) -> pd.Series:
    df = _finished(ctx, result_dir, filters)
    values, _ = _metric(df, metric, result_dir)
    return values.groupby([df[c] for c in by.split("+")]).std(ddof=1)


@fact("group_std_min", "result_dir", "metric", "by")
def group_std_min(ctx: FactContext, result_dir: str, metric: str, by: str, **filters: str) -> float:
    """The smallest standard deviation (n − 1) of a metric over the groups of finished rows by ``by``
    (e.g. the spread over repeats of each selector: the low end of "our std is 0.7–1.6")."""
    return float(_group_stds(ctx, result_dir, metric, by, filters).min())


@fact("group_std_max", "result_dir", "metric", "by")
def group_std_max(ctx: FactContext, result_dir: str, metric: str, by: str, **filters: str) -> float:
    """The largest standard deviation (n − 1) of a metric over the groups of finished rows by ``by``."""
    return float(_group_stds(ctx, result_dir, metric, by, filters).max())


@fact("max_shift", "result_dir", "other_dir", "metric", "by")
def max_shift(
    ctx: FactContext, result_dir: str, other_dir: str, metric: str, by: str, **filters: str
) -> float:
    """The largest absolute difference between the group means of a metric in two result directories (a
    default and a reading run on its splits), over the groups ``by`` both have: "every cell moves by at
    most ..."; the filters narrow both."""
    a = _group_means(ctx, result_dir, metric, by, filters)
    b = _group_means(ctx, other_dir, metric, by, filters)
    common = a.index.intersection(b.index)
    if len(common) == 0:
        raise FactError(f"{result_dir} and {other_dir} share no group by {by!r}")
    return float((a.loc[common] - b.loc[common]).abs().max())


@fact("group_count", "result_dir", "by")
def group_count(ctx: FactContext, result_dir: str, by: str, **filters: str) -> int:
    """How many groups (distinct values of the columns ``by``) the finished rows matching the filters
    have: e.g. the (selector, S) pairs of a dataset, or the splits in which a selector chose one subset."""
    df = _finished(ctx, result_dir, filters)
    return int(df.groupby(by.split("+")).ngroups)


def _pair(
    ctx: FactContext,
    result_dir: str,
    metric: str,
    a: str,
    s_a: str,
    b: str,
    s_b: str,
    filters: dict[str, str],
) -> tuple[pd.Series, pd.Series, pd.DataFrame, bool]:
    """Selector ``a`` at S = ``s_a`` and ``b`` at ``s_b`` on the same splits (same dataset, kernel,
    training size and split seed; ``*`` for both S pairs every S with itself; ``max`` is each task's
    largest S, a transformer's own output dimension or the all-features reference): the two metric series
    aligned, a's rows, and whether lower is better."""
    keys = ["dataset", "kernel", "n_train", "split_seed"]
    every_s = s_a == "*" and s_b == "*"
    if (s_a == "*") != (s_b == "*"):
        raise FactError("S = * pairs every S with itself: give it for both selectors")

    def side(sel: str, s: str) -> tuple[pd.Series, pd.DataFrame, bool]:
        df = _select(ctx, result_dir, sel, filters)
        df = df[df["status"] == "ok"]
        if s == "max":
            df = df.loc[df.groupby("task_id")["n_features"].idxmax()]
        elif not every_s:
            df = df[df["n_features"] == int(s)]
        values, lower = _metric(df, metric, result_dir)
        index = keys + (["n_features"] if every_s else [])
        return values.set_axis(pd.MultiIndex.from_frame(df[index])), df, lower

    va, rows_a, lower = side(a, s_a)
    vb, _, _ = side(b, s_b)
    common = va.index.intersection(vb.index)
    if va.index.has_duplicates or vb.index.has_duplicates:
        raise FactError(f"{result_dir}: several rows per split; narrow with dataset=..., n_train=...")
    if len(common) == 0:
        raise FactError(f"{result_dir}: {a} (S = {s_a}) and {b} (S = {s_b}) share no split")
    return va.loc[common], vb.loc[common], rows_a, lower


#: The arguments of every paired fact: a result directory, a metric, and two (selector, S) sides.
_PAIRED = ("result_dir", "metric", "a", "S_a", "b", "S_b")


@fact("paired_diff", *_PAIRED)
def paired_diff(
    ctx: FactContext, result_dir: str, metric: str, a: str, s_a: str, b: str, s_b: str, **filters: str
) -> float:
    """Mean over the shared splits of a's metric minus b's (selector ``a`` at S = ``S_a``, ``b`` at
    ``S_b``; ``*`` for both: every S paired with itself)."""
    x, y, _, _ = _pair(ctx, result_dir, metric, a, s_a, b, s_b, filters)
    return float((x - y).mean())


@fact("paired_n", *_PAIRED)
def paired_n(
    ctx: FactContext, result_dir: str, metric: str, a: str, s_a: str, b: str, s_b: str, **filters: str
) -> int:
    """Number of splits (cells, with S = ``*``) both sides finished."""
    return len(_pair(ctx, result_dir, metric, a, s_a, b, s_b, filters)[0])


@fact("paired_better", *_PAIRED)
def paired_better(
    ctx: FactContext, result_dir: str, metric: str, a: str, s_a: str, b: str, s_b: str, **filters: str
) -> int:
    """Number of shared splits on which ``a`` is strictly better than ``b`` (lower error or time, higher
    accuracy or BCR)."""
    x, y, _, lower = _pair(ctx, result_dir, metric, a, s_a, b, s_b, filters)
    return int(((x < y) if lower else (x > y)).sum())


@fact("paired_worse", *_PAIRED)
def paired_worse(
    ctx: FactContext, result_dir: str, metric: str, a: str, s_a: str, b: str, s_b: str, **filters: str
) -> int:
    """Number of shared splits on which ``a`` is strictly worse than ``b``."""
    x, y, _, lower = _pair(ctx, result_dir, metric, a, s_a, b, s_b, filters)
    return int(((x > y) if lower else (x < y)).sum())


@fact("paired_t_nb", *_PAIRED)
def paired_t_nb(
    ctx: FactContext, result_dir: str, metric: str, a: str, s_a: str, b: str, s_b: str, **filters: str
) -> float:
    """Nadeau–Bengio corrected paired t of a − b over J resampled splits: mean / sqrt((1/J + n_test /
    n_train) · variance), the training and test sizes read from a's rows."""
    x, y, rows, _ = _pair(ctx, result_dir, metric, a, s_a, b, s_b, filters)
    d = (x - y).to_numpy(dtype=float)
    if len(d) < 2 or "n_test" not in rows.columns:
        raise FactError(f"{result_dir}: a corrected t needs two splits and the n_test column")
    ratio = float((rows["n_test"] / rows["n_train"]).mean())
    return float(d.mean() / np.sqrt((1 / len(d) + ratio) * d.var(ddof=1)))


@fact("paired_t_p", *_PAIRED)
def paired_t_p(
    ctx: FactContext, result_dir: str, metric: str, a: str, s_a: str, b: str, s_b: str, **filters: str
) -> float:
    """Two-sided p-value of the paired t-test of a against b over the shared splits."""
    x, y, _, _ = _pair(ctx, result_dir, metric, a, s_a, b, s_b, filters)
    return float(stats.ttest_rel(x.to_numpy(float), y.to_numpy(float)).pvalue)


@fact("paired_wilcoxon_p", *_PAIRED)
def paired_wilcoxon_p(
    ctx: FactContext, result_dir: str, metric: str, a: str, s_a: str, b: str, s_b: str, **filters: str
) -> float:
    """Two-sided p-value of the Wilcoxon signed-rank test of a − b over the shared splits (scipy's
    default: zero differences dropped)."""
    x, y, _, _ = _pair(ctx, result_dir, metric, a, s_a, b, s_b, filters)
    return float(stats.wilcoxon(x.to_numpy(float) - y.to_numpy(float)).pvalue)


@fact("paired_speedup", *_PAIRED)
def paired_speedup(
    ctx: FactContext, result_dir: str, metric: str, a: str, s_a: str, b: str, s_b: str, **filters: str
) -> float:
    """Geometric mean over the shared splits of b's metric over a's: how many times faster ``a`` is than
    ``b`` (``metric`` a time: ``fit_wall_s`` or ``fit_cpu_s``)."""
    x, y, _, _ = _pair(ctx, result_dir, metric, a, s_a, b, s_b, filters)
    if (x <= 0).any() or (y <= 0).any():
        raise FactError(f"{result_dir}: a speed-up needs positive times")
    return float(np.exp(np.mean(np.log(y.to_numpy(float) / x.to_numpy(float)))))


def _by_group(
    ctx: FactContext,
    result_dir: str,
    metric: str,
    a: str,
    s_a: str,
    b: str,
    s_b: str,
    by: str,
    filters: dict[str, str],
) -> list[tuple[pd.Series, pd.Series, bool]]:
    """:func:`_pair` split into groups by the columns ``by`` (of dataset, kernel, n_train, n_features)."""
    x, y, _, lower = _pair(ctx, result_dir, metric, a, s_a, b, s_b, filters)
    levels = by.split("+")
    if not set(levels) <= set(x.index.names):
        raise FactError(f"group by {by!r}: only {', '.join(n for n in x.index.names if n != 'split_seed')}")
    return [(gx, y.loc[gx.index], lower) for _, gx in x.groupby(level=levels)]


#: The arguments of a paired fact counted over groups: a paired fact's, and the columns of a group.
_GROUPED = (*_PAIRED, "by")


@fact("groups_better", *_GROUPED)
def groups_better(
    ctx: FactContext,
    result_dir: str,
    metric: str,
    a: str,
    s_a: str,
    b: str,
    s_b: str,
    by: str,
    **filters: str,
) -> int:
    """In how many groups (``by``: e.g. ``dataset``) ``a``'s mean over the shared splits is strictly
    better than ``b``'s ("TAKES is ahead on 2 of 6 datasets")."""
    return sum(
        bool(gx.mean() < gy.mean() if lower else gx.mean() > gy.mean())
        for gx, gy, lower in _by_group(ctx, result_dir, metric, a, s_a, b, s_b, by, filters)
    )


@fact("groups_significant", *_GROUPED)
def groups_significant(
    ctx: FactContext,
    result_dir: str,
    metric: str,
    a: str,
    s_a: str,
    b: str,
    s_b: str,
    by: str,
    **filters: str,
) -> int:
    """In how many groups the paired t-test of a against b over the shared splits is significant at 5 %
    (two-sided, either direction)."""
    return sum(
        bool(stats.ttest_rel(gx.to_numpy(float), gy.to_numpy(float)).pvalue < 0.05)
        for gx, gy, _ in _by_group(ctx, result_dir, metric, a, s_a, b, s_b, by, filters)
    )


@fact("groups_max_distance", *_GROUPED)
def groups_max_distance(
    ctx: FactContext,
    result_dir: str,
    metric: str,
    a: str,
    s_a: str,
    b: str,
    s_b: str,
    by: str,
    **filters: str,
) -> float:
    """The largest absolute difference of the two means over the groups ("differ by at most ...")."""
    return max(
        abs(float(gx.mean() - gy.mean()))
        for gx, gy, _ in _by_group(ctx, result_dir, metric, a, s_a, b, s_b, by, filters)
    )


@fact("groups", *_GROUPED)
def groups(
    ctx: FactContext,
    result_dir: str,
    metric: str,
    a: str,
    s_a: str,
    b: str,
    s_b: str,
    by: str,
    **filters: str,
) -> int:
    """How many groups the two selectors share (the "of 6" of "ahead on 2 of 6")."""
    return len(_by_group(ctx, result_dir, metric, a, s_a, b, s_b, by, filters))


# --------------------------------------------------------------------------- committed CSV tables
@fact("csv", "file", "column")
def csv_value(ctx: FactContext, file: str, column: str, **filters: str) -> Value:
    """The value of ``column`` in the one row of a committed CSV file (relative to the repository root,
    e.g. a report's ``results/<paper>/stability.csv``) that the ``column=value`` filters select."""
    df = ctx.cached(("csv", file), lambda: read_table(ctx.root / file))
    if column not in df.columns:
        raise FactError(f"{file}: no column {column!r}")
    rows = df[_filter_mask(df, filters, file)]
    if len(rows) != 1:
        raise FactError(f"{file}: {len(rows)} rows match {filters}; the filters must select one")
    v = rows[column].iloc[0]
    return v.item() if hasattr(v, "item") else v


# --------------------------------------------------------------------------- arithmetic on other facts
def _of(ctx: FactContext, key: str) -> float:
    v = compute(key, ctx)
    if isinstance(v, str):
        raise FactError(f"{key} is text, not a number")
    return float(v)


@fact("difference", "a", "b")
def difference(ctx: FactContext, a: str, b: str) -> float:
    """The value of the fact ``a`` minus that of ``b`` (each a quoted key; a label in it that needs quotes
    takes single ones: ``"accuracy_pct(p/x, 'KIFE (24 it.)', 8)"``)."""
    return _of(ctx, a) - _of(ctx, b)


@fact("distance", "a", "b")
def distance(ctx: FactContext, a: str, b: str) -> float:
    """The absolute difference of the facts ``a`` and ``b`` (quoted keys): "differ by at most ..." over
    several pairs is :func:`maximum` of distances."""
    return abs(difference(ctx, a, b))


@fact("ratio", "a", "b")
def ratio(ctx: FactContext, a: str, b: str) -> float:
    """The value of the fact ``a`` over that of ``b`` (quoted keys, as :func:`difference`)."""
    den = _of(ctx, b)
    if den == 0:
        raise FactError(f"{b} is 0")
    return _of(ctx, a) / den


@fact("total", "*keys")
def total(ctx: FactContext, *keys: str) -> float:
    """The sum of the facts named (quoted keys): e.g. the shares of first and second ranks."""
    return sum(_of(ctx, k) for k in keys)


@fact("minimum", "*keys")
def minimum(ctx: FactContext, *keys: str) -> float:
    """The smallest value of the facts named (quoted keys): the low end of a quoted range."""
    return min(_of(ctx, k) for k in keys)


@fact("maximum", "*keys")
def maximum(ctx: FactContext, *keys: str) -> float:
    """The largest value of the facts named (quoted keys): the high end of a quoted range."""
    return max(_of(ctx, k) for k in keys)


# --------------------------------------------------------------------------- benchmarks/results/*.json
def _json_at(obj: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(obj, list):
            obj = obj[int(part)]
        elif isinstance(obj, dict) and part in obj:
            obj = obj[part]
        else:
            raise FactError(f"no key {part!r} on the path {path!r}")
    return obj


@fact("json", "file", "path")
def json_value(ctx: FactContext, file: str, path: str) -> Value:
    """The number or string at a dotted path (list indices as numbers) of a committed JSON file."""
    v = _json_at(ctx.json(file), path)
    if isinstance(v, bool) or not isinstance(v, int | float | str):
        raise FactError(f"{file}: {path} is {type(v).__name__}, not a number or a string")
    return v


@fact("json_len", "file", "path")
def json_len(ctx: FactContext, file: str, path: str) -> int:
    """The length of the list at a dotted path of a committed JSON file."""
    return len(_json_at(ctx.json(file), path))


@fact("json_count", "file", "path", "key")
def json_count(ctx: FactContext, file: str, path: str, key: str) -> int:
    """How many records of the list at ``path`` have a true ``key``."""
    return sum(bool(r.get(key)) for r in _json_at(ctx.json(file), path))


# --------------------------------------------------------------------------- committed comparisons
def _table(ctx: FactContext, paper: str, name: str, key: str) -> dict[str, Any]:
    """The table of a paper's comparison that the report names ``name`` (``key``: ``name`` in the count
    table of its summary, ``differing_name`` in the table of differing cells per class)."""
    for t in ctx.comparison(paper)["tables"]:
        if t.get(key) == name:
            return t
    where = "the cell counts" if key == "name" else "the differing cells"
    raise FactError(f"{paper}: no table {name!r} in {where} of its comparison")


@fact("report_cells", "paper", "table", "column")
def report_cells(ctx: FactContext, paper: str, table: str, column: str) -> int:
    """A count of the per-table cell comparison of a paper's report (columns ``compared``, ``agree``,
    ``differ``, ``external``, ``doubtful``; ``table`` as the report names it, e.g. ``II``)."""
    counts = _table(ctx, paper, table, "name")["counts"]
    # the report's column "agree (secondary, 10 %)" is the count agree_secondary
    key = "agree_secondary" if column.startswith("agree (secondary") else column
    if key not in counts:
        raise FactError(f"{paper}: no count {column!r} of a table (known: {', '.join(sorted(counts))})")
    return int(counts[key])


def _cell_matches(cell: dict[str, Any], filters: dict[str, str]) -> bool:
    """A comparison cell's fields equal the filters (``a;b``: either; ``setting`` also matches its leading
    comma-separated parts: ``setting=sonar`` selects ``sonar, rbf, S = 10, dim 10.0``)."""
    for key, val in filters.items():
        have = str(cell.get(key, ""))
        options = val.split(";")
        prefix = key == "setting" and any(have == v or have.startswith(v + ",") for v in options)
        if not (prefix or have in options):
            return False
    return True


def _differing(ctx: FactContext, paper: str, table: str, filters: dict[str, str]) -> list[tuple[dict, dict]]:
    """The differing cells of a table of a paper's comparison, (classification, cell), narrowed by the cell
    fields given as filters (``method=kfds``, ``setting=...``) and ``reading=`` (the reading that explains
    a cell)."""
    t = _table(ctx, paper, table, "differing_name")
    filters = dict(filters)
    reading = filters.pop("reading", None)
    return [
        (d, t["cells"][d["cell"]])
        for d in t["differing"]
        if _cell_matches(t["cells"][d["cell"]], filters) and (reading is None or d.get("reading") == reading)
    ]


@fact("report_differing", "paper", "table", "column")
def report_differing(ctx: FactContext, paper: str, table: str, column: str, **filters: str) -> int:
    """A count of the per-table classification of differing cells in a paper's report (columns
    ``differing``, ``explained``, ``paper inconsistent``, ``unexplained``); filters on the cells
    (``method=kfds``; ``reading=<id>``: explained by that reading) count part of them."""
    differing = _differing(ctx, paper, table, filters)
    if column == "differing":
        return len(differing)
    classes = {"explained", "paper inconsistent", "unexplained"}
    if column not in classes:
        raise FactError(f"{paper}: no column {column!r} of the differing cells (known: differing, {classes})")
    return sum(d["cls"] == column for d, _ in differing)


def _gaps(ctx: FactContext, paper: str, table: str, filters: dict[str, str]) -> list[float]:
    gaps = [
        abs(float(c["diff"])) for _, c in _differing(ctx, paper, table, filters) if c.get("diff") is not None
    ]
    if not gaps:
        raise FactError(f"{paper}, table {table}: no differing cell with a difference matches {filters}")
    return gaps


@fact("report_gap_min", "paper", "table")
def report_gap_min(ctx: FactContext, paper: str, table: str, **filters: str) -> float:
    """The smallest |ours − paper| (the table's unit) over the differing cells of a table matching the
    filters (``method=kfds``): the low end of "our error is 2.3–8.1 points lower"."""
    return min(_gaps(ctx, paper, table, filters))


@fact("report_gap_max", "paper", "table")
def report_gap_max(ctx: FactContext, paper: str, table: str, **filters: str) -> float:
    """The largest |ours − paper| over the differing cells of a table matching the filters."""
    return max(_gaps(ctx, paper, table, filters))


def _cell_numbers(
    ctx: FactContext, paper: str, table: str, field: str, filters: dict[str, str]
) -> list[float]:
    """``field`` of the cells of a paper's comparison table (named as in the count table) that the filters
    select; ``ours_ms`` is ``ours_seconds`` (a CPU cell's mean seconds) in milliseconds."""
    cells = [c for c in _table(ctx, paper, table, "name")["cells"] if _cell_matches(c, filters)]
    scale, key = (1000.0, "ours_seconds") if field == "ours_ms" else (1.0, field)
    out = []
    for c in cells:
        v = c.get(key)
        if v is None or isinstance(v, (bool, str)):
            raise FactError(
                f"{paper}, table {table}: a cell ({c.get('setting')}, {c.get('method')}) has no {field!r}"
            )
        out.append(scale * float(v))
    if not out:
        raise FactError(f"{paper}, table {table}: no cell matches {filters}")
    return out


@fact("report_cell", "paper", "table", "field")
def report_cell(ctx: FactContext, paper: str, table: str, field: str, **filters: str) -> float:
    """A number of the one cell of a paper's comparison table (``table`` as the count table names it)
    that the filters select (``method=sas``, ``setting=...``): ``paper``, ``paper_std``, ``ours``,
    ``ours_std``, ``diff`` (ours − paper), ``p``, ``ours_seconds`` or ``ours_ms`` (a CPU cell's time)."""
    values = _cell_numbers(ctx, paper, table, field, filters)
    if len(values) != 1:
        raise FactError(
            f"{paper}, table {table}: {len(values)} cells match {filters}; the filters must select one"
        )
    return values[0]


@fact("report_cell_min", "paper", "table", "field")
def report_cell_min(ctx: FactContext, paper: str, table: str, field: str, **filters: str) -> float:
    """The smallest ``field`` over the cells the filters select (``setting=a;b`` for several settings)."""
    return min(_cell_numbers(ctx, paper, table, field, filters))


@fact("report_cell_max", "paper", "table", "field")
def report_cell_max(ctx: FactContext, paper: str, table: str, field: str, **filters: str) -> float:
    """The largest ``field`` over the cells the filters select."""
    return max(_cell_numbers(ctx, paper, table, field, filters))


@fact("report_slope", "paper", "table", "method", "field")
def report_slope(ctx: FactContext, paper: str, table: str, method: str, field: str) -> float:
    """A log-log slope of a CPU-time table of a paper's comparison (its ``cpu_shape``; ``table`` by its
    id, e.g. ``table8``): ``ours`` (medians over the rule's range), ``lo`` / ``hi`` (its bootstrap CI),
    ``paper`` (from the printed values), ``ours_full`` / ``paper_full`` (every x)."""
    shape = ctx.comparison(paper).get("cpu_shape") or {}
    found = [s for s in shape.get("slopes", []) if s["table"] == table and s["method"] == method]
    if len(found) != 1 or found[0].get(field) is None:
        raise FactError(f"{paper}: no slope {field!r} of {method} in {table}")
    return float(found[0][field])


@fact("report_readings", "paper")
def report_readings(ctx: FactContext, paper: str) -> int:
    """Readings a paper's report lists as run (rows of its "Readings" table)."""
    return len(ctx.comparison(paper)["readings"])


@fact("report_readings_own", "paper")
def report_readings_own(ctx: FactContext, paper: str) -> int:
    """Readings of a paper's report run by a config of their own (their rows come from an experiment
    other than the default's: `` `defaults` → `experiment` `` in the report; the others run in the
    default's experiments)."""
    return sum(r["source"] != r["default"] for r in ctx.comparison(paper)["readings"])


@fact("report_readings_default", "paper")
def report_readings_default(ctx: FactContext, paper: str) -> int:
    """Readings of a paper's report run inside the default's experiments (under other labels)."""
    return report_readings(ctx, paper) - report_readings_own(ctx, paper)


# --------------------------------------------------------------------------- the committed tree
@fact("papers")
def papers(ctx: FactContext) -> int:
    """Papers reproduced: folders ``configs/<paper>`` with a ``paper_values.yaml``."""
    return len(list((ctx.root / "configs").glob("*/paper_values.yaml")))


def _committed_dirs(ctx: FactContext) -> list[Path]:
    """The result directories of the results tree, a run in progress (``_in_progress``) left out."""
    dirs = find_result_dirs([ctx.results])
    return [d for d in dirs if "_in_progress" not in d.relative_to(ctx.results).parts]


@fact("result_dirs")
def result_dirs(ctx: FactContext) -> int:
    """Result directories committed under the results tree (a run in progress not counted)."""
    return len(_committed_dirs(ctx))


@fact("paper_table_mb_max")
def paper_table_mb_max(ctx: FactContext) -> float:
    """Size in MB (10⁶ bytes) of the largest committed results / rankings table of a paper's results."""
    sizes = [
        f.stat().st_size
        for d in _committed_dirs(ctx)
        if (ctx.root / "configs" / d.relative_to(ctx.results).parts[0] / "paper_values.yaml").is_file()
        for name in ("results", "rankings")
        if (f := table_file(d, name)) is not None
    ]
    if not sizes:
        raise FactError(f"no paper's result table under {ctx.results}")
    return max(sizes) / 1e6


# --------------------------------------------------------------------------- markers
@dataclass(frozen=True)
class Marker:
    """One marker of a document: the fact it names and the text it holds."""

    path: Path
    line: int
    key: str
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Mismatch:
    """A marker whose text is not what its fact computes (or whose fact cannot be computed)."""

    marker: Marker
    expected: str | None  #: None: the fact could not be computed
    reason: str = ""

    def line(self, root: Path | None = None) -> str:
        """One line for the console: where, which fact, what the text says and what it should."""
        p = self.marker.path
        where = p.relative_to(root) if root is not None and p.is_relative_to(root) else p
        head = f"{where}:{self.marker.line}: {self.marker.key}"
        if self.expected is None:
            return f"{head}: cannot be computed ({self.reason})"
        return f"{head} is {self.expected!r}, the text says {self.marker.text!r}"


#: Fenced code blocks and inline code spans: a marker shown there (as in docs/results.md) is an example.
_CODE = re.compile(r"^```.*?^```|`[^`\n]+`", re.S | re.M)


def find_markers(text: str, path: Path = Path("<text>")) -> list[Marker]:
    """Every marker of a Markdown text outside code (fenced blocks, inline spans), in order.

    Raises
    ------
    FactError
        An opening ``<!-- fact:`` without its well-formed closing ``<!-- /fact -->`` on the same line.
    """
    prose = _prose(text)
    found = [
        Marker(path, text.count("\n", 0, m.start()) + 1, m.group("key").strip(), m.group("value"), *m.span())
        for m in MARKER.finditer(prose)
    ]
    starts = {m.start for m in found}
    for m in re.finditer("<!-- fact:", prose):
        if m.start() not in starts:
            line = text.count("\n", 0, m.start()) + 1
            raise FactError(f"{path}:{line}: a '<!-- fact: KEY -->' without '<!-- /fact -->' after its value")
    return found


def _prose(text: str) -> str:
    """``text`` with its code blanked out (same length: offsets and line numbers stay those of ``text``)."""
    return _CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def strip_markers(text: str) -> str:
    """``text`` without the marker comments outside code, the marked values kept."""
    parts, pos = [], 0
    for m in MARKER.finditer(_prose(text)):
        parts += [text[pos : m.start()], m.group("value")]
        pos = m.end()
    return "".join(parts) + text[pos:]


def parse_key(key: str) -> tuple[Fact, list[str], dict[str, str]]:
    """The fact a marker names, its positional arguments and its ``column=value`` filters.

    Raises
    ------
    FactError
        An unknown name, a malformed key or the wrong number of arguments.
    """
    m = _KEY.match(key.strip())
    if m is None:
        raise FactError(f"malformed fact key {key!r}: expected NAME or NAME(arg, ..., column=value)")
    name = m.group("name")
    if name not in FACTS:
        raise FactError(f"unknown fact {name!r}")
    f = FACTS[name]
    args, kw = [], {}
    text, pos = (m.group("args") or "").strip(), 0
    while pos < len(text):
        a = _ARG.match(text, pos)
        if a is None or a.end() == pos:
            raise FactError(f"malformed arguments in {key!r}")
        pos = a.end()
        quoted = a.group("quoted") if a.group("quoted") is not None else a.group("squoted")
        if a.group("kw") is not None:
            kw[a.group("kw")] = a.group("kwq") if a.group("kwq") is not None else a.group("kwsq")
        elif quoted is not None:
            args.append(quoted)
        elif filt := re.fullmatch(r"(\w+)\s*=\s*(.+)", a.group("plain")):
            kw[filt.group(1)] = filt.group(2)
        elif a.group("plain"):
            args.append(a.group("plain"))
    variadic = bool(f.params) and f.params[-1].startswith("*")  # the last parameter takes one or more
    if len(args) < len(f.params) if variadic else len(args) != len(f.params):
        at_least = "at least " if variadic else ""
        raise FactError(
            f"{name} takes {at_least}{len(f.params)} argument(s) ({', '.join(f.params)}), got {len(args)}"
        )
    return f, args, kw


def compute(key: str, ctx: FactContext) -> Value:
    """The value of the fact a marker names.

    Raises
    ------
    FactError
        The key does not parse or the fact cannot be computed from the files.
    """
    f, args, kw = parse_key(key)
    try:
        return f.compute(ctx, *args, **kw)
    except FactError:
        raise
    except (KeyError, ValueError, TypeError, IndexError, FileNotFoundError) as exc:
        raise FactError(f"{key}: {type(exc).__name__}: {exc}") from exc


def render(value: Value, written: str) -> str:
    """``value`` as text in the style of ``written``, the text it replaces (module docstring)."""
    if isinstance(value, str):
        return value
    w = written.strip()
    low = w.lower()
    if low in _WORDS and float(value).is_integer() and 0 <= value < len(_WORDS):
        word = _WORDS[int(value)]
        return word.capitalize() if w[:1].isupper() else word
    if w[:1] in ("+", "−") and len(w) > 1:  # a signed difference (+0.064, −1.4): the sign kept in the value
        body = render(abs(value), w[1:])
        return body if body.strip("0.,") == "" else ("+" if value > 0 else "−") + body
    sci = re.fullmatch(r"-?\d(?:\.(\d+))?e[-+]?\d+", low)
    if sci is not None:  # a p-value written 3e-6: the same mantissa digits, the exponent without padding
        mantissa, exponent = f"{value:.{len(sci.group(1) or '')}e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    num = re.fullmatch(r"-?[\d,]*\.?(\d*)", w) if any(c.isdigit() for c in w) else None
    if num is None:  # a new marker: digits with a thousands separator, two decimals for a float
        decimals, w = (0 if isinstance(value, int) else 2), ","
    else:
        decimals = len(num.group(1)) if "." in w else 0
    # half away from zero, as a reader rounds the printed digits: 78.05 -> 78.1, 44.5 -> 45. The value is
    # first cut to 12 significant digits, so float noise (0.7805 * 100 = 78.04999999999998) does not
    # decide a half.
    q = Decimal(f"{value:.12g}").quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    out = f"{q:{',' if ',' in w else ''}f}"
    return out[1:] if out.startswith("-") and q == 0 else out  # no "-0.0"


def doc_files(root: Path) -> list[Path]:
    """The documents whose markers are checked (:data:`DOC_GLOBS`), in name order."""
    root = Path(root)
    return sorted({p for g in DOC_GLOBS for p in root.glob(g) if p.is_file()})


def check_text(text: str, ctx: FactContext, path: Path = Path("<text>")) -> list[Mismatch]:
    """The markers of one text whose value differs from their fact's, or whose fact fails."""
    out = []
    for m in find_markers(text, path):
        try:
            want = render(compute(m.key, ctx), m.text)
        except FactError as exc:
            out.append(Mismatch(m, None, str(exc)))
            continue
        if want != m.text:
            out.append(Mismatch(m, want))
    return out


def check(root: Path, results: Path | None = None, files: list[Path] | None = None) -> list[Mismatch]:
    """Every marker of the documents (default :func:`doc_files`) that is stale or cannot be computed.

    Parameters
    ----------
    root : Path
        The repository root.
    results : Path, optional
        The results tree (default ``root / "results"``).
    files : list of Path, optional
        The documents to check instead of :func:`doc_files`.

    Returns
    -------
    list of Mismatch
        Empty when every marked value is what its fact computes.
    """
    ctx = FactContext(root, results)
    out = []
    for f in files if files is not None else doc_files(root):
        try:
            out += check_text(f.read_text(encoding="utf-8"), ctx, f)
        except FactError as exc:  # a malformed marker
            out.append(Mismatch(Marker(f, 0, "<marker>", "", 0, 0), None, str(exc)))
    return out


def update_text(text: str, ctx: FactContext, path: Path = Path("<text>")) -> tuple[str, list[Mismatch]]:
    """``text`` with every marked value rewritten from its fact, and the markers whose fact failed (left
    as they are)."""
    failed, parts, pos = [], [], 0
    for m in find_markers(text, path):
        try:
            want = render(compute(m.key, ctx), m.text)
        except FactError as exc:
            failed.append(Mismatch(m, None, str(exc)))
            continue
        head = f"<!-- fact: {m.key} -->"
        parts += [text[pos : m.start], head, want, "<!-- /fact -->"]
        pos = m.end
    parts.append(text[pos:])
    return "".join(parts), failed


def update(
    root: Path, results: Path | None = None, files: list[Path] | None = None
) -> tuple[list[Path], list[Mismatch]]:
    """Rewrite the marked values of the documents in place (default :func:`doc_files`).

    Returns
    -------
    (list of Path, list of Mismatch)
        The files that changed, and the markers whose fact could not be computed (left unchanged).
    """
    ctx = FactContext(root, results)
    changed, failed = [], []
    for f in files if files is not None else doc_files(root):
        old = f.read_text(encoding="utf-8")
        try:
            new, bad = update_text(old, ctx, f)
        except FactError as exc:
            failed.append(Mismatch(Marker(f, 0, "<marker>", "", 0, 0), None, str(exc)))
            continue
        failed += bad
        if new != old:
            f.write_text(new, encoding="utf-8")
            changed.append(f)
    return changed, failed


def notes_papers(paths: list[Path]) -> list[str]:
    """The paper folders (``configs/<paper>``) whose ``notes.md`` is among ``paths``: their reports show
    the notes, so they are rebuilt after a rewrite."""
    notes = [p for p in paths if p.name == "notes.md" and p.parent.parent.name == "configs"]
    return sorted({p.parent.name for p in notes})
