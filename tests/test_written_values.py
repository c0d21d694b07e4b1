"""A value that enters a prompt inside text built around it is named as the code writes it where
it enters, with what it is built from; explain draws what the code writes there, and says which
value it holds (fixtures/written_values)."""
from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from analysis_support import fixture_findings
from promptlint.cli import main

FIXTURES = Path(__file__).parent.parent / "fixtures" / "written_values"


def _named(tmp_path: Path) -> list[tuple]:
    return [(d.span.start.row, d.span.start.column, d.message.split(" at token")[0])
            for d in fixture_findings(FIXTURES, "built_around.py", tmp_path) if d.code == "PRM101"]


def test_text_built_around_a_value_is_named_at_the_caret_with_what_it_is_built_from(tmp_path):
    assert _named(tmp_path)[0] == (17, 1, "Per-request content in `brief` (built from `question`)")


def test_a_value_under_another_name_keeps_its_own_name_in_the_message(tmp_path):
    # a caller's argument (`{asked}`) and a name bound to it (`{q}`): the same value, not text around it
    assert _named(tmp_path)[1:] == [(29, 11, "Per-request content `question`"),
                                    (39, 11, "Per-request content `question`")]


def _drawing(tmp_path: Path, monkeypatch, line: int) -> list[str]:
    shutil.copy(FIXTURES / "built_around.py", tmp_path / "built_around.py")
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(main, ["explain", f"built_around.py:{line}", "--no-cache"]).output
    return [x.strip() for x in out.splitlines()]


def test_explain_draws_the_field_the_code_writes_and_what_it_is_built_from(tmp_path, monkeypatch):
    lines = _drawing(tmp_path, monkeypatch, 17)
    at = next(i for i, x in enumerate(lines) if x.startswith("{brief}"))
    assert lines[at + 1] == "^ built from `question`"
    assert not any(x.startswith("{question}") for x in lines)


def test_explain_says_which_value_a_callers_argument_holds(tmp_path, monkeypatch):
    lines = _drawing(tmp_path, monkeypatch, 29)
    at = next(i for i, x in enumerate(lines) if x.startswith("{asked}"))
    assert lines[at + 1] == "^ the value of `question` (line 23)"
    lines = _drawing(tmp_path, monkeypatch, 39)
    at = next(i for i, x in enumerate(lines) if x.startswith("{q}"))
    assert lines[at + 1] == "^ the value of `question` (line 35)"


def test_code_quoted_in_the_evidence_is_one_line_and_cut():
    from promptlint.model import Kind, Segment, Volatility
    from promptlint.rules._prefix_rule import why
    call = "self.client.chat.completions.create(\r\n    model=self.model,\r\n    messages=messages,\r\n).choices[0]"
    seg = Segment(kind=Kind.USER_INPUT, volatility=Volatility.PER_REQUEST, expr="x",
                  evidence=f"data fetched with `{call}`")
    assert why(seg) == "data fetched with `self.client.chat.completions.create( model=self.model, me...`"
    seg = Segment(kind=Kind.USER_INPUT, volatility=Volatility.PER_REQUEST, expr="x", evidence="call to `db.get(q)`")
    assert why(seg) == "call to `db.get(q)`"
