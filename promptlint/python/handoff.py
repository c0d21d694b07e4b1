"""A system prompt handed on with the conversation: what follows it in the request.

A prompt candidate built in a function (`system_prompt = f"...{today}"`, Policy 9) is judged on
its own text when the send site it reaches is not followed (a message builder that reverses a
list, a wrapper with many callers). Its own text does not say what the request puts after it;
the function that builds it often does: when it passes the system prompt to a call together with
the conversation (`build_messages(query, system_prompt, chat_history)`), the request it builds
holds both, and a system prompt goes before the conversation in every chat API (OpenAI and
LiteLLM messages, Anthropic `system`, Gemini `system_instruction`, Responses `instructions`).
Per-turn content at the end of such a system prompt sits before the whole history
(docs/policies.md, Policy 2).

Shapes (`name` assigned at `node`, read later in the same function):

    system_prompt = f"{PERSONA}\nToday is {today}."
    messages = build_messages(user_query, system_prompt, chat_history)   # history after it

    system_prompt = PERSONA + recalled
    return llm.chat(system=system_prompt, messages=[*history, user_msg])  # history after it

    sys_prompt = TEMPLATE.format(context_data=documents)
    await model_func(query, system_prompt=sys_prompt, history_messages=history)  # a callback:
    # history after it when the package's own functions taking `system_prompt` agree that it is
    # the system part of the request they send (`system_keyword_calls`)

Not a hand-off: a call that takes no conversation (`summarise(system_prompt, text)`), a message
put at the head of a list the function then puts after other messages (`kept.insert(0, note)`,
then `head + kept`: not the head of the request), a call made
before the assignment, a name rebound to other text before the call (the candidate's first
changing segment must be in the value the call receives), the hashing of the prompt.
"""
from __future__ import annotations

import ast
import re
from ..model import replace

from .. import classify
from ..model import Kind, Segment, Volatility
from .conversation_copies import copied_from
from .flow.values import Alt, Seq, Spread, Text
from .walk import child_nodes, node_key, subtree

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def conversation_after(finder, node, name: str, segs: list[Segment], frame, calls: bool | list = True) -> Segment | None:
    """The history segment of the conversation that a later call of the function around `node`
    receives together with the system prompt `name` (whose text is `segs`), or that the function
    puts `name` at the head of; None when neither. `calls`: a call taking both counts (the name
    says system prompt), a list of calls: those calls only (`system_keyword_calls`); else only
    text put first in the conversation (which makes it the system message, whatever its name)
    counts."""
    func = frame.func
    if func is None:
        return None
    first = next((s for s in segs if not s.is_static and s.kind is not Kind.HISTORY), None)
    if first is None or first.span is None:
        return None
    end = (node.end_lineno, node.end_col_offset)
    rebound = [(n.lineno, n.col_offset) for n in _nodes(func) if n is not node and _binds(n, name)]
    for at, mine, others in sorted(_hand_offs(func, name, bool(calls)), key=lambda h: (h[0].lineno, h[0].col_offset)):
        if isinstance(calls, list) and at not in calls:
            continue
        start = (at.lineno, at.col_offset)
        if start < end or any(end < r < start for r in rebound):
            continue  # before the assignment, or a later one is nearer the hand-off (judged there)
        history = next((h for h in (conversation_of(finder, a, frame) for a in others) if h is not None), None)
        if history is None:
            continue
        history = replace(history, origin=finder.m.span(at), origin_note="the conversation placed after it here")
        # the text read there still holds what changes in the candidate (an interpolation of the
        # whole text, `f"{system_prompt}\n{extra}"`, places its segments at the interpolation); of
        # a text set by a condition (`prompt = ""`, then `if found: prompt = TEMPLATE.format(...)`),
        # one of its variants does
        from .layout_values import variants_of
        carried = [s for v in variants_of(finder.ev.eval(mine, frame)) for s in finder.ev.text_of(v, frame)]
        if any(s.kind is first.kind and s.expr == first.expr for s in carried):
            return history
    return None


def _hand_offs(func, name: str, calls: bool = True):
    """(node, the read of `name`, the nodes that may be the conversation) of each place in `func`
    that puts the text `name` together with a conversation:

    - a call taking it and other arguments (`build_messages(query, system_prompt, history)`);
    - the conversation's first message extended by it (`messages[0]["content"] += "\n\n" +
      system_prompt`, `messages[0].content += ...`): that message is the system message, the rest
      of the conversation follows it;
    - a message made of it put first in the conversation (`messages.insert(0, Message(SYSTEM,
      system_prompt))`, `[Message(SYSTEM, system_prompt)] + messages`)."""
    for n in _nodes(func):
        if isinstance(n, ast.Call):
            args = _args(n)
            mine = [a for a in args if _is(a, name)]
            if mine and calls:
                yield n, mine[0], [a for a in args if not _is(a, name)]
            elif isinstance(n.func, ast.Attribute) and n.func.attr == "insert" and len(n.args) == 2 \
                    and first_index(n.args[0]) and not _put_after_others(func, n.func.value):
                read = _read(n.args[1], name)
                if read is not None:
                    yield n, read, [n.func.value]
        elif isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add):
            conversation = first_message_of(n.target)
            read = _read(n.value, name) if conversation is not None else None
            if read is not None:
                yield n, read, [conversation]
        elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add) and isinstance(n.left, (ast.List, ast.Tuple)) \
                and n.left.elts and not isinstance(n.right, (ast.List, ast.Tuple)):
            read = _read(n.left.elts[0], name)
            if read is not None:
                yield n, read, [n.right]


def _put_after_others(func, listed) -> bool:
    """True when `func` puts the list `listed` (a local name) after other messages (`head + kept`,
    `[*head, *kept]`): an item inserted at its head is not at the head of the request (a note put
    first in a cut of the conversation that follows the system messages)."""
    if not isinstance(listed, ast.Name):
        return False
    for n in _nodes(func):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add) and _is(n.right, listed.id):
            return True
        if isinstance(n, ast.List) and any(isinstance(e, ast.Starred) and _is(e.value, listed.id) for e in n.elts[1:]):
            return True
    return False


def _is(node, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def first_index(node) -> bool:
    """True for the index 0 (the head of a list)."""
    return isinstance(node, ast.Constant) and node.value == 0


def head_index(node, func=None) -> bool:
    """True for an index counted from the head of a list, before the messages after it: a
    non-negative number (`insert(1, note)`: after the system message), or a position kept on the
    instance, also clamped to the list's length (`max(0, min(self.position, len(messages)))`), or
    a local name assigned one of those once in `func`. False for one counted from the end
    (`len(messages)`, `len(messages) - 1`, `-1`: a message put there goes after the history, or
    just before the newest message) and for a parameter or a name assigned otherwise (where it
    points is not known)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int) and not isinstance(node.value, bool) and node.value >= 0
    if isinstance(node, ast.Name):
        assigned = [n.value for n in subtree(func) if isinstance(n, ast.Assign) and len(n.targets) == 1
                    and isinstance(n.targets[0], ast.Name) and n.targets[0].id == node.id] if func is not None else []
        return len(assigned) == 1 and not isinstance(assigned[0], ast.Name) and head_index(assigned[0])
    if not isinstance(node, (ast.Attribute, ast.Call)):
        return False
    clamped: set[int] = set()
    for n in subtree(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "min":
            clamped.update(id(a) for a in n.args)
    for n in subtree(node):
        if isinstance(n, (ast.UnaryOp, ast.BinOp)):
            return False  # (`-1`, `len(x) - k`, `i + 1`: counted from somewhere else)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and id(n) not in clamped:
            return False
        if isinstance(n, ast.Name) and n is not node and not (isinstance(n.ctx, ast.Load) and _receiver_or_call(node, n)):
            return False
    return True


def _receiver_or_call(root, name: ast.Name) -> bool:
    """True when `name` in `root` is the object of an attribute (`self` of `self.position`), a
    function called (`min`, `max`, `len`) or the list `len(...)` measures: not a free value."""
    for n in subtree(root):
        if isinstance(n, ast.Attribute) and n.value is name:
            return True
        if isinstance(n, ast.Call) and (n.func is name or isinstance(n.func, ast.Name) and n.func.id == "len"
                                        and name in n.args):
            return True
    return False


def emptied_appends(node: ast.If) -> list[ast.Call]:
    """The `X.append(message)` statements of the body of an `if` whose test says the list `X` is
    empty (`if not messages:`, `if len(messages) == 0:`, `messages == []`, also as one operand of
    an `and`): the message goes at the head of the list, whatever the code put in it before."""
    tests = node.test.values if isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.And) else [node.test]
    empty = {node_key(t) for t in map(_emptied, tests) if t is not None}
    return [stmt.value for stmt in node.body
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == "append"
            and len(stmt.value.args) == 1 and node_key(stmt.value.func.value) in empty]


def _emptied(test):
    """The list a test says is empty (`not x`, `len(x) == 0`, `len(x) < 1`, `x == []`), else None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand if isinstance(test.operand, (ast.Name, ast.Attribute)) else None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len" and len(left.args) == 1 \
            and isinstance(right, ast.Constant) and (isinstance(op, ast.Eq) and right.value == 0
                                                    or isinstance(op, ast.Lt) and right.value == 1):
        return left.args[0]
    if isinstance(op, ast.Eq) and isinstance(right, ast.List) and not right.elts:
        return left
    return None


def _read(node, name: str):
    """The read of the local `name` in the expression `node` (a message made of it, a text
    joined to it), not inside a function or comprehension written there; None when not read."""
    todo = [node]
    while todo:
        n = todo.pop()
        if _is(n, name) and isinstance(n.ctx, ast.Load):
            return n
        if not isinstance(n, (*_SCOPES, ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp)):
            todo.extend(child_nodes(n))
    return None


def first_message_of(target):
    """The conversation whose first message `target` is a field of (`messages[0]["content"]`,
    `messages[0].content`, `messages[0]`), else None."""
    node = target
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        if isinstance(node, ast.Subscript) and first_index(node.slice):
            return node.value if isinstance(node.value, (ast.Name, ast.Attribute)) else None
        node = node.value
    return None


def handed_on(func, node, name: str) -> bool:
    """True when a call after `node` in `func` (a value assigned by a call: `await x.f(...)`) takes
    the local `name` and another argument: a hand-off worth evaluating."""
    value = node.value.value if isinstance(node.value, ast.Await) else node.value
    if func is None or not isinstance(value, ast.Call):
        return False
    end = (node.end_lineno, node.end_col_offset)
    return any((call.lineno, call.col_offset) > end and len(_args(call)) > 1
               and any(isinstance(a, ast.Name) and a.id == name for a in _args(call)) for call in _calls(func))


def _args(call: ast.Call) -> list:
    return [a.value if isinstance(a, ast.Starred) else a for a in call.args] + [k.value for k in call.keywords]


def _nodes(func):
    """The nodes of `func`'s body, not of functions or classes nested in it."""
    todo = list(func.body)
    while todo:
        node = todo.pop()
        if isinstance(node, _SCOPES):
            continue
        yield node
        todo.extend(child_nodes(node))


def _calls(func):
    return (n for n in _nodes(func) if isinstance(n, ast.Call))


def _binds(node, name: str) -> bool:
    """True for an assignment to the local `name` (`=`, `+=`, annotated)."""
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return isinstance(node.target, ast.Name) and node.target.id == name
    return False


def conversation_of(finder, arg, frame, by_name: bool = True) -> Segment | None:
    """The history segment of an argument that is the conversation (a list replayed across turns,
    a parameter or attribute named `chat_history` / `messages`; when not `by_name`, a list that
    holds the conversation or a list spread from a source named as one, `messages.extend(
    self.history.get())`, whatever the list's own name), else None."""
    value = finder.ev.eval(arg, frame)
    found = _history_in(value, 0) if by_name else _history_in(value, 0) or _named_spread(value, 0)
    if found is None and by_name and _named_conversation(arg, frame.func) and not _static(finder, value, frame):
        # the callers' value is not known as a conversation, but the name says what it is (its
        # own, or that of the list it is a copy of: `updated = list(messages)`, conversation_copies.py)
        found = Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr=finder.m.code(arg))
    if found is not None:
        return Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr=found.expr or finder.m.code(arg),
                       span=finder.m.span(arg), evidence="the conversation handed on with the system prompt",
                       window=found.window, window_stop=found.window_stop,  # (a cut one stays a window)
                       window_off=found.window_off)
    return None


def _named_conversation(arg, func=None, depth: int = 0) -> bool:
    """`chat_history`, `self.messages`: an argument named as the conversation; with `func`, the
    function that holds it, also a local copy of one (`updated = list(messages)`,
    `msgs = history.copy()`: conversation_copies.py)."""
    name = arg.id if isinstance(arg, ast.Name) else arg.attr if isinstance(arg, ast.Attribute) else ""
    if name.lower() in classify.HISTORY_NAMES:
        return True
    source = copied_from(arg, func) if func is not None and depth < 3 else None
    return source is not None and source is not arg and _named_conversation(source, func, depth + 1)


def _static(finder, value, frame) -> bool:
    return isinstance(value, Text) and all(s.is_static for s in finder.ev.text_of(value, frame))


def _named_spread(value, depth: int) -> Segment | None:
    """A list spread into `value` (an item of it, or of one of its variants) whose source names a
    conversation (`self.history.get()`, `load(chat_history)`): its history segment, else None."""
    if depth > 4:
        return None
    if isinstance(value, Alt):
        return next((h for h in (_named_spread(o, depth + 1) for o in value.options) if h is not None), None)
    if isinstance(value, Seq):
        return next((h for h in (_named_spread(i, depth + 1) for i in value.items) if h is not None), None)
    if isinstance(value, Spread) and set(re.findall(r"\w+", value.expr.lower())) & classify.HISTORY_NAMES:
        return Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr=value.expr, span=value.span)
    return None


def _history_in(value, depth: int) -> Segment | None:
    if depth > 4:
        return None
    if isinstance(value, Text):
        # the conversation itself, not a text that renders it among other text (a one-shot prompt)
        if value.segs and all(s.kind is Kind.HISTORY for s in value.segs):
            return value.segs[0]
        return None
    if isinstance(value, Alt):
        return next((h for h in (_history_in(o, depth + 1) for o in value.options) if h is not None), None)
    if isinstance(value, Spread):
        return _history_in(value.value, depth + 1)
    if isinstance(value, Seq):
        return next((h for h in (_history_in(i, depth + 1) for i in value.items) if h is not None), None)
    return None



#: Words of a keyword that say the argument is a system prompt (`system_prompt=`, `instructions=`).
_SYSTEM_WORDS = {"system", "sysprompt", "instruction", "instructions", "preamble"}
#: Keywords of SDK calls that take the system part of a request (Anthropic `system`, Gemini
#: `system_instruction`, Responses `instructions`).
_SDK_SYSTEM = {"system", "system_instruction", "instructions"}
MAX_IMPLEMENTATIONS = 32  # modules read for the functions a callback may be; past it: not linked


def system_keyword_calls(finder, func, node, name: str) -> list:
    """The calls after `node` in `func` that pass the local `name` by a keyword that names a
    system prompt (`use_model_func(query, system_prompt=sys_prompt, history_messages=history)`)
    to a callable the analysis cannot follow (a function taken from configuration, a parameter),
    when the package's own functions that take that keyword agree that it is the system part of
    a request: each such function that takes every keyword the call passes puts the parameter in a
    system message (`{"role": "system", "content": system_prompt}`) or an SDK call's system
    keyword, or hands it on by the same keyword, and reads the other keyword the call passes the
    conversation by (`history_messages`); none puts it elsewhere (`implementations`). The
    keyword's name alone links nothing (Policy 7)."""
    if func is None:
        return []
    end = (node.end_lineno, node.end_col_offset)
    out = []
    for call in _calls(func):
        if (call.lineno, call.col_offset) <= end:
            continue
        mine = next((k.arg for k in call.keywords if k.arg and _is(k.value, name)
                     and _words(k.arg) & _SYSTEM_WORDS), None)
        if mine is None or any(k.arg is None for k in call.keywords):
            continue
        others = [k.arg for k in call.keywords if k.arg != mine]
        if implementations(finder, mine, others) == "system":
            out.append(call)
    return out


def implementations(finder, keyword: str, others: list[str]) -> str | None:
    """"system" when the functions of the package tree with a parameter `keyword` (and every
    keyword of `others`, by name or through `**kwargs`) agree that it is the system part of the
    request, and one of `others` is read where it is (the conversation); None otherwise: no such
    function, one that puts it elsewhere, too many modules to read."""
    path = getattr(finder.m, "path", None)
    if path is None:
        return None
    modules = finder.ev.project.definers_of(keyword, path, MAX_IMPLEMENTATIONS)
    if not modules:
        return None
    placed = set()
    for module in modules:
        for fn in _functions(module.tree):
            a = fn.args
            params = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
            if keyword not in params or not all(o in params or a.kwarg is not None for o in others):
                continue
            placed.add(_placement(fn, keyword, [o for o in others if o in params]))
    placed.discard("forward")
    return "system" if placed == {"system"} else None


def _functions(tree):
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node
        todo.extend(n for n in child_nodes(node) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))


def _placement(fn, keyword: str, others: list[str]) -> str:
    """How `fn` uses its parameter `keyword`: "system" (in a message whose role is system, or an
    SDK call's system keyword, with one of `others` read too: the conversation beside it),
    "other" (in a message of another role, or joined to another parameter's text:
    `f"{system_prompt}\n{prompt}"`), else "forward" (handed on, or not placed here)."""
    a = fn.args
    params = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]} - {keyword, "self", "cls"}
    system = other = reads_other = False
    for n in _nodes(fn):
        if isinstance(n, ast.Dict):
            pairs = {k.value: v for k, v in zip(n.keys, n.values) if isinstance(k, ast.Constant)}
            role, content = pairs.get("role"), pairs.get("content")
            if content is not None and _read(content, keyword) is not None:
                if isinstance(role, ast.Constant) and role.value in ("system", "developer"):
                    system = True
                else:
                    other = True
        elif isinstance(n, ast.Call):
            if any(k.arg in _SDK_SYSTEM and _read(k.value, keyword) is not None for k in n.keywords):
                system = True
        elif _joined(n, keyword, params):
            other = True
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in others:
            reads_other = True
    if other or system and not reads_other:
        return "other"
    return "system" if system else "forward"


def _joined(n, keyword: str, params: set) -> bool:
    """True for text that joins the parameter `keyword` to another parameter's text
    (`system_prompt + prompt`, `f"{system_prompt}\n\n{prompt}"`)."""
    if isinstance(n, ast.JoinedStr):
        names = {v.value.id for v in n.values if isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name)}
    elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add):
        names = {x.id for x in (n.left, n.right) if isinstance(x, ast.Name)}
    else:
        return False
    return keyword in names and bool(names & params)


def _words(name: str) -> set[str]:
    import re
    return {w.lower() for w in re.split(r"[^A-Za-z0-9]+", name) if w}


def grown_read(func, node, name: str):
    """The read of the local `name` that takes its whole text, when the function extends the text
    assigned at `node` with augmented assignments (`system_prompt += DATE_LINE`, `if masked:
    system_prompt += GUIDANCE`) before reading it: the first read after the last of them, in a
    call that hands it on (`run_loop(system_prompt=system_prompt)`), a return or an assignment;
    else None (the text is judged as assigned). A name assigned again after `node` is left out."""
    if func is None:
        return None
    start = (node.end_lineno, node.end_col_offset)
    grown = last = None
    for n in _nodes(func):
        where = (getattr(n, "lineno", 0), getattr(n, "col_offset", 0))
        if where <= start:
            continue
        if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add) and isinstance(n.target, ast.Name) \
                and n.target.id == name:
            last = max(last or where, (n.end_lineno, n.end_col_offset))
            grown = True
        elif isinstance(n, (ast.Assign, ast.AnnAssign)) and any(
                isinstance(t, ast.Name) and t.id == name for t in getattr(n, "targets", None) or [n.target]):
            return None
    if not grown:
        return None
    reads = [n for n in _nodes(func) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
             and (n.lineno, n.col_offset) > last]
    return min(reads, key=lambda n: (n.lineno, n.col_offset), default=None)
