"""The JSON output contract: the fields `--output-format json` writes (tests/test_json_contract.py)."""
from __future__ import annotations

import json

from .. import __version__
from ..judged import prompts_analysed, references
from ..model import Diagnostic, Edit, Fix, PromptLayout, Report


def _loc(pos) -> dict:
    return {"row": pos.row, "column": pos.column}


def _edit(e: Edit) -> dict:
    return {"content": e.content, "location": _loc(e.start), "end_location": _loc(e.end)}


def fix_dict(fix: Fix | None) -> dict | None:
    if fix is None:
        return None
    return {"applicability": fix.applicability.value, "message": fix.message, "edits": [_edit(e) for e in fix.edits]}


def diagnostic_dict(d: Diagnostic) -> dict:
    return {
        "code": d.code, "name": d.name, "severity": d.severity.value, "message": d.message,
        "filename": d.span.filename, "location": _loc(d.span.start), "end_location": _loc(d.span.end),
        "fix": fix_dict(d.fix), "prompt": d.prompt,
        "related": [{"filename": r.span.filename, "location": _loc(r.span.start), "message": r.message}
                    for r in d.related],
    }


def prompt_dict(p: PromptLayout, refs: list[str] = ()) -> dict:
    """`refs`: the ids of the other layouts this prompt holds (`promptlint.judged.references`)."""
    return {
        "id": p.id, "filename": p.site.filename, "location": _loc(p.site.start), "source": p.source,
        "provider": p.provider, "api": p.api, "model": p.model, "templates": list(p.templates),
        "static_prefix_tokens": p.static_prefix_tokens, "static_tokens": p.static_tokens,
        "estimates": list(p.estimates), "references": sorted(set(refs)),
    }


def report_dict(report: Report) -> dict:
    """The report as the JSON contract's object: its `prompts` are the prompts analysed, each once
    (`promptlint.judged.prompts_analysed`: as many as the text summary counts), each with the ids
    of the other places that hold its text (`references`: a function that returns it, a call that
    sends it); a finding's `prompt` is one of them (the prompt that holds the layout it was
    judged on), or null."""
    analysed = prompts_analysed(report.prompts)
    held = references(report.prompts, analysed)
    ids = {p.id for p in analysed}
    by_id: dict[str, str | None] = {}
    refs: dict[str, list[str]] = {}
    for layout in report.prompts:
        if id(layout) in held:
            by_id.setdefault(layout.id, held[id(layout)])
            if held[id(layout)] is not None and layout.id not in ids:
                refs.setdefault(held[id(layout)], []).append(layout.id)

    def prompt_of(d: Diagnostic) -> str | None:
        return d.prompt if d.prompt is None or d.prompt in ids else by_id.get(d.prompt)

    return {
        "version": __version__,
        "diagnostics": [{**diagnostic_dict(d), "prompt": prompt_of(d)} for d in report.diagnostics],
        "prompts": [prompt_dict(p, refs.get(p.id, [])) for p in analysed],
        "errors": list(report.errors),
    }


def render(report: Report) -> str:
    """One JSON object, indented, with a trailing newline."""
    return json.dumps(report_dict(report), indent=2, ensure_ascii=False) + "\n"
