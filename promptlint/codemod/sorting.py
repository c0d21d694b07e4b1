"""PRM202 / PRM203 fixes: wrap an iterable in `sorted(...)`, sort a tools list by tool name.

A safe fix must not raise at run time (docs/policies.md "Fix safety"): `sorted(x)` is safe only where
the items are known to support `<` among themselves (`orderable`); `os.scandir` entries get a key;
elsewhere the same edit is offered as unsafe. Tool keys handle every element shape of their API:
hosted tools without a name (`{"type": "web_search_preview"}`) sort by their type, objects
without `.name` by `__name__`; they never raise for dicts (or objects) of any content.
"""
from __future__ import annotations

import libcst as cst

from ..model import Applicability, Edit, Fix
from ._common import SAFE, UNSAFE, checked, extent, insert, parents, sure
from . import walks
from .orderable import item_kind, orderable

DISPLAY = Applicability.DISPLAY_ONLY

#: Tool-name keys for `sort_tools_fix`: OpenAI chat's nested shape, flat dicts (Anthropic, the
#: Responses API), objects (MCP `Tool`, LangChain tools, plain functions).
KEY_NESTED = 'lambda t: (t.get("function", {}).get("name", ""), t.get("type", ""))'
KEY_FLAT = 'lambda t: (t.get("name", ""), t.get("type", ""))'
KEY_OBJECT = 'lambda t: str(getattr(t, "name", None) or getattr(t, "__name__", ""))'
KEYS = {"nested": KEY_NESTED, "flat": KEY_FLAT, "object": KEY_OBJECT, "str": None}

#: Iterables whose items do not support `<`: sorted() needs a key, or cannot help at all.
SORT_KEYS = {"os.scandir": "lambda entry: entry.name"}
UNSORTABLE = {"concurrent.futures.as_completed", "asyncio.as_completed"}
ORDERABLE_ITEMS = {"str", "path", "number", "bytes", "orderable"}


def _is_sorted_call(module, node) -> bool:
    return isinstance(node, cst.Call) and module.qualified_name(node.func) in {"sorted", "builtins.sorted"}


def _already_sorted(module, expr: cst.CSTNode) -> bool:
    """True for `sorted(...)` itself and for the first argument of a `sorted(...)` call."""
    if _is_sorted_call(module, expr):
        return True
    parent_of = parents(module)
    arg = parent_of.get(expr)
    return isinstance(arg, cst.Arg) and _is_sorted_call(module, parent_of.get(arg)) \
        and parent_of[arg].args[0] is arg


def _is_join(expr) -> bool:
    return isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) \
        and expr.func.attr.value == "join" and len(expr.args) == 1 and not expr.args[0].star \
        and expr.args[0].keyword is None


def _joined(module, expr) -> bool:
    """True for the one argument of a `sep.join(...)` call: its items are str (join raises
    otherwise, before and after the fix alike)."""
    parent_of = parents(module)
    arg = parent_of.get(expr)
    return isinstance(arg, cst.Arg) and _is_join(parent_of.get(arg))


def _wrap(module, expr: cst.BaseExpression, key: str | None, message: str, applicability) -> Fix:
    start, end = extent(module, expr)
    bare_generator = isinstance(expr, cst.GeneratorExp) and not expr.lpar
    if key is None:
        edits = [insert("sorted(", start), insert(")", end)]
    elif bare_generator:
        edits = [insert("sorted((", start), insert(f"), key={key})", end)]
    else:
        edits = [insert("sorted(", start), insert(f", key={key})", end)]
    return checked(module, expr, edits, applicability, message)


@sure
def wrap_sorted_fix(module, expr: cst.BaseExpression, message: str = "Wrap the iterable in `sorted(...)`",
                    key: str | None = None, items: str | None = None) -> Fix | None:
    """Wrap an iterable in `sorted(...)`: `s` -> `sorted(s)`; `", ".join(s)` (the join call
    itself given) -> `", ".join(sorted(s))`; a lone generator argument stays valid
    (`f(x for x in s)` -> `f(sorted(x for x in s))`). `key` is a key expression; `os.scandir(...)`
    gets `key=lambda entry: entry.name` (DirEntry has no `<`). `items` is the kind of the items
    when the caller knows it ("str", "path", "number", "bytes", "orderable").

    Safe when a key is used or the items are known to support `<` (the caller says so, they are
    joined with `str.join`, or `orderable` reads it from the code); otherwise the same edit is
    unsafe (`sorted` would raise TypeError for items without `<`). None for an already sorted
    iterable and for `as_completed(...)` (futures have no order to sort by)."""
    if _is_join(expr):
        expr = expr.args[0].value
    if _already_sorted(module, expr):
        return None
    loop = walks.loop_of(module, expr)
    if isinstance(expr, cst.Call):
        name = module.qualified_name(expr.func)
        if name in UNSORTABLE:
            return None
        if name == "os.walk" and loop is not None:  # sorted(os.walk(...)) would read the walk before the body prunes it
            return walks.sort_folders_fix(module, loop, expr, message)
        key = key or SORT_KEYS.get(name or "")
    if key is None and item_kind(module, expr) == "direntry":  # `with os.scandir(d) as it`: DirEntry has no `<`
        key = SORT_KEYS["os.scandir"]
    if loop is not None and walks.mutated(loop):
        return _wrap(module, expr, key, f"{message} (display-only: the loop changes in place what it is given, "
                     "and `sorted(...)` would read the whole iteration before the loop's body runs)", DISPLAY)
    if key is not None or items in ORDERABLE_ITEMS or _joined(module, expr) or orderable(module, expr):
        return _wrap(module, expr, key, message, SAFE)
    return _wrap(module, expr, None, f"{message} (unsafe: its items are not known to support `<`)", UNSAFE)


@sure
def sort_tools_fix(module, expr: cst.BaseExpression | cst.Return, nested: bool = False,
                   *, objects: bool = False, message: str = "Sort the tools by name",
                   shape: str | None = None, display: str | None = None) -> Fix | None:
    """Sort a tools list by tool name: `tools` -> `sorted(tools, key=...)`. The key follows the
    tool shape (`shape`, or the flags `nested` / `objects`): OpenAI chat's nested
    `{"type": "function", "function": {"name": ...}}` ("nested"), flat dicts with `name`
    (Anthropic, the Responses API: "flat"), objects with `.name` (MCP `Tool`, LangChain tools:
    "object"), tool names ("str": no key; `list(s)` becomes `sorted(s)`). Each key handles the
    other shapes of its API without raising: a hosted tool with no name sorts by its `type`, an
    object without `.name` by its `__name__`. Given a `return collected` statement, the returned
    value is sorted. None when already sorted or nothing is returned.

    Safe: the same tools, in name order (ties keep their order). Display-only when `display`
    says why the shape is only assumed (the elements were not seen: a key for dicts would raise
    on strings or objects)."""
    if isinstance(expr, cst.Return):
        if expr.value is None:
            return None
        expr = expr.value
    if _already_sorted(module, expr):
        return None
    shape = shape or ("nested" if nested else "object" if objects else "flat")
    applicability = DISPLAY if display else SAFE
    if display:
        message = f"{message} (display-only: {display}; this key assumes the {shape} shape its API requires)"
    if shape == "str":
        return _sorted_names(module, expr, message, applicability)
    return _wrap(module, expr, KEYS[shape], message, applicability)


def _sorted_names(module, expr: cst.BaseExpression, message: str, applicability) -> Fix:
    """Tool names (strings) sort by themselves: `list(s)` -> `sorted(s)`, else `x` -> `sorted(x)`."""
    if isinstance(expr, cst.Call) and module.qualified_name(expr.func) in {"list", "builtins.list"} \
            and len(expr.args) == 1 and expr.args[0].keyword is None and not expr.args[0].star:
        start, end = extent(module, expr.func)
        return checked(module, expr, [Edit("sorted", start, end)], applicability, message)
    return _wrap(module, expr, None, message, applicability)
