"""A kept conversation read as its newest items through a method of the object that keeps it
(python/window_calls.py), a list turned into role messages by its class and popped from its head
over a limit (python/memory_windows.py), and a newest-first walk to a budget over a list of role
messages named for the conversation with a qualifier (python/flow/windows.py): PRM105, info."""
from __future__ import annotations

from analysis_support import write

from promptlint import api


def _found(tmp_path, files: dict[str, str], select=("PRM105",)):
    write(tmp_path, files)
    report = api.check([tmp_path], api.Settings(select=list(select)), jobs=1)
    return [(d.code, d.severity.value, d.span.filename.rsplit("/", 1)[-1], d.span.start.row,
             [(r.span.filename.rsplit("/", 1)[-1], r.span.start.row) for r in d.related])
            for d in report.diagnostics]


LOGBOOK = """
    class Logbook:
        def __init__(self):
            self.entries = []
            self.turns = []

        def add(self, entry):
            self.entries.append(entry)
            self.turns.append(entry)

        def as_messages(self, speaker: str = "", start: int = 0) -> list:
            out = []
            for entry in self.entries[start:]:
                role = "assistant" if entry.speaker == speaker else "user"
                out.append({"role": role, "content": entry.text})
            return out

        def latest_turns(self, count: int) -> list:
            return self.turns[-count:]
"""

PILOT = """
    class Pilot:
        depth: int = 12

        def __init__(self, logbook, llm):
            self.logbook = logbook
            self.llm = llm

        def step(self, name: str, task: str):
            history = self.logbook.as_messages(name, start=-self.depth)
            return self.llm.reply(task, history)

        def recap(self, task: str):
            recent = self.logbook.latest_turns(self.depth)
            return self.llm.reply(task, recent)

        def whole(self, name: str, task: str):
            everything = self.logbook.as_messages(name)
            skipped = self.logbook.as_messages(name, start=2)
            last = self.logbook.latest_turns(1)
            return self.llm.reply(task, everything + skipped + last)
"""


def test_a_window_read_through_a_method_of_the_keeper_is_reported_at_the_call(tmp_path):
    found = _found(tmp_path, {"crew/__init__.py": "", "crew/logbook.py": LOGBOOK, "crew/pilot.py": PILOT})
    # the negative start given by keyword (line 9) and the count given to the slice from the end
    # (line 13), each with the keeper's slice related; the keeper's own `return self.turns[-count:]`
    # is that same cut (one finding, at the call that chooses the count)
    assert found == [("PRM105", "info", "pilot.py", 9, [("logbook.py", 12)]),
                     ("PRM105", "info", "pilot.py", 13, [("logbook.py", 18)])]


def test_a_default_start_a_positive_start_or_one_item_is_no_window(tmp_path):
    pilot = PILOT.replace("start=-self.depth", "start=self.depth").replace(
        "self.logbook.latest_turns(self.depth)", "self.logbook.latest_turns(2)")
    found = _found(tmp_path, {"crew/__init__.py": "", "crew/logbook.py": LOGBOOK, "crew/pilot.py": pilot})
    # no call chooses a window: the keeper's slice from the end stays reported where it is
    assert found == [("PRM105", "info", "logbook.py", 18, [])]


def test_a_method_name_another_class_uses_for_something_else_is_not_read_as_the_keeper(tmp_path):
    other = """
        class Archive:
            def as_messages(self, speaker: str = "", start: int = 0) -> list:
                return [{"role": "user", "content": speaker, "offset": start}]
    """
    pilot = PILOT.replace("self.logbook.latest_turns(self.depth)", "[]")
    found = _found(tmp_path, {"crew/__init__.py": "", "crew/logbook.py": LOGBOOK, "crew/archive.py": other,
                              "crew/pilot.py": pilot})
    assert [f for f in found if f[2] == "pilot.py"] == []


SIGNALS = """
    class SignalDesk:
        def __init__(self, limit: int = 25):
            self.signals = []
            self.limit = limit

        def as_chat(self):
            messages = []
            for signal in self.signals:
                messages.append({"role": signal.kind, "content": signal.body})
            return messages

        def push(self, kind, body):
            self.signals.append(Signal(kind, body))
            if len(self.signals) > self.limit:
                self.archive_oldest()

        def archive_oldest(self):
            oldest = self.signals.pop(0)
            self.store.save(oldest)
"""


def test_a_list_its_class_turns_into_role_messages_popped_from_its_head_over_a_limit(tmp_path):
    assert _found(tmp_path, {"desk.py": SIGNALS}) == [("PRM105", "info", "desk.py", 15, [])]


def test_a_list_popped_from_its_head_that_no_method_turns_into_messages_is_a_log(tmp_path):
    log = SIGNALS.replace('messages.append({"role": signal.kind, "content": signal.body})',
                          'messages.append(signal.body)')
    assert _found(tmp_path, {"desk.py": log}) == []


def test_a_list_whose_items_all_become_one_kind_of_message_is_notes(tmp_path):
    notes = SIGNALS.replace('{"role": signal.kind, "content": signal.body}', '{"role": "user", "content": signal.body}')
    assert _found(tmp_path, {"desk.py": notes}) == []


BUDGET = """
    class Transcript:
        def __init__(self, store, counter, budget: int = 3000):
            self.store = store
            self.counter = counter
            self.budget = budget

        def window(self):
            used = 0
            kept = []
            NAME = as_dicts(self.store.everything())
            for item in reversed(NAME):
                used += self.counter(item["content"])
                if used >= self.budget:
                    break
                kept.append(item)
            return list(reversed(kept))


    def as_dicts(records):
        out = []
        for r in records:
            out.append({"role": r.role, "content": r.text})
        return out
"""


def test_a_newest_first_walk_to_a_budget_over_converted_messages_is_a_window(tmp_path):
    source = BUDGET.replace("NAME", "converted_messages")
    # the walk (line 11), the test where it stops at its budget related (line 13)
    assert _found(tmp_path, {"transcript.py": source}) == [("PRM105", "info", "transcript.py", 11, [("transcript.py", 13)])]


def test_the_same_walk_over_messages_named_for_another_kind_is_not_read_as_the_conversation(tmp_path):
    source = BUDGET.replace("NAME", "error_messages")
    assert _found(tmp_path, {"transcript.py": source}) == []


TAGGER = """
    class Relay:
        def __init__(self, tagger, banner: str = "Be brief."):
            self.tagger = tagger
            self.banner = banner

        def tag_turns(self, messages: list) -> list:
            note = f"[locale {self.tagger.current_locale}] "
            for i, m in enumerate(messages):
                if m["role"] == "user":
                    messages[i]["content"] = note + m["content"]
            return messages

        def bannered(self, messages: list) -> list:
            for i, m in enumerate(messages):
                if m["role"] == "user":
                    messages[i]["content"] = self.banner + m["content"]
            return messages
"""


def test_every_user_message_written_with_the_state_of_an_object_the_instance_holds(tmp_path):
    # written through the walk's index with a field of the object the instance holds (line 10, the
    # value entering at line 7); a field only `__init__` sets is the deployment's configuration
    assert _found(tmp_path, {"relay.py": TAGGER}) == [("PRM105", "info", "relay.py", 10, [("relay.py", 7)])]


SNAPSHOTS = """
    class SnapshotLimiter:
        def __init__(self, keep: int = 3):
            self.keep = keep

        def limit(self, messages: list) -> list:
            shots = []
            for n, item in enumerate(messages):
                if item.get("type") == "screenshot_result":
                    shots.append(n)
            if len(shots) <= self.keep:
                return messages
            newest = set(shots[-self.keep:])
            dropped = {n for n in shots if n not in newest}
            return [item for n, item in enumerate(messages) if n not in dropped]
"""


def test_the_newest_indices_of_a_kind_kept_and_the_others_left_out_by_index(tmp_path):
    # where the newest indices are kept (line 12), the rebuilt conversation related (line 14)
    assert _found(tmp_path, {"limiter.py": SNAPSHOTS}) == [("PRM105", "info", "limiter.py", 12, [("limiter.py", 14)])]


def test_indices_of_a_kind_kept_whole_or_a_list_not_of_the_conversation_are_no_window(tmp_path):
    whole = SNAPSHOTS.replace("shots[-self.keep:]", "shots")
    other = SNAPSHOTS.replace("enumerate(messages)", "enumerate(frames)").replace("messages: list", "frames: list") \
        .replace("return messages", "return frames")
    assert _found(tmp_path, {"limiter.py": whole}) == []
    assert _found(tmp_path, {"other/limiter.py": other}) == []


RETRY = """
    import re


    def retry_with_output(session, output: str):
        session.restore("before-run")
        session.messages[-2]["content"] = re.sub(r"(?<=Output:\\n).*", output, session.messages[-2]["content"])
        session.messages[-1]["content"] = output
        session.messages[-2]["cache_control"] = {"type": "ephemeral"}
        local = list(session.messages)
        local[-2]["content"] = output
        return session.send()
"""


def test_an_older_message_of_a_kept_conversation_rewritten_by_its_place_from_the_end(tmp_path):
    # the second newest message of the list the object keeps (line 6); not the newest (line 7), a
    # breakpoint (line 8) or a local list whose keeping is not seen (line 10)
    assert _found(tmp_path, {"retry.py": RETRY}) == [("PRM105", "info", "retry.py", 6, [])]


LEDGER = '''
    class SqlChatLedger:
        async def save(self, thread_id: str, role: str, text: str, keep: int | None):
            await self.db.execute(
                "INSERT INTO chat_turns (thread_id, role, body) VALUES (?, ?, ?)", [thread_id, role, text])
            if keep is not None:
                await self.db.execute("""
                    DELETE FROM chat_turns
                    WHERE thread_id = ? AND turn_no <= (
                        SELECT MAX(turn_no) - ? FROM chat_turns WHERE thread_id = ?)
                """, [thread_id, keep, thread_id])
            await self.db.execute("DELETE FROM chat_turns WHERE thread_id = ? AND role = 'draft'", [thread_id])
            await self.db.execute("""
                DELETE FROM audit_rows WHERE id NOT IN (
                    SELECT id FROM audit_rows ORDER BY created DESC LIMIT ?)""", [keep])
'''


def test_a_delete_that_keeps_the_newest_rows_of_a_stored_conversation(tmp_path):
    # the query that keeps the newest rows of the conversation's table (line 6); a delete of a
    # kind of row, and one that keeps the newest rows of a table not named for a conversation
    assert _found(tmp_path, {"ledger.py": LEDGER}) == [("PRM105", "info", "ledger.py", 6, [])]


def test_the_same_delete_in_a_store_not_named_for_a_conversation_is_not_read_as_one(tmp_path):
    # a store of other records that keeps a few recent messages (the input of a one-shot prompt)
    assert _found(tmp_path, {"ledger.py": LEDGER.replace("class SqlChatLedger:", "class SqliteManager:")}) == []


DIGEST = """
    from . import llm


    def NAME(msgs, model, budget):
        head = msgs[:1]
        body = msgs[1:]
        kept = []
        used = 0
        for msg in reversed(body):
            tokens = count(msg.content, model)
            if tokens > budget - used:
                break
            kept.append(msg)
            used += tokens
        kept.reverse()
        return head + kept


    def checkpoint(manager, msgs, model):
        ask = {"role": "user", "content": "Write a checkpoint of the conversation above."}
        reply = llm.reply(NAME(msgs, model, 100000) + [ask], model=model, tools=[])
        manager.replace(reply.content)
"""


def test_a_window_cut_for_a_summary_request_s_input_is_no_history_cut(tmp_path):
    # the one-shot summarizer reads the newest messages that fit; the conversation re-sent every
    # turn is not this list (a function that keeps the newest turns for the chat itself is)
    summary = DIGEST.replace("NAME", "_bound_summarize_input")
    chat = DIGEST.replace("NAME", "_bound_history")
    assert _found(tmp_path, {"digest/__init__.py": "", "digest/resume.py": summary}) == []
    assert _found(tmp_path, {"digest/__init__.py": "", "digest/resume.py": chat}) == [
        ("PRM105", "info", "resume.py", 9, [("resume.py", 11)])]


HEADED = """
    def with_notes(turns: list, notes: str, cap: int = 40):
        merged_messages = [{"role": "system", "content": notes}] + turns[1:]
        if len(merged_messages) > cap:
            merged_messages = [merged_messages[0]] + merged_messages[-(cap - 1):]
        return merged_messages, {"notes": len(notes)}
"""


def test_a_conversation_rebound_to_its_first_message_and_its_newest_is_a_window(tmp_path):
    # the system message kept, then the newest: once longer than the cap it slides (line 4)
    assert _found(tmp_path, {"notes.py": HEADED}) == [("PRM105", "info", "notes.py", 4, [])]
    # the first messages alone (no newest slice after them) cut nothing from the front
    head_only = HEADED.replace("[merged_messages[0]] + merged_messages[-(cap - 1):]", "merged_messages[:cap]")
    assert _found(tmp_path, {"notes.py": head_only}) == []


def test_a_window_read_through_the_keeper_and_rendered_into_text_is_judged_where_the_text_goes(tmp_path):
    pilot = PILOT.replace("history = self.logbook.as_messages(name, start=-self.depth)",
                          "history = \"\\\\n\".join(str(m) for m in self.logbook.as_messages(name, start=-self.depth))")
    found = _found(tmp_path, {"crew/__init__.py": "", "crew/logbook.py": LOGBOOK, "crew/pilot.py": pilot})
    assert [f[:4] for f in found] == [("PRM105", "info", "pilot.py", 13)]


def test_an_option_given_to_a_method_of_each_message_is_no_stamp(tmp_path):
    source = """
        def to_blocks(messages: list, compact: bool = False) -> list:
            out = []
            for i, message in enumerate(messages):
                if message.role == "tool":
                    body = message.get_content(use_compact=compact)
                    out.append({"role": "user", "content": body})
            return out
    """
    assert _found(tmp_path, {"blocks.py": source}) == []


MEMORY = """
    class Memory:
        def __init__(self, memory_size: int = 10):
            self._messages = []
            self._memory_size = memory_size

        def add(self, message: str, is_user: bool):
            self._messages.append({"message": message, "is_user": is_user})

        def get_messages(self, limit: int = None) -> list:
            limit = self._memory_size if limit is None else limit
            return [f"### {m['message']}" for m in self._messages[-limit:]]

        def get_previous_conversation(self) -> str:
            messages = self.get_messages(self._memory_size)
            return "" if len(messages) <= 1 else "\\n".join(messages[:-1])

        def get_last_message(self) -> str:
            messages = self.get_messages(self._memory_size)
            return "" if len(messages) == 0 else messages[-1]
"""

#: Another class of the package with a method of the same name that cuts nothing.
BACKEND = """
    class Backend:
        def get_messages(self, memory) -> str:
            return memory.get_previous_conversation()
"""


def test_a_window_read_through_a_method_of_the_own_class_is_reported_whatever_other_classes_name_it(tmp_path):
    found = _found(tmp_path, {"pkg/__init__.py": "", "pkg/memory.py": MEMORY, "pkg/backend.py": BACKEND})
    # `self.get_messages(...)` reaches Memory.get_messages (the slice, line 11), not Backend's; the
    # newest message alone read through it (line 18, `messages[-1]`, `len(messages)`) is no window
    assert found == [("PRM105", "info", "memory.py", 14, [("memory.py", 11)])]


def test_a_call_on_another_object_with_a_name_another_class_defines_otherwise_is_still_not_read(tmp_path):
    memory = MEMORY.replace("messages = self.get_messages(self._memory_size)\n            return \"\" if len(messages) <= 1",
                            "messages = self.store.get_messages(self._memory_size)\n            return \"\" if len(messages) <= 1")
    found = _found(tmp_path, {"pkg/__init__.py": "", "pkg/memory.py": memory, "pkg/backend.py": BACKEND})
    # `get_messages` of an unknown object: Backend defines it otherwise, so no call is read as the
    # window's; the slice stays reported where it is
    assert found == [("PRM105", "info", "memory.py", 11, [])]
