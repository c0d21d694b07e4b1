"""A small, honest symbolic evaluator over libcst (DESIGN.md "PromptLayout").

It turns an expression into a `Value` (values.py): literals, f-strings, `+`, `str.format`, `%`,
`join`, `textwrap.dedent`, names bound in the same function or module (a straight-line reading of
the function body, branches merged), names imported from other modules of the tree, files read
with a static path, config values with static keys, and return values of functions and methods of
the analysed tree, with the call's arguments bound to the parameters. What it cannot resolve is a
dynamic segment of kind `unknown`, never a guess.
"""
from __future__ import annotations

import bisect
import json
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import libcst as cst

from ..model import Kind, Position, Precision, Segment, Span, Volatility
from . import classify
from .project import Module, Project
from .literals import decode, literal_segment, slice_segment
from .values import (Alt, ClassRef, Config, Func, Mapping, Obj, PathV, Seq, Spread, Text, Value,
                     dynamic, most_volatile, vol_rank)

MAX_DEPTH = 7
EVAL_BUDGET = 60_000  # expression evaluations per prompt: a bound on the work, not a tuning knob
MAX_BOUND_CALLS = 4  # a function evaluated with this many argument sets is then read unbound
_FORMAT_FIELD = re.compile(r"\{\{|\}\}|\{([^{}!:]*)(![rsa])?(?::([^{}]*))?\}")


@dataclass
class _Thunk:
    """A lazily evaluated binding: `kind` is expr | aug | append | extend | insert | iter | alt |
    param | value."""

    kind: str
    node: Any = None
    env: dict | None = None
    prev: "_Thunk | None" = None
    options: list = field(default_factory=list)
    repeated: bool = False
    name: str = ""
    value: Any = None
    loop: Any = None
    _cache: Any = None


@dataclass
class Frame:
    """Where an expression is evaluated: a module, an optional function (with its class) and the
    values bound to its parameters by the caller."""

    module: Module
    func: cst.FunctionDef | None = None
    cls: cst.ClassDef | None = None
    bindings: dict[str, Value] = field(default_factory=dict)
    self_value: Value | None = None
    depth: int = 0
    module_level: bool = False
    _snapshots: list | None = None
    _rows: list | None = None
    returns: list = field(default_factory=list)
    _param_names: set | None = None


class Evaluator:
    """Evaluates libcst expressions to Values; one per run, sharing the Project's module cache."""

    def __init__(self, project: Project, template_hook=None, config_hook=None):
        self.project = project
        self.template_hook = template_hook
        self.config_hook = config_hook
        self._module_frames: dict[Path, Frame] = {}
        self._return_cache: dict[tuple, Value] = {}
        self._active: set = set()
        self._bound_calls: dict[int, int] = {}
        self.budget = EVAL_BUDGET

    def reset_budget(self) -> None:
        """Start the work budget of one prompt (the evaluations it may cost)."""
        self.budget = EVAL_BUDGET
        self._bound_calls.clear()

    # ------------------------------------------------------------------ frames
    def module_frame(self, module: Module) -> Frame:
        frame = self._module_frames.get(module.path)
        if frame is None:
            frame = Frame(module=module, module_level=True)
            self._module_frames[module.path] = frame
        return frame

    def function_frame(self, module: Module, func: cst.FunctionDef, cls: cst.ClassDef | None = None,
                       bindings: dict | None = None, self_value: Value | None = None, depth: int = 0) -> Frame:
        return Frame(module=module, func=func, cls=cls, bindings=bindings or {}, self_value=self_value,
                     depth=depth)

    def _ensure(self, frame: Frame) -> None:
        if frame._snapshots is not None:
            return
        frame._snapshots, frame._rows = {}, []
        body = frame.module.tree.body if frame.func is None else frame.func.body.body
        env: dict[str, _Thunk] = {}
        if frame.func is not None:
            frame._param_names = set()
            params = frame.func.params
            for p in [*params.posonly_params, *params.params, *params.kwonly_params]:
                frame._param_names.add(p.name.value)
                env[p.name.value] = _Thunk("param", node=p, name=p.name.value)
            for p in (params.star_arg, params.star_kwarg):
                if isinstance(p, cst.Param):
                    frame._param_names.add(p.name.value)
                    env[p.name.value] = _Thunk("param", node=p, name=p.name.value)
        self._interp(frame, body, env, False)
        frame._snapshots[10 ** 9] = dict(env)
        frame._rows = sorted(frame._snapshots)

    def _snap(self, frame: Frame, node: cst.CSTNode, env: dict) -> None:
        """Record the bindings before the statement at `node`'s row (a later pass over a loop
        body replaces the first: it also sees what the previous iteration appended)."""
        frame._snapshots[frame.module.span(node).start.row] = dict(env)

    def _interp(self, frame: Frame, stmts, env: dict, loop: bool) -> None:
        for stmt in stmts:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self._snap(frame, stmt, env)
                    self._small(frame, small, env, loop)
            elif isinstance(stmt, cst.If):
                self._snap(frame, stmt, env)
                self._branches(frame, [stmt.body.body, self._else(stmt.orelse)], env, loop)
            elif isinstance(stmt, (cst.For, cst.While)):
                self._snap(frame, stmt, env)
                targets = _target_names(stmt.target) if isinstance(stmt, cst.For) else []
                outer = loop if isinstance(loop, tuple) else None
                ctx = (stmt.iter, dict(env), outer) if isinstance(stmt, cst.For) else outer
                passes = 1 if frame.__dict__.get("_replay") else 2  # loops inside a replay run once
                for _pass in range(passes):  # the second pass sees what the first appended (the back edge)
                    outer_replay = frame.__dict__.get("_replay", False)
                    frame.__dict__["_replay"] = _pass == 1 or outer_replay
                    inner = dict(env)
                    for name in targets:
                        inner[name] = _Thunk("iter", node=stmt.iter, env=dict(env), name=name)
                    self._interp(frame, stmt.body.body, inner, ctx or True)
                    for name, th in inner.items():
                        if env.get(name) is not th and name not in targets:
                            env[name] = th
                    frame.__dict__["_replay"] = outer_replay
                if stmt.orelse is not None:
                    self._interp(frame, stmt.orelse.body.body, env, loop)
            elif isinstance(stmt, cst.With):
                self._snap(frame, stmt, env)
                for item in stmt.items:
                    if item.asname is not None and isinstance(item.asname.name, cst.Name):
                        env[item.asname.name.value] = _Thunk("expr", node=item.item, env=dict(env))
                self._interp(frame, stmt.body.body, env, loop)
            elif isinstance(stmt, (cst.Try, getattr(cst, "TryStar", cst.Try))):
                self._snap(frame, stmt, env)
                self._interp(frame, stmt.body.body, env, loop)
                # handlers run only on failure: their bindings are alternatives of the try body's
                for handler in stmt.handlers:
                    probe = dict(env)
                    self._interp(frame, handler.body.body, probe, loop)
                if stmt.orelse is not None:
                    self._interp(frame, stmt.orelse.body.body, env, loop)
                if stmt.finalbody is not None:
                    self._interp(frame, stmt.finalbody.body.body, env, loop)
            elif isinstance(stmt, cst.FunctionDef):
                self._snap(frame, stmt, env)
                env[stmt.name.value] = _Thunk("value", value=Func(frame.module, stmt, None))
            elif isinstance(stmt, cst.ClassDef):
                self._snap(frame, stmt, env)
                env[stmt.name.value] = _Thunk("value", value=ClassRef(frame.module, stmt))
            elif isinstance(stmt, cst.Match if hasattr(cst, "Match") else ()):
                self._snap(frame, stmt, env)
                self._branches(frame, [c.body.body for c in stmt.cases], env, loop)

    @staticmethod
    def _else(orelse):
        if orelse is None:
            return []
        if isinstance(orelse, cst.If):
            return [orelse]
        return orelse.body.body

    def _branches(self, frame, bodies, env, loop):
        envs = []
        for body in bodies:
            e = dict(env)
            self._interp(frame, body, e, loop)
            envs.append(e)
        names = set().union(*envs) if envs else set()
        for name in names:
            ths = [e.get(name) for e in envs]
            distinct = []
            for th in ths:
                if th is not None and all(th is not d for d in distinct):
                    distinct.append(th)
            if len(distinct) == 1 and all(t is distinct[0] for t in ths if t is not None) and None not in ths:
                env[name] = distinct[0]
            elif distinct:
                before = env.get(name)
                opts = list(distinct)
                if before is not None and any(t is None or t is before for t in ths) and all(o is not before for o in opts):
                    opts.append(before)
                env[name] = _Thunk("alt", options=opts)

    def _small(self, frame: Frame, small, env: dict, loop: bool) -> None:
        if isinstance(small, cst.Assign):
            for target in small.targets:
                t = target.target
                if isinstance(t, cst.Name):
                    env[t.value] = _Thunk("expr", node=small.value, env=dict(env))
                elif isinstance(t, (cst.Tuple, cst.List)):
                    vals = small.value.elements if isinstance(small.value, (cst.Tuple, cst.List)) else None
                    for i, el in enumerate(t.elements):
                        if isinstance(el.value, cst.Name):
                            if vals is not None and i < len(vals) and not isinstance(vals[i], cst.StarredElement):
                                env[el.value.value] = _Thunk("expr", node=vals[i].value, env=dict(env))
                            else:
                                env[el.value.value] = _Thunk("unpack", node=small.value, env=dict(env),
                                                             name=el.value.value, value=i)
        elif isinstance(small, cst.AnnAssign) and small.value is not None and isinstance(small.target, cst.Name):
            env[small.target.value] = _Thunk("expr", node=small.value, env=dict(env))
        elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
            name = small.target.value
            env[name] = _Thunk("aug", node=small.value, env=dict(env), prev=env.get(name), repeated=bool(loop),
                               name=type(small.operator).__name__)
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            call = small.value
            f = call.func
            if (isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name)
                    and f.attr.value in ("append", "extend", "insert") and f.value.value in env):
                name = f.value.value
                env[name] = _Thunk(f.attr.value, node=call, env=dict(env), prev=env.get(name), repeated=bool(loop),
                                   loop=loop if isinstance(loop, tuple) else None)
        elif isinstance(small, cst.Return) and small.value is not None and not frame.__dict__.get("_replay"):
            frame.returns.append(_Thunk("expr", node=small.value, env=dict(env)))

    # ------------------------------------------------------------------ names
    def lookup(self, frame: Frame, name: str, at: cst.CSTNode) -> Value | None:
        """The value of `name` as seen at node `at` in `frame`, or None when unbound there."""
        self._ensure(frame)
        row = frame.module.span(at).start.row
        i = bisect.bisect_right(frame._rows, row) - 1
        env = frame._snapshots[frame._rows[i]] if i >= 0 else {}
        th = env.get(name)
        if th is None:
            return None
        return self.force(frame, th)

    def force(self, frame: Frame, th: _Thunk) -> Value:
        if th._cache is not None:
            return th._cache
        th._cache = dynamic(None, th.name or "?", evidence="recursive definition")  # recursion guard
        th._cache = self._force(frame, th)
        return th._cache

    def _force(self, frame: Frame, th: _Thunk) -> Value:
        m = frame.module
        if th.kind == "value":
            return th.value
        if th.kind == "param":
            return self._param(frame, th)
        if th.kind == "expr":
            return self.eval(th.node, frame, th.env)
        if th.kind == "unpack":
            src = self.eval(th.node, frame, th.env)
            picked = _element(src, th.value)
            if picked is not None:
                return picked
            return dynamic(m.span(th.node), th.name, evidence=f"unpacked from `{m.code(th.node)}`")
        if th.kind == "alt":
            return Alt([self.force(frame, o) for o in th.options])
        if th.kind == "iter":
            return self._item_of(self.eval(th.node, frame, th.env), th.node, frame, th.name)
        prev = self.force(frame, th.prev) if th.prev is not None else None
        if th.kind == "aug":
            add = self.eval(th.node, frame, th.env)
            if th.name != "AddAssign":
                return dynamic(m.span(th.node), m.code(th.node))
            if isinstance(prev, Seq) or isinstance(add, Seq):
                items = (prev.items if isinstance(prev, Seq) else []) + (add.items if isinstance(add, Seq) else [Spread(add)])
                return Seq(items, getattr(prev, "span", None), repeated=th.repeated or getattr(prev, "repeated", False))
            segs = self.text_of(prev, frame) if prev is not None else []
            return Text(segs + self.text_of(add, frame))
        if th.kind in ("append", "extend", "insert") and isinstance(prev, Alt) and all(isinstance(o, Seq) for o in prev.options):
            # a list built differently in branches, then grown: grow every variant
            return Alt([self._grow(th, o, frame) for o in prev.options], prev.span)
        if th.kind in ("append", "extend", "insert"):
            return self._grow(th, prev, frame)
        return dynamic(m.span(th.node), m.code(th.node) if th.node is not None else "?")

    def _grow(self, th: _Thunk, prev, frame: Frame) -> Value:
        """The list `prev` after `.append` / `.extend` / `.insert` of `th.node`."""
        m = frame.module
        if th.node is not None:
            args = th.node.args
            base = prev.items if isinstance(prev, Seq) else ([] if prev is None else [Spread(prev)])
            if th.kind == "append" and args:
                item = self.eval(args[0].value, frame, th.env)
                items = base + [item]
            elif th.kind == "extend" and args:
                ext = self.eval(args[0].value, frame, th.env)
                items = base + (ext.items if isinstance(ext, Seq) and not ext.repeated else [Spread(ext, m.span(args[0].value), m.code(args[0].value))])
            elif th.kind == "insert" and len(args) == 2:
                item = self.eval(args[1].value, frame, th.env)
                idx = args[0].value
                items = [item] + base if isinstance(idx, cst.Integer) and idx.value == "0" else base + [item]
            else:
                items = base
            unordered = getattr(prev, "unordered", None) or self._loop_order(th, frame)
            repeated = th.repeated or getattr(prev, "repeated", False)
            if isinstance(prev, Seq):
                head = prev.head if prev.repeated else len(prev.items)
            else:
                head = 0
            return Seq(items, getattr(prev, "span", None), repeated=repeated, unordered=unordered,
                       head=head if repeated else 0)

    def _loop_order(self, th: _Thunk, frame: Frame) -> Segment | None:
        """The unordered-iteration segment of the loop an append runs in, if its source is unordered."""
        ctx = th.loop
        while ctx is not None:  # the innermost loop first, then the loops around it
            node, env, outer = ctx
            value = self.eval(node, frame, env)
            if isinstance(value, Seq) and value.unordered is not None:
                return value.unordered
            segs = self.text_of(value, frame)
            src = next((s for s in segs if s.kind is Kind.UNORDERED_ITERATION), None)
            if src is not None:
                return self._unordered_at(src, node, frame)
            ctx = outer
        return None

    def _param(self, frame: Frame, th: _Thunk) -> Value:
        name = th.name
        if name in frame.bindings:
            bound = frame.bindings[name]
            if isinstance(bound, _Thunk):  # an argument, evaluated in the caller's frame on first use
                return self.force(bound.value, bound)
            return bound
        if name == "self" and frame.cls is not None:
            return frame.self_value or Obj(f"self:{frame.cls.name.value}", node=frame.cls)
        m = frame.module
        param: cst.Param = th.node
        ann = param.annotation.annotation if param.annotation is not None else None
        if ann is not None and not _is_builtin_annotation(ann):
            cls = self._class_for_annotation(frame, ann)
            if cls is not None:
                return Obj(f"instance:{cls.node.name.value}", node=cls.node, args=[ClassRef(cls.module, cls.node)])
        found = classify.classify_name(name)
        span = m.span(param)
        if found:
            kind, vol, prec, why = found
            return dynamic(span, name, kind, vol, why, precision=prec, name_only=True)
        if name.lower() in classify.HISTORY_NAMES:
            return dynamic(span, name, Kind.HISTORY, Volatility.UNKNOWN, f"the parameter `{name}`")
        return dynamic(span, name, Kind.UNKNOWN, Volatility.UNKNOWN, f"the parameter `{name}`")

    def _class_for_annotation(self, frame: Frame, ann) -> ClassRef | None:
        if isinstance(ann, (cst.Name, cst.Attribute)):
            v = self.eval(ann, frame)
            if isinstance(v, ClassRef):
                return v
        if isinstance(ann, cst.SimpleString):
            name = ann.evaluated_value if isinstance(ann.evaluated_value, str) else None
            if name and name in frame.module.classes:
                return ClassRef(frame.module, frame.module.classes[name])
        return None

    def resolve_global(self, module: Module, name: str, at_depth: int = 0) -> Value | None:
        """A module-level name: a def, a class, an assignment or an import of the tree."""
        if name in module.functions:
            return Func(module, module.functions[name])
        if name in module.classes:
            return ClassRef(module, module.classes[name])
        if name in module.assigns:
            return self._per_process(self._module_value(self.module_frame(module), name))
        if name in module.imports:
            return self.resolve_dotted(module.imports[name], at_depth)
        return None

    def _module_value(self, frame: Frame, name: str) -> Value | None:
        self._ensure(frame)
        th = frame._snapshots[10 ** 9].get(name)
        return self.force(frame, th) if th is not None else None

    @staticmethod
    def _per_process(value: Value | None) -> Value | None:
        """Values computed at import are fixed per process: now() at module level is per-process."""
        if isinstance(value, Alt):
            return Alt([Evaluator._per_process(o) for o in value.options], value.span)
        if isinstance(value, Text):
            segs = [replace(s, volatility=Volatility.PER_PROCESS)
                    if s.kind in (Kind.TIMESTAMP, Kind.UNIQUE_ID) and s.volatility is Volatility.PER_REQUEST
                    and not s.name_only else s for s in value.segs]
            return Text(segs)
        return value

    def by_name(self, name: str, near: Path, depth: int = 0) -> Value | None:
        """The prompt text an attribute of an object we cannot resolve stands for, found by its
        name: the class attributes and module constants of that name in the analysed tree that
        are strings (one of them, when several: an Alt). None when there are none."""
        key = ("by_name", name, near.parent)
        if key in self._return_cache:
            return self._return_cache[key]
        self._return_cache[key] = None
        values = []
        for module, cls, node in self.project.definitions(name, near):
            if isinstance(node, cst.Name) and node.value in ("None", "True", "False"):
                continue
            frame = Frame(module=module, cls=cls, module_level=True, depth=depth + 1)
            value = self.eval(node, frame, {})
            if isinstance(value, Text) and any(s.is_static and s.text.strip() for s in value.segs):
                values.append(value)
        result = None if not values else (values[0] if len(values) == 1 else Alt(values))
        self._return_cache[key] = result
        return result

    def resolve_dotted(self, dotted: str, depth: int = 0) -> Value | None:
        if depth > MAX_DEPTH:
            return None
        found = self.project.resolve_symbol(dotted)
        if found is None:
            return None
        module, name = found
        if "." in name:
            head, _, rest = name.partition(".")
            base = self.resolve_global(module, head, depth + 1)
            for attr in rest.split("."):
                base = self._attr_of(base, attr, None, self.module_frame(module)) if base is not None else None
            return base
        return self.resolve_global(module, name, depth + 1)

    # ------------------------------------------------------------------ eval
    def eval(self, node: cst.BaseExpression, frame: Frame, env: dict | None = None) -> Value:
        """The Value of `node` in `frame` (env: bindings visible at that point, else looked up by row)."""
        self.budget -= 1
        if self.budget < 0:  # one prompt may not cost more than a bounded amount of work
            m = frame.module
            return dynamic(m.span(node), m.code(node), evidence="too complex to analyse within the budget")
        try:
            return self._eval(node, frame, env)
        except RecursionError:  # pragma: no cover - pathological nesting
            m = frame.module
            return dynamic(m.span(node), m.code(node), evidence="too deeply nested to analyse")

    def _name(self, name: str, node, frame: Frame, env: dict | None) -> Value | None:
        if env is not None and name in env:
            return self.force(frame, env[name])
        if env is None and not frame.module_level:
            v = self.lookup(frame, name, node)
            if v is not None:
                return v
        elif env is None and frame.module_level:
            v = self.lookup(frame, name, node)
            if v is not None:
                return self._per_process(v)
        return self.resolve_global(frame.module, name, frame.depth)

    def _eval(self, node, frame: Frame, env: dict | None) -> Value:
        m = frame.module
        span = m.span(node)
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)) and not _has_fstring(node):
            val = node.evaluated_value
            if isinstance(val, bytes):
                val = val.decode("utf-8", "replace")
            if isinstance(node, cst.SimpleString):
                body = _string_body_span(node, span)
                return Text([literal_segment(val or "", node.raw_value, "r" in node.prefix.lower(), body)])
            return Text(self.text_of(self.eval(node.left, frame, env), frame)
                        + self.text_of(self.eval(node.right, frame, env), frame))
        if isinstance(node, cst.ConcatenatedString):
            return Text(self.text_of(self.eval(node.left, frame, env), frame)
                        + self.text_of(self.eval(node.right, frame, env), frame))
        if isinstance(node, cst.FormattedString):
            return self._fstring(node, frame, env)
        if isinstance(node, (cst.Integer, cst.Float)):
            return Text([Segment(text=node.value, span=span)])
        if isinstance(node, cst.Name):
            if node.value in ("True", "False", "None"):
                return Text([Segment(text=node.value, span=span)])
            v = self._name(node.value, node, frame, env)
            if v is not None:
                if (isinstance(v, Text) and len(v.segs) == 1 and not v.segs[0].is_static and v.segs[0].span is not None
                        and v.segs[0].evidence.startswith(("the parameter", "the name")) and v.segs[0].span.row < span.row
                        and v.segs[0].origin is None):
                    # an unbound parameter: it enters the prompt here; the parameter is where it comes from
                    return Text([replace(v.segs[0], span=span, origin=v.segs[0].span)])
                return v
            if node.value == "__file__":
                return PathV(m.path)
            if node.value in m.imports:
                return Obj(m.imports[node.value], span=span, node=node)
            found = classify.classify_name(node.value)
            if found:
                kind, vol, prec, why = found
                return dynamic(span, node.value, kind, vol, why, precision=prec, name_only=True)
            return dynamic(span, node.value, evidence=f"`{node.value}` is not resolved")
        if isinstance(node, cst.Attribute):
            qual = m.qualified_name(node)
            base = self.eval(node.value, frame, env)
            v = self._attr_of(base, node.attr.value, node, frame)
            if v is not None:
                return v
            if qual in ("sys.platform", "os.name", "os.sep", "os.linesep"):
                return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE, "host description")
            if classify.PROMPT_ATTR.search(node.attr.value) and _unresolved(base):
                found = self.by_name(node.attr.value, frame.module.path, frame.depth)
                if found is not None:
                    return found
            return self._derived(base, node, frame, m.code(node), attr=node.attr.value)
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            items: list[Value] = []
            for el in node.elements:
                if isinstance(el, cst.StarredElement):
                    inner = self.eval(el.value, frame, env)
                    if isinstance(inner, Seq) and not inner.repeated:
                        items.extend(inner.items)
                    else:
                        items.append(Spread(inner, m.span(el), m.code(el.value)))
                else:
                    items.append(self.eval(el.value, frame, env))
            if isinstance(node, cst.Set):
                return dynamic(span, m.code(node), Kind.UNORDERED_ITERATION, Volatility.PER_PROCESS,
                               "a set display: iteration order depends on the hash seed")
            return Seq(items, span, is_tuple=isinstance(node, cst.Tuple), node=node)
        if isinstance(node, cst.Dict):
            items_d: dict[str, Value] = {}
            spans: dict[str, Span] = {}
            merged = False
            for el in node.elements:
                if isinstance(el, cst.DictElement):
                    key = el.key
                    if isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str):
                        items_d[key.evaluated_value] = self.eval(el.value, frame, env)
                        spans[key.evaluated_value] = m.span(key)
                else:  # **other
                    other = self.eval(el.value, frame, env)
                    if isinstance(other, Mapping):
                        items_d.update(other.items)
                        spans.update(other.key_spans)
                    else:
                        merged = True  # keys of data we cannot see: the order is not the code's
            return Mapping(items_d, spans, span, None if merged else node)
        if isinstance(node, cst.BinaryOperation):
            return self._binop(node, frame, env)
        if isinstance(node, cst.Call):
            return self._call(node, frame, env)
        if isinstance(node, cst.Subscript):
            return self._subscript(node, frame, env)
        if isinstance(node, cst.IfExp):
            a, b = self.eval(node.body, frame, env), self.eval(node.orelse, frame, env)
            return Alt([a, b], span)
        if isinstance(node, cst.BooleanOperation):
            left, right = self.eval(node.left, frame, env), self.eval(node.right, frame, env)
            if isinstance(node.operator, cst.Or):
                lt = self.text_of(left, frame)
                if lt and all(s.is_static for s in lt):
                    return left
                if (lt and all(s.volatility is Volatility.STABLE for s in lt)):
                    return left
                return Alt([left, right], span)
            return right
        if isinstance(node, (cst.GeneratorExp, cst.ListComp, cst.SetComp)):
            return self._comprehension(node, frame, env)
        if isinstance(node, cst.Await):
            return self.eval(node.expression, frame, env)
        if isinstance(node, cst.NamedExpr):
            return self.eval(node.value, frame, env)
        if isinstance(node, cst.Lambda):
            return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE, "a function")
        return dynamic(span, m.code(node), evidence="expression not analysed")

    # ------------------------------------------------------------------ helpers
    def _derived(self, base: Value, node, frame: Frame, expr: str, attr: str | None = None) -> Value:
        """A value computed from `base` that we cannot compute: it changes as often as `base`."""
        m = frame.module
        span = m.span(node)
        segs = self.text_of(base, frame) if isinstance(base, (Text, Alt)) else []
        src = most_volatile(segs)
        if attr is not None and isinstance(base, Obj) and base.qualname.startswith(("self:", "instance:")):
            found = classify.classify_name(attr)
            if found:
                kind, vol, prec, why = found
                return dynamic(span, expr, kind, vol, why, precision=prec, name_only=True)
            return dynamic(span, expr, Kind.UNKNOWN, Volatility.UNKNOWN, f"attribute `{expr}`")
        if src is None:
            if segs and all(s.is_static for s in segs):
                return dynamic(span, expr, Kind.UNKNOWN, Volatility.STABLE, "computed from constants")
            if attr is not None:
                found = classify.classify_name(attr)
                if found:
                    kind, vol, prec, why = found
                    return dynamic(span, expr, kind, vol, why, precision=prec, name_only=True)
                if attr.lower() in classify.HISTORY_NAMES:
                    return dynamic(span, expr, Kind.HISTORY, Volatility.UNKNOWN, f"`{expr}`")
            return dynamic(span, expr, evidence=f"`{expr}` is not resolved")
        if src.kind is Kind.TIMESTAMP and attr is not None:
            if attr in classify.TIMESTAMP_ZONE:
                return dynamic(span, expr, Kind.UNKNOWN, Volatility.STABLE, "a time zone, not a time")
            if attr in classify.TIMESTAMP_ATTRS:
                prec = classify.TIMESTAMP_ATTRS[attr]
                return Text([replace(src, span=span, expr=expr, precision=prec, origin=src.origin or src.span)])
        if src.kind is Kind.HISTORY:
            # an element of the conversation: the newest message changes every request
            return dynamic(span, expr, Kind.USER_INPUT, Volatility.PER_REQUEST,
                           f"taken from the conversation `{src.expr}`", origin=src.span)
        if src.kind in (Kind.TIMESTAMP, Kind.UNIQUE_ID, Kind.USER_INPUT):
            kind = src.kind if src.kind is not Kind.USER_INPUT else Kind.USER_INPUT
            return Text([replace(src, span=span, expr=expr, origin=src.origin or src.span)])
        return dynamic(span, expr, src.kind if src.kind is Kind.CONDITIONAL else Kind.UNKNOWN, src.volatility,
                       src.evidence or f"derived from `{src.expr}`", origin=src.origin or src.span,
                       name_only=src.name_only)

    def _item_of(self, iterable: Value, node, frame: Frame, name: str) -> Value:
        m = frame.module
        span = m.span(node)
        if isinstance(iterable, Seq) and iterable.unordered is not None and iterable.items:
            vals = [i for i in iterable.items if not isinstance(i, Spread)]
            if vals:  # the elements are known, only their order is not
                return vals[0] if len(vals) == 1 else Alt(vals, span)
        if isinstance(iterable, Seq) and iterable.items and not iterable.repeated:
            vals = [i for i in iterable.items if not isinstance(i, Spread)]
            if vals and len(vals) == len(iterable.items):
                return Alt(vals, span)
        segs = self.text_of(iterable, frame) if isinstance(iterable, (Text, Alt)) else []
        src = most_volatile(segs)
        if src is not None and src.kind is Kind.UNORDERED_ITERATION:
            return Text([self._unordered_at(src, node, frame)])
        if src is not None and src.kind is Kind.HISTORY:
            return dynamic(span, name, Kind.UNKNOWN, Volatility.UNKNOWN, f"a message of `{src.expr}`")
        if src is not None and src.volatility is not Volatility.STABLE:
            return Text([replace(src, span=span, expr=name, origin=src.origin or src.span,
                                 kind=src.kind if src.kind in (Kind.USER_INPUT, Kind.TIMESTAMP, Kind.UNIQUE_ID) else Kind.UNKNOWN)])
        if isinstance(iterable, Mapping):
            return dynamic(span, name, Kind.UNKNOWN, Volatility.STABLE, "a key of a dict display")
        if segs and all(s.is_static or s.volatility is Volatility.STABLE for s in segs) or \
                (isinstance(iterable, Seq) and iterable.ordered):
            return dynamic(span, name, Kind.UNKNOWN, Volatility.STABLE, f"an element of `{m.code(node)}`")
        return dynamic(span, name, evidence=f"an element of `{m.code(node)}`")

    def _unordered_at(self, src: Segment, iter_node, frame: Frame) -> Segment:
        """The segment for iterating an unordered source at `iter_node`, with the safe fix that
        wraps the iterable in `sorted(...)` (PRM202)."""
        from . import fixes
        m = frame.module
        span = m.span(iter_node)
        origin = src.origin or src.span
        return replace(src, span=span, expr=m.code(iter_node), origin=None if origin == span else origin,
                       fix=fixes.wrap_sorted_fix(m, iter_node))

    def _comprehension(self, node, frame: Frame, env: dict | None) -> Value:
        m = frame.module
        span = m.span(node)
        if isinstance(node, cst.SetComp):
            return dynamic(span, m.code(node), Kind.UNORDERED_ITERATION, Volatility.PER_PROCESS,
                           "a set comprehension: iteration order depends on the hash seed")
        inner_env = dict(env) if env is not None else None
        comp = node.for_in
        order_src = order_node = None
        while comp is not None:
            it = self.eval(comp.iter, frame, inner_env)
            segs = self.text_of(it, frame) if isinstance(it, (Text, Alt)) else []
            src = most_volatile(segs)
            if src is not None and src.kind is Kind.UNORDERED_ITERATION and order_src is None:
                order_src, order_node = src, comp.iter
            item = self._item_of(it, comp.iter, frame, m.code(comp.target))
            if inner_env is None:
                self._ensure(frame)
                row = m.span(node).start.row
                i = bisect.bisect_right(frame._rows, row) - 1
                inner_env = dict(frame._snapshots[frame._rows[i]]) if i >= 0 else {}
            for tname in _target_names(comp.target):
                inner_env[tname] = _Thunk("value", value=item)
            comp = comp.inner_for_in
        elt = self.eval(node.elt, frame, inner_env)
        if order_src is not None:
            return Text([self._unordered_at(order_src, order_node, frame)])
        return Seq([elt], span, repeated=True, node=node)

    def _fstring(self, node: cst.FormattedString, frame: Frame, env: dict | None) -> Text:
        m = frame.module
        segs: list[Segment] = []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                raw = part.value.replace("{{", "{").replace("}}", "}") if "{{" in part.value or "}}" in part.value else part.value
                is_raw = "r" in node.start.lower()
                try:
                    text, _ = decode(raw, is_raw)
                except (ValueError, KeyError, IndexError):
                    text = raw
                segs.append(literal_segment(text, raw, is_raw, m.span(part)))
            else:
                val = self.eval(part.expression, frame, env)
                inner = self.text_of(val, frame)
                where = m.span(part)
                spec = None
                if part.format_spec:
                    spec = "".join(p.value for p in part.format_spec if isinstance(p, cst.FormattedStringText))
                entered = _reenter(inner, where, m.code(part.expression), spec)
                if any(_movable(seg) for seg in entered):
                    from . import fixes
                    fix = fixes.move_to_end_fix(m, part)
                    entered = [replace(seg, fix=fix) if _movable(seg) else seg for seg in entered]
                segs.extend(entered)
        return Text(segs)

    def _binop(self, node: cst.BinaryOperation, frame: Frame, env) -> Value:
        m = frame.module
        left = self.eval(node.left, frame, env)
        right = self.eval(node.right, frame, env)
        if isinstance(node.operator, cst.Add):
            if isinstance(left, Seq) or isinstance(right, Seq):
                items = (left.items if isinstance(left, Seq) else [Spread(left, m.span(node.left), m.code(node.left))])
                items = items + (right.items if isinstance(right, Seq) else [Spread(right, m.span(node.right), m.code(node.right))])
                return Seq(items, m.span(node), repeated=getattr(left, "repeated", False) or getattr(right, "repeated", False))
            return Text(self.text_of(left, frame) + self.text_of(right, frame))
        if isinstance(node.operator, cst.Modulo) and isinstance(left, Text):
            args = right.items if isinstance(right, Seq) else [right]
            return self._percent(left, args, right if isinstance(right, Mapping) else None, node, frame)
        if isinstance(node.operator, cst.Divide) and isinstance(left, PathV):
            name = _const_str(right, self, frame)
            if left.path is not None and name is not None:
                return PathV(left.path / name)
            return PathV(None)
        if isinstance(node.operator, (cst.BitOr, cst.BitAnd, cst.Subtract, cst.BitXor)):
            for side in (left, right):
                if isinstance(side, Text) and any(s.kind is Kind.UNORDERED_ITERATION for s in side.segs):
                    return dynamic(m.span(node), m.code(node), Kind.UNORDERED_ITERATION, Volatility.PER_PROCESS,
                                   "a set operation: iteration order depends on the hash seed")
        if isinstance(node.operator, cst.BitOr):
            return Obj("chain", args=[left, right], span=m.span(node), node=node)
        return self._derived(left if isinstance(left, (Text, Alt)) else right, node, frame, m.code(node))

    def _percent(self, tmpl: Text, args: list, mapping, node, frame) -> Text:
        out: list[Segment] = []
        ai = 0
        m = frame.module
        for seg in tmpl.segs:
            if not seg.is_static:
                out.append(seg)
                continue
            pos = 0
            for mt in re.finditer(r"%(\(\w+\))?[-#0 +]*\d*(?:\.\d+)?[sdrfix%]", seg.text):
                out.append(slice_segment(seg, pos, mt.start()))
                pos = mt.end()
                if mt.group(0) == "%%":
                    out.append(replace(seg, text="%"))
                    continue
                if mt.group(1) and mapping is not None:
                    val = mapping.items.get(mt.group(1)[1:-1])
                elif ai < len(args):
                    val = args[ai]
                    ai += 1
                else:
                    val = None
                inner = self.text_of(val, frame) if val is not None else [Segment(kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN, span=m.span(node), expr=m.code(node))]
                out.extend(_reenter(inner, m.span(node), _short(inner), None))
            out.append(slice_segment(seg, pos))
        return Text([s for s in out if not (s.is_static and not s.text)])

    def format_text(self, tmpl: Text, args: list[Value], kwargs: dict[str, Value], frame: Frame,
                    call_span: Span | None, keep_unbound: bool = False) -> Text:
        """`tmpl.format(*args, **kwargs)`: each `{field}` of the static text becomes the bound
        value's segments, reported at the placeholder (origin: the bound value's span). Unbound
        fields stay template variables when `keep_unbound`, else unknown."""
        out: list[Segment] = []
        auto = 0
        for seg in tmpl.segs:
            if not seg.is_static:
                out.append(seg)
                continue
            pos = 0
            text = seg.text
            for mt in _FORMAT_FIELD.finditer(text):
                if mt.group(0) in ("{{", "}}"):
                    out.append(slice_segment(seg, pos, mt.start() + 1))
                    pos = mt.end()
                    continue
                out.append(slice_segment(seg, pos, mt.start()))
                pos = mt.end()
                field_name = mt.group(1).strip()
                head = re.split(r"[.\[]", field_name, 1)[0]
                where = _sub_span(seg, mt.start(), mt.end())
                if head == "" or head.isdigit():
                    idx = auto if head == "" else int(head)
                    auto += head == ""
                    val = args[idx] if idx < len(args) else None
                else:
                    val = kwargs.get(head)
                if val is None:
                    found = classify.classify_name(head.rsplit(".", 1)[-1]) if head else None
                    if found:
                        kind, vol, prec, why = found
                        out.append(Segment(span=where, kind=kind, volatility=vol, precision=prec, expr=mt.group(0),
                                           evidence=why, name_only=True))
                    else:
                        out.append(Segment(span=where, kind=Kind.TEMPLATE_VARIABLE if keep_unbound else Kind.UNKNOWN,
                                           volatility=Volatility.UNKNOWN, expr=mt.group(0),
                                           evidence=f"template variable `{head}`"))
                    continue
                inner = self.text_of(val, frame)
                out.extend(_reenter(inner, where, mt.group(0), mt.group(3)))
            out.append(slice_segment(seg, pos))
        return Text([s for s in out if not (s.is_static and not s.text)])

    def text_of(self, value: Value | None, frame: Frame) -> list[Segment]:
        """The segments of a value used as text (str(value))."""
        if value is None:
            return []
        if isinstance(value, Text):
            return value.segs
        if isinstance(value, Alt):
            cached = value.__dict__.get("_segs")
            if cached is None:  # variants share sub-values: compute each once
                cached = value.__dict__["_segs"] = self._alt_text(value, frame)
            return cached
        if isinstance(value, Spread):
            return self.text_of(value.value, frame)
        if isinstance(value, Seq):
            if value.unordered is not None and not value.ordered:
                return [value.unordered]
            out: list[Segment] = []
            for it in value.items:
                out.extend(self.text_of(it, frame))
            if value.ordered:
                out = [s for s in out if s.kind is not Kind.UNORDERED_ITERATION]
            keep = next((s for s in out if s.kind in (Kind.UNORDERED_ITERATION, Kind.SERIALIZED)), None)
            if keep is not None:
                return [keep]  # reported where it happens (the iteration, the dumps call)
            if value.repeated or not all(s.is_static for s in out):
                src = most_volatile(out)
                if src is None:
                    return [Segment(span=value.span, kind=Kind.UNKNOWN, volatility=Volatility.STABLE, expr="list")]
                return [replace(src, span=value.span or src.span, origin=src.origin or src.span)]
            return [Segment(text=str([s.text for s in out]), span=value.span)]
        if isinstance(value, Mapping):
            out = []
            for v in value.items.values():
                out.extend(self.text_of(v, frame))
            src = most_volatile(out)
            if src is None:
                return [Segment(span=value.span, kind=Kind.UNKNOWN, volatility=Volatility.STABLE, expr="dict")]
            return [replace(src, span=value.span or src.span)]
        if isinstance(value, PathV):
            return [Segment(text=str(value.path), span=None)] if value.path else [Segment(kind=Kind.UNKNOWN, volatility=Volatility.STABLE, expr="path")]
        if isinstance(value, Config):
            return self._config_text(value)
        if isinstance(value, Obj):
            if value.qualname.startswith("message:"):
                content = value.kwargs.get("content") or (value.args[0] if value.args else None)
                return self.text_of(content, frame)
            return [Segment(span=value.span, kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN, expr=value.qualname,
                            evidence="an object")]
        return [Segment(kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN, expr="?")]

    def _alt_text(self, value: Alt, frame: Frame) -> list[Segment]:
        """Text that is one of several variants: the shared beginning and end stay as they are,
        the part that differs becomes one conditional segment (or the variant's own volatile
        segments when a variant holds a clock reading, an id or user input)."""
        options = [self.text_of(o, frame) for o in value.options]
        if all(_same(o, options[0]) for o in options[1:]):
            return options[0]
        head, middles, tail = _align(options)
        volatile = [mid for mid in middles if most_volatile(mid) is not None
                    and most_volatile(mid).kind in (Kind.TIMESTAMP, Kind.UNIQUE_ID, Kind.USER_INPUT)]
        if volatile:
            middle = max(volatile, key=lambda o: vol_rank(most_volatile(o).volatility))
        else:
            span = value.span or next((s.span for mid in middles for s in mid if s.span is not None), None)
            present = [mid for mid in middles if mid]
            expr = next((s.expr for mid in present for s in mid if s.expr), "") or \
                " ".join(next((s.text for mid in present for s in mid if s.text), "").split())[:50]
            stable = all(s.is_static or s.volatility is Volatility.STABLE for mid in middles for s in mid)
            src = None if stable else max((most_volatile(mid) for mid in middles if most_volatile(mid) is not None),
                                          key=lambda seg: vol_rank(seg.volatility), default=None)
            if src is not None and src.kind is not Kind.UNKNOWN:
                middle = [replace(src, span=value.span or src.span, origin=src.origin or src.span)]
            else:
                middle = [Segment(span=span, kind=Kind.CONDITIONAL,
                                  volatility=Volatility.UNKNOWN if src is None else src.volatility,
                                  expr=expr, evidence="present or absent by a condition")]
        return head + middle + tail

    def _config_text(self, value: Config) -> list[Segment]:
        data = value.data
        if isinstance(data, str):
            if self.config_hook is not None:
                loc = self.config_hook(value.path, value.text, value.keys)
                if loc is not None:
                    text, pos, _ = loc
                    span = Span(_display(value.path), pos, pos)
                    return [Segment(text=text, span=span)]
            return [Segment(text=data, span=Span(_display(value.path), Position(1, 1), Position(1, 1)))]
        return [Segment(kind=Kind.UNKNOWN, volatility=Volatility.STABLE, expr="configuration data",
                        span=Span(_display(value.path), Position(1, 1), Position(1, 1)))]

    # ------------------------------------------------------------------ attributes, subscripts
    def _attr_of(self, base: Value | None, attr: str, node, frame: Frame) -> Value | None:
        if isinstance(base, PathV):
            if attr == "parent":
                return PathV(base.path.parent if base.path else None)
            if attr in ("stem", "name", "suffix"):
                return Text([Segment(text=str(getattr(base.path, attr)) if base.path else "")])
            return None
        if isinstance(base, Obj) and base.qualname.startswith(("self:", "instance:")):
            cls_node = base.node
            module = frame.module
            if base.args and isinstance(base.args[0], ClassRef):
                module = base.args[0].module
            elif base.qualname.startswith("self:"):
                module = frame.module if frame.cls is cls_node else module
            return self._member(module, cls_node, attr, base, frame.depth)
        if isinstance(base, ClassRef):
            return self._member(base.module, base.node, attr, None, frame.depth)
        if isinstance(base, Obj) and attr in base.kwargs:
            return base.kwargs[attr]
        return None

    def _member(self, module: Module, cls: cst.ClassDef, attr: str, self_value, depth: int) -> Value | None:
        """`obj.attr` for an instance of a class of the tree: a method, a property's return value,
        a class attribute, or the single `self.attr = ...` assignment in its methods."""
        for cls_module, c in self._mro(module, cls):
            for stmt in c.body.body:
                if isinstance(stmt, cst.FunctionDef) and stmt.name.value == attr:
                    is_prop = any(_decorator_name(d) in ("property", "cached_property", "functools.cached_property")
                                  for d in stmt.decorators)
                    fn = Func(cls_module, stmt, c, self_value)
                    if is_prop:
                        return self.call_function(fn, {}, {}, depth + 1, None)
                    return fn
                if isinstance(stmt, cst.SimpleStatementLine):
                    for small in stmt.body:
                        targets = []
                        if isinstance(small, cst.Assign):
                            targets = [t.target for t in small.targets]
                        elif isinstance(small, cst.AnnAssign) and small.value is not None:
                            targets = [small.target]
                        if any(isinstance(t, cst.Name) and t.value == attr for t in targets):
                            frame = Frame(module=cls_module, cls=c, module_level=True, depth=depth + 1)
                            val = self.eval(small.value, frame, {})
                            return self._field_default(val, small.value, cls_module, attr)
            assigns = self._self_assigns(c, attr)
            if _grown(c, attr):
                # a list kept on the instance and grown turn after turn: the replayed conversation
                node = assigns[0][1] if assigns else c
                return dynamic(module.span(node), f"self.{attr}", Kind.HISTORY, Volatility.UNKNOWN,
                               f"`self.{attr}` grows across turns")
            if len(assigns) > 1:
                init = [a for a in assigns if a[0].name.value == "__init__"]
                others = [a for a in assigns if a[0].name.value != "__init__"]
                assigns = init[-1:] if init and not others else []
                if not assigns:
                    return None
            if len(assigns) == 1:
                method, value_node = assigns[0]
                frame = Frame(module=cls_module, func=method, cls=c, self_value=self_value, depth=depth + 1)
                value = self.eval(value_node, frame)
                return _per_instance(value) if method.name.value in ("__init__", "__post_init__", "setup") else value
        return None

    def _field_default(self, val: Value, node, module: Module, attr: str) -> Value:
        """A dataclass / pydantic field: `Field(default_factory=...)` makes a value per instance."""
        if isinstance(val, Obj) and val.qualname.rsplit(".", 1)[-1] in ("Field", "field"):
            factory = val.kwargs.get("default_factory")
            if factory is not None:
                segs = self.text_of(factory, None) if not isinstance(factory, Func) else []
                src = most_volatile(segs)
                if src is not None and src.kind in (Kind.UNIQUE_ID, Kind.TIMESTAMP):
                    return Text([replace(src, volatility=Volatility.PER_CONVERSATION,
                                         evidence=src.evidence + " (default of each new instance)")])
            default = val.kwargs.get("default")
            if default is not None:
                return default
        return val

    def _mro(self, module: Module, cls: cst.ClassDef, seen=None):
        seen = seen or set()
        if id(cls) in seen or len(seen) > 8:
            return
        seen.add(id(cls))
        yield module, cls
        for base in cls.bases:
            frame = self.module_frame(module)
            v = self.eval(base.value, frame, {}) if isinstance(base.value, (cst.Name, cst.Attribute)) else None
            if isinstance(v, ClassRef):
                yield from self._mro(v.module, v.node, seen)

    @staticmethod
    def _self_assigns(cls: cst.ClassDef, attr: str):
        found = []
        for stmt in cls.body.body:
            if not isinstance(stmt, cst.FunctionDef):
                continue
            for node in _walk_statements(stmt.body):
                targets = []
                if isinstance(node, cst.Assign):
                    targets = [t.target for t in node.targets]
                elif isinstance(node, cst.AnnAssign) and node.value is not None:
                    targets = [node.target]
                for t in targets:
                    if (isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self"
                            and t.attr.value == attr):
                        found.append((stmt, node.value))
        return found

    def _subscript(self, node: cst.Subscript, frame: Frame, env) -> Value:
        m = frame.module
        base = self.eval(node.value, frame, env)
        key_node = node.slice[0].slice if len(node.slice) == 1 else None
        key = None
        if isinstance(key_node, cst.Index):
            kv = key_node.value
            if isinstance(kv, cst.SimpleString):
                key = kv.evaluated_value
            elif isinstance(kv, cst.Integer):
                key = int(kv.value)
            elif isinstance(kv, cst.UnaryOperation) and isinstance(kv.expression, cst.Integer):
                key = -int(kv.expression.value)
            else:
                kval = self.eval(kv, frame, env)
                if isinstance(kval, Text) and len(kval.segs) == 1 and kval.segs[0].is_static:
                    key = kval.segs[0].text
        if isinstance(base, Mapping) and isinstance(key, str) and key in base.items:
            return base.items[key]
        if isinstance(base, Config) and key is not None:
            data = base.data
            try:
                sub = data[key]
            except (KeyError, IndexError, TypeError):
                return dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.STABLE, "configuration value")
            return Config(base.path, base.text, [*base.keys, key], sub)
        if isinstance(base, Seq) and isinstance(key, int) and not base.repeated:
            try:
                return base.items[key]
            except IndexError:
                pass
        if isinstance(base, Text) and isinstance(key_node, cst.Slice) and all(s.is_static for s in base.segs):
            return dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.STABLE, "a slice of constant text")
        return self._derived(base, node, frame, m.code(node), attr=key if isinstance(key, str) else None)

    # ------------------------------------------------------------------ calls
    def _call(self, node: cst.Call, frame: Frame, env) -> Value:
        m = frame.module
        span = m.span(node)
        func = node.func
        qual = m.qualified_name(func) or ""
        args = [a for a in node.args if a.keyword is None and not a.star]
        kwargs = {a.keyword.value: a.value for a in node.args if a.keyword is not None}

        def arg(i, name=None):
            if name and name in kwargs:
                return kwargs[name]
            return args[i].value if i < len(args) else None

        if isinstance(func, cst.Attribute):
            method = func.attr.value
            # clock, ids, host
            if qual in classify.TIMESTAMP_CALLS:
                prec = classify.TIMESTAMP_CALLS[qual]
                return dynamic(span, m.code(node), Kind.TIMESTAMP, Volatility.PER_REQUEST,
                               f"call to `{m.code(func)}()`", precision=prec)
            if qual == "time.strftime" or qual == "time.strptime":
                fmt = _const_str(self.eval(args[0].value, frame, env), self, frame) if args else None
                prec = classify.strftime_precision(fmt) if fmt is not None else Precision.SUB_DAY
                if prec is None:
                    return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE, "a time-zone name, not a time")
                return dynamic(span, m.code(node), Kind.TIMESTAMP, Volatility.PER_REQUEST,
                               f"call to `{m.code(node)}`", precision=prec)
            if qual in classify.UNIQUE_ID_CALLS:
                return dynamic(span, m.code(node), Kind.UNIQUE_ID, Volatility.PER_REQUEST, f"call to `{m.code(func)}()`")
            if qual in classify.UNORDERED_CALLS:
                return self._unordered_call(node, qual, args, frame, env)
            if classify.is_stable_call(qual):
                if qual in ("os.path.join", "os.path.dirname", "os.path.abspath", "os.path.realpath"):
                    return self._os_path(qual, args, frame, env)
                return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE, "describes the host or configuration")
            if qual in ("textwrap.dedent", "inspect.cleandoc"):
                return self._dedent(self.eval(args[0].value, frame, env), frame) if args else dynamic(span, m.code(node))
            if qual in ("json.dumps", "simplejson.dumps", "orjson.dumps", "yaml.dump", "yaml.safe_dump", "json.dump"):
                return self._serialize(node, qual, frame, env)
            if qual in ("json.loads", "tomllib.loads", "tomli.loads", "toml.loads", "yaml.safe_load", "yaml.load",
                        "json.load", "tomllib.load", "tomli.load", "toml.load", "yaml.full_load"):
                return self._config(arg(0), frame, env, node)
            if qual in ("pathlib.Path", "pathlib.PurePath"):
                return self._path_ctor(args, frame, env)
            base = self.eval(func.value, frame, env)
            return self._method(base, method, node, args, kwargs, frame, env)
        # plain names
        name = func.value if isinstance(func, cst.Name) else None
        if qual in classify.TIMESTAMP_CALLS:
            return dynamic(span, m.code(node), Kind.TIMESTAMP, Volatility.PER_REQUEST, f"call to `{m.code(func)}()`",
                           precision=classify.TIMESTAMP_CALLS[qual])
        if qual in classify.UNIQUE_ID_CALLS:
            return dynamic(span, m.code(node), Kind.UNIQUE_ID, Volatility.PER_REQUEST, f"call to `{m.code(func)}()`")
        if qual in ("pathlib.Path", "pathlib.PurePath", "Path"):
            return self._path_ctor(args, frame, env)
        if qual in ("textwrap.dedent", "inspect.cleandoc", "dedent", "cleandoc"):
            return self._dedent(self.eval(args[0].value, frame, env), frame) if args else dynamic(span, m.code(node))
        if qual in ("json.dumps", "simplejson.dumps", "orjson.dumps", "dumps"):
            return self._serialize(node, qual, frame, env)
        if name in ("str", "repr") and args:
            return self.eval(args[0].value, frame, env)
        if name == "open" and args:
            return Obj("file", args=[self.eval(args[0].value, frame, env)], span=span, node=node)
        if name in ("sorted",) and args:
            inner = self.eval(args[0].value, frame, env)
            segs = self.text_of(inner, frame) if isinstance(inner, (Text, Alt)) else []
            src = most_volatile(segs)
            if isinstance(inner, Seq):
                return Seq(inner.items, span, repeated=inner.repeated, node=node, ordered=True)
            if src is not None and src.kind is Kind.UNORDERED_ITERATION:
                return Seq([], span, repeated=True, node=node, ordered=True)
            return self._derived(inner, node, frame, m.code(node)) if src is not None else dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE, "sorted")
        if name in ("set", "frozenset"):
            return dynamic(span, m.code(node), Kind.UNORDERED_ITERATION, Volatility.PER_PROCESS,
                           f"`{name}(...)`: iteration order depends on the hash seed")
        if qual in classify.UNORDERED_CALLS or name in ("listdir", "scandir", "as_completed"):
            return self._unordered_call(node, qual, args, frame, env)
        if name in ("list", "tuple") and args:
            inner = self.eval(args[0].value, frame, env)
            return inner
        if name in ("int", "float", "len", "bool", "round", "abs"):
            inner = self.eval(args[0].value, frame, env) if args else None
            return self._derived(inner, node, frame, m.code(node)) if inner is not None else dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE)
        if name == "dict":
            kw = {k: self.eval(v, frame, env) for k, v in kwargs.items()}
            base = self.eval(args[0].value, frame, env) if args else None
            items = dict(base.items) if isinstance(base, Mapping) else {}
            items.update(kw)
            return Mapping(items, {}, span, node)
        target = self.eval(func, frame, env)
        return self._invoke(target, node, args, kwargs, frame, env, qual)

    def _unordered_call(self, node, qual: str, args, frame: Frame, env) -> Value:
        """A call whose results come in no fixed order. `as_completed(tasks)` keeps the tasks
        (their results are the elements) with the order marked unstable."""
        m = frame.module
        seg = Segment(span=m.span(node), kind=Kind.UNORDERED_ITERATION, volatility=Volatility.UNKNOWN,
                      expr=m.code(node), evidence=classify.UNORDERED_CALLS.get(qual, "unordered source"))
        if qual.endswith("as_completed") and args:
            tasks = self.eval(args[0].value, frame, env)
            if isinstance(tasks, Seq) and tasks.items:
                return Seq(tasks.items, m.span(node), repeated=True, node=node, unordered=seg)
        return Text([seg])

    def _invoke(self, target, node, args, kwargs, frame: Frame, env, qual: str) -> Value:
        m = frame.module
        span = m.span(node)
        if isinstance(target, Func):
            bound = self._bind(target, args, kwargs, frame, env)
            result = self.call_function(target, bound[0], bound[1], frame.depth + 1, span)
            if result is not None:
                return self._after_call(result, node, self._forced(bound[0]), frame)
            return self._opaque_call(node, self._forced(bound[0]), frame)
        if isinstance(target, ClassRef):
            return Obj(f"instance:{target.node.name.value}", node=target.node, args=[ClassRef(target.module, target.node)],
                       kwargs={k: self.eval(v, frame, env) for k, v in kwargs.items()}, span=span)
        # an unknown callable: an SDK class, a library function
        kw_vals = {k: self.eval(v, frame, env) for k, v in kwargs.items()}
        arg_vals = [self.eval(a.value, frame, env) for a in args]
        short = qual.rsplit(".", 1)[-1] if qual else ""
        if short and short[:1].isupper():
            return Obj(qual, args=arg_vals, kwargs=kw_vals, span=span, node=node)
        return self._opaque_call(node, arg_vals + list(kw_vals.values()), frame)

    def _opaque_call(self, node, inputs: list, frame: Frame) -> Value:
        """A call we cannot follow: its result changes as often as its most volatile input
        ("data fetched with the user's message" is per-request)."""
        m = frame.module
        fetched = self._fetched(node, inputs, frame)
        if fetched is not None:
            return fetched
        return dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.UNKNOWN, f"result of `{m.code(node.func)}(...)`")

    def _fetched(self, node, inputs: list, frame: Frame) -> Text | None:
        """The result of a call we cannot follow that takes the user's message (or the
        conversation) as input: "data fetched with it", new on every request (Policy 7)."""
        flat = []
        for v in inputs:  # a question wrapped in a list or a dict (`query_texts=[question]`) counts too
            flat.append(v)
            if isinstance(v, Seq) and not v.repeated:
                flat.extend(v.items)
            elif isinstance(v, Mapping):
                flat.extend(v.items.values())
        for v in flat:
            if not isinstance(v, (Text, Alt, Spread)):
                continue
            for seg in self.text_of(v, frame):
                if seg.kind is Kind.HISTORY or (seg.kind is Kind.USER_INPUT and seg.volatility is Volatility.PER_REQUEST):
                    m = frame.module
                    return dynamic(m.span(node), " ".join(m.code(node).split()), Kind.USER_INPUT, Volatility.PER_REQUEST,
                                   f"data fetched with `{seg.expr}`", origin=m.span(node))
        return None

    def _after_call(self, result, node, inputs: list, frame: Frame):
        """A function of the tree whose result we could not read but which takes the user's
        message: its result is fetched with it."""
        if isinstance(result, Text):
            src = most_volatile(result.segs)
            if src is not None and src.volatility is Volatility.UNKNOWN and src.kind is Kind.UNKNOWN:
                fetched = self._fetched(node, inputs, frame)
                if fetched is not None:
                    return fetched
        return result

    def _bind(self, fn: Func, args, kwargs, frame: Frame, env):
        params = fn.node.params
        names = [p.name.value for p in [*params.posonly_params, *params.params]]
        bound: dict[str, Value] = {}
        if fn.cls is not None and names and names[0] in ("self", "cls") and not _is_static(fn.node):
            names = names[1:]
        for i, a in enumerate(args):
            if i < len(names):
                bound[names[i]] = _Thunk("expr", node=a.value, env=env, value=frame)
        for k, v in kwargs.items():
            bound[k] = _Thunk("expr", node=v, env=env, value=frame)
        return bound, {}

    def _forced(self, bound: dict) -> list:
        return [self.force(b.value, b) if isinstance(b, _Thunk) else b for b in bound.values()]

    def call_function(self, fn: Func, bindings: dict, _unused, depth: int, span) -> Value:
        """The return value of a function of the tree, with parameters bound to `bindings`."""
        if depth > MAX_DEPTH:
            return dynamic(span, fn.node.name.value + "()", evidence="call chain too deep to follow")
        if bindings:
            count = self._bound_calls.get(id(fn.node), 0) + 1
            self._bound_calls[id(fn.node)] = count
            if count > MAX_BOUND_CALLS:  # called from many places: read it once, parameters unknown
                bindings = {}
        key = (id(fn.node), id(fn.self_value), tuple(sorted((k, id(v)) for k, v in bindings.items())))
        if key in self._return_cache:
            return self._return_cache[key]
        if key in self._active:
            return dynamic(span, fn.node.name.value + "()", evidence="recursive call")
        self._active.add(key)
        try:
            frame = Frame(module=fn.module, func=fn.node, cls=fn.cls, bindings=bindings,
                          self_value=fn.self_value, depth=depth)
            self._ensure(frame)
            rets = [self.force(frame, r) for r in frame.returns]
            rets = [r for r in rets if not _is_none(r)]
            if not rets:
                result = None
            elif len(rets) == 1:
                result = rets[0]
            else:
                result = Alt(rets, span)
        finally:
            self._active.discard(key)
        self._return_cache[key] = result
        return result

    def _method(self, base: Value, method: str, node: cst.Call, args, kwargs, frame: Frame, env) -> Value:
        m = frame.module
        span = m.span(node)
        if method in classify.DETERMINISTIC_DICTS and not args and not isinstance(base, (Mapping, Seq)):
            return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.UNKNOWN,
                           "a dict in the model's field order", ordered=True)
        if isinstance(base, PathV):
            if method in ("read_text", "read_bytes", "open"):
                return self._read_file(base.path, node, frame)
            if method in ("with_name", "joinpath", "with_suffix"):
                names = [_const_str(self.eval(a.value, frame, env), self, frame) for a in args]
                if base.path is None or any(n is None for n in names):
                    return PathV(None)
                if method == "with_name":
                    return PathV(base.path.with_name(names[0]))
                if method == "with_suffix":
                    return PathV(base.path.with_suffix(names[0]))
                return PathV(base.path.joinpath(*names))
            if method in ("resolve", "absolute", "expanduser"):
                return base
            if method in classify.UNORDERED_METHODS:
                return dynamic(span, m.code(node), Kind.UNORDERED_ITERATION, Volatility.UNKNOWN,
                               classify.UNORDERED_METHODS[method])
        if isinstance(base, Obj) and base.qualname == "file" and method in ("read",):
            p = base.args[0] if base.args else None
            if isinstance(p, PathV):
                return self._read_file(p.path, node, frame)
            path = _const_str(p, self, frame) if p is not None else None
            if path is not None:
                return self._read_file((m.path.parent / path) if not Path(path).is_absolute() else Path(path), node, frame)
        if isinstance(base, (Obj, ClassRef)):
            member = self._attr_of(base, method, node, frame)
            if isinstance(member, Func):
                bound = self._bind(member, args, kwargs, frame, env)
                result = self.call_function(member, bound[0], {}, frame.depth + 1, span)
                if result is not None:
                    return self._after_call(result, node, self._forced(bound[0]), frame)
                return self._opaque_call(node, self._forced(bound[0]), frame)
        if isinstance(base, (Text, Alt)):
            return self._str_method(base, method, node, args, kwargs, frame, env)
        if isinstance(base, Config) and method == "get" and args:
            key = _const_str(self.eval(args[0].value, frame, env), self, frame)
            if key is not None and isinstance(base.data, dict) and key in base.data:
                return Config(base.path, base.text, [*base.keys, key], base.data[key])
        if isinstance(base, Mapping) and method == "get" and args:
            key = _const_str(self.eval(args[0].value, frame, env), self, frame)
            if key in base.items:
                return base.items[key]
        if isinstance(base, Seq) and method in ("copy",):
            return base
        if method in classify.UNORDERED_METHODS and not isinstance(base, (Text, Seq)):
            return dynamic(span, m.code(node), Kind.UNORDERED_ITERATION, Volatility.UNKNOWN,
                           classify.UNORDERED_METHODS[method])
        if method == "render" and self.template_hook is not None:
            rendered = self.template_hook(self, base, node, args, kwargs, frame, env)
            if rendered is not None:
                return rendered
        if isinstance(base, Obj) and (base.qualname.endswith(("Template", "get_template", "from_string"))):
            if self.template_hook is not None:
                rendered = self.template_hook(self, base, node, args, kwargs, frame, env)
                if rendered is not None:
                    return rendered
        if isinstance(base, Obj) and not base.qualname.startswith(("self:", "instance:")):
            kw_vals = {k: self.eval(v, frame, env) for k, v in kwargs.items()}
            arg_vals = [self.eval(a.value, frame, env) for a in args]
            fetched = None if method[:1].isupper() else self._fetched(node, arg_vals + list(kw_vals.values()), frame)
            if fetched is not None:
                return fetched
            return Obj(f"{base.qualname}.{method}", args=[base, *arg_vals], kwargs=kw_vals, span=span, node=node)
        inputs = [self.eval(a.value, frame, env) for a in args] + [self.eval(v, frame, env) for v in kwargs.values()]
        return self._opaque_call(node, inputs + ([base] if isinstance(base, (Text, Alt)) else []), frame)

    def _str_method(self, base, method, node, args, kwargs, frame, env) -> Value:
        m = frame.module
        span = m.span(node)
        if method == "format" and isinstance(base, Alt):
            # a template that is one of several: format each variant
            return Alt([self._str_method(o, method, node, args, kwargs, frame, env) for o in base.options], base.span)
        segs = self.text_of(base, frame)
        if method in ("copy",) and any(s.kind is Kind.HISTORY for s in segs):
            return base
        if method in ("decode", "encode", "strip", "lstrip", "rstrip", "replace") and \
                any(s.kind in (Kind.SERIALIZED, Kind.UNORDERED_ITERATION) for s in segs):
            return Text(segs)  # bytes to text and trimming keep the order problem
        if method == "format":
            return self.format_text(Text(segs), [self.eval(a.value, frame, env) for a in args],
                                    {k: self.eval(v, frame, env) for k, v in kwargs.items()}, frame, span)
        if method == "join" and args:
            return self._join(segs, args[0].value, frame, env, node)
        if method in ("strip", "lstrip", "rstrip", "upper", "lower", "title", "capitalize", "replace",
                      "removeprefix", "removesuffix", "expandtabs", "casefold"):
            src = most_volatile(segs)
            if method in ("strip", "lstrip", "rstrip") and not args:
                out = [replace(s) for s in segs]
                if method in ("strip", "lstrip") and out and out[0].is_static:
                    first = out[0]
                    out[0] = slice_segment(first, len(first.text) - len(first.text.lstrip()))
                if method in ("strip", "rstrip") and out and out[-1].is_static:
                    last = out[-1]
                    out[-1] = slice_segment(last, 0, len(last.text.rstrip()))
                return Text(out)
            if method == "replace":
                return Text(segs)
            if src is None:
                return Text([Segment(text=getattr("".join(s.text for s in segs), method)() if method not in ("removeprefix", "removesuffix", "replace") else "".join(s.text for s in segs), span=segs[0].span if segs else span)])
            return Text(segs)
        src = most_volatile(segs)
        if src is not None and src.kind is Kind.TIMESTAMP and method in classify.TIMESTAMP_ZONE:
            return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE, "a time zone, not a time")
        if src is not None and src.kind is Kind.TIMESTAMP:
            if method == "strftime":
                fmt = _const_str(self.eval(args[0].value, frame, env), self, frame) if args else None
                prec = classify.strftime_precision(fmt) if fmt is not None else src.precision
                if fmt is not None and prec is None:
                    return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE, "a time-zone name, not a time")
                return Text([replace(src, span=span, expr=m.code(node), precision=prec or src.precision,
                                     evidence=f"`{m.code(node)}`", origin=None)])
            if method in classify.TIMESTAMP_METHODS:
                prec = classify.TIMESTAMP_METHODS[method] or src.precision
                return Text([replace(src, span=span, expr=m.code(node), precision=prec, origin=None,
                                     evidence=f"`{m.code(node)}`")])
        if src is not None and src.kind is Kind.UNIQUE_ID:
            return Text([replace(src, span=span, expr=m.code(node), origin=None)])
        if method in ("split", "splitlines", "encode", "decode", "count", "find", "startswith", "endswith", "hex"):
            return self._derived(Text(segs), node, frame, m.code(node))
        if not hasattr(str, method):
            # a method of an object we cannot see (a retriever, a store): fetched with its inputs?
            inputs = [self.eval(a.value, frame, env) for a in args] + [self.eval(v, frame, env) for v in kwargs.values()]
            fetched = self._fetched(node, inputs, frame)
            if fetched is not None:
                return fetched
        if src is None and segs and all(s.is_static for s in segs):
            return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE, "computed from constants")
        return self._derived(Text(segs), node, frame, m.code(node))

    def _join(self, sep_segs, iterable_node, frame, env, node) -> Value:
        m = frame.module
        it = self.eval(iterable_node, frame, env)
        joined = self._join_seq(sep_segs, it, frame)
        if joined is not None:
            return joined
        if isinstance(it, Alt):
            options = [self._join_seq(sep_segs, o, frame) for o in it.options]
            if all(o is not None for o in options):
                return Alt(options, it.span)
        segs = self.text_of(it, frame)
        unordered = next((s for s in segs if s.kind is Kind.UNORDERED_ITERATION), None)
        if unordered is not None and isinstance(it, Text) and unordered.fix is None:
            return Text([self._unordered_at(unordered, iterable_node, frame)])  # iterated here: fix here
        if unordered is not None:
            return Text([unordered])
        src = most_volatile(segs)
        span = m.span(node)
        if src is None:
            return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE, "joined constants")
        return Text([replace(src, span=span, expr=m.code(node), origin=src.origin or src.span)])

    def _join_seq(self, sep_segs, it, frame) -> Text | None:
        if isinstance(it, Seq) and not it.repeated and all(not isinstance(i, Spread) for i in it.items):
            out: list[Segment] = []
            for i, item in enumerate(it.items):
                if i:
                    out.extend(sep_segs)
                out.extend(self.text_of(item, frame))
            return Text(out)
        return None

    def _dedent(self, value: Value, frame: Frame) -> Value:
        import textwrap
        segs = self.text_of(value, frame)
        if all(s.is_static for s in segs) and segs:
            return Text([replace(segs[0], text=textwrap.dedent("".join(s.text for s in segs)), raw=None, raw_base=0)])
        return Text(segs)

    def _os_path(self, qual, args, frame, env) -> Value:
        vals = [self.eval(a.value, frame, env) for a in args]
        if qual == "os.path.join":
            if vals and isinstance(vals[0], PathV) and vals[0].path is not None:
                names = [_const_str(v, self, frame) for v in vals[1:]]
                if all(n is not None for n in names):
                    return PathV(vals[0].path.joinpath(*names))
            return PathV(None)
        if vals and isinstance(vals[0], PathV) and vals[0].path is not None:
            return PathV(vals[0].path.parent if qual == "os.path.dirname" else vals[0].path)
        return PathV(None)

    def _path_ctor(self, args, frame, env) -> Value:
        if not args:
            return PathV(None)
        vals = [self.eval(a.value, frame, env) for a in args]
        first = vals[0]
        if isinstance(first, PathV):
            base = first.path
        else:
            s = _const_str(first, self, frame)
            base = (frame.module.path.parent / s) if s is not None and not Path(s).is_absolute() else (Path(s) if s else None)
            if s is not None and not Path(s).is_absolute():
                base = None  # relative to the working directory: not static
        if base is None:
            return PathV(None)
        names = [_const_str(v, self, frame) for v in vals[1:]]
        if any(n is None for n in names):
            return PathV(None)
        return PathV(base.joinpath(*names))

    def _read_file(self, path: Path | None, node, frame: Frame) -> Value:
        m = frame.module
        span = m.span(node)
        if path is None or not path.is_file():
            return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE,
                           "text read from a file that is not found statically")
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE, "unreadable file")
        return Text([Segment(text=text, span=Span(_display(path), Position(1, 1), Position(1, 1)))])

    def _config(self, src_node, frame, env, node) -> Value:
        m = frame.module
        if src_node is None:
            return dynamic(m.span(node), m.code(node))
        src = self.eval(src_node, frame, env)
        if isinstance(src, Obj) and src.qualname == "file" and src.args and isinstance(src.args[0], PathV):
            src = self._read_file(src.args[0].path, node, frame)
        if isinstance(src, Text) and len(src.segs) == 1 and src.segs[0].is_static and src.segs[0].span is not None:
            seg = src.segs[0]
            path = Path(seg.span.filename)
            if not path.is_absolute():
                path = Path.cwd() / path
            if path.suffix in (".toml", ".yaml", ".yml", ".json") and path.is_file():
                data = _parse_config(path, seg.text)
                if data is not None:
                    return Config(path, seg.text, [], data)
        return dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.STABLE, "configuration data")

    def _serialize(self, node: cst.Call, qual: str, frame: Frame, env) -> Value:
        m = frame.module
        span = m.span(node)
        args = [a for a in node.args if a.keyword is None and not a.star]
        kw = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        sort = kw.get("sort_keys")
        if qual.startswith("orjson"):
            opt = kw.get("option")
            ordered = opt is not None and "OPT_SORT_KEYS" in m.code(opt)
        elif qual.startswith("yaml"):
            ordered = not (isinstance(sort, cst.Name) and sort.value == "False")
        else:
            ordered = sort is not None and not (isinstance(sort, cst.Name) and sort.value == "False")
        data = self.eval(args[0].value, frame, env) if args else None
        if _deterministic_dict(args[0].value if args else None, m, data):
            literal = True
        else:
            literal = isinstance(data, Mapping) and data.node is not None and all(
                not isinstance(v, Mapping) or v.node is not None for v in data.items.values())
        segs = self.text_of(data, frame) if isinstance(data, (Text, Alt)) else []
        src = most_volatile(segs)
        vol = src.volatility if src is not None else Volatility.UNKNOWN
        if isinstance(data, Seq) and not data.repeated:
            literal = all(isinstance(i, Mapping) and i.node is not None for i in data.items) or not data.items
        if isinstance(data, Seq) and data.ordered:
            literal = True  # `sorted(...)`: a list in a fixed order
        seg = Segment(span=span, kind=Kind.SERIALIZED, volatility=vol if vol is not Volatility.STABLE else Volatility.UNKNOWN,
                      expr=m.code(node), ordered=ordered or literal,
                      evidence="a dict written in the code keeps its order" if literal else f"`{m.code(node.func)}` without sorted keys")
        if not seg.ordered:
            from . import fixes
            seg.fix = fixes.sort_keys_fix(m, node)
        return Text([seg])


# ---------------------------------------------------------------------- module helpers
def _display(path: Path) -> str:
    from .project import display_name
    return display_name(path)


def _parse_config(path: Path, text: str):
    try:
        if path.suffix == ".toml":
            try:
                import tomllib
            except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
                import tomli as tomllib
            return tomllib.loads(text)
        if path.suffix in (".yaml", ".yml"):
            import yaml
            return yaml.safe_load(text)
        return json.loads(text)
    except Exception:
        return None


def _has_fstring(node) -> bool:
    if isinstance(node, cst.FormattedString):
        return True
    if isinstance(node, cst.ConcatenatedString):
        return _has_fstring(node.left) or _has_fstring(node.right)
    return False


def _string_body_span(node: cst.SimpleString, span: Span) -> Span:
    """The span of a string literal's body (after the prefix and opening quotes)."""
    q = node.quote
    prefix_len = len(node.prefix)
    start = Position(span.start.row, span.start.column + prefix_len + len(q))
    return Span(span.filename, start, span.end)


def _sub_span(seg: Segment, start: int, end: int | None = None) -> Span | None:
    if seg.span is None:
        return None
    a = seg.position_at(start)
    b = seg.position_at(end) if end is not None else seg.span.end
    return Span(seg.span.filename, a, b or a)


def _reenter(inner: list[Segment], where: Span, expr: str, spec: str | None) -> list[Segment]:
    """Segments of a value interpolated at `where`: dynamic ones are reported at the
    interpolation, with the place the value was produced as origin."""
    out = []
    for s in inner:
        if s.is_static:
            out.append(s)
            continue
        if s.kind in (Kind.SERIALIZED, Kind.UNORDERED_ITERATION):
            out.append(s)  # reported at the call or the iteration (Policy 8), where its fix edits
            continue
        origin = s.origin or s.span
        if origin == where:
            origin = None
        prec = s.precision
        if spec and s.kind is Kind.TIMESTAMP:
            prec = classify.strftime_precision(spec) or prec
        out.append(replace(s, span=where, origin=origin, precision=prec,
                           expr=s.expr if s.expr else expr))
    return out


def _short(segs: list[Segment]) -> str:
    for s in segs:
        if s.expr:
            return s.expr
    return ""


def _seg_eq(a: Segment, b: Segment) -> bool:
    if a.is_static and b.is_static:
        return a.text == b.text
    return (not a.is_static and not b.is_static and a.span == b.span and a.kind == b.kind)


def _align(options: list[list[Segment]]):
    """(shared head, the differing middle of each option, shared tail), segment by segment and
    then character by character at the boundary of static text."""
    n = min(len(o) for o in options)
    i = 0
    while i < n and all(_seg_eq(o[i], options[0][i]) for o in options[1:]):
        i += 1
    head = list(options[0][:i])
    rest = [o[i:] for o in options]
    m = min(len(o) for o in rest)
    j = 0
    while j < m and all(_seg_eq(o[len(o) - 1 - j], rest[0][len(rest[0]) - 1 - j]) for o in rest[1:]):
        j += 1
    tail = list(rest[0][len(rest[0]) - j:]) if j else []
    middles = [o[:len(o) - j] if j else list(o) for o in rest]
    # a shared ending of the last static segments (`"x" + POLICY` vs `POLICY`)
    if all(mid and mid[-1].is_static for mid in middles) or any(not mid for mid in middles):
        texts = [mid[-1].text if mid and mid[-1].is_static else "" for mid in middles]
        if all(texts):
            k = len(os.path.commonprefix([t[::-1] for t in texts]))
            if k:
                last = middles[0][-1]
                tail = [slice_segment(last, len(last.text) - k)] + tail
                middles = [mid[:-1] + ([slice_segment(mid[-1], 0, len(mid[-1].text) - k)] if len(mid[-1].text) > k else [])
                           for mid in middles]
    return head, middles, tail


def _same(a: list[Segment], b: list[Segment]) -> bool:
    return len(a) == len(b) and all(x.is_static and y.is_static and x.text == y.text for x, y in zip(a, b))


def _const_str(value, ev: "Evaluator", frame) -> str | None:
    if isinstance(value, Text) and value.segs and all(s.is_static for s in value.segs):
        return "".join(s.text for s in value.segs)
    if isinstance(value, Text) and not value.segs:
        return ""
    return None


def _target_names(target) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        out = []
        for el in target.elements:
            out.extend(_target_names(el.value))
        return out
    return []


def _decorator_name(d: cst.Decorator) -> str:
    node = d.decorator
    if isinstance(node, cst.Call):
        node = node.func
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
    return ".".join(reversed(parts))


def _is_static(fn: cst.FunctionDef) -> bool:
    return any(_decorator_name(d) == "staticmethod" for d in fn.decorators)


_BUILTIN_TYPES = {"str", "int", "float", "bool", "bytes", "list", "dict", "tuple", "set", "Any", "object",
                  "Optional", "List", "Dict", "Sequence", "Iterable", "Mapping", "Path", "Callable", "None"}


def _is_builtin_annotation(ann) -> bool:
    node = ann.value if isinstance(ann, cst.Subscript) else ann
    return isinstance(node, cst.Name) and node.value in _BUILTIN_TYPES or isinstance(ann, cst.Subscript) \
        or isinstance(ann, cst.BinaryOperation)


def _deterministic_dict(node, module, value) -> bool:
    """`model.model_json_schema()`, `obj.model_dump()`, `dataclasses.asdict(obj)`: dicts whose keys
    come in the model's field order, the same in every process."""
    if isinstance(node, cst.Call):
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        if name in classify.DETERMINISTIC_DICTS:
            return True
    if isinstance(value, Alt):  # a helper with a fallback: the model's schema, or a stand-in
        return any(_deterministic_dict(None, module, o) for o in value.options)
    if isinstance(value, Text) and value.segs and all(s.ordered for s in value.segs if not s.is_static):
        return any(not s.is_static for s in value.segs)
    return False


def _movable(seg: Segment) -> bool:
    """A volatile value that PRM101-103 may move after the static text (their unsafe fix)."""
    return (seg.kind in (Kind.TIMESTAMP, Kind.UNIQUE_ID, Kind.USER_INPUT)
            and seg.volatility in (Volatility.PER_REQUEST, Volatility.PER_CONVERSATION, Volatility.PER_PROCESS))


def _unresolved(value) -> bool:
    """A receiver we know nothing about: an unresolved name or attribute, an external object."""
    if isinstance(value, Text):
        return len(value.segs) == 1 and value.segs[0].kind is Kind.UNKNOWN and value.segs[0].volatility is Volatility.UNKNOWN
    return isinstance(value, Obj) and not value.qualname.startswith(("self:", "instance:"))


def _grown(cls: cst.ClassDef, attr: str) -> bool:
    """True when a method appends to, extends or `+=` the list `self.attr`."""
    for stmt in cls.body.body:
        if not isinstance(stmt, cst.FunctionDef):
            continue
        for node in _walk_statements(stmt.body):
            target = None
            if isinstance(node, cst.AugAssign):
                target = node.target
            elif isinstance(node, cst.Expr) and isinstance(node.value, cst.Call) and isinstance(node.value.func, cst.Attribute) \
                    and node.value.func.attr.value in ("append", "extend", "insert"):
                target = node.value.func.value
            if (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self"
                    and target.attr.value == attr):
                return True
    return False


def _per_instance(value):
    """A value computed once when an object is made: a uuid or a clock reading then identifies
    the instance (a conversation, a session), it does not change per request."""
    if isinstance(value, Text):
        return Text([replace(s, volatility=Volatility.PER_CONVERSATION,
                             evidence=(s.evidence + " (set once per instance)") if s.evidence else "set once per instance")
                     if s.kind in (Kind.TIMESTAMP, Kind.UNIQUE_ID) and s.volatility is Volatility.PER_REQUEST
                     and not s.name_only else s for s in value.segs])
    return value


def _element(value, index: int):
    """Element `index` of a tuple value (each branch of an Alt), or None when not known."""
    if isinstance(value, Seq) and not value.repeated and index < len(value.items) \
            and not any(isinstance(i, Spread) for i in value.items):
        return value.items[index]
    if isinstance(value, Alt):
        picked = [_element(o, index) for o in value.options]
        if picked and all(p is not None for p in picked):
            return Alt(picked, value.span)
    return None


def _is_none(v: Value) -> bool:
    return isinstance(v, Text) and len(v.segs) == 1 and v.segs[0].is_static and v.segs[0].text == "None"


def _walk_statements(block):
    """Small statements of a block, recursively, without entering nested defs."""
    stack = list(block.body) if hasattr(block, "body") else []
    while stack:
        stmt = stack.pop(0)
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        else:
            for attr in ("body", "orelse", "finalbody"):
                sub = getattr(stmt, attr, None)
                if sub is None:
                    continue
                if isinstance(sub, cst.If):
                    stack.append(sub)
                elif hasattr(sub, "body"):
                    inner = sub.body
                    if isinstance(inner, (list, tuple)):
                        stack.extend(inner)
                    elif hasattr(inner, "body"):
                        stack.extend(inner.body)
            for h in getattr(stmt, "handlers", ()):
                stack.extend(h.body.body)
