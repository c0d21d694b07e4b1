"""Message placeholders of a chat template: the variable a LangChain template replays its messages
from, and whether anything in its module fills it. Facts only (`Segment.slot`, `Segment.slot_empty`);
the rules judge what they prove (impact.py, `Impact.slot_only`).

`ChatPromptTemplate.from_messages([..., MessagesPlaceholder(variable_name="chat_history",
optional=True)])` and `("placeholder", "{chat_history}")` (which LangChain makes an optional
`MessagesPlaceholder`) stand for messages handed in when the template is invoked: the replayed
conversation when the code passes one, nothing when it passes none (an optional placeholder is
left empty), the messages of one request when the code builds them for it (`{"function_response":
get_function_response(question, context)}`). The variable is `slot`; `slot_empty` is set for an
optional placeholder whose variable no other code of the module names (no `"chat_history"` key or
string, no `chat_history=` keyword): nothing there fills it.
"""
from __future__ import annotations

import ast

from ..turn_names import placeholder_name

_CLASS = "MessagesPlaceholder"


def object_slot(node, module) -> tuple[str, bool]:
    """(variable, empty) of a `MessagesPlaceholder(...)` call `node`: its `variable_name` (first
    argument or keyword; "" when not a string written there) and True when it is `optional=True`
    and no other code of `module` names the variable (`names_variable`)."""
    if not isinstance(node, ast.Call):
        return "", False
    arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "variable_name"), None)
    name = arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else ""
    optional = any(k.arg == "optional" and isinstance(k.value, ast.Constant) and k.value.value is True
                   for k in node.keywords)
    return name, bool(name) and optional and not names_variable(module, name, node)


def tuple_slot(expr: str, module) -> tuple[str, bool]:
    """(variable, empty) of a `("placeholder", "{chat_history}")` message whose text is `expr`:
    LangChain makes it an optional placeholder, empty when no code of `module` names the variable."""
    name = placeholder_name(expr or "")
    return name, bool(name) and not names_variable(module, name, None)


def names_variable(module, name: str, own) -> bool:
    """True when code of `module` outside the node `own` names `name`: a string equal to it (a key
    of the dict a chain is invoked with, `inputs["chat_history"]`, `.get("chat_history")`) or a
    keyword argument (`chain.invoke(..., chat_history=msgs)`, `prompt.partial(chat_history=[])`)."""
    key = ("names_variable", name)
    found = module._pieces.get(key)
    if found is None:
        uses = [n for n in ast.walk(module.tree)
                if (isinstance(n, ast.Constant) and n.value == name) or (isinstance(n, ast.keyword) and n.arg == name)]
        found = module._pieces[key] = (None, uses)
    inside = {id(n) for n in ast.walk(own)} if own is not None else set()
    return any(id(n) not in inside for n in found[1])


def is_placeholder_object(item) -> bool:
    """True for the value of a `MessagesPlaceholder(...)` call (flow/values.Obj)."""
    return getattr(item, "qualname", "").endswith(_CLASS)
