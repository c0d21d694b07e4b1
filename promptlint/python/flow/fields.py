"""A field of an object the code built, extended in place: `message.content += note` after
`message = SystemMessage(content=RULES)` (the scopes reader binds the name again, `aug` with the
field's name as `value`; containers.augment reads it here); and the system message a conversation
starts with, taken off its head to be extended (`popped_head`)."""
from __future__ import annotations

import ast
from typing import Callable

from ...model import Kind, Volatility, replace
from ..walk import subtree
from .values import Alt, Obj, Seq, Spread, Text, Value, dynamic


#: The system message class of the chat libraries (layout.MESSAGE_CLASSES; a message prompt
#: template is no message of a conversation).
_SYSTEM_CLASS = "SystemMessage"


def field_added(prev: Value | None, field: str, add: Value, text_of: Callable, whole: bool = False) -> Value | None:
    """`prev` with its `field` text followed by `add`'s (with `whole`, `obj.field = value`: the
    field set to `add`): an `Obj` whose field is given by keyword or, for `content`, as the first
    positional argument (each variant of an `Alt`); another value (a parameter, an object whose
    field is not written at its constructor) is kept as it is, its fields not read.
    `text_of(value)` -> list of Segments."""
    if isinstance(prev, Alt):
        return replace(prev, options=[field_added(o, field, add, text_of, whole) for o in prev.options])
    if not isinstance(prev, Obj) or prev.qualname.startswith("instance:"):
        return prev
    if whole and (field in prev.kwargs or field == "content" and prev.args):
        add = _joined(add, text_of)
        if field in prev.kwargs:
            return replace(prev, kwargs={**prev.kwargs, field: add})
        return replace(prev, args=[add, *prev.args[1:]])
    if field in prev.kwargs:
        text = Text(text_of(prev.kwargs[field]) + text_of(add))
        return replace(prev, kwargs={**prev.kwargs, field: text})
    if field == "content" and prev.args:
        return replace(prev, args=[Text(text_of(prev.args[0]) + text_of(add)), *prev.args[1:]])
    return prev


def _joined(value: Value, text_of: Callable) -> Value:
    """A content list of texts only (`list(message.content) + ["\n\n" + note]`, strings and the
    text spread from the old content) as the one text its parts are sent as; another value as it is."""
    if isinstance(value, Seq) and not value.repeated and value.items and all(
            isinstance(i, Text) or isinstance(i, Spread) and isinstance(i.value, Text) for i in value.items):
        return Text([s for i in value.items for s in text_of(i.value if isinstance(i, Spread) else i)])
    return value


def popped_head(func: ast.AST | None, stmt: ast.Assign) -> tuple[str, str] | None:
    """(message class, list text) of `head = xs.pop(0)` / `head = xs[0]` in the body of an `if
    isinstance(xs[0], SystemMessage):` of `func` (a message class of the chat libraries, the
    same `xs`): the message the conversation starts with, known to be of that class there; else
    None."""
    value = stmt.value
    if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name) or func is None:
        return None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "pop" \
            and len(value.args) == 1 and _is_zero(value.args[0]):
        owner = value.func.value
    elif isinstance(value, ast.Subscript) and _is_zero(value.slice):
        owner = value.value
    else:
        return None
    if not isinstance(owner, (ast.Name, ast.Attribute)):
        return None
    text = ast.unparse(owner)
    for node in subtree(func):
        if not (isinstance(node, ast.If) and any(s is stmt for b in node.body for s in subtree(b))):
            continue
        for t in subtree(node.test):
            if isinstance(t, ast.Call) and isinstance(t.func, ast.Name) and t.func.id == "isinstance" \
                    and len(t.args) == 2 and isinstance(t.args[0], ast.Subscript) and _is_zero(t.args[0].slice) \
                    and ast.unparse(t.args[0].value) == text:
                cls = t.args[1]
                name = cls.attr if isinstance(cls, ast.Attribute) else getattr(cls, "id", "")
                if name == _SYSTEM_CLASS:
                    return name, text
    return None


def _is_zero(node) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0 and not isinstance(node.value, bool)


def head_message(cls: str, text: str, span) -> Obj:
    """The message object a conversation starts with (`popped_head`): its content the text the
    caller wrote, not known here but re-sent as it is on every request of the conversation."""
    return Obj(cls, kwargs={"content": dynamic(span, f"{text}[0].content", Kind.UNKNOWN, Volatility.STABLE,
                                               evidence=f"the system message `{text}` starts with, re-sent as it is")},
               span=span)


def field_written(th, field: str, depth: int = 0) -> bool:
    """True when the binding `th` (a scopes Thunk) may be an object whose `field` is written where
    it is made: a call given that keyword (`SystemMessage(content=...)`; for `content`, also a
    positional argument), a conversation's head (`popped_head`), that field extended or set before,
    or such a binding in one branch. Other objects (`block = CodeBlock()`, then `block.code = ...`
    in every branch of a loop) are not bound again: their fields are not read."""
    if th is None or depth > 6:
        return False
    if th.kind == "aug":
        return th.value == field or field_written(th.prev, field, depth + 1)
    if th.kind == "alt":
        return any(field_written(o, field, depth + 1) for o in th.options)
    if th.kind == "value":
        return isinstance(th.value, Obj) and field in th.value.kwargs
    node = th.node if th.kind == "expr" else None
    return isinstance(node, ast.Call) and (any(k.arg == field for k in node.keywords)
                                           or field == "content" and bool(node.args))


def bound_fields(frame, stmt: ast.Assign, env: dict, shared: Callable) -> list[tuple[str, object]]:
    """The names an assignment binds again here (name, thunk made by `shared(kind, **fields)`):
    `message.content = value` (a field of a name set: `aug` with the field as `value`, read by
    `field_added`; not `self`) and `head = xs.pop(0)` of a conversation whose head is tested to be
    a system message (`popped_head`: that message, a `value`)."""
    out: list[tuple[str, object]] = []
    target = stmt.targets[0]
    if len(stmt.targets) == 1 and isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
            and target.value.id != "self" and field_written(env.get(target.value.id), target.attr):
        name = target.value.id
        out.append((name, shared("aug", node=stmt.value, env=dict(env), prev=env[name], name="Set", value=target.attr)))
    if isinstance(stmt.value, (ast.Call, ast.Subscript)) and (head := popped_head(frame.func, stmt)):
        out.append((target.id, shared("value", value=head_message(*head, frame.module.span(stmt.value)))))
    return out
