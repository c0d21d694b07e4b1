"""A system message object returned by a builder named for the system prompt (its text assembled
piecewise from optional parts, its role read from a field), which a caller puts at the head of a
list it later extends with the conversation (python/system_returns.py; docs/policies.md, Policy 2
and Policy 9)."""
from __future__ import annotations

from analysis_support import write

from promptlint import api

GUIDE = ("You are the booking assistant of a small chain of climbing gyms. Answer questions about "
         "opening hours, courses and gear rental. Never promise a slot you have not checked. ")

BUILDER = f'''
    from dataclasses import dataclass
    from datetime import datetime
    from typing import List, Optional


    @dataclass
    class Note:
        speaker: str
        body: str


    class Desk:
        speaker_for_rules: str = "system"
        clock: bool = False
        motto: Optional[str] = None

        def compose_system_message(self, profile) -> Optional[Note]:
            body = ""
            if self.motto is not None:
                body += f"{{self.motto}}\\n"
            facts: List[str] = []
            if self.clock:
                facts.append(f"Local time: {{datetime.now()}}")
            for fact in facts:
                body += f"- {{fact}}\\n"
            body += "{GUIDE * 2}"
            return Note(speaker=self.speaker_for_rules, body=body) if body else None
'''


def _check(tmp_path, caller: str):
    write(tmp_path, {"desk.py": BUILDER, "flow.py": caller})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.filename.rsplit("/", 1)[-1], d.span.start.row) for d in report.diagnostics]


def _builder(tmp_path, caller: str):
    """The builder's findings, with the message class using `role=`/`content=` as chat messages do."""
    write(tmp_path, {"flow.py": caller})
    text = BUILDER.replace("speaker: str", "role: str").replace("body: str", "content: str") \
        .replace("Note(speaker=self.speaker_for_rules, body=body)", "Note(role=self.speaker_for_rules, content=body)")
    write(tmp_path, {"desk.py": text})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.filename.rsplit("/", 1)[-1], d.span.start.row) for d in report.diagnostics]


def test_a_returned_system_message_put_first_then_the_history_is_judged_before_the_history(tmp_path):
    caller = """
        from desk import Desk


        def run_turn(desk: Desk, profile, stored_turns, question):
            outgoing = []
            system = desk.compose_system_message(profile)
            if system is not None:
                outgoing.append(system)
            outgoing += stored_turns
            outgoing.append({"role": "user", "content": question})
            return outgoing
    """
    # the time, where it enters the text (`body += f"- {fact}"`): the history follows the system message
    assert _builder(tmp_path, caller) == [("PRM102", "warning", "desk.py", 25)]


def test_a_returned_system_message_in_a_list_display_with_the_history_spread_after_it(tmp_path):
    caller = """
        from desk import Desk


        def run_turn(desk: Desk, profile, history, question):
            return [desk.compose_system_message(profile), *history, {"role": "user", "content": question}]
    """
    assert _builder(tmp_path, caller) == [("PRM102", "warning", "desk.py", 25)]


def test_a_returned_system_message_with_no_history_after_it_caches_too_little_to_lose(tmp_path):
    caller = """
        from desk import Desk


        def run_once(desk: Desk, profile, question):
            system = desk.compose_system_message(profile)
            return [system, {"role": "user", "content": question}]
    """
    # judged on its own text: the static text after the time is far below every minimum
    assert _builder(tmp_path, caller) == [("PRM102", "info", "desk.py", 25)]


def test_a_returned_message_of_another_role_is_no_system_prompt(tmp_path):
    caller = """
        from desk import Desk


        def run_turn(desk: Desk, profile, history):
            outgoing = []
            outgoing.append(desk.compose_system_message(profile))
            outgoing += history
            return outgoing
    """
    write(tmp_path, {"flow.py": caller})
    text = BUILDER.replace("speaker: str", "role: str").replace("body: str", "content: str") \
        .replace("Note(speaker=self.speaker_for_rules, body=body)", 'Note(role="user", content=body)')
    write(tmp_path, {"desk.py": text})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [d.code for d in report.diagnostics] == []


def test_a_system_message_appended_after_other_messages_gets_no_history_from_its_caller(tmp_path):
    caller = """
        from desk import Desk


        def run_turn(desk: Desk, profile, history, question):
            outgoing = [{"role": "user", "content": question}]
            outgoing.append(desk.compose_system_message(profile))
            outgoing += history
            return outgoing
    """
    # `outgoing.append(...)` of a call (no name kept): not the head of the list; the time is judged
    # on the builder's own text
    assert _builder(tmp_path, caller) == [("PRM102", "info", "desk.py", 25)]


def test_a_list_named_only_as_messages_after_the_returned_system_message_is_not_taken_as_history(tmp_path):
    caller = """
        from desk import Desk


        def extract_facts(desk: Desk, profile, messages):
            return [desk.compose_system_message(profile), *messages]
    """
    # `messages` may be the input of a one-shot call (the run's messages to extract facts from),
    # never re-sent: judged on the builder's own text
    assert _builder(tmp_path, caller) == [("PRM102", "info", "desk.py", 25)]


def test_a_returned_system_message_kept_in_a_name_and_joined_to_the_history(tmp_path):
    caller = """
        from desk import Desk


        def run_turn(desk: Desk, profile, conversation, question):
            system = desk.compose_system_message(profile)
            return [system] + conversation
    """
    assert _builder(tmp_path, caller) == [("PRM102", "warning", "desk.py", 25)]
