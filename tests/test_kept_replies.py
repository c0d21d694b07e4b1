"""PRM302: a request of a function that appends the model's reply to the message list it was
handed and sends: its callers keep a conversation that every later call re-sends, with no
breakpoint (python/kept_replies.py; fixtures/kept_replies/agent.py)."""
from __future__ import annotations

import ast
from pathlib import Path

from analysis_support import fixture_findings
from promptlint.python.kept_replies import reply_kept

FIXTURES = Path(__file__).parent.parent / "fixtures" / "kept_replies"


def _kept(source: str, name: str):
    tree = ast.parse(source)
    func = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    call = next(n for n in ast.walk(func) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "create")
    found = reply_kept(func, call)
    return found.lineno if found is not None else None


def test_an_assistant_message_appended_after_the_call_to_a_sent_parameter_is_the_fact():
    source = (FIXTURES / "agent.py").read_text()
    # `step` appends `reply` (an assistant message) to `messages`, which it sends; `fix_json`
    # appends to a list of its own, `answer` a user message
    assert [_kept(source, n) for n in ("step", "fix_json", "answer")] == [15, None, None]


def test_an_append_before_the_call_or_to_a_list_not_sent_is_not():
    source = (
        "def a(messages, log):\n"
        "    messages.append({'role': 'assistant', 'content': 'ok'})\n"
        "    r = client.messages.create(messages=messages)\n"
        "    log.append({'role': 'assistant', 'content': r.content})\n"
        "def b(history):\n"
        "    r = client.messages.create(messages=history)\n"
        "    history += [{'role': 'assistant', 'content': r.content}]\n")
    assert [_kept(source, "a"), _kept(source, "b")] == [None, 7]


def test_it_is_info_at_the_request_where_no_file_names_a_breakpoint(tmp_path):
    found = [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
             for d in fixture_findings(FIXTURES, "agent.py", tmp_path)
             if d.code == "PRM302" and "keeps for its callers" in d.message]
    # (`fix_json` and `answer` send their callers' prompt: the adapter's finding, not this one)
    assert found == [("PRM302", "info", 12, [15])]


def test_not_where_a_file_of_the_package_names_a_breakpoint_key(tmp_path):
    # (a project: its files are searched, whatever file is named; in no project only the named file is)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'agent'\n")
    (tmp_path / "marks.py").write_text('def mark(block):\n    block["cache_control"] = {"type": "ephemeral"}\n')
    found = [d.span.start.row for d in fixture_findings(FIXTURES, "agent.py", tmp_path) if d.code == "PRM302"]
    assert found == []


def test_a_list_whose_system_message_alone_is_sent_is_not():
    source = (
        "def a(messages, question):\n"
        "    r = client.messages.create(system=messages[0]['content'], messages=[question])\n"
        "    messages.append({'role': 'assistant', 'content': r.content})\n")
    assert _kept(source, "a") is None
