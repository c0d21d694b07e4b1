"""The conversation written into a prompt as text one side at a time (`lines.append(f"User:
{q}")`, then `lines.append(f"Assistant: {a}")`, the assistant's under a condition) and joined is
the history as text (`flow/methods.py` `_writes_turns`, docs/policies.md Policy 2); fixed example
turns written the same way are not. An element of one of several lists of dicts (each caller's
list) is one of those dicts, its items read by key (`flow/containers.py` `item_of`)."""
from __future__ import annotations

from pathlib import Path

from analysis_support import probe

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "summarised_turns"


def _source(name: str, old: str, new: str) -> str:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new)


def test_two_sides_appended_in_turn_and_joined_are_the_history(tmp_path):
    source = _source("summarizer.py", 'prompt += "\\n".join(conversation)', 'probe("\\n".join(conversation))')
    found = probe(tmp_path, source)
    assert found.described == [("history", "unknown", '"\\n".join(conversation)')]
    assert found.segs[0].evidence == "the conversation written as text, a user and an assistant turn per item"


def test_an_item_of_each_callers_row_is_read_by_key(tmp_path):
    # a guard, not a proof: this fixture passes before the change too (it does not reproduce the
    # path by which a real package's row read as stable); it fails if a row's item becomes stable
    source = _source("summarizer.py", 'conversation.append(f"User: {pair[\'user\']}")',
                     'conversation.append(f"User: {pair[\'user\']}"); probe(pair["user"])')
    found = probe(tmp_path, source)
    assert [d[:2] for d in found.described] != [("unknown", "stable")]
    assert all(s.volatility.value != "stable" for s in found.segs if not s.is_static)


def test_fixed_example_turns_are_not_the_history(tmp_path):
    source = _source("fixed_examples.py", 'return "Answer briefly, as in these examples:\\n" + "\\n".join(lines)',
                     'return probe("\\n".join(lines))')
    found = probe(tmp_path, source)
    assert found.described == [("unknown", "stable", '"\\n".join(lines)')]
