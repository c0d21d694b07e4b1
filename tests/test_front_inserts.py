"""PRM104: a system message put at the head of the conversation on some calls only
(python/front_inserts.py): under a test of a value given per call (a parameter, a retry loop's
counter), or by a helper its caller calls under such a test, in another module too. Info where
the message is put, the test related; a head message put on every call, or under a test of the
list itself or of the instance's settings, is not one. The fixtures are under
fixtures/front_inserts/."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.front_inserts import might_insert

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "front_inserts"


def _report(name):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row,
             [(Path(r.span.filename).name, r.span.start.row) for r in d.related]) for d in report.diagnostics]


def test_a_system_message_put_first_only_for_structured_calls_is_info_with_its_test():
    assert _report("structured.py") == [("structured.py", "PRM104", "info", 16, [("structured.py", 15)])]


def test_a_system_message_put_first_from_the_second_attempt_of_a_retry_is_one_too():
    assert _report("retry.py") == [("retry.py", "PRM104", "info", 12, [("retry.py", 11)])]


def test_a_helper_called_under_a_test_in_another_module_is_reported_where_it_puts_the_message():
    assert _report("json_mode") == [("structure.py", "PRM104", "info", 6, [("request.py", 6)])]


def test_head_messages_put_on_every_call_or_under_tests_of_the_list_or_the_instance_are_not():
    assert _report("every_call.py") == []


def test_puts_in_an_except_handler_and_in_a_with_inside_a_match_case_are_found():
    # (the walk for puts reads blocks of statements only: handlers, cases and `with` bodies are blocks)
    assert _report("blocks.py") == [("blocks.py", "PRM104", "info", 13, [("blocks.py", 12)]),
                                    ("blocks.py", "PRM104", "info", 18, [("blocks.py", 17)])]


def test_the_text_test():
    assert might_insert('msgs.insert(0, {"role": "system", "content": s})')
    assert might_insert('messages = [{"role": "system", "content": s}] + messages')
    assert might_insert('messages = [{"role": "system", "content": s}, *messages]')
    assert not might_insert('msgs.insert(1, {"role": "system", "content": s})')
    assert not might_insert('items.insert(0, x)')
