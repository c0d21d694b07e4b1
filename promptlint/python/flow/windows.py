"""Cut conversations (PRM105): a conversation cut to its newest messages by a slice, a loop or a
call (`windowed`: the history segment marked with where it is cut), joined pieces of it sliced
again, the messages a selection keeps by membership in what a cut kept; a slice that ends short
of the newest messages (`_short_of_end`: `history[:cut]`) is the older part, marked `older`."""
from __future__ import annotations

import ast
import re
from ...model import replace

from ... import classify
from ...model import Kind, Segment, Volatility
from .fitted_starts import fitted_start
from .values import Alt, Mapping, Obj, Seq, Spread, Text, Value, dynamic
from ..walk import subtree

#: The evidence of a message read out of the conversation by index (`history[i]`) or by a loop
#: over it (`for m in history`).
TAKEN = "taken from the conversation"
MESSAGE_OF = "a message of `"


class WindowsMixin:
    """The Evaluator's reading of cut conversations (see the module docstring)."""

    def _kept_by(self, comp, frame, env) -> Value | None:
        """The cut conversation that a selection keeps the items of, by membership in a set built
        from that cut (`kept = {id(m) for m in newest}`, then `if id(m) in kept`), or None."""
        for test in comp.ifs:
            if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In)
                    and isinstance(test.comparators[0], ast.Name)):
                continue
            th = env.get(test.comparators[0].id)
            if th is None or th.kind != "expr" or th.node is None:
                continue
            for sub in subtree(th.node):
                if isinstance(sub, ast.comprehension) and isinstance(sub.iter, ast.Name):
                    seg = window_of(self.eval(sub.iter, frame, th.env))
                    if seg is not None:
                        return Text([seg])
        return None

    def _pieces_cut(self, base, node: ast.Subscript, frame) -> Value | None:
        """A slice of conversation pieces joined (`(head + tail)[:n]`; in each list a condition
        made): still the conversation, cut again when the slice keeps the newest; None for any
        other base."""
        if isinstance(base, Alt) and any(_history(o) or _pieces(o) for o in base.options):
            return Alt([self._pieces_cut(o, node, frame) or o for o in base.options], base.span)
        if not (_pieces(base) or _history(base) and isinstance(base, Text)):
            return None
        if not (_slides(node.slice.lower) or fitted_start(self, node, frame, None)):
            return base
        segs = self.text_of(base, frame)
        return self.windowed(Text([next((s for s in reversed(segs) if s.kind is Kind.HISTORY), segs[-1])]),
                             node, frame)

    def slice_start(self, node: ast.Subscript, frame, env):
        """The lower bound of a slice, as written or, for a local name bound once before it in
        the function (`start = len(history) - keep` then `history[start:]`), the expression bound
        to it; None for a subscript that is no slice."""
        lower = node.slice.lower if isinstance(node.slice, ast.Slice) else None
        if isinstance(lower, ast.Name) and frame.func is not None:
            bindings = env if env is not None else self.env_at(frame, node)
            th = bindings.get(lower.id)
            if th is not None and th.kind == "expr" and th.prev is None and isinstance(th.node, ast.expr):
                return th.node
        return lower

    def walked_window(self, node: ast.Subscript, frame, env) -> bool:
        """True for `xs[max(0, i - w + 1):i + 1]` (also `xs[i - w:i]`) where `i` walks the
        indices of xs (`for i in range(len(xs))`, in a generator that yields each slice or a loop
        that sends it): the items up to the walk's place, at most w of them, so once it passes w
        the first item moves on every pass, as `xs[-w:]` moves on a list that grows a turn at a
        time."""
        cut = node.slice
        index = _index_of(cut.upper)
        lower = cut.lower
        if index is None or lower is None or frame.func is None:
            return False
        if isinstance(lower, ast.Call) and isinstance(lower.func, ast.Name) and lower.func.id == "max" \
                and len(lower.args) == 2 and isinstance(lower.args[0], ast.Constant):
            lower = lower.args[1]  # clamped at the list's head: `max(0, i - w + 1)`
        inner = list(subtree(lower))  # (a width of one or two, `xs[i - 1:i + 1]`: the last exchange looked at)
        if not (any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and not (
                isinstance(n.right, ast.Constant) and isinstance(n.right.value, int) and n.right.value <= 2) for n in inner)
                and any(isinstance(n, ast.Name) and n.id == index for n in inner)):
            return False
        th = (env if env is not None else self.env_at(frame, node)).get(index)
        walk = th.node if th is not None and th.kind == "iter" else None
        sliced = ast.dump(node.value)
        return isinstance(walk, ast.Call) and isinstance(walk.func, ast.Name) and walk.func.id == "range" and any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and len(n.args) == 1
            and ast.dump(n.args[0]) == sliced for n in walk.args)

    def _grown_cut(self, base, node: ast.Subscript, frame, lower=None) -> Value | None:
        """The newest items of a list grown across calls or in a loop (`history.append(m)` in a
        function, a module-level `history = [system]`), sliced to its newest (`history[-6:]`): a
        window of the conversation when the list is named as one, holds messages (dicts with a
        `role`) or is made of the conversation's own messages, regrouped (`runs.append((history[i],
        history[i + 1]))` in a loop over it: its newest runs are its newest messages); None for any
        other slice or list."""
        if not (_slides(lower if lower is not None else node.slice.lower) or takes_newest(node)):
            return None
        target = node.value
        name = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else ""
        if isinstance(base, Alt):  # grown in branches (items present or absent): every list of it regrouped
            lists = _lists(base)
            if not (lists and any(s.repeated for s in lists)
                    and all(not s.items or s.repeated and _regrouped(s) for s in lists)):
                return None
        elif not (isinstance(base, Seq) and base.repeated):
            return None
        elif name.lower() not in classify.HISTORY_NAMES and not _holds_messages(base) and not _regrouped(base):
            return None
        m = frame.module
        grown = dynamic(m.span(node), m.code(node), Kind.HISTORY, Volatility.UNKNOWN,
                        f"the newest messages of `{m.code(target)}`")
        return Text([replace(grown.segs[0], window=m.span(node))])

    def _stored_cut(self, base, node: ast.Subscript, frame, lower=None, env=None) -> Value | None:
        """The newest items of a list read from storage, sliced (`raw[-limit:]`,
        `list(reversed(rows))[:n]`) in a function named for reading the conversation (`def
        get_messages(self, session_id, limit=100)`: what it reads is the stored conversation), or
        of what a call named so returned (`recent = memory.get_messages(key)[-3:]`): a window of
        the stored conversation, cut where it is read back, so once it is longer the oldest
        message drops out on every turn. None for any other slice, and for a list the code builds
        (`_grown_cut` judges those), and for a count its caller leaves at a default of none
        (`limit=None`, `0`: the slice runs only when a caller asks for it)."""
        lower = lower if lower is not None else node.slice.lower
        if not (_slides(lower) or takes_newest(node)):
            return None
        count = lower.operand if isinstance(lower, ast.UnaryOp) else None
        if count is not None and not isinstance(count, ast.Constant) \
                and _none_text(self.eval(count, frame, env)):
            return None  # (`raw if limit is None else raw[-limit:]` called without a limit: all of it)
        m = frame.module
        exprs = _read_data(base)
        if exprs is None:
            return None
        func = frame.func
        expr = next((e for e in exprs if e), "")
        if not (func is not None and (reads_conversation(func.name) or reads_stored_messages(func, frame.cls))
                or any(_read_by_call(e) for e in exprs)):
            return None
        cut = dynamic(m.span(node), m.code(node), Kind.HISTORY, Volatility.UNKNOWN,
                      f"the newest messages of `{expr or m.code(node.value)}`, the conversation read back")
        return Text([replace(cut.segs[0], window=m.span(node))])

    @staticmethod
    def windowed(value, node, frame, name: str = "", stop=None, _done: dict | None = None) -> Value:
        """`value` with its oldest messages dropped at `node` until it fits (a pop loop,
        `trim_messages`): the replayed conversation in it becomes a sliding window there. A list
        grown in a loop and named as a conversation (`messages`, `history`: `name`, the list's
        name where it is cut), or made of the conversation's own messages (`[clip(m) if big(m)
        else m for m in msgs]`), is one too; so is each list an Alt may be. `stop`: the test where a newest-first walk stops at its
        bound (kept as the segment's `window_stop`), or None. `_done` ({(id of a value, name):
        its cut}) cuts a value shared by several variants once: values nest as a graph (the
        same list in the options of many Alts), walked as a tree their count doubles with each
        level of branches."""
        if _done is None:
            _done = {}
        key = (id(value), name)
        if key in _done:
            return _done[key][1]
        out = WindowsMixin._windowed(value, node, frame, name, stop, _done)
        _done[key] = (value, out)  # (the value kept alive so that its id is not reused)
        return out

    @staticmethod
    def _windowed(value, node, frame, name: str, stop, _done: dict) -> Value:
        m = frame.module
        at = m.span(stop) if stop is not None else None
        conversation = _history(value) or _named_conversation(value, name)
        if conversation is not None and conversation.window is not None:
            return Text([conversation])  # a cut of a cut (`recent[-2:]`): one root cause, where it was first cut
        if conversation is not None:
            # (a statement that rewrites or skips messages is named by the conversation it cuts)
            expr = conversation.expr if isinstance(node, ast.stmt) and conversation.expr else m.code(node)
            return Text([replace(conversation, window=m.span(node), expr=expr, window_stop=at)])
        if isinstance(value, Seq) and value.repeated and (name.lower() in classify.HISTORY_NAMES or _regrouped(value)) \
                or isinstance(value, Obj) and name.lower() in classify.HISTORY_NAMES:  # (an instance of a history class)
            grown = dynamic(m.span(node), name, Kind.HISTORY, Volatility.UNKNOWN, f"the messages of `{name}`")
            return Text([replace(grown.segs[0], window=m.span(node), window_stop=at)])
        if isinstance(value, Alt):  # a list made in branches: each of them cut there
            return replace(value, options=[WindowsMixin.windowed(o, node, frame, name, stop, _done) for o in value.options])
        if isinstance(value, Seq):  # a message list: the conversation spread into it
            return replace(value, items=[replace(i, value=WindowsMixin.windowed(i.value, node, frame, stop=stop, _done=_done))
                                         if isinstance(i, Spread) else i for i in value.items])
        return value


def _slides(lower) -> bool:
    """True for the lower bound of a slice that keeps the newest items of a growing list: negative
    but not -1 (`[-10:]`, `[-self.window:]`, a negative count times a positive one: `[-2 * self.turns:]`) or
    counted from its length (`[len(h) - k:]`), also clamped at a
    constant (`[max(0, len(h) - k):]`) or shifted by a constant past kept head messages
    (`[1 + max(0, len(h) - k):]`, `[len(h) - k + 1:]`)."""
    if isinstance(lower, ast.BinOp) and isinstance(lower.op, ast.Add):
        if isinstance(lower.left, ast.Constant) and isinstance(lower.left.value, int):
            return _slides(lower.right)
        if isinstance(lower.right, ast.Constant) and isinstance(lower.right.value, int):
            return _slides(lower.left)
    if isinstance(lower, ast.Call) and isinstance(lower.func, ast.Name) and lower.func.id == "max" \
            and len(lower.args) == 2 and not lower.keywords:
        consts = [a for a in lower.args if isinstance(a, ast.Constant) and isinstance(a.value, int)]
        return len(consts) == 1 and _slides(next(a for a in lower.args if a is not consts[0]))
    if isinstance(lower, ast.UnaryOp) and isinstance(lower.op, ast.USub):
        # (`[-1:]` keeps the newest item alone: no older message is sent again, no window)
        return not (isinstance(lower.operand, ast.Constant) and lower.operand.value in (0, 1))
    if isinstance(lower, ast.BinOp) and isinstance(lower.op, ast.Mult):
        # a negative count times a positive one (`-2 * self.turns`: two messages per exchange)
        sides = (lower.left, lower.right)
        negative = [isinstance(side, ast.UnaryOp) and isinstance(side.op, ast.USub) for side in sides]
        return negative.count(True) == 1 and not any(
            isinstance(side, ast.Constant) and side.value == 0 or isinstance(side, ast.UnaryOp)
            and isinstance(side.operand, ast.Constant) and side.operand.value == 0 for side in sides)
    if isinstance(lower, ast.BinOp) and isinstance(lower.op, ast.Sub):
        left = lower.left
        return isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len"
    return False


def _index_of(upper) -> str | None:
    """The name of `i` or `i + 1` (the upper bound of a slice that ends at a walk's place)."""
    if isinstance(upper, ast.BinOp) and isinstance(upper.op, ast.Add) and isinstance(upper.right, ast.Constant):
        upper = upper.left
    return upper.id if isinstance(upper, ast.Name) else None


def takes_newest(node: ast.Subscript) -> bool:
    """True for the first items of a list walked newest first (`xs[::-1][:n]`,
    `list(reversed(xs))[:n]`): its newest n items, as `xs[-n:]` keeps (in the other order)."""
    cut, base = node.slice, node.value
    if not (isinstance(cut, ast.Slice) and cut.lower is None and cut.step is None and cut.upper is not None):
        return False
    if isinstance(cut.upper, ast.Constant) and cut.upper.value == 0:
        return False
    if isinstance(base, ast.Call) and isinstance(base.func, ast.Name) and base.func.id == "list" and len(base.args) == 1:
        base = base.args[0]
    if isinstance(base, ast.Call) and isinstance(base.func, ast.Name) and base.func.id == "reversed":
        return True
    step = base.slice.step if isinstance(base, ast.Subscript) and isinstance(base.slice, ast.Slice) else None
    return (isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub) and isinstance(step.operand, ast.Constant)
            and step.operand.value == 1 and base.slice.lower is None and base.slice.upper is None)


def _short_of_end(upper) -> bool:
    """True for the upper bound of a slice that leaves out the newest items of a list: any bound
    written (`[:cut]`, `[:-4]`, `[a:b]`) but `None` and the list's length (`[:len(xs)]`)."""
    if upper is None or isinstance(upper, ast.Constant) and upper.value is None:
        return False
    return not (isinstance(upper, ast.Call) and isinstance(upper.func, ast.Name) and upper.func.id == "len")


def window_of(value) -> Segment | None:
    """The cut conversation segment of a value (of one of its options), or None."""
    if isinstance(value, Alt):
        return next((w for o in value.options if (w := window_of(o)) is not None), None)
    seg = _history(value)
    return seg if seg is not None and seg.window is not None else None


def _selects(node, comp) -> bool:
    """True for a list comprehension that keeps items as they are (`[m for m in xs if ...]`), or a
    shallow copy of each (`[dict(m) for m in xs]`, `m.copy()`, `copy.copy(m)`, `{**m}`): the same messages."""
    return (isinstance(node, ast.ListComp) and len(node.generators) == 1 and isinstance(comp.target, ast.Name)
            and _copy_of(node.elt, comp.target.id))


def _copy_of(elt, item: str) -> bool:
    """True for the item itself or a shallow copy of it."""
    if isinstance(elt, ast.Name):
        return elt.id == item
    if isinstance(elt, ast.Dict):  # `{**m}`
        return len(elt.keys) == 1 and elt.keys[0] is None and _copy_of(elt.values[0], item) \
            and isinstance(elt.values[0], ast.Name)
    if not isinstance(elt, ast.Call) or elt.keywords:
        return False
    f = elt.func
    if isinstance(f, ast.Attribute) and f.attr == "copy" and not elt.args:  # `m.copy()`
        return isinstance(f.value, ast.Name) and f.value.id == item
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    return name in ("dict", "copy") and len(elt.args) == 1 and isinstance(elt.args[0], ast.Name) \
        and elt.args[0].id == item


def message_of_item(node, comp) -> bool:
    """True for a list comprehension of one plain `for` (no filter) whose element is a message
    made of the item alone: a dict display with a `role` key whose values read only the item
    (`m["content"]`, `m.get("role", "user")`, `m.content`, constants)."""
    elt = getattr(node, "elt", None)
    if not (isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1 and not comp.ifs
            and isinstance(comp.target, ast.Name) and isinstance(elt, ast.Dict)):
        return False
    keys = [k.value for k in elt.keys if isinstance(k, ast.Constant)]
    if "role" not in keys or None in elt.keys:
        return False
    item = comp.target.id
    for sub in subtree(elt):
        if isinstance(sub, ast.Name) and sub.id != item:
            return False
        if isinstance(sub, ast.Call) and not (isinstance(sub.func, ast.Attribute) and sub.func.attr == "get"
                                              and isinstance(sub.func.value, ast.Name) and sub.func.value.id == item):
            return False
    return True


def converts_item(elt, item: str) -> bool:
    """True for a call that makes one value of the item alone (`convert(r)`, `self.conv.from_row(r)`,
    `Message(**r)`, keywords of constants only): a message of a list converted one for one keeps
    its place, so a cut list converted so is the same cut."""
    if not isinstance(elt, ast.Call) or len(elt.args) + sum(k.arg is None for k in elt.keywords) != 1:
        return False
    arg = elt.args[0] if elt.args else next(k.value for k in elt.keywords if k.arg is None)
    return (isinstance(arg, ast.Name) and arg.id == item
            and all(k.arg is None or isinstance(k.value, ast.Constant) for k in elt.keywords)
            and not any(isinstance(n, ast.Name) and n.id == item for n in subtree(elt.func)))


def _flattens(node) -> bool:
    """True for a list comprehension that flattens a list of groups, item by item as they are
    (`[m for run in runs for m in run]`, no filter)."""
    if not isinstance(node, (ast.ListComp, ast.GeneratorExp)) or len(node.generators) != 2:
        return False
    outer, inner = node.generators
    return (isinstance(outer.target, ast.Name) and isinstance(inner.iter, ast.Name) and inner.iter.id == outer.target.id
            and isinstance(inner.target, ast.Name) and isinstance(node.elt, ast.Name)
            and node.elt.id == inner.target.id and not outer.ifs and not inner.ifs)


def _pieces(value) -> bool:
    """True for the concatenation of several pieces of a conversation (`head + tail`), or a list
    holding such pieces (`result.insert(k, messages[i])` after it)."""
    if isinstance(value, Seq) and not value.repeated:
        return any(isinstance(i, Spread) and (_history(i.value) or _pieces(i.value)) for i in value.items)
    return isinstance(value, Text) and len(value.segs) > 1 and all(s.kind is Kind.HISTORY for s in value.segs)


def _named_conversation(value, name: str = "") -> Segment | None:
    """The segment of a value we cannot read that is named as the conversation
    (`agent.messages` of an object of a class not found, `state["chat_history"]`), or kept under
    such a name where it is cut (`name`: the key of
    `inputs["chat_history"] = chat_history[2:]`), as the history it is cut from."""
    if not (isinstance(value, Text) and len(value.segs) == 1):
        return None
    seg = value.segs[0]
    if seg.is_static or seg.kind is not Kind.UNKNOWN or not seg.expr:
        return None
    if _last_name(seg.expr).lower() not in classify.HISTORY_NAMES and name.lower() not in classify.HISTORY_NAMES:
        return None
    return replace(seg, kind=Kind.HISTORY, evidence=f"`{seg.expr}`, named as the conversation")


def _last_name(expr: str) -> str:
    """The name an expression reads last: `a.messages` -> messages, `s["chat_history"]` ->
    chat_history; else ""."""
    try:
        node = ast.parse(expr, mode="eval").body
    except SyntaxError:
        return expr.rsplit(".", 1)[-1]
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _holds_messages(value: Seq) -> bool:
    """True for a list with an item that is a message (a dict display with a `role` key)."""
    return any(isinstance(i, Mapping) and "role" in i.items for i in value.items)


def _lists(value, depth: int = 0) -> list[Seq]:
    """The lists an Alt (of Alts) of lists may be; empty when an option is anything else."""
    if isinstance(value, Seq):
        return [value]
    if isinstance(value, Alt) and depth < 4:
        found = [_lists(o, depth + 1) for o in value.options]
        return [s for f in found for s in f] if all(found) else []
    return []


def _regrouped(value: Seq) -> bool:
    """True for a list grown in a loop whose every item is a message taken from the conversation
    (`copied.append(m)` in `for m in history`), or a tuple or list of such messages
    (`(history[i], history[i + 1])`): the conversation itself, perhaps grouped into runs."""
    def taken(v) -> bool:
        if isinstance(v, Seq) and not v.repeated:
            return bool(v.items) and all(taken(i) for i in v.items)
        if isinstance(v, Alt):  # (each message kept or rewritten by a condition)
            return all(taken(o) for o in v.options)
        return isinstance(v, Text) and len(v.segs) == 1 and v.segs[0].evidence.startswith((TAKEN, MESSAGE_OF)) \
            and _whole_item(v.segs[0].expr)
    return bool(value.items) and all(taken(i) for i in value.items)


def _whole_item(expr: str) -> bool:
    """True for the source of a whole message (`m`, `history[i + 1]`), not of a part of one
    (`m.content`, `m["content"]`: the texts of the conversation are no conversation)."""
    try:
        node = ast.parse(expr, mode="eval").body
    except SyntaxError:
        return False
    if isinstance(node, ast.Subscript):
        return not (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str))
    return isinstance(node, ast.Name)


def _history(value) -> Segment | None:
    """The segment of a value that is the replayed conversation (one history segment), or None."""
    if isinstance(value, Text) and len(value.segs) == 1 and value.segs[0].kind is Kind.HISTORY:
        return value.segs[0]
    return None


_RENDERERS = {"str", "repr", "format"}  # builtins that write a value as text


def renders_each(node, comp) -> bool:
    """True for a comprehension of one plain `for` (no filter) whose element is text made from the
    item alone: `str(m)`, `f"{m.role}: {m.content}"`, `m.content`, `m["content"]`, or their
    concatenation. Over the conversation it is the conversation written one message per element
    (joined, the history as text), not data taken from it. Other names than the item (a lookup, a
    counter, a function of the tree that could fetch data), calls other than `str` / `repr` /
    `format`, and an element that is no text (a message rebuilt as a dict, `m.to_dict()`) make it
    something else."""
    elt = getattr(node, "elt", None)
    if elt is None or comp.ifs or not isinstance(comp.target, ast.Name) or not _text_of_item(elt):
        return False
    item = comp.target.id
    for sub in subtree(elt):
        if isinstance(sub, ast.Name) and sub.id != item and not (sub.id in _RENDERERS and _called(elt, sub)):
            return False
        if isinstance(sub, ast.Call) and not (isinstance(sub.func, ast.Name) and sub.func.id in _RENDERERS):
            return False
        if isinstance(sub, (ast.Lambda, ast.NamedExpr, ast.Await)) or isinstance(sub, ast.Subscript) and not _keyed(sub):
            return False
    return True


def _text_of_item(elt) -> bool:
    """True for an element written as text: an f-string, `str(...)` / `repr(...)` / `format(...)`,
    a field (`m.content`, `m["content"]`), or text joined with `+`."""
    if isinstance(elt, ast.BinOp) and isinstance(elt.op, ast.Add):
        return _text_of_item(elt.left) and _text_of_item(elt.right)
    if isinstance(elt, ast.Call):
        return isinstance(elt.func, ast.Name) and elt.func.id in _RENDERERS
    return isinstance(elt, (ast.JoinedStr, ast.Attribute, ast.Constant)) or _keyed(elt)


def _called(elt, name: ast.Name) -> bool:
    """True when `name` is the function of a call in `elt` (`str(m)`), not a value."""
    return any(isinstance(c, ast.Call) and c.func is name for c in subtree(elt))


def _keyed(node) -> bool:
    """True for a subscript of the item by a string key (`m["content"]`): a field of the message."""
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)


#: Verbs and nouns of a function (or method) named for reading the stored conversation back
#: (`get_messages`, `load_chat_history`, `fetchRecentTurns`); a trace, a log or events are not it.
_READ_VERBS = frozenset({"get", "load", "fetch", "read", "retrieve", "query", "list"})
_READ_NOUNS = frozenset({"messages", "history", "conversation", "turns", "dialog", "dialogue", "transcript", "msgs"})
_NOT_READ = frozenset({"trace", "traces", "log", "logs", "event", "events", "feedback", "error", "errors", "lessons"})


def reads_conversation(name: str) -> bool:
    """True for a function name that says it reads the conversation back: a read verb and a
    word of the conversation (`get_messages`, `load_history`, `getChatHistory`), not of a log."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name or "")
    found = {w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w}
    return bool(found & _READ_VERBS) and bool(found & _READ_NOUNS) and not found & _NOT_READ


#: Words of a class's name that say it keeps a conversation (`RamMemoryStorage`, `ChatHistoryStore`).
_STORE_NOUNS = frozenset({"memory", "history", "conversation", "chat", "messages", "dialog", "dialogue", "transcript"})
#: Words of a return annotation that say it is a list of messages (`List[Message]`, `list[ChatTurn]`).
_MESSAGE_TYPES = frozenset({"message", "messages", "turn", "turns"})


def reads_stored_messages(func, cls) -> bool:
    """True for a method named by a read verb alone (`get`, `load`, `afetch`) of a class that keeps a
    conversation, by the class's name (`RamMemoryStorage.get`) or by its return annotation
    (`def get(self, session_id, top_k=10) -> List[Message]` in any class): the generic read method of a
    message store, which reads the stored conversation back. Names are the evidence (the rule reports
    it as info where it is cut, with no request linked)."""
    if cls is None or func is None:
        return False
    name = func.name.lower()
    if name.lstrip("_") not in _READ_VERBS and not (name.startswith("a") and name[1:] in _READ_VERBS):
        return False
    if _words(cls.name) & _STORE_NOUNS and not _words(cls.name) & _NOT_READ:
        return True
    note = func.returns
    return note is not None and bool(_words(ast.unparse(note)) & _MESSAGE_TYPES)


#: Words of a method's name that say it reads the newest records (`get_recent`, `load_latest`).
_NEWEST_WORDS = frozenset({"recent", "latest", "last", "newest", "tail"})


def reads_newest_stored(func, cls) -> bool:
    """True for a method named by a read verb and a word of the newest (`get_recent`, `load_latest`)
    of a class whose name says it keeps a conversation (`MessageHistory.get_recent`): the read of a
    message store that returns its newest messages. Names are the evidence."""
    if cls is None or func is None:
        return False
    found = _words(func.name)
    return bool(found & _READ_VERBS) and bool(found & _NEWEST_WORDS) and not found & _NOT_READ \
        and bool(_words(cls.name) & _STORE_NOUNS) and not _words(cls.name) & _NOT_READ


def method_class(stack: list, func):
    """The class whose method `func` is (the node directly around it in `stack`, a walk's open
    scopes, outermost first), or None."""
    at = next((i for i in range(len(stack) - 1, -1, -1) if stack[i] is func), None)
    return stack[at - 1] if at and isinstance(stack[at - 1], ast.ClassDef) else None


def _words(name: str) -> set[str]:
    """The lower-case words of an identifier or annotation (`RamMemoryStorage` -> ram, memory, storage)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name or "")
    return {w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w}


def _none_text(value) -> bool:
    """True for a value that is the constant None, 0 or False (a count left at its default)."""
    return isinstance(value, Text) and len(value.segs) == 1 and value.segs[0].is_static \
        and value.segs[0].text in ("None", "0", "False")


def _read_data(value, depth: int = 0) -> list[str] | None:
    """The sources of a value read from where the code does not see it (an unknown value, a list
    built in a loop from one, or one of those in each option), "" for a built list; None for
    anything else (text, a message list written in the code, a dict)."""
    if isinstance(value, Seq) and value.repeated:  # built from what was read (`[loads(r) for r in raw]`)
        return [""]
    if isinstance(value, Text) and len(value.segs) == 1 and not value.segs[0].is_static \
            and value.segs[0].kind is Kind.UNKNOWN:
        return [value.segs[0].expr]
    if isinstance(value, Obj) and not isinstance(value, Mapping):
        return [""]  # (an object the store returns: its messages)
    if isinstance(value, Alt) and depth < 3:
        found = [_read_data(o, depth + 1) for o in value.options]
        return None if any(f is None for f in found) else [e for f in found for e in f]
    return None


def _read_by_call(expr: str) -> bool:
    """True for the source of a call named for reading the conversation back
    (`self.memory.get_messages("broadcast")`, awaited too)."""
    if not expr or "(" not in expr:
        return False
    try:
        node = ast.parse(expr, mode="eval").body
    except SyntaxError:
        return False
    if isinstance(node, ast.Await):
        node = node.value
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return reads_conversation(f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else "")


def one_for_one(node, comp) -> bool:
    """True for a list comprehension of one plain `for` (no filter) whose element converts the item
    alone (`[convert(r) for r in rows]`: `converts_item`)."""
    return (isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1 and not comp.ifs
            and isinstance(comp.target, ast.Name) and converts_item(node.elt, comp.target.id))


def items_cut(items) -> Segment | None:
    """The cut conversation a list's messages are taken from one by one (`for m in history[-10:]:
    kept.append(m)`: each message keeps its cut, `ContainersMixin.item_of`), as a history segment
    where it is cut; None when no item is such a message."""
    for item in items:
        seg = item.segs[0] if isinstance(item, Text) and len(item.segs) == 1 else None
        if seg is not None and seg.window is not None and seg.kind is Kind.UNKNOWN and seg.evidence.startswith(MESSAGE_OF):
            return replace(seg, kind=Kind.HISTORY, expr=seg.evidence[len(MESSAGE_OF):-1], span=seg.window)
    return None
