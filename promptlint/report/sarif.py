"""SARIF 2.1.0 output (OASIS), for GitHub code scanning and other SARIF viewers.

One run: `tool.driver` lists every registered rule (id, name, short and full description, help
text and markdown from the rule's docstring, default level, and `helpUri` when the docs URL is
known); each diagnostic is a result with its level, message, location, related locations,
`partialFingerprints` and, for safe fixes, `fixes`. Columns are Unicode code points
(`columnKind: unicodeCodePoints`), 1-based, as in the JSON contract.

Artifact URIs are relative to `%SRCROOT%`, the root of the git repository promptlint ran in (the
current folder outside a repository), so that code scanning places them whatever folder the job
ran in; `originalUriBaseIds` gives its absolute URI. The fingerprint
(`partialFingerprints["promptlint/v1"]`) is the baseline's: sha256 of the path, the rule code
and the whitespace-normalised source line (an occurrence number added for repeats), no line
number, so a finding keeps its identity when lines are inserted above it.

promptlint has no public home page yet: `informationUri` and each rule's `helpUri` (the rule's
section of `docs/rules.md`) are given only when the caller knows where the team hosts the docs
(`docs_url`: the `docs-url` setting, `--docs-url`, `PROMPTLINT_DOCS_URL`; the GitHub Action sets it).
"""
from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Callable, Sequence
from urllib.parse import quote

from ..baseline import fingerprint, read_source, snippet
from ..model import Diagnostic, Position, Report, Severity

SCHEMA = ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
          "sarif-schema-2.1.0.json")
AUTOMATION_ID = "promptlint/"
FINGERPRINT_KEY = "promptlint/v1"
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
        return version("promptlint-cache")
    except Exception:  # PackageNotFoundError: running from a source tree  # pragma: no cover
        return "0+unknown"


def _section(doc: str, title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", doc, re.S | re.M)
    return " ".join(m.group(1).split()) if m else ""


def help_uri(rule, docs_url: str) -> str:
    """The rule's section of docs/rules.md at `docs_url` (GitHub's heading anchor)."""
    return f"{docs_url.split('#')[0]}#{rule.code.lower()}-{rule.name}"


def rule_descriptor(rule, docs_url: str | None = None) -> dict:
    """The SARIF reportingDescriptor of a rule class; `helpUri` only with `docs_url`."""
    doc = rule.doc()
    full = " ".join(p for p in (_section(doc, "What it does"), _section(doc, "Why is this bad?"))
                    if p) or rule.summary()
    head = f"# {rule.code} {rule.name}\n\nDefault severity: {rule.severity.value}. Automatic fix: {rule.fix_availability}.\n\n"
    descriptor = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.brief[:1].upper() + rule.brief[1:]},
        "fullDescription": {"text": full},
        "help": {"text": head + doc, "markdown": head + doc},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"tags": ["prompt-caching"], "fixAvailability": rule.fix_availability},
    }
    if docs_url:
        descriptor["helpUri"] = help_uri(rule, docs_url)
    return descriptor


def repository_root(start: Path | None = None) -> Path:
    """The closest folder at or above `start` (the current folder) holding `.git`, else `start`."""
    start = (start or Path.cwd()).resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


class _Uris:
    """Artifact locations relative to `root` (`%SRCROOT%`); files outside it get a file URI."""

    def __init__(self, root: Path):
        self.root = root

    def relative(self, filename: str) -> str | None:
        absolute = Path(os.path.abspath(filename))
        try:
            return absolute.relative_to(self.root).as_posix()
        except ValueError:
            try:
                return absolute.resolve().relative_to(self.root).as_posix()
            except (ValueError, OSError, RuntimeError):
                return None

    def __call__(self, filename: str) -> dict:
        rel = self.relative(filename)
        if rel is None:
            return {"uri": Path(os.path.abspath(filename)).as_uri()}
        return {"uri": quote(rel), "uriBaseId": "%SRCROOT%"}


def _region(start: Position, end: Position) -> dict:
    return {"startLine": start.row, "startColumn": start.column,
            "endLine": end.row, "endColumn": end.column}


def _location(span, uri, message: str | None = None, ident: int | None = None) -> dict:
    loc: dict = {"physicalLocation": {"artifactLocation": uri(span.filename),
                                      "region": _region(span.start, span.end)}}
    if ident is not None:
        loc["id"] = ident
    if message:
        loc["message"] = {"text": message}
    return loc


def _result(d: Diagnostic, rule_index: dict[str, int], uri, fp: str) -> dict:
    result: dict = {"ruleId": d.code, "level": LEVELS[d.severity],
                    "message": {"text": d.message}, "locations": [_location(d.span, uri)],
                    "partialFingerprints": {FINGERPRINT_KEY: fp}}
    if d.code in rule_index:
        result["ruleIndex"] = rule_index[d.code]
    if d.related:
        result["relatedLocations"] = [_location(r.span, uri, r.message, i)
                                      for i, r in enumerate(d.related)]
    if d.fix is not None and d.fix.edits and d.fix.applicability.value == "safe":
        result["fixes"] = [{
            "description": {"text": d.fix.message},
            "artifactChanges": [{
                "artifactLocation": uri(d.span.filename),
                "replacements": [{"deletedRegion": _region(e.start, e.end),
                                  "insertedContent": {"text": e.content}}
                                 for e in d.fix.edits],
            }],
        }]
    if d.fix is not None:
        result["properties"] = {"fixApplicability": d.fix.applicability.value}
    if d.prompt:
        result.setdefault("properties", {})["prompt"] = d.prompt
    return result


def fingerprints(diagnostics: list[Diagnostic], relative: Callable[[str], str | None],
                 read_text: Callable[[str], str | None] = read_source) -> list[str]:
    """One fingerprint per diagnostic (in the given order): the baseline's fingerprint of the
    path relative to the repository root, the code and the normalised source line; the n-th
    repeat of one key gets `\\0n` added to its snippet so that each stays unique."""
    seen: Counter = Counter()
    out = []
    for d in diagnostics:
        path = relative(d.span.filename) or d.span.filename.replace(os.sep, "/")
        line = snippet(d, read_text)
        key = fingerprint(path, d.code, line)
        seen[key] += 1
        out.append(key if seen[key] == 1 else fingerprint(path, d.code, f"{line}\0{seen[key]}"))
    return out


def render(report: Report, *, rules: Sequence = (), version: str | None = None, docs_url: str | None = None,
           root: Path | None = None, read_text: Callable[[str], str | None] = read_source) -> str:
    """The SARIF log of `report` as a JSON string (with a trailing newline). `root` is the
    folder artifact URIs are relative to (default: `repository_root()`); `docs_url` the URL of
    docs/rules.md where the team hosts it (None: no `informationUri`, no `helpUri`); `read_text`
    supplies source lines for the fingerprints; `rules` the rule classes to describe (the caller
    passes the registry: renderers import no rule)."""
    rules = [rule_descriptor(r, docs_url) for r in rules]
    index = {r["id"]: i for i, r in enumerate(rules)}
    uri = _Uris(root.resolve() if root is not None else repository_root())
    driver = {"name": "promptlint", "version": version or tool_version(), "rules": rules}
    if docs_url:
        driver["informationUri"] = docs_url.split("#")[0]
    diagnostics = sorted(report.diagnostics, key=lambda d: d.sort_key)
    invocation = {"executionSuccessful": not report.errors}
    if report.errors:
        invocation["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": e}} for e in report.errors]
    run = {
        "tool": {"driver": driver},
        "invocations": [invocation],
        "automationDetails": {"id": AUTOMATION_ID},
        "originalUriBaseIds": {"%SRCROOT%": {"uri": uri.root.as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": [_result(d, index, uri, fp) for d, fp in zip(diagnostics, fingerprints(diagnostics, uri.relative,
                                                                                         read_text))],
    }
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
