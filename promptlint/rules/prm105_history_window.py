"""PRM105 history-window."""
from __future__ import annotations

from ..model import Kind, PromptLayout, Related, Severity, Volatility
from ._cut_messages import (CUT_MESSAGES, CUT_WITH_RELATED, helper_read_findings, own_advice, shaped_window_findings,
                            split_advice, stored_cut_findings)
from ._kept_calls import findings as kept_call_findings
from ._kept_windows import findings as kept_window_findings
from ._library_windows import findings as library_window_findings
from ._system_moves import findings as system_move_findings
from .base import Rule

_OPT_IN = ("anthropic", "bedrock")  # nothing after the last explicit breakpoint is cached


class HistoryWindowRule(Rule):
    """## What it does
    Finds a conversation history whose front changes from one turn to the next: cut to its
    newest messages, cut in its middle, or rewritten where it is kept.

    A sliding window (`history[-10:]`, `messages.pop(0)` in a loop until it fits, LangChain's
    `trim_messages(...)` with its default `strategy="last"`, a deque with `maxlen`, a storage read
    that returns the newest turns), a summary rewritten at each cut, and older messages replaced by
    a placeholder all change what follows the system prompt on every turn once the limit is
    reached. Reported where the history is cut: a warning when a request of the module sends the
    cut list as its history and caches it; info when that request is not linked to the cut, when
    the provider caches none of the history today, or when only names say the list is the
    conversation. Every shape it reads is listed under "Shapes it recognises" below.

    A window whose count is an option off by default (`self.messages[-self.recent_messages:]` with
    a field `recent_messages: Optional[int] = None` that the package never sets) cuts only for users
    who set it: info, and the message says so.

    ## Why is this bad?
    Once a conversation is longer than the window, the oldest message drops out on every turn:
    the messages after the system prompt are different on every request, so none of the history
    is ever read from the cache, and every turn pays for the whole window again. A window that is
    cut in steps (summarise or drop the oldest half once the history passes a limit, then append
    until the next cut) keeps the same prefix between cuts. Info when the provider caches nothing
    of the history today (an opt-in API with no cache breakpoint on or after the history), when
    the request that sends it is not linked to the cut, or when what is cut is not known to be
    the conversation (the newest items of a list an instance grows with what is not known as
    messages). The Responses API's `truncation="auto"` is no window: it drops items only from a
    request that would outgrow the model's context window, which the default rejects.

    ## Example
    ```python
    messages = [{"role": "system", "content": RULES}, *history[-20:], {"role": "user", "content": question}]
    ```
    Use instead: send the whole history, or cut it in steps so that it only changes at a cut.

    ## Fix safety
    Display-only: how to shorten a conversation is the application's choice.

    ## Shapes it recognises
    Finds a conversation history whose front changes from turn to turn, among them one sent as a
    sliding window of its newest messages (`history[-10:]`, `messages[len(messages) - k:]`, `messages.pop(0)` or `del messages[1]` in a
    loop until it fits, a newest-first walk that stops at a budget, `messages[k:]` from a start
    chosen by size: what a function of the tree returns that is handed the list or its token
    counts and compares sizes or searches a running total, `cut = cutoff(counts, max_tokens)`, an
    index stepped down in a `while` loop until a size passes a bound, or a walk over its indices
    that returns the slice under a size test; a start found by what an item is, the last user
    message, is no window; LangChain's
    `trim_messages(...)` with its default `strategy="last"`, the newest items of a list of messages grown across calls, such as a
    module-level `history` that each call appends to, the newest runs of a conversation grouped
    into runs, `runs.append((history[i], history[i + 1]))`), or with messages of its middle removed until it fits
    (`messages.pop(len(messages) // 2)` in a loop, `messages[:k] + messages[-k:]`). A pop or del
    (or the list's own item removed by value, `reduced.remove(reduced[0])`, as its pop)
    in a `while` loop that runs until a size fits (also a message shortened in place there,
    `hist[i] = truncate(...)`, or a method of the instance called there that deletes from the
    history, or the list sliced from its front, `history = history[2:]`, also kept under a dict key,
    `inputs["chat_history"] = chat_history[2:]`, or on the instance, or under a key of the instance
    named for the conversation, `self.info["messages"] = self.info["messages"][1:]`; a cut that keeps
    a pinned head, `self.messages = self.messages[:1] + self.messages[-k:]`, or `kept =
    state.messages[0:1]; kept += state.messages[-3:]; state.messages = tidy(kept)`, is a cut of what
    follows the head; one made only in an `except` handler, when a request fails, is info), a `del messages[i]` over the
    first indices up to a cut point, a walk by index from `len(messages) - 1` that stops at a count
    (the list cut may be a container of the package made from the conversation,
    `reduced = AgentMessageList(messages)` of a class whose `__init__` takes it, or a subclass of
    `list` built from it; and the conversation is still the conversation once a loop writes each of
    its messages as one message of the item alone, also in branches by role and with a value
    rendered from the item, `content = builder(message=m)`, then `out.append({"role": m.role,
    "content": content})`, or as a pair of messages of the item's fields, `out.extend(({"role":
    "user", "content": r.ask}, {"role": "assistant", "content": r.answer}))` over
    `conversation.message_list[-5:]`; and the newest entries written one after another into one text,
    `text += f"<R>{m['content']}</R>"` for `m` in `history[-15:]` or `history[::-1][:15][::-1]`, are
    the cut, judged where a request carries that text)
    and a walk that stops at a bound through a method of the conversation's class that gives its
    messages newest first (`for q, a in chat.iter_pairs():`, the method asking for them
    `newest_first=True` or walking them reversed) are cuts too (a walk is reported where it walks,
    the test where it stops at its bound, `if used + n > max_tokens: ... break`, as a related
    location). A cut in a helper of its own (a
    filter, a memory class, a conversation manager) that returns the cut list, keeps it on the
    instance, writes it to storage for the next turn (`json.dump(messages[:1] + messages[1 +
    max(0, len(messages) - k):], f)`) or cuts the list it is handed in place is reported where it is cut, at info when no send call is linked to it; a cut rendered into
    text is judged only where a request carries that text. A slice that moves with a walk over the
    conversation's indices (`turns[max(0, i - w + 1):i + 1]` for `i` in `range(len(turns))`, in a
    generator that yields each slice to a loop sending it) is a window too. The newest items of a
    list an instance grows across turns that neither its name nor what is added to it says holds
    messages (`self.notes.append(note)`) are reported at info where a request sends them, not at
    all where none is linked (an event log whose newest entries a method returns).

    A kept conversation read as its newest items through a method of the object that keeps it,
    anywhere in the package (`history = self.memory.to_messages(name, start_index=-self.max_history)`,
    `self.store.get_last_k_messages(k)`, where the method slices the sequence its instance keeps,
    `self.messages[start:]` or `self.messages[-k:]`, and returns or walks what the slice yields;
    `self.get_messages(k)` reaches the method of its own class) is
    cut at the call, which chooses the count: info, there, the method's slice as a related location;
    a read of the newest message alone through it (`messages[-1]`, `len(messages)`) is none.
    A call that leaves the start at its default, gives a non-negative start or a count of one or two
    cuts nothing; a window cut in a function named for building a summary request's input
    (`_bound_summarize_input`) is no history cut: a one-shot summarizer reads it. So is a kept
    conversation cut through the remover of the object that holds it, by a memory class under a
    size test as messages are added (`while len(self.get_messages()) > n:
    self.msg_manager.pop_message(k)`, where `pop_message` pops `self.messages` at the index given,
    by default the first): info, there, the remover's pop as a related location. The messages of a
    cut each exported by a method of their own (`[m.model_dump() for m in history[-k:]]`), the
    oldest handed on as it is popped until the list fits (`pruned.append(messages.pop(0))`), a
    list field declared empty in a class body (`messages: List[Message] = []`,
    `Field(default_factory=list)`) that the methods grow, and a library window class reached
    through a parameter whose default is that class (`memory_cls=ChatMemoryBuffer`) are read as
    the same cut.

    A list known as the conversation by what it holds rather than by its name (its items read by
    their role, `records[0]["role_at_backend"]`, `m.role`, on it or on what it was taken from; the
    function annotated to return messages, `-> List[BaseMessage]`; a parameter it came from
    annotated as messages; a list the instance keeps whose items another method of the class reads
    by their role), cut to its newest items (`nodes[-k:]`, `items[::-1][:k][::-1]`) and
    handed back or kept on the instance through names, conversions, comprehensions and loops that
    append (`self._items[:] = kept`): info, where it is cut; a role compared only with another kind's
    (`u.role == "admin"`) is no evidence.

    A conversation kept in a bounded deque (`self.history = deque(maxlen=10)`), the conversation
    by its name or because a loop writes each item as a user turn and an assistant turn, is one
    too: info, where the bound is. So is a conversation an instance keeps that the method adding
    to it cuts (an older message removed under a size test, `if self._is_overflow():
    self._messages.pop(i)`, also through a method of the class, `await self.delete(oldest)`) or
    replaces on every add by a new list made from it (`self._messages = [SystemMessage(summary)]`),
    also a FIFO queue the class makes taken from its head while over a threshold (`put`, then
    `while self.history_queue.qsize() > n: self.history_queue.get()`) or a deque's `popleft()`:
    where it is cut, a warning when a request of the module sends that list as its history (related)
    and caches it, else info; the list is the conversation by its name or, whatever its name, because a
    method of its class turns its items one by one into messages with a role read from each item (an
    event queue popped from its head when over a limit). So are the rows of a stored conversation deleted but the newest
    (`DELETE FROM conversations WHERE ... message_index <= (SELECT MAX(message_index) - ? ...)`, `NOT
    IN (SELECT id ... ORDER BY ts DESC LIMIT ?)`, a table named for the conversation, in a class named
    for keeping one, `SQLChatStorage`): info, at the query. So is the stored conversation read back in
    whatever order the store gives by the read method of a message store (`get_messages`, `read` of
    `ConversationMessages`): SQL that selects its rows with no `ORDER BY`, `select(Row)` or
    `session.query(Row)` given no `order_by`, a document `find({...})` with no sort (also named through
    an adapter, `conn.execute("messages", "find", {...})`), a key-value range read
    (`values_in_range(...)`), where nothing in the method orders what it read and it reads more than
    one record: info, at the read (also made by a generic read helper of the package the method calls by
    name, `db.read_data("chats", filters)`: at the helper's read, the call related). So is a message merged into the caller's own message object (a walk of
    the conversation handed in that keeps each message itself, not a copy, and adds the text of the
    next one of the same role to the last kept, `merged[-1]["content"] += msg["content"]`): every
    call adds the text again to the conversation the caller keeps; info, where it is added.

    A conversation cut or rewritten where it is kept rather than where it is sent: a list held on
    an object replaced by its newer part (`self.messages = self.messages[-self.target:]`, also
    through names: `history = self.messages`, `kept = [system, *history[i:]]`, `self.messages =
    kept`), with a new message made there put before that part (a summary rewritten at each cut),
    its head deleted (`del chat.messages[:k]`, `chat.messages.pop(0)` in a loop until it fits a
    budget, `agent.messages.pop(1)` after a first message that is kept, or a method of the object
    that keeps the conversation called to remove its oldest turn, `self.planner.remove_message_at(1)`
    with `remove_message_at` popping the index from `self.messages`), or a list a function is handed
    rebound to its newer part until the prompt rendered
    from it fits (`while len(prompt) > max_length: events = events[1:]`). Reported where it is cut
    when the cut runs on every request once the limit is reached (in a loop until it fits, with no
    test by a method that adds to it, under a test whose bound is what it keeps, or by default: a
    margin between the bound and what it keeps whose default is 0, `if len(h) <= self.target +
    self.threshold: return`); a cut in steps (a block dropped at once, then the list grows again)
    is not reported. The list is the conversation by its name, by a keyword named for one it is
    handed on with (`events_history=state.last_events`) or, for a handed list, because the prompt
    is rendered again from it; other lists are not reported. A warning when a request of the
    module sends the same list as its history (related) and caches it; else info.

    A conversation handed to a call as its newest messages, by a keyword named for it (`chat_history=
    to_history(chat_messages[-10:])`), when the call is not read as a request: info, where it is cut.
    So is a conversation a function rebinds to its newest messages (`chat_history = chat_history[-k:]`,
    `messages = state.get("messages", [])[-30:]`, `contents = contents[start:]` with `start =
    starts[-self.keep]`, the k-th newest turn's index; the list named for the conversation or annotated
    `list[...Message]` / `list[...Content]`; also after its own first message kept, `messages =
    [messages[0]] + messages[-(limit - 1):]`) and then hands on: an argument of a call (`super().classify(
    text, chat_history)`), what it returns, or the object it was handed (`llm_request.contents =
    contents`), also as lists made from it message by message. A window only counted, logged or shown
    is not reported.

    The oldest messages of a kind removed or stripped beyond a limit (`excess = count - MAX_IMAGES`,
    then a walk of the conversation from its head that pops that many, `self.history.pop(i)`, or
    counts `excess` down as it strips their images) keep only the newest of that kind: info, where
    the excess is taken. So does a walk of the conversation newest first that counts the items of a
    kind and removes those past a limit from older messages (`seen += 1`, then `if seen > MAX_IMAGES:
    del msgs[i]["content"][j]`), or rebuilds it keeping a message of the kind whole only while the
    count is under the limit (`if seen < MAX_IMAGES: kept.append(msg)`, older ones left out or
    stripped): info, where the limit is tested. So do the newest indices of a kind kept (`keep =
    set(shots[-N:])` of the indices a walk of the conversation collects) when the conversation is then
    rebuilt or cut by whether an index is kept: info, where they are kept; and so do the newest keys of
    the conversation's groups kept (`keep = set(ids[-self.keep_last_groups:])` of the group ids derived
    from the messages) when the messages of the others are then marked excluded or removed
    (`if g in keep: continue`, then `set_excluded(message, True)`): info, where the keys are kept.

    A call named for compacting the conversation that keeps its newest few items whole
    (`compact_messages(items, keep_recent_tool_outputs=3)`) rewrites the older ones on every call:
    info, where the call is. So does a conversation handed to a compaction strategy the configuration
    chooses (`await apply_compaction(loaded, strategy=self.compaction_strategy)`, `await
    self.history_reducer.reduce(history)`: a strategy that is an attribute of the instance or a
    parameter, in a call named for compacting): whatever strategy is configured runs on every turn
    there; info, where the call is. A helper that hands on its own conversation and strategy
    parameters is a relay, reported where its callers call it. A function named for the history that
    hands back as it a list whose first message holds the answer of a call given the conversation
    (`summary = self.model.chat([{"role": "user", "content": f"Summarize: {history}"}])`, then
    `history = [{"role": "system", "content": summary}]; return history`) makes a new summary on
    every call: info, where the list is made, the call related (the list is no request of its own).

    An older message of a conversation a function is handed rewritten in place in a loop, picked by
    a test (`if newest[key] != i: self._elide(messages, i)`, where `_elide` writes
    `messages[i]["content"]`; or until a size fits): info, where the rewrite is called. So is every
    message of a conversation an object keeps rewritten in place from its own text (`for m in
    self.agent.messages: ... part["text"] = re.sub(p, "", part["text"])`) by a method that then adds
    a new message to it (`self.strip_ids()`, then `self.agent.add_message(text)`): the new message
    is sent as written and rewritten on the next turn; info, where the rewrite runs. So is a message
    of a conversation a function is handed (named for it, or annotated `list[types.Content]`) that
    its walk writes in the caller's own list or message object: picked by whether a value read from
    it is in a collection the caller hands in or the instance holds (`if name in active_skills:
    continue`, then `contents[i] = content.model_copy(...)`), or a field written back from a call
    given what that field holds (`result = parser.parse(m["output"]["image_url"])`, then
    `m["output"]["image_url"] = result.image`: processed again on every call); info, where it is
    written. So is a message older than the newest of a conversation an object keeps, written in
    place by its place from the end (`convo.messages[-2]["content"] = re.sub(...)`): info, there. A copy, a conversion of every message from what is not its own field, a test by the
    message's own kind alone and the newest message alone are not.

    A conversation replaced by the result of a call named for trimming it to fit a bound
    (`messages, *_ = trimmed_messages_to_fit(messages, max_bytes=n)`, also handed it by a keyword
    named for it, `messages = _truncate_input_messages_roughly(messages=messages, max_tokens=n)`), or whose result the
    function hands back (`result = trim_history_messages(messages, max_tokens=n)`, `return
    result`), unless it keeps the first messages (`strategy="first"`): info, where the call is.

    The newest messages of a conversation read back from storage, cut where they are read: a
    function named for reading the conversation (`def get_messages(self, session_id, limit=100)`,
    `load_history`) that returns the newest items of what it reads (`raw[-limit:]`, a list
    built from the rows, sliced), or a slice of what a call named so returns (`memory.get_messages(
    key)[-3:]`), also rebuilt message by message from its own fields (`[{"role": m["role"],
    "content": m["content"]} for m in recent]`, put before another list of messages): reported where
    it is cut, a warning when a request sends it as its history, else info. A count a caller leaves
    at a default of none (`limit=None`) cuts nothing there.
    So does the generic read method of a message store (`get`, `load` of a class named for a
    conversation or a memory, `RamChatHistory.get(self, session_id, top_k=10)`, or annotated to
    return messages, `-> list[Message]`), also when what it returns converts each kept item one for
    one (`for r in rows[-k:]: out.append(convert(r))`); and one that asks its storage for the newest
    `k` records newest first and turns them back into time order (`{"size": k, "sort": [{"ts":
    {"order": "desc"}}]}`, `ORDER BY ts DESC LIMIT ?`, `.order_by(T.ts.desc()).limit(k)`,
    `q = FilterQuery(num_results=k)` then `q.sort_by("ts", asc=False)`, also in a history class's
    `get_recent(top_k)`; then `rows.reverse()`), or a graph query that walks a path of at most `k`
    links back from the newest message and turns it around (Cypher `p=(last)<-[:NEXT*0..{window}]-()
    ... reverse(nodes(p))`, filled by `.format(window=self._window)`, in a store's `messages`
    property too): info, where the limit is. A read that puts the
    conversation in time order and then turns it around (`sorted(rows, key=<a time>)` then
    `rows.reverse()`) returns it newest first, every new message at its head: info, where it is
    turned.

    A conversation loaded from storage as its newest turns (a call named for a session or a history
    with `last_n=10` or `max_messages=k`, or only `limit=n` when the read is named for messages, a
    session or a chat and kept under a name of the conversation, `history = await
    _session_get_items(session, limit=n)`, or for reading the history with a count of its length,
    `chat_box.filter_history(history_len=10)`) is a window chosen there: info, where the keyword is (the loader's cut is not
    read, and the request that sends it is not linked); one a helper hands its own parameter on as
    that count (`def get_messages_history(history_len): ... filter_history(history_len=history_len)`)
    is chosen where the helper is called with a count, in its module or in another of the package
    (`get_messages_history(ctx.get("history_len", 3))`). A token budget given to an OpenAI
    Assistants run (`max_prompt_tokens=25000`, truncation not disabled) is one too: the server
    drops the thread's oldest messages on every run once it is longer: info, where the budget is.
    An adapter for the Responses API that moves every system message of the conversation,
    wherever it is, into `instructions` (which precede all input items) rewrites the head of the
    request when a later system message is added: info, where the text is moved.
    So does a converter that puts every system message it meets at the head of the list it builds
    (`out.insert(0, system)` in the branch of a walk over the conversation that tests for one, the
    other messages appended), or joins the system messages before the rest (`[m for m in msgs if
    m["role"] == "system"] + [m for m in msgs if m["role"] != "system"]`): info, where it moves them.
    So does an adapter for an API whose system prompt is a field before all messages (Anthropic's
    `system`, Gemini's `system_instruction`) that joins the text of every system message it meets
    in a walk over the whole conversation into that field (no test of the position, no error for
    a later one): info, where the text is added. So does one that splits the conversation by two
    filters (`[m for m in messages if _is_instruction_message(m)]`, a test of its own that picks
    system messages, and the same with `not`) and hands the system part whole to a call whose
    value becomes that field (`kwargs["instructions"] = flatten(system_messages)`): info, at the
    filter. A system message inside the walk handed to a helper the walk defines is moved all
    the same (the helper's `return` does not stop the walk).
    A walk that writes the joined system text into the last message it built instead
    (`out[-1]["content"] = system + sep + out[-1]["content"]`) gives the newest message content the
    kept conversation does not hold: the instructions are never cached and the previous newest
    message is re-sent without them: info, where the text is added.

    A window kept by an agent library's memory or context class that the module configures and
    hands to what sends the conversation (LlamaIndex `ChatMemoryBuffer.from_defaults(token_limit=
    3000)` and `ChatSummaryMemoryBuffer`, an agent made by `worker.as_agent()` with its default
    memory of 3,000 tokens, LangChain `ConversationBufferWindowMemory(k=5)`,
    `ConversationTokenBufferMemory`, `ConversationSummaryBufferMemory`, `ConversationSummaryMemory`
    (no limit: its summary of the whole conversation is rewritten after every exchange) and a `trim_messages(
    max_tokens=...)` runnable, AutoGen `BufferedChatCompletionContext`,
    `TokenLimitedChatCompletionContext` and `HeadAndTailChatCompletionContext`, Semantic Kernel
    `ChatHistoryTruncationReducer` and `ChatHistorySummarizationReducer`; what each keeps and its
    defaults are in `promptlint/profiles/history_windows.toml`) is reported where it is configured:
    a warning when the conversation goes through it across calls (handed to an agent, a chain or
    an engine under the keyword it takes it by, `memory=`, `model_context=`; set as an agent's
    memory; or cut by the window's own method, `memory.get()`, `history.reduce()`) and its limit
    is a constant that ordinary conversations reach (1,024 to 8,192 tokens, 5 to 50 messages, 3
    to 25 exchanges); info when the limit is not a constant, is smaller or larger than that, is
    sized from the model's context window (a model given and no limit: it cuts only near the
    context limit, but then on every turn), when the summary that stands for the history is
    rewritten every turn (`ConversationSummaryMemory`), or when the window is only handed on (by
    position, under another name, returned by a getter; what takes it returned in a tuple is
    returned). Not reported: a window cut in steps (LlamaIndex `Memory`, which flushes blocks of
    `token_flush_size` tokens; a reducer given a `threshold_count`), one that keeps the oldest messages
    (`strategy="first"`), one built and used for a single call (a summary memory of a one-shot
    request), one nothing sends a conversation through, and the unbounded buffers.

    A running summary an instance rewrites as its conversation keeps only its newest part (`self.summary =
    self.summarize(self.summary, runs[: len(runs) - self.offset])`, or the messages popped from its head
    in a `while` loop folded into it), sent as a message before that conversation by another method
    of the class (`stack.add_user_message(self.summary)`, then a loop over the kept runs): the first
    message of the history changes each time a turn is folded in: info, where the summary is
    rewritten, the message made from it as a related location.

    A conversation converted for the request by a test of the clock (an assistant's audio sent by
    its id until `time.time()` passes its expiry, then as its transcript) is rewritten too, once
    per such message when its time passes: info.

    Messages older than the newest few rewritten (their content replaced by a placeholder: `if i <
    len(messages) - keep: m["content"] = "(omitted)"`, or an older copy of what a newer message
    shows again, found walking newest first) are a cut too: the boundary moves every turn; so is
    content given to a copy of only the newest message of a kind (`if not done and m["role"] ==
    "assistant": new = dict(m); new["reasoning"] = last; done = True`, walking newest first): the
    next turn sends that message without it. So is a loop (or a comprehension) that builds the
    messages rendering each item one way among the newest and another way older, by its index or
    a counter compared with a value made from the list's length (`view = step.short_view() if n <
    n_obs - keep else step.llm_view()`): info, where the items are told apart, also in the messages
    a helper returns with no request linked to it. So is such a loop that gives only the newest
    items something more beside their own rendering (`if idx == last_bot: history += f"#
    {event['note']}"`, then `history += f"bot {event['intent']}"`), and a function named for the
    conversation (`get_colang_history`) that returns the text such a loop over its parameter
    builds: info, where the items are told apart (the request that places the text is not linked);
    so is, whatever its name, one walking a list named for the conversation or one the instance
    grows (`flatten()` over `self.groups`, `is_tail = i >= len(self.groups) - keep`), not one named
    for display, logs or a summary. Info too: older messages of a conversation the function does not
    own written in place by their place from the end (`for m in self.history[:-2]: m["content"] =
    "[omitted]"`; `seen += 1; if seen > keep:` newest first), at the walk's first write; a field
    of a sent message cleared after the send (`messages[-1]["images"] = None`), at the write; a
    conversation store that gives each message an expiry under its own key (`ttl=self.ttl`), or
    stores a message field by field without its tool calls and rebuilds messages from the records.
    A function that writes the kept conversation back without the messages it is handed
    (`replace_context_messages(ctx, [m for m in get_context_messages(ctx) if m.id not in ids])`,
    `ids` made from its parameter) removes messages from anywhere in it: info, where they are
    left out, and where a caller hands it messages chosen by a test (`pipe(get_context_messages(ctx),
    filter(is_stale), list, partial(remove_context_messages, ctx))`).
    A function that rebuilds the conversation from stored messages with a content field of each
    copy cleared (`msg = m.model_copy(); msg.context = None; messages.append(msg)`) re-sends a
    message without what it carried when it was the newest: info, where the field is cleared.
    A newest-first walk that keeps only the newest item of a kind and skips the older ones (`if
    "<code>" in m.content and code is not None: continue`, where `code` is set on the first kept;
    `if m.name in seen: continue`) drops an older message from the middle of what is sent each
    time a newer one of its kind comes: a cut too, where it skips.
    A function that walks the conversation it is handed and writes every message of a role with a
    value of another of its parameters (`if msg["role"] == "user": msg["content"] = [text,
    {"image_url": {"url": url}}]`, `url` from `url_variables`; or, in a method, the object's
    changing state: `lang = self.detector.dominant_language`, also written through the walk's index,
    `messages[i]["content"] = note + m["content"]`) re-sends the older messages with this call's
    value: info, where the message is written. A prompt a
    class assigns in its body (`_prompt = PromptTemplate(...)`, `examples = [...]`), added to through
    `self` by a method (`self._prompt.template = self._prompt.template + ...`, `self.examples.append(x)`)
    grows for every instance, which all share it: info, where it is added.
    The newest message of a conversation an instance keeps, re-made for the request on a copy (`req =
    fmt(out[-1]["content"]); del out[-1]; out += req.messages`, `out` copied from
    `self.conversation_history`), is re-sent as kept on the next turn: info, at the call.
    The newest message of a conversation a function is handed (or the newest of a role, picked
    walking newest first, `for m in reversed(messages): if m["role"] == "user": ...; break`, or the
    trailing tool results, `while i > 0 and msgs[i - 1]["role"] == "tool": i -= 1`) given content of
    the function's own (a text constant, another parameter, a value of the instance: `m["content"] =
    [{"type": "text", "text": reminder}, *m["content"]]`) on a copy of it, or on a list converted
    for the request (bound from a call named for a conversion, `_messages_to_bedrock(messages)`, in
    the function or in a caller that hands it in), is sent without that content once it is history:
    info, where it is written. A cache breakpoint added so is no content, and a write into the
    caller's own message is kept there.
    """

    code = "PRM105"
    brief = ("a conversation history whose front changes from turn to turn (a sliding window of its newest "
             "messages, messages rewritten or moved ahead of it)")
    fix_title = "Send the whole history, or cut it in steps (compact the oldest half at a limit)"

    def check_module(self, module):
        """Info at a keyword that loads a conversation as its newest turns (`get_session(...,
        last_n=10)`: `python/history_loads.py`)."""
        for kw in module.facts.get("history_windows", ()):
            message = (f"The conversation is loaded as its newest turns here (`{kw.arg}=`): once it is longer, the "
                       "oldest turn drops out on every new turn, so the history sent after it never matches the "
                       "prefix cached by the previous request (the request that sends it is not linked here: how "
                       "much it costs is not known)")
            yield self.diagnostic(message, module.span(kw.value), severity=Severity.INFO)
        for key, message in CUT_MESSAGES.items():  # a cut reported where it is, nothing related
            body, advice = split_advice(message)  # (its own advice as the help, not the rule's)
            for node in module.facts.get(key, ()):
                yield self.diagnostic(body, module.span(node), severity=Severity.INFO, advice=advice or None)
        for key, (message, note) in CUT_WITH_RELATED.items():  # a cut and the line that makes it
            body, advice = split_advice(message)
            for at, related in module.facts.get(key, ()):
                yield self.diagnostic(body, module.span(at), severity=Severity.INFO, advice=advice or None,
                                      related=[Related(module.span(related), note)])
        for write, related, how in module.facts.get("newest_marks", ()):
            where = ("on a copy of it" if how == "copy" else "on the list converted for this request")
            message = ("The newest message of the conversation (or the newest of a role) is given content of this "
                       f"function's own here, {where}: once the next turn is added it is history and is sent as "
                       "the conversation holds it, without that content, so the history differs from the previous "
                       "request's from that message on and it and the answer after it are read uncached on every "
                       "turn (older turns still hit; whether the callers re-send the conversation is not followed "
                       "here: how much it costs is not known); send that content after the conversation, or keep "
                       "the message as it was sent")
            note = "the copy made here" if how == "copy" else "the list converted for the request here"
            yield own_advice(self, message, module.span(write), related=[Related(module.span(related), note)])
        for write, entry, param, role in module.facts.get("role_stamps", ()):
            roles = " or ".join(f"`{r}`" for r in role.split("/"))
            held = param.startswith("self.")
            whose = "a value the object holds and changes" if held else "a value of this call"
            when = (f"when `{param}` changes" if held else f"whether callers pass another `{param}`")
            message = (f"Every {roles} message of the conversation this function is handed, the older ones (and any "
                       f"example) too, not only the newest, is written here with `{param}`, {whose}, not "
                       "of the message: when a call brings another value, the conversation differs from the previous "
                       "request's from its first such message on, and everything after it is read uncached "
                       f"({when} is not followed here: how much it costs is not known); add "
                       "the value to the newest message only, and re-send older messages as they were sent")
            yield own_advice(self, message, module.span(write),
                            related=[Related(module.span(entry), f"`{param}` enters the message here")])
        for added, held, name, cls in module.facts.get("shared_prompts", ()):
            message = (f"`{name}` is assigned in the body of the class `{cls}`, so one object serves every instance, "
                       "and this adds to it through `self`: each instance made (or each call) adds again to that "
                       "shared object, so the prompt made from it grows by one addition each time and differs from "
                       "the previous one where the additions start, and everything after that is read uncached "
                       "(how often this runs is not followed here: how much it costs is not known); copy it for "
                       f"the instance first (`self.{name} = copy(...)`) or build the text where it is used")
            yield own_advice(self, message, module.span(added),
                            related=[Related(module.span(held), "the object every instance shares, made here")])
        for call, (kept, owner) in module.facts.get("chosen_removals", ()):
            message = ("Messages of the kept conversation chosen by a test are handed here to a function that "
                       "leaves them out of it wherever they are and writes the rest back: the history re-sent next "
                       "differs from the previous request's from the first removed message on, and everything "
                       "after it is read uncached (when this runs is not followed here: how much it costs is not "
                       "known); leave sent messages in place and add a note after them, or remove only at a "
                       "compaction")
            yield own_advice(self, message, module.span(call), related=[Related(owner.span(kept), "the messages left out here")])
        for call, helper, back in module.facts.get("history_trims", ()):
            message = (f"The conversation is handed to `{helper}` here, which keeps only its newest messages (or the "
                       "newest of a kind) up to the limit given here and writes what it keeps back: once the "
                       "conversation holds more, every new message pushes an older one out of it, so the history "
                       "sent after it differs from the previous request's from that message on (the request that "
                       "sends it is not linked here: how much it costs is not known)")
            yield self.diagnostic(message, module.span(call), severity=Severity.INFO,
                                  related=[Related(back, "the kept messages written back here")])
        yield from kept_call_findings(self, module)
        yield from system_move_findings(self, module)
        yield from kept_window_findings(self, module)
        for message, span, keywords in (*stored_cut_findings(module), *helper_read_findings(module),
                                        *shaped_window_findings(module)):
            yield self.diagnostic(message, span, **keywords)
        yield from library_window_findings(self, module)
        for budget in module.facts.get("prompt_budgets", ()):
            message = ("A token budget for an Assistants run (`max_prompt_tokens`): once the thread is longer, the "
                       "run drops its oldest messages to fit (`truncation_strategy` \"auto\"), on every run from then "
                       "on, so the thread sent after the instructions never matches the prefix cached by the previous "
                       "run (how long the threads grow is not known here)")
            yield self.diagnostic(message, module.span(budget), severity=Severity.INFO)

    def check_layout(self, layout: PromptLayout):
        if layout.clock_tests:  # one cause: the first test, the others as related places
            first, *others = layout.clock_tests
            message = ("A request that replays the conversation is built by a test of the clock here: a message "
                       "sent one way while the time is before a limit is sent another way after it, so the "
                       "history from that message on differs from what was cached (once per such message)")
            yield self.diagnostic(message, first, severity=Severity.INFO, prompt=layout.id,
                                  related=[Related(s, "also chosen by the clock here") for s in others])
        for index, part in enumerate(layout.parts):
            for seg in part.segments:
                if seg.window is None or layout.source != "python-call" and not part.is_history \
                        and not (part.role != "prompt" and _apart(seg)):
                    continue  # rendered into the text of a prompt no request is linked to: judged where one sends it
                if seg.unconfirmed and layout.source != "python-call":
                    continue  # a list not known as the conversation that no linked request sends: no evidence of a cut conversation
                cached = layout.provider not in _OPT_IN or layout.auto_cache or any(
                    p.breakpoints for p in layout.parts[index:])
                # a cut with no send call linked, or of a list not known as the conversation: info
                known = layout.source == "python-call" and seg.kind is Kind.HISTORY and not seg.unconfirmed
                severity = Severity.WARNING if cached and known and not seg.window_off else Severity.INFO
                today = "" if cached else " (no cache breakpoint on or after it: nothing of it is cached today)"
                if seg.window_off:
                    today += (f" (only when `{seg.window_off}` is set: it is off by default, and then the whole "
                              "history is sent)")
                alone = "" if layout.source == "python-call" else (
                    " (the request that sends it is not linked here: how much it costs is not known)")
                if seg.unconfirmed:
                    alone += (" (it grows across turns, but neither its name nor what is added to it says it holds "
                              "the conversation's messages: how much it costs is not known)")
                what = "The list `{}`" if seg.unconfirmed else \
                    "The conversation history `{}`"
                message = (f"{what.format(seg.expr)} is cut here{today}{alone}: once a conversation "
                           "is longer than the limit, messages drop out of it or are rewritten on every turn "
                           "(the oldest, some in its middle, older ones shortened or replaced, or the newest of a kind "
                           "given content the kept conversation does not hold), so the "
                           "history after the first one changed differs on every request and is never read "
                           "from the cache; send it whole, or cut it in steps so it only changes at a cut")
                stop = [Related(seg.window_stop, "the walk stops here at its bound: the messages older than "
                                "the one reached here are left out")] if seg.window_stop else []
                yield self.diagnostic(message, seg.window, severity=severity, prompt=layout.id, related=stop)


def _apart(seg) -> bool:
    """True for the marker of a conversation written into a message with its older turns apart from
    the newest (a stable segment of no text that carries where: `python/flow/rewrites.py`): in a
    message list a function returns, it is sent as written."""
    return not seg.text and seg.kind is Kind.UNKNOWN and seg.volatility is Volatility.STABLE
