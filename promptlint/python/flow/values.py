"""Symbolic values of the evaluator: what an expression is known to be, statically.

`Text` is prompt text as segments; `Seq` a list or tuple display (possibly grown in a loop:
`repeated`); `Mapping` a dict display with static keys; `Obj` an instance of a known class (an SDK
client, a chat model, a message); `PathV` a file path; `Config` parsed configuration data; `Func`
a function or bound method of the analysed tree; `Alt` one of several values (branches).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import ast

from ...model import Kind, Segment, Source, Span, Volatility, replace


@dataclass
class Text:
    segs: list[Segment]


@dataclass
class TemplateText(Text):
    """A LangChain string prompt template (`PromptTemplate(template=T, partial_variables={...})`,
    `PromptTemplate.from_template(T)`) as the text of its template, `{placeholders}` unfilled:
    `site` the span of the call that builds it (where its own layout is recorded), `partials`
    its partial variables by name (filled when it is invoked, like the invoke's values)."""
    site: Span | None = None
    partials: dict = field(default_factory=dict)


@dataclass
class Seq:
    """A list or tuple. `repeated`: grown in a loop (its length is not known). `unordered`: built
    by iterating an unordered source (its order differs between runs). `ordered`: the result of
    `sorted(...)`. `head`: a list grown in a loop whose first items were written before it; `tail`:
    one whose last items were added once after it (`msgs.append(question)` after a loop of examples)."""
    items: list["Value"]
    span: Span | None = None
    repeated: bool = False
    is_tuple: bool = False
    node: ast.AST | None = None
    unordered: Segment | None = None
    ordered: bool = False
    head: int = 0  # of a repeated list: how many leading items are known (written before the loop)
    tail: int = 0  # of a repeated list: how many last items were added once, after the loop
    markers: tuple = ()  # cache breakpoints set on its items by statements: (Span, True once per item, False once, or n)


@dataclass
class Spread:
    value: "Value"
    span: Span | None = None
    expr: str = ""


@dataclass
class Mapping:
    """A dict. `items` by static key; `node` the dict display when every key order is the code's
    (None when merged from data we cannot see). A dict built in a loop or a comprehension is
    `repeated` (its keys are not known) with `value` one of its values, and `unordered` when the
    loop iterates an unordered source (its key order differs between runs). `open`: it may hold
    keys not known besides its `items` (merged from a dict whose keys are not known: `{**params,
    "system": text}`, `dict(options)`, `d.update(kwargs)` of a parameter): sent as `**d`, it may
    set any option, so the call's options are not all known (`Call.unread`). `keywords`: the
    name of the `**kwargs` parameter it is bound to, when it is the keywords a call hands a function
    beyond its other parameters (`def generate(question, **legacy)`): a key it does not hold is
    one a caller may pass (`keyword_entry`). `key`: of a dict filled by key in a loop, one of its
    keys when the code says which (`ent_props[e.label] = ...`: `e.label`), else None."""

    items: dict[str, "Value"]
    key_spans: dict[str, Span] = field(default_factory=dict)
    span: Span | None = None
    node: ast.AST | None = None
    repeated: bool = False
    value: "Value | None" = None
    unordered: Segment | None = None
    open: bool = False
    keywords: str = ""
    key: "Value | None" = None


@dataclass
class Obj:
    """An instance. `state`: of a prompt builder the code built and added sections to, its
    containers' sections in order (flow/builders.py); None when not tracked."""
    qualname: str
    args: list["Value"] = field(default_factory=list)
    kwargs: dict[str, "Value"] = field(default_factory=dict)
    span: Span | None = None
    node: ast.AST | None = None
    state: dict | None = None


@dataclass
class PathV:
    """A file path: `path` when it is known statically; `volatile` the segment that makes it
    change (a uuid or a time in one of its parts), which survives joins and use as text."""

    path: Path | None
    volatile: Segment | None = None


@dataclass
class Config:
    path: Path
    text: str
    keys: list[Any]
    data: Any


@dataclass
class Func:
    module: Any
    node: ast.FunctionDef | ast.AsyncFunctionDef
    cls: ast.ClassDef | None = None
    self_value: "Value | None" = None


@dataclass
class ClassRef:
    module: Any
    node: ast.ClassDef


@dataclass
class Alt:
    """One of several values. `fallback`: a value or the default that replaces it when it is
    missing (`x or DEFAULT`, `if x is None: x = DEFAULT`, `x if x is not None else DEFAULT`):
    which one is used depends on whether the caller or the configuration gives it, one value per
    deployment or caller, not a choice between variants made per request. `configured`: chosen
    by a condition that reads only configuration (`if self.markdown:`): one variant per deployment,
    the same on every request. `per_caller`: the arguments the call sites of a function pass for
    one parameter (or the constructor calls for one field): each caller passes its own, the same
    on every call it makes."""
    options: list["Value"]
    span: Span | None = None
    fallback: bool = False
    configured: bool = False  # chosen by a condition on configuration (`configured.configured_test`)
    per_caller: bool = False  # what each call site passes (`callers.caller_arguments`): one value per caller


Value = Union[Text, Seq, Spread, Mapping, Obj, PathV, Config, Func, ClassRef, Alt]


def dynamic(span: Span | None, expr: str, kind: Kind = Kind.UNKNOWN,
            volatility: Volatility = Volatility.UNKNOWN, evidence: str = "", **extra) -> Text:
    """A Text of one dynamic segment."""
    return Text([Segment(span=span, kind=kind, volatility=volatility, expr=expr, evidence=evidence, **extra)])


def handed_in(name: str) -> dict:
    """The fields of a segment read from the parameter `name` of a function (`Segment.source`),
    for `dynamic(..., **handed_in(name))`."""
    return {"source": Source.PARAMETER, "source_name": name}


def keyword_entry(keywords: Mapping, key: str, span: Span | None, expr: str) -> Text:
    """The value of the key `key` read from the keywords a call hands a `**kwargs` parameter
    (`keywords.keywords` its name) that the calls read do not pass (`kwargs.pop("schema")`, a
    legacy name of a parameter): what a caller may pass under that name, of unknown kind and
    volatility, read from that parameter."""
    return dynamic(span, expr, Kind.UNKNOWN, Volatility.UNKNOWN,
                   f"the keyword `{key}` a caller may pass through `**{keywords.keywords}`",
                   **handed_in(keywords.keywords))


def keyword_read(base, key: str, default, span: Span | None, expr: str):
    """What `kwargs.pop(key[, default])`, `kwargs.get(key[, default])` or `kwargs[key]` reads from
    the keywords a call hands a `**kwargs` parameter (`Mapping.keywords`; one such dict per caller
    too, an `Alt` of them): the value a call passes under `key`; else, given a default, that
    default when the dict holds only the keywords the call writes (not `open`), or either; else a
    keyword a caller may pass (`keyword_entry`). None for another receiver."""
    options = base.options if isinstance(base, Alt) else [base]
    if not options or not all(isinstance(o, Mapping) and o.keywords for o in options):
        return None
    found = []
    for o in options:
        if key in o.items:
            found.append(o.items[key])
            continue
        if default is not None and not o.open:
            found.append(default)
            continue
        entry = keyword_entry(o, key, span, expr)
        found.append(entry if default is None else Alt([entry, default], span, fallback=True))
    return found[0] if not isinstance(base, Alt) else replace(base, options=found)


def from_older(span: Span | None, expr: str, older: Segment) -> Text:
    """Text made from the older part of the conversation (`older`: a history segment sliced short
    of its newest messages, `history[:cut]`): a summary of what a compaction cuts, or one of those
    messages. It does not hold the newest message, so it is not new with each request; it changes
    when the cut moves, and how often that is (each turn, or at a compaction) the slice does not
    say: unknown volatility, marked `older` so that what is made of it stays so."""
    what = older.expr if older.kind is Kind.HISTORY else older.evidence.split("`")[1]
    return dynamic(span, expr, Kind.UNKNOWN, Volatility.UNKNOWN,
                   f"made from the older part of the conversation `{what}`: changes where it is cut", older=True)


def grown_name(seg: Segment) -> str:
    """The list an instance grows that a history segment not known to hold the conversation
    (`Segment.unconfirmed`) stands for: `self.candidates` of the evidence "`self.candidates`
    grows across turns", else the segment's own expression."""
    named = seg.evidence.split("`")
    return named[1] if seg.evidence.startswith("`") and len(named) > 2 else seg.expr


def is_none(v) -> bool:
    """True for the value `None`."""
    return isinstance(v, Text) and len(v.segs) == 1 and v.segs[0].is_static and v.segs[0].text == "None"


def static(text: str, span: Span | None) -> Text:
    return Text([Segment(text=text, span=span)])


_VOL_RANK = {Volatility.STABLE: 0, Volatility.UNKNOWN: 1, Volatility.PER_PROCESS: 2,
             Volatility.PER_DAY: 3, Volatility.PER_CONVERSATION: 4, Volatility.PER_REQUEST: 5}


def most_volatile(segs) -> Segment | None:
    """The dynamic segment that changes most often, or None when all are static."""
    best = None
    for s in segs:
        if s.kind is not None and (best is None or _VOL_RANK[s.volatility] > _VOL_RANK[best.volatility]):
            best = s
    return best


def vol_rank(v: Volatility) -> int:
    return _VOL_RANK[v]


def held_order(value, depth: int = 0, objects: bool = False) -> Segment | None:
    """The unordered-iteration segment a value holds anywhere in it (its text, a list's or dict's
    own order, an item or value of it, nested up to 4 deep), or None: a dict whose values hold
    one (`{"values": ", ".join(list(s)[:20])}`) renders them in that order. `objects`: also in
    the arguments an instance of a class of the tree was built with (`Event(participants=list(set(p)))`:
    a record whose fields are serialised as they are, a tool's result; not the keywords of a call
    to code we cannot read, `adapter.dump(rows, exclude={"ctx"})`)."""
    if depth > 4:
        return None
    if isinstance(value, Text):
        return next((s for s in value.segs if s.kind is Kind.UNORDERED_ITERATION), None)
    if isinstance(value, Spread):
        return held_order(value.value, depth + 1, objects)
    if isinstance(value, (Seq, Mapping)) and value.unordered is not None and not getattr(value, "ordered", False):
        return value.unordered
    if isinstance(value, Seq):
        items = value.items
    elif isinstance(value, Mapping):
        items = [*value.items.values(), *([value.value] if value.repeated and value.value is not None else [])]
    elif isinstance(value, Alt):
        items = value.options
    elif objects and isinstance(value, Obj) and value.qualname.startswith("instance:"):
        items = [*value.args, *value.kwargs.values()]  # (a class of the tree: a record of what it is built with)
    else:
        return None
    return next((o for o in (held_order(i, depth + 1, objects) for i in items[:16]) if o is not None), None)


def sublist(base, node, exact: bool = False) -> Seq | None:
    """A slice (`node`, an ast.Subscript) of a list read as a list (no conversation spread into
    it: cuts of those are judged in flow/windows.py): a list of the same items, how many not known
    (`repeated`); with `exact` (the slice is read once, not in a loop that cuts the list pass after
    pass), of a list written out with integer bounds (`system[:-1]`), those items themselves.
    None for anything else."""
    if not (isinstance(base, Seq) and isinstance(node.slice, ast.Slice) and base.items):
        return None
    if any(isinstance(i, Spread) for i in base.items):
        return None
    bounds = [_int(b) for b in (node.slice.lower, node.slice.upper, node.slice.step)]
    if exact and not base.repeated and all(b is not False for b in bounds) and bounds[2] != 0:
        return replace(base, items=base.items[bounds[0]:bounds[1]:bounds[2]])
    return replace(base, repeated=True)


def _int(node):
    """The integer a slice bound is written as (`1`, `-1`), None for a bound left out, False for
    any other."""
    if node is None:
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int(node.operand)
        return -inner if type(inner) is int else False
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else False


def branch_keys(value, depth: int = 0):
    """The dict that the branches building it (`d = {...}; if extra: d.update(extra)`) make, read
    as one Mapping holding every key any branch sets: a key set to different values in different
    branches holds their `Alt`. `value` itself when it is not an `Alt` of dicts (a Mapping, or any
    other value, returned unchanged); `open` when any branch may hold keys not known."""
    if not isinstance(value, Alt) or depth > 4:
        return value
    merged = [branch_keys(o, depth + 1) for o in value.options]
    if not merged or not all(isinstance(m, Mapping) for m in merged):
        return value
    items: dict = {}
    for m in merged:
        for k, v in m.items.items():
            items.setdefault(k, []).append(v)
    out = {k: vs[0] if all(v is vs[0] or v == vs[0] for v in vs) else Alt(vs, value.span, fallback=value.fallback,
                                                                    configured=value.configured,
                                                                    per_caller=value.per_caller)
           for k, vs in items.items()}
    return Mapping(out, open=any(m.open or m.repeated for m in merged))
