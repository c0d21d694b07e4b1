"""PRM202 in a tool's result: a set is exempt only when it is known to hold numbers (their hashes
ignore the hash seed), as the rule's docstring says. A set of the attribute values of data fetched
with the user's query is new content per request, but the same request again in another process
gets it in another order; rows appended in a loop over data of unknown length, each built in a
set's order, keep that order when one of them is read back (`results[0].keys()`), also when the
list may instead be the empty one it started as. Fixtures under fixtures/set_orders/ (the shapes of
crewai-tools' DatabricksQueryTool)."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint import api
from promptlint.python.flow.hashing import element_type

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "set_orders"


def _found(name: str):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column, d.message.split(":")[0])
            for d in report.diagnostics]


def test_a_set_of_fetched_values_of_unknown_type_in_a_tool_result_is_reported():
    # (main: nothing; the set was read as the user's input itself, not as an order)
    assert _found("fetched.py") == [("PRM202", "info", 9, 17,
                                     "Tool result ordered by `set(c.name for c in result.columns)` (`set(...)`")]


def test_a_sets_order_in_a_tool_result_is_said_to_change_with_the_process():
    report = api.check([FIXTURES / "fetched.py"], api.Settings(), jobs=1)
    [d] = [d for d in report.diagnostics if d.code == "PRM202"]
    assert "can return its items in another order in another process" in d.message  # the hash seed


def test_rows_built_in_a_sets_order_in_a_loop_over_fetched_rows_keep_it():
    # (main: nothing; `results[0]` of a list grown in a loop was not resolved)
    assert _found("rows.py") == [("PRM202", "info", 19, 52, "Tool result ordered by `all_columns` (`set(...)`")]


def test_rows_rebuilt_in_a_block_or_the_empty_list_keep_the_sets_order():
    # (main: nothing; `chunk_results[0]` of `[]` or the rebuilt rows was not resolved)
    assert _found("rebuilt.py") == [("PRM202", "info", 29, 69, "Tool result ordered by `all_columns` (`set(...)`")]


def test_a_set_known_to_hold_numbers_is_not_reported_whatever_it_iterates():
    assert _found("numbers.py") == []
    assert element_type(ast.parse("{len(c.name) for c in cols}", mode="eval").body) == "number"
    assert element_type(ast.parse("set(c.name for c in cols)", mode="eval").body) is None
    assert element_type(ast.parse("{k for k, v in pairs}", mode="eval").body) is None
