"""PRM101's finding for a request whose replayed conversation comes before its static parts
(`[MessagesPlaceholder("chat_history"), ("system", RULES), ...]`, `[*history, {"role": "system",
"content": RULES}, ...]`): each turn appends to the history, so the static text after it sits at
another place in the next request and is processed uncached on every turn.

Facts read: the layout's parts in request order (tools first, whatever they hold), the newest user
message's part (the end of the prefix). Returns (history part, static parts after it, their
static tokens before any value of theirs, whether another history part follows them); the tokens
are None for a system prompt that is one value we cannot read (`self.main_instruction`).
"""
from __future__ import annotations

from ..classify import HISTORY_NAMES
from ..model import Kind, PromptLayout
from ..tokens import count

#: Static tokens after the history from which it is a warning: the lowest minimum a provider caches.
WARN_TOKENS = 1024
#: Static tokens after the history below which it is not reported: less than one of OpenAI's cache
#: increments (128 tokens) is never cached on its own; a sentence of a system prompt costs little.
MIN_TOKENS = 128


#: Names of any list of messages: a list of them made by a call (`convert([...])`) is one too.
_GENERIC = frozenset({"messages", "msgs", "all_messages", "chat_messages"})


def _named_conversation(part) -> bool:
    """A chat template's history placeholder, or a list named as a conversation (`history`,
    `self.chat_history`; not the generic `messages`, which may be this request's own messages
    converted by a helper)."""
    seg = next((s for s in part.segments if not s.is_static), None)
    if seg is None:
        return False
    if not seg.evidence:
        return True  # (`MessagesPlaceholder(...)`, `("placeholder", "{chat_history}")`)
    name = seg.expr.rsplit(".", 1)[-1].lower().lstrip("_")
    return name in HISTORY_NAMES and name not in _GENERIC


def history_first(layout: PromptLayout):
    """(history part, [static parts after it], static tokens, grown after) or None: the first part
    of the request that holds anything (tools aside) is a replayed history, and parts of static
    text follow it before the newest user message."""
    if layout.source != "python-call":
        return None
    parts = layout.parts
    first = next((i for i, p in enumerate(parts) if p.role != "tools"
                  and any(not s.is_static or s.text.strip() for s in p.segments)), None)
    if first is None or not parts[first].is_history or not _named_conversation(parts[first]):
        return None
    newest = layout.newest_user
    if newest is None:  # (not known: the last user message of the request is its newest)
        newest = next((i for i in range(len(parts) - 1, first, -1) if parts[i].role == "user"), None)
    end = newest if newest is not None and newest > first else len(parts)
    static, tokens, grown = [], 0, False
    for part in parts[first + 1:end]:
        if part.is_history:
            grown = True  # (the turn's own messages: the input, an agent's scratchpad)
            break
        text = ""
        for s in part.segments:
            if not s.is_static:
                break
            text += s.text
        if text.strip():
            static.append(part)
            tokens += count(text)
        if any(not s.is_static for s in part.segments):
            break  # (what follows a value of its own is that value's finding)
    if static and tokens < MIN_TOKENS:
        return None
    if not static:
        # a system prompt we cannot read (`("system", self.main_instruction)`, set by subclasses):
        # the system prompt still, of unknown length (tokens None)
        after = next((p for p in parts[first + 1:end] if p.role != "tools"), None)
        if after is None or after.role != "system" or not after.segments or after.segments[0].is_static \
                or after.segments[0].kind is not Kind.UNKNOWN:
            return None
        return parts[first], [after], None, grown or any(p.is_history for p in parts[end:])
    grown = grown or any(p.is_history for p in parts[end:])
    return parts[first], static, tokens, grown
