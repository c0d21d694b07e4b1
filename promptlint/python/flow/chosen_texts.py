"""One of several texts filled with what does not change (docs/policies.md, Policies 7 and 9): the
variant that stands for them, holding the values of all of them.

A template chosen among several and filled with what the instance is built with
(`self.choose_prompt(spec).format(prompt=spec)`, `choose_prompt().replace("{user_prompt}",
f" {self._prompt}")`) is one text per deployment: the variant drawn for it (the shortest, or the
richest where a candidate needs static text to judge) keeps the stable values the other variants
write at their own spans (`Segment.inner` of its first value), so that each template's placeholder
is known filled (judged.py) and every template is judged where it is filled, not alone with its
placeholders guessed from their names.

Shapes: `stable_templates(middles) -> bool`, `shortest_template(middles) -> [Segment]`,
`with_variant_values(chosen, variants) -> [Segment]` (`middles`, `variants`: the segments of each
variant where they differ).
"""
from __future__ import annotations

from ...model import Segment, Volatility, replace

MAX_INNER = 8  # values kept (as flow/text.py keeps of a choice's other values)


def stable_templates(middles: list[list[Segment]]) -> bool:
    """True when every variant holds static text and values, all of them stable: a choice among
    texts filled with what does not change, not among values alone."""
    return len(middles) > 1 and all(
        any(s.is_static and s.text.strip() for s in mid) and any(not s.is_static for s in mid)
        and all(s.is_static or s.volatility is Volatility.STABLE for s in mid) for mid in middles)


def shortest_template(middles: list[list[Segment]]) -> list[Segment]:
    """The shortest variant, holding the values of all of them (`with_variant_values`)."""
    return with_variant_values(min(middles, key=lambda m: sum(len(s.text) for s in m)), middles)


def with_variant_values(chosen: list[Segment], variants: list[list[Segment]]) -> list[Segment]:
    """`chosen`, the text of one of several variants that stands for them, its first value holding
    the stable values every variant writes at its own spans (`Segment.inner`: each of several
    templates filled with what the instance is built with, `self.choose_prompt(spec).format(
    prompt=spec)`), so that each template's placeholder is known filled (judged.py) and every
    template is judged where it is filled. The first value of each variant comes first, at most
    `MAX_INNER`; values of other volatilities are left out (no rule reads a stable one)."""
    at = next((n for n, s in enumerate(chosen) if not s.is_static), None)
    values = [[s for s in v if not s.is_static and s.span is not None and s.volatility is Volatility.STABLE]
              for v in variants]
    inner: list[Segment] = []
    for s in [vals[0] for vals in values if vals] + [s for vals in values for s in vals[1:]]:
        if at is not None and s.span != chosen[at].span and all(s.span != i.span for i in inner):
            inner.append(replace(s, inner=()))
    if not inner:
        return chosen
    return chosen[:at] + [replace(chosen[at], inner=chosen[at].inner + tuple(inner[:MAX_INNER]))] + chosen[at + 1:]
