"""PRM105 facts: a value of the call added to every message of a role of the conversation a
function is handed (python/role_stamps.py): the older messages carry this call's value too. A
block option (`"detail": detail`), a parameter handed to a conversion with the message's text, the
first system message only (`break`), a parameter named as the request's settings and a test that
picks the newest message are not ones. The fixture is fixtures/role_stamps/attach.py."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.role_stamps import might_stamp, role_stamps

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "role_stamps" / "attach.py"


def test_a_value_of_the_call_on_every_message_of_a_role_is_found_and_conversions_are_not():
    module = load(FIXTURE, FIXTURE.read_text(encoding="utf-8"))
    # `attach_file` (the url appended to a list written back, through a loop over the parameter),
    # `with_context` (an f-string in a new message appended); not `to_blocks`, `convert`,
    # `set_system`, `with_settings`, `newest_only`
    assert [(w.lineno, at.lineno, param, role) for w, at, param, role in role_stamps(module)] == [
        (12, 10, "image_url", "user"), (20, 20, "context", "user/human")]


def test_the_rule_reports_them_at_info_with_the_entry_related():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
             for d in report.diagnostics if d.code == "PRM105"]
    assert found == [("PRM105", "info", 12, [10]), ("PRM105", "info", 20, [20])]
    first = next(d for d in report.diagnostics if d.code == "PRM105")
    assert "Every `user` message" in first.message and "`image_url`" in first.message


def test_the_text_test_needs_a_walk_a_role_test_and_content():
    source = 'def f(messages, x):\n    for m in messages:\n        if m["role"] == "user":\n            m["content"] = x\n'
    assert might_stamp(source)
    assert might_stamp('for m in h:\n    if m.role in ("user",):\n        m.content = x\n')
    assert not might_stamp('if m["role"] == "user":\n    m["content"] = x\n')
    assert not might_stamp('for m in h:\n    m["content"] = x\n')
