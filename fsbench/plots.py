"""Figures and tables from result directories (headless, matplotlib Agg).

For every experiment and (dataset, kernel):

* ``error_vs_S`` — mean test error vs number of selected features S, one line per selector, shaded
  95 % confidence interval of the mean over repeats (t distribution); the all-features SVM is the
  black horizontal line, as in the papers' figures. The paper's own methods (SAS, SCSS, KFDS, SFS)
  are dotted, reference methods solid (Ramona 2012 §V convention). Written per training size.
* ``error_vs_n`` — for sweeps over n_train (toy experiments): mean error vs n_train, one figure per S.
* ``cpu_time`` — mean selection CPU time per selector, absolute and normalised to the fastest
  (Ramona 2012 Tables VIII/IX), as Markdown and CSV.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy import stats  # noqa: E402

PROPOSED = {"sas", "scss", "kfds", "sfs"}
BASELINE = "all"


def find_result_files(paths: list[Path]) -> list[Path]:
    """Every experiment ``results.csv`` at or under ``paths`` (diagnostics' tables, which have their own
    columns, are left out)."""
    files: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_file() and p.name == "results.csv":
            files.append(p)
        elif (p / "results.csv").exists():
            files.append(p / "results.csv")
        elif p.is_dir():
            files.extend(sorted(p.rglob("results.csv")))
    return [f for f in files if not _is_diagnostic(f)]


def _is_diagnostic(path: Path) -> bool:
    with open(path, encoding="utf-8") as fh:
        header = fh.readline().strip().split(",")
    return "diagnostic" in header


def summarize(df: pd.DataFrame, by: list[str], value: str = "error") -> pd.DataFrame:
    """Mean, std, count and 95 % CI half-width of ``value`` over repeats."""
    g = df.groupby(by, sort=False)[value]
    s = g.agg(mean="mean", std="std", n="count").reset_index()
    tcrit = stats.t.ppf(0.975, np.maximum(s["n"] - 1, 1))
    s["ci95"] = np.where(s["n"] > 1, tcrit * s["std"].fillna(0) / np.sqrt(s["n"]), 0.0)
    return s


def _style(selector_name: str) -> dict:
    if selector_name == BASELINE:
        return {"color": "black", "linestyle": "-", "linewidth": 1.8}
    return {"linestyle": ":" if selector_name in PROPOSED else "-", "marker": "o", "markersize": 3}


def _save(fig, path: Path) -> list[Path]:
    path.parent.mkdir(parents=True, exist_ok=True)
    out = []
    for ext in ("png", "pdf"):
        p = path.with_suffix(f".{ext}")
        fig.savefig(p, dpi=120, bbox_inches="tight")
        out.append(p)
    plt.close(fig)
    return out


def _selector_names(df: pd.DataFrame) -> dict[str, str]:
    return df.drop_duplicates("selector").set_index("selector")["selector_name"].to_dict()


def _band(ax, x, d: pd.DataFrame, color, alpha: float) -> None:
    """Shaded 95 % CI of the mean, clipped to [0, 1]."""
    ax.fill_between(
        x, (d["mean"] - d["ci95"]).clip(0, 1), (d["mean"] + d["ci95"]).clip(0, 1), color=color, alpha=alpha
    )


def _finish(ax, xlabel: str, title: str, corner: str) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel("test error")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    y = 0.01 if corner == "bottom" else 0.99
    ax.text(
        0.99,
        y,
        "mean over repeats, band = 95% CI of the mean",
        transform=ax.transAxes,
        ha="right",
        va=corner,
        fontsize=6,
        color="gray",
    )


def plot_error_vs_S(df: pd.DataFrame, title: str, path: Path) -> list[Path]:
    names = _selector_names(df)
    s = summarize(df, ["selector", "n_features"])
    fig, ax = plt.subplots(figsize=(6, 4))
    S_all = sorted(df.loc[df["selector_name"] != BASELINE, "n_features"].unique())
    for sel in df["selector"].drop_duplicates():
        d = s[s["selector"] == sel].sort_values("n_features")
        st = _style(names.get(sel, sel))
        if names.get(sel) == BASELINE and len(S_all) > 0:
            m, ci = float(d["mean"].iloc[0]), float(d["ci95"].iloc[0])
            xs = [min(S_all), max(S_all)]
            ax.plot(xs, [m, m], label=sel, **st)
            ax.fill_between(xs, m - ci, m + ci, color="black", alpha=0.08)
            continue
        line = ax.plot(d["n_features"], d["mean"], label=sel, **st)[0]
        _band(ax, d["n_features"], d, line.get_color(), 0.15)
    _finish(ax, "number of selected features S", title, "bottom")
    return _save(fig, path)


def plot_error_vs_n(df: pd.DataFrame, title: str, path: Path) -> list[Path]:
    names = _selector_names(df)
    s = summarize(df, ["selector", "n_train"])
    fig, ax = plt.subplots(figsize=(6, 4))
    for sel in df["selector"].drop_duplicates():
        d = s[s["selector"] == sel].sort_values("n_train")
        line = ax.plot(d["n_train"], d["mean"], label=sel, **_style(names.get(sel, sel)))[0]
        _band(ax, d["n_train"], d, line.get_color(), 0.12)
    _finish(ax, "number of training samples n", title, "top")
    return _save(fig, path)


def cpu_table(df: pd.DataFrame) -> pd.DataFrame:
    """Mean selection CPU time per (dataset, kernel, n_train, selector), normalised to the fastest.

    One value per task (rows of the same task share the fit time), so tasks are deduplicated first.
    """
    t = df[df["status"] == "ok"].drop_duplicates("task_id")
    t = t[t["selector_name"] != BASELINE]
    if t.empty:
        return pd.DataFrame()
    g = t.groupby(["dataset", "kernel", "n_train", "selector"], sort=False)["fit_cpu_s"]
    s = g.agg(mean_cpu_s="mean", median_cpu_s="median", tasks="count").reset_index()
    fastest = s.groupby(["dataset", "kernel", "n_train"])["mean_cpu_s"].transform("min")
    s["normalised"] = s["mean_cpu_s"] / fastest.where(fastest > 0, np.nan)
    return s


def cpu_table_wide(df: pd.DataFrame) -> pd.DataFrame:
    """Ramona 2012 Tables VIII/IX layout: one row per selector, one column per (dataset, n_train), mean
    selection CPU time normalised to the single fastest entry of the whole table."""
    s = cpu_table(df)
    if s.empty:
        return s
    col = s["dataset"].astype(str) + " n=" + s["n_train"].astype(str)
    if s["dataset"].nunique() == 1:
        col = "n=" + s["n_train"].astype(str)
    elif s["n_train"].nunique() == 1:
        col = s["dataset"].astype(str)
    s = s.assign(column=col)
    wide = s.pivot_table(index="selector", columns="column", values="mean_cpu_s", sort=False)
    wide = wide[list(dict.fromkeys(col))]
    fastest = np.nanmin(wide.to_numpy())
    return (wide / fastest).reset_index() if fastest > 0 else wide.reset_index()


def _markdown(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, r in df.iterrows():
        cells = [f"{v:.4g}" if isinstance(v, float) else str(v) for v in r]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot_results(paths: list[Path], out: Path | None = None) -> list[Path]:
    """Write every figure and table for the results under ``paths``; return the files written."""
    written: list[Path] = []
    for f in find_result_files(paths):
        df = pd.read_csv(f)
        if df.empty:
            continue
        target = Path(out) / f.parent.name if out is not None else f.parent / "plots"
        ok = df[df["status"] == "ok"]
        exp = str(df["experiment"].iloc[0])
        for (ds, kern), d in ok.groupby(["dataset", "kernel"], sort=False):
            n_values = sorted(d["n_train"].unique())
            S_values = sorted(d.loc[d["selector_name"] != BASELINE, "n_features"].unique())
            if len(S_values) > 1 or len(n_values) == 1:
                for n in n_values:
                    dn = d[d["n_train"] == n]
                    title = f"{exp}: {ds}, {kern} kernel, n_train={n}, {dn['repeat'].nunique()} repeats"
                    written += plot_error_vs_S(dn, title, target / f"error_vs_S_{ds}_{kern}_n{n}")
            if len(n_values) > 1:
                for S in S_values or [None]:
                    dS = d[(d["n_features"] == S) | (d["selector_name"] == BASELINE)] if S is not None else d
                    title = f"{exp}: {ds}, {kern} kernel, S={S}, {dS['repeat'].nunique()} repeats per n"
                    written += plot_error_vs_n(dS, title, target / f"error_vs_n_{ds}_{kern}_S{S}")
        table = cpu_table(df)
        if not table.empty:
            target.mkdir(parents=True, exist_ok=True)
            csv_path = target / "cpu_time.csv"
            table.to_csv(csv_path, index=False)
            md_path = target / "cpu_time.md"
            md_path.write_text(
                f"# Selection CPU time — {exp}\n\nMean `time.process_time` of the selector's fit "
                "per task; `normalised` = mean / fastest selector of the same dataset, kernel "
                "and n_train (as in Ramona 2012 Tables VIII–IX).\n\n" + _markdown(table)
            )
            wide = cpu_table_wide(df)
            wide_path = target / "cpu_time_table.md"
            wide_path.write_text(
                f"# Selection CPU time, normalised to the fastest entry — {exp}\n\nMean selection CPU time "
                "per selector (rows) and setting (columns), divided by the single lowest entry of the table, "
                "as in Ramona 2012 Tables VIII–IX.\n\n" + _markdown(wide)
            )
            written += [csv_path, md_path, wide_path]
    return written
