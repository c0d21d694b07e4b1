"""Cache breakpoints written on the first items of a list instead of its last: a fact for PRM302
(`head_marks`; the rule judges it).

Shape, read from one function's `ast` tree: a `for` loop over a list taken from its start (a name
or attribute, or a slice that starts at the head: `items`, `items[:n]`; not `reversed(...)`, not a
slice from the end) whose body writes a breakpoint key on the loop's item (`item["cache_control"]
= ...`, or on a block of it: `item["content"][-1]["cache_control"] = ...`) and leaves the loop
with a `break` (at a count: `if n >= 4: break`):

    for message in messages:
        message["cache_control"] = {"type": "ephemeral"}
        count += 1
        if count >= 4:
            break

The breakpoints land on the oldest items: a request caches up to its last breakpoint, so what
follows the first items (the rest of the conversation, growing every turn) is never cached.
"""
from __future__ import annotations

import ast

from .gated_markers import module_functions
from .markers import MARKER_KEYS
from .walk import subtree


def head_marks(module) -> list[ast.stmt]:
    """The statement that writes the breakpoint, for each loop of the module's functions of the
    shape in the module docstring."""
    out = []
    for _cls, func in module_functions(module):
        for loop in subtree(func):
            if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(loop.target, ast.Name):
                continue
            if not _from_head(loop.iter) or not any(isinstance(n, ast.Break) for n in _own(loop)):
                continue
            mark = next((n for n in _own(loop) if _marks_item(n, loop.target.id)), None)
            if mark is not None:
                out.append(mark)
    return out


def _own(loop):
    """The nodes of the loop's body, not those of loops or functions nested in it."""
    stack = list(reversed(loop.body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _from_head(node) -> bool:
    """True for an iterable taken from the start of a list: a name, an attribute, a slice with no
    start (`items[:4]`)."""
    if isinstance(node, (ast.Name, ast.Attribute)):
        return True
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and node.slice.lower is None \
        and node.slice.step is None and isinstance(node.value, (ast.Name, ast.Attribute))


def _marks_item(node, item: str) -> bool:
    """True for `item[...]["cache_control"] = ...` (a subscript chain rooted at the loop's item)."""
    if not isinstance(node, ast.Assign):
        return False
    for target in node.targets:
        if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) \
                and target.slice.value in MARKER_KEYS:
            root = target.value
            while isinstance(root, ast.Subscript):
                root = root.value
            if isinstance(root, ast.Name) and root.id == item:
                return True
    return False


def kept_first_marks(module) -> list[ast.AST]:
    """The statement that takes the breakpoint off the loop's item, for each loop of the module's
    functions that keeps the breakpoints of a list's first marked items up to a count and removes
    those of every later one (a capped count):

        for message in messages:
            if message.get("cache_control"):
                if count == limit:
                    message.pop("cache_control")
                else:
                    count += 1

    The loop walks the list from its head (`_from_head`); an `if` of its body tests a counter
    against a limit (`==`, `>=`, `>`) and one branch takes the breakpoint key off the item
    (`item.pop("cache_control")`, `del item["cache_control"]`) while the other counts up
    (`count += 1`). The breakpoints kept are the oldest ones; the newest turns lose theirs."""
    out = []
    for _cls, func in module_functions(module):
        for loop in subtree(func):
            if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(loop.target, ast.Name) \
                    or not _from_head(loop.iter):
                continue
            for test in _own(loop):
                if isinstance(test, ast.If) and _counter_test(test.test) is not None:
                    counter = _counter_test(test.test)
                    removed = next((n for n in _branch(test.body) if _unmarks_item(n, loop.target.id)), None)
                    counted = any(_counts(n, counter) for n in _branch(test.orelse))
                    if removed is not None and counted:
                        out.append(removed)
                        break
    return out


def _branch(stmts):
    for stmt in stmts:
        yield from ast.walk(stmt)


def _counter_test(test) -> str | None:
    """The counter's name of `count == limit` / `count >= limit` / `count > limit`, else None."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.GtE, ast.Gt)) \
            and isinstance(test.left, ast.Name):
        return test.left.id
    return None


def _counts(node, counter: str) -> bool:
    """`counter += 1`."""
    return isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name) \
        and node.target.id == counter


def _unmarks_item(node, item: str) -> bool:
    """`item.pop("cache_control"...)` or `del item["cache_control"]`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "pop" and node.args \
            and isinstance(node.args[0], ast.Constant) and node.args[0].value in MARKER_KEYS:
        return isinstance(node.func.value, ast.Name) and node.func.value.id == item
    if isinstance(node, ast.Delete):
        return any(isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and t.slice.value in MARKER_KEYS
                   and isinstance(t.value, ast.Name) and t.value.id == item for t in node.targets)
    return False
