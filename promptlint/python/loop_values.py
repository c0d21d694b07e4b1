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
"""
from __future__ import annotations

import ast

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
    (`Segment.each`), and `why` added to their evidence; unchanged for a loop over a collection
    of the instance (`instance_owned`), a value that is not text, or text the code knows."""
    if span is None or not isinstance(value, Text) or instance_owned(loop):
        return value
    if not any(_changes_each_pass(s) for s in value.segs):
        return value
    def noted(s: Segment) -> Segment:
        return replace(s, each=span, evidence=f"{s.evidence or f'`{s.expr}`'}{why}") if why else replace(s, each=span)
    return Text([noted(s) if _changes_each_pass(s) else s for s in value.segs])


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
