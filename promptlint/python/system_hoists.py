"""System messages of anywhere in a conversation moved before it: facts for PRM105.

An adapter that converts a conversation for the Responses API walks every message and takes the
text of each system message out of the list into `instructions`:

    for message in messages:
        if message["role"] == "system":
            instructions_parts.append(text)
            continue
        items.append(...)

The field comes before every input item. A system message added later in the conversation (a
notice, a per-turn context message) is then moved in front of the whole history: the head of
the request changes on the turn it is added, and every turn's history is read uncached from then
on. Folding only the leading system messages (the walk stops at the first other message) keeps
the conversation's order and is not this shape.

Found when one loop over messages tests the item's role for "system" and, in that branch, adds
the text to a name of the Responses API's instructions (a name with `instruction` in it and not
`system`: appended, joined, assigned) and skips the item (`continue`, or the other messages go to
another list in the `else`), and no branch of the loop stops it (`break`). The Responses API
takes system and developer messages among its input items, so the move is the adapter's choice;
Anthropic's `system` and Gemini's `system_instruction` have no place in the messages, and an
adapter for them must move system messages out: those are left out.

The same move within the message list (`find_front_moves`): a converter that puts every system
message it meets at the head of the list it builds, wherever it was in the conversation

    for msg in messages:
        if isinstance(msg, SystemMessage):
            out.insert(0, {"role": "system", "content": msg.content})   # "front"
        else:
            out.append(...)

(the same list takes the other messages in their order, no `break`), or that splits the
conversation by role and joins the system part first (`system = [m for m in msgs if m["role"] ==
"system"]`, `rest = [m for m in msgs if m["role"] != "system"]`, `return system + rest`:
"partition"). A conversation whose only system message is its first keeps its order; whether the
callers add later ones is theirs (the rule says so). A system message put at index 0 outside such
a loop (one prompt of the function's own), a walk that keeps each message in its place, and a
system part kept apart for a field of its own are not ones.

The same move into the request's own system field: `field_hoists.py`.
"""
from __future__ import annotations

import ast
import re
from .module import statements
from .text_gates import holds_any
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def is_system_test(test, item: str) -> bool:
    """`m.role == "system"`, `m["role"] == "system"`, `role == "system"` (role read from the item),
    `isinstance(m, SystemMessage)`."""
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" \
            and len(test.args) == 2 and isinstance(test.args[0], ast.Name) and test.args[0].id == item:
        kinds = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        return bool(kinds) and all("System" in (k.id if isinstance(k, ast.Name) else k.attr if isinstance(
            k, ast.Attribute) else "") for k in kinds)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.In))):
        return False
    sides = [test.left, *test.comparators]
    names_system = any(isinstance(s, ast.Constant) and s.value == "system" for s in sides) or any(
        isinstance(s, (ast.Tuple, ast.List, ast.Set)) and any(
            isinstance(e, ast.Constant) and e.value == "system" for e in s.elts) for s in sides)
    return names_system and any(_role_of(s, item) for s in sides)


def _role_of(node, item: str) -> bool:
    if isinstance(node, ast.Attribute) and node.attr in ("role", "type"):
        return isinstance(node.value, ast.Name) and node.value.id == item
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == "role":
        return isinstance(node.value, ast.Name) and node.value.id == item
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args \
            and isinstance(node.args[0], ast.Constant) and node.args[0].value == "role":
        return isinstance(node.func.value, ast.Name) and node.func.value.id == item
    return isinstance(node, ast.Name) and node.id == "role"


def _field_written(body) -> ast.AST | None:
    """The call or assignment of a branch that adds text to the system field, or None."""
    for stmt in body:
        for n in subtree(stmt):
            target = None
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend"):
                target = n.func.value
            elif isinstance(n, (ast.Assign, ast.AugAssign)):
                target = n.targets[0] if isinstance(n, ast.Assign) else n.target
            name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) \
                else ""
            if name and "instruction" in name.lower() and "system" not in name.lower():
                return n
    return None


def _skips(branch, other) -> bool:
    """True when the system branch skips the item (`continue`) or the other messages are kept in
    the `else` branch."""
    return any(isinstance(s, ast.Continue) for s in branch) or bool(other)


def find_system_hoists(module) -> list[tuple[ast.AST, str]]:
    """(the call or assignment that adds a system message's text to the field, the function's name) for
    each loop of the shape in the module docstring, in source order."""
    out = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        if not holds_any(module, func, ("for",)):
            continue  # (a loop: the cheap test before the function's walk)
        for loop in subtree(func):
            if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(loop.target, ast.Name):
                continue
            if any(isinstance(n, ast.Break) for n in subtree(loop)):
                continue  # only the leading system messages, or a search
            item = loop.target.id
            for stmt in loop.body:
                if isinstance(stmt, ast.If) and is_system_test(stmt.test, item) and _skips(stmt.body, stmt.orelse):
                    written = _field_written(stmt.body)
                    if written is not None:
                        out.append((written, func.name))
                        break
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))


#: A comprehension filtered by a test that names a system message (`for m in msgs if m["role"] == "system"`).
_SYSTEM_FILTER = re.compile(r"for \w+ in [\w.]+ if [^\n]*ystem")


def might_move(source: str) -> bool:
    """The text test before `find_front_moves`: a system word and a put at the head, or a
    comprehension filtered by a test naming a system message."""
    return "ystem" in source and ("insert(0" in source or _SYSTEM_FILTER.search(source) is not None)


def negated_system_test(test, item: str) -> bool:
    """`m["role"] != "system"`, `m.role not in ("system",)`, `not isinstance(m, SystemMessage)`."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return is_system_test(test.operand, item)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.NotEq, ast.NotIn)):
        flipped = ast.Compare(left=test.left, ops=[ast.Eq() if isinstance(test.ops[0], ast.NotEq) else ast.In()],
                              comparators=test.comparators)
        return is_system_test(flipped, item)
    return False


def find_front_moves(module) -> list[tuple[ast.AST, str, str]]:
    """(the move, the function's name, "front" | "partition") for each converter of the second shape
    of the module docstring, in source order: the `insert(0, ...)` call, or the join."""
    out = []
    src = module.source
    put_lines = _lines(src, (m.start() for m in re.finditer(r"\.insert\(0", src)))
    filter_lines = _lines(src, (m.start() for m in _SYSTEM_FILTER.finditer(src)))
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        span = range(func.lineno, (func.end_lineno or func.lineno) + 1)
        puts = any(line in span for line in put_lines) and holds_any(module, func, ("ystem",))
        if not puts and not any(line in span for line in filter_lines):
            continue  # (the cheap text tests before the function's walk)
        nodes = list(subtree(func))
        for loop in nodes if puts else ():
            if isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(loop.target, ast.Name):
                found = _front_insert(loop)
                if found is not None:
                    out.append((found, func.name, "front"))
        joined = _partition_join(nodes)
        if joined is not None:
            out.append((joined, func.name, "partition"))
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))


def _lines(source: str, starts) -> list[int]:
    """The 1-based lines of these character offsets."""
    return [source.count("\n", 0, start) + 1 for start in starts]


def _front_insert(loop) -> ast.Call | None:
    """The `out.insert(0, ...)` of a branch testing the loop's item for a system message, where the
    loop adds the other messages to `out` too and never stops."""
    item = loop.target.id
    inner = [n for n in subtree(loop) if n is not loop]
    if returns(loop.body) or breaks(loop.body):
        return None  # stops: the leading messages only, or a search
    added = {n.func.value.id for n in inner if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr in ("append", "extend") and isinstance(n.func.value, ast.Name)}
    for branch in inner:
        if not (isinstance(branch, ast.If) and is_system_test(branch.test, item)):
            continue
        for n in (x for stmt in branch.body for x in subtree(stmt)):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "insert" \
                    and isinstance(n.func.value, ast.Name) and n.func.value.id in added and len(n.args) == 2 \
                    and isinstance(n.args[0], ast.Constant) and n.args[0].value == 0:
                return n
    return None


def breaks(body) -> bool:
    """True when a `break` of these statements ends their own loop (not one of a loop inside)."""
    for stmt in body:
        if isinstance(stmt, ast.Break):
            return True
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, *_FUNCS, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            if breaks([x for x in getattr(stmt, field, ()) if isinstance(x, ast.AST)]):
                return True
        if isinstance(stmt, ast.ExceptHandler) and breaks(stmt.body):
            return True
    return False


def returns(body) -> bool:
    """True when a `return` of these statements ends their own function (not one of a function or
    a lambda defined inside them: a helper the loop defines returns from itself)."""
    for stmt in body:
        if isinstance(stmt, ast.Return):
            return True
        if isinstance(stmt, (*_FUNCS, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            if returns([x for x in getattr(stmt, field, ()) if isinstance(x, ast.AST)]):
                return True
        if isinstance(stmt, ast.ExceptHandler) and returns(stmt.body):
            return True
    return False


def _partition_join(nodes) -> ast.AST | None:
    """The join of a conversation's system part before the rest: `system + rest` (or `[*system,
    *rest]`), both parts filtered from one list by a test of the item's role, the system part
    first."""
    parts: dict[str, tuple[str, bool]] = {}  # name -> (the list filtered, whether it is the system part)
    for n in nodes:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            part = _filtered(n.value)
            if part is not None:
                parts[n.targets[0].id] = part
    for n in nodes:
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add):
            pair = [n.left, n.right]
        elif isinstance(n, ast.List) and len(n.elts) == 2 and all(isinstance(e, ast.Starred) for e in n.elts):
            pair = [e.value for e in n.elts]
        else:
            continue
        first, second = (parts.get(p.id) if isinstance(p, ast.Name) else _filtered(p) for p in pair)
        if first and second and first[0] == second[0] and first[1] and not second[1]:
            return n
    return None


def _filtered(value) -> tuple[str, bool] | None:
    """(the list a comprehension filters, True for its system messages / False for the others) for
    `[m for m in msgs if <a test of m's role>]`, or None."""
    if not (isinstance(value, ast.ListComp) and len(value.generators) == 1 and len(value.generators[0].ifs) == 1):
        return None
    gen = value.generators[0]
    if not (isinstance(gen.target, ast.Name) and isinstance(gen.iter, (ast.Name, ast.Attribute))):
        return None
    listed = ast.unparse(gen.iter)
    if is_system_test(gen.ifs[0], gen.target.id):
        return listed, True
    if negated_system_test(gen.ifs[0], gen.target.id):
        return listed, False
    return None
