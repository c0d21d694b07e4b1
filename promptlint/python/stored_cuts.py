"""Conversations cut or rewritten where they are kept, not where they are sent (PRM105): a
list held on an object (`self.messages`, `state.last_events`, `chat.history`) that a method
replaces by its newer part or deletes the head of, before the next request reads it:

- `self.messages = self.messages[-self.target:]` (also one list per key, `self.messages[chat_id] =
  self.messages[chat_id][-k:]`), also through names (`history = self.messages`,
  `kept = history[i:]`, `kept = [system, *kept]`, `self.messages = kept`);
- the same with a new message made here put before the kept part (`[summary, *history[i:]]`,
  `summary = await self._summarize(...)`): a summary rewritten at each cut;
- `del self.history[:k]`, `del chat.messages[0]`, `chat.messages.pop(0)`, or `chat.messages.pop(1)`
  (the oldest after a first message that is kept); also through a method of the object that keeps
  the conversation and removes the item at the index it is given
  (`self.planner.remove_message_at(1)`: `kept_conversations.removed_at`);
- a list a function is handed rebound to its newer part in a loop until the prompt rendered from
  it fits (`while len(prompt) > max_length: events = events[1:]; prompt = render(events=events)`).

How often the cut runs decides whether it is a finding (`flow/cut_margins.py`): on every request
once the limit is reached, or by default (a margin whose default is 0); a cut in steps (a block
dropped at once) keeps the prefix cached between cuts and is not reported. The list is the
conversation by its name (`classify.CONVERSATION_WORDS`), by a keyword named for one that it is
handed on with (`events_history=state.last_events`, a related location), or, for a handed list,
because the prompt is rendered again from it in the loop; any other list is not reported. When a
request of the module sends the same list as its history, that is given as related and the cut is
proven to reach the request.
"""
from __future__ import annotations

import ast
import re
from bisect import bisect_left, bisect_right
from typing import NamedTuple

from ..classify import CONVERSATION_WORDS
from . import anchored
from ..model import Kind
from .prompt_names import words
from .cut_defaults import Defaults
from .flow.callers import called_anywhere
from .flow.class_facts import MESSAGE_WORDS, message_node, not_a_message, walk_statements
from .flow.cut_margins import DEFAULT, SLIDES, STEPS, cadence, guarded
from .kept_conversations import removed_at, removed_shape

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Text a module that cuts a kept list holds: a slice from the head or the end, a delete of items, a
#: pop of the oldest (or of the oldest after a kept first item), or a keeper's remover given the index
#: 0 or 1 (`kept_conversations.REMOVE_WORDS`) (`stored_cuts` is not read otherwise).
TEXT = re.compile(r"\[[^\[\]\n]{1,80}:\]|\bdel [\w.]{1,80}\[|\.\w{0,30}(?:remove|delete|drop|pop)\w{0,30}\([01]\)")
#: Where a match of `TEXT` starts (`del `) or ends (`:]`, at most 81 characters after its `[`;
#: `(0)`, `(1)`, at most 67 after its `.`): `anchored.found`, `anchored.starts_of` (a match holds
#: no line break).
TEXT_ANCHORS = {"starts": ("del ",), "ends": (":]", "(0)", "(1)"), "reach": 81}


def holds_text(source: str) -> bool:
    """True when `TEXT` matches somewhere in `source`."""
    return anchored.found(TEXT, source, **TEXT_ANCHORS)


_OPT_IN = ("anthropic", "bedrock")  # nothing after the last explicit breakpoint is cached
_HANDED = "handed on as the conversation here"


class StoredCut(NamedTuple):
    """One cut: `at` the statement that cuts, `held` the list's expression, `cadence` (SLIDES or
    DEFAULT), `margin` the margin that makes it DEFAULT, `summary` True when a new message is put
    before the kept part, `evidence` why the list is the conversation (words), `related`
    [(node, note)], `sent` (the span of a request that sends it as its history, True when that
    history is cached today) or None; `handed`
    True for a list the function is handed, rebound in a loop until the prompt fits; `named` True
    when the list's name says it is the conversation; `on_error` True when the cut runs only in an
    `except` handler (`except RateLimitError:`): when a request fails, not on every turn."""
    at: ast.AST
    held: str
    handed: bool
    named: bool
    cadence: str
    margin: str
    summary: bool
    evidence: str
    related: list
    sent: object
    on_error: bool = False


def _chain(node) -> bool:
    """True for a dotted attribute of a name (`self.messages`, `state.last_events`)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _bound_once(stmts) -> dict[str, ast.expr]:
    """The local names statements bind exactly once by a plain assignment, with their values."""
    seen: dict[str, list] = {}
    for n in stmts:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            seen.setdefault(n.targets[0].id, []).append(n.value)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For)) and isinstance(n.target, ast.Name):
            seen.setdefault(n.target.id, []).extend([None, None])
    return {k: v[0] for k, v in seen.items() if len(v) == 1}


class _Reader:
    """The cuts of one function (see the module docstring)."""

    def __init__(self, func, removes=None):
        self.func = func
        self.removes = removes  # call -> the kept list a keeper's method removes an item of, or None
        self.stmts = list(walk_statements(func.body))  # (statements only, not in nested defs)
        self.once = _bound_once(self.stmts)
        self.aliases = {k: v for k, v in self.once.items() if isinstance(v, ast.Attribute) and _chain(v)}
        self.derived: dict[str, tuple] = {}  # name -> (slice node, held, how, amount, summary)
        self.heads: dict[str, ast.Subscript] = {}  # name -> the slice it was last bound to

    def held(self, node) -> str | None:
        """The kept list's expression: a dotted attribute of a name (`self.messages`), one under a
        key of such an attribute (`self.messages[chat_id]`: one conversation per chat), or under a
        key named for the conversation (`self.info["messages"]`), or a local name bound once to one."""
        if isinstance(node, ast.Attribute) and _chain(node) or _keyed(node) or _named_key(node):
            return ast.unparse(node)
        if isinstance(node, ast.Name) and node.id in self.aliases:
            return ast.unparse(self.aliases[node.id])
        return None

    def front(self, node):
        """(slice node, held, how, amount, False) for a slice of a kept list that drops its head."""
        if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice)):
            return None
        s = node.slice
        held = self.held(node.value)
        if held is None or s.lower is None or s.upper is not None or s.step is not None:
            return None
        cut = self.amount(s.lower)
        return None if cut is None else (node, held, *cut, False)

    def amount(self, lower):
        """("keep", N) | ("drop", k) | ("index", call) for the lower bound of a slice."""
        if isinstance(lower, ast.Name) and isinstance(self.once.get(lower.id), ast.expr):
            bound = self.once[lower.id]
            if isinstance(bound, ast.Await):
                bound = bound.value
            if isinstance(bound, ast.Call) and not _len_minus(bound):
                return "index", bound
            lower = bound
        if isinstance(lower, ast.Call) and isinstance(lower.func, ast.Name) and lower.func.id == "max" \
                and len(lower.args) == 2:
            lower = next((a for a in lower.args if not (isinstance(a, ast.Constant) and a.value == 0)), lower)
        if isinstance(lower, ast.UnaryOp) and isinstance(lower.op, ast.USub):
            return "keep", lower.operand
        if _len_minus(lower):
            return "keep", lower.right
        if isinstance(lower, ast.Constant):
            return ("drop", lower) if type(lower.value) is int and lower.value > 0 else None
        return "drop", lower

    def kept_in(self, value):
        """The cut a value carries: a front slice, a name derived from one, a list display that
        holds one (summary True when a new message made here comes before it), the kept list's
        head put before one (`xs[:1] + xs[-k:]`: a pinned first message, what follows it cut), or
        the one list a call is handed (`clean(kept)`: the kept part, tidied)."""
        found = self.front(value)
        if found is not None:
            return found
        if isinstance(value, ast.Name):
            return self.derived.get(value.id)
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            found = self.kept_in(value.right)
            return found if found is not None and self.head_of(value.left, found[1]) else None
        if isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords:
            return self.kept_in(value.args[0])
        if isinstance(value, ast.List):
            made = False
            for elt in value.elts:
                item = elt.value if isinstance(elt, ast.Starred) else elt
                inner = self.kept_in(item)
                if inner is not None:
                    return (*inner[:4], inner[4] or made)
                made = made or self.made_here(item)
        return None

    def head_of(self, node, held: str) -> bool:
        """True for the first items of the kept list `held` (`xs[:1]`, `xs[0:2]`), or a name
        bound once to them: the head a cut keeps before the newer part."""
        if isinstance(node, ast.Name):
            node = self.once.get(node.id, self.heads.get(node.id))
        if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice)):
            return False
        s = node.slice
        return (s.lower is None or isinstance(s.lower, ast.Constant) and s.lower.value == 0) \
            and isinstance(s.upper, ast.Constant) and type(s.upper.value) is int and s.step is None \
            and self.held(node.value) == held

    def made_here(self, item) -> bool:
        """True for a message made by a call in this function (`summary = await self._summarize(...)`)."""
        if isinstance(item, ast.Name):
            item = self.once.get(item.id)
        if isinstance(item, ast.Await):
            item = item.value
        return isinstance(item, ast.Call)

    def grows(self, held: str) -> bool:
        """True when the function adds to the kept list (`.append`, `.extend`, `.insert`, `+=`)."""
        for n in ast.walk(self.func):
            target = n.func.value if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                and n.func.attr in ("append", "extend", "insert") else n.target if isinstance(n, ast.AugAssign) else None
            if target is not None and self.held(target) == held:
                return True
        return False

    def cuts(self):
        """(statement, held, how, amount, summary, slice node) of each cut of a kept list."""
        nodes = sorted((n for n in self.stmts if isinstance(n, (ast.Assign, ast.AugAssign, ast.Delete, ast.Expr))),
                       key=lambda n: (n.lineno, n.col_offset))
        for n in nodes:
            if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add) and isinstance(n.target, ast.Name):
                # `kept = xs[0:1]`, then `kept += xs[-3:]`: the head, then the newer part
                kept = self.front(n.value)
                head = self.heads.get(n.target.id)
                if kept is not None and head is not None and self.head_of(head, kept[1]):
                    self.derived[n.target.id] = kept
                continue
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                    and isinstance(n.value, ast.Subscript):
                self.heads[n.targets[0].id] = n.value  # (a head of a kept list, perhaps: `head_of`)
            if isinstance(n, ast.Assign) and len(n.targets) == 1:
                target = n.targets[0]
                kept = self.kept_in(n.value)
                if kept is None:
                    continue
                if isinstance(target, ast.Name):
                    self.derived[target.id] = kept
                elif self.held(target) == kept[1] and (isinstance(target, ast.Attribute) or _keyed(target) or _named_key(target)):
                    yield n, kept[1], kept[2], kept[3], kept[4], kept[0]
            elif isinstance(n, ast.Delete) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Subscript):
                t = n.targets[0]
                held = self.held(t.value)
                if held is None:
                    continue
                if isinstance(t.slice, ast.Slice) and t.slice.lower is None and t.slice.upper is not None:
                    yield n, held, "drop", t.slice.upper, False, t
                elif isinstance(t.slice, ast.Constant) and t.slice.value == 0:
                    yield n, held, "drop", ast.Constant(1), False, t
            elif isinstance(n, ast.Expr) and _pops_oldest(n.value):
                held = self.held(n.value.func.value)
                if held is not None:
                    yield n, held, "drop", ast.Constant(1), False, n
            elif isinstance(n, ast.Expr) and self.removes is not None and isinstance(n.value, ast.Call) \
                    and (held := self.removes(n.value)) is not None:
                yield n, held, "drop", ast.Constant(1), False, n


def _keyed(node) -> bool:
    """True for a dotted attribute of a name read under a key that is a name or an attribute
    (`self.messages[chat_id]`, `self.history[self.session]`), not a slice nor a constant."""
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and _chain(node.value) \
        and isinstance(node.slice, (ast.Name, ast.Attribute))


def _named_key(node) -> bool:
    """True for a dotted attribute of a name read under a constant key named for the conversation
    (`self.info["messages"]`, `self.state["chat_history"]`): the list kept in a dict the object holds."""
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and _chain(node.value) \
        and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str) \
        and bool(words(node.slice.value) & CONVERSATION_WORDS)


def _len_minus(node) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and isinstance(node.left, ast.Call) \
        and isinstance(node.left.func, ast.Name) and node.left.func.id == "len"


def _pops_oldest(call) -> bool:
    """`xs.pop(0)`, or `xs.pop(1)`: the oldest item, or the oldest after a first one that is kept
    (a system message, the first turn)."""
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "pop" \
        and len(call.args) == 1 and isinstance(call.args[0], ast.Constant) and call.args[0].value in (0, 1) \
        and type(call.args[0].value) is int


def _fit_rebinds(func, stmts):
    """(statement, name, how, amount) for a handed list rebound to its newer part in a `while`
    loop that runs until a size fits, when the loop hands the list to a call again
    (`events = events[1:]`, then `prompt = render(..., events=events)`)."""
    params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
    for loop in stmts:
        if not isinstance(loop, ast.While):
            continue
        for stmt in loop.body:
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                    and isinstance(stmt.value, ast.Subscript) and isinstance(stmt.value.value, ast.Name)):
                continue
            name, s = stmt.targets[0].id, stmt.value.slice
            if stmt.value.value.id != name or name not in params or not isinstance(s, ast.Slice) \
                    or s.lower is None or s.upper is not None:
                continue
            rendered = any(isinstance(c, ast.Call) and any(
                isinstance(a, ast.Name) and a.id == name for a in (*c.args, *(k.value for k in c.keywords)))
                for later in loop.body if later.lineno > stmt.lineno for c in ast.walk(later))
            if rendered:
                yield stmt, name, "drop", s.lower


#: Words of a list's name that say it holds the conversation whatever is added to it; other
#: conversation words (`history`, `chat`, `turns`) also name logs of calls (`lm.history`).
_SPECIFIC = frozenset({"message", "messages", "msgs", "conversation", "dialog", "dialogue", "transcript"})
#: Words of a name added to a list that say it is a message.
_MESSAGE_ITEMS = frozenset({"message", "messages", "msg", "msgs", "turn", "turns", "reply", "response", "answer",
                            "question", "prompt", "exchange", "utterance"})


def message_item(item) -> bool:
    """True for an item added to a list that is a message: a message display or object
    (`class_facts.message_node`), a name of one (`reply`, `user_msg`), or a tuple or list of
    items one of which is (`(query, response, rank)`: a turn)."""
    if isinstance(item, (ast.Tuple, ast.List)):
        return any(message_item(e) for e in item.elts)
    name = item.id if isinstance(item, ast.Name) else item.attr if isinstance(item, ast.Attribute) else ""
    return bool(message_node(item) or words(name) & _MESSAGE_ITEMS)


def held_conversation(module, held: str) -> bool:
    """True when the name of `held` says it is the conversation: a specific word unless it says
    messages and every item the module adds to it is a dict display with no key a message has (a UI's display log
    `self.messages.append({"id": ..., "text": ..., "level": ...})` is not), or a generic one
    (`history`) when what the module adds to it is a message, or nothing is added to it here (the
    dspy-style call log `owner.history.append(entry)` is not)."""
    found = words(held.rsplit(".", 1)[-1])
    if found & _SPECIFIC:
        items = _added(module, held) if found & MESSAGE_WORDS else []
        return not items or not all(not_a_message(item) for item in items)
    if not found & CONVERSATION_WORDS:
        return False
    for item in _added(module, held):
        name = item.id if isinstance(item, ast.Name) else item.attr if isinstance(item, ast.Attribute) else ""
        if not (message_node(item) or words(name) & _MESSAGE_ITEMS or isinstance(item, (ast.Tuple, ast.List))):
            return False
    return True


def _added(module, held: str) -> list[ast.expr]:
    """The items the module adds to `held` by `.append(x)`, `.extend(x)`, `.insert(i, x)` (the last
    argument), in source order."""
    return [n.args[-1] for n in ast.walk(module.tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in (
                "append", "extend", "insert") and n.args and _is_expr(n.func.value, held)]


def _described(func, name: str) -> str | None:
    """The conversation word the docstring of `func` uses for its parameter `name` (`:param
    events: The history of events so far.`, `events (list): the chat history`), or None."""
    doc = ast.get_docstring(func) or ""
    if name not in doc:
        return None
    pattern = re.compile(rf"(?::param\s+(?:[\w\[\], ]+\s+)?{re.escape(name)}\s*:|^\s*{re.escape(name)}\s*(?:\([^)\n]*\))?\s*:)(.*)",
                         re.M)
    for m in pattern.finditer(doc):
        found = sorted(words(m.group(1)) & CONVERSATION_WORDS)
        if found:
            return found[0]
    return None


def _handed_as(module, held: str):
    """(keyword, node) of a call of the module that hands `held` on under a keyword named for the
    conversation (`events_history=state.last_events`), or None."""
    for n in ast.walk(module.tree):
        if isinstance(n, ast.Call):
            for k in n.keywords:
                if k.arg and words(k.arg) & CONVERSATION_WORDS and _is_expr(k.value, held):
                    return k.arg, k.value
    return None


def _is_expr(node, text: str) -> bool:
    """True for the attribute (or the attribute's key, `self.info["messages"]`) written `text`."""
    return isinstance(node, (ast.Attribute, ast.Subscript)) and ast.unparse(node) == text


def sent_history(layouts, held: str, module=None):
    """(the site of a request of the module that sends `held` as its history, True when the
    provider caches that history today: automatic caching, or a breakpoint on or after it), or None.
    `module`: also a history read where the code reads `held` (a list under a dict key,
    `self.info["messages"]`, is drawn by its key alone)."""
    at = _read_at(module, held) if module is not None and "[" in held else set()
    for layout in layouts:
        if layout.source != "python-call":
            continue
        for index, part in enumerate(layout.parts):
            if part.is_history and any(s.kind is Kind.HISTORY and (s.expr == held or s.span is not None
                                                                     and s.span.start in at) and not s.unconfirmed
                                       for s in part.segments):
                return layout.site, (layout.provider not in _OPT_IN or layout.auto_cache is not None
                                     or any(p.breakpoints for p in layout.parts[index:]))
    return None


def _in_handler(func, stmt) -> bool:
    """True when `stmt` lies in the body of an `except` handler of `func`."""
    return any(isinstance(h, ast.ExceptHandler) and any(n is stmt for b in h.body for n in ast.walk(b))
               for h in ast.walk(func))


def _read_at(module, held: str) -> set:
    """The start positions of the reads of `held` in `module` (`self.info["messages"]`)."""
    return {module.span(n).start for n in ast.walk(module.tree)
            if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and ast.unparse(n) == held}


def _functions(module):
    """(function, its class or None) of each function of the module whose lines hold a shape of
    `TEXT` (innermost first: a nested function is read alone), found by a walk of statements only."""
    rows = sorted({bisect_right(module.line_starts, at) for at in anchored.starts_of(TEXT, module.source, **TEXT_ANCHORS)})
    stack = [(stmt, None) for stmt in module.tree.body]
    while stack:
        stmt, cls = stack.pop()
        i = bisect_left(rows, stmt.lineno)
        if not (i < len(rows) and rows[i] <= (stmt.end_lineno or stmt.lineno)):
            continue  # no shape in its lines: nothing under it is read
        if isinstance(stmt, _FUNCS):
            yield stmt, cls
            stack.extend((s, None) for s in stmt.body)
            continue
        inner = stmt if isinstance(stmt, ast.ClassDef) else cls  # (a method: a function of a class body)
        for attr in ("body", "orelse", "finalbody"):
            stack.extend((s, inner) for s in getattr(stmt, attr, None) or () if isinstance(s, ast.stmt))
        for handler in getattr(stmt, "handlers", ()):
            stack.extend((s, cls) for s in handler.body)


def _remover(evaluator, module, func, cls):
    """The test `_Reader` asks of a call statement: the kept list (`self.planner.messages`) that a
    keeper's method removes an item of (`self.planner.remove_message_at(1)`), read in the frame of
    `func`; None for any other call."""
    def removes(call):
        if not removed_shape(call):
            return None
        return removed_at(evaluator, call, evaluator.unbound_frame(module, func, cls, 1))
    return removes


def stored_cuts(module, evaluator, layouts) -> tuple[list[StoredCut], set[int]]:
    """(the cuts of kept conversations in `module` that run on every request once the limit is
    reached (or by default), each with its evidence; the lines of the cuts of kept lists made in
    steps) (see the module docstring)."""
    out: list[StoredCut] = []
    defaults = Defaults(module, evaluator.project if evaluator is not None else None)
    steps: set[int] = set()
    judged = {s.window.row for layout in layouts if layout.source == "python-call" for part in layout.parts
              for s in part.segments if s.window is not None}  # a cut in a request: judged there
    for func, cls in _functions(module):
        default_of = defaults.reader(cls)
        reader = _Reader(func, None if evaluator is None else _remover(evaluator, module, func, cls))
        found = [(stmt, held, how, amount, summary, cut) for stmt, held, how, amount, summary, cut in reader.cuts()]
        found += [(stmt, name, how, amount, False, stmt) for stmt, name, how, amount in _fit_rebinds(func, reader.stmts)]
        first: dict[str, StoredCut] = {}
        for stmt, held, how, amount, summary, cut in found:
            pace, margin = cadence(func, stmt, how, amount, default_of)
            if pace == STEPS:
                steps |= {stmt.lineno, cut.lineno}
            if pace not in (SLIDES, DEFAULT) or {stmt.lineno, cut.lineno} & judged:
                continue  # in steps or not known; or a cut a layout already carries (one cause)
            if not reader.grows(held) and (not guarded(func, stmt) or evaluator is not None
                                           and not called_anywhere(evaluator, module, func)):
                continue  # cut by a function that adds nothing to it, unconditionally or called by no code of
                #          the tree (`prune_history()`): a prune when the user asks
            if held in first:  # the same list cut again in the function (another branch): one cause
                first[held].related.append((stmt, "also cut here"))
                continue
            related = [] if cut is stmt or cut.lineno == stmt.lineno else [(cut, "the kept part taken here")]
            handed = isinstance(stmt.targets[0] if isinstance(stmt, ast.Assign) else None, ast.Name)
            named = held_conversation(module, held)
            if named:
                evidence = f"`{held}` is named for the conversation"
            elif handed and (said := _described(func, held)) is not None:
                evidence = (f"the prompt is rendered again from `{held}` in the loop, and the function's docstring "
                            f"says it is the {said}: the words are the evidence")
            elif (passed := _handed_as(module, held)) is not None:
                evidence = f"`{held}` is handed on as `{passed[0]}`"
                related.append((passed[1], _HANDED))
            else:
                continue  # a list not known to hold messages: a cache, a log
            first[held] = StoredCut(stmt, held, handed, named, pace, margin, summary, evidence, related,
                                    sent_history(layouts, held, module), _in_handler(func, stmt))
            out.append(first[held])
    return sorted(out, key=lambda c: (c.at.lineno, c.at.col_offset)), steps


def unclaimed(layouts, cuts: list[StoredCut], steps: set[int]) -> list:
    """The layouts less those of a cut kept list (a history part alone, outside a request:
    `python/history_cuts.window`) that a stored cut reports, or that is cut in steps (cached
    between cuts: no finding)."""
    rows = set(steps)
    for cut in cuts:
        rows |= {cut.at.lineno, *(n.lineno for n, note in cut.related if note != _HANDED)}
    if not rows:
        return layouts
    return [l for l in layouts if l.source != "python-constant" or not all(p.is_history for p in l.parts)
            or not all(s.window is not None and s.window.row in rows for p in l.parts for s in p.segments)]
