"""PRM105 diagnostics of system messages moved in a conversation: their text hoisted into the
Responses API's `instructions` (`module.facts["system_hoists"]`) or into a system field or the last
message (`field_hoists`), or the messages moved to the head of the list (`front_moves`): a system
message added later in a conversation then changes the head of the request on the turn it is added."""
from __future__ import annotations

from ..model import Severity
from ._cut_messages import own_advice


def findings(rule, module):
    """PRM105 diagnostics of the three facts of the module docstring, in that order."""
    for stmt, function in module.facts.get("system_hoists", ()):
        message = (f"`{function}` moves the text of every system message of the conversation, wherever it is, "
                   "into the Responses API's `instructions`, which come before all input items: a system message "
                   "added later in a conversation (a notice, per-turn context) changes the head of the request on "
                   "the turn it is added, and the history after it is read uncached; keep later system messages "
                   "in place among the input items and fold only the leading ones")
        yield own_advice(rule, message, module.span(stmt))
    for stmt, function, field, how in module.facts.get("field_hoists", ()):
        if how == "newest":
            message = (f"The newest message is given content the kept conversation does not hold here: "
                       f"`{function}` takes the text of every system message out of the conversation and "
                       f"writes it into the last message (`{field}`), ahead of that message's own text: the "
                       "instructions ride in a different message on every request, so they are never read from "
                       "the cache, and on the next turn that message is re-sent without them, so each request "
                       "matches the previous one only up to the message before it (whether callers send "
                       "system messages is not followed here: how much it costs is not known); send the "
                       "system text as the first message (or the API's system field), the same on every turn")
            yield own_advice(rule, message, module.span(stmt))
            continue
        what = ("joins the text of every system message of the conversation, wherever it is, into" if how == "joins"
                else "puts the text of the last system message of the conversation, wherever it is, into")
        message = (f"The front of the conversation changes here: `{function}` {what} `{field}`, the request's "
                   "system prompt, which comes before all messages: a system "
                   "message added later in a conversation (a notice, per-turn context) changes the head of the "
                   "request on the turn it is added, and the whole history after it is read uncached (whether "
                   "callers add later ones is not followed here: how much it costs is not known); fold only the "
                   "leading system messages, and send later ones in place (as user messages)")
        yield rule.diagnostic(message, module.span(stmt), severity=Severity.INFO,
                              advice="Fold only the leading system messages; send later ones in place")
    for move, function, how in module.facts.get("front_moves", ()):
        what = ("puts every system message of the conversation it meets at the head of the list it builds"
                if how == "front" else "joins the system messages of the conversation before all its other "
                "messages")
        where = ("to the very head, in front of the first system prompt and the whole history (several "
                 "end up in reverse order)" if how == "front" else
                 "up beside the leading system messages, in front of the whole history")
        message = (f"`{function}` {what}, wherever each one was: a system message that comes later in a "
                   f"conversation (a notice, per-turn context) is moved {where}, so the request changes "
                   "near its head on the turn one is added, and the history after it is read uncached "
                   "(a conversation whose only system message is its first keeps its order; whether callers "
                   "add later ones is not followed here: how much it costs is not known); keep later system "
                   "messages in place, or send them as user messages")
        yield own_advice(rule, message, module.span(move))
