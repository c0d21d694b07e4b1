"""Finds where a module sends or builds a prompt and builds each one's PromptLayout.

Recognised: the call shapes of every SDK of the registry (python/sdks/), functions whose
decorator makes their return value a prompt (`@agent.system_prompt`), module-level prompt
constants built with f-strings or `.format`, system messages written as dicts outside a
recognised call, and functions returning a message list with a system message before the
history. The walk is iterative (pre-order, outer nodes first), so deep code cannot exhaust the
stack; each prompt has its own work budget.
"""
from __future__ import annotations

import ast
import re

from ..model import Part
from . import sdks
from .flow.objects import decorator_name
from .flow.core import per_process
from .layout import LayoutBuilder, variants_of
from .flow.values import Seq

_PROMPT_NAME = re.compile(r"(prompt|system|instruction|preamble|persona)", re.I)
# a system message written in the code: the only functions whose returned lists are examined
_SYSTEM_MESSAGE = re.compile(r"""(["']role["']\s*:\s*["'](system|developer)["'])|(role\s*=\s*["'](system|developer)["'])"""
                             r"|SystemMessage\(|MessageRole\.SYSTEM|\(\s*[\"']system[\"']\s*,")
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def find_layouts(module, evaluator) -> list:
    """The PromptLayouts of one module, in the order their sites appear."""
    finder = SiteFinder(module, evaluator)
    finder.run()
    return finder.b.layouts


class SiteFinder:
    """Walks one module and records a layout for every prompt it sends or defines."""

    def __init__(self, module, evaluator):
        self.m = module
        self.ev = evaluator
        self.b = LayoutBuilder(module, evaluator)
        self.stack: list = []
        self._frames: dict = {}
        self._has_system: bool | None = None

    def run(self) -> None:
        visits = {ast.FunctionDef: self._decorated, ast.AsyncFunctionDef: self._decorated,
                  ast.Assign: self._constant, ast.Dict: self._dict, ast.Return: self._return, ast.Call: self._call}
        scopes = (*_FUNCS, ast.ClassDef)
        todo: list = [self.m.tree]
        leave = object()
        while todo:
            node = todo.pop()
            if node is leave:
                self.stack.pop()
                continue
            kind = type(node)
            visit = visits.get(kind)
            if visit is not None:
                visit(node)
            if kind in scopes:
                self.stack.append(node)
                todo.append(leave)
            todo.extend(reversed(children(node)))

    def frame(self):
        """The frame of the innermost function around the current node (or the module's)."""
        func = next((n for n in reversed(self.stack) if isinstance(n, _FUNCS)), None)
        if func is None:
            return self.ev.module_frame(self.m)
        idx = self.stack.index(func)
        cls = self.stack[idx - 1] if idx > 0 and isinstance(self.stack[idx - 1], ast.ClassDef) else None
        frame = self._frames.get(id(func))
        if frame is None:
            frame = self._frames[id(func)] = self.ev.function_frame(self.m, func, cls)
        return frame

    # ---------------------------------------------------------------- visits
    def _decorated(self, node) -> None:
        self.ev.reset_budget()
        for d in node.decorator_list:
            name = decorator_name(d)
            for shape in sdks.decorators():
                if shape.matches(name):
                    shape.build(self.b, node, name)
                    return

    def _constant(self, node: ast.Assign) -> None:
        """A module-level prompt constant built with an f-string or `.format` (python-constant)."""
        self.ev.reset_budget()
        if self.stack or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return
        if not _PROMPT_NAME.search(node.targets[0].id) or not _builds_text(node.value):
            return
        frame = self.ev.module_frame(self.m)
        value = per_process(self.ev.eval(node.value, frame))  # evaluated once, at import
        segs = self.ev.text_of(value, frame)
        if not any(s.is_static and s.text.strip() for s in segs) or all(s.is_static for s in segs):
            return
        self.b.add(node, "python-constant", None, None, None, [Part("system", segs, span=self.m.span(node.value))])

    def _dict(self, node: ast.Dict) -> None:
        self.ev.reset_budget()
        fields = {k.value: v for k, v in zip(node.keys, node.values)
                  if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        self._system_message(node, fields)

    def _system_message(self, node, fields: dict) -> None:
        """A system message written outside a recognised call, with dynamic content."""
        role = fields.get("role")
        if not (isinstance(role, ast.Constant) and role.value in ("system", "developer")) or "content" not in fields:
            return
        span = self.m.span(node)
        if self.b.covered(span):
            return
        frame = self.frame()
        part = self.b.part("system", self.ev.eval(fields["content"], frame), frame, self.m.span(fields["content"]))
        if any(not s.is_static for s in part.segments):
            self.b.add(node, "python-constant", None, None, None, [part])
            self.b.sites.append(span)

    def _return(self, node: ast.Return) -> None:
        """A function returning a message list: a system message with dynamic content, then history."""
        self.ev.reset_budget()
        if self._has_system is None:
            self._has_system = bool(_SYSTEM_MESSAGE.search(self.m.source))
        func = next((n for n in reversed(self.stack) if isinstance(n, _FUNCS)), None)
        if not self._has_system or func is None or node.value is None or not self._writes_system(func) \
                or self.b.covered(self.m.span(node)):
            return
        frame = self.frame()
        value = self.ev.eval(node.value, frame)
        for option in variants_of(value):  # the first variant that puts content before history
            if not isinstance(option, Seq) or option.repeated:
                continue
            parts, newest = self.b.message_parts(option, frame)
            if any(p.role in ("system", "developer") for p in parts) and any(p.is_history for p in parts) \
                    and any(not s.is_static for p in parts if not p.is_history for s in p.segments):
                self.b.add(node, "python-constant", None, None, None, parts, newest)
                self.b.sites.append(self.m.span(node))
                return

    def _writes_system(self, func) -> bool:
        """True when the function's source writes a system message (computed once per function)."""
        key = ("system", id(func))
        found = self._frames.get(key)
        if found is None:
            a, b = self.m.offsets(func)
            found = self._frames[key] = _SYSTEM_MESSAGE.search(self.m.source, a, b) is not None
        return found

    def _call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute):
            name = func.attr
        elif isinstance(func, ast.Name):  # an imported alias matches by the name it stands for
            name = self.m.imports.get(func.id, func.id).rsplit(".", 1)[-1]
        else:
            name = None
        if name == "dict":
            self.ev.reset_budget()
            self._system_message(node, {k.arg: k.value for k in node.keywords if k.arg is not None})
        candidates = sdks.shapes_for(name) if name is not None else ()
        if not candidates:
            return
        self.ev.reset_budget()
        call = sdks.Call.of(self.m, node)
        for shape in candidates:
            if shape.matches(call):
                call.frame = self.frame()
                try:
                    shape.build(self.b, call)
                except RecursionError:  # pathological nesting: this prompt is not analysed
                    pass
                if shape.final:
                    return


def _builds_text(node) -> bool:
    """True for an f-string, a `%` or `+` of text, or a `.format` / `dedent` call."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, ast.Mod) or _builds_text(node.left) or _builds_text(node.right)
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("format", "dedent"):
            return True
        return any(_builds_text(a) for a in node.args) or any(_builds_text(k.value) for k in node.keywords)
    return False


_SKIP_FIELDS = {"ctx", "op", "ops", "type_ignores", "type_comment"}
_CHILD_FIELDS: dict = {}


def children(node) -> list:
    """The child nodes of an `ast` node in field order (contexts and operators left out)."""
    fields = _CHILD_FIELDS.get(type(node))
    if fields is None:
        fields = _CHILD_FIELDS[type(node)] = tuple(f for f in type(node)._fields if f not in _SKIP_FIELDS)
    out = []
    for name in fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            out.extend(v for v in value if isinstance(v, ast.AST))
        elif isinstance(value, ast.AST):
            out.append(value)
    return out
