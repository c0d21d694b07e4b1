"""From an anchor to a fix: find the CST node the anchor names, call the builder for its place.

The anchor contract (`model.Anchor`): `span` is the extent of one source node, 1-based rows and
1-based character columns, end exclusive, as `ast` reports it converted to characters. The node
whose extent equals the span is the one edited; `ast` includes the parentheses of a tuple and of
a parenthesised generator (and, for a generator that is a call's only argument, the call's
parentheses) while libcst leaves a node's own parentheses out, so a node matches with none, some
or all of its own parentheses, and a lone generator argument also with its call's.

| place            | span                                              | builder / detail keys            |
|------------------|---------------------------------------------------|----------------------------------|
| "iterable"       | the iterated expression, or a `sep.join(x)` call  | wrap in `sorted(...)`; ("items", kind), ("key", expr) |
| "serialize-call" | the `json.dumps(...)` / `yaml.dump` / `orjson` call | sorted keys; ("qualname", "json.dumps"), ("keys", "str") when every dict's keys are known strings |
| "tools"          | the tools expression, or a `return` of it         | sort by name; ("shape", "nested" / "flat" / "object" / "str"), ("api", "chat.completions.create"), ("display", why the shape is assumed) |
| "fstring-field"  | the `{...}` field (braces included), or its expression | move to the end (unsafe)    |
| "concat-operand" | an operand of `+` / implicit concatenation, or an expression inside it | move to the end (unsafe) |

`anchor.digest`, when set, must be the sha256 of the file's current text (`module.digest`), or no
fix is built: an edit is never applied to another text than the one it was computed for.
"""
from __future__ import annotations

import bisect
from pathlib import Path

import libcst as cst

from .. import source as _source
from ..model import Anchor, Fix, Position
from . import module as _module
from ._common import NotSure, bare_extent, line_starts, offset, pos

_API_SHAPES = (("chat.completions", "nested"), ("litellm", "nested"), ("Router", "nested"),
               ("completion", "nested"), ("acompletion", "nested"),
               ("messages", "flat"), ("beta.messages", "flat"), ("responses", "flat"))


def build_fix(anchor: Anchor, message: str | None = None) -> Fix | None:
    """The fix for `anchor` or None (see the module docstring); never raises for bad input."""
    try:
        module = _module.load(Path(anchor.span.filename), rows=(anchor.span.start.row, anchor.span.end.row))
    except (_source.SourceError, _module.NotParsable, OSError, ValueError, RecursionError):
        return None
    if anchor.digest and anchor.digest != module.digest:
        return None
    try:
        fix = _build(module, anchor, message)
    except (NotSure, KeyError, IndexError, ValueError, TypeError, AttributeError, RecursionError):
        return None
    if fix is not None:
        fix.digest = module.digest
    return fix


def _build(module: _module.CstModule, anchor: Anchor, message: str | None) -> Fix | None:
    from . import keywords, moves, sorting
    place = anchor.place
    kwargs = {"message": message} if message else {}
    if place == "iterable":
        node = find(module, anchor.span.start, anchor.span.end, cst.BaseExpression)
        return sorting.wrap_sorted_fix(module, node, key=anchor.get("key"), items=anchor.get("items"),
                                       **kwargs) if node is not None else None
    if place == "serialize-call":
        node = find(module, anchor.span.start, anchor.span.end, cst.Call)
        return keywords.sort_keys_fix(module, node, message, anchor.get("qualname"),
                                      string_keys=anchor.get("keys") == "str") if node is not None else None
    if place == "tools":
        node = find(module, anchor.span.start, anchor.span.end, (cst.BaseExpression, cst.Return))
        shape = anchor.get("shape") or api_shape(anchor.get("api"))
        if node is None or shape not in sorting.KEYS:
            return None
        return sorting.sort_tools_fix(module, node, shape=shape, display=anchor.get("display"), **kwargs)
    if place in ("fstring-field", "concat-operand"):
        node = find(module, anchor.span.start, anchor.span.end,
                    (cst.FormattedStringExpression, cst.BaseExpression))
        return moves.move_to_end_fix(module, node, message) if node is not None else None
    return None


def api_shape(api: str | None) -> str | None:
    """The tool shape an API requires: "nested" for OpenAI chat completions (and LiteLLM, which
    takes its shape), "flat" for Anthropic messages and the OpenAI Responses API."""
    if not api:
        return None
    return next((shape for prefix, shape in _API_SHAPES if api == prefix or api.startswith(prefix + ".")), None)


def _extents(module, node: cst.CSTNode) -> list[tuple[Position, Position]]:
    """Every extent a span may give for `node`: bare, then with each layer of its own
    parentheses, and for a generator that is a call's only argument, with the call's."""
    start, end = bare_extent(module, node)
    out = [(start, end)]
    lpar, rpar = _parens(node, "lpar"), _parens(node, "rpar")
    for depth in range(1, min(len(lpar), len(rpar)) + 1):
        first, last = pos(module, lpar[-depth]).start, pos(module, rpar[depth - 1]).end
        out.append((Position(first.line, first.column + 1), Position(last.line, last.column + 1)))
    return out


def _parens(node, name: str) -> list:
    """An expression's own parentheses (`lpar` / `rpar`); none for other nodes (a class
    definition's `lpar` is one optional token, not a list)."""
    value = getattr(node, name, None)
    return list(value) if isinstance(value, (list, tuple)) else []


def find(module, start: Position, end: Position, kinds) -> cst.CSTNode | None:
    """The outermost node of one of `kinds` whose extent (see `_extents`) is start..end, or
    None. Only nodes whose own extent contains the span are visited."""
    stack: list = [module.tree]
    parent_of: dict = {}
    while stack:
        node = stack.pop()
        if node is not module.tree:
            rng = module.positions.get(node)
            if rng is None:
                continue
            if isinstance(node, kinds) and (start, end) in _extents(module, node):
                return node
            if isinstance(node, cst.GeneratorExp) and not node.lpar and isinstance(node, kinds):
                call = _call_of_lone_argument(parent_of, node)
                if call is not None and _call_parens(module, call) == (start, end):
                    return node
            # an argument is not a bound: a lone generator's span is its call's parentheses
            lo = None if isinstance(node, cst.Arg) else _loose(module, node)
            if lo is not None and not (lo[0] <= start and end <= lo[1]):
                continue
        children = list(_module.iter_children(node))
        for child in children:
            parent_of[child] = node
        stack.extend(reversed(children))
    return None


def _loose(module, node) -> tuple[Position, Position] | None:
    """The node's extent with its parentheses (a bound for pruning the search), or None."""
    try:
        exts = _extents(module, node)
    except NotSure:
        return None
    return exts[-1]


def _call_of_lone_argument(parent_of: dict, node) -> cst.Call | None:
    arg = parent_of.get(node)
    call = parent_of.get(arg) if isinstance(arg, cst.Arg) else None
    if isinstance(call, cst.Call) and len(call.args) == 1 and arg.keyword is None and not arg.star:
        return call
    return None


def _call_parens(module, call: cst.Call) -> tuple[Position, Position] | None:
    """The extent from a call's `(` to its `)`, both included."""
    func_end = pos(module, call.func).end
    call_end = pos(module, call).end
    text = module.source
    i = offset(module, Position(func_end.line, func_end.column + 1))
    j = offset(module, Position(call_end.line, call_end.column + 1))
    k = text.find("(", i, j)
    if k < 0:
        return None
    starts = line_starts(module)
    row = bisect.bisect_right(starts, k) - 1
    return Position(row + 1, k - starts[row] + 1), Position(call_end.line, call_end.column + 1)
