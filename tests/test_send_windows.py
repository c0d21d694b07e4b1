"""PRM105 at chat sends of models whose class is not known (LangChain's `generate` batch form,
`invoke` / `stream` given message objects): a negative-start slice of a list the code appends
turns to (`self.log[-2 * self.depth:]`) is a sliding window, a warning as at a direct SDK send;
of a list grown across turns that is not known to hold the conversation's messages, info."""
from __future__ import annotations

from analysis_support import code, write

from promptlint import api

ASSISTANT = """
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage


    class NotebookAssistant:
        def __init__(self, factories, depth=3):
            self.factories = factories
            self.log = []
            self.notes = []
            self.depth = depth

        def _keep(self, asked, said):
            question = HumanMessage(asked)
            self.log.append(question)
            self.log.append(AIMessage(said))

        def jot(self, note: str):
            self.notes.append(note)

        def ask(self, which, asked):
            engine = self.factories[which]()
            recent = {recent}
            out = engine.generate([[*recent, HumanMessage(content=asked)]])
            said = out.generations[0][0].text
            self._keep(asked, said)
            return said
"""


def _found(tmp_path, source: str, name: str = "assistant.py"):
    write(tmp_path, {name: source})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column)
            for d in report.diagnostics if d.code == "PRM105"]


def _at(source: str, needle: str) -> tuple[int, int]:
    text = code(source)
    at = text.index(needle)
    return text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)


def test_the_newest_exchanges_of_the_conversation_sent_through_generate_are_a_window(tmp_path):
    source = ASSISTANT.format(recent="self.log[-2 * self.depth:] if self.depth else []")
    assert _found(tmp_path, source) == [("PRM105", "warning", *_at(source, "self.log[-2"))]


def test_a_window_counted_from_the_length_is_one_too(tmp_path):
    source = ASSISTANT.format(recent="self.log[len(self.log) - 2 * self.depth:]")
    assert _found(tmp_path, source) == [("PRM105", "warning", *_at(source, "self.log[len("))]


def test_a_window_that_keeps_the_head_or_the_whole_log_is_no_cut(tmp_path):
    assert _found(tmp_path, ASSISTANT.format(recent="self.log[:12]")) == []
    assert _found(tmp_path, ASSISTANT.format(recent="list(self.log)")) == []


def test_a_list_grown_with_other_items_is_at_most_info(tmp_path):
    # notes are strings: the list grows across turns, but nothing says it is the conversation
    source = ASSISTANT.format(recent="self.notes[-4:]")
    assert _found(tmp_path, source) == [("PRM105", "info", *_at(source, "self.notes[-4:]"))]


def test_the_same_list_at_a_direct_sdk_send_is_judged_alike(tmp_path):
    source = """
        from openai import OpenAI

        client = OpenAI()


        class Jotter:
            def __init__(self):
                self.notes = []
                self.turns = []

            def jot(self, note: str):
                self.notes.append(note)

            def ask(self, text):
                head = [{"role": "system", "content": "Be brief."}]
                client.chat.completions.create(model="gpt-4.1", messages=[*head, *self.notes[-4:], {"role": "user", "content": text}])
                out = client.chat.completions.create(model="gpt-4.1", messages=[*head, *self.turns[-4:], {"role": "user", "content": text}])
                self.turns.append({"role": "user", "content": text})
                return out
    """
    assert _found(tmp_path, source) == [("PRM105", "info", *_at(source, "self.notes[-4:]")),
                                        ("PRM105", "warning", *_at(source, "self.turns[-4:]"))]


def test_a_one_shot_call_of_an_unknown_model_has_no_window(tmp_path):
    source = """
        from langchain_core.messages import HumanMessage, SystemMessage

        RULES = "Summarise the cell output in one line."


        def summarise(llm, output: str, examples: list):
            shots = examples[-3:]  # a parameter: nothing grows it across calls here
            return llm.invoke([SystemMessage(content=RULES), *shots, HumanMessage(content=output)])
    """
    assert _found(tmp_path, source) == []


def test_stream_of_an_unknown_model_with_a_module_conversation_cut(tmp_path):
    source = """
        from langchain_core.messages import AIMessage, HumanMessage

        dialogue = []


        def chat(llm, text, keep=8):
            dialogue.append(HumanMessage(content=text))
            pieces = []
            for piece in llm.stream(dialogue[-keep:] + [HumanMessage(content="Answer briefly.")]):
                pieces.append(piece.content)
            dialogue.append(AIMessage(content="".join(pieces)))
    """
    assert _found(tmp_path, source) == [("PRM105", "warning", *_at(source, "dialogue[-keep:]"))]


REPLAY = """
    from langchain_core.messages import HumanMessage, SystemMessage


    def spans(turns, width):
        for at in range(len(turns)):
            yield turns[{cut}]


    def grade_all(judge, turns):
        for shown in spans(turns, 5):
            judge.invoke([SystemMessage(content="Grade the newest reply."), *shown, HumanMessage(content="Score?")])
"""


def test_a_generator_of_windows_that_move_with_the_walk_is_a_window_where_it_slices(tmp_path):
    source = REPLAY.format(cut="max(0, at - width + 1): at + 1")
    assert _found(tmp_path, source) == [("PRM105", "warning", *_at(source, "turns[max"))]


def test_a_walk_that_keeps_the_head_or_looks_at_the_last_exchange_has_no_window(tmp_path):
    assert _found(tmp_path, REPLAY.format(cut=": at + 1")) == []  # everything so far: each request extends the last
    assert _found(tmp_path, REPLAY.format(cut="at - 1: at + 1")) == []  # the last exchange only


def test_a_generator_of_windows_whose_windows_no_linked_call_sends_is_info_where_it_slices(tmp_path):
    source = """
        def recent_spans(turns, width):
            for at in range(len(turns)):
                yield turns[max(0, at - width + 1) : at + 1]


        def moving_rows(rows, width):
            for at in range(len(rows)):
                yield rows[max(0, at - width + 1) : at + 1]
    """
    # the walk's windows of a list named as the conversation; rows of a table are none
    assert _found(tmp_path, source, name="spans.py") == [("PRM105", "info", *_at(source, "turns[max"))]
