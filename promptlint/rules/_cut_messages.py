"""PRM105's messages for a conversation cut where a fact finder finds it: the table of cuts
reported at their node alone (`CUT_MESSAGES`), the table of cuts reported with the line that makes
them (`CUT_WITH_RELATED`), a conversation cut where it is kept (`stored_cut_findings`,
`python/stored_cuts.py`), and one read in the store's order by a read helper (`helper_read_findings`).
"""
from __future__ import annotations

from ..model import Related, Severity


def split_advice(message: str) -> tuple[str, str]:
    """A table's message as (finding, advice): each ends with what to do after its last `; `, shown
    as the finding's help (`= help:`) rather than the rule's general advice, which another cut needs."""
    body, _, advice = message.rpartition("; ")
    return (body, advice[:1].upper() + advice[1:]) if body else (message, "")


def own_advice(rule, message: str, span, *, related=None, severity: Severity = Severity.INFO):
    """A diagnostic of `rule` (info unless `severity` says otherwise) whose help line is the
    message's own advice (after its last `; `), not the rule's general advice (which fits a sliding
    window, not a message re-made for one request)."""
    body, advice = split_advice(message)
    return rule.diagnostic(body, span, severity=severity, advice=advice or None, related=related)


#: Facts of cuts reported where they are, each with the line that makes the cut: fact key ->
#: (message, note of the related location).
CUT_WITH_RELATED = {
    "inplace_rewrites": (("An older message of the conversation is rewritten in place here, picked by a test (a newer "
                         "message of the same kind, or until a size fits): the history re-sent next differs from the "
                         "previous request's from that message on, so everything after it is read uncached (the "
                         "request that sends it is not linked here: how much it costs is not known); rewrite in steps, "
                         "or leave sent messages as they are"),
                         "the message's content written here"),
    "picked_edits": (("A message of the conversation this function is handed is rewritten (or removed) in place here, "
                      "in the caller's own list, picked by whether it is in a collection the caller or the instance "
                      "holds: when that collection changes, a message in the middle of the history changes and "
                      "everything after it is read uncached (the request that sends it is not linked here: how much "
                      "it costs is not known); leave sent messages as they are and add a note after them, or rewrite "
                      "only at a compaction"),
                     "the messages picked here"),
    "reprocessed_edits": (("A field of each message of the conversation this function is handed is written back here, "
                           "into the caller's own message, from a call given what that same field holds: every call "
                           "processes what the previous call wrote, so unless that call gives back its own output "
                           "unchanged, every such message, the oldest too, is sent changed on every turn and the "
                           "history after the first one is read uncached (the request that sends it is not linked "
                           "here: how much it costs is not known); process a message once, when it is added, or "
                           "write the result into a copy sent for this request only"),
                          "the walk of the conversation handed in"),
    "inplace_merges": (("A message of the same role is merged here into the message before it, which is the caller's "
                        "own message object (kept as it is, not a copy): every call adds the text to it again, so a "
                        "conversation the caller keeps and re-sends differs from the previous request's from that "
                        "message on, and everything after it is read uncached (whether the caller keeps its messages "
                        "is not followed here: how much it costs is not known); merge into a copy of the message"),
                       "the caller's message kept here, not a copy"),
    "inplace_appends": (("Text is added here to a message of the conversation this function is handed, which is the "
                         "caller's own message object (not a copy): every call adds the text again, so a caller that "
                         "passes the same conversation again (an agent's loop) sends that message longer each time, "
                         "and everything after it is read uncached (whether the caller re-sends its messages is not "
                         "followed here: how much it costs is not known); add the text to a copy of the message"),
                        "the caller's message looked up here"),
    "kept_rewrites": (("Every message of the conversation an object keeps is rewritten in place here (its content "
                       "written again from its own text), and then a new message is added to that conversation: the "
                       "new message is sent as it was written and rewritten here on the next turn, so the history "
                       "re-sent then differs from the previous request's from that message on, and it and everything "
                       "after it are read uncached on every turn (the request that sends it is not linked here: how "
                       "much it costs is not known); rewrite a message before it is first sent, or leave sent messages "
                       "as they are"),
                      "the message's content rewritten here"),
    "kept_removals": (("The messages this function is handed are left out of the kept conversation here, wherever they "
                       "are in it (not only its oldest), and the rest is written back: when a message of its middle "
                       "is removed (a tool result or a recalled memory that no longer applies), the history re-sent "
                       "next differs from the previous request's from that message on, and everything after it is "
                       "read uncached (when its callers remove messages is not followed here: how much it costs is "
                       "not known); leave sent messages in place and add a note after them, or remove only at a "
                       "compaction"),
                      "the conversation written back here"),
    "replay_strips": (("A copy of each stored message is re-sent with this field cleared when the conversation is "
                       "rebuilt from what was stored: a message sent with it while it was the newest (its turn's "
                       "retrieved context, its images) is re-sent without it from the next turn on, so the history "
                       "differs from the previous request's from that message, and what a cache held of it ends "
                       "there (how the message was first sent is not followed here: how much it costs is not "
                       "known); store the message as it was sent, or never send the field"),
                      "the stored messages rebuilt here"),
    "sent_rewrites": (("A field of a message of the conversation is cleared or replaced here, after the request related "
                       "here sent it: the next request re-sends that message changed, so the history differs from the "
                       "previous request's from that message on, and what a cache (a provider's, or a local server's) "
                       "held of it ends there (how much follows it is not known here); send the message as it will "
                       "be kept (clear the field before the first send), or clear it on a copy sent once"),
                      "the request that sent the message"),
    "older_edits": (("A message older than the newest few of the conversation is rewritten in place here, picked by "
                     "its place counted from the end: every new turn moves that boundary, so the message that has "
                     "just left the newest few is sent changed, the history re-sent differs from the previous "
                     "request's from that message on, and everything after it is read uncached on every turn (the "
                     "request that sends it is not linked here: how much it costs is not known); rewrite older "
                     "messages in steps (many at once, at a limit), or leave sent messages as they are"),
                    "the walk of the conversation that picks them"),
    "rendered_apart": (("The conversation is rendered here (into text or messages) with its newest turns written apart from the older "
                        "ones (something only the newest get, or another rendering): on the next turn the turn that "
                        "was newest is written the other way, so the text differs from the previous one in its "
                        "middle and what a cache held of it ends there (the request that places it is not linked "
                        "here: how much it costs is not known); render every turn the same way, and put what only "
                        "the newest turn needs after the conversation"),
                       "the conversation's text built here"),
    "newest_remakes": (("The newest message of the conversation the instance keeps is re-made here for the request, "
                        "on a copy (by a call given its text), while the kept conversation keeps it as it was: on "
                        "the next turn it is re-sent as kept, not as it was sent, so the history differs from the "
                        "previous request's from that message on and it and the answer after it are read uncached "
                        "on every turn (whether the call changes the text is not followed here: how much it costs "
                        "is not known); keep the message as it was sent, or re-make every message the same way"),
                       "the copy of the kept conversation made here"),
    "kind_windows": (("The conversation keeps only the newest messages of a kind here: the excess over a limit is "
                     "taken and that many of the oldest are removed or stripped, walking from its head, so once it "
                     "holds more every new one pushes an older one out and the conversation changes from that "
                     "message on, on every turn (the request that sends it is not linked here: how much it costs "
                     "is not known); drop them in steps (half of them at a limit) so it only changes at a cut"),
                     "one of the oldest dropped here"),
    "kept_indices": (("The conversation keeps only the newest messages of a kind here: the indices of that kind "
                      "are collected, the newest few kept, and the others left out of the conversation by index, "
                      "so once it holds more every new one pushes an older one out and the conversation changes "
                      "from that message on, on every turn (the request that sends it is not linked here: how "
                      "much it costs is not known); drop them in steps (half of them at a limit) so it only "
                      "changes at a cut"),
                     "the older ones left out here"),
    "kept_keys": (("The conversation keeps only its newest groups here: the keys of its messages (their groups, "
                   "turns or ids) are collected, the newest few kept, and the messages of the others left out "
                   "(marked excluded or removed), so once it holds more every new one pushes an older one out and "
                   "the history changes from that message on, on every turn (the request that sends it is not linked "
                   "here: how much it costs is not known); drop them in steps (half of them at a limit) so it only "
                   "changes at a cut"),
                  "the older ones left out here"),
    "newest_kinds": (("The conversation keeps only the newest items of a kind here: walking it newest first, the items "
                      "past a limit are removed from older messages, so once it holds more every new one strips an "
                      "older message and the conversation changes from that message on, on every turn (the request "
                      "that sends it is not linked here: how much it costs is not known); drop them in steps (half "
                      "of them at a limit) so it only changes at a cut"),
                     "an older one removed here, or the newest kept whole here"),
    "summary_rewrites": (("The history is replaced here by a summary made again on every call (the answer of a call "
                          "given the conversation, put in its first message and handed back as the history): each new "
                          "summary differs from the last, so the history sent differs from its first message on and "
                          "none of it is read from the cache (the request that sends it is not linked here: how much "
                          "it costs is not known); summarise only at a size limit, keep that summary until the next "
                          "one, and send the newer messages after it unchanged"),
                         "the summary asked for here"),
}

#: The message of each kind of cut found by a fact finder and reported at its node alone.
CUT_MESSAGES = {
    "handed_windows": ("The conversation is handed on here as its newest messages only (a slice from the end given "
                       "for the callee's conversation): once it is longer, the oldest message drops out on every new "
                       "turn, so the history the callee renders or sends from it never matches the prefix cached by "
                       "the previous request (the request that sends it is not linked here: how much it costs is not "
                       "known); hand on the whole conversation, or cut it in steps so it only changes at a cut"),
    "rebound_windows": ("The conversation is cut here to its newest messages and handed on (to a call, as what this "
                        "function returns, or into the object it was handed): once it is longer, the oldest message "
                        "drops out on every new turn, so the history built from it never matches the prefix cached "
                        "by the previous request (the request that sends it is not linked here: how much it costs "
                        "is not known); hand on the whole conversation, or cut it in steps so it only changes at a "
                        "cut"),
    "trimmed_to_fit": ("The conversation is trimmed to fit a bound here and what is kept is used in its place (it "
                       "replaces the conversation, or is handed back as it): once it is larger, its oldest content is dropped again on every call, so the history sent after it "
                       "differs from the previous request's from the first dropped item on (the trimming is not "
                       "read here: how much it costs is not known); drop old content in steps, well below the bound, "
                       "so the history only changes at a cut"),
    "newest_queries": ("The stored conversation is read back here as its newest messages only (a query that takes "
                       "its newest records up to this limit, then turned back into time order): once it is longer, the "
                       "oldest message drops out on every new turn, so the history sent from it never matches the "
                       "prefix cached by the previous request (the request that sends it is not linked here: how "
                       "much it costs is not known); read it whole, or cut it in steps so it only changes at a cut"),
    "newest_deletes": ("The stored conversation is cut here to its newest rows: this query deletes the rows older "
                       "than the newest ones up to a count, so once it is longer the oldest message is dropped on "
                       "every save, and the history read back from it never matches the prefix cached by the "
                       "previous request (the request that sends it is not linked here: how much it costs is not "
                       "known); keep it whole, or delete the oldest half at a limit so it only changes at a cut"),
    "message_expiry": ("Each message is stored here with an expiry of its own (under a key made for it, not the "
                       "conversation's): in a conversation that lasts longer than the expiry, its oldest messages "
                       "expire one by one, so the history read back loses its head on every turn from then on and "
                       "nothing after the system prompt is read from the cache (whether an expiry is set is the "
                       "caller's choice); expire the conversation as a whole (one key per session, its expiry "
                       "renewed on each write)"),
    "stored_fields": ("A message is stored here field by field, without its tool calls (and without serialising it "
                      "whole), and the conversation is rebuilt from these records when it is read back: a message "
                      "that had tool calls, a name or an id is re-sent without them, so the history differs from "
                      "the previous request's from the first such message on, and everything after it is read "
                      "uncached (whether the conversation holds such messages is not known here: how much it "
                      "costs is not known); store the message whole (`message_to_dict(message)`, "
                      "`message.model_dump()`)"),
    "newest_first": ("The stored conversation is read back here newest first (put in time order, then turned "
                     "around): every new message is put at the head of the history, so the history sent from it "
                     "never shares a prefix with the previous request's (the request that sends it is not linked "
                     "here: how much it costs is not known); return it oldest first, and add each new message at "
                     "its end"),
    "unordered_reads": ("The stored conversation is read back here in whatever order the store gives: the read asks for "
                        "no order (no `ORDER BY`, sort or order key), and a store promises none without one (a "
                        "changed plan or a parallel scan, a table rewritten after updates, natural or key order), so "
                        "when the messages come back in another order the history differs from the previous "
                        "request's from the first moved message on, and everything after it is read uncached (the "
                        "request that sends it is not linked here: how much it costs is not known); order the read "
                        "by the time or sequence number of each message"),
    "older_writes": ("A message older than the newest of the conversation an object keeps (counted from its end) is "
                     "rewritten in place here: when the conversation is re-sent, the history differs from the "
                     "previous request's from that message on, and it and everything after it are read uncached "
                     "(the request that sends it is not linked here: how much it costs is not known); leave sent "
                     "messages as they are and add what changed as a new message"),
    "kept_recent": ("The conversation is compacted here keeping only its newest few items whole: the older ones "
                    "are rewritten (shortened, summarised or replaced) on every call, so the item that just left "
                    "the newest few changes on every turn and the history after it never matches the prefix cached "
                    "by the previous request (the compaction and the request are not linked here: how much it "
                    "costs is not known); compact in steps, so the history only changes at a cut"),
    "strategy_cuts": ("The conversation is handed here to a compaction strategy the configuration chooses, on "
                      "every run: a strategy that keeps a window of the newest messages, or summarises or drops the "
                      "oldest once the conversation passes a limit, changes the front of the history on every turn "
                      "after that, so the history sent after it never matches the prefix cached by the previous "
                      "request (which strategy is configured, and the request that sends the result, are not "
                      "followed here: how much it costs is not known); use a strategy that cuts in steps well "
                      "below the limit and keep its result, so the history only changes at a cut"),
}


def stored_cut_findings(module):
    """A conversation cut or rewritten where it is kept (`python/stored_cuts.py`): a warning
    when it slides on every request and a request of the module sends the same list as its
    history; else info, saying the evidence. Yields (message, span, the keywords of
    `Rule.diagnostic`)."""
    taken = {module.span(at) for at, *_ in module.facts.get("memory_windows", ())}
    for cut in module.facts.get("stored_cuts", ()):
        at = module.span(cut.at)
        if at in taken:
            continue  # the same cut, read as the memory's add method (one cause)
        if cut.handed:
            what = (f"The list `{cut.held}` this function is handed is cut from its head here, in a loop until "
                    "the prompt rendered from it fits")
        else:
            what = (f"The {'conversation' if cut.named else 'list'} kept in `{cut.held}` is cut where it is kept: "
                    + ("a new message (a summary) is put before its newer part here" if cut.summary else
                       "its oldest items are dropped here"))
        when = ("when a request fails (in an `except` handler), each time once it is longer than the limit"
                if cut.on_error else
                "on every request once it is longer than the limit" if cut.cadence == "slides" else
                f"on every request once it is longer than the limit with the default `{cut.margin}` (0), "
                "in steps of that margin when it is set")
        sent = ("the request that sends it is not linked here: how much it costs is not known" if cut.sent is None
                else "it is sent as the history of the request related here" if cut.sent[1] else
                "it is sent as the history of the request related here, with no cache breakpoint on or after "
                "it: nothing of it is cached today")
        message = (f"{what}, {when}: its head changes on every turn, so the history after the system prompt "
                   f"is never read from the cache ({cut.evidence}; {sent}); cut it in steps (drop or summarise "
                   "the oldest half at a limit) so it only changes at a cut")
        related = [Related(module.span(node), note) for node, note in cut.related]
        if cut.sent is not None:
            related.append(Related(cut.sent[0], "the request that sends it as its history"))
        severity = Severity.WARNING if cut.sent is not None and cut.sent[1] and cut.cadence == "slides" \
            and not cut.on_error else Severity.INFO  # (a cut when a request fails: not every turn)
        yield message, at, {"severity": severity, "related": related}


def helper_read_findings(module):
    """A stored conversation read back by a generic read helper of the package that asks the store for
    no order (`python/unordered_reads.helper_reads`): info at the helper's read, the reader's call
    related. Yields (message, span, the keywords of `Rule.diagnostic`)."""
    body, advice = split_advice(CUT_MESSAGES["unordered_reads"])
    seen = set()
    for call, definer, node in module.facts.get("helper_reads", ()):
        if id(node) in seen:
            continue  # (one cause: the helper's read, related to the first reader that calls it)
        seen.add(id(node))
        yield body, definer.span(node), {"severity": Severity.INFO, "advice": advice or None, "related": [
            Related(module.span(call), "the stored conversation read through it here")]}


def shaped_window_findings(module):
    """A list known as the conversation by what it holds, cut to its newest items and handed back
    or kept on the instance (`python/shaped_windows.py`): info where it is cut, the evidence said
    (no request of the module is linked to it). Yields (message, span, the keywords of
    `Rule.diagnostic`)."""
    for window, kept, evidence in module.facts.get("shaped_windows", ()):
        how = "handed back to the caller" if kept == "returned" else "kept on the instance"
        message = (f"`{module.code(window)}` keeps only the newest items of a list that holds the conversation "
                   f"({evidence}), and what is made from it is {how}: once the conversation is longer, the oldest "
                   "message drops out on every new turn, so the history sent from it never matches the prefix "
                   "cached by the previous request (the request that sends it is not linked here: how much it "
                   "costs is not known)")
        yield message, module.span(window), {"severity": Severity.INFO}
