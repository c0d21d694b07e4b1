"""Python 3.12 syntax read by an older Python: PEP 695 type parameters and `type` statements are
rewritten in place (`promptlint.newer_syntax`) when the running parser rejects a file, so
its prompts are analysed at their own rows and columns; strings and comments are never touched;
what stays unreadable (a PEP 701 f-string) is still a PRM001; a fix edits the original text."""
from __future__ import annotations

import ast
import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptlint.cli import main
from promptlint.python.parsing import ParseError, parse
from promptlint.newer_syntax import parse_tree, rewrite

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "newer_syntax"
OLD_PYTHON = pytest.mark.skipif(sys.version_info >= (3, 12), reason="the host Python reads PEP 695 itself")


def report_of(*args: str) -> dict:
    result = CliRunner().invoke(main, ["check", *args, "--no-cache", "--output-format", "json"])
    return json.loads(result.stdout)


def found(report: dict) -> list[tuple]:
    return [(d["code"], d["location"]["row"], d["location"]["column"], d["end_location"]["row"],
             d["end_location"]["column"]) for d in report["diagnostics"]]


def shape(text: str) -> list[int]:
    return [len(line) for line in text.split("\n")]


def test_a_type_statement_becomes_an_assignment_with_its_value_in_place():
    text = "type Handler[**P, R] = Callable[P, R]\nif x: type A = int\ny = 1; type B[T] = list[T]\n"
    new = rewrite(text)
    assert new == ("Handler              = Callable[P, R]\nif x: A      = int\n"
                   "y = 1; B         = list[T]\n")
    tree = ast.parse(new)
    assign = tree.body[0]
    assert isinstance(assign, ast.Assign) and assign.targets[0].id == "Handler"
    assert (assign.value.lineno, assign.value.col_offset) == (1, 23)  # where `Callable` stands in `text`


def test_type_parameter_lists_become_spaces_and_a_list_over_lines_a_continuation():
    text = ("class Registry[T: (str, bytes), *Ts](Base):\n"
            "    async def pick[U](self, item: U) -> U: ...\n"
            "def first[\n    T,  # the item\n    D,\n](items: list[T]) -> T: ...\n")
    new = rewrite(text)
    assert new.splitlines() == [
        "class Registry                      (Base):",
        "    async def pick   (self, item: U) -> U: ...",
        "def first\\", "                 \\", "     \\", " (items: list[T]) -> T: ...",
    ]
    assert shape(new) == shape(text)
    assert rewrite("class C[T = int]:\n    pass\n") == "class C         :\n    pass\n"  # PEP 696 (3.13)
    first = ast.parse(new).body[1]
    assert first.name == "first" and (first.args.args[0].lineno, first.args.args[0].col_offset) == (6, 2)


def test_strings_comments_and_the_name_type_are_never_rewritten():
    """`type` the builtin, a string or a comment reading `type X = 1`: nothing to rewrite (None),
    and where something is rewritten they keep every character."""
    plain = 'x = "type X = 1"  # type Y = 2\ntype = 5\nprint(type(x))\nz = type\n'
    assert rewrite(plain) is None
    text = 'type Names = list[str]  # type Alias = 1\nNOTE = "type X = 1"\nd = {"k": type}\n'
    assert rewrite(text) == 'Names      = list[str]  # type Alias = 1\nNOTE = "type X = 1"\nd = {"k": type}\n'


def test_a_list_with_an_empty_line_inside_is_left_unread():
    """An empty line inside a parameter list leaves no room for the continuation: not rewritten."""
    assert rewrite("def f[\n\n    T](x): pass\n") is None


def test_the_rewrite_is_only_tried_when_the_host_parser_fails():
    """Code an old Python reads is parsed as it is (`type X = 1` is never asked: it is no
    statement there but a syntax error); valid code is not rewritten."""
    tree = parse("type = 1\ntype(x)\n")
    assert [type(n).__name__ for n in tree.body] == ["Assign", "Expr"]
    assert parse_tree("x = 1\n").body[0].targets[0].id == "x"


@OLD_PYTHON
def test_a_finding_in_a_file_with_pep_695_syntax_is_at_its_row_and_column(tmp_path):
    """Before: the whole file was one PRM001 at row 6 (`type Handler[...]`). After: the
    timestamp in the system prompt is found where it is, as in the same file rewritten."""
    original = tmp_path / "original" / "generic_agent.py"  # (out of the repository: its project alone is read)
    original.parent.mkdir()
    original.write_text((FIXTURES / "generic_agent.py").read_text(encoding="utf-8"), encoding="utf-8")
    report = report_of(str(original))
    assert found(report) == [("PRM102", 28, 21, 28, 43)]
    assert report["diagnostics"][0]["severity"] == "warning"
    rewritten = tmp_path / "generic_agent.py"
    rewritten.write_text(rewrite((FIXTURES / "generic_agent.py").read_text(encoding="utf-8")), encoding="utf-8")
    assert found(report_of(str(rewritten))) == found(report)


@OLD_PYTHON
def test_what_the_rewrite_cannot_read_is_still_a_prm001_at_its_own_place(tmp_path):
    """A PEP 701 f-string (`f"{d["persona"]}"`) stays unreadable before 3.12: the PRM001 is at
    the f-string (row 8), no longer at the first PEP 695 statement (row 3), and says which Python
    read it."""
    copy = tmp_path / "nested_fstring.py"  # (out of the repository: its project alone is read)
    copy.write_text((FIXTURES / "nested_fstring.py").read_text(encoding="utf-8"), encoding="utf-8")
    report = report_of(str(copy))
    assert [(d["code"], d["location"]["row"]) for d in report["diagnostics"]] == [("PRM001", 8)]
    message = report["diagnostics"][0]["message"]
    assert message.startswith("Cannot analyse this file: syntax error: f-string: unmatched '['")
    assert "this is Python 3." in message
    with pytest.raises(ParseError) as err:
        parse("type X = int\nx = 1 +\n")
    assert (err.value.row, str(err.value)) == (2, "syntax error: invalid syntax (Python 3.%d's parser, this file's "
                                                  "PEP 695 type parameters and `type` statements read as Python "
                                                  "3.12 reads them)" % sys.version_info[1])
    with pytest.raises(SyntaxError):
        parse_tree("type X = int\nx = 1 +\n")


@OLD_PYTHON
def test_a_fix_edits_the_original_text_never_the_rewritten_one(tmp_path):
    """libcst reads PEP 695 syntax: the fix is built on the file's own text; every PEP 695 line
    stays as it was, only the prompt line changes."""
    target = tmp_path / "generic_agent.py"
    shutil.copy(FIXTURES / "generic_agent.py", target)
    before = target.read_text(encoding="utf-8")
    result = CliRunner().invoke(main, ["fix", str(target), "--unsafe-fixes", "--no-cache"])
    assert result.exit_code == 0, result.output
    after = target.read_text(encoding="utf-8")
    changed = [(i, a, b) for i, (a, b) in enumerate(zip(before.split("\n"), after.split("\n")), 1) if a != b]
    assert changed == [(28, '    system = f"Now: {datetime.now():%H:%M}.\\n{SYSTEM}"',
                        '    system = f"{SYSTEM}\\nNow: {datetime.now():%H:%M}."')]
    assert "type Handler[**P, R] = Callable[P, R]" in after and "class Registry[T: (str, bytes), *Ts]:" in after


@OLD_PYTHON
def test_a_suppression_comment_is_offered_in_a_file_with_pep_695_syntax():
    """The editor's suppression comment is checked to leave the file's meaning as it was: that
    meaning is read through the rewrite, the comment goes into the original text."""
    from promptlint.lsp.suppression import suppression_edit
    from promptlint.model import Diagnostic, Position, Severity, Span
    text = 'type Names = list[str]\nS = f"{now}"\n'
    span = Span("a.py", Position(2, 7), Position(2, 12))
    edit = suppression_edit(text, Diagnostic("PRM102", "dynamic-timestamp", Severity.WARNING, "m", span), "python")
    assert (edit.content, edit.start.row, edit.start.column) == ("  # promptlint: ignore[PRM102]", 2, 13)
