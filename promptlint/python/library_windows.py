"""Conversation windows of agent libraries that a module configures (facts for PRM105).

The module never cuts the conversation itself: it builds a library's memory or context class
(`ChatMemoryBuffer.from_defaults(token_limit=3000)`, `ConversationBufferWindowMemory(k=5)`,
`BufferedChatCompletionContext(buffer_size=10)`, a `trim_messages(max_tokens=...)` runnable, ...)
and hands it to an agent, a chain or an engine, which sends the conversation through it; or it
makes an agent that builds such a memory itself when given none (`worker.as_agent()`). Which
classes, parameters, defaults and cuts there are is the library table
(`promptlint/profiles/history_windows.toml`); this module states, for each one configured:

- its limit: the constant given (names bound once to a constant, simple arithmetic), the table's
  default when none is given, or None when it is not a constant; whether a model given instead of a
  limit sizes it from the model's context window (`context`), whether a parameter turns the cut
  off (`strategy="first"`) or makes it happen in steps (`threshold_count=4`);
- its use: where the conversation goes through it (handed under a keyword an agent or a chain
  takes it by, `memory=`, `model_context=`; set as another object's memory, `agent.memory = ...`;
  a method that returns the window, `memory.get()`, `ctx.get_messages()`; piped into a chain), or
  a weaker use (handed to a call under another name or by position, returned by a getter);
- whether the conversation outlives one call (`kept`): it is kept on the instance or at module
  level, returned to the caller, loaded with a stored conversation (`chat_history=`,
  `chat_store=`), or what takes it is kept so, kept on another object (`st.session_state`) or
  used in a loop that does not make the window anew.

A window built, used once and dropped in the same call (a summary memory of a one-shot request)
has no `kept`; one that nothing uses has no `use`. The rule judges them. Shapes: `Configured`.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from ..profiles.history_windows import Default, Table, Window, table
from .param_classes import default_class
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
#: Calls whose positional argument is no use of a window (printed, tested, measured).
_ORDER = {"handed": 0, "slot": 0, "read": 1, "piped": 2, "weak": 3}
_NOT_USES = frozenset({"print", "isinstance", "len", "repr", "str", "type", "id", "hasattr", "getattr", "setattr",
                       "vars", "dir"})


@dataclass(frozen=True)
class Configured:
    """A library window configured in a module.

    `window` is the table entry; `at` where it is configured (the call that builds it, or the
    name of the method that makes an agent with it as its default memory, `made_by` then naming
    that agent class). `limit` is its limit (an int counting `unit`: "tokens", "messages",
    "turns"), None when not a constant; `limit_at` the expression given for it (None: the
    default applies). `context`: no limit given and a model given instead (or none at all, for a
    class whose missing limit means the context window): the limit is (a share of) the model's
    context window. `off`: a parameter turns the cut off. `steps`: "" (no margin: it cuts on every
    turn past the limit), "given" (a positive margin: it cuts in steps) or "unknown" (a margin that
    is no constant). `use` is the node where the conversation goes through it, `use_how` one of
    "handed" (under a keyword an agent takes it by), "slot" (set as such an attribute of another
    object, `agent.memory = ...`; `kept` says where), "read" (a method returning the
    window), "piped" (a runnable piped into a chain), "agent" (the agent made with it), "weak"
    (handed on otherwise, or returned); None when nothing uses it. `kept` says why the
    conversation outlives one call ("" when it does not).
    """

    window: Window
    at: ast.AST
    made_by: Default | None
    limit: int | None
    limit_at: ast.expr | None
    unit: str
    context: bool
    off: bool
    steps: str
    use: ast.AST | None
    use_how: str
    kept: str


def might_configure(source: str) -> bool:
    """True when the text names a class or method of the table (`Table.hints`)."""
    return any(word in source for word in table().hints())


def library_windows(module) -> list[Configured]:
    """Every window of the table that `module` configures, in source order."""
    found = _Finder(module, table())
    return sorted(found.run(), key=lambda c: (c.at.lineno, c.at.col_offset))


class _Finder:
    def __init__(self, module, windows: Table):
        self.module, self.table = module, windows
        self._parents: dict[int, ast.AST] | None = None
        #: The last names of the calls that may configure a window: classes, their factories, methods.
        self.names = {*windows.by_name, *windows.defaults_by_name,
                      *(f for w in windows.windows for f in w.factories)}

    @property
    def parents(self) -> dict[int, ast.AST]:
        """id(node) -> its parent, for every node of the module (made on first need: only a module
        that configures a window needs it)."""
        if self._parents is None:
            self._parents = {id(child): node for node in ast.walk(self.module.tree)
                             for child in ast.iter_child_nodes(node)}
        return self._parents

    # ------------------------------------------------------------------ what is configured
    def run(self) -> list[Configured]:
        out = []
        for node in subtree(self.module.tree):
            if type(node) is ast.Call and _last_name(node.func) in self.names:
                made = self._window_call(node) or self._default_call(node)
                if made is not None:
                    out.append(made)
        return out

    def _match(self, call: ast.Call, names: dict, attr_ok) -> tuple | None:
        """(entry, "class" | the factory or method name) of a call whose qualified name is under
        one of the entry's roots."""
        func = call.func
        last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if last is None:
            return None
        candidates = [(e, "class") for e in names.get(last, ()) if e.name == last]
        named = func
        if not candidates and isinstance(func, ast.Attribute):
            owner = _last_name(func.value)
            candidates = [(e, last) for e in names.get(owner, ()) if attr_ok(e, last)]
            if not candidates and isinstance(func.value, ast.Name):  # `memory_cls.from_defaults(...)`, a
                default = default_class(self._function(call), func.value.id)  # parameter whose default is the class
                if default is not None:
                    named = ast.Attribute(value=default, attr=last, ctx=ast.Load())
                    candidates = [(e, last) for e in names.get(_last_name(default), ()) if attr_ok(e, last)]
        if not candidates:
            return None
        qual = self.module.qualified_name(named)
        root = qual.split(".")[0] if qual else None
        return next(((e, how) for e, how in candidates if root in e.roots), None)

    def _window_call(self, call: ast.Call) -> Configured | None:
        found = self._match(call, self.table.by_name, lambda e, name: name in e.factories)
        if found is None:
            return None
        window, how = found
        params = window.params if how == "class" else window.factory_params
        args = _arguments(call, params)
        if window.config_only and params and params[0] in args:
            return None  # it cuts a list here (judged where that list is sent), it configures nothing
        limit_at = args.get(window.limit)
        if isinstance(limit_at, ast.Constant) and limit_at.value is None:
            limit_at = None
        func = self._function(call)
        limit = self._int(limit_at, func) if limit_at is not None else window.default
        unit = window.unit
        counter = args.get(window.unit_param) if window.unit_param else None
        if isinstance(counter, ast.Name) and counter.id == window.unit_value:
            unit = window.unit_as
        context = limit_at is None and (window.absent_context or window.context_param in args
                                        and not _empty(args[window.context_param]))
        off = window.off_param in args and _text(args[window.off_param]) in window.off_values
        steps = ""
        if window.step_param and window.step_param in args:
            margin = self._int(args[window.step_param], func)
            steps = "unknown" if margin is None and not _is_zero(args[window.step_param]) else \
                "given" if margin else ""
        reads = set(window.reads)
        if window.auto_param and _true(args.get(window.auto_param)):
            reads |= set(window.auto_reads)
        use, how_used, kept = self._trace(call, window.slots, reads, window.pipe)
        loaded = next((p for p in window.loads if p in args and not _empty(args[p])), None)
        if not kept and loaded is not None:
            kept = f"it is loaded with a conversation kept elsewhere (`{loaded}=`)"
        return Configured(window, call, None, limit, limit_at, unit, context, off, steps, use, how_used, kept)

    def _default_call(self, call: ast.Call) -> Configured | None:
        found = self._match(call, self.table.defaults_by_name, lambda e, name: False)
        if found is None and isinstance(call.func, ast.Attribute) and call.func.attr in self.table.defaults_by_name:
            found = self._library_method(call)
        if found is None:
            return None
        default, how = found
        args = _arguments(call, default.params if how == "class" else ())
        if default.memory_param in args:
            return None  # a memory given: judged where it is made
        window = self.table.by_key[default.window]
        at = call if how == "class" else _attr_name(call.func)
        kept = self._kept_consumer(call, call, "the agent")
        context = default.context_param in args and not _empty(args[default.context_param])
        return Configured(window, at, default, window.default, None, window.unit, context, False, "", call, "agent", kept)

    def _library_method(self, call: ast.Call) -> tuple | None:
        """(default, method) for `X.method(...)` where `X` is made by a call of the default's
        library (`ReActAgentWorker.from_tools(...).as_agent()`)."""
        receiver = call.func.value
        while isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute) \
                and isinstance(receiver.func.value, ast.Call):
            receiver = receiver.func.value  # (a chain of calls: its first call says whose object it is)
        if isinstance(receiver, ast.Name):  # `worker = X.from_tools(...)`, then `worker.as_agent()`
            func = self._function(call)
            receiver = _bound_once(func, receiver.id) if func is not None else None
        if not isinstance(receiver, ast.Call):
            return None
        qual = self.module.qualified_name(receiver.func)
        root = qual.split(".")[0] if qual else None
        return next(((d, call.func.attr) for d in self.table.defaults_by_name[call.func.attr]
                     if call.func.attr in d.methods and root in d.roots), None)

    # ------------------------------------------------------------------ where it goes
    def _trace(self, made: ast.AST, slots, reads: set, pipe: bool) -> tuple:
        """(use, how, kept) of the window made by `made` (a call): where the conversation goes
        through it, and why it outlives one call ("" when it does not)."""
        holder, node = self._holder(made, slots)
        if holder is None:
            return None, "", ""
        kind = holder[0]
        if kind in ("kw", "arg", "slot", "returned", "direct", "pipe"):
            found = self._classify(holder, node, slots, reads, pipe, made)
            return found if found is not None else (None, "", "")
        uses = [u for occ in self._occurrences(holder)
                if (u := self._classify(*self._holder(occ, slots), slots, reads, pipe, made)) is not None]
        if not uses:
            return None, "", ""
        uses.sort(key=lambda u: (_ORDER[u[1]], u[0].lineno, u[0].col_offset))
        kept = {"module": "the window is kept at module level", "attr": "the window is kept on the instance"}.get(kind, "")
        for use, _, why in uses:
            kept = kept or why or self._in_loop(use, made, "the window")
        return uses[0][0], uses[0][1], kept

    def _classify(self, holder: tuple | None, node, slots, reads: set, pipe: bool, made) -> tuple | None:
        """(use node, how, why kept) of one place the window's value reaches (`holder`, `node`:
        what `_holder` says of it), or None when the conversation does not go through it there."""
        if holder is None:
            return None
        kind = holder[0]
        if kind == "direct":
            return (holder[1], "read", self._in_loop(holder[1], made, "the window")) if holder[1].attr in reads \
                else None
        if kind == "kw":
            consumer = holder[2]
            return consumer, "handed" if holder[1].arg in slots else "weak", self._kept_consumer(consumer, made)
        if kind == "arg":
            return holder[1], "weak", self._kept_consumer(holder[1], made)
        if kind == "slot":
            return node, "slot", f"it is set as `{self.module.code(holder[1])}`"
        if kind == "returned":
            return node, "weak", "the window is returned to the caller"
        if kind == "pipe":
            return (holder[1], "piped", self._kept_consumer(holder[1], made)) if pipe else None
        if kind in ("attr", "module") and node is not made:  # handed on to where it is kept (`self.memory = memory`)
            return node, "weak", f"the window is kept {'on the instance' if kind == 'attr' else 'at module level'}"
        return None

    def _kept_consumer(self, consumer: ast.AST, made: ast.AST, subject: str = "what takes it") -> str:
        """Why `consumer` (an agent, a chain: what takes the window) outlives one call: kept on the
        instance or at module level, returned, or used in a loop that does not make the window
        (`made`) anew, itself or through the local name it is first assigned to. "" when none of
        these."""
        holder, _ = self._holder(consumer, ())
        kind = holder[0] if holder else None
        if kind in ("module", "attr"):
            return f"{subject} is kept {'at module level' if kind == 'module' else 'on the instance'}"
        if kind == "stored":
            return f"{subject} is kept as `{self.module.code(holder[1])}`"
        if kind == "returned":
            return f"{subject} is returned to the caller"
        if kind == "local":
            for occ in self._occurrences(holder):
                if self._in_loop(occ, made, subject):
                    return f"{subject} is used in a loop"
                again, _ = self._holder(occ, ())  # `chain = LLMChain(memory=...)`, then `return chain`
                if again and again[0] in ("module", "attr", "stored", "returned"):
                    return self._kept_consumer(occ, made, subject)
        return self._in_loop(consumer, made, subject)

    def _in_loop(self, node: ast.AST, made: ast.AST, subject: str) -> str:
        """"{subject} is used in a loop" when `node` is inside a loop (of its own function) that does
        not also hold `made` (a window made anew on every pass keeps no conversation); else ""."""
        parent = self.parents.get(id(node))
        while parent is not None and not isinstance(parent, _FUNCS):
            if isinstance(parent, _LOOPS) and not _holds(parent, made):
                return f"{subject} is used in a loop"
            parent = self.parents.get(id(parent))
        return ""

    def _holder(self, node: ast.AST, slots) -> tuple:
        """What keeps the value of `node`: ("local", name, func), ("module", name), ("attr", name,
        class), ("slot", target), ("stored", target: another object's attribute), ("kw", keyword,
        call), ("arg", call), ("returned",), ("direct",
        attribute), ("pipe", binop), or None; with the node climbed to (through `x or CALL`,
        `await CALL`, a conditional value)."""
        child, parent = node, self.parents.get(id(node))
        while isinstance(parent, (ast.BoolOp, ast.IfExp, ast.Await)) or \
                isinstance(parent, ast.Subscript) and parent.value is child:
            child, parent = parent, self.parents.get(id(parent))
        if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is child:
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            return (self._target(targets[0], slots) if len(targets) == 1 else None), child
        if isinstance(parent, ast.keyword):
            return ("kw", parent, self.parents.get(id(parent))), child
        if isinstance(parent, ast.Call) and child in parent.args:
            name = parent.func.id if isinstance(parent.func, ast.Name) else None
            return (None if name in _NOT_USES else ("arg", parent)), child
        if isinstance(parent, ast.Tuple) and isinstance(self.parents.get(id(parent)), (ast.Return, ast.Yield)):
            return ("returned",), child  # `return memory, chain`: one of the values handed back
        if isinstance(parent, (ast.Return, ast.Yield, ast.YieldFrom)):
            return ("returned",), child
        if isinstance(parent, ast.Attribute) and parent.value is child:
            return ("direct", parent), child
        if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.BitOr):
            return ("pipe", parent), child
        return None, child

    def _target(self, target: ast.expr, slots) -> tuple | None:
        while isinstance(target, ast.Subscript):  # `self.memories[session] = ...`: kept under that attribute
            target = target.value
        func, cls = self._function(target), self._class(target)
        if isinstance(target, ast.Name):
            if func is not None:
                return ("local", target.id, func)
            return ("attr", target.id, cls) if cls is not None else ("module", target.id)
        if isinstance(target, ast.Attribute):
            if isinstance(target.value, ast.Name) and target.value.id in ("self", "cls"):
                return ("attr", target.attr, cls) if cls is not None else None
            if target.attr in slots:
                return ("slot", target)
            return ("stored", target)  # kept on another object (`st.session_state.engine = ...`)
        return None

    def _occurrences(self, holder: tuple) -> list[ast.AST]:
        """The nodes that read the value kept by `holder` (a local, a module name, an attribute of
        the class's instances), in source order."""
        kind, name = holder[0], holder[1]
        if kind == "local":
            scope = holder[2]
            hits = [n for n in ast.walk(scope) if isinstance(n, ast.Name) and n.id == name
                    and isinstance(n.ctx, ast.Load)]
        elif kind == "module":
            hits = [n for n in ast.walk(self.module.tree) if isinstance(n, ast.Name) and n.id == name
                    and isinstance(n.ctx, ast.Load)]
        elif kind == "attr" and holder[2] is not None:
            hits = [n for n in ast.walk(holder[2]) if isinstance(n, ast.Attribute) and n.attr == name
                    and isinstance(n.value, ast.Name) and n.value.id in ("self", "cls")
                    and isinstance(n.ctx, ast.Load)]
        else:
            hits = []
        return sorted(hits, key=lambda n: (n.lineno, n.col_offset))

    # ------------------------------------------------------------------ values and scopes
    def _function(self, node: ast.AST):
        parent = self.parents.get(id(node))
        while parent is not None and not isinstance(parent, (*_FUNCS, ast.ClassDef)):
            parent = self.parents.get(id(parent))
        return parent if isinstance(parent, _FUNCS) else None

    def _class(self, node: ast.AST):
        parent = self.parents.get(id(node))
        while parent is not None and not isinstance(parent, ast.ClassDef):
            parent = self.parents.get(id(parent))
        return parent

    def _int(self, expr: ast.expr | None, func, depth: int = 0) -> int | None:
        """The integer `expr` stands for: a constant, `+ - * //` of them, a name bound once (in
        `func`, else at module level) to one; None otherwise."""
        if expr is None or depth > 4:
            return None
        if isinstance(expr, ast.Constant):
            value = expr.value
            return value if isinstance(value, int) and not isinstance(value, bool) else None
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
            left, right = self._int(expr.left, func, depth + 1), self._int(expr.right, func, depth + 1)
            if left is None or right is None or isinstance(expr.op, ast.FloorDiv) and right == 0:
                return None
            return {ast.Add: left + right, ast.Sub: left - right, ast.Mult: left * right}.get(
                type(expr.op), left // right if right else None)
        if isinstance(expr, ast.Name):
            bound = _bound_once(func, expr.id) if func is not None else None
            if bound is None and (func is None or not _binds(func, expr.id)):
                values = self.module.assigns.get(expr.id, [])
                bound = values[0] if len(values) == 1 else None
            return self._int(bound, None, depth + 1)
        return None


def _arguments(call: ast.Call, params: tuple[str, ...]) -> dict[str, ast.expr]:
    """Parameter name -> the expression given for it (by position in `params`, or by keyword)."""
    args = {}
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred) or i >= len(params):
            break
        args[params[i]] = arg
    args.update({k.arg: k.value for k in call.keywords if k.arg is not None})
    return args


def _last_name(expr: ast.expr) -> str | None:
    return expr.attr if isinstance(expr, ast.Attribute) else expr.id if isinstance(expr, ast.Name) else None


def _attr_name(func: ast.Attribute) -> ast.AST:
    """A node spanning the attribute's name (`as_agent` of `....as_agent`), for the report."""
    node = ast.Name(id=func.attr, ctx=ast.Load())
    node.lineno = node.end_lineno = func.end_lineno
    node.col_offset, node.end_col_offset = func.end_col_offset - len(func.attr.encode()), func.end_col_offset
    return node


def _text(expr: ast.expr) -> str | None:
    return expr.value if isinstance(expr, ast.Constant) and isinstance(expr.value, str) else None


def _true(expr: ast.expr | None) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is True


def _empty(expr: ast.expr) -> bool:
    """None or an empty list, tuple or dict display: no conversation loaded."""
    return isinstance(expr, ast.Constant) and expr.value is None or \
        isinstance(expr, (ast.List, ast.Tuple)) and not expr.elts or isinstance(expr, ast.Dict) and not expr.keys


def _is_zero(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value == 0


def _holds(outer: ast.AST, node: ast.AST) -> bool:
    return any(n is node for n in ast.walk(outer))


def _binds(func, name: str) -> bool:
    """True when `func` binds `name` (a parameter or an assignment)."""
    args = func.args
    if any(a.arg == name for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)):
        return True
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(func))


def _bound_once(func, name: str) -> ast.expr | None:
    """The value `name` is assigned once in `func` (not a parameter), else None."""
    args = func.args
    if any(a.arg == name for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)):
        return None
    values = [n.value for n in ast.walk(func) if isinstance(n, (ast.Assign, ast.AnnAssign))
              and n.value is not None and any(isinstance(t, ast.Name) and t.id == name
                                              for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
    stores = sum(1 for n in ast.walk(func) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store))
    return values[0] if len(values) == 1 and stores == 1 else None
