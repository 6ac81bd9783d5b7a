"""The one Markdown table writer (:func:`md_table`, :func:`to_markdown`), CSV + Markdown writing, and figure
saving, shared by the analyses, the plots and the reports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd


def _cell(v: object, digits: int) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (float, np.floating)):
        if np.isnan(v):
            return "–"
        # p-values and stabilities span many magnitudes: significant digits, not fixed decimals
        return f"{v:.{digits}g}"
    return str(v)


def md_table(header: list[str], rows: list[list[Any]], escape: bool = False) -> str:
    """A GitHub pipe table of ``rows`` under ``header``, a trailing newline included.

    Parameters
    ----------
    header : list of str
        Column titles.
    rows : list of list
        Cells, written with ``str``.
    escape : bool
        Protect ``|`` and newlines in the cells (titles are written as given).

    Returns
    -------
    str
    """

    def cell(c: Any) -> str:
        return str(c).replace("|", "\\|").replace("\n", " ") if escape else str(c)

    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def to_markdown(df: pd.DataFrame, digits: int = 4) -> str:
    """A GitHub pipe table of ``df`` (:func:`md_table`, cells escaped; floats with ``digits`` significant
    digits, NaN as an en dash, booleans as yes/no)."""
    rows = [[_cell(v, digits) for v in row] for row in df.itertuples(index=False)]
    return md_table([str(c) for c in df.columns], rows, escape=True)


def write_table(df: pd.DataFrame, stem: Path, title: str, note: str = "", digits: int = 4) -> list[Path]:
    """Write ``stem.csv`` (full precision) and ``stem.md`` (title, note, rounded table); return both."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    csv_path, md_path = stem.with_suffix(".csv"), stem.with_suffix(".md")
    df.to_csv(csv_path, index=False)
    text = f"# {title}\n\n" + (f"{note.strip()}\n\n" if note.strip() else "") + to_markdown(df, digits)
    md_path.write_text(text, encoding="utf-8")
    return [csv_path, md_path]


#: Metadata of a saved figure, per format: matplotlib would otherwise write its version (PNG ``Software``,
#: PDF ``Creator`` and ``Producer``) and the date (PDF ``CreationDate``); without them the same figure
#: gives the same bytes whenever it is drawn (by the same matplotlib).
FIGURE_METADATA: dict[str, dict[str, None]] = {
    "png": {"Software": None},
    "pdf": {"Creator": None, "Producer": None, "CreationDate": None},
}


def figure_metadata(path: Path, fmt: str | None = None) -> dict[str, None] | None:
    """:data:`FIGURE_METADATA` of the format ``fmt`` (default: ``path``'s suffix); ``None`` for another
    format (matplotlib's default)."""
    return FIGURE_METADATA.get((fmt or Path(path).suffix.lstrip(".")).lower())


def save_figure(fig, stem: Path, dpi: int = 120, tight: bool = True) -> list[Path]:
    """Save a matplotlib figure as ``stem.png`` and ``stem.pdf`` and close it (``tight``: crop to the drawn
    content, legends outside the axes included); no date or version in the files (:data:`FIGURE_METADATA`)."""
    import matplotlib.pyplot as plt  # function-level: keeps matplotlib out of the start-up of table users

    stem.parent.mkdir(parents=True, exist_ok=True)
    out = []
    for ext in ("png", "pdf"):
        p = stem.with_suffix(f".{ext}")
        fig.savefig(p, dpi=dpi, bbox_inches="tight" if tight else None, metadata=figure_metadata(p))
        out.append(p)
    plt.close(fig)
    return out
