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
"""
from __future__ import annotations

from dataclasses import replace

from .model import SLICED, Diagnostic, Related

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
    """Which of two findings of one rule at one place to keep (the larger wins)."""
    return (d.severity.rank, sum(1 for r in d.related if r.evidence), not d.name_only, len(d.message))


def dedupe(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """One diagnostic per root cause: per (rule, place) the strongest finding; per place the most
    specific prefix rule; sorted by file, position and code."""
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
    return sorted(_at_the_cause(_at_the_call(out)), key=lambda d: d.sort_key)


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
