"""A conversation history loaded as its newest turns: facts for PRM105 (the rule judges them).

A call that reads a conversation from storage (a session manager, a chat store: its name says
session, history, conversation, chat or messages) with a keyword that keeps only the last turns
(`last_n=10`, `last_k=settings.history_turns`, `max_messages=self.history_limit`: a store keeps
the newest messages up to its maximum) returns a sliding window: once the conversation is
longer than that, its oldest turn drops out on every new turn, so the history text sent after
it never matches the previous request's prefix. The cut is inside the loader (storage we do not
read), so the keyword is where the window is chosen; the request that sends the history is not
linked to it here, and names are the evidence: the rule reports it as info.

A constant window of one or two turns is not a history sent whole (the last answer looked up
for a check) and is left out.
"""
from __future__ import annotations

import ast
import re

from .module import callee_name
from .walk import subtree

_WINDOW_KEYWORDS = frozenset({"last_n", "last_k", "n_last", "last_n_turns", "last_n_messages", "max_messages"})
#: One of those keywords given a value in the source text: the cheap test before the module's walk.
WINDOW_TEXT = re.compile(r"\b(?:%s)\s*=(?!=)" % "|".join(sorted(_WINDOW_KEYWORDS)))
_READS = frozenset({"get", "load", "fetch", "read", "retrieve"})
_CONVERSATION = frozenset({"session", "history", "conversation", "chat", "messages", "turns", "dialog", "dialogue"})
_NOT_CONVERSATION = frozenset({"trace", "traces", "log", "logs", "events", "feedback", "lessons"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def history_windows(module) -> list[ast.keyword]:
    """The `last_n=...` keywords of calls that read a conversation (`get_session(...)`,
    `load_history(...)`: a read verb and a word of a conversation, not of a trace or a log), in
    source order. A window its own function takes as a parameter and hands on (`last_n=last_n`)
    is chosen by the callers: left out, as is a constant of at most two turns and a call whose
    result is dropped (`await store.get_session(..., last_n=0)` in a test that expects it to raise)."""
    out: list[ast.keyword] = []
    discarded = {id(_unawaited(n.value)) for n in subtree(module.tree) if isinstance(n, ast.Expr)}
    todo: list = [(module.tree, frozenset())]
    while todo:
        node, params = todo.pop()
        if isinstance(node, _FUNCS):
            args = node.args
            params = frozenset(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))
        if isinstance(node, ast.Call) and id(node) not in discarded and _reads_conversation(callee_name(node)):
            out.extend(kw for kw in node.keywords if kw.arg in _WINDOW_KEYWORDS and not _tiny(kw.value)
                       and not (isinstance(kw.value, ast.Name) and kw.value.id in params))
        todo.extend((child, params) for child in ast.iter_child_nodes(node))
    return sorted(out, key=lambda k: (k.value.lineno, k.value.col_offset))


def _reads_conversation(name: str) -> bool:
    words = set((name or "").lower().split("_"))
    return bool(words & _READS) and bool(words & _CONVERSATION) and not words & _NOT_CONVERSATION


def _unawaited(node):
    return node.value if isinstance(node, ast.Await) else node


def _tiny(node) -> bool:
    """A constant window of at most two turns, or a value that is no window (None, 0)."""
    return isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, int) and node.value <= 2)


def prompt_budgets(module) -> list[ast.AST]:
    """The token budgets given to OpenAI Assistants runs (`max_prompt_tokens=25000` in a call, or
    `kwargs["max_prompt_tokens"] = 25000`), in source order: once a thread is longer than the
    budget, the run drops its oldest messages to fit (the default `truncation_strategy`, "auto"),
    on every run from then on. A call that also disables truncation
    (`truncation_strategy={"type": "disabled"}`) is left out, as is a budget that is no constant."""
    out: list[ast.AST] = []
    for node in subtree(module.tree):
        if isinstance(node, ast.Call):
            kws = {kw.arg: kw.value for kw in node.keywords}
            budget = kws.get("max_prompt_tokens")
            if _int_constant(budget) and not _disabled(kws.get("truncation_strategy")):
                out.append(budget)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and _int_constant(node.value):
            t = node.targets[0]
            if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) \
                    and t.slice.value == "max_prompt_tokens":
                out.append(node.value)
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))


def _int_constant(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool) \
        and node.value > 0


def _disabled(node) -> bool:
    """True for `{"type": "disabled"}`: the run sends the whole thread (or fails)."""
    return isinstance(node, ast.Dict) and any(
        isinstance(k, ast.Constant) and k.value == "type" and isinstance(v, ast.Constant) and v.value == "disabled"
        for k, v in zip(node.keys, node.values))
