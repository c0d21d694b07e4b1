"""Text that writes one turn of a conversation: a user side and an assistant side, labelled
(`f"User: {q}\\nAssistant: {a}"`, `f"Human: {q}\\nAI: {a}"`). A list of such texts grown in a loop
over stored pairs and joined is the conversation written as text (docs/policies.md, Policy 2).
"""
from __future__ import annotations

import re

from ... import classify
from ...model import Kind, Segment, Volatility, replace
from .configured import MARK

#: Labels of the two sides of a turn written into text (`User:` / `Assistant:`, `Human:` / `AI:`).
USER_LABEL = re.compile(r"(?i)\b(?:user|human|question|q)\s*:")
ASSISTANT_LABEL = re.compile(r"(?i)\b(?:assistant|ai|bot|answer|model|a)\s*:")


def labels_turn(text: str) -> bool:
    """True when `text` labels a user side and an assistant side of a turn."""
    return USER_LABEL.search(text) is not None and ASSISTANT_LABEL.search(text) is not None


def writes_turn(segs: list[Segment]) -> bool:
    """True for the text of one item that writes a whole turn: a user label, then a value, then
    an assistant label and a value (`User: {q}\\nAssistant: {a}`); the labels in its static text,
    a value of unknown or per-request content after each. Fixed examples (`Q: 2+2\\nA: 4`) are not."""
    user = next((i for i, s in enumerate(segs) if s.is_static and USER_LABEL.search(s.text)), None)
    if user is None:
        return False
    answer = next((i for i in range(user, len(segs)) if segs[i].is_static and ASSISTANT_LABEL.search(
        segs[i].text[USER_LABEL.search(segs[i].text).end():] if i == user else segs[i].text)), None)
    if answer is None:
        return False
    return any(_carried(s) for s in segs[user:answer]) and any(_carried(s) for s in segs[answer:])


def _carried(seg: Segment) -> bool:
    return not seg.is_static and seg.kind in (Kind.UNKNOWN, Kind.USER_INPUT, Kind.HISTORY) and \
        seg.volatility is not Volatility.STABLE


def history_behind(segs: list[Segment]) -> bool:
    """True when the conversation (a history segment) comes after a value that is not fixed in
    the same text (`f"{question}\\n{history_text}"`): that value is before the whole history."""
    first = next((i for i, s in enumerate(segs) if s.kind is Kind.HISTORY), None)
    return first is not None and any(not s.is_static and s.kind is not Kind.CONDITIONAL and
                                     s.volatility is not Volatility.STABLE for s in segs[:first])


def named_history(name: str, segs: list[Segment]) -> list[Segment]:
    """The value filled into a template's placeholder named as the conversation (`{chat_history}`,
    `{history}`, `$messages`: a name of `classify.HISTORY_NAMES`), as the conversation: its values
    of unknown content that change (`memory.to_string()`, an attribute of an object not read), or
    are read off an object the instance is configured with (`self.agent.memory.to_string()`), are
    the history the name says (a name is the evidence, docs/policies.md Policy 7). A value whose
    content is known (a time, retrieved text, a constant) keeps it; `segs` unchanged otherwise."""
    if name.strip().lower() not in classify.HISTORY_NAMES:
        return segs
    moving = [s for s in segs if not s.is_static]
    if not moving or any(s.kind is not Kind.UNKNOWN or s.volatility is Volatility.STABLE
                         and not s.evidence.endswith(MARK) for s in moving):
        return segs
    return [s if s.is_static else replace(s, kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, name_only=True,
                                          evidence=f"{s.evidence or s.expr}, filled into `{{{name}}}`, "
                                                   f"a placeholder named as the conversation")
            for s in segs]
