"""A conversation sent as chat messages or rendered as one raw prompt, by a test on its content:
facts for PRM104.

An adapter that serves both a chat endpoint and a raw completion endpoint often chooses per
request: `input_dict["messages"] = [...]` when the request holds an image (the raw prompt template
has no place for one), else `input_dict["prompt"] = render(request)` (the model's own chat
template, rendered in the code). When the test reads the request's content (`media_present =
request_has_media(request)`), a conversation switches format the first time that content appears
(the first image): the next request is rendered by another template (the server's instead of the
code's, or the other way round) and shares no prefix with the cached requests of the conversation,
whose history is processed uncached once more. A test of configuration only (`not llama_model`, a
flag of `self`) gives one format per deployment: no switch.

Read, in a function with a parameter named for a request or a conversation (`request`, `messages`,
`conversation`, `history`, `chat`): an `if` whose one branch writes the conversation under a
`messages` key (`d["messages"] = ...`) and whose other branch writes a `prompt` key, when its test
reads that parameter (also through a name the function binds from a call given it:
`media_present = request_has_media(request)`), not only an attribute of it that is fixed for the
conversation (`request.model`, `request.stream`).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .walk import own_nodes, statements

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_CONVERSATION_PARAMS = {"request", "req", "messages", "conversation", "history", "chat", "chat_request"}
#: Attributes of a request fixed for its conversation: a test of them chooses no format per request.
_FIXED_ATTRS = {"model", "stream", "model_id", "provider", "sampling_params", "tools", "tool_config"}


@dataclass
class FormatSwitch:
    """`test`: the `if` test that chooses; `messages` / `prompt`: the writes of each format;
    `reads`: the source text of what the test reads of the conversation (`media_present`);
    `function`: the function's name."""

    test: ast.expr
    messages: ast.stmt
    prompt: ast.stmt
    reads: str
    function: str


def might_switch(source: str) -> bool:
    """The cheap test: both keys are written in the module."""
    return '"prompt"]' in source.replace("'", '"') and '"messages"]' in source.replace("'", '"')


def _writes(body: list[ast.stmt], key: str) -> ast.stmt | None:
    """The first statement of a branch (not of a nested `if`'s other branch) that writes `key`
    of a dict (`d[key] = ...`)."""
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant)
                                                    and t.slice.value == key for t in node.targets):
                return stmt
    return None


def _content_reads(test, params: set[str], bound: dict[str, ast.expr]) -> str | None:
    """The source text of what the test reads of the conversation's content, or None: a
    parameter read whole (not only `param.model`), or a name bound from a call given one."""
    parents = {id(c): n for n in ast.walk(test) for c in ast.iter_child_nodes(n)}
    for node in ast.walk(test):
        if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
            continue
        if node.id in params:
            parent = parents.get(id(node))
            if isinstance(parent, ast.Attribute) and parent.attr in _FIXED_ATTRS:
                continue
            if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "isinstance":
                continue  # the request's kind (a chat or a completion request): fixed for the conversation
            return node.id
        value = bound.get(node.id)
        if value is not None and isinstance(value, ast.Call) and any(
                isinstance(a, ast.Name) and a.id in params for a in [*value.args, *(k.value for k in value.keywords)]):
            return node.id
    return None


def format_switches(module) -> list[FormatSwitch]:
    """The formats chosen by a test on the conversation's content (the module docstring), in
    source order; one per function."""
    out: list[FormatSwitch] = []
    if not might_switch(module.source):
        return out
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        a = func.args
        params = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]} & _CONVERSATION_PARAMS
        if not params:
            continue
        nodes = own_nodes(func, body_only=True)
        bound = {t.id: n.value for n in nodes if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        for node in sorted((n for n in nodes if isinstance(n, ast.If) and n.orelse), key=lambda n: n.lineno):
            for first, second in ((node.body, node.orelse), (node.orelse, node.body)):
                messages, prompt = _writes(first, "messages"), _writes(second, "prompt")
                if messages is None or prompt is None:
                    continue
                reads = _content_reads(node.test, params, bound)
                if reads is not None:
                    out.append(FormatSwitch(node.test, messages, prompt, reads, func.name))
                break
            if out and out[-1].function == func.name:
                break
    return sorted(out, key=lambda s: (s.test.lineno, s.test.col_offset))
