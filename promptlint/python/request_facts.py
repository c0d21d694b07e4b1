"""Facts of the layouts a send call added that its arguments do not show (`note_request`, run
by the site finder, `sites.SiteFinder`, for each request): `**options` of unknown keys,
`cache_control` set by a statement on no block the layout places, serialised data written once
into the conversation a loop re-sends, and, for a request sent with no breakpoint, what the
package says around it (whether a file names a breakpoint key or Claude, the tool turns it
converts, a conversation grown in a loop).
"""
from __future__ import annotations

import ast
import re

from ..model import Kind, replace
from ..model import Breakpoint
from . import converted_prompts, kept_replies, markers
from .flow.closures import outer_parameters
from .gated_values import note_gates
from .marking_helpers import marked_roots, root_of
from .packages import marker_uses
from .sdks.base import GATEWAY_PROVIDERS

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)

#: What a module that converts the tool turns of a conversation names (model.PromptLayout.tool_turns).
_TOOL_TURNS = ("tool_result", "tool_call_id")
#: A provider setting given or compared as Anthropic's (or Bedrock's, where Claude runs):
#: `provider="anthropic"`, `if self.provider == "bedrock":`, `{"provider": "anthropic"}`, `if
#: self.endpoint == "anthropic":`; or a LiteLLM model name routed to Anthropic by its prefix
#: (`f"anthropic/{model}"`, `"anthropic/" + model`): the module sends to Claude for that setting
#: (`PromptLayout.claude_named`).
_CLAUDE_PROVIDER = re.compile(r"(?:provider|endpoint|backend|vendor|api_type)\w*[\"']?\s*(?:==|=|:)\s*"
                              r"[\"'](?:anthropic|bedrock)[\"']|\bf[\"']anthropic/\{|[\"']anthropic/[\"']\s*\+")


def note_request(finder, added, call) -> None:
    """Facts of the layouts a send call added that its arguments do not show: `**options` of
    unknown keys, `cache_control` set by a statement (in the sending function, a helper it
    calls, a function read to build the request) on no block the layout places, and, for a
    conversation sent with no breakpoint, whether any file of the package tree names one."""
    frame = call.frame
    spans = [s for s, _ in getattr(frame, "markers", ())] + list(finder.ev.marked) + finder.b.unplaced + (
        markers.helper_markers(finder.m, frame.func, frame.cls) if frame is not None and frame.func is not None else [])
    modules = _read_modules(finder)
    for layout in added:
        _place_handed(finder, layout, call)
        note_gates(layout, modules, finder.ev.project)
        layout.options_forwarded = not layout.unread_options and call.unread and call.forwarded
        layout.unread_options = layout.unread_options or call.unread
        layout.open_options = layout.open_options or call.open
        _written_once(finder, layout, call)
        placed = {bp.span for p in layout.parts for bp in p.breakpoints}
        layout.unplaced_markers = any(s not in placed for s in spans)
        if frame is not None and frame.func is not None and _history_open(layout):
            layout.history_marker = next((s for s in markers.conversation_markers(finder.m, frame.func, frame.cls)
                                          if s not in placed), None)
        if placed or layout.auto_cache is not None:
            continue
        func = frame.func if frame is not None else None
        closure = outer_parameters(finder.m, func)[0] if isinstance(func, _FUNCS) else set()
        layout.passes_prompt = markers.passes_prompt(func, layout.parts, closure)
        if not layout.passes_prompt:
            layout.converted = converted_prompts.converted_from(func, call.node)
            layout.helper_built = bool(layout.converted) and converted_prompts.helper_built(func, call.node)
            if len(layout.converted) == 1 and layout.converted[0][0] == "request":
                layout.caller_built = _written_outside(finder.m.span(func), layout.parts)
        if layout.options_forwarded:  # (the callers' keywords hold a breakpoint only where a file names one)
            layout.tree_markers = bool(finder.ev.project.marker_files(finder.m.path))
        layout.configured_system = markers.configured_system(layout.parts)
        if kept_replies.might_keep(finder.m.source):
            kept = kept_replies.reply_kept(func, call.node)
            layout.reply_kept = finder.m.span(kept) if kept is not None else None
        if layout.claude_checked is not None or layout.passes_prompt or any(p.is_history for p in layout.parts) \
                or layout.configured_system is not None or layout.converted or layout.reply_kept is not None:
            layout.tree_markers = bool(finder.ev.project.marker_files(finder.m.path))
            if layout.provider in GATEWAY_PROVIDERS and layout.model is None and layout.claude_checked is None \
                    and not layout.tree_markers and not layout.other_models:
                layout.claude_named = bool(finder.ev.project.claude_files(finder.m.path)) \
                    or _CLAUDE_PROVIDER.search(finder.m.source) is not None
            layout.takes_conversation = markers.takes_conversation(func, call.node)
            if layout.tree_markers and (layout.passes_prompt or layout.converted):
                layout.others_markers = not marker_uses(finder.m.source)[1] \
                    and not finder.ev.project.marker_writer_files(finder.m.path)
            layout.tool_turns = any(word in finder.m.source for word in _TOOL_TURNS) \
                or markers.names_any(_reads_of(finder, frame), _TOOL_TURNS)
            layout.loop_sent = isinstance(func, _FUNCS) and markers.grown_in_loop(func, call.node)


def _written_outside(func_span, parts):
    """The span of the first part of a request (not the tools) when it lies outside `func_span`
    (the sending function): its caller wrote the request the function sends whole; else None."""
    for part in parts:
        if part.role == "tools" or part.span is None:
            continue
        span = part.span
        inside = span.filename == func_span.filename and func_span.start <= span.start and span.end <= func_span.end
        return None if inside else span
    return None


#: Where a keyword of a send call puts its value: the system prompt, the tools, or the messages.
_KEY_ROLES = {"system": ("system",), "tools": ("tools",), "messages": None, "contents": None, "input": None}


def _place_handed(finder, layout, call) -> None:
    """Breakpoints the sending function sets before it sends, in place, on the blocks of a list a
    keyword of the call sends whole (`mark_last(self.history)` ... `messages=self.history`, the
    helper in another module: `marking_helpers`): on that part, after its last segment, each once."""
    frame = call.frame
    if frame is None or frame.func is None or not getattr(frame, "markers", None):
        return
    placed = {bp.span for p in layout.parts for bp in p.breakpoints}
    roots = marked_roots(finder.ev.project, frame.module, frame.func, frame.cls, finder.ev.marking_reads)
    for kw in call.node.keywords:
        if kw.arg not in _KEY_ROLES or (sent := root_of(kw.value)) is None:
            continue
        roles = _KEY_ROLES[kw.arg]
        parts = [p for p in layout.parts if (p.role in roles if roles else p.role not in ("system", "tools", "developer"))]
        if not parts:
            continue
        part = parts[-1]
        for span, repeated in frame.markers:
            if span not in placed and roots.get(span) == sent:
                part.breakpoints.append(Breakpoint.set_by(len(part.segments) - 1, span, repeated))
                placed.add(span)


def _read_modules(finder) -> dict:
    """{display file name: module} of the sending module and those whose functions were read to
    build the request."""
    out = {}
    for module, func in [(finder.m, None), *finder.ev.reached_funcs]:
        first = func if func is not None else next(iter(module.tree.body), None)
        if first is not None:
            out.setdefault(module.span(first).filename, module)
    return out


def _reads_of(finder, frame) -> list:
    """The (module, function) pairs read to build the requests of `frame`'s send calls so far: a
    value of the frame is read once, by its first send; a later send reuses it unread."""
    seen = finder.frame_reads.setdefault(id(frame), {})
    for module, func in finder.ev.reached_funcs:
        seen.setdefault((id(module), id(func)), (module, func))
    return list(seen.values())


def _written_once(finder, layout, call) -> None:
    """Serialised data of the replayed conversation that the loop sending it wrote once into
    the list it keeps re-sending (`markers.written_once`): the same bytes on every later
    request, whatever the key order was."""
    func = call.frame.func if call.frame is not None else None
    for part in layout.parts:
        if part.is_history:
            part.segments = [replace(s, ordered=True, evidence="serialised once when appended to the list "
                                     "the loop sends; re-sent as written")
                             if s.kind is Kind.SERIALIZED and not s.ordered
                             and markers.written_once(finder.m, func, call.node, s.span) else s
                             for s in part.segments]


def _history_open(layout) -> bool:
    """True when the layout has a history part and no breakpoint it places is in or after it."""
    last = max((pi for pi, p in enumerate(layout.parts) if p.breakpoints), default=-1)
    return any(p.is_history and pi >= last and not p.breakpoints for pi, p in enumerate(layout.parts))
