"""Cache breakpoints set by statements (`block["cache_control"] = {...}`) around a send site that
the request's layout may not place: in the function that sends, in a helper it calls with a
message (`mark(messages[-1])`), or in a function read to build the request (a payload builder
that returns a dict). A rule that reports a *missing* breakpoint stays silent when one of them
exists (the breakpoint is there, we only do not know on which block). Also: whether a sending
function takes a list named as a conversation (`takes_conversation`), and whether it sends a
prompt its callers pass whole (`passes_prompt`), where a function read to build a request
chooses what to send by the clock (`clock_tests`), and whether serialised text was written once
into the list a loop keeps sending (`written_once`).
"""
from __future__ import annotations

import ast

from .. import classify
from ..model import Span, Volatility
from .walk import subtree

#: Names of a conversation that say more than a message list does (`messages` is also the name
#: of a one-shot prompt's list).
_GENERIC = frozenset({"messages", "msgs", "all_messages", "chat_messages"})

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def sets_cache_marker(target: ast.AST) -> bool:
    """`x[...]["cache_control"] = ...` (on any subscript chain)."""
    return (isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant)
            and target.slice.value == "cache_control")


def marker_targets(func: ast.AST) -> list[ast.Subscript]:
    """The `...["cache_control"]` targets assigned in `func`'s body (nested functions included)."""
    return [t for node in subtree(func) if isinstance(node, ast.Assign) for t in node.targets if sets_cache_marker(t)]


def helper_markers(module, func: ast.AST, cls: ast.ClassDef | None) -> list[Span]:
    """Markers set by functions of the same module that `func` calls by name (`mark(m)`,
    `self._mark(m)`): the spans of their `cache_control` assignments."""
    methods = {n.name: n for n in cls.body if isinstance(n, _FUNCS)} if cls is not None else {}
    out: list[Span] = []
    seen: set[int] = set()
    for call in subtree(func):
        if not isinstance(call, ast.Call):
            continue
        f = call.func
        callee = None
        if isinstance(f, ast.Name):
            callee = module.functions.get(f.id)
        elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in ("self", "cls"):
            callee = methods.get(f.attr)
        if callee is None or callee is func or id(callee) in seen:
            continue
        seen.add(id(callee))
        out.extend(module.span(t) for t in marker_targets(callee))
    return out


#: Words of a marked target that say it is not a message of the conversation (`tools[-1]`,
#: `system[0]`): a breakpoint there closes the tools or the system prompt.
_NOT_CONVERSATION = frozenset({"tool", "tools", "function", "functions", "system", "instructions"})


def conversation_markers(module, func: ast.AST, cls: ast.ClassDef | None) -> list[Span]:
    """`cache_control` set by a statement on a block that may be a message of the conversation,
    in the function that sends (`func`), a helper it calls by name, or another method of its class
    (`cls`): a class that keeps a conversation marks the newest tool result when it adds it
    (`results[-1]["cache_control"] = {...}; self.messages += [...]`) and sends the list in
    another method. A target whose names say tools or system (`tools[-1]["cache_control"]`) is
    left out. The spans of those assignments, each once."""
    funcs = {id(func): func}
    funcs.update((id(n), n) for n in (cls.body if cls is not None else ()) if isinstance(n, _FUNCS))
    funcs.update((id(f), f) for call in subtree(func) if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                 and (f := module.functions.get(call.func.id)) is not None)
    spans = {module.span(t): None for f in funcs.values() for t in marker_targets(f) if not _names_not_conversation(t)}
    return list(spans)


def _names_not_conversation(target: ast.Subscript) -> bool:
    """True when a name or attribute of the subscript chain says tools or the system prompt."""
    node = target.value
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Call)):
        if isinstance(node, ast.Attribute) and words_of(node.attr) & _NOT_CONVERSATION:
            return True
        node = node.func if isinstance(node, ast.Call) else node.value
    return isinstance(node, ast.Name) and bool(words_of(node.id) & _NOT_CONVERSATION)


def words_of(name: str) -> set[str]:
    return {w for w in name.lower().split("_") if w}


def takes_conversation(func: ast.AST | None, call: ast.Call) -> bool:
    """True when the sending function takes or reads a list named as a conversation: a parameter,
    a `self.` attribute or an attribute of a parameter (`node.message_history`) named `history`, `chat_history`, `conversation`, `history_messages`, ... (not the generic
    `messages`: `def query(self, history): ... messages=self.convert(history)`), or when `call`
    sits in a loop that grows a list the call sends (`while True: create(messages=messages) ...
    messages.append(reply)`: each pass re-sends the conversation)."""
    if not isinstance(func, _FUNCS):
        return False
    if grown_in_loop(func, call):
        return True
    params = [a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)]
    names = {classify_word(a) for a in params}
    owners = {"self", *params}  # (`self.chat_history`, `node.message_history` of a parameter `node`)
    names.update(classify_word(n.attr) for n in subtree(func) if isinstance(n, ast.Attribute)
                 and isinstance(n.value, ast.Name) and n.value.id in owners)
    return any((n in classify.HISTORY_NAMES and n not in _GENERIC) or names_conversation_list(n) for n in names)


#: Words that name a conversation, and words that name a list of its items: `history_messages`,
#: `conversation_turns` are a conversation; `max_history`, `history_limit` are not.
_CONVERSATION_WORDS = frozenset({"history", "conversation", "dialog", "dialogue", "transcript"})
_LIST_WORDS = frozenset({"messages", "msgs", "turns", "entries"})


def names_conversation_list(name: str) -> bool:
    """True when a name says a conversation's list of messages by two words (`history_messages`,
    `chat_history_msgs`): a word of a conversation and a word of a list of its items."""
    words = words_of(name)
    return bool(words & _CONVERSATION_WORDS) and bool(words & _LIST_WORDS)


def passes_prompt(func: ast.AST | None, parts, closure: frozenset | set = frozenset()) -> bool:
    """True when the request's messages are one user message made of a single parameter of `func`
    (the sending function), sent whole (tools or a response schema may come before it, and a system
    message made of another parameter: `def create(self, text, system_prompt)`): `def
    request(self, prompt): ... messages=[{"role": "user", "content": prompt}]`, or when its messages are a message list `func` takes from its callers
    (`passes_messages`). Such a function is an adapter: the prompt text is its callers'.
    `closure`: the parameters of the functions around a nested `func` that it reads as they are
    (`flow.closures.outer_parameters`: a send in a retried inner function, `def messages(): ...
    client.messages.create(messages=[{"role": "user", "content": prompt}])`), also its callers'."""
    if not isinstance(func, _FUNCS):
        return False
    if passes_messages(func, parts, closure):
        return True
    messages = [p for p in parts if p.role != "tools"]  # tools and a response schema come before any message
    params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)} - {"self", "cls"}
    params |= set(closure)
    if len(messages) == 2 and messages[0].role in ("system", "developer"):  # the callers' system prompt too
        if not _one_parameter(messages[0], params):
            return False
        messages = messages[1:]
    if len(messages) != 1 or messages[0].role != "user":
        return False
    return _one_parameter(messages[0], params)


#: The turn markers of Anthropic's legacy Text Completions API (`anthropic.HUMAN_PROMPT`,
#: `AI_PROMPT`): the API's framing of a prompt (`f"{HUMAN_PROMPT} {prompt}{AI_PROMPT}"`), no text of the code's own.
_TURN_MARKERS = ("\n\nHuman:", "\n\nAssistant:")


def _one_parameter(part, params) -> bool:
    """True when the part's text is one parameter of the sending function, whole (images or
    documents sent in the same message besides: `[*image_blocks, {"type": "text", "text": prompt}]`;
    the legacy turn markers around it: `_TURN_MARKERS`)."""
    segs = [s for s in part.segments if (not s.is_static or s.text.strip() and s.text.rstrip(" ") not in _TURN_MARKERS)
            and not s.is_attachment]
    return len(segs) == 1 and not segs[0].is_static and _whole_parameter(segs[0].expr, params)


def _whole_parameter(expr: str, params) -> bool:
    """True when `expr` is a parameter of `params`, or its text by a method called with no
    arguments or an attribute of it (`prompt.build()`, `request.prompt`: the callers' prompt
    object turned into its text), nothing added."""
    if expr in params:
        return True
    try:
        node = ast.parse(expr, mode="eval").body
    except SyntaxError:
        return False
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        node = node.func
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in params


def passes_messages(func: ast.AST, parts, closure: frozenset | set = frozenset()) -> bool:
    """True when the request sends a message list that `func` (the sending function) takes from
    its callers: a history part the code does not build (`Part.read` False: the list, a slice or
    a conversion of it) in a function with a parameter named as a conversation (`messages`
    included), or whose text is a parameter of any name or a subscript of one (`input`,
    `input[1:]`: the list is the callers' by where it comes from, not by its name), with
    no other message than a system prompt taken from that list or from a parameter (`def
    _generate(self, messages): ... system=messages[0].content, messages=messages[1:]`), which
    the function may frame with a sentence of its own (`"Respond in JSON matching: " +
    str(request.schema)`, under `_FRAMING_CHARS`), tools allowed. Every prompt of the callers goes through it, one-shot or
    conversation."""
    history = [p for p in parts if p.is_history]
    if len(history) != 1 or history[0].read:
        return False
    params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)} - {"self", "cls"}
    params |= set(closure)  # (a nested function's reads of the parameters around it)
    if not any(classify_word(a) in classify.HISTORY_NAMES for a in params) \
            and not (len(history[0].segments) == 1 and _root(history[0].segments[0].expr) in params):
        return False
    for part in parts:
        if part.role in ("tools", "history"):
            continue
        if part.role not in ("system", "developer"):
            return False
        for seg in part.segments:
            if not seg.is_static and not (_root(seg.expr) in params
                                          or seg.evidence.startswith("an early message of the conversation")):
                return False
        own = sum(len(s.text.strip()) for s in part.segments if s.is_static)
        if own and (all(s.is_static for s in part.segments) or own >= _FRAMING_CHARS):
            return False  # a system prompt of the function's own
    return True


#: Characters of static text an adapter may add around its callers' system text (a sentence:
#: "Respond in JSON matching this schema: "); more is a system prompt of its own.
_FRAMING_CHARS = 200


def configured_system(parts):
    """The segment of a system (or developer) part of the request that is text set elsewhere,
    whole: configuration (stable, fixed per process, or an attribute of the instance: `self.x.y`; its
    size not known here) whose last name says prompt (`self.agent_config.prompt_preamble`, `self.system_prompt`: `classify.PROMPT_ATTR`),
    with under `_FRAMING_CHARS` of the code's own static text around it, so that every request
    re-sends it the same; None when there is none."""
    for part in parts:
        if part.role not in ("system", "developer"):
            continue
        own = sum(len(s.text.strip()) for s in part.segments if s.is_static)
        if own >= _FRAMING_CHARS:
            continue
        for seg in part.segments:
            if not seg.is_static and classify.PROMPT_ATTR.search(_last_name(seg.expr)) and (
                    seg.volatility in (Volatility.STABLE, Volatility.PER_PROCESS)
                    or (seg.volatility is Volatility.UNKNOWN and seg.expr.startswith("self.") and "(" not in seg.expr)):
                return seg
    return None


def _last_name(expr: str) -> str:
    """The last name of an expression's text: `prompt_preamble` of `self.agent_config.prompt_preamble`."""
    return expr.split("(")[0].split("[")[0].rsplit(".", 1)[-1]


def _root(expr: str) -> str:
    """The name an expression's text starts with: `input` of `input[1:]`, `input.pop(0)["content"]`."""
    return expr.split("[")[0].split(".")[0].split("(")[0]


def names_any(funcs, words) -> bool:
    """True when the source text of one of `funcs` ((module, function node) pairs: the functions
    read to build a request) holds one of `words`: a converter in another module that turns the
    conversation's tool turns into the SDK's (`{"type": "tool_result", ...}`) names them."""
    for module, func in funcs:
        rows = module.source.splitlines()[func.lineno - 1:getattr(func, "end_lineno", func.lineno)]
        text = "\n".join(rows)
        if any(word in text for word in words):
            return True
    return False


def clock_tests(funcs) -> list[Span]:
    """Where the functions `funcs` ((module, node) pairs: those read to build a request) choose
    what to build by comparing the clock: an `if` or a conditional expression whose test compares
    a clock reading (`time.time() < meta["expires_at"]`, `datetime.now() >= expiry`) and whose
    branch writes a dict display (a message or a block of it; not a timeout that returns or
    raises). Each span once."""
    out: dict = {}
    for module, func in funcs:
        for node in subtree(func):
            if isinstance(node, (ast.If, ast.IfExp)) and _compares_clock(module, node.test) \
                    and _builds(node):
                out.setdefault(module.span(node.test), None)
    return list(out)


def _compares_clock(module, test) -> bool:
    for cmp in subtree(test):
        if isinstance(cmp, ast.Compare) and isinstance(cmp.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
            for side in (cmp.left, *cmp.comparators):
                if isinstance(side, ast.Call) and module.qualified_name(side.func) in classify.TIMESTAMP_CALLS:
                    return True
    return False


def _builds(node) -> bool:
    body = [node.body] if isinstance(node, ast.IfExp) else node.body
    return any(isinstance(n, ast.Dict) for stmt in body for n in subtree(stmt))


def classify_word(name: str) -> str:
    return name.lower().lstrip("_")


_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_GROW = ("append", "extend", "insert")


def grown_in_loop(func: ast.AST, call: ast.Call) -> bool:
    """True when a loop of `func` holds `call` and grows (`x.append(...)`, `x.extend(...)`,
    `x += ...`) a name that the call's arguments read."""
    sent = {n.id for a in (*call.args, *(k.value for k in call.keywords)) for n in subtree(a) if isinstance(n, ast.Name)}
    if not sent:
        return False
    for loop in subtree(func):
        if not isinstance(loop, _LOOPS) or not any(n is call for n in subtree(loop)):
            continue
        for node in subtree(loop):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _GROW \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in sent:
                return True
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id in sent:
                return True
    return False


#: Keys that set a cache breakpoint on a block or message: Anthropic's `cache_control`, Bedrock
#: Converse's `cachePoint` block (a tuple: iterated in this order where spans are listed).
MARKER_KEYS = ("cache_control", "cachePoint")


def conditional_marker(value, depth: int = 0) -> bool:
    """True when a message's content sets a breakpoint key in some variants of a condition only
    (`{..., "cache_control": ...} if m.last else {...}`, `**({"cache_control": ...} if last else
    {})`): the breakpoint is on the messages the condition picks, not on every message."""
    from .flow.values import Alt, Mapping, Seq
    if depth > 6:
        return False
    if isinstance(value, Alt):
        marked = [_marked(o, depth + 1) for o in value.options]
        return any(marked) and not all(marked) or any(conditional_marker(o, depth + 1) for o in value.options)
    if isinstance(value, Seq):
        return any(conditional_marker(v, depth + 1) for v in value.items)
    if isinstance(value, Mapping):
        return any(conditional_marker(v, depth + 1) for v in value.items.values())
    return False


def _marked(value, depth: int) -> bool:
    """True when a breakpoint key is set anywhere in the value (dicts, lists, alternatives)."""
    from .flow.values import Alt, Mapping, Seq
    if depth > 6:
        return False
    if isinstance(value, Mapping):
        return any(k in value.items for k in MARKER_KEYS) or any(_marked(v, depth + 1) for v in value.items.values())
    if isinstance(value, (Seq, Alt)):
        return any(_marked(v, depth + 1) for v in (value.items if isinstance(value, Seq) else value.options))
    return False


def written_once(module, func: ast.AST | None, call: ast.Call, span: Span | None) -> bool:
    """True when the text at `span` (a `json.dumps(...)`) is put into a list that `call` sends, by
    a loop that holds the call and keeps that list from pass to pass (`while True:
    create(messages=messages) ... messages.append({"role": "tool", "content": json.dumps(r)})`,
    also through a name assigned in the loop or `+=`): it is serialised once, and every later
    request of the loop re-sends the same bytes. A list assigned again in the loop is rebuilt
    there (`messages = [...]`): not written once. So is a list that a loop of another function
    of the module grows so and hands on each pass to a call that sends it (`self._send(messages)`,
    the send `call` inside `_send`)."""
    if not isinstance(func, _FUNCS) or span is None or span.filename != module.span(call).filename:
        return False
    sent = _passed_names(call)
    for loop in subtree(func):
        if isinstance(loop, _LOOPS) and any(n is call for n in subtree(loop)) and _grown_once(module, loop, sent, span):
            return True
    holder = next((f for f in ast.walk(module.tree) if isinstance(f, _FUNCS) and f is not func
                   and _within(module.span(f), span)), None)
    if holder is None or _within(module.span(func), span):
        return False
    for loop in subtree(holder):
        if not isinstance(loop, _LOOPS):
            continue
        handed = {name for c in subtree(loop) if isinstance(c, ast.Call) and not _grows(c) for name in _passed_names(c)}
        if _grown_once(module, loop, handed, span):
            return True
    return False


def _passed_names(call: ast.Call) -> set[str]:
    return {n.id for a in (*call.args, *(k.value for k in call.keywords)) for n in subtree(a) if isinstance(n, ast.Name)}


def _grows(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr in _GROW


def _grown_once(module, loop, sent: set[str], span: Span) -> bool:
    """True when `loop` puts the text at `span` into a list of `sent` that it keeps from pass to
    pass (not assigned again in the loop)."""
    made: dict[str, list] = {}  # names assigned in the loop: their values
    for node in subtree(loop):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            for t in getattr(node, "targets", None) or [node.target]:
                if isinstance(t, ast.Name):
                    made.setdefault(t.id, []).append(node.value)
        elif isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.target, ast.Name):
            made.setdefault(node.target.id, []).append(None)
    for node in subtree(loop):
        if isinstance(node, ast.Call) and _grows(node) and isinstance(node.func.value, ast.Name):
            name, added = node.func.value.id, list(node.args)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            name, added = node.target.id, [node.value]
        else:
            continue
        if name not in sent or name in made:
            continue
        for arg in added:  # the appended expression, or the value of a name made in the loop
            exprs = [arg, *(v for v in made.get(arg.id, ()) if v is not None)] if isinstance(arg, ast.Name) else [arg]
            if any(_within(module.span(e), span) for e in exprs):
                return True
    return False


def _within(outer: Span, inner: Span) -> bool:
    return (outer.start.row, outer.start.column) <= (inner.start.row, inner.start.column) \
        and (inner.end.row, inner.end.column) <= (outer.end.row, outer.end.column)
