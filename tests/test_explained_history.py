"""`explain` says why a request's messages are drawn as one `{conversation history}` and what of
them it could not read (issue 11: where the evaluator gives up, explain says so; session 32 trial:
an adapter's tool loop drew `{conversation history}` with no word on why), and why content it
cannot read is judged stable. Fixtures: fixtures/explained_history/{turns,helper}.py."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from promptlint.cli import main

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "explained_history" / "turns.py"


def drawn(line: int) -> list[str]:
    out = CliRunner().invoke(main, ["explain", "--no-cache", f"{FIXTURE}:{line}"]).output
    return [row.strip() for row in out.splitlines()]


def test_a_list_grown_in_a_tool_loop_says_it_is_grown_and_which_messages_are_not_read():
    rows = drawn(9)
    at = rows.index(next(r for r in rows if r.startswith("history") and "{conversation history}" in r))
    assert rows[at + 1] == ("^ history: a message list appended to in a loop, taken as the replayed conversation; "
                            "its messages from `messages` are not read (the parameter `messages`)")


def test_a_message_list_handed_in_says_it_is_taken_as_the_conversation_and_not_read():
    rows = drawn(18)
    at = rows.index(next(r for r in rows if r.startswith("history") and "{messages}" in r))
    assert rows[at + 1] == ("^ history: `messages`, taken as the replayed conversation; its messages are not "
                            "read here: what they hold is not drawn")


def test_content_judged_stable_says_why():
    # `unknown, stable` alone said neither what it is nor why it is judged stable
    out = CliRunner().invoke(main, ["explain", "--no-cache", f"{FIXTURE.parent / 'helper.py'}:13"]).output
    rows = [row.strip() for row in out.splitlines()]
    at = rows.index(next(r for r in rows if r.startswith("system") and "{self.description}" in r))
    assert rows[at].endswith("unknown, stable")
    assert rows[at + 1].startswith("^ stable: `Helper.description`: a field with a default, set when the instance")
