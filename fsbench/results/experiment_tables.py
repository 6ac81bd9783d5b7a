"""Stability and ground-truth tables beside every experiment of a results directory.

The report's producers compute them (:func:`experiment_tables`, nothing written) and write them into each
result directory — a directory holding ``results.csv``, an experiment's or a diagnostic's
(:func:`save_experiment_tables`; both at once: :func:`write_experiment_tables`):

* ``stability.csv`` / ``stability.md`` — Kuncheva's index and the Nogueira–Sechidis–Brown estimator with
  its 95 % confidence interval per (dataset, kernel, n_train, selector) and S, from ``rankings.csv``
  (:func:`fsbench.results.stability.stability_table`); where there is no ranking of input features to
  compare — a diagnostic, no ``rankings.csv``, only transformers (projections such as TAKES, KIFE,
  GDA: their output coordinates are new features, not a ranking of the inputs) or only the
  all-features baseline — ``stability.md`` holds one sentence saying so and there is no CSV;
* ``ground_truth.csv`` / ``ground_truth_success.csv`` / ``ground_truth.md`` — where the dataset's
  relevant features are known (:mod:`fsbench.results.ground_truth`: the Weston toys, the Ring Fig. 1
  toy): the share of relevant features in the top S and the exact-recovery rate per selector and n;

:func:`analysis_markdown` renders a report section with the same tables in compact form (one row per
selector, one column per S — or per n for a sweep over n at one S); it writes nothing. Everything is
computed from the committed CSVs, so a regenerated report is byte-identical.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from fsbench.results.ground_truth import ground_truth_tables
from fsbench.results.loading import ResultSet, load_result_sets
from fsbench.results.stability import stability_table
from fsbench.results.tables import to_markdown

#: Significance level of the confidence intervals (95 %).
ALPHA = 0.05


@dataclass
class ExperimentTables:
    """What was written for one result directory."""

    path: Path
    experiment: str
    stability: pd.DataFrame | None = None  # None: no ranking (see ``note``)
    note: str = ""
    success: pd.DataFrame = field(default_factory=pd.DataFrame)
    share: pd.DataFrame = field(default_factory=pd.DataFrame)


def no_ranking_reason(rs: ResultSet) -> str:
    """Why a result directory has no stability table, or ``""`` if it has rankings of input features."""
    if "diagnostic" in rs.results.columns:
        return "a diagnostic: its table holds measurements, not a ranking of the input features"
    if rs.rankings is None:
        return "no `rankings.csv`"
    r = rs.rankings[~rs.rankings["selector"].astype(str).isin(rs.baseline_labels)]
    if r.empty:
        return "only the all-features baseline ran (its order of the features is arbitrary)"
    if rs.rankers().empty:
        return (
            "every method is a transformer (a projection onto new coordinates, e.g. a kernel-space basis or "
            "discriminant directions): there is no ranking of the input features whose stability could be "
            "measured"
        )
    return ""


def _experiment_name(rs: ResultSet) -> str:
    if len(rs.results) and "experiment" in rs.results.columns:
        return str(rs.results["experiment"].iloc[0])
    return rs.path.name


def experiment_tables(sets: list[ResultSet]) -> list[ExperimentTables]:
    """The stability and ground-truth tables of every result directory (computed, nothing written)."""
    out = []
    for rs in sets:
        et = ExperimentTables(rs.path, _experiment_name(rs))
        et.note = no_ranking_reason(rs)
        if not et.note:
            et.stability = stability_table([rs], alpha=ALPHA).drop(columns="source")
            share, success = ground_truth_tables([rs], alpha=ALPHA)
            et.share, et.success = share.drop(columns="source"), success.drop(columns="source")
        out.append(et)
    return out


def save_experiment_tables(tables: list[ExperimentTables]) -> list[Path]:
    """Write each directory's ``stability.*`` and ``ground_truth*`` files (module docstring); return them.

    A ``stability.csv`` left from an earlier run is removed where there is no ranking any more.
    """
    written = []
    for et in tables:
        (et.path / "stability.csv").unlink(missing_ok=True)
        md = et.path / "stability.md"
        if et.stability is None:
            md.write_text(f"# Stability: {et.experiment}\n\nNo ranking: {et.note}.\n")
        else:
            et.stability.to_csv(et.path / "stability.csv", index=False)
            md.write_text(
                f"# Stability: {et.experiment}\n\n{STABILITY_LEGEND}\n\n"
                + to_markdown(et.stability.drop(columns=["pareto"]), 4)
            )
            written.append(et.path / "stability.csv")
        written.append(md)
        if not et.success.empty:
            et.share.to_csv(et.path / "ground_truth.csv", index=False)
            et.success.to_csv(et.path / "ground_truth_success.csv", index=False)
            (et.path / "ground_truth.md").write_text(
                f"# Ground truth: {et.experiment}\n\n{GROUND_TRUTH_LEGEND}\n\n## Exact recovery\n\n"
                + to_markdown(et.success, 4)
                + "\n## Share of relevant features in the top S\n\n"
                + to_markdown(et.share, 4)
            )
            written += [
                et.path / f for f in ("ground_truth.csv", "ground_truth_success.csv", "ground_truth.md")
            ]
    return written


def write_experiment_tables(results_dir: Path) -> list[ExperimentTables]:
    """Compute and write the stability and ground-truth files of every result directory under
    ``results_dir`` (:func:`experiment_tables`, :func:`save_experiment_tables`)."""
    tables = experiment_tables(load_result_sets([results_dir]))
    save_experiment_tables(tables)
    return tables


#: Titles of the report sections written by :func:`analysis_markdown` (``--html`` adds their figures).
STABILITY_SECTION = "Stability of the selected subsets"
GROUND_TRUTH_SECTION = "Ground truth: recovery of the relevant features"

STABILITY_LEGEND = (
    "Stability of the top-S subsets across repeats: Kuncheva's consistency index (mean over pairs of "
    "repeats) and the Nogueira–Sechidis–Brown (2018) estimator Φ̂ with its 95 % confidence interval "
    "(`fsbench.results.stability`); 1 = the same subset in every repeat, 0 = chance overlap; undefined "
    "(–) at S = D. With S features in every repeat, the two are equal."
)
GROUND_TRUTH_LEGEND = (
    "Recovery of the known relevant features R (`fsbench.results.ground_truth`; the Weston toys: their "
    "relevant features; ring_fig1: the pair x1, x2 on which its classes are separable): the exact-recovery "
    "rate is the share of repeats whose top |R| (a search's chosen subset) are exactly R, with successes/"
    "repeats and, in the CSV, a 95 % Wilson interval; the share of relevant features in the top S is "
    "|top S ∩ R| / S, averaged over repeats."
)


def _pivot(df: pd.DataFrame, value, columns: str) -> pd.DataFrame:
    """One row per selector, one column per ``columns`` value; cells from ``value(row)``."""
    sels = list(dict.fromkeys(df["selector"]))
    cols = sorted(df[columns].unique())
    cells = {(r.selector, getattr(r, columns)): value(r) for r in df.itertuples()}
    rows = [[s, *(cells.get((s, c), "") for c in cols)] for s in sels]
    label = {"n_features": "S", "n_train": "n"}[columns]
    return pd.DataFrame(rows, columns=["selector", *(f"{label} = {c}" for c in cols)])


def _stab_cell(r) -> str:
    if r.nogueira != r.nogueira:
        return "–"
    return f"{r.nogueira:.2f} [{r.ci_low:.2f}, {r.ci_high:.2f}]"


def _blocks(df: pd.DataFrame, by: list[str]):
    """(title, block, pivot column) per (dataset, kernel) — n or S as columns, whichever varies."""
    for key, g in df.groupby(by, sort=False):
        ds, kern = key[0], key[1]
        ns, ss = sorted(g["n_train"].unique()), sorted(g["n_features"].unique())
        if len(ns) > 1 and len(ss) <= 1:
            yield f"{ds}, {kern}, S = {ss[0]}", g, "n_train"
        else:
            for n in ns:
                yield f"{ds}, {kern}, n_train = {n}", g[g["n_train"] == n], "n_features"


def stability_markdown(et: ExperimentTables, rel: str) -> list[str]:
    """The compact stability table(s) of one experiment, or its "no ranking" note."""
    head = f"### {et.experiment} (`{rel}`)"
    if et.stability is None:
        return [head, "", f"No ranking: {et.note}.", ""]
    t = et.stability
    if t.empty:
        return [head, "", "No selector has a ranking at the S values of this experiment.", ""]
    both = t.dropna(subset=["kuncheva", "nogueira"])
    equal = bool(np.allclose(both["kuncheva"], both["nogueira"], atol=1e-9)) if len(both) else True
    lines = [head, ""]
    if not equal:
        lines += ["Kuncheva's index differs from Φ̂ here; both are in `stability.csv`.", ""]
    for title, g, col in _blocks(t, ["dataset", "kernel"]):
        lines += [f"**{title}**: Φ̂ [95 % CI]", "", to_markdown(_pivot(g, _stab_cell, col)), ""]
    return lines


def _recovery_cell(r) -> str:
    return f"{r.success_rate:.2f} ({r.successes}/{r.repeats})"


def _share_cell(r) -> str:
    return f"{r.share_relevant:.2f}"


def ground_truth_markdown(et: ExperimentTables, rel: str) -> list[str]:
    """Exact-recovery rate and share of relevant features in the top S of one experiment, per n."""
    if et.success.empty:
        return []
    lines = [f"### {et.experiment} (`{rel}`)", ""]
    for (ds, kern), g in et.success.groupby(["dataset", "kernel"], sort=False):
        r = int(g["relevant"].iloc[0])
        lines += [
            f"**{ds}, {kern}** — exact recovery (top {r} = the {r} relevant), rate (successes/repeats)",
            "",
            to_markdown(_pivot(g, _recovery_cell, "n_train")),
        ]
        sh = et.share[(et.share["dataset"] == ds) & (et.share["kernel"] == kern)]
        for S in sorted(sh["n_features"].unique()):
            gs = sh[sh["n_features"] == S]
            lines += [
                f"share of relevant features in the top {S}",
                "",
                to_markdown(_pivot(gs, _share_cell, "n_train")),
            ]
        lines.append("")
    return lines


def analysis_markdown(tables: list[ExperimentTables], root: Path) -> list[str]:
    """The report sections :data:`STABILITY_SECTION` and (where relevant features are known)
    :data:`GROUND_TRUTH_SECTION` (``--html`` adds the figures of the same analyses to them)."""
    root = Path(root).resolve()

    def rel(p: Path) -> str:
        return p.relative_to(root).as_posix() if p.is_relative_to(root) else p.as_posix()

    lines = [f"## {STABILITY_SECTION}", "", STABILITY_LEGEND, ""]
    lines += ["Full tables: `<experiment>/stability.csv` and `stability.md`.", ""]
    for et in sorted(tables, key=lambda e: rel(e.path.resolve())):
        lines += stability_markdown(et, rel(et.path.resolve()))
    gt = [et for et in tables if not et.success.empty]
    if gt:
        lines += [f"## {GROUND_TRUTH_SECTION}", "", GROUND_TRUTH_LEGEND, ""]
        for et in sorted(gt, key=lambda e: rel(e.path.resolve())):
            lines += ground_truth_markdown(et, rel(et.path.resolve()))
    return lines
