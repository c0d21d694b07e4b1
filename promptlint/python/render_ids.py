"""A new id given to the variables a prompt is rendered with: facts for PRM103 (the rule judges them).

A call named for rendering a prompt (`render_task_prompt(...)`, `format_prompt(...)`,
`render_template(...)`: a word `render` or `format` with a word `prompt`, `template` or
`instructions`) whose template the analysis does not read (a task's prompt chosen by name, a
template of a configuration file) is handed a value new on every call (`uuid.uuid4()`, a random
value, `classify.UNIQUE_ID_CALLS`, or a helper of the package tree that returns one,
`new_uuid()[0:4]`), directly, in a dict of its variables (`context={"flow_name": name}`) or
through local names (`flow_id = new_uuid()[:4]`, `name = f"dynamic_{flow_id}"`): the rendered
prompt holds a different value on every call, and nothing after it in the prompt is shared
between calls. Where the template places it is not read: info, where the id is made. A value
given under a name of tracing (`trace_id=`, `{"run_id": ...}`, `metadata=`) is not prompt text.
"""
from __future__ import annotations

import ast
import re

from .prompt_names import words
from .converted_ids import makes_id
from .module import callee_name, statements
from .walk import own_nodes, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_RENDER = frozenset({"render", "format"})
_PROMPT = frozenset({"prompt", "template", "instructions", "instruction"})
#: Words of a keyword or key that hold tracing data, not prompt text.
_TRACING = frozenset({"trace", "run", "request", "log", "metadata", "tags", "callbacks", "span", "session"})
#: The text of a call named so, in snake case (bounded repetition: linear): a module without one is
#: not read. `ENDS`: what the name's text ends with, looked for first (a scan for the pattern is slower).
TEXT = re.compile(r"(?:render|format)_\w{0,30}(?:prompt|template|instructions?)\w{0,20}\(")
ENDS = ("prompt(", "template(", "instructions(", "instruction(")


def may_hold(source: str) -> bool:
    """True when `source` may hold the shape (`TEXT`, after the cheaper tests)."""
    return ("render_" in source or "format_" in source) and any(e in source for e in ENDS) \
        and TEXT.search(source) is not None


def render_ids(module, project) -> list[tuple[ast.Call, ast.Call]]:
    """(the call that makes the id, the render call it is handed to) for each function of the
    module, in source order; one per function. `project` resolves id helpers of the package tree."""
    helpers: dict[str, bool] = {}
    out = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        a, b = module.offsets(func)
        if TEXT.search(module.source, a, b) is None:
            continue  # (its text renders no prompt by such a call: not walked)
        own = own_nodes(func, body_only=True)
        renders = [n for n in own if isinstance(n, ast.Call) and words(callee_name(n)) & _RENDER
                   and words(callee_name(n)) & _PROMPT]
        if not renders:
            continue
        assigned: dict[str, list[ast.AST]] = {}
        for n in own:
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    if isinstance(t, ast.Name):
                        assigned.setdefault(t.id, []).append(n.value)
        for call in sorted(renders, key=lambda c: (c.lineno, c.col_offset)):
            made = next((m for value in _handed(call) for m in _ids_in(value, assigned, module, project, helpers)), None)
            if made is not None:
                out.append((made, call))
                break
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))


def _handed(call: ast.Call) -> list[ast.AST]:
    """The values a render call is handed as prompt variables: its arguments and keywords (not
    those named for tracing), and the values of a dict display among them (not tracing keys)."""
    values = [*call.args, *(k.value for k in call.keywords if k.arg is None or not words(k.arg) & _TRACING)]
    out = []
    for v in values:
        if isinstance(v, ast.Dict):
            out += [x for k, x in zip(v.keys, v.values)
                    if not (isinstance(k, ast.Constant) and isinstance(k.value, str) and words(k.value) & _TRACING)]
        else:
            out.append(v)
    return out


def _ids_in(value, assigned: dict, module, project, helpers: dict, depth: int = 0):
    """The id calls `value` is made from, itself or through local names (three steps)."""
    for n in subtree(value):
        if isinstance(n, ast.Call) and makes_id(module, n, project, helpers):
            yield n
        elif isinstance(n, ast.Name) and depth < 3:
            for source in assigned.get(n.id, ()):
                yield from _ids_in(source, assigned, module, project, helpers, depth + 1)
