"""How `promptlint explain` and the prefix rules phrase an `Impact` (impact.py): one summary line
per dynamic segment (`summary`) and the note that the static text counted after it lies in
pieces between other values (`interleaved`). Pure functions; figures in tokens of the target's
tokenizer, as the impact model gives them."""
from __future__ import annotations

from .impact import Impact
from .prefix import tokens


def summary(imp: Impact) -> str:
    """One line for `promptlint explain`: 'changes on every request: 1,415 static tokens and the
    history after it; openai:gpt-4.1: 0 cached tokens per request instead of 1,408' (the figures the
    rules' messages give)."""
    bits = []
    if imp.before_lost:
        bits.append(f"{tokens(imp.before_lost, 'static token')} before it (the cache breakpoint after it closes them)")
    if imp.static_after:
        bits.append(tokens(imp.static_after, 'static token'))
    if imp.history_after:
        bits.append("the history")
    text = f"{imp.rate.value}: " + (" and ".join(bits) + " after it" + interleaved(imp) if bits else "nothing after it")
    t = imp.worst
    if t is not None and imp.complete:
        if t.lost:
            text += f"; {t.target}: {t.cached(t.now)} per request instead of {t.amount(t.fixed)}"
        else:  # nothing more would be cached with it moved (below the minimum, or only the history)
            text += f"; {t.target}: {t.cached(t.now)} per request either way"
        if t.dormant:
            text += f" once caching is on ({t.dormant})"
    return text


def interleaved(imp: Impact) -> str:
    """' (in pieces, between 2 other values)' when the static tokens counted after the segment are
    not one run (values that change no more often lie between them), else ''."""
    if not imp.between or not imp.static_after:
        return ""
    return f" (in pieces, between {imp.between} other value{'' if imp.between == 1 else 's'})"
