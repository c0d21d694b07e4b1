"""SARIF 2.1.0 output of `promptlint trace`: one run, one rule (`prefix-divergence`), a result
per divergence at its source line (or at the request's line in the log when no analysed prompt
matched), the log lines of the example pair as related locations, and skipped lines as tool
execution notifications with their line."""
from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from ..report.sarif import SCHEMA, tool_version
from .model import Divergence, TraceReport

__all__ = ["RULE", "render"]

RULE = {
    "id": "prefix-divergence",
    "name": "prefix-divergence",
    "shortDescription": {"text": "Logged requests of one prompt diverge before the end of their shared prefix"},
    "fullDescription": {"text": "Requests that share a prompt should repeat the previous request's prefix "
                                "byte for byte (the conversation so far, or the tools and system text): where "
                                "they diverge, everything after is read from the cache no more."},
    "help": {"text": "Move the changing value after the static content, or make it stable "
                     "(see `promptlint trace` in docs/trace.md)."},
    "defaultConfiguration": {"level": "warning"},
    "properties": {"tags": ["prompt-caching", "trace"]},
}
_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _artifact(filename: str) -> dict:
    path = Path(filename)
    if path.is_absolute():
        return {"uri": path.as_uri()}
    return {"uri": quote(path.as_posix()), "uriBaseId": "%SRCROOT%"}


def _location(filename: str, row: int, column: int = 1, end_row: int | None = None,
              end_column: int | None = None, message: str | None = None, ident: int | None = None) -> dict:
    region = {"startLine": row, "startColumn": column}
    if end_row is not None:
        region.update(endLine=end_row, endColumn=end_column or column)
    loc: dict = {"physicalLocation": {"artifactLocation": _artifact(filename), "region": region}}
    if message:
        loc["message"] = {"text": message}
    if ident is not None:
        loc["id"] = ident
    return loc


def _result(d: Divergence, requests_file: str) -> dict:
    ref = d.source
    where = (_location(ref.filename, ref.row, ref.column, ref.end_row, ref.end_column) if ref is not None
             else _location(requests_file, d.example.line))
    related = [_location(requests_file, d.example.line, message="request that diverges", ident=0),
               _location(requests_file, d.example.previous_line, message="request it is compared with", ident=1)]
    return {
        "ruleId": RULE["id"], "ruleIndex": 0, "level": _LEVELS[d.severity], "message": {"text": d.message},
        "locations": [where], "relatedLocations": related,
        "properties": {"group": d.group, "part": d.part, "requests": d.requests,
                       "cachedTokensLost": d.cached_tokens_lost, "prefixTokensLost": d.prefix_tokens_lost,
                       "missedByStaticAnalysis": d.missed, "staticFinding": d.static_finding},
    }


def render(report: TraceReport, *, version: str | None = None) -> str:
    """The SARIF log of a trace report as a JSON string (with a trailing newline)."""
    name = report.requests_file
    invocation: dict = {"executionSuccessful": True}
    if report.errors:
        invocation["toolExecutionNotifications"] = [
            {"level": "warning", "message": {"text": f"line skipped: {message}"},
             "locations": [_location(name, line)] if line else []} for line, message in report.errors]
    run = {
        "tool": {"driver": {"name": "promptlint", "version": version or tool_version(), "rules": [RULE]}},
        "invocations": [invocation],
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": [_result(d, name) for d in report.divergences],
    }
    return json.dumps({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2, ensure_ascii=False) + "\n"
