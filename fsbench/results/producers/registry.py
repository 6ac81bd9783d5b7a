"""The producers' registry and the one way they are called (see :mod:`fsbench.results.producers`)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from fsbench.results.loading import Results


class ProducerContext(Protocol):
    """What a producer gets (:class:`fsbench.papers.folder.ReportContext` is one)."""

    results_dir: Path
    root: Path
    values: dict[str, Any]
    results: Results

    def rel(self, path: Path) -> str:
        """``path`` as the report links it (relative to :attr:`root`)."""


Producer = Callable[..., list[str]]
#: kind -> producer function (filled by :func:`register` when the modules below are imported).
PRODUCERS: dict[str, Producer] = {}


class ProducerError(ValueError):
    """A declared producer that does not exist or gets parameters it does not take (one line)."""


def register(kind: str) -> Callable[[Producer], Producer]:
    """Register ``producer`` under ``kind`` (a decorator)."""

    def deco(func: Producer) -> Producer:
        PRODUCERS[kind] = func
        return func

    return deco


def _check(spec: Any, where: str) -> tuple[Producer, dict[str, Any]]:
    if not isinstance(spec, Mapping) or "kind" not in spec:
        raise ProducerError(f"{where}: expected a mapping with a 'kind' key, got {spec!r}")
    kind = str(spec["kind"])
    if kind not in PRODUCERS:
        raise ProducerError(f"{where}: unknown producer kind {kind!r}; known: {', '.join(sorted(PRODUCERS))}")
    func = PRODUCERS[kind]
    params = {str(k): v for k, v in spec.items() if k != "kind"}
    sig = inspect.signature(func)
    taken = [p for p in list(sig.parameters)[1:] if sig.parameters[p].kind is inspect.Parameter.KEYWORD_ONLY]
    unknown = sorted(set(params) - set(taken))
    if unknown:
        raise ProducerError(f"{where}: producer {kind!r} takes no {unknown}; it takes {', '.join(taken)}")
    missing = [p for p in taken if sig.parameters[p].default is inspect.Parameter.empty and p not in params]
    if missing:
        raise ProducerError(f"{where}: producer {kind!r} needs {missing}")
    return func, params


def check_producers(specs: Sequence[Any], where: str) -> None:
    """Refuse a declaration that names an unknown kind or parameter (:class:`ProducerError`)."""
    for i, spec in enumerate(specs or ()):
        _check(spec, f"{where}[{i}]")


def run_producers(specs: Sequence[Any], ctx: ProducerContext, where: str = "report.producers") -> list[str]:
    """Run the declared producers in order; their Markdown lines, concatenated.

    Parameters
    ----------
    specs : sequence of mapping
        The declarations: ``kind`` and the producer's parameters.
    ctx : ProducerContext
    where : str
        Where the declarations come from, for the error message (file and key).

    Raises
    ------
    ProducerError
        Before anything runs, if a declaration is malformed.
    """
    checked = [_check(spec, f"{where}[{i}]") for i, spec in enumerate(specs or ())]
    lines: list[str] = []
    for func, params in checked:
        lines += [str(line) for line in func(ctx, **params)]
    return lines


def run_dir(ctx: ProducerContext, run: str) -> Path:
    """The result directory ``run`` under the report's results directory."""
    return Path(ctx.results_dir) / run
