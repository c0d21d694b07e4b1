"""A request body of Anthropic's Messages API that a function builds and returns for another
function to send: a request processor's `create_request(self, generic_request)` whose dict a base
class posts with an HTTP client (`session.post(url, json=request)`) or queues for a batch, where no
SDK call shows the request. One layout at the `return`, read as the SDK call with those keyword
arguments would be (`sdks/anthropic.messages`), a `python-constant` candidate: a send site of the
tree that carries its text judges it there instead (`judged.py`).

The body is a dict (in every variant the function builds: keys set in branches) with the keys the
Messages API requires, `model`, `messages` and `max_tokens`, and a top-level `system` in one
variant or none in a module that imports no other provider's SDK (OpenAI's chat shape and
LiteLLM's take the system prompt among the messages, and `max_tokens` too), returned by a function
of a module that imports the Anthropic SDK.
"""
from __future__ import annotations

import ast

from .flow.variants import dict_variants, merged_dict
from ..judged import BODY_API
from ..model import Kind, Segment, Volatility
from .flow.values import Alt, Mapping, Text
from .layout import dict_entries
from .sdks import anthropic
from .sdks.base import Call

_REQUIRED = ("model", "messages", "max_tokens")
#: Other SDKs whose request dicts a module that imports them may build with those keys.
_OTHERS = ("openai", "litellm", "google", "mistralai", "cohere", "groq", "together")


def may_return(module) -> bool:
    """Cheap test of the module: it imports the Anthropic SDK and writes the keys of a body."""
    cached = module._pieces.get("request bodies")
    if cached is None:
        roots = {name.split(".", 1)[0] for name in module.imports.values()}
        cached = "anthropic" in roots and all(f'"{k}"' in module.source or f"'{k}'" in module.source
                                              for k in _REQUIRED)
        module._pieces["request bodies"] = cached
    return cached


def returned(finder, node: ast.Return, frame) -> bool:
    """Add the layout of the Messages API body `node` returns (see the module docstring); True
    when one was added."""
    value = finder.ev.eval(node.value, frame)
    variants = [value] if isinstance(value, Mapping) else dict_variants(value, merge=False) \
        if isinstance(value, Alt) else None
    if not variants or any(v.repeated or not all(k in v.items for k in _REQUIRED) for v in variants):
        return False
    roots = {name.split(".", 1)[0] for name in finder.m.imports.values()}
    if not any("system" in v.items for v in variants) and roots & set(_OTHERS):
        return False
    body = variants[0] if len(variants) == 1 else merged_dict(variants, getattr(value, "fallback", False))
    m = finder.m
    code = m.code(node.value)
    where = next((v.node for v in variants if isinstance(v.node, ast.Dict)), node.value)
    items = dict(body.items)
    passed = _passed_messages(where, frame.func, m)
    if passed is not None:
        items["messages"] = passed
    # (the body as the one argument of a send call at the dict display that writes it, else at the
    # `return`: the facts of a send call read it there)
    sent = ast.copy_location(ast.Call(func=ast.Name(id="send", ctx=ast.Load()), args=[node.value], keywords=[]),
                             where)
    call = Call(node=sent, chain="messages.create", qual="", method="create",
                kwargs=dict_entries(items, body.key_spans, m.span(node.value), code),
                args=[], frame=frame)
    before = len(finder.b.layouts)
    finder.b.unplaced = []
    anthropic.messages(finder.b, call)
    added = finder.b.layouts[before:]
    for layout in added:
        layout.source, layout.api = "python-constant", BODY_API
    if added:
        finder.request_body(added, call)
    return bool(added)


def _passed_messages(where, func, m):
    """The messages of the body as the parameter they are read from, when the dict display writes
    them as a parameter of the function or a part of one (`"messages": generic_request.messages`):
    the callers' list, judged as the function's own code shows it (the values its callers' objects
    were built with are theirs); None otherwise."""
    if not isinstance(where, ast.Dict) or not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)} - {"self", "cls"}
    for key, value in zip(where.keys, where.values):
        if isinstance(key, ast.Constant) and key.value == "messages" and value is not None:
            root = value
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if isinstance(root, ast.Name) and root.id in params:
                return Text([Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr=m.code(value),
                                     span=m.span(value), evidence=f"the parameter `{root.id}`")])
    return None
