"""Report hooks of the benchmark (``configs/benchmark/``): the analyses across datasets.

Loaded by file path by ``fsbench build`` (a configs folder without paper values: not compared with a
paper, :meth:`fsbench.papers.folder.PaperFolder.plain`). The benchmark is data: every number below comes
from generic analyses of :mod:`fsbench.results` (the same ones ``fsbench compare`` uses), called on the
result directories under the results folder:

* the headline: every selector against the best-ranked one, Holm over the k − 1 comparisons with it
  (:mod:`fsbench.results.posthoc`), with bootstrap intervals of the average ranks;
* what was run: the rankers and datasets counted from the rows, the selectors the run left out, the S of
  each fraction per dataset;
* CD diagrams over the datasets at each fraction of D, tests over all pairs
  (:mod:`fsbench.results.fractions`);
* does selection help: wins / ties / losses against the all-features SVM and the error difference to it
  (:mod:`fsbench.results.helps`); the leading selectors by the Bayesian signed-rank test
  (:mod:`fsbench.results.bayes`);
* accuracy against selection time with the Pareto front (:mod:`fsbench.results.cost`);
* the best method per dataset (:func:`fsbench.results.fractions.best_per_dataset`);
* stability (Nogueira; :mod:`fsbench.results.stability`), ground truth on the toys
  (:mod:`fsbench.results.ground_truth`), similarity of the rankings (:mod:`fsbench.results.similarity`).

Everything is written under ``<results>/analysis/`` and linked from REPORT.md.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fsbench.papers.folder import ReportContext
from fsbench.results.bayes import MissingExtraError, bayes_comparisons
from fsbench.results.cost import TIME, accuracy_vs_time, plot_accuracy_vs_time, selection_time
from fsbench.results.fractions import (
    FractionComparison,
    at_fractions,
    baseline_errors,
    best_per_dataset,
    compare_at_fractions,
    complete_selectors,
    dataset_sizes,
    fraction_grid,
    rank_table,
)
from fsbench.results.ground_truth import ground_truth_tables, write_recovery_tables
from fsbench.results.helps import relative_error, vs_all_per_dataset, wins_ties_losses
from fsbench.results.loading import ResultSet
from fsbench.results.pairing import fraction_rows
from fsbench.results.pooling import pool_result_sets
from fsbench.results.posthoc import control_comparisons, not_worse_sets, order_agreement, rank_bootstrap
from fsbench.results.schema import BASELINE
from fsbench.results.similarity import cluster_order, plot_similarity, ranking_similarity
from fsbench.results.stability import stability_table
from fsbench.results.stats_compare import plot_cd_diagram
from fsbench.results.tables import md_table, save_figure, write_table
from fsbench.results.tracks import (
    EVALUATOR,
    evaluator_comparisons,
    evaluator_table,
    grid,
    group_by_track,
    group_column,
    rank_cost_front,
    recommendations,
    s_scheme,
)

#: The page's title and sections (no paper values: the layout lives here, fsbench.papers.folder).
REPORT = {
    "title": "Benchmark — feature selectors across the papers' datasets",
    "sections": ["notes", "hooks", "runs"],
}
#: Where the analyses' tables and figures go, under the results folder.
OUT = "analysis"
ALPHA = 0.05


def _pct(x: float) -> str:
    return "–" if x != x else f"{100 * x:.1f}"


def _frac(f: float) -> str:
    return f"{100 * f:g} %"


def _names(joined: str, most: int = 4) -> str:
    """Tied winners as named, or their count where more than ``most`` tie (a small D: S = 1 or 2)."""
    names = joined.split(", ")
    return joined if len(names) <= most else f"{len(names)} selectors tie"


def _fig(ctx: ReportContext, png: Path, alt: str) -> list[str]:
    return [f"![{alt}]({ctx.rel(png)})", ""]


# ------------------------------------------------------------------------------------------ sections
def long_table(sets: list[ResultSet], fractions: list[float], selectors: list[str] | None) -> pd.DataFrame:
    """The rows at every fraction of D as one long table (:func:`fsbench.results.pairing.fraction_rows`),
    the all-features SVM repeated at each fraction; only ``selectors`` (and the baseline) when given."""
    table = fraction_rows(pd.concat([rs.results for rs in sets], ignore_index=True), fractions)
    if selectors is not None:
        table = table[table["selector"].isin([*selectors, BASELINE])]
    return table.reset_index(drop=True)


def headline(
    ctx: ReportContext, fcs: list[FractionComparison], table: pd.DataFrame, out: Path
) -> tuple[list[str], pd.DataFrame]:
    """Which selectors are not significantly worse than the best-ranked one (the control), at each fraction.

    Wilcoxon signed-rank against the control with Holm over the k − 1 comparisons with it (Demšar 2006;
    García & Herrera 2008), the rank z-test beside it; returns the lines and the comparisons.
    """
    lines = ["## Headline", ""]
    ranked = table[table["selector"] != BASELINE]
    if ranked.empty or ranked["selector"].nunique() < 2:
        return [*lines, "No fraction of D has two selectors on two datasets to compare yet.", ""], ranked
    res = control_comparisons(ranked, by="fraction", alpha=ALPHA)
    wil = not_worse_sets(res, by="fraction").set_index("fraction")
    zed = not_worse_sets(res, by="fraction", column="z_not_worse").set_index("fraction")
    write_table(
        res,
        out / "control_comparisons",
        "Every selector against the best-ranked one (the control), at each fraction of D",
        "Wilcoxon signed-rank on the datasets' mean errors and the rank z-test; each family of k - 1 "
        f"p-values Holm-adjusted (alpha = {ALPHA}); the control's row has no test.",
    )
    p_ff = {fc.fraction: fc.comparison.friedman.p_ff for fc in fcs if fc.comparison is not None}
    rows = []
    for f, r in wil.iterrows():
        rows.append(
            [
                _frac(f),
                str(r["n_blocks"]),
                str(r["k"]),
                r["control"],
                f"{r['n_not_worse']}: {r['not_worse']}",
                r["worse"] or "none",
                zed.loc[f, "worse"] or "none",
                f"{p_ff[f]:.3g}" if f in p_ff else "–",
            ]
        )
    k = int(wil["k"].max())
    lines += [
        "At each fraction of D the selectors are ranked on every dataset (1 = lowest mean test error over "
        "the splits all of them finished); the one with the best average rank over the datasets is the "
        "*control*. Every other selector is compared with the control alone: a two-sided Wilcoxon "
        "signed-rank test on the datasets' paired mean errors, and the k − 1 p-values of a fraction "
        f"Holm-adjusted together (alpha = {ALPHA}). The correction is for the k − 1 = {k - 1} comparisons "
        "with the control, not for every pair: the question is only which selectors are worse than the best "
        "(Demšar 2006, §3.2.2; García & Herrera 2008). *Not significantly worse* includes the control. The "
        "rank z-test against the control, z = (R_i − R_c) / √(k(k + 1)/(6N)), with the same Holm correction, "
        "is given beside it for reference; it uses only the average ranks. Every comparison, with "
        f"p-values: [`control_comparisons.csv`]({ctx.rel(out / 'control_comparisons.csv')}). The tests over "
        "all pairs (Nemenyi, Holm over every pair) answer another question and are used only for the CD "
        "diagrams below.",
        "",
        md_table(
            [
                "S / D",
                "datasets",
                "k",
                "control (best average rank)",
                "not significantly worse (Wilcoxon, Holm over k − 1)",
                "significantly worse (Wilcoxon, Holm over k − 1)",
                "significantly worse (rank z-test, Holm over k − 1)",
                "p (Iman–Davenport)",
            ],
            rows,
        ),
        "",
    ]
    skipped = [fc for fc in fcs if fc.comparison is None]
    lines += [f"- {_frac(fc.fraction)}: no comparison — {fc.reason}" for fc in skipped]
    return ([*lines, ""] if skipped else lines), res


#: Bootstrap of the average ranks: B resamples of the datasets, seeded (stated in the report).
N_BOOT = 2000
BOOT_SEED = 0
LEVEL = 0.95


def bootstrap_section(ctx: ReportContext, table: pd.DataFrame, out: Path) -> list[str]:
    """Percentile bootstrap intervals of every selector's average rank per fraction, resampling datasets."""
    ranked = table[table["selector"] != BASELINE]
    boot = rank_bootstrap(ranked, by="fraction", n_boot=N_BOOT, level=LEVEL, seed=BOOT_SEED)
    write_table(
        boot,
        out / "rank_bootstrap",
        "Bootstrap intervals of the average ranks at each fraction of D",
        f"Datasets resampled with replacement, B = {N_BOOT}, seed {BOOT_SEED}; percentile intervals "
        f"({100 * LEVEL:g} %); share_best: share of resamples in which the selector ranks best on average.",
    )
    fractions = sorted(boot["fraction"].unique())
    cell = {
        (r.selector, r.fraction): f"{r.average_rank:.1f} [{r.ci_low:.1f}, {r.ci_high:.1f}]"
        for r in boot.itertuples(index=False)
    }
    order = boot.groupby("selector")["average_rank"].mean().sort_values(kind="stable").index
    rows = [[sel, *(cell.get((sel, f), "") for f in fractions)] for sel in order]
    top = []
    for f in fractions:
        g = boot[boot["fraction"] == f].sort_values("share_best", ascending=False, kind="stable")
        top.append(f"{g['selector'].iloc[0]} ({100 * g['share_best'].iloc[0]:.0f} %)")
    rows.append(["*best most often*", *top])
    n = int(boot["n_blocks"].max())
    return [
        "### How much the order owes to the datasets chosen",
        "",
        f"Each selector's average rank with its {100 * LEVEL:g} % percentile bootstrap interval: the "
        f"{n} datasets drawn {n} times with replacement, B = {N_BOOT} times (seed {BOOT_SEED}), the "
        "selectors ranked within each drawn dataset as above and averaged (Efron & Tibshirani 1993). The "
        "intervals say how far the order would move on another draw of datasets like these, not how the "
        "splits vary. Last row: the selector with the best average rank in the most resamples. Table: "
        f"[`rank_bootstrap.csv`]({ctx.rel(out / 'rank_bootstrap.csv')}).",
        "",
        md_table(["selector", *(f"{_frac(f)} of D" for f in fractions)], rows),
        "",
    ]


def run_section(parts: list[ResultSet], table: pd.DataFrame) -> list[str]:
    """What was run, counted from the rows: selectors, datasets, repeats, tasks; the selectors left out of the
    run (``run.json``'s ``excluded_selectors``) and why; the S each fraction resolves to on every dataset."""
    lines = ["## What was run", ""]
    rows = pd.concat([rs.results for rs in parts], ignore_index=True)
    baseline = set().union(*(rs.baseline_labels for rs in parts))
    selectors = sorted(set(rows["selector"].astype(str)))
    rankers = [s for s in selectors if s not in baseline]
    datasets = sorted(set(rows["dataset"].astype(str)))
    repeats = rows["repeat"].nunique()
    tasks = rows.drop_duplicates(["source", "task_id"]) if "task_id" in rows.columns else rows
    excluded = sorted({str(s) for rs in parts for s in ((rs.run or {}).get("excluded_selectors") or [])})
    lines += [
        f"**{len(rankers)} rankers** ({', '.join(rankers)}; random_ranking is the chance reference) and "
        f"the SVM on all features, on **{len(datasets)} datasets** × {repeats} repeats: {len(tasks):,} "
        "tasks, counted from the result rows. The all-features SVM is the reference of *Does selection "
        "help?*, not a ranked selector.",
        "",
    ]
    if excluded:
        lines += [
            f"Defined in the config but **left out of this run: {', '.join(excluded)}** "
            f"({len(excluded)} selector{'s' * (len(excluded) != 1)}, `--exclude-selector`; in `run.json`). "
            "The reason is their "
            "cost: they are the config's slow selectors, and the run was planned at about 3 hours wall on "
            "two cores with them left out (the notes' *Cost*). They are in none of the tables below; a later "
            "run without the exclusion resumes the stored tasks and adds them (the config hash does not "
            "change).",
            "",
        ]
    s_of = table[table["selector"] != BASELINE].groupby(["dataset", "fraction"])["S"].first().unstack()
    d_of = table.groupby("dataset")["D"].first()
    s_of = s_of.loc[d_of.loc[s_of.index].sort_values(kind="stable").index]
    ones = (s_of == 1).sum()
    body = [
        [str(ds), str(d_of[ds]), *("" if s != s else ("**1** ⚑" if s == 1 else str(int(s))) for s in r)]
        for ds, r in s_of.iterrows()
    ]
    body.append(["*datasets with S = 1*", "", *(str(int(ones[f])) for f in s_of.columns)])
    lines += [
        "### The S of each fraction, per dataset",
        "",
        "S = max(1, round(f·D)), rounded half up, as the run sets it. ⚑ = S = 1: a single feature, where "
        "every selector that ranks the same feature first gives the same SVM and the same error, so many "
        "selectors tie in that block's ranks (and a block may recur at several fractions with the same S). "
        "Last row: how many of the blocks of each fraction have S = 1.",
        "",
        md_table(["dataset", "D", *(f"{_frac(f)} of D" for f in s_of.columns)], body),
        "",
    ]
    return lines


def cd_section(
    ctx: ReportContext, fcs: list[FractionComparison], ranks: pd.DataFrame, control: pd.DataFrame, out: Path
) -> list[str]:
    """Average ranks per fraction (table) and the two CD diagrams of each fraction (tests over all pairs)."""
    lines = [
        "## Critical-difference diagrams over the datasets, at each fraction of D",
        "",
        "Each dataset is one block: the selectors' mean test errors over the splits all of them finished, at "
        "the S that the fraction resolves to on that dataset (S = max(1, round(f·D)), as in the run). Rank 1 "
        "= lowest error; equal means share the rank. The diagrams answer a question other than the "
        "headline's: which *pairs* of selectors differ. Their bars join selectors that the test cannot "
        "tell apart, correcting for all k(k − 1)/2 pairs: Nemenyi (with its critical difference CD) and "
        "Wilcoxon signed-rank tests Holm-adjusted over every pair (Demšar 2006). Corrected for k(k − 1)/2 "
        "instead of k − 1 comparisons, they are not the test of the headline. On a small D several "
        "fractions give the same S (iris, D = 4: S = 1 up to "
        "30 %), so its block recurs. The all-features SVM is the reference column of the best-method "
        "table, not a ranked selector.",
        "",
    ]
    if ranks.empty:
        return [*lines, "Nothing to compare yet.", ""]
    piv = ranks.pivot(index="selector", columns="fraction", values="average_rank")
    vs_control = control.pivot(index="selector", columns="fraction", values="wilcoxon_not_worse")
    best = ranks.pivot(index="selector", columns="fraction", values="best")
    piv = piv.loc[piv.mean(axis=1).sort_values(kind="stable").index]
    rows = []
    for sel, r in piv.iterrows():
        cells = []
        for f in piv.columns:
            v = r[f]
            if v != v:
                cells.append("")
                continue
            txt = f"{v:.2f}"
            if bool(best.loc[sel, f]):
                txt = f"**{txt}**"
            elif bool(vs_control.loc[sel, f]):
                txt += " ≈"
            cells.append(txt)
        rows.append([sel, *cells, f"{r.mean():.2f}"])
    write_table(
        ranks,
        out / "ranks_by_fraction",
        "Average ranks over the datasets at each fraction of D",
        "not_worse_nemenyi / not_worse_holm: not significantly worse than the selector with the best average "
        f"rank under the all-pairs tests of the CD diagrams (alpha = {ALPHA}); the headline's test against "
        "that selector alone is in control_comparisons.csv.",
    )
    lines += [
        "Average rank over the datasets (bold = best, the control; ≈ = not significantly worse than it, "
        "Wilcoxon with Holm over the k − 1 comparisons with the control, as in the headline). "
        f"Table: [`ranks_by_fraction.csv`]({ctx.rel(out / 'ranks_by_fraction.csv')}).",
        "",
        md_table(["selector", *(f"S = {_frac(f)} of D" for f in piv.columns), "mean"], rows),
        "",
    ]
    for fc in fcs:
        c = fc.comparison
        if c is None:
            continue
        tag = f"{fc.fraction:g}".replace(".", "p")
        avg, n, k = c.friedman.average_ranks, c.friedman.n_blocks, c.friedman.k
        nem = save_figure(
            plot_cd_diagram(
                avg,
                c.nemenyi_groups,
                c.cd,
                f"S = {_frac(fc.fraction)} of D: Nemenyi (all pairs), N = {n} datasets, k = {k}",
            ),
            out / f"cd_nemenyi_{tag}",
        )[0]
        wil = save_figure(
            plot_cd_diagram(
                avg,
                c.wilcoxon_groups,
                None,
                f"S = {_frac(fc.fraction)} of D: Wilcoxon, Holm over all {k * (k - 1) // 2} pairs, "
                f"N = {n} datasets",
            ),
            out / f"cd_wilcoxon_holm_{tag}",
        )[0]
        write_table(
            c.posthoc,
            out / f"posthoc_{tag}",
            f"Post-hoc tests over all pairs at S = {_frac(fc.fraction)} of D (the CD diagrams)",
            f"Nemenyi CD = {c.cd:.3f}; Wilcoxon p-values Holm-adjusted over all {k * (k - 1) // 2} pairs.",
        )
        fr = c.friedman
        lines += [
            f"### S = {_frac(fc.fraction)} of D",
            "",
            f"{n} datasets, {k} selectors; Friedman chi2_F = {fr.chi2:.2f} (p = {fr.p_chi2:.3g}), "
            f"Iman–Davenport F_F = {fr.ff:.2f} (p = {fr.p_ff:.3g}); Nemenyi CD = {c.cd:.2f}. "
            f"Every pair (Nemenyi; Wilcoxon, Holm over all {k * (k - 1) // 2} pairs): "
            f"[`posthoc_{tag}.csv`]({ctx.rel(out / f'posthoc_{tag}.csv')}).",
            "",
        ]
        # the baseline's note ("left out, only at S = D") holds at every fraction: said once, above
        notes = [n for n in c.blocks.notes if "all-features baseline" not in n]
        lines += [f"- {note}" for note in notes] + ([""] if notes else [])
        lines += _fig(ctx, nem, f"CD diagram, Nemenyi over all pairs, {_frac(fc.fraction)}")
        lines += _fig(ctx, wil, f"CD diagram, Wilcoxon with Holm over all pairs, {_frac(fc.fraction)}")
    return lines


def helps_section(ctx: ReportContext, table: pd.DataFrame, out: Path) -> list[str]:
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

    heads = [f"{_frac(f)} (S/D ≈ {100 * sd[f]:.0f} %)" for f in fractions]
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


def bayes_section(ctx: ReportContext, table: pd.DataFrame, out: Path) -> list[str]:
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
            _frac(r.fraction),
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


def cost_section(ctx: ReportContext, sets: list[ResultSet], ranks: pd.DataFrame, out: Path) -> list[str]:
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
            _pct(r.mean_error),
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
        *_fig(ctx, png, "accuracy against selection time"),
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


def best_section(
    ctx: ReportContext, sets: list[ResultSet], fcs: list[FractionComparison], out: Path
) -> list[str]:
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
            f"{_names(g.loc[f, 'best'])} ({_pct(g.loc[f, 'best_error'])}, S = {int(g.loc[f, 'S'])})"
            if f in g.index
            else ""
            for f in fractions
        ]
        rows.append([ds, str(sizes.get((src, ds), "?")), *cells, _pct(base.get((src, ds), float("nan")))])
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
            ["dataset", "D", *(f"{_frac(f)} of D" for f in fractions), "all features"],
            rows,
        ),
        "",
    ]
    return lines


def stability_section(
    ctx: ReportContext, sets: list[ResultSet], fractions: list[float], out: Path
) -> list[str]:
    """Mean Nogueira stability over the datasets, per selector and fraction."""
    lines = ["## Stability (Nogueira)", ""]
    stab = stability_table(sets, alpha=ALPHA)
    if stab.empty:
        return [*lines, "No rankings to compare.", ""]
    write_table(
        stab,
        out / "stability",
        "Stability of the top-S subsets across repeats",
        "Per dataset, selector and S: Kuncheva and Nogueira et al. (2018) with its CI.",
    )
    at = at_fractions(stab[stab["n_features"] < stab["d"]], fractions)
    if at.empty:
        return [*lines, "No S below D at the fractions.", ""]
    piv = at.groupby(["selector", "fraction"])["nogueira"].mean().unstack("fraction")
    piv = piv.loc[piv.mean(axis=1).sort_values(ascending=False, kind="stable").index]
    rows = [
        [sel, *(f"{v:.2f}" if v == v else "–" for v in r), f"{r.mean():.2f}"] for sel, r in piv.iterrows()
    ]
    lines += [
        "Nogueira et al.'s (2018) stability Φ̂ of the top-S feature sets over the repeats (1 = the same set "
        "every time, 0 = what a random choice gives), at the fraction's S on each dataset, averaged over the "
        "datasets (S = D left out). Per dataset, with CIs: "
        f"[`stability.csv`]({ctx.rel(out / 'stability.csv')}).",
        "",
        md_table(["selector", *(f"{_frac(f)} of D" for f in piv.columns), "mean"], rows),
        "",
    ]
    return lines


def ground_truth_section(ctx: ReportContext, sets: list[ResultSet], out: Path) -> list[str]:
    """Recovery of the known relevant features on the synthetic datasets."""
    lines = ["## Ground truth on the toys", ""]
    share, success = ground_truth_tables(sets, alpha=ALPHA)
    if success.empty:
        return [*lines, "No dataset with known relevant features.", ""]
    write_table(success, out / "ground_truth_success", "Exact recovery of the relevant features", "")
    write_table(share, out / "ground_truth", "Relevant features in the top S", "")
    at_r = share[share["n_features"] == share["relevant"]]
    rows = []
    for (ds, sel), g in success.groupby(["dataset", "selector"], sort=True):
        s = g.iloc[0]
        rec = at_r[(at_r["dataset"] == ds) & (at_r["selector"] == sel)]["recall"]
        rows.append(
            [
                ds,
                sel,
                str(int(s["relevant"])),
                f"{int(s['successes'])}/{int(s['repeats'])}",
                f"{100 * s['success_rate']:.0f} [{100 * s['ci_low']:.0f}, {100 * s['ci_high']:.0f}]",
                _pct(rec.mean()) if len(rec) else "–",
            ]
        )
    lines += [
        "On the synthetic datasets the relevant features are known (Weston et al. 2001: the linear toy's "
        "first 6 features; the nonlinear toy's x1 and x2, where x2 alone is independent of y). *Exact*: "
        f"share of repeats (%, {100 * (1 - ALPHA):g} % Wilson CI) whose top r features are exactly the r "
        "relevant ones; *recall at r*: mean share of the relevant features in the top r. Per S: "
        f"[`ground_truth.csv`]({ctx.rel(out / 'ground_truth.csv')}).",
        "",
        md_table(["dataset", "selector", "r", "exact", "exact % [CI]", "recall at r %"], rows),
        "",
    ]
    return lines


def similarity_section(ctx: ReportContext, sets: list[ResultSet], out: Path) -> list[str]:
    """Mean Spearman correlation between the selectors' rankings, clustered (Bommert et al. 2020)."""
    lines = ["## Similarity of the selectors' rankings", ""]
    # the all-features baseline's order is arbitrary: not a ranking to compare
    baseline = set().union(*(rs.baseline_labels for rs in sets))
    rankers = sorted({str(s) for rs in sets for s in rs.rankers()["selector"]} - baseline)
    sim, n = ranking_similarity(sets, selectors=rankers)
    if sim.empty:
        return [*lines, "Fewer than two selectors with complete rankings.", ""]
    order = cluster_order(sim)
    write_table(
        sim.loc[order, order].round(3).reset_index(names="selector"),
        out / "similarity_spearman",
        "Similarity of the selectors' rankings",
        "Mean Spearman correlation over the splits both selectors ran; clustered order.",
    )
    png = plot_similarity(sim, out / "similarity", "Spearman correlation of the rankings")[0]
    lines += [
        "Mean Spearman correlation between two selectors' complete rankings of the D features on the same "
        f"split, over every dataset and repeat both ran (at most {int(n.to_numpy().max())} splits per pair), "
        "clustered by average linkage on 1 − correlation, as Bommert et al. (2020) cluster filter methods. "
        "Methods in one cluster order the features alike, so they tend to pick the same sets. Matrix: "
        f"[`similarity_spearman.csv`]({ctx.rel(out / 'similarity_spearman.csv')}).",
        "",
        *_fig(ctx, png, "similarity of the rankings"),
    ]
    return lines


def _demote(lines: list[str]) -> list[str]:
    """Headings one level down (a track's sections under its own heading)."""
    return [f"#{ln}" if ln.startswith("#") else ln for ln in lines]


def _group(by: str, v: float) -> str:
    return f"{_frac(v)} of D" if by == "fraction" else f"S = {int(v)}"


def _secs(t: float) -> str:
    return "–" if t != t else f"{t:.3g} s"


def tracks_intro(tracks: dict[str, list[ResultSet]]) -> list[str]:
    """What each track is, counted from its directories: scheme of S, datasets, result directories."""
    rows = []
    for name, parts in tracks.items():
        scheme = s_scheme(parts[0])
        values = grid(parts)
        at = (
            ", ".join(_frac(v) for v in values)
            if scheme == "fraction"
            else ", ".join(str(int(v)) for v in values)
        )
        datasets = {str(d) for rs in parts for d in rs.results["dataset"].unique()}
        rows.append(
            [
                name,
                "fractions of D" if scheme == "fraction" else "absolute S",
                at,
                str(len(datasets)),
                ", ".join(f"`{rs.source}`" for rs in parts),
            ]
        )
    return [
        "## Tracks",
        "",
        f"The results hold {len(tracks)} tracks, told apart by their run's config name. Each track is "
        "analysed on its own: its statistics pool only its own datasets, never another track's. On a track "
        "whose S are fractions of D, one block of a test is a dataset at the S the fraction resolves to; on "
        "a track with an absolute grid of S, one block is a dataset at that S.",
        "",
        md_table(["track", "S", "grid", "datasets", "result directories"], rows),
        "",
    ]


def evaluator_section(
    ctx: ReportContext, comps: pd.DataFrame, skipped: list[str], by: str, out: Path
) -> list[str]:
    """Headline (Holm vs the control) and average ranks per evaluator, and how far the order depends on it."""
    lines = ["## Per evaluator", ""]
    if comps.empty:
        return [*lines, "Nothing to compare yet.", "", *(f"- {s}" for s in skipped)]
    evaluators = sorted(comps[EVALUATOR].unique())
    write_table(
        comps,
        out / "evaluator_comparisons",
        "Every selector against the best-ranked one, per evaluator",
        f"Wilcoxon signed-rank and rank z-test against the control, Holm over k - 1 (alpha = {ALPHA}), per "
        f"{by} and evaluator.",
    )
    heads = not_worse_sets(comps, by=[by, EVALUATOR])
    rows = [
        [
            _group(by, r[by]),
            r[EVALUATOR],
            str(r["n_blocks"]),
            str(r["k"]),
            r["control"],
            f"{r['n_not_worse']}: {r['not_worse']}",
            r["worse"] or "none",
        ]
        for _, r in heads.iterrows()
    ]
    piv = comps.groupby(["selector", EVALUATOR])["average_rank"].mean().unstack(EVALUATOR)
    piv = piv.loc[piv.mean(axis=1).sort_values(kind="stable").index]
    rank_rows = [[sel, *(f"{v:.2f}" if v == v else "" for v in r)] for sel, r in piv.iterrows()]
    lines += [
        f"The evaluators ({', '.join(evaluators)}) score the same top-S subsets: no selector reselects for "
        "another learner. For each evaluator and each "
        f"{'fraction of D' if by == 'fraction' else 'S'} the headline's test is repeated: the selector with "
        "the best average rank over the datasets is the control, every other one is compared with it by the "
        f"Wilcoxon signed-rank test, Holm over the k − 1 comparisons (alpha = {ALPHA}). Every comparison: "
        f"[`evaluator_comparisons.csv`]({ctx.rel(out / 'evaluator_comparisons.csv')}).",
        "",
        md_table(
            [
                "S",
                "evaluator",
                "datasets",
                "k",
                "control (best average rank)",
                "not significantly worse",
                "significantly worse",
            ],
            rows,
        ),
        "",
        *(f"- not compared: {s}" for s in skipped),
        *([""] if skipped else []),
        f"Average rank per evaluator, the mean over the {'fractions of D' if by == 'fraction' else 'S'}:",
        "",
        md_table(["selector", *piv.columns], rank_rows),
        "",
    ]
    if len(evaluators) < 2:
        return lines
    agree = order_agreement(comps, evaluator=EVALUATOR, by=by)
    write_table(
        agree,
        out / "evaluator_agreement",
        "Agreement of the evaluators' selector orders",
        "Kendall tau_b and Spearman rho between the average-rank orders of two evaluators, per group.",
    )
    values = sorted(agree[by].unique())
    cell = {(r.evaluator_a, r.evaluator_b, getattr(r, by)): r for r in agree.itertuples(index=False)}
    pairs = list(dict.fromkeys(zip(agree["evaluator_a"], agree["evaluator_b"])))
    body = []
    for a, b in pairs:
        cells = []
        for v in values:
            r = cell.get((a, b, v))
            cells.append("" if r is None else f"{r.kendall_tau:.2f} / {r.spearman_rho:.2f}")
        body.append([f"{a} vs {b}", *cells])
    low = agree.loc[agree["kendall_tau"].idxmin()] if agree["kendall_tau"].notna().any() else None
    lines += [
        "### How far the selectors' order depends on the evaluator",
        "",
        "Kendall's τ_b / Spearman's ρ between two evaluators' orders of the selectors by average rank (1 = "
        "the same order, −1 the reverse), over the selectors both rank. "
        + (
            f"The lowest τ: {low['kendall_tau']:.2f}, {low['evaluator_a']} vs {low['evaluator_b']} at "
            f"{_group(by, low[by])}. "
            if low is not None
            else ""
        )
        + f"With p-values: [`evaluator_agreement.csv`]({ctx.rel(out / 'evaluator_agreement.csv')}).",
        "",
        md_table(["evaluators", *(_group(by, v) for v in values)], body),
        "",
    ]
    return lines


def recommendation_section(
    ctx: ReportContext, comps: pd.DataFrame, parts: list[ResultSet], by: str, out: Path
) -> list[str]:
    """Which selectors to use, from the numbers: per evaluator and group, the best-ranked selector and those
    not significantly worse than it, with their selection cost; the Pareto front of rank against cost."""
    lines = ["## Recommendation", ""]
    if comps.empty:
        return [*lines, "Nothing to compare yet.", ""]
    rec = recommendations(comps, parts, by)
    front = rank_cost_front(comps, parts)
    write_table(
        rec,
        out / "recommendations",
        "The selectors not significantly worse than the best-ranked one, with their cost",
        f"Wilcoxon signed-rank against the control, Holm over k - 1 (alpha = {ALPHA}); median fit CPU "
        "seconds over every task of the track.",
    )
    write_table(
        front,
        out / "rank_cost_front",
        "Average rank against selection cost, per evaluator",
        "mean_average_rank: mean over the groups; pareto: no selector both as cheap and as well ranked.",
    )
    lines += [
        "Generated from the tests above: at each "
        f"{'fraction of D' if by == 'fraction' else 'S'} and for each evaluator, the selector with the "
        "best average rank, and those the data cannot separate from it (not significantly worse, Wilcoxon "
        f"with Holm over k − 1, alpha = {ALPHA}), each with its median CPU seconds per selection fit. "
        f"Tables: [`recommendations.csv`]({ctx.rel(out / 'recommendations.csv')}), "
        f"[`rank_cost_front.csv`]({ctx.rel(out / 'rank_cost_front.csv')}).",
        "",
    ]
    for ev, g in rec.groupby(EVALUATOR, sort=True):
        lines += [f"**{ev}**", ""]
        for v, h in g.groupby(by, sort=True):
            top = h[h["is_control"]].iloc[0]
            others = h[~h["is_control"]]
            cheap = h[h["cheapest"]]["selector"].tolist()
            text = (
                f"- {_group(by, v)}: **{top['selector']}** ranks best (average rank "
                f"{top['average_rank']:.2f} over {int(top['n_blocks'])} datasets, k = {int(top['k'])}; "
                f"{_secs(top[f'median_{TIME}'])} per fit); "
            )
            if others.empty:
                text += "every other selector is significantly worse."
            else:
                named = ", ".join(
                    f"{r.selector} ({r.average_rank:.2f}; {_secs(getattr(r, f'median_{TIME}'))})"
                    for r in others.itertuples(index=False)
                )
                text += (
                    f"not significantly worse: {named}. The cheapest of these {len(h)}: {', '.join(cheap)}."
                )
            lines.append(text)
        f = front[(front[EVALUATOR] == ev) & front["pareto"]]
        named = ", ".join(
            f"{r.selector} (rank {r.mean_average_rank:.2f}, {_secs(getattr(r, f'median_{TIME}'))})"
            for r in f.sort_values(f"median_{TIME}", kind="stable").itertuples(index=False)
        )
        lines += [
            f"- Pareto front of mean average rank against median fit CPU time, cheapest first: {named}.",
            "",
        ]
    return lines


#: Rows of the who-finds summary shown per scenario (the full table is linked).
WHO_TOP = 3


def recovery_section(ctx: ReportContext, parts: list[ResultSet], out: Path) -> list[str]:
    """Who finds the known relevant set on each scenario: a summary, the full tables linked."""
    lines = ["## Ground truth: who finds the relevant features", ""]
    files = write_recovery_tables(parts, out)
    if not files:  # no dataset with known relevant features (the high-dimensional track): no section
        return []
    who = pd.read_csv(out / "recovery_who_finds.csv")
    rows = []
    for ds, g in who.groupby("dataset", sort=True):
        g = g.reset_index(drop=True)  # best first (who_finds_table's order)
        top = ", ".join(
            f"{r.selector} ({r.exact}/{r.repeats}, recall {r.recall_at_r:.2f})"
            for r in g.head(WHO_TOP).itertuples(index=False)
        )
        beyond = int((g["p_chance"] < ALPHA).sum())
        every = int((g["exact_rate"] == 1).sum())
        rows.append(
            [
                ds,
                str(int(g["D"].iloc[0])),
                str(int(g["relevant"].iloc[0])),
                top,
                f"{beyond}/{len(g)}",
                str(every),
            ]
        )
    lines += [
        "On the generated datasets the relevant set R is known. Per scenario: the "
        f"{WHO_TOP} selectors that recover R best (exact recovery: splits whose top r = |R| features are "
        "exactly R; recall at r: mean share of R in the top r), how many selectors find R beyond chance "
        f"(exact one-sided p < {ALPHA} of the hits at S = r against a random ranking) and how many recover R "
        "exactly in every split. Every selector, with intervals: "
        f"[`recovery.md`]({ctx.rel(out / 'recovery.md')}), "
        f"[`recovery_who_finds.csv`]({ctx.rel(out / 'recovery_who_finds.csv')}); per S: "
        f"[`recovery.csv`]({ctx.rel(out / 'recovery.csv')}).",
        "",
        md_table(
            ["scenario", "D", "relevant", "best (exact, recall at r)", "beyond chance", "exact every split"],
            rows,
        ),
        "",
    ]
    return lines


def track_sections(ctx: ReportContext, name: str, parts: list[ResultSet], out: Path) -> list[str]:
    """One track: the analyses at fractions of D (fraction tracks), per evaluator, the recommendation and,
    on an absolute grid of S, the ground truth of its scenarios."""
    scheme = s_scheme(parts[0])
    by = group_column(scheme)
    out.mkdir(parents=True, exist_ok=True)
    body = fraction_track(ctx, parts, out, name) if scheme == "fraction" else []
    table = evaluator_table(parts, scheme, grid(parts))
    comps, skipped = (
        evaluator_comparisons(table, by, alpha=ALPHA) if not table.empty else (pd.DataFrame(), [])
    )
    body += evaluator_section(ctx, comps, skipped, by, out)
    body += recommendation_section(ctx, comps, parts, by, out)
    if scheme == "absolute":
        body += recovery_section(ctx, parts, out)
    what = (
        "S as fractions of D: the analyses below are those of the fractions of D"
        if scheme == "fraction"
        else "S on an absolute grid: every test below has one block per dataset at each S"
    )
    return [
        f"## Track `{name}`",
        "",
        f"{what}; only this track's result directories are pooled.",
        "",
        *_demote(body),
    ]


def fraction_track(ctx: ReportContext, parts: list[ResultSet], out: Path, source: str) -> list[str]:
    """The analyses at fractions of D of one track's result directories (pooled as ``source``)."""
    # the track and any config run beside it with its base (a selector of one's own): the same splits, so
    # one experiment (checked on split_seed; notes.md, "Your own selector")
    sets = [pool_result_sets(parts, source)]
    out.mkdir(parents=True, exist_ok=True)
    fractions = fraction_grid(sets)
    # a selector without results on some dataset would drop that dataset for all: compared without it
    complete, missing = complete_selectors(sets)
    fcs = compare_at_fractions(sets, fractions, alpha=ALPHA, selectors=complete if missing else None)
    ranks = rank_table(fcs)
    table = long_table(sets, fractions, complete if missing else None)
    left_out = [
        f"- `{sel}` has no finished task on {', '.join(ds)}: left out of the comparisons (its tables "
        f"in `{source}/` keep what it did)."
        for sel, ds in missing.items()
    ]
    head, control = headline(ctx, fcs, table, out)
    if control.empty:
        return [*head, *left_out]
    return [
        *head,
        *([*left_out, ""] if left_out else []),
        *bootstrap_section(ctx, table, out),
        *run_section(parts, table),
        *cd_section(ctx, fcs, ranks, control, out),
        *helps_section(ctx, table, out),
        *bayes_section(ctx, table, out),
        *cost_section(ctx, sets, ranks, out),
        *best_section(ctx, sets, fcs, out),
        *stability_section(ctx, sets, fractions, out),
        *ground_truth_section(ctx, sets, out),
        *similarity_section(ctx, sets, out),
    ]


def sections(ctx: ReportContext) -> list[str]:
    """Every analysis of the benchmark, as Markdown lines; tables and figures under ``<results>/analysis``.

    The result directories are grouped by track (their run's config name); each track's statistics pool
    only its own directories. A folder holding only the benchmark's first run gives its page as before.
    """
    parts = [s for s in ctx.results.sets if "diagnostic" not in s.results.columns]
    if not parts:
        return ["The benchmark has not been run yet (no results.csv).", ""]
    out = ctx.results_dir / OUT
    tracks = group_by_track(parts)
    if list(tracks) == ["benchmark"]:
        return fraction_track(ctx, parts, out, "benchmark")
    lines = tracks_intro(tracks)
    for name, tparts in tracks.items():
        lines += track_sections(ctx, name, tparts, out if name == "benchmark" else out / name)
    return lines
