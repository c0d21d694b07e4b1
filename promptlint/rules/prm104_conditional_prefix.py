"""PRM104 conditional-prefix."""
from __future__ import annotations

from ..model import Kind, PromptLayout
from ..prefix import placed_segments
from . import _prefix_rule as text
from .base import Rule
from ..model import Severity

MIN_STATIC_AFTER = 256  # tokens of static text after the condition that make the variants matter


class ConditionalPrefixRule(Rule):
    """## What it does
    Finds content that is present or absent by a condition early in the prefix (an `if` in a
    prompt builder, a `{% if %}` in a template), with a long static part after it.

    ## Why is this bad?
    Each variant is a different prefix: the static text after the condition is cached once per
    variant instead of once. This is often intended; it is reported as info.

    ## Example
    ```python
    system = (EXPERT if user.is_pro else NOVICE) + RULES
    ```
    Use instead: put the conditional part after the shared static text.

    ## Fix safety
    Display-only.
    """

    code = "PRM104"
    severity = Severity.INFO
    fix_title = "Move the conditional part after the shared static text"

    def check_layout(self, layout: PromptLayout):
        for p in placed_segments(layout):
            if p.seg.kind is not Kind.CONDITIONAL or p.static_after < MIN_STATIC_AFTER:
                continue
            message = (f"Conditional content {text.describe(p.seg)} {text.position(p)}: each variant caches "
                       f"{text.lost(p)} separately")
            yield self.diagnostic(message, p.seg.span or layout.site, prompt=layout.id, related=text.related(p.seg))
            return  # the first condition splits the prefix; later ones only split what it already split
