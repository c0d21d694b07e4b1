"""Whether a list of messages is kept and grown from turn to turn (facts for `kept_marks`): a
`self.` attribute a method of the class grows, a module-level list the module grows, a local list
a loop grows. Each takes ast nodes and names and answers from the code as written."""
from __future__ import annotations

import ast

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor)

_GROW = frozenset({"append", "extend", "insert"})


def self_grower(cls, attr: str) -> str | None:
    """The first method of `cls` that grows `self.<attr>` (`.append` / `.extend` / `.insert`,
    `+=`, `self.x = self.x + [...]` / `[*self.x, ...]`), or None."""
    if cls is None:
        return None
    for method in cls.body:
        if not isinstance(method, _FUNCS):
            continue
        for n in ast.walk(method):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _GROW \
                    and _is_self(n.func.value, attr):
                return method.name
            if isinstance(n, ast.AugAssign) and _is_self(n.target, attr):
                return method.name
            if isinstance(n, ast.Assign) and any(_is_self(t, attr) for t in n.targets) \
                    and isinstance(n.value, (ast.BinOp, ast.List)) and _reads_self(n.value, attr):
                return method.name
    return None


def _is_self(node, attr: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) \
        and node.value.id == "self"


def _reads_self(node, attr: str) -> bool:
    return any(_is_self(n, attr) for n in ast.walk(node))


def assigns_afresh(func, attr: str) -> bool:
    """True when `func` assigns `self.<attr>` a value that does not read it (a list made for this
    call), other than under a test of the attribute itself (`if not self.messages: self.messages
    = [...]`: the first turn)."""
    guarded = {id(s) for n in ast.walk(func) if isinstance(n, ast.If) and _reads_self(n.test, attr)
               for b in n.body for s in ast.walk(b)}
    return any(isinstance(n, ast.Assign) and id(n) not in guarded and any(_is_self(t, attr) for t in n.targets)
               and not _reads_self(n.value, attr) for n in ast.walk(func))


def module_grows(module, name: str) -> bool:
    """True when `name` is a list assigned at the module's top level that the module grows."""
    if not any(isinstance(s, (ast.Assign, ast.AnnAssign)) and any(
            isinstance(t, ast.Name) and t.id == name for t in (s.targets if isinstance(s, ast.Assign) else [s.target]))
            for s in module.tree.body):
        return False
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _GROW
               and isinstance(n.func.value, ast.Name) and n.func.value.id == name for n in ast.walk(module.tree))


def grown_in_loop(func, name: str, node) -> bool:
    """True when a loop of `func` holds `node` and grows the list `name` (`.append` / `.extend` /
    `.insert`, `+=`) without assigning it anew in the loop: the list goes from pass to pass."""
    for loop in ast.walk(func):
        if not isinstance(loop, (*_LOOPS, ast.While)) or not any(n is node for n in ast.walk(loop)):
            continue
        inner = list(ast.walk(loop))
        grows = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _GROW
                    and isinstance(n.func.value, ast.Name) and n.func.value.id == name
                    or isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == name
                    for n in inner)
        made = any(isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)
                   for n in inner)
        if grows and not made:
            return True
    return False
