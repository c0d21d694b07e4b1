"""PRM302's judgement of requests it cannot read whole: the model a request runs when the code does
not name it, and a request whose callers' text comes after content new with each call."""
from __future__ import annotations

from ..estimates import Cut, target_profiles
from ..model import PromptLayout, Severity
from ..profiles import Profile
from . import _cache_rule as h


def assumed_target(layout: PromptLayout, stop: Cut, profiles: list[Profile], label: str
                   ) -> tuple[Profile | None, str, Severity, str]:
    """For a request whose model is not known statically (`model=self.model`) and whose static
    prefix does not reach the minimum of every model of its provider: (profile, label,
    severity, caveat) from the targets it is estimated for (`estimates.target_profiles`, the same
    as `explain`). Targets the user configured (`--target`, the `targets` setting) are the models
    run: a warning when the prefix reaches each one's minimum. Otherwise the provider's default
    row stands in for the model: info when the prefix reaches that row's minimum, the caveat
    naming the larger minimum of the provider's other models. (None, label, ...) when neither
    holds, when the call names a model no row of its provider knows (`claude-2.1`), or when the
    layout has no estimates."""
    if layout.model is not None or not layout.estimates:  # a model named at the call that no row knows
        return None, label, Severity.INFO, ""  # (`claude-2.1`), or no targets estimated: nothing assumed
    own = {p.provider for p in profiles}
    rows = [(p, m) for p, m in target_profiles(layout) if p.provider in own and p.opt_in]
    configured = [p for p, m in rows if m]
    if configured:
        found = h.at_or_above_all(layout, stop, configured)
        models = sorted({m for _, m in rows if m})
        said = f"{', '.join(models)} (the configured target{'s' if len(models) > 1 else ''})"
        return found, said if found else label, Severity.WARNING, ""
    found = h.at_or_above_all(layout, stop, [p for p, _ in rows])
    if found is None:
        return None, label, Severity.INFO, ""
    highest = max((p.min_cacheable_tokens for p in h.minimums(profiles)), default=0)
    caveat = (f"; a model with a {highest:,}-token minimum would not cache it either way"
              if highest > found.min_cacheable_tokens else "")
    return found, f"{found.models} (the model is not known statically: the provider's default)", Severity.INFO, caveat


def opens_with_attachment(layout: PromptLayout) -> bool:
    """True when the request opens with an image or a document that is not static, before any
    text (`[{"type": "image", "source": {..., "data": b64}}, {"type": "text", "text": prompt}]`
    and no tools or system prompt before it): whatever the callers' text repeats comes after
    content new with each call, so a breakpoint would cache nothing they share."""
    for part in layout.parts:
        for seg in part.segments:
            if seg.is_static and not seg.text.strip():
                continue
            return seg.is_attachment and not seg.is_static
    return False
