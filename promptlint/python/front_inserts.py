"""A message put at the head of the conversation on some calls only: facts for PRM104.

A system (or developer) message put at index 0 of a message list (`msgs.insert(0, {"role":
"system", ...})`, `messages = [system] + messages`, `messages = [system, *messages]`)

- under a test of a per-call value, a parameter of the function that puts it (structured output
  asked for, a retry, a tool mode: `if response_format:`) or a name a loop of it walks (`if
  attempt:` in `for attempt in range(3):`), or
- by a helper that puts it on every call and is itself called under such a test by its caller
  (`if response_format: params = ensure_json_only_system_prompt(params)`, in its module or in
  another module of its package tree),

makes the requests of one conversation start with one prefix or another: the history after the
head is cached once per variant. Whether the value changes between the requests of one
conversation is not followed here: the rule reports it as info, where the message is put, with
the test as a related location.

Not one: a head message put on every call; one put under a test of the list itself (`if not
messages or messages[0]["role"] != "system":`, or of a name computed from it: put once and kept,
or put on every fresh copy), or of values fixed for the instance or the module (`if
self.instructions:`), which every request of a conversation shares.
"""
from __future__ import annotations

import ast
import re

from .flow.binding_syntax import param_names
from .flow.callers import MAX_CALLERS, call_index, calls_named
from .walk import block_statements, child_nodes, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: The text test before the module's walk: a put at index 0, or a list display joined before a name.
TEXT = re.compile(r"\.insert\(\s*0\s*,|=\s*\[[^\n]*\]\s*\+\s*[A-Za-z_]|=\s*\[[^\n]*,\s*\*[A-Za-z_]")
_HEAD_ROLES = ("system", "developer")


def might_insert(source: str) -> bool:
    """True when the module's text can hold a head message put (searched only with a role word)."""
    return ("system" in source or "developer" in source) and TEXT.search(source) is not None


def front_inserts(module, project) -> list[tuple[ast.AST, ast.AST, object]]:
    """(the put, the test that chooses it, the module of the test) for each head message put on
    some calls only, in source order."""
    out = []
    for func, put, listed, tests in _puts(module.tree):
        derived = _derived(func, listed)
        chosen = [t for t in tests if _per_call(t, func, derived)]
        if chosen:
            out.append((put, chosen[0], module))
        elif not tests and _param_fed(func, listed, derived):
            site = _conditional_caller(module, project, func)
            if site is not None:
                out.append((put, *site))
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))


def _puts(tree):
    """(function, the put statement, the list's root name, the `if` tests around it in the
    function) for each head message put in a function. A put is a statement: the walk goes down
    blocks of statements only (`walk.block_statements`), never into expressions (no statement,
    hence no put and no function, is inside one)."""
    todo: list = [(tree, None, ())]
    while todo:
        node, func, tests = todo.pop()
        if isinstance(node, _FUNCS):
            func, tests = node, ()
        elif isinstance(node, (ast.ClassDef, ast.Lambda)):
            func, tests = None, ()
        if func is not None:
            listed = _head_put(node)
            if listed is not None:
                yield func, node, listed, tests
        if isinstance(node, ast.If):
            todo.extend((c, func, (*tests, node.test)) for c in (*node.body, *node.orelse))
            continue
        todo.extend((c, func, tests) for c in block_statements(node))


def _head_put(node) -> str | None:
    """The root name of the list a statement puts a system message at the head of, else None."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        call = node.value
        f = call.func
        if isinstance(f, ast.Attribute) and f.attr == "insert" and len(call.args) == 2 \
                and isinstance(call.args[0], ast.Constant) and call.args[0].value == 0 and _head_message(call.args[1]):
            return _root(f.value)
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = _root(node.targets[0]), node.value
        if target is None:
            return None
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) and isinstance(value.left, ast.List) \
                and value.left.elts and _head_message(value.left.elts[0]) and _root(value.right) == target:
            return target
        if isinstance(value, ast.List) and len(value.elts) > 1 and _head_message(value.elts[0]) \
                and any(isinstance(e, ast.Starred) and _root(e.value) == target for e in value.elts[1:]):
            return target
    return None


def _head_message(node) -> bool:
    """True for a message display whose role is system or developer (`{"role": "system", ...}`,
    `SystemMessage(...)`)."""
    if isinstance(node, ast.Dict):
        return any(isinstance(k, ast.Constant) and k.value == "role" and isinstance(v, ast.Constant)
                   and v.value in _HEAD_ROLES for k, v in zip(node.keys, node.values))
    if isinstance(node, ast.Call):
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        return name == "SystemMessage"
    return False


def _root(node) -> str | None:
    """The name an expression starts from (`msgs`, `params["messages"]` -> params), else None;
    `self.x` -> `self.x`."""
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return f"self.{node.attr}"
    return node.id if isinstance(node, ast.Name) else None


def _names(node) -> set[str]:
    out = set()
    for n in subtree(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self":
            out.add(f"self.{n.attr}")
    return out


def _derived(func, listed: str) -> set[str]:
    """The list's name and the local names computed from it in the function (`has_system =
    any(m["role"] == "system" for m in messages)`), and the names it is computed from (`msgs =
    list(params["messages"])`: params)."""
    found = {listed}
    assigns = [n for n in subtree(func) if isinstance(n, ast.Assign)]
    for _ in range(3):
        for a in assigns:
            targets = {n.id for t in a.targets for n in subtree(t) if isinstance(n, ast.Name)}
            read = _names(a.value)
            if read & found:
                found |= targets
            if targets & found:
                found |= read & set(param_names(func, stars=True, receiver=False))
    return found


def _per_call(test, func, derived: set[str]) -> bool:
    """True for a test that reads a parameter of `func` or a name a loop of it walks (`for attempt
    in range(retries):`, a retry) and nothing computed from the list."""
    read = _names(test)
    walked = {n.id for f in subtree(func) if isinstance(f, (ast.For, ast.AsyncFor))
              for n in subtree(f.target) if isinstance(n, ast.Name)}
    return bool(read & (set(param_names(func, stars=True, receiver=False)) | walked)) and not read & derived


def _param_fed(func, listed: str, derived: set[str]) -> bool:
    """True when the list is, or is made from, a parameter of `func` (its caller's conversation)."""
    params = set(param_names(func, stars=True, receiver=False))
    return bool(derived & params) or listed in params


def _conditional_caller(module, project, func):
    """(the test, its module) of the first call of `func` (by its name: in its module, and in up
    to `MAX_CALLERS` other modules of its package tree) under a test of a parameter of the calling
    function; None when every call is made on every pass."""
    sites = [(module, call, caller) for key in (func.name, "self." + func.name, "." + func.name)
             for call, caller, _cls in call_index(module).get(key, ())]
    path = getattr(module, "path", None)
    if path is not None and project is not None:
        others = project.callers_of(func.name, path, MAX_CALLERS)
        for other in others or ():
            sites.extend((other, call, caller) for call, caller, _cls in calls_named(other, func.name))
    for other, call, caller in sites:
        if not isinstance(caller, _FUNCS) or caller is func:
            continue
        given = set().union(*(_names(a) for a in (*call.args, *(k.value for k in call.keywords))))
        for test in _tests_around(caller, call):
            read = _names(test)
            if read & set(param_names(caller, stars=True, receiver=False)) and not read & given:
                return test, other
    return None


def _tests_around(func, target) -> tuple:
    """The `if` tests of `func` around `target`, outermost first; () when it is in none."""
    todo: list = [(func, ())]
    while todo:
        node, tests = todo.pop()
        if node is target:
            return tests
        if isinstance(node, (*_FUNCS, ast.ClassDef, ast.Lambda)) and node is not func:
            continue
        if isinstance(node, ast.If):
            todo.extend((c, (*tests, node.test)) for c in (*node.body, *node.orelse))
            todo.append((node.test, tests))
            continue
        todo.extend((c, tests) for c in child_nodes(node))
    return ()
