"""File names that can be printed: a name with bytes that are not UTF-8 (`bad\\xff.py`, which
Python holds as a lone surrogate) is shown with each such byte escaped as `\\xNN`, the way
Python's `backslashreplace` shows it, so that every format is valid UTF-8 (JSON, SARIF and GitLab
reports included) and writing it never fails."""
from __future__ import annotations

from dataclasses import replace

from ..model import Diagnostic, Report, Span


def escape(text: str) -> str:
    """`text` with each lone surrogate (an undecodable byte of a file name) written `\\xNN`."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate that is no escaped byte
        data = text.encode("utf-8", "backslashreplace")
    return data.decode("utf-8", "backslashreplace")


def listed(items: list[str], shown: int = 3) -> str:
    """`items` joined with ", ": all of them when at most `shown` + 1 (a single remaining one is
    named, never hidden), else the first `shown` and "and N more"."""
    if len(items) <= shown + 1:
        return ", ".join(items)
    return f"{', '.join(items[:shown])} and {len(items) - shown} more"


def _span(span: Span | None) -> Span | None:
    if span is None:
        return None
    name = escape(span.filename)
    return span if name == span.filename else replace(span, filename=name)


def _diagnostic(d: Diagnostic) -> Diagnostic:
    return replace(d, span=_span(d.span), message=escape(d.message),
                   prompt=escape(d.prompt) if d.prompt else d.prompt,
                   related=[replace(r, span=_span(r.span), message=escape(r.message)) for r in d.related])


def _clean(report: Report) -> bool:
    try:
        for d in report.diagnostics:
            d.span.filename.encode("utf-8")
            d.message.encode("utf-8")
            for r in d.related:
                r.span.filename.encode("utf-8")
        for p in report.prompts:
            p.site.filename.encode("utf-8")
            p.id.encode("utf-8")
        for e in report.errors:
            e.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def printable(report: Report) -> Report:
    """`report` itself when every name in it is valid Unicode, else a copy with names escaped."""
    if _clean(report):
        return report
    prompts = [replace(p, id=escape(p.id), site=_span(p.site), templates=[escape(t) for t in p.templates])
               for p in report.prompts]
    return replace(report, diagnostics=[_diagnostic(d) for d in report.diagnostics], prompts=prompts,
                   errors=[escape(e) for e in report.errors])
