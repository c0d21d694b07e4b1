"""What tells that the passes of a loop differ, or that they send one conversation, beyond the
names a loop assigns (read by tool_variants.py for PRM204): objects the loop changes in place, a
request rebuilt on each pass from a conversation the loop keeps, a step loop, and a tools list a
loop hands to a helper as a positional argument. Facts only; the rule judges them."""
from __future__ import annotations

import ast

from .prompt_names import name_parts, tools_named
from .walk import own_nodes, subtree

#: Methods that change the object they are called on (`seen.append(x)`, `store.add_response(x)`).
_CHANGES = frozenset({"append", "extend", "insert", "add", "update", "pop", "remove", "discard", "clear",
                      "setdefault", "popitem"})
_CHANGE_PREFIXES = ("add_", "append_", "update_", "record_", "register_", "push_", "set_", "put_", "store_")
#: Words of a name that say a conversation (`self._messages`, `chat_history`, `memory`).
_CONVERSATION = frozenset({"messages", "history", "conversation", "memory", "transcript"})
#: Calls whose positional argument is never a request's tools (`len(tools)`, `print(tools)`).
_NOT_HANDED = frozenset({"len", "print", "list", "tuple", "set", "dict", "sorted", "reversed", "enumerate",
                         "isinstance", "str", "repr", "bool", "id", "type", "zip", "map", "filter", "any", "all",
                         "dumps", "dump", "append", "extend", "insert", "add", "update", "remove", "discard",
                         "pop", "index", "count", "join", "format", "debug", "info", "warning", "warn", "error",
                         "exception", "critical", "log", "deepcopy", "copy"})


def changed_objects(loop) -> dict[str, ast.Call]:
    """name -> the first call in the body of `loop` (not in a nested loop or function) that changes
    the object bound to that name in place: a method named for a change (`append`, `add_response`,
    `update_state`) called on a plain name. The passes after that call read another state of it."""
    out: dict[str, ast.Call] = {}
    inside = own_nodes(loop, body_only=True)
    for n in sorted((n for n in inside if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset)):
        f = n.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) \
                and (f.attr in _CHANGES or f.attr.startswith(_CHANGE_PREFIXES)):
            out.setdefault(f.value.id, n)
    return out


def conversation_named(node) -> bool:
    """True for a name or attribute whose last name says a conversation (`self._messages`, `history`)."""
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return bool(set(name_parts(name)) & _CONVERSATION) if name else False


def kept_inside(value, loop, kept) -> ast.expr | None:
    """The conversation that a request rebuilt on each pass of `loop` is made of: the first name or
    attribute inside `value` (`self._build_context(messages=self._messages + local)`) that says a
    conversation and that `kept(node, loop)` finds the same on each pass; None when there is none."""
    for node in subtree(value):
        if isinstance(node, (ast.Name, ast.Attribute)) and conversation_named(node) and kept(node, loop):
            return node
    return None


def step_loop(loop) -> bool:
    """True for a loop that counts steps of one process (`while ...`, `for i in range(...)`), not one
    that walks items (`for doc in docs`: a new request per item)."""
    if isinstance(loop, ast.While):
        return True
    it = getattr(loop, "iter", None)
    return isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"


def handed_tools(call: ast.Call, bindings: dict | None = None) -> ast.Name | None:
    """The tools list a method call is handed as a positional argument (`agent.astep(task, plan,
    tool)`): a plain name that says tools (`tools`, `tool`), assigned in the function (`bindings`:
    name -> values; None: any name that says tools, a cheap first test), one of its values a list
    or a comprehension when the name says one tool. None for calls that read a list without
    sending it (`len`, `print`, `json.dumps`, a list's own methods)."""
    f = call.func
    if not isinstance(f, ast.Attribute) or f.attr in _NOT_HANDED:
        return None
    for arg in call.args:
        if isinstance(arg, ast.Name) and tools_named(arg.id):
            if bindings is None:
                return arg
            plural = name_parts(arg.id)[-1:] != ("tool",)
            values = bindings.get(arg.id, [])
            if values and (plural or any(isinstance(v, (ast.List, ast.ListComp)) for v in values)):
                return arg
    return None
