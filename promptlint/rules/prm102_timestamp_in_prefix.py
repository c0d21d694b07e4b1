"""PRM102 timestamp-in-prefix."""
from __future__ import annotations

from ..model import Kind, Precision, PromptLayout, Severity, Volatility
from ..prefix import MIN_STATIC_AFTER, placed_segments
from ..profiles import min_cacheable_tokens
from . import _prefix_rule as text
from .base import Rule


MIN_STATIC_AFTER_DAY = 64  # tokens: a date followed by less static text (and no history) costs little


class TimestampInPrefixRule(Rule):
    """## What it does
    Finds a date or time (`datetime.now()`, `date.today()`, `time.time()`, `strftime`, Jinja
    `now()`, a variable that holds one) inside the cacheable prefix of a prompt, with static text
    or the conversation history after it.

    ## Why is this bad?
    Provider prompt caches match the prefix byte for byte. A time with minute precision near the
    top of a system prompt makes every request a new prefix: nothing after it is ever read from the
    cache. A date (day precision) at the very end of the system prompt, after at least the model's
    minimum of static tokens, costs only one re-read per conversation per day and is reported as
    info.

    ## Example
    ```python
    system = f"Now: {datetime.now():%H:%M}\\n{GUIDE}"
    ```
    Use instead: put the time in the newest user message, or coarsen it to a date at the end of
    the system prompt.

    ## Fix safety
    Moving the time changes what the model sees where: unsafe.
    """

    code = "PRM102"
    fix_availability = "sometimes"
    fix_title = "Move the time to the newest user message, or coarsen it to a date at the end of the prompt"

    def check_layout(self, layout: PromptLayout):
        minimum = min_cacheable_tokens(layout.provider, layout.model)
        for p in placed_segments(layout):
            seg = p.seg
            if seg.kind is not Kind.TIMESTAMP or seg.volatility is Volatility.STABLE:
                continue
            if not p.followed:
                continue
            prec = seg.precision or Precision.SUB_DAY
            severity = Severity.WARNING
            if prec is Precision.YEAR:
                continue
            if prec is not Precision.SUB_DAY and not p.history_after and p.static_after < MIN_STATIC_AFTER_DAY:
                continue  # a date followed by a few words: the cost is those few tokens once a day
            if prec is Precision.MONTH or (seg.volatility is Volatility.PER_PROCESS and prec is not Precision.SUB_DAY):
                severity = Severity.INFO  # a date fixed at import differs only between processes started on other days
            elif prec is Precision.DAY and p.static_after < MIN_STATIC_AFTER and p.static_before >= minimum:
                severity = Severity.INFO
            if seg.volatility is Volatility.PER_PROCESS:
                effect = "cannot be shared between processes (or across restarts)"
            elif prec is Precision.SUB_DAY:
                effect = "cannot be read from the cache"
            else:
                effect = f"can be cached for one {prec.value} at a time only"
            message = f"Timestamp {text.describe(seg)} {text.position(p)}: {text.lost(p)} {effect}" + text.evidence(seg)
            yield self.diagnostic(message, seg.span or layout.site, severity=severity, prompt=layout.id,
                                  related=text.related(seg), fix=text.move_fix(seg, p))
