"""Text put into the system message by a helper that edits the message list in place: what the
request puts after it is the whole conversation (docs/policies.md, Policy 2).

A helper of the tree that takes a text and a message list and writes the text at the head of
the list (it finds the system message and adds the text to its content, or inserts a new system
message at index 0) is what `messages.insert(0, {"role": "system", ...})` and
`messages[0]["content"] += ...` are when written in place (`message_candidates.placed_first`):
each call of it puts its text argument in the system message, before the conversation it is
handed. The call is judged as that message followed by the conversation: per-turn content given
to it (memories or documents fetched with the newest user message, the status of this turn's
tool call, a clock reading) sits before the whole history.

Shapes (the helper, then a call of it with the conversation):

    def add_or_update_system_message(content, messages, append=False):
        if messages and messages[0].get("role") == "system":
            messages[0] = update_message_content(messages[0], content, append)
        else:
            messages.insert(0, {"role": "system", "content": content})
        return messages

    form_data["messages"] = add_or_update_system_message(memory_context, form_data["messages"])

Not such a helper: one that writes the text at the end of the list (the newest user message),
one whose head message has a role read from data, one that writes a text that is not its
parameter. A call whose list is not the conversation (by its value or its name) is not judged.
"""
from __future__ import annotations

import ast
from ..model import replace

from .. import classify
from ..model import Segment
from .flow.values import Alt, Func, Mapping, Seq, Spread, Text, is_none
from .handoff import conversation_of, first_index, first_message_of
from .walk import child_nodes, nodes_under

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_SYSTEM_ROLES = ("system", "developer")
MAX_PARAMS = 8  # parameters of a helper read for a head write; a longer signature is no such helper


def might_edit(node: ast.Call) -> bool:
    """True when the call passes an argument named as the conversation (`messages`,
    `form_data["messages"]`, `self.history`) and another argument: worth resolving the callee."""
    args = [*node.args, *(k.value for k in node.keywords)]
    return len(args) >= 2 and any(_named_conversation(a) for a in args)


def edited_head(finder, node: ast.Call, frame) -> bool:
    """A call of a helper that writes its text argument at the head (system message) of its list
    argument (`head_writer`), with a conversation as that list: a candidate of the system message
    holding the text, then the conversation (`message_list`). True when a layout was added."""
    from .message_candidates import message_list
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return False
    fn = finder.ev.eval(node.func, frame)
    if not isinstance(fn, Func):
        return False
    key = ("head-writer", id(fn.node))
    if key not in finder._frames:
        finder._frames[key] = head_writer(fn.node)
    found = finder._frames[key]
    if found is None:
        return False
    text_param, list_param, written = found
    names = [p.arg for p in [*fn.node.args.posonlyargs, *fn.node.args.args]]
    if fn.cls is not None and names and not _static(fn.node):
        names = names[1:]
    given = dict(zip(names, node.args))
    given.update({k.arg: k.value for k in node.keywords})
    text_node, list_node = given.get(text_param), given.get(list_param)
    if list_node is None or text_node is None and written is None:
        return False
    history = conversation_of(finder, list_node, frame) or _named_history(finder, list_node)
    if history is None:
        return False
    history = replace(history, origin=finder.m.span(node), origin_note="the conversation placed after it here")
    span = finder.m.span(node)
    text = finder.ev.eval(text_node, frame) if written is None else _written_text(finder, fn, node, written, frame)
    if text is None:
        return False
    message = Mapping({"role": Text([Segment(text="system", span=span)]), "content": text}, span=span)
    return message_list(finder, node, Seq([message, Spread(Text([history]), history.span, history.expr)]), frame)


def head_writer(func) -> tuple[str, str, ast.expr | None] | None:
    """(the text parameter, the list parameter, None) of a function that writes the text at the head
    of the list: inserts at index 0 a message of a system role whose content reads the text
    (`messages.insert(0, {"role": "system", "content": content})`), or, under a test that names
    the system role, writes the first message or its content from it (`messages[0] =
    update(messages[0], content)`, `messages[0]["content"] += content`); None otherwise.
    The text may be a local name assigned from the parameters (`prompt = system_prompt`, or else
    `prompt = npc.get_system_prompt()`): then (that name, the list parameter, the expression
    written), the expression read in the function with each call's arguments (`_written_text`)."""
    params = [p.arg for p in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]]
    if len(params) > MAX_PARAMS:
        return None
    locals_ = _param_locals(func, params)
    for n, system_test in _own_nodes(func):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "insert" \
                and len(n.args) == 2 and first_index(n.args[0]) and isinstance(n.func.value, ast.Name) \
                and n.func.value.id in params and system_message(n.args[1]):
            found = _text_read(n.args[1], params, locals_, n.func.value.id)
            if found is not None:
                return found[0], n.func.value.id, n.args[1] if found[1] else None
        elif system_test and isinstance(n, (ast.Assign, ast.AugAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            for t in targets:
                head = first_message_of(t)
                if isinstance(head, ast.Name) and head.id in params:
                    found = _text_read(n.value, params, locals_, head.id)
                    if found is not None:
                        return found[0], head.id, n.value if found[1] else None
    return None


def _text_read(node, params: list[str], locals_: set[str], own: str) -> tuple[str, bool] | None:
    """(the parameter the expression reads, False), or (a local name it reads that is assigned
    from the parameters, True), or None."""
    text = _param_read(node, params, own)
    if text is not None:
        return text, False
    local = next((n.id for n in nodes_under(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                  and n.id in locals_), None)
    return (local, True) if local is not None else None


def _param_locals(func, params: list[str]) -> set[str]:
    """The local names of `func` (not parameters) that a plain assignment binds to an expression
    reading a parameter (`prompt = system_prompt`, `prompt = npc.get_system_prompt()`)."""
    out = set()
    for n, _ in _own_nodes(func):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and n.targets[0].id not in params and _param_read(n.value, params, "") is not None:
            out.add(n.targets[0].id)
    return out


def _written_text(finder, fn: Func, call: ast.Call, written, frame):
    """The text the helper `fn` writes at the head (`written`: the message or content expression
    it writes, reading a local name), read in its body with the arguments of `call`: the content
    of a message written, or the expression itself; None when it cannot be read."""
    from .flow.frames import Frame
    ev = finder.ev
    kwargs = {k.arg: k.value for k in call.keywords}
    bindings = ev.bind(fn, list(call.args), kwargs, frame, ev.env_at(frame, call), call)
    inner = Frame(module=fn.module, func=fn.node, cls=fn.cls, bindings=bindings, self_value=fn.self_value,
                  depth=frame.depth + 1)
    value = ev.eval(written, inner, ev.env_at(inner, written))
    if isinstance(value, Mapping):
        value = value.items.get("content")
    if isinstance(value, Alt):  # (a text it writes only when there is one: `if not prompt: return messages`)
        kept = [o for o in value.options if not is_none(o)]
        value = None if not kept else kept[0] if len(kept) == 1 else replace(value, options=kept)
    return value


def _own_nodes(func):
    """(node, whether an `if` around it tests for the system role) for the nodes of `func`'s
    body, not of functions or classes nested in it."""
    todo = [(s, False) for s in func.body]
    while todo:
        node, system = todo.pop()
        if isinstance(node, _SCOPES):
            continue
        yield node, system
        if isinstance(node, ast.If) and _names_system(node.test):
            todo.extend((s, True) for s in node.body)
            todo.extend((s, system) for s in node.orelse)
            todo.append((node.test, system))
        else:
            todo.extend((c, system) for c in child_nodes(node))


def _names_system(test) -> bool:
    return any(isinstance(n, ast.Constant) and n.value in _SYSTEM_ROLES for n in nodes_under(test)) or any(
        isinstance(n, ast.Attribute) and n.attr.upper() == "SYSTEM" for n in nodes_under(test))


def system_message(node) -> bool:
    """A message written with a system role: a dict whose "role" is "system" / "developer", a
    call with such a `role=`, or a class named for system messages (`SystemMessage(content=x)`)."""
    if isinstance(node, ast.Dict):
        role = next((v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant) and k.value == "role"),
                    None)
        return role is not None and _system_role(role)
    if isinstance(node, ast.Call):
        role = next((k.value for k in node.keywords if k.arg == "role"), None)
        if role is not None:
            return _system_role(role)
        name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id if isinstance(node.func, ast.Name) else ""
        return "System" in name and "Message" in name
    return False


def _system_role(node) -> bool:
    return isinstance(node, ast.Constant) and node.value in _SYSTEM_ROLES or \
        isinstance(node, ast.Attribute) and node.attr.upper() == "SYSTEM"


def _param_read(node, params: list[str], own: str) -> str | None:
    """The parameter (other than the list `own`) that the expression reads, else None."""
    for n in nodes_under(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in params and n.id != own \
                and n.id not in ("self", "cls"):
            return n.id
    return None


def _static(func) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in func.decorator_list)


def _conversation_word(node) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value  # `form_data.get("messages", [])`
    return ""


def _named_conversation(node) -> bool:
    return _conversation_word(node).lower() in classify.HISTORY_NAMES


def _named_history(finder, node) -> Segment | None:
    """The conversation an item of a request named so holds (`form_data["messages"]`), when its
    value is not known as one."""
    from ..model import Kind, Volatility
    if not _named_conversation(node):
        return None
    return Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr=finder.m.code(node), span=finder.m.span(node),
                   evidence="the conversation handed on with the system prompt")
