"""``fsbench`` command line: a thin typer layer over runner, plots, report and data.

Every user error (bad config, missing or corrupted data, refused resume) is printed as one line on
stderr and exits with code 2 — no traceback. ``fsbench run A.yaml B.yaml`` validates every config
before the first one starts, so a bad B leaves nothing half done.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Reproducible benchmarks of kernel-based feature selection.",
)
datasets_app = typer.Typer(no_args_is_help=True, help="Dataset cards: list, inspect, verify checksums.")
selectors_app = typer.Typer(no_args_is_help=True, help="Registered feature selectors.")
app.add_typer(datasets_app, name="datasets")
app.add_typer(selectors_app, name="selectors")


def _fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def user_errors(fn: Callable) -> Callable:
    """Turn the package's user-facing errors into one line + exit code 2."""

    @wraps(fn)
    def wrapper(*args, **kwargs):
        from fsbench.config import ConfigError
        from fsbench.data import DatasetError
        from fsbench.runner import RunError

        try:
            return fn(*args, **kwargs)
        except (ConfigError, DatasetError, RunError) as exc:
            _fail(str(exc).replace("\n", " "))
        except KeyboardInterrupt:
            typer.echo(
                "interrupted: finished tasks are saved; run the same command again to resume", err=True
            )
            raise typer.Exit(130) from None

    return wrapper


# --------------------------------------------------------------------------- run
@app.command()
@user_errors
def run(
    configs: Annotated[
        list[Path], typer.Argument(help="Experiment config YAML file(s).", show_default=False)
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            help="Output directory (one config) or parent directory "
            "(several configs). Default: results/<experiment name>."
        ),
    ] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Parallel worker processes.")] = 1,
    repeats: Annotated[int | None, typer.Option(min=1, help="Override protocol.repeats.")] = None,
    seed: Annotated[int | None, typer.Option(min=0, help="Override the config seed.")] = None,
    coarse: Annotated[
        int | None,
        typer.Option(min=1, help="Keep at most this many evenly spaced values of every n_train / S grid."),
    ] = None,
    exclude_selector: Annotated[
        list[str] | None, typer.Option(help="Leave out a selector (name or label; ignored where absent).")
    ] = None,
    backend: Annotated[
        str, typer.Option(help="loky (local processes), dask (--scheduler) or dask-local.")
    ] = "loky",
    scheduler: Annotated[str | None, typer.Option(help="dask scheduler address, tcp://HOST:PORT.")] = None,
    workers: Annotated[int | None, typer.Option(min=1, help="Workers of --backend dask-local.")] = None,
    fresh: Annotated[
        bool,
        typer.Option(
            "--fresh", "--no-resume", help="Discard finished tasks in the output directory and start over."
        ),
    ] = False,
    allow_mixed_code: Annotated[
        bool, typer.Option(help="Resume results begun by another fsbench commit.")
    ] = False,
    retry_failed: Annotated[bool, typer.Option(help="Run failed tasks again when resuming.")] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Validate, count tasks, time a few, estimate cost.")
    ] = False,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Run experiment config(s); finished tasks are saved at once and skipped when run again."""
    from fsbench.config import load_experiment
    from fsbench.runner import dry_run as do_dry_run
    from fsbench.runner import run_experiment, validate

    exps = [
        load_experiment(
            c, {"repeats": repeats, "seed": seed, "exclude_selectors": exclude_selector, "coarse": coarse}
        )
        for c in configs
    ]
    names = [e.name for e in exps]
    if len(set(names)) != len(names):
        _fail(
            f"several configs share the experiment name(s) {sorted({n for n in names if names.count(n) > 1})}"
        )
    for exp in exps:  # every config is checked before the first one starts
        validate(exp)
    failed_total = 0
    for exp in exps:
        target = (out if len(exps) == 1 else out / exp.name) if out else Path("results") / exp.name
        if dry_run:
            est = do_dry_run(exp, target, jobs=jobs)
            typer.echo(f"{exp.name}: {est['n_tasks']} tasks ({est['n_done']} already done in {target})")
            for g in est["groups"]:
                typer.echo(
                    f"  {g['dataset']:>24} {g['kernel']:>6} {g['selector']:>14}: {g['tasks']:5d} tasks x "
                    f"{g['seconds_per_task']:.3f} s ({g['status']})"
                )
            typer.echo(
                f"  estimate: {est['estimated_cpu_seconds'] / 60:.1f} CPU-min in all, "
                f"~{est['estimated_wall_seconds'] / 60:.1f} min wall left with --jobs {jobs}"
            )
            continue
        with _progress_bar(exp.name, enabled=progress) as cb:
            summary = run_experiment(
                exp,
                target,
                jobs=jobs,
                backend=backend,
                scheduler=scheduler,
                workers=workers,
                fresh=fresh,
                allow_mixed_code=allow_mixed_code,
                retry_failed=retry_failed,
                progress=cb,
            )
        failed_total += summary.n_failed
        typer.echo(
            f"{exp.name}: {summary.n_tasks} tasks ({summary.n_skipped} resumed, {summary.n_run} run, "
            f"{summary.n_failed} failed) in {summary.seconds:.1f} s -> {summary.out}/results.csv"
        )
    if failed_total:
        typer.echo(f"{failed_total} task(s) failed; see the status/message columns of results.csv", err=True)
        raise typer.Exit(1)


class _progress_bar:
    """Tasks done / total with ETA (rich, which typer already depends on); silent when not a TTY."""

    def __init__(self, label: str, enabled: bool = True):
        self.label, self.enabled = label, enabled and sys.stderr.isatty()
        self.bar = self.task = None

    def __enter__(self):
        if not self.enabled:
            return None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            transient=False,
        )
        self.bar.start()
        self.task = self.bar.add_task(self.label, total=None)

        def cb(done: int, total: int) -> None:
            self.bar.update(self.task, completed=done, total=total)

        return cb

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
        return False


# --------------------------------------------------------------------------- plot / report
@app.command()
@user_errors
def plot(
    results_dirs: Annotated[list[Path], typer.Argument(help="Result directories (or parents of them).")],
    out: Annotated[
        Path | None, typer.Option(help="Where to write figures/tables (default: <dir>/plots).")
    ] = None,
) -> None:
    """Error-vs-S curves, error-vs-n_train curves and CPU-time tables (PNG, PDF, Markdown, CSV)."""
    from fsbench.plots import plot_results

    written = plot_results(results_dirs, out)
    if not written:
        _fail(f"no results.csv found under {', '.join(map(str, results_dirs))}")
    for path in written:
        typer.echo(str(path))


@app.command()
@user_errors
def report(
    results_dir: Annotated[
        Path, typer.Argument(help="Directory holding one or more experiment result dirs.")
    ],
    paper: Annotated[str | None, typer.Option(help="Compare with a paper's values, e.g. ramona2012.")] = None,
    out: Annotated[Path | None, typer.Option(help="Report path (default: RESULTS_DIR/REPORT.md).")] = None,
) -> None:
    """Write REPORT.md: figures, mean ± std tables with paired t-tests, ranks, and paper vs ours."""
    from fsbench.report import write_report

    try:
        path = write_report(results_dir, paper=paper, out=out)
    except FileNotFoundError as exc:
        _fail(str(exc))
    typer.echo(str(path))


@app.command()
@user_errors
def compare(
    results_dirs: Annotated[list[Path], typer.Argument(help="Result directories (or parents of them).")],
    metric: Annotated[str, typer.Option(help="results.csv column to compare; lower is better.")] = "error",
    alpha: Annotated[float, typer.Option(min=0.0, max=1.0, help="Family-wise significance level.")] = 0.05,
    out: Annotated[
        Path | None, typer.Option(help="Write tables, CD diagrams, stability, ground truth and compare.html.")
    ] = None,
    selector: Annotated[
        list[str] | None,
        typer.Option(help="Selector label to compare (repeat); default: those present in every directory."),
    ] = None,
    include_all: Annotated[
        bool, typer.Option("--include-all", help="Keep the all-features baseline (it exists only at S = D).")
    ] = False,
    keep_full: Annotated[
        bool, typer.Option("--keep-full", help="Keep blocks at S = D (every ranker trains the same SVM).")
    ] = False,
    per_dataset: Annotated[
        bool, typer.Option("--per-dataset", help="Average over S first: one block per dataset setting.")
    ] = False,
) -> None:
    """Rank selectors across datasets: Friedman / Iman-Davenport, Nemenyi CD, Holm-corrected Wilcoxon."""
    from fsbench.results.compare import run_compare
    from fsbench.results.stats_compare import CompareError

    try:
        text, written = run_compare(
            results_dirs, metric, alpha, selector, include_all, keep_full, per_dataset, out
        )
    except CompareError as exc:
        _fail(str(exc))
    typer.echo(text)
    if written:
        typer.echo(f"\nwritten to {out}: " + ", ".join(p.name for p in written))


# --------------------------------------------------------------------------- datasets
@datasets_app.command("list")
@user_errors
def datasets_list() -> None:
    """Every dataset card, with shape and local availability."""
    from fsbench.data import list_cards

    for card in list_cards():
        shape = f"{card.n_samples if card.n_samples is not None else '∞'} x {card.n_features}"
        avail = "yes" if card.available() else "no"
        typer.echo(f"{card.name:28} {card.kind:9} {shape:>12}  available: {avail:3}  {card.description}")


@datasets_app.command("info")
@user_errors
def datasets_info(name: str) -> None:
    """Everything a card says about one dataset."""
    from fsbench.data import describe, get_card

    typer.echo(describe(get_card(name)))


@datasets_app.command("verify")
@user_errors
def datasets_verify(
    name: Annotated[str | None, typer.Argument(help="Card name (default: all).")] = None,
) -> None:
    """Check local data files against the cards' sha256; exit 2 on a mismatch."""
    from fsbench.data import verify

    bad = 0
    for card_name, path, status, message in verify(name):
        typer.echo(f"{status:8} {card_name:28} {path or '-'}  {message}")
        bad += status == "mismatch"
    if bad:
        raise typer.Exit(2)


@datasets_app.command("download")
@user_errors
def datasets_download(
    name: Annotated[str, typer.Argument(help="Card name.")],
    source: Annotated[str | None, typer.Option(help="Source id (default: the first url/openml one).")] = None,
) -> None:
    """Download a dataset's files into the cache (connected machines), verifying their sha256."""
    from fsbench.data.download import fetch

    for path in fetch(name, source_id=source):
        typer.echo(str(path))


# --------------------------------------------------------------------------- selectors
@selectors_app.command("list")
def selectors_list() -> None:
    """Registered selectors with a one-line description and citation."""
    from fsbench.algorithms.registry import available, info

    for name in available():
        meta = info(name)
        typer.echo(f"{name:20} {meta.description}  [{meta.citation}]")


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
