"""Which Python files can hold a prompt: the text test every file passes before it is parsed.

Built from the SDK registry (each SDK's hints, and its import names with the generic method
names of its calls: `import cohere` and `.chat(`), the words of prompt-building code
(`system_prompt`, `.render(`, a `*prompt* = f"...` assignment, a system message
written as a dict display: `{"role": "system", ...}`) and of semantic caches. A file that
fails it is read once and only checked for syntax errors (`module.syntax_error`), never analysed.
Every pattern is a literal or has bounded repetition, so
the test is linear in the file's length (no catastrophic backtracking).
"""
from __future__ import annotations

import re

from . import sdks

#: Words of prompt text built outside an SDK call (templates, builder methods, prompt attributes).
PROMPT_HINTS = ("system_prompt", ".instructions", ".render(", "get_template", "PromptTemplate", ".substitute(",
                "import Template", '"role": "system"', "'role': 'system'")
#: Words of semantic response caches (PRM401/402).
CACHE_HINTS = ("SemanticCache", "set_llm_cache", "gptcache", "semantic", "cache_params")
#: `system_prompt = f"...`, `PROMPT = """...`: a prompt assigned literal text (bounded: linear).
_ASSIGNED = r"(?i:prompt|system|instruction)\w{0,60}[ \t]{0,8}=[ \t]{0,8}(?:[rRfFbBuU]{1,2})?[\"']"


_WORDS = tuple(sorted({*sdks.hints(), *PROMPT_HINTS, *CACHE_HINTS}, key=len, reverse=True))
_ASSIGNED_RE = re.compile(_ASSIGNED)
_ASSIGNED_HEADS = ("prompt", "system", "instruction")


def _assigned(source: str) -> bool:
    """True when `_ASSIGNED` matches somewhere in the text. In ASCII text a match can only start
    where the lower-case text has one of its head words, so the pattern is tried there only (a
    scan of the whole text with a case-insensitive pattern costs several times more); other text
    is searched as a whole (case-insensitive matching also pairs some non-ASCII letters with
    ASCII ones)."""
    if not source.isascii():
        return _ASSIGNED_RE.search(source) is not None
    low = source.lower()
    match = _ASSIGNED_RE.match
    for head in _ASSIGNED_HEADS:
        at = low.find(head)
        while at != -1:
            if match(source, at) is not None:
                return True
            at = low.find(head, at + 1)
    return False


#: Sources of an unstable order: a file naming tools and one of these may build a tools list in it.
UNORDERED_HINTS = ("set(", "frozenset(", "listdir(", "scandir(", "glob(", "iterdir(", "as_completed(",
                   "list_tools(", "walk(")


#: Sources of ids and times: a file naming tools and one of these may put one in a tool's name.
VOLATILE_HINTS = ("uuid", "now(", "random.", "time()")


def might_hold_prompt(source: str) -> bool:
    """True when the text mentions an LLM API, prompt-building code or a semantic cache, or names
    tools next to a source of an unstable order (a tools list built from a set, a listing) or of
    an id or a time (`Tool(name=f"done_{self.id}")` with `self.id = str(uuid4())`)."""
    if any(word in source for word in _WORDS) or _assigned(source) or sdks.import_and_call(source):
        return True
    return "tool" in source and any(h in source for h in UNORDERED_HINTS + VOLATILE_HINTS)
