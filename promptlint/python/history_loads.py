"""A conversation history loaded as its newest turns: facts for PRM105 (the rule judges them).

A call that reads a conversation from storage (a session manager, a chat store: its name says
session, history, conversation, chat or messages) with a keyword that keeps only the last turns
(`last_n=10`, `last_k=settings.history_turns`, `max_messages=self.history_limit`: a store keeps
the newest messages up to its maximum; a count named only `limit=` when the read is assigned to a
name of the conversation, `history = await get_session_items(session, limit=n)`: a conversation
store's limit keeps the newest items, the oldest would be no history to send) returns a sliding window: once the conversation is
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

from ..classify import HISTORY_NAMES
from .flow.binding_syntax import param_names
from .anchored import found
from .module import callee_name
from .walk import child_nodes, subtree

#: Keywords that keep the newest N of a conversation: `last_n`, `last_k`, `n_last`, those with the
#: unit counted (`last_n_turns`, `last_n_messages`, `last_n_runs`: a run is one turn, the user's
#: message with the answers and tool calls it led to), `max_messages` (a store keeps the newest), and
#: a length of the history read (`history_len`, `max_history`, `num_messages`: what a read keeps of it).
_WINDOW_KEYWORD = re.compile(r"(?:last_[nk]|n_last)(?:_(?:turns|messages|runs|rounds|exchanges|interactions))?"
                             r"|max_messages|history_len(?:gth)?|history_size|max_history(?:_messages)?"
                             r"|num_messages|n_messages")
#: One of those keywords given a value in the source text: the cheap test before the module's walk.
WINDOW_TEXT = re.compile(r"\b(?:%s)\s*=(?!=)" % _WINDOW_KEYWORD.pattern)
#: Where a match of `WINDOW_TEXT` can start.
_STARTS = ("last_", "n_last", "max_messages", "history_", "max_history", "num_messages", "n_messages")


#: A count named only `limit=` keeps the newest N of a read whose result is kept as the conversation
#: (`history = await get_session_items(session, limit=n)`): the name the read is assigned to says so.
_LIMIT_KEYWORD = "limit"
#: Its text: a name of the conversation assigned a call given `limit=` (bounded repetition: linear).
LIMIT_TEXT = re.compile(r"(?:history|messages|conversation|transcript|turns)\w{0,30}[ \t]{0,4}=[ \t]{0,4}"
                        r"(?:await[ \t]{1,4})?[\w.]{1,80}\([^()]{0,300}?\blimit[ \t]{0,4}=(?!=)")


def window_keyword(name: str) -> bool:
    """True for a name of a count that keeps the newest N of a conversation (`last_n_runs`,
    `history_len`, `max_messages`: `_WINDOW_KEYWORD`)."""
    return _WINDOW_KEYWORD.fullmatch(name) is not None


def window_text(source: str) -> bool:
    """True when `WINDOW_TEXT` is in `source` (tried only where a keyword's word starts: every
    match starts with one of `_STARTS`, `anchored.found`), or `LIMIT_TEXT`."""
    return any(start in source for start in _STARTS) and found(WINDOW_TEXT, source, _STARTS) or \
        "limit" in source and LIMIT_TEXT.search(source) is not None


def may_call_loader(source: str) -> bool:
    """True when the text calls a name of a word of the conversation (`get_messages_history(`): a
    helper of another module that loads it as its newest turns may be called (`_handed_from_elsewhere`)."""
    return any(word in source for word in ("history(", "messages(", "conversation(", "session(", "turns(",
                                           "chat(", "dialog(", "dialogue(", "_history_", "_messages_"))


_READS = frozenset({"get", "load", "fetch", "read", "retrieve", "filter"})
_CONVERSATION = frozenset({"session", "history", "conversation", "chat", "messages", "turns", "dialog", "dialogue"})
_NOT_CONVERSATION = frozenset({"trace", "traces", "log", "logs", "events", "feedback", "lessons"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def history_windows(module, project=None) -> list[ast.keyword]:
    """The `last_n=...` keywords of calls that read a conversation (`get_session(...)`,
    `load_history(...)`: a read verb and a word of a conversation, not of a trace or a log), in
    source order. A window its own function takes as a parameter and hands on (`last_n=last_n`)
    is chosen by the callers: left out, as is a constant of at most two turns and a call whose
    result is dropped (`await store.get_session(..., last_n=0)` in a test that expects it to raise).
    A window handed on by a function of the module that only its own module calls by name (a
    helper nested in the function that loads: `def fetch(n): return session.get_messages(
    last_n_runs=n)`, then `fetch(self.history_runs)`) is chosen at those calls: each argument
    given for it there is reported (as a keyword of the window's name). So is a window handed on by a
    function of another module of the package tree (`project`; found by its name, one named for the
    conversation: `history = get_messages_history(ctx.get("history_len", 0))` with `def
    get_messages_history(history_len): messages = chat_box.filter_history(history_len=history_len)`),
    at the calls of this module that give it."""
    out: list[ast.keyword] = []
    nodes = subtree(module.tree)
    if any(type(n) is ast.Call and any(kw.arg is not None and (_WINDOW_KEYWORD.fullmatch(kw.arg) or kw.arg == _LIMIT_KEYWORD)
                                       for kw in n.keywords) for n in nodes):  # (else no call gives a window: the walk that tracks functions would find nothing)
        out = _windows_given(module, nodes)
    if project is not None:
        out.extend(_handed_from_elsewhere(module, project))
    return sorted(out, key=lambda k: (k.value.lineno, k.value.col_offset))


def _windows_given(module, nodes: list) -> list[ast.keyword]:
    """The window keywords `history_windows` reports of the calls of `module` itself (`nodes`: its
    `subtree`), in walk order."""
    out: list[ast.keyword] = []
    discarded = {id(_unawaited(n.value)) for n in nodes if isinstance(n, ast.Expr)}
    kept = _kept_as_conversation(nodes)
    todo: list = [(module.tree, None)]
    while todo:
        node, func = todo.pop()
        if isinstance(node, _FUNCS):
            func = node
        if isinstance(node, ast.Call) and id(node) not in discarded and _reads_conversation(callee_name(node)):
            named = any(kw.arg is not None and _WINDOW_KEYWORD.fullmatch(kw.arg) for kw in node.keywords)
            for kw in node.keywords:
                if named and kw.arg == _LIMIT_KEYWORD:
                    continue  # (`last_n_runs=n, limit=m`: the window is the named count's, one cause)
                if kw.arg is None or _tiny(kw.value) or not (
                        _WINDOW_KEYWORD.fullmatch(kw.arg) or kw.arg == _LIMIT_KEYWORD and id(node) in kept
                        and set(callee_name(node).lower().split("_")) & _LIMITED_READS):
                    continue
                if isinstance(kw.value, ast.Name) and kw.value.id in param_names(func):
                    out.extend(ast.keyword(arg=kw.arg, value=v) for v in _handed(module, func, kw.value.id))
                else:
                    out.append(kw)
        todo.extend((child, func) for child in child_nodes(node))
    return out


#: Names of helpers of other modules looked up at most per module, and their definitions read at most.
_LOOKUPS = 12
_LIMIT = 6


def _handed_from_elsewhere(module, project) -> list[ast.keyword]:
    """The arguments the calls of this module give a helper of another module of the package tree
    (named for the conversation, defined nowhere in this module) for the parameter it hands on as
    the window of a conversation read (`_forwarded`), each as a keyword of the window's name."""
    own = {n.name for n in subtree(module.tree) if isinstance(n, _FUNCS)}
    looked: dict[str, list] = {}
    out: list[ast.keyword] = []
    for node in subtree(module.tree):
        if not isinstance(node, ast.Call):
            continue
        name = callee_name(node)
        if not name or name in own or not set(name.lower().split("_")) & _CONVERSATION:
            continue
        if name not in looked:
            if len(looked) >= _LOOKUPS:
                continue
            looked[name] = [(func, param, arg) for definer in project.functions_named(name, module.path, _LIMIT) or ()
                            if definer is not module and window_text(definer.source)
                            for func, param, arg in _forwarded(definer, name)]
        for func, param, arg in looked[name]:
            given = _given(node, func, param)
            if given is not None:
                out.append(ast.keyword(arg=arg, value=given))
                break
    return out


def _forwarded(module, name: str) -> list[tuple]:
    """(function, parameter, keyword) of each function `name` of `module` that hands its parameter
    on as the window keyword of a call that reads a conversation (`filter_history(history_len=
    history_len)`)."""
    out = []
    for func in subtree(module.tree):
        if not isinstance(func, _FUNCS) or func.name != name:
            continue
        params = param_names(func)
        for node in subtree(func):
            if isinstance(node, ast.Call) and _reads_conversation(callee_name(node)):
                out += [(func, kw.value.id, kw.arg) for kw in node.keywords
                        if kw.arg is not None and _WINDOW_KEYWORD.fullmatch(kw.arg)
                        and isinstance(kw.value, ast.Name) and kw.value.id in params]
    return out


def _given(call: ast.Call, func, param: str):
    """The value `call` gives `param` of `func` (by keyword, or by position: `self` and `cls` left
    out), when it is a window chosen there: not a tiny constant, a name (a window chosen elsewhere)
    or an awaited value; else None."""
    params = param_names(func)
    offset = 1 if params and params[0] in ("self", "cls") and isinstance(call.func, ast.Attribute) else 0
    at = params.index(param) - offset
    given = next((k.value for k in call.keywords if k.arg == param), None)
    if given is None and 0 <= at < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:at + 1]):
        given = call.args[at]
    if given is None or _tiny(given) or isinstance(given, (ast.Name, ast.Await, ast.UnaryOp)):
        return None
    return given


def _handed(module, func, param: str) -> list:
    """The arguments the calls of `func` by its bare name in `module` give for its parameter
    `param` (by position or keyword), when `func` is private to the module (nested in another
    function, or named with a leading underscore) and none of them is a parameter of the function
    that makes the call (that one hands it on too: not followed), a value computed by a call, or a
    tiny constant; for a function of the module's top level or a method, whatever its name (other
    modules may call it too: `_handed_from_elsewhere` reads those), also a value read at the call
    (`ctx.get("history_len", 3)`, a setting looked up)."""
    nested = any(isinstance(n, _FUNCS) and func in n.body for n in subtree(module.tree) if n is not func)
    private = nested or func.name.startswith("_")
    out = []
    for node in subtree(module.tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == func.name):
            continue
        given = _given(node, func, param)
        if given is None or private and isinstance(given, ast.Call):
            continue  # (a call's result: computed by the helper's own module; not followed)
        out.append(given)
    return out


def _kept_as_conversation(nodes: list) -> set[int]:
    """ids of the calls whose result (awaited or not) is assigned to a name of the conversation
    (`classify.HISTORY_NAMES`: `history = await _session_get_items(session, limit=n)`, `self.messages =
    store.get_messages(...)`; not `memory_messages`, the newest few read to look up memories)."""
    out = set()
    for node in nodes:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) != 1:
                continue
            target = targets[0]
            name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else ""
            if name.lstrip("_").lower() in HISTORY_NAMES and isinstance(_unawaited(node.value), ast.Call):
                out.add(id(_unawaited(node.value)))
    return out


#: Words of a read given only `limit=` that say it reads messages (not a search history, a schedule's
#: history or a prompt's versions: `get_history(user_id, limit=n)` is none).
_LIMITED_READS = frozenset({"session", "conversation", "chat", "messages", "turns", "dialog", "dialogue"})


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
