"""A message list a function assembles in steps and branches (python/list_heads.py): `msgs = []`,
`if system: msgs.append(Message(system, role=SYSTEM))`, the history extended in some branches, the
user message appended last (`if user_prompt: msgs.append(...)`). The system message heads every variant that writes it, so it is the
request's system part, before the history (not a message merged into the history); a list where
some branch puts other messages before it keeps them merged as the history."""
from __future__ import annotations

from analysis_support import layouts, roles, write

from promptlint import api

MESSAGE = '''
import dataclasses
from typing import Optional


class Roles:
    SYSTEM = "system"
    HUMAN = "human"
    AI = "ai"


@dataclasses.dataclass
class Message:
    content: Optional[str] = None
    role: Optional[str] = None

    def to_llm_message(self):
        return {"content": self.content, "role": self.role}
'''

AGENT = '''
from datetime import datetime

from .message import Message, Roles

SYSTEM = "You help the shop's customers. Today is {now}. " + "Answer every question politely and precisely. " * 80


class Agent:
    def __init__(self, memory):
        self.memory = memory

    def system_prompt(self):
        return SYSTEM.format(now=datetime.now().isoformat())

    def user_prompt(self, question):
        return f"Question: {question}"

    def load_messages(self, question, observation=None, dialogues=None, retry=None):
        system_prompt = self.system_prompt()
        user_prompt = self.user_prompt(question)
        memories = self.memory.read(question)
        messages = []
        if system_prompt:
            messages.append(Message(content=system_prompt, role=Roles.SYSTEM))
        if dialogues and not memories:
            for i in range(len(dialogues)):
                if i % 2 == 0:
                    message = dialogues[i]
                    message.role = Roles.HUMAN
                    messages.append(message)
                else:
                    message = dialogues[i]
                    message.role = Roles.AI
                    messages.append(message)
        if memories:
            messages.extend(memories)
        if not user_prompt and (not memories or not retry):
            user_prompt = f"Observation: {observation}"
        if user_prompt:
            messages.append(Message(content=user_prompt, role=Roles.HUMAN))
        return messages, None
'''

FIRST_BRANCH = AGENT.replace('''        messages = []
        if system_prompt:''', '''        messages = []
        if retry:
            messages.extend(dialogues)
        if system_prompt:''')


def _returned(tmp_path, agent):
    found = layouts(tmp_path, agent, {"app/__init__.py": "", "app/message.py": MESSAGE}, name="app/agent.py")
    row = agent.lstrip("\n")[:agent.lstrip("\n").index("return messages, None")].count("\n") + 1
    return next(lt for lt in found if lt.site.start.row == row)


def test_the_system_message_of_a_list_built_in_steps_heads_it(tmp_path):
    layout = _returned(tmp_path, AGENT)
    assert roles(layout) == ["system", "history", "user"]
    assert any(s.expr and "datetime.now()" in s.expr for s in layout.parts[0].segments)


def test_the_rule_judges_it_as_a_system_prompt_before_the_history(tmp_path):
    write(tmp_path, {"app/__init__.py": "", "app/message.py": MESSAGE, "app/agent.py": AGENT})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value) for d in report.diagnostics] == [("PRM102", "warning")]
    assert "the conversation history after it" in report.diagnostics[0].message


def test_a_branch_that_puts_the_history_first_keeps_the_list_merged(tmp_path):
    layout = _returned(tmp_path, FIRST_BRANCH)
    assert roles(layout)[0] == "history"
