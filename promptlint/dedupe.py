"""One diagnostic per root cause (docs/policies.md, Policy 8).

Two rules can report one place: a value that is both a timestamp and per-request content, a tools
list that is both unordered iteration and an unstable tool order, or one template placeholder
reached through several prompts. At one place the most specific rule wins: the lowest
`Rule.specificity` among the rules that have one (PRM102 / PRM103 / PRM203 over PRM201 / PRM202 /
PRM107, over PRM104, over PRM106, over PRM101). For one rule at one place the strongest finding is kept: the more severe,
then the one with more evidence (a related location; not a name-only guess, `Diagnostic.name_only`),
then the one that knows more of the request (the longer message). A file's PRM001 found by its
own analysis and by the analyses of the files that import it is one finding whose related
locations are every importer's; so is the finding of a rule that `merges_related` (`PRM107`) at one
place that several prompts reach (a template placeholder): the related locations of each, once. A
rule that `merges_named` (`PRM202`, at a helper's loop several prompts reach) keeps the strongest
finding with the places the others only name (a caller's `list(s)`), its own evidence unchanged.
A PRM105 info where a method slices a kept conversation is the finding of the call that reads it
as its newest items through that method (reported there, the slice related).

As ruff reports one diagnostic per fault: two findings of one rule, of no prompt (facts of a
module's code), one inside the other's place (a call and its `last_n=` keyword) are one, the
stronger (else the outer) kept with the inner place related; and findings of one rule at the
send calls of one request (a stream and a non-stream send, a sync and an async one: the same
provider, model and parts, their content written at the same places of the code, or the whole
request a parameter, `converse(**body)`) are one, at the first send, the others related.
Requests whose content is written at different places (each send converts its own) keep theirs.
"""
from __future__ import annotations

from dataclasses import replace

from .model import SLICED, Diagnostic, PromptLayout, Related

#: The message of a related location where a finding's value is produced (rules/_prefix_rule.py).
PRODUCED = "value produced here"


def _specificity() -> dict[str, int]:
    from .rules import ALL_RULES
    return {rule.code: rule.specificity for rule in ALL_RULES if rule.specificity is not None}


def _merging() -> set[str]:
    from .rules import ALL_RULES
    return {rule.code for rule in ALL_RULES if rule.merges_related}


def _naming() -> set[str]:
    from .rules import ALL_RULES
    return {rule.code for rule in ALL_RULES if rule.merges_named}


def strength(d: Diagnostic) -> tuple:
    """Which of two findings of one rule at one place to keep (the larger wins); of two that say the
    same, the one of the prompt built in the file where its value is produced (a caller's own
    prompt, over a wrapper's that takes the value from that caller's argument)."""
    return (d.severity.rank, sum(1 for r in d.related if r.evidence), not d.name_only, len(d.message),
            _own_prompt(d))


def _own_prompt(d: Diagnostic) -> bool:
    """True when the finding's prompt is built in the file where its value is produced (its
    `PRODUCED` related location)."""
    if d.prompt is None:
        return False
    produced = next((r.span.filename for r in d.related if r.message == PRODUCED), None)
    return produced is not None and d.prompt.rpartition(":")[0] == produced


def dedupe(diagnostics: list[Diagnostic], prompts: list[PromptLayout] = ()) -> list[Diagnostic]:
    """One diagnostic per root cause: per (rule, place) the strongest finding; per place the most
    specific prefix rule; one per fault nested in another's place or shared by the sends of one
    request (`prompts`: the layouts the findings' `prompt` ids name); sorted by file, position and code."""
    best: dict[tuple, Diagnostic] = {}
    merging = _merging()
    naming = _naming()
    for d in diagnostics:
        key = (d.code, d.span.filename, d.span.start)
        old = best.get(key)
        if old is not None and (d.code == "PRM001" or d.code in merging and d.severity is old.severity):
            best[key] = _merged(old, d)
        elif old is not None and d.code in naming:  # the stronger, with the places the other only names
            keep, other = (d, old) if strength(d) > strength(old) else (old, d)
            best[key] = _merged(keep, replace(other, related=[r for r in other.related if not r.evidence]))
        elif old is None or strength(d) > strength(old):
            best[key] = d
    specific = _specificity()
    by_place: dict[tuple, list[Diagnostic]] = {}
    for d in best.values():
        by_place.setdefault((d.span.filename, d.span.start), []).append(d)
    out = []
    for group in by_place.values():
        ranked = [d for d in group if d.code in specific]
        keep = min(ranked, key=lambda d: specific[d.code]) if ranked else None
        out.extend(d for d in group if d.code not in specific or d is keep)
    found = _at_the_cause(_at_the_call(out))
    return sorted(_one_request(_nested(found), prompts), key=lambda d: d.sort_key)


#: The related location of a finding found again inside the place of the one kept (`_nested`).
NESTED = "the same cause, found here too"
#: The related location of a send of the same request as the finding's (`_one_request`).
SENT_TOO = "the same request is sent here too"


def _nested(found: list[Diagnostic]) -> list[Diagnostic]:
    """Of two findings of one rule and severity with no prompt (facts of a module's code) in one
    file, one inside the other's place (a call and its keyword), the stronger (`strength`, then the
    outer) is kept and names the other as related: one fault, one diagnostic."""
    loose = sorted((d for d in found if d.prompt is None and d.code != "PRM001"),
                   key=lambda d: (d.span.filename, d.span.start, (-d.span.end.row, -d.span.end.column)))
    dropped: dict[int, Diagnostic] = {}
    for i, outer in enumerate(loose):
        if id(outer) in dropped:
            continue
        for inner in loose[i + 1:]:
            if inner.span.filename != outer.span.filename or inner.span.start > outer.span.end:
                break
            if id(inner) in dropped or inner.code != outer.code or inner.severity is not outer.severity \
                    or inner.span == outer.span or not outer.span.contains(inner.span):
                continue
            if strength(inner) > strength(outer):
                dropped[id(outer)] = inner
                break
            dropped[id(inner)] = outer
    return _related_to_kept(found, dropped, NESTED)


def _one_request(found: list[Diagnostic], prompts: list[PromptLayout]) -> list[Diagnostic]:
    """Of the findings of one rule and severity at the send calls of one request (each at its
    layout's site, the layouts alike by `_request_key`), the first is kept and names the other
    sends as related."""
    layouts = {}
    for layout in prompts:
        layouts.setdefault(layout.id, layout)
    groups: dict[tuple, list[Diagnostic]] = {}
    for d in found:
        layout = layouts.get(d.prompt) if d.prompt is not None else None
        key = _request_key(layout) if layout is not None and layout.source == "python-call" \
            and d.span == layout.site else None
        if key is not None:
            groups.setdefault((d.code, d.severity, key), []).append(d)
    dropped: dict[int, Diagnostic] = {}
    for group in groups.values():
        first = min(group, key=lambda d: d.sort_key)
        dropped.update({id(d): first for d in group if d is not first})
    return _related_to_kept(found, dropped, SENT_TOO)


def _request_key(layout: PromptLayout) -> tuple | None:
    """What makes two send calls send one request: the file, provider, model, the parameters the
    request is converted from, and each part's role and the places its content is written (not
    where each call passes it: `system=system` in each), its static text written in a helper read
    to build it (a function of `reaches` that does not hold the call); values its callers hand in
    may be read where it is sent. None otherwise: text the sending function writes itself, or no
    place known (a conversation each function is handed), makes each send's request its own."""
    parts = tuple((p.role, tuple((s.span, s.text, s.kind, s.expr) for s in p.segments)) for p in layout.parts)
    if not any(s.span is not None for p in layout.parts for s in p.segments) \
            and not any(k == "request" for k, _ in layout.converted):
        return None
    written = [s.span for p in layout.parts for s in p.segments if s.span is not None and s.is_static and s.text.strip()]
    helpers = [f for f in layout.reaches if not f.contains(layout.site)]
    if not all(any(f.contains(span) for f in helpers) for span in written):
        return None
    return (layout.site.filename, layout.provider, layout.model, layout.converted, parts)


def _related_to_kept(found: list[Diagnostic], dropped: dict[int, Diagnostic], message: str) -> list[Diagnostic]:
    """`found` without the findings `dropped` maps to the one kept instead, each kept one naming
    the places of those it stands for as related (`message`), in file order."""
    if not dropped:
        return found
    also: dict[int, list[Related]] = {}
    for d in sorted((d for d in found if id(d) in dropped), key=lambda x: x.sort_key):
        also.setdefault(id(dropped[id(d)]), []).append(Related(d.span, message, evidence=False))
    return [replace(d, related=[*d.related, *also[id(d)]]) if id(d) in also else d
            for d in found if id(d) not in dropped]


def _at_the_call(found: list[Diagnostic]) -> list[Diagnostic]:
    """A PRM105 info at a method's slice of a kept conversation (`return self.messages[-k:]`, no
    request linked) that a PRM105 finding at a call of that method names as related (`SLICED`): one
    cut, reported at the call that chooses its count."""
    sliced = {(r.span.filename, r.span.start.row) for d in found if d.code == "PRM105"
              for r in d.related if r.message == SLICED}
    if not sliced:
        return found
    return [d for d in found if not (d.code == "PRM105" and d.severity.rank == 0 and not d.related
                                     and (d.span.filename, d.span.start.row) in sliced)]


def _at_the_cause(found: list[Diagnostic]) -> list[Diagnostic]:
    """Of one rule's findings for one prompt, a finding whose value is produced (its related location
    "value produced here") where the same rule reports that prompt already (the value entering its
    text there too, on another path) is that finding: one root cause, one diagnostic, which names
    the other place as related; so are the findings of one rule for one prompt whose value is
    produced at one place and enters its text at several."""
    at = {(d.code, d.prompt, d.span.filename, d.span.start): d for d in found if d.prompt is not None}
    dropped: dict[int, Diagnostic] = {}
    for d in found:
        cause = next((at.get((d.code, d.prompt, r.span.filename, r.span.start)) for r in d.related
                      if r.evidence and r.message == PRODUCED), None) if d.prompt is not None else None
        if cause is not None and cause is not d and id(cause) not in dropped:
            dropped[id(d)] = cause
    # one value placed at several places of one prompt's text (a helper's result at each call): one
    # finding, the most severe (then the first), that names the others as related
    shared: dict[tuple, list[Diagnostic]] = {}
    for d in found:
        origin = next((r.span for r in d.related if r.evidence and r.message == PRODUCED), None)
        if d.prompt is not None and origin is not None and id(d) not in dropped:
            shared.setdefault((d.code, d.prompt, origin.filename, origin.start), []).append(d)
    for group in shared.values():
        keep = max(group, key=lambda d: (d.severity.rank, -d.span.start.row, -d.span.start.column)) \
            if len(group) > 1 else None
        dropped.update({id(d): keep for d in group if keep is not None and d is not keep})
    if not dropped:
        return found
    for k, kept in dropped.items():  # (a cause merged in turn into another: the one kept)
        while id(kept) in dropped:
            kept = dropped[id(kept)]
        dropped[k] = kept
    also: dict[int, list[Related]] = {}
    for o in sorted((o for o in found if id(o) in dropped), key=lambda x: x.sort_key):
        also.setdefault(id(dropped[id(o)]), []).append(
            Related(o.span, "the same value enters the prompt's text here too", evidence=False))
    return [replace(d, related=[*d.related, *also[id(d)]]) if id(d) in also else d
            for d in found if id(d) not in dropped]


def _merged(a: Diagnostic, b: Diagnostic) -> Diagnostic:
    """One finding from two reports of it at one place (a file's PRM001; a placeholder several prompts
    reach): the stronger, with the related locations of both (each once, in file order)."""
    keep = b if strength(b) > strength(a) else a
    related = {(r.span.filename, r.span.start.row, r.span.start.column, r.message): r for r in [*a.related, *b.related]}
    return replace(keep, related=[related[k] for k in sorted(related)])
