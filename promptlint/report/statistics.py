"""`--statistics`: the number of findings per rule, most frequent first (ruff's
`printer.rs:write_statistics`, flake8's `--statistics`), and per target the static tokens that
are cached now and the tokens lost to findings (issue 5, item 6)."""
from __future__ import annotations

import json
from collections import Counter

from ..estimates import RATIOS, Cut, cached_tokens, tokens_before
from ..judged import prompts_analysed
from ..model import PromptLayout, Report
from ..profiles import UnknownTargetError, lookup

# Rules about the cacheable prefix: their findings cost the static tokens after the prefix end.
# PRM301 (prefix-below-minimum) is left out: it reports a short prefix, it does not cut one.
PREFIX_RULE_FAMILIES = ("PRM1", "PRM2", "PRM3")
NOT_A_LOSS = frozenset({"PRM301"})
# Exact tokenizers whose counts are the o200k counts the layout already holds (`static_tokens`).
_O200K = frozenset({"o200k_base", "o200k_harmony"})


def statistics(report: Report) -> list[dict]:
    """[{"code", "name", "count", "fixable", "unsafe_fixable"}] sorted by count (descending),
    then code.

    `fixable` counts findings with a safe fix (`promptlint fix` applies it); `unsafe_fixable`
    those whose fix is unsafe (applied only with `--unsafe-fixes`). Display-only fixes count in
    neither.
    """
    counts: Counter = Counter()
    safe: Counter = Counter()
    unsafe: Counter = Counter()
    names: dict[str, str] = {}
    for d in report.diagnostics:
        counts[d.code] += 1
        names[d.code] = d.name
        if d.fix is not None and d.fix.edits:
            if d.fix.applicability.value == "safe":
                safe[d.code] += 1
            elif d.fix.applicability.value == "unsafe":
                unsafe[d.code] += 1
    return [{"code": c, "name": names[c], "count": n, "fixable": safe[c], "unsafe_fixable": unsafe[c]}
            for c, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def is_prefix_loss(code: str) -> bool:
    """True for codes whose findings cut the cacheable prefix (PRM1xx-PRM3xx but PRM301)."""
    return code.startswith(PREFIX_RULE_FAMILIES) and code not in NOT_A_LOSS


def _static_in_target(layout: PromptLayout, row: dict) -> int:
    """The layout's static tokens in the row's tokenizer, counted as the row's `prefix_tokens` is
    (estimates.target_tokens): exact tiktoken counts, else the o200k count times the tokenizer's
    ratio (estimates.RATIOS; 1.0 for a tokenizer without one), rounded."""
    tokenizer = row.get("tokenizer") or ""
    if row.get("exact"):
        if tokenizer in _O200K:
            return layout.static_tokens
        return tokens_before(layout, Cut(len(layout.parts), 0), tokenizer)
    ratio = RATIOS.get(tokenizer)
    return round(layout.static_tokens * (ratio.value if ratio else 1.0))


def _lost(row: dict, static: int) -> int:
    """Tokens a prompt's findings cost in the row's target: the cached tokens it would have with
    all its `static` tokens in the cacheable prefix, less those it has now (after the target's
    minimum and rounding, as the findings' messages count them: static text that stays below the
    minimum either way loses nothing). Without a profile, the static tokens after the prefix."""
    try:
        profile, _ = lookup(row["provider"], row.get("model"))
    except UnknownTargetError:
        return max(static - (row.get("prefix_tokens") or 0), 0)
    return max(cached_tokens(profile, static) - (row.get("cached_tokens") or 0), 0)


def target_model(row: dict) -> tuple[str | None, bool]:
    """The model of an `estimates` row and whether it is the provider's default: a row without a
    model (the call names none statically) is estimated with the provider's default profile row,
    whose models in words are returned with True ("GPT-5 to GPT-5.4", `Profile.models`);
    (None, False) when the provider is unknown."""
    if row.get("model"):
        return row["model"], False
    try:
        profile, _ = lookup(row["provider"], None)
    except UnknownTargetError:
        return None, False
    return profile.models, True


def target_name(row: dict) -> str:
    """'openai:gpt-4.1' for an `estimates` row; 'openai (default: GPT-5 to GPT-5.4)' for a row
    estimated with the provider's default profile row (no model known statically)."""
    model, default = target_model(row)
    if model is None:
        return row["provider"]
    return f"{row['provider']} (default: {model})" if default else f"{row['provider']}:{model}"


def target_statistics(report: Report) -> list[dict]:
    """Token totals per target over the report's prompts (one per `estimates` row), sorted by
    provider then target name (the provider's default row first); each prompt counted once, as every report counts it (a prompt candidate whose text a call sends is
    part of that call's prompt: `promptlint.judged.prompts_analysed`):
    [{"target": `target_name`, "provider", "model" (the default profile row's models in words when
    the call names no model), "default_model" (True then), "exact" (all counts exact; False: estimated
    from o200k), "prompts", "cached_tokens", "static_tokens", "lost_tokens"}].

    Tokens are in the target's tokenizer. `cached_tokens` sums the estimates' `cached_tokens`
    (billed at the cached rate now, after the provider's minimum and rounding); `static_tokens`
    sums each prompt's static tokens; `lost_tokens` sums, over the prompts that a prefix-rule
    finding names (`Diagnostic.prompt`, `is_prefix_loss`), the cached tokens the prompt would have
    with all its static tokens in the prefix less those it has (`_lost`: nothing below the
    target's minimum either way).
    """
    cut_by_findings = {d.prompt for d in report.diagnostics if d.prompt and is_prefix_loss(d.code)}
    totals: dict[tuple[str, str], dict] = {}
    for layout in prompts_analysed(report.prompts):
        for row in layout.estimates:
            model, default = target_model(row)
            key = (row["provider"], model or "", default)
            entry = totals.setdefault(key, {
                "target": target_name(row), "provider": row["provider"], "model": model,
                "default_model": default, "exact": True,
                "prompts": 0, "cached_tokens": 0, "static_tokens": 0, "lost_tokens": 0})
            static = _static_in_target(layout, row)
            entry["exact"] = entry["exact"] and bool(row.get("exact"))
            entry["prompts"] += 1
            entry["cached_tokens"] += row.get("cached_tokens") or 0
            entry["static_tokens"] += static
            if layout.id in cut_by_findings:
                entry["lost_tokens"] += _lost(row, static)
    return sorted(totals.values(), key=lambda entry: (entry["provider"], entry["target"]))


def render_targets(report: Report) -> str:
    """The per-target table of `target_statistics` as text, "" without prompts:

        Tokens per target (~: estimated, no offline tokenizer)
        target               prompts  cached now  static  lost to findings
        openai:gpt-4.1-mini        3       1,536   3,315             1,536
    """
    rows = target_statistics(report)
    if not rows:
        return ""
    header = ("target", "prompts", "cached now", "static", "lost to findings")

    def num(value: int, exact: bool) -> str:
        return f"{value:,}" if exact else f"~{value:,}"

    table = [header] + [(r["target"], str(r["prompts"]), num(r["cached_tokens"], r["exact"]),
                         num(r["static_tokens"], r["exact"]), num(r["lost_tokens"], r["exact"]))
                        for r in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    lines = ["  ".join([line[0].ljust(widths[0])] + [cell.rjust(w) for cell, w in zip(line[1:], widths[1:])])
             for line in table]
    return "Tokens per target (~: estimated, no offline tokenizer)\n" + "\n".join(lines) + "\n"


def render(report: Report, fmt: str = "text") -> str:
    """Text lines `  3  PRM201  unsorted-json-dumps  [*]` (`[*]`: some have a safe fix; `[-]`:
    only unsafe fixes, applied with `--unsafe-fixes`), then a legend, a blank line and
    `render_targets`; or the list of `statistics()` as JSON for
    `--output-format json` (the caller prints `render_targets` on stderr there)."""
    rows = statistics(report)
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    width = max((len(str(r["count"])) for r in rows), default=1)
    name_width = max((len(r["name"]) for r in rows), default=0)
    def mark(row: dict) -> str:
        return "  [*]" if row["fixable"] else "  [-]" if row["unsafe_fixable"] else ""

    per_rule = "".join(
        f"{r['count']:>{width}}  {r['code']}  {r['name']:<{name_width}}{mark(r)}".rstrip() + "\n" for r in rows)
    legend = [text for flag, text in (
        (any(r["fixable"] for r in rows), "[*] fixable with `promptlint fix`"),
        (any(r["unsafe_fixable"] and not r["fixable"] for r in rows),
         "[-] fixable with `promptlint fix --unsafe-fixes` only")) if flag]
    if legend:
        per_rule += "".join(f"{line}\n" for line in legend)
    targets = render_targets(report)
    return per_rule + ("\n" if per_rule and targets else "") + targets
