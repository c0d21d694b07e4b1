"""LiteLLM: `litellm.completion` / `acompletion` / `text_completion`, their retrying forms
`completion_with_retries` / `acompletion_with_retries` (which call `completion` with the same
keywords), and `Router(...).completion`: OpenAI's chat shape; the model string names the provider
(`anthropic/claude-...`)."""
from __future__ import annotations

import ast

from ..flow.configured import MARK
from ..flow.values import Alt, Obj, Text, is_none
from ..layout_values import variants_of
from .base import Sdk, Shape
from ..walk import last_name, subtree

_FUNCS = {"litellm.completion", "litellm.acompletion", "litellm.text_completion"}


def chat_like(b, call, api: str) -> None:
    frame = call.frame
    kw = call.kwargs
    parts = b.tools(kw.get("tools") or kw.get("functions"), frame, "nested")
    msg_parts, newest = b.message_parts(b.value(kw["messages"], frame), frame) if "messages" in kw else ([], None)
    prov, model = b.provider_for_model(b.static_model(kw.get("model"), frame), "litellm")
    if prov not in ("anthropic", "bedrock", "litellm") and _deployment_default(b.value(kw["model"], frame)):
        prov, model = "litellm", None  # (a default another deployment changes: LiteLLM routes by the model given)
    layout = b.add(call.node, "python-call", prov, api, model, parts + msg_parts,
                   None if newest is None else len(parts) + newest)
    if model is None and frame is not None and frame.func is not None:
        check = claude_check(frame.func)
        layout.claude_checked = frame.module.span(check) if check is not None else _claude_table(b, kw, frame)
        layout.claude_picked = check is None and layout.claude_checked is not None
        layout.other_models = check is None and (_other_models(b, kw, frame) or routed_elsewhere(frame.func, call.node))
    b.options(layout, kw, frame)


_CLAUDE = ("claude", "anthropic")


def claude_check(func: ast.AST) -> ast.expr | None:
    """The first test in `func` of a model name for a Claude model: `"claude" in model`,
    `"anthropic" in model.lower()`, `model.startswith(("anthropic/", "claude"))` (the tested
    name says `model`); None when there is none."""
    for node in subtree(func):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.In) \
                and _claude_text(node.left) and _names_model(node.comparators[0]):
            return node
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "startswith" \
                and node.args and _claude_text(node.args[0]) and _names_model(node.func.value):
            return node
    return None


def _claude_table(b, kw, frame):
    """The span of the table a model is picked from when its every name is a Claude model (or the
    name is passed on as given: `self.SHORTCUTS.get(name, name)` with Claude names only): the code
    knows the model is Claude; else None. A name the code writes for another provider, or none at
    all, is no evidence."""
    from ..layout_values import variants_of
    if "model" not in kw:
        return None
    value = b.value(kw["model"], frame)
    names = [b.static_text(v, frame) for v in variants_of(value)]
    known = [n for n in names if n is not None]
    if not known or not all(n.lower().split("/")[-1].startswith("claude") for n in known):
        return None
    return getattr(value, "span", None) or b.span_of(kw["model"])


def _deployment_default(value) -> bool:
    """True when a model value is a parameter of `__init__` with a default that no caller in the
    tree passes (`def __init__(self, model="gpt-4o")`, then `model=self.model`: `Alt.fallback`
    over the configured value, `flow.configured.MARK`): the default is one deployment's
    choice, drawn as its text elsewhere (Policy 7), and the model those who build the instance
    give, of any provider LiteLLM routes to, is not known here."""
    if not (isinstance(value, Alt) and value.fallback):
        return False
    return any(isinstance(o, Text) and o.segs and all(not s.is_static and s.evidence.endswith(MARK) for s in o.segs)
               for o in value.options)


def _other_models(b, kw, frame) -> bool:
    """True when the model names the code writes for this call (a table it is picked from, a
    default) name providers we know and none of them is a Claude model (`SHORTCUTS = {"gpt4": "gpt-4o", ...}`
    with `SHORTCUTS.get(name, name)`): the call is made for other providers' models; so it is when
    it names the server it sends to (`api_base="http://localhost:11434"`) and that is not Anthropic's."""
    from ..layout_values import variants_of
    for key in ("api_base", "base_url"):
        if key in kw:
            url = b.static_text(b.value(kw[key], frame), frame)
            if url is not None and "://" in url and "anthropic" not in url.lower():  # a URL, not None
                return True
    if "model" not in kw:
        return False
    value = b.value(kw["model"], frame)
    if _caller_unknown(b, value, frame) or _deployment_default(value):  # a model one caller gives says
        return False  # nothing of another's; nor does one deployment's default
    names = [b.static_text(v, frame) for v in variants_of(value)]
    # the names of a provider we know (`gpt-4o`, `openai/gpt-4.1`; not a test's "m")
    providers = [b.provider_for_model(n, None)[0] for n in names if n]
    known = [p for p in providers if p is not None]
    return bool(known) and not any(p in ("anthropic", "bedrock") for p in known)


#: LiteLLM routes that may serve a Claude model (`bedrock/anthropic.claude-...`, `vertex_ai/claude-...`,
#: `openrouter/anthropic/claude-...`): a test for one of them does not say the model is another's.
_CLAUDE_ROUTES = frozenset({"anthropic", "bedrock", "bedrock_converse", "vertex_ai", "vertex_ai_beta", "openrouter",
                            "azure_ai", "databricks", "snowflake", "litellm_proxy"})


def routed_elsewhere(func: ast.AST, call: ast.Call) -> bool:
    """True when `call` sits in the body of an `if` of `func` taken only for a model name routed to
    a provider that serves no Claude model: `if model.startswith("ollama/"):` (a LiteLLM route
    `X/` other than `_CLAUDE_ROUTES`, the tested name says `model`). The `else` is not."""
    for node in subtree(func):
        if isinstance(node, ast.If) and _other_route(node.test) \
                and any(n is call for stmt in node.body for n in subtree(stmt)):
            return True
    return False


def _other_route(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr == "startswith"
            and len(test.args) == 1 and _names_model(test.func.value)):
        return False
    arg = test.args[0]
    items = arg.elts if isinstance(arg, ast.Tuple) else [arg]
    prefixes = [i.value.lower() for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]
    return len(prefixes) == len(items) > 0 and all(
        "/" in p and p.split("/", 1)[0] not in _CLAUDE_ROUTES and not p.startswith(_CLAUDE) for p in prefixes)


def _caller_unknown(b, value, frame, depth: int = 0) -> bool:
    """True when a call site of the sending function passes a model the code does not write (a
    caller's setting, `model_name=self.config.model`) beside callers that write one (`"openai/o3-mini"`):
    an `Alt` of the callers' arguments (`per_caller`) with an option of no static name."""
    from ..layout_values import variants_of
    if not isinstance(value, Alt) or depth > 6:
        return False
    if value.per_caller and any(b.static_text(v, frame) is None for o in value.options for v in variants_of(o)):
        return True
    return any(_caller_unknown(b, o, frame, depth + 1) for o in value.options)


def _claude_text(node: ast.expr) -> bool:
    items = node.elts if isinstance(node, ast.Tuple) else [node]
    return any(isinstance(i, ast.Constant) and isinstance(i.value, str) and i.value.lower().startswith(_CLAUDE)
               for i in items)


def _names_model(node: ast.expr) -> bool:
    return any((isinstance(n, ast.Name) and "model" in n.id.lower())
               or (isinstance(n, ast.Attribute) and "model" in n.attr.lower()) for n in subtree(node))


#: LiteLLM's retrying sends: `completion_with_retries(*args, **kwargs)` calls `original_function`
#: (`litellm.completion` unless given) with the same arguments (litellm/main.py).
_RETRYING = ("completion_with_retries", "acompletion_with_retries")


def _is_completion(call) -> bool:
    q = call.qual
    last = q.rsplit(".", 1)[-1]
    if q.startswith("litellm.") and last in _RETRYING:
        return _retries_completion(call)
    return q in _FUNCS or (q.startswith("litellm.") and last in ("completion", "acompletion"))


def _retries_completion(call) -> bool:
    """True when a retrying send calls LiteLLM's chat completion: no `original_function`, or one
    named `completion` / `acompletion` (`original_function=litellm.batch_completion` sends a list
    of message lists, one request each: not one chat request)."""
    given = next((k.value for k in call.node.keywords if k.arg == "original_function"), None)
    if given is None:
        return True
    return last_name(given) in ("completion", "acompletion")


def completion(b, call) -> None:
    chat_like(b, call, "litellm." + call.qual.rsplit(".", 1)[-1])


def router(b, call) -> None:
    """`router.completion(messages=...)` of a `Router(...)` the code makes, also one made lazily
    (`if self._router is None: self._router = make_router()`, one made or given: `self.router or
    self._cached_router`): the variants that are not None are a Router, or values not known (a
    router the caller passes) beside one."""
    base = b.value(call.node.func.value, call.frame)
    options = [v for v in variants_of(base) if not is_none(v)]
    routers = [v for v in options if isinstance(v, Obj) and v.qualname.endswith("Router")]
    if routers and all(v in routers or isinstance(v, Text) and not any(s.is_static for s in v.segs) for v in options):
        chat_like(b, call, "Router." + call.method)


SDK = Sdk(
    name="litellm",
    imports=("litellm",),
    hints=("litellm",),
    shapes=(
        Shape("completion", ("completion", "acompletion", "text_completion") + _RETRYING, _is_completion, completion),
        Shape("Router.completion", ("completion", "acompletion"), lambda c: c.method in ("completion", "acompletion") and c.has("messages"), router),
    ),
    routes={"vertex_ai": "google", "deepseek": "deepseek", "xai": "xai", "mistral": "mistral", "groq": "groq"},
)
