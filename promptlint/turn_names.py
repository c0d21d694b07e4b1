"""What the name of a template placeholder says it holds: the conversation history, content
retrieved or recalled for the current turn, the user's message, few-shot examples. Hints, not
proof (docs/policies.md, Policy 7): a rule that reads them says the names are its evidence.

A placeholder is named by its source as the extraction keeps it (`Segment.expr`): `{{ history |
colang }}`, `history | colang` (a Jinja tag's inside), `{chat_history}`, `$context`, `for turn in
history` (a loop: the iterated value), `context.relevant_chunks` (the last attribute). Names are
compared by their words (`relevantChunks`, `relevant_chunks` -> relevant, chunks).
"""
from __future__ import annotations

import re
from functools import lru_cache

from . import classify
from .model import Kind, PromptLayout

#: Words that say how a value is written, not what it is (`context_str`, `formatted_history`).
_FORM_WORDS = {"str", "string", "text", "txt", "formatted", "rendered", "block", "section"}

#: Words of a name that say a conversation: any name with `history` (not a count or a bound of it:
#: `history_length`, `max_history`), and the names of `classify.HISTORY_NAMES` and a few more.
_CONVERSATION_NAMES = classify.HISTORY_NAMES | {"chat_log", "conversation_log", "chat_transcript",
                                                 "conversation_messages", "dialog_turns", "dialogue_turns"}
#: A conversation named with a word that says it is the one going on, whole (`current_conversation`).
_CONVERSATION_HEADS = {"conversation", "transcript", "dialog", "dialogue"}
_WHOLE = {"current", "full", "entire", "whole", "ongoing", "readable", "chat"}
_NOT_CONVERSATION = {"length", "len", "size", "count", "limit", "max", "min", "num", "n", "window", "token",
                     "tokens", "summary", "summaries", "id", "ids", "key", "keys", "file", "path", "enabled",
                     "flag", "depth", "start", "end", "index", "cutoff", "sample", "example", "examples"}

#: What content retrieved for the turn is called (the last word of the name, its form words left out).
_RETRIEVED_HEADS = {"context", "contexts", "chunk", "chunks", "document", "documents", "doc", "docs", "passage",
                    "passages", "snippet", "snippets", "memories", "knowledge", "evidence", "results", "hits"}
#: Words before the head that keep it retrieved (`relevant_chunks`, `rag_context`, `kb_docs`); any other
#: word makes the name something else (`system_context`, `tool_docs`, `domain_knowledge`, `user_context`).
_RETRIEVAL_WORDS = {"relevant", "retrieved", "retrieval", "rag", "search", "kb", "knowledge", "context", "doc",
                    "docs", "document", "documents", "chunk", "chunks", "extra", "additional", "recalled", "related",
                    "similar", "top", "found", "fetched", "matched", "matching", "vector", "semantic", "web",
                    "query", "source", "sources", "reference", "references", "supporting", "memory", "long", "term"}
#: Heads that need one of these before them to say retrieval (`search_results`, not `results`).
_QUALIFIED_HEADS = {"results", "hits", "evidence"}
_RETRIEVING = {"relevant", "retrieved", "retrieval", "rag", "search", "kb", "recalled", "similar", "matched",
               "matching", "vector", "semantic", "web", "query", "fetched", "found"}
#: Few-shot examples: retrieved when a word of the name says they were picked for the turn
#: (`relevant_examples`, `similar_examples`); otherwise a fixed list as often as not.
_EXAMPLE_HEADS = {"examples", "example", "shots", "demos", "demonstrations"}
_PICKED = _RETRIEVING | {"selected", "dynamic", "top", "related", "nearest", "closest"}
#: Instructions given with one run of an agent on top of its own (`additional_instructions` of a
#: run, `extra_instructions`, `turn_instructions`): the caller may change them with each run.
_RUN_INSTRUCTION_HEADS = {"instructions", "instruction"}
_PER_RUN = {"additional", "extra", "run", "turn", "dynamic", "per"}

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_FOR = re.compile(r"^\s*for\s+.+?\s+in\s+(.+)$", re.S)
_CHAIN = re.compile(r"[A-Za-z_][\w.]*")
_KEYWORDS = {"if", "not", "and", "or", "is", "in", "none", "true", "false", "loop"}


@lru_cache(maxsize=4096)
def placeholder_name(expr: str) -> str:
    """The name a placeholder reads, from its source: the first name of its expression before any
    filter, its last attribute (`{{ context.relevant_chunks | trim }}` -> relevant_chunks), the
    iterated value of a loop (`for m in messages` -> messages); '' when there is none (a call,
    a literal)."""
    text = (expr or "").strip()
    if text.startswith("{%") or text.startswith("{{") or text.startswith("${"):
        text = text[2:]
    elif text.startswith(("{", "$")):
        text = text[1:]
    text = text.rstrip("}%").strip().lstrip("-+").strip()
    loop = _FOR.match(text)
    if loop is not None:
        text = loop.group(1)
    text = text.split("|", 1)[0].strip()
    if "(" in text:
        return ""  # a call's result, not a named value
    for chain in _CHAIN.findall(text):
        last = chain.rstrip(".").rsplit(".", 1)[-1]
        if last and last.lower() not in _KEYWORDS:
            return last
    return ""


#: A serialization of one named value, written in the code: `json.dumps(docs, indent=2)`,
#: `yaml.safe_dump(docs)`, `pprint.pformat(docs)`: its text is that value's content.
_SERIALIZED = re.compile(r"^(?:json\.dumps|(?:yaml\.)?(?:safe_)?dump|(?:pprint\.)?pformat|repr)\(\s*"
                         r"(?:\*?\s*)?([A-Za-z_][\w.]*)\s*(?:[,)])")


def serialized_name(expr: str) -> str:
    """The name a serialization of one value reads (`json.dumps(ctx.documents, indent=2)` ->
    documents); '' for another expression."""
    m = _SERIALIZED.match((expr or "").strip())
    return m.group(1).rsplit(".", 1)[-1] if m else ""


def _words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w.lower() for w in _WORD.findall(spaced.replace("_", " "))]


def _content_words(name: str) -> list[str]:
    return [w for w in _words(name) if w not in _FORM_WORDS]


@lru_cache(maxsize=4096)
def conversation_named(name: str) -> bool:
    """True for a name that says the conversation so far: `history`, `chat_history`,
    `conversation`, `messages`, `transcript`, `history_str`, `formatted_history`; not a count or
    bound of it (`history_length`, `max_history_turns`), nor example conversations
    (`sample_conversation`, `example_messages`)."""
    if not name:
        return False
    words = _content_words(name)
    if not words or set(words) & _NOT_CONVERSATION:
        return False
    if "history" in words:
        return True
    if len(words) > 1 and words[-1] in _CONVERSATION_HEADS and set(words[:-1]) <= _WHOLE:
        return True  # `current_conversation`, `full_transcript`
    return "_".join(words) in _CONVERSATION_NAMES


@lru_cache(maxsize=4096)
def turn_content(name: str) -> str | None:
    """What a name says a placeholder holds for the current turn: "retrieved" (content retrieved
    or recalled for it: `context`, `relevant_chunks`, `retrieved_docs`, `memories`, `knowledge`,
    `search_results`), "instructions" (instructions given with this run on top of the agent's own:
    `additional_instructions`, `extra_instructions`), "user" (the user's message: `question`, `user_input`), "examples" (few-shot
    examples picked for it by their name: `relevant_examples`, `similar_examples`), "few-shot"
    (examples that may be fixed or picked: `examples`), or None (`system_context`, `tool_docs`,
    `domain_knowledge`, `sample_conversation`)."""
    if not name or name.startswith("__") and name.endswith("__"):
        return None  # (`attr.__doc__`: Python's own attribute, a docstring fixed in the code)
    found = classify.classify_name(name)
    if found is not None and found[0] is Kind.USER_INPUT:
        return "user" if "user's message" in found[3] else "retrieved"
    words = _content_words(name)
    if not words:
        return None
    head, before = words[-1], words[:-1]
    if head in _RUN_INSTRUCTION_HEADS:
        return "instructions" if before and set(before) <= _PER_RUN else None
    if head in _EXAMPLE_HEADS:
        if set(before) & _PICKED:
            return "examples"
        return "few-shot" if set(before) <= {"few", "shot", "fewshot", "the", "input", "output"} else None
    if head not in _RETRIEVED_HEADS or not set(before) <= _RETRIEVAL_WORDS:
        return None
    if head in _QUALIFIED_HEADS and not set(before) & _RETRIEVING:
        return None
    return "retrieved"


#: Words that name a count of steps, turns or rounds (`step`, `turn_number`, `iteration_count`).
_COUNTER_WORDS = {"step", "iteration", "turn", "round", "attempt", "epoch", "trial", "retry"}
_COUNTER_PLURALS = {"steps", "iterations", "turns", "rounds", "attempts", "epochs", "trials", "retries"}
#: Words beside a counter word that keep the name a counter of the current call (`current_step`,
#: `step_number`, `turn_idx`); any other (`max_steps`, `num_turns`, `step_size`, `turn_prompt`) does not.
_COUNT_FORMS = {"number", "count", "index", "idx", "no", "nr"}
_COUNTING = re.compile(r"^\s*(?:len\(\s*([A-Za-z_][\w.]*)\s*\)|([A-Za-z_][\w.]*)\s*\|\s*(?:length|count)\b)")


@lru_cache(maxsize=4096)
def counter_named(name: str) -> bool:
    """True for a name that says the number of the current step, turn or round of a run: `step`,
    `turn_number`, `current_iteration`, `round_idx`, `steps_count`; not a bound or a setting
    (`max_steps`, `num_turns`, `total_rounds`, `step_size`), nor a list of steps (`steps`)."""
    words = _words(name)
    if not words:
        return False
    counters = [w for w in words if w in _COUNTER_WORDS or w in _COUNTER_PLURALS]
    if len(counters) != 1:
        return False
    rest = set(words) - set(counters)
    if counters[0] in _COUNTER_PLURALS:
        return bool(rest) and rest <= _COUNT_FORMS  # `steps_count`, not `steps`
    return rest <= _COUNT_FORMS | {"current", "cur", "this"}


@lru_cache(maxsize=4096)
def counted_name(expr: str) -> str:
    """The name of the value whose length a placeholder writes (`{{ step_history|length + 1 }}`,
    `{{ messages | count }}`, `{len(history)}` -> step_history, messages, history: its last
    attribute), '' for any other placeholder (a loop, a plain value)."""
    text = (expr or "").strip()
    if text.startswith(("{{", "{%")):
        text = text[2:]
    elif text.startswith("{"):
        text = text[1:]
    text = text.lstrip("-+").strip()
    if _FOR.match(text):
        return ""
    m = _COUNTING.match(text)
    if m is None:
        return ""
    return (m.group(1) or m.group(2)).rsplit(".", 1)[-1]


def written_conversation(layout: PromptLayout) -> tuple[int, int] | None:
    """(part index, segment index) where a prompt file or template writes the conversation into its
    own text (the first placeholder named as the conversation: `{{ current_conversation }}`,
    `{{ chat_history }}`, not a count of it), or None. Such a prompt carries the conversation itself (a one-shot request
    over a transcript): the request adds no conversation after it, so a value placed after that
    placeholder costs only the static text that follows it in this prompt (a name is the evidence,
    Policy 7; it only bounds what the prompt is assumed to be followed by)."""
    for pi, si, _part, seg in layout.segments():
        if seg.is_static or seg.kind is Kind.CONDITIONAL or counted_name(seg.expr):
            continue
        if seg.kind is Kind.HISTORY or conversation_named(placeholder_name(seg.expr)):
            return (pi, si)
    return None
