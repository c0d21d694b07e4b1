"""The PRM202 fix of a `for` loop's iterable when `sorted(...)` around it would change what the loop does.

`sorted(it)` reads the whole iteration before the loop's body runs. For a generator that looks at
what it yielded after the body ran, that is a change of behaviour: `os.walk(top)` descends into the
folder names the body left in the list it yielded (`dirs[:] = [d for d in dirs if ...]` prunes the
walk; after `sorted(os.walk(top))` it prunes nothing). So:

- `for root, dirs, files in os.walk(top):` walked top-down: the fix sorts the folder names in place
  as the body's first statement (`dirs.sort()`), the way the documentation orders a walk; the walk
  then goes on in a fixed order, pruned as before (safe). A folder's file names are reported and
  fixed where they are iterated (`sorted(files)`).
- any other loop whose body changes a name its target binds in place (`item[:] = ...`,
  `item.remove(x)`): `sorted(...)` is shown, never applied (display-only).
"""
from __future__ import annotations

import ast

import libcst as cst

from ..fix import EditError, apply_edits
from ..model import Applicability, Fix, Position
from ._common import NotSure, insert, parents, pos, text_slice

DISPLAY = Applicability.DISPLAY_ONLY
#: Methods that change a list (or a dict / set) in place.
MUTATORS = frozenset({"sort", "reverse", "clear", "remove", "pop", "append", "extend", "insert", "update",
                      "add", "discard", "popitem", "setdefault"})


def loop_of(module, expr: cst.BaseExpression) -> cst.For | None:
    """The `for` statement whose iterable is `expr` itself, or None."""
    loop = parents(module).get(expr)
    return loop if isinstance(loop, cst.For) and loop.iter is expr else None


def mutated(loop: cst.For) -> set[str]:
    """The names the loop's target binds that its body changes in place: an item or a slice
    written or deleted, a mutating method called (`dirs[:] = ...`, `del dirs[0]`, `dirs.remove(d)`)."""
    names = _names(loop.target)
    out: set[str] = set()
    stack: list = [loop.body]
    while stack:
        node = stack.pop()
        targets = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, cst.Del):
            targets = [node.target]
        for t in targets:
            for sub in _subscripts(t):
                if isinstance(sub.value, cst.Name) and sub.value.value in names:
                    out.add(sub.value.value)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in MUTATORS \
                and isinstance(node.func.value, cst.Name) and node.func.value.value in names:
            out.add(node.func.value.value)
        stack.extend(node.children)
    return out


def sort_folders_fix(module, loop: cst.For, call: cst.Call, message: str) -> Fix:
    """`dirs.sort()` inserted as the first statement of a top-down `os.walk` loop's body (safe).
    Raises NotSure when the walk is bottom-up, the target is not `(folder, names, files)` with a
    name for the folder names, or the body is written on the loop's own line."""
    if not _top_down(call):
        raise NotSure("a bottom-up walk: its folder names are listed after they were walked")
    target = loop.target
    if not (isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 3
            and isinstance(target.elements[1].value, cst.Name)):
        raise NotSure("no name for the folder names")
    if not isinstance(loop.body, cst.IndentedBlock) or not loop.body.body:
        raise NotSure("the body is on the loop's line")
    first = pos(module, loop.body.body[0]).start
    at = Position(first.line, first.column + 1)
    indent = text_slice(module, Position(first.line, 1), at)
    if indent.strip():
        raise NotSure("the first statement does not start its line")
    name = target.elements[1].value.value
    if any(module.code(stmt).strip() == f"{name}.sort()" for stmt in loop.body.body):
        raise NotSure("the folder names are sorted already")
    edits = [insert(f"{name}.sort()\n{indent}", at)]
    try:
        ast.parse(apply_edits(module.source, edits))
    except (EditError, SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise NotSure(str(exc)) from exc
    return Fix(Applicability.SAFE, f"{message}: sort the folder names in place, `{name}.sort()`, at the top "
                                    "of the loop (os.walk descends in their order)", edits)


def _top_down(call: cst.Call) -> bool:
    given = [a.value for a in call.args if a.keyword is not None and a.keyword.value == "topdown"]
    given += [a.value for a in call.args if a.keyword is None and not a.star][1:2]
    return all(isinstance(v, cst.Name) and v.value == "True" for v in given)


def _names(target) -> set[str]:
    stack, out = [target], set()
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            out.add(node.value)
        elif isinstance(node, (cst.Tuple, cst.List)):
            stack.extend(e.value for e in node.elements)
        elif isinstance(node, cst.StarredElement):
            stack.append(node.value)
    return out


def _subscripts(target) -> list:
    if isinstance(target, cst.Subscript):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [s for e in target.elements for s in _subscripts(e.value)]
    if isinstance(target, cst.Del):
        return _subscripts(target.target)
    return []
