"""A window whose count is an option off by default (python/flow/window_options.py): PRM105 info
that says the cut runs only when the option is set; a default that cuts, or the package setting the
option on, keeps the warning."""
from __future__ import annotations

from analysis_support import write

from promptlint import api

SESSION = """
    from typing import List, Optional

    from openai import OpenAI
    from pydantic import BaseModel

    client = OpenAI()
    RULES = "You are a careful assistant. " * 200


    class ChatSession(BaseModel):
        model: str = "gpt-4.1"
        messages: List[dict] = []
        recent_messages: Optional[int] = None

        def ask(self, question: str) -> str:
            recent = self.messages[-self.recent_messages:] if self.recent_messages else self.messages
            request = [{"role": "system", "content": RULES}, *recent, {"role": "user", "content": question}]
            reply = client.chat.completions.create(model=self.model, messages=request)
            answer = reply.choices[0].message.content
            self.messages.append({"role": "user", "content": question})
            self.messages.append({"role": "assistant", "content": answer})
            return answer
"""


def _found(tmp_path, files):
    write(tmp_path, files)
    report = api.check([tmp_path], api.Settings(select=["PRM105"]), jobs=1)
    return [(d.severity.value, d.span.filename.rsplit("/", 1)[-1], d.span.start.row, d.message)
            for d in report.diagnostics]


def test_a_window_whose_count_is_off_by_default_is_info_and_says_so(tmp_path):
    found = _found(tmp_path, {"chat/__init__.py": "", "chat/session.py": SESSION})
    assert [f[:3] for f in found] == [("info", "session.py", 16)]
    assert "only when `self.recent_messages` is set: it is off by default, and then the whole history is sent" \
        in found[0][3]


def test_a_count_that_cuts_by_default_keeps_the_warning(tmp_path):
    session = SESSION.replace("recent_messages: Optional[int] = None", "recent_messages: Optional[int] = 12")
    found = _found(tmp_path, {"chat/__init__.py": "", "chat/session.py": session})
    assert [f[:3] for f in found] == [("warning", "session.py", 16)]
    assert "only when" not in found[0][3]


def test_an_option_the_package_sets_on_keeps_the_warning(tmp_path):
    app = """
        from .session import ChatSession

        SESSION = ChatSession(
            model="gpt-4.1",
            recent_messages=8,
        )
    """
    found = _found(tmp_path, {"chat/__init__.py": "", "chat/session.py": SESSION, "chat/app.py": app})
    assert [f[:3] for f in found] == [("warning", "session.py", 16)]
