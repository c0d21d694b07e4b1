"""SARIF 2.1.0 output (OASIS), for GitHub code scanning and other SARIF viewers.

One run: `tool.driver` lists every registered rule (id, name, short and full description, help
text and markdown from the rule's docstring, default level); each diagnostic is a result with its
level, message, location, related locations and fixes. Columns are Unicode code points
(`columnKind: unicodeCodePoints`), 1-based, as in the JSON contract. Relative paths are given
against `%SRCROOT%`, the directory promptlint ran in.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import quote

from ..model import Diagnostic, Position, Report, Severity

SCHEMA = ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
          "sarif-schema-2.1.0.json")
INFORMATION_URI = "https://pypi.org/project/promptlint/"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def tool_version() -> str:
    """promptlint's version: the package attribute, else the installed metadata."""
    try:
        from .. import __version__
        return str(__version__)
    except ImportError:
        pass
    try:
        from importlib.metadata import version
        return version("promptlint")
    except Exception:  # PackageNotFoundError: running from a source tree
        return "0.1.0"


def _section(doc: str, title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", doc, re.S | re.M)
    return " ".join(m.group(1).split()) if m else ""


def rule_descriptor(rule) -> dict:
    """The SARIF reportingDescriptor of a rule class."""
    doc = rule.doc()
    full = " ".join(p for p in (_section(doc, "What it does"), _section(doc, "Why is this bad?"))
                    if p) or rule.summary()
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary()},
        "fullDescription": {"text": full},
        "help": {"text": doc, "markdown": doc},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"tags": ["prompt-caching"], "fixAvailability": rule.fix_availability},
    }


def _uri(filename: str) -> dict:
    path = Path(filename)
    if path.is_absolute():
        return {"uri": path.as_uri()}
    return {"uri": quote(path.as_posix()), "uriBaseId": "%SRCROOT%"}


def _region(start: Position, end: Position) -> dict:
    return {"startLine": start.row, "startColumn": start.column,
            "endLine": end.row, "endColumn": end.column}


def _location(span, message: str | None = None, ident: int | None = None) -> dict:
    loc: dict = {"physicalLocation": {"artifactLocation": _uri(span.filename),
                                      "region": _region(span.start, span.end)}}
    if ident is not None:
        loc["id"] = ident
    if message:
        loc["message"] = {"text": message}
    return loc


def _result(d: Diagnostic, rule_index: dict[str, int]) -> dict:
    result: dict = {"ruleId": d.code, "level": LEVELS[d.severity],
                    "message": {"text": d.message}, "locations": [_location(d.span)]}
    if d.code in rule_index:
        result["ruleIndex"] = rule_index[d.code]
    if d.related:
        result["relatedLocations"] = [_location(r.span, r.message, i)
                                      for i, r in enumerate(d.related)]
    if d.fix is not None and d.fix.edits:
        result["fixes"] = [{
            "description": {"text": d.fix.message},
            "artifactChanges": [{
                "artifactLocation": _uri(d.span.filename),
                "replacements": [{"deletedRegion": _region(e.start, e.end),
                                  "insertedContent": {"text": e.content}}
                                 for e in d.fix.edits],
            }],
        }]
        result["properties"] = {"fixApplicability": d.fix.applicability.value}
    if d.prompt:
        result.setdefault("properties", {})["prompt"] = d.prompt
    return result


def render(report: Report, *, version: str | None = None) -> str:
    """The SARIF log of `report` as a JSON string (with a trailing newline)."""
    from ..rules import ALL_RULES

    rules = [rule_descriptor(r) for r in ALL_RULES]
    index = {r["id"]: i for i, r in enumerate(rules)}
    driver = {"name": "promptlint", "version": version or tool_version(),
              "informationUri": INFORMATION_URI, "rules": rules}
    invocation = {"executionSuccessful": not report.errors}
    if report.errors:
        invocation["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": e}} for e in report.errors]
    run = {
        "tool": {"driver": driver},
        "invocations": [invocation],
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": [_result(d, index)
                    for d in sorted(report.diagnostics, key=lambda d: d.sort_key)],
    }
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
