"""Chat requests posted with an HTTP client, no SDK in between: `requests.post(url, json=body)`,
`httpx.post` / `httpx.Client().post` / `httpx.AsyncClient().post`, `aiohttp.ClientSession().post`
(also `data=json.dumps(body)` and httpx's `content=json.dumps(body)`), and the same clients'
`request("POST", url, json=body)`.

The body is a dict (in every variant the function builds: keys set in branches) with `messages`,
read as the call of the API its URL names would be: Anthropic's Messages API for a URL on
`api.anthropic.com` or ending in `/v1/messages` (a top-level `system`, `cache_control` blocks:
`sdks/anthropic.messages`), else an OpenAI-compatible chat completion (`sdks/openai.chat`: the
system prompt among the messages), whose provider is the URL's host when it is one of
`openai.HOSTS`, else the provider the model names, else unknown (a local server, a gateway: vLLM,
Ollama, LM Studio, each with a cache of its own).
"""
from __future__ import annotations

import ast
import re

from ..flow.variants import one_dict
from ..flow.text import const_str
from ..flow.values import Text
from ..layout import dict_entries
from . import anthropic, openai
from .base import Call, Sdk, Shape

_CLIENTS = ("requests", "httpx", "aiohttp")
#: A URL of Anthropic's Messages API (https://docs.anthropic.com/en/api/messages); its OpenAI SDK
#: compatibility layer (`api.anthropic.com/v1/chat/completions`) takes OpenAI's chat body.
_MESSAGES_URL = re.compile(r"/v1/messages\b|api\.anthropic\.com(?!.*chat/completions)")


def _body_node(call: Call):
    """The node of the request body: `json=`, else the argument of `json.dumps(...)` passed as
    `data=` / `content=`; None when the request carries no body promptlint can read."""
    if "json" in call.kwargs:
        return call.kwargs["json"]
    for key in ("data", "content"):
        node = call.kwargs.get(key)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "dumps" \
                and node.args:
            return node.args[0]
    return None


def _posts(call: Call) -> bool:
    """True for `request("POST", ...)` / `request(method="post", ...)`: the method a literal."""
    node = call.arg(0, "method")
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.upper() == "POST"


def _url_text(b, call) -> tuple[str, bool]:
    """(the URL's text as far as it is known, whether all of it is): the static text of its value
    (`f"{self.base_url}/chat/completions"` gives `/chat/completions`, not whole), else its source."""
    node = call.arg(1 if call.method == "request" else 0, "url")
    if node is None:
        return "", False
    value = b.value(node, call.frame)
    whole = const_str(value)
    if whole is not None:
        return whole, True
    if isinstance(value, Text):
        return "".join(s.text for s in value.segs if s.is_static), False
    return b.m.code(node), False


def post(b, call) -> None:
    frame = call.frame
    node = _body_node(call)
    body = one_dict(b.value(node, frame)) if node is not None else None
    if body is None or body.repeated or "messages" not in body.items:
        return
    url, whole = _url_text(b, call)
    code = b.m.code(node)
    kwargs = dict_entries(body.items, body.key_spans, b.m.span(node), code)
    before = len(b.layouts)
    if _MESSAGES_URL.search(url):
        anthropic.messages(b, Call(node=call.node, chain="messages.create", qual="", method="create", kwargs=kwargs,
                                   args=[], frame=frame))
    else:
        openai.chat(b, Call(node=call.node, chain="chat.completions.create", qual="", method="create", kwargs=kwargs,
                            args=[], frame=frame), posted_to=openai.url_provider(url) if whole else openai.CONFIGURED)
    for layout in b.layouts[before:]:
        layout.api = f"http.post ({layout.api})"
        if "headers" in call.kwargs:  # (a cache-routing header: `x-grok-conv-id`)
            b.options(layout, {"headers": call.kwargs["headers"]}, frame)


SDK = Sdk(
    name="http",
    imports=_CLIENTS,
    methods=("post", "request"),  # a file that imports an HTTP client and calls `.post(`: its bodies are read
    shapes=(Shape("post", ("post",), lambda c: c.method == "post" and _body_node(c) is not None, post, final=False),
            Shape("request", ("request",), lambda c: c.method == "request" and _posts(c) and _body_node(c) is not None,
                  post, final=False)),
)
