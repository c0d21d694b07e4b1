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
"""
from __future__ import annotations

import ast

from .module import statements
from .candidates import words
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
