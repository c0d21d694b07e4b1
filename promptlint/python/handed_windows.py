"""A conversation handed on as its newest messages: facts for PRM105 (the rule judges them).

A call that takes the conversation by a keyword named for it (`chat_history=`, `history=`,
`messages=`) and is given the newest messages of a list named for it (`chat_messages[-k:]`,
also through one converting call: `chat_history=to_history(chat_messages[-LIMIT:])`, or through a
local list built from it before the call: `messages.extend([t.to_message() for t in
conversation_history[-max_history:]])`, then `messages=messages`) receives a
sliding window: once the conversation is longer than `k`, its oldest message drops out on every
new turn, so whatever the callee renders or sends from it never matches the previous request's
prefix. The callee (an agent runner, a template, a wrapper) is not followed here; the names of the
keyword and of the list are the evidence, so the rule reports it as info where it is cut
(docs/policies.md, Policy 9). A window of one or two messages (the last answer looked up for a
check) is left out, and so is a slice as long as another collection (`messages[-len(results):]`: the
messages just added for `results`, one each, handed on to be shown or merged: the conversation
itself is not cut), as is a call the analysis already reads as a request (judged there) and a
template filled with it (`TEMPLATE.format(history=h[-5:])`: the cut rendered into text is judged
where a request carries that text).

A call named for compacting the conversation (a verb such as compact, prune, trim, truncate or
summarise, and a word of the conversation: `compact_messages_for_llm(items, keep_recent_tool_outputs=3)`)
with a keyword that keeps the newest few whole (`keep_recent*`, `keep_last*`, `keep_latest*`,
`keep_newest*`) rewrites the older ones on every call: the boundary moves every turn, so the message
that just left the newest few changes. Info where the call is (the compaction it calls is not
read); a keyword handed on from the function's own parameter (`keep_recent=keep_recent`) is chosen
by its callers and left out, as is a window of none (`0`, `None`).

A call named for trimming the conversation to fit (`trim`, `trimmed`, `truncate`, `fit` and a word
of the conversation: `messages, _, removed = trimmed_messages_to_fit(messages, max_bytes=LIMIT)`)
that is handed the conversation and a bound (a `max_*` keyword) and whose result replaces it drops
its oldest content on every call once it is larger: info where the call is. LangChain's
`trim_messages` is read where the request is (`flow`), not here.
"""
from __future__ import annotations

import ast
import re

from .prompt_names import words
from .module import callee_name
from .walk import child_nodes, subtree

#: Words of a keyword or a list's name that say it holds the conversation ("chat" or "message"
#: alone do not: `chat_request`, `message`).
_HISTORY = frozenset({"history", "messages", "msgs", "conversation", "transcript", "dialog", "dialogue", "turns"})
#: The text test before the module's walk: a slice from the end written in a call's argument.
TEXT = "[-"
#: The text test for a compaction that keeps the newest few whole.
KEEP_TEXT = re.compile(r"\bkeep_(?:recent|last|latest|newest)\w*\s*=(?!=)")
_KEEP = re.compile(r"keep_(?:recent|last|latest|newest)\w*")
_COMPACTS = frozenset({"compact", "compacts", "compress", "prune", "trim", "truncate", "summarize", "summarise",
                       "condense", "shrink"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_FILLS = frozenset({"format", "format_map", "render", "render_async", "substitute", "safe_substitute"})
_TRIMS = frozenset({"trim", "trimmed", "truncate", "truncated", "fit"})


def handed_windows(module, covered) -> list[ast.Subscript]:
    """The `xs[-k:]` slices given for a conversation keyword of a call (`covered(span)`: True for a
    call already recorded as a request), also through a local list the function builds from the
    slice before the call (`messages = [system]`, `messages.extend(convert(t) for t in
    history[-k:])`, then `messages=messages`), in source order."""
    out = []
    nodes = subtree(module.tree)
    if not any(isinstance(call, ast.Call) and _history_keyword(call) for call in nodes):
        return out  # (no call hands a conversation by keyword: the walk with functions finds nothing)
    if not any(type(n) is ast.Subscript and _newest(n) is not None for n in nodes):
        return out  # (every window found is such a slice of the module: `_newest` answers one or None)
    todo: list = [(module.tree, None)]
    while todo:
        call, func = todo.pop()
        if isinstance(call, _FUNCS):
            func = call
        todo.extend((child, func) for child in child_nodes(call))
        if not isinstance(call, ast.Call) or isinstance(call.func, ast.Attribute) and call.func.attr in _FILLS:
            continue  # (rendered into a template's text: judged where a request carries it, Policy 9)
        for kw in call.keywords:
            if kw.arg is None or not words(kw.arg) & _HISTORY:
                continue
            cut = _newest(kw.value)
            if cut is None and isinstance(kw.value, ast.Name) and func is not None:
                cut = _built(func, kw.value.id, call)
            if cut is not None and not covered(module.span(call)):
                out.append(cut)
    return sorted(set(out), key=lambda n: (n.lineno, n.col_offset))


def _history_keyword(call: ast.Call) -> bool:
    """True when a keyword of `call` is named for the conversation (`_HISTORY`)."""
    return any(kw.arg is not None and words(kw.arg) & _HISTORY for kw in call.keywords)


def _built(func, name: str, call: ast.Call) -> ast.Subscript | None:
    """The window a local list `name` is built from in `func` before `call`: assigned a list
    display, or grown by `.extend(...)` / `.append(...)` / `+=`, with an item that is the window, a
    spread of it or a comprehension over it (`[t.to_message() for t in history[-k:]]`), else None."""
    for stmt in subtree(func):
        if getattr(stmt, "lineno", call.lineno) >= call.lineno:
            continue
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
            added = [stmt.value]
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
            added = [stmt.value]
        elif isinstance(stmt, ast.Call) and isinstance(stmt.func, ast.Attribute) and stmt.func.attr in (
                "extend", "append") and isinstance(stmt.func.value, ast.Name) and stmt.func.value.id == name:
            added = list(stmt.args)
        else:
            continue
        for value in added:
            cut = _window_in(value)
            if cut is not None:
                return cut
    return None


def _window_in(node, depth: int = 0) -> ast.Subscript | None:
    """The window (`_newest`) a list value holds: the slice itself, an item or spread of a list
    display, a side of `+`, or the iterable of a comprehension over it."""
    if depth > 3:
        return None
    found = _newest(node)
    if found is not None:
        return found
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [e.value if isinstance(e, ast.Starred) else e for e in node.elts]
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        items = [node.left, node.right]
    elif isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1:
        items = [node.generators[0].iter]
    else:
        return None
    return next((c for i in items if (c := _window_in(i, depth + 1)) is not None), None)


def _newest(node, depth: int = 0) -> ast.Subscript | None:
    """The slice `xs[-k:]` of a list named for the conversation that `node` is or converts (a call
    of one argument: `to_history(xs[-k:])`, `list(xs[-k:])`), else None."""
    if isinstance(node, ast.Await):
        node = node.value
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and depth < 2:
        return _newest(node.args[0], depth + 1)
    if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice)):
        return None
    s = node.slice
    if s.upper is not None or s.step is not None or not (isinstance(s.lower, ast.UnaryOp)
                                                          and isinstance(s.lower.op, ast.USub)):
        return None
    k = s.lower.operand
    if isinstance(k, ast.Constant) and not (isinstance(k.value, int) and k.value > 2):
        return None
    if isinstance(k, ast.Call) and isinstance(k.func, ast.Name) and k.func.id == "len":
        return None  # `xs[-len(results):]`: the items just added for `results`, one each, not a window
    held = node.value.attr if isinstance(node.value, ast.Attribute) else getattr(node.value, "id", None)
    return node if held and words(held) & _HISTORY else None


def kept_recent(module) -> list[ast.Call]:
    """The calls that compact the conversation keeping its newest few whole (`keep_recent_*=k`),
    in source order."""
    out = []
    todo: list = [(module.tree, ())]
    while todo:
        node, params = todo.pop()
        if isinstance(node, _FUNCS):
            a = node.args
            params = tuple(p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs))
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            named = words(name)
            if named & _COMPACTS and named & (_HISTORY | {"message", "messages", "items", "context"}) and any(
                    kw.arg and _KEEP.fullmatch(kw.arg) and not _none(kw.value)
                    and not (isinstance(kw.value, ast.Name) and kw.value.id in params) for kw in node.keywords):
                out.append(node)
        todo.extend((child, params) for child in child_nodes(node))
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))


def _none(node) -> bool:
    return isinstance(node, ast.Constant) and (node.value is None or node.value == 0)


def trimmed_to_fit(module) -> list[ast.Call]:
    """The calls that trim the conversation to fit a bound and replace it with the result
    (`messages, *_ = trimmed_messages_to_fit(messages, max_bytes=n)`), or hand the result back
    as the function's own (`result = trim_history_messages(messages, max_tokens=n)`, then `return
    result`: what a caller sends), in source order. A trim that keeps the first messages
    (`strategy="first"`) drops the newest, not the oldest: no window."""
    out = []
    if not any(_trim_call(node) is not None for node in subtree(module.tree)):
        return out  # (no trim assigned: the walk with each function's returned names finds nothing)
    todo: list = [(module.tree, frozenset())]
    while todo:
        node, returned = todo.pop()
        if isinstance(node, _FUNCS):
            returned = frozenset(r.value.id for r in subtree(node) if isinstance(r, ast.Return)
                                 and isinstance(r.value, ast.Name))
        todo.extend((child, returned) for child in child_nodes(node))
        call = _trim_call(node)
        if call is None:
            continue
        first = _trimmed(call)
        targets = [n.id for t in node.targets for n in subtree(t) if isinstance(n, ast.Name)]
        if first.id in targets or any(t in returned for t in targets):
            out.append(call)
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))


def _trim_call(node) -> ast.Call | None:
    """The call of an assignment `node` that trims the conversation to a bound (`trimmed_to_fit`: a
    call named for trimming messages, the conversation its first argument or given by a keyword
    named for it, `messages=messages`, a `max_*` keyword, not told to keep the first), else None."""
    if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
        return None
    call = node.value
    first = _trimmed(call)
    if first is None:
        return None
    name = callee_name(call)
    named = words(name)
    if name == "trim_messages" or not (named & _TRIMS and named & (_HISTORY | {"message"})) \
            or not (isinstance(first, ast.Name) and words(first.id) & _HISTORY) \
            or not any(kw.arg and kw.arg.startswith("max_") for kw in call.keywords) or _keeps_first(call):
        return None
    return call


def _trimmed(call: ast.Call) -> ast.expr | None:
    """What a trim call is handed to trim: its first argument, or the keyword named for the
    conversation (`_truncate_input_messages_roughly(messages=messages, max_tokens=n)`), else None."""
    if call.args:
        return call.args[0]
    return next((kw.value for kw in call.keywords if kw.arg and words(kw.arg) & _HISTORY), None)


def _keeps_first(call: ast.Call) -> bool:
    """True for a trim told to keep the oldest messages (`strategy="first"`)."""
    return any(kw.arg == "strategy" and isinstance(kw.value, ast.Constant) and kw.value.value == "first"
               for kw in call.keywords)
