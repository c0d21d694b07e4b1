"""Cut points of one prompt layout for the impact of its values (`impact.py`): where the shareable
prefix ends, where the explicit cache breakpoints are, and how many tokens a target caches up to a
cut (tokens of the target's tokenizer; o200k for `unclosed`)."""
from __future__ import annotations

from .estimates import Cut, cached_tokens, target_tokens, tokens_before
from .marker_names import no_breakpoint
from .model import PromptLayout
from .prefix import prefix_end
from .profiles import Profile


class Geometry:
    """Cut points of one layout: the shareable prefix end and the explicit breakpoints."""

    def __init__(self, layout: PromptLayout):
        self.layout = layout
        self.end = prefix_end(layout)
        self.breakpoints = sorted(Cut(pi, bp.after + 1) for pi, part in enumerate(layout.parts)
                                  for bp in part.breakpoints)

    def region(self, profile: Profile, own: bool) -> tuple[Cut, str, bool]:
        """(end of what this target caches, why nothing is cached today or "", explicit): the
        shareable prefix, cut at the last breakpoint inside it on an opt-in API."""
        lay = self.layout
        if not profile.caching_supported:
            return self.end, f"this model has {profile.no_caching}", False
        if profile.opt_in and own and lay.auto_cache is None:
            if lay.history_marker is not None:
                # a statement marks a block that may be a message of the history after the last
                # breakpoint placed (if any): the cache may reach into the history
                return self.end, "", True
            if not self.breakpoints:
                return self.end, no_breakpoint(lay), False
            return min(self.breakpoints[-1], self.end), "", True
        return self.end, "", False

    def cached(self, cut: Cut, profile: Profile, explicit: bool, placed: bool) -> int:
        """Tokens cached per request when the prefix is shared up to `cut`. With explicit
        breakpoints (`explicit`) the cache ends at the last breakpoint at or before `cut` when
        `placed`, else where it serves best (exactly at `cut`); nothing below the minimum."""
        if explicit and placed:
            marks = [c for c in self.breakpoints if c <= cut]
            if not marks:
                return 0
            cut = marks[-1]
        n = target_tokens(self.layout, cut, profile)[0]
        if explicit or not profile.caching_supported:
            return n if n >= (profile.min_cacheable_tokens or 0) else 0
        return cached_tokens(profile, n)

    def unclosed(self, cut: Cut) -> int:
        """o200k tokens of static text before `cut` that no breakpoint before it closes."""
        marks = [c for c in self.breakpoints if c <= cut]
        return tokens_before(self.layout, cut) - (tokens_before(self.layout, marks[-1]) if marks else 0)
