"""Google Agent Development Kit (google-adk): `LlmAgent(...)` and its alias `Agent(...)`, drawn as
the request ADK sends on every turn (google/adk/flows/llm_flows: prompt/_instructions.py,
prompt/_identity.py, context/_contents.py; models/llm_request.py):

- the system instruction, joined with blank lines: the root agent's `global_instruction`, then
  `static_instruction` (sent literally), then `instruction` when there is no `static_instruction`,
  then ADK's identity line (`You are an agent. Your internal name is "NAME".`, with the
  description when it is given);
- the tools (`tools=[...]`, in list order; Gemini's tools beside the system instruction, other
  providers' before it, as their own SDK modules draw them);
- the session's events as the conversation history (none with `include_contents="none"`);
- the newest user message; with a `static_instruction`, `instruction` goes just before it, as a
  user content sent for this request only (`LlmRequest._insert_transient_user_content`: never
  kept in the session, so later requests' history does not hold it): read as part of the newest
  message, the end of the prefix.

`instruction` and `global_instruction` are templates ADK fills from the session on every request
(`inject_session_state`): `{key}`, `{key?}` (a session state value), `{user:key}` (the user's
state), `{app:key}` (the application's), `{temp:key}` (this invocation's), `{artifact.name}` (a
session artifact); other braces stay text. A callable (an InstructionProvider) is called on every
request and its text is used as it returns it, unfilled. `model` is a Gemini name, or a model
object: `LiteLlm(model="openai/gpt-4.1")`, `Claude(model=...)`, `Gemini(model=...)`.
"""
from __future__ import annotations

import ast
import re

from ...model import Kind, Part, Segment, Volatility
from ..flow.core import per_process
from ..flow.segment_text import slice_segment, sub_span
from ..flow.values import Alt, Func, Obj, Seq, Text
from .base import Sdk, Shape

# ADK's `_TEMPLATE_VAR_PATTERN` (flows/llm_flows/prompt/_instructions_utils.py)
_VAR = re.compile(r"(?<![\$\{\\]){+[^{}]*}+")
_PREFIXES = {"app": (Volatility.UNKNOWN, "the application's state `{}` (shared by every user; set at run time)"),
             "user": (Volatility.PER_CONVERSATION, "the user's state `{}` (a value per user)"),
             "temp": (Volatility.PER_REQUEST, "the invocation's state `{}` (set anew for every request)")}
_MODEL_CLASSES = {"LiteLlm": "litellm", "Claude": "anthropic", "AnthropicLlm": "anthropic", "Gemini": "google",
                  "ApigeeLlm": "google"}


def placeholder(name: str) -> tuple[Volatility, str] | None:
    """(volatility, evidence) of what ADK puts for the placeholder `{name}` (its braces and `?`
    removed), or None when ADK leaves it as text (`_is_valid_state_name`): a session value is new
    per conversation at least (tools and `output_key` rewrite it between turns)."""
    if name.startswith("artifact."):
        return Volatility.PER_CONVERSATION, f"the session artifact `{name[9:]}`, loaded on every request"
    head, sep, key = name.partition(":")
    if not sep:
        return (Volatility.PER_CONVERSATION, f"the session state `{name}`, filled on every request") \
            if name.isidentifier() else None
    if head in _PREFIXES and key.isidentifier():
        volatility, evidence = _PREFIXES[head]
        return volatility, evidence.format(name) + ", filled on every request"
    return None


def filled(segments: list[Segment]) -> list[Segment]:
    """The segments of an instruction template with each placeholder ADK fills from the session
    as a dynamic segment at the placeholder's place (`Kind.TEMPLATE_VARIABLE`)."""
    out: list[Segment] = []
    for seg in segments:
        if not seg.is_static or "{" not in seg.text:
            out.append(seg)
            continue
        pos = 0
        for m in _VAR.finditer(seg.text):
            name = m.group().lstrip("{").rstrip("}").strip().removesuffix("?")
            found = placeholder(name)
            if found is None:
                continue
            if m.start() > pos:
                out.append(slice_segment(seg, pos, m.start()))
            out.append(Segment(kind=Kind.TEMPLATE_VARIABLE, volatility=found[0], expr=m.group(), evidence=found[1],
                               span=sub_span(seg, m.start(), m.end())))
            pos = m.end()
        if pos == 0:
            out.append(seg)
        elif pos < len(seg.text):
            out.append(slice_segment(seg, pos))
    return out


def _read(b, node, frame):
    """The value of an argument of the agent: computed once, at import, for an agent built at
    module level (`root_agent = Agent(...)`, the shape ADK's tools load): a clock read there is
    fixed per process."""
    value = b.value(node, frame)
    return per_process(value) if getattr(frame, "module_level", False) else value


def _instruction(b, node, frame) -> Part:
    """The text of `instruction` / `global_instruction`: a template filled from the session, or
    what an InstructionProvider (a function of the module) returns."""
    span = b.span_of(node)
    if isinstance(node, ast.Lambda):  # `instruction=lambda ctx: ...`: its body, the context unknown
        return Part("system", b.ev.text_of(b.ev.eval(node.body, frame), frame) or [_provider_seg(b, node, span)],
                    span=span)
    value = _read(b, node, frame)
    if isinstance(value, Func):
        f = b.ev.function_frame(value.module, value.node)
        b.ev.ensure(f)
        rets = [b.ev.force(f, r) for r in f.returns]
        segs = b.ev.text_of(Alt(rets) if len(rets) > 1 else (rets[0] if rets else None), f) if rets else []
        return Part("system", segs or [_provider_seg(b, node, span)], span=span)
    if not isinstance(value, (Text, Alt)) or not b.ev.text_of(value, frame):
        return Part("system", [_provider_seg(b, node, span)], span=span)
    part = b.part("system", value, frame, span)
    part.segments = filled(part.segments)
    return part


def _provider_seg(b, node, span) -> Segment:
    return Segment(kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN, expr=b.code_of(node), span=span,
                   evidence="an instruction ADK computes on every request")


def _static_instruction(b, node, frame) -> Part:
    """`static_instruction`: a string, or a `types.Content` / `types.Part` / list of parts whose
    text parts are sent as system text (never filled)."""
    value = _read(b, node, frame)
    texts = _text_parts(value)
    if texts is not None and texts:
        segs: list[Segment] = []
        for i, t in enumerate(texts):
            if i:
                segs.append(Segment(text="\n\n"))
            segs += b.ev.text_of(t, frame)
        return Part("system", segs, span=b.span_of(node))
    return b.part("system", value, frame, b.span_of(node))


def _text_parts(value) -> list | None:
    """The text values of a `types.Content(parts=[...])`, a `types.Part(text=...)` /
    `Part.from_text(text=...)` or a list of them; None for anything else."""
    if isinstance(value, Obj):
        cls = value.qualname.rsplit(".", 1)[-1]
        if cls == "Content":
            return _text_parts(value.kwargs.get("parts"))
        if cls in ("Part", "from_text") and "text" in value.kwargs:
            return [value.kwargs["text"]]
        return None
    if isinstance(value, Seq) and not value.repeated:
        texts = []
        for item in value.items:
            inner = [item] if isinstance(item, Text) else _text_parts(item)
            if inner is None:
                return None
            texts += inner
        return texts
    return None


def _model(b, node, frame) -> tuple[str | None, str | None]:
    """(provider, model) of `model=`: a Gemini name, a model object, or None when it is inherited."""
    if node is None:
        return None, None
    value = b.value(node, frame)
    if isinstance(value, Obj):
        provider = _MODEL_CLASSES.get(value.qualname.rsplit(".", 1)[-1])
        if provider is None:
            return None, None
        name = b.static_text(value.kwargs.get("model") or (value.args[0] if value.args else None), frame)
        return b.provider_for_model(name, provider) if provider == "litellm" else (provider, name)
    name = b.static_text(value, frame)  # a name ADK's registry resolves: Gemini's unless it names another
    return b.provider_for_model(name, "google") if name else (None, None)


def agent(b, call) -> None:
    kw = call.kwargs
    if not call.has("instruction", "global_instruction", "static_instruction", "tools"):
        return
    frame = call.frame
    system: list[Part] = []
    if "global_instruction" in kw:
        system.append(_instruction(b, kw["global_instruction"], frame))
    static = kw.get("static_instruction")
    if static is not None:
        system.append(_static_instruction(b, static, frame))
    if "instruction" in kw and static is None:
        system.append(_instruction(b, kw["instruction"], frame))
    identity = _identity(b, call, frame)
    if identity is not None:
        system.append(identity)
    provider, model = _model(b, kw.get("model"), frame)
    tools = b.tools(kw.get("tools"), frame)
    parts = system + tools if provider in ("google", None) else tools + system
    if b.static_text(b.value(kw.get("include_contents"), frame), frame) != "none":
        parts.append(Part("history", [Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN,
                                              expr="the session's events", span=b.m.span(call.node))]))
    newest = [Segment(kind=Kind.USER_INPUT, volatility=Volatility.PER_REQUEST, expr="the user's new message",
                      span=b.m.span(call.node), evidence="the message the runner is given")]
    if "instruction" in kw and static is not None:
        # sent for this request only, just before the newest message and never kept in the
        # session: the end of the prefix, with the newest message
        newest = _instruction(b, kw["instruction"], frame).segments + [Segment(text="\n")] + newest
    parts.append(Part("user", newest, span=b.m.span(call.node)))
    layout = b.add(call.node, "python-call", provider, "adk.LlmAgent", model, parts, len(parts) - 1)
    if provider in ("anthropic", "bedrock") or _marks(b, kw.get("model"), frame):
        layout.auto_cache = b.span_of(kw["model"])


def _marks(b, node, frame) -> bool:
    """True for a model object whose ADK class sets the cache breakpoints itself (`Claude`, also
    for a Claude name ADK's registry resolves, and `LiteLlm`: on the tools, the system instruction and the newest message, models/anthropic_llm.py
    and lite_llm.py) when the App turns context caching on (`context_cache_config`): whether it
    does is configured on the App, not at the agent, so the request is read as marked (no
    "never cached" claim on what the code here does not decide)."""
    value = b.value(node, frame) if node is not None else None
    return isinstance(value, Obj) and value.qualname.rsplit(".", 1)[-1] in ("Claude", "AnthropicLlm", "LiteLlm")


def _identity(b, call, frame) -> Part | None:
    """ADK's identity line, when the agent's name (and description) are static text."""
    name = b.static_text(b.value(call.kwargs.get("name"), frame), frame)
    if name is None:
        return None
    text = f'You are an agent. Your internal name is "{name}".'
    if "description" in call.kwargs:
        desc = b.static_text(b.value(call.kwargs["description"], frame), frame)
        if desc is None:
            return None
        if desc:
            text += f' The description about you is "{desc}".'
    return Part("system", [Segment(text=text)])


def _is_agent(call) -> bool:
    """`google.adk.agents.LlmAgent`, `google.adk.Agent`; `adk.` for ADK's own modules, whose
    relative imports resolve under `adk` (`google/` is a namespace package, no `__init__.py`)."""
    return call.qual.startswith(("google.adk.", "adk.")) and call.qual.rsplit(".", 1)[-1] in ("LlmAgent", "Agent")


SDK = Sdk(
    name="adk",
    imports=("google.adk",),
    hints=("LlmAgent", "google.adk"),
    shapes=(Shape("LlmAgent", ("LlmAgent", "Agent"), _is_agent, agent),),
)
