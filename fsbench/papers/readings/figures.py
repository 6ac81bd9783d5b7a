"""Figure readings: the paper prints no numbers for a figure, so a reading of one is shown as its curve
beside the default's, with a paired t-test per point, and the figure's claims are re-evaluated with the
reading's rows in place of the default's rows when the reading covers the default's whole grid."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from fsbench.papers.claims import evaluate_claim
from fsbench.papers.readings.declared import Reading, default_experiment, where_name
from fsbench.papers.values import _entries
from fsbench.results.tables import md_table
from fsbench.stats import paired_t

_INTRO = (
    "The paper prints no numbers for its figures, so a figure reading is shown as its curve beside "
    "the default's (mean test error % ± std over the repeats, paired t-test over the same splits), "
    "and the figure's claims are re-evaluated with the reading's rows in place of the default's "
    "when the reading covers the default's whole grid."
)


def _paired(a: pd.DataFrame, b: pd.DataFrame) -> float:
    """Two-sided paired t-test p of two sets of rows (columns split_seed, error) matched on the split."""
    m = a.merge(b, on="split_seed", suffixes=("_a", "_b"))
    if len(m) < 2:
        return float("nan")
    return paired_t(m["error_a"], m["error_b"])[1]


def figure_readings_section(
    values: Mapping[str, Any], readings: list[Reading], df: pd.DataFrame, raw: pd.DataFrame
) -> list[str]:
    """The "Figure readings" part of the readings section ([] if no reading is of a figure).

    Parameters
    ----------
    values : mapping
        The paper's values (``figures``, ``claims``).
    readings : list of Reading
        Every reading of the paper; those of tables are ignored.
    df : DataFrame
        The report's result rows with ``selector`` mapped to method names
        (:func:`fsbench.papers.sources.method_frame`).
    raw : DataFrame
        The same rows as read (``selector`` = the config's label), row for row.
    """
    figs = [r for r in readings if r.figure]
    if not figs:
        return []
    lines = ["### Figure readings", "", _INTRO, ""]
    for r in figs:
        lines += _figure_block(values, r, df, raw)
    return lines


def _reading_rows(
    r: Reading, default: str, df: pd.DataFrame, raw: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(default rows, reading rows relabelled as the default) for the reading's methods."""
    d = df[df["experiment"] == default]
    src = r.source(default)
    raw = raw[raw["experiment"] == src]
    rd = df[df["experiment"] == src].copy()
    if len(rd):
        rd["_label"] = raw["selector"].astype(str).to_numpy()
    methods = dict(r.methods) or {m: m for m in d["selector"].astype(str).unique()}
    inv_sel = {}
    for m, lab in methods.items():
        inv_sel[lab] = m
    keep = rd["_label"].isin(inv_sel) if len(rd) else pd.Series(dtype=bool)
    keep = keep | (rd["selector"].isin(inv_sel) if len(rd) else keep)
    rd = rd[keep].copy()
    if len(rd):
        rd["selector"] = [inv_sel.get(a, inv_sel.get(b)) for a, b in zip(rd["_label"], rd["selector"])]
        if r.datasets:  # only the reading's datasets, named as the default's
            inv_ds = {v: k for k, v in r.datasets.items()}
            rd = rd[rd["dataset"].isin(set(inv_ds))].copy()
            rd["dataset"] = rd["dataset"].map(inv_ds)
        rd["experiment"] = default
        rd = rd.drop(columns="_label")
    d = d[d["selector"].isin(set(methods))]
    return d, rd


def _figure_block(values: Mapping[str, Any], r: Reading, df: pd.DataFrame, raw: pd.DataFrame) -> list[str]:
    default = r.default or default_experiment(values, r)
    head = f"#### {where_name(values, r)} — {r.label} (`{default}` → `{r.source(default)}`)"
    if default is None:
        return [head, "", "No default experiment is named for this figure.", ""]
    d, rd = _reading_rows(r, default, df, raw)
    if rd.empty or d.empty:
        return [head, "", r.changes, "", "(The curves are not among the rows this section compares.)", ""]
    ok_d, ok_r = d[d["status"] == "ok"], rd[rd["status"] == "ok"]
    xs = "n_train" if ok_d["n_train"].nunique() > 1 else "n_features"
    rows = []
    keys = ["dataset", "selector", xs]
    for key, a in ok_d.groupby(keys, sort=True):
        b = ok_r
        for k, v in zip(keys, key):
            b = b[b[k] == v]
        if b.empty:
            continue
        ma, sa, mb, sb = (
            100 * a["error"].mean(),
            100 * a["error"].std(),
            100 * b["error"].mean(),
            100 * b["error"].std(),
        )
        p = _paired(a[["split_seed", "error"]], b[["split_seed", "error"]])
        rows.append(
            [
                str(key[0]),
                str(key[1]),
                f"{key[2]:g}",
                f"{ma:.1f} ± {sa:.1f} (n = {len(a)})",
                f"{mb:.1f} ± {sb:.1f} (n = {len(b)})",
                f"{mb - ma:+.1f}",
                "–" if p != p else ("< 0.001" if p < 0.001 else f"{p:.3f}"),
            ]
        )
    x_name = "n" if xs == "n_train" else "S"
    lines = [head, "", r.changes, ""]
    lines += md_table(
        ["dataset", "method", x_name, "default", "reading", "reading − default", "paired p"], rows, True
    ).splitlines()
    lines.append("")
    lines += _claims_under(values, r, default, df, d, rd)
    return lines


def _claims_under(
    values: Mapping[str, Any], r: Reading, default: str, df: pd.DataFrame, d: pd.DataFrame, rd: pd.DataFrame
) -> list[str]:
    """The figure's claims, default vs with the reading's rows in place of the default's."""
    grid = ["dataset", "selector", "n_train", "n_features"]
    have = set(map(tuple, rd[grid].drop_duplicates().astype(str).to_numpy()))
    need = set(map(tuple, d[grid].drop_duplicates().astype(str).to_numpy()))
    if not need <= have:
        return [
            "Claims not re-evaluated: the reading covers "
            f"{len(have & need)} of the default's {len(need)} (dataset, method, n, S) points.",
            "",
        ]
    claims = [c for c in values.get("claims", []) if r.figure in _entries(c.get("figure"))]
    if not claims:
        return []
    drop = (df["experiment"] == default) & df["selector"].isin(set(d["selector"]))
    sub = pd.concat([df[~drop], rd], ignore_index=True)
    rows = []
    for cl in claims:
        before, _ = evaluate_claim(cl, df, default)
        after, _ = evaluate_claim(cl, sub, default)
        rows.append([f"`{cl['id']}`", before, after, "changes" if before != after else "same"])
    return [
        "Claims of this figure, default vs with the reading's rows in place of the default's:",
        "",
        *md_table(["claim", "default", "with the reading", ""], rows).splitlines(),
        "",
    ]
