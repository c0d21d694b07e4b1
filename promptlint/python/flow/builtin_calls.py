"""Builtins called by plain name (`str`, `open`, `sorted`, `list`, `reversed`, `int`, `dict`, `max`,
`next`, ...): `BUILTINS[name](evaluator, node, name, args, kwargs, frame, env) -> Value`, None from
a handler: not handled, evaluate as a normal call. What each gives follows the order and
volatility of its argument (an unordered source sorted, listed or picked from)."""
from __future__ import annotations

import ast

from ...model import Kind, Segment, Volatility, replace
from .variants import one_dict
from .values import Alt, ClassRef, Mapping, Obj, Seq, Text, Value, dynamic, most_volatile


def _str(ev, node, qual, args, kwargs, frame, env):
    return ev.eval(args[0], frame, env) if args else None


def _open(ev, node, qual, args, kwargs, frame, env):
    if not args:
        return None
    return Obj("file", args=[ev.eval(args[0], frame, env)], span=frame.module.span(node), node=node)


def _sorted(ev, node, qual, args, kwargs, frame, env):
    if not args:
        return None
    m = frame.module
    span = m.span(node)
    inner = ev.eval(args[0], frame, env)
    segs = ev.text_of(inner, frame) if isinstance(inner, (Text, Alt)) else []
    src = most_volatile(segs)
    if isinstance(inner, Seq):
        return Seq(inner.items, span, repeated=inner.repeated, node=node, ordered=True)
    if src is not None and src.kind is Kind.UNORDERED_ITERATION:
        return Seq([], span, repeated=True, node=node, ordered=True)
    if src is not None:
        return ev.derived(inner, node, frame, m.code(node))
    return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE, "sorted")


def _list(ev, node, qual, args, kwargs, frame, env):
    """`list(x)` / `tuple(x)`: the value of `x`; of a set not yet iterated anywhere (one
    unordered segment with no fix place), the same set with this call as the place it was made a
    list in its hash order (`Segment.listed`: where it is iterated into text later, in a helper
    this list is handed to, each such call is a place to sort it)."""
    if not args:
        return None
    inner = ev.eval(args[0], frame, env)
    if isinstance(inner, Text) and len(inner.segs) == 1:
        seg = inner.segs[0]
        if seg.kind is Kind.UNORDERED_ITERATION and seg.anchor is None and seg.fix is None \
                and seg.volatility is not Volatility.PER_REQUEST and not seg.listed:
            return Text([replace(seg, listed=(frame.module.span(node),))])
    return inner


def _reversed(ev, node, qual, args, kwargs, frame, env):
    """`reversed(xs)`: a list display's items in the other order; any other value as it was (a
    conversation walked backwards is still that conversation)."""
    if not args:
        return None
    inner = ev.eval(args[0], frame, env)
    if isinstance(inner, Seq) and not inner.repeated:
        return replace(inner, items=inner.items[::-1])
    return inner


def _filter(ev, node, qual, args, kwargs, frame, env):
    """`filter(None, xs)` / `filter(bool, xs)`: the items of `xs` that are not empty, in their
    order (the parts of a prompt joined after dropping the missing ones: `"\\n".join(filter(None,
    parts))`); an item known to be empty (`""`, a branch's `x if c else ""` keeps its other
    variant) is left out, any other is kept. None (the call's ordinary reading) for another
    predicate, whose choice of items is not known."""
    if len(args) != 2 or kwargs or not (isinstance(args[0], ast.Constant) and args[0].value is None
                                        or isinstance(args[0], ast.Name) and args[0].id == "bool"):
        return None
    inner = ev.eval(args[1], frame, env)
    if isinstance(inner, Seq) and not inner.repeated:
        return replace(inner, items=[i for i in inner.items if not _empty(i)])
    return inner


def _zip(ev, node, qual, args, kwargs, frame, env):
    """`zip(a, b, ...)`: tuples of one item of each argument (as volatile as those items), in the
    order of the arguments; where one is in an unordered order (a set, a list made by iterating
    one, what `gather` gave for each of its items), in that order (the first such argument's),
    which the code iterating it keeps. The order is reported where it was made, with no fix at
    the zip: sorting one argument would pair its items with the wrong items of the others."""
    if not args or kwargs or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    values = [ev.eval(a, frame, env) for a in args]
    order = next((o for o in map(_own_order, values) if o is not None), None)
    span = frame.module.span(node)
    items = [_unanchored(ev.item_of(v, a, frame, frame.module.code(a))) for v, a in zip(values, args)]
    return Seq([Seq(items, span, is_tuple=True)], span, repeated=True, node=node,
               ordered=order is None and all(isinstance(v, Seq) and v.ordered for v in values),
               unordered=None if order is None else replace(order, anchor=None, fix=None,
                                                            origin=order.origin or order.span))


def zip_member(ev, iterable, index: int | None, frame, env, name: str):
    """The value the `index`-th name of a target of plain names takes from `zip(a, b, ...)`
    iterated (`for question, doc in zip(questions, docs)`): an item of that argument, named as the
    loop names it, with no fix place (see `_zip`); None for any other loop."""
    if not (index is not None and isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name)
            and iterable.func.id == "zip" and not iterable.keywords and index < len(iterable.args)
            and not any(isinstance(a, ast.Starred) for a in iterable.args)):
        return None
    arg = iterable.args[index]
    return _unanchored(ev.item_of(ev.eval(arg, frame, env), arg, frame, name))


def _own_order(value) -> Segment | None:
    """The unordered order of a list or of a raw unordered source itself (not of an item of it)."""
    if isinstance(value, Seq):
        return value.unordered if value.unordered is not None and not value.ordered else None
    if isinstance(value, Text):
        return next((s for s in value.segs if s.kind is Kind.UNORDERED_ITERATION), None)
    return None


def _unanchored(value):
    """`value` with no fix place on its unordered segments (an item of a zip: see `_zip`)."""
    if isinstance(value, Text):
        return Text([replace(s, anchor=None, fix=None) if s.kind is Kind.UNORDERED_ITERATION else s
                     for s in value.segs])
    return value


def _empty(value) -> bool:
    """True for text known to be empty (`""`, no segment)."""
    return isinstance(value, Text) and all(s.is_static and not s.text for s in value.segs)


def _number(ev, node, qual, args, kwargs, frame, env):
    """`len(x)`, `int(x)`...: a number that changes as `x` does; of a collection in an unordered
    order (`len(self.done)` of a `Set[str]`), as its contents do: a count has no order."""
    m = frame.module
    inner = ev.eval(args[0], frame, env) if args else None
    if inner is None:
        return dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.STABLE)
    segs = ev.text_of(inner, frame) if isinstance(inner, (Text, Alt)) else []
    if any(s.kind is Kind.UNORDERED_ITERATION for s in segs):
        return dynamic(m.span(node), m.code(node), evidence=f"a count of `{m.code(args[0])}` (its order does not matter)")
    return ev.derived(inner, node, frame, m.code(node))


def _dict(ev, node, qual, args, kwargs, frame, env):
    """`dict(...)`: of a dict or keywords, their items; of key-value pairs made by iterating an
    unordered source (`dict((f, {}) for f in fields_set)`), a dict in that source's order."""
    kw = {k: ev.eval(v, frame, env) for k, v in kwargs.items()}
    base = ev.eval(args[0], frame, env) if args else None
    if isinstance(base, Alt) and not kw and base.options and all(isinstance(o, Mapping) for o in base.options):
        # a copy of one of several dicts (a helper's parameter given another dict by each call)
        return replace(base, options=[_copied(o, frame.module.span(node), node) for o in base.options])
    if isinstance(base, Seq) and base.unordered is not None and not base.ordered and not kw:
        pair = base.items[0] if len(base.items) == 1 else None
        value = pair.items[1] if isinstance(pair, Seq) and len(pair.items) == 2 else None
        return Mapping({}, span=frame.module.span(node), node=None, repeated=True, value=value,
                       unordered=base.unordered)
    if isinstance(base, Mapping) and base.repeated and not kw:
        return base  # `dict(results)` of a dict filled in a loop: the same keys, values and order
    if isinstance(base, (Text, Alt)) and not kw and not node.keywords and one_dict(base) is None \
            and any(s.stored is not None for s in ev.text_of(base, frame)):
        return base  # `dict(row)` of a row read back from a store (`Segment.stored`): that row, in the store's order
    if base is None or isinstance(base, Obj) and base.qualname.startswith("instance:"):
        items, opened = _fields(ev, base, frame), False
    else:  # a dict (one of several: every key of any), else data whose keys are not known
        known = one_dict(base)
        items, opened = (dict(known.items), known.open or known.repeated) if known is not None else ({}, True)
    for spread in (k.value for k in node.keywords if k.arg is None):  # `dict(base, **options)`
        known = one_dict(ev.eval(spread, frame, env))
        items.update(known.items if known is not None else {})
        opened = opened or known is None or known.open or known.repeated
    items.update(kw)
    return Mapping(items, {}, frame.module.span(node), node, open=opened)


def _copied(base: Mapping, span, node) -> Mapping:
    """`dict(d)` of one dict: a repeated one as it is, else its items in a new dict."""
    return base if base.repeated else Mapping(dict(base.items), dict(base.key_spans), span, node, open=base.open)


def _fields(ev, obj, frame) -> dict:
    """`dict(model)` of an instance of a class of the tree (a pydantic model iterates its
    fields): its annotated class-level fields, name -> value (given to the constructor, else the
    class default); {} for anything else."""
    if not (isinstance(obj, Obj) and obj.qualname.startswith("instance:") and obj.args
            and isinstance(obj.args[0], ClassRef)):
        return {}
    names: list[str] = []
    for _module, cls in ev.mro(obj.args[0].module, obj.args[0].node):
        names.extend(s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                     and s.target.id not in names)
    out = {}
    for name in names:
        value = obj.kwargs.get(name)
        if value is None:
            value = ev.attr_of(obj, name, None, frame)
        if value is not None:
            out[name] = value
    return out


def _pick(ev, node, qual, args, kwargs, frame, env) -> Value | None:
    """`max(items, key=f)` / `min(...)` and `next(iter(items))` of an unordered value: which item
    is picked depends on the iteration order (the first of the items with the best key wins:
    `max(set(exts), key=exts.count)` on a tie; the first item of a set), so the pick varies as
    the order does. None (the call's ordinary reading) for anything else, and for `max(items)`
    without a key, which is the same whatever the order."""
    if len(args) != 1 or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    source = args[0]
    if qual == "next":
        if not (isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "iter"
                and len(source.args) == 1):
            return None
        source, how = source.args[0], "the first item"
    elif "key" in kwargs:
        how = f"which item `{qual}(..., key=...)` picks among equal keys"
    else:
        return None
    value = ev.eval(source, frame, env)
    seg = value.unordered if isinstance(value, Seq) else next(
        (s for s in value.segs if s.kind is Kind.UNORDERED_ITERATION), None) if isinstance(value, Text) else None
    if seg is None:
        return None
    m = frame.module
    why = seg.evidence.split(":")[0] if seg.evidence else "an unordered value"
    return Text([replace(seg, span=m.span(node), expr=m.code(node), origin=seg.origin or seg.span,
                         evidence=f"{how} depends on the order of {why}")])

def fromkeys(ev, node, qual, args, kwargs, frame, env) -> Value:
    """`dict.fromkeys(xs, v)` (`OrderedDict.fromkeys`): the dedupe that keeps the order of `xs`;
    iterated, listed or joined, its keys are the items of `xs` in `xs`'s order: of a set, the
    set's hash order (`list(dict.fromkeys(set(qs)))` is unordered), of a list or text, that
    value as it is. A dict of known keys gives its keys; anything else, the call as any other."""
    source = ev.eval(args[0], frame, env) if len(args) == 1 or len(args) == 2 and not kwargs else None
    held = source.unordered if isinstance(source, Seq) and not source.ordered else next(
        (s for s in source.segs if s.kind is Kind.UNORDERED_ITERATION), None) if isinstance(source, Text) else None
    if held is not None:  # a dict in the set's order: its keys, values and items as `_view` reads them
        value = ev.eval(args[1], frame, env) if len(args) == 2 else Text([])
        return Mapping({}, span=frame.module.span(node), node=None, repeated=True, value=value, unordered=held)
    if isinstance(source, (Text, Seq, Alt)):
        return source
    if isinstance(source, Mapping) and not source.repeated and not source.open:
        return Seq([Text([Segment(text=k, span=source.key_spans.get(k))]) for k in source.items], frame.module.span(node))
    return ev.invoke(ev.eval(node.func, frame, env), node, args, kwargs, frame, env, qual)


def _getattr(ev, node, qual, args, kwargs, frame, env) -> Value | None:
    """`getattr(obj, "name")` is `obj.name`; `getattr(obj, "name", default)` that or the default
    (a value or its default, `Alt.fallback`). None for a name made at run time."""
    if len(args) not in (2, 3) or kwargs or not (isinstance(args[1], ast.Constant) and isinstance(args[1].value, str)) \
            or not args[1].value.isidentifier():
        return None
    read = ast.copy_location(ast.Attribute(args[0], args[1].value, ast.Load()), node)
    read.end_lineno, read.end_col_offset = node.end_lineno, node.end_col_offset
    value = ev.eval(read, frame, env)
    if len(args) == 2:
        return value
    return Alt([value, ev.eval(args[2], frame, env)], frame.module.span(node), fallback=True)


BUILTINS = {"getattr": _getattr, "str": _str, "repr": _str, "open": _open, "sorted": _sorted, "list": _list, "tuple": _list,
            "reversed": _reversed, "filter": _filter, "zip": _zip,
            "int": _number, "float": _number, "len": _number, "bool": _number, "round": _number, "abs": _number,
            "dict": _dict, "max": _pick, "min": _pick, "next": _pick}
