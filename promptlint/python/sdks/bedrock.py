"""AWS Bedrock Converse API (`boto3.client("bedrock-runtime").converse(...)` / `converse_stream`):
`toolConfig["tools"]` (tool specs), `system` (a list of `{"text": ...}` blocks), then `messages`
(content blocks). A `{"cachePoint": {"type": "default"}}` block is a cache breakpoint after the
blocks before it (docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html)."""
from __future__ import annotations

from ..flow.values import Mapping
from ..layout import Evaluated
from .base import Sdk, Shape


def converse(b, call) -> None:
    frame = call.frame
    kw = call.kwargs
    parts = []
    config = b.value(kw.get("toolConfig"), frame)
    if isinstance(config, Mapping) and "tools" in config.items:
        span = config.key_spans.get("tools") or b.span_of(kw["toolConfig"])
        parts += b.tools(Evaluated(config.items["tools"], span, "toolConfig['tools']"), frame, None)
    if "system" in kw:
        parts.append(b.part("system", b.value(kw["system"], frame), frame, b.span_of(kw["system"])))
    msg_parts, newest = b.message_parts(b.value(kw["messages"], frame), frame) if "messages" in kw else ([], None)
    model = b.static_model(kw.get("modelId"), frame)
    b.add(call.node, "python-call", "bedrock", "converse" if call.method == "converse" else "converse_stream", model,
          parts + msg_parts, None if newest is None else len(parts) + newest)


def _only_mapping(call) -> bool:
    """True when the call passes nothing but one `**mapping` (the request built elsewhere)."""
    node = call.node
    return not node.args and len(node.keywords) == 1 and node.keywords[0].arg is None


SDK = Sdk(
    name="bedrock",
    imports=("boto3", "aioboto3"),
    hints=("converse(", "converse_stream("),
    # `modelId` is a required parameter of the Converse API: a `.converse(messages=...)` without it is another API
    # (or a request passed whole as one `**mapping`: `client.converse(**api_kwargs)`, its keys the callers')
    shapes=(Shape("converse", ("converse", "converse_stream"), lambda c: c.has("modelId") or _only_mapping(c), converse),),
)
