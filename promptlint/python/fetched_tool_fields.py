"""A tool definition given a value its function fetches anew on each call: facts for PRM101.

Tool definitions come first in a request's cached prefix (before the system prompt and the
history, OpenAI and Anthropic). A function that builds the tools of a request and writes into a
tool's description (or name, parameters, input schema) a value it awaited on this call (`cwd =
await get_terminal_cwd(url)`, also one of the results of `asyncio.gather(...)`) makes the very
front of the request depend on that value: whenever it differs from the previous request's, the
tools, the system prompt and the whole history are processed uncached.

Read, in an `async` function: a name bound from an expression that awaits (`x = await f(...)`, `x,
y = await asyncio.gather(...)`), read in the value written to a definition field of a tool: an
assignment to `T["description"]` (also `+=`, or the attribute `T.description`) where `T` is named for
a tool (`tool_spec`, `tool_def`; not `tool_call`: `prompt_names.tools_named`) or the function is named
for tools (`get_terminal_tools`), or a dict display with a description and parameters or an input
schema beside it (a name beside it in a function named for tools); the name interpolated into text there (an f-string, a
`.format` or `%` argument: a value put into the definition's text, not a definition fetched whole,
such as an MCP server's listing). A value the function takes as a parameter or computes
without awaiting is not read (its volatility is not known here).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .prompt_names import tools_named
from .walk import own_nodes, statements

#: The fields of a tool definition the model reads (and the cache keys on).
_FIELDS = ("description", "name", "parameters", "input_schema", "inputSchema")
#: Keys beside a description that make a dict display a tool definition (a name alone does only in a
#: function named for tools: records of many kinds have a name and a description).
_SCHEMAS = ("parameters", "input_schema", "inputSchema")


@dataclass
class FetchedField:
    """`node`: the read of the awaited name in the written value (where it enters the definition);
    `target`: the field's source text (`tool_spec['description']`); `name`: the awaited name;
    `fetched`: the statement that awaits it; `function`: the function's name."""

    node: ast.Name
    target: str
    name: str
    fetched: ast.stmt
    function: str


def _awaited(func) -> dict[str, ast.stmt]:
    """The names the function binds from an expression that awaits, each to its first binding."""
    out: dict[str, ast.stmt] = {}
    for node in own_nodes(func, body_only=True):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None \
                and any(isinstance(n, ast.Await) for n in ast.walk(node.value)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        out.setdefault(n.id, node)
    return out


def _field_of(target) -> tuple[ast.expr, str] | None:
    """(the object, the field) of `T["description"]` or `T.description`, else None."""
    if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) \
            and target.slice.value in _FIELDS:
        return target.value, target.slice.value
    if isinstance(target, ast.Attribute) and target.attr in _FIELDS:
        return target.value, target.attr
    return None


def _tool_named(node) -> bool:
    """A name (or attribute) named for a tool definition (`tool_spec`; not `tool_call`, `tool_result`)."""
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return bool(name) and tools_named(name)


def _reads(value, awaited: dict[str, ast.stmt]) -> ast.Name | None:
    """The first awaited name the value interpolates into text (an f-string's `{x}`, an argument
    of `.format(...)`, the right of `"..." % x`); a value that is the fetched text itself (a
    server's own description of its tool) is the definition, not a value put into one."""
    holders = []
    for n in ast.walk(value):
        if isinstance(n, ast.FormattedValue):
            holders.append(n.value)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "format":
            holders.extend([*n.args, *(k.value for k in n.keywords)])
        elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) and isinstance(n.left, (ast.Constant, ast.JoinedStr)):
            holders.append(n.right)
    return next((n for h in holders for n in ast.walk(h) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                 and n.id in awaited), None)


def find_fetched_tool_fields(module) -> list[FetchedField]:
    """The tool definitions written with a value awaited on the call (the module docstring), in
    source order; one per field written."""
    out: list[FetchedField] = []
    source = module.source
    if "await" not in source or "description" not in source or "async def" not in source:
        return out  # the cheap test first
    lines = source.splitlines()
    for func in (n for n in statements(module.tree) if isinstance(n, ast.AsyncFunctionDef)):
        text = "\n".join(lines[func.lineno - 1:func.end_lineno or func.lineno])
        if "await" not in text or "description" not in text and "name" not in text and "parameters" not in text:
            continue  # (the cheap test again, on the function's own text)
        awaited = None
        for node in own_nodes(func, body_only=True):
            found = []
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    field = _field_of(t)
                    if field is not None and (_tool_named(field[0]) or tools_named(func.name)):
                        found.append((ast.unparse(t), node.value))
            elif isinstance(node, ast.Dict):
                keys = {k.value: v for k, v in zip(node.keys, node.values)
                        if isinstance(k, ast.Constant) and isinstance(k.value, str)}
                if "description" in keys and any(k in keys for k in _SCHEMAS) or \
                        tools_named(func.name) and "description" in keys and "name" in keys:
                    found.append(("the tool's `description`", keys["description"]))
            if not found:
                continue
            if awaited is None:
                awaited = _awaited(func)
            for target, value in found:
                read = _reads(value, awaited) if awaited else None
                if read is not None and awaited[read.id] is not node:
                    out.append(FetchedField(read, target, read.id, awaited[read.id], func.name))
    return sorted(out, key=lambda f: (f.node.lineno, f.node.col_offset))
