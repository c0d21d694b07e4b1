"""The tools a request sends taking other values between the requests of one conversation:
facts for PRM204.

A request's tools (`tools=` / `functions=` of a call, `llm.bind_tools(X)`, `payload["tools"] = X`)
are traced back through the sending function: the value itself (`T if last else None`), the
assignments of the name it sends (in the branches of an `if`, or a comprehension that filters
with `if`), and, for a name, the calls that remove or add entries of it under an `if`
(`tools.pop(name)`), also those of the list a comprehension over it reads
(`[spec(t) for t in tool_map.values()]`). Each of these makers has a condition (the test of
the `if` or of the conditional expression, the comprehension's filter); the condition decides:

- it reads a name that changes on each pass of the loop that sends one conversation (the loop's
  own variable, a name the loop assigns), the conversation being the same on every pass (an
  attribute, a name the loop does not rebuild, or rebuilds from such a conversation:
  `loop_passes.kept_inside`): proven, consecutive requests of that conversation differ
  (`proven`); one that reads an object the loop changes in place (`store.add_response(x)`):
  not proven (`changed`); a tools list handed positionally to a helper by a loop that counts
  steps, chosen by the step: not proven, by name (`helper`);
- it reads a value the function awaited (a probe of the client's state, answered anew on every
  request), or a parameter whose name says the turn's request (`query`, `user_message`,
  `toolgroups_for_turn`; not `request`), in a function that sends a conversation: per turn by its
  name or its source (not proven);
- anything else (configuration, `self.` settings, the model's capability, a constant) is fixed for
  the conversation: no variant.

Two shapes that are not one send's value are read by their own modules, with `ToolVariant`:
`tool_resets` (the tools removed from the options of a loop's request before its final request)
and `tool_fallbacks` (a turn's tools replacing the configured ones, a resume that omits them).
"""
from __future__ import annotations

import ast
import re
from bisect import bisect_left
from dataclasses import dataclass, field

from ..classify import MODEL_SENDS
from .loop_passes import changed_objects, handed_tools, kept_inside, step_loop
from .prompt_names import tools_named
from .module import attribute_chain, statements
from .tool_marks import tool_marks
from .walk import child_nodes, children, own_nodes, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
#: Keywords of a call that send its tools (also read by tool_resets.py).
TOOL_KEYS = ("tools", "functions")
_CONVERSATION_KEYS = ("messages", "input", "contents", "chat_history", "history")
_SENDS = {"invoke", "ainvoke", "stream", "astream", "create", "acreate", "generate", "chat", "achat"}
_REMOVE = {"pop", "remove", "discard", "clear", "append", "extend", "insert", "update", "__delitem__"}
#: Calls that add to the conversation a loop sends (also read by tool_resets.py).
MESSAGE_GROWS = {"append", "extend", "insert", "add_message", "add_messages", "add_user_message"}
#: a parameter or local whose name says the turn's own request or message
#: (not `request`: a request's parameters carry the configured tools, `model_request_parameters`)
PER_TURN = re.compile(r"(?:^|_)(?:turn|query|question|utterance|user_input|user_message|user_msg|"
                       r"user_query|user_text)(?:$|_)", re.I)
#: words of an attribute chain that reads configuration (`request.app.state.config.X`)
_CONFIG = {"config", "settings", "app", "state", "env", "valves", "options", "conf", "cfg", "model", "capabilities"}
_CONVERSATION_WORDS = ("messages", "history", "conversation", "chat", "session", "turn")
_PAYLOAD = re.compile(r"(\w+)\[['\"]messages['\"]\]")
_STRENGTH = ("loop", "helper", "changed", "awaited", "name")


@dataclass
class ToolVariant:
    """`node`: what makes the tools differ (reported); `send`: the request (or the tools site);
    `function`: the sending function's name; `shape`: "branch" (a conditional value or an
    assignment in a branch), "filter" (a comprehension's filter), "mutation" (entries removed or
    added under a condition), "computed" (the value computed from the turn's request), "reset",
    "fallback", "omitted"; `proven`: consecutive requests of one conversation differ (see the
    module docstring); `evidence`: "loop" (the loop's pass), "changed" (an object the loop
    changes in place; `others`: that call), "helper" (tools handed to a helper), "awaited" (a value awaited per
    request), "name" (a per-turn name), "statement" / "method name" (reset); `condition`: the
    source text of what varies; `others`: more related nodes."""

    node: ast.AST
    send: ast.AST
    function: str
    shape: str
    proven: bool
    evidence: str
    condition: str
    others: list = field(default_factory=list)


def _refs(expr) -> set[str]:
    """Root names that `expr` reads, leaving out attribute chains through configuration."""
    out, todo = set(), [expr]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Attribute):
            chain = attribute_chain(node)
            if chain and set(chain[1:]) & _CONFIG:
                continue
        if isinstance(node, ast.Name):
            out.add(node.id)
        todo.extend(child_nodes(node))
    return out


def _targets(node) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        return [n for e in node.elts for n in _targets(e)]
    if isinstance(node, ast.Starred):
        return _targets(node.value)
    return []


def _bindings(own) -> dict[str, list[ast.expr]]:
    """name -> the values assigned to it in the function (plain, annotated, augmented, walrus)."""
    out: dict[str, list] = {}
    for n in own:
        if isinstance(n, ast.Assign):
            for t in n.targets:
                for name in _targets(t):
                    out.setdefault(name, []).append(n.value)
        elif isinstance(n, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and n.value is not None:
            for name in _targets(n.target):
                out.setdefault(name, []).append(n.value)
    return out


def closure(seed: set[str], binds: dict, reads=None) -> set[str]:
    """`seed` and the locals whose assigned values (`binds`: name -> expressions) read one of them;
    `reads(expr)` gives the names an expression reads (default: `_refs`, leaving out attribute
    chains through configuration)."""
    reads = reads or _refs
    found, changed = set(seed), True
    while changed:
        changed = False
        for name, values in binds.items():
            if name not in found and any(reads(v) & found for v in values):
                found.add(name)
                changed = True
    return found


class _Func:
    """What one function's analysis reads more than once."""

    def __init__(self, func):
        self.func = func
        self.own = own_nodes(func)
        self.binds = _bindings(self.own)
        self.parents: dict[int, ast.AST] = {}
        for n in [func, *self.own]:
            for child in children(n):  # (leaves left out: never a maker nor a block)
                self.parents[id(child)] = n
        args = func.args
        params = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
        self.params = set(params)
        # a value awaited into a local (not a parameter passed on through a pipeline,
        # `form_data = await f(form_data)`), and the locals computed from it in one step
        # (not a function of the tools themselves: `deferred = await select(tools)`)
        awaited = {name for name, values in self.binds.items() if name not in self.params
                   and any(isinstance(s, ast.Await) for v in values for s in subtree(v))
                   and not any(tools_named(r) for v in values for r in _refs(v))}
        self.inputs = {name: {r for v in self.binds[name] for r in _refs(v)} for name in awaited}
        for name, values in self.binds.items():
            if name not in self.params and name not in awaited:
                seeds = {r for v in values for r in _refs(v)} & awaited
                if seeds:
                    self.inputs[name] = {r for s in seeds for r in self.inputs[s]}
        self.awaited = set(self.inputs)
        self.per_turn = closure({p for p in params if PER_TURN.search(p)}, self.binds)

    def enclosing(self, node, kinds):
        """The innermost ancestors of `node` of `kinds`, innermost first, inside the function."""
        out, at = [], self.parents.get(id(node))
        while at is not None and at is not self.func:
            if isinstance(at, kinds):
                out.append(at)
            at = self.parents.get(id(at))
        return out


def _tools_value(node, conversations=frozenset()):
    """(the tools value, the call or statement that sends it) of a tools site, or None."""
    if isinstance(node, ast.Call):
        value = next((k.value for k in node.keywords if k.arg in TOOL_KEYS), None)
        if value is None and isinstance(node.func, ast.Attribute) and node.func.attr == "bind_tools" and node.args:
            value = node.args[0]
        return value
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
        key, payload = node.targets[0].slice, node.targets[0].value
        if isinstance(key, ast.Constant) and key.value in TOOL_KEYS and isinstance(payload, ast.Name) \
                and payload.id in conversations:  # a request payload: it holds the messages too
            return node.value
    return None


def _conversation(send, loop) -> ast.expr | None:
    """The conversation a request sends: its first argument or `messages=` keyword; for
    `bind_tools`, that of a runnable's request in the loop (`.invoke(messages)`)."""
    if not isinstance(send, ast.Call):
        return None
    if isinstance(send.func, ast.Attribute) and send.func.attr == "bind_tools":
        calls = [n for n in own_nodes(loop, body_only=True) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Attribute) and n.func.attr in _SENDS and n.args] if loop else []
        return calls[0].args[0] if calls else None
    sent = next((k.value for k in send.keywords if k.arg in _CONVERSATION_KEYS), None)
    return sent if sent is not None else (send.args[0] if send.args else None)


def _same_each_pass(sent, loop) -> bool:
    """True when the conversation is not built anew by the loop: an attribute chain, a name the
    loop assigns only from itself (`messages = messages + [reply]`), a list display that spreads
    such a name (`[system, *history]`)."""
    inside = own_nodes(loop, body_only=True)
    if isinstance(sent, ast.Attribute):
        text = ast.unparse(sent)  # not rebuilt by the loop (`self.messages = [...]` per item)
        return all(isinstance(n, (ast.Attribute, ast.Name)) for n in subtree(sent)) and not any(
            isinstance(n, ast.Assign) and any(ast.unparse(t) == text for t in n.targets) for n in inside)
    if isinstance(sent, ast.Name):
        for n in inside:
            if isinstance(n, ast.Assign) and sent.id in [x for t in n.targets for x in _targets(t)] \
                    and sent.id not in _refs(n.value):
                return False
            if isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)) and sent.id in _targets(n.target):
                return False
        return True
    if isinstance(sent, (ast.List, ast.Tuple)):
        return any(isinstance(e, ast.Starred) and _same_each_pass(e.value, loop) for e in sent.elts)
    return False


def _kept(sent, loop) -> bool:
    """True when the conversation a loop's request sends is the same on each pass (`_same_each_pass`),
    or is rebuilt on each pass from one that is (`ctx = self._build(messages=self._messages + local)`)."""
    if _same_each_pass(sent, loop):
        return True
    if not isinstance(sent, ast.Name):
        return False
    values = [n.value for n in own_nodes(loop, body_only=True) if isinstance(n, ast.Assign)
              and sent.id in [x for t in n.targets for x in _targets(t)]]
    return len(values) == 1 and kept_inside(values[0], loop, _same_each_pass) is not None


def _reply(value) -> bool:
    """True when `value` calls a model (a send method name of `classify.MODEL_SENDS`): its reply."""
    return any(isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute) and x.func.attr in MODEL_SENDS
               for x in subtree(value))


def _varying(loop) -> set[str]:
    """The names that change on each pass of `loop`: its own variable, the names it assigns."""
    names = set(_targets(loop.target)) if isinstance(loop, (ast.For, ast.AsyncFor)) else set()
    later = []  # (targets, value): varying when the value reads a varying name
    inside = own_nodes(loop, body_only=True)
    # what a nested loop binds changes per item of that loop, not per pass of this one
    nested = {id(x) for n in inside if isinstance(n, _LOOPS) for x in own_nodes(n, body_only=True)}
    for n in inside:
        if id(n) in nested:
            continue
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)) and n.value is not None:
            targets = [x for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) for x in _targets(t)]
            if isinstance(n, ast.AugAssign) or _reply(n.value):
                names.update(targets)  # a counter, a model's reply (`settings = load()` is not per pass by itself)
            else:
                later.append((targets, _refs(n.value)))
    changed = True
    while changed:  # `last = step == n - 1` varies; `use = config.use_tools` does not
        changed = False
        for targets, refs in later:
            if refs & names and not set(targets) <= names:
                names.update(targets)
                changed = True
    return names


def _makers(fn: _Func, value, send, depth: int = 0) -> list[tuple[ast.AST, str, list[ast.expr]]]:
    """(maker, shape, conditions) for each place in the function where the sent tools value may
    take another variant (see the module docstring)."""
    out = []
    if isinstance(value, ast.IfExp) and ast.unparse(value.body) != ast.unparse(value.orelse):
        out.append((value, "branch", [value.test]))
    elif isinstance(value, (ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp)):
        ifs = [c for g in value.generators for c in g.ifs]
        bound = {x for g in value.generators for x in _targets(g.target)}
        if ifs:
            out.append((value, "filter", [_Without(c, bound) for c in ifs]))
        if depth < 2:
            for g in value.generators:
                root = g.iter.func.value if isinstance(g.iter, ast.Call) and isinstance(g.iter.func, ast.Attribute) \
                    else g.iter
                if isinstance(root, ast.Name):
                    out.extend(_name_makers(fn, root.id, send, depth + 1))
    elif isinstance(value, ast.Name) and depth < 3:
        out.extend(_name_makers(fn, value.id, send, depth + 1))
    elif isinstance(value, ast.Call) and depth == 0 and (value.args or value.keywords):
        out.append((value, "computed", [*value.args, *(k.value for k in value.keywords)]))
    return out


class _Without:
    """A condition read without the names bound by its comprehension (the item's own name)."""

    def __init__(self, expr, bound: set[str]):
        self.expr, self.bound = expr, bound


def _name_makers(fn: _Func, name: str, send, depth: int):
    out = []
    line = send.lineno
    assigns = [n for n in fn.own if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None
               and name in [x for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) for x in _targets(t)]]
    texts = {ast.unparse(a.value) for a in assigns}
    for a in assigns:
        ifs = fn.enclosing(a, (ast.If,))
        if ifs and len(texts) > 1:
            out.append((a, "branch", [i.test for i in ifs[:1]]))
        if not isinstance(a.value, ast.Name):
            out.extend(_makers(fn, a.value, send, depth))
        if isinstance(a.value, ast.Call) and a.lineno <= line:
            args = [*a.value.args, *(k.value for k in a.value.keywords)]
            if args:
                out.append((a, "computed", args))
    for n in fn.own:
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _REMOVE \
                and isinstance(n.func.value, ast.Name) and n.func.value.id == name and n.lineno <= line:
            ifs = fn.enclosing(n, (ast.If,))
            if ifs:
                out.append((n, "mutation", [ifs[0].test]))
        elif isinstance(n, ast.Delete) and n.lineno <= line:
            for t in n.targets:
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name:
                    ifs = fn.enclosing(n, (ast.If,))
                    if ifs:
                        out.append((n, "mutation", [ifs[0].test]))
    return out


def _subject(test) -> ast.expr | None:
    """What a presence test asks about (`x is not None`, `x is None`, `x`, `not x`, `len(x) > 0`,
    `len(x)`: x; `d.get("k")` read as `d["k"]`), or None for any other test."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _subject(test.operand)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        right = test.comparators[0]
        if isinstance(test.ops[0], (ast.Is, ast.IsNot)) and isinstance(right, ast.Constant) and right.value is None:
            return _subject(test.left)
        if isinstance(test.ops[0], (ast.Gt, ast.NotEq, ast.GtE)) and isinstance(right, ast.Constant) \
                and right.value in (0, 1) and isinstance(test.left, ast.Call):
            return _subject(test.left)
        return None
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "len" and len(test.args) == 1:
        return test.args[0]
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr == "get" \
            and test.args and isinstance(test.args[0], ast.Constant):
        return ast.Subscript(value=test.func.value, slice=test.args[0], ctx=ast.Load())
    return test if isinstance(test, (ast.Name, ast.Attribute, ast.Subscript)) else None


def _presence_only(expr, sent, awaited: set[str]) -> bool:
    """True for a test that only asks whether what the tools are made of is there (`[t.as_dict() for t in
    req["tools"]] if req.get("tools") is not None else None`; an `and` of such tests): the request
    carries its tools when it has some, the same on every request of one conversation. Not for tools
    awaited anew on every request (`available = await registry.list_tools()`): they may differ."""
    tests = expr.values if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.And) else [expr]
    inside = {ast.dump(n) for node in sent for n in ast.walk(node) if isinstance(n, (ast.Name, ast.Attribute, ast.Subscript))}
    return all((subject := _subject(t)) is not None and ast.dump(subject) in inside
               and not (isinstance(subject, ast.Name) and subject.id in awaited) for t in tests)


def _judge(fn: _Func, conditions, varying: set[str], sources: set[str], sent=(),
           changed=frozenset(), fixed=frozenset()) -> tuple[bool, str, str] | None:
    """(proven, evidence, the varying condition's text) for the first condition that varies
    between requests (`varying`: the names that change on each pass of the loop that sends one
    conversation; `changed`: names of objects that loop changes in place, not proven), or None
    when each is fixed for the conversation. An awaited value computed from the tools' own
    `sources` (`hidden = await choose_deferred(catalog)`) is a function of them, not a state of
    the turn. `fixed`: awaited names bound only before the loop that sends the conversation (its
    passes are its requests, so a value awaited once before them is the same on each)."""
    awaited = fn.awaited - fixed
    for cond in conditions:
        expr, bound = (cond.expr, cond.bound) if isinstance(cond, _Without) else (cond, set())
        if sent and _presence_only(expr, sent, awaited):
            continue  # (the tools sent when there are any)
        refs = _refs(expr) - bound
        if refs & varying:
            return True, "loop", ast.unparse(expr)
        if refs & changed:
            return False, "changed", ast.unparse(expr)
        if any(not fn.inputs[r] & sources for r in refs & awaited):
            return False, "awaited", ast.unparse(expr)
        if refs & fn.per_turn:
            return False, "name", ast.unparse(expr)
    return None


def _conversational(module, fn: _Func, send) -> bool:
    """True when the function sends a conversation: its text names one (messages, history, ...)."""
    a, b = module.offsets(fn.func)
    text = module.source[a:b]
    return any(w in text for w in _CONVERSATION_WORDS)


def find_tool_variants(module) -> list[ToolVariant]:
    """Every variant maker of a request's tools that varies between the requests of one
    conversation (see the module docstring), one per request, by line (the `reset` shape:
    `tool_resets`; `fallback`: `tool_fallbacks`)."""
    src = module.source
    sites, _ = tool_marks(module)
    if not sites:
        return []  # (the cheap test on the module's text before any walk)
    out: list[ToolVariant] = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        a, b = func.lineno, func.end_lineno + 1
        fn = None
        has_site = bisect_left(sites, a) < bisect_left(sites, b)
        text = src[slice(*module.offsets(func))] if has_site else ""
        payloads = set(_PAYLOAD.findall(text)) if "messages" in text else set()  # dicts given `["messages"]`
        for node in _own_sorted(func) if has_site else ():
            value = _tools_value(node, payloads)
            handed = value is None
            if handed and (not isinstance(node, ast.Call) or handed_tools(node) is None):
                continue
            fn = fn or _Func(func)
            if handed and (value := handed_tools(node, fn.binds)) is None:
                continue
            if any(_logs(c) for c in fn.enclosing(node, ast.Call)):
                continue  # the request's description written to a log: nothing is sent
            loops = fn.enclosing(node, _LOOPS)
            loop = loops[0] if loops else None
            sent = _conversation(node, loop) if not handed else None
            returned = loop is not None and bool(fn.enclosing(node, (ast.Return,)))
            # a send returned from the loop (a retry): its next pass follows a failure, not a turn
            same = loop is not None and sent is not None and not returned and _kept(sent, loop)
            sources = _refs(value) - fn.awaited  # the names the sent tools are made of
            varying = _varying(loop) if same else set()
            changes = changed_objects(loop) if same else {}
            changed = set(changes) - sources
            # awaited once before the loop whose passes are the conversation's requests
            fixed = {n for n in fn.awaited if same and not any(_inside(v, loop, fn) for v in fn.binds[n])}
            if handed and not returned:  # (a tools list handed to a helper by a loop that counts steps)
                loop = next((x for x in loops if step_loop(x)), None)
                varying, same = (_varying(loop) if loop is not None else set()), loop is not None
            best = None
            for maker, shape, conditions in _makers(fn, value, node):
                inside = shape != "computed" and same and _inside(maker, loop, fn)
                judged = _judge(fn, conditions, varying if inside else set(), sources,
                                (value, maker) if shape != "computed" else (), changed if inside else frozenset(),
                                fixed)
                if judged is None:
                    continue
                proven, evidence, condition = judged
                if handed:
                    if evidence != "loop":
                        continue
                    proven, evidence = False, "helper"  # (only the name says that the helper sends them)
                elif not proven and evidence != "changed" and not _conversational(module, fn, node):
                    continue
                if shape == "computed" and evidence != "name":
                    continue
                # the strongest, then the nearest condition, then its first branch
                rank = (not proven, _STRENGTH.index(evidence), -_condition_line(conditions, maker), maker.lineno)
                if best is None or rank < best[0]:
                    # (the call that changes the object the condition reads, for "changed")
                    others = [changes[r] for r in sorted(_refs(ast.parse(condition, mode="eval")) & changed)][:1] \
                        if evidence == "changed" else []
                    best = (rank, ToolVariant(maker, node, func.name, shape, proven, evidence, condition, others))
            if best is not None:
                out.append(best[1])
    seen, unique = set(), []
    for v in sorted(out, key=lambda v: (v.node.lineno, v.node.col_offset)):
        if id(v.node) not in seen:
            seen.add(id(v.node))
            unique.append(v)
    return unique


#: Methods of a logger (`logger.debug(...)`, `logging.info(...)`, `log.warning(...)`) and `print`.
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})
_LOGGERS = re.compile(r"(?i)^_?(?:logger|logging|log)$|_logger$")


def _logs(call: ast.Call) -> bool:
    """True for a call that writes its arguments to a log (`logger.debug(describe(tools=...))`,
    `logging.info(...)`, `self.logger.info(...)`, `print(...)`): a request described there is not sent."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id == "print"
    if not isinstance(func, ast.Attribute) or func.attr not in _LOG_METHODS:
        return False
    owner = func.value
    name = owner.attr if isinstance(owner, ast.Attribute) else owner.id if isinstance(owner, ast.Name) else ""
    return _LOGGERS.search(name) is not None


def _condition_line(conditions, maker) -> int:
    first = conditions[0] if conditions else maker
    return getattr(first.expr if isinstance(first, _Without) else first, "lineno", maker.lineno)


def _own_sorted(func):
    return sorted((n for n in own_nodes(func) if isinstance(n, (ast.Call, ast.Assign))),
                  key=lambda n: (n.lineno, n.col_offset))


def _inside(node, loop, fn: _Func) -> bool:
    return node is loop or any(a is loop for a in fn.enclosing(node, _LOOPS))
