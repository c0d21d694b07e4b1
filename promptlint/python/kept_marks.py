"""Cache breakpoints written into a conversation that is kept from turn to turn: facts for PRM304
and PRM302 (the rules judge them).

A statement that writes a breakpoint into the newest message of a message list changes that
message itself: `messages[-1]["content"][-1]["cache_control"] = {...}`, also through names bound
to its items (`last = messages[-1]`; `for m in reversed(messages): ... break`), a message whose
content is rewritten as marked blocks (`m["content"] = [{..., "cache_control": ...}]`) or one a
marked block (or a Bedrock `cachePoint` block) is appended to. When that list is kept and grown
from turn to turn, the next turn marks its own newest message and the older marker stays: one
more breakpoint on every turn, and Anthropic rejects a request with more than 4 (a 400 error;
https://platform.claude.com/docs/en/build-with-claude/prompt-caching). Code that counts the
breakpoints and stops marking at a limit keeps the old ones instead and leaves the newest turns
unmarked, so the history after the last marker is processed uncached on every turn.

Kept (`KeptMark.kept`, words that say how): a `self.` attribute some method of the class grows
(`self.messages.append(...)`), not assigned afresh by the marking method; a module-level list the
module grows; a local list that a loop holding the statement grows (never assigned in the loop);
for a parameter (the callers' list), a call of the function in the module that passes one of
those. A parameter with no such caller in the module, and a caller that passes its own parameter
or a converter's result that holds its input's items (a loop variable appended as it is), is the
callers' list: `kept` None (whether they keep it is not known here). A caller that passes a list
it builds for that call is not kept: no fact.

Not a fact: a marker on a copy (`copy.deepcopy(messages)`, a dict built anew), on the first or a
fixed message (set again on the same message every turn), on every message of a loop (PRM304 reads
those from the request's layout), on a list named for tools or the system prompt, and a scope (the
function, its class, the module functions it calls, the callers judged) that removes breakpoints
(`del b["cache_control"]`, `b.pop("cache_control", None)`, a filter `k != "cache_control"`, a call
named to strip or clear them). One fact per function and list: its first such statement.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .. import classify
from .gated_markers import module_functions, naming
from .kept_lists import assigns_afresh, grown_in_loop, module_grows, self_grower
from .mark_removals import mark_cap, removes_marks
from .markers import MARKER_KEYS, words_of
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor)
#: Words of a list of messages (`messages`, `chat_history`, `formatted_messages`, `conversation`).
_LIST_WORDS = frozenset({"messages", "msgs", "history", "conversation", "turns", "dialog", "dialogue", "transcript"})
#: Words of a list that is not the conversation (`tools[-1]`, `system_blocks[-1]`).
_NOT_CONVERSATION = frozenset({"tool", "tools", "function", "functions", "system", "instructions"})
_DEPTH = 8


@dataclass(frozen=True)
class KeptMark:
    """`node`: the statement that writes the breakpoint; `holder`: the list as the code names it
    (`self.messages`, `messages`); `kept`: how the code keeps it from turn to turn ("`Chat`
    grows it"), None when it is the callers' list and whether they keep it is not known;
    `caller`: the call of the marking function that hands it a kept list (None when the list is
    the marking function's own); `capped`: the test that stops marking once the breakpoints
    counted reach a limit (None: every turn marks); `via`: words for a caller that passes a
    converter's result holding its own callers' items (`kept` None); `adds`: the statement adds a
    marked message to the list (`self.messages.append({..., "cache_control": ...})`) rather than
    marking one in it."""

    node: ast.stmt
    holder: str
    kept: str | None
    caller: ast.Call | None = None
    capped: ast.expr | None = None
    via: str | None = None
    adds: bool = False


def kept_marks(module) -> list[KeptMark]:
    """The breakpoints `module` writes into the newest message of a conversation kept from turn
    to turn, or of its callers' list (module docstring)."""
    out: list[KeptMark] = []
    funcs = list(module_functions(module))
    marking = naming(module, funcs, MARKER_KEYS)
    for cls, func in funcs:
        if id(func) not in marking:
            continue
        writes = sorted(_marker_writes(func), key=lambda w: (w[0].lineno, w[0].col_offset))
        if not writes:
            continue
        scope = MarkScope(module, cls, func)
        seen: set[str] = set()
        for stmt, obj, adds in writes:
            found = scope.resolve(obj)
            if found is None:
                continue
            base, steps = found
            if steps and steps[-1][0] == "copy":
                continue  # written into a new list or dict (`m = messages[-1].copy(); m["cache_control"] = ...`)
            adds = adds and not any(s[0] in ("index", "item") for s in steps)
            if adds and any(s[0] == "copy" for s in steps):
                continue  # added to a new list of the same messages (`list(self.messages)`): not to the kept one
            if adds:
                steps = [*steps, ("index", "newest")]  # a marked message added to the list: its newest
            pick = next((i for i, s in enumerate(steps) if s[0] in ("index", "item")), None)
            if pick is None or steps[pick][1] != "newest" or any(s[0] == "cut" for s in steps[:pick]):
                continue
            holder = _holder(base, steps[:pick])
            if holder is None or holder in seen or not _names_conversation(holder):
                continue
            seen.add(holder)
            judged = _judge(module, funcs, scope, base, steps[:pick], stmt)
            if judged is None:
                continue
            kept, caller, judged_funcs, via = judged
            if removes_marks(module, [func, *_class_funcs(cls), *_called(module, cls, func), *judged_funcs]):
                continue
            out.append(KeptMark(stmt, holder, kept, caller, mark_cap(func, stmt), via, adds))
    return out


def _marker_writes(func):
    """(statement, the object it changes, whether it adds items) for each statement of `func` that
    writes a breakpoint: `x["cache_control"] = ...`, `x["content"] = [<a marked block>]`,
    `x.update(...)` / `x.setdefault(...)` of a breakpoint key, `x.append(...)` / `x.extend(...)` /
    `x += [...]` of a marked block or message (it adds items to `x`: a marked message added to a
    list is its newest)."""
    for node in subtree(func):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant):
                    if t.slice.value in MARKER_KEYS or (t.slice.value == "content" and _marked_display(node.value)):
                        yield node, t.value, False
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and _marked_display(node.value):
            yield node, node.target, True
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute):
            call = node.value
            attr = call.func.attr
            if attr in ("append", "extend") and any(_marked_display(a) for a in call.args):
                yield node, call.func.value, True
            elif attr == "update" and (any(_marked_display(a) for a in call.args) or any(k.arg in MARKER_KEYS for k in call.keywords)) \
                    or attr == "setdefault" and call.args and isinstance(call.args[0], ast.Constant) \
                    and call.args[0].value in MARKER_KEYS:
                yield node, call.func.value, False


def _marked_display(node) -> bool:
    """A dict display with a breakpoint key, anywhere in `node`."""
    return any(isinstance(n, ast.Dict) and any(isinstance(k, ast.Constant) and k.value in MARKER_KEYS for k in n.keys)
               or isinstance(n, ast.Call) and any(k.arg in MARKER_KEYS for k in n.keywords) for n in ast.walk(node))


class MarkScope:
    """Names of one function: what each is bound to, for following a marked object to the list it
    is an item of."""

    def __init__(self, module, cls, func):
        self.module, self.cls, self.func = module, cls, func
        args = func.args
        self.params = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
        self.assigned: dict[str, list] = {}
        self.loops: dict[str, list] = {}
        for node in subtree(func):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        self.assigned.setdefault(t.id, []).append(node.value)
                    elif isinstance(t, (ast.Tuple, ast.List)):
                        for e in t.elts:  # `system, msgs = convert(...)`: the result of a call
                            if isinstance(e, ast.Name):
                                self.assigned.setdefault(e.id, []).append(
                                    node.value if isinstance(node.value, ast.Call) else None)
            elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and isinstance(node.target, ast.Name) \
                    and node.value is not None:
                self.assigned.setdefault(node.target.id, []).append(node.value)
            elif isinstance(node, _LOOPS):
                target = node.target
                if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[1], ast.Name):
                    target = target.elts[1]  # `for i, m in enumerate(xs)`
                if isinstance(target, ast.Name):
                    self.loops.setdefault(target.id, []).append(node)
            elif isinstance(node, (ast.withitem, ast.comprehension)):  # other bindings: not followed
                bound = node.optional_vars if isinstance(node, ast.withitem) else node.target
                for n in ast.walk(bound) if bound is not None else ():
                    if isinstance(n, ast.Name):
                        self.assigned.setdefault(n.id, []).append(None)

    def resolve(self, expr, depth: int = 0):
        """(base, steps) of an expression: `base` is ("param" | "self" | "local" | "global" |
        "fresh", name) and `steps` lead from it to the expression, outermost first: ("key", name)
        (an attribute or a string key), ("index", "newest" | "other"), ("item", "newest" |
        "other") (an item a loop takes), ("cut",) (a slice that ends early), ("copy",) (a new list
        of the same items: a slice, `list(x)`, `x.copy()`); None when a name is
        bound more than once, or the expression is not followed."""
        if depth > _DEPTH:
            return None
        steps: list = []
        node = expr
        while not isinstance(node, ast.Name):
            if isinstance(node, ast.Subscript):
                if isinstance(node.slice, ast.Slice):
                    steps.insert(0, ("copy",))
                    if node.slice.upper is not None:
                        steps.insert(0, ("cut",))  # `xs[:-1]`: its last item is not the newest
                elif _key(node.slice):
                    steps.insert(0, ("key", node.slice.value))
                else:
                    steps.insert(0, ("index", _position(node.slice)))
                node = node.value
            elif isinstance(node, ast.Attribute):
                if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                    return ("self", node.attr), steps
                steps.insert(0, ("key", node.attr))
                node = node.value
            elif isinstance(node, ast.Call) and (inner := _passed_through(node)) is not None:
                if isinstance(node.func, ast.Attribute) and node.func.attr == "get":
                    steps.insert(0, ("key", node.args[0].value))
                elif not _is_cast(node):
                    steps.insert(0, ("copy",))
                node = inner
            else:
                return ("fresh", None), steps
        return self._name(node.id, steps, depth)

    def _name(self, name: str, steps: list, depth: int):
        loops = self.loops.get(name, [])
        values = self.assigned.get(name, [])
        if len(loops) + len(values) > 1:
            return None
        if loops:
            loop = loops[0]
            it, newest = loop.iter, False
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" and it.args:
                it = it.args[0]
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "reversed" and it.args:
                it, newest = it.args[0], _exits(loop)
            elif isinstance(it, ast.Subscript) and isinstance(it.slice, ast.Slice) and it.slice.lower is None \
                    and it.slice.upper is None and _position(it.slice.step) == "newest":
                it, newest = it.value, _exits(loop)  # `for m in messages[::-1]`
            inner = self.resolve(it, depth + 1)
            if inner is None:
                return None
            return inner[0], inner[1] + [("item", "newest" if newest else "other")] + steps
        if values:
            if values[0] is None:
                return None
            inner = self.resolve(values[0], depth + 1)
            if inner is None:
                return None
            if inner[0][0] == "fresh" and not inner[1]:
                return ("local", name), steps  # a list the function makes: kept only by a loop of its own
            return inner[0], inner[1] + steps
        if name in self.params:
            return ("param", name), steps
        return ("global", name), steps


def _key(node) -> bool:
    """A subscript by a string (a key of a dict), not a position."""
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _position(node) -> str:
    """"newest" for `[-1]`, `[-2]`, `[len(xs) - 1]` (counted from the end); else "other"."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return "newest"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and isinstance(node.left, ast.Call) \
            and isinstance(node.left.func, ast.Name) and node.left.func.id == "len":
        return "newest"
    return "other"


def _passed_through(call: ast.Call):
    """The expression a call hands back as the same object or a list of the same items (`x.get(
    "k")`: x; `cast(T, x)`, `list(x)`, `x.copy()`: x), else None (a new object)."""
    f = call.func
    if isinstance(f, ast.Attribute) and f.attr == "get" and call.args and _key(call.args[0]):
        return f.value
    if isinstance(f, ast.Attribute) and f.attr == "copy" and not call.args:
        return f.value  # a shallow copy: the same messages
    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
    if name == "cast" and len(call.args) == 2:
        return call.args[1]
    if name in ("list", "tuple") and len(call.args) == 1 and not call.keywords:
        return call.args[0]
    return None


def _is_cast(call: ast.Call) -> bool:
    f = call.func
    return (f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else "") == "cast"


def _exits(loop) -> bool:
    """True when a loop stops after one item: a `return`, or a `break` of its own."""
    todo = list(loop.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Return, ast.Break)):
            return True
        if isinstance(node, (*_FUNCS, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            todo.extend(n for n in ast.walk(node) if isinstance(n, ast.Return))  # its breaks are its own
            continue
        todo.extend(ast.iter_child_nodes(node))
    return False


def _holder(base, steps) -> str | None:
    """The list as the code names it (`self.messages`, `messages`, `request.messages`), when the
    steps before its item are attributes or keys only."""
    kind, name = base
    if name is None or any(s[0] not in ("key", "cut", "copy") for s in steps):
        return None
    head = f"self.{name}" if kind == "self" else name
    return head + "".join(f".{s[1]}" for s in steps if s[0] == "key")


def _names_conversation(holder: str) -> bool:
    """True when the last name of the list says a conversation (`messages`, `chat_history`,
    `formatted_messages`), not tools or the system prompt."""
    last = holder.rsplit(".", 1)[-1]
    words = words_of(last)
    if words & _NOT_CONVERSATION:
        return False
    return last.lower().lstrip("_") in classify.HISTORY_NAMES or bool(words & _LIST_WORDS)


def _judge(module, funcs, scope: MarkScope, base, steps, stmt):
    """(kept, caller, caller functions read, via) when the list is kept from turn to turn
    (`kept` says how) or is the callers' list (`kept` None); None when the code builds it anew
    for each request."""
    kind, name = base
    if steps:  # an attribute or a key of a parameter (`request.messages`): the callers' object, unless they
        if kind != "param":  # all make it for the call (`convert(await request.json())`)
            return None
        got = list_callers(module, funcs, scope, name)
        return None if got is None else (None, None, got[2], got[3])
    if kind == "self":
        grower = self_grower(scope.cls, name)
        if grower is None or assigns_afresh(scope.func, name):
            return None
        return f"`{scope.cls.name}.{grower}` grows it", None, [], None
    if kind == "global":
        return ("the module grows it", None, [], None) if module_grows(module, name) else None
    if kind == "local":
        return ("the loop around it grows it", None, [], None) if grown_in_loop(scope.func, name, stmt) else None
    if kind == "param":
        return list_callers(module, funcs, scope, name)
    return None


def list_callers(module, funcs, scope: MarkScope, name: str):
    """How the calls of the marking function in the module pass the list it marks (`name`, its
    parameter): (kept, the call, their functions, None) when one passes a list kept from turn to
    turn; (None, None, functions, via) when one passes a list of its own callers or a
    converter's result that holds its input's items (`via` says which), or no call is found;
    None when every call passes a list built for it."""
    func, cls = scope.func, scope.cls
    index = scope.params.index(name)
    offset = 1 if cls is not None and scope.params[:1] in (["self"], ["cls"]) else 0
    unknown, found, read, via = False, False, [], None
    for cls2, g in funcs:
        for call in ast.walk(g):
            if not (isinstance(call, ast.Call) and _calls(call, func, cls, cls2)):
                continue
            arg = next((k.value for k in call.keywords if k.arg == name), None)
            if arg is None and 0 <= index - offset < len(call.args):
                arg = call.args[index - offset]
            if arg is None or isinstance(arg, ast.Starred):
                continue
            found = True
            read.append(g)
            caller = MarkScope(module, cls2, g)
            got = caller.resolve(arg)
            if got is None or got[1]:
                unknown = True
                continue
            (kind, held), value = got[0], None
            if kind == "self" and self_grower(cls2, held) is not None and not assigns_afresh(g, held):
                return f"`{cls2.name}.{self_grower(cls2, held)}` grows it", call, read, None
            if kind == "global" and module_grows(module, held):
                return "the module grows it", call, read, None
            if kind == "local" and grown_in_loop(g, held, call):
                return f"the loop in `{g.name}` grows it", call, read, None
            if kind == "local":
                value = caller.assigned.get(held, [None])[0]
            elif kind == "fresh":
                value = arg
            if kind == "param":
                unknown = True
            elif isinstance(value, ast.Call) and _hands_items(module, cls2, value):
                unknown = True
                via = via or (f"`{g.name}` passes it the result of `{ast.unparse(value.func)}(...)`, which holds "
                              "its input's own items")
    return (None, None, read, via) if unknown or not found else None


def _calls(call: ast.Call, func, cls, cls2) -> bool:
    """True when `call` calls `func`: by its name (a module function), or as `self.f(...)` /
    `cls.f(...)` in its class."""
    f = call.func
    if cls is None:
        return isinstance(f, ast.Name) and f.id == func.name
    return cls2 is cls and isinstance(f, ast.Attribute) and f.attr == func.name \
        and isinstance(f.value, ast.Name) and f.value.id in ("self", "cls", cls.name)


def _hands_items(module, cls, call: ast.Call) -> bool:
    """True when the function a call runs (of the module, or a method of `cls`) appends items of a
    loop as they are (`for block in message.content: ... content.append(block)`): its result may
    hold its input's own objects."""
    f = call.func
    callee = None
    if isinstance(f, ast.Name):
        callee = module.functions.get(f.id)
    elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in ("self", "cls") \
            and cls is not None:
        callee = next((n for n in cls.body if isinstance(n, _FUNCS) and n.name == f.attr), None)
    if callee is None:
        return False
    items = {t.id for loop in ast.walk(callee) if isinstance(loop, _LOOPS) for t in ast.walk(loop.target)
             if isinstance(t, ast.Name)}
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append"
               and len(n.args) == 1 and isinstance(n.args[0], ast.Name) and n.args[0].id in items
               for n in ast.walk(callee))


def _class_funcs(cls) -> list:
    return [n for n in cls.body if isinstance(n, _FUNCS)] if cls is not None else []


def _called(module, cls, func) -> list:
    """The functions of the module (and methods of `cls`) that `func` calls by name."""
    methods = {n.name: n for n in _class_funcs(cls)}
    out = []
    for n in ast.walk(func):
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Name) and f.id in module.functions:
                out.append(module.functions[f.id])
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in ("self", "cls") \
                    and f.attr in methods:
                out.append(methods[f.attr])
    return out


def unlisted(marks: list[KeptMark], module, layouts) -> list[KeptMark]:
    """`marks` but those whose statement holds a breakpoint a request's layout already counts as
    set on every message of a loop (`Breakpoint.repeated`: PRM304 reports it there)."""
    spans = [bp.span for lt in layouts for p in lt.parts for bp in p.breakpoints if bp.repeated and bp.span]
    if not spans:
        return marks
    def holds(mark):
        outer = module.span(mark.node)
        return any(s.filename == outer.filename and (outer.start.row, outer.start.column) <= (s.start.row, s.start.column)
                   and (s.end.row, s.end.column) <= (outer.end.row, outer.end.column) for s in spans)
    return [m for m in marks if not holds(m)]
