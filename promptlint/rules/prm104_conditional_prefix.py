"""PRM104 conditional-prefix."""
from __future__ import annotations

from ..impact import Rate, impacts
from ..model import PromptLayout, Severity
from . import _prefix_rule as text
from .base import Rule


class ConditionalPrefixRule(Rule):
    """## What it does
    Finds content that is present or absent by a condition early in the prefix (an `if` in a
    prompt builder, a `{% if %}` in a template), with a long static part after it that the
    provider would cache.

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
    brief = "content present or absent by a condition early in the prefix (info)"
    specificity = 2
    severity = Severity.INFO
    fix_title = "Move the conditional part after the shared static text"

    def check_layout(self, layout: PromptLayout):
        for imp in impacts(layout):
            if imp.rate is not Rate.CONDITION or imp.severity is None:
                continue
            message = (f"Conditional content {text.describe(imp.seg)} {text.position(imp.placed, imp.complete)}: "
                       f"each variant caches {text.follows(imp)} separately")
            yield self.diagnostic(message, imp.seg.span or layout.site, prompt=layout.id, related=text.related(imp.seg))
