r"""Subset searches on a report: which subset was chosen, accuracy / time / evaluations against d, the data.

Producers for runs of subset searches (branch and bound, exhaustive wrappers: selectors fitted once per
d = S, whose protocol rows carry the chosen ``subset``, ``n_evaluations`` and ``criterion_value``):

* ``subset_choice`` (:func:`subset_choice`): per criterion, how often each named subset was chosen, the
  mean criterion value and test accuracy of the chosen subset;
* ``subset_search`` (:func:`subset_search`): per dataset, d and method, accuracy, wall time, criterion
  evaluations beside C(D, d), the all-features baseline, the speed-up of every search over a reference
  (geometric mean of the wall-time ratios) and the figures against d;
* ``data_scatter`` (:func:`data_scatter`): a dataset card's samples in pairs of its features;
* ``markdown`` and ``figures`` (:func:`markdown`, :func:`figures`): fixed lines, and links to figures that
  exist, where a declared section needs them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fsbench.data import open_dataset
from fsbench.results.loading import Results
from fsbench.results.producers.registry import ProducerContext, register, run_dir
from fsbench.results.table_files import has_table
from fsbench.results.tables import figure_metadata, md_table

#: The label of the all-features baseline in a run (not a search: it sits at S = D).
BASELINE = "all"


def ok_rows(results: Results, path: Path) -> pd.DataFrame:
    """The finished rows of a run, ``subset`` as text ("0 1"; empty for the baseline)."""
    df = results.results(path)
    df["subset"] = df["subset"].fillna("")
    return df[df["status"] == "ok"].copy()


def choice_summary(rows: pd.DataFrame, subsets: Sequence[Mapping[str, str]]) -> pd.DataFrame:
    """Per criterion: draws, how often each named subset (``name``, ``features`` as "0 1") was chosen, mean
    criterion value of the chosen subset, test accuracy on it, criterion evaluations."""
    picks = {f"picks_{s['name']}": rows["subset"] == str(s["features"]) for s in subsets}
    rows = rows.assign(**picks, accuracy=1.0 - rows["error"])
    agg: dict[str, Any] = {"draws": ("repeat", "size")}
    agg.update({k: (k, "sum") for k in picks})
    agg.update(
        J_chosen=("criterion_value", "mean"), acc_chosen=("accuracy", "mean"), evals=("n_evaluations", "mean")
    )
    return rows.groupby("selector", sort=False).agg(**agg).reset_index()


def search_summary(rows: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, d and method: splits, test accuracy (mean, sd), wall time, evaluations, C(D, d); the
    all-features baseline as one row per dataset (d = D)."""
    rows = rows.assign(accuracy=1.0 - rows["error"], d=rows["n_features"])
    sel = rows[rows["selector"] != BASELINE]
    D = {ds: _n_features(g) for ds, g in rows.groupby("dataset")}
    out = (
        sel.groupby(["dataset", "d", "selector"], sort=False)
        .agg(
            splits=("repeat", "size"),
            accuracy=("accuracy", "mean"),
            accuracy_sd=("accuracy", "std"),
            wall_s=("fit_wall_s", "mean"),
            n_evaluations=("n_evaluations", "mean"),
        )
        .reset_index()
    )
    out.insert(1, "D", out["dataset"].map(D))
    out["n_subsets"] = [comb(int(a), int(b)) for a, b in zip(out["D"], out["d"])]
    ref = rows[rows["selector"] == BASELINE].groupby("dataset")["accuracy"].agg(["mean", "std", "size"])
    base = [
        {
            "dataset": ds,
            "D": D[ds],
            "d": D[ds],
            "selector": "all features",
            "splits": int(r["size"]),
            "accuracy": r["mean"],
            "accuracy_sd": r["std"],
            "wall_s": 0.0,
            "n_evaluations": 0.0,
            "n_subsets": 1,
        }
        for ds, r in ref.iterrows()
    ]
    return pd.concat([out, pd.DataFrame(base)], ignore_index=True)


def _n_features(g: pd.DataFrame) -> int:
    is_base = g["selector"] == BASELINE
    return int(g.loc[is_base, "n_features"].max()) if is_base.any() else 0


def speedups(rows: pd.DataFrame, reference: str) -> dict[str, float]:
    """Geometric mean over (dataset, d, split) of ``reference``'s wall time over each other search's."""
    sel = rows[rows["selector"] != BASELINE]  # the baseline is not a search
    w = sel.pivot_table(index=["dataset", "n_features", "repeat"], columns="selector", values="fit_wall_s")
    if reference not in w:
        return {}
    return {
        c: float(np.exp(np.mean(np.log(w[reference] / w[c]))))
        for c in w.columns
        if c != reference and (w[c] > 0).all()
    }


def _notes(ctx: ProducerContext, path: Path) -> list[str]:
    return [str(ctx.results.run(path)["effective_config"].get("notes", "")).strip(), ""]


@register("markdown")
def markdown(ctx: ProducerContext, *, text: str) -> list[str]:
    """``text`` as it is, then an empty line."""
    return [text.rstrip("\n"), ""]


@register("figures")
def figures(ctx: ProducerContext, *, links: list[dict[str, str]]) -> list[str]:
    """An image link per ``{alt, path}`` (``path`` under the results directory) whose file exists."""
    lines: list[str] = []
    for link in links:
        p = Path(ctx.results_dir) / link["path"]
        if p.is_file():
            lines += [f"![{link['alt']}]({ctx.rel(p)})", ""]
    return lines


@register("subset_choice")
def subset_choice(
    ctx: ProducerContext,
    *,
    run: str,
    subsets: list[dict[str, str]],
    heading: str,
    text: str = "",
    out: str = "subset_choice.csv",
    method_label: str = "method",
) -> list[str]:
    """The run config's notes, then per method how often each named subset was chosen (``out``, a CSV
    under the results directory, and its table); nothing where the run has no table.

    Parameters
    ----------
    subsets : list of mapping
        ``name`` (the CSV column ``picks_<name>``), ``features`` (0-based, "0 1") and ``label`` (the table's).
    """
    path = run_dir(ctx, run)
    if not has_table(path):
        return []
    fs = choice_summary(ok_rows(ctx.results, path), subsets)
    fs.to_csv(Path(ctx.results_dir) / out, index=False, float_format="%.6g")
    rows = [
        [
            r["selector"],
            r["draws"],
            *(int(r[f"picks_{s['name']}"]) for s in subsets),
            f"{r['J_chosen']:.4g}",
            f"{100 * r['acc_chosen']:.1f}",
            f"{r['evals']:.1f}",
        ]
        for r in fs.to_dict("records")
    ]
    head = [method_label, "draws", *(f"picks {s['label']}" for s in subsets)]
    table = md_table([*head, "mean J(chosen)", "acc. (%)", "evaluations"], rows)
    return [*_notes(ctx, path), heading, "", *([text, ""] if text else []), table]


@register("subset_search")
def subset_search(
    ctx: ProducerContext,
    *,
    run: str,
    heading: str,
    reference: str = "",
    speedup_text: str = "",
    out: str = "subset_search.csv",
    figure_dir: str = "plots",
) -> list[str]:
    """The run config's notes, the per-d table (``out`` under the results directory), the speed-ups over
    ``reference`` and, in ``figure_dir``, ``<run>_accuracy.png`` and ``<run>_runtime.png`` (accuracy ± sd and
    wall time against d, one panel per dataset; linked by a ``figures`` producer where the page wants them).
    """
    path = run_dir(ctx, run)
    if not has_table(path):
        return []
    rows = ok_rows(ctx.results, path)
    s = search_summary(rows)
    s.to_csv(Path(ctx.results_dir) / out, index=False, float_format="%.6g")
    table = []
    for r in s.to_dict("records"):
        sd = "" if r["accuracy_sd"] != r["accuracy_sd"] else f" ± {100 * r['accuracy_sd']:.1f}"
        table.append(
            [
                r["dataset"],
                r["D"],
                r["d"],
                r["selector"],
                r["splits"],
                f"{100 * r['accuracy']:.1f}{sd}",
                f"{r['wall_s']:.2f}",
                f"{r['n_evaluations']:.0f}",
                r["n_subsets"],
            ]
        )
    head = ["dataset", "D", "d", "method", "splits", "test acc. (%)", "wall s", "evaluations", "C(D,d)"]
    lines = [*_notes(ctx, path), heading, "", md_table(head, table)]
    sp = speedups(rows, reference) if reference else {}
    if sp:
        lines += [speedup_text, ""] + [f"- {k}: {v:.1f}×" for k, v in sp.items()] + [""]
    plot_search(s, Path(ctx.results_dir) / figure_dir, run)
    return lines


def plot_search(s: pd.DataFrame, out: Path, run: str) -> list[Path]:
    """Accuracy (± sd) and wall time (log) against d per method, one panel per dataset."""
    import matplotlib  # noqa: I001  (kept out of start-up until a figure is drawn)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    m = s[s["selector"] != "all features"]
    written = []
    for value, fname, ylab in [
        ("accuracy", f"{run}_accuracy.png", "test accuracy (%)"),
        ("wall_s", f"{run}_runtime.png", "selection wall time (s)"),
    ]:
        names = list(dict.fromkeys(m["dataset"]))
        fig, axes = plt.subplots(1, len(names), figsize=(2.6 * len(names), 3.4), squeeze=False)
        for a, name in zip(axes[0], names):
            g = m[m["dataset"] == name]
            for meth, h in g.groupby("selector", sort=False):
                v = 100 * h[value] if value == "accuracy" else h[value]
                (line,) = a.plot(h["d"], v, marker="o", ms=4, label=meth)
                if value == "accuracy" and h["accuracy_sd"].notna().any():  # ±1 sd over the splits
                    sd = 100 * h["accuracy_sd"]
                    a.fill_between(h["d"], v - sd, v + sd, color=line.get_color(), alpha=0.1)
            a.set_title(name, fontsize=9)
            a.set_xlabel("d")
            a.set_xticks(sorted(g["d"].unique()))  # d is an integer
            if value == "wall_s":
                a.set_yscale("log")
        axes[0][0].set_ylabel(ylab)
        handles, labels = axes[0][-1].get_legend_handles_labels()
        fig.legend(
            handles, labels, fontsize=7, loc="lower center", ncol=len(labels), bbox_to_anchor=(0.5, -0.02)
        )
        fig.tight_layout(rect=(0, 0.08, 1, 1))
        fig.savefig(out / fname, dpi=110, metadata=figure_metadata(Path(fname)))
        plt.close(fig)
        written.append(out / fname)
    return written


@register("data_scatter")
def data_scatter(
    ctx: ProducerContext,
    *,
    dataset: str,
    pairs: list[list[int]],
    path: str,
    alt: str,
    title: str = "",
    n: int = 300,
    seed: int = 0,
    seed_from: str = "",
) -> list[str]:
    """``n`` samples of the dataset card ``dataset`` drawn with ``seed`` (the config seed of the run
    ``seed_from`` where it has a table), one panel per pair of (0-based) features; written to ``path``
    under the results directory and linked."""
    import matplotlib  # noqa: I001  (kept out of start-up until a figure is drawn)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    src = run_dir(ctx, seed_from) if seed_from else None
    if src is not None and has_table(src):
        seed = int(ctx.results.run(src)["effective_config"].get("seed", seed))
    X, y = open_dataset(dataset).sample(int(n), np.random.default_rng(int(seed)))
    fig, ax = plt.subplots(1, len(pairs), figsize=(4 * len(pairs), 3.8), squeeze=False)
    for a, (i, j) in zip(ax[0], pairs):
        for c, m in zip(np.unique(y), "os^vD"):
            a.scatter(X[y == c, i], X[y == c, j], s=10, marker=m, alpha=0.6, label=f"class {int(c):+d}")
        a.set_xlabel(f"x{i + 1}")
        a.set_ylabel(f"x{j + 1}")
    ax[0][0].legend(fontsize=8)
    fig.suptitle(title or dataset)
    fig.tight_layout()
    target = Path(ctx.results_dir) / path
    target.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(target, dpi=110, metadata=figure_metadata(Path(target.name)))
    plt.close(fig)
    return [f"![{alt}]({ctx.rel(target)})", ""]
