"""Tool and output schemas whose text is built in an unstable order (issue 11, Policy 9): the
description, enum, required list or alternatives of one tool's (or structured output's) schema,
built in the code by iterating a set, a directory listing or `as_completed` results, outside any
tools list the analysis reaches. The schema is sent at the very front of every request that uses
it, so another process (another hash seed, another file system) sends other bytes there.

Recognised places (each a definition of a model-facing schema, whatever call later sends it):
- a pydantic `Field(...)`'s `description`, `title`, `enum`, `json_schema_extra` (not its `examples`)
  (`Field(description=f"one of {', '.join(names)}")` with `names` a set; also inside the
  `Annotated[...]` parameters of a tool function and in a model made in a function);
- a JSON-schema dict display (one with a `type`, `properties` or `items` key) whose `enum`,
  `required`, `anyOf`, `oneOf`, `allOf` or `prefixItems` is built so, and a subscript
  assignment of those keys to a dict named for a schema (`schema["required"] = list(required)`);
- the `description` (or `name`) a tool class (a base named for a tool: `BaseTool`) sets on
  its instance in a method (`self.description = f"... {', '.join(tables)}"`).

Facts only: a `python-constant` layout with one `tools` part marked `definition` holding the
unordered-iteration segment (anchored where the order is lost); PRM203 judges it. Not recorded:
a set only tested for membership, sorted before use (`sorted(s)`), of ints (a fixed order), or
whose order reaches no such field (a log line, an exception message).
"""
from __future__ import annotations

import ast
import re

from ..model import Kind, Part, Segment, replace
from .flow.values import Alt, Mapping, Seq, Spread, Text
from .prompt_names import name_parts
from .tool_results import tool_class
from .walk import last_name

#: Keywords of a pydantic `Field(...)` whose value reaches the JSON schema a model reads.
#: Not `examples`: sample values shown in a web API's documentation (`examples=[{"vip", "priority"}]`
#: of a REST model's field), where a set literal is an example's value, not an order a model reads.
FIELD_KEYWORDS = frozenset({"description", "title", "enum", "json_schema_extra", "literal"})
#: JSON-schema keywords whose value is a list in the order it is written.
ORDERED_KEYS = frozenset({"enum", "required", "anyOf", "oneOf", "allOf", "prefixItems"})
#: Keys of which one says a dict display is a JSON schema (with one of `ORDERED_KEYS` beside it).
SCHEMA_KEYS = frozenset({"type", "properties", "items", "$schema"})
#: Attributes of a tool class's instance that the model reads about the tool.
TOOL_FIELDS = frozenset({"description", "name"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DEPTH = 6  # levels of nested lists and dicts searched for an order
#: Words of an unstable order: a set (a call, a typed one), a listing, completion order.
_ORDER_WORDS = ("set(", "set[", "listdir(", "scandir(", "glob(", "iterdir(", "walk(", "as_completed(")
#: A set comprehension (`{el[1] for el in values}`; bounded: linear).
_SET_COMPREHENSION = re.compile(r"\{[^{}:\n]{1,120}\bfor\b")
#: Words of the places above, each with a word that must come with it (the prefilter's test,
#: `may_hold`): a pydantic field, a JSON schema's ordered keyword, a tool class's description.
_PLACES = (("Field(", "pydantic"), ("\"enum\"", "schema"), ("'enum'", "schema"), ("\"required\"", "schema"),
           ("'required'", "schema"), ("self.description", "Tool"))


#: A pydantic field given a schema keyword that is not a plain string (`description=f"...`,
#: `enum=names`, `json_schema_extra={...}`; bounded: linear).
_FIELD_BUILT = re.compile(r"Field\([^)]{0,400}?\b(?:description|enum|json_schema_extra|title)[ \t]{0,4}="
                          r"[ \t]{0,4}(?:[fF][\"']|[A-Za-z_(\[{]|[\"'][^)]{0,400}?(?:\b[fF][\"']|\+|\.join\(|\.format\())")


def may_hold(source: str) -> bool:
    """Cheap text test (python/prefilter.py): the source writes a schema field or a tool's
    description (a pydantic field's only with a keyword that is not a plain string) and names a
    source of an unstable order."""
    return any(w in source and also in source and (w != "Field(" or _FIELD_BUILT.search(source) is not None)
               for w, also in _PLACES) and (
        any(w in source for w in _ORDER_WORDS) or _SET_COMPREHENSION.search(source) is not None)


def _unordered(value, depth: int = 0) -> Segment | None:
    """The first unordered-iteration segment anywhere in `value` (text, a list, a dict's keys or
    values: a schema field's value), or None. A set written into a schema field whole (`enum=s`,
    `list(s)`) is serialised in its iteration order as much as one joined into its text."""
    todo = [(value, depth)]
    while todo:
        v, d = todo.pop(0)
        if d > _DEPTH:
            continue
        if isinstance(v, Text):
            seg = next((s for s in v.segs if s.kind is Kind.UNORDERED_ITERATION), None)
            if seg is not None:
                return seg
        elif isinstance(v, Seq):
            if v.ordered:
                continue
            if v.unordered is not None:
                return v.unordered
            todo.extend((i, d + 1) for i in v.items)
        elif isinstance(v, Mapping):
            if v.unordered is not None:
                return v.unordered
            todo.extend((i, d + 1) for i in v.items.values())
        elif isinstance(v, Spread):
            todo.append((v.value, d + 1))
        elif isinstance(v, Alt):
            todo.extend((o, d + 1) for o in v.options)
    return None


def _placed(seg: Segment, span) -> Segment:
    """`seg` reported where the code iterates it (its anchor), or else where the schema field
    takes it (`span`, Policy 8), with the place the set is made as its origin (a related location)."""
    if seg.anchor is not None or span is None:
        return seg
    return replace(seg, span=span, origin=seg.origin or seg.span)


def _outside_body(func, node) -> bool:
    """True when `node` is in `func`'s signature or decorators (its parameters' annotations and
    defaults), which Python evaluates in the scope around `func`, not in its body."""
    return any(node is n for part in (func.args, *func.decorator_list, *([func.returns] if func.returns else []))
               for n in ast.walk(part))


def _frame_at(finder, node):
    """The frame `node` is evaluated in: the innermost function's, or the one around it when `node`
    is in that function's signature (`def regress(ids: Annotated[list[str], Field(enum=list(ids))])`
    inside a method reads the method's `ids`, not its own parameter)."""
    funcs = [i for i, n in enumerate(finder.stack) if isinstance(n, _FUNCS)]
    if not funcs or not _outside_body(finder.stack[funcs[-1]], node):
        return finder.frame()
    if len(funcs) == 1:
        return finder.ev.module_frame(finder.m)
    at = funcs[-2]
    func = finder.stack[at]
    cls = finder.stack[at - 1] if at > 0 and isinstance(finder.stack[at - 1], ast.ClassDef) else None
    return finder.ev.unbound_frame(finder.m, func, cls, depth=0)


def _record(finder, node, value_nodes) -> bool:
    """Evaluate each of `value_nodes` (in the frame `node` is evaluated in) and record the first
    unordered order found as a schema definition at `node`. True when one was recorded."""
    span = finder.m.span(node)
    if finder.b.covered(span):
        return False
    frame = _frame_at(finder, node)
    for value_node in value_nodes:
        if isinstance(value_node, ast.Constant):
            continue
        finder.ev.reset_budget()
        seg = _unordered(finder.ev.eval(value_node, frame))
        if seg is not None:
            if _source(seg) in _recorded(finder):
                return False  # one set written into two fields (an `enum` and a `description`): one cause
            where = finder.m.span(value_node)
            finder.b.add(node, "python-constant", None, None, None,
                         [Part("tools", [_placed(seg, where)], span=where, definition=True)])
            finder.b.sites.append(span)
            return True
    return False


def _source(seg: Segment):
    """Where the unordered value is made (its origin), which names one cause however often it is written."""
    return seg.origin or seg.span


def _recorded(finder) -> set:
    """The sources of the schema orders recorded in this module so far."""
    return {_source(s) for lt in finder.b.layouts for p in lt.parts if p.definition for s in p.segments}


def _is_field(finder, func) -> bool:
    """True for pydantic's `Field` (`Field`, `pydantic.Field`, `from pydantic import Field as F`)."""
    if isinstance(func, ast.Name):
        return finder.m.imports.get(func.id, "").startswith("pydantic") and func.id in finder.m.imports \
            and finder.m.imports[func.id].rsplit(".", 1)[-1] == "Field"
    return isinstance(func, ast.Attribute) and func.attr == "Field" and isinstance(func.value, ast.Name) \
        and finder.m.imports.get(func.value.id, func.value.id).split(".")[0] == "pydantic"


def field_call(finder, node: ast.Call) -> bool:
    """A pydantic `Field(...)` whose schema keywords hold an unordered order."""
    values = [k.value for k in node.keywords if k.arg in FIELD_KEYWORDS and not isinstance(k.value, ast.Constant)]
    return bool(values) and _is_field(finder, node.func) and _record(finder, node, values)


def _keys(node: ast.Dict) -> dict:
    return {k.value: v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant) and isinstance(k.value, str)}


def schema_dict(finder, node: ast.Dict) -> bool:
    """A JSON-schema dict display whose ordered keywords (`enum`, `required`, ...) hold an unordered order."""
    fields = _keys(node)
    values = [v for k, v in fields.items() if k in ORDERED_KEYS and not isinstance(v, ast.Constant)]
    return bool(values) and bool(SCHEMA_KEYS & fields.keys()) and _record(finder, node, values)


def _schema_named(node) -> bool:
    return "schema" in name_parts(last_name(node))


def schema_item(finder, node: ast.Assign) -> bool:
    """`schema["required"] = list(required)`: an ordered keyword written into a dict named for a schema."""
    target = node.targets[0] if len(node.targets) == 1 else None
    if not (isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant)
            and target.slice.value in ORDERED_KEYS and _schema_named(target.value)):
        return False
    return _record(finder, node, [node.value])


def tool_field(finder, node: ast.Assign, cls: ast.ClassDef | None) -> bool:
    """`self.description = ...` in a method of a tool class (`class SearchTool(BaseTool)`)."""
    target = node.targets[0] if len(node.targets) == 1 else None
    if not (isinstance(target, ast.Attribute) and target.attr in TOOL_FIELDS and isinstance(target.value, ast.Name)
            and target.value.id == "self" and cls is not None and tool_class(cls)):
        return False
    return _record(finder, node, [node.value])


def assigned(finder, node) -> bool:
    """The assignment shapes above (`schema_item`, `tool_field`), for the site finder."""
    if not isinstance(node, ast.Assign) or not isinstance(node.targets[0], (ast.Subscript, ast.Attribute)):
        return False
    funcs = [i for i, n in enumerate(finder.stack) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not funcs:
        return False
    cls = finder.stack[funcs[-1] - 1] if funcs[-1] > 0 and isinstance(finder.stack[funcs[-1] - 1], ast.ClassDef) else None
    return schema_item(finder, node) or tool_field(finder, node, cls)
