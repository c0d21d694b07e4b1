"""`text.replace(f"{{{key}}}", value)` read where no local names are bound (`env` None: the
evaluator's contract allows it): the fill-by-loop reading steps aside instead of raising. Three
real files (lotus-ai's pairwise judge, elroy's user queries, magentic-ui's MCP workbench) ended
their analysis with `internal error: AttributeError` before."""
from __future__ import annotations

import ast

from promptlint.python.flow.replaced import filled_by_items


def _args(code: str) -> list[ast.expr]:
    return ast.parse(code).body[0].value.args


def test_no_local_names_is_no_fill():
    args = _args('t.replace(f"{{{col1}}}", f"{{{name_a}}}")')
    assert filled_by_items(None, None, None, args, None, None) is None
    assert filled_by_items(None, None, None, args, None, {}) is None


def test_no_arguments_is_no_fill():
    assert filled_by_items(None, None, None, [], None, {"x": 1}) is None
