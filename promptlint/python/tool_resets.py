"""The tools removed before the final request of a loop that sent one conversation with them:
facts for PRM204 (the `reset` shape of `tool_variants`).

    for request_index in range(attempts):
        answer = await self._request(thread, settings)
        ...
        thread.add_message(answer)
    else:
        self._reset_function_choice_settings(settings)    # settings.tools = None
        return await self._request(thread, settings)

A loop grows a conversation (`thread.append(...)`, `add_message`) and sends it with a request
whose other arguments hold the request's options; the same request (the same source text) is
sent again after the loop (its `else`, or the statements after it) once a statement or a call
removes the tools from those options (`settings.tools = None`, `opts["tools"] = []`,
`del opts["tools"]`, `opts.pop("tools")`, or a call named for it that takes the options:
`self._reset_tool_settings(settings)`). The final request then starts with other tool
definitions than the loop's. Proven (`proven`) when the removal is a statement of the function or
of the class's method of that name; by the method's name otherwise (the base class's method does
nothing, subclasses elsewhere override it). One per function.
"""
from __future__ import annotations

import ast
import re

from .module import statements
from .tool_marks import tool_marks
from .tool_variants import MESSAGE_GROWS, TOOL_KEYS, ToolVariant
from .walk import own_nodes, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)

_RESET = re.compile(r"(?:reset|clear|remove|disable|drop|strip|unset).*(?:tool|function)", re.I)


def find_tool_resets(module) -> list[ToolVariant]:
    """The `reset` shape (see the module docstring) in the functions of the module, by line."""
    _, resets = tool_marks(module)
    if not resets:
        return []
    out = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        a, b = func.lineno, func.end_lineno
        if not any(a <= row <= b for row in resets):
            continue
        own = own_nodes(func)
        if any(isinstance(n, _LOOPS) for n in own):
            out.extend(_resets(module, func, own))
    return sorted(out, key=lambda v: (v.node.lineno, v.node.col_offset))


def _strips_tools(stmt, names: set[str]) -> bool:
    """True for a statement that removes the tools of one of the option objects `names`
    (`settings.tools = None`, `opts["tools"] = []`, `del opts["tools"]`, `opts.pop("tools")`)."""
    for n in subtree(stmt):
        if isinstance(n, ast.Assign) and isinstance(n.value, (ast.Constant, ast.List)) \
                and (n.value.value is None if isinstance(n.value, ast.Constant) else not n.value.elts):
            for t in n.targets:
                if _tools_of(t, names):
                    return True
        if isinstance(n, ast.Delete) and any(_tools_of(t, names) for t in n.targets):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "pop" and n.args \
                and isinstance(n.func.value, ast.Name) and n.func.value.id in names \
                and isinstance(n.args[0], ast.Constant) and n.args[0].value in TOOL_KEYS:
            return True
    return False


def _tools_of(target, names: set[str]) -> bool:
    if isinstance(target, ast.Attribute) and target.attr in TOOL_KEYS:
        return isinstance(target.value, ast.Name) and (target.value.id in names or not names)
    if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) and target.slice.value in TOOL_KEYS:
        return isinstance(target.value, ast.Name) and (target.value.id in names or not names)
    return False


def _resets(module, func, own) -> list[ToolVariant]:
    """The `reset` shape (see the module docstring) in one function."""
    out = []
    body_of = {id(s): blk for n in [func, *own] for blk in _blocks(n) for s in blk}
    for loop in (n for n in own if isinstance(n, _LOOPS)):
        inside = own_nodes(loop, body_only=True)
        grown = {n.func.value.id for n in inside if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                 and n.func.attr in MESSAGE_GROWS and isinstance(n.func.value, ast.Name)}
        calls = {ast.unparse(n): n for n in inside if isinstance(n, ast.Call)
                 and {a.id for a in n.args if isinstance(a, ast.Name)} & grown}
        if not calls:
            continue
        after = list(loop.orelse)
        block = body_of.get(id(loop))
        if block is not None:
            after += block[block.index(loop) + 1:]
        for i, stmt in enumerate(after):
            for call in (n for n in subtree(stmt) if isinstance(n, ast.Call)):
                first = calls.get(ast.unparse(call))
                if first is None:
                    continue
                names = {a.id for a in call.args if isinstance(a, ast.Name)} - grown
                names |= {k.value.id for k in call.keywords if isinstance(k.value, ast.Name)}
                found = _reset_before(module, func, after[:i] + ([stmt] if stmt is not call else []), names, call)
                if found is not None:
                    maker, proven = found
                    out.append(ToolVariant(maker, call, func.name, "reset", proven,
                                           "statement" if proven else "method name", ast.unparse(maker), [first]))
                    return out
    return out


def _reset_before(module, func, stmts, names: set[str], call):
    for stmt in stmts:
        for n in subtree(stmt):
            if getattr(n, "lineno", call.lineno) >= call.lineno:
                continue
            if isinstance(n, (ast.Assign, ast.Delete, ast.Expr)) and _strips_tools(n, names):
                return n, True
            if isinstance(n, ast.Call) and isinstance(n.func, (ast.Attribute, ast.Name)) \
                    and {a.id for a in n.args if isinstance(a, ast.Name)} & names:
                callee = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id
                if _RESET.search(callee):
                    method = _method(module, func, callee)
                    return n, method is not None and _strips_tools(method, set())
    return None


def _method(module, func, name):
    for cls in (n for n in statements(module.tree) if isinstance(n, ast.ClassDef)):
        if func in cls.body:
            return next((m for m in cls.body if isinstance(m, _FUNCS) and m.name == name), None)
    return None


def _blocks(node):
    for name in ("body", "orelse", "finalbody"):
        blk = getattr(node, name, None)
        if isinstance(blk, list) and blk and isinstance(blk[0], ast.stmt):
            yield blk
    for h in getattr(node, "handlers", []) or []:
        yield h.body

