"""``fsbench compare``: rank selectors across result directories, plus stability and ground truth.

:func:`compare_selectors` computes the statistics of :mod:`fsbench.results.stats_compare` on the blocks
of the given directories; :func:`format_comparison` is what the command prints; :func:`write_outputs`
writes, under ``--out``:

==============================  ==================================================================
``ranks.csv/.md``               average rank, blocks won, mean and median metric per selector
``friedman.csv/.md``            chi2_F, Iman–Davenport F_F, p-values, Nemenyi q_alpha and CD
``posthoc.csv/.md``             every pair: Nemenyi p, Wilcoxon T and Holm-adjusted p, wins/ties/losses
``blocks.csv``                  every block × selector: mean metric, rank, repeats averaged
``cd_diagram.png/.pdf``         critical-difference diagram, Nemenyi groups
``cd_diagram_wilcoxon_holm.*``  the same ranks, groups from the Holm-corrected Wilcoxon tests
``stability.csv/.md``           Kuncheva and Nogueira stability (with CI) per setting, selector and S
``error_vs_stability.*``        mean error vs stability (Pareto view)
``ground_truth*.csv/.md``       share of relevant features in the top S, exact-recovery success
``ground_truth_*.png/.pdf``     those vs n_train (only for datasets with known relevant features)
``similarity_spearman.*``       mean Spearman correlation of the selectors' rankings on shared splits
``similarity.png/.pdf``         the same as a heat map, clustered (average linkage), with its dendrogram
``compare.html``                everything above in one self-contained page, with provenance
==============================  ==================================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fsbench.results.ground_truth import ground_truth_tables, plot_ground_truth
from fsbench.results.html import Image, Provenance, Section, write_html
from fsbench.results.loading import ResultSet, load_result_sets, no_results_message
from fsbench.results.pooling import PoolError, pool_result_sets
from fsbench.results.similarity import cluster_order, plot_similarity, ranking_similarity
from fsbench.results.stability import plot_error_vs_stability, stability_table
from fsbench.results.stats_compare import (
    Blocks,
    CompareError,
    FriedmanResult,
    block_table,
    build_blocks,
    cliques,
    critical_difference,
    friedman_test,
    nemenyi_critical_value,
    plot_cd_diagram,
    posthoc_table,
    rank_blocks,
    rank_summary,
)
from fsbench.results.tables import save_figure, write_table

INDEPENDENCE_NOTE = (
    "Blocks at different S (and n_train) of one dataset share splits and nested feature sets, so they "
    "are not independent as the Friedman test assumes: read the p-values as optimistic "
    "(--per-dataset averages over S first: fewer, independent blocks)."
)


@dataclass
class Comparison:
    """Everything :func:`compare_selectors` computed."""

    blocks: Blocks
    ranks: pd.DataFrame
    friedman: FriedmanResult
    alpha: float
    q_alpha: float
    cd: float
    posthoc: pd.DataFrame
    summary: pd.DataFrame
    nemenyi_groups: list[list[str]]
    wilcoxon_groups: list[list[str]]
    n_sources: int
    per_dataset: bool
    fraction: float | None = None  # blocks at S = this fraction of each dataset's D (build_blocks)

    def friedman_table(self) -> pd.DataFrame:
        """Friedman / Iman–Davenport statistics with the Nemenyi critical value and CD."""
        t = self.friedman.as_frame()
        t["alpha"] = self.alpha
        t["q_alpha (Nemenyi)"] = self.q_alpha
        t["CD (Nemenyi)"] = self.cd
        return t


def compare_selectors(
    sets: list[ResultSet],
    metric: str = "error",
    alpha: float = 0.05,
    selectors: Sequence[str] | None = None,
    include_all: bool = False,
    keep_full: bool = False,
    per_dataset: bool = False,
    fraction: float | None = None,
) -> Comparison:
    """Friedman, Iman–Davenport, Nemenyi and Wilcoxon–Holm over the blocks of ``sets``.

    Parameters are those of :func:`fsbench.results.stats_compare.build_blocks`, plus ``alpha``, the
    family-wise significance level of the post-hoc tests.
    """
    if not 0 < alpha < 1:
        raise CompareError(f"alpha must be in (0, 1), got {alpha}")
    blocks = build_blocks(sets, metric, selectors, include_all, keep_full, per_dataset, fraction)
    ranks = rank_blocks(blocks.values)
    fr = friedman_test(ranks)
    k, n = fr.k, fr.n_blocks
    post = posthoc_table(blocks.values, ranks, alpha)
    sig_nem = {
        frozenset((a, b)) for a, b, s in post[["a", "b", "nemenyi_significant"]].itertuples(index=False) if s
    }
    sig_wil = {
        frozenset((a, b)) for a, b, s in post[["a", "b", "holm_significant"]].itertuples(index=False) if s
    }
    return Comparison(
        blocks=blocks,
        ranks=ranks,
        friedman=fr,
        alpha=alpha,
        q_alpha=nemenyi_critical_value(k, alpha),
        cd=critical_difference(k, n, alpha),
        posthoc=post,
        summary=rank_summary(blocks, ranks),
        nemenyi_groups=cliques(fr.average_ranks, sig_nem),
        wilcoxon_groups=cliques(fr.average_ranks, sig_wil),
        n_sources=len({i[0] for i in blocks.values.index}),
        per_dataset=per_dataset,
        fraction=fraction,
    )


def _p(p: float) -> str:
    if not np.isfinite(p):
        return "none"
    return f"{p:.3g}" if p >= 1e-4 else f"{p:.2e}"


def _omnibus(fr: FriedmanResult) -> str:
    """Friedman and Iman–Davenport in one line: no infinite F_F, no p-value where it is withheld."""
    ff = (
        "Iman-Davenport F_F undefined: every block ranks the selectors identically (chi2_F = N(k-1))"
        if fr.identical_rankings
        else f"Iman-Davenport F_F = {fr.ff:.3f} (df {fr.df_num}, {fr.df_den}), p = {_p(fr.p_ff)}"
    )
    return f"Friedman chi2_F = {fr.chi2:.3f} (df {fr.df_num}), p = {_p(fr.p_chi2)}; {ff}"


def _verdict(fr: FriedmanResult, alpha: float) -> str:
    """The omnibus verdict, from F_F's p-value (chi2_F's where F_F is undefined); none without one."""
    if fr.p_withheld is not None:
        return f"no verdict on 'all selectors perform alike': {fr.p_withheld}"
    p = fr.p_ff if np.isfinite(fr.p_ff) else fr.p_chi2
    if not np.isfinite(p):
        return "no verdict on 'all selectors perform alike': no p-value"
    return f"{'reject' if p < alpha else 'cannot reject'} 'all selectors perform alike' at alpha = {alpha}"


def format_comparison(comp: Comparison) -> str:
    """The console report: blocks, average ranks, Friedman and Iman–Davenport, post-hoc table."""
    fr, b = comp.friedman, comp.blocks
    unit = "(dir, dataset, kernel, n_train)" if comp.per_dataset else "(dir, dataset, kernel, n_train, S)"
    if comp.fraction is not None:
        unit = f"(dir, dataset, kernel, n_train) at S = {comp.fraction:g} of D"
    lines = [
        # "metric:" first: a bare "error:" at the start of the output reads like a failure
        f"metric: {b.metric} (lower is better); {fr.n_blocks} blocks {unit} from {comp.n_sources} "
        "result dir(s); "
        f"{fr.k} selectors: {', '.join(b.selectors)}",
    ]
    lines += [f"  {note}" for note in b.notes]
    lines.append("")
    lines.append(f"average ranks (1 = lowest {b.metric}; ties share the average rank):")
    s = comp.summary
    w = max(len(str(x)) for x in s["selector"])
    for sel, avg, best, mean in zip(
        s["selector"], s["average_rank"], s["best_in_blocks"], s[f"mean_{b.metric}"]
    ):
        lines.append(f"  {sel:<{w}}  {avg:6.3f}   best in {best:3d} blocks   mean {b.metric} {mean:.4f}")
    lines.append("")
    lines.append(_omnibus(fr))
    lines.append(f"  -> {_verdict(fr, comp.alpha)}")
    lines.append(
        f"Nemenyi: q_{comp.alpha:g} = {comp.q_alpha:.3f}, CD = {comp.cd:.3f} (k = {fr.k}, N = {fr.n_blocks})"
    )
    lines.append("")
    lines.append(
        f"post-hoc, every pair (a has the better average rank; significant at alpha = {comp.alpha}):"
    )
    wa = max([len(str(x)) for x in comp.posthoc["a"]] + [1])
    wb = max([len(str(x)) for x in comp.posthoc["b"]] + [1])
    lines.append(
        f"  {'a':<{wa}}  {'b':<{wb}}  rank diff  Nemenyi p     W/T/L   Wilcoxon p  Holm p     "
        "Nemenyi  Wilcoxon-Holm"
    )
    for r in comp.posthoc.itertuples(index=False):
        wtl = f"{r.wins_a}/{r.ties}/{r.losses_a}"
        lines.append(
            f"  {r.a:<{wa}}  {r.b:<{wb}}  {r.rank_diff:9.3f}  {_p(r.nemenyi_p):>9}  {wtl:>8}  "
            f"{_p(r.wilcoxon_p):>10}  {_p(r.holm_p):>9}  {'yes' if r.nemenyi_significant else 'no':>7}  "
            f"{'yes' if r.holm_significant else 'no':>13}"
        )
    n_nem = int(comp.posthoc["nemenyi_significant"].sum())
    n_hol = int(comp.posthoc["holm_significant"].sum())
    lines.append(f"  significant pairs: Nemenyi {n_nem}, Wilcoxon-Holm {n_hol} of {len(comp.posthoc)}")
    lines.append("  groups not told apart (Nemenyi): " + _groups(comp.nemenyi_groups))
    lines.append("  groups not told apart (Wilcoxon-Holm): " + _groups(comp.wilcoxon_groups))
    if not comp.per_dataset and comp.fraction is None:
        lines.append("")
        lines.append("note: " + INDEPENDENCE_NOTE)
    return "\n".join(lines)


def _groups(groups: list[list[str]]) -> str:
    return "; ".join("{" + ", ".join(g) + "}" for g in groups) or "none (every pair differs)"


def write_outputs(comp: Comparison, sets: list[ResultSet], out: Path) -> list[Path]:
    """Write the tables, diagrams, stability and ground-truth analyses and ``compare.html`` to ``out``."""
    out = Path(out)
    metric, alpha = comp.blocks.metric, comp.alpha
    written: list[Path] = []
    written += write_table(
        comp.summary,
        out / "ranks",
        f"Average ranks — {metric}",
        f"{comp.friedman.n_blocks} blocks; rank 1 = lowest mean {metric} in a block, ties averaged.",
    )
    written += write_table(
        comp.friedman_table(),
        out / "friedman",
        "Friedman and Iman–Davenport tests",
        "chi2_F as in Demšar (2006) without tie correction; the tie-corrected value is scipy's.",
    )
    written += write_table(
        comp.posthoc,
        out / "posthoc",
        f"Post-hoc tests (alpha = {alpha})",
        f"Nemenyi on the average ranks (CD = {comp.cd:.3f}); Wilcoxon signed-rank test on the block means, "
        "zeros split, p-values Holm-adjusted over all pairs. wins_a/ties/losses_a: blocks where a's mean "
        f"{metric} is lower / equal / higher than b's.",
    )
    bt = block_table(comp.blocks, comp.ranks)
    bt.to_csv(out / "blocks.csv", index=False)
    written.append(out / "blocks.csv")
    avg = comp.friedman.average_ranks
    n, k = comp.friedman.n_blocks, comp.friedman.k
    cd_fig = plot_cd_diagram(
        avg, comp.nemenyi_groups, comp.cd, f"{metric}: Nemenyi, alpha = {alpha}, N = {n} blocks, k = {k}"
    )
    cd_png = save_figure(cd_fig, out / "cd_diagram")
    wil_fig = plot_cd_diagram(
        avg, comp.wilcoxon_groups, None, f"{metric}: Wilcoxon signed-rank, Holm, alpha = {alpha}, N = {n}"
    )
    wil_png = save_figure(wil_fig, out / "cd_diagram_wilcoxon_holm")
    written += cd_png + wil_png

    stab = stability_table(sets, alpha=alpha, metric=metric)
    stab_items: list = []
    if not stab.empty:
        written += write_table(
            stab,
            out / "stability",
            "Stability of the top-S subsets across repeats",
            f"kuncheva: mean pairwise Kuncheva index; nogueira: Nogueira et al. (2018) estimator with its "
            f"{100 * (1 - alpha):g} % CI; NaN at S = D (undefined). pareto: no selector of the same setting "
            f"and S is both more stable and lower in mean {metric}.",
        )
        fig = plot_error_vs_stability(stab, metric, alpha)
        if fig is not None:
            written += save_figure(fig, out / "error_vs_stability")
            stab_items.append(Image(out / "error_vs_stability.png", f"mean {metric} vs stability"))
    share, success = ground_truth_tables(sets, alpha=alpha)
    gt_items: list = []
    if not success.empty:
        written += write_table(
            success,
            out / "ground_truth_success",
            "Exact recovery of the relevant features",
            "success_rate: share of repeats whose top r features are exactly the r relevant ones; Wilson CI.",
        )
        written += write_table(
            share,
            out / "ground_truth",
            "Relevant features in the top S",
            "share_relevant = |top S ∩ relevant| / S; recall = |top S ∩ relevant| / r; mean over repeats.",
        )
        for key, fig in plot_ground_truth(share, success, alpha):
            stem = out / ("ground_truth_" + "_".join(str(x).replace("/", "_") for x in key))
            written += save_figure(fig, stem)
            gt_items.append(Image(stem.with_suffix(".png"), f"{key[0]}: {key[1]}, {key[2]}"))

    sim, sim_n = ranking_similarity(sets, selectors=comp.blocks.selectors)
    sim_items: list = []
    if not sim.empty:
        order = cluster_order(sim)
        table = sim.loc[order, order].round(3).reset_index(names="selector")
        written += write_table(
            table,
            out / "similarity_spearman",
            "Similarity of the selectors' rankings",
            "Mean Spearman correlation between two selectors' complete rankings over the splits both ran "
            f"(from {int(sim_n.to_numpy().max())} splits per pair at most); rows and columns in the order of "
            "average-linkage clustering on 1 - correlation (the heat map's dendrogram).",
        )
        written += plot_similarity(sim, out / "similarity", "Spearman correlation of the rankings")
        sim_items.append(
            Image(out / "similarity.png", "Selectors clustered by the similarity of their rankings")
        )

    sections = [
        Section(
            "Selectors across datasets",
            [comparison_markdown(comp)],
        ),
        Section("Average ranks", [comp.summary]),
        Section("Friedman and Iman–Davenport tests", [comp.friedman_table()]),
        Section(
            "Critical-difference diagrams",
            [
                Image(
                    cd_png[0],
                    f"Nemenyi: selectors joined by a bar do not differ significantly (CD = {comp.cd:.3f})",
                ),
                Image(
                    wil_png[0],
                    "Holm-corrected Wilcoxon signed-rank tests: bars join groups with no significant pair",
                ),
            ],
        ),
        Section("Post-hoc tests", [comp.posthoc]),
    ]
    if not stab.empty:
        sections.append(Section("Stability", [*stab_items, stab]))
    if not success.empty:
        sections.append(Section("Ground truth (synthetic data)", [*gt_items, success, share]))
    if not sim.empty:
        sections.append(Section("Similarity of the rankings", [*sim_items, table]))
    sections.append(Section("Provenance", [Provenance({s.source: s.run or {} for s in sets})]))
    written.append(write_html(out / "compare.html", sections, title=f"fsbench compare — {metric}"))
    return written


def comparison_markdown(comp: Comparison) -> str:
    """The summary paragraph of a comparison across datasets: blocks, selectors and metric, the omnibus
    test and its verdict, the Nemenyi critical difference and the groups not told apart.

    Parameters
    ----------
    comp : Comparison
        The comparison (:func:`compare_selectors`).

    Returns
    -------
    str
        Markdown, ending with the independence note unless blocks are per dataset or per fraction.
    """
    fr, b = comp.friedman, comp.blocks
    notes = "".join(f"\n\n{n}" for n in b.notes)
    return (
        f"**{fr.n_blocks} blocks**, {fr.k} selectors ({', '.join(b.selectors)}), "
        f"metric `{b.metric}`.{notes}\n\n"
        f"{_omnibus(fr)}; {_verdict(fr, comp.alpha)}. Nemenyi CD = {comp.cd:.3f} "
        f"at alpha = {comp.alpha}.\n\n"
        f"Groups not told apart — Nemenyi: {_groups(comp.nemenyi_groups)}; Wilcoxon–Holm: "
        f"{_groups(comp.wilcoxon_groups)}.\n\n"
        + ("" if comp.per_dataset or comp.fraction is not None else INDEPENDENCE_NOTE)
    )


def run_compare(
    paths: Sequence[Path],
    metric: str = "error",
    alpha: float = 0.05,
    selectors: Sequence[str] | None = None,
    include_all: bool = False,
    keep_full: bool = False,
    per_dataset: bool = False,
    out: Path | None = None,
    fraction: float | None = None,
    pool: bool = False,
) -> tuple[str, list[Path]]:
    """Load, compare, and (with ``out``) write everything; return the console text and the files written.

    With ``pool`` the directories are parts of one experiment (same splits, checked:
    :func:`fsbench.results.pooling.pool_result_sets`) and their selectors are paired across them.
    """
    sets = load_result_sets(paths)
    if not sets:
        raise CompareError(no_results_message(paths))
    if pool:
        try:
            sets = [pool_result_sets(sets)]
        except PoolError as exc:
            raise CompareError(str(exc)) from exc
    comp = compare_selectors(sets, metric, alpha, selectors, include_all, keep_full, per_dataset, fraction)
    written = write_outputs(comp, sets, out) if out is not None else []
    return format_comparison(comp), written
