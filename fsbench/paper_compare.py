"""Paper values vs our results: the ``--paper`` part of ``fsbench report``.

A paper directory ``configs/<paper>/`` holds the experiment configs and ``paper_values.yaml``, the
paper's printed numbers and qualitative claims in machine-readable form (its header documents the
format and every check ``kind``). :func:`paper_sections` turns them, together with the results
table of every experiment found by the report, into

* one Markdown table per printed table with cells: setting, method, the paper's value (± std), ours
  in the paper's unit, the difference and a verdict;
* the verdict of every claim (holds / does not hold / not evaluable) with the numbers deciding it;
* a summary for the top of ``REPORT.md`` (counts, and the substitutions and defaults of the
  experiments in the results).

Units (fsbench's ``results.csv`` has ``error`` in [0, 1]):

* ``error`` tables: error % = 100 · error; ``accuracy`` tables: accuracy % = 100 − error %; the std
  is scaled by 100;
* ``cpu_time`` tables (one run per cell, no std): the paper normalises to the fastest entry of the
  whole table. Both sides are re-normalised to the fastest of the *paper's* methods in the same row
  (N or D), so that they are comparable: ours = mean ``fit_cpu_s`` over repeats (one value per task)
  / the row's fastest mean;
* ``rank_share`` (Table VII): ``fsbench.stats.rank_shares`` in % over the experiments the table
  lists for each section that are present in the results.

Verdict of a compared cell (external cells, copied by the paper from other publications, are shown
as context only; ``doubtful`` cells are shown, flagged and left out of the counts):

* the paper gives a std: **agrees** when |diff| ≤ the paper's std or Welch's t-test from the summary
  statistics is not significant at 5 % (:func:`fsbench.stats.welch_from_summary`; the paper's n =
  the ``repeats`` of the experiment's config, ours = our repeats), else **differs**;
* no std in the paper (rule :data:`NO_STD_RULES`): error/accuracy: |diff| ≤ our std; CPU time: the
  row-normalised times within a factor :data:`CPU_FACTOR` of each other; rank shares: |diff| ≤ the
  binomial std 100·sqrt(p(1 − p)/k) of a share p (the paper's) over our k cells.

The module reads YAML text only (configs and dataset cards), so it imports no algorithm.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

import fsbench
from fsbench.papers.tables import md_table, split_defaults
from fsbench.stats import BASELINE, CELL, paired_ttests, rank_shares, welch_from_summary

#: File name of a paper's machine-readable values, in ``configs/<paper>/``.
PAPER_VALUES = "paper_values.yaml"
#: Significance level of every test (the paper's Student tests are at 5 %).
ALPHA = 0.05
#: fsbench's default ``protocol.repeats``: the paper's n when no config states it.
DEFAULT_REPEATS = 30
#: CPU-time cells agree when the row-normalised times are within this factor of each other.
CPU_FACTOR = 2.0
#: The within-tolerance rule used where the paper prints no std, per table metric.
NO_STD_RULES = {
    "error": "|diff| ≤ our std",
    "accuracy": "|diff| ≤ our std",
    "cpu_time": f"row-normalised times within a factor {CPU_FACTOR:g} of each other",
    "rank_share": "|diff| ≤ 100·sqrt(p(1 − p)/k), p = the paper's share, k = our number of cells",
}

HOLDS, FAILS, NOT_EVALUABLE = "holds", "does not hold", "not evaluable"
NOT_CHECKABLE = "not machine-checkable"
_MARK = {HOLDS: "✓", FAILS: "✗", NOT_EVALUABLE: "?", NOT_CHECKABLE: "–"}
_X_LABEL = {"n_features": "S", "n_train": "n", "D": "D"}
_ROMAN_ORDER = ["table2", "table3", "table4", "table5", "table6", "table7", "table8", "table9"]


# =========================================================================== files
def paper_values_path(paper: str, base: Path | None = None) -> Path:
    """Path of ``configs/<paper>/paper_values.yaml`` (``base`` = the ``configs`` directory).

    Parameters
    ----------
    paper : str
        Paper id, e.g. ``"ramona2012"``.
    base : Path, optional
        Directory holding the paper directories; default ``<repository>/configs``.

    Returns
    -------
    Path
    """
    base = Path(base) if base is not None else configs_dir()
    return base / paper / PAPER_VALUES


def configs_dir() -> Path:
    """The ``configs/`` directory: ``FSBENCH_CONFIGS_DIR``, else ``./configs`` (a checkout or a copy of
    it; configs are not installed with the package), else the source checkout's."""
    env = os.environ.get("FSBENCH_CONFIGS_DIR", "").strip()
    if env:
        return Path(env).expanduser()
    here = Path.cwd() / "configs"
    return here if here.is_dir() else Path(fsbench.__file__).resolve().parents[1] / "configs"


def load_paper_values(paper: str, path: Path | None = None) -> dict[str, Any]:
    """Read a paper's values.

    Parameters
    ----------
    paper : str
        Paper id.
    path : Path, optional
        Explicit ``paper_values.yaml``; default :func:`paper_values_path`.

    Returns
    -------
    dict
        The parsed YAML.

    Raises
    ------
    FileNotFoundError
        If the file does not exist (the message names the path; the CLI prints it as one line).
    """
    path = Path(path) if path is not None else paper_values_path(paper)
    if not path.is_file():
        raise FileNotFoundError(f"no paper values for '{paper}': {path} does not exist")
    data = _yaml_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping at the top level")
    return data


def _yaml_load(text: str) -> Any:
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _cards_dir() -> Path:
    from fsbench.data.cards import cards_dir

    return cards_dir()


_ABBREVIATIONS = {"e.g", "i.e", "cf", "vs", "al", "etc", "approx", "resp", "no", "fig", "eq", "ref", "sec"}


def _first_sentence(text: str, limit: int = 240) -> str:
    """The first sentence of ``text`` (whitespace collapsed, at most ``limit`` characters)."""
    text = " ".join(str(text).split())
    end = len(text)
    for m in re.finditer(r"[.!?](?=\s)", text):
        word = re.search(r"([\w.]*)$", text[: m.start()])
        if word is None or word.group(1).lower() not in _ABBREVIATIONS:
            end = m.start() + 1
            break
    s = text[:end]
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"


def _drop_parentheses(text: str) -> str:
    prev = None
    while prev != text:
        prev, text = text, re.sub(r"\s*\([^()]*\)", "", text)
    return text


@dataclass
class ConfigInfo:
    """What the comparison needs from one experiment config (read as plain YAML).

    Attributes
    ----------
    name : str
        Experiment name (the ``experiment`` column of results.csv).
    file : Path
        The config file.
    data : dict
        The parsed YAML.
    datasets : list of str
        Dataset names / labels of the entries, in order (duplicates removed).
    defaults : list of str
        ``# [D]`` comments, ``[D]`` parts of ``notes`` and capitalised caveat paragraphs
        (``NOT EXPRESSIBLE:``, ``DATA CAVEAT``, ``DATASET NOT AVAILABLE:``), one line each.
    unavailable : str
        The config's ``DATASET NOT AVAILABLE`` paragraph (first sentence), or ``""``.
    """

    name: str
    file: Path
    data: dict[str, Any]
    datasets: list[str] = field(default_factory=list)
    defaults: list[str] = field(default_factory=list)
    unavailable: str = ""

    def repeats(self, dataset: str | None = None) -> int:
        """``protocol.repeats`` (of the entry of ``dataset`` if it overrides it; fsbench default 30)."""
        base = (self.data.get("protocol") or {}).get("repeats", DEFAULT_REPEATS)
        for entry in _entries(self.data.get("dataset")):
            if isinstance(entry, dict) and _entry_name(entry) == dataset:
                return int((entry.get("protocol") or {}).get("repeats", base))
        return int(base)


def _entries(ds: Any) -> list[Any]:
    return ds if isinstance(ds, list) else [ds] if ds is not None else []


def _entry_name(entry: Any) -> str:
    if isinstance(entry, dict):
        return str(entry.get("name") or entry.get("label") or entry.get("generator") or "?")
    return str(entry)


def config_defaults(text: str) -> list[str]:
    """Substitutions and defaults stated in a config's comments, one string each.

    Consecutive full-line comments form a paragraph (a bare ``#`` ends it). A paragraph opening
    with a capitalised tag (``NOT EXPRESSIBLE:``, ``DATA CAVEAT (...)``, ``DATASET NOT
    AVAILABLE:``) is kept whole; otherwise every ``[D]`` in it starts an item that runs to the next
    ``[D]`` or the end of the paragraph. An inline ``key: value  # [D] ...`` comment is one item,
    prefixed with its key.

    Parameters
    ----------
    text : str
        The YAML text.

    Returns
    -------
    list of str
    """
    tag = re.compile(r"^[A-Z][A-Z ]{3,}[A-Z](?=[:( ])")
    out: list[str] = []
    para: list[str] = []

    def flush() -> None:
        if para:
            joined = " ".join(para)
            if tag.match(joined):
                out.append(joined)
            else:
                out.extend(split_defaults(joined))
            para.clear()

    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            body = stripped.lstrip("#").strip()
            if body:
                para.append(body)
            else:
                flush()
            continue
        flush()
        if "#" in line and "[D]" in line.split("#", 1)[1]:
            key, comment = (p.strip() for p in line.split("#", 1))
            out.append(f"`{key}` — {comment[comment.index('[D]') :]}")
    flush()
    return out


def read_configs(config_dir: Path) -> dict[str, ConfigInfo]:
    """Every experiment config of a paper directory, by experiment name.

    Parameters
    ----------
    config_dir : Path
        ``configs/<paper>``; ``paper_values.yaml`` and unreadable files are skipped.

    Returns
    -------
    dict of str to ConfigInfo
    """
    out: dict[str, ConfigInfo] = {}
    for f in sorted(Path(config_dir).glob("*.yaml")):
        if f.name == PAPER_VALUES:
            continue
        try:
            text = f.read_text(encoding="utf-8")
            data = _yaml_load(text)
        except (OSError, yaml.YAMLError):
            continue
        if not isinstance(data, dict) or "name" not in data:
            continue
        datasets = list(dict.fromkeys(_entry_name(e) for e in _entries(data.get("dataset"))))
        defaults = config_defaults(text)
        notes = str(data.get("notes") or "")
        defaults += split_defaults(notes)
        unavailable = ""
        m = re.search(r"DATASET NOT AVAILABLE:\s*(.*)", text)
        if m:
            para = [m.group(1)]
            for ln in text[m.end() :].splitlines()[1:]:
                s = ln.strip()
                if not s.startswith("#") or not s.lstrip("#").strip():
                    break
                para.append(s.lstrip("#").strip())
            unavailable = _first_sentence(_drop_parentheses(" ".join(para)), 200).rstrip(".")
        out[str(data["name"])] = ConfigInfo(str(data["name"]), f, data, datasets, defaults, unavailable)
    return out


@lru_cache(maxsize=256)
def _card_notes(file: Path, mtime: float) -> str:
    try:
        card = _yaml_load(file.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return ""
    if not isinstance(card, dict):
        return ""
    return _first_sentence(card.get("notes") or card.get("description") or "")


def card_note(name: str, cards_dir: Path | None = None) -> str | None:
    """First sentence of a dataset card's ``notes`` (``None`` if there is no card ``name``)."""
    f = Path(cards_dir if cards_dir is not None else _cards_dir()) / f"{name}.yaml"
    if not f.is_file():
        return None
    return _card_notes(f, f.stat().st_mtime)


# =========================================================================== results
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
        A copy.
    """
    df = df.copy()
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


def _ok(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["status"] == "ok"]


def _d_of(dataset: Any) -> float:
    m = re.search(r"_D(\d+)$", str(dataset))
    return float(m.group(1)) if m else float("nan")


def _with_x(df: pd.DataFrame, x: str) -> pd.DataFrame:
    df = df.copy()
    if x == "D":
        df["_x"] = df["dataset"].map(_d_of)
    elif x in df.columns:
        df["_x"] = df[x].astype(float)
    else:
        df["_x"] = np.nan
    return df[df["_x"].notna()]


def _metric_rows(df: pd.DataFrame, metric: str) -> tuple[pd.DataFrame, str]:
    """OK rows and the column to average: error in %, or fit CPU time (one value per task)."""
    d = _ok(df)
    if metric == "fit_cpu_s":
        return d.drop_duplicates("task_id"), "fit_cpu_s"
    d = d.assign(_v=100.0 * d["error"])
    return d, "_v"


def to_paper_unit(mean: float, std: float, metric: str) -> tuple[float, float]:
    """Our mean and std of ``error`` (in [0, 1]) in a table's unit.

    Parameters
    ----------
    mean, std : float
        Mean and std of the test error over repeats, in [0, 1].
    metric : {"error", "accuracy"}
        ``error`` → error %, ``accuracy`` → 100 − error %.

    Returns
    -------
    (float, float)
    """
    if metric == "accuracy":
        return 100.0 - 100.0 * mean, 100.0 * std
    if metric == "error":
        return 100.0 * mean, 100.0 * std
    raise ValueError(f"no error conversion for metric {metric!r}")


def normalise_row(means: dict[str, float]) -> dict[str, float]:
    """Divide every value by the smallest positive one (CPU times of one table row)."""
    pos = [v for v in means.values() if v == v and v > 0]
    if not pos:
        return {k: float("nan") for k in means}
    lo = min(pos)
    return {k: v / lo for k, v in means.items()}


# =========================================================================== cells
@dataclass
class CellResult:
    """One printed cell compared with ours.

    Values are in the table's unit (CPU time: row-normalised, see the module docstring).
    ``status`` is one of ``agree``, ``differ``, ``reference`` (the normalisation base of a CPU row
    on both sides), ``not run``, ``not available``, ``failed``, ``external``, ``untestable``.
    ``tolerance`` is the no-std rule's bound where it is a number (rank shares); CPU cells also
    carry ``paper_norm`` (the paper's value ÷ its row minimum), ``ours_seconds`` (our mean CPU
    time) and ``ratio`` (ours ÷ paper, both normalised).
    """

    table: str
    setting: str
    method: str
    paper: float
    paper_std: float | None
    ours: float = float("nan")
    ours_std: float = float("nan")
    n_ours: int = 0
    n_paper: int | None = None
    diff: float = float("nan")
    p: float = float("nan")
    within_std: bool | None = None
    status: str = "not run"
    verdict: str = ""
    doubtful: bool = False
    note: str = ""
    tolerance: float = float("nan")
    paper_norm: float = float("nan")
    ours_seconds: float = float("nan")
    ratio: float = float("nan")

    @property
    def counted(self) -> bool:
        """Whether the cell enters the summary counts."""
        return self.status in ("agree", "differ") and not self.doubtful


def judge_with_std(
    paper: float, paper_std: float, n_paper: int, ours: float, ours_std: float, n_ours: int
) -> tuple[float, bool, float, str]:
    """Compare a cell where the paper prints a std.

    Returns
    -------
    diff : float
        ours − paper.
    within : bool
        |diff| ≤ the paper's std.
    p : float
        Two-sided Welch p-value (NaN when not computable, e.g. n < 2 or both stds 0).
    status : {"agree", "differ"}
        ``agree`` if within the paper's ± std or p ≥ :data:`ALPHA`.
    """
    diff = ours - paper
    within = bool(abs(diff) <= paper_std + 1e-9)
    p = welch_from_summary(paper, paper_std, n_paper, ours, ours_std, n_ours)
    agree = within or (p == p and p >= ALPHA)
    return diff, within, p, "agree" if agree else "differ"


def _fmt(x: float | None, nd: int = 1) -> str:
    if x is None or x != x:
        return "–"
    return f"{x:.{nd}f}"


def _fmt_diff(x: float) -> str:
    if x != x:
        return "–"
    v = round(x, 1)
    return f"{v if v != 0 else 0.0:+.1f}"


def _fmt_p(p: float) -> str:
    if p != p:
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}" if p < 0.01 else f"{p:.2f}"


def _verdict_std(c: CellResult) -> str:
    sig = c.p == c.p and c.p < ALPHA
    if c.status == "agree":
        if c.within_std and not sig:
            return "✓ within ± std"
        if c.within_std:
            return "✓ within ± std (Welch significant)"
        return "✓ not significant"
    return "✗ differs (outside ± std, Welch significant)" if sig else "✗ outside ± std"


@dataclass
class _Ctx:
    """Everything the comparison looks up: results, configs, cards."""

    values: dict[str, Any]
    configs: dict[str, ConfigInfo]
    df: pd.DataFrame
    cards_dir: Path | None = None
    _summaries: dict[str, pd.DataFrame] = field(default_factory=dict)

    @property
    def experiments(self) -> set[str]:
        return set(self.df["experiment"].astype(str)) if len(self.df) else set()

    def exp_df(self, exp: str) -> pd.DataFrame:
        return self.df[self.df["experiment"] == exp]

    def summary(self, exp: str) -> pd.DataFrame:
        if exp not in self._summaries:
            d = _ok(self.exp_df(exp))
            g = d.groupby(["dataset", "kernel", "n_train", "n_features", "selector"], sort=False)["error"]
            self._summaries[exp] = g.agg(mean="mean", std="std", n="count").reset_index()
        return self._summaries[exp]

    def dataset_available(self, name: str, exp: str | None = None) -> bool:
        cfg = self.configs.get(exp) if exp else None
        if cfg is not None:
            for e in _entries(cfg.data.get("dataset")):
                if isinstance(e, dict) and "generator" in e and _entry_name(e) == name:
                    return True
        card = Path(self.cards_dir if self.cards_dir is not None else _cards_dir()) / f"{name}.yaml"
        if not card.is_file():
            return False
        # a card may exist only to explain why no copy can be had (`unavailable: <reason>`)
        raw = yaml.safe_load(card.read_text()) or {}
        return not (isinstance(raw, dict) and raw.get("unavailable"))

    def missing_reason(self, exp: str | None) -> str:
        """Why an experiment has no results: "not run" or "dataset not available (...)"."""
        if exp is None:
            return "no fsbench experiment reproduces it"
        cfg = self.configs.get(exp)
        if cfg is None:
            return f"not run (no results for `{exp}`; no config of that name)"
        missing = [d for d in cfg.datasets if not self.dataset_available(d, exp)]
        if missing:
            why = cfg.unavailable or "no dataset card"
            return f"dataset not available ({', '.join(missing)}: {why})"
        return f"not run (no results for `{exp}` in these results)"


def _setting(cell: dict[str, Any]) -> str:
    parts = []
    for k in ("dataset", "kernel"):
        if k in cell:
            parts.append(str(cell[k]))
    for k in ("S", "N", "D"):
        if k in cell:
            parts.append(f"{k} = {cell[k]}")
    if "dim" in cell:
        parts.append(f"dim {cell['dim']}")
    return ", ".join(parts)


def _missing_cell(ctx: _Ctx, exp: str, cell: dict[str, Any], rows: pd.DataFrame, c: CellResult) -> None:
    if len(rows):
        c.status, c.verdict = "failed", f"failed ({len(rows)} row(s))"
    elif "dataset" in cell and not ctx.dataset_available(str(cell["dataset"]), exp):
        c.status, c.verdict = "not available", "dataset not available"
    else:
        c.status, c.verdict = "not run", "not run"


def _compare_error_table(table: dict[str, Any], ctx: _Ctx) -> list[CellResult]:
    """Compare an error or accuracy table (Tables II–VI) cell by cell."""
    exp = table.get("experiment")
    metric = table["metric"]
    cfg = ctx.configs.get(exp) if exp else None
    ran = exp in ctx.experiments
    s = ctx.summary(exp) if ran else pd.DataFrame()
    raw = ctx.exp_df(exp) if ran else pd.DataFrame()
    out = []
    for cell in table.get("cells", []):
        c = CellResult(
            table=table["id"],
            setting=_setting(cell),
            method=str(cell["method"]),
            paper=float(cell["value"]),
            paper_std=float(cell["std"]) if cell.get("std") is not None else None,
            doubtful=bool(cell.get("doubtful", False)),
            note=str(cell.get("note") or ""),
        )
        out.append(c)
        if cell.get("external"):
            c.status, c.verdict = "external", "external (context)"
            continue
        if not ran:
            c.status = "not available" if "dataset not available" in ctx.missing_reason(exp) else "not run"
            c.verdict = "dataset not available" if c.status == "not available" else "not run"
            continue
        sel = (
            (s["dataset"] == cell.get("dataset"))
            & (s["kernel"] == cell.get("kernel"))
            & (s["n_features"] == cell.get("S"))
            & (s["selector"] == c.method)
        )
        hit = s[sel]
        if hit.empty:
            bad = raw[
                (raw["dataset"] == cell.get("dataset"))
                & (raw["kernel"] == cell.get("kernel"))
                & (raw["n_features"] == cell.get("S"))
                & (raw["selector"] == c.method)
            ]
            _missing_cell(ctx, exp, cell, bad, c)
            continue
        row = hit.sort_values(["n", "n_train"]).iloc[-1]  # several n_train: the best-populated, largest
        c.ours, c.ours_std = to_paper_unit(float(row["mean"]), float(row["std"]), metric)
        c.n_ours = int(row["n"])
        c.n_paper = cfg.repeats(cell.get("dataset")) if cfg else DEFAULT_REPEATS
        if c.paper_std is not None:
            c.diff, c.within_std, c.p, c.status = judge_with_std(
                c.paper, c.paper_std, c.n_paper, c.ours, c.ours_std, c.n_ours
            )
            c.verdict = _verdict_std(c)
        else:
            c.diff = c.ours - c.paper
            ok = c.ours_std == c.ours_std and abs(c.diff) <= c.ours_std
            c.status = "agree" if ok else "differ"
            c.verdict = f"no std in paper: {'✓ within' if ok else '✗ outside'} tolerance"
    return out


def _compare_cpu_table(table: dict[str, Any], ctx: _Ctx) -> list[CellResult]:
    """Compare a CPU-time table (VIII: rows N, IX: rows D), both sides normalised per row."""
    exp = table.get("experiment")
    key = table["rows"]["key"]
    ran = exp in ctx.experiments
    out: list[CellResult] = []
    rows: dict[Any, list[dict[str, Any]]] = {}
    for cell in table.get("cells", []):
        rows.setdefault(cell[key], []).append(cell)
    t = pd.DataFrame()
    if ran:
        t = _ok(ctx.exp_df(exp)).drop_duplicates("task_id")
        t = t.assign(_D=t["dataset"].map(_d_of))
    for value, cells in rows.items():
        paper_norm = normalise_row({str(c["method"]): float(c["value"]) for c in cells})
        methods = [str(c["method"]) for c in cells]
        sub, note = pd.DataFrame(), ""
        if ran:
            if key == "N":
                sub = t[t["n_train"] == value]
            else:
                ds = sorted(t["_D"].dropna().unique())
                near = [d for d in ds if abs(d - value) <= 0.2 * value]
                best = min(near, key=lambda d: abs(d - value)) if near else None
                sub = t[t["_D"] == best] if best is not None else t.iloc[0:0]
                if best is not None and best != value:
                    note = f"ours: D = {best:g}"
        g = sub[sub["selector"].isin(methods)].groupby("selector")["fit_cpu_s"] if len(sub) else None
        means = g.mean().to_dict() if g is not None else {}
        stds = g.std().to_dict() if g is not None else {}
        counts = g.count().to_dict() if g is not None else {}
        ours_norm = normalise_row(means)
        base = min((v for v in means.values() if v > 0), default=float("nan"))
        for cell in cells:
            m = str(cell["method"])
            c = CellResult(
                table=table["id"],
                setting=_setting(cell),
                method=m,
                paper=float(cell["value"]),
                paper_std=None,
                doubtful=bool(cell.get("doubtful", False)),
                note="; ".join(x for x in (note, str(cell.get("note") or "")) if x),
                paper_norm=paper_norm[m],
            )
            out.append(c)
            if cell.get("external"):
                c.status, c.verdict = "external", "external (context)"
                continue
            if not ran or m not in means:
                c.status, c.verdict = "not run", "not run"
                continue
            c.ours, c.n_ours, c.ours_seconds = ours_norm[m], int(counts[m]), float(means[m])
            c.ours_std = stds[m] / base if base == base else float("nan")
            c.diff = c.ours - paper_norm[m]
            c.ratio = ratio = c.ours / paper_norm[m] if paper_norm[m] > 0 else float("nan")
            if abs(paper_norm[m] - 1) < 1e-12 and abs(c.ours - 1) < 1e-12:
                c.status, c.verdict = "reference", "row reference (= 1 on both sides)"
            elif ratio == ratio and 1 / CPU_FACTOR <= ratio <= CPU_FACTOR:
                c.status, c.verdict = "agree", "no std in paper: ✓ within tolerance"
            elif ratio == ratio:
                c.status, c.verdict = "differ", "no std in paper: ✗ outside tolerance"
            else:
                c.status, c.verdict = "untestable", "not testable (zero time)"
    return out


def _rank_frame(ctx: _Ctx, experiments: list[str]) -> pd.DataFrame:
    present = [e for e in experiments if e in ctx.experiments]
    if not present:
        return pd.DataFrame()
    return rank_shares(ctx.df[ctx.df["experiment"].isin(present)])


def _compare_rank_table(table: dict[str, Any], ctx: _Ctx) -> tuple[list[CellResult], dict[str, str]]:
    """Compare Table VII (rank shares per section); also return per-section coverage notes."""
    sections: dict[str, list[str]] = table.get("sections") or {}
    shares = {sec: _rank_frame(ctx, exps) for sec, exps in sections.items()}
    notes = {}
    for sec, exps in sections.items():
        present = [e for e in exps if e in ctx.experiments]
        missing = [e for e in exps if e not in ctx.experiments]
        notes[sec] = f"§{sec}: {len(present)} of {len(exps)} experiments present" + (
            f" (missing: {', '.join(missing)})" if missing else ""
        )
    out = []
    for cell in table.get("cells", []):
        sec, rank, m = cell["section"], cell["rank"], str(cell["method"])
        c = CellResult(
            table=table["id"],
            setting=f"§{sec}, {rank}",
            method=m,
            paper=float(cell["value"]),
            paper_std=None,
            doubtful=bool(cell.get("doubtful", False)),
        )
        out.append(c)
        sh = shares.get(sec, pd.DataFrame())
        row = sh[sh["selector"] == m] if len(sh) else sh
        if len(row) == 0:
            c.status, c.verdict = "not run", "not run"
            continue
        r = row.iloc[0]
        k = int(r["cells"])
        c.ours, c.n_ours = 100.0 * float(r[rank]), k
        c.diff = c.ours - c.paper
        p = c.paper / 100.0
        c.tolerance = tol = 100.0 * math.sqrt(max(p * (1 - p), 0.0) / k)
        ok = abs(c.diff) <= tol + 1e-9
        c.status = "agree" if ok else "differ"
        c.verdict = f"no std in paper: {'✓ within' if ok else '✗ outside'} tolerance (± {tol:.1f})"
    return out, notes


def compare_table(
    table: dict[str, Any],
    df: pd.DataFrame,
    configs: dict[str, ConfigInfo] | None = None,
    cards_dir: Path | None = None,
) -> list[CellResult]:
    """Compare one printed table of a paper-values file with our results.

    Parameters
    ----------
    table : dict
        An entry of ``tables`` with ``cells`` (metric error, accuracy, cpu_time or rank_share).
    df : DataFrame
        Rows of results.csv (any experiments).
    configs : dict, optional
        Experiment configs by name (:func:`read_configs`): the paper's n for Welch's test is their
        ``repeats`` (:data:`DEFAULT_REPEATS` for an experiment without a config).
    cards_dir : Path, optional
        Dataset cards directory (for "dataset not available").

    Returns
    -------
    list of CellResult
    """
    ctx = _Ctx({}, configs or {}, method_frame(df) if len(df) else df, cards_dir)
    metric = table.get("metric")
    if metric == "cpu_time":
        return _compare_cpu_table(table, ctx)
    if metric == "rank_share":
        return _compare_rank_table(table, ctx)[0]
    if metric in ("error", "accuracy"):
        return _compare_error_table(table, ctx)
    raise ValueError(f"table {table.get('id')}: no comparison for metric {metric!r}")


# =========================================================================== checks
@dataclass
class CheckResult:
    """Outcome of one check: ``status`` (holds / does not hold / not evaluable) and the numbers."""

    status: str
    detail: str


def _ne(msg: str) -> CheckResult:
    return CheckResult(NOT_EVALUABLE, msg)


def _combine(flags: list[bool], aggregate: str) -> bool:
    if aggregate == "majority":
        return sum(flags) > len(flags) / 2
    if aggregate == "any":
        return any(flags)
    return all(flags)


def _quantify(flags: dict[str, bool], quantifier: str | None) -> bool:
    if quantifier == "most":
        return sum(flags.values()) > len(flags) / 2
    return all(flags.values())


def _num(v: float, metric: str) -> str:
    return f"{v:.3g} s" if metric == "fit_cpu_s" else f"{v:.2f} %"


def _vals(d: dict[str, float], metric: str) -> str:
    return ", ".join(f"{k} {_num(v, metric)}" for k, v in d.items())


def _xs(xs: Iterable[float]) -> str:
    return ", ".join(f"{x:g}" for x in xs)


def evaluate_check(
    check: dict[str, Any],
    df: pd.DataFrame,
    experiment: str | None = None,
    missing_reason: Callable[[str | None], str] | None = None,
) -> CheckResult:
    """Evaluate one claim check of the paper-values FORMAT on our results.

    Parameters
    ----------
    check : dict
        The check (``kind``, ``selectors``, ``than``, ``x``, ``range``, ``aggregate``, ...).
    df : DataFrame
        Results (rows of results.csv, any experiments).
    experiment : str, optional
        Default experiment (the claim's figure's or table's), used when the check names none.
    missing_reason : callable, optional
        Experiment name → why it has no results (default ``"not run"``).

    Returns
    -------
    CheckResult

    Notes
    -----
    ``err`` at an x value is the mean over repeats (error in %, or ``fit_cpu_s`` in seconds with one
    value per task), pooled over whatever else varies at that x (several datasets of one experiment).
    Only x values in the range where every involved selector has results are used. ``best`` /
    ``worst`` count ties as satisfied; ``trend`` and ``gain`` use the smallest and largest x run
    inside the range (printed in the detail). Significance checks with ``aggregate: mean`` average
    each repeat's metric over the range and test once per pair; a pair with fewer than two paired
    repeats is left undecided. A check whose experiment or selectors have no results is
    :data:`NOT_EVALUABLE`.
    """
    why = missing_reason or (lambda e: f"not run (no results for `{e}`)")
    kind = check.get("kind")
    have = set(df["experiment"].astype(str)) if len(df) else set()
    exp = check.get("experiment", experiment)
    wanted = [str(e) for e in check.get("experiments") or []] or [exp]
    df = method_frame(df[df["experiment"].isin(wanted)]) if len(df) else df
    if kind == "compare_experiments":
        return _check_compare_experiments(check, df, have, why)
    if kind == "rank_share":
        return _check_rank_share(check, df, have, why)
    if exp is None:
        return _ne("the check names no experiment")
    if exp not in have:
        return _ne(f"`{exp}`: {why(exp)}")
    metric = check.get("metric", "error")
    x = check.get("x", "n_features")
    xl = _X_LABEL.get(x, x)
    lo, hi = (float(v) for v in check.get("range", [-np.inf, np.inf]))
    rows, col = _metric_rows(df[df["experiment"] == exp], metric)
    rows = _with_x(rows, x)
    rows = rows[(rows["_x"] >= lo) & (rows["_x"] <= hi)]
    present = sorted(set(rows["selector"]) - {BASELINE})
    selectors = [str(s) for s in check.get("selectors") or []]
    than = [str(s) for s in check.get("than") or []]
    among = [str(s) for s in check.get("among") or []] or present
    if kind in ("best", "worst"):
        involved = list(dict.fromkeys(selectors + among))
    else:
        involved = list(dict.fromkeys(selectors + than))
    missing = [s for s in involved if s not in set(rows["selector"])]
    rng = f"{xl} ∈ [{lo:g}, {hi:g}]"
    if missing:
        return _ne(f"no results for {', '.join(missing)} in `{exp}` over {rng}")
    if not involved:
        return _ne("the check names no selectors")
    table = rows[rows["selector"].isin(involved)].groupby(["_x", "selector"])[col].mean().unstack()
    table = table.dropna(how="any")
    if table.empty:
        return _ne(f"no {xl} value in [{lo:g}, {hi:g}] where all of {', '.join(involved)} have results")
    if kind in ("significant", "not_significant"):
        return _check_significance(check, df[df["experiment"] == exp], x, lo, hi, selectors, than, rng)
    tol = float(check.get("tolerance", 0.0))
    value = check.get("value")
    aggregate = check.get("aggregate", "mean")
    quant = check.get("quantifier")
    xs = list(table.index)
    if aggregate == "mean":
        points = {"mean": table.mean(axis=0).to_dict()}
        where = f"mean over {rng} ({len(xs)} value(s): {_xs(xs)})"
    else:
        points = {f"{xl} = {x_:g}": table.loc[x_].to_dict() for x_ in xs}
        where = f"{aggregate} over {rng}"

    def per_point(pred: Callable[[dict[str, float]], bool]) -> bool:
        return _combine([pred(v) for v in points.values()], aggregate)

    def subject_result(pred_s: Callable[[str, dict[str, float]], bool], subjects: list[str]) -> bool:
        flags = {s: _combine([pred_s(s, v) for v in points.values()], aggregate) for s in subjects}
        return _quantify(flags, quant)

    def summary_vals(names: list[str]) -> str:
        if aggregate == "mean":
            return _vals({n: points["mean"][n] for n in names}, metric)
        return "; ".join(f"{k}: {_vals({n: v[n] for n in names}, metric)}" for k, v in points.items())

    def res(ok: bool, text: str, extra: str = "") -> CheckResult:
        return CheckResult(HOLDS if ok else FAILS, text + (f" — {extra}" if extra else ""))

    def counts(subjects: list[str], pred_s: Callable[[str, dict[str, float]], bool]) -> str:
        if aggregate == "mean":
            return ""
        parts = []
        for s in subjects:
            k = sum(pred_s(s, v) for v in points.values())
            parts.append(f"{s} at {k}/{len(points)}")
        return "satisfied: " + ", ".join(parts)

    if kind in ("better", "not_worse"):

        def pred_s(s: str, v: dict[str, float]) -> bool:
            if kind == "better":
                return all(v[s] < v[t] for t in than)
            return all(v[s] <= v[t] + tol for t in than)

        ok = subject_result(pred_s, selectors)
        op = "<" if kind == "better" else f"≤ (+{tol:g})"
        text = f"{summary_vals(selectors)} {op} {summary_vals(than)}" if aggregate == "mean" else ""
        text = text or f"{', '.join(selectors)} {op} {', '.join(than)}: {summary_vals(involved)}"
        return res(ok, f"{text} ({where})", counts(selectors, pred_s))
    if kind in ("best", "worst"):
        pool = among

        def pred_s(s: str, v: dict[str, float]) -> bool:
            others = [v[t] for t in pool if t != s]
            if not others:
                return True
            return v[s] <= min(others) if kind == "best" else v[s] >= max(others)

        ok = subject_result(pred_s, selectors)
        word = "lowest" if kind == "best" else "highest"
        return res(
            ok,
            f"{', '.join(selectors)} {word} among {', '.join(pool)}: {summary_vals(pool)} ({where})",
            counts(selectors, pred_s),
        )
    if kind == "close":
        ok = per_point(lambda v: all(abs(v[a] - v[b]) <= tol for a, b in combinations(selectors, 2)))
        spread = {k: max(v[s] for s in selectors) - min(v[s] for s in selectors) for k, v in points.items()}
        sp = ", ".join(f"{k}: {_num(d, metric)}" for k, d in spread.items())
        return res(ok, f"spread of {', '.join(selectors)} {sp} vs tolerance {tol:g} ({where})")
    if kind in ("level", "above", "below"):
        if value is None:
            return _ne(f"malformed check: `{kind}` needs `value`")
        val = float(value)

        def pred_s(s: str, v: dict[str, float]) -> bool:
            if kind == "level":
                return abs(v[s] - val) <= tol
            return v[s] >= val if kind == "above" else v[s] <= val

        ok = subject_result(pred_s, selectors)
        ref = f"{val:g} ± {tol:g}" if kind == "level" else f"{'≥' if kind == 'above' else '≤'} {val:g}"
        return res(ok, f"{summary_vals(selectors)} vs {ref} ({where})", counts(selectors, pred_s))
    if kind == "difference":
        if value is None or not than:
            return _ne("malformed check: `difference` needs `value` and `than`")
        val = float(value)

        def diff_of(v: dict[str, float]) -> float:
            return v[than[0]] - min(v[s] for s in selectors)

        ok = per_point(lambda v: abs(diff_of(v) - val) <= tol)
        ds = ", ".join(f"{k}: {diff_of(v):+.2f}" for k, v in points.items())
        return res(
            ok,
            f"{than[0]} − min({', '.join(selectors)}) = {ds} vs {val:g} ± {tol:g} "
            f"[{summary_vals(involved)}] ({where})",
        )
    if kind == "min_level":
        if value is None:
            return _ne("malformed check: `min_level` needs `value`")
        val = float(value)
        stacked = table[selectors].stack()
        (x_min, s_min), m = stacked.idxmin(), float(stacked.min())
        ok = abs(m - val) <= tol
        return res(
            ok, f"minimum {_num(m, metric)} ({s_min} at {xl} = {x_min:g}) vs {val:g} ± {tol:g} over {rng}"
        )
    if kind in ("trend", "flat", "gain", "slope"):
        return _check_curve(kind, check, table, selectors, metric, xl, rng, tol, value, quant)
    return _ne(f"unknown check kind {kind!r}")


def _check_curve(
    kind: str,
    check: dict[str, Any],
    table: pd.DataFrame,
    selectors: list[str],
    metric: str,
    xl: str,
    rng: str,
    tol: float,
    value: Any,
    quant: str | None,
) -> CheckResult:
    xs = list(table.index)
    lo_x, hi_x = xs[0], xs[-1]
    flags: dict[str, bool] = {}
    parts = []
    if kind in ("gain", "slope") and value is None:
        return _ne(f"malformed check: `{kind}` needs `value`")
    for s in selectors:
        y = table[s]
        if kind == "trend":
            direction = check.get("direction", "increasing")
            d = float(y.loc[hi_x] - y.loc[lo_x])
            flags[s] = d > tol if direction == "increasing" else d < -tol
            parts.append(f"{s} {d:+.2f}")
        elif kind == "flat":
            d = float(y.max() - y.min())
            flags[s] = d <= tol
            parts.append(f"{s} {d:.2f}")
        elif kind == "gain":
            d = float(y.loc[hi_x] - y.min())
            flags[s] = abs(d - float(value)) <= tol
            parts.append(f"{s} {d:.2f} (min at {xl} = {y.idxmin():g})")
        else:
            xx, yy = np.asarray(xs, float), y.to_numpy(float)
            keep = (xx > 0) & (yy > 0)
            if keep.sum() < 2:
                return _ne(f"slope of {s}: fewer than two positive points over {rng}")
            b = float(np.polyfit(np.log(xx[keep]), np.log(yy[keep]), 1)[0])
            flags[s] = abs(b - float(value)) <= tol
            parts.append(f"{s} {b:.2f}")
    ok = _quantify(flags, quant)
    q = " (more than half must)" if quant == "most" else ""
    if kind == "trend":
        head = (
            f"err({xl} = {hi_x:g}) − err({xl} = {lo_x:g}): {', '.join(parts)}; "
            f"{check.get('direction', 'increasing')} needs "
            f"{'>' if check.get('direction', 'increasing') == 'increasing' else '<'} "
            f"{'' if check.get('direction', 'increasing') == 'increasing' else '−'}{tol:g}{q}"
        )
    elif kind == "flat":
        head = f"max − min over {rng}: {', '.join(parts)} vs ≤ {tol:g}{q}"
    elif kind == "gain":
        head = f"err({xl} = {hi_x:g}) − min over {rng}: {', '.join(parts)} vs {float(value):g} ± {tol:g}{q}"
    else:
        head = f"log-log slope over {xl} = {_xs(xs)}: {', '.join(parts)} vs {float(value):g} ± {tol:g}{q}"
    if kind != "slope":
        head += f" [{metric if metric == 'fit_cpu_s' else 'error %'}]"
    return CheckResult(HOLDS if ok else FAILS, head)


def _check_significance(
    check: dict[str, Any],
    df: pd.DataFrame,
    x: str,
    lo: float,
    hi: float,
    selectors: list[str],
    than: list[str],
    rng: str,
) -> CheckResult:
    kind = check["kind"]
    metric = check.get("metric", "error")
    value = "fit_cpu_s" if metric == "fit_cpu_s" else "error"
    aggregate = check.get("aggregate", "mean")
    pairs = [(s, t) for s in selectors for t in than] if than else list(combinations(selectors, 2))
    involved = list(dict.fromkeys(selectors + than))
    d = _with_x(_ok(df[df["selector"].isin(involved)]), x)
    d = d[(d["_x"] >= lo) & (d["_x"] <= hi)]
    xl = _X_LABEL.get(x, x)
    if aggregate == "mean":
        # average each repeat over the range, then one paired test per pair
        key = [c for c in CELL if c != (x if x != "D" else "dataset")]
        d = d.groupby([*key, "repeat", "selector"], sort=False)[value].mean().reset_index()
        d[x if x != "D" else "dataset"] = "pooled"
        d["status"] = "ok"
        d["_x"] = 0.0
        tests = paired_ttests(d, value=value)
        tests["_x"] = 0.0
    else:
        tests = paired_ttests(d.drop(columns="_x"), value=value)
        if tests.empty:
            return _ne(f"no paired results over {rng}")
        tests["_x"] = tests["dataset"].map(_d_of) if x == "D" else tests[x].astype(float)
    if tests.empty:
        return _ne(f"no paired results over {rng}")
    want = kind == "significant"
    flags: list[bool] = []
    lines = []
    for x_, tx in tests.groupby("_x"):
        ok_pairs, bad, undecided = 0, [], 0
        for a, b in pairs:
            m = tx[((tx.a == a) & (tx.b == b)) | ((tx.a == b) & (tx.b == a))]
            if m.empty or not (m["p"] == m["p"]).all():
                undecided += 1
                continue
            sig = bool(m["significant"].all())
            if sig == want:
                ok_pairs += 1
            else:
                pv = float(m["p"].max() if want else m["p"].min())
                bad.append(f"{a}–{b} p {'' if pv < 0.001 else '= '}{_fmt_p(pv)}")
        if undecided == len(pairs):
            continue
        flags.append(not bad and undecided == 0)
        where = "mean over range" if aggregate == "mean" else f"{xl} = {x_:g}"
        lines.append(
            f"{where}: {ok_pairs}/{len(pairs)} pairs {'significant' if want else 'not significant'}"
            + (f" (not: {'; '.join(bad[:3])}{'…' if len(bad) > 3 else ''})" if bad else "")
        )
    if not flags:
        return _ne(f"no testable pair over {rng} (fewer than 2 paired repeats)")
    ok = _combine(flags, aggregate if aggregate != "mean" else "each")
    head = f"paired t-tests (5 %) over {rng}, {aggregate}: holds at {sum(flags)}/{len(flags)}"
    shown = lines if len(lines) <= 4 else [*lines[:2], "…", lines[-1]]
    return CheckResult(HOLDS if ok else FAILS, f"{head} — {'; '.join(shown)}")


def _best_error(df: pd.DataFrame, check: dict[str, Any]) -> tuple[float, str]:
    x = check.get("x", "n_features")
    lo, hi = (float(v) for v in check.get("range", [-np.inf, np.inf]))
    rows, col = _metric_rows(df, check.get("metric", "error"))
    rows = _with_x(rows, x)
    rows = rows[(rows["_x"] >= lo) & (rows["_x"] <= hi) & (rows["selector"] != BASELINE)]
    if check.get("selectors"):
        rows = rows[rows["selector"].isin(check["selectors"])]
    if rows.empty:
        return float("nan"), ""
    m = rows.groupby(["_x", "selector"])[col].mean()
    (x_, s), v = m.idxmin(), float(m.min())
    return v, f"{s} at {_X_LABEL.get(x, x)} = {x_:g}"


def _check_compare_experiments(
    check: dict[str, Any], df: pd.DataFrame, have: set[str], why: Callable[[str | None], str]
) -> CheckResult:
    exps = [str(e) for e in check.get("experiments") or []]
    if len(exps) != 2:
        return _ne("malformed check: `compare_experiments` needs two experiments")
    missing = [e for e in exps if e not in have]
    if missing:
        return _ne("; ".join(f"`{e}`: {why(e)}" for e in missing))
    (a, wa), (b, wb) = (_best_error(df[df["experiment"] == e], check) for e in exps)
    if a != a or b != b:
        return _ne("no results in the range for one of the experiments")
    tol = float(check.get("tolerance", 0.0))
    rel = check.get("relation", "not_better")
    if rel == "better":
        val = float(check.get("value", 0.0))
        ok = b < a - val
        cond = f"min B < min A − {val:g}"
    else:
        ok = b >= a - tol
        cond = f"min B ≥ min A − {tol:g}"
    return CheckResult(
        HOLDS if ok else FAILS,
        f"min error A = {exps[0]}: {a:.1f} % ({wa}); B = {exps[1]}: {b:.1f} % ({wb}); {rel}: {cond}",
    )


def _check_rank_share(
    check: dict[str, Any], df: pd.DataFrame, have: set[str], why: Callable[[str | None], str]
) -> CheckResult:
    exps = [str(e) for e in check.get("experiments") or []]
    if not exps:
        return _ne("malformed check: `rank_share` needs `experiments`")
    missing = [e for e in exps if e not in have]
    if missing:
        return _ne("; ".join(f"`{e}`: {why(e)}" for e in missing))
    shares = rank_shares(df[df["experiment"].isin(exps)])
    rank = check.get("rank", "first")
    val = float(check.get("value", 0.0))
    rel = check.get("relation", "at_least")
    flags, parts = {}, []
    for s in check.get("selectors") or []:
        row = shares[shares["selector"] == s]
        if row.empty:
            return _ne(f"no ranked cells for {s} over {', '.join(exps)}")
        r = row.iloc[0]
        share = 100.0 * (float(r["first"]) + (float(r["second"]) if rank == "first_or_second" else 0.0))
        flags[str(s)] = share >= val if rel == "at_least" else share <= val
        parts.append(f"{s} {share:.1f} % of {int(r['cells'])} cells")
    if not flags:
        return _ne("the check names no selectors")
    ok = _quantify(flags, check.get("quantifier"))
    op = "≥" if rel == "at_least" else "≤"
    return CheckResult(
        HOLDS if ok else FAILS,
        f"share ranked {rank.replace('_', ' ')}: {', '.join(parts)} vs {op} {val:g} % over {', '.join(exps)}",
    )


def evaluate_claim(
    claim: dict[str, Any],
    df: pd.DataFrame,
    experiment: str | None = None,
    missing_reason: Callable[[str | None], str] | None = None,
) -> tuple[str, list[CheckResult]]:
    """Evaluate every check of a claim; all must hold for the claim to hold.

    Returns
    -------
    status : str
        :data:`HOLDS`, :data:`FAILS` (some check does not hold), :data:`NOT_EVALUABLE` (none fails
        but some cannot be evaluated) or :data:`NOT_CHECKABLE` (no checks).
    results : list of CheckResult
    """
    checks = claim.get("checks") or []
    if not checks:
        return NOT_CHECKABLE, []
    results = [evaluate_check(c, df, experiment, missing_reason) for c in checks]
    statuses = {r.status for r in results}
    if FAILS in statuses:
        return FAILS, results
    if NOT_EVALUABLE in statuses:
        return NOT_EVALUABLE, results
    return HOLDS, results


# =========================================================================== Markdown
def _esc(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    return md_table(header, rows, escape=True).splitlines()


def _pm(v: float, s: float | None, nd: int = 1) -> str:
    if v != v:
        return "–"
    return f"{v:.{nd}f}" if s is None or s != s else f"{v:.{nd}f} ± {s:.{nd}f}"


def _cell_ours(c: CellResult) -> str:
    if c.status in ("external",):
        return "—"
    if c.ours != c.ours:
        return c.verdict
    return _pm(c.ours, c.ours_std) + (f" (n = {c.n_ours})" if c.n_ours else "")


def _error_table_md(table: dict[str, Any], cells: list[CellResult], ctx: _Ctx) -> list[str]:
    exp = table.get("experiment")
    unit = "accuracy %" if table["metric"] == "accuracy" else "error %"
    cfg = ctx.configs.get(exp) if exp else None
    n_paper = cfg.repeats() if cfg else DEFAULT_REPEATS
    lines = [
        f"{unit}; paper: {table.get('statistic', '')}; ours: mean ± std over our repeats (n)"
        + (f"; Welch's t-test with the paper's n = {n_paper} (config `repeats`)" if n_paper else "")
        + f". Agrees = within the paper's ± std or not significantly different (5 %); "
        f"without a paper std: {NO_STD_RULES[table['metric']]}.",
        "",
    ]
    rows = []
    for c in cells:
        verdict = c.verdict + (" ⚠ doubtful" if c.doubtful else "")
        rows.append(
            [
                c.setting,
                c.method,
                _pm(c.paper, c.paper_std) + (" (ext.)" if c.status == "external" else ""),
                _cell_ours(c),
                _fmt_diff(c.diff),
                _fmt_p(c.p) if c.p == c.p else "–",
                verdict,
            ]
        )
    lines += _md_table(["setting", "method", "paper", "ours", "diff", "Welch p", "verdict"], rows)
    return lines


def _cpu_table_md(table: dict[str, Any], cells: list[CellResult]) -> list[str]:
    lines = [
        "CPU time; the paper normalises to the fastest entry of the whole table. Here both sides are "
        "re-normalised to the fastest of the paper's methods in the same row; ours = mean selection CPU "
        f"time (`fit_cpu_s`) over repeats. Without a paper std: {NO_STD_RULES['cpu_time']}.",
        "",
    ]
    rows = []
    for c in cells:
        rows.append(
            [
                c.setting + (f" ({c.note})" if c.note and "ours:" in c.note else ""),
                c.method,
                f"{c.paper:g}",
                _fmt(c.paper_norm, 1),
                _cell_ours(c),
                f"{c.ours_seconds:.3g}" if c.ours_seconds == c.ours_seconds else "–",
                _fmt_diff(c.diff),
                f"×{c.ratio:.2g}" if c.ratio == c.ratio else "–",
                c.verdict + (" ⚠ doubtful" if c.doubtful else ""),
            ]
        )
    lines += _md_table(
        [
            "setting",
            "method",
            "paper",
            "paper ÷ row min",
            "ours ÷ row min",
            "ours (s)",
            "diff",
            "ratio",
            "verdict",
        ],
        rows,
    )
    return lines


def _rank_table_md(cells: list[CellResult], notes: dict[str, str]) -> list[str]:
    lines = [
        "Share (%) of cells where the method ranks first / second / lower, ours from `fsbench.stats."
        "rank_shares` over the section's experiments present in these results (fsbench's own methods "
        "only; the paper's §V-C ranks include the external methods). "
        + "; ".join(notes.values())
        + f". Without a paper std: {NO_STD_RULES['rank_share']}.",
        "",
    ]
    rows = []
    for c in cells:
        ours = "not run" if c.ours != c.ours else f"{c.ours:.1f} (k = {c.n_ours})"
        rows.append(
            [
                c.setting,
                c.method,
                f"{c.paper:.1f}",
                ours,
                _fmt_diff(c.diff),
                c.verdict + (" ⚠ doubtful" if c.doubtful else ""),
            ]
        )
    lines += _md_table(["setting", "method", "paper", "ours", "diff", "verdict"], rows)
    return lines


def _paper_only_md(table: dict[str, Any]) -> list[str]:
    """The paper's values of a table we have no results for, in the printed layout."""
    cells = table.get("cells", [])
    methods = list(dict.fromkeys([*(table.get("columns") or []), *(str(c["method"]) for c in cells)]))
    methods = [m for m in methods if any(str(c.get("method")) == m for c in cells)]
    ext = {str(c["method"]) for c in cells if c.get("external")}
    grid: dict[str, dict[str, str]] = {}
    for c in cells:
        v = _pm(float(c["value"]), float(c["std"]) if c.get("std") is not None else None)
        grid.setdefault(_setting(c), {})[str(c["method"])] = v + (" ⚠" if c.get("doubtful") else "")
    header = ["setting", *(f"{m} (ext.)" if m in ext else m for m in methods)]
    rows = [[k, *(row.get(m, "") for m in methods)] for k, row in grid.items()]
    return _md_table(header, rows) + [
        "",
        "(ext.) = copied by the paper from another publication; ⚠ = doubtful.",
    ]


def _table_counts(cells: list[CellResult]) -> dict[str, int]:
    counted = [c for c in cells if c.counted]
    with_std = [c for c in counted if c.paper_std is not None]
    return {
        "compared": len(counted),
        "agree": sum(c.status == "agree" for c in counted),
        "differ": sum(c.status == "differ" for c in counted),
        "within_std": sum(bool(c.within_std) for c in with_std if c.status == "agree"),
        "not_sig_only": sum(c.status == "agree" and not c.within_std for c in with_std),
        "no_std_ok": sum(c.status == "agree" for c in counted if c.paper_std is None),
        "not_run": sum(c.status in ("not run", "failed") for c in cells),
        "not_available": sum(c.status == "not available" for c in cells),
        "external": sum(c.status == "external" for c in cells),
        "doubtful": sum(c.doubtful for c in cells),
        "other": sum(c.status in ("reference", "untestable") for c in cells),
    }


def _substitutions(ctx: _Ctx) -> list[str]:
    lines = []
    for name, cfg in ctx.configs.items():
        if name not in ctx.experiments:
            continue
        items = []
        for ds in cfg.datasets:
            note = card_note(ds, ctx.cards_dir)
            if note:
                items.append(f"dataset `{ds}`: {note}")
            elif note is None and not ctx.dataset_available(ds, name):
                items.append(f"dataset `{ds}`: no dataset card")
        items += cfg.defaults
        desc = cfg.data.get("description")
        lines.append(f"- **{name}** (`{cfg.file.name}`)" + (f" — {desc}" if desc else ""))
        lines += [f"  - {_esc(i)}" for i in items] or ["  - (none stated)"]
    return lines or ["- no experiment of the paper is in these results"]


def paper_sections(
    paper: str,
    all_df: pd.DataFrame,
    root: Path,
    values_path: Path | None = None,
    cards_dir: Path | None = None,
) -> tuple[list[str], str]:
    """Paper-vs-ours Markdown for ``fsbench report --paper PAPER``.

    Parameters
    ----------
    paper : str
        Paper id (``configs/<paper>/paper_values.yaml``).
    all_df : DataFrame
        The rows of every results.csv found by the report.
    root : Path
        Directory of REPORT.md (kept for relative links; unused for now).
    values_path : Path, optional
        Explicit paper-values file; the experiment configs are read from its directory.
    cards_dir : Path, optional
        Dataset cards directory (default ``FSBENCH_CARDS_DIR`` or ``<repository>/datasets``).

    Returns
    -------
    summary_lines : list of str
        Lines for the top of REPORT.md: counts of cells and claims, the substitutions and defaults.
    text : str
        The per-table comparisons and the claims.

    Raises
    ------
    FileNotFoundError
        If the paper-values file does not exist.
    """
    path = Path(values_path) if values_path is not None else paper_values_path(paper)
    values = load_paper_values(paper, path)
    configs = read_configs(path.parent)
    df = method_frame(all_df) if len(all_df) else all_df
    ctx = _Ctx(values, configs, df, cards_dir)

    title = values.get("citation") or values.get("title") or paper
    body = [f"## Paper vs ours: {paper}", "", f"_{_esc(title)}_", ""]
    per_table: list[tuple[dict[str, Any], list[CellResult], str]] = []
    tables = sorted(
        (t for t in values.get("tables", []) if t.get("cells")),
        key=lambda t: _ROMAN_ORDER.index(t["id"]) if t["id"] in _ROMAN_ORDER else 99,
    )
    for t in tables:
        metric = t.get("metric")
        exp = t.get("experiment")
        head = f"### Table {t.get('number', '?')} — {t.get('caption', '')}" + (f" (`{exp}`)" if exp else "")
        body += [head, ""]
        if metric in ("error", "accuracy", "cpu_time"):
            cells = _compare_cpu_table(t, ctx) if metric == "cpu_time" else _compare_error_table(t, ctx)
            if exp in ctx.experiments:
                status = "compared"
                body += _cpu_table_md(t, cells) if metric == "cpu_time" else _error_table_md(t, cells, ctx)
            else:
                status = ctx.missing_reason(exp)
                body += [
                    f"**{status[0].upper()}{status[1:]}.** The paper's values ({t.get('unit', '')}):",
                    "",
                ]
                body += _paper_only_md(t)
        elif metric == "rank_share":
            cells, notes = _compare_rank_table(t, ctx)
            present = any(e in ctx.experiments for exps in (t.get("sections") or {}).values() for e in exps)
            status = "compared" if present else "not run (no experiment of the table's sections)"
            body += _rank_table_md(cells, notes)
        else:
            continue
        per_table.append((t, cells, status))
        body.append("")

    # ---- claims
    figs = {f["id"]: f.get("experiment") for f in values.get("figures", [])}
    tabs = {t["id"]: t.get("experiment") for t in values.get("tables", [])}
    claim_rows = []
    claim_lines: list[str] = []
    tally = {HOLDS: 0, FAILS: 0, NOT_EVALUABLE: 0, NOT_CHECKABLE: 0}
    for cl in values.get("claims", []):
        where = cl.get("figure") or cl.get("table") or ""
        exp = figs.get(where) or tabs.get(where)
        status, results = evaluate_claim(cl, df, exp, ctx.missing_reason)
        tally[status] += 1
        claim_rows.append([f"{_MARK[status]} {status}", f"`{cl['id']}`", where, cl.get("statement", "")])
        claim_lines.append(
            f"- {_MARK[status]} **{cl['id']}** ({where}, §{cl.get('source', '?')}) — **{status}**"
        )
        claim_lines.append(f"  - paper: “{_esc(cl.get('quote', ''))}”")
        for chk, r in zip(cl.get("checks") or [], results):
            claim_lines.append(f"  - {_MARK[r.status]} `{chk.get('kind')}`: {_esc(r.detail)} → {r.status}")
        if cl.get("defaults"):
            claim_lines.append(f"  - _choices: {_esc(' '.join(str(cl['defaults']).split()))}_")
        if cl.get("paper_consistent") is not None:
            consistent = str(cl["paper_consistent"]).lower()
            claim_lines.append(f"  - _paper's own numbers consistent with the statement: {consistent}_")
    body += [
        f"### Claims ({len(claim_rows)})",
        "",
        "Each claim holds when all its checks hold (the checks and every tolerance or range the paper "
        "does not state are in `paper_values.yaml`, marked [D]); not evaluable = results missing.",
        "",
        *_md_table(["result", "claim", "where", "statement"], claim_rows),
        "",
        *claim_lines,
        "",
    ]

    # ---- summary
    tot = {k: 0 for k in _table_counts([])}
    trows = []
    for t, cells, status in per_table:
        k = _table_counts(cells)
        for key in tot:
            tot[key] += k[key]
        trows.append(
            [
                t.get("number", t["id"]),
                f"`{t.get('experiment')}`" if t.get("experiment") else "sections",
                status,
                str(k["compared"]),
                str(k["agree"]),
                str(k["differ"]),
                str(k["external"]),
                str(k["doubtful"]),
            ]
        )
    n_claims = sum(tally.values())
    summary = [
        f"## Comparison with the paper {paper} — summary",
        "",
        f"- **Table cells: {tot['agree']} of {tot['compared']} comparable cells agree with the paper** "
        f"({tot['within_std']} within the paper's ± std, {tot['not_sig_only']} more not significantly "
        f"different by Welch's t-test at 5 %, {tot['no_std_ok']} without a paper std within tolerance); "
        f"{tot['differ']} differ. Not compared: {tot['not_run']} not run, {tot['not_available']} dataset "
        f"not available, {tot['external']} external (other papers' numbers, context only), "
        f"{tot['other']} row references / untestable; {tot['doubtful']} doubtful cell(s) flagged and "
        "left out of the counts.",
        f"- **Claims: {tally[HOLDS]} hold, {tally[FAILS]} do not hold, "
        f"{tally[NOT_EVALUABLE]} not evaluable** (results missing), "
        f"{tally[NOT_CHECKABLE]} not machine-checkable — {n_claims} in all.",
        "",
        *_md_table(
            ["table", "experiment", "status", "compared", "agree", "differ", "external", "doubtful"], trows
        ),
        "",
        "### Substitutions and defaults (experiments in these results)",
        "",
        "Per experiment: the first sentence of each dataset card's notes, then the config's [D] choices "
        "(defaults where the paper is silent) and its caveats.",
        "",
        *_substitutions(ctx),
        "",
    ]
    return summary, "\n".join(body)
