"""A message object extended in place before it is sent (`message.content += text`, `message.content
= list(message.content) + [...]`: flow/fields.py `field_added`, bound by flow/scopes.py), and the
system message a conversation starts with taken off its head to be extended (`popped_head`);
fixtures/message_fields."""
from __future__ import annotations

import ast
import shutil
import textwrap
from pathlib import Path

from promptlint.api import check
from promptlint.python.flow.fields import field_added, popped_head
from promptlint.python.flow.values import Obj, Text
from promptlint.model import Segment

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "message_fields"


def _check(tmp_path: Path, name: str):
    shutil.copy(FIXTURES / name, tmp_path / name)
    return check([tmp_path / name], jobs=1)


def _findings(report) -> list[tuple[str, int, str]]:
    return [(d.code, d.span.start.row, d.severity.value) for d in report.diagnostics]


def test_notes_appended_to_the_system_message_before_the_history(tmp_path):
    assert _findings(_check(tmp_path, "notes_in_system.py")) == [("PRM101", 10, "warning")]


def test_notes_appended_to_the_newest_message_after_the_history(tmp_path):
    assert _findings(_check(tmp_path, "notes_in_newest.py")) == []


def test_a_constant_appended_is_part_of_the_static_prefix(tmp_path):
    report = _check(tmp_path, "static_suffix.py")
    assert _findings(report) == []
    system = report.prompts[0].parts[0]
    assert system.role == "system"
    assert "never invent a section number" in "".join(s.text for s in system.segments if s.is_static)


def test_the_conversations_own_system_message_extended_with_notes(tmp_path):
    report = _check(tmp_path, "popped_head.py")
    # the notes, not the caller's system text (PRM101); and the caller's own system message, popped off
    # its list, extended in place (PRM105 info: python/inplace_merges.py `inplace_appends`)
    assert _findings(report) == [("PRM101", 14, "warning"), ("PRM105", 18, "info")]
    # (the request of `self.model.invoke(...)`, `self.model = llm.bind_tools(tools)` of `llm: BaseChatModel`)
    (sent,) = [p for p in report.prompts if p.api == "langchain.invoke"]
    head = sent.parts[0].segments[0]
    assert (sent.parts[0].role, head.expr, head.volatility.value) == ("system", "conversation[0].content", "stable")


def test_a_first_message_of_no_known_class_is_not_read(tmp_path):
    report = _check(tmp_path, "popped_head_untested.py")
    # no PRM101: the first message is not read as a system message; the caller's message popped off its
    # list and extended in place is PRM105's (info, `inplace_appends`)
    assert _findings(report) == [("PRM105", 14, "info")]
    # the request is read (`llm: BaseChatModel`), its first message as the conversation's, not a system message
    (sent,) = report.prompts
    assert [(p.role, p.segments[0].expr) for p in sent.parts] == [("history", "conversation.pop(0)"),
                                                                    ("history", "conversation")]


def _text(s: str) -> Text:
    return Text([Segment(text=s)])


def test_field_added_extends_or_sets_a_written_field_only():
    def text_of(v):
        return v.segs
    built = Obj("SystemMessage", kwargs={"content": _text("rules")})
    added = field_added(built, "content", _text(" more"), text_of)
    assert [s.text for s in added.kwargs["content"].segs] == ["rules", " more"]
    positional = field_added(Obj("SystemMessage", args=[_text("rules")]), "content", _text(" more"), text_of)
    assert [s.text for s in positional.args[0].segs] == ["rules", " more"]
    assert field_added(built, "content", _text("new"), text_of, whole=True).kwargs["content"].segs[0].text == "new"
    assert field_added(built, "name", _text("x"), text_of) is built  # a field not written: kept
    param = _text("a parameter")
    assert field_added(param, "content", _text("x"), text_of) is param


def test_popped_head_needs_a_test_of_the_message_class():
    func = ast.parse(textwrap.dedent("""
        def f(xs, ys):
            if isinstance(xs[0], SystemMessage):
                a = xs.pop(0)
            if isinstance(xs[0], HumanMessage):
                b = xs.pop(0)
            c = xs.pop(0)
            if isinstance(ys[0], SystemMessage):
                d = xs[0]
            if isinstance(xs[0], messages.SystemMessage):
                e = xs[0]
    """)).body[0]
    stmts = [n for n in ast.walk(func) if isinstance(n, ast.Assign)]
    got = {s.targets[0].id: popped_head(func, s) for s in stmts}
    assert got == {"a": ("SystemMessage", "xs"), "b": None, "c": None, "d": None, "e": ("SystemMessage", "xs")}


def test_only_an_object_that_may_have_the_field_written_is_bound_again():
    from promptlint.python.flow.fields import field_written
    from promptlint.python.flow.frames import Thunk

    def expr(src: str) -> Thunk:
        return Thunk("expr", node=ast.parse(src, mode="eval").body)
    assert field_written(expr("SystemMessage(content=RULES)"), "content")
    assert field_written(expr("SystemMessage(RULES)"), "content")
    assert not field_written(expr("CodeBlock()"), "code")  # set field by field later: not followed
    assert not field_written(expr("SystemMessage(content=RULES)"), "name")
    assert field_written(Thunk("alt", options=[expr("CodeBlock()"), expr("Msg(content=x)")]), "content")
    assert field_written(Thunk("aug", value="code", prev=expr("CodeBlock()")), "code")
    assert not field_written(None, "content")
