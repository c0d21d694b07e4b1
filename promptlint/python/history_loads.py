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

from .flow.binding_syntax import param_names
from .anchored import found
from .module import callee_name
from .walk import child_nodes, subtree

#: Keywords that keep the newest N of a conversation: `last_n`, `last_k`, `n_last`, those with the
#: unit counted (`last_n_turns`, `last_n_messages`, `last_n_runs`: a run is one turn, the user's
#: message with the answers and tool calls it led to), and `max_messages` (a store keeps the newest).
_WINDOW_KEYWORD = re.compile(r"(?:last_[nk]|n_last)(?:_(?:turns|messages|runs|rounds|exchanges|interactions))?|max_messages")
#: One of those keywords given a value in the source text: the cheap test before the module's walk.
WINDOW_TEXT = re.compile(r"\b(?:%s)\s*=(?!=)" % _WINDOW_KEYWORD.pattern)


def window_text(source: str) -> bool:
    """True when `WINDOW_TEXT` is in `source` (tried only where a keyword's word starts: every
    match starts with `last_`, `n_last` or `max_messages`, `anchored.found`)."""
    return ("last_" in source or "n_last" in source or "max_messages" in source) \
        and found(WINDOW_TEXT, source, ("last_", "n_last", "max_messages"))
_READS = frozenset({"get", "load", "fetch", "read", "retrieve"})
_CONVERSATION = frozenset({"session", "history", "conversation", "chat", "messages", "turns", "dialog", "dialogue"})
_NOT_CONVERSATION = frozenset({"trace", "traces", "log", "logs", "events", "feedback", "lessons"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def history_windows(module) -> list[ast.keyword]:
    """The `last_n=...` keywords of calls that read a conversation (`get_session(...)`,
    `load_history(...)`: a read verb and a word of a conversation, not of a trace or a log), in
    source order. A window its own function takes as a parameter and hands on (`last_n=last_n`)
    is chosen by the callers: left out, as is a constant of at most two turns and a call whose
    result is dropped (`await store.get_session(..., last_n=0)` in a test that expects it to raise).
    A window handed on by a function of the module that only its own module calls by name (a
    helper nested in the function that loads: `def fetch(n): return session.get_messages(
    last_n_runs=n)`, then `fetch(self.history_runs)`) is chosen at those calls: each argument
    given for it there is reported (as a keyword of the window's name)."""
    out: list[ast.keyword] = []
    discarded = {id(_unawaited(n.value)) for n in subtree(module.tree) if isinstance(n, ast.Expr)}
    todo: list = [(module.tree, None)]
    while todo:
        node, func = todo.pop()
        if isinstance(node, _FUNCS):
            func = node
        if isinstance(node, ast.Call) and id(node) not in discarded and _reads_conversation(callee_name(node)):
            for kw in node.keywords:
                if kw.arg is None or not _WINDOW_KEYWORD.fullmatch(kw.arg) or _tiny(kw.value):
                    continue
                if isinstance(kw.value, ast.Name) and kw.value.id in param_names(func):
                    out.extend(ast.keyword(arg=kw.arg, value=v) for v in _handed(module, func, kw.value.id))
                else:
                    out.append(kw)
        todo.extend((child, func) for child in child_nodes(node))
    return sorted(out, key=lambda k: (k.value.lineno, k.value.col_offset))


def _handed(module, func, param: str) -> list:
    """The arguments the calls of `func` by its bare name in `module` give for its parameter
    `param` (by position or keyword), when `func` is private to the module (nested in another
    function, or named with a leading underscore) and none of them is a parameter of the function
    that makes the call (that one hands it on too: not followed), a value computed by a call, or a
    tiny constant."""
    nested = any(isinstance(n, _FUNCS) and func in n.body for n in subtree(module.tree) if n is not func)
    if not (nested or func.name.startswith("_")):
        return []
    params = param_names(func)
    at = params.index(param)
    offset = 1 if params and params[0] in ("self", "cls") else 0
    out = []
    for node in subtree(module.tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == func.name):
            continue
        given = next((k.value for k in node.keywords if k.arg == param), None)
        if given is None and at - offset < len(node.args) and not any(isinstance(a, ast.Starred) for a in node.args):
            given = node.args[at - offset]
        if given is None or _tiny(given) or isinstance(given, (ast.Name, ast.Call, ast.Await)):
            continue  # (a name or a call's result: a window chosen elsewhere, or computed; not followed)
        out.append(given)
    return out


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
