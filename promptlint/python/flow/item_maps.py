"""The shapes of a comprehension over a list of messages, read from the ast alone (for the
evaluator's containers and cut conversations): one that keeps the items as they are or copies
each, flattens groups, makes each message of its item alone, converts each item one for one, or
writes each item as text (the conversation rendered message by message)."""
from __future__ import annotations

import ast

from ..walk import subtree


def selects_items(node, comp) -> bool:
    """True for a list comprehension that keeps items as they are (`[m for m in xs if ...]`), or a
    shallow copy of each (`[dict(m) for m in xs]`, `m.copy()`, `copy.copy(m)`, `{**m}`): the same messages."""
    return (isinstance(node, ast.ListComp) and len(node.generators) == 1 and isinstance(comp.target, ast.Name)
            and copy_of(node.elt, comp.target.id))


def copy_of(elt, item: str) -> bool:
    """True for the item itself or a shallow copy of it."""
    if isinstance(elt, ast.Name):
        return elt.id == item
    if isinstance(elt, ast.Dict):  # `{**m}`
        return len(elt.keys) == 1 and elt.keys[0] is None and copy_of(elt.values[0], item) \
            and isinstance(elt.values[0], ast.Name)
    if not isinstance(elt, ast.Call) or elt.keywords:
        return False
    f = elt.func
    if isinstance(f, ast.Attribute) and f.attr == "copy" and not elt.args:  # `m.copy()`
        return isinstance(f.value, ast.Name) and f.value.id == item
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    return name in ("dict", "copy") and len(elt.args) == 1 and isinstance(elt.args[0], ast.Name) \
        and elt.args[0].id == item


def message_of_item(node, comp) -> bool:
    """True for a list comprehension of one plain `for` (no filter) whose element is a message
    made of the item alone: a dict display with a `role` key whose values read only the item
    (`m["content"]`, `m.get("role", "user")`, `m.content`, constants)."""
    elt = getattr(node, "elt", None)
    if not (isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1 and not comp.ifs
            and isinstance(comp.target, ast.Name) and isinstance(elt, ast.Dict)):
        return False
    keys = [k.value for k in elt.keys if isinstance(k, ast.Constant)]
    if "role" not in keys or None in elt.keys:
        return False
    item = comp.target.id
    for sub in subtree(elt):
        if isinstance(sub, ast.Name) and sub.id != item:
            return False
        if isinstance(sub, ast.Call) and not (isinstance(sub.func, ast.Attribute) and sub.func.attr == "get"
                                              and isinstance(sub.func.value, ast.Name) and sub.func.value.id == item):
            return False
    return True


def converts_item(elt, item: str) -> bool:
    """True for a call that makes one value of the item alone (`convert(r)`, `self.conv.from_row(r)`,
    `Message(**r)`, keywords of constants only): a message of a list converted one for one keeps
    its place, so a cut list converted so is the same cut."""
    if not isinstance(elt, ast.Call) or len(elt.args) + sum(k.arg is None for k in elt.keywords) != 1:
        return False
    arg = elt.args[0] if elt.args else next(k.value for k in elt.keywords if k.arg is None)
    return (isinstance(arg, ast.Name) and arg.id == item
            and all(k.arg is None or isinstance(k.value, ast.Constant) for k in elt.keywords)
            and not any(isinstance(n, ast.Name) and n.id == item for n in subtree(elt.func)))


def flattens(node) -> bool:
    """True for a list comprehension that flattens a list of groups, item by item as they are
    (`[m for run in runs for m in run]`, no filter)."""
    if not isinstance(node, (ast.ListComp, ast.GeneratorExp)) or len(node.generators) != 2:
        return False
    outer, inner = node.generators
    return (isinstance(outer.target, ast.Name) and isinstance(inner.iter, ast.Name) and inner.iter.id == outer.target.id
            and isinstance(inner.target, ast.Name) and isinstance(node.elt, ast.Name)
            and node.elt.id == inner.target.id and not outer.ifs and not inner.ifs)

_RENDERERS = {"str", "repr", "format"}  # builtins that write a value as text


def renders_each(node, comp) -> bool:
    """True for a comprehension of one plain `for` (no filter) whose element is text made from the
    item alone: `str(m)`, `f"{m.role}: {m.content}"`, `m.content`, `m["content"]`, or their
    concatenation. Over the conversation it is the conversation written one message per element
    (joined, the history as text), not data taken from it. Other names than the item (a lookup, a
    counter, a function of the tree that could fetch data), calls other than `str` / `repr` /
    `format`, and an element that is no text (a message rebuilt as a dict, `m.to_dict()`) make it
    something else."""
    elt = getattr(node, "elt", None)
    if elt is None or comp.ifs or not isinstance(comp.target, ast.Name) or not _text_of_item(elt):
        return False
    item = comp.target.id
    for sub in subtree(elt):
        if isinstance(sub, ast.Name) and sub.id != item and not (sub.id in _RENDERERS and _called(elt, sub)):
            return False
        if isinstance(sub, ast.Call) and not (isinstance(sub.func, ast.Name) and sub.func.id in _RENDERERS):
            return False
        if isinstance(sub, (ast.Lambda, ast.NamedExpr, ast.Await)) or isinstance(sub, ast.Subscript) and not _keyed(sub):
            return False
    return True


def _text_of_item(elt) -> bool:
    """True for an element written as text: an f-string, `str(...)` / `repr(...)` / `format(...)`,
    a field (`m.content`, `m["content"]`), or text joined with `+`."""
    if isinstance(elt, ast.BinOp) and isinstance(elt.op, ast.Add):
        return _text_of_item(elt.left) and _text_of_item(elt.right)
    if isinstance(elt, ast.Call):
        return isinstance(elt.func, ast.Name) and elt.func.id in _RENDERERS
    return isinstance(elt, (ast.JoinedStr, ast.Attribute, ast.Constant)) or _keyed(elt)


def _called(elt, name: ast.Name) -> bool:
    """True when `name` is the function of a call in `elt` (`str(m)`), not a value."""
    return any(isinstance(c, ast.Call) and c.func is name for c in subtree(elt))


def _keyed(node) -> bool:
    """True for a subscript of the item by a string key (`m["content"]`): a field of the message."""
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)


def one_for_one(node, comp) -> bool:
    """True for a list comprehension of one plain `for` (no filter) whose element converts the item
    alone (`[convert(r) for r in rows]`: `converts_item`), or by a method of its own that exports it
    (`[m.model_dump(exclude_none=True) for m in recent]`: `exports_itself`)."""
    return (isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1 and not comp.ifs
            and isinstance(comp.target, ast.Name)
            and (converts_item(node.elt, comp.target.id) or exports_itself(node.elt, comp.target.id)))


def copies_fields(elt, item: str) -> bool:
    """True for a dict display that copies fields of the item alone (`{"role": m["role"],
    "content": m.get("content")}`, `{"role": m.role, "content": m.content}`; constant keys, values
    the item's fields or constants, at least one field): the message again, a field set kept."""
    if not isinstance(elt, ast.Dict) or not elt.keys or any(not isinstance(k, ast.Constant) for k in elt.keys):
        return False
    fields = 0
    for value in elt.values:
        if isinstance(value, ast.Constant):
            continue
        if not _field_of(value, item):
            return False
        fields += 1
    return fields > 0


def _field_of(node, item: str) -> bool:
    """`item["k"]`, `item.get("k"[, constant])` or `item.k`."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Name) and node.value.id == item and isinstance(node.slice, ast.Constant)
    if isinstance(node, ast.Attribute):
        return isinstance(node.value, ast.Name) and node.value.id == item
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == item and not node.keywords
            and 1 <= len(node.args) <= 2 and all(isinstance(a, ast.Constant) for a in node.args))


#: Method names (or their starts) by which an object exports itself as a value of its own: pydantic's
#: `model_dump`, `dict`, a library's `to_dict` / `to_openai_format` / `as_message` / `serialize`.
_EXPORTS = ("to_", "as_", "model_dump", "serialize", "dump", "export")
_EXPORT_NAMES = frozenset({"dict", "model_dump", "to_dict", "json_dict"})


def exports_itself(elt, item: str) -> bool:
    """True for a call of a method of the item that exports it whole (`m.model_dump(include=self.fields,
    exclude_none=True)`, `m.to_dict()`, `msg.to_openai_format()`), given only constants, names and
    attributes that do not read the item: one value per message, in its place (not a field of it:
    `m.get("content")`, `m.content.strip()` are text)."""
    if not (isinstance(elt, ast.Call) and isinstance(elt.func, ast.Attribute) and isinstance(elt.func.value, ast.Name)
            and elt.func.value.id == item):
        return False
    name = elt.func.attr
    if not (name in _EXPORT_NAMES or name.startswith(_EXPORTS)):
        return False
    for arg in (*elt.args, *(k.value for k in elt.keywords)):
        for sub in subtree(arg):
            if isinstance(sub, (ast.Call, ast.Lambda, ast.NamedExpr, ast.Await)) \
                    or isinstance(sub, ast.Name) and sub.id == item:
                return False
    return True
