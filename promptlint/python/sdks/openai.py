"""OpenAI: chat completions, the Responses API and Assistants runs (sync, async, Azure clients).

Chat completions: tools (nested `{"type": "function", "function": {...}}`), a response schema,
then the messages. Responses: tools, `instructions` (a system part), then `input`: a string is the
newest user message, a list is messages (docs/policies.md, Policy 3). Assistants runs: the run's
`instructions` / `additional_instructions` (a system part after the assistant's stored ones), then the
thread's messages (the history).
"""
from __future__ import annotations

import ast
import re
from urllib.parse import urlsplit

from ...model import Kind, Part, Segment, Volatility
from ..flow.segment_text import const_str
from ..flow.values import Alt, Obj, Seq
from ..layout_values import history_seg, is_history_like, variants_of
from .base import Sdk, Shape, chain_is
from ..walk import subtree


#: OpenAI-compatible endpoints (`OpenAI(base_url=...)`) by host: the provider whose caching the
#: requests get. A host not listed here (a gateway, a router, a local server) is a provider
#: unknown: its caching is not OpenAI's. Hosts as each provider documents its OpenAI-compatible
#: API: https://api-docs.deepseek.com, https://docs.x.ai/docs/api-reference,
#: https://docs.mistral.ai/api, https://ai.google.dev/gemini-api/docs/openai,
#: https://docs.anthropic.com/en/api/openai-sdk, https://learn.microsoft.com/azure/ai-foundry/openai/reference.
#: OpenRouter (https://openrouter.ai/docs/api-reference/overview) is a gateway: a model named
#: `anthropic/claude-...` gets Anthropic's caching there, only up to a `cache_control` breakpoint
#: (https://openrouter.ai/docs/features/prompt-caching); it is a gateway (`base.GATEWAY_PROVIDERS`)
#: and the model's prefix names the provider behind it.
HOSTS = {"api.openai.com": "openai", "api.deepseek.com": "deepseek", "api.x.ai": "xai", "api.mistral.ai": "mistral",
         "generativelanguage.googleapis.com": "google", "api.anthropic.com": "anthropic",
         "openai.azure.com": "azure-openai", "openrouter.ai": "openrouter"}
UNKNOWN = "unknown"
CONFIGURED = "configured"  # a base URL read at run time (`base_url=f"{url}/v1"`): its host is not known


def endpoint_provider(b, call) -> str | None:
    """The provider of the client's `base_url` (`OpenAI(base_url="https://api.deepseek.com")`,
    the client bound to a name or an attribute): a provider of HOSTS, UNKNOWN for another host
    known statically, CONFIGURED for a base URL not known statically, None when the client is
    given none (the client's own provider)."""
    func = call.node.func
    receiver = func.value if isinstance(func, ast.Attribute) else None
    while isinstance(receiver, ast.Attribute) and receiver.attr in ("chat", "completions", "responses", "beta",
                                                                     "with_raw_response", "with_streaming_response"):
        receiver = receiver.value
    if receiver is None:
        return None
    client = b.value(receiver, call.frame)
    if isinstance(client, Alt):  # a client made lazily (`self.client = None` until first use)
        made = [o for o in client.options if isinstance(o, Obj)]
        if len(made) > 1:  # one client or another by a condition: one provider only when all name it
            found = {_object_provider(o) for o in made}
            return found.pop() if len(found) == 1 else UNKNOWN
        client = made[0] if len(made) == 1 else client
    if not isinstance(client, Obj):
        return _class_endpoint(b, call)
    return _object_provider(client)


def _object_provider(client) -> str | None:
    """The provider of one client object: UNKNOWN for a client of another SDK (`_other_sdk`), else
    its `base_url`'s (`_base_url_provider`)."""
    return UNKNOWN if _other_sdk(client) else _base_url_provider(client)


def _other_sdk(client) -> bool:
    """True for a client built by a class of a library that is not OpenAI's SDK
    (`perplexity.Perplexity(...)`, `zai.ZaiClient(...)`, `groq.Groq(...)`): another provider's SDK
    (or a gateway's) that copies OpenAI's method names (`client.chat.completions.create`); its
    requests go to that provider, whose caching is not OpenAI's. False for OpenAI's own classes,
    for a library's drop-in replacement of them (a dotted name with an `openai` part:
    `langfuse.openai.OpenAI`), for a class given an OpenAI client (a wrapper of it), for what a
    library's function returns (`instructor.from_openai(...)`: not known to be a client of its
    own), and for a class of the analysed code or an object of no known class (`instance:...`)."""
    qualname = client.qualname
    if ":" in qualname or "." not in qualname or not qualname.rsplit(".", 1)[-1][:1].isupper():
        return False
    if "openai" in qualname.lower().split(".")[:-1]:
        return False
    given = [*client.args, *client.kwargs.values()]
    return not any(isinstance(v, Obj) and "openai" in v.qualname.lower().split(".")[:-1] for v in given)


def _base_url_provider(client) -> str | None:
    """The provider of one client object's `base_url` (`endpoint_provider`), None without one."""
    url = client.kwargs.get("base_url")
    if url is None:  # (one given by a `**mapping` of keys not known is a base URL not known statically)
        return CONFIGURED if _spread(client) else None
    text = const_str(url)
    return _host_provider(text) if text else _default_host(url) or CONFIGURED


def _spread(client) -> bool:
    """True for a client built with a `**mapping` (`OpenAI(**client_params)`), whose keys the
    object does not keep: it may hold a `base_url`."""
    return isinstance(client.node, ast.Call) and any(k.arg is None for k in client.node.keywords)


def _default_host(url) -> str | None:
    """The provider of HOSTS a base URL read from a parameter names by its default (`def
    __init__(self, base_url="https://api.anthropic.com/v1/")`): where the requests go unless a
    caller configures another; None for no default, or one of another host, or OpenAI's own (a
    base URL read at run time, as before: the model's name may say the server is another)."""
    if not (isinstance(url, Alt) and url.fallback):
        return None
    found = {_host_provider(t) for t in map(const_str, url.options) if t}
    provider = found.pop() if len(found) == 1 else UNKNOWN
    return None if provider in (UNKNOWN, "openai") else provider


def url_provider(url: str) -> str:
    """The provider of a static URL's host: one of HOSTS, else UNKNOWN."""
    return _host_provider(url)


def _host_provider(url: str) -> str:
    host = (urlsplit(url if "//" in url else "//" + url).hostname or "").lower()
    for known, provider in HOSTS.items():
        if host == known or host.endswith("." + known):
            return provider
    return UNKNOWN


def _class_endpoint(b, call) -> str | None:
    """For a client we cannot follow (built by a helper from a class it is given, `cls(**kw)`):
    the provider of the `base_url=` every call of the sending class passes (`dict(base_url=
    self.base_url, ...)` with `self.base_url = "https://api.deepseek.com"`), when each is known
    statically and all name one provider; None otherwise (the client's own provider)."""
    cls = call.frame.cls if call.frame is not None else None
    if cls is None:
        return None
    urls = [kw.value for node in subtree(cls) if isinstance(node, ast.Call)
            for kw in node.keywords if kw.arg == "base_url"]
    texts = [const_str(b.value(u, call.frame)) for u in urls]
    if not texts or not all(texts):
        return None
    found = {_host_provider(t) for t in texts}
    return found.pop() if len(found) == 1 else None


def _client_provider(b, call, model: str | None = None, endpoint: str | None = None) -> str | None:
    """The provider the client sends to: its endpoint's (`endpoint`, else the client's
    `endpoint_provider`), OpenAI when no base URL is known, None (provider unknown) for an endpoint
    of unknown caching. A base URL read at run time is OpenAI's unless the request's `model` (known
    statically) names no provider's model (`"osunlp/UGround-V1-7B"`, `"Qwen/Qwen2.5-7B"`): a server
    of its own, vLLM or another, whose caching is not OpenAI's (a Fireworks id,
    `"accounts/fireworks/models/..."`, through a client built from `**client_params`)."""
    endpoint = endpoint or endpoint_provider(b, call)
    if endpoint == CONFIGURED:
        return None if model and b.provider_for_model(model, None)[0] is None else "openai"
    return None if endpoint == UNKNOWN else endpoint or "openai"


def chat(b, call, posted_to: str | None = None) -> None:
    """A chat completion; `posted_to`: the provider of the URL it is posted to (a raw HTTP request,
    `sdks/http.py`: a provider of HOSTS, UNKNOWN or CONFIGURED), else the client's."""
    frame = call.frame
    parts = b.tools(call.kwargs.get("tools") or call.kwargs.get("functions"), frame, "nested")
    if "response_format" in call.kwargs:
        parts += b.schema_part(call.kwargs["response_format"], frame)
    msg_parts, newest = b.message_parts(b.value(call.kwargs["messages"], frame), frame) if "messages" in call.kwargs else ([], None)
    # the model's provider when its name says it (`anthropic/claude-...` through a router)
    static = b.static_model(call.kwargs.get("model"), frame)
    endpoint = _client_provider(b, call, static, posted_to)
    prov, model = b.provider_for_model(static, endpoint)
    layout = b.add(call.node, "python-call", prov, "chat.completions." + call.chain.rsplit(".", 1)[-1], model,
                   parts + msg_parts, None if newest is None else len(parts) + newest)
    layout.openai_compat = endpoint == "anthropic"  # Anthropic's OpenAI SDK compatibility layer: no prompt caching
    b.options(layout, call.kwargs, frame)


def responses(b, call, posted_to: str | None = None) -> None:
    """A Responses API request; `posted_to` as for `chat` (a body posted with an HTTP client)."""
    frame = call.frame
    parts = b.tools(call.kwargs.get("tools"), frame, "flat")
    if "instructions" in call.kwargs:
        node = call.kwargs["instructions"]
        parts.append(b.part("system", b.value(node, frame), frame, b.span_of(node)))
    newest = None
    if "input" in call.kwargs:
        node = call.kwargs["input"]
        value = b.value(node, frame)
        lists = isinstance(value, Alt) and all(isinstance(o, Seq) for o in variants_of(value))
        if isinstance(value, Seq) or lists:
            # a list of input items, or one of several (`messages = [system] + messages` under an
            # `if`): messages, read as a message list is read in every API. `truncation="auto"`
            # cuts nothing: it drops items only from a request that would outgrow the model's
            # context window (which `"disabled"`, the default, rejects), not a window of turns
            msg_parts, n = b.message_parts(value, frame)
            newest = None if n is None else len(parts) + n
            parts += msg_parts
        elif is_history_like(value):
            parts.append(Part("history", [history_seg(value, b.span_of(node), b.code_of(node))]))
        else:
            parts.append(b.part("user", value, frame, b.span_of(node)))
            newest = len(parts) - 1
    static = b.static_model(call.kwargs.get("model"), frame)
    layout = b.add(call.node, "python-call", _client_provider(b, call, static, posted_to), "responses.create", static,
                   parts, newest)
    b.options(layout, call.kwargs, frame)


def _agents_run(call) -> bool:
    """A run of an Azure AI Foundry agent on a thread (`project.agents.runs.create(thread_id=...,
    agent_id=..., instructions=...)`, the azure-ai-agents client): the Assistants API's shape."""
    return bool(call.chain) and _AGENTS_RUN.search(call.chain) is not None and call.has("thread_id") \
        and call.has("instructions", "additional_instructions")


_AGENTS_RUN = re.compile(r"(^|\.)agents\.runs\.(create|stream|create_and_process)$")


def assistants_run(b, call) -> None:
    """An Assistants run (`beta.threads.runs.create(thread_id=..., assistant_id=...,
    additional_instructions=...)`, or an Azure AI agent's `agents.runs.create(thread_id=...,
    agent_id=...)`): the assistant's stored tools and instructions come first, then
    the run's `instructions` (which replace them) or `additional_instructions` (which the API
    appends to them), then the thread's messages: the conversation the thread keeps. Only what
    the run passes is drawn: the system part, and the thread as the history after it."""
    frame = call.frame
    parts = b.tools(call.kwargs["tools"], frame, "nested") if "tools" in call.kwargs else []
    for key in ("instructions", "additional_instructions"):
        if key in call.kwargs:
            node = call.kwargs[key]
            parts.append(b.part("system", b.value(node, frame), frame, b.span_of(node)))
    thread = call.kwargs.get("thread_id") or (call.args[0] if call.args else None)
    expr = f"the messages of thread `{b.code_of(thread)}`" if thread is not None else "the thread's messages"
    parts.append(Part("history", [Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr=expr,
                                          span=b.span_of(thread) if thread is not None else None,
                                          evidence="the conversation an Assistants thread keeps")]))
    static = b.static_model(call.kwargs.get("model"), frame)
    api = "agents.runs.create" if _AGENTS_RUN.search(call.chain or "") else "beta.threads.runs.create"
    layout = b.add(call.node, "python-call", _client_provider(b, call, static), api, static, parts)
    b.options(layout, call.kwargs, frame)


SDK = Sdk(
    name="openai",
    imports=("openai",),
    hints=("completions.", "responses.create", "responses.parse", "responses.stream", "additional_instructions"),
    shapes=(
        Shape("chat.completions", ("create", "parse", "stream"), chain_is(r"chat\.completions\.(create|parse|stream)"), chat),
        Shape("responses", ("create", "parse", "stream"), chain_is(r"responses\.(create|parse|stream)", "input", "instructions"),
              responses),
        Shape("assistants runs", ("create", "stream", "create_and_poll", "create_and_stream"),
              chain_is(r"threads\.runs\.(create|stream|create_and_poll|create_and_stream)",
                       "additional_instructions", "instructions"), assistants_run),
        Shape("azure agents runs", ("create", "stream", "create_and_process"), _agents_run, assistants_run),
    ),
    routes={"openai": "openai", "azure": "azure-openai"},
    models=(("gpt-", "openai"), ("o1", "openai"), ("o3", "openai"), ("o4", "openai"), ("chatgpt", "openai")),
)
