"""PRM102 timestamp-in-prefix."""
from __future__ import annotations

from ..impact import impacts
from ..model import Kind, Precision, PromptLayout, Related, Severity
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
    of a one-shot prompt, in a whole request far below every minimum), it costs nothing: no
    finding.

    A function that converts one message of the conversation for a request and puts the time of
    the conversion in what it returns (`{"role": m.role, "content": f"[{datetime.now():%H:%M}]
    {m.text}"}`), where the module sends the conversation converted with it (`messages=[to_api(m)
    for m in history]`), re-renders every older message with the time of each request: the prefix
    breaks at the first message on every request (a warning; info when the time is a date). The
    finding is where the clock is read.

    ## Example
    ```python
    system = f"Now: {datetime.now():%H:%M}\\n{GUIDE}"
    ```
    Use instead: put the time in the newest user message, or coarsen it to a date.

    ## Fix safety
    Moving the time changes what the model sees where: unsafe.
    """

    code = "PRM102"
    brief = "a date or time inside the cacheable prefix"
    specificity = 0
    fix_availability = "sometimes"
    fix_title = "Move the time to the newest user message, or coarsen it to a date"

    def check_module(self, module):
        """A clock read each time a message is converted for the request that sends the history
        (`python/converted_ids.fresh_times`)."""
        for call, function, param, sent, precision in module.facts.get("fresh_times", ()):
            if precision is Precision.YEAR or precision is Precision.MONTH:
                continue
            sub_day = precision is Precision.SUB_DAY
            message = (f"Timestamp `{module.code(call)}` is read here each time `{function}` converts a message "
                       f"(`{param}`), and the module sends the conversation converted with it (line {sent.lineno}): "
                       "every older message is re-rendered with the time of each request, so the prefix breaks at "
                       "the first message of the history " + ("on every request" if sub_day else "once a day")
                       + "; store the time on the message when it is made")
            yield self.diagnostic(message, module.span(call), severity=Severity.WARNING if sub_day else Severity.INFO,
                                  related=[Related(module.span(sent), "the conversation converted for a request")],
                                  advice="Store the time on the message when it is made, and render that")

    def check_layout(self, layout: PromptLayout):
        for imp in impacts(layout):
            seg = imp.seg
            if seg.kind is not Kind.TIMESTAMP:
                continue
            severity = imp.severity
            if severity is None:
                continue
            message = (f"Timestamp {text.describe(seg, within=True)} {text.position(imp.placed, imp.complete)}: "
                       f"{text.cost(imp)}{text.evidence(seg)}{text.behind(imp)}")
            advice = _advice(seg.precision is not None and seg.precision is not Precision.SUB_DAY,
                             imp.placed.in_newest)
            yield self.diagnostic(message, seg.span or layout.site, severity=severity, prompt=layout.id,
                                  related=text.related(seg), fix=text.move_fix(seg, imp, layout), name_only=seg.name_only,
                                  advice=advice)
        for seg, tail in text.in_tool_list(layout, Kind.TIMESTAMP):
            yield self.diagnostic(f"Timestamp {tail}", seg.span or layout.site, severity=Severity.INFO,
                                  prompt=layout.id, related=text.related(seg), name_only=True)


def _advice(dated: bool, in_newest: bool) -> str | None:
    """The help line: a value that is already a date (day precision or coarser) is not told to
    become one; one already in the newest user message is told to move to its end. None: the
    rule's `fix_title`."""
    if in_newest:
        return "Move the " + ("date" if dated else "time") + " after the static text of the message (to its end)" \
            + ("" if dated else ", or coarsen it to a date")
    return "Move the date to the newest user message, after the static text" if dated else None
