"""``fsbench`` command line: a thin typer layer over run, plots, report and data.

Every user error (bad config, missing or corrupted data, refused resume) is printed as one line on
stderr and exits with code 2 — no traceback. ``fsbench run A.yaml B.yaml`` validates every config
before the first one starts, so a bad B leaves nothing half done.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from functools import cache, partial, wraps
from pathlib import Path
from typing import Annotated

import typer
import typer.core

# Plain (click) help, not rich panels: rich's option tables cut long option names ("--exclude-select…")
# in an 80-column terminal, click's layout wraps the descriptions instead.
_HELP = {"rich_markup_mode": None}

#: ``--help`` metavars by parameter name (``function:param`` for one command), instead of typer's type
#: hints (``<list[Path]>``, ``{configs}...``); any other value-taking parameter shows its name in capitals.
_METAVARS = {
    "configs": "CONFIG",
    "config": "CONFIG",
    "results_dirs": "DIR",
    "results_dir": "DIR",
    "report:results_dir": "RESULTS_DIR",
    "results_root": "DIR",
    "out": "DIR",
    "report:out": "FILE",
    "build:configs": "DIR",
    "docs": "FILE",
    "jobs": "N",
    "repeats": "N",
    "coarse": "N",
    "workers": "N",
    "exclude_selector": "SELECTOR",
    "selectors": "SELECTOR,...",
    "scheduler": "ADDRESS",
    "metric": "COLUMN",
    "paper": "PAPER",
    "selectors_info:name": "SELECTOR",
    "datasets_info:name": "DATASET",
    "datasets_verify:name": "DATASET",
    "datasets_download:name": "DATASET",
}


class _Command(typer.core.TyperCommand):
    """A command whose ``--help`` names values by :data:`_METAVARS` (``run [OPTIONS] CONFIG...``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        fn = getattr(self.callback, "__name__", "")
        for p in self.params:
            if p.metavar is None and not getattr(p, "is_flag", False) and p.name:
                p.metavar = _METAVARS.get(f"{fn}:{p.name}", _METAVARS.get(p.name, p.name.upper()))

    @staticmethod
    def _argument_name(p) -> str:
        return p.metavar + ("..." if p.nargs != 1 else "")

    def collect_usage_pieces(self, ctx):
        rv = [self.options_metavar] if self.options_metavar else []
        for p in self.get_params(ctx):
            if isinstance(p, typer.core.TyperArgument):
                rv.append(self._argument_name(p) if p.required else f"[{self._argument_name(p)}]")
            else:
                rv.extend(p.get_usage_pieces(ctx))
        return rv

    def format_options(self, ctx, formatter) -> None:
        args, opts = [], []
        for p in self.get_params(ctx):
            rv = p.get_help_record(ctx)
            if rv is None:
                continue
            if isinstance(p, typer.core.TyperArgument):  # typer adds the type hint to the name
                args.append((self._argument_name(p), rv[1]))
            else:
                opts.append(rv)
        for title, rows in (("Arguments", args), ("Options", opts)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


class _Group(typer.core.TyperGroup):
    """Typer's group, whose "no such command" also suggests a subcommand of a group:
    ``fsbench sas-info`` -> ``did you mean 'fsbench selectors info sas'?``."""

    def resolve_command(self, ctx, args):
        try:
            return super().resolve_command(ctx, args)
        except typer.TyperException as exc:  # typer's own (vendored) click's UsageError
            message = getattr(exc, "message", "")
            if args and message.startswith("No such command") and "Did you mean" not in message:
                hint = _compound_suggestion(args[0], self)
                if hint:
                    exc.message = f"{message.rstrip('.')}. Did you mean {hint}?"
            raise


def _compound_suggestion(typo: str, group) -> str | None:
    """``'fsbench selectors info sas'`` for ``sas-info`` or ``info-sas`` (a subcommand of a group, joined
    with a selector or dataset name by ``-``), or a nearby ``group subcommand``; None if nothing is close."""
    from difflib import get_close_matches

    subs = {
        (g, s): cmd
        for g, grp in group.commands.items()
        if isinstance(getattr(grp, "commands", None), dict)
        for s, cmd in grp.commands.items()
    }
    words = typo.split("-")
    for i in range(1, len(words)):
        for sub, name in (
            ("-".join(words[i:]), "-".join(words[:i])),
            ("-".join(words[:i]), "-".join(words[i:])),
        ):
            for g, s in subs:
                if get_close_matches(sub, [s], n=1, cutoff=0.8) and name in _names_of(g):
                    return f"'fsbench {g} {s} {name}'"
    close = get_close_matches(typo.replace("-", " "), [f"{g} {s}" for g, s in subs], n=2, cutoff=0.7)
    return ", ".join(f"'fsbench {c}'" for c in close) or None


def _names_of(group: str) -> list[str]:
    """The names a group's commands take: selector names (``selectors``), dataset cards (``datasets``)."""
    if group == "selectors":
        from fsbench.algorithms.registry import available

        return available()
    if group == "datasets":
        from fsbench.data.cards import card_names

        return card_names()
    return []


def _with_suggestion(message: str) -> str:
    """A one-line error about an ``unknown selector 'x'`` or ``unknown dataset 'x'`` (from a config,
    ``selectors info`` or ``datasets info``) with ``(did you mean 'y'?)`` after the name when one is close."""
    import re

    from fsbench.config.files import did_you_mean

    m = re.search(r"unknown (selector|dataset) '([^']*)'", message)
    if m is None:
        return message
    hint = did_you_mean(m[2], _names_of(f"{m[1]}s"))
    return f"{message[: m.end()]} ({hint}){message[m.end() :]}" if hint else message


app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Reproducible benchmarks of kernel-based feature selection.",
    cls=_Group,
    **_HELP,
)
datasets_app = typer.Typer(
    no_args_is_help=True, help="Dataset cards: list, inspect, verify checksums.", cls=_Group, **_HELP
)
selectors_app = typer.Typer(no_args_is_help=True, help="Registered feature selectors.", cls=_Group, **_HELP)
app.add_typer(datasets_app, name="datasets")
app.add_typer(selectors_app, name="selectors")


def _fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _print_version(value: bool) -> None:
    if value:
        from fsbench import __version__

        typer.echo(f"fsbench {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print fsbench's version and exit."
        ),
    ] = False,
) -> None:
    """Reproducible benchmarks of kernel-based feature selection."""


def user_errors(fn: Callable) -> Callable:
    """Turn the package's user-facing errors into one line + exit code 2."""

    @wraps(fn)
    def wrapper(*args, **kwargs):
        # the light modules that define them (fsbench.config.experiment imports scikit-learn): fast start-up
        from fsbench.config.files import ConfigError
        from fsbench.data.errors import DatasetError
        from fsbench.run.errors import RunError

        try:
            return fn(*args, **kwargs)
        except (ConfigError, DatasetError, RunError) as exc:
            _fail(_with_suggestion(str(exc).replace("\n", " ")))
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
        list[str] | None,
        typer.Option(
            help="Leave out a selector (name or label; ignored where absent): not run, not in the tables; "
            "the same output directory can be resumed with or without it."
        ),
    ] = None,
    backend: Annotated[
        str,
        typer.Option(
            help="loky (local worker processes, also for --jobs 1), threading (threads of this process: "
            "for debugging a selector; a crash in a task ends the run), dask (--scheduler) or dask-local."
        ),
    ] = "loky",
    scheduler: Annotated[
        str | None,
        typer.Option(
            help="dask scheduler address tcp://HOST:PORT (--backend dask only); refused if it does not "
            "answer within 5 s."
        ),
    ] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Worker processes of --backend dask-local (default 2).")
    ] = None,
    fresh: Annotated[
        bool,
        typer.Option(
            "--fresh", "--no-resume", help="Discard finished tasks in the output directory and start over."
        ),
    ] = False,
    allow_mixed_code: Annotated[
        bool,
        typer.Option(
            help="Resume results begun by another fsbench commit, or keep tasks of a user selector "
            "computed from an earlier version of its file."
        ),
    ] = False,
    retry_failed: Annotated[bool, typer.Option(help="Run failed tasks again when resuming.")] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Validate, plan and count tasks (total, done, failed, to run) in seconds; run and write "
            "nothing.",
        ),
    ] = False,
    estimate: Annotated[
        bool,
        typer.Option(
            "--estimate",
            help="A --dry-run that also runs and times the largest task of every (dataset, kernel, "
            "selector) and estimates the CPU and wall time (can take minutes); writes nothing.",
        ),
    ] = False,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Run experiment config(s); finished tasks are saved at once and skipped when run again."""
    from fsbench.run.checks import check_backend_options, check_output

    check_backend_options(backend, scheduler, workers)  # before anything is read or created
    from fsbench.config.experiment import load_experiment

    exps = [
        load_experiment(
            c, {"repeats": repeats, "seed": seed, "exclude_selectors": exclude_selector, "coarse": coarse}
        )
        for c in configs
    ]
    # the engine (selectors, scikit-learn, pandas) only once every config has been read
    from fsbench.run.engine import dry_run as do_dry_run
    from fsbench.run.engine import run_experiment
    from fsbench.run.plan import validate

    names = [e.name for e in exps]
    if len(set(names)) != len(names):
        _fail(
            f"several configs share the experiment name(s) {sorted({n for n in names if names.count(n) > 1})}"
        )
    targets = {
        exp.name: (out if len(exps) == 1 else out / exp.name) if out else Path("results") / exp.name
        for exp in exps
    }
    dry_run = dry_run or estimate
    for exp in exps:  # every config and output directory is checked before the first one starts
        validate(exp)
        check_output(targets[exp.name])
    if dry_run:
        plans = [
            do_dry_run(
                exp,
                targets[exp.name],
                jobs=jobs,
                fresh=fresh,
                retry_failed=retry_failed,
                allow_mixed_code=allow_mixed_code,
                estimate=estimate,
            )
            for exp in exps
        ]
        for exp, plan in zip(exps, plans, strict=True):
            _print_plan(exp.name, plan, jobs=min(jobs, exp.jobs or jobs))
        return
    failures = []
    for exp in exps:
        target = targets[exp.name]
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
                eta=getattr(cb, "eta", None),
            )
        if summary.n_failed:
            failures.append(summary)
        _print_summary(exp.name, summary)
        _print_error_tables([target])
    for summary in failures:
        typer.echo(_failure_line(summary), err=True)
    if failures:
        raise typer.Exit(1)


def _print_plan(name: str, plan, jobs: int) -> None:
    """What a run would do (``--dry-run`` / ``--estimate``): counts per experiment and dataset."""
    failed = f", {plan.n_failed} of them failed" if plan.n_failed else ""
    typer.echo(
        f"{name}: {plan.n_tasks} tasks: {plan.n_done} done{failed}, {plan.n_todo} to run "
        f"(output {plan.out}; dry run: nothing run or written)"
    )
    if plan.n_discarded:
        typer.echo(f"  --fresh would discard {plan.n_discarded} task file(s)")
    if plan.n_failed:
        typer.echo(f"  {_retry_hint(plan.n_failed)}")
    if len(plan.datasets) > 1:
        for label, n, k in plan.datasets:
            typer.echo(f"  {label}: {n} tasks, {k} to run")
    for note in plan.notes:
        typer.echo(f"note: {note}", err=True)
    if plan.groups is None:
        return
    for g in plan.groups:
        typer.echo(
            f"  {g['dataset']:>24} {g['kernel']:>6} {g['selector']:>14}: {g['tasks']:5d} tasks x "
            f"{g['seconds_per_task']:.3f} s ({g['status']})"
        )
    typer.echo(
        f"  estimate: {plan.estimated_cpu_seconds / 60:.1f} CPU-min in all, "
        f"~{plan.estimated_wall_seconds / 60:.1f} min wall left with --jobs {jobs}"
    )


def _retry_hint(n_failed_kept: int) -> str:
    return f"{n_failed_kept} failed task(s) kept from an earlier run; --retry-failed runs them again"


def _print_summary(name: str, summary) -> None:
    """The one summary line of a run (stdout) and its notes (stderr)."""
    from fsbench.results.table_files import table_file

    for note in summary.notes:
        typer.echo(f"note: {note}", err=True)
    excluded = f" (excluded: {', '.join(summary.excluded)})" if summary.excluded else ""
    retry = f"; {_retry_hint(summary.n_failed_kept)}" if summary.n_failed_kept else ""
    typer.echo(
        f"{name}: {summary.n_tasks} tasks ({summary.n_skipped} resumed, {summary.n_run} run, "
        f"{summary.n_failed} failed) in {summary.seconds:.1f} s -> "
        f"{table_file(summary.out) or Path(summary.out) / 'results.csv'}"
        f"{excluded}{retry}"
    )


#: At most this many S columns (evenly spaced, first and last kept) and settings per summary.
_TABLE_COLUMNS, _TABLE_SETTINGS = 8, 6


def _print_error_tables(paths: list[Path]) -> None:
    """After ``run`` and ``report``: mean test error (%) per selector (rows) at each S (columns) of every
    setting (experiment, dataset, kernel, n_train) under ``paths``, the best of each S marked ``*``; at most
    :data:`_TABLE_SETTINGS` settings and :data:`_TABLE_COLUMNS` S values. pandas is imported here, after the
    work, not at start-up."""
    from fsbench.results.loading import find_result_dirs, read_results

    tables = []
    for d in find_result_dirs(paths):
        df = read_results(d)
        need = {"selector", "n_features", "error", "status", "dataset", "kernel", "n_train"}
        if not need <= set(df.columns):  # a diagnostic's table
            continue
        exp = str(df["experiment"].iloc[0]) if "experiment" in df.columns and len(df) else d.name
        # every row of a setting, failed ones too: they count the protocol's splits (_error_table pairs)
        for key, g in df.groupby(["dataset", "kernel", "n_train"], sort=False):
            if (g["status"] == "ok").any():
                tables.append((f"{exp}: {key[0]}, {key[1]} kernel, n_train={key[2]}", g))
    for title, g in tables[:_TABLE_SETTINGS]:
        typer.echo("")
        for line in _error_table(title, g):
            typer.echo(line)
    if len(tables) > _TABLE_SETTINGS:
        typer.echo(
            f"({len(tables) - _TABLE_SETTINGS} more setting(s): see `fsbench report` / `fsbench plot`)"
        )


def _error_table(title: str, rows) -> list[str]:
    """The lines of one setting's table (:func:`_print_error_tables`): at each S, every selector's mean over
    the splits all of them finished there (:func:`fsbench.results.pairing.paired_cells`, where the rows
    name their splits), with a last line naming the S where that is fewer than the protocol's."""
    from fsbench.results.pairing import paired_cells

    short = None
    if "repeat" in rows.columns:
        rows, report = paired_cells(rows, "error", cell=("n_features",), setting=())
        short = report[(report["common"] < report["splits"]) & report["n_features"].isin(rows["n_features"])]
    elif "status" in rows.columns:
        rows = rows[rows["status"] == "ok"]
    mean = rows.groupby(["selector", "n_features"], sort=False)["error"].mean().mul(100).unstack()
    mean = mean[sorted(mean.columns)]
    cols = list(mean.columns)
    if len(cols) > _TABLE_COLUMNS:  # evenly spaced, first and last kept
        idx = sorted({round(i * (len(cols) - 1) / (_TABLE_COLUMNS - 1)) for i in range(_TABLE_COLUMNS)})
        cols = [cols[i] for i in idx]
    names = {s: s if len(s) <= 24 else s[:23] + "~" for s in map(str, mean.index)}
    width = max(len("selector"), *map(len, names.values()))
    lines = [f"mean test error (%) — {title}  (* = lowest at that S)"]
    lines.append(f"{'selector':<{width}}" + "".join(f"{'S=' + format(c, 'g'):>9}" for c in cols))
    best = {c: mean[c].min() for c in cols}
    for sel in mean.index:
        cells = []
        for c in cols:
            v = mean.at[sel, c]
            cells.append(f"{'-':>8} " if v != v else f"{v:8.1f}" + ("*" if v == best[c] else " "))
        lines.append(f"{names[str(sel)]:<{width}}" + "".join(cells).rstrip())
    if short is not None and len(short):
        lo, hi, n = short["common"].min(), short["common"].max(), short["splits"].max()
        k = f"{lo}" if lo == hi else f"{lo}-{hi}"
        lines.append(
            f"(failed tasks: at {len(short)} S the means are over the {k} of {n} splits all finished)"
        )
    return lines


def _failure_line(summary) -> str:
    """One line: how many tasks failed, where their tracebacks are, and the first failure."""
    line = f"{summary.n_failed} task(s) failed; tracebacks in {summary.out}/tasks/<task_id>.json"
    if summary.first_failure is not None:
        path, message = summary.first_failure
        line += f"; first: {path.name}: {message}"
    return line


@app.command()
@user_errors
def diagnose(
    config: Annotated[Path, typer.Argument(help="Diagnostic config YAML file (has a 'diagnostic:' key).")],
    out: Annotated[Path | None, typer.Option(help="Output directory. Default: results/<name>.")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Parallel worker processes.")] = 1,
    repeats: Annotated[int | None, typer.Option(min=1, help="Override protocol.repeats.")] = None,
    seed: Annotated[int | None, typer.Option(min=0, help="Override the config seed.")] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="Discard finished tasks and start over.")] = False,
    allow_mixed_code: Annotated[
        bool,
        typer.Option(
            help="Resume results begun by another fsbench commit, or keep tasks of a user selector "
            "computed from an earlier version of its file."
        ),
    ] = False,
    retry_failed: Annotated[bool, typer.Option(help="Run failed tasks again when resuming.")] = False,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Run a diagnostic (an analysis that is not select-then-classify) on the run store, then draw it."""
    from fsbench.config.experiment import load_experiment

    exp = load_experiment(config, {"repeats": repeats, "seed": seed}, kind="diagnostic")
    from fsbench.diagnostics.registry import get_diagnostic
    from fsbench.run.engine import run_experiment

    target = out or Path("results") / exp.name
    with _progress_bar(exp.name, enabled=progress) as cb:
        summary = run_experiment(
            exp,
            target,
            jobs=jobs,
            fresh=fresh,
            allow_mixed_code=allow_mixed_code,
            retry_failed=retry_failed,
            progress=cb,
            eta=getattr(cb, "eta", None),
        )
    _print_summary(exp.name, summary)
    for path in get_diagnostic(exp.diagnostic, exp.plugins).render(Path(target), exp):
        typer.echo(str(path))
    if summary.n_failed:
        typer.echo(_failure_line(summary), err=True)
        raise typer.Exit(1)


class _progress_bar:
    """Tasks done / total with ETA (rich, which typer already depends on); silent when not a TTY.

    The ETA is the run's own (``cb.eta``, fed by :class:`fsbench.run.eta.GroupEta` from the measured cost of
    each (dataset, kernel, selector) group), not rich's extrapolation of the recent completion rate, which
    tasks of very different cost make wrong; "ETA -" until every group left has a measured task."""

    def __init__(self, label: str, enabled: bool = True):
        self.label, self.enabled = label, enabled and sys.stderr.isatty()
        self.bar = self.task = None

    def __enter__(self):
        if not self.enabled:
            return None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        from fsbench.run.eta import format_eta

        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("ETA {task.fields[eta]}"),
            transient=False,
        )
        self.bar.start()
        self.task = self.bar.add_task(self.label, total=None, eta=format_eta(None))

        def cb(done: int, total: int) -> None:
            self.bar.update(self.task, completed=done, total=total)

        def eta(seconds: float | None) -> None:
            self.bar.update(self.task, eta=format_eta(seconds))

        cb.eta = eta
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
    selectors: Annotated[
        str | None,
        typer.Option(
            "--selectors",
            help="Comma-separated selectors to draw and tabulate, each a config label (that label "
            "only) or else a registry name (every label of it), e.g. --selectors sas,rfe,all; include "
            "`all` to keep the all-features baseline. Unknown ones are refused. Default: every selector.",
        ),
    ] = None,
    selector: Annotated[
        list[str] | None,
        typer.Option("--selector", help="One selector to draw (repeat); adds to --selectors."),
    ] = None,
    bands: Annotated[
        bool | None,
        typer.Option(
            "--bands/--no-bands",
            # the 5 is fsbench.plots.BANDS_MAX (not imported here: matplotlib would load for every command)
            help="Shade the 95 % confidence interval of each mean. Default: bands only in figures "
            "with at most 5 selectors (the `all` baseline counts), where they do not hide the lines.",
            show_default=False,
        ),
    ] = None,
    jobs: Annotated[
        int,
        typer.Option("--jobs", "-j", min=1, help="Worker processes drawing result directories in parallel."),
    ] = 1,
) -> None:
    """Error-vs-S and error-vs-n_train curves (test error in %), CPU time vs n or D (log-log, fitted
    exponent), CPU-time tables (PNG, PDF, MD, CSV); progress on stderr."""
    from fsbench.plots.experiment import PlotError, parse_selectors, plot_results

    wanted = parse_selectors([*(selector or []), *([selectors] if selectors else [])])
    try:
        # one line per result directory on stderr: the whole results tree takes a while
        progress = partial(typer.echo, err=True)
        written = plot_results(results_dirs, out, selectors=wanted, bands=bands, progress=progress, jobs=jobs)
    except PlotError as exc:
        _fail(str(exc))
    if not written:
        from fsbench.results.loading import no_results_message

        _fail(no_results_message(results_dirs))
    for path in written:
        typer.echo(str(path))


@app.command()
@user_errors
def report(
    results_dir: Annotated[
        Path, typer.Argument(help="Directory holding one or more experiment result dirs.")
    ],
    paper: Annotated[
        str | None,
        typer.Option(
            help="Compare with a paper: its folder (configs/<paper>: configs, paper_values.yaml, notes.md, "
            "hooks.py) or the folder's bare name under configs/."
        ),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Report path (default: RESULTS_DIR/REPORT.md).")] = None,
    allow_incomplete: Annotated[
        bool,
        typer.Option(help="Report although a run under RESULTS_DIR has not finished (partial tables)."),
    ] = False,
    html: Annotated[
        bool,
        typer.Option(
            "--html",
            help="Also write REPORT.html beside REPORT.md: the report with every figure of the folder "
            "(linked, not embedded: read it in place), the comparison across datasets and provenance.",
        ),
    ] = False,
    html_only: Annotated[
        bool,
        typer.Option(
            "--html-only",
            help="Only write REPORT.html, from the REPORT.md already there (e.g. the committed one, which "
            "fsbench build keeps up to date): nothing is recomputed.",
        ),
    ] = False,
    cross_dataset: Annotated[
        bool,
        typer.Option(
            "--cross-dataset",
            help="Add the cross-dataset report over every result directory (the benchmark's page: tests "
            "against the best-ranked selector, does selection help, evaluators, recommendation); tables and "
            "figures under RESULTS_DIR/analysis/.",
        ),
    ] = False,
) -> None:
    """Write REPORT.md: figures, mean ± std tables with paired t-tests, ranks, and paper vs ours.

    A run that has not finished all its tasks is refused (exit 2, nothing written), so that an interrupted
    reproduction never replaces a committed report by a partial one; finish it (run the same command again)
    or pass --allow-incomplete.
    """
    from fsbench.results.identity import ReportTargetError, report_target

    try:  # what the directory is decides what its report is (a paper folder's is built, never replaced)
        target = report_target(results_dir, paper, out)
    except ReportTargetError as exc:
        _fail(str(exc))
    if target.action == "build" and html_only:  # REPORT.html is not committed: rendered in place
        target = replace(target, action="write", out=target.results_root / target.name / "REPORT.md")
    if target.action == "build":
        if cross_dataset:
            _fail(
                f"{results_dir}: a paper folder's page is laid out by its folder (configs/{target.name}); "
                "--cross-dataset is for other directories (write one elsewhere with --out FILE)"
            )
        if allow_incomplete:
            _fail(
                f"{results_dir}: a paper folder's report is what `fsbench build` makes of finished runs; "
                "--allow-incomplete is for other directories (write one elsewhere with --out FILE)"
            )
        from fsbench.build import BuildError
        from fsbench.build import build as do_build

        try:
            summary = do_build(target.results_root, target.configs_root, [target.name])
        except BuildError as exc:
            _fail(str(exc))
        path = Path(results_dir) / "REPORT.md"
        n = sum(len(v) for v in summary.written.values())
        typer.echo(f"{path} (built as `fsbench build --paper {target.name}`: {n} derived files)")
    else:
        path = _write_plain_report(results_dir, target, allow_incomplete, html_only, cross_dataset)
        if html_only:
            return
    if html:
        from fsbench.results.report_html import write_report_html

        typer.echo(str(write_report_html(path, path.parent)))


def _write_plain_report(
    results_dir: Path, target, allow_incomplete: bool, html_only: bool, cross_dataset: bool = False
) -> Path:
    """``fsbench report`` on a directory that is not a project's paper folder: one report, at
    ``target.out``."""
    from fsbench.report import write_report
    from fsbench.results.report_html import write_report_html
    from fsbench.run.engine import unfinished_runs

    if html_only:
        md = target.out
        if not md.is_file():
            _fail(f"{md}: no REPORT.md to render; write it first (`fsbench report {results_dir}` or build)")
        typer.echo(str(write_report_html(md, Path(results_dir))))
        return md
    if not allow_incomplete:
        partial = unfinished_runs(results_dir)
        if partial:
            more = f" (and {len(partial) - 1} more)" if len(partial) > 1 else ""
            _fail(
                f"{partial[0].path}: the run has not finished ({partial[0].describe()}){more}; rerun it to "
                "finish, "
                "or pass --allow-incomplete for a partial report"
            )
    try:
        path = write_report(
            results_dir, paper_dir=target.paper_dir, out=target.out, cross_dataset=cross_dataset
        )
    except (FileNotFoundError, ValueError) as exc:
        _fail(str(exc))
    typer.echo(str(path))
    if target.paper_dir is None:  # a paper comparison's report says more than the table
        _print_error_tables([results_dir])
    return path


def _update_facts(repo: Path, results_root: Path) -> list[Path]:
    """Rewrite the marked prose numbers of ``repo``'s docs and notes (:mod:`fsbench.results.facts`),
    saying which files changed and which markers could not be computed; the changed files."""
    from fsbench.results import facts

    changed, failed = facts.update(repo, results_root)
    for f in changed:
        typer.echo(f"{f}: marked numbers updated")
    for m in failed:
        typer.echo(f"warning: {m.line(repo)}", err=True)
    return changed


@app.command()
@user_errors
def build(
    results_root: Annotated[
        Path, typer.Argument(help="The results tree: one folder per paper (configs/<paper>).")
    ] = Path("results"),
    configs: Annotated[Path, typer.Option(help="The configs tree: one folder per paper.")] = Path("configs"),
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Build a copy of the inputs in a temporary directory and compare it with the files in "
            "place (nothing in place is written); exit 1 on any difference.",
        ),
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(help="Build a copy of the inputs into this new directory instead of in place (kept)."),
    ] = None,
    paper: Annotated[
        list[str] | None, typer.Option("--paper", help="Only this paper folder (repeat); default: all.")
    ] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Parallel worker processes.")] = 1,
    docs: Annotated[
        Path | None,
        typer.Option(
            help="The doc whose generated status block (cells and claims per paper) follows the reports "
            "(default: docs/reproductions.md beside the configs tree); skipped if it has no such block."
        ),
    ] = None,
    html: Annotated[
        bool,
        typer.Option(
            "--html",
            help="Also write each built paper's REPORT.html from its new REPORT.md (not committed).",
        ),
    ] = False,
) -> None:
    """Delete and regenerate every derived file of results/<paper>/ (figures, CPU tables, stability,
    ground truth, diagnostics' tables, REPORT.md) from its results.csv / rankings.csv / run.json, then the
    status block of --docs; runs no task."""
    from fsbench.build import BuildError, build_copy, check_build
    from fsbench.build import build as do_build
    from fsbench.results import facts
    from fsbench.results.docs_status import BEGIN, render_status, replace_block, update_docs

    repo = configs.resolve().parent  # README.md, docs/, configs/*/{notes,departures}.md: marked prose numbers
    docs = docs if docs is not None else repo / "docs" / "reproductions.md"
    # a doc without the generated block (a project of your own) is left alone
    has_block = docs.is_file() and BEGIN in docs.read_text(encoding="utf-8")

    log = typer.echo if not check else None
    try:
        if check:
            res = check_build(results_root, configs, paper, jobs=jobs, out=out)
            typer.echo(res.summary())
            for line in res.lines():
                typer.echo(line)
            stale_docs = has_block and (
                replace_block(text := docs.read_text(encoding="utf-8"), render_status(results_root)) != text
            )
            if stale_docs:
                typer.echo(f"differs: {docs} (its generated status block)")
            stale_facts = facts.check(repo, results_root)
            for m in stale_facts:
                typer.echo(f"differs: {m.line(repo)} (a marked prose number; fsbench build rewrites it)")
            if not res.ok or stale_docs or stale_facts:
                raise typer.Exit(1)
            return
        if out is None:  # before the reports, which show the notes with their marked numbers
            _update_facts(repo, results_root)
        if out is not None:
            summary = build_copy(results_root, out, configs, paper, jobs=jobs, log=log)
        else:
            summary = do_build(results_root, configs, paper, jobs=jobs, log=log)
    except BuildError as exc:
        _fail(str(exc))
    n = sum(len(v) for v in summary.written.values())
    typer.echo(f"built {', '.join(summary.papers)}: {n} derived files in {summary.seconds:.0f} s")
    if html:
        from fsbench.results.report_html import write_report_html  # matplotlib/markdown: not at start-up

        root = out if out is not None else results_root
        for name in summary.papers:
            typer.echo(str(write_report_html(root / name / "REPORT.md", root / name)))
    if out is None and has_block:
        changed = update_docs(docs, results_root)
        typer.echo(f"{docs}: status block {'updated' if changed else 'up to date'}")
    if out is None:  # facts read from the reports just built; a paper whose notes changed is built again
        again = [p for p in facts.notes_papers(_update_facts(repo, results_root)) if p in summary.papers]
        if again:
            do_build(results_root, configs, again, jobs=jobs, log=log)
    if summary.not_run and not paper:
        typer.echo(f"not run yet (no result table under {results_root}): {', '.join(summary.not_run)}")
    if summary.skipped and not paper:  # with --paper, the others are left out on purpose
        names = ", ".join(d.name for d in summary.skipped)
        typer.echo(f"not built (no folder of the same name in {configs}): {names}")


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
    fraction: Annotated[
        float | None,
        typer.Option(
            "--fraction",
            help="Only S = this fraction of each dataset's D (rounded as fraction_of_D in a config): one "
            "block per dataset, so datasets of different D are compared at the same share of features.",
        ),
    ] = None,
    pool: Annotated[
        bool,
        typer.Option(
            "--pool",
            help="The directories are parts of one experiment (e.g. a benchmark and a config adding one "
            "selector with `base:`): pair their selectors on the shared splits (checked by split_seed).",
        ),
    ] = False,
) -> None:
    """Rank selectors across datasets: Friedman / Iman-Davenport, Nemenyi CD, Holm-corrected Wilcoxon."""
    from fsbench.results.compare import run_compare
    from fsbench.results.stats_compare import CompareError

    try:
        text, written = run_compare(
            results_dirs, metric, alpha, selector, include_all, keep_full, per_dataset, out, fraction, pool
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
    """Every dataset card, with shape and local availability (yes, no, or corrupt (sha256 mismatch))."""
    from fsbench.data import list_cards
    from fsbench.data.sources import availability

    rows = [(card, availability(card).label) for card in list_cards()]
    width = max((len(label) for _, label in rows), default=3)
    for card, label in rows:
        shape = f"{card.n_samples if card.n_samples is not None else '∞'} x {card.n_features}"
        avail = f"available: {label:{width}}"
        typer.echo(f"{card.name:28} {card.kind:9} {shape:>12}  {avail}  {card.description}")
    if any(label != "yes" for _, label in rows):
        typer.echo(
            "to get a dataset: set FSBENCH_DATA_DIR=/path/to/mirror, or run `fsbench datasets download NAME` "
            "(`fsbench datasets info NAME` tells which applies)",
            err=True,
        )


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
    """Check local data files against the cards' sha256 and print a summary.

    Exit code: 2 if the named dataset has no valid copy (missing, or only corrupt files); otherwise 1 if a
    file that was found is corrupt (sha256 mismatch); 0 otherwise. Without NAME, missing files are normal
    (exit 0) and only corrupt ones fail (exit 1).
    """
    from fsbench.data import get_card, list_cards, verify
    from fsbench.data.sources import CORRUPT, availability, downloadable, how_to_get

    for card_name, path, status, message in verify(name):
        status = "corrupt" if status == "mismatch" else status
        typer.echo(f"{status:8} {card_name:28} {path or '-'}  {message}")
    cards = [get_card(name)] if name is not None else list_cards()
    states = {card.name: availability(card) for card in cards}
    n_ok = sum(a.state == "ok" and not a.corrupt for a in states.values())
    n_corrupt = sum(bool(a.corrupt) for a in states.values())
    n_missing = sum(a.state == "missing" for a in states.values())
    typer.echo(
        f"{n_ok} ok, {n_corrupt} corrupt, {n_missing} missing "
        f"({len(cards)} dataset{'s' if len(cards) != 1 else ''}; synthetic ones need no file)"
    )
    if name is not None and states[name].state != "ok":
        what = "missing" if states[name].state == "missing" else CORRUPT
        _fail(f"dataset '{name}' has no valid copy ({what}); to get it, {how_to_get(cards[0])}")
    if n_missing and name is None:
        fetchable = [c.name for c in cards if states[c.name].state == "missing" and downloadable(c)]
        typer.echo(
            "to get a missing dataset: set FSBENCH_DATA_DIR=/path/to/mirror"
            + (f", or run `fsbench datasets download NAME` for {', '.join(fetchable)}" if fetchable else ""),
            err=True,
        )
    if n_corrupt:
        raise typer.Exit(1)


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
    """Registered selectors: kind (rank / transform / subset), one-line description and citation."""
    from fsbench.algorithms.registry import _SELECTORS, available, info

    for name in available():
        # read from the source (ast) without importing the selector's module (scikit-learn, scipy, ...);
        # the import only when the source does not say it plainly
        meta = _static_info(_SELECTORS[name]) or info(name)
        typer.echo(f"{name:20} {meta.kind:9} {meta.description}  [{meta.citation}]")


#: The class attributes ``fsbench selectors list`` prints (:func:`fsbench.algorithms.registry.info`).
_LISTED = ("description", "citation", "kind")


def _static_info(path: str):
    """``info(name)``'s kind, description and citation of the class at ``module:Class``, read from the
    source with :mod:`ast` instead of importing it: ``description`` / ``citation`` / ``kind`` as string
    literals in the class body or in that of a base class of an fsbench module (inherited as Python
    would, in MRO order), else the docstring's first line. None when the source leaves any doubt (a value
    that is not a literal, a base class outside fsbench and scikit-learn, a module not found): the caller
    then imports the class."""
    from types import SimpleNamespace

    from fsbench.algorithms.registry import selector_kind

    module, _, cls_name = path.partition(":")
    found = _static_class(module, cls_name)
    if found is None:
        return None
    doc, attrs = found
    kind = selector_kind(SimpleNamespace(kind=attrs.get("kind")))
    lines = (doc or "").strip().splitlines()
    description = attrs.get("description", "") or (lines[0] if lines else "")
    return SimpleNamespace(kind=kind, description=description, citation=attrs.get("citation", ""))


@cache  # base classes and several selectors share a module: parse each once
def _module_tree(module: str):
    import ast
    import importlib.util

    try:
        spec = importlib.util.find_spec(module)  # imports the parent packages only
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return ast.parse(Path(spec.origin).read_text(encoding="utf-8"))


def _static_class(module: str, cls_name: str, depth: int = 0):
    """(docstring, {attribute: literal str} over the class and its fsbench bases) or None."""
    import ast

    tree = _module_tree(module) if module.startswith("fsbench.") and depth < 10 else None
    if tree is None:
        return None
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    imported = {
        a.asname or a.name: (n.module, a.name)
        for n in tree.body
        if isinstance(n, ast.ImportFrom) and n.module and not n.level
        for a in n.names
    }
    node = classes.get(cls_name)
    if node is None:
        return None
    own: dict[str, str] = {}
    for stmt in node.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
        names = [t.id for t in targets if isinstance(t, ast.Name) and t.id in _LISTED]
        if not names:
            continue
        value = getattr(stmt, "value", None)
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            return None
        for n in names:
            own[n] = value.value
    merged: dict[str, str] = {}
    for base in reversed(node.bases):  # the first base wins, as in the MRO of single-rooted hierarchies
        if isinstance(base, ast.Name) and base.id in classes:
            got = _static_class(module, base.id, depth + 1)
        elif isinstance(base, ast.Name) and base.id in imported:
            src, name = imported[base.id]
            if src.split(".")[0] == "sklearn":  # scikit-learn's mixins and estimators set none of _LISTED
                continue
            got = _static_class(src, name, depth + 1)
        elif isinstance(base, ast.Name) and base.id == "object":
            continue
        else:
            return None
        if got is None:
            return None
        merged.update(got[1])
    merged.update(own)
    return ast.get_docstring(node, clean=False), merged


@selectors_app.command("info")
def selectors_info(
    name: Annotated[str, typer.Argument(help="Registered name, or package.module:Class.")],
) -> None:
    """One selector: class, kind (rank / transform / subset), parameters with defaults, citation."""
    from fsbench.algorithms.registry import KINDS, UnknownSelectorError, info

    try:
        meta = info(name)
    except UnknownSelectorError as exc:
        _fail(_with_suggestion(str(exc).replace("\n", " ")))
    typer.echo(f"{meta.name}: {meta.description}")
    typer.echo(f"  class:      {meta.class_path}")
    typer.echo(f"  kind:       {meta.kind} — {KINDS[meta.kind]}")
    typer.echo(f"  citation:   {meta.citation or '-'}")
    typer.echo("  parameters:" + ("" if meta.params else " (none)"))
    width = max((len(p) for p in meta.params), default=0)
    for param, default in meta.params.items():
        typer.echo(f"    {param:{width}} = {default!r}")


# every command names its values readably in --help (:class:`_Command`)
for _info in (
    *app.registered_commands,
    *datasets_app.registered_commands,
    *selectors_app.registered_commands,
):
    if _info.cls in (None, typer.core.TyperCommand):
        _info.cls = _Command


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
