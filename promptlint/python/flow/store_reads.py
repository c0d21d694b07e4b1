"""Names that say a function reads a stored conversation back (`get_messages`, `load_history`,
`MessageHistory.get_recent`, a store's generic `get` returning `List[Message]`): the evidence
is the names alone (facts for the cut conversations of PRM105)."""
from __future__ import annotations

import ast
import re

#: Verbs and nouns of a function (or method) named for reading the stored conversation back
#: (`get_messages`, `load_chat_history`, `fetchRecentTurns`); a trace, a log or events are not it.
_READ_VERBS = frozenset({"get", "load", "fetch", "read", "retrieve", "query", "list"})

_READ_NOUNS = frozenset({"messages", "history", "conversation", "turns", "dialog", "dialogue", "transcript", "msgs"})

_NOT_READ = frozenset({"trace", "traces", "log", "logs", "event", "events", "feedback", "error", "errors", "lessons"})


def reads_conversation(name: str) -> bool:
    """True for a function name that says it reads the conversation back: a read verb and a
    word of the conversation (`get_messages`, `load_history`, `getChatHistory`), not of a log."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name or "")
    found = {w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w}
    return bool(found & _READ_VERBS) and bool(found & _READ_NOUNS) and not found & _NOT_READ

#: Words of a class's name that say it keeps a conversation (`RamMemoryStorage`, `ChatHistoryStore`).
_STORE_NOUNS = frozenset({"memory", "history", "conversation", "chat", "messages", "dialog", "dialogue", "transcript"})

#: Words of a return annotation that say it is a list of messages (`List[Message]`, `list[ChatTurn]`).
_MESSAGE_TYPES = frozenset({"message", "messages", "turn", "turns"})


def reads_stored_messages(func, cls) -> bool:
    """True for a method named by a read verb alone (`get`, `load`, `afetch`) of a class that keeps a
    conversation, by the class's name (`RamMemoryStorage.get`) or by its return annotation
    (`def get(self, session_id, top_k=10) -> List[Message]` in any class): the generic read method of a
    message store, which reads the stored conversation back. Names are the evidence (the rule reports
    it as info where it is cut, with no request linked)."""
    if cls is None or func is None:
        return False
    name = func.name.lower()
    if name.lstrip("_") not in _READ_VERBS and not (name.startswith("a") and name[1:] in _READ_VERBS):
        return False
    if _words(cls.name) & _STORE_NOUNS and not _words(cls.name) & _NOT_READ:
        return True
    note = func.returns
    return note is not None and bool(_words(ast.unparse(note)) & _MESSAGE_TYPES)

#: Words of a method's name that say it reads the newest records (`get_recent`, `load_latest`).
_NEWEST_WORDS = frozenset({"recent", "latest", "last", "newest", "tail"})


def reads_newest_stored(func, cls) -> bool:
    """True for a method named by a read verb and a word of the newest (`get_recent`, `load_latest`)
    of a class whose name says it keeps a conversation (`MessageHistory.get_recent`): the read of a
    message store that returns its newest messages. Names are the evidence."""
    if cls is None or func is None:
        return False
    found = _words(func.name)
    return bool(found & _READ_VERBS) and bool(found & _NEWEST_WORDS) and not found & _NOT_READ \
        and bool(_words(cls.name) & _STORE_NOUNS) and not _words(cls.name) & _NOT_READ


def method_class(stack: list, func):
    """The class whose method `func` is (the node directly around it in `stack`, a walk's open
    scopes, outermost first), or None."""
    at = next((i for i in range(len(stack) - 1, -1, -1) if stack[i] is func), None)
    return stack[at - 1] if at and isinstance(stack[at - 1], ast.ClassDef) else None


def _words(name: str) -> set[str]:
    """The lower-case words of an identifier or annotation (`RamMemoryStorage` -> ram, memory, storage)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name or "")
    return {w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w}
