"""`explain` says why a request's messages are drawn as one `{conversation history}` and what of
them it could not read (issue 11: where the evaluator gives up, explain says so; session 32 trial:
an adapter's tool loop drew `{conversation history}` with no word on why). Fixture:
fixtures/explained_history/turns.py."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from promptlint.cli import main

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "explained_history" / "turns.py"


def drawn(line: int) -> list[str]:
    """The drawing's rows, a note wrapped over several rows joined into one."""
    out = CliRunner().invoke(main, ["explain", "--no-cache", f"{FIXTURE}:{line}"]).output
    rows: list[str] = []
    for row in out.splitlines():
        if row.startswith(" " * 15) and rows and rows[-1].startswith("^ history:"):
            rows[-1] += " " + row.strip()
        else:
            rows.append(row.strip())
    return rows


def test_a_list_grown_in_a_tool_loop_says_it_is_grown_and_which_messages_are_not_read():
    rows = drawn(9)
    at = rows.index(next(r for r in rows if r.startswith("history") and "{conversation history}" in r))
    assert rows[at + 1] == ("^ history: a message list grown across turns or passes of a loop (appended to, "
                            "then sent again); its messages from `messages` are not read (the parameter `messages`)")


def test_a_message_list_handed_in_says_it_is_taken_as_the_conversation_and_not_read():
    rows = drawn(18)
    at = rows.index(next(r for r in rows if r.startswith("history") and "{messages}" in r))
    assert rows[at + 1] == ("^ history: `messages`, taken as the replayed conversation; its messages are not "
                            "read here: what they hold (a system prompt or user message at its head) is not drawn")
