"""The newest records of a conversation converted into messages or text in a loop: each record
extended as a pair of messages (`out.extend(({"role": "user", ...}, {"role": "assistant", ...}))`),
a list named for its messages with a container word (`conversation.message_list[-5:]`), the newest
entries written one after another into one text (`text += f"...{m['content']}..."`); and a message
list whose only change is its cut history (`message_candidates.message_list`)."""
from promptlint import api
from promptlint.model import Kind

from analysis_support import pos, probe, write

RECORDS = """
    class Session:
        def __init__(self):
            self.conversations = {}
            self.history = []

        def send(self, text, conversation_id):
            out = [{"role": "system", "content": "You help."}]
            conversation = self.conversations[conversation_id]
            for record in conversation.message_list[-5:]:
                out.extend(({"role": "user", "content": record.ask}, {"role": "assistant", "content": record.answer}))
            out.append({"role": "user", "content": text})
            probe(out)
            rows = [{"role": "system", "content": "You help."}]
            for record in self.history:
                rows.extend(({"role": "user", "content": record.ask}, {"role": "assistant", "content": record.answer}))
            probe(rows)
            pairs = [{"role": "system", "content": "You help."}]
            for record in conversation.row_list[-5:]:
                pairs.extend(({"role": "user", "content": record.ask}, {"role": "assistant", "content": record.answer}))
            probe(pairs)
"""


def _windows(value):
    return [s for i in value.items for s in getattr(getattr(i, "value", None), "segs", ()) if s.window is not None]


def test_records_of_a_cut_list_named_for_messages_extended_as_pairs_are_the_cut(tmp_path):
    cut, = _windows(probe(tmp_path, RECORDS, index=0).value)
    assert cut.kind is Kind.HISTORY and cut.window.start == pos(RECORDS, "conversation.message_list[-5:]")
    assert cut.expr == "conversation.message_list[-5:]"


def test_records_of_a_whole_list_or_of_one_not_named_for_messages_are_no_window(tmp_path):
    assert _windows(probe(tmp_path, RECORDS, index=1).value) == []
    assert _windows(probe(tmp_path, RECORDS, index=2).value) == []


TEXTS = """
    class Agent:
        def __init__(self):
            self.history = []
            self.notes = []

        def add(self, said, note):
            self.history.append({"role": "user", "content": said})
            self.notes.append(note)

        def step(self, obs):
            text = ""
            for entry in self.history[-15:]:
                text += f"<R>{entry['content']}</R>"
            probe(text)
            older = ""
            for entry in self.history[::-1][:15][::-1]:
                older += f"<R>{entry['content']}</R>"
            probe(older)
            whole = ""
            for entry in self.history:
                whole += f"<R>{entry['content']}</R>"
            probe(whole)
            noted = ""
            for note in self.notes[-3:]:
                noted += f"- {note}"
            probe(noted)
            count = 0
            for entry in self.history[-15:]:
                count += 1
            probe(count)
"""


def test_the_newest_entries_written_into_one_text_in_a_loop_are_the_cut_in_text(tmp_path):
    cut, tag = probe(tmp_path, TEXTS, index=0).segs  # (text: a request that carries it judges it)
    assert cut.kind is Kind.HISTORY and cut.window.start == pos(TEXTS, "self.history[-15:]")
    assert tag.is_static and tag.text == "<R>"
    reversed_cut, _ = probe(tmp_path, TEXTS, index=1).segs
    assert reversed_cut.window.start == pos(TEXTS, "self.history[::-1][:15][::-1]")


def test_every_entry_or_a_count_is_no_window_and_a_list_not_known_as_messages_stays_unconfirmed(tmp_path):
    for index in (2, 4):
        assert not any(s.window for s in probe(tmp_path, TEXTS, index=index).segs), index
    noted, _ = probe(tmp_path, TEXTS, index=3).segs  # (as `"".join(f"- {n}" for n in self.notes[-3:])` is)
    assert noted.unconfirmed and noted.window.start == pos(TEXTS, "self.notes[-3:]")


DEMO = """
    import openai


    class Session:
        def __init__(self):
            self.conversations = {}

        def complete(self, history):
            r = openai.chat.completions.create(model="gpt-4o", messages=history)
            return r.choices[0].message.content

        def send(self, text, conversation_id):
            chat = [{"role": "system", "content": "You are a helpful assistant."}]
            conversation = self.conversations[conversation_id]
            for m in conversation.messages[-5:]:
                chat.append({"role": "user", "content": m.ask})
            chat.append({"role": "user", "content": text})
            return self.complete(chat)

        def start(self, text):
            return self.complete([{"role": "user", "content": text}])


    if __name__ == "__main__":
        s = Session()
        print(s.send("hi", "x"))
"""


def test_a_message_list_with_a_cut_history_is_a_candidate_when_a_demo_caller_fixes_its_other_text(tmp_path):
    """`send("hi", "x")` under `__main__` makes the user message static; the cut history still
    changes on every turn: reported where it is cut (info: the request is not linked)."""
    write(tmp_path, {"app.py": DEMO})
    report = api.check([tmp_path / "app.py"], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics] == [("PRM105", "info", 15)]


SENT_TEXT = """
    from openai import OpenAI

    client = OpenAI()
    RULES = "You are a careful coding agent. " * 400


    def history_text(history, n=4):
        text = ""
        for m in history[-n:]:
            text += f"{m['role']}: {m['content']}\\n"
        return text


    class Agent:
        def __init__(self):
            self.history = []

        def step(self, obs):
            self.history.append({"role": "user", "content": obs})
            text = ""
            for entry in self.history[-15:]:
                text += f"<R>{entry['content']}</R>"
            r = client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": RULES},
                {"role": "user", "content": f"<HISTORY>{text}</HISTORY> Now: {obs}"}])
            self.history.append({"role": "assistant", "content": r.choices[0].message.content})
"""


def test_text_of_the_newest_entries_is_reported_where_a_request_carries_it_not_where_a_helper_returns_it(tmp_path):
    """(the end of a one-shot prompt loses nothing: where the text goes decides, docs/policies.md)"""
    write(tmp_path, {"app.py": SENT_TEXT})
    report = api.check([tmp_path / "app.py"], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics] == [("PRM105", "warning", 21)]
