"""Google Gemini: `client.models.generate_content[_stream]` (google-genai: `config` holds
`system_instruction` and `tools`; `contents` a string or a list of messages) and
`GenerativeModel(system_instruction=...)` (google-generativeai)."""
from __future__ import annotations

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
    newest = None
    if "contents" in kw:
        node = kw["contents"]
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
    b.add(call.node, "python-call", "google", "models.generate_content", b.static_model(kw.get("model"), frame),
          parts, newest)


def generative_model(b, call) -> None:
    frame = call.frame
    parts = [b.part("system", b.value(call.kwargs["system_instruction"], frame), frame, None)]
    model = b.static_model(call.kwargs.get("model_name") or (call.args[0] if call.args else None), frame)
    b.add(call.node, "python-call", "google", "GenerativeModel", model, parts, None)


SDK = Sdk(
    name="google",
    imports=("google.genai", "google.generativeai", "vertexai"),
    hints=("generate_content", "GenerativeModel"),
    shapes=(
        Shape("models.generate_content", ("generate_content", "generate_content_stream"), chain_is(r"models\.(generate_content|generate_content_stream)"), generate_content),
        Shape("GenerativeModel", ("GenerativeModel",), lambda c: c.qual.endswith("GenerativeModel") and c.has("system_instruction")
              and c.imported_from(("google", "vertexai")),
              generative_model),
    ),
    routes={"gemini": "google", "google": "google", "vertex_ai": "google"},
    models=(("gemini", "google"),),
)
