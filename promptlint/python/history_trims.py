"""A conversation handed to a helper that keeps only its newest messages (or the newest of a kind)
and writes what it keeps back into the caller's list: facts for PRM105 (the rule judges them).

    history = session.load()
    keep_recent_tool_results(history, self.max_tool_results)   # the helper, elsewhere:

    def keep_recent_tool_results(messages, limit):
        keep = []
        for m in reversed(messages):                     # newest first, up to `limit`
            if m.role == "tool" and len(keep) < limit:
                keep.append(m.id)
        messages[:] = [m for m in messages if m.role != "tool" or m.id in keep]

Once the conversation holds more than `limit` of them, every new one pushes the oldest out of the
middle of the history, so the history sent after it differs from the previous request's from
that message on. The call is where the cut is chosen for this conversation (its limit), so it is
reported there; the helper's write-back is its related place.

The helper must (1) take the list as its first parameter, given the conversation by the call, and
another parameter that the call gives a limit (not a constant of at most two, not None);
(2) walk that list newest first (`reversed(messages)`, `messages[::-1]`) comparing a count with a
parameter (`len(keep) < limit`, `count >= limit`), or slice it from the end by a parameter
(`messages[-limit:]`); (3) write the result back into the same list (`messages[:] = ...`,
`messages.clear()` then `extend`), or return it to a call whose result is assigned back to the
name the conversation was given in. The conversation is recognised by its name at the call (a
word of it: `history_copy`, `chat_messages`). Helpers are found in the same module or through
the module's imports (the function a dotted name resolves to in the analysed tree).
"""
from __future__ import annotations

import ast
import re

from .. import classify
from .walk import child_nodes, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


#: A call given a list named as the conversation as its first argument, and another one after it
#: (`trim(history_copy, self.limit)`, `self._keep_recent(messages, n)`): the callee's name. The
#: cheap test before the module's walk (bounded repetition: linear).
_HANDED = re.compile(r"\([ \t]{0,8}(?:self\.)?[\w.]{0,60}?"
                     r"(?i:history|conversation|transcript|turns|dialog|messages|msgs)\w{0,40}[ \t]{0,8},")
_CALLEE = re.compile(r"([A-Za-z_]\w*)$")


def _callees(source: str) -> dict[str, set[int]]:
    """The names called as `_HANDED` says (the name just before each match's parenthesis), with
    the 1-based lines of those calls."""
    out: dict[str, set[int]] = {}
    for match in _HANDED.finditer(source):
        at = match.start()
        name = _CALLEE.search(source, max(0, at - 80), at)
        if name is not None:
            out.setdefault(name.group(1), set()).add(source.count("\n", 0, at) + 1)
    return out


def history_trims(module, project) -> list[tuple[ast.Call, str, object]]:
    """(call, helper name, span of the helper's write-back) of each call in `module` that hands a
    conversation to a helper cutting it to its newest messages in place, in source order."""
    callees = _callees(module.source)
    if callees:
        known = _defined_or_imported(module)
        callees = {name: lines for name, lines in callees.items() if name in known}
    if not callees:
        return []
    out = []
    for call, target in _calls_at(module.tree, callees):
        if len(call.args) < 2 or not _conversation_named(call.args[0]) \
                or any(isinstance(a, ast.Starred) for a in call.args):
            continue
        limits = [i for i, a in enumerate(call.args) if i and _a_limit(a)]
        if not limits:
            continue
        found = _helper(module, project, call.func)
        if found is None:
            continue
        helper_module, fn = found
        back = _trims(fn, 0, limits, returned=_reassigned(target, call.args[0]))
        if back is not None:
            out.append((call, fn.name, helper_module.span(back)))
    return sorted(out, key=lambda t: (t[0].lineno, t[0].col_offset))


def _calls_at(tree, callees: dict[str, set[int]]):
    """(call, the node its result is assigned to or None) of each call of one of `callees` on one
    of its lines, walking only the nodes that span those lines."""
    lines = set().union(*callees.values())
    todo = [(tree, None)]
    while todo:
        node, target = todo.pop()
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name in callees and node.lineno in callees[name]:
                yield node, target
        for child in child_nodes(node):
            start = getattr(child, "lineno", None)
            if start is not None and not any(start <= line <= child.end_lineno for line in lines):
                continue
            assigned = isinstance(node, ast.Assign) and len(node.targets) == 1 and child is node.value
            todo.append((child, node.targets[0] if assigned else None))


_IMPORTED = re.compile(r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+)?import[ \t]+\(?([^\n)]*)", re.MULTILINE)


def _defined_or_imported(module) -> set[str]:
    """The names a call in `module` may reach a helper of the tree by: its functions, the methods
    of its classes, the names its import statements bind (also inside functions)."""
    names = set(module.functions)
    for cls in module.classes.values():
        names.update(n.name for n in cls.body if isinstance(n, _FUNCS))
    for match in _IMPORTED.finditer(module.source):
        names.update(w for w in re.split(r"[^\w]+", match.group(1)) if w)
    return names


def _words(name: str) -> set[str]:
    return {w.lower() for w in re.split(r"[^A-Za-z0-9]+", name) if w}


def _conversation_named(node) -> bool:
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return bool(_words(name) & classify.HISTORY_NAMES)


def _a_limit(node) -> bool:
    """A value that may be a count: an attribute (a setting), a subscript, or an int constant
    above two (a constant of one or two keeps the last answer only)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int) and not isinstance(node.value, bool) and node.value > 2
    return isinstance(node, (ast.Attribute, ast.Subscript))


def _reassigned(target, given) -> bool:
    return target is not None and isinstance(given, ast.Name) and isinstance(target, ast.Name) and target.id == given.id


def _helper(module, project, func):
    """(module, function definition) of the function the call's callee names: a function of
    `module` by its bare name, or one its imports resolve to in the analysed tree."""
    if isinstance(func, ast.Name):
        local = next((n for n in module.tree.body if isinstance(n, _FUNCS) and n.name == func.id), None)
        if local is not None:
            return module, local
    qual = module.qualified_name(func)
    if not qual or "." not in qual:
        return None
    resolved = project.resolve_symbol(qual)
    if resolved is None or "." in resolved[1]:
        return None
    other, name = resolved
    fn = next((n for n in other.tree.body if isinstance(n, _FUNCS) and n.name == name), None)
    return (other, fn) if fn is not None else None


def _trims(fn, at: int, limits: list[int], returned: bool):
    """The node where `fn` writes back its parameter number `at` cut to its newest items by one
    of its parameters numbered `limits`, else None."""
    params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    if params and params[0] in ("self", "cls"):
        params = params[1:]
    if at >= len(params):
        return None
    conv = params[at]
    bounds = {params[i] for i in limits if i < len(params)}
    if not bounds or not _newest_first(fn, conv, bounds):
        return None
    for node in subtree(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            t = node.targets[0]
            if isinstance(t, ast.Subscript) and _is(t.value, conv) and isinstance(t.slice, ast.Slice) \
                    and t.slice.lower is None and t.slice.upper is None:
                return node  # `messages[:] = kept`
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "clear" \
                and _is(node.func.value, conv):
            return node  # `messages.clear()`, then what is kept put back
        if returned and isinstance(node, ast.Return) and node.value is not None and not _is(node.value, conv):
            return node
    return None


def _newest_first(fn, conv: str, bounds: set[str]) -> bool:
    """True when `fn` walks the list `conv` newest first and compares something with one of the
    parameters `bounds` (a count of what it kept), or slices `conv` from its end by one of them."""
    walked = compared = False
    for node in subtree(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "reversed" \
                and node.args and _is(node.args[0], conv):
            walked = True
        elif isinstance(node, ast.Subscript) and _is(node.value, conv) and isinstance(node.slice, ast.Slice):
            s = node.slice
            if s.step is not None and isinstance(s.step, ast.UnaryOp) and s.lower is None and s.upper is None:
                walked = True  # `messages[::-1]`
            if isinstance(s.lower, ast.UnaryOp) and isinstance(s.lower.op, ast.USub) and _names(s.lower) & bounds:
                return True  # `messages[-limit:]`
        elif isinstance(node, ast.Compare) and all(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in node.ops) \
                and _names(node) & bounds:
            compared = True  # a count against the limit (`len(kept) < limit`), not a membership test
    return walked and compared


def _names(node) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _is(node, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name
