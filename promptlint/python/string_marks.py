"""A message's own cache breakpoint honoured only when its content is a string: a fact for PRM302
(`string_marks`; the rule judges it).

Chat-model adapters let a caller mark a whole message (LangChain's
`additional_kwargs["cache_control"]`, a message dict's own `cache_control` key) and put that
breakpoint on the block they write for it. A converter that reads the message's breakpoint only in
the branch for string content

    if isinstance(message.content, str):
        block = {"type": "text", "text": message.content}
        if cache_control := _get_cache_control(message):
            block["cache_control"] = cache_control
        content.append(block)
    elif isinstance(message.content, list):
        for block in message.content:
            ...                      # the message's own breakpoint is never read here

drops it for every message whose content is a list of blocks (a multimodal message, messages the
converter merged into one, a tool result already in blocks): the request goes out without the
breakpoint the caller set, and what it closed is sent uncached. Whether callers mark such messages
is theirs: the fact says only that the mark is lost when they do.

Found, one function at a time, when an `if` tests `isinstance(C, str)` for C the message's content
(`M.content`, `M["content"]`, `M.get("content")`, or a name the function binds to one of them), its
body reads the message's own breakpoint (a breakpoint key read off M or a field of M,
`M.additional_kwargs.get("cache_control")`, `M["cache_control"]`; a helper named for a cache or a
breakpoint called with M, `_get_cache_control(message)`; or a name bound to either before the
`if`), its `elif` / `else` walks C (a loop or comprehension over it: the blocks are converted), and
nothing else in the function reads the message's breakpoint (read in both branches, or after the
`if` for the blocks built, it is kept). A message read off a response (`response`, `chunk`, ...)
is no request's.
"""
from __future__ import annotations

import ast

from .gated_markers import module_functions
from .markers import MARKER_KEYS
from .walk import name_bindings, subtree

#: Words of a helper that reads a breakpoint off the message it is handed.
_MARK_WORDS = ("cache", "breakpoint")
#: Names of a message read off a response: converting those builds no request.
_RESPONSE_WORDS = ("response", "resp", "result", "output", "completion", "chunk", "event", "delta", "reply")


def might_mark_strings(source: str) -> bool:
    """The cheap test: a string test and a breakpoint key."""
    return ", str)" in source and any(key in source for key in MARKER_KEYS)


def _rooted(node, item: str) -> bool:
    """`item`, or a field or an item of it (`item.additional_kwargs`, `item["meta"]`)."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return isinstance(node, ast.Name) and node.id == item


def _content_of(node, item: str) -> bool:
    """`item.content`, `item["content"]`, `item.get("content")`."""
    if isinstance(node, ast.Attribute):
        return node.attr == "content" and isinstance(node.value, ast.Name) and node.value.id == item
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Name) and node.value.id == item \
            and isinstance(node.slice, ast.Constant) and node.slice.value == "content"
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == item and bool(node.args) \
        and isinstance(node.args[0], ast.Constant) and node.args[0].value == "content"


def _message_mark(node, item: str) -> bool:
    """A read of the message's own breakpoint: a breakpoint key read off the item or a field of it
    (`item.additional_kwargs.get("cache_control")`, `item["cache_control"]`), or a helper named for
    a cache or a breakpoint called with the item itself (`_get_cache_control(message)`)."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value in MARKER_KEYS and _rooted(node.value, item)
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "get" and node.args \
            and isinstance(node.args[0], ast.Constant) and node.args[0].value in MARKER_KEYS:
        return _rooted(func.value, item)
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return any(w in name.lower() for w in _MARK_WORDS) and any(
        isinstance(a, ast.Name) and a.id == item for a in list(node.args) + [k.value for k in node.keywords])


def _string_test(test, item: str, contents: set[str]) -> bool:
    """`isinstance(C, str)` (alone or in an `and`) for C the item's content."""
    tests = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    for t in tests:
        if isinstance(t, ast.Call) and isinstance(t.func, ast.Name) and t.func.id == "isinstance" \
                and len(t.args) == 2 and isinstance(t.args[1], ast.Name) and t.args[1].id == "str":
            c = t.args[0]
            if _content_of(c, item) or isinstance(c, ast.Name) and c.id in contents:
                return True
    return False


def _walks(stmts, item: str, contents: set[str]) -> bool:
    """The statements walk the item's content (a loop or a comprehension over it)."""
    for n in (x for s in stmts for x in subtree(s)):
        it = n.iter if isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)) else None
        if it is not None and (_content_of(it, item) or isinstance(it, ast.Name) and it.id in contents):
            return True
    return False


def _messages(func):
    """Names a function's messages go by: its parameters and its loops' items (`self` left out)."""
    for arg in func.args.args + func.args.kwonlyargs:
        if arg.arg not in ("self", "cls"):
            yield arg.arg
    for n in subtree(func):
        if isinstance(n, (ast.For, ast.AsyncFor)) and isinstance(n.target, ast.Name):
            yield n.target.id


def _marks_of(func, item: str) -> tuple[list, set[str]]:
    """(the reads of the item's own breakpoint in the function, the names bound to one)."""
    reads = [n for n in subtree(func) if _message_mark(n, item)]
    names = set()
    for target, value in name_bindings(func):
        if any(r is x for x in subtree(value) for r in reads):
            names.add(target)
    return reads, names


def string_marks(module) -> list[ast.AST]:
    """The read of the message's own breakpoint in the string branch, for each function of the
    shape of the module docstring (its first), in source order."""
    out = []
    for _cls, func in module_functions(module):
        found = None
        for item in dict.fromkeys(_messages(func)):
            if found is not None:
                break
            if any(w in item.lower() for w in _RESPONSE_WORDS):
                continue
            reads, names = _marks_of(func, item)
            if not reads:
                continue
            contents = {t.id for n in subtree(func) if isinstance(n, ast.Assign) and _content_of(n.value, item)
                        for t in n.targets if isinstance(t, ast.Name)}
            for branch in subtree(func):
                if not (isinstance(branch, ast.If) and branch.orelse and _string_test(branch.test, item, contents)):
                    continue
                inside = {id(x) for s in branch.body for x in subtree(s)}
                used = [n for n in subtree(func) if any(n is r for r in reads)
                        or isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names]
                here = [n for n in used if id(n) in inside]
                outside = [n for n in used if id(n) not in inside and not _binds(func, n, names)]
                if here and not outside and _walks(branch.orelse, item, contents):
                    found = min((n for n in here if any(n is r for r in reads)), default=here[0],
                                key=lambda n: (n.lineno, n.col_offset))
                    break
        if found is not None:
            out.append(found)
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))


def _binds(func, read, names: set[str]) -> bool:
    """True when `read` is the value of a binding of one of `names` (`cc = _get_cache_control(m)`
    before the `if`): it is where the name gets the breakpoint, not a use of it."""
    for n in subtree(func):
        target = n.targets[0] if isinstance(n, ast.Assign) and len(n.targets) == 1 else \
            n.target if isinstance(n, ast.NamedExpr) else None
        if isinstance(target, ast.Name) and target.id in names and any(x is read for x in subtree(n.value)):
            return True
    return False
