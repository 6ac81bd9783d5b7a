"""Diagnostic name → class (imported only when asked for)."""

from __future__ import annotations

import importlib
from pathlib import Path

from fsbench.config import Experiment, load_experiment, parse_experiment
from fsbench.diagnostics.base import Diagnostic
from fsbench.results.loading import read_run

DIAGNOSTICS: dict[str, str] = {
    "takes_reconstruction": "fsbench.diagnostics.takes_reconstruction:TakesReconstruction",
    "kife_projection": "fsbench.diagnostics.kife_projection:KifeProjection",
    "usps_pixel_bound": "fsbench.diagnostics.usps_pixel_bound:UspsPixelBound",
}


class UnknownDiagnosticError(LookupError):
    """A diagnostic name that is not registered."""


def get_diagnostic(name: str) -> Diagnostic:
    """An instance of the diagnostic ``name``."""
    path = DIAGNOSTICS.get(name)
    if path is None:
        raise UnknownDiagnosticError(
            f"unknown diagnostic {name!r}; expected one of {', '.join(sorted(DIAGNOSTICS))}"
        )
    module, _, cls = path.partition(":")
    return getattr(importlib.import_module(module), cls)()


def diagnostic_experiment(result_dir: Path, configs: Path) -> Experiment:
    """The diagnostic's experiment as it ran: ``run.json``'s effective config (the config file named by
    ``run.json`` in ``configs`` where the effective config is missing), with its source in ``configs``
    (settings such as ``paper_values`` are relative to it)."""
    run = read_run(result_dir)
    source = Path(configs) / Path(str(run.get("config_file") or f"{Path(result_dir).name}.yaml")).name
    if run.get("effective_config"):
        return parse_experiment(run["effective_config"], source, kind="diagnostic")
    return load_experiment(source, kind="diagnostic")


def render_result_dir(result_dir: Path, configs: Path) -> list[Path]:
    """Re-render a diagnostic's derived files (tables, figures) from its ``results.csv``: what
    ``fsbench build`` does for a diagnostic, and what a report needs in a fresh clone."""
    exp = diagnostic_experiment(result_dir, configs)
    return get_diagnostic(exp.diagnostic).render(Path(result_dir), exp)
