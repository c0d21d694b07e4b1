"""A tool list a loop sends its requests with, rebound in the loop to another list: facts for PRM204.

    tools = [*self._tools, final_answer]
    while state.result is None:
        response = await self._llm.run(state.memory.messages, tools=tools, ...)
        ...
        if not parsed:
            tools = [final_answer]          # the next request of the conversation: other tools
            continue

The request passes a local name as its tools (`tools=tools`, `functions=`) and, as its
conversation (first argument or `messages=` / `input=` / `contents=`), a list the loop does not
build anew (an attribute such as `state.memory.messages`, or a name assigned outside the loop): the
same conversation on every pass. A statement of the loop that binds the tools name to another
non-empty list display than the one it had before the loop makes the next requests of that
conversation start with other tool definitions. Emptying the list (`tools = []`, `tools=None`) is
read by `tool_switches` (at a limit, or a later request without tools).

The tool choice of such a loop's requests is read the same way (`find_tool_choice_rebound_in_loop`):

    tool_choice = state.tool_choice                 # a tool forced on the first request
    while True:
        output = await model.generate(input=state.messages, tools=state.tools, tool_choice=tool_choice)
        ...
        if isinstance(tool_choice, ToolFunction):
            tool_choice = "auto"                    # the next requests of the conversation: "auto"

The request passes a local name as its `tool_choice`, the conversation is the same on every pass,
the name is bound before the loop, and a statement of the loop binds it to a constant (`"auto"`,
`"none"`, `None`) or a dict display other than what it had before the loop; or the request's
`tool_choice` is a conditional expression of two different constants whose test reads a name that
changes on each pass (`tool_choice="required" if step == 0 else "auto"`).
"""
from __future__ import annotations

import ast

from .module import statements
from .text_gates import holds_any
from .walk import own_nodes, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_TOOL_KEYWORDS = ("tools", "functions")
_CONVERSATION_KEYWORDS = ("messages", "input", "contents")


def _assigned(nodes, name: str) -> list[ast.Assign]:
    return [n for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name]


def _conversation(call: ast.Call):
    """The expression a request sends as its conversation, or None."""
    if call.args:
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg in _CONVERSATION_KEYWORDS), None)


def _same_each_pass(sent, loop_nodes) -> bool:
    """True when the conversation expression is not built anew by the loop: an attribute chain
    (`state.memory.messages`), or a name the loop does not assign."""
    if isinstance(sent, ast.Attribute):
        return all(isinstance(n, (ast.Attribute, ast.Name, ast.expr_context)) for n in subtree(sent))
    if isinstance(sent, ast.Name):
        return not _assigned(loop_nodes, sent.id) and not any(
            isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)) and isinstance(n.target, ast.Name)
            and n.target.id == sent.id for n in loop_nodes)
    return False


def find_tools_rebound_in_loop(module) -> list[tuple[ast.Assign, ast.Call, str]]:
    """(the rebinding statement, the request, the function's name) for each loop whose requests
    send one conversation with a tool list that the loop rebinds to another list (see the module
    docstring); one per function."""
    out = []
    if "tools=" not in module.source and "functions=" not in module.source:
        return out
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        if not holds_any(module, func, _TOOL_KEYWORDS) or not holds_any(module, func, ("for", "while")):
            continue  # (a request's tools keyword in a loop: the cheap test before the walk)
        own = own_nodes(func)
        for loop in (n for n in own if isinstance(n, _LOOPS)):
            inside = own_nodes(loop, body_only=True)
            found = _rebound(func, own, loop, inside)
            if found is not None:
                out.append((*found, func.name))
                break
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))


def _rebound(func, own, loop, inside):
    for call in sorted((n for n in inside if isinstance(n, ast.Call)), key=lambda c: (c.lineno, c.col_offset)):
        tools = next((k.value for k in call.keywords if k.arg in _TOOL_KEYWORDS), None)
        if not isinstance(tools, ast.Name):
            continue
        sent = _conversation(call)
        if sent is None or not _same_each_pass(sent, inside):
            continue
        before = [a for a in _assigned(own, tools.id) if a.lineno < loop.lineno]
        if not before:
            continue
        first = ast.unparse(before[-1].value)
        for again in _assigned(inside, tools.id):
            value = again.value
            if isinstance(value, (ast.List, ast.Tuple)) and value.elts and ast.unparse(value) != first:
                return again, call
    return None


def find_tool_choice_rebound_in_loop(module) -> list[tuple[ast.Assign | ast.IfExp, ast.Call, str]]:
    """(the rebinding statement or the per-pass conditional expression, the request, the
    function's name) for each loop whose requests send one conversation with a `tool_choice`
    that changes between passes (see the module docstring); one per function."""
    out = []
    if "tool_choice=" not in module.source:
        return out
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        if not holds_any(module, func, ("tool_choice",)) or not holds_any(module, func, ("for", "while")):
            continue
        own = own_nodes(func)
        for loop in (n for n in own if isinstance(n, _LOOPS)):
            found = _choice_rebound(own, loop, own_nodes(loop, body_only=True))
            if found is not None:
                out.append((*found, func.name))
                break
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))


def _choice_rebound(own, loop, inside):
    for call in sorted((n for n in inside if isinstance(n, ast.Call)), key=lambda c: (c.lineno, c.col_offset)):
        choice = next((k.value for k in call.keywords if k.arg == "tool_choice"), None)
        if not isinstance(choice, (ast.Name, ast.IfExp)):
            continue
        sent = _conversation(call)
        if sent is None or not _same_each_pass(sent, inside):
            continue
        if isinstance(choice, ast.IfExp):
            if _per_pass(choice, loop, inside):
                return choice, call
            continue
        before = [a for a in _assigned(own, choice.id) if a.lineno < loop.lineno]
        if not before:
            continue
        first = ast.unparse(before[-1].value)
        for again in _assigned(inside, choice.id):
            if isinstance(again.value, (ast.Constant, ast.Dict)) and ast.unparse(again.value) != first:
                return again, call
    return None


def _per_pass(choice: ast.IfExp, loop, inside) -> bool:
    """True for `"required" if step == 0 else "auto"`: two different constants chosen by a test
    that reads a name changing on each pass of the loop (its own variable, a name it assigns)."""
    if not (isinstance(choice.body, (ast.Constant, ast.Dict)) and isinstance(choice.orelse, (ast.Constant, ast.Dict))):
        return False
    if ast.unparse(choice.body) == ast.unparse(choice.orelse):
        return False
    varying = {n.id for n in subtree(loop.target) if isinstance(n, ast.Name)} if isinstance(loop, (ast.For, ast.AsyncFor)) else set()
    for n in inside:
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, (ast.AugAssign, ast.AnnAssign)) else []
        varying.update(x.id for t in targets for x in subtree(t) if isinstance(x, ast.Name))
    return any(isinstance(n, ast.Name) and n.id in varying for n in subtree(choice.test))
