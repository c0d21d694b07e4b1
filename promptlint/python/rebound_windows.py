"""A conversation rebound to its newest part and then handed on: facts for PRM105 (the rule judges them).

A function that binds a name to the newest messages of the conversation (`chat_history =
chat_history[-self.max_history_messages:]`, after its own first message kept: `messages =
[messages[0]] + messages[-(limit - 1):]`, `messages = request.state.get("messages", [])[-30:]`,
`contents = contents[start:]` with `start = starts[-self.keep]`, the k-th newest turn's first
index) and then hands that name on (an argument of a call, `super().classify(text, chat_history)`;
a value it returns; the request object it was handed, `llm_request.contents = contents`) sends a
sliding window: once the conversation is longer, its oldest message drops out on every new turn,
so whatever is built from it never matches the previous request's prefix. What is made from the
window keeps it (a list made from it message by message, `[strip(m) for m in messages]`, a list
that holds it), so a window converted and then handed on is handed on all the same.

The list is the conversation by its name or the name it is read from (`history`, `messages`,
`chat_history`, the key `"messages"`) or by its annotation (`list[types.Content]`,
`List[ConversationMessage]`): the names are the evidence, and the callee is not followed, so the
rule reports it as info where it is cut (docs/policies.md, Policy 9). Not a fact: a window no
statement hands on (cut to be counted, logged or shown: `print(history[-5:])` hands on nothing),
a window of one or two messages, a slice as long as another collection (`xs[-len(new):]`), a name
rendered into text (a join or a template fill: judged where a request carries the text), and a
call the analysis already reads as a request (judged there).
"""
from __future__ import annotations

import ast
import builtins
import re
from bisect import bisect_left

from .prompt_names import words
from .walk import child_nodes, subtree

#: Words of a name that say it holds the conversation (handed_windows._HISTORY, and Gemini's `contents`
#: only by annotation).
_HISTORY = frozenset({"history", "messages", "msgs", "conversation", "transcript", "dialog", "dialogue", "turns"})
#: An annotation of a list of messages (`list[Message]`, `List[types.Content]`, `Sequence[BaseMessage]`).
_MESSAGES_TYPE = re.compile(r"(?:list|List|Sequence|Iterable)\[\s*(?:[\w.]+\.)?\w*(?:Message|Content)\s*\]")
#: The text test before the module's walk: a slice from the end, or from a start, rebound to a name.
TEXT = re.compile(r"=[^=\n]{0,80}\[[ \t]{0,4}(?:-[^\]\n]{1,60}|\w{1,40})[ \t]{0,4}:[ \t]{0,4}\]")
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Calls that hand a list on to nothing that sends it: counting, logging, showing, rendering into text.
_INERT = frozenset({"print", "len", "str", "repr", "bool", "isinstance", "id", "type", "hash", "pprint", "join",
                    "format", "format_map", "render", "render_async", "substitute", "safe_substitute", "dumps",
                    "debug", "info", "warning", "warn", "error", "exception", "critical", "log", "echo", "write",
                    "display", "show", "assert_equal", "assertEqual"})


def rebound_windows(module, covered) -> list[ast.Subscript]:
    """The slices `xs[-k:]` (or `xs[start:]`, `start` the k-th newest item's index) of a conversation
    bound to a name that the function then hands on (`covered(span)`: True for a call already
    recorded as a request), in source order."""
    out = []
    nodes = subtree(module.tree)
    rows = sorted({n.lineno for n in nodes if type(n) is ast.Subscript and _open_slice(n.slice)})
    if not rows:  # (every window found is such a slice: `_window`)
        return out
    for fn in nodes:
        if isinstance(fn, _FUNCS) and _any_between(rows, fn.lineno, fn.end_lineno or fn.lineno):
            out.extend(_function_windows(fn, module, covered))
    return sorted(set(out), key=lambda n: (n.lineno, n.col_offset))


def _open_slice(s) -> bool:
    """True for a slice with a start and no end or step (`[-k:]`, `[start:]`): the only slices `_window` gives."""
    return type(s) is ast.Slice and s.lower is not None and s.upper is None and s.step is None


def _any_between(rows: list[int], first: int, last: int) -> bool:
    """True when a row of `rows` (sorted) is in first..last."""
    at = bisect_left(rows, first)
    return at < len(rows) and rows[at] <= last


def _own_nodes(fn) -> list:
    """The nodes of `fn`'s body, nested functions and classes left out."""
    out, todo = [], list(fn.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (*_FUNCS, ast.Lambda, ast.ClassDef)):
            continue
        out.append(node)
        todo.extend(child_nodes(node))
    return out


def _function_windows(fn, module, covered) -> list[ast.Subscript]:
    nodes = _own_nodes(fn)
    typed = _message_lists(fn, nodes)
    binds = {}
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            binds.setdefault(node.targets[0].id, []).append(node.value)
    found = []
    for node in nodes:
        target, value = _bound(node)
        if target is None:
            continue
        cut = _window(value, binds)
        if cut is None or not (words(target) & _HISTORY or target in typed or _held_history(cut.value, typed)):
            continue
        if _handed_on(target, node, nodes, module, covered):
            found.append(cut)
    return found


def _bound(node) -> tuple[str | None, ast.AST | None]:
    """The name a statement binds and the value it binds it to (`x = v`, `x: T = v`), else (None, None)."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id, node.value
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
        return node.target.id, node.value
    return None, None


def _message_lists(fn, nodes) -> set[str]:
    """The names `fn` annotates as a list of messages (its parameters, `x: list[Message] = ...`)."""
    a = fn.args
    typed = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)
             if p.annotation is not None and _MESSAGES_TYPE.search(ast.unparse(p.annotation))}
    typed |= {n.target.id for n in nodes if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
              and _MESSAGES_TYPE.search(ast.unparse(n.annotation))}
    return typed


def _window(value, binds) -> ast.Subscript | None:
    """The slice keeping the newest items that `value` is (also one branch of an `if`-expression whose
    other is empty or the same list), else None."""
    if isinstance(value, ast.IfExp):
        for side in (value.body, value.orelse):
            cut = _window(side, binds)
            if cut is not None:
                return cut
        return None
    kept = _after_head(value)
    if kept is not None:  # `[xs[0]] + xs[-(k - 1):]`, `[xs[0], *xs[-k:]]`: its first items, then its newest
        value = kept
    if not (isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice)):
        return None
    s = value.slice
    if s.upper is not None or s.step is not None or s.lower is None:
        return None
    if _from_end(s.lower):
        return value
    if isinstance(s.lower, ast.Name) and _newest_start(s.lower.id, binds.get(s.lower.id, ())):
        return value  # `xs[start:]`, `start = starts[-k]`: the index of the k-th newest item
    return None


def _after_head(value) -> ast.Subscript | None:
    """The tail of a list put after its own first items (`[xs[0]] + xs[-k:]`, `xs[:1] + xs[-k:]`,
    `[xs[0], *xs[-k:]]`: the system message kept, then the newest), else None."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        head, tail = value.left, value.right
        heads = head.elts if isinstance(head, ast.List) else [head]
    elif isinstance(value, ast.List) and value.elts and isinstance(value.elts[-1], ast.Starred):
        heads, tail = value.elts[:-1], value.elts[-1].value
    else:
        return None
    if not (isinstance(tail, ast.Subscript) and isinstance(tail.slice, ast.Slice) and heads):
        return None
    held = ast.dump(tail.value)
    return tail if all(_first_of(h, held) for h in heads) else None


def _first_of(node, held: str) -> bool:
    """True for `xs[0]`, `xs[1]` or `xs[:k]` (k at most 2) of the list dumped as `held`."""
    if not (isinstance(node, ast.Subscript) and ast.dump(node.value) == held):
        return False
    s = node.slice
    if isinstance(s, ast.Slice):
        return s.lower is None and s.step is None and isinstance(s.upper, ast.Constant) and s.upper.value in (1, 2)
    return isinstance(s, ast.Constant) and s.value in (0, 1)


def _newest_start(name: str, values) -> bool:
    """True when `name` is bound to the k-th newest item of a list (`starts[-k]`), and otherwise only
    to what is made from itself (`start = adjust(xs, start)`)."""
    first = [v for v in values if any(isinstance(n, ast.Subscript) and not isinstance(n.slice, ast.Slice)
                                      and _from_end(n.slice) for n in subtree(v))]
    return bool(first) and all(v in first or any(isinstance(n, ast.Name) and n.id == name for n in subtree(v))
                               for v in values)


def _from_end(node) -> bool:
    """True for `-k` counting a window from the end: `k` not a constant of 2 or less, not `len(...)`."""
    if not (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)):
        return False
    k = node.operand
    if isinstance(k, ast.Constant):
        return isinstance(k.value, int) and k.value > 2
    return not (isinstance(k, ast.Call) and isinstance(k.func, ast.Name) and k.func.id == "len")


def _held_history(node, typed) -> bool:
    """True when what is sliced is named for the conversation: a name, an attribute, a string key
    (`state["messages"]`, `state.get("messages", [])`)."""
    if isinstance(node, ast.Name):
        return node.id in typed or bool(words(node.id) & _HISTORY)
    if isinstance(node, ast.Attribute):
        return bool(words(node.attr) & _HISTORY)
    key = None
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        key = node.slice.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and node.args and isinstance(node.args[0], ast.Constant):
        key = node.args[0].value
    return isinstance(key, str) and bool(words(key) & _HISTORY)


def _handed_on(name: str, cut, nodes, module, covered) -> bool:
    """True when a statement after `cut` hands on the window bound to `name`, or a list made from it."""
    after = sorted((n for n in nodes if isinstance(n, ast.stmt) and n.lineno > cut.end_lineno),
                   key=lambda n: n.lineno)
    held = {name}
    for stmt in after:
        target, value = _bound(stmt)
        if target is not None and _made_from(value, held):
            held.add(target)
            continue
        if target in held:
            held.discard(target)  # rebound to something else
        for node in subtree(stmt):
            if isinstance(node, ast.Return) and node.value is not None and _made_from(node.value, held):
                return True
            if isinstance(node, ast.Call) and not _inert(node) and not covered(module.span(node)) and any(
                    isinstance(a, ast.Name) and a.id in held
                    for a in (*node.args, *(kw.value for kw in node.keywords))):
                return True
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in held and any(
                    isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                    and t.value.id not in ("self", "cls") for t in node.targets):
                return True  # written into an object it was handed: `llm_request.contents = contents`
    return False


def _made_from(value, held) -> bool:
    """True when `value` is one of `held` or a list made from one (a comprehension over it, a display
    holding it, an `if`-expression of those)."""
    if isinstance(value, ast.Name):
        return value.id in held
    if isinstance(value, ast.IfExp):
        return _made_from(value.body, held) or _made_from(value.orelse, held)
    if isinstance(value, (ast.List, ast.Tuple)):
        return any(_made_from(e, held) for e in value.elts)
    if isinstance(value, (ast.ListComp, ast.GeneratorExp)):
        return any(_made_from(g.iter, held) for g in value.generators)
    if isinstance(value, ast.Starred):
        return _made_from(value.value, held)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("list", "tuple") \
            and len(value.args) == 1:
        return _made_from(value.args[0], held)  # a copy: `list(window)`
    return False


def _inert(call: ast.Call) -> bool:
    """True for a call that sends nothing it is handed: a builtin (`set(recent)`, `len(h)`; a copy,
    `list(h)`, is read as the list it copies), logging, showing, counting, rendering into text."""
    f = call.func
    if isinstance(f, ast.Name) and hasattr(builtins, f.id):
        return True
    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
    return name in _INERT or bool(words(name) & {"log", "print", "display", "show", "count", "tokens"})
