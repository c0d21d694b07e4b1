"""A caller that keeps its request out of the conversation its callee keeps (flow/kept_out.py,
`Segment.apart`): the history the wrapper puts after the system prompt a caller passes is lost to
that prompt's per-request content only when the caller's requests grow it (fixtures/kept_out)."""
from __future__ import annotations

import ast
from pathlib import Path

from analysis_support import write
from promptlint import api
from promptlint.python.flow.kept_out import keeps_out

FIXTURES = Path(__file__).parent.parent / "fixtures" / "kept_out"


def _prm101(tmp_path: Path, caller: str) -> list[tuple]:
    files = {"pkg/__init__.py": "", "pkg/agent.py": (FIXTURES / "agent.py").read_text(),
             f"pkg/{caller}": (FIXTURES / caller).read_text()}
    write(tmp_path, files)
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.span.filename.rsplit("/", 1)[-1], d.severity.value, d.prompt.rsplit("/", 1)[-1])
            for d in report.diagnostics if d.code == "PRM101"]


def test_a_caller_that_turns_off_every_addition_is_judged_without_the_history(tmp_path):
    # the summary prompt's `{query}`: the wrapper's conversation is not grown by these requests,
    # so only the static text after it is at stake (info, judged at the caller's own prompt)
    assert _prm101(tmp_path, "summarizer.py") == [("summarizer.py", "info", "summarizer.py:17")]


def test_a_caller_that_keeps_the_defaults_has_the_history_after_its_prompt(tmp_path):
    assert _prm101(tmp_path, "chat.py") == [("chat.py", "warning", "agent.py:38")]


def test_a_caller_that_turns_off_one_addition_still_grows_the_conversation(tmp_path):
    assert _prm101(tmp_path, "half.py") == [("half.py", "warning", "agent.py:38")]


WRAPPER = """
def send(self, message, keep=True, store=True, verbose=True):
    self.client.send(message, store=store)
    if verbose:
        print(message)
    if keep:
        self.history.append(message)
    self.settings.add_stop("</s>")
"""


def _keeps_out(call: str) -> bool:
    func = ast.parse(WRAPPER).body[0]
    return keeps_out(func, ast.parse(call).body[0].value, method=True)


def test_every_option_that_adds_or_is_handed_on_must_be_turned_off():
    assert _keeps_out("agent.send(text, keep=False, store=False)")
    assert _keeps_out("agent.send(text, False, False)")
    assert not _keeps_out("agent.send(text, keep=False)")  # `store` is handed on: it may add there
    assert not _keeps_out("agent.send(text, keep=0, store=False)")  # only a literal False says it
    assert not _keeps_out("agent.send(text)")


def test_an_addition_left_unguarded_keeps_the_request_in():
    func = ast.parse(WRAPPER + "    self.history.append('done')\n").body[0]
    assert not keeps_out(func, ast.parse("agent.send(text, keep=False, store=False)").body[0].value, method=True)
