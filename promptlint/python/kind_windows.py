"""The oldest messages of a kind dropped beyond a limit: facts for PRM105 (the rule judges them).

A function that counts the messages of a kind in the conversation (screenshots, images, tool
results), takes the excess over a limit (`excess = count - MAX_IMAGES`) and walks the conversation
from its head removing or stripping that many of them (`while i < len(self.history) and removed <
excess: ... self.history.pop(i)`, or a rebuilt list in which the first `excess` lose their images:
`excess -= 1`) keeps only the newest of that kind: once the conversation holds more, every new one
pushes an older one out, so the conversation changes from that message on, on every turn. The
request that sends it is not followed here: the rule reports it as info where the excess is taken.

Shapes, all in one function: `E = A - B` with `A` a count (`len(...)`, `sum(...)`, a call named for a
count, or a name incremented in a loop: `A += 1`) and `B` a name, an attribute or a positive
constant; after it a loop that walks a list named for the conversation (`for m in messages`, `while
i < len(self.message_history)`) and reads `E`, and either removes items of that list (`.pop(...)`,
`del xs[...]`) or counts `E` down (`E -= 1`).

The same window kept walking the conversation newest first (`for i in range(len(xs) - 1, -1, -1)`,
`for m in reversed(xs)`, `xs[::-1]`): a name counted up in the walk (`seen += 1`) and, under a test
that it passed a limit (`if seen > MAX_IMAGES:`), a removal from the walked conversation or from a
message of it (`del xs[i]["content"][j]`, `xs.pop(i)`, `xs[i]["content"].pop(j)`), or, under a test
that it is still below the limit (`if seen < MAX_IMAGES:`), the append of the walked message to a
new list whose `else` leaves it out or keeps only a stripped copy: the items of the kind older than
the newest `MAX_IMAGES` are removed, so each new one strips an older message. The fact is then
(the test, the removal or the append).
"""
from __future__ import annotations

import ast

from .module import statements
from .prompt_names import words
from .walk import own_nodes, subtree

_HISTORY = frozenset({"history", "messages", "msgs", "conversation", "transcript", "dialog", "dialogue", "turns"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def kind_windows(module) -> list[tuple[ast.Assign, ast.AST]]:
    """(the `excess = count - limit` assignment, the statement that drops one: the pop, the del or
    `excess -= 1`) of functions that drop that many of the oldest messages of a kind from the
    conversation, in source order."""
    out = []
    src = module.source
    for func in statements(module.tree):
        if isinstance(func, _FUNCS):
            a, b = module.offsets(func)  # (a drop needs a pop, a del or `excess -= 1` in its text)
            if any(src.find(word, a, b) != -1 for word in ("pop(", "del ", "-=")):
                out.extend(_in(func))
    return sorted(out, key=lambda n: (n[0].lineno, n[0].col_offset))


def newest_kinds(module) -> list[tuple[ast.expr, ast.AST]]:
    """(the test `count > limit`, the removal under it) of functions that walk the conversation
    newest first and remove the items of a kind past a limit (module docstring), in source order."""
    out = []
    src = module.source
    for func in statements(module.tree):
        if isinstance(func, _FUNCS):
            a, b = module.offsets(func)
            if any(src.find(word, a, b) != -1 for word in ("pop(", "del ", ".append(")) and src.find("+=", a, b) != -1:
                out.extend(_newest_kept(own_nodes(func, body_only=True)))
    return sorted(out, key=lambda n: (n[0].lineno, n[0].col_offset))


def _in(func) -> list[tuple[ast.Assign, ast.AST]]:
    nodes = own_nodes(func, body_only=True)
    counts = {t.id for n in nodes if isinstance(n, ast.Assign) and _counted(n.value) for t in n.targets
              if isinstance(t, ast.Name)}
    counts |= {n.target.id for n in nodes if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add)
               and isinstance(n.target, ast.Name) and isinstance(n.value, ast.Constant) and n.value.value == 1}
    out = []
    for n in nodes:
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                and isinstance(n.value, ast.BinOp) and isinstance(n.value.op, ast.Sub)
                and isinstance(n.value.left, ast.Name) and n.value.left.id in counts and _limit(n.value.right)):
            continue
        excess = n.targets[0].id
        drop = next((d for loop in nodes if isinstance(loop, (ast.For, ast.While))
                     and (loop.lineno, loop.col_offset) > (n.lineno, n.col_offset)
                     for d in [_drops(loop, excess)] if d is not None), None)
        if drop is not None:
            out.append((n, drop))
    return out


def _newest_kept(nodes) -> list[tuple[ast.AST, ast.AST]]:
    """(the test `count > limit`, the removal under it) of each newest-first walk of the
    conversation that counts items up and removes those past the limit (module docstring)."""
    out = []
    for loop in nodes:
        if not isinstance(loop, ast.For):
            continue
        held = _newest_first(loop.iter)
        if held is None:
            continue
        counted = {n.target.id for n in subtree(loop) if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add)
                   and isinstance(n.target, ast.Name) and isinstance(n.value, ast.Constant) and n.value.value == 1}
        for n in subtree(loop):
            if isinstance(n, ast.If) and _past_limit(n.test, counted):
                drop = next((d for stmt in n.body for d in subtree(stmt) if _removes_from(d, held)), None)
                if drop is not None:
                    out.append((n.test, drop))
                    break
            if isinstance(n, ast.If) and _past_limit(n.test, counted, under=True):
                keep = _kept_only_under(n)
                if keep is not None:
                    out.append((n.test, keep))
                    break
    return out


def _kept_only_under(test: ast.If):
    """The `kept.append(item)` under `if count < limit:` when the `else` keeps no such item as it
    is (leaves it out, or appends it only after rebinding it to a stripped copy): a new list that
    keeps the newest of a kind whole; else None."""
    keep = next((n for stmt in test.body for n in subtree(stmt) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Attribute) and n.func.attr == "append" and isinstance(n.func.value, ast.Name)
                 and len(n.args) == 1 and isinstance(n.args[0], ast.Name)), None)
    if keep is None:
        return None
    item, other = keep.args[0].id, [n for stmt in test.orelse for n in subtree(stmt)]
    rebound = any(isinstance(n, ast.Name) and n.id == item and isinstance(n.ctx, ast.Store) for n in other)
    kept_whole = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append"
                     and n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == item for n in other)
    return None if kept_whole and not rebound else keep


def _newest_first(it) -> str | None:
    """The conversation a loop's iterable walks from its newest item: `range(len(xs) - 1, -1, -1)`,
    `reversed(xs)` (also of `enumerate(xs)` or `list(...)` of it), `xs[::-1]`; else None."""
    if isinstance(it, ast.Call) and getattr(it.func, "id", None) == "range" and len(it.args) == 3:
        start, step = it.args[0], it.args[2]
        if isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub) and isinstance(start, ast.BinOp) \
                and isinstance(start.op, ast.Sub) and isinstance(start.left, ast.Call) \
                and getattr(start.left.func, "id", None) == "len" and start.left.args:
            return _conversation(start.left.args[0])
        return None
    if isinstance(it, ast.Call) and getattr(it.func, "id", None) == "reversed" and it.args:
        inner = it.args[0]
        while isinstance(inner, ast.Call) and getattr(inner.func, "id", None) in ("list", "enumerate") and inner.args:
            inner = inner.args[0]
        return _conversation(inner)
    if isinstance(it, ast.Subscript) and isinstance(it.slice, ast.Slice) and it.slice.lower is None \
            and it.slice.upper is None and isinstance(it.slice.step, ast.UnaryOp) and isinstance(it.slice.step.op, ast.USub):
        return _conversation(it.value)
    return None


def _past_limit(test, counted: set[str], under: bool = False) -> bool:
    """`count > limit` / `count >= limit` (or `limit < count`) for a name counted up in the walk;
    `under`: `count < limit` / `count <= limit` (or `limit > count`) instead."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(op, (ast.Gt, ast.GtE) if under else (ast.Lt, ast.LtE)):
        left, right = right, left
    elif not isinstance(op, (ast.Lt, ast.LtE) if under else (ast.Gt, ast.GtE)):
        return False
    return isinstance(left, ast.Name) and left.id in counted and _limit(right)


def _removes_from(node, held: str) -> bool:
    """A `del` of an item of the conversation `held` or of a part of one of its messages
    (`del xs[i]["content"][j]`), or a `.pop(...)` of either."""
    if isinstance(node, ast.Delete):
        return any(isinstance(t, ast.Subscript) and _root(t.value) == held for t in node.targets)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "pop" \
        and node.args and _root(node.func.value) == held


def _root(node) -> str:
    """The list a subscript chain reads from (`xs[i]["content"]` -> `xs`), as source text."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return ast.unparse(node)


def _counted(value) -> bool:
    if isinstance(value, ast.Await):
        value = value.value
    if not isinstance(value, ast.Call):
        return False
    f = value.func
    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
    return name in ("len", "sum") or "count" in words(name)


def _limit(node) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int) and not isinstance(node.value, bool) and node.value > 0
    return isinstance(node, (ast.Name, ast.Attribute))


def _conversation(node) -> str | None:
    """The dotted name of a list named for the conversation (`messages`, `self.message_history`)."""
    if isinstance(node, ast.Name):
        return node.id if words(node.id) & _HISTORY else None
    if isinstance(node, ast.Attribute) and words(node.attr) & _HISTORY:
        return ast.unparse(node)
    return None


def _walked(loop) -> str | None:
    """The conversation a loop walks: `for m in xs`, `for i, m in enumerate(xs)`, `for i in
    range(len(xs))`, `while i < len(xs)`."""
    if isinstance(loop, ast.For):
        it = loop.iter
        while isinstance(it, ast.Call) and it.args and getattr(it.func, "id", None) in ("enumerate", "range", "len"):
            it = it.args[-1] if it.func.id == "range" else it.args[0]
        return _conversation(it)
    for n in subtree(loop.test):
        if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "len" and n.args:
            held = _conversation(n.args[0])
            if held:
                return held
    return None


def _drops(loop, excess: str):
    """The statement of `loop` that drops one of the oldest of a kind (a pop or del of the walked
    conversation, or `excess -= 1`), when the loop walks the conversation and reads `excess`; else None."""
    held = _walked(loop)
    if held is None or not any(isinstance(n, ast.Name) and n.id == excess for n in subtree(loop)):
        return None
    for n in subtree(loop):
        if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Sub) and isinstance(n.target, ast.Name) \
                and n.target.id == excess:
            return n
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "pop" \
                and ast.unparse(n.func.value) == held:
            return n
        if isinstance(n, ast.Delete) and any(isinstance(t, ast.Subscript) and ast.unparse(t.value) == held
                                             for t in n.targets):
            return n
    return None


def kept_indices(module) -> list[tuple[ast.AST, ast.AST]]:
    """(the slice that keeps the newest indices, the statement that leaves the others out) of each
    function that collects the indices of the conversation's items of a kind (`for i, m in
    enumerate(messages): if ...: found.append(i)`), keeps the newest `N` of them (`keep =
    set(found[-N:])`) and rebuilds or cuts the conversation by index membership (`[m for i, m in
    enumerate(messages) if i not in drop]`, `del messages[i]`): the same window of a kind, kept by
    index; in source order."""
    out = []
    for func in statements(module.tree):
        if not isinstance(func, _FUNCS):
            continue
        nodes = own_nodes(func, body_only=True)
        indexed: dict[str, str] = {}  # list of indices -> the conversation they index
        for loop in nodes:
            if isinstance(loop, ast.For) and isinstance(loop.target, ast.Tuple) and len(loop.target.elts) == 2 \
                    and isinstance(loop.target.elts[0], ast.Name) and isinstance(loop.iter, ast.Call) \
                    and isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "enumerate" \
                    and len(loop.iter.args) == 1 and isinstance(loop.iter.args[0], ast.Name) \
                    and words(loop.iter.args[0].id) & _HISTORY:
                i = loop.target.elts[0].id
                for n in subtree(loop):
                    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append" \
                            and isinstance(n.func.value, ast.Name) and len(n.args) == 1 \
                            and isinstance(n.args[0], ast.Name) and n.args[0].id == i:
                        indexed[n.func.value.id] = loop.iter.args[0].id
        if not indexed:
            continue
        kept = next((n for n in nodes if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)
                     and n.value.id in indexed and isinstance(n.slice, ast.Slice) and n.slice.step is None
                     and newest_count(n.slice)), None)
        if kept is None:
            continue
        held = indexed[kept.value.id]
        drop = next((n for n in nodes if (n.lineno, n.col_offset) > (kept.lineno, kept.col_offset)
                     and _by_index(n, held)), None)
        if drop is not None:
            out.append((kept, drop))
    return sorted(out, key=lambda n: (n[0].lineno, n[0].col_offset))


def newest_count(s: ast.Slice) -> bool:
    """`[-N:]` (kept) or `[:-N]` (dropped) with N a name, an attribute or a constant above two."""
    bound = s.lower if s.upper is None else s.upper if s.lower is None else None
    if not (isinstance(bound, ast.UnaryOp) and isinstance(bound.op, ast.USub)):
        return False
    n = bound.operand
    return isinstance(n, (ast.Name, ast.Attribute)) or isinstance(n, ast.Constant) and isinstance(n.value, int) \
        and not isinstance(n.value, bool) and n.value > 2


def _by_index(node, held: str) -> bool:
    """A comprehension over `enumerate(held)` filtered by whether the index is in a collection,
    or `del held[i]` / `held.pop(i)` with a name as the index."""
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1:
        g = node.generators[0]
        if isinstance(g.iter, ast.Call) and isinstance(g.iter.func, ast.Name) and g.iter.func.id == "enumerate" \
                and g.iter.args and isinstance(g.iter.args[0], ast.Name) and g.iter.args[0].id == held \
                and isinstance(g.target, ast.Tuple) and isinstance(g.target.elts[0], ast.Name):
            i = g.target.elts[0].id
            return any(isinstance(c, ast.Compare) and isinstance(c.left, ast.Name) and c.left.id == i
                       and isinstance(c.ops[0], (ast.In, ast.NotIn)) for t in g.ifs for c in subtree(t))
    if isinstance(node, ast.Delete):
        return any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == held
                   and isinstance(t.slice, ast.Name) for t in node.targets)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "pop" \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == held and len(node.args) == 1 \
        and isinstance(node.args[0], ast.Name)
