"""The scikit-learn ``Pipeline`` + ``GridSearchCV`` example of docs/selectors.md runs as shown."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "selectors.md"


def _pipeline_snippet() -> str:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## In a scikit-learn pipeline", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 1
    return blocks[0]


def test_selectors_doc_pipeline_snippet_runs(capsys) -> None:
    code = _pipeline_snippet()
    assert "from fsbench.algorithms import SAS" in code and "GridSearchCV" in code and "Pipeline" in code
    namespace: dict = {}
    exec(compile(code, str(DOC), "exec"), namespace)  # noqa: S102 - the doc's own example
    grid = namespace["grid"]
    assert grid.best_params_["select__n_features_to_select"] in (2, 3, 5)
    assert (
        len(grid.best_estimator_["select"].get_support(indices=True))
        == grid.best_params_["select__n_features_to_select"]
    )
    assert "CV accuracy" in capsys.readouterr().out
