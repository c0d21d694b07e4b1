"""Message placeholders of a chat template (python/history_slots.py): the variable a template replays
its messages from, and whether its module fills it; a question before one not shown to hold the
conversation is no warning (set BL's ragbuilder: an optional `chat_history` no code fills;
langchain-memgraph: `function_response`, the messages of one request)."""
from __future__ import annotations

import ast

import pytest
from analysis_support import code, layouts

from promptlint import api
from promptlint.model import Kind
from promptlint.python.history_slots import names_variable, object_slot, tuple_slot
from promptlint.python.tree import Project

HEAD = """
    from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
    from langchain_openai import ChatOpenAI

    RULES = "You answer questions about the documents below. Cite them."

"""

PIPELINE = HEAD + """
    def answer(question):
        prompt = ChatPromptTemplate.from_messages([
            ("system", RULES),
            ("user", "{question}"),
            MessagesPlaceholder(variable_name="chat_history", optional=True),
        ])
        chain = prompt | ChatOpenAI(model="gpt-4.1")
        return chain.invoke(INPUTS)
"""

UNFILLED = PIPELINE.replace("INPUTS", "{\"question\": question}")
FILLED = PIPELINE.replace("def answer(question)", "def answer(question, history)").replace(
    "INPUTS", "{\"question\": question, \"chat_history\": history}")
REQUIRED = UNFILLED.replace(", optional=True", "")
OWN_MESSAGES = FILLED.replace("chat_history", "function_response")
TUPLE = UNFILLED.replace('MessagesPlaceholder(variable_name="chat_history", optional=True)',
                         '("placeholder", "{chat_history}")')


def _slots(tmp_path, source):
    return sorted({(s.slot, s.slot_empty) for lt in layouts(tmp_path, source) for p in lt.parts
                   for s in p.segments if s.kind is Kind.HISTORY})


@pytest.mark.parametrize("source,expected", [(UNFILLED, ("chat_history", True)), (FILLED, ("chat_history", False)),
                                             (REQUIRED, ("chat_history", False)),
                                             (OWN_MESSAGES, ("function_response", False)),
                                             (TUPLE, ("chat_history", True))])
def test_the_slot_and_whether_its_module_fills_it(tmp_path, source, expected):
    assert _slots(tmp_path, source) == [expected]


def test_names_variable_counts_keys_and_keywords_outside_the_placeholder(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(code("""
        p = MessagesPlaceholder(variable_name="history", optional=True)
        chain.invoke(question=q, memory=m)
        x = {"notes": n}
    """))
    module = Project([tmp_path]).load(path)
    call = next(n for n in ast.walk(module.tree) if isinstance(n, ast.Call))
    assert object_slot(call, module) == ("history", True)
    assert not names_variable(module, "history", call)  # only inside the placeholder itself
    assert names_variable(module, "memory", call) and names_variable(module, "notes", call)
    assert tuple_slot("{notes}", module) == ("notes", False)
    assert tuple_slot("{history}", module) == ("history", False)  # the placeholder call names it


def _findings(tmp_path, source):
    (tmp_path / "app.py").write_text(code(source))
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, d.message) for d in report.diagnostics]


@pytest.mark.parametrize("source", [UNFILLED, OWN_MESSAGES, TUPLE])
def test_a_question_before_a_slot_not_shown_to_hold_the_conversation_is_no_warning(tmp_path, source):
    found = _findings(tmp_path, source)
    assert found and all(f[1] == "info" for f in found), found


def test_a_question_before_the_conversation_it_is_invoked_with_is_a_warning(tmp_path):
    found = _findings(tmp_path, FILLED)
    assert [f[:3] for f in found] == [("PRM101", "warning", 10)]
    assert "the conversation history after it" in found[0][3]
