"""What fixes or loses the order of data serialised into a prompt (`json.dumps` and friends, read in
`library._serialize`) and of a set's elements: a dict or list built by iterating an unordered source,
values listed in such an order, keys the code writes in order or a model's fields fix, data with no keys
to order; and what in them is made anew on every call (`per_call`, `value_drawn`: a random draw, the
user's input, a time), whose order costs nothing more than the content itself.
"""
from __future__ import annotations

import ast

from ...model import Kind, Segment, Volatility
from ... import classify
from ..module import callee_name
from .hashing import keyless_annotation
from .values import Alt, Mapping, Seq, Text, held_order, most_volatile


def per_call(ev, node, frame, env) -> Segment | None:
    """The segment of a value made anew on every call (a random draw, the user's input, a time) that
    the elements of a set's source hold, or None: such a set's content differs per call, so the
    order it iterates in costs nothing more (the draw is the cause, judged where it is made)."""
    value = ev.eval(node, frame, env)
    found = most_volatile(ev.text_of(value.items[0] if isinstance(value, Seq) and value.repeated and value.items
                                     else value, frame))
    if found is None or found.volatility is not Volatility.PER_REQUEST \
            or found.kind not in (Kind.UNIQUE_ID, Kind.USER_INPUT, Kind.TIMESTAMP):
        return None
    return found


def value_drawn(ev, data, frame) -> Segment | None:
    """The segment made anew on every call (`Volatility.PER_REQUEST`) that the values of a dict filled
    in a loop hold, or None."""
    if not isinstance(data, Mapping) or not data.repeated or data.value is None:
        return None
    found = most_volatile(ev.text_of(data.value, frame))
    return found if found is not None and found.volatility is Volatility.PER_REQUEST else None


def stored_read(ev, data, frame, depth: int = 0):
    """The span of the store read (`Segment.stored`: `cur.fetchall()`) that data serialised holds
    (as text, or an item or value of a list or dict built from it, three levels deep), or None: the
    data is read again on each request, its keys in the order the store gives."""
    if isinstance(data, (Text, Alt)):
        return next((s.stored for s in ev.text_of(data, frame) if s.stored is not None), None)
    if depth < 3 and isinstance(data, (Seq, Mapping)):
        items = data.items.values() if isinstance(data, Mapping) else data.items
        return next((found for found in (stored_read(ev, i, frame, depth + 1) for i in items) if found is not None),
                    None)
    return None


def order_of(data):
    """The unordered-iteration segment of a dict or list built by iterating an unordered source
    (`{f: {} for f in fields_set}`, `dict((f, {}) for f in fields_set)`), of one of several such
    values too, or None: its serialised text follows that order."""
    if isinstance(data, Alt):
        return next((o for o in map(order_of, data.options) if o is not None), None)
    if isinstance(data, (Mapping, Seq)) and data.unordered is not None and not getattr(data, "ordered", False):
        return data.unordered
    return None


def value_order(data):
    """The unordered-iteration segment of the values of a dict filled in a loop
    (`out[f] = ", ".join(list(s)[:20])`): each value's text is in that order, sorted keys or not."""
    if isinstance(data, Alt):
        return next((o for o in map(value_order, data.options) if o is not None), None)
    if not isinstance(data, Mapping) or not data.repeated or data.value is None:
        return None
    return held_order(data.value)


def written(data) -> bool:
    """A dict whose keys the code writes in order (a display, keys set by statements), nested
    dicts too; of one of several such dicts (keys set in a branch), each."""
    if isinstance(data, Alt):
        return bool(data.options) and all(written(o) for o in data.options)
    return (isinstance(data, Mapping) and data.node is not None
            and all(not isinstance(v, Mapping) or v.node is not None for v in data.items.values()))


def fixed_keys(item) -> bool:
    """A list item whose keys come in an order the code fixes: a dict display (`{"id": x}`, not a
    `**` merge), or a model's dict (`obj.model_dump()`); one of several such dicts (a key set on
    one branch: `d = {"id": x}; if t: d["type"] = t`, keys in the order they are set)."""
    if isinstance(item, Mapping):
        return item.node is not None
    if isinstance(item, Alt) and item.options and all(fixed_keys(o) for o in item.options):
        return True
    return deterministic_dict(None, item)


def keyless_parameter(ev, node, frame) -> bool:
    """True for a parameter, not rebound, annotated as text, a number or a sequence of them
    (`strings: list[str]`): its JSON has no keys to order."""
    if not isinstance(node, ast.Name) or frame.func is None:
        return False
    th = ev.env_at(frame, node).get(node.id)
    return th is not None and th.kind == "param" and th.node is not None and keyless_annotation(th.node.annotation)


#: Last words of a name that say it holds names or ids (text): `artifact_names`, `tool_ids`.
_KEYLESS_WORDS = ("names", "ids", "paths", "filenames", "urls")
_SCHEMA_WORDS = ("schema", "schemas")  # JSON schemas: built by code, keys in declaration order


def named_keyless(node) -> bool:
    """True for a name or attribute whose last word says it is a list of names, ids, paths or
    urls (`artifact_names`, `self.tool_ids`): text, whose JSON has no keys to order; or a JSON
    schema (`self.tool_schemas`, `json_schema`): made by code (a model's schema, a function's
    signature, a display), its keys in the order they are declared, the same on every request."""
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return name.lower().rsplit("_", 1)[-1] in _KEYLESS_WORDS + _SCHEMA_WORDS


def dict_keys_only(node) -> bool:
    """True for a list of a mapping's keys (`[k for k in d.keys() if k != "x"]`, `list(d.keys())`):
    keys are hashable, never dicts, so its JSON has no keys to sort; its order is the mapping's own."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "tuple") \
            and len(node.args) == 1:
        return _keys_call(node.args[0])
    if not (isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1):
        return False
    comp = node.generators[0]
    return _keys_call(comp.iter) and isinstance(comp.target, ast.Name) and isinstance(node.elt, ast.Name) \
        and node.elt.id == comp.target.id


def _keys_call(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "keys" \
        and not node.args and not node.keywords


def deterministic_dict(node, value) -> bool:
    """`model.model_json_schema()`, `obj.model_dump()`, `dataclasses.asdict(obj)`: dicts whose keys
    come in the model's field order, the same in every process."""
    if isinstance(node, ast.Call):
        if callee_name(node) in classify.DETERMINISTIC_DICTS:
            return True
    if isinstance(value, Alt):  # a helper with a fallback: the model's schema, or a stand-in
        return any(deterministic_dict(None, o) for o in value.options)
    if isinstance(value, Text) and value.segs and all(s.ordered for s in value.segs if not s.is_static):
        return any(not s.is_static for s in value.segs)
    return False
