"""A value placed after a serialization (`json.dumps`) in a prompt: the serialization is PRM201's
cause (an order, not content that changes), so it hides no later value (impact._impacts: segments
of PRM201 / PRM202's kinds block nothing). The glossary after the serialized examples and before
the history is PRM101's finding at the glossary (fixtures/values_after_dumps). Serialized data
whose content is known to change per request (fetched with the user's message) is a value like
any other, in a fixed order (`sort_keys=True`) or not: PRM101 reports it, and it hides the values
after it; PRM201 (key order) is left to data whose content may repeat."""
from __future__ import annotations

import shutil
from pathlib import Path

from promptlint import api

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "values_after_dumps"


def _found(tmp_path, name):
    shutil.copy(FIXTURE / name, tmp_path / name)
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in report.diagnostics]


def test_a_value_after_serialized_examples_and_before_the_history_is_reported_at_the_value(tmp_path):
    assert _found(tmp_path, "after_dumps.py") == [
        ("PRM101", "info", 13, 76),   # `{glossary}` after `{examples}` (a list of dicts written in the code)
        ("PRM201", "info", 19, 16),   # `json.dumps(shots)`: its own cause, its own finding
        ("PRM101", "info", 20, 76),   # and the glossary after it is still reported
        # data fetched with the user's message, serialized with sorted keys: per-request content
        # like any other (its own PRM101 warning; the glossary after it is the same cause)
        ("PRM101", "warning", 27, 38),
        # the same unsorted: its content changes anyway (sorting its keys would not make it
        # cacheable), so it is the same per-request content, PRM101's warning; no PRM201 there
        ("PRM101", "warning", 34, 38)]


def test_a_value_after_the_history_or_a_serialization_alone_stays_quiet(tmp_path):
    assert _found(tmp_path, "after_history.py") == []
