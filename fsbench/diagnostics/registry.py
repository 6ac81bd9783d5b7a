"""Diagnostic name → class (imported only when asked for)."""

from __future__ import annotations

import importlib

from fsbench.diagnostics.base import Diagnostic

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
