"""``fsbench report ... --html``: the paper report as one self-contained HTML file, with the analyses
across datasets, stability and ground truth of the same result directories.

What goes on the page; the rendering (Markdown, tables, embedded figures) is :mod:`fsbench.results.html`'s.
The page holds, in order: the sections of ``REPORT.md`` (paper vs ours tables, claims, curves — every
``![caption](path.png)`` is embedded), then

* **Selectors across datasets** — average ranks, Friedman / Iman–Davenport, the Nemenyi critical-difference
  diagram and Holm-corrected Wilcoxon tests over the (directory, dataset, kernel, n_train, S) blocks where
  every compared selector has results (:mod:`fsbench.results.compare`); a sentence where that is not
  possible (e.g. one dataset, or no selector common to all directories);
* **Provenance** — config hash, commit(s), package versions and times of every run (``run.json``).

Stability and ground truth are shown once, in REPORT.md's own sections
(:mod:`fsbench.results.experiment_tables`): their tables, with the figures of the same analyses added after
the section's introduction — the error-vs-stability view (:mod:`fsbench.results.stability`) and the
recovery curves where the relevant features are known (:mod:`fsbench.results.ground_truth`). A report
without such a section gets one, with the full table.

Diagnostics' tables (their own columns) are not analysed here; their figures enter through REPORT.md.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fsbench.results.compare import _console_md, compare_selectors
from fsbench.results.experiment_tables import GROUND_TRUTH_SECTION, STABILITY_SECTION
from fsbench.results.ground_truth import ground_truth_tables, plot_ground_truth
from fsbench.results.html import Image, Provenance, Section, markdown_sections, write_html
from fsbench.results.loading import ResultSet, load_result_sets
from fsbench.results.stability import plot_error_vs_stability, stability_table
from fsbench.results.stats_compare import CompareError, plot_cd_diagram


def _experiment_sets(results_dir: Path) -> list[ResultSet]:
    return [s for s in load_result_sets([results_dir]) if "selector_name" in s.results.columns]


def _add_figures(sections: list[Section], title: str, figures: list[Image], tables: list[Any]) -> None:
    """Put ``figures`` into the section ``title`` after its introduction (the text before its first ``###``
    heading); where there is no such section, append one holding ``figures`` and ``tables``."""
    sec = next((x for x in sections if x.title == title), None)
    if sec is None:
        sections.append(Section(title, [*figures, *tables]))
        return
    first = sec.items[0] if sec.items else ""
    m = re.search(r"^### ", first, re.M) if isinstance(first, str) else None
    intro, rest = (first[: m.start()], first[m.start() :]) if m else (first, "")
    sec.items[:1] = [x for x in (intro, *figures, rest) if not isinstance(x, str) or x.strip()]


def analysis_sections(
    sets: list[ResultSet], alpha: float = 0.05, report: list[Section] | None = None
) -> list[Section]:
    """The page's sections: ``report`` (REPORT.md's sections, changed in place) with the figures of its
    stability and ground-truth sections, then the across-datasets comparison and the provenance of ``sets``.
    """
    sections = report if report is not None else []
    try:
        comp = compare_selectors(sets, alpha=alpha)
        n, k = comp.friedman.n_blocks, comp.friedman.k
        cd = plot_cd_diagram(
            comp.friedman.average_ranks,
            comp.nemenyi_groups,
            comp.cd,
            f"error: Nemenyi, alpha = {alpha}, N = {n} blocks, k = {k}",
        )
        sections.append(
            Section(
                "Selectors across datasets",
                [
                    _console_md(comp),
                    comp.summary,
                    Image(cd, f"critical-difference diagram (Nemenyi, CD = {comp.cd:.3f})"),
                    comp.posthoc,
                ],
            )
        )
    except CompareError as exc:
        sections.append(Section("Selectors across datasets", [f"Not computed: {exc}"]))
    stab = stability_table(sets, alpha=alpha)
    if not stab.empty:
        fig = plot_error_vs_stability(stab, "error", alpha)
        caption = "mean error vs stability (filled: Pareto-optimal at their S)"
        figs = [Image(fig, caption)] if fig is not None else []
        legend = (
            "Kuncheva's consistency index and the Nogueira–Sechidis–Brown (2018) estimator with its "
            f"{100 * (1 - alpha):g} % confidence interval, of the top-S subsets across repeats "
            "(NaN at S = D)."
        )
        _add_figures(sections, STABILITY_SECTION, figs, [legend, stab])
    share, success = ground_truth_tables(sets, alpha=alpha)
    if not success.empty:
        figs = [
            Image(f, f"{key[0]}: {key[1]}, {key[2]}") for key, f in plot_ground_truth(share, success, alpha)
        ]
        _add_figures(sections, GROUND_TRUTH_SECTION, figs, [success, share])
    sections.append(Section("Provenance", [Provenance({s.source: s.run or {} for s in sets})]))
    return sections


def write_report_html(report_md: Path, results_dir: Path, out: Path | None = None) -> Path:
    """Write ``REPORT.html`` beside ``report_md`` (or at ``out``); return its path."""
    report_md, results_dir = Path(report_md), Path(results_dir)
    out = Path(out) if out is not None else report_md.with_suffix(".html")
    text = report_md.read_text(encoding="utf-8")
    first = next((ln[2:].strip() for ln in text.splitlines() if ln.startswith("# ")), "fsbench report")
    sections = markdown_sections(text)
    sets = _experiment_sets(results_dir)
    if sets:
        sections = analysis_sections(sets, report=sections)
    # REPORT.md's figures are linked relative to it: embedded from there
    return write_html(out, sections, title=first, base=report_md.parent)
