"""A request body of Anthropic's Messages API that a function builds and returns, or hands to
another function, for it to send: a request processor's `create_request(self, generic_request)`
whose dict a base class posts with an HTTP client (`session.post(url, json=request)`) or queues for
a batch, a runner's `self._execute_request(request | {"model": self._model_id})` that a base class
posts to the URL the class names, a Bedrock client's `return json.dumps({"anthropic_version": ...,
"messages": ...})` for `invoke_model(body=...)`, where no SDK call shows the request. One layout
at the dict display (else at the `return` or the call), read as the SDK call with those keyword
arguments would be (`sdks/anthropic.messages`), a `python-constant` candidate: a send site of the
tree that carries its text judges it there instead (`judged.py`).

The module shows Anthropic's endpoint: it imports the Anthropic SDK, writes the Messages API's URL
(`https://api.anthropic.com/v1/messages`, a path ending in `/v1/messages`) or Bedrock's and
Vertex's version key of a Claude body (`anthropic_version`). The body is a dict (in every variant
the function builds: keys set in branches) with `messages` and `max_tokens` (both required by the
Messages API), and `anthropic_version` (the body of Claude among Bedrock's providers), or `model`
in a module that imports the SDK, or neither in a module that writes the URL (the model is added
where it is sent), and a
top-level `system` in one variant or none in a module that imports no other provider's SDK
(OpenAI's chat shape and LiteLLM's take the system prompt among the messages, and `max_tokens`
too). A body handed on is a positional argument, or the `json=`, `body=`, `payload=`,
`request=` or `data=` keyword, of a call that is no SDK send, written as a name, a dict, `dict(...)`
or a merge (`request | {...}`).

Bedrock's runtime sends such a body itself: `invoke_model(modelId=..., body=...)` and
`invoke_model_with_response_stream` on a receiver, in any module that calls them (the body needs
`anthropic_version` then, wherever it is built). Its `body=` is `json.dumps(...)` of a dict, also
through a name bound once to it (`request_json = json.dumps(request_body)`), whose value is read as
any other (built in branches, by a helper, in another module); among the variants a client of
several providers builds (`request_body = {"inputText": ...}` for Titan in another branch), those
with `anthropic_version` are Claude's request. The layout is the send's (`python-call`, provider
"bedrock", api the method's name, the model its `modelId`), at Claude's dict display when the
sending function writes it, else at the `body=` argument (a helper's dict, defaults `__init__`
keeps and the send copies); the dict a helper returns for it is judged there.
"""
from __future__ import annotations

import ast
import re

from .flow.variants import dict_variants, merged_dict
from ..judged import BODY_API
from ..model import Kind, Segment, Volatility
from .flow.values import Alt, Mapping, Text
from .layout import dict_entries
from .sdks import anthropic
from .sdks.base import Call

_REQUIRED = ("messages", "max_tokens")
#: The Messages API's URL (not its OpenAI-compatible `chat/completions`) alone: a module of Bedrock's
#: bodies writes `anthropic_version` only in the bodies bound for Claude.
_URL = re.compile(r"/v1/messages\b|api\.anthropic\.com(?![^\n]*chat/completions)")
#: Anthropic's endpoint written in a module: the Messages API's URL, or the version key of a Claude
#: body on Bedrock or Vertex.
_ENDPOINT = re.compile(_URL.pattern + r"|[\"']anthropic_version[\"']")
#: Calls that read or copy a body and send nothing.
_READERS = frozenset(("print", "len", "str", "repr", "isinstance", "copy", "deepcopy", "dumps", "dump", "dict",
                      "append", "extend", "update", "debug", "info", "warning", "error", "exception", "log"))
#: Bedrock runtime's sends of a provider's own body as JSON text (`body=json.dumps(...)`).
_INVOKES = frozenset(("invoke_model", "invoke_model_with_response_stream"))
#: The keywords of a call that hand it a request body.
_BODY_KEYWORDS = ("json", "body", "payload", "request", "data")
#: Other SDKs whose request dicts a module that imports them may build with those keys.
_OTHERS = ("openai", "litellm", "google", "mistralai", "cohere", "groq", "together")


def may_return(module) -> bool:
    """Cheap test of the module: it shows Anthropic's endpoint (the SDK imported, the URL or the
    version key written) and writes the keys of a body (as strings or keywords)."""
    cached = module._pieces.get("request bodies")
    if cached is None:
        roots = {name.split(".", 1)[0] for name in module.imports.values()}
        src = module.source
        cached = ("anthropic" in roots or _endpoint(module)) and all(
            f'"{k}"' in src or f"'{k}'" in src or f"{k}=" in src for k in _REQUIRED)
        module._pieces["request bodies"] = cached
    return cached


def may_invoke(module) -> bool:
    """Cheap test of the module: it calls Bedrock's `invoke_model` (or its streaming variant),
    whose body may be a Claude body built anywhere in the package."""
    return ".invoke_model" in module.source


def might_hold(source: str) -> bool:
    """Text test for the prefilter: the text writes Anthropic's endpoint (`_ENDPOINT`) and the
    keys of a body (a module that imports the SDK passes the prefilter on its own)."""
    return ("anthropic" in source or "/v1/messages" in source) and "max_tokens" in source and "messages" in source \
        and _ENDPOINT.search(source) is not None


def _endpoint(module) -> bool:
    """The module writes Anthropic's endpoint (`_ENDPOINT`)."""
    found = module._pieces.get("anthropic endpoint")
    if found is None:
        found = module._pieces["anthropic endpoint"] = _ENDPOINT.search(module.source) is not None
    return found


def _url(module) -> bool:
    """The module writes the Messages API's URL (`_URL`)."""
    found = module._pieces.get("anthropic url")
    if found is None:
        found = module._pieces["anthropic url"] = _URL.search(module.source) is not None
    return found


def handed(finder, node: ast.Call, func, frame) -> bool:
    """Add the layout of a Messages API body handed to the call `node` in the function `func` (no
    SDK send: see the module docstring); True when one was added. Not a call whose result is dropped (a
    statement: a helper that edits or logs the body), nor one whose result is another call's
    argument (`create(**wrapped(params))`: it converts the body for that call), nor one whose
    result the function hands on again (`request = self._purge_none_values(dict(...))`, then
    `self._execute_request(request)`: the body is judged where it is sent), nor one that only
    reads or copies it (`print`, `json.dumps`, `copy.deepcopy`: `_READERS`)."""
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
    invoke = _invoke(node, name)
    if invoke is None and not may_return(finder.m):
        return False  # (a module that only calls `invoke_model`: its body must show Claude's version key)
    if name in _READERS or invoke is None and (_handed_on(node, func) or _consumed(node, func) or _dropped(node, func)):
        return False
    args = (invoke,) if invoke is not None else (*node.args, *(k.value for k in node.keywords if k.arg in _BODY_KEYWORDS))
    for arg in args:
        if invoke is not None and isinstance(arg, ast.Name):
            arg = _dumped(arg, node, func) or arg  # `request_json = json.dumps(request_body)`, then `body=request_json`
        if isinstance(arg, (ast.Name, ast.Dict)) or isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.BitOr) \
                or isinstance(arg, ast.Call) and _dict_call(arg):
            if _body(finder, node, arg, frame, invoke=node if invoke is not None else None):
                return True
    return False


def _invoke(node: ast.Call, name) -> ast.expr | None:
    """The `body=` of Bedrock's `invoke_model(modelId=..., body=...)` (or
    `invoke_model_with_response_stream`) on a receiver (the send itself: its result is the
    response, whatever the function does with it); None for any other call."""
    if name not in _INVOKES or not isinstance(node.func, ast.Attribute):
        return None
    return next((k.value for k in node.keywords if k.arg == "body"), None)


def _dumped(name: ast.Name, node: ast.Call, func) -> ast.Call | None:
    """The `json.dumps(...)` call the name holds at `node`: its one assignment in `func`, before
    `node` (`request_json = json.dumps(request_body)`); None when it has another or several."""
    values = [stmt.value for stmt in ast.walk(func) if isinstance(stmt, (ast.Assign, ast.AnnAssign))
              and any(isinstance(t, ast.Name) and t.id == name.id for t in
                      (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]))]
    if len(values) != 1 or getattr(values[0], "lineno", node.lineno) > node.lineno:
        return None
    value = values[0]
    return value if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
        and value.func.attr == "dumps" and value.args else None


def _dropped(node: ast.Call, func) -> bool:
    """The result of `node` is dropped (`self._merge_optional_top_p(input_body)` as a statement):
    a helper that edits or logs the body, not its send, whose result is the response."""
    return any(isinstance(n, ast.Expr) and (n.value is node or isinstance(n.value, ast.Await) and n.value.value is node)
               for n in ast.walk(func))


def _consumed(node: ast.Call, func) -> bool:
    """The result of `node` is an argument of another call of `func` (`create(**wrapped(params))`):
    `node` converts the body for that call, which sends it."""
    def inner(value):
        while isinstance(value, (ast.Await, ast.Starred)):
            value = value.value
        return value
    return any(isinstance(n, ast.Call) and any(inner(a) is node for a in (*n.args, *(k.value for k in n.keywords)))
               for n in ast.walk(func))


def _handed_on(node: ast.Call, func) -> bool:
    """The result of `node` is assigned to a name that a later call of `func` takes as an argument."""
    target = None
    for stmt in ast.walk(func):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and (stmt.value is node or isinstance(stmt.value, ast.Await) and stmt.value.value is node):
            target = stmt.targets[0].id
            break
    if target is None:
        return False
    return any(isinstance(n, ast.Call) and n is not node and getattr(n, "lineno", 0) >= node.lineno
               and any(isinstance(sub, ast.Name) and sub.id == target
                       for a in (*n.args, *(k.value for k in n.keywords)) for sub in ast.walk(a))
               for n in ast.walk(func))


def _dict_call(node: ast.Call) -> bool:
    """`dict(...)` or `json.dumps(...)` of a body."""
    func = node.func
    return isinstance(func, ast.Name) and func.id == "dict" or isinstance(func, ast.Attribute) and func.attr == "dumps"


def returned(finder, node: ast.Return, frame) -> bool:
    """Add the layout of the Messages API body `node` returns (see the module docstring); True
    when one was added."""
    return _body(finder, node, node.value, frame)


def _body(finder, node, expr, frame, invoke: ast.Call | None = None) -> bool:
    """Add the layout of the Messages API body `expr` (returned by, or handed to, `node`; sent by
    Bedrock's `invoke`, whose `modelId` is its model, when given)."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "dumps" and expr.args:
        expr = expr.args[0]  # `json.dumps(body)`: Bedrock's `invoke_model(body=...)` takes the text
    value = finder.ev.eval(expr, frame)
    variants = [value] if isinstance(value, Mapping) else dict_variants(value, merge=False) \
        if isinstance(value, Alt) else None
    if invoke is not None and variants:
        # (the bodies of Claude among the bodies of the providers a Bedrock client serves: branches
        # that write Titan's `inputText` or Nova's body send no Claude request)
        variants = [v for v in variants if "anthropic_version" in v.items] or variants
    if not variants or any(v.repeated or not all(k in v.items for k in _REQUIRED) for v in variants):
        return False
    roots = {name.split(".", 1)[0] for name in finder.m.imports.values()}
    if not _url(finder.m) and not all("anthropic_version" in v.items for v in variants) \
            and not ("anthropic" in roots and all("model" in v.items for v in variants)):
        return False  # (a Bedrock module's body of another provider: Nova, Llama)
    if not any("system" in v.items for v in variants) and roots & set(_OTHERS):
        return False
    body = variants[0] if len(variants) == 1 else merged_dict(variants, getattr(value, "fallback", False))
    m = finder.m
    code = m.code(expr)
    here = m.span(expr).filename
    func = frame.func if invoke is not None else None
    # (not a dict another module writes; for Bedrock's send, one the sending function writes: a
    # dict of defaults that `__init__` keeps, or a helper's, is reported at the send)
    where = next((v.node for v in variants if isinstance(v.node, (ast.Dict, ast.Call))
                  and (v.span is None or v.span.filename == here)
                  and (func is None or func.lineno <= v.node.lineno <= (func.end_lineno or func.lineno))), expr)
    items = dict(body.items)
    passed = _passed_messages(where, frame.func, m)
    if passed is not None:
        items["messages"] = passed
    model = next((k.value for k in invoke.keywords if k.arg == "modelId"), None) if invoke is not None else None
    # (the body as the one argument of a send call at the dict display that writes it, else at the
    # `return`: the facts of a send call read it there)
    # (its keys as the keywords of the call: a dict display's own, else the body as `**body`, so
    # the facts of a converted prompt read what each key is computed from)
    keywords = [ast.keyword(arg=k.value, value=v) for k, v in zip(expr.keys, expr.values)
                if isinstance(k, ast.Constant) and isinstance(k.value, str)] if isinstance(expr, ast.Dict) \
        else [ast.keyword(arg=None, value=expr)]
    sent = ast.copy_location(ast.Call(func=ast.Name(id="send", ctx=ast.Load()), args=[expr], keywords=keywords), where)
    kwargs = dict_entries(items, body.key_spans, m.span(expr), code)
    if model is not None and "model" not in kwargs:
        kwargs["model"] = model  # (Bedrock's model id names the model: `anthropic.claude-...` is Bedrock's)
    call = Call(node=sent, chain="messages.create", qual="", method="create", kwargs=kwargs, args=[], frame=frame)
    before = len(finder.b.layouts)
    finder.b.unplaced = []
    anthropic.messages(finder.b, call)
    added = finder.b.layouts[before:]
    for layout in added:
        layout.source, layout.api = "python-constant", BODY_API
        if invoke is not None:  # the send itself, by Bedrock's runtime whatever its model id
            layout.source, layout.api, layout.provider = "python-call", invoke.func.attr, "bedrock"
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
