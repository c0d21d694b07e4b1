"""A conversation rendered into text with its older turns written apart from the newest few
(PRM105): the list joined (`"\\n".join(lines)`) was filled by

- two loops over one list, one over all but its newest turns and one over the newest
  (`for t in turns[:-4]: lines.append(f"You: {t.q}\\nExpert: (omitted)")`, then
  `for t in turns[-4:]: lines.append(f"You: {t.q}\\nExpert: {t.a}")`), each writing a turn its
  own way, or
- one loop by index that writes a turn one way when it is among the newest and another way
  otherwise (`for i, t in enumerate(turns): if i >= len(turns) - 4: ... else: ...`).

On every new turn the turn that leaves the newest few is written again the other way: the text
changes in its middle, and what a cache held of it ends there. `rendered_apart` finds the shape;
`join` marks the joined text with it (a stable segment of no text whose `window` is the shape).

The second shape in general (`older_apart`, `comp_apart`): any loop or comprehension that builds
a list (of messages or of text) or a text, giving each item's content one of two renderings of
the item by its place counted from the end (its index, or a counter it steps, compared with a
value made from the list's length; any place in a newest-first walk). The statement reader marks
the items it adds (`marked`: the content of each message), the layout keeps the mark in the
history part, and a helper that returns the messages is read for it (`apart_in`, `marks_in`).
"""
from __future__ import annotations

import ast

from ...model import replace

from ...model import Kind, Segment, Volatility
from ..walk import child_nodes, node_key, subtree
from .values import Alt, Mapping, Obj, Seq, Text

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def mark(text_segs: list[Segment], found: tuple[ast.AST, str], module, node) -> list[Segment]:
    """`text_segs` (the joined text, at `node`) with a marker in front: a stable segment of no text
    whose `window` is where the older turns are written apart (`found`, from `rendered_apart`)."""
    at, listed = found
    if any(s.window == module.span(at) for s in marks_of(text_segs)):
        return text_segs  # marked already (a list joined after its items were)
    marker = Segment(kind=Kind.UNKNOWN, volatility=Volatility.STABLE, expr=listed, span=module.span(node),
                     window=module.span(at),
                     evidence=f"`{listed}` written into text with its older turns written apart from the newest")
    return [marker, *text_segs]


def marks_of(segs: list[Segment]) -> list[Segment]:
    """The markers `mark` put in a text."""
    return [s for s in segs if s.window is not None and not s.text and s.kind is Kind.UNKNOWN
            and s.volatility is Volatility.STABLE]


def rendered_apart(func, name: str) -> tuple[ast.AST, str] | None:
    """(where, the list's source) for the first shape of the module docstring that fills `name`
    in `func`, or None."""
    if not isinstance(func, _FUNCS):
        return None
    older: dict[str, ast.For] = {}
    newer: dict[str, ast.For] = {}
    for loop in subtree(func):
        if not isinstance(loop, ast.For) or not _appends(loop.body, name):
            continue
        it = loop.iter
        if isinstance(it, ast.Subscript) and isinstance(it.slice, ast.Slice) and it.slice.step is None:
            key = node_key(it.value)
            sl = it.slice
            if sl.lower is None and _from_end(sl.upper):
                older.setdefault(key, loop)
            elif sl.upper is None and _from_end(sl.lower):
                newer.setdefault(key, loop)
        found = _by_index(loop, name, func)
        if found is not None:
            return found
    for key, loop in older.items():
        other = newer.get(key)
        if other is not None and _written(loop.body, name) != _written(other.body, name):
            return loop, ast.unparse(loop.iter.value)
    return None


def _from_end(bound) -> bool:
    """A bound counted from the end: `-4`, `-k`, `len(xs) - k`."""
    if isinstance(bound, ast.UnaryOp) and isinstance(bound.op, ast.USub):
        return not (isinstance(bound.operand, ast.Constant) and bound.operand.value == 0)
    return isinstance(bound, ast.BinOp) and isinstance(bound.op, ast.Sub) and _is_len(bound.left)


def _is_len(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"


def _by_index(loop: ast.For, name: str, func=None) -> tuple[ast.AST, str] | None:
    """The second shape (`older_apart`), names resolved by their assignment in `func`."""
    return older_apart(loop, name, func_resolver(func))


def _appends(body, name: str) -> bool:
    return bool(_written(body, name))


def _written(body, name: str) -> set[str]:
    """The source of what the statements append to `name` (`name.append(x)`), each once."""
    out = set()
    for stmt in body:
        for n in subtree(stmt):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append" \
                    and isinstance(n.func.value, ast.Name) and n.func.value.id == name and n.args:
                out.add(node_key(n.args[0]))
    return out


# ------------------------------------------------------------------ rendered apart, one loop
#: The nodes that read a value (what a rendering is made of; constants are not: a separator).
_READS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)
_NESTED = (ast.For, ast.AsyncFor, ast.While, *_FUNCS, ast.Lambda, ast.ClassDef)
_ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)


def older_apart(loop, name: str, resolve, flags: bool = False) -> tuple[ast.AST, str] | None:
    """(the test, the list's source) of a `for` loop over a list `xs` that grows `name` (appends
    to it, `name += ...`) with each item rendered one way or another by a test of the item's
    place counted from the end: its index or a counter it steps (`obs_number += 1`) compared with
    a value made from the length of xs (`i < len(xs) - 1`, `n < n_short` where `n_short = n_obs -
    keep` and `n_obs = len([s for s in xs if ...])`), or any place in a walk newest first
    (`enumerate(reversed(xs))`), also a flag the walk sets once it has passed the newest item of a
    kind (`found_last = True`, then `if found_last: m = m.model_copy(update={"content": text})`),
    with `flags` (a function's own reading: the flow reads such a walk as a cut of the newest).
    The branches (of an `if`, or of an `a if test else b`) give what
    flows into the appended item (`view = step.short_view()` / `view = step.llm_view()`, then
    `name.append({"content": view})`) and read different values: on every new item the boundary
    moves and an item sent one way last turn is sent the other way. A test counted from the start
    (`if i < 3:`) keeps a stable head; branches that differ only in constants (a separator) do
    not rewrite. `resolve(name)` gives the expression a name was assigned, or None."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return None
    source, index, newest_first = _walked(loop.iter, loop.target)
    if source is None:
        return None
    nodes = list(_own(loop.body))
    counters = {n.target.id for n in nodes if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add)
                and isinstance(n.target, ast.Name) and isinstance(n.value, ast.Constant)}
    places = counters | ({index} if index else set())
    seen = {n.targets[0].id for n in nodes if flags and newest_first and isinstance(n, ast.Assign) and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Constant) and n.value.value is True}
    if not places and not seen:  # (most loops count nothing: the flows to what they append are not read)
        return None
    flows = _flows(nodes, name)
    if not flows:
        return None
    item = _derived(nodes, {x.id for x in subtree(loop.target) if isinstance(x, ast.Name)} - {index})
    contents = {id(x) for n in nodes if _grows(n, name) or _target(n) in flows and _target(n) != name
                for c in _contents(n) for x in subtree(c)}
    fresh = frozenset(n.targets[0].id for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
                      and isinstance(n.targets[0], ast.Name)) - item
    for node in nodes:
        if isinstance(node, (ast.If, ast.IfExp)) and (
                placed_from_end(node.test, places, source, resolve, newest_first,
                                 index if newest_first == "index" else None)
                or any(isinstance(x, ast.Name) and x.id in seen for x in subtree(node.test))):
            if _differ(node, flows, name, item, contents, fresh) or _decorated(node, nodes, name, item, fresh):
                return node.test, ast.unparse(source)
    return None


def _derived(nodes, item: set) -> set:
    """The item's names with those the loop assigns a field of the item (`num = step["num"]`,
    `text = step.get("text")`, `note = step.note`; not a copy of it): a rendering that reads them
    reads the item."""
    out = set(item)
    for n in nodes:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            v = n.value
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "get":
                v = v.func
            if isinstance(v, (ast.Subscript, ast.Attribute)) and isinstance(v.value, ast.Name) and v.value.id in item:
                out.add(n.targets[0].id)
    return out


def comp_apart(node, resolve) -> tuple[ast.AST, str] | None:
    """(the test, the list's source) of a comprehension over `enumerate(xs)` whose element picks
    one of two renderings by the index counted from the end (`[m.short() if i < len(ms) - k else
    m.full() for i, m in enumerate(ms)]`): the shape of `older_apart`, one element per item."""
    if not isinstance(node, (ast.ListComp, ast.GeneratorExp)) or len(node.generators) != 1:
        return None
    comp = node.generators[0]
    source, index, newest_first = _walked(comp.iter, comp.target)
    if source is None or not index:
        return None
    item = {x.id for x in subtree(comp.target) if isinstance(x, ast.Name)} - {index}
    contents = {id(x) for c in _content_of(node.elt) for x in subtree(c)}
    for n in subtree(node.elt):
        if isinstance(n, ast.IfExp) and placed_from_end(n.test, {index}, source, resolve, newest_first, index) \
                and _differ(n, set(), "", item, contents):
            return n.test, ast.unparse(source)
    return None


def marked(value, found: tuple[ast.AST, str], module):
    """`value` (a list grown in the loop `found` comes from, or a text) with the marker of `mark`
    in front of the text of each item the loop added: a message's content, a text item."""
    if isinstance(value, Text):
        return Text(mark(value.segs, found, module, found[0]))
    if isinstance(value, Seq):
        head = value.head if value.repeated else 0
        return replace(value, items=[*value.items[:head], *(marked(i, found, module) for i in value.items[head:])])
    if isinstance(value, Mapping):
        key = next((k for k in ("content", "text", "parts") if k in value.items), None)
        return replace(value, items={**value.items, key: marked(value.items[key], found, module)}) if key else value
    if isinstance(value, Obj):
        key = next((k for k in ("content", "text", "parts") if k in value.kwargs), None)
        return replace(value, kwargs={**value.kwargs, key: marked(value.kwargs[key], found, module)}) if key else value
    if isinstance(value, Alt):
        return replace(value, options=[marked(o, found, module) for o in value.options])
    return value


def env_resolver(env: dict):
    """`resolve` for `older_apart` from the evaluator's bindings (a name bound to an expression;
    one then stepped by a constant, `last = len(xs) - 1` then `last -= 1` in a walk back, is read
    as the expression it was stepped from)."""
    def resolve(name: str):
        th = env.get(name) if env else None
        for _ in range(4):
            if th is None or th.kind != "aug" or not isinstance(th.node, ast.Constant):
                break
            th = th.prev
        return th.node if th is not None and th.kind == "expr" else None
    return resolve


def func_resolver(func):
    """`resolve` for `older_apart` from the assignments of a function (the first of a name)."""
    def resolve(name: str):
        for n in subtree(func) if func is not None else ():
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                    and n.targets[0].id == name:
                return n.value
        return None
    return resolve


def _walked(it, target) -> tuple[ast.expr | None, str, str]:
    """(the list walked, the name of its enumerate index or "", how the walk is newest first: ""
    no, "index" the index counts from the newest (`enumerate(reversed(xs))`), "walk" only the
    walk is (`reversed(list(enumerate(xs)))`: counters count from the newest))."""
    index, newest = "", ""
    outer_rev = _reversed(it)
    if outer_rev is not None:
        it, newest = outer_rev, "walk"
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" and it.args:
        if isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name):
            index = target.elts[0].id if not newest else ""
        it = it.args[0]
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "list" and len(it.args) == 1:
            it = it.args[0]
        inner_rev = _reversed(it)
        if inner_rev is not None:
            it, newest = inner_rev, "index"
    return (it if isinstance(it, (ast.Name, ast.Attribute)) else None), index, newest


def _reversed(it) -> ast.expr | None:
    """`xs` of `reversed(xs)` / `xs[::-1]` (also inside `list(...)`), else None."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "list" and len(it.args) == 1:
        it = it.args[0]
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "reversed" and len(it.args) == 1:
        return it.args[0]
    if (isinstance(it, ast.Subscript) and isinstance(it.slice, ast.Slice) and it.slice.lower is None
            and it.slice.upper is None and isinstance(it.slice.step, ast.UnaryOp) and isinstance(it.slice.step.op, ast.USub)):
        return it.value
    return None


def _own(stmts):
    """The nodes of a loop body, not those of a loop or function nested in it."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _NESTED):
            stack.extend(child_nodes(node))


def _flows(nodes, name: str) -> set[str]:
    """The names whose value reaches the content of what the loop appends to `name` (read in it,
    `name += ...`, or assigned to such a name: `msg = {"content": view}`), with `name` itself; an
    id or metadata given beside the content is not it (`UIMessage(id=message_id, parts=parts)`)."""
    reads = {x.id for n in nodes if _grows(n, name) and not _counted(n) for c in _contents(n) for x in subtree(c)
             if isinstance(x, ast.Name)}
    if not reads:
        return set()
    flows = reads | {name}
    targeted = [(t, n) for n in nodes if (t := _target(n)) is not None and t != name]  # (read once, in order)
    for _ in range(4):
        for t, n in targeted:
            if t in flows:
                flows |= {x.id for c in _contents(n) for x in subtree(c) if isinstance(x, ast.Name)}
    return flows


#: The keys (or keywords) of a message that hold what it says.
_CONTENT = ("content", "text", "parts", "blocks")


def _contents(n) -> list[ast.expr]:
    """The expressions a statement gives as content: of an append (`name.append(x)`, `name += x`)
    or an assignment (`view = x`), x itself, or only its content when x is a message written out
    (a dict display or a call with a `content=` keyword); nothing for an item set by another key
    (`msg["id"] = ...`)."""
    if isinstance(n, ast.Call):
        values = list(n.args)
    elif isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and n.value is not None:
        t = n.targets[0] if isinstance(n, ast.Assign) else n.target
        if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and t.slice.value not in _CONTENT \
                or isinstance(t, ast.Attribute) and t.attr not in _CONTENT:
            return []
        values = [n.value]
    else:
        return []
    return [c for v in values for c in _content_of(v)]


def _content_of(v) -> list[ast.expr]:
    """The content of a message written out (the values of its content keys or keywords), or
    the value itself."""
    if isinstance(v, ast.Dict) and any(isinstance(k, ast.Constant) and k.value in _CONTENT for k in v.keys):
        return [x for k, x in zip(v.keys, v.values) if isinstance(k, ast.Constant) and k.value in _CONTENT]
    if isinstance(v, ast.Call) and any(k.arg in _CONTENT for k in v.keywords):
        return [k.value for k in v.keywords if k.arg in _CONTENT]
    return [v]


def _counted(n) -> bool:
    """True for `total += len(view)`: a number summed, not text or an item added."""
    v = n.value if isinstance(n, ast.AugAssign) else None
    return isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in ("len", "sum", "int", "float", "round")


def _grows(n, name: str) -> bool:
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend", "insert") \
            and isinstance(n.func.value, ast.Name) and n.func.value.id == name:
        return True
    return isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == name


def _target(n) -> str | None:
    """The name a statement assigns or sets an item or attribute of (`view = ...`, `view +=
    ...`, `msg["content"] = ...`), else None."""
    if isinstance(n, ast.Assign) and len(n.targets) == 1:
        t = n.targets[0]
    elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
        t = n.target
    else:
        return None
    while isinstance(t, (ast.Subscript, ast.Attribute)):
        t = t.value
    return t.id if isinstance(t, ast.Name) else None


def placed_from_end(test, places: set, source, resolve, newest_first: str, index: str | None) -> bool:
    """True for a test comparing a place (`places`) with a value made from the length of `source`
    (`len(xs)`, `len([m for m in xs if ...])`, names resolved up to three deep), or, in a walk
    newest first, comparing a place counted from the newest (its index; with `newest_first`
    "walk", a counter) with anything. A flag named in the test is read as the comparison it was
    assigned (`is_tail = i >= len(xs) - k`, then `if not is_tail:`)."""
    flags = [resolve(x.id) for x in subtree(test) if isinstance(x, ast.Name) and x.id not in places]
    tests = [test, *(f for f in flags if isinstance(f, (ast.Compare, ast.BoolOp)))]
    for cmp in (c for t in tests for c in subtree(t)):
        if not (isinstance(cmp, ast.Compare) and all(isinstance(op, _ORDER) for op in cmp.ops)):
            continue
        sides = [cmp.left, *cmp.comparators]
        named = {x.id for s in sides for x in subtree(s) if isinstance(x, ast.Name)}
        placed = named & places
        if not placed:
            continue
        if newest_first == "index" and index in placed or newest_first == "walk":
            return True
        if any(_counts(s, source, resolve, 0) for s in sides):
            return True
    return False


def _counts(node, source, resolve, depth: int) -> bool:
    """True when `node` is made from the length of `source` (a `len(...)` or `sum(...)` that reads
    it), through names assigned so (`resolve`), up to three deep."""
    key = node_key(source)
    for n in subtree(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("len", "sum") \
                and any(node_key(x) == key for a in n.args for x in subtree(a)):
            return True
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and depth < 3:
            found = resolve(n.id)
            if found is not None and _counts(found, source, resolve, depth + 1):
                return True
    return False


def _differ(node, flows: set, name: str, item: set, contents: set, fresh: frozenset = frozenset()) -> bool:
    """True when the branches of an `if` (or of an `a if test else b` in the content, `contents`
    the ids of its nodes) give the content of the item appended to `name` from different reads,
    one of them reading the loop's item (`item`: its names). An `if` with no `else` differs only
    by a value it gives a name (`text = m.text[:100]`): one that only appends keeps or drops an
    item (a filter, a window). A branch that adds a message of its own (a fixed filler), an id or
    a tag beside a copy of the item renders no item apart. `fresh`: the names the loop assigns
    on each item (a running total stepped in one branch, `t += step`, is no rendering)."""
    if isinstance(node, ast.IfExp):
        if id(node) not in contents:
            return False
        body, other = _reads(node.body, fresh), _reads(node.orelse, fresh)
    else:
        body = _rendered(node.body, flows, name, fresh, appends=bool(node.orelse))
        other = _rendered(node.orelse, flows, name, fresh) if node.orelse else set()
        if body is None or other is None:
            return False
    names = {node_key(ast.Name(id=i, ctx=ast.Load())) for i in item}
    return body != other and bool((body | other) & names)


def _decorated(node, nodes: list, name: str, item: set, fresh: frozenset) -> bool:
    """True for an `if` with no `else` that adds to `name` more of the item (`history += f"#
    {event['note']}"`) while the loop adds the item to `name` outside it too (`history += f"bot
    {event['intent']}"`): the newest items are written with something the older ones lose once
    they are no longer the newest (a note only the last turn shows)."""
    if not isinstance(node, ast.If) or node.orelse:
        return False
    names = {node_key(ast.Name(id=i, ctx=ast.Load())) for i in item}
    extra = _rendered(node.body, set(), name, fresh)
    if not extra or not extra & names:
        return False
    inside = {id(n) for n in _own(node.body)}
    return any(id(n) not in inside and _grows(n, name) and not _counted(n)
               and any(_reads(c, fresh) & names for c in _contents(n)) for n in nodes)


def _rendered(stmts, flows: set, name: str, fresh: frozenset, appends: bool = True) -> set[str] | None:
    """The reads of what the statements give the content of the appended item (assigned to a name
    that flows into it and is assigned on each item, or appended: `appends`), or None when they
    give it nothing."""
    out, gives = set(), False
    for n in _own(stmts):
        target = _target(n)
        if appends and _grows(n, name) or target in flows and target != name \
                and (target in fresh or not isinstance(n, ast.AugAssign)):
            for c in _contents(n):
                gives = True
                out |= _reads(c, fresh)
    return out if gives else None


def _reads(node, skip: frozenset = frozenset()) -> set[str]:
    """The values an expression reads (names, attributes, calls, subscripts; not its constants), a
    copy of a value as the value (`m.copy()`, `dict(m)`), not the names in `skip` (what the
    loop assigns: a copy made in it)."""
    out, stack = set(), [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Call) and _is_copy(n):
            stack.append(n.args[0] if n.args else n.func.value)
            continue
        if isinstance(n, _READS) and not (isinstance(n, ast.Name) and n.id in skip):
            out.add(node_key(n))
        stack.extend(child_nodes(n))
    return out


def _is_copy(call: ast.Call) -> bool:
    """`x.copy()`, `dict(x)`, `copy.copy(x)`, `copy.deepcopy(x)`, `list(x)`."""
    f = call.func
    if isinstance(f, ast.Attribute) and f.attr == "copy" and not call.args and not call.keywords:
        return True
    named = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
    return named in ("dict", "copy", "deepcopy", "list") and len(call.args) == 1 and not call.keywords


def apart_in(func) -> bool:
    """True when a loop or comprehension of `func` renders the items it adds apart by their age
    (`older_apart`, `comp_apart`): read for a conversation it returns so marked. Only a function
    whose text holds `for` and `enumerate` or `+=` can hold one (the place of an item is an
    enumerate index or a counter it steps)."""
    resolve = func_resolver(func)
    for node in subtree(func):
        if isinstance(node, (ast.For, ast.AsyncFor)):
            grown = {n.func.value.id for n in _own(node.body) if isinstance(n, ast.Call)
                     and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
                     and n.func.attr in ("append", "extend", "insert")}
            grown |= {n.target.id for n in _own(node.body) if isinstance(n, ast.AugAssign)
                      and isinstance(n.target, ast.Name) and not isinstance(n.value, ast.Constant)}
            if any(older_apart(node, name, resolve) for name in grown):
                return True
        elif isinstance(node, (ast.ListComp, ast.GeneratorExp)) and comp_apart(node, resolve) is not None:
            return True
    return False


def marks_in(value, depth: int = 0) -> list[Segment]:
    """The markers of `mark` in the messages of a list (their content, a text item) or a text,
    each place once."""
    if depth == 0:
        return list({s.window: s for s in marks_in(value, 1)}.values())
    if depth > 5:
        return []
    if isinstance(value, Text):
        return marks_of(value.segs)
    if isinstance(value, Seq):
        return [s for i in value.items for s in marks_in(i, depth + 1)]
    if isinstance(value, Mapping):
        return [s for k in ("content", "text", "parts") if k in value.items for s in marks_in(value.items[k], depth + 1)]
    if isinstance(value, Obj):
        return [s for k in ("content", "text", "parts") if k in value.kwargs for s in marks_in(value.kwargs[k], depth + 1)]
    if isinstance(value, Alt):
        return [s for o in value.options for s in marks_in(o, depth + 1)]
    return []
