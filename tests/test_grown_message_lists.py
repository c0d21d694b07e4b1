"""A message list a function grows by statements (`if history: messages.extend(history)`,
`messages.append(user)`, also one started empty: `prompts = []`, then `prompts.append(
make_prompt("system", ...))`) and hands to a call the analysis does not follow (an LLM object
the package is given, `self.llm.ask(prompts)`) is a prompt candidate with what those statements
add (message_candidates.copied_read), so the system message is judged with the history after
it. Fixture package under fixtures/grown_message_lists/ (the template and the message helper in
one module, the agents in another)."""
from __future__ import annotations

import shutil
from pathlib import Path

from promptlint import api
from promptlint.classify import classify_name
from promptlint.model import Kind
from promptlint.python.prefilter import might_hold_prompt

from analysis_support import layouts, roles

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "grown_message_lists"


def test_a_page_put_in_the_system_message_before_the_history_is_found(tmp_path):
    # (main: nothing; the list started empty was no candidate, and the file was not read: it fills
    # a template named for prompts kept in another module, `READER_PROMPT.format(...)`, and names
    # no SDK.) `ask_page_last` sends the page in the newest user message, `log_only` sends nothing
    shutil.copytree(FIXTURES, tmp_path / "grown_message_lists")
    report = api.check([tmp_path / "grown_message_lists" / "reader"], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, Path(d.span.filename).name, d.span.start.row) for d in report.diagnostics]
    assert found == [("PRM101", "info", "core.py", 9)]
    related = [(Path(r.span.filename).name, r.span.start.row) for d in report.diagnostics for r in d.related]
    assert related[0] == ("agents.py", 14)  # the parameter `url` of `ask`


def test_a_list_grown_in_branches_is_judged_with_what_they_add(tmp_path):
    found = layouts(tmp_path, """
        RULES = "Answer from the notes only. Cite the note you use by its date. Never invent a note."

        def ask(llm, notes, question, history=None):
            messages = [{"role": "system", "content": f"Notes: {notes}. " + RULES}]
            if history:
                messages.extend(history)
            messages.append({"role": "user", "content": question})
            return llm.chat(messages=messages)
    """)
    # (and the system message alone, the candidate of the dict display: superseded by the list's)
    assert [roles(lt) for lt in found] == [["system", "history", "user"], ["system"]]


def test_branches_that_write_other_messages_take_the_longest_variant(tmp_path):
    found = layouts(tmp_path, """
        RULES = "Answer from the notes only. Cite the note you use by its date. Never invent a note."

        def ask(llm, notes, question, required, history=None):
            messages = [{"role": "system", "content": f"Notes: {notes}. " + RULES}]
            if history:
                messages.extend(history)
            if required:
                messages.append({"role": "user", "content": "Use a tool. " + question})
            else:
                messages.append({"role": "user", "content": question})
            return llm.chat(messages=messages)
    """)
    assert [roles(lt) for lt in found] == [["system", "history", "user"], ["system"]]


def test_a_list_only_looked_at_or_not_named_for_messages_is_no_candidate(tmp_path):
    found = layouts(tmp_path, """
        import logging
        RULES = "Answer from the notes only. Cite the note you use by its date. Never invent a note."

        def make(role, content):
            return {"role": role, "content": content}

        def logged(notes, history):
            prompts = []
            prompts.append(make("system", f"Notes: {notes}. " + RULES))
            prompts.extend(history)
            logging.info("%d messages", len(prompts))

        def rows_of(notes, history, store):
            rows = []
            rows.append(make("system", f"Notes: {notes}. " + RULES))
            rows.extend(history)
            store.save(rows)

        def sent(llm, notes, history):
            prompts = []
            prompts.append(make("system", f"Notes: {notes}. " + RULES))
            prompts.extend(history)
            return llm.ask(prompts)
    """)
    assert [(lt.site.start.row, roles(lt)) for lt in found] == [(20, ["system", "history"])]


def test_a_name_for_the_text_around_retrieved_content_is_no_retrieved_content():
    assert classify_name("retrieval_template") is None
    assert classify_name("retrieval_instructions") is None
    assert classify_name("retrieval_results")[0] is Kind.USER_INPUT
    assert classify_name("retrieved_docs")[0] is Kind.USER_INPUT


def test_a_file_that_fills_a_template_named_for_prompts_may_hold_a_prompt():
    assert might_hold_prompt("from .core import READER_PROMPT\n\ndef ask(llm, url):\n"
                             "    return llm.ask([make('system', READER_PROMPT.format(url=url))])\n")
    assert not might_hold_prompt("from .core import HEADER\n\ndef page(url):\n    return HEADER.format(url=url)\n")
