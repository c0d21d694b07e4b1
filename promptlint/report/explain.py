"""`promptlint explain`: each prompt's layout drawn in the terminal, and the same data as JSON.

Pure functions of the layouts (the caller prints): parts and segments in request order, static
and dynamic segments in different styles, the cache breakpoints, where the static prefix ends,
and a table of targets with prefix tokens, minimum, cached tokens and the share of the static
input billed at the cached rate. Token estimates (no offline tokenizer) are shown with "~".
"""
from __future__ import annotations

import io
from typing import Iterable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .. import tokens
from ..estimates import (Cut, breakpoint_cuts, estimate, prefix_stop, static_prefix_tokens, static_tokens,
                         targets_for, tokenizer_name)
from ..impact import impacts
from ..impact_phrases import summary
from ..judged import holders
from ..prefix import tokens as plural
from ..model import Diagnostic, Kind, PromptLayout, Segment, Span, Volatility
from ..profiles import Target

_ROLE_WIDTH = 10
_STYLES = {"static": "green", "volatile": "bold red", "dynamic": "yellow", "history": "magenta",
           "breakpoint": "bold blue", "prefix": "bold cyan", "muted": "dim"}


def _loc(span: Span | None) -> dict | None:
    if span is None:
        return None
    return {"filename": span.filename, "row": span.start.row, "column": span.start.column}


def _style(seg: Segment) -> str:
    if seg.is_static:
        return "static"
    if seg.kind is Kind.HISTORY:
        return "history"
    return "volatile" if seg.is_volatile and seg.volatility is not Volatility.UNKNOWN else "dynamic"


def _estimates(layout: PromptLayout, pair: tuple) -> list[dict]:
    """Estimates for the explicit targets, else the layout's own (or its call site's target, or
    the default targets when the call site names no known provider)."""
    explicit, default = pair
    if explicit:
        return estimate(layout, explicit)
    if layout.estimates:
        return list(layout.estimates)
    return estimate(layout, targets_for(layout, default))


def _static_share(layout: PromptLayout, row: dict) -> float | None:
    """cached_tokens / static tokens of the whole prompt in the row's units (o200k scaled the same
    way as the row's prefix when the row is an estimate); None without static text."""
    total = static_tokens(layout)
    if not total:
        return None
    prefix_o200k = static_prefix_tokens(layout)
    scale = row["prefix_tokens"] / prefix_o200k if prefix_o200k and row["prefix_tokens"] else 1.0
    return min(1.0, row["cached_tokens"] / (total * scale)) if total * scale else None


def explain_json(layouts: Iterable[PromptLayout], targets: Iterable[Target] | None = None,
                 default_targets: Iterable[Target] | None = None) -> dict:
    """The data `render_explain` draws, as a JSON-ready dict:
    {"prompts": [{id, filename, location, source, provider, api, model, sdk (the SDK or framework
    whose call shape was read, as the README names it, or null), templates,
    static_prefix_tokens, static_tokens, prefix_end: {part, segment} | null (null: all static),
    parts: [{role, location, segments: [{static, text, kind, volatility, expr, evidence, location,
    tokens}], breakpoints: [{after, ttl, location}]}], estimates: [...], impacts: [{part, segment,
    changes, severity, static_before, static_after, history_after, targets: [{target, exact,
    cached_now, cached_fixed, dormant}]}]}]}. `impacts` are the dynamic segments the prefix rules
    report, with the figures of their messages (`promptlint.impact`).
    Segment `tokens` are o200k_base counts of static text (null for dynamic segments);
    `estimates` are computed for `targets` when given, else the layout's own, else for its call
    site's target (`default_targets`, or DEFAULT_TARGETS, when the call names no known provider)."""
    pair = (list(targets or ()), list(default_targets or ()) or None)
    prompts = []
    for layout in layouts:
        stop = prefix_stop(layout)
        parts = []
        for part in layout.parts:
            segs = [{
                "static": seg.is_static,
                "text": seg.text if seg.is_static else None,
                "kind": seg.kind.value if seg.kind else None,
                "volatility": None if seg.is_static else seg.volatility.value,
                "expr": seg.expr or None,
                "evidence": seg.evidence or None,
                "location": _loc(seg.span),
                "tokens": tokens.count(seg.text) if seg.is_static else None,
            } for seg in part.segments]
            bps = [{"after": bp.after, "ttl": bp.ttl, "location": _loc(bp.span)} for bp in part.breakpoints]
            parts.append({"role": part.role, "location": _loc(part.span), "segments": segs, "breakpoints": bps})
        prompts.append({
            "id": layout.id, "filename": layout.site.filename,
            "location": {"row": layout.site.start.row, "column": layout.site.start.column},
            "source": layout.source, "provider": layout.provider, "api": layout.api, "model": layout.model,
            "sdk": layout.sdk, "templates": list(layout.templates),
            "static_prefix_tokens": static_prefix_tokens(layout), "static_tokens": static_tokens(layout),
            "prefix_end": None if stop.part >= len(layout.parts) else {"part": stop.part, "segment": stop.count},
            "auto_cache": _loc(layout.auto_cache),
            "parts": parts,
            "estimates": _estimates(layout, pair),
            "impacts": [_impact_json(imp) for imp in _findings(layout)],
        })
    return {"prompts": prompts}


def _findings(layout: PromptLayout) -> list:
    """The impacts (`promptlint.impact`) that the prefix rules report for this layout."""
    return [imp for imp in impacts(layout) if imp.severity is not None]


def _impact_json(imp) -> dict:
    return {"part": imp.placed.part_index, "segment": imp.placed.seg_index, "changes": imp.rate.value,
            "severity": imp.severity.value, "static_before": imp.placed.static_before,
            "static_after": imp.static_after, "history_after": imp.history_after,
            "targets": [{"target": t.target, "exact": t.exact, "cached_now": t.now, "cached_fixed": t.fixed,
                         "dormant": t.dormant or None} for t in imp.targets]}


def _preview(seg: Segment, width: int) -> str:
    if seg.is_static:
        text = " ".join(seg.text.split())
        text = f'"{text}"' if text else '""'
    else:
        caret = seg.written  # what the code writes there (`{knowledge_summary}`), not the value's own name
        inner = " ".join((caret.text if caret else seg.expr or seg.evidence or "?").split())
        text = inner if inner.startswith("{") and inner.endswith("}") else "{" + inner + "}"  # `{field}` as written
    return text if len(text) <= width else text[: max(width - 3, 1)] + "..."


def _label(seg: Segment) -> str:
    """'12 tok' for static text; 'timestamp, per-request' (kind, volatility) for dynamic content."""
    if seg.is_static:
        return f"{tokens.count(seg.text):,} tok"
    kind = seg.kind.value if seg.kind else "dynamic"
    if seg.volatility is Volatility.UNKNOWN and seg.kind in (Kind.UNKNOWN, Kind.HISTORY):
        return kind
    return f"{kind}, {seg.volatility.value}"


def _written_note(seg: Segment) -> str:
    """For a value drawn as the code writes it where it enters (`Segment.caret`) but named from
    elsewhere: '^ built from `query`' (text built around it), '^ the value of `top["name"]`
    (line 304)' (the same value under another name: a caller's argument, a name bound to it),
    '^ one variant reads `10`' (a choice between texts)."""
    caret = seg.written
    if caret is None or seg.is_static:
        return ""
    expr = " ".join(seg.expr.split())
    if caret.built:
        return f"^ built from `{expr}`"
    if seg.kind is Kind.CONDITIONAL:  # (its `expr` is one variant's text, not a value's name)
        return f"^ one variant reads `{expr}`"
    origin = seg.origin
    where = "" if origin is None else f" ({'line' if origin.filename == seg.span.filename else origin.filename + ':'}" \
        f"{' ' if origin.filename == seg.span.filename else ''}{origin.start.row})"
    return f"^ the value of `{expr}`{where}"


def _why_unknown(seg: Segment) -> str:
    """For content the analysis could not read: why ("`x` is not resolved", "the parameter
    `p`"), so a user sees what it would need to know. Empty for static or understood content."""
    if not seg.is_static and seg.kind is Kind.UNKNOWN and seg.volatility is Volatility.STABLE and seg.evidence:
        # content not known, judged the same on every request: why (`unknown, stable` alone says not)
        return f"^ stable: {' '.join(seg.evidence.split())}"
    if seg.is_static or seg.volatility is not Volatility.UNKNOWN or seg.kind in (Kind.HISTORY, Kind.SERIALIZED):
        return ""
    reason = " ".join(seg.evidence.split()) if seg.evidence else "not known statically"
    return f"^ unknown: {reason}"


def _why_history(seg: Segment, part) -> str:
    """For the conversation history: what the analysis took for it and what of it it could not
    read ('^ history: `messages`, the replayed conversation; its messages are not read here'), so
    a user sees why the request's messages are drawn as one `{conversation history}`. Empty for
    other segments and for a history cut to a window (the cut is drawn with it)."""
    if seg.is_static or seg.kind is not Kind.HISTORY or seg.window is not None:
        return ""
    note = part.note if part is not None and part.is_history and part.segments and part.segments[0] is seg else ""
    if note or seg.evidence and seg.evidence != "replayed conversation":
        what = " ".join((note or seg.evidence).split())
    else:
        name = " ".join((seg.expr or "messages").split())
        what = f"`{name}`, taken as the replayed conversation"
        if seg.span is not None:
            what += f" (line {seg.span.start.row})"
    if part is not None and part.is_history and not part.read and "not read" not in what and "none of its" not in what:
        what += "; its messages are not read here: what they hold is not drawn"
    return f"^ history: {what}"


#: The console width (characters) that draws lines whole when a drawing is not cropped.
_UNCROPPED = 100_000


def _print(console: Console, line: Text) -> None:
    """One drawing line, cut with an ellipsis at the console width instead of wrapping."""
    console.print(line, no_wrap=True, overflow="ellipsis", crop=True)


def _marker(text: str, style: str, width: int) -> Text:
    line = Text(" " * (_ROLE_WIDTH + 1))
    body = f"-- {text} "
    line.append(body + "-" * max(width - len(line) - len(body), 0), style=_STYLES[style])
    return line


def _first_kind(layout: PromptLayout) -> str:
    """'dynamic content', or 'content of unknown origin' when its first segment is unknown."""
    first = next((seg for part in layout.parts for seg in part.segments), None)
    unknown = first is not None and first.kind is Kind.UNKNOWN and first.volatility is Volatility.UNKNOWN
    return "content of unknown origin" if unknown else "dynamic content"


#: A provider whose own SDK the README names otherwise.
_OWN_SDK = {"google": "gemini"}


def _through(layout: PromptLayout) -> str:
    """'via LangChain' for a request read through a call shape of an SDK or framework that is not
    the provider's own client (LangChain, LiteLLM, pydantic-ai, the OpenAI SDK sent to another
    provider, a provider not known); '' for the provider's own SDK (its `api` names the call)."""
    provider = (layout.provider or "").lower()
    if not layout.sdk or layout.sdk.lower() in (provider, _OWN_SDK.get(provider)):
        return ""
    return f"via {layout.sdk}"


def _order_only(layout: PromptLayout) -> bool:
    """True for a tool's result recorded by the unordered iterations it holds alone (its parts are
    tool parts of only such segments): its text before them is not in the layout."""
    segs = [seg for part in layout.parts for seg in part.segments]
    return bool(segs) and all(part.role == "tool" for part in layout.parts) \
        and all(seg.kind is Kind.UNORDERED_ITERATION for seg in segs)


def _draw_layout(console: Console, layout: PromptLayout, width: int, pair: tuple) -> None:
    bits = [layout.source, layout.provider or "provider unknown", layout.api or "", layout.model or "model unknown",
            _through(layout)]
    about = " | ".join(b for b in bits if b)
    head = Text(f"{layout.id}", style="bold")
    if len(layout.id) + 2 + len(about) <= width:  # one line when it fits, else the facts on the next
        head.append("  " + about, style=_STYLES["muted"])
        console.print(head)
    else:
        console.print(head, soft_wrap=True)  # a long path stays whole
        console.print(Text("  " + about, style=_STYLES["muted"]), soft_wrap=True)  # the facts whole too
    stop = prefix_stop(layout)
    cuts = {(pi, bp.after): bp for _cut, pi, bp in breakpoint_cuts(layout)}
    found = {(imp.placed.part_index, imp.placed.seg_index): imp for imp in _findings(layout)}
    if not any(part.segments for part in layout.parts):
        _print(console, _marker("no part of this request was read: nothing is known of its prefix", "prefix", width))
    elif _order_only(layout):  # (python/tool_results.py records a tool's result by its order alone)
        _print(console, _marker("a tool's result: only the iteration that orders it is drawn, not its text", "prefix", width))
    elif stop == Cut(0, 0):
        _print(console, _marker(f"static prefix is empty: the prompt starts with {_first_kind(layout)}", "prefix", width))
    for pi, part in enumerate(layout.parts):
        if (pi, -1) in cuts:
            _print(console, _breakpoint_line(cuts[(pi, -1)], width))
        for si, seg in enumerate(part.segments):
            line = Text(f"{(part.role if si == 0 else ''):<{_ROLE_WIDTH}} ", style="bold" if si == 0 else "")
            style = _style(seg)
            label = _label(seg)
            line.append(_preview(seg, max(width - len(line) - len(label) - 2, 10)), style=_STYLES[style])
            line.append(" " * max(width - len(line) - len(label), 1) + label,
                        style=_STYLES["muted"] if seg.is_static else _STYLES[style])
            _print(console, line)
            written = _written_note(seg)
            if written:
                _print(console, Text(" " * (_ROLE_WIDTH + 3) + written, style=_STYLES["muted"]))
            why = _why_unknown(seg)
            if why:
                _print(console, Text(" " * (_ROLE_WIDTH + 3) + why, style=_STYLES["muted"]))
            history = _why_history(seg, part)
            if history:  # (prose: a whole line, never cut or wrapped, as the cost line)
                console.print(Text(" " * (_ROLE_WIDTH + 3) + history, style=_STYLES["muted"]), soft_wrap=True)
            if (pi, si) in found:  # what the finding costs: prose, a whole line, never cut or wrapped
                console.print(Text(" " * (_ROLE_WIDTH + 1) + "-- cost: " + summary(found[(pi, si)]),
                                   style=_STYLES["volatile"]), soft_wrap=True)
            if (pi, si) in cuts:
                _print(console, _breakpoint_line(cuts[(pi, si)], width))
            if Cut(pi, si + 1) == stop or (si == len(part.segments) - 1 and Cut(pi + 1, 0) == stop
                                            and stop.part < len(layout.parts)):
                _print(console, _marker(f"static prefix ends: {plural(static_prefix_tokens(layout))} (o200k)",
                                      "prefix", width))
        if not part.segments:
            console.print(Text(f"{part.role:<{_ROLE_WIDTH}} (empty)", style=_STYLES["muted"]))
    if stop.part >= len(layout.parts) and layout.parts:
        _print(console, _marker(f"all static: {plural(static_prefix_tokens(layout))} (o200k)", "prefix", width))
    if layout.auto_cache is not None:
        _print(console, _marker(f"automatic cache_control (top level) {layout.auto_cache}", "breakpoint", width))
    table, notes = _targets_table(layout, pair)
    console.print(table)
    for note in notes:  # prose: never hard-wrapped (a pipe or a file gets whole lines)
        console.print(Text(note, style=_STYLES["muted"]), soft_wrap=True)


def _breakpoint_line(bp, width: int) -> Text:
    ttl = f" (ttl {bp.ttl})" if bp.ttl else ""
    where = f" at {bp.span}" if bp.span is not None else ""
    what = (f"{bp.count} cache breakpoints" if bp.count > 1 else
            "cache breakpoint on every message" if bp.repeated else "cache breakpoint")
    return _marker(f"{what}{ttl}{where}", "breakpoint", width)


def _num(value: int | None, exact: bool) -> str:
    if value is None:
        return "-"
    return f"{value:,}" if exact else f"~{value:,}"


def _mult(value: float | None) -> str:
    return "-" if value is None else f"{value:g}x"


def _targets_table(layout: PromptLayout, pair: tuple) -> tuple[Table, list[str]]:
    # one space between columns, so an 80-column terminal holds the whole row; numbers never shrink
    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold", collapse_padding=True,
                  padding=(0, 1))
    for name, justify in (("target", "left"), ("tokenizer", "left")):
        table.add_column(name, justify=justify, no_wrap=True)
    for name in ("prefix", "min", "cached", "share", "read", "write"):
        table.add_column(name, justify="right", no_wrap=True, min_width=len(name))
    notes = []
    for row in _estimates(layout, pair):
        share = _static_share(layout, row)
        target = f"{row['provider']}:{row['model']}" if row["model"] else row["provider"]
        if row["note"]:
            notes.append(f"{target}: {row['note']}")
        table.add_row(target, tokenizer_name(row["tokenizer"]), _num(row["prefix_tokens"], row["exact"]),
                      _num(row["min_cacheable_tokens"], True), _num(row["cached_tokens"], row["exact"]),
                      "-" if share is None else f"{share:.0%}", _mult(row["read_price_multiplier"]),
                      _mult(row["write_price_multiplier"]))
    return table, notes


def render_explain(layouts: Iterable[PromptLayout], console_width: int = 100, *, color: bool = False,
                   targets: Iterable[Target] | None = None, default_targets: Iterable[Target] | None = None,
                   console: Console | None = None, crop: bool = True) -> str:
    """Draw every layout; returns the drawing as text (with ANSI styles when `color`).
    `crop`: lines longer than `console_width` characters are cut with an ellipsis (on a terminal);
    False draws at that width but writes long lines whole (a file or a pipe loses nothing).

    With `console` given, draws on it instead (its width is used) and returns "". In the targets
    table, `prefix` and `cached` are tokens in the target's tokenizer ("~" marks estimates),
    `share` is cached tokens over the prompt's static tokens (the share of the static input billed
    at the cached rate; dynamic content is not counted), `read` / `write` are price multipliers.
    Targets are chosen as in `explain_json`."""
    buf = None
    if console is None:
        buf = io.StringIO()
        console = Console(file=buf, width=console_width if crop else _UNCROPPED, force_terminal=color,
                          no_color=not color, highlight=False, soft_wrap=False)
    width = console.width if crop else console_width
    pair = (list(targets or ()), list(default_targets or ()) or None)
    for i, layout in enumerate(layouts):
        if i:
            console.print()
        _draw_layout(console, layout, width, pair)
    return buf.getvalue() if buf is not None else ""


def parse_location(text: str) -> tuple[str, int | None]:
    """'app/chat.py:14' -> ('app/chat.py', 14); 'app/chat.py:14:9' (a finding's location as
    `check` prints it: the column is not needed to find its prompt) -> ('app/chat.py', 14); a path
    without a numeric suffix -> (path, None)."""
    path, sep, line = text.rpartition(":")
    if sep and path and line.isdigit() and int(line) > 0:
        head, sep2, row = path.rpartition(":")
        if sep2 and head and row.isdigit() and int(row) > 0:
            return head, int(row)
        return path, int(line)
    return text, None


def select_layouts(layouts: Iterable[PromptLayout], line: int | None,
                   filename: str | None = None, diagnostics: Iterable[Diagnostic] = ()) -> list[PromptLayout]:
    """`chosen_layouts`, each drawing once: a prompt reached by two paths (the prompt of a finding
    and a candidate on the line, the same id and parts) is drawn once, where it first comes."""
    out: list[PromptLayout] = []
    for lay in chosen_layouts(layouts, line, filename, diagnostics):
        if not any(o is lay or o.id == lay.id and o.source == lay.source and o.parts == lay.parts for o in out):
            out.append(lay)
    return out


def chosen_layouts(layouts: Iterable[PromptLayout], line: int | None,
                   filename: str | None = None, diagnostics: Iterable[Diagnostic] = ()) -> list[PromptLayout]:
    """The layouts of the prompt at 1-based `line` of `filename` (None: any file, the caller
    checked only that file): those whose call spans the line, else the prompts of the findings
    (`diagnostics`) located on that line, wherever the prompt is built or sent (a timestamp
    placed in helpers.py, sent in app.py), else those with a part or segment on that line of
    that file (a template line: the Python calls that render the template win over the
    template's standalone layout; a prompt candidate spanning the line comes after the prompts of
    the findings and before those), else the prompts of the findings that name that line as a
    related location (the request that sends a prompt built elsewhere).
    With `line` None, every layout of the file and every call
    that renders it."""
    layouts = list(layouts)

    def in_file(span: Span | None) -> bool:
        return span is not None and (filename is None or span.filename == filename)

    if line is None:
        own = [lay for lay in layouts if in_file(lay.site)]
        rendering = [lay for lay in layouts if lay not in own and filename in lay.templates]
        return rendering + own if filename is not None else layouts
    at_call = [lay for lay in layouts if in_file(lay.site) and lay.site.start.row <= line <= lay.site.end.row]
    calls = [lay for lay in at_call if lay.source == "python-call"]
    if calls:
        return calls
    ids = {d.prompt for d in diagnostics if d.prompt and in_file(d.span) and d.span.start.row <= line <= d.span.end.row}
    of_findings = [lay for lay in layouts if lay.id in ids]
    of_findings = [lay for lay in of_findings if lay.source == "python-call"] or of_findings
    if of_findings or at_call:  # the prompt candidates on the line after the prompts they are part of
        shown = {lay.id for lay in of_findings}
        # a candidate that is part of a larger prompt built from it: that prompt first
        larger = [h for lay in at_call if lay.id not in shown for h in holders(lay, layouts)]
        shown |= {h.id for h in larger}
        return of_findings + larger + [lay for lay in at_call if lay.id not in shown]

    def touches(span: Span | None) -> bool:
        return in_file(span) and span.start.row <= line <= span.end.row

    found = [lay for lay in layouts
             if any(touches(p.span) or any(touches(s.span) for s in p.segments) for p in lay.parts)]
    calls = [lay for lay in found if lay.source == "python-call"]
    if calls or found:
        return calls or found
    # a line a finding names as related (the request that sends it, where its value is produced)
    ids = {d.prompt for d in diagnostics if d.prompt and any(touches(r.span) for r in d.related)}
    return [lay for lay in layouts if lay.id in ids]


def nearby_prompts(prompts, filename: str | None, line: int | None) -> str:
    """'; the nearest prompts of this file are at lines 350 and 412' (the two whose line is
    closest to `line`, in line order); when the file has none, that it holds no prompt promptlint
    recognises; '' when no line was asked for."""
    rows = sorted({lay.site.start.row for lay in prompts if lay.site is not None and lay.site.filename == filename})
    if line is None:
        return ""
    if not rows:
        return ("; this file holds no prompt promptlint recognises (requests of the SDKs the README's \"What is "
                "recognised\" lists, prompt text kept in names or modules that say prompt, templates and prompt files)")
    near = sorted(sorted(rows, key=lambda r: (abs(r - line), r))[:2])
    at = " and ".join(str(r) for r in near)
    return (f"; the nearest prompt{'s' if len(near) > 1 else ''} of this file {'are' if len(near) > 1 else 'is'} "
            f"at line{'s' if len(near) > 1 else ''} {at}")
