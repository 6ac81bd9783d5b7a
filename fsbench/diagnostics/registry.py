"""Which class a config's ``diagnostic:`` names, like a selector plug-in.

A diagnostic is named as ``module:Class`` (a :class:`~fsbench.diagnostics.base.Diagnostic` subclass),
imported from the config's ``plugins`` directories (relative to the config file) or from any installed
package. A paper's own diagnostic lives in the paper's folder: ``configs/<paper>/my_diagnostic.py`` is run by
``diagnostic: my_diagnostic:MyDiagnostic`` with ``plugins: ["."]``. A diagnostic
that serves every paper may also be registered here by a bare name (:data:`DIAGNOSTICS`; none today).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from pathlib import Path

from fsbench.config.experiment import Experiment, load_experiment, parse_experiment
from fsbench.diagnostics.base import Diagnostic
from fsbench.evaluation.plugins import activate
from fsbench.results.loading import read_run

#: Bare names of diagnostics shipped with fsbench → ``module:Class``.
DIAGNOSTICS: dict[str, str] = {}


class UnknownDiagnosticError(LookupError):
    """A diagnostic that cannot be found or is not a :class:`Diagnostic` (one line)."""


def get_diagnostic(name: str, plugins: Iterable[str] = ()) -> Diagnostic:
    """An instance of the diagnostic ``name``: ``module:Class`` (imported with the ``plugins`` directories
    on ``sys.path``) or a bare name of :data:`DIAGNOSTICS`.

    Raises
    ------
    UnknownDiagnosticError
        If the module or class cannot be imported, or the class is not a :class:`Diagnostic`.
    """
    path = name if ":" in name else DIAGNOSTICS.get(name)
    if path is None:
        known = ", ".join(sorted(DIAGNOSTICS)) or "none"
        raise UnknownDiagnosticError(
            f"unknown diagnostic {name!r}; expected module:Class (a Diagnostic subclass; its folder in the "
            f"config's plugins) or a registered name ({known})"
        )
    activate(plugins)
    module, _, attr = path.partition(":")
    try:
        cls = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise UnknownDiagnosticError(f"diagnostic {name!r}: cannot import {path} ({exc})") from None
    if not (isinstance(cls, type) and issubclass(cls, Diagnostic)):
        raise UnknownDiagnosticError(
            f"diagnostic {name!r}: {path} is not a subclass of fsbench.diagnostics.base.Diagnostic"
        )
    return cls()


def diagnostic_experiment(result_dir: Path, configs: Path) -> Experiment:
    """The diagnostic's experiment as it ran: ``run.json``'s effective config (the config file named by
    ``run.json`` in ``configs`` where the effective config is missing), with its source in ``configs``
    (settings such as ``paper_values`` and the ``plugins`` directories are relative to it)."""
    run = read_run(result_dir)
    source = Path(configs) / Path(str(run.get("config_file") or f"{Path(result_dir).name}.yaml")).name
    if run.get("effective_config"):
        return parse_experiment(run["effective_config"], source, kind="diagnostic")
    return load_experiment(source, kind="diagnostic")


def render_result_dir(result_dir: Path, configs: Path) -> list[Path]:
    """Re-render a diagnostic's derived files (tables, figures) from its ``results.csv``: what
    ``fsbench build`` does for a diagnostic, and what a report needs in a fresh clone."""
    exp = diagnostic_experiment(result_dir, configs)
    return get_diagnostic(exp.diagnostic, exp.plugins).render(Path(result_dir), exp)
