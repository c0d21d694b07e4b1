"""`--output-format html`: one self-contained page (inline CSS, no script, no network) with every prompt.

A summary (prompts, findings by rule, cacheable tokens and savings per target model), then each
prompt's layout as a bar of segments in request order (tools, system, history, newest message),
static and dynamic segments coloured apart, cache breakpoints and, per target, where the cached
prefix ends; under it the findings on that prompt with their source lines, and every segment with
a link to its file and line. Rendered with jinja2 templates shipped in the package
(`html_templates/`) with autoescaping on: prompt text and file names may contain anything. A
Content-Security-Policy forbids scripts and every fetch, so even a mistake in escaping runs nothing.

The page is a pure function of the report and the source files' lines (`read_text`). Links are
relative to the current directory (the folder `check` ran in), as the report's file names are.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from pathlib import Path
from typing import Callable
from urllib.parse import quote

import jinja2

from .. import __version__, tokens
from ..estimates import Cut, breakpoint_cuts, prefix_stop, target_tokens, tokenizer_name
from ..model import Diagnostic, Kind, PromptLayout, Report, Segment, Span, Volatility
from ..judged import prompts_analysed, references
from ..profiles import UnknownTargetError, lookup
from .statistics import target_name

TEXT_LIMIT = 2000  # characters of a segment's text shown in the segment list
PREVIEW = 160  # characters of a segment's text in its tooltip
DYNAMIC_GROW = 2.0  # the width of a dynamic segment, in the units of sqrt(tokens) of static text

ReadText = Callable[[str], "str | None"]


def _read_text(filename: str) -> str | None:
    try:
        return Path(filename).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def href(filename: str, row: int | None = None) -> str:
    """A link to a file (and line): relative to the current directory, percent-encoded so that no
    file name can become a scheme (`javascript:`) or break out of the attribute."""
    path = Path(filename)
    url = path.as_uri() if path.is_absolute() else "./" + quote(path.as_posix())
    return f"{url}#L{row}" if row else url


def _where(span: Span | None) -> dict | None:
    if span is None:
        return None
    return {"text": f"{span.filename}:{span.start.row}:{span.start.column}",
            "href": href(span.filename, span.start.row)}


def _segment_class(seg: Segment, cached: bool) -> str:
    """CSS class: static text inside / after the static prefix, history, volatile or unknown."""
    if seg.is_static:
        return "static" if cached else "static-after"
    if seg.kind is Kind.HISTORY:
        return "history"
    if seg.is_volatile and seg.volatility is not Volatility.UNKNOWN:
        return "volatile"
    return "dynamic"


def _label(seg: Segment) -> str:
    if seg.is_static:
        return "static text"
    kind = seg.kind.value if seg.kind else "dynamic"
    return kind if seg.volatility in (Volatility.UNKNOWN, Volatility.STABLE) and seg.kind in (
        Kind.UNKNOWN, Kind.HISTORY) else f"{kind}, {seg.volatility.value}"


_SHORT = {Kind.TIMESTAMP: "time", Kind.UNIQUE_ID: "id", Kind.SERIALIZED: "json", Kind.UNORDERED_ITERATION: "set",
          Kind.CONDITIONAL: "if", Kind.USER_INPUT: "user", Kind.TEMPLATE_VARIABLE: "var", Kind.HISTORY: "history",
          Kind.UNKNOWN: "?"}


def _short(seg: Segment, count: int) -> str:
    """What a bar segment shows: its tokens (static) or a word for its kind (dynamic)."""
    if seg.is_static:
        return f"{count:,}"
    return _SHORT.get(seg.kind, "?")


def _preview(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _target_name(row: dict) -> str:
    return target_name(row)


def _target_cuts(layout: PromptLayout) -> dict[Cut, list[dict]]:
    """For each estimate row, the point where its cached prefix ends: the candidate (a breakpoint
    inside the static prefix, or the end of the static prefix) whose token count in the target's
    tokenizer is the row's `prefix_tokens`; rows that cache no prefix map to Cut(-1, 0)."""
    stop = prefix_stop(layout)
    candidates = [cut for cut, _pi, _bp in breakpoint_cuts(layout) if cut <= stop] + [stop]
    out: dict[Cut, list[dict]] = defaultdict(list)
    for row in layout.estimates:
        cut = Cut(-1, 0)
        if row.get("prefix_tokens"):
            try:
                profile, _ = lookup(row["provider"], row.get("model"))
            except UnknownTargetError:
                profile = None
            if profile is not None:
                matches = [c for c in candidates if target_tokens(layout, c, profile)[0] == row["prefix_tokens"]]
                cut = matches[-1] if matches else stop
            else:
                cut = stop
        out[cut].append(row)
    return out


def _marker(rows: list[dict]) -> dict:
    labels = []
    for row in rows:
        approx = "" if row.get("exact") else "~"
        if row.get("cached_tokens"):
            labels.append(f"{_target_name(row)}: {approx}{row['cached_tokens']:,} tokens cached")
        elif row.get("prefix_tokens"):
            minimum = row.get("min_cacheable_tokens")
            below = f" < {minimum:,} minimum" if minimum else ""
            labels.append(f"{_target_name(row)}: {approx}{row['prefix_tokens']:,} tokens{below}, nothing cached")
        else:
            labels.append(f"{_target_name(row)}: nothing cached")
    return {"kind": "cut", "labels": labels, "cached": any(r.get("cached_tokens") for r in rows)}


def _bar(layout: PromptLayout) -> list[dict]:
    """The parts of the bar in request order, each with its items: segments, breakpoints and
    prefix-end markers, in the order they occur."""
    stop = prefix_stop(layout)
    cuts = _target_cuts(layout)
    breakpoints = {(pi, bp.after): bp for _c, pi, bp in breakpoint_cuts(layout)}
    parts = []
    for pi, part in enumerate(layout.parts):
        items: list[dict] = []

        def markers_at(cut: Cut) -> None:
            if cut in cuts:
                items.append(_marker(cuts[cut]))

        if pi == 0:
            markers_at(Cut(-1, 0))  # targets that cache nothing
        if (pi, -1) in breakpoints:
            items.append({"kind": "breakpoint", "ttl": breakpoints[(pi, -1)].ttl,
                          "where": _where(breakpoints[(pi, -1)].span)})
        markers_at(Cut(pi, 0))
        for si, seg in enumerate(part.segments):
            count = tokens.count(seg.text) if seg.is_static and seg.text else 0
            cached = Cut(pi, si) < stop
            items.append({
                "kind": "segment", "class": _segment_class(seg, cached), "label": _label(seg),
                "tokens": count if seg.is_static else None,
                "grow": max(math.sqrt(count), 1.0) if seg.is_static else DYNAMIC_GROW,
                "preview": _preview(seg.text if seg.is_static else (seg.expr or seg.evidence or "?"), PREVIEW),
                "where": _where(seg.span), "short": _short(seg, count),
            })
            if (pi, si) in breakpoints:
                bp = breakpoints[(pi, si)]
                items.append({"kind": "breakpoint", "ttl": bp.ttl, "where": _where(bp.span)})
            markers_at(Cut(pi, si + 1))
        if pi + 1 == len(layout.parts):
            markers_at(Cut(pi + 1, 0))
        parts.append({"role": part.role, "cells": items,
                      "grow": sum(i.get("grow", 0) for i in items)})
    return parts


def _segments(layout: PromptLayout) -> list[dict]:
    out = []
    for pi, si, part, seg in layout.segments():
        text = seg.text if seg.is_static else (seg.expr or "")
        out.append({
            "part": part.role, "static": seg.is_static, "label": _label(seg), "class": _segment_class(seg, True),
            "tokens": tokens.count(seg.text) if seg.is_static and seg.text else None,
            "text": text[:TEXT_LIMIT], "cut": len(text) > TEXT_LIMIT, "evidence": seg.evidence,
            "where": _where(seg.span), "origin": _where(seg.origin),
        })
    return out


class _Lines:
    """Source lines by file, read once."""

    def __init__(self, read_text: ReadText):
        self.read_text = read_text
        self.cache: dict[str, list[str] | None] = {}

    def frame(self, span: Span) -> list[dict]:
        """The finding's row and the row before it: [{row, text, mark}]."""
        if span.filename not in self.cache:
            text = self.read_text(span.filename)
            self.cache[span.filename] = None if text is None else text.split("\n")
        lines = self.cache[span.filename]
        if lines is None:
            return []
        rows = range(max(span.start.row - 1, 1), min(span.start.row, len(lines)) + 1)
        return [{"row": r, "text": lines[r - 1].rstrip("\r\n"), "mark": r == span.start.row} for r in rows]


def _finding(d: Diagnostic, lines: _Lines) -> dict:
    return {
        "code": d.code, "name": d.name, "severity": d.severity.value, "message": d.message,
        "where": _where(d.span), "frame": lines.frame(d.span), "column": d.span.start.column,
        "related": [{"where": _where(r.span), "message": r.message} for r in d.related],
        "fix": None if d.fix is None else {"applicability": d.fix.applicability.value, "message": d.fix.message},
        "advice": d.advice, "prompt": d.prompt,
    }


def _targets(prompts: list[PromptLayout]) -> list[dict]:
    """Per target model: prompts estimated, static-prefix and cached tokens, and the savings:
    cached tokens x (1 - read price multiplier), in full-price input tokens per call of each prompt."""
    rows: dict[str, dict] = {}
    for layout in prompts:
        for est in layout.estimates:
            name = _target_name(est)
            row = rows.setdefault(name, {"target": name, "tokenizer": est.get("tokenizer"), "exact": True,
                                         "prompts": 0, "cached_prompts": 0, "prefix": 0, "cached": 0,
                                         "saved": 0.0, "read": est.get("read_price_multiplier")})
            row["prompts"] += 1
            row["cached_prompts"] += 1 if est.get("cached_tokens") else 0
            row["prefix"] += est.get("prefix_tokens") or 0
            row["cached"] += est.get("cached_tokens") or 0
            row["exact"] = row["exact"] and bool(est.get("exact"))
            read = est.get("read_price_multiplier")
            if read is not None:
                row["saved"] += (est.get("cached_tokens") or 0) * (1 - read)
    return sorted(rows.values(), key=lambda r: r["target"])


def context(report: Report, read_text: ReadText | None = None) -> dict:
    """The data the template draws (also handy in tests)."""
    lines = _Lines(read_text or _read_text)
    shown = prompts_analysed(report.prompts)  # each prompt once, as every report counts them: a candidate
    # a call sends is part of the call's prompt, a text a helper returns to its callers is the helper's
    ids = {p.id for p in shown}
    by_prompt: dict[str, list[Diagnostic]] = defaultdict(list)
    for d in report.diagnostics:
        by_prompt[d.prompt if d.prompt in ids else ""].append(d)
    prompts = []
    for n, layout in enumerate(shown, 1):
        prompts.append({
            "anchor": f"prompt-{n}", "id": layout.id, "where": _where(layout.site), "source": layout.source,
            "provider": layout.provider, "api": layout.api, "model": layout.model,
            "templates": [{"name": t, "href": href(t)} for t in layout.templates],
            "static_prefix_tokens": layout.static_prefix_tokens, "static_tokens": layout.static_tokens,
            "parts": _bar(layout), "segments": _segments(layout), "estimates": layout.estimates,
            "findings": [_finding(d, lines) for d in by_prompt.get(layout.id, [])],
        })
    severities = Counter(d.severity.value for d in report.diagnostics)
    rules: dict[str, dict] = {}
    for d in report.diagnostics:  # a rule's findings counted per severity (a rule's findings differ in it)
        rule = rules.setdefault(d.code, {"code": d.code, "name": d.name, "count": 0, "by_severity": Counter()})
        rule["count"] += 1
        rule["by_severity"][d.severity.value] += 1
    for rule in rules.values():
        counts = rule.pop("by_severity")
        rule["severities"] = [(s, counts[s]) for s in ("error", "warning", "info") if counts[s]]
    return {
        "version": __version__, "files": report.files, "prompts": prompts,
        "findings": len(report.diagnostics), "severities": [(s, severities[s]) for s in ("error", "warning", "info")],
        "rules": sorted(rules.values(), key=lambda r: r["code"]), "targets": _targets(shown),
        "other_findings": [_finding(d, lines) for d in by_prompt.get("", [])], "errors": list(report.errors),
        "with_findings": sum(1 for p in prompts if p["findings"]),
        # the other layouts a prompt shown holds (a text a call sends, a helper's text its callers return)
        "drawn_within": sum(1 for held in references(report.prompts, shown).values() if held is not None),
    }


_ENV: jinja2.Environment | None = None


def _environment() -> jinja2.Environment:
    global _ENV
    if _ENV is None:
        _ENV = jinja2.Environment(loader=jinja2.PackageLoader("promptlint.report", "html_templates"),
                                  autoescape=True, undefined=jinja2.StrictUndefined,
                                  trim_blocks=True, lstrip_blocks=True)
        _ENV.filters["thousands"] = _thousands
        _ENV.filters["tokenizer_name"] = tokenizer_name
        _ENV.filters["approx"] = lambda n, exact: ("" if exact or not n else "~") + _thousands(n or 0)
    return _ENV


def _thousands(n: float) -> str:
    return f"{n:,}" if isinstance(n, int) else f"{n:,.0f}"


def render(report: Report, read_text: ReadText | None = None) -> str:
    """The HTML page. `read_text(filename)` gives a file's text for the source lines of findings
    (default: read from disk; None when unreadable)."""
    return _environment().get_template("report.html.j2").render(context(report, read_text))
