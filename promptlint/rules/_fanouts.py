"""PRM106's finding from the code's evidence (`PromptLayout.fanouts`, python/fanout.py): a value
that differs between the calls of the function that writes it into the prompt, placed before a
value those calls share (the same diff, page or document sent with another instruction each).

Info: the shared value's size is not known. A warning only when its whole text is known and
alone reaches the minimum cacheable length of every model the request may go to (`size_profiles`),
on a request that caches without markers or has a breakpoint (the requests after the first would
then read it from the cache, were it first)."""
from __future__ import annotations

from ..estimates import Cut, size_profiles
from ..impact import impacts
from ..model import Fanout, PromptLayout, Related, Severity, Volatility
from ..prefix import ROLE_NAMES, prefix_end, tokens


def _severity(layout: PromptLayout, fan: Fanout) -> Severity:
    if fan.shared_tokens is None:
        return Severity.INFO
    profiles, _label = size_profiles(layout)
    marked = any(p.breakpoints for p in layout.parts) or layout.auto_cache is not None
    if not profiles or not all(p.caching_supported and p.min_cacheable_tokens and (p.automatic or marked)
                               and fan.shared_tokens >= p.min_cacheable_tokens for p in profiles):
        return Severity.INFO
    return Severity.WARNING


def _how(fan: Fanout) -> str:
    if fan.how == "loop":
        return (f"`{fan.builder}` is called once per element of a loop (line {fan.evidence.start.row}) "
                f"with a new `{fan.varying_name}` each time and the same `{fan.shared_expr}`")
    return (f"{fan.calls} calls of `{fan.builder}` in one function (from line {fan.evidence.start.row}) "
            f"pass the same `{fan.shared_expr}` with a different `{fan.varying_name}`")


def fanout_findings(rule, layout: PromptLayout):
    """PRM106's diagnostics for `layout.fanouts` whose text lies in the request's shareable prefix
    with no value known to change per request before it (after one, nothing is shared anyway) and
    whose varying value no PRM101 / PRM104 warning reports: one per prompt."""
    end = prefix_end(layout)
    warned = {imp.seg.span for imp in impacts(layout) if imp.severity is Severity.WARNING}
    for fan in layout.fanouts:
        start = Cut(fan.part, fan.at)
        if not start < end or fan.part >= len(layout.parts) or fan.varying in warned:
            continue
        part = layout.parts[fan.part]
        if part.is_history or any(not s.is_static and s.volatility is Volatility.PER_REQUEST and not s.each
                                  for pi, si, p, s in layout.segments() if Cut(pi, si) < start and not p.is_history):
            continue
        severity = _severity(layout, fan)
        size = f"its {tokens(fan.shared_tokens)}" if fan.shared_tokens is not None else "its size is not known here"
        where = "newest user message" if fan.part == layout.newest_user else \
            ROLE_NAMES.get(part.role, f"{part.role} message")
        message = (f"`{fan.varying_name}` comes before `{fan.shared_name}` in the {where} (both parameters "
                   f"of `{fan.builder}`), and {_how(fan)}: those requests differ from their first value on and "
                   f"share nothing after it, so the shared `{fan.shared_name}` is processed uncached in every one "
                   f"of them; placed before `{fan.varying_name}`, it would be cached for all but the first ({size})")
        related = [Related(fan.shared, f"the value the calls of `{fan.builder}` share"),
                   Related(fan.evidence, f"the call that {'repeats per element' if fan.how == 'loop' else 'repeats'}"
                                         f" with the same `{fan.shared_expr}`")]
        yield rule.diagnostic(message, fan.varying, severity=severity, prompt=layout.id, related=related)
        return
