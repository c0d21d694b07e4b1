"""Callers of a function: what a parameter holds when the prompt is built in a helper
(`def _call_model(self, system_prompt, messages): client.messages.create(system=...)`) or sent by
a wrapper another module calls (`llm.py: def chat(messages): client.chat.completions.create(...)`).

A parameter that no caller binds (the prompt's own frame) takes the arguments of the function's
call sites, when there are few of them (context-sensitive for helpers with few callers, issue
"Recall"): the call sites in its module (for a method, the `self.name(...)` calls of its class
and of classes that do not define a `name` of their own), and for a module-level function the
calls of it in the other modules of its package tree (found by a text search; counted only when
the callee they name is this function: a module that names it otherwise takes no room); with
more callers, or none, it stays a parameter of unknown volatility. A caller's argument that is
itself a parameter of the calling function or method asks that function's callers in turn, up to
`MAX_HOPS` wrappers deep (`chat(messages)` -> `complete(messages)` -> the SDK call; a method
that hands its parameter to a module function, `Agent.query(self, task)` -> `strict_json(
user_prompt=task)`, asks its `self.query(...)` callers); a wrapper so reached reads up to
`MAX_WRAPPER_CALLERS` call sites (the package's own wrapper of the request is called wherever
the package builds a prompt). A call that passes the parameter in a `**mapping` of known keys
(`chat(**options)` of a wrapper `ask(**options)`) gives the mapping's item of that name.
"""
from __future__ import annotations

import ast
import bisect

from ..module import is_static_method
from ..walk import children
from .open_classes import built_unseen
from .instance_sites import instance_sites
from .kept_out import apart, keeps_out
from .per_call import each_call, per_element, same_call
from .. import loop_values
from .relays import RELAY_NAMES, relayed
from .frames import Frame
from .values import ClassRef

MAX_CALLERS = 4  # call sites read for one parameter; a function called from more places stays unknown
#: call sites read for a parameter of a wrapper reached from the prompt's frame (a frame with `hops`):
#: the package's own wrapper of the request (`strict_json(system_prompt, ...)`) is called from as
#: many places as the package builds prompts, and those are what it sends. (At 8, ra-aid's
#: `run_agent_with_retry(agent, prompt)` made an agent run's opening prompt a one-shot newest user
#: message, where unknown content reads as per-request: the opening message of a run of an agent
#: given tools is now the start of its conversation, `layout.LayoutBuilder.opening`.)
MAX_WRAPPER_CALLERS = 8
MAX_NAMESAKES = 6  # modules read past MAX_CALLERS to set aside those that define a namesake of their own
MAX_HOPS = 3  # wrappers followed outwards from the prompt's own frame
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def call_index(module) -> dict[str, list[tuple[ast.Call, ast.AST | None, ast.ClassDef | None]]]:
    """Call sites of the module by callee: `name` for `name(...)`, `self.name` for
    `self.name(...)` / `cls.name(...)`, `.name` for `other.name(...)`; each with its enclosing
    function and class (or None)."""
    cached = module._pieces.get("calls")
    if cached is not None:
        return cached[1]
    index: dict[str, list] = {}
    todo: list = [(module.tree, None, None)]
    while todo:
        node, func, cls = todo.pop()
        if isinstance(node, ast.Call) and (key := _callee_key(node.func)) is not None:
            index.setdefault(key, []).append((node, func, cls))
        for child in children(node):
            todo.append(_scoped(child, func, cls))
    module._pieces["calls"] = (None, index)
    return index


def _callee_key(f) -> str | None:
    """The key of a callee in `call_index`: `name`, `self.name` (also `cls.name`), `.name`; None
    for any other callee (`a.b.name`, `f()()`)."""
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
        return ("self." if f.value.id in ("self", "cls") else ".") + f.attr
    return None


def _scoped(child, func, cls) -> tuple:
    """(node, innermost function, innermost class) for a child of a node inside `func` / `cls`."""
    kind = type(child)
    if kind in _FUNCS:
        return child, child, cls
    if kind is ast.ClassDef:
        return child, None, child
    return child, func, cls


def calls_named(module, name: str, keys: tuple[str, ...] = ("", ".")) -> list[tuple[ast.Call, ast.AST | None, ast.ClassDef | None]]:
    """The entries `key + name` of `call_index(module)` for each of `keys`, one after the other
    ("": `name(...)`, ".": `x.name(...)`, "self.": `self.name(...)` / `cls.name(...)`), in the
    same order, without indexing the module: the walk enters only the statements and expressions
    whose rows hold the word `name` (a decorated definition from its first decorator's row), so a
    module read for the calls of one function is not walked whole."""
    known = module._pieces.get(("calls of", name, keys))
    if known is not None:
        return known[1]
    source = module.source
    if module._pieces.get("calls") is not None or "\r" in source:  # (rows counted on "\n" only below)
        index = call_index(module)
        return [entry for key in keys for entry in index.get(key + name, [])]
    starts = module.line_starts
    rows = sorted({bisect.bisect_right(starts, at) for at in word_places(source, name)})
    found: dict[str, list] = {key: [] for key in keys}
    todo: list = [(module.tree, None, None)]
    while todo:
        node, func, cls = todo.pop()
        if isinstance(node, ast.Call) and (key := _callee_key(node.func)) is not None and key.endswith(name):
            prefix = key[:-len(name)]
            if prefix in found:
                found[prefix].append((node, func, cls))
        for child in children(node):
            first = getattr(child, "lineno", None)
            if first is not None:
                decorators = getattr(child, "decorator_list", None)
                if decorators:
                    first = min(first, decorators[0].lineno)
                at = bisect.bisect_left(rows, first)
                if at == len(rows) or rows[at] > (child.end_lineno or child.lineno):
                    continue  # the word is on none of its rows: no call of `name` in it
            todo.append(_scoped(child, func, cls))
    out = [entry for key in keys for entry in found[key]]
    module._pieces[("calls of", name, keys)] = (None, out)
    return out


def relayed_calls(module, name: str, keys: tuple[str, ...]) -> list[tuple[ast.Call, ast.AST | None, ast.ClassDef | None]]:
    """The calls of `key + name` that relays of the module make (`asyncio.to_thread(fn, x)`,
    `loop.run_in_executor(None, partial(self.send, payload))` for "self.send"), each written out
    as the call it makes (relays.py), with the relay's enclosing function and class."""
    if name not in module.source:
        return []
    out = []
    for relay in RELAY_NAMES:
        for call, caller, cls in calls_named(module, relay, ("", ".")):
            inner = relayed(module, call)
            if inner is not None and _callee_key(inner.func) in {key + name for key in keys}:
                out.append((inner, caller, cls))
    return out


def word_places(source: str, word: str) -> list[int]:
    """The offsets of `word` (an identifier) in `source` where it stands as a whole word: what
    `re.finditer(rf"\\b{word}\\b")` finds, by `str.find` (a literal search, about a hundred times
    faster than the pattern on a module of 270,000 characters: the pattern's leading `\\b` is
    tried at every character). A word character is what `\\w` matches: `str.isalnum()` or `_`."""
    out, n, at = [], len(word), source.find(word)
    while at != -1:
        end = at + n
        if not (at and _word_char(source[at - 1])) and not (end < len(source) and _word_char(source[end])):
            out.append(at)
        at = source.find(word, at + 1)
    return out


def _word_char(ch: str) -> bool:
    return ch == "_" or ch.isalnum()


def caller_arguments(evaluator, frame: Frame, name: str):
    """The values the call sites of `frame.func` in its module pass for parameter `name` (an
    Alt of them), or None when there are none, too many, or a site does not pass it."""
    func = frame.func
    if func is None:
        return None
    evaluator.asked.setdefault(id(func), (frame.module, func, frame.cls, set()))[3].add(name)  # (python/fanout.py)
    key = ("callers", id(func), name)
    if key in evaluator._return_cache:
        return evaluator._return_cache[key]
    if not evaluator.budget.following:
        return None  # (not cached: the parameter says why it is unknown, `objects.param`)
    evaluator._return_cache[key] = None  # while computing: a recursive helper stays unknown
    evaluator.budget.inner += 1
    try:
        result = _caller_arguments(evaluator, frame, name)
    finally:
        evaluator.budget.inner -= 1
    evaluator._return_cache[key] = result
    return result


def _caller_arguments(evaluator, frame: Frame, name: str):
    """`caller_arguments` once its cache and the file's budget were asked."""
    func = frame.func
    keys = ("self.",) if frame.cls is not None else ("",)
    sites = [(frame.module, call, caller, cls) for call, caller, cls in calls_named(frame.module, func.name, keys)
             if frame.cls is None or cls is frame.cls or not _own_method(cls, func.name)]
    # (a relay in the function itself, `functools.partial(tool, name=name, **kwargs)` of a decorator
    # used with or without arguments, passes its own parameters on: no caller)
    sites += [(frame.module, call, caller, cls) for call, caller, cls in relayed_calls(frame.module, func.name, keys)
              if caller is not func]
    limit = MAX_CALLERS if frame.hops is None else MAX_WRAPPER_CALLERS
    if frame.cls is None:
        foreign = _foreign_sites(evaluator, frame.module, func, limit - len(sites))
        if foreign is None:
            return None
        sites += foreign
    elif not sites:
        sites = instance_sites(evaluator, frame.module, func, frame.cls, frame.depth + 1, limit)
    if any(caller is not func for _, _, caller, _ in sites):
        # (a call of the function in its own body, `self.send(dict(request, messages=more))` for a
        # continuation, passes on what the outer callers gave it: those say what the parameter holds)
        sites = [site for site in sites if site[2] is not func]
    if not sites or len(sites) > limit:
        return None
    values = []
    gathered = func.args.kwarg is not None and func.args.kwarg.arg == name  # `def send(self, **params)`
    for module, call, caller, cls in sites:
        arg = call if gathered else _argument(func, call, name, method=frame.cls is not None)
        if caller is None:
            caller_frame = evaluator.module_frame(module)
        else:
            hops = (frame.hops or 0) + 1
            caller_frame = _caller_frame(evaluator, module, caller, cls, frame.depth + 1,
                                         hops if hops < MAX_HOPS else None)
        if arg is None:
            spread = _spread_item(evaluator, call, name, caller_frame)
            if spread is not None:
                values.append(spread)  # `chat(**options)`: the mapping's item of that name
                continue
            default = _omitted(evaluator, frame, call, name)
            if default is None:
                return None
            values.append(default)  # the call leaves it out: the function's default
            continue
        if gathered:
            values.append(_keywords(evaluator, func, call, caller_frame))
            continue
        value = evaluator.eval(arg, caller_frame)
        found = per_element(module, caller, call, arg, func, value)
        if found is not None:  # (a coroutine called per element: its request is the loop's pass)
            value = loop_values.noted(found, frame.module.span(func))
        elif frame.hops is None:  # (a request the function sends per element: loop_values.py)
            value = each_call(module, caller, call, arg, frame.module, func, value) or value
        value = same_call(module, caller, call, arg, frame.module, func, value) or value
        # (a call that keeps its request out of the conversation the function keeps: kept_out.py)
        values.append(apart(value) if keeps_out(func, call, frame.cls is not None) else value)
    from .values import Alt
    return values[0] if len(values) == 1 else Alt(values, per_caller=True)  # one value per caller


def call_sites(evaluator, module, func, cls, limit: int = MAX_WRAPPER_CALLERS) -> list | None:
    """(module, call, enclosing function, class) of the calls of `func` (a method of `cls`, or a
    module-level function when `cls` is None) that `caller_arguments` reads: the `self.name(...)`
    calls of its class, or the calls of the function in its module and in the other modules of its
    package tree; not its calls of itself. None when there are more than `limit`."""
    keys = ("self.",) if cls is not None else ("",)
    sites = [(module, call, caller, c) for call, caller, c in calls_named(module, func.name, keys)
             if (cls is None or c is cls or not _own_method(c, func.name)) and caller is not func]
    if cls is None:
        foreign = _foreign_sites(evaluator, module, func, limit - len(sites))
        if foreign is None:
            return None
        sites += [site for site in foreign if site[2] is not func]
    return None if len(sites) > limit else sites


def _keywords(evaluator, func, call: ast.Call, frame: Frame):
    """The dict a `**params` parameter of `func` holds for one call: the keyword arguments that
    name no other parameter, those of a `**mapping` the call passes included (a mapping whose keys
    are not known adds none: the dict's order is then not the code's)."""
    from .variants import one_dict
    from .values import Mapping
    a = func.args
    named = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
    m = frame.module
    items, spans, unread, opened = {}, {}, False, False
    for kw in call.keywords:
        if kw.arg is None:
            spread = one_dict(evaluator.eval(kw.value, frame))
            if spread is None:
                unread = True
                continue
            opened = opened or spread.open or spread.repeated
            for key, item in spread.items.items():
                if key not in named:
                    items[key] = item
                    if key in spread.key_spans:
                        spans[key] = spread.key_spans[key]
        elif kw.arg not in named:
            items[kw.arg] = evaluator.eval(kw.value, frame)
            spans[kw.arg] = m.span(kw)
    return Mapping(items, spans, m.span(call), None if unread else call, open=unread or opened,
                   keywords=a.kwarg.arg if a.kwarg is not None else "")


def _spread_item(evaluator, call: ast.Call, name: str, frame: Frame):
    """What a call that passes a `**mapping` (`chat(**options)`, `chat(**payload)`) gives the
    parameter `name`: the mapping's item of that name, read in the caller's `frame` (a `**options`
    parameter of the caller: the keywords its own callers pass), or None (no such mapping, its
    keys not all known, or no item of that name)."""
    from .variants import one_dict
    spreads = [kw.value for kw in call.keywords if kw.arg is None]
    if len(spreads) != 1:
        return None
    mapping = one_dict(evaluator.eval(spreads[0], frame))
    if mapping is None or mapping.repeated or mapping.open:
        return None
    return mapping.items.get(name)


def _omitted(evaluator, frame: Frame, call: ast.Call, name: str):
    """The default of parameter `name` for a call that does not pass it and cannot (no `*args`,
    no `**kwargs`: `rate(query, text)` of `def rate(query, text, template=RATE_PROMPT)`), or None
    (no default, or a call that may pass it unseen)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
        return None
    from .values import Func
    th = evaluator.defaults(Func(frame.module, frame.func, frame.cls)).get(name)
    return None if th is None else evaluator.force(th.value, th)


def _caller_frame(evaluator, module, caller, cls, depth: int, hops: int | None) -> Frame:
    """The frame of a calling function, its parameters unbound: one per (function, class, depth,
    hops) in the analysis of one file (`Evaluator.unbound_frame`; the evaluator's caches are
    dropped after each file), so that the arguments it passes to every parameter of every callee
    are read in one frame: its body is read once, and a name it binds is evaluated once, not once
    per parameter (nor again when the site finder reads the same function at that depth)."""
    return evaluator.unbound_frame(module, caller, cls, depth, hops)


def _foreign_sites(evaluator, module, func, room: int) -> list | None:
    """(module, call, enclosing function, class) of the calls of the module-level function `func`
    in the other modules of its package tree, or None when there are more than `room` of them.
    A call counts when the callee it names (`func(...)`, `mod.func(...)`) evaluates, in its
    module, to this very function: a module whose text only names it (a docstring's `chat()`, a
    method `chat` of its own class, `session.chat(line)`) takes no room. Up to `MAX_NAMESAKES`
    such modules are read past `room`; None past them (not every caller can be read)."""
    from .values import Func
    if getattr(module, "path", None) is None:
        return []
    modules = evaluator.project.callers_of(func.name, module.path, max(room, 0) + MAX_NAMESAKES)
    if modules is None:
        return None
    sites = _calls_in(evaluator, [m for m in modules if not _own_namesake(m, func.name)], func.name,
                      lambda target: isinstance(target, Func) and target.node is func)
    return None if len(sites) > max(room, 0) else sites


def foreign_modules(evaluator, module, name: str, room: int) -> list | None:
    """The other modules of `module`'s package tree that may call the function or class `name`
    of `module`, or None when there are more than `room`. A module that defines a function or
    class of that name itself and does not import it (each provider module of a package with its
    own `RequestCompletionRequest`) calls its own: it is not counted (up to `MAX_NAMESAKES` such
    modules are read to tell)."""
    modules = evaluator.project.callers_of(name, module.path, max(room, 0) + MAX_NAMESAKES)
    if modules is None:
        return None
    others = [m for m in modules if not _own_namesake(m, name)]
    return None if len(others) > max(room, 0) else others


def _own_namesake(module, name: str) -> bool:
    """True when `module` defines `name` at its top level and imports no name `name`."""
    return (name in module.classes or name in module.functions) and name not in module.imports


def _calls_in(evaluator, modules, name: str, is_callee) -> list:
    """(module, call, enclosing function, class) of the calls named `name` (`name(...)`,
    `x.name(...)`) in `modules` whose callee, evaluated in its module, `is_callee`."""
    sites = []
    for other in modules:
        for call, caller, cls in calls_named(other, name):
            if is_callee(evaluator.eval(call.func, evaluator.module_frame(other))):
                sites.append((other, call, caller, cls))
    return sites


def argument_node(func, call: ast.Call, name: str, method: bool) -> ast.expr | None:
    """The argument node `call` passes for parameter `name` of `func` (by keyword or position; a
    method's receiver not counted when `method`), or None."""
    return _argument(func, call, name, method)


def _argument(func, call: ast.Call, name: str, method: bool) -> ast.expr | None:
    """The argument node a call passes for parameter `name` (by keyword or position), or None."""
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    positional = [p.arg for p in [*func.args.posonlyargs, *func.args.args]]
    if method and positional and not is_static_method(func):
        positional = positional[1:]  # the receiver, whatever its name (as calls.py binds it)
    if name not in positional:
        return None
    index = positional.index(name)
    args = [a for a in call.args if not isinstance(a, ast.Starred)]
    if len(args) != len(call.args):
        return None  # *args: positions are not known
    return args[index] if index < len(args) else None


def field_arguments(evaluator, module, cls: ast.ClassDef, attr: str, default):
    """What the constructor calls of the record class `cls` (a pydantic model, a dataclass: its
    fields annotated in the class body) pass for the field `attr`, read where the method of an
    instance nobody built in the analysed code reads `self.attr` (`self.system_message.format(
    doc_schema=self.doc_schema)`): the calls in its module and in the other modules of its package
    tree (`PlannerConfig(doc_schema=agent.clean_schema())`), when there are few (`MAX_CALLERS`).
    `cls` is the class of the instance (a subclass's instance is built by the subclass's calls,
    not by those of the base that declares the field). A call that does not pass it gives
    `default()` (the class default). None when there are no calls, too many, or a call may pass
    it by position or by `**kwargs`, or when the class's users build it (`open_classes`: the calls
    of the tree are then examples; the class default is read, as before)."""
    key = ("field callers", id(cls), attr)
    if key in evaluator._return_cache:
        return evaluator._return_cache[key]
    if not evaluator.budget.following:
        return None  # (the class default is read, as with too many calls)
    evaluator._return_cache[key] = None  # while computing: a field built from itself stays as it is
    evaluator.budget.inner += 1
    try:
        result = _field_arguments(evaluator, module, cls, attr, default)
    finally:
        evaluator.budget.inner -= 1
    evaluator._return_cache[key] = result
    return result


def _field_arguments(evaluator, module, cls: ast.ClassDef, attr: str, default):
    """`field_arguments` once its cache and the file's budget were asked."""
    sites = [(module, call, caller, c) for call, caller, c in calls_named(module, cls.name, ("",))]
    if getattr(module, "path", None) is not None:
        others = foreign_modules(evaluator, module, cls.name, MAX_CALLERS - len(sites))
        if others is None:
            return None
        sites += _calls_in(evaluator, others, cls.name, lambda target: isinstance(target, ClassRef) and target.node is cls)
    if not sites or len(sites) > MAX_CALLERS or built_unseen(evaluator, module, cls):
        return None  # (a class its users build: the calls of the tree are examples, not its value)
    values = []
    for site_module, call, caller, c in sites:
        arg = next((kw.value for kw in call.keywords if kw.arg == attr), None)
        if arg is None:
            if call.args or any(kw.arg is None for kw in call.keywords):
                return None  # by position or in **kwargs: not known which
            values.append(default())
            continue
        frame = evaluator.module_frame(site_module) if caller is None else \
            _caller_frame(evaluator, site_module, caller, c, 1, None)
        values.append(evaluator.eval(arg, frame))
    from .values import Alt
    return values[0] if len(values) == 1 else Alt(values)


def called_anywhere(evaluator, module, func) -> bool:
    """True when some code of `func`'s package tree calls a function of its name (`name(...)`,
    `self.name(...)`, `x.name(...)`: by name only, so a namesake counts too, except a
    `self.name(...)` of another module's class that defines its own `name`), or when that is not
    known (no file, too many modules to read); False when no file of the tree calls it: only the
    user's own code does (a public method such as `prune_history()`)."""
    index = call_index(module)
    if any(index.get(key) for key in (func.name, "self." + func.name, "." + func.name)):
        return True
    if getattr(module, "path", None) is None:
        return True
    modules = evaluator.project.callers_of(func.name, module.path, MAX_CALLERS)
    if modules is None:
        return True
    return any(calls_named(other, func.name) or any(
        not _own_method(cls, func.name) for _call, _caller, cls in calls_named(other, func.name, ("self.",)))
        for other in modules)


def _own_method(cls, name: str) -> bool:
    """True when `cls` (the class around a `self.name(...)` call, or None) defines a method `name`
    itself: the call is that method's, not a namesake's of another module."""
    return cls is not None and any(isinstance(s, _FUNCS) and s.name == name for s in cls.body)
