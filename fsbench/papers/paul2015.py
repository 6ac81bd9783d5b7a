r"""Paul, D'Ambrosio & Dupont 2015 (clinical kernel, RFE on mixed-type data): the report.

The experiment is ``configs/paul2015/clinical_bcr.yaml``, run by ``fsbench run`` (the protocol's
``clinical_svm`` classifier, fraction splits, the card's categorical mask passed to the selectors). This
module reads its ``results.csv`` and ``rankings.csv`` and writes

* ``summary.csv``: mean/std of the balanced classification rate (BCR = 1 − balanced error) per dataset,
  selector and k (= S);
* ``stability.csv``: the Kuncheva (2007) consistency index of the top-k sets, averaged over all pairs of
  resamples, :math:`KI = (rD - k^2)/(k(D - k))` with r = |A ∩ B|, for k < D — computed by
  :mod:`fsbench.results.stability` (which also gives Nogueira et al.'s estimator with its confidence
  interval, in the report's stability section and ``clinical_bcr/stability.csv``);
* ``plots/bcr_vs_k.png``, ``plots/kuncheva_vs_k.png`` and ``REPORT.md``: the paper comparison of
  :mod:`fsbench.papers.page` (the agreement rule, no comparable cell — our copy of the paper stops before
  its experiments — and the abstract's claim checked in the claim DSL of
  ``configs/paul2015/paper_values.yaml``), the generated tables, the hand-written ``REPORT_notes.md`` of
  the results directory, and the stability section.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from fsbench.papers.page import analysis_section, comparison
from fsbench.results.loading import load_result_sets
from fsbench.results.stability import stability_table


def collect(run_dir: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(BCR rows, fits: one row per task, splits: one row per dataset × resample)."""
    res = pd.read_csv(run_dir / "results.csv")
    res = res[res["status"] == "ok"].copy()
    res["bcr"] = 1.0 - res["balanced_error"]
    res["k"] = res["n_features"]
    ranks = pd.read_csv(run_dir / "rankings.csv", dtype={"order": str}, keep_default_na=False)
    D = {ds: len(o.split()) for ds, o in zip(ranks["dataset"], ranks["order"]) if o}
    fits = res.drop_duplicates("task_id")[["task_id", "dataset", "repeat", "selector", "fit_wall_s"]]
    fits["n_features"] = fits["dataset"].map(D)
    splits = res.drop_duplicates(["dataset", "repeat"])[["dataset", "repeat", "n_train", "n_test"]].copy()
    splits["n_features"] = splits["dataset"].map(D)
    return res, fits, splits


def stability(run_dir: Path) -> pd.DataFrame:
    """Kuncheva index per dataset × selector × k < D over the resamples, from ``rankings.csv``
    (:func:`fsbench.results.stability.stability_table`; the all-features baseline is skipped)."""
    t = stability_table(load_result_sets([run_dir]))
    t = t[t["n_features"] < t["d"]].rename(columns={"n_features": "k", "repeats": "n_resamples"})
    return t[["dataset", "selector", "k", "kuncheva", "n_resamples"]].reset_index(drop=True)


def _plot(df: pd.DataFrame, value: str, ylabel: str, path: Path, ref: pd.DataFrame | None = None) -> None:
    """One panel per dataset, ``value`` vs k (log axis, ticks at the k of the grid), ±1 sd band where ``df``
    has ``std``; the legend below the panels."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    names = list(dict.fromkeys(df["dataset"]))
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.6), squeeze=False)
    for ax, ds in zip(axes[0], names, strict=True):
        g = df[df["dataset"] == ds]
        for sel, h in g.groupby("selector", sort=False):
            if sel == "all":
                continue
            h = h.sort_values("k")
            (line,) = ax.plot(h["k"], h["mean"], marker="o", ms=3, label=sel)
            if "std" in h and h["std"].notna().any():
                ax.fill_between(
                    h["k"], h["mean"] - h["std"], h["mean"] + h["std"], color=line.get_color(), alpha=0.08
                )
        if ref is not None:
            r = ref[(ref["dataset"] == ds) & (ref["selector"] == "all")]
            if len(r):
                ax.axhline(float(r["mean"].iloc[0]), color="k", ls="--", lw=1, label="all features")
        ax.set_xscale("log")
        ks = sorted(g.loc[g["selector"] != "all", "k"].unique())
        ax.set_xticks(ks, [str(int(k)) for k in ks])  # k is an integer
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("k (top features)")
        ax.set_title(ds)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(ylabel)
    handles, labels = axes[0][-1].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, loc="lower center", ncol=len(labels), bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def report(run_dir: Path, out: Path | None = None) -> Path:
    """Write summary.csv, stability.csv, the plots and REPORT.md (into ``out``, default the run's parent
    directory ``results/paul2015``) from a finished ``fsbench run`` directory; return the report path."""
    run_dir = Path(run_dir)
    out = Path(out) if out is not None else run_dir.parent
    out.mkdir(parents=True, exist_ok=True)
    info = json.loads((run_dir / "run.json").read_text())
    cfg = {"name": info.get("experiment", run_dir.name), "notes": info["effective_config"].get("notes", "")}
    res, fits, splits = collect(run_dir)
    if res.empty:
        raise FileNotFoundError(f"no finished tasks in {run_dir / 'results.csv'}")
    summ = (
        res.groupby(["dataset", "selector", "k"], sort=False)["bcr"]
        .agg(["mean", "std", "count"])
        .reset_index()
    )
    summ.to_csv(out / "summary.csv", index=False)
    stab = stability(run_dir)
    stab.to_csv(out / "stability.csv", index=False)
    _plot(summ, "mean", "BCR (test)", out / "plots" / "bcr_vs_k.png", ref=summ)
    _plot(
        stab.rename(columns={"kuncheva": "mean"}),
        "mean",
        "Kuncheva index",
        out / "plots" / "kuncheva_vs_k.png",
    )
    summary, claims = comparison("paul2015", out)
    text = "\n".join([f"# Paul et al. 2015 — {cfg['name']}", "", *summary])
    text += render_report(cfg, summ, fits, splits)
    notes = out / "REPORT_notes.md"  # hand-written discussion, appended verbatim
    if notes.exists():
        text += "\n" + notes.read_text()
    text += "\n" + claims + "\n\n" + "\n".join(analysis_section(out)) + "\n"
    (out / "REPORT.md").write_text(text)
    return out / "REPORT.md"


def _fmt(m: float, sd: float | None = None) -> str:
    if m != m:  # NaN
        return "–"
    return f"{m:.3f}" if sd is None or sd != sd else f"{m:.3f} ± {sd:.3f}"


def render_report(cfg: dict[str, Any], summ: pd.DataFrame, fits: pd.DataFrame, splits: pd.DataFrame) -> str:
    """Markdown tables: BCR per k and fit times per dataset (stability: the report's stability section);
    the text around them is in the config notes."""
    lines = ["## Generated tables", ""]
    if cfg.get("notes"):
        lines += [str(cfg["notes"]).strip(), ""]
    for ds, g in summ.groupby("dataset", sort=False):
        sp = splits[splits["dataset"] == ds]
        lines += [
            f"## {ds}: D = {int(sp['n_features'].iloc[0])}, {len(sp)} resamples, n_train = "
            f"{int(sp['n_train'].iloc[0])}, n_test = {int(sp['n_test'].iloc[0])}",
            "",
        ]
        ks = sorted(g["k"].unique())
        sels = list(dict.fromkeys(g["selector"]))
        lines += ["BCR (mean ± sd over resamples)", ""]
        lines += ["| selector | " + " | ".join(f"k={k}" for k in ks) + " |", "|---" * (len(ks) + 1) + "|"]
        for sel in sels:
            h = g[g["selector"] == sel].set_index("k")
            cells = [_fmt(h.loc[k, "mean"], h.loc[k, "std"]) if k in h.index else "" for k in ks]
            lines.append(f"| {sel} | " + " | ".join(cells) + " |")
        ft = fits[(fits["dataset"] == ds) & (fits["selector"] != "all")]
        ft = ft.groupby("selector", sort=False)["fit_wall_s"].mean()
        lines += [
            "",
            "Mean fit wall time (s, loaded machine): " + ", ".join(f"{k} {v:.2f}" for k, v in ft.items()),
        ]
        lines.append("")
    return "\n".join(lines) + "\n"
