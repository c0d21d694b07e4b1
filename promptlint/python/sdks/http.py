"""Chat requests posted with an HTTP client, no SDK in between: `requests.post(url, json=body)`,
`httpx.post` / `httpx.Client().post` / `httpx.AsyncClient().post`, `aiohttp.ClientSession().post`
(also `data=json.dumps(body)` and httpx's `content=json.dumps(body)`), and the same request made
with the method named (`client.stream("POST", url, json=body)`, `session.request("POST", url, ...)`).

A body with `instructions`, or with `input` posted to a URL of `/responses`, and no `messages` is a
Responses API request (but for `instructions` posted to a URL whose host the code writes and whose path
is not `/responses`: another service's body) (`sdks/openai.responses`: `instructions` first, then the `input` items); `input`
alone is also the body of embeddings and moderations. A body with `messages` is
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
from ..flow.segment_text import const_str
from ..flow.values import Text
from ..layout import dict_entries
from . import anthropic, openai
from .base import Call, Sdk, Shape, http_verb

_CLIENTS = ("requests", "httpx", "aiohttp")
#: A URL of Anthropic's Messages API (https://docs.anthropic.com/en/api/messages); its OpenAI SDK
#: compatibility layer (`api.anthropic.com/v1/chat/completions`) takes OpenAI's chat body.
_MESSAGES_URL = re.compile(r"/v1/messages\b|api\.anthropic\.com(?!.*chat/completions)")
#: A URL whose scheme and host the code writes (the static start of its text).
_HOSTED = re.compile(r"https?://[\w.-]+\.[a-z]{2,}(?::\d+)?(/|$)", re.I)


def _url_node(call: Call):
    """The URL argument: the first of `post(url, ...)`, the second of `request("POST", url, ...)`."""
    return call.arg(0, "url") if call.method == "post" else call.arg(1, "url")


def _posts(call: Call) -> bool:
    """A POST: `.post(...)`, or `.stream` / `.request` whose method argument is the text "POST"."""
    return call.method == "post" or call.method in ("stream", "request") and http_verb(call) == "POST"


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


def _url_text(b, call) -> tuple[str, bool]:
    """(the URL's text as far as it is known, whether all of it is): the static text of its value
    (`f"{self.base_url}/chat/completions"` gives `/chat/completions`, not whole), else its source."""
    node = _url_node(call)
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
    if body is None or body.repeated:
        return
    url, whole = _url_text(b, call)
    # `input` alone is also the body of embeddings and moderations: a Responses request by its
    # `instructions` or its URL
    responses = "messages" not in body.items and ("instructions" in body.items
                                                  or "input" in body.items and "/responses" in url)
    if responses and "/responses" not in url and _HOSTED.match(url):
        # `instructions` is a common key of other services' bodies: posted to a URL whose host is
        # written in the code (`https://actions.zapier.com/...`) and whose path is not the Responses
        # API's, it is no model's request
        return
    if "messages" not in body.items and not responses:
        return
    code = b.m.code(node)
    kwargs = dict_entries(body.items, body.key_spans, b.m.span(node), code)
    before = len(b.layouts)
    if responses:
        openai.responses(b, Call(node=call.node, chain="responses.create", qual="", method="create", kwargs=kwargs,
                                 args=[], frame=frame), posted_to=openai.url_provider(url) if whole else openai.CONFIGURED)
    elif _MESSAGES_URL.search(url):
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
    methods=("post", "stream", "request"),  # a file that imports an HTTP client and calls `.post(`: its bodies are read
    shapes=(Shape("post", ("post", "stream", "request"), lambda c: _posts(c) and _body_node(c) is not None, post,
                  final=False),),
)
