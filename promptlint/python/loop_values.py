"""Values of each pass of a loop: the fact that a request sent inside a `for` loop gets another
value on each pass when the value is bound from the data the loop iterates.

`for row in rows: client.chat.completions.create(messages=[{"role": "user", "content":
PROMPT.format(question=row["q"])}])` sends one request per row, each with another row's text,
wherever `rows` comes from: the text before the value is all those requests share. Not so for
text built in a loop and sent once after it (`lines.append(f"- {d}")`), nor for a loop over a list
the instance holds (`for agent in self.agents:`: each agent's prompt is sent again on the next
round, its prefix is that agent's), nor for a loop over values the code writes (they are read as
they are). Facts only: `mark` (the evaluator, flow/core.py) notes the loop on a value of unknown
volatility (and on a loop counter) bound by it (`Segment.each`); `per_pass` (the layout builder,
layout.py) states, on a request whose call sits inside that loop, that it changes per request.
The rules judge it as any per-request value (impact.py).

The other fact is the text that stays the same over the passes of such a loop (`Segment.same`):
`for kp in points: send(f"KEY POINT: {kp} SUMMARY: {summary}")` sends one request per point,
each with the same summary. `invariant` (the layout builder) notes it on a request sent inside a
loop that binds one of its values: text computed before the loop in the function that holds it
(or a parameter of that function), a module constant or an attribute `__init__` sets, none of
them rebound or changed in the loop's body; `same` (flow/callers.py,
flow/per_call.same_call) notes it on an argument of a call made once per element that does not
read the element. impact.py judges a per-pass value placed before such text.
"""
from __future__ import annotations

import ast
import re

from ..model import Kind, Segment, Span, Volatility, replace
from .flow.values import Text, Value

#: Calls that hand the iterable on unchanged in what they yield (`enumerate(rows)`, `sorted(rows)`).
_WRAPPERS = frozenset({"enumerate", "reversed", "sorted", "list", "tuple", "iter"})
#: How the evidence of a value of each pass ends.
EACH_PASS = "a new value on each pass of the loop that sends the request"


def _root(node):
    """The expression a `for` statement iterates, without the wrappers that keep its items
    (`enumerate(self.items)`: `self.items`)."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _WRAPPERS and node.args:
        node = node.args[0]
    return node


def instance_owned(loop) -> bool:
    """True when the `for` statement `loop` (or a comprehension, or its first `for`) iterates a
    collection the instance or class holds (`self.agents`, `cls.tools`, `self.config.steps`): the
    same items on every call."""
    first = getattr(loop, "generators", None)
    node = _root(first[0].iter if first else loop.iter)
    if not isinstance(node, (ast.Attribute, ast.Subscript)):
        return False
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _changes_each_pass(seg: Segment) -> bool:
    return not seg.is_static and (seg.volatility is Volatility.UNKNOWN and seg.kind in (Kind.UNKNOWN, Kind.TEMPLATE_VARIABLE)
                                  or seg.kind is Kind.UNKNOWN and seg.volatility is Volatility.STABLE
                                  and seg.evidence == "a loop counter")


def mark(value: Value, loop, span: Span | None, why: str = "") -> Value:
    """`value`, bound by the `for` statement `loop` (a request sent inside `span` gets a new one on
    each pass), with `span` noted on its segments of unknown volatility and on a loop counter
    (`Segment.each`), and `why` added to their evidence; a segment already known to change per
    request (the user's question) gets the loop noted and nothing else. Unchanged for a loop over a
    collection of the instance (`instance_owned`), a value that is not text, or text the code knows."""
    if span is None or not isinstance(value, Text) or instance_owned(loop):
        return value
    if not any(_changes_each_pass(s) or _per_request(s) for s in value.segs):
        return value
    def noted(s: Segment) -> Segment:
        if _per_request(s):
            return replace(s, each=span)
        return replace(s, each=span, evidence=f"{s.evidence or f'`{s.expr}`'}{why}") if why else replace(s, each=span)
    return Text([noted(s) if _changes_each_pass(s) or _per_request(s) else s for s in value.segs])


def _per_request(seg: Segment) -> bool:
    return not seg.is_static and seg.volatility is Volatility.PER_REQUEST and seg.each is None


def _inside(span: Span, site: Span) -> bool:
    return span.filename == site.filename and span.start <= site.start and site.end <= span.end


_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def loop_spans(module) -> list[Span]:
    """The spans of every loop of `module` (`for`, `while`, comprehensions), read once per module."""
    key = ("loop_spans",)
    found = module._pieces.get(key)
    if found is None:
        found = module._pieces[key] = (None, [module.span(n) for n in ast.walk(module.tree) if isinstance(n, _LOOPS)])
    return found[1]


def per_pass(segments: list[Segment], site: Span, loops: list[Span] = ()) -> list[Segment]:
    """The segments of a request sent at `site` with those bound by a loop that holds `site`
    (`Segment.each`) stated as new per request (`Volatility.PER_REQUEST`, evidence EACH_PASS);
    a loop that does not hold the send leaves them as they are, and so does one that holds it
    only through another loop of `loops` (`site`'s module: `for persona in personas: while turn
    < n: send(...)` sends several requests with each value)."""
    out = []
    for s in segments:
        if s.each is not None and _changes_each_pass(s) and _inside(s.each, site) \
                and not any(loop != s.each and _inside(s.each, loop) and _inside(loop, site) for loop in loops):
            s = replace(s, volatility=Volatility.PER_REQUEST, evidence=f"{s.evidence or f'`{s.expr}`'}: {EACH_PASS}")
        out.append(s)
    return out


def noted(value: Value, span: Span) -> Value:
    """`value` (an argument of a call made once per element, already per request:
    flow/per_call.per_element) with `span`, the function called, noted as its loop (`Segment.each`)
    on its segments that change per request."""
    if not isinstance(value, Text):
        return value
    return Text([replace(s, each=span) if _per_request(s) else s for s in value.segs])


def _stays(seg: Segment) -> bool:
    """True for a segment that may be noted the same over a loop's passes: text of unknown
    volatility (or of the newest user message, per request only for being there) bound by no loop."""
    return (not seg.is_static and seg.each is None and seg.same is None
            and seg.kind in (Kind.UNKNOWN, Kind.TEMPLATE_VARIABLE)
            and seg.volatility in (Volatility.UNKNOWN, Volatility.PER_REQUEST))


def same(value: Value, span: Span) -> Value:
    """`value` with `span` (a loop, or a function called once per element of one) noted as the loop
    over whose passes it stays the same (`Segment.same`) on its segments of unknown volatility that
    no loop binds; unchanged for a value that is not text or has none."""
    if not isinstance(value, Text) or not any(_stays(s) and s.volatility is Volatility.UNKNOWN for s in value.segs):
        return value
    return Text([replace(s, same=span) if _stays(s) and s.volatility is Volatility.UNKNOWN else s for s in value.segs])


#: Methods that change the object they are called on (`notes.append(x)` in a loop: `notes` is not the same each pass).
_MUTATORS = frozenset({"append", "extend", "insert", "update", "add", "pop", "remove", "clear", "setdefault",
                       "write", "add_message", "add_messages"})


def _dotted(node) -> str | None:
    """`a`, `self.doc`, `cfg.page.text` for a name or an attribute chain on one, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def _stored(loop) -> set[str]:
    """The names and attribute chains (`self.doc`) the body of `loop` binds, assigns or changes
    with a method such as `append` (`_MUTATORS`), its own targets included."""
    out = set()
    for n in ast.walk(loop):
        if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Store):
            found = _dotted(n)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _MUTATORS:
            found = _dotted(n.func.value)  # (`notes.append(x)`: `notes` changes in the loop)
        else:
            continue
        if found:
            out.add(found)
    return out


def rebinds(loop, expr) -> bool:
    """True when the `for` statement `loop` binds or assigns a name or attribute chain that `expr`
    reads (`for x in xs: ... doc = ...` and `doc`), or a chain above one (`self.doc` and `self.doc.text`)."""
    stored = _stored(loop)
    for n in ast.walk(expr):
        found = _dotted(n) if isinstance(n, (ast.Name, ast.Attribute)) else None
        if found and any(found == s or found.startswith(s + ".") for s in stored):
            return True
    return False


def _for_loops(module) -> list[tuple[Span, object, Span | None, set[str]]]:
    """(span, statement, span of the function that holds it or None, what its body binds) of every
    `for` statement of `module`, read once per module."""
    key = ("for_loops",)
    found = module._pieces.get(key)
    if found is None:
        out = []
        def walk(node, func):
            for child in ast.iter_child_nodes(node):
                inner = child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else func
                if isinstance(child, (ast.For, ast.AsyncFor)):
                    out.append((module.span(child), child, module.span(func) if func is not None else None,
                                _stored(child)))
                walk(child, inner)
        walk(module.tree, None)
        found = module._pieces[key] = (None, out)
    return found[1]


def _before(span: Span, func: Span | None, loop: Span) -> bool:
    """True when `span` lies in the function `func` (the module when None) before `loop` starts."""
    if span.filename != loop.filename or not span.end.row < loop.start.row:
        return False
    return func is None or func.start <= span.start


def _functions(module) -> list[tuple[Span, str]]:
    """(span, name) of every function of `module`, read once per module."""
    key = ("functions",)
    found = module._pieces.get(key)
    if found is None:
        found = module._pieces[key] = (None, [(module.span(n), n.name) for n in ast.walk(module.tree)
                                              if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))])
    return found[1]


def _set_once(module, names: set[str], where: Span) -> bool:
    """True when a value is produced (`where`) in `module` outside every function (a module
    constant) or, written as an attribute of the instance (`names` holds `self.doc`), in its
    `__init__`: not again on each pass."""
    if where.filename != module.filename:
        return False
    holding = [name for span, name in _functions(module) if span.start <= where.start and where.end <= span.end]
    return not holding or (holding[-1] == "__init__" and any(n.startswith("self.") for n in names))


def invariant(segments: list[Segment], site: Span, module, eaches: set[Span]) -> list[Segment]:
    """The segments of a request sent at `site` with `Segment.same` noted, for each `for` loop of
    `module` that holds `site` and binds a value of the request (`eaches`: their `Segment.each`), on those of unknown
    volatility produced before that loop in the function that holds it (a parameter, a value
    computed or text written before the loop: their `origin`, else their `span`), or once for the
    module or the instance (`_set_once`), whose name the loop's body does not rebind or change. The
    others are left as they are."""
    if not eaches:
        return segments
    loops = [(span, func, stored) for span, _stmt, func, stored in _for_loops(module)
             if span in eaches and _inside(span, site)]
    if not loops:
        return segments
    out = []
    for s in segments:
        if _stays(s):
            where = s.origin or s.span
            names = _written(module, s) | {(s.expr or "").split("(")[0].strip()}
            for span, func, stored in loops:
                if where is not None and (_before(where, func, span) or _set_once(module, names, where)) and not any(
                        name == n or name.startswith(n + ".") for name in names for n in stored):
                    s = replace(s, same=span)
                    break
        out.append(s)
    return out


_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*(?:\.[A-Za-z_][A-Za-z_0-9]*)*")


def _written(module, seg: Segment) -> set[str]:
    """The names and attribute chains the code writes where `seg` enters the text, when that is in
    `module` (`{notes}` of an f-string: `notes`, whose reading may be its value before the loop)."""
    span = seg.span
    if span is None or span.filename != module.filename:
        return set()
    rows = [module.line(r) for r in range(span.start.row, span.end.row + 1)]
    if len(rows) == 1:
        rows = [rows[0][span.start.column - 1:span.end.column - 1]]
    return set(_NAME.findall("\n".join(rows)))
