"""Tools for one turn used instead of the configured ones: facts for PRM204 (the `fallback` and
`omitted` shapes of `tool_variants`).

    async def _initialize_tools(self, toolgroups_for_turn=None):
        groups = toolgroups_for_turn or self.agent_config.toolgroups or []    # fallback
        ...
        self.tool_defs = [...]

    async def create_turn(self, request):
        await self._initialize_tools(request.toolgroups)
        async for chunk in self._run_turn(request): ...

    async def resume_turn(self, request):
        await self._initialize_tools()                                        # omitted
        async for chunk in self._run_turn(request): ...

A method of a class with a parameter that defaults to `None` and whose name says the turn's
request (`toolgroups_for_turn`, `request_tools`), used first in an `or` whose other operand reads
the instance (`self.config.tools`): when a turn passes its own tools they replace the configured
ones, so the requests of that turn start with other tool definitions than the turns before. The
method handles tools (its name, or a `self.` attribute it assigns, says tools). Where a method of
the class calls it with an argument and another without, both then calling the same method of
the class (the turn's runner), the call without is where the requests of a resumed turn fall
back to other tools than those the turn started with.
"""
from __future__ import annotations

import ast
import re

from .prompt_names import tools_named
from .module import attribute_chain, statements
from .tool_variants import PER_TURN, ToolVariant
from .walk import own_nodes

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: a parameter named for the turn that defaults to None (`groups_for_turn=None`, `query: str | None = None`),
#: read on the text before each `None` default
_OPTIONAL_TEXT = re.compile(r"(?i:turn|query|question|utterance|user_input|user_message|user_msg|user_text)"
                            r"\w{0,40}[ \t]{0,4}(?::[^=,()\n]{0,80})?=[ \t]{0,4}$")


def _optional_text(src: str) -> bool:
    """True when the text gives a parameter named for the turn a `None` default (`str.find` for
    each `None`, the pattern on the 120 characters before it)."""
    at = src.find("None")
    while at != -1:
        head = src[max(0, at - 120):at]
        if head.rstrip(" \t").endswith("=") and _OPTIONAL_TEXT.search(head) is not None:
            return True
        at = src.find("None", at + 4)
    return False


def _optional_params(func) -> list[tuple[int, str]]:
    """(position after `self`, name) of the parameters that default to None and name the turn."""
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    out = []
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for i, (a, d) in enumerate(zip(positional, defaults)):
        if isinstance(d, ast.Constant) and d.value is None and PER_TURN.search(a.arg):
            out.append((i - 1, a.arg))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        if isinstance(d, ast.Constant) and d.value is None and PER_TURN.search(a.arg):
            out.append((-1, a.arg))
    return out


def _handles_tools(func, own) -> bool:
    if tools_named(func.name):
        return True
    for n in own:
        if isinstance(n, ast.Assign):
            for t in n.targets:
                for e in (t.elts if isinstance(t, ast.Tuple) else [t]):
                    chain = attribute_chain(e) if isinstance(e, ast.Attribute) else []
                    if len(chain) == 2 and chain[0] == "self" and tools_named(chain[1]):
                        return True
    return False


def _self_calls(func, name: str | None = None) -> list[ast.Call]:
    return [n for n in own_nodes(func) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and isinstance(n.func.value, ast.Name) and n.func.value.id == "self"
            and (name is None or n.func.attr == name)]


def _passes(call: ast.Call, position: int, name: str) -> bool:
    if any(k.arg == name or k.arg is None for k in call.keywords):
        return True
    return 0 <= position < len(call.args) or any(isinstance(a, ast.Starred) for a in call.args)


def find_fallbacks(module) -> list[ToolVariant]:
    """The `fallback` and `omitted` shapes (see the module docstring), by line."""
    src = module.source
    if " or self." not in src or not _optional_text(src):
        return []  # (the cheap test on the module's text before any walk)
    out = []
    for cls in (n for n in statements(module.tree) if isinstance(n, ast.ClassDef)):
        methods = [m for m in cls.body if isinstance(m, _FUNCS)]
        for method in methods:
            params = _optional_params(method)
            if not params:
                continue
            own = own_nodes(method)
            if not _handles_tools(method, own):
                continue
            for position, name in params:
                fallback = next((n for n in own if isinstance(n, ast.BoolOp) and isinstance(n.op, ast.Or)
                                 and isinstance(n.values[0], ast.Name) and n.values[0].id == name
                                 and any(isinstance(v, ast.Attribute) and attribute_chain(v)[:1] == ["self"]
                                         for v in n.values[1:])), None)
                if fallback is None:
                    continue
                callers = [(m, c) for m in methods if m is not method for c in _self_calls(m, method.name)]
                given = [(m, c) for m, c in callers if _passes(c, position, name)]
                missing = [(m, c) for m, c in callers if not _passes(c, position, name)]
                out.append(ToolVariant(fallback, given[0][1] if given else fallback, method.name, "fallback",
                                       False, "name", name, [c for _, c in given]))
                for m, call in missing:
                    runners = {c.func.attr for c in _self_calls(m)} - {method.name}
                    twin = next((g for g in given if runners & {c.func.attr for c in _self_calls(g[0])}), None)
                    if twin is not None:
                        out.append(ToolVariant(call, twin[1], m.name, "omitted", False, "name", name, [fallback]))
    return sorted(out, key=lambda v: (v.node.lineno, v.node.col_offset))
