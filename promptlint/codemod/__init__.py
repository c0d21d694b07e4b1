"""The codemod layer: fixes built from anchors, with libcst, only for what is reported.

The analysis states where a fix would edit (`model.Anchor`: a span, a kind of place, details, the
digest of the text); a rule asks `build(anchor)` for the fix when it reports the finding. The file
is parsed with libcst then, once per text (`module.load`, a small cache), and the edit is built
from the CST node whose extent is the anchor's span (`anchors`). This package imports neither
the analysis (`promptlint.python`), nor the rules, nor the reporters.
"""
from __future__ import annotations

from ..model import Anchor, Fix

__all__ = ["build", "clear_cache", "PLACES"]

#: The kinds of place an anchor may name (see `anchors` for the span each expects).
PLACES = ("iterable", "serialize-call", "tools", "fstring-field", "concat-operand")


def build(anchor: Anchor | None, message: str | None = None) -> Fix | None:
    """The fix for an anchor, or None when no sure edit exists, the file cannot be read or
    parsed, or its text is no longer the one the anchor's digest names. Never raises for bad
    input. `message` overrides the builder's fix message."""
    if anchor is None or getattr(anchor, "place", None) not in PLACES:
        return None
    from .anchors import build_fix
    try:
        fix = build_fix(anchor, message)
        if fix is not None:
            fix.filename = anchor.span.filename
        return fix
    except Exception:  # a fix is optional: malformed input (a span of the wrong type, a detail
        return None    # that is not pairs) must never cost the finding itself


def clear_cache() -> None:
    """Forget the parsed modules (tests; a long-lived server after many edits)."""
    from .module import clear_cache as clear
    clear()
