"""The cross-dataset report's answers: does selection help (against all features), the leading selectors
by the Bayesian signed-rank test, accuracy against selection time, and the best method per dataset."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fsbench.results.bayes import MissingExtraError, bayes_comparisons
from fsbench.results.cost import accuracy_vs_time, plot_accuracy_vs_time, selection_time
from fsbench.results.crossdataset.common import ALPHA, Links, fig, frac, names_or_count, pct
from fsbench.results.fractions import (
    FractionComparison,
    baseline_errors,
    best_per_dataset,
    dataset_sizes,
)
from fsbench.results.helps import relative_error, vs_all_per_dataset, wins_ties_losses
from fsbench.results.loading import ResultSet
from fsbench.results.schema import BASELINE
from fsbench.results.tables import md_table, write_table


def helps_section(ctx: Links, table: pd.DataFrame, out: Path) -> list[str]:
    """Does selection help? Wins / ties / losses against the all-features SVM, and the error difference."""
    lines = ["## Does selection help?", ""]
    if BASELINE not in set(table["selector"]):
        return [*lines, "No all-features SVM to compare with.", ""]
    per = vs_all_per_dataset(table, baseline=BASELINE, alpha=ALPHA)
    if per.empty:
        return [*lines, "No selector shares splits with the all-features SVM.", ""]
    wtl = wins_ties_losses(per)
    rel = relative_error(per)
    write_table(
        per,
        out / "vs_all_per_dataset",
        "Every selector against all features, per dataset",
        per["rule"].iloc[0],
    )
    write_table(
        wtl, out / "wins_ties_losses", "Wins, ties and losses against all features", per["rule"].iloc[0]
    )
    write_table(
        rel,
        out / "difference_to_all",
        "Error difference to all features, pooled over the datasets",
        "error_selector - error_all per dataset (means over the splits both finished); quartiles over "
        "the datasets.",
    )
    fractions = sorted(per["fraction"].unique())
    sd = rel.groupby("fraction")["s_over_d"].mean()
    net = wtl.assign(net=wtl["wins"] - wtl["losses"]).groupby("selector")["net"].sum()
    order = net.sort_values(ascending=False, kind="stable").index
    w = wtl.set_index(["selector", "fraction"])
    r = rel.set_index(["selector", "fraction"])

    def counts(sel: str, f: float) -> str:
        if (sel, f) not in w.index:
            return ""
        x = w.loc[(sel, f)]
        return f"{x['wins']} / {x['ties']} / {x['losses']}"

    def quartiles(sel: str, f: float) -> str:
        if (sel, f) not in r.index:
            return ""
        x = r.loc[(sel, f)]
        return f"{100 * x['median']:+.1f} [{100 * x['q1']:+.1f}, {100 * x['q3']:+.1f}]"

    heads = [f"{frac(f)} (S/D ≈ {100 * sd[f]:.0f} %)" for f in fractions]
    n = int(per.groupby(["fraction", "selector"]).size().max())
    lines += [
        "Each selector's SVM at S against the SVM on all D features, dataset by dataset, at each fraction. "
        f"The rule: {per['rule'].iloc[0]} (Ramona et al. 2012 compare with t-tests at the 5 % level; one "
        "decision per dataset, not corrected; the splits overlap in their training sets, so the test is "
        "liberal, Nadeau & Bengio 2003). Wins / ties / losses over the "
        f"{n} datasets, selectors by wins − losses summed over the fractions; the headers give the realised "
        "S/D (mean over the datasets: on a small D the fraction's S rounds up to a larger share). Per "
        "dataset: "
        f"[`vs_all_per_dataset.csv`]({ctx.rel(out / 'vs_all_per_dataset.csv')}).",
        "",
        md_table(["selector", *heads], [[s, *(counts(s, f) for f in fractions)] for s in order]),
        "",
        "The error difference to all features, error(selector at S) − error(all features), in percentage "
        "points (negative: selection helps), per dataset on the splits both finished and pooled over the "
        "datasets: median [first quartile, third quartile]. A difference, not a ratio: the all-features "
        "error is near 0 on the easy datasets (iris, the Weston toys), where a ratio would dominate the "
        "quartiles. "
        f"Table: [`difference_to_all.csv`]({ctx.rel(out / 'difference_to_all.csv')}).",
        "",
        md_table(["selector", *heads], [[s, *(quartiles(s, f) for f in fractions)] for s in order]),
        "",
    ]
    return lines


#: The Bayesian signed-rank test, stated in advance: ROPE ±1 percentage point of error, prior strength 1,
#: the three best-ranked selectors of each fraction against each other and against all features.
ROPE = 0.01


N_LEADING = 3


DECIDE = 0.95


def bayes_section(ctx: Links, table: pd.DataFrame, out: Path) -> list[str]:
    """Bayesian signed-rank tests (Benavoli et al. 2017) among the leading selectors and against all."""
    lines = ["## The leading selectors, Bayesian signed-rank", ""]
    try:
        res = bayes_comparisons(table, n_leading=N_LEADING, rope=ROPE, decide=DECIDE, by="fraction")
    except MissingExtraError as e:
        return [*lines, f"Not computed: {e}.", ""]
    if res.empty:
        return [*lines, "Nothing to compare yet.", ""]
    write_table(
        res,
        out / "bayes_signed_rank",
        "Bayesian signed-rank tests among the leading selectors and against all features",
        f"ROPE = ±{ROPE:g} (error), prior strength {res['prior'].iloc[0]:g}, {res['nsamples'].iloc[0]:,} "
        f"posterior samples, seed {res['seed'].iloc[0]}; a decision where a region reaches {DECIDE:g}.",
    )
    rows = [
        [
            frac(r.fraction),
            f"{r.a} vs {r.b}",
            str(r.n_blocks),
            f"{100 * (r.mean_a - r.mean_b):+.2f}",
            f"{r.p_a_better:.2f}",
            f"{r.p_equivalent:.2f}",
            f"{r.p_b_better:.2f}",
            r.decision,
        ]
        for r in res.itertuples(index=False)
    ]
    lines += [
        f"Fixed in advance: at each fraction the {N_LEADING} selectors with the best "
        "average rank are compared with each other and each with the SVM on all features by the Bayesian "
        "signed-rank test over the datasets (Benavoli, Corani, Demšar & Zaffalon 2017; baycomp), with a "
        f"region of practical equivalence of ±{100 * ROPE:g} percentage point of error, a Dirichlet-process "
        f"prior of strength {res['prior'].iloc[0]:g} at 0 and {res['nsamples'].iloc[0]:,} posterior samples "
        f"(seed {res['seed'].iloc[0]}). P(a better), P(equivalent), P(b better): the shares of posterior "
        "samples in which each region is the most probable; a *decision* names the region whose probability "
        f"reaches {DECIDE:g}, otherwise *undecided*. Δ mean: a's mean error − b's over the datasets, in "
        "percentage points. Unlike the headline's tests, this says whether a difference is large enough to "
        f"matter, and can conclude equivalence. Table: [`bayes_signed_rank.csv`]"
        f"({ctx.rel(out / 'bayes_signed_rank.csv')}).",
        "",
        md_table(
            [
                "S / D",
                "a vs b",
                "datasets",
                "Δ mean (pp)",
                "P(a better)",
                "P(equivalent)",
                "P(b better)",
                "decision",
            ],
            rows,
        ),
        "",
    ]
    return lines


def cost_section(ctx: Links, sets: list[ResultSet], ranks: pd.DataFrame, out: Path) -> list[str]:
    """Accuracy (mean rank, mean error) against median selection time, with the Pareto front."""
    lines = ["## Accuracy against selection time", ""]
    times = selection_time(sets)
    if ranks.empty or times.empty:
        return [*lines, "Nothing to compare yet.", ""]
    by_rank = accuracy_vs_time(ranks, times, "average_rank")
    by_err = accuracy_vs_time(ranks, times, "mean_error").set_index("selector")
    table = by_rank.merge(times, on=["selector", "median_fit_cpu_s"], how="left")
    table["mean_error"] = table["selector"].map(by_err["mean_error"])
    table["pareto_error"] = table["selector"].map(by_err["pareto"])
    table = table.rename(columns={"pareto": "pareto_rank"})
    write_table(
        table,
        out / "accuracy_vs_time",
        "Accuracy against selection time",
        "average_rank and mean_error: means over the fractions of D; median_fit_cpu_s over every task.",
    )
    png = plot_accuracy_vs_time(
        by_rank, out / "accuracy_vs_time", "average_rank", "mean rank over the datasets and fractions of D"
    )[0]
    rows = [
        [
            r.selector,
            f"{r.average_rank:.2f}",
            pct(r.mean_error),
            f"{r.median_fit_cpu_s:.3g}",
            f"{r.total_fit_cpu_h:.3g}",
            "yes" if r.pareto_rank else "",
            "yes" if r.pareto_error else "",
        ]
        for r in table.itertuples(index=False)
    ]
    lines += [
        "One point per selector: its mean rank over the datasets, averaged over the fractions of D (y), "
        "against the median CPU time of one selection (the selector's fit, not the SVM; every dataset and "
        "split counts once) (x, log scale). On the Pareto front (red): no other selector is both at least as "
        "fast and at least as accurate. The table gives the same with the mean test error in place of the "
        "rank.",
        "",
        *fig(ctx, png, "accuracy against selection time"),
        md_table(
            [
                "selector",
                "mean rank",
                "mean error %",
                "median fit CPU s",
                "total fit CPU h",
                "Pareto (rank)",
                "Pareto (error)",
            ],
            rows,
        ),
        "",
        *measured_cost(sets),
    ]
    return lines


def measured_cost(sets: list[ResultSet]) -> list[str]:
    """What the run cost, from the rows: tasks and fit CPU hours per dataset and in all (each task once).

    Only the selection's CPU time is recorded per task (``fit_cpu_s``); the SVMs' training and testing at
    the five S are not, so the run's CPU hours are larger than this total (its wall time is in *Runs*).
    """
    frames = [rs.results for rs in sets if rs.results is not None and "fit_cpu_s" in rs.results.columns]
    if not frames:
        return []
    df = pd.concat(frames, ignore_index=True).drop_duplicates(["source", "task_id"])
    df["fit_cpu_s"] = pd.to_numeric(df["fit_cpu_s"], errors="coerce")
    cost = df.groupby(["dataset", "selector"])["fit_cpu_s"].sum()
    g = df.groupby("dataset")
    per = pd.DataFrame(
        {
            "tasks": g.size(),
            "failed": g["status"].agg(lambda s: int((s != "ok").sum())),
            "fit_cpu_h": g["fit_cpu_s"].sum() / 3600.0,
            "costliest": cost.groupby(level="dataset").idxmax().map(lambda k: k[1]),
        }
    ).sort_values("fit_cpu_h", ascending=False)
    rows = [
        [str(ds), str(r.tasks), str(r.failed), f"{r.fit_cpu_h:.3g}", str(r.costliest)]
        for ds, r in per.iterrows()
    ]
    return [
        "### What the run cost",
        "",
        f"{int(per['tasks'].sum())} tasks ({int(per['failed'].sum())} failed), "
        f"**{per['fit_cpu_h'].sum():.2f} CPU hours of selection** (the selectors' fits; the SVMs' training "
        "and testing are not timed per task, so the run took more: its wall time is under *Runs*). Per "
        "dataset, with the selector that cost the most there:",
        "",
        md_table(["dataset", "tasks", "failed", "fit CPU h", "costliest selector"], rows),
        "",
    ]


def best_section(ctx: Links, sets: list[ResultSet], fcs: list[FractionComparison], out: Path) -> list[str]:
    """The lowest-error selector of every dataset at each fraction (no "overall" best: picking the lowest
    test error over the fractions would choose S on the test data)."""
    lines = ["## Best method per dataset", ""]
    best = best_per_dataset(fcs)
    if best.empty:
        return [*lines, "Nothing to compare yet.", ""]
    best = best.drop(columns="overall", errors="ignore")
    write_table(best, out / "best_per_dataset", "Best method per dataset", "")
    sizes = dataset_sizes(sets)
    base = baseline_errors(sets, fcs)  # on the splits the best's mean is over
    fractions = sorted(best["fraction"].unique())
    rows = []
    for (src, ds), g in best.groupby(["source", "dataset"], sort=True):
        g = g.set_index("fraction")
        cells = [
            f"{names_or_count(g.loc[f, 'best'])} ({pct(g.loc[f, 'best_error'])}, S = {int(g.loc[f, 'S'])})"
            if f in g.index
            else ""
            for f in fractions
        ]
        rows.append([ds, str(sizes.get((src, ds), "?")), *cells, pct(base.get((src, ds), float("nan")))])
    lines += [
        "The rule: at each fraction, the selector(s) with the lowest mean test error (%) over the splits "
        "that every compared selector finished (equal means are all named, or counted where more than four "
        "tie). There is no best over the fractions: the lowest test error over them would choose S on the "
        "test data, an optimistic figure (choosing S needs a validation split inside the training data). "
        "*All features*: the SVM on all D "
        "features (mean over the same repeats). Table: "
        f"[`best_per_dataset.csv`]({ctx.rel(out / 'best_per_dataset.csv')}).",
        "",
        md_table(
            ["dataset", "D", *(f"{frac(f)} of D" for f in fractions), "all features"],
            rows,
        ),
        "",
    ]
    return lines
