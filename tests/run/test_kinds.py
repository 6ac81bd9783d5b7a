"""The runner's one task-kind interface (:mod:`fsbench.run.kinds`): select then classify, or a diagnostic."""

from __future__ import annotations

import pytest
from conftest import REPO

from fsbench.config.experiment import ConfigError
from fsbench.results.schema import RESULT_COLUMNS
from fsbench.run.kinds import DiagnosticTasks, SelectThenClassify, kind_of

TAKES = REPO / "configs" / "takes2011"


def test_select_then_classify_ranks_and_writes_the_protocol_columns():
    kind = kind_of(None)
    assert isinstance(kind, SelectThenClassify) and kind.rankings
    assert kind.columns() == list(RESULT_COLUMNS)


def test_a_diagnostic_has_its_own_columns_and_no_ranking():
    kind = kind_of("takes_reconstruction:TakesReconstruction", [str(TAKES)])
    assert isinstance(kind, DiagnosticTasks) and not kind.rankings
    cols = kind.columns()
    assert cols[:2] == ["schema_version", "experiment"] and cols[-1] == "task_id"
    assert set(kind.diagnostic.columns) <= set(cols) and "order" not in cols


def test_an_unknown_diagnostic_is_a_config_error_naming_the_file_and_key():
    with pytest.raises(ConfigError) as err:
        kind_of("no_such_module:Nothing", [], "exp.yaml")
    assert str(err.value).startswith(
        "exp.yaml: diagnostic: diagnostic 'no_such_module:Nothing': cannot import"
    )
