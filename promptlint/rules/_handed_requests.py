"""PRM302's finding for a request a caller writes and hands whole to a function that sends it
(`PromptLayout.caller_built`): a retry helper, `create_retrying(client.messages.create, **kwargs)`,
given `system=..., messages=...` by the method that builds them. The finding belongs where the
request is written (the caller), with the send related."""
from __future__ import annotations

from ..estimates import Cut, prefix_stop
from ..model import PromptLayout, Related, Span
from . import _cache_rule as h


def handed_request(layout: PromptLayout, param: str, nowhere: str, label: str,
                   fix: str) -> tuple[str, Span, list[Related]] | None:
    """(message, span, related) of the info at the caller's request (`layout.caller_built`), sent
    through the function's `**param` with no breakpoint (`nowhere`: why no code writes one;
    `label`: who caches nothing without one; `fix`: the breakpoint that would cache it). None
    when the caller's request is known text up to its newest message, with no conversation and no
    options of unknown keys: on this path (no size reached the minimum) nothing of it repeats
    enough to be cached."""
    stop = prefix_stop(layout)
    if not layout.unread_options and not any(p.is_history for p in layout.parts) \
            and (stop == Cut(len(layout.parts), 0) or stop.part == layout.newest_user):
        return None
    held = [h.ROLE_NAMES.get(p.role, p.role) for p in layout.parts if p.role in ("tools", "system", "developer")]
    held_text = ", ".join(dict.fromkeys(held + ["messages"]))
    message = (f"This request ({held_text}) is handed whole to a function that sends it (line "
               f"{layout.site.start.row}, as `**{param}`) with no cache breakpoint, and {nowhere}: {label} "
               "caches nothing without one, so every request built here pays the full input price again for "
               f"what repeats (the instructions, tools, conversation; its size is not known here); {fix}")
    return message, layout.caller_built, [Related(layout.site, "sent here")]
