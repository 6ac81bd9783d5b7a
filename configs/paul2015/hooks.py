"""Report hooks of Paul, D'Ambrosio & Dupont 2015 (clinical kernel, RFE on mixed-type data).

Loaded by file path by ``fsbench report RESULTS --paper configs/paul2015`` (see
:mod:`fsbench.papers.folder`). The experiment is ``clinical_bcr.yaml``; from its ``results.csv`` and
``rankings.csv`` :func:`sections` writes, into the results directory,

* ``summary.csv``: mean/std of the balanced classification rate (BCR = 1 − balanced error) per dataset,
  selector and k (= S);
* ``stability.csv``: the Kuncheva (2007) consistency index of the top-k sets, averaged over all pairs of
  resamples, for k < D (:mod:`fsbench.results.stability`; the report's stability section also gives
  Nogueira et al.'s estimator);
* ``plots/bcr_vs_k.png`` and ``plots/kuncheva_vs_k.png``;

and returns the "Generated tables" section: BCR per k and mean fit times per dataset.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fsbench.papers.figures import plot_vs_k
from fsbench.papers.folder import ReportContext
from fsbench.results.loading import Results, ResultSet
from fsbench.results.stability import stability_table
from fsbench.results.tables import md_table

#: The run directory of the experiment, under the results directory.
RUN = "clinical_bcr"


def _run_set(results: Results, run_dir: Path) -> list[ResultSet]:
    """The experiment's directory as a result set (empty if it is not among the results)."""
    return [s for s in results.sets if s.path == run_dir.resolve()]


def collect(results: Results, run_dir: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(BCR rows, fits: one row per task, splits: one row per dataset × resample)."""
    res = results.results(run_dir)
    res = res[res["status"] == "ok"].copy()
    res["bcr"] = 1.0 - res["balanced_error"]
    res["k"] = res["n_features"]
    sets = _run_set(results, run_dir)
    D = sets[0].n_features if sets else {}  # from the length of the rankings' order
    fits = res.drop_duplicates("task_id")[["task_id", "dataset", "repeat", "selector", "fit_wall_s"]]
    fits["n_features"] = fits["dataset"].map(D)
    splits = res.drop_duplicates(["dataset", "repeat"])[["dataset", "repeat", "n_train", "n_test"]].copy()
    splits["n_features"] = splits["dataset"].map(D)
    return res, fits, splits


def stability(results: Results, run_dir: Path) -> pd.DataFrame:
    """Kuncheva index per dataset × selector × k < D over the resamples, from ``rankings.csv``
    (:func:`fsbench.results.stability.stability_table`; the all-features baseline is skipped)."""
    t = stability_table(_run_set(results, run_dir))
    t = t[t["n_features"] < t["d"]].rename(columns={"n_features": "k", "repeats": "n_resamples"})
    return t[["dataset", "selector", "k", "kuncheva", "n_resamples"]].reset_index(drop=True)


def _fmt(m: float, sd: float | None = None) -> str:
    if m != m:  # NaN
        return "–"
    return f"{m:.3f}" if sd is None or sd != sd else f"{m:.3f} ± {sd:.3f}"


def generated_tables(notes: str, summ: pd.DataFrame, fits: pd.DataFrame, splits: pd.DataFrame) -> list[str]:
    """Markdown lines: BCR per k and fit times per dataset (the text around them: the config notes)."""
    lines = ["## Generated tables", ""]
    if notes:
        lines += [notes.strip(), ""]
    for ds, g in summ.groupby("dataset", sort=False):
        sp = splits[splits["dataset"] == ds]
        lines += [
            f"## {ds}: D = {int(sp['n_features'].iloc[0])}, {len(sp)} resamples, n_train = "
            f"{int(sp['n_train'].iloc[0])}, n_test = {int(sp['n_test'].iloc[0])}",
            "",
        ]
        ks = sorted(g["k"].unique())
        rows = []
        for sel in dict.fromkeys(g["selector"]):
            h = g[g["selector"] == sel].set_index("k")
            rows.append([sel, *(_fmt(h.loc[k, "mean"], h.loc[k, "std"]) if k in h.index else "" for k in ks)])
        lines += ["BCR (mean ± sd over resamples)", ""]
        lines += md_table(["selector", *(f"k={k}" for k in ks)], rows).splitlines()
        ft = fits[(fits["dataset"] == ds) & (fits["selector"] != "all")]
        ft = ft.groupby("selector", sort=False)["fit_wall_s"].mean()
        lines += [
            "",
            "Mean fit wall time (s, loaded machine): " + ", ".join(f"{k} {v:.2f}" for k, v in ft.items()),
            "",
        ]
    return lines


def sections(ctx: ReportContext) -> list[str]:
    """Write summary.csv, stability.csv and the plots into the results directory; return the
    "Generated tables" section."""
    run_dir, out = ctx.results_dir / RUN, ctx.results_dir
    res, fits, splits = collect(ctx.results, run_dir)
    if res.empty:
        raise FileNotFoundError(f"no finished tasks in {run_dir / 'results.csv'}")
    summ = (
        res.groupby(["dataset", "selector", "k"], sort=False)["bcr"]
        .agg(["mean", "std", "count"])
        .reset_index()
    )
    summ.to_csv(out / "summary.csv", index=False)
    stab = stability(ctx.results, run_dir)
    stab.to_csv(out / "stability.csv", index=False)
    plot_vs_k(summ, "BCR (test)", out / "plots" / "bcr_vs_k.png", ref=summ)
    plot_vs_k(
        stab.rename(columns={"kuncheva": "mean"}), "Kuncheva index", out / "plots" / "kuncheva_vs_k.png"
    )
    notes = str(ctx.results.run(run_dir).get("effective_config", {}).get("notes", "") or "")
    return generated_tables(notes, summ, fits, splits)
