"""One breakpoint read off a message and copied onto every block a loop builds from it: a fact
for PRM304 (`spread_marks`; the rule judges it).

Shape, read from one function's `ast` tree: a value read off a breakpoint key (`cc =
message.meta.get("cache_control")`, `msg["cache_control"]`, `getattr(m, "cache_control")`) outside
a `for` loop, written on a breakpoint key inside it onto a block of the loop's own making (the
loop's item, or a block the loop body builds: `text_block = {...}`):

    cache_control = message.meta.get("cache_control")
    for part in message.content:
        text_block = {"type": "text", "text": part.text}
        if cache_control:
            text_block["cache_control"] = cache_control
        content.append(text_block)

    for blk in content:
        if blk.get("type") == "tool_result":
            blk["cache_control"] = cache_control

The caller asked for one breakpoint (on the message); the request carries one per block the loop
visits, as many as the data holds. Anthropic rejects a request with more than 4 (a 400 error;
https://platform.claude.com/docs/en/build-with-claude/prompt-caching).

Not the fact: a loop that leaves after the write (`for blk in reversed(content): ...; break`, or `return`: the
last block only), a write under a test for the loop's last item (`item_markers.marks_last_only`),
a value read inside the loop (off the loop's own item: `copies_item_marker`, the caller's breakpoint
per item), a loop over a slice or a display of fixed length (`msgs[-2:]`, `(a, b)`: bounded), and a
write onto a block made outside the loop (the same block each pass: one breakpoint).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .gated_markers import module_functions
from .item_markers import marks_last_only
from .markers import MARKER_KEYS
from .walk import subtree

_LOOPS = (ast.For, ast.AsyncFor)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


@dataclass(frozen=True)
class SpreadMark:
    """`node`: the first statement of a loop that writes the breakpoint; `read`: the expression
    that reads it off the message, outside the loop (its line is named in the message); `others`:
    the loop's other statements that write it (one finding per loop: one cause)."""

    node: ast.stmt
    read: ast.AST
    others: tuple = ()


def might_spread(source: str) -> bool:
    """The cheap test: a loop and a breakpoint key read with `.get(` or a subscript."""
    return "for " in source and any(f'get("{k}")' in source.replace("'", '"') or f'["{k}"]' in
                                    source.replace("'", '"') for k in MARKER_KEYS)


def spread_marks(module) -> list[SpreadMark]:
    """Every loop of the shape in the module docstring, in the module's functions: its writes."""
    out = []
    for _cls, func in module_functions(module):
        reads = _marker_reads(func)
        if not reads:
            continue
        loops: dict[int, list] = {}
        for loop, stmt in _loop_writes(func):
            read = _read_outside(stmt.value, loop, reads)
            if read is None or _bounded(loop) or marks_last_only(func, stmt.targets[0]):
                continue
            if any(isinstance(n, (ast.Break, ast.Return)) for n in _own(loop)) or not _per_item(stmt.targets[0], loop):
                continue
            loops.setdefault(id(loop), []).append((stmt, read))
        out.extend(SpreadMark(found[0][0], found[0][1], tuple(s for s, _ in found[1:])) for found in loops.values())
    return out


def _reads_marker(node) -> bool:
    """`x.get("cache_control")`, `x["cache_control"]`, `getattr(x, "cache_control")` (any key of
    `MARKER_KEYS`)."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value in MARKER_KEYS
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
        key = node.args[0]
    elif isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) >= 2:
        key = node.args[1]
    else:
        return False
    return isinstance(key, ast.Constant) and key.value in MARKER_KEYS


def _marker_reads(func) -> dict[str, ast.AST]:
    """Names the function assigns, once, a read of a breakpoint key (`cc = m.meta.get(...)`):
    name -> the assignment statement."""
    assigned: dict[str, list] = {}
    for node in subtree(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned.setdefault(node.targets[0].id, []).append(node)
        elif isinstance(node, ast.NamedExpr):
            assigned.setdefault(node.target.id, []).append(node)
    return {name: nodes[0] for name, nodes in assigned.items()
            if len(nodes) == 1 and _reads_marker(nodes[0].value)}


def _loop_writes(func):
    """(innermost `for` loop, statement) for every `X[...]["cache_control"] = value` of the
    function that sits in a loop of it (not in a nested function)."""
    def walk(node, loop):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _NESTED):
                continue
            if isinstance(child, ast.Assign) and loop is not None and len(child.targets) == 1 \
                    and _marker_target(child.targets[0]):
                yield loop, child
            yield from walk(child, child if isinstance(child, _LOOPS) else loop)
    yield from walk(func, None)


def _marker_target(target) -> bool:
    return isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) \
        and target.slice.value in MARKER_KEYS


def _read_outside(value, loop, reads: dict) -> ast.AST | None:
    """The read of a breakpoint key that `value` is (directly, or a name assigned one), when that
    read is not inside `loop` (the same value on every pass); else None."""
    inside = {id(n) for n in subtree(loop)}
    if _reads_marker(value):
        return value if id(value) not in inside else None
    if isinstance(value, ast.Name) and value.id in reads and id(reads[value.id]) not in inside:
        return reads[value.id].value
    return None


def _bounded(loop) -> bool:
    """A loop over a slice (`msgs[-2:]`, `blocks[:1]`) or a display (`(a, b)`, `[x]`): a fixed count."""
    it = loop.iter
    if isinstance(it, (ast.Tuple, ast.List, ast.Set)):
        return True
    return isinstance(it, ast.Subscript) and isinstance(it.slice, ast.Slice)


def _own(loop):
    """The nodes of the loop's body, not those of loops or functions nested in it."""
    stack = list(reversed(loop.body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (*_LOOPS, ast.While, *_NESTED)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _per_item(target, loop) -> bool:
    """True when the written block is another one on each pass: rooted at the loop's item, or at
    a name the loop body assigns (`text_block = {...}`)."""
    root = target.value
    while isinstance(root, (ast.Subscript, ast.Attribute)):
        root = root.value
    if not isinstance(root, ast.Name):
        return False
    items = {n.id for n in subtree(loop.target) if isinstance(n, ast.Name)}
    made = {t.id for n in _own(loop) if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    return root.id in items or root.id in made
