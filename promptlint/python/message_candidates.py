"""Message lists as prompt candidates: a list of messages with roles built outside a recognised
send call (returned, kept in a local name, written into the arguments of a call the analysis does
not follow, or the conversation with a message put at its head) judged on its own (docs/policies.md,
Policy 9)."""
from __future__ import annotations

import ast
from ..model import replace

from ..model import Kind, Segment, Volatility
from .answered_records import answered_record
from .flow.values import Alt, Mapping, Obj, Seq, Spread, Text
from .module import callee_name
from .walk import subtree


def static_chars(segs: list[Segment]) -> int:
    """Characters of static text in `segs`, surrounding whitespace of each left out."""
    return sum(len(s.text.strip()) for s in segs if s.is_static)


def message_list(finder, node, value, frame) -> bool:
    """A message list built outside a recognised send call (returned, or kept in a local name and
    handed to a wrapper the analysis does not follow: `messages = [{"role": "system", ...}, ...]`):
    a candidate when a message that is not history holds content that can change, or its history
    is cut (a window: it changes on every turn whatever the other messages are, also when a demo
    caller hands the function constants), and there is static text or history to lose. True when a layout was added. A list the function completes
    with the assistant's answer from its data and only keeps (a fine-tuning record written to a
    dataset: `answered_records`) is no request: no candidate. A list grown in branches (`if
    history: messages.extend(history)`) is read as its variants are (`LayoutBuilder.message_parts`)."""
    lists = options_of(value) if isinstance(value, Alt) else [value]
    if not (lists and all(isinstance(v, Seq) and not v.repeated and has_messages(v) for v in lists)):
        return False
    if len(lists) > 1 and present_or_absent(lists) is None:
        # branches that write different messages in one place (`required_prefix + q` or `prefix + q`):
        # the variant with the most messages, one request the code can send
        value = max(lists, key=lambda v: len(v.items))
    if answered_record(frame.func, node):
        return False
    parts, newest = finder.b.message_parts(value, frame)
    cut = any(s.window is not None for p in parts if p.is_history for s in p.segments)
    if (cut or any(not s.is_static and s.kind is not Kind.HISTORY for p in parts if not p.is_history
                   for s in p.segments)) and any(p.is_history or static_chars(p.segments) for p in parts):
        finder.b.add(node, "python-constant", None, None, None, parts, newest)
        return True
    return False


def present_or_absent(lists):
    from .layout_values import present_or_absent as merged
    return merged(lists)


def options_of(value):
    from .layout_values import variants_of
    return variants_of(value)


def has_messages(seq: Seq) -> bool:
    """True when the list holds a message with a role (a dict, a message object, a tuple; or one of
    several such messages chosen by a condition)."""
    for item in seq.items:
        if isinstance(item, Alt) and item.options and all(has_messages(Seq([o])) for o in item.options):
            return True
        if isinstance(item, Mapping) and "role" in item.items:
            return True
        if isinstance(item, Obj) and ("role" in item.kwargs or item.qualname.rsplit(".", 1)[-1].endswith("Message")):
            return True
    return False


def builds_messages(node) -> bool:
    """A list display holding a dict with a "role" key or a call with a `role=` keyword, or such
    a list joined to another (`[Message(role=SYSTEM, content=notes)] + messages`)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return builds_messages(node.left) or builds_messages(node.right)
    if not isinstance(node, (ast.List, ast.Tuple)):
        return False
    for el in node.elts:
        if isinstance(el, ast.Dict) and any(isinstance(k, ast.Constant) and k.value == "role" for k in el.keys):
            return True
        if isinstance(el, ast.Call) and any(k.arg == "role" for k in el.keywords):
            return True
    return False


def _role_known(finder, message, frame) -> bool:
    """False when the role of a message changes per request (read from data: `{"role": m["role"],
    "content": text}`, a stored message copied while a list is rebuilt, as `out.insert(0, ...)` in
    a loop over `messages[::-1]` does): such a message is no new head placed before the
    conversation. A static role, one of static roles by a condition or an enum member not
    resolved (`MessageRole.SYSTEM`) is a role written in the code."""
    role = message.items.get("role") if isinstance(message, Mapping) else \
        message.kwargs.get("role") if isinstance(message, Obj) else None
    if role is None:
        return True
    return not any(s.volatility is Volatility.PER_REQUEST for s in finder.ev.text_of(role, frame))


def once_per_conversation(message):
    """A message written once, when the conversation starts, and re-sent with it afterwards: a
    clock reading or an id in its content (a dict's or a message object's) is the same on every
    request of that conversation (per conversation, not per request)."""
    def once(value):
        if isinstance(value, Alt):
            return Alt([once(o) for o in value.options], value.span, value.fallback)
        if isinstance(value, Text):
            return Text([replace(s, volatility=Volatility.PER_CONVERSATION,
                                 evidence=(s.evidence + "; " if s.evidence else "") + "written when the conversation starts")
                         if s.kind in (Kind.TIMESTAMP, Kind.UNIQUE_ID) and s.volatility is Volatility.PER_REQUEST else s
                         for s in value.segs])
        return value
    if isinstance(message, Alt):  # a message chosen by a condition: each of them
        return Alt([once_per_conversation(o) for o in message.options], message.span)
    if isinstance(message, Mapping) and "content" in message.items:
        return replace(message, items={**message.items, "content": once(message.items["content"])})
    if isinstance(message, Obj) and "content" in message.kwargs:
        return replace(message, kwargs={**message.kwargs, "content": once(message.kwargs["content"])})
    return message


def placed_first(finder, node, frame, emptied: bool = False) -> bool:
    """A message put at the head of the conversation outside a send call, which the rest of the
    conversation follows: a message inserted first (`messages.insert(0, Message(SYSTEM, knowledge +
    RULES))`), appended to the list when it is empty (`emptied`: `if not messages:
    messages.append(system)`, made once per conversation) or text added to the first message (`messages[0]["content"] += "\\n\\n" + notes`,
    `messages[0].content += ...`: judged as a system message holding that text). A candidate of
    the message and the conversation (`message_list`) when the list is the conversation (its
    value, or its name). True when a layout was added."""
    from .handoff import conversation_of, first_index, first_message_of, head_index
    from .step_chains import put_ahead
    if isinstance(node, ast.Call):
        func = node.func
        if not (isinstance(func, ast.Attribute) and (func.attr == "insert" and len(node.args) == 2
                                                     and head_index(node.args[0], frame.func) or emptied)):
            return False
        target = func.value
        message = finder.ev.eval(node.args[-1], frame)
        # (a message chosen by a condition, `{"role": "developer", ...} if as_system else {"role":
        # "user", ...}`: each of them)
        options = options_of(message)
        if not all(has_messages(Seq([o])) and _role_known(finder, o, frame) for o in options):
            return False
        if emptied:  # written when the conversation starts, then re-sent with it
            message = once_per_conversation(message)
    elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
        target = first_message_of(node.target)
        if target is None:
            return False
        message = Mapping({"role": Text([Segment(text="system", span=finder.m.span(node.target))]),
                           "content": finder.ev.eval(node.value, frame)}, span=finder.m.span(node))
    else:
        return False
    # (a list found empty is the conversation when it holds one where it is not empty: a local
    # `messages = []` of a tool's output is not, whatever its name; nor is a list written here that
    # a message is inserted into after its first items, `parts.insert(1, example)`)
    inside = isinstance(node, ast.Call) and not emptied and not first_index(node.args[0])
    ahead = put_ahead(finder, target, frame) if not emptied else None
    if ahead is not None:  # a later step of the pipeline puts the conversation before it (step_chains.py)
        return message_list(finder, node, Seq([Spread(Text([ahead]), ahead.span, ahead.expr), message]), frame)
    by_name = not emptied and not (inside and isinstance(finder.ev.eval(target, frame), Seq))
    history = conversation_of(finder, target, frame, by_name=by_name)
    if history is None:
        return False
    history = replace(history, origin=finder.m.span(node), origin_note="the conversation placed after it here")
    return message_list(finder, node, Seq([message, Spread(Text([history]), history.span, history.expr)]), frame)


_GROWN_BY = ("append", "extend", "insert")


def _grows(n, name: str) -> bool:
    """True for a call `name.append(...)` / `.extend(...)` / `.insert(...)`."""
    return isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _GROWN_BY \
        and isinstance(n.func.value, ast.Name) and n.func.value.id == name


#: Calls that only look at a list (its length, a log line), never hand it on to be sent.
_LOOKS = frozenset({"len", "print", "isinstance", "str", "repr", "id", "bool", "debug", "info", "warning", "error",
                    "exception", "log"})


def _handed_reads(func, returned: bool = True) -> set[int]:
    """The ids of the nodes a call of `func` takes as an argument (but a call that only looks at
    it: `_LOOKS`), and with `returned` those a `return` returns."""
    handed = {id(a) for c in subtree(func) if isinstance(c, ast.Call) and callee_name(c) not in _LOOKS
              for a in (*c.args, *(k.value for k in c.keywords))}
    if not returned:
        return handed
    return handed | {id(r.value) for r in subtree(func) if isinstance(r, ast.Return) and r.value is not None}



def copied_read(func, node, name: str):
    """The read of the local message list `name` (assigned at `node`) that takes it whole after
    loops append to it (`out = [system]; for m in messages: out.append({...})`, then `send(out)`
    or `return out`: the first read after the last such loop that is an argument of a call or the
    returned value), or after statements add to it (`if history: messages.extend(history)`,
    `messages.append({"role": "user", ...})`, `messages += turns`: the first argument of a call
    after the first of them, which sees every one written before it; a list so returned is the
    returned list's candidate, `candidates.returned`); else None (the list is judged as
    assigned). A name assigned again after `node` is left out."""
    if func is None:
        return None
    start = (node.end_lineno, node.end_col_offset)
    looped = added = None
    for n in subtree(func):
        if (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)) <= start:
            continue
        if isinstance(n, (ast.Assign, ast.AnnAssign)) and any(
                isinstance(t, ast.Name) and t.id == name for t in getattr(n, "targets", None) or [n.target]):
            return None
        if isinstance(n, (ast.For, ast.AsyncFor)) and any(
                isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "append"
                and isinstance(c.func.value, ast.Name) and c.func.value.id == name for c in subtree(n)):
            looped = max(looped or (0, 0), (n.end_lineno, n.end_col_offset))
        elif isinstance(n, ast.Expr) and _grows(n.value, name) or isinstance(n, ast.AugAssign) \
                and isinstance(n.op, ast.Add) and isinstance(n.target, ast.Name) and n.target.id == name:
            added = min(added or (n.end_lineno, n.end_col_offset), (n.end_lineno, n.end_col_offset))
    last = looped or added
    if last is None:
        return None
    handed = _handed_reads(func, returned=looped is not None)
    reads = [n for n in subtree(func) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
             and (n.lineno, n.col_offset) > last and id(n) in handed]
    return min(reads, key=lambda n: (n.lineno, n.col_offset), default=None)


def appended_then_copied(func, message):
    """The read of the local list a message display `message` is appended to (`out.append({"role":
    "system", ...})`) that takes the list whole after loops copy more messages onto it
    (`copied_read`), else None."""
    if func is None:
        return None
    for call in subtree(func):
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append"
                and len(call.args) == 1 and call.args[0] is message and isinstance(call.func.value, ast.Name)):
            return copied_read(func, call, call.func.value.id)
    return None
