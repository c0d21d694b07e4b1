"""A conversation cut from its front in a loop that runs until a size fits (PRM105): `history =
history[2:]`, the list kept under a dict key and re-read on each pass (`chat_history =
inputs["chat_history"]`, then `inputs["chat_history"] = chat_history[2:]`), an attribute
(`self.history.pop(0)`, `self.history = self.history[1:]` while a count of it is over a limit).
Once the budget is reached every new turn drops the oldest messages. Clean: the same loop over
retrieved documents, and a one-shot message list."""
from __future__ import annotations

from analysis_support import write

from promptlint import api


def _found(tmp_path, source: str):
    write(tmp_path, {"app.py": source})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]


HEAD = """
    from openai import OpenAI

    client = OpenAI()
    SYSTEM = "You are a careful assistant who answers questions about the user's files. " * 20


    def count(items):
        return sum(len(str(m)) for m in items) // 4

"""

FOUND = HEAD + """
    def reply(history, question, max_tokens):
        while count(history) > max_tokens:
            history = history[2:]
        return client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "system", "content": SYSTEM}, *history,
                                      {"role": "user", "content": question}])


    def reply_keyed(state, question, max_tokens):
        inputs = {"question": question, "chat_history": state["chat_history"]}
        n = count(inputs["chat_history"])
        while n > max_tokens * 0.85:
            chat_history = inputs["chat_history"] if "chat_history" in inputs else []
            inputs["chat_history"] = chat_history[2:]
            n = count(inputs["chat_history"])
        return client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "system", "content": SYSTEM}, *inputs["chat_history"],
                                      {"role": "user", "content": question}])


    def reduce_inputs(inputs, max_tokens):
        n = count(inputs["chat_history"])
        while n > max_tokens:
            chat_history = inputs["chat_history"]
            inputs["chat_history"] = chat_history[2:]
            n = count(inputs["chat_history"])
        return inputs


    class Chat:
        def __init__(self):
            self.history = []

        def trim(self, limit):
            while count(self.history) > limit:
                self.history.pop(0)

        def shorten(self, limit):
            while count(self.history) > limit:
                self.history = self.history[1:]
"""


def test_a_front_cut_in_a_loop_until_the_history_fits_is_a_window(tmp_path):
    found = [f for f in _found(tmp_path, FOUND) if f[0] == "PRM105"]
    # sent after the static system prompt: a warning where it is cut; in a helper that returns the
    # prompt inputs or keeps the list on the instance: info (no request linked)
    assert found == [("PRM105", "warning", 13), ("PRM105", "warning", 24), ("PRM105", "info", 35),
                     ("PRM105", "info", 46), ("PRM105", "info", 50)]


CLEAN = HEAD + """
    def answer(history, question, docs, max_tokens):
        context = "\\n".join(docs)
        while count(context) > max_tokens:
            docs = docs[1:]
            context = "\\n".join(docs)
        return client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "system", "content": SYSTEM}, *history,
                                      {"role": "user", "content": question + context}])


    def summarise(document, max_tokens):
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": document}]
        while count(messages) > max_tokens:
            messages = messages[1:]
        return client.chat.completions.create(model="gpt-4o", messages=messages)


    def walk(history, question):
        rest = history
        while len(rest) > 0:
            rest = rest[1:]
        return client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "system", "content": SYSTEM}, *history,
                                      {"role": "user", "content": question}])
"""


def test_a_front_cut_of_documents_or_a_one_shot_list_is_no_window(tmp_path):
    assert [f for f in _found(tmp_path, CLEAN) if f[0] == "PRM105"] == []


TAKEN = HEAD + """
    def reply_summarised(history, question, max_tokens):
        kept = list(history)
        pruned = []
        while count(kept) > max_tokens:
            oldest = kept.pop(0)
            pruned.append(oldest)
        return client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "system", "content": SYSTEM}, *kept,
                                      {"role": "user", "content": question}])


    class Memory:
        max_tokens = 2000

        def prune(self, memories: list[Message]) -> list[Message]:
            new_memories = memories[:]
            pruned_memories = []
            while count(new_memories) > self.max_tokens:
                pruned_memory = new_memories.pop(0)
                pruned_memories.append(pruned_memory)
            return new_memories
"""

TAKEN_CLEAN = HEAD + """
    def answer(history, question, jobs):
        notes = []
        while len(jobs) > 0:
            job = jobs.pop(0)
            notes.append(job.run())
        return client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "system", "content": SYSTEM}, *history,
                                      {"role": "user", "content": question + "\\n".join(notes)}])
"""


def test_the_oldest_messages_taken_out_until_the_history_fits_are_a_window(tmp_path):
    # (each popped message kept, to be summarised: the list still loses its oldest on every turn)
    found = [f for f in _found(tmp_path, TAKEN) if f[0] == "PRM105"]
    assert found == [("PRM105", "warning", 15), ("PRM105", "info", 29)]


def test_items_taken_off_a_work_queue_are_no_window(tmp_path):
    assert [f for f in _found(tmp_path, TAKEN_CLEAN) if f[0] == "PRM105"] == []
