"""Messages picked by their role: `for m in messages: if m.role == "system": ...` reads only the
system messages of the list. The loop variable is narrowed in the branch: an element of a known
list is one of its messages with that role (or of unknown role); an element of a list we cannot
read keeps its source, but the volatility that list took from the user's message (`Volatility`
of an opaque call is that of its most volatile input) no longer applies to a role other than
the user's: what a system or assistant message of that list holds is unknown.
"""
from __future__ import annotations

import ast
from ...model import replace

from ...model import Kind, Volatility
from .values import Alt, Mapping, Obj, Text, Value

#: Roles a role enum's member names (`AuthorRole.SYSTEM`, `MessageRole.USER`), by member name.
_ROLE_MEMBERS = {"SYSTEM": "system", "USER": "user", "ASSISTANT": "assistant", "TOOL": "tool",
                 "DEVELOPER": "developer"}


def role_test(test: ast.expr, negated: bool = False) -> tuple[str, str] | None:
    """(name, role) of a branch test `name.role == "system"`, `name["role"] == "system"` or
    `name.get("role") == "system"` (either side; the role also as a role enum's member,
    `AuthorRole.SYSTEM`), else None; with `negated`, of the test `name.role != "system"`."""
    op = ast.NotEq if negated else ast.Eq
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], op)):
        return None
    left, right = test.left, test.comparators[0]
    if _role_const(left) is not None:
        left, right = right, left
    role = _role_const(right)
    if role is None:
        return None
    name = _role_owner(left)
    return (name, role) if name is not None else None


def guard_role(stmt: ast.If) -> tuple[str, str] | None:
    """(name, role) of a loop's guard `if m.role != "system": continue` (nothing else in it): the
    rest of the loop body reads only the messages of that role; else None."""
    if stmt.orelse or len(stmt.body) != 1 or not isinstance(stmt.body[0], ast.Continue):
        return None
    return role_test(stmt.test, negated=True)


def ensures_system_first(stmt: ast.If) -> bool:
    """True for `if not messages or messages[0]["role"] != "system": messages.insert(0, {"role":
    "system", ...})` (no `else`): whichever branch runs, the list starts with a system message,
    the one inserted or the one an earlier turn stored there (the same text), so the insertion is
    read as made."""
    if stmt.orelse or len(stmt.body) != 1 or not isinstance(stmt.body[0], ast.Expr):
        return False
    call = stmt.body[0].value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "insert"
            and isinstance(call.func.value, ast.Name) and len(call.args) == 2
            and isinstance(call.args[0], ast.Constant) and call.args[0].value == 0
            and isinstance(call.args[1], ast.Dict)):
        return False
    name = call.func.value.id
    roles = [_role_const(v) for k, v in zip(call.args[1].keys, call.args[1].values)
             if isinstance(k, ast.Constant) and k.value == "role"]
    if roles != ["system"]:
        return False
    tests = stmt.test.values if isinstance(stmt.test, ast.BoolOp) and isinstance(stmt.test.op, ast.Or) else [stmt.test]
    return any(_first_not_system(t, name) for t in tests) and all(
        _first_not_system(t, name) or (isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not)
                                       and isinstance(t.operand, ast.Name) and t.operand.id == name) for t in tests)


def _first_not_system(test, name: str) -> bool:
    """`messages[0]["role"] != "system"` (also `.get("role")`, `.role`)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.NotEq)
            and _role_const(test.comparators[0]) == "system"):
        return False
    left = test.left
    owner = left.value if isinstance(left, ast.Attribute) else left.value if isinstance(left, ast.Subscript) \
        else left.func.value if isinstance(left, ast.Call) and isinstance(left.func, ast.Attribute) else None
    if not (isinstance(owner, ast.Subscript) and isinstance(owner.value, ast.Name) and owner.value.id == name
            and isinstance(owner.slice, ast.Constant) and owner.slice.value == 0):
        return False
    probe = ast.copy_location(ast.Name(id="m", ctx=ast.Load()), owner)
    rebuilt = ast.Attribute(value=probe, attr=left.attr, ctx=ast.Load()) if isinstance(left, ast.Attribute) else \
        ast.Subscript(value=probe, slice=left.slice, ctx=ast.Load()) if isinstance(left, ast.Subscript) else \
        ast.Call(func=ast.Attribute(value=probe, attr=left.func.attr, ctx=ast.Load()), args=left.args, keywords=[])
    return _role_owner(rebuilt) == "m"


def _role_const(node) -> str | None:
    """The role a constant names: a string, or a role enum's member (`AuthorRole.SYSTEM`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Attribute) and node.attr in _ROLE_MEMBERS:
        return _ROLE_MEMBERS[node.attr]
    return None


def role_member(node: ast.expr) -> str | None:
    """The role a role enum's member names where the enum is a class named for roles
    (`MessageRole.SYSTEM`, `AuthorRole.ASSISTANT`, `llms.MessageRole.USER`), else None."""
    if not (isinstance(node, ast.Attribute) and node.attr in _ROLE_MEMBERS):
        return None
    owner = node.value
    name = owner.attr if isinstance(owner, ast.Attribute) else owner.id if isinstance(owner, ast.Name) else ""
    return _ROLE_MEMBERS[node.attr] if name.endswith("Role") else None


def _role_owner(node: ast.expr) -> str | None:
    if isinstance(node, ast.Attribute) and node.attr == "role" and isinstance(node.value, ast.Name):
        return node.value.id
    if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Constant)
            and node.slice.value == "role"):
        return node.value.id
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
            and isinstance(node.func.value, ast.Name) and node.args and isinstance(node.args[0], ast.Constant)
            and node.args[0].value == "role"):
        return node.func.value.id
    return None


def narrow(value: Value, role: str, static_text) -> Value:
    """The messages of `value` (an element of a list) whose role is `role`: options of another
    known role are dropped; a message of a list we cannot read keeps its source but not a
    per-request volatility the list took from the user's message, unless `role` is "user".
    `static_text(value)` is the text of a static value or None."""
    if isinstance(value, Alt):
        kept = [o for o in value.options if _role(o, static_text) in (None, role)]
        return Alt(kept, value.span) if len(kept) > 1 else kept[0] if kept else value
    if isinstance(value, Text) and role != "user":
        return Text([replace(s, volatility=Volatility.UNKNOWN, kind=Kind.UNKNOWN, name_only=False,
                             evidence=f"a {role} message of a list not read statically")
                     if not s.is_static and s.volatility is Volatility.PER_REQUEST and s.kind is Kind.USER_INPUT
                     else s for s in value.segs])
    return value


def _role(item: Value, static_text) -> str | None:
    if isinstance(item, Mapping) and "role" in item.items:
        return static_text(item.items["role"])
    if isinstance(item, Obj) and "role" in item.kwargs:
        return static_text(item.kwargs["role"])
    return None
