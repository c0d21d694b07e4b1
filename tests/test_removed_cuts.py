"""The oldest message removed by value as the list's own first item (`reduced.remove(reduced[0])`)
in a loop that runs until the context fits is the cut `reduced.pop(0)` is, also of a container of
the package made from the conversation (a class whose `__init__` takes it, a subclass of `list`);
an item removed by another value, or once outside a loop, is not (fixtures/removed_cuts,
python/flow/cuts.removed_item, python/flow/windows.held_conversation)."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint.python.flow.cuts import removed_item

from analysis_support import fixture_findings

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "removed_cuts"


def _found(tmp_path, name):
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column, d.message.split(" is cut")[0])
            for d in fixture_findings(FIXTURE, name, tmp_path)]


def test_the_first_item_removed_from_a_container_made_from_the_conversation_until_it_fits(tmp_path):
    assert _found(tmp_path, "container.py") == [
        ("PRM105", "info", 53, 13, "The conversation history `reduced_messages.remove(reduced_messages[0])`")]


def test_a_list_subclass_made_from_the_conversation_is_the_conversation(tmp_path):
    assert _found(tmp_path, "subclass.py") == [
        ("PRM105", "info", 31, 13, "The conversation history `reduced_messages.pop(0)`")]


def test_items_removed_by_another_value_or_once_are_no_cut(tmp_path):
    assert _found(tmp_path, "by_value.py") == []


def test_removed_item_reads_a_remove_of_the_lists_own_item_as_its_pop():
    def one(text):
        found = removed_item(ast.parse(text).body[0].value)
        return None if found is None else ast.unparse(found)
    assert one("msgs.remove(msgs[0])") == "msgs.pop(0)"
    assert one("msgs.remove(msgs[i])") == "msgs.pop(i)"
    assert one("msgs.remove(other[0])") is None
    assert one("msgs.remove(tool)") is None
    assert one("msgs.remove(msgs[1:])") is None
    assert one("self.msgs.remove(self.msgs[0])") is None


def test_a_conversation_rendered_message_by_message_in_branches_is_still_the_conversation(tmp_path):
    assert _found(tmp_path, "rendered.py") == [
        ("PRM105", "info", 51, 13, "The conversation history `reduced_messages.remove(reduced_messages[0])`")]


def _loop(text):
    return next(n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.For))


def test_converts_each_reads_one_message_of_each_item_in_every_branch():
    from promptlint.python.flow.branched_maps import converts_each
    branched = """
for m in messages:
    content = render(message=m, kind=m.__class__.__name__).strip()
    if m.role == "function":
        out.append({"role": m.role, "name": m.tool_name, "content": content})
    elif m.role == "tool":
        out.append({"role": "tool", "content": content})
    else:
        out.append({"role": m.role, "content": content})
"""
    assert converts_each(_loop(branched))
    assert converts_each(_loop("for m in ms:\n    c = f(m)\n    out.append({'role': m.role, 'content': c})"))
    # a value looked up elsewhere, a filter with no else, a second append, a message with no role
    assert not converts_each(_loop(branched.replace("render(message=m,", "render(message=notes[m.id],")))
    assert not converts_each(_loop("for m in ms:\n    c = f(m)\n    if m.ok:\n        out.append({'role': m.role, 'content': c})"))
    assert not converts_each(_loop("for m in ms:\n    out.append({'role': m.role, 'content': m.a})\n    out.append({'role': m.role, 'content': m.b})"))
    assert not converts_each(_loop("for m in ms:\n    c = f(m)\n    out.append({'content': c})"))
    assert not converts_each(_loop("for m in ms:\n    c = f(m)\n    if c:\n        break\n    out.append({'role': m.role, 'content': c})"))
