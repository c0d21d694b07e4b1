"""The JSON report of `promptlint trace`: one object on stdout, nothing else.

{"version", "requests_file", "summary": {lines, requests, skipped, groups, prompts, divergences,
cached_tokens_lost}, "divergences": [...], "groups": [...], "errors": [{"line", "message"}]}.
A divergence has `source` {filename, row, column, end_row, end_column, segment, prompt, expr,
kind, volatility, origin} (rows and columns 1-based) or null when no analysed prompt matched.
"""
from __future__ import annotations

import json

from .. import __version__
from .model import Divergence, Group, TraceReport

__all__ = ["divergence_dict", "render", "report_dict"]


def divergence_dict(d: Divergence) -> dict:
    ref = d.source
    return {
        "severity": d.severity, "message": d.message, "group": d.group,
        "provider": d.provider, "model": d.model, "api": d.api, "comparisons": dict(d.comparisons),
        "part": d.part, "role": d.role, "char_offset": d.char_offset, "byte_offset": d.byte_offset,
        "token_offset": d.token_offset, "tokens_exact": d.tokens_exact, "requests": d.requests,
        "prefix_tokens_lost": d.prefix_tokens_lost,
        "prefix_tokens_lost_per_request": d.prefix_tokens_lost_per_request,
        "cached_tokens_lost": d.cached_tokens_lost,
        "cached_tokens_lost_per_request": d.cached_tokens_lost_per_request,
        "read_price_multiplier": d.read_price_multiplier,
        "source": None if ref is None else {
            "filename": ref.filename, "row": ref.row, "column": ref.column, "end_row": ref.end_row,
            "end_column": ref.end_column, "segment": ref.segment, "prompt": ref.prompt, "expr": ref.expr or None,
            "kind": ref.kind, "volatility": ref.volatility, "origin": ref.origin},
        "missed_by_static_analysis": d.missed, "static_finding": d.static_finding,
        "explanation": d.explanation or None,
        "example": {"line": d.example.line, "previous_line": d.example.previous_line, "before": d.example.before,
                    "previous": d.example.previous, "current": d.example.current,
                    "previous_changed": d.example.previous_changed, "current_changed": d.example.current_changed},
    }


def _group(g: Group) -> dict:
    return {"id": g.id, "provider": g.provider, "model": g.model, "api": g.api, "prompt": g.prompt,
            "requests": g.requests, "conversations": g.conversations, "first_line": g.first_line}


def report_dict(report: TraceReport) -> dict:
    return {
        "version": __version__,
        "requests_file": report.requests_file,
        "summary": {"lines": report.lines, "requests": report.requests, "skipped": report.skipped,
                    "groups": len(report.groups), "prompts": report.prompts,
                    "divergences": len(report.divergences),
                    "cached_tokens_lost": sum(d.cached_tokens_lost for d in report.divergences)},
        "divergences": [divergence_dict(d) for d in report.divergences],
        "groups": [_group(g) for g in report.groups],
        "errors": [{"line": line, "message": message} for line, message in report.errors],
    }


def render(report: TraceReport) -> str:
    """One JSON object, indented, with a trailing newline."""
    return json.dumps(report_dict(report), indent=2, ensure_ascii=False) + "\n"
