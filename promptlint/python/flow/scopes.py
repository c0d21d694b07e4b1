"""Bindings and scopes: what each name holds at each statement of a function or module.

A function body (or a module) is read once, straight through, branches merged: each assignment
binds a lazy `Thunk`, and a snapshot of the bindings is taken before each statement, keyed by its
row. `lookup(frame, name, at)` is the value of `name` as seen at node `at`. Loops are read twice
(the second pass sees what the first appended: the back edge); branches merge into alternatives.
A generator function returns the list of what it yields, in order (`yield x` appends x, `yield
from xs` extends by xs: `list(prompt_full())`, `yield from prompt_tools()`), as the list that
`list(gen())` would hold.
"""
from __future__ import annotations

import ast
import bisect
from dataclasses import replace

from ..markers import sets_cache_marker
from ..item_markers import copies_item_marker, marks_last_only
from ..marking_counts import loop_count
from ..marking_helpers import added_marks
from .fields import bound_fields, field_written
from .binding_syntax import fallback_name, is_generator, nested_names, params_of, target_names, target_position, walrus_targets
from .builder_facts import receiver
from .frames import Frame, Thunk
from .handed import rebind_handed
from .loop_shapes import enumerated, filtered_append, map_loop, newest_base, rendered_texts
from .branched_maps import branched_appends, converts_each
from .popped import popped_into
from .cuts import (appended, bound_stop, breaks, drops_oldest, dropped_until, front_cut, masks_older, method_cuts,
                   newest_first, pops_run, restores_length, rewritten, runs_until_it_fits, taken_until, walks_back)
from .front_calls import front_call
from .range_windows import newest_range
from .newest_iters import newest_by_method
from .own_attrs import calls_writer, own_attrs, own_key
from .keyed_targets import global_dict_key, keyed, keyed_list, merged_item, path_binding
from .readings import reading
from ..walk import subtree
from .rewrites import env_resolver, older_apart
from .roles import ensures_system_first, guard_role, role_test
from .values import ClassRef, Func, Seq, Value, dynamic

#: In-place shuffles of the process-wide random generator: the list is in a new order on every call.
SHUFFLES = frozenset({"random.shuffle", "numpy.random.shuffle"})
#: Seeding that generator: a shuffle after it, in the same function, gives the order its seed gives.
_SEEDS = frozenset({"random.seed", "numpy.random.seed"})


def _seeded(frame, call: ast.Call) -> bool:
    """True when the function of `frame` seeds the process-wide generator (`random.seed(counter)`)
    on a line before `call`: the shuffle's order is then the seed's, the same in every process (a
    benchmark's fixed sample), not new on every call."""
    func = frame.func
    if func is None:
        return False
    return any(isinstance(n, ast.Call) and n.lineno < call.lineno and frame.module.qualified_name(n.func) in _SEEDS
               for n in subtree(func))
#: The key of the snapshot taken after the last statement (the bindings at the end).
END = 10 ** 9
#: The binding of what a generator function has yielded so far (a name no code can use).
YIELDED = "<yielded>"


def _shared(kind: str, **fields) -> Thunk:
    """A thunk made by reading a body (`ScopesMixin.ensure`), shared by every frame of it."""
    return Thunk(kind, shared=True, **fields)


_DICT_CALLS = ("dict", "defaultdict", "OrderedDict")


def _dict_binding(th: Thunk, depth: int = 0) -> bool:
    """True when the binding `th` is a dict the code makes (`{}`, a dict comprehension, `dict(...)`,
    `defaultdict(...)`), or one set by key or made so in a branch: a list (`msgs[i] = ...`) or a
    parameter keeps its own binding."""
    if depth > 8 or th is None:
        return False
    if th.kind in ("setkey", "setitem", "keygrow"):
        return True
    if th.kind in ("update", "setdefault", "handed"):
        return _dict_binding(th.prev, depth + 1)
    if th.kind == "alt":
        return any(_dict_binding(o, depth + 1) for o in th.options)
    node = th.node if th.kind == "expr" else None
    if isinstance(node, (ast.Dict, ast.DictComp)):
        return True
    func = node.func if isinstance(node, ast.Call) else None
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    return name in _DICT_CALLS


def _narrowed(test: ast.expr, env: dict, found=None) -> dict | None:
    """The loop variable of `if m.role == "system":` bound, in that branch, to the messages of that
    role (roles.py): {name: Thunk} or None. `found`: the (name, role) a guard clause gives."""
    found = found or role_test(test)
    th = env.get(found[0]) if found else None
    if th is None or th.kind != "iter":
        return None
    return {found[0]: replace(th, value=found[1], cache=None)}


def _as_growth(expr: ast.Yield | ast.YieldFrom) -> ast.Call:
    """`yield v` as the call `<yielded>.append(v)` reads it (`yield from xs`: `.extend(xs)`), made
    once per node at its place."""
    call = getattr(expr, "_promptlint_growth", None)
    if call is None:
        call = ast.copy_location(ast.Call(func=ast.Name(YIELDED, ast.Load()), args=[expr.value], keywords=[]), expr)
        expr._promptlint_growth = call
    return call


_TRY = (ast.Try,) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())
_MATCH = (ast.Match,) if hasattr(ast, "Match") else ()
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


#: The start of the keys of `self.ATTR` that a method builds itself (own_attrs.own_key).
_OWN = own_key("")


def _own_target(frame: Frame, target) -> bool:
    """True for a target `self.ATTR` of an attribute the frame's method builds itself (own_attrs)."""
    return isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self" \
        and target.attr in own_attrs(frame.func)


def _drop_rewritten(frame: Frame, stmt, env: dict) -> None:
    """Forget what the method built in `self.ATTR` when `stmt` calls another method of the
    instance that writes it (`self.add_tools()`): after it, the class reading of the attribute."""
    for key in [k for k in env if k.startswith(_OWN)]:
        if calls_writer(stmt, frame.cls, frame.func, key[len(_OWN):]):
            del env[key]


class ScopesMixin:
    """The statement reader of the Evaluator (see the module docstring)."""

    def ensure(self, frame: Frame) -> None:
        """Read the frame's body once: snapshots of the bindings before each statement. A body is
        read once per evaluator state (`_bodies`: kept across files when it read the code alone,
        `flow.bodies`): the reading depends only on the code (module, function, class), not on
        what the parameters are bound to, so every frame of the same function shares its thunks,
        each frame with its own values (`Frame.values`, see `Evaluator.force`)."""
        if frame.snapshots is not None:
            return
        key = (id(frame.func) if frame.func is not None else id(frame.module.tree), id(frame.cls))
        body = self._bodies.get(key, frame.module)  # (the body holds its nodes: ids stay unique)
        if body is None:
            body = Frame(module=frame.module, func=frame.func, cls=frame.cls)
            outer = self._bodies.start()
            self._read_body(body)
            self._bodies.put(key, body, outer)
        frame.snapshots, frame.rows, frame.returns = body.snapshots, body.rows, body.returns
        frame.markers, frame.param_names = body.markers, body.param_names

    def _read_body(self, frame: Frame) -> None:
        """Read the body of `frame` (a new frame): its snapshots, returns and markers."""
        frame.snapshots, frame.rows = {}, []
        body = frame.module.tree.body if frame.func is None else frame.func.body
        env: dict[str, Thunk] = {}
        if frame.func is not None:
            frame.param_names = set()
            for p in params_of(frame.func):
                frame.param_names.add(p.arg)
                env[p.arg] = _shared("param", node=p, name=p.arg)
        generator = frame.func is not None and is_generator(frame.func, frame.module)
        if generator:
            env[YIELDED] = _shared("value", value=Seq([], None))
        try:
            self._interp(frame, body, env, False)
        except BaseException:  # (a RecursionError deep in a chain of calls): read it again next time
            frame.snapshots, frame.rows = None, []
            raise
        if frame.func is not None:  # marked copies, keys set by methods, helpers that mark (marking_helpers.py)
            frame.markers.extend((span, count if count is True or count > 1 else False)
                                 for span, count in added_marks(self.project, frame.module, frame.func, frame.cls,
                                                                self.marking_reads) if count)
        if generator:  # what it yields, on the paths that reach its end
            frame.returns.append(env[YIELDED])
        frame.snapshots[END] = dict(env)
        frame.rows = sorted(frame.snapshots)

    def _snap(self, frame: Frame, node: ast.AST, env: dict) -> None:
        """Record the bindings before the statement at `node`'s row (a later pass over a loop
        body replaces the first: it also sees what the previous iteration appended)."""
        frame.snapshots[node.lineno] = dict(env)

    def _interp(self, frame: Frame, stmts, env: dict, loop) -> None:
        for stmt in stmts:
            self._snap(frame, stmt, env)
            if own_attrs(frame.func):
                _drop_rewritten(frame, stmt, env)
            if isinstance(stmt, (ast.If, ast.While)) and frame.module.mentions(":="):
                for named in walrus_targets(stmt.test):  # `if system := (self.instruction or default):`
                    env[named.target.id] = _shared("expr", node=named.value, env=dict(env))
            if isinstance(stmt, ast.If) and ensures_system_first(stmt):
                self._interp(frame, stmt.body, env, loop)  # the list starts with a system message either way
            elif isinstance(stmt, ast.If):
                name = fallback_name(stmt.test) if not stmt.orelse else None
                before = env.get(name)
                self._branches(frame, [stmt.body, stmt.orelse], env, loop, _narrowed(stmt.test, env), stmt.test)
                guard = guard_role(stmt)
                if guard is not None:  # `if m.role != "system": continue`: the rest reads system messages
                    env.update(_narrowed(stmt.test, env, guard) or {})
                # `if x is None: x = DEFAULT`: x, or its default when it is missing (values.Alt)
                if name is not None and before is not None and env.get(name) is not before and env[name].kind == "alt":
                    env[name].fallback = True
            elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
                self._loop(frame, stmt, env, loop)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    if isinstance(item.optional_vars, ast.Name):
                        env[item.optional_vars.id] = _shared("expr", node=item.context_expr, env=dict(env))
                self._interp(frame, stmt.body, env, loop)
            elif isinstance(stmt, _TRY):
                self._interp(frame, stmt.body, env, loop)
                for handler in stmt.handlers:  # run only on failure: read, bindings not kept
                    self._interp(frame, handler.body, dict(env), loop)
                self._interp(frame, stmt.orelse, env, loop)
                self._interp(frame, stmt.finalbody, env, loop)
            elif isinstance(stmt, _FUNCS):
                env[stmt.name] = _shared("value", value=Func(frame.module, stmt, None))
                if frame.func is not None:
                    self._closure_grows(frame, stmt, env)
            elif isinstance(stmt, ast.ClassDef):
                env[stmt.name] = _shared("value", value=ClassRef(frame.module, stmt))
            elif _MATCH and isinstance(stmt, _MATCH):
                self._branches(frame, [c.body for c in stmt.cases], env, loop)
            else:
                self._small(frame, stmt, env, loop)

    def _loop(self, frame: Frame, stmt, env: dict, loop) -> None:
        is_for = isinstance(stmt, (ast.For, ast.AsyncFor))
        targets = target_names(stmt.target) if is_for else []
        start = dict(env)
        outer = loop if isinstance(loop, tuple) else None
        counted = enumerated(stmt) if is_for else None
        it = (counted or stmt.iter) if is_for else None
        # the iterable, read once: for every name bound from it, for the order of what the loop adds
        # (`ContainersMixin._loop_order`: (iterable, bindings before, loop around, this reading)) and
        # for both passes when the first rebinds nothing it reads (`readings.reading`)
        source = _shared("expr", node=it, env=start) if is_for else None
        ctx = (stmt.iter, dict(env), outer, source if counted is None else None) if is_for else outer
        passes = 1 if frame.replay else 2  # loops inside a replay run once
        for number in range(passes):  # the second pass sees what the first appended (the back edge)
            outer_replay = frame.replay
            frame.replay = number == 1 or outer_replay
            inner = dict(env)
            if targets and number:
                now = reading(it, env)
                if now is None or now != reading(it, start):
                    source = _shared("expr", node=it, env=dict(env))
            for i, name in enumerate(targets):
                if counted is not None:  # `for i, x in enumerate(xs)`: a counter, then an element of xs
                    inner[name] = (_shared("counter", node=stmt.target, name=name, each=stmt) if i == 0
                                   else _shared("iter", node=counted, env=dict(env), name=name, prev=source, each=stmt))
                else:
                    inner[name] = _shared("iter", node=stmt.iter, env=dict(env), name=name,
                                          index=target_position(stmt.target, i), prev=source, each=stmt)
            run = pops_run(stmt)
            fitting = runs_until_it_fits(stmt) and not run and not restores_length(stmt, env)
            frame.fitting += fitting
            frame.runs += run
            try:
                self._interp(frame, stmt.body, inner, ctx or True)
            finally:
                frame.fitting -= fitting
                frame.runs -= run
            for name, th in inner.items():
                if env.get(name) is not th and name not in targets:
                    env[name] = th
            frame.replay = outer_replay
        out = map_loop(stmt) if is_for and not outer else None
        kept = filtered_append(stmt) if is_for and not outer and out is None else None
        if kept is None and out is None and is_for and not outer and converts_each(stmt):
            kept = branched_appends(stmt)[1][0]  # a message of each item by branches (branched_maps.py)
        if kept is not None:  # `for m in xs: if test(m): out.append(f(m))`: a filtered copy (maps.py)
            out = kept.func.value.id
        if out is not None and out in ctx[1] and env.get(out) is not ctx[1][out]:
            # `for m in xs: out.append(f(m))`: mapped item by item when xs is a known list (maps.py)
            env[out] = _shared("map", node=stmt, env=ctx[1], prev=ctx[1][out], value=env[out], at=kept)
        source = newest_first(stmt) if is_for else walks_back(stmt, start)
        if source is None and is_for:
            source = newest_range(stmt, ctx[1])  # `for i in range(max(0, len(xs) - k), len(xs))`: xs's newest k
        if is_for and frame.func is not None and (source is not None or breaks(stmt.body)):
            source = newest_by_method(self, frame, stmt, source)  # `for p in chat.iter_pairs():` (newest_iters)
        if source is not None:  # `for m in reversed(xs): ... break ... kept.append(m)`: xs cut to its newest
            before = ctx[1] if is_for else start
            for name in appended(stmt.body, prepends=not is_for):
                if name in env and env[name] is not before.get(name):
                    env[name] = _shared("window", node=stmt.iter if is_for else stmt.test,
                                        prev=_shared("expr", node=source, env=before), value=bound_stop(stmt.body),
                                        name=source.id if isinstance(source, ast.Name) else "")
        if source is None and is_for and (base := newest_base(stmt.iter)) is not None:
            # `for m in history[-15:]: text += f"...{m}..."`: the newest items written into one text
            for name, piece in rendered_texts(stmt).items():  # (judged where a request carries the text)
                if name in env and env[name] is not ctx[1].get(name):
                    env[name] = _shared("rendered", node=stmt.iter, prev=_shared("expr", node=base, env=ctx[1]), name=piece)
        masked = masks_older(stmt) if is_for else None
        if masked is not None and masked[0].id in ctx[1]:  # older items than the newest few rewritten
            source, rewrite, item = masked
            grown = [n for n in appended(stmt.body, prepends=True) if n in env and env[n] is not ctx[1].get(n)]
            for name in grown or ([source.id] if item in targets else []):
                env[name] = _shared("window", node=rewrite, prev=_shared("expr", node=source, env=ctx[1]), name=source.id)
        for name in appended(stmt.body) if is_for else ():  # items rendered apart by age (rewrites.older_apart)
            found = older_apart(stmt, name, env_resolver(ctx[1])) if env.get(name) is not ctx[1].get(name) else None
            if found is not None:
                env[name] = _shared("apart", node=found, prev=env[name])
        for key in [k for k in env if k.startswith(_OWN) and k not in start]:
            del env[key]  # `self.X` built only when the loop runs: else what the class reading gives
        self._interp(frame, stmt.orelse, env, loop)

    def _branches(self, frame: Frame, bodies, env: dict, loop, first: dict | None = None, test=None) -> None:
        """`first`: bindings only the first branch sees (a loop variable narrowed by its test);
        `test`: the condition of an `if` (kept on the alternatives it makes: `Alt.configured`)."""
        envs = []
        at = dict(env)
        for i, body in enumerate(bodies):
            if body:
                e = dict(env)
                if i == 0 and first:
                    e.update(first)
                self._interp(frame, body, e, loop)
                for name, th in (first or {}).items() if i == 0 else ():
                    if e.get(name) is th:  # narrowed in the branch only: after it, the variable it was
                        e[name] = env[name]
            else:
                e = env  # an empty branch binds nothing (its bindings are those before it)
            envs.append(e)
        # only the names a branch rebound can change (a branch never unbinds a name); for the
        # others every branch holds the binding from before, which stays
        names = {name for e in envs if e is not env for name, th in e.items() if env.get(name) is not th}
        for name in names:
            ths = [e.get(name) for e in envs]
            if name.startswith(_OWN) and None in ths:
                env.pop(name, None)  # `self.X` built in one branch only: else what the class reading gives
                continue
            distinct: list = []
            for th in ths:
                if th is not None and all(th is not d for d in distinct):
                    distinct.append(th)
            if len(distinct) == 1 and None not in ths:
                env[name] = distinct[0]
            elif distinct:
                before = env.get(name)
                opts = list(distinct)
                if before is not None and any(t is None or t is before for t in ths) and all(o is not before for o in opts):
                    opts.append(before)
                env[name] = _shared("alt", options=opts, node=test, env=at if test is not None else None)

    @staticmethod
    def _closure_grows(frame: Frame, func, env: dict) -> None:
        """A nested function that appends to a list of the enclosing one (`def emit(t):
        lines.append(t)`, called later in a loop): the list holds, after the def, what it held and
        items the function appends, as many times as it is called (repeated); the function's own
        names in them are of unknown value (never the enclosing function's names of the same
        spelling)."""
        own = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
        own |= {a.arg for a in (func.args.vararg, func.args.kwarg) if a is not None}
        own |= {n.id for n in subtree(func) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        for node in subtree(func):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("append", "extend", "insert") and isinstance(node.func.value, ast.Name)
                    and node.func.value.id in env and node.func.value.id not in own and node.args):
                unknown = {n: _shared("value", value=dynamic(frame.module.span(func), n,
                                                            evidence=f"a value the nested function `{func.name}` appends"))
                           for n in own}
                name = node.func.value.id
                env[name] = _shared(node.func.attr, node=node, env={**env, **unknown}, prev=env[name], name=name,
                                    repeated=True)

    def _small(self, frame: Frame, stmt, env: dict, loop) -> None:
        if frame.fitting and loop and (pop := popped_into(stmt)) is not None and pop.func.value.id in env:
            # `pruned.append(messages.pop(0))` until it fits: the oldest dropped, each one kept (popped.py)
            env[pop.func.value.id] = _shared("window", node=pop, prev=env[pop.func.value.id], name=pop.func.value.id)
        if (not loop or isinstance(stmt, ast.Assign)) and (found := path_binding(stmt, env, _shared)) is not None:
            # `system[-1]["text"] += note`; in a loop a plain write only (`chat[0]["content"] = ...`
            # on each turn: the last pass's value), not an addition (each pass would add it again)
            env[found[0]] = found[1]
        elif isinstance(stmt, ast.Assign):
            cut = (front_cut(stmt, env) or front_call(stmt, frame.module.tree, frame.cls)) if frame.fitting else None
            # (`history = history[2:]` until it fits, or `history = evict(history)` of a function that returns that)
            held = env.get(cut.id) if isinstance(cut, ast.Name) else None  # the list before it is cut
            for target in stmt.targets:
                if (name := global_dict_key(frame, target, env)) is not None:
                    # `additional_kwargs["tools"] = functions` into a module-level dict: that dict with the key set
                    env[name] = _shared("global", name=name)
                self._assign(target, stmt.value, env)
                if len(stmt.targets) == 1 and _own_target(frame, target):  # `self.prompt = ""` (own_attrs.py)
                    env[own_key(target.attr)] = _shared("expr", node=stmt.value, env=dict(env))
                if loop and (name := keyed(target, env)) is not None and _dict_binding(env[name]):
                    # `deps[edge.name] = result` in a loop: a dict filled in the loop's order
                    env[name] = _shared("setkey", node=stmt.value, env=dict(env), prev=env[name], name=name,
                                        loop=loop if isinstance(loop, tuple) else None, at=target)
                if sets_cache_marker(target) and not frame.replay:  # in a loop: on every item, unless on its last only
                    count = loop_count(frame.func, stmt) if loop else 1  # (n over `xs[-n:]`, 1 when it stops after)
                    if count is True or count is None:
                        count = not marks_last_only(frame.func, target) \
                            and not copies_item_marker(frame.func, stmt, frame.module)
                    frame.markers.append((frame.module.span(target), count if count is True or count > 1 else False))
            for name, th in bound_fields(frame, stmt, env, _shared):  # `message.content = text`, `head = xs.pop(0)`
                env[name] = th
            if frame.fitting and (name := rewritten(stmt)) in env:  # `hist[k] = shorter(...)` until it fits
                env[name] = _shared("window", node=stmt, prev=env[name], name=name)
            elif frame.fitting and (taken := taken_until(stmt)) in env:  # `old = messages.pop(0)` until it fits
                env[taken] = _shared("window", node=stmt.value, prev=env[taken], name=taken)
            elif cut is not None:
                if held is not None:
                    env[cut.id] = _shared("window", node=stmt.value, prev=held, name=cut.id)
                elif isinstance(cut, ast.Subscript) and env.get(cut.value.id) is not None \
                        and env[cut.value.id].kind == "setitem":
                    env[cut.value.id].value = stmt.value  # `inputs["chat_history"] = chat_history[2:]`
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None and isinstance(stmt.target, ast.Name):
                env[stmt.target.id] = _shared("expr", node=stmt.value, env=dict(env))
            elif stmt.value is not None and _own_target(frame, stmt.target):
                env[own_key(stmt.target.attr)] = _shared("expr", node=stmt.value, env=dict(env))
        elif isinstance(stmt, ast.AugAssign):
            if isinstance(stmt.target, ast.Name):
                name = stmt.target.id
                env[name] = _shared("aug", node=stmt.value, env=dict(env), prev=env.get(name), repeated=bool(loop),
                                  name=type(stmt.op).__name__)
            elif _own_target(frame, stmt.target) and own_key(stmt.target.attr) in env:
                key = own_key(stmt.target.attr)  # `self.prompt += section` of text the method builds itself
                env[key] = _shared("aug", node=stmt.value, env=dict(env), prev=env[key], repeated=bool(loop),
                                   name=type(stmt.op).__name__)
            elif isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Attribute) and isinstance(
                    stmt.target.value, ast.Name) and field_written(env.get(stmt.target.value.id), stmt.target.attr):
                name = stmt.target.value.id  # `message.content += note`: the object with that field extended
                env[name] = _shared("aug", node=stmt.value, env=dict(env), prev=env[name], name="Add", value=stmt.target.attr)
            elif isinstance(stmt.op, ast.BitOr) and isinstance(stmt.target, ast.Subscript):
                # `prompt["Instructions"] |= section`: that item merged with it
                self._assign(stmt.target, merged_item(stmt), env)
        elif (isinstance(stmt, ast.Expr) and isinstance(stmt.value, (ast.Yield, ast.YieldFrom))
              and stmt.value.value is not None and YIELDED in env):
            kind = "append" if isinstance(stmt.value, ast.Yield) else "extend"
            env[YIELDED] = _shared(kind, node=_as_growth(stmt.value), env=dict(env), prev=env[YIELDED],
                                 repeated=bool(loop), loop=loop if isinstance(loop, tuple) else None)
        elif isinstance(stmt, (ast.Expr, ast.Delete)) and loop and (
                (dropped := drops_oldest(stmt, None if frame.runs else loop)) in env
                or frame.fitting and (dropped := dropped_until(stmt)) in env):
            # `messages.pop(0)` / `del messages[1]` in a loop: the oldest messages dropped until it fits
            env[dropped] = _shared("window", node=stmt.value if isinstance(stmt, ast.Expr) else stmt, prev=env[dropped],
                                 name=dropped)
        elif frame.fitting and isinstance(stmt, ast.Expr) and (attr := method_cuts(frame.cls, stmt.value)):
            # `self.clear_history(i, j)` until it fits: a method that deletes from `self.history`
            for name, th in list(env.items()):
                if (th.kind == "expr" and isinstance(th.node, ast.Attribute) and th.node.attr == attr
                        and isinstance(th.node.value, ast.Name) and th.node.value.id == "self"):
                    env[name] = _shared("window", node=stmt.value, prev=th, name=name)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            f = call.func
            if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                    and f.attr in ("append", "extend", "insert") and f.value.id in env):
                name = f.value.id
                env[name] = _shared(f.attr, node=call, env=dict(env), prev=env.get(name), repeated=bool(loop),
                                  loop=loop if isinstance(loop, tuple) else None)
            elif isinstance(loop, tuple) and (name := keyed_list(call, env)) is not None and _dict_binding(env[name]):
                # `groups[k].append(x)` in a loop: the dict's lists grow in the loop's order (keyed.py)
                env[name] = _shared("keygrow", node=call, env=dict(env), prev=env[name], name=name, loop=loop)
            elif (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.attr == "update"
                    and f.value.id in env and len(call.args) <= 1):
                name = f.value.id  # `payload.update(system=text)`: a request dict completed later
                env[name] = _shared("update", node=call, env=dict(env), prev=env.get(name), name=name)
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.attr == "setdefault" \
                    and f.value.id in env and len(call.args) == 2 and isinstance(call.args[0], ast.Constant) \
                    and isinstance(call.args[0].value, str):
                name = f.value.id  # `kwargs.setdefault("system", DEFAULT)`: the key set where it is missing
                env[name] = _shared("setdefault", node=call, env=dict(env), prev=env.get(name), name=name)
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.attr == "sort" and f.value.id in env:
                name = f.value.id  # `tools.sort()`: the list is now in a fixed order
                env[name] = _shared("sort", node=call, env=dict(env), prev=env.get(name), name=name)
            elif (len(call.args) == 1 and isinstance(call.args[0], ast.Name) and call.args[0].id in env
                    and frame.module.qualified_name(f) in SHUFFLES and not _seeded(frame, call)):
                name = call.args[0].id  # `random.shuffle(xs)`: xs is now in a random order
                env[name] = _shared("shuffle", node=call, env=dict(env), prev=env.get(name), name=name)
            elif (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and frame.func is not None
                    and f.attr in ("append", "extend", "insert") and f.value.id in frame.module.assigns):
                # a module-level list grown by a function: each call adds to what the earlier ones added
                name = f.value.id
                env[name] = _shared(f.attr, node=call, env=dict(env), prev=_shared("global", name=name), repeated=True,
                                  loop=loop if isinstance(loop, tuple) else None)
            elif (name := receiver(call, env)) is not None:
                # `builder.add_section(...)`: a prompt builder with a section added (builders.py)
                env[name] = _shared("called", node=call, env=dict(env), prev=env[name], name=name)
                rebind_handed(frame, call, env, _shared, _dict_binding)
            else:
                rebind_handed(frame, call, env, _shared, _dict_binding)  # `self._add_tools(request)`: a helper changes it
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Await):
            rebind_handed(frame, stmt.value, env, _shared, _dict_binding)
        elif isinstance(stmt, ast.Return) and stmt.value is not None and not frame.replay:
            frame.returns.append(_shared("expr", node=stmt.value, env=dict(env)))

    @staticmethod
    def _assign(target, value, env: dict) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = _shared("expr", node=value, env=dict(env))
        elif (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id in env
                and isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str)):
            # `payload["system"] = text`: the dict with that key set, as a request built key by key; a
            # breakpoint (`request["cache_control"] = {...}`, also counted as a marker) is a key of
            # the dict written at the target, where the marker is
            name, key = target.value.id, target.slice.value
            env[name] = _shared("setitem", node=value, env=dict(env), prev=env[name], name=key,
                                at=target if key == "cache_control" else None)
        elif isinstance(target, (ast.Tuple, ast.List)):
            vals = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
            star = next((i for i, el in enumerate(target.elts) if isinstance(el, ast.Starred)), None)
            before = dict(env)  # (every name unpacked reads the value as it was before the assignment)
            whole = None  # the unpacked value: read once for all the names (`a, b, kwargs = build(...)`)
            for i, el in enumerate(target.elts):
                # after a starred target (`*_, last = xs`) a name counts from the end
                at = i if star is None or i < star else i - len(target.elts)
                if isinstance(el, ast.Name):
                    if vals is not None and star is None and i < len(vals) and not isinstance(vals[i], ast.Starred):
                        env[el.id] = _shared("expr", node=vals[i], env=before)
                    else:
                        whole = whole or _shared("expr", node=value, env=before)
                        env[el.id] = _shared("unpack", node=value, env=before, name=el.id, value=at, prev=whole)
                elif isinstance(el, (ast.Tuple, ast.List)):
                    # `contents, (width, height) = convert(...)`: each inner name by its place in the
                    # element at `at` (a path of places, read by core._element)
                    for path, name in nested_names(el, (at,)):
                        whole = whole or _shared("expr", node=value, env=before)
                        env[name] = _shared("unpack", node=value, env=before, name=name, value=path, prev=whole)

    def lookup(self, frame: Frame, name: str, at: ast.AST) -> Value | None:
        """The value of `name` as seen at node `at` in `frame`, or None when unbound there."""
        env = self.env_at(frame, at)
        th = env.get(name)
        if th is None:
            return None
        return self.force(frame, th)

    def env_at(self, frame: Frame, at: ast.AST) -> dict:
        """The bindings before the statement that holds `at`."""
        self.ensure(frame)
        row = getattr(at, "lineno", END)
        i = bisect.bisect_right(frame.rows, row) - 1
        return frame.snapshots[frame.rows[i]] if i >= 0 else {}
