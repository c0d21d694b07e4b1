"""What a name says it holds, read from its words (`buildSystemPrompt`, `SYSTEM_PROMPT` -> system,
prompt): prompt text, a list of tool definitions, the role of a message. Facts for the candidate
finders and every module that reads a name's words."""
from __future__ import annotations

import re
from functools import lru_cache

_PROMPT_WORDS = {"prompt", "prompts", "system", "instruction", "instructions", "preamble", "persona", "sysprompt"}

_FUNC_WORDS = _PROMPT_WORDS | {"messages"}


@lru_cache(maxsize=65536)
def name_parts(name: str) -> tuple[str, ...]:
    """The lower-case words of an identifier in their order (`buildSystemPrompt`, `SYSTEM_PROMPT`
    -> system, prompt). Cached: the same names are asked again and again (152,619 calls on the
    corpus, 1 of 164 profiled seconds in the two patterns)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return tuple(w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w)


@lru_cache(maxsize=65536)
def words(name: str) -> frozenset[str]:
    return frozenset(name_parts(name))  # (the set of `name_parts`)


#: Words of a summary request (a one-shot request whose input is the conversation, not replayed).
_SUMMARY_WORDS = frozenset({"summarize", "summarise", "summary", "summarizer", "summariser", "summarization",
                            "summarisation", "recap"})
#: Words of the input of a request (what a function named so builds is sent, not kept).
_INPUT_WORDS = frozenset({"input", "inputs", "prompt", "request", "payload", "query"})


def summary_input_named(name: str) -> bool:
    """True for a function named for building the input of a summary request (`_bound_summarize_input`,
    `build_summary_prompt`): what it cuts is what a one-shot summarizer reads, not the conversation
    re-sent every turn (a summary written back before a window is not this: `summarize_history`)."""
    found = words(name)
    return bool(found & _SUMMARY_WORDS) and bool(found & _INPUT_WORDS)


def prompt_named(name: str, functions: bool = False) -> bool:
    """True when a word of the name says prompt text (`system_prompt`, `INSTRUCTIONS`; not `systemd`)."""
    return bool(words(name) & (_FUNC_WORDS if functions else _PROMPT_WORDS))

_TOOL_WORDS = {"tool", "tools"}

#: Words after a name's last tools word that say a tool's use, not definitions (`tool_call_id`, `tool_results`,
#: `tool_stats`: counts of its calls), or where tools are loaded from (`tool_files`, `tool_modules`).
_TOOL_USE_WORDS = {"call", "calls", "called", "result", "results", "choice", "id", "ids", "output", "outputs",
                   "response", "responses", "message", "messages", "part", "parts", "return", "returns", "args",
                   "arguments", "input", "inputs", "error", "errors", "event", "events", "round", "rounds", "use",
                   "uses", "usage", "execution", "status", "stats", "statistics", "metrics", "counts", "counter",
                   "counters", "histogram",
                   # where tools are loaded from, not their definitions (`tool_files`, `tool_modules`, `tools_dir`)
                   "file", "files", "path", "paths", "dir", "dirs", "directory", "directories", "folder", "folders",
                   "module", "modules", "package", "packages"}

#: First words of a flag, a count or a function that runs a tool (`use_tools`, `max_tool_rounds`, `run_tool`).
#: Words after a singular `tool` that name one parameter of a tool (`tool_param(hint, value)` converts a
#: call's argument), not a list of tool definitions (`tools_param` is one: the plural names the list).
_ONE_TOOLS_PARAMETER = {"param", "params", "parameter", "parameters", "value", "values"}

_TOOL_NOT_LIST_FIRST = {"use", "has", "have", "is", "enable", "enabled", "disable", "allow", "should", "can", "no",
                        "num", "n", "max", "min", "count", "run", "execute", "call", "invoke", "handle", "dispatch"}


@lru_cache(maxsize=65536)
def tools_named(name: str) -> bool:
    """True when the name says a list (or registry) of tool definitions: a tools word not followed
    by a word of a tool's use (`tools`, `self._tools`, `build_tool_specs`, `tools_param`; not
    `tool_call_id`, `tool_results`, `use_tools`, `run_tool`, `tool_param`)."""
    parts = name_parts(name)
    at = max((i for i, w in enumerate(parts) if w in _TOOL_WORDS), default=None)
    if at is None or parts[0] in _TOOL_NOT_LIST_FIRST or set(parts[at + 1:]) & _TOOL_USE_WORDS:
        return False
    return not (parts[at] == "tool" and parts[at + 1:at + 2] and parts[at + 1] in _ONE_TOOLS_PARAMETER)

#: Words of a name that say the text is a system prompt (else the role of the text is not known).
_SYSTEM_WORDS = {"system", "sysprompt", "instruction", "instructions", "preamble", "persona"}


def role_of(name: str) -> str:
    """"system" for a name that says system prompt (`SYSTEM_PROMPT`, `instructions`), else "prompt"
    (prompt text whose place in a request is not known: `query_prompt` may be a user message)."""
    return "system" if words(name) & _SYSTEM_WORDS else "prompt"
