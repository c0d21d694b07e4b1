"""What an index of a list that holds spread items reads (`messages[0]` of `[*self.messages,
{"role": "user", "content": question}]`).

A list built from another one spread into it (`messages = self.messages`, then
`messages.append(user)`; `[*history, user]`) does not say how many items the spread gives: an
index that reaches past the items written before the spread lands in the spread (or beyond it),
never on the item written after it. `messages[0]` of a kept conversation whose first messages are
added by a method the analysis reads only as growing the list (`self.add_system_prompt(...)` in
`__init__`) is an early message of that conversation (often its system message), not the user's
newest message appended after it. Nothing here judges.
"""
from __future__ import annotations

from .values import Alt, Seq, Spread, Text
from .windows import history_segment


def crossed_spread(seq: Seq, key: int) -> Spread | None:
    """The spread item that index `key` of the list `seq` reaches first (counted from its start
    for `key >= 0`, from its end for a negative one), or None when the index lands on an item
    written in the code before any spread is met."""
    items = seq.items if key >= 0 else list(reversed(seq.items))
    reach = key if key >= 0 else -key - 1
    for at, item in enumerate(items):
        if isinstance(item, Spread):
            return item
        if at == reach:
            return None
    return None


def conversation_at(value, key: int):
    """The history segment of the conversation that index `key` of `value` lands in: a list whose
    spread item at or before that index is the conversation (`[*self.messages, user][0]`), or a
    choice all of whose options are such lists or the conversation itself; else None."""
    if isinstance(value, Alt):
        found = [conversation_at(o, key) for o in value.options]
        return found[0] if found and all(f is not None for f in found) else None
    if isinstance(value, Seq) and not value.repeated:
        spread = crossed_spread(value, key)
        return None if spread is None else _conversation(spread.value)
    return history_segment(value) if isinstance(value, Text) else None


def _conversation(value):
    """The history segment of `value` when it is the conversation (or each of its options is)."""
    if isinstance(value, Alt):
        found = [_conversation(o) for o in value.options]
        return found[0] if found and all(f is not None for f in found) else None
    return history_segment(value)
