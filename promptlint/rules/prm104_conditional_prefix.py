"""PRM104 conditional-prefix."""
from __future__ import annotations

from ..impact import Rate, impacts
from ..model import PromptLayout, Related, Severity
from ..python.first_pass_args import find_first_pass_args
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

    A system (or developer) message put at the head of a message list on some calls only
    (`msgs.insert(0, {"role": "system", ...})` under a test of a parameter of the function: structured
    output asked for, a retry, a tool mode; or by a helper that its caller calls under such a test,
    `if response_format: params = ensure_json_only_system_prompt(params)`) gives the requests of one
    conversation two prefixes, and the history after the head is cached once per variant: info,
    where the message is put, with the test related. A head message put on every call, or under a
    test of the list itself (`if not messages or messages[0]["role"] != "system":`) or of values
    fixed for the instance (`if self.instructions:`), is not one.

    A conversation sent as chat `messages` or rendered into one raw `prompt` by a test on the
    request's content (`if request_has_media(request): d["messages"] = ... else: d["prompt"] =
    render(request)`) switches format when that content first appears: info, at the test. A choice
    by configuration (the model, a flag of the instance) or by the request's kind is not one.

    Prompt text a loop's request carries on its first pass only (`context=notes if iteration ==
    0 else None`, `prompt=call_prompt` bound so in the loop), in a loop that re-sends one
    conversation (`messages=messages`), gives the loop's later requests other text than the first:
    info, at the first-pass value. Options that are not prompt text are not read.

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
            if imp.costs_nothing and not imp.history_after:  # below every minimum, whichever variant it holds
                cost = (f"each variant caches {text.follows(imp, bound=False)} separately in a request "
                        f"{text.stays_below(imp)} whichever variant it holds")
            else:
                cost = f"each variant caches {text.follows(imp)} separately"
            message = f"Conditional content {text.describe(imp.seg, within=True)} {text.position(imp.placed, imp.complete)}: {cost}"
            yield self.diagnostic(message, imp.seg.span or layout.site, prompt=layout.id, related=text.related(imp.seg))

    def check_module(self, module):
        """Info where a head message is put on some calls only (`python/front_inserts.py`), and at
        a test on a request's content that chooses between chat messages and a raw prompt
        (`python/format_switches.py`)."""
        for sw in module.facts.get("format_switches", ()):
            message = (f"The conversation is sent as chat `messages` or rendered here into one raw `prompt` by a "
                       f"test on the request's content (`{sw.reads}`): when that content first appears in a "
                       "conversation (an image), the next request is rendered by the other template and shares no "
                       "prefix with the cached requests before it, so the whole history is processed uncached "
                       "once more (once per conversation that switches); send every request of a conversation in "
                       "one format")
            yield self.diagnostic(message, module.span(sw.test), severity=Severity.INFO,
                                  related=[Related(module.span(sw.messages), "sent as chat messages here"),
                                           Related(module.span(sw.prompt), "rendered as a raw prompt here")])
        for f in find_first_pass_args(module):
            message = (f"`{f.keyword}` is given to the request (line {f.request.lineno}) only on the first pass of "
                       f"the loop (`{f.test}`), which re-sends the conversation `{f.conversation}`: its later "
                       "requests carry other prompt text than the first, so they read the first request's cached "
                       "prefix only up to where that text goes (where the request puts it is not followed here); "
                       f"keep it in `{f.conversation}` once, or send it on every pass")
            related = [Related(module.span(f.request), "the request")]
            related += [Related(module.span(o), "also given on the first pass only") for o in f.others]
            yield self.diagnostic(message, module.span(f.node), severity=Severity.INFO, related=related)
        for put, test, where in module.facts.get("front_inserts", ()):
            message = ("A system message is put at the head of the conversation here on some calls only (chosen by "
                       "the test related, of a value given per call): requests of one conversation start with it or "
                       "without it, so the history after it is cached once per variant, and a request that differs "
                       "from the previous one reads it uncached (whether the value changes within one conversation "
                       "is not followed here); put the message on every call, or put what it says after the "
                       "conversation")
            yield self.diagnostic(message, module.span(put), severity=Severity.INFO,
                                  related=[Related(where.span(test), "the test that chooses it")])
