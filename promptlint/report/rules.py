"""Rule documentation from the rule docstrings: `promptlint rule CODE`, `promptlint rules` and
the generated reference `docs/rules.md` (scripts/gen_rules_doc.py) share these functions."""
from __future__ import annotations

import json
from typing import Iterable


def rule_record(rule) -> dict:
    """A rule's metadata and docs as a JSON-ready dict."""
    return {"code": rule.code, "name": rule.name, "severity": rule.severity.value,
            "fix_availability": rule.fix_availability, "fix_title": rule.fix_title,
            "since": rule.since, "brief": rule.brief, "summary": rule.summary(), "explanation": rule.doc()}


def render_rule(rule, fmt: str = "text") -> str:
    """One rule: Markdown-ish text (`# PRM102 timestamp-in-prefix`, metadata, docstring) or JSON."""
    if fmt == "json":
        return json.dumps(rule_record(rule), indent=2, ensure_ascii=False) + "\n"
    head = (f"# {rule.code} {rule.name}\n\n"
            f"Default severity: {rule.severity.value}. Automatic fix: {_fix(rule)}.\n\n")
    return head + rule.doc() + "\n"


def render_rules(rules: Iterable, fmt: str = "text") -> str:
    """The rule list: a header line, then one aligned line per rule (code, name, default severity,
    fix availability: none / sometimes / always, brief), or a JSON array."""
    rules = list(rules)
    if fmt == "json":
        return json.dumps([rule_record(r) for r in rules], indent=2, ensure_ascii=False) + "\n"
    width = max((len(r.name) for r in rules), default=0)
    head = f"{'CODE':<6}  {'NAME':<{width}}  {'DEFAULT':<7}  {'FIX':<9}  WHAT IT FINDS\n"
    return head + "".join(f"{r.code}  {r.name:<{width}}  {r.severity.value:<7}  {_fix(r):<9}  {r.brief}\n"
                          for r in rules)


def _fix(rule) -> str:
    return rule.fix_availability  # none | sometimes | always


def rules_markdown(rules: Iterable) -> str:
    """The rules reference page: a table, then each rule's docstring under its own heading."""
    rules = list(rules)
    out = ["# Rules", "",
           "Generated from the rule docstrings by `scripts/gen_rules_doc.py`; do not edit by hand.",
           "`promptlint rule CODE` prints the same text.", "",
           "| Code | Name | Default severity | Fix | What it does |",
           "|---|---|---|---|---|"]
    for r in rules:
        summary = r.summary().replace("|", "\\|")
        out.append(f"| [{r.code}](#{r.code.lower()}-{r.name}) | {r.name} | {r.severity.value} | "
                   f"{_fix(r)} | {summary} |")
    for r in rules:
        doc = "\n".join("#" + line if line.startswith("## ") else line
                        for line in r.doc().splitlines())
        out += ["", f"## {r.code} {r.name}", "",
                f"Default severity: **{r.severity.value}**. Fix: **{_fix(r)}**"
                + (f" ({r.fix_title})" if r.fix_title else "") + ".", "", doc]
    return "\n".join(out) + "\n"
