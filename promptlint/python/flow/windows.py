"""Cut conversations (PRM105): a conversation cut to its newest messages by a slice, a loop or a
call (`windowed`: the history segment marked with where it is cut), joined pieces of it sliced
again, the messages a selection keeps by membership in what a cut kept; a slice that ends short
of the newest messages (`short_of_end`: `history[:cut]`) is the older part, marked `older`."""
from __future__ import annotations

import ast
import re

from ... import classify
from ...model import Kind, Segment, Volatility, replace
from .fitted_starts import fitted_start
from .window_options import off_count
from .store_reads import reads_conversation, reads_stored_messages
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
        if isinstance(base, Alt) and any(history_segment(o) or _pieces(o) for o in base.options):
            return Alt([self._pieces_cut(o, node, frame) or o for o in base.options], base.span)
        if not (_pieces(base) or history_segment(base) and isinstance(base, Text)):
            return None
        if not (slides(node.slice.lower) or fitted_start(self, node, frame, None)):
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
        if not (slides(lower if lower is not None else node.slice.lower) or takes_newest(node)):
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
        elif _holds_records(base):
            return None  # (`turns = [(lang, secs, to) for r in events]`: records, whatever the list's name)
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
        if not (slides(lower) or takes_newest(node)):
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

    def opt_in_window(self, value, node: ast.Subscript, frame) -> Value:
        """`value` with the windows cut at `node` marked `window_off` (the count's code) when the
        count is an option off by default that the package never sets on (`window_options`): the
        cut runs only for users who set it."""
        count = off_count(frame, node, self.project)
        return _mark_off(value, frame.module.span(node), count) if count else value

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
        conversation = history_segment(value) or named_conversation(value, name) or held_conversation(value)
        if conversation is not None and conversation.window is not None:
            return Text([conversation])  # a cut of a cut (`recent[-2:]`): one root cause, where it was first cut
        if conversation is not None:
            # (a statement that rewrites or skips messages is named by the conversation it cuts)
            expr = conversation.expr if isinstance(node, ast.stmt) and conversation.expr else m.code(node)
            return Text([replace(conversation, window=m.span(node), expr=expr, window_stop=at)])
        if isinstance(value, Seq) and value.repeated and (name.lower() in classify.HISTORY_NAMES or _regrouped(value)
                                                          or _qualified_history(name) and _holds_messages(value)) \
                or isinstance(value, Obj) and name.lower() in classify.HISTORY_NAMES:  # (an instance of a history class)
            grown = dynamic(m.span(node), name, Kind.HISTORY, Volatility.UNKNOWN, f"the messages of `{name}`")
            return Text([replace(grown.segs[0], window=m.span(node), window_stop=at)])
        if isinstance(value, Alt):  # a list made in branches: each of them cut there
            return replace(value, options=[WindowsMixin.windowed(o, node, frame, name, stop, _done) for o in value.options])
        if isinstance(value, Seq):  # a message list: the conversation spread into it
            return replace(value, items=[replace(i, value=WindowsMixin.windowed(i.value, node, frame, stop=stop, _done=_done))
                                         if isinstance(i, Spread) else i for i in value.items])
        return value


def _mark_off(value, at, count: str) -> Value:
    """`value` with each history segment cut at `at` given `window_off=count` (in texts, the options
    of an Alt and the lists spread into a Seq)."""
    if isinstance(value, Text):
        return Text([replace(s, window_off=count) if s.window == at else s for s in value.segs])
    if isinstance(value, Alt):
        return replace(value, options=[_mark_off(o, at, count) for o in value.options])
    if isinstance(value, Seq):
        return replace(value, items=[replace(i, value=_mark_off(i.value, at, count)) if isinstance(i, Spread) else i
                                     for i in value.items])
    return value


def slides(lower) -> bool:
    """True for the lower bound of a slice that keeps the newest items of a growing list: negative
    but not -1 (`[-10:]`, `[-self.window:]`, a negative count times a positive one: `[-2 * self.turns:]`) or
    counted from its length (`[len(h) - k:]`), also clamped at a
    constant (`[max(0, len(h) - k):]`) or shifted by a constant past kept head messages
    (`[1 + max(0, len(h) - k):]`, `[len(h) - k + 1:]`)."""
    if isinstance(lower, ast.BinOp) and isinstance(lower.op, ast.Add):
        if isinstance(lower.left, ast.Constant) and isinstance(lower.left.value, int):
            return slides(lower.right)
        if isinstance(lower.right, ast.Constant) and isinstance(lower.right.value, int):
            return slides(lower.left)
    if isinstance(lower, ast.Call) and isinstance(lower.func, ast.Name) and lower.func.id == "max" \
            and len(lower.args) == 2 and not lower.keywords:
        consts = [a for a in lower.args if isinstance(a, ast.Constant) and isinstance(a.value, int)]
        return len(consts) == 1 and slides(next(a for a in lower.args if a is not consts[0]))
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


def first_message(node) -> bool:
    """True when `node` reads the conversation's first message or a part of it: `xs[0]`,
    `xs.pop(0)`, `xs[0]["content"]`, `xs.pop(0).content`. The first message (often a system
    message the client re-sends) is not the newest, which is new on every request; cutting it
    off is PRM105's finding, not this read's."""
    for element in (node, node.value if isinstance(node, (ast.Subscript, ast.Attribute)) else None):
        if isinstance(element, ast.Subscript):
            index = element.slice
        elif isinstance(element, ast.Call) and isinstance(element.func, ast.Attribute) \
                and element.func.attr == "pop" and len(element.args) == 1 and not element.keywords:
            index = element.args[0]
        else:
            continue
        if isinstance(index, ast.Constant) and index.value == 0 and not isinstance(index.value, bool):
            return True
    return False


def short_of_end(upper) -> bool:
    """True for the upper bound of a slice that leaves out the newest items of a list: any bound
    written (`[:cut]`, `[:-4]`, `[a:b]`) but `None` and the list's length (`[:len(xs)]`)."""
    if upper is None or isinstance(upper, ast.Constant) and upper.value is None:
        return False
    return not (isinstance(upper, ast.Call) and isinstance(upper.func, ast.Name) and upper.func.id == "len")


def window_of(value) -> Segment | None:
    """The cut conversation segment of a value (of one of its options), or None."""
    if isinstance(value, Alt):
        return next((w for o in value.options if (w := window_of(o)) is not None), None)
    seg = history_segment(value)
    return seg if seg is not None and seg.window is not None else None


def _pieces(value) -> bool:
    """True for the concatenation of several pieces of a conversation (`head + tail`), or a list
    holding such pieces (`result.insert(k, messages[i])` after it)."""
    if isinstance(value, Seq) and not value.repeated:
        return any(isinstance(i, Spread) and (history_segment(i.value) or _pieces(i.value)) for i in value.items)
    return isinstance(value, Text) and len(value.segs) > 1 and all(s.kind is Kind.HISTORY for s in value.segs)


def named_conversation(value, name: str = "") -> Segment | None:
    """The segment of a value we cannot read that is named as the conversation
    (`agent.messages` of an object of a class not found, `state["chat_history"]`), or kept under
    such a name where it is cut (`name`: the key of
    `inputs["chat_history"] = chat_history[2:]`), as the history it is cut from."""
    if not (isinstance(value, Text) and len(value.segs) == 1):
        return None
    seg = value.segs[0]
    if seg.is_static or seg.kind is not Kind.UNKNOWN or not seg.expr:
        return None
    last = _last_name(seg.expr).lower()
    if last not in classify.HISTORY_NAMES and name.lower() not in classify.HISTORY_NAMES \
            and not _qualified_history(name) and _LISTED_HISTORY.fullmatch(last) is None:
        return None
    return replace(seg, kind=Kind.HISTORY, evidence=f"`{seg.expr}`, named as the conversation")


#: Last words of a name that say it holds the conversation (`converted_messages`, `trimmed_history`).
_HISTORY_TAILS = frozenset({"messages", "msgs", "history", "conversation", "turns"})
#: Words that say a list of messages is not the conversation (`system_messages`, `error_messages`).
_NOT_HISTORY = frozenset({"system", "tool", "tools", "error", "errors", "log", "logs", "debug", "warning",
                          "warnings", "status", "commit", "email", "mail", "validation", "exception"})


#: A conversation word with a container word after it (`message_list`, `history_items`, `turns_array`):
#: the list of the conversation's messages by its name.
_LISTED_HISTORY = re.compile(r"(?:chat_)?(?:messages?|msgs?|history|conversation|turns?|dialog(?:ue)?|transcript)"
                             r"_(?:list|lst|array|seq|items)")


def _qualified_history(name: str) -> bool:
    """True for the name a list is cut under when it ends in a conversation word after words that do
    not say another kind of message (`converted_messages`, `selected_history`; not `error_messages`)."""
    parts = [w for w in re.split(r"[^a-z0-9]+", name.lower()) if w]
    return len(parts) > 1 and parts[-1] in _HISTORY_TAILS and not set(parts) & _NOT_HISTORY


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


def _holds_records(value: Seq) -> bool:
    """True for a list whose every item is a tuple of more than two fields that the code writes
    (`(r.get("lang"), duration(r), r.get("to"))` for each event): records of something else than
    messages, which a chat message (a dict, an object, a `(role, content)` pair) is not."""
    return bool(value.items) and all(isinstance(i, Seq) and i.is_tuple and not i.repeated and len(i.items) > 2
                                     for i in value.items)


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


def held_conversation(value, depth: int = 0) -> Segment | None:
    """The conversation an instance of a class of the tree was made from (`AgentMessageList(messages)`
    of `__init__(self, messages)`: a container of the package filled from the history, cut as the
    history itself, `reduced.remove(reduced[0])` until it fits): the conversation segment among the
    values it was given, read through lists they spread, their alternatives and instances of such
    classes made from them (`AgentMessageList(self._messages + extra)`), else None."""
    if not (isinstance(value, Obj) and not isinstance(value, Mapping) and value.qualname.startswith("instance:")):
        return None
    for given in value.kwargs.values():
        if (found := _conversation_in(given, depth + 1)) is not None:
            return found
    return None


def _conversation_in(value, depth: int) -> Segment | None:
    """The conversation segment a value holds as a whole, in a list it spreads, in one of its
    alternatives or in a container instance made from it (held_conversation), else None; at most
    8 levels deep."""
    if depth > 8:
        return None
    if (found := history_segment(value)) is not None:
        return found
    if isinstance(value, Alt):
        return next((f for o in value.options if (f := _conversation_in(o, depth + 1)) is not None), None)
    if isinstance(value, Seq):
        return next((f for i in value.items if isinstance(i, Spread)
                     and (f := _conversation_in(i.value, depth + 1)) is not None), None)
    return held_conversation(value, depth)


def history_segment(value) -> Segment | None:
    """The segment of a value that is the replayed conversation (one history segment), or None."""
    if isinstance(value, Text) and len(value.segs) == 1 and value.segs[0].kind is Kind.HISTORY:
        return value.segs[0]
    return None


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


def items_cut(items) -> Segment | None:
    """The cut conversation a list's messages are taken from one by one (`for m in history[-10:]:
    kept.append(m)`: each message keeps its cut, `ContainersMixin.item_of`), as a history segment
    where it is cut; None when no item is such a message."""
    for item in items:
        seg = item.segs[0] if isinstance(item, Text) and len(item.segs) == 1 else None
        if seg is not None and seg.window is not None and seg.kind is Kind.UNKNOWN and seg.evidence.startswith(MESSAGE_OF):
            return replace(seg, kind=Kind.HISTORY, expr=seg.evidence[len(MESSAGE_OF):-1], span=seg.window)
    return None
