"""Google Gemini: `client.models.generate_content[_stream]` (google-genai: `config` holds
`system_instruction` and `tools`; `contents` a string or a list of messages) and the SDK before it
(google-generativeai, and Vertex AI's `vertexai.generative_models`): `GenerativeModel(model_name,
system_instruction=..., tools=...)` holds the system part, the tools and the model; its
`generate_content(contents)` sends them with the contents, and a chat it starts
(`model.start_chat(history=...)`) sends them with that history and each `send_message(content)`."""
from __future__ import annotations

import ast

from ...model import Part
from ..flow.values import Alt, Mapping, Obj, Seq
from ..attachments import gemini_segments, gemini_turn
from ..layout_values import history_seg, is_history_like, variants_of
from ..message_candidates import has_messages
from .base import Sdk, Shape, chain_is


def generate_content(b, call) -> None:
    frame = call.frame
    kw = call.kwargs
    parts: list[Part] = []
    config = b.value(kw.get("config"), frame)
    cfg = config.kwargs if isinstance(config, Obj) else (config.items if isinstance(config, Mapping) else {})
    if "system_instruction" in cfg:
        parts.append(b.part("system", cfg["system_instruction"], frame, None))
    if "tools" in cfg:
        parts.append(Part("tools", b.ev.text_of(cfg["tools"], frame)))
    newest = _contents(b, kw.get("contents"), frame, parts)
    b.add(call.node, "python-call", "google", "models.generate_content", b.static_model(kw.get("model"), frame),
          parts, newest)


def _contents(b, node, frame, parts: list[Part]) -> int | None:
    """Append the parts of the `contents` of a request (`node`, None for none) to `parts`; the
    index of the newest user message among them, or None."""
    newest = None
    if node is not None:
        value = b.value(node, frame)
        turn = gemini_turn(value)
        if turn is not None:  # strings and parts of data: one user message, in their order
            parts.append(Part("user", gemini_segments(b.ev, turn, frame, b.span_of(node)), span=b.span_of(node)))
            newest = len(parts) - 1
        elif isinstance(value, Seq) or isinstance(value, Alt) and all(
                isinstance(o, Seq) and gemini_turn(o) is None and has_messages(o) for o in variants_of(value)):
            # a list of contents, or one of several lists of messages (`contents = [intro] +
            # contents` under an `if`); of several lists of strings, one user turn (below)
            mp, n = b.message_parts(value, frame)
            newest = None if n is None else len(parts) + n
            parts += mp
        elif is_history_like(value):
            parts.append(Part("history", [history_seg(value, b.span_of(node), b.code_of(node))]))
        else:
            parts.append(b.part("user", value, frame, b.span_of(node)))
            newest = len(parts) - 1
    return newest


def generative_model(b, call) -> None:
    frame = call.frame
    parts = [b.part("system", b.value(call.kwargs["system_instruction"], frame), frame, None)]
    model = b.static_model(call.kwargs.get("model_name") or (call.args[0] if call.args else None), frame)
    if b.m.span(call.node) not in b.sent_models:
        b.add(call.node, "python-call", "google", "GenerativeModel", model, parts, None)


def _drop_model_record(b, model: Obj) -> None:
    """The model `model` is sent by a request recorded here: its constructor is no prompt of its
    own (one prompt, one set of findings), whether it was recorded before or is met after."""
    if not isinstance(model.node, ast.Call) or not hasattr(model.node, "lineno"):
        return
    span = b.m.span(model.node)
    if span.filename != b.m.filename:
        return
    b.sent_models.add(span)
    b.layouts = [lay for lay in b.layouts if not (lay.api == "GenerativeModel" and lay.site == span)]


#: The methods of the older SDK's model and chat objects that send a request.
MODEL_SENDS = ("generate_content", "generate_content_async")
CHAT_SENDS = ("send_message", "send_message_async")


def _model_object(value) -> Obj | None:
    """The `GenerativeModel(...)` instance `value` is (google-generativeai or Vertex AI), or None."""
    if isinstance(value, Obj) and value.qualname.split(".", 1)[0] in ("google", "vertexai") \
            and value.qualname.endswith(".GenerativeModel"):
        return value
    return None


def _started_chat(frame, receiver) -> ast.Call | None:
    """The `model.start_chat(...)` call a chat's receiver is: the call itself, or the one call
    assigned to that name in the sending function (`chat = model.start_chat(history=h)`)."""
    if isinstance(receiver, ast.Name) and frame.func is not None:
        found = [n.value for n in ast.walk(frame.func) if isinstance(n, ast.Assign) and len(n.targets) == 1
                 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == receiver.id]
        receiver = found[0] if len(found) == 1 else None
    if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute) and receiver.func.attr == "start_chat":
        return receiver
    return None


def model_send(b, call) -> None:
    """`model.generate_content(contents)` or `chat.send_message(content)` of a model built by
    `GenerativeModel(...)`: the model's system instruction and tools, the chat's history, then
    the contents (the newest user message). Nothing for a receiver not known to be such a model."""
    frame = call.frame
    receiver = call.node.func.value
    history = None
    if call.method in CHAT_SENDS:
        started = _started_chat(frame, receiver)
        if started is None:
            return
        receiver = started.func.value
        history = next((k.value for k in started.keywords if k.arg == "history"), None)
    model = _model_object(b.value(receiver, frame))
    if model is None:
        return
    parts: list[Part] = []
    positional = model.args[-len(model.node.args):] if isinstance(model.node, ast.Call) and model.node.args else []
    if "system_instruction" in model.kwargs:
        parts.append(b.part("system", model.kwargs["system_instruction"], frame, None))
    if "tools" in model.kwargs:
        parts.append(Part("tools", b.ev.text_of(model.kwargs["tools"], frame)))
    if history is not None:
        mp, _ = b.message_parts(b.value(history, frame), frame)
        parts += mp
    content = call.arg(0, "contents" if call.method in MODEL_SENDS else "content")
    newest = _contents(b, content, frame, parts)
    name = model.kwargs.get("model_name") or (positional[0] if positional else None)
    model_name = b.static_text(name, frame) if name is not None else None
    b.add(call.node, "python-call", "google", f"GenerativeModel.{call.method}", model_name, parts, newest)
    _drop_model_record(b, model)


SDK = Sdk(
    name="google",
    imports=("google.genai", "google.generativeai", "vertexai"),
    hints=("generate_content", "GenerativeModel"),
    shapes=(
        Shape("models.generate_content", ("generate_content", "generate_content_stream"), chain_is(r"models\.(generate_content|generate_content_stream)"), generate_content),
        Shape("GenerativeModel", ("GenerativeModel",), lambda c: c.qual.endswith("GenerativeModel") and c.has("system_instruction")
              and c.imported_from(("google", "vertexai")),
              generative_model, unread="a `GenerativeModel(...)` holds prompt text only with `system_instruction=`; "
                                       "the requests of the model it builds are read at its `generate_content` and "
                                       "`start_chat(...).send_message` calls"),
        Shape("GenerativeModel.generate_content", MODEL_SENDS + CHAT_SENDS,
              lambda c: c.method is not None and not chain_is(r"models\.(generate_content|generate_content_async)")(c),
              model_send, final=False, needs_layout=True),
    ),
    routes={"gemini": "google", "google": "google", "vertex_ai": "google"},
    models=(("gemini", "google"),),
)
