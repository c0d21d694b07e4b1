"""What a `for` loop over `os.walk(...)` does to the lists of names the walk hands it (facts, no judgement).

`os.walk(top)` walks top-down by default and, for each folder, yields `(folder, folder names, file
names)`; it descends into the folder names in the order the list holds *after* the loop's body ran
(the documented way to prune or order a walk: `dirs[:] = ...`, `dirs.sort()`). So a loop whose body
sorts the folder names in place walks in a fixed order, and a `sorted(os.walk(top))` around it would
read the whole walk before the body runs (its pruning and ordering no longer reach the walk).

    walk_loop(root, call)      -> the `for` statement whose iterable is `call`, or None
    top_down(call)             -> False when the call passes `topdown` other than a literal True
    sorts_folders(loop)        -> True when the body sorts the folder names in place before it may skip
    folder_names(loop)         -> the name the loop's target binds to the folder names
"""
from __future__ import annotations

import ast

def walk_loop(root: ast.AST, call: ast.AST) -> ast.For | ast.AsyncFor | None:
    """The `for` statement of `root` (a function or a module) whose iterable is `call` itself."""
    for node in ast.walk(root):
        if isinstance(node, (ast.For, ast.AsyncFor)) and node.iter is call:
            return node
    return None


def top_down(call: ast.Call) -> bool:
    """False when the call passes `topdown` (by keyword or as the second argument) other than a
    literal True: walked bottom-up, the folder names are listed after their folders were walked."""
    given = [k.value for k in call.keywords if k.arg == "topdown"] + call.args[1:2]
    return all(isinstance(v, ast.Constant) and v.value is True for v in given)


def folder_names(loop: ast.For | ast.AsyncFor) -> str | None:
    """The name the loop's target binds to the walk's folder names (`for root, dirs, files in ...`),
    or None for another target."""
    target = loop.target
    if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 3 and isinstance(target.elts[1], ast.Name):
        return target.elts[1].id
    return None


def sorts_folders(loop: ast.For | ast.AsyncFor) -> bool:
    """True when the loop's body, at its own level and before any statement that may skip the rest
    of the body (`continue`, `break`, `return`), sorts the folder names in place (`dirs.sort()`,
    `dirs[:] = sorted(...)`) or empties them (`dirs[:] = []`): the walk then goes on in a fixed order."""
    name = folder_names(loop)
    if name is None:
        return False
    for stmt in loop.body:
        if _sorts(stmt, name):
            return True
        if any(isinstance(n, (ast.Continue, ast.Break, ast.Return, ast.Raise)) for n in ast.walk(stmt)):
            return False
    return False


def _sorts(stmt: ast.stmt, name: str) -> bool:
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        return isinstance(func, ast.Attribute) and func.attr == "sort" and _is(func.value, name)
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _whole_slice(stmt.targets[0], name):
        value = stmt.value
        if isinstance(value, (ast.List, ast.Tuple)) and not value.elts:
            return True
        return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "sorted"
    return False


def _is(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _whole_slice(target: ast.AST, name: str) -> bool:
    """`name[:]`."""
    return isinstance(target, ast.Subscript) and _is(target.value, name) and isinstance(target.slice, ast.Slice) \
        and target.slice.lower is None and target.slice.upper is None and target.slice.step is None
