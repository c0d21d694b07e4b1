"""A helper that writes the system prompt at the head of the list it is handed through a local name
assigned from its parameters (`prompt = system_prompt`, else `prompt = npc.get_system_prompt()`) is
judged at each call with the conversation after that text (fixtures/head_writer_locals; its README
says what each module shows)."""
from __future__ import annotations

import ast
import shutil
from pathlib import Path

from promptlint import api
from promptlint.python.system_edits import head_writer

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "head_writer_locals"


def _found(*names):
    report = api.check([FIXTURES / n for n in names], api.Settings(), jobs=1)
    return sorted((Path(d.filename).name if hasattr(d, "filename") else Path(d.span.filename).name, d.code,
                   d.severity.value, d.span.start.row, d.message) for d in report.diagnostics)


def test_a_clock_in_the_system_prompt_a_helper_writes_through_a_local_is_before_the_history():
    found = _found("heads.py", "agent.py")
    assert [f[:4] for f in found] == [("agent.py", "PRM101", "info", 17), ("agent.py", "PRM102", "warning", 17)]
    assert "at least the 342 static tokens and the conversation history after it are processed uncached on every " \
           "request" in found[1][4]


def test_a_fixed_system_prompt_written_by_the_helper_is_no_finding(tmp_path):
    # (a folder of its own: beside agent.py, the helper's callers there are read too and its clock reported)
    for name in ("heads.py", "fixed.py"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert report.diagnostics == []


def _writer(source):
    return head_writer(ast.parse(source).body[0])


def test_head_writer_follows_a_local_assigned_from_a_parameter():
    text, listed, written = _writer((FIXTURES / "heads.py").read_text())
    assert (text, listed) == ("prompt", "messages") and isinstance(written, ast.Dict)
    assert _writer("def f(messages, content):\n    messages.insert(0, {'role': 'system', 'content': content})\n") \
        == ("content", "messages", None)
    # a local assigned from no parameter is no text handed in
    assert _writer("def f(messages, n):\n    prompt = load()\n"
                   "    messages.insert(0, {'role': 'system', 'content': prompt})\n") is None
