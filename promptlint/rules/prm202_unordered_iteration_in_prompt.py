"""PRM202 unordered-iteration-in-prompt."""
from __future__ import annotations

from ..model import Kind, PromptLayout
from ..prefix import placed_segments
from . import _prefix_rule as text
from .base import Rule


class UnorderedIterationInPromptRule(Rule):
    """## What it does
    Finds prompt text built by iterating a `set` / `frozenset`, `os.listdir`, `glob`,
    `Path.iterdir`, `os.scandir` or `as_completed` results without `sorted()`, inside the
    cacheable prefix.

    ## Why is this bad?
    Set iteration order depends on the hash seed, which differs per process for strings (a set
    known to hold only ints, bools, floats or tuples of them, such as `{1, 2}` or
    `set(range(n))`, iterates in the same order everywhere and is not reported); directory
    listings come in file-system order; `as_completed` yields in completion order. Two workers (or
    two requests) then send the same content in a different order: different bytes, no cache hit.

    ## Example
    ```python
    system = "Skills:\\n" + "\\n".join(f"- {s}" for s in skills_set)
    ```
    Use instead: `for s in sorted(skills_set)`.

    ## Fix safety
    Safe: the same items in a fixed order (the items must be comparable, e.g. strings or paths).
    """

    code = "PRM202"
    specificity = 1
    fix_availability = "sometimes"
    fix_title = "Wrap the iterable in `sorted(...)`"

    def check_layout(self, layout: PromptLayout):
        for p in placed_segments(layout):
            seg = p.seg
            if p.in_newest:
                continue  # the newest user message of a one-shot request is per-request anyway
            if seg.kind is not Kind.UNORDERED_ITERATION or p.part.role == "tools":
                continue
            message = (f"Prompt text built from {text.describe(seg)} ({seg.evidence or 'an unordered source'}) "
                       f"{text.position(p)}: the order, and so the prefix, can differ between processes or requests")
            yield self.diagnostic(message, seg.span or layout.site, prompt=layout.id, fix=text.fix_of(seg),
                                  related=text.related(seg))
