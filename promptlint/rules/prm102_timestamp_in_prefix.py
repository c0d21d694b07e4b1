"""PRM102 timestamp-in-prefix."""
from __future__ import annotations

from ..impact import impacts
from ..model import Kind, PromptLayout, Severity
from . import _prefix_rule as text
from .base import Rule


class TimestampInPrefixRule(Rule):
    """## What it does
    Finds a date or time (`datetime.now()`, `date.today()`, `time.time()`, `strftime`, Jinja
    `now()`, a variable that holds one) inside the cacheable prefix of a prompt, with static text
    or the conversation history after it.

    ## Why is this bad?
    Provider prompt caches match the prefix byte for byte. A time with minute precision near the
    top of a system prompt makes every request a new prefix: nothing after it is ever read from the
    cache. The precision decides the cost (docs/policies.md, Policy 1): a date (or a time fixed when the
    module is imported) changes at most once a day, which costs one cache write a day while caches
    expire after minutes anyway, so it is info wherever it sits; a year never matters. Where
    nothing the provider caches follows the time (after the last Anthropic breakpoint, at the end
    of a one-shot prompt, in a prompt far below every minimum), it costs nothing or little.

    ## Example
    ```python
    system = f"Now: {datetime.now():%H:%M}\\n{GUIDE}"
    ```
    Use instead: put the time in the newest user message, or coarsen it to a date.

    ## Fix safety
    Moving the time changes what the model sees where: unsafe.
    """

    code = "PRM102"
    specificity = 0
    fix_availability = "sometimes"
    fix_title = "Move the time to the newest user message, or coarsen it to a date"

    def check_layout(self, layout: PromptLayout):
        for imp in impacts(layout):
            seg = imp.seg
            if seg.kind is not Kind.TIMESTAMP:
                continue
            severity = imp.severity
            if severity is None:
                continue
            message = (f"Timestamp {text.describe(seg)} {text.position(imp.placed, imp.complete)}: "
                       f"{text.cost(imp)}{text.evidence(seg)}{text.behind(imp)}")
            advice = ("Move the time after the static text of the message (to its end), or coarsen it to a date"
                      if imp.placed.in_newest else None)  # already in the newest user message
            yield self.diagnostic(message, seg.span or layout.site, severity=severity, prompt=layout.id,
                                  related=text.related(seg), fix=text.move_fix(seg, imp), name_only=seg.name_only,
                                  advice=advice)
        for seg, tail in text.in_tool_list(layout, Kind.TIMESTAMP):
            yield self.diagnostic(f"Timestamp {tail}", seg.span or layout.site, severity=Severity.INFO,
                                  prompt=layout.id, related=text.related(seg), name_only=True)
