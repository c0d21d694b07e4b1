"""PRM201 fixes: sorted keys for a serialising call.

`sort_keys_fix` chooses by what the call is (through the file's imports, or the qualified name the
analysis found): json / simplejson `dumps` / `dump` get `sort_keys=True`; yaml `dump` /
`safe_dump` with `sort_keys=False` get `sort_keys=True` (PyYAML sorts by default, so no keyword
means no fix); `orjson.dumps` gets `option=orjson.OPT_SORT_KEYS`
(https://github.com/ijl/orjson#option). Edits come from CST nodes (`_common`).
"""
from __future__ import annotations

import libcst as cst

from ..model import Applicability, Edit, Fix, Position
from ._common import SAFE, UNSAFE, NotSure, checked, extent, insert, pos, source_of, sure, text_slice

JSON_DUMPS = {"json.dumps", "json.dump", "simplejson.dumps", "simplejson.dump"}
YAML_DUMPS = {"yaml.dump", "yaml.safe_dump", "yaml.dump_all", "yaml.safe_dump_all"}
ORJSON_DUMPS = {"orjson.dumps"}


def _keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


@sure
def add_keyword_fix(module, call: cst.Call, keyword: str, value: str, message: str,
                    applicability: Applicability = SAFE) -> Fix | None:
    """Set `keyword=value` on `call`: replace an existing keyword's value, or add the keyword.

    The new keyword goes after the last argument (`f(x)` -> `f(x, k=v)`; a trailing comma,
    comments and line breaks stay where they are), before the first `**mapping` (`f(x, **kw)`
    -> `f(x, k=v, **kw)`; such a fix is unsafe because the mapping may hold the keyword
    already, a TypeError at run time), and a lone generator argument gets its own parentheses
    (`f(x for x in y)` -> `f((x for x in y), k=v)`). Returns None when the keyword already has
    this value or no sure edit exists.
    """
    existing = _keyword(call, keyword)
    if existing is not None:
        if source_of(module, existing.value) == value:
            return None
        start, end = extent(module, existing.value)
        return checked(module, call, [Edit(value, start, end)], applicability, message)
    pair = f"{keyword}={value}"
    double_star = next((a for a in call.args if a.star == "**"), None)
    if double_star is not None:
        at = extent(module, double_star)[0]
        return checked(module, call, [insert(f"{pair}, ", at)], UNSAFE,
                       f"{message} (unsafe: `{module.code(double_star)}` may set it already)")
    if not call.args:
        end = pos(module, call).end  # the call's own ")" is its last character
        if text_slice(module, Position(end.line, end.column), Position(end.line, end.column + 1)) != ")":
            raise NotSure("call does not end with ')'")
        return checked(module, call, [insert(pair, Position(end.line, end.column))],
                       applicability, message)
    last = call.args[-1].value
    start, end = extent(module, last)
    own_line = _own_line_insertion(module, call, pair)
    if own_line is not None:
        edits = [own_line]
    elif isinstance(last, cst.GeneratorExp) and not last.lpar:
        edits = [insert("(", start), insert(f"), {pair}", end)]
    else:
        edits = [insert(f", {pair}", end)]
    return checked(module, call, edits, applicability, message)


def _own_line_insertion(module, call: cst.Call, pair: str) -> Edit | None:
    """For one-argument-per-line calls with a trailing comma (black's layout), an edit that adds
    `pair,` on a new line after the last argument, with its indentation; None otherwise."""
    arg = call.args[-1]
    if not isinstance(arg.comma, cst.Comma):
        return None
    comma_row = pos(module, arg.comma).start.line
    if pos(module, call).end.line <= comma_row:
        return None  # ")" on the comma's row
    first = extent(module, arg)[0]
    lines = module.source.split("\n")
    indent = lines[first.row - 1][: first.column - 1]
    if indent.strip():
        return None  # the argument does not start its row
    row = lines[comma_row - 1].removesuffix("\r")
    return insert(f"\n{indent}{pair},", Position(comma_row, len(row) + 1))


def _orjson_option(module, call: cst.Call) -> str | None:
    """How this file can name `orjson.OPT_SORT_KEYS`, or None when it has no name for it."""
    func = call.func
    if isinstance(func, cst.Attribute) and module.qualified_name(func.value) == "orjson":
        return f"{module.code(func.value)}.OPT_SORT_KEYS"
    for local, dotted in sorted(module.imports.items()):
        if dotted == "orjson":
            return f"{local}.OPT_SORT_KEYS"
    for local, dotted in sorted(module.imports.items()):
        if dotted == "orjson.OPT_SORT_KEYS":
            return local
    return None


def _names_sort_keys_flag(module, value: cst.CSTNode) -> bool:
    """True when the expression mentions OPT_SORT_KEYS (directly or through an import alias)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Name, cst.Attribute)):
            name = module.qualified_name(node) or ""
            if name.endswith("OPT_SORT_KEYS"):
                return True
        stack.extend(node.children)
    return False


@sure
def orjson_sort_keys_fix(module, call: cst.Call,
                         message: str = "Add `orjson.OPT_SORT_KEYS` to `option`") -> Fix | None:
    """`orjson.dumps(x)` -> `orjson.dumps(x, option=orjson.OPT_SORT_KEYS)`; an existing option
    (keyword or third positional argument) gets `| orjson.OPT_SORT_KEYS`, parenthesised when
    needed; `option=None` is replaced. None when the option already names OPT_SORT_KEYS or the
    file has no name for orjson (a `from orjson import dumps` alone)."""
    flag = _orjson_option(module, call)
    if flag is None:
        return None
    option = _keyword(call, "option")
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if option is None and len(positional) >= 3:
        option = positional[2]
    if option is None:
        return add_keyword_fix(module, call, "option", flag, message)
    value = option.value
    if _names_sort_keys_flag(module, value):
        return None
    start, end = extent(module, value)
    if isinstance(value, cst.Name) and value.value == "None":
        edits = [Edit(flag, start, end)]
    elif isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer)) \
            or value.lpar or (isinstance(value, cst.BinaryOperation)
                              and isinstance(value.operator, cst.BitOr)):
        edits = [insert(f" | {flag}", end)]
    else:
        edits = [insert("(", start), insert(f") | {flag}", end)]
    return checked(module, call, edits, SAFE, message)


#: Methods that return a JSON schema (pydantic v2 / v1, TypeAdapter, marshmallow-jsonschema).
_SCHEMA_METHODS = {"model_json_schema", "json_schema", "schema", "schema_json"}


def _last_name(node: cst.CSTNode) -> str | None:
    """The identifier a value is known by: `x` -> x, `a.b` -> b, `d["k"]` -> k, `f()` -> f."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        key = node.slice[0].slice.value
        if isinstance(key, cst.SimpleString):
            return key.evaluated_value if isinstance(key.evaluated_value, str) else None
        return _last_name(node.value)
    return None


def schema_shown(module, call: cst.Call) -> str | None:
    """The source of the serialised value when it is a JSON schema, else None: a value named
    for one (`output_schema`, `op["output"]["schema"]`, `self.response_schema`) or a schema
    method's result (`Answer.model_json_schema()`). The order of a schema's properties is text
    the model reads and often the order it answers in: sorting its keys changes that."""
    args = [a.value for a in call.args if a.keyword is None and not a.star]
    if not args:
        return None
    value = args[0]
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) \
            and value.func.attr.value in _SCHEMA_METHODS:
        return module.code(value)
    name = _last_name(value)
    if name and "schema" in name.lower():
        return module.code(value)
    return None


def sort_keys_fix(module, call: cst.Call, message: str | None = None, qualname: str | None = None,
                  string_keys: bool = False) -> Fix | None:
    """The PRM201 fix for a serialising call, chosen by what the call is (through imports):
    json/simplejson `dumps`/`dump` -> `sort_keys=True`; yaml `dump`/`safe_dump` with
    `sort_keys=False` -> `sort_keys=True` (PyYAML sorts by default, so no keyword means no
    fix); `orjson.dumps` -> `option=orjson.OPT_SORT_KEYS`. None for anything else. Unsafe
    for a JSON schema (`schema_shown`): the model then reads its properties in another order.
    Unsafe for json/simplejson unless `string_keys` (the extraction found every dict's keys,
    nested ones too, to be strings): `sort_keys=True` raises TypeError on a dict with keys of
    mixed types (`{1: "a", "b": 2}`), which PyYAML (it gives up sorting) and orjson (string
    keys only) never do."""
    fix = _sort_keys_fix(module, call, message, qualname)
    if fix is None or fix.applicability is not SAFE:
        return fix
    name = qualname or module.qualified_name(call.func)
    if name in JSON_DUMPS and not string_keys:
        fix.applicability = UNSAFE
        fix.message += (" (unsafe: the keys of the data are not known to be strings in every dict, nested ones "
                        "too, and `sort_keys=True` raises TypeError on keys of mixed types)")
        return fix
    schema = schema_shown(module, call)
    if schema is not None:
        fix.applicability = UNSAFE
        shown = schema if len(schema) <= 40 else schema[:37] + "..."
        fix.message += (f" (unsafe: `{shown}` is a JSON schema: sorted keys reorder the properties the model "
                        "reads, and often the order it answers in)")
    return fix


def _sort_keys_fix(module, call: cst.Call, message: str | None, qualname: str | None) -> Fix | None:
    name = qualname or module.qualified_name(call.func)
    if name in JSON_DUMPS:
        return add_keyword_fix(module, call, "sort_keys", "True", message or "Add `sort_keys=True`")
    if name in YAML_DUMPS:
        if _keyword(call, "sort_keys") is None:
            return None
        return add_keyword_fix(module, call, "sort_keys", "True", message or "Set `sort_keys=True`")
    if name in ORJSON_DUMPS:
        return orjson_sort_keys_fix(module, call, *([message] if message else []))
    return None
