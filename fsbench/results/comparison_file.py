"""The file ``comparison.json`` of a paper folder, read as plain JSON by the results layer.

``fsbench build`` writes the comparison with a paper beside its report as ``results/<paper>/comparison.json``
(:mod:`fsbench.papers.comparison`: the object, its fields and how it is written). The results layer may
not import the paper layer, so the readers here — the status block of ``docs/reproductions.md``
(:mod:`fsbench.results.docs_status`) and the ``report_*`` prose facts (:mod:`fsbench.results.facts`) —
read the file as JSON data, by the field names of that object. Only stored counts are read; nothing here
recomputes a verdict, and nothing reads ``REPORT.md``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: The file name of a paper's comparison, beside its ``REPORT.md``.
COMPARISON_FILE = "comparison.json"

#: The claim statuses counted in ``claim_counts`` (:data:`fsbench.papers.checks.HOLDS` and the others).
CLAIM_HOLDS, CLAIM_FAILS, CLAIM_NOT_EVALUABLE = "holds", "does not hold", "not evaluable"
CLAIM_NOT_CHECKABLE = "not machine-checkable"
#: The class of a differing cell that a reading explains (:data:`fsbench.papers.readings.EXPLAINED`).
EXPLAINED = "explained"


def comparison_path(folder: Path) -> Path:
    """``folder/comparison.json``."""
    return Path(folder) / COMPARISON_FILE


def read_comparison_file(folder: Path) -> dict[str, Any] | None:
    """The comparison of a paper folder as JSON data, or None if the folder has none (not a paper).

    Parameters
    ----------
    folder : Path
        A paper folder of the results tree (``results/<paper>``).

    Returns
    -------
    dict or None
    """
    path = comparison_path(folder)
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))
