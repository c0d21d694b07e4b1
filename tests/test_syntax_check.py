"""`parsing.syntax_error`: the syntax check of a file that is not analysed says exactly what
`module.parse` says (its fast test, `symtable`, is only a shortcut)."""
from __future__ import annotations

import pytest

from promptlint.python.parsing import ParseError, parse, syntax_error


def _parse_verdict(source: str):
    try:
        parse(source, "x.py")
    except ParseError as exc:
        return None if exc.limit else (exc.row, str(exc))
    return None


@pytest.mark.parametrize("source", [
    "x = 1\n",
    "def f(a, *, b=2):\n    return a + b\n",
    "return 1\n",  # only the bytecode compiler rejects it: no syntax error here, as in `parse`
    "nonlocal x\n",  # rejected by the scopes pass (symtable), accepted by the parser
    "def f():\n    from os import *\n",  # the same
    "def f():\n    x = 1\n    global x\n",  # the same
    "class C:\n    def m(self):\n        yield from self.n()\n",
])
def test_valid_syntax_is_no_error(source):
    assert syntax_error(source, "x.py") is None
    assert _parse_verdict(source) is None


@pytest.mark.parametrize("source, row", [
    ("x = (1,\n", 1),
    ("def f(:\n    pass\n", 1),
    ("a = 1\nif a\n    pass\n", 2),
    ("x = 1\x00\n", 1),  # a null byte
])
def test_an_error_is_parse_own(source, row):
    found = syntax_error(source, "x.py")
    assert isinstance(found, ParseError)
    assert found.row == row
    assert (found.row, str(found)) == _parse_verdict(source)


def test_too_deep_nesting_is_none():
    source = "x = " + "(" * 300 + "1" + ")" * 300 + "\n"
    assert syntax_error(source, "x.py") is None
