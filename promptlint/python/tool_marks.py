"""Where a module's text sets a request's tools and where it removes them, found by a scan of the
source (no tree walk): the rows of `tools=` / `functions=`, `bind_tools(`, `payload["tools"] =`, and
of `opts.tools = None`, `del ...["tools"]`, a call named `reset_...` / `clear_...`. Only the
functions that hold such a row are read for tool variants and resets (tool_variants.py,
tool_resets.py); the marks are kept per module for both."""
from __future__ import annotations

from bisect import bisect_right

_RESET_WORDS = ("reset_", "clear_", "remove_", "disable_", "drop_", "strip_", "unset_",
                "Reset_", "Clear_", "Remove_", "Disable_", "Drop_", "Strip_", "Unset_")

#: The marks of the modules read lately: id -> (module, marks); the variants and the resets ask.
_MARKS: dict = {}


def tool_marks(module) -> tuple[list[int], list[int]]:
    """`_text_marks` of the module's text as rows (1-based, ascending), kept for the next finder."""
    found = _MARKS.get(id(module))
    if found is not None and found[0] is module:
        return found[1]
    src = module.source
    sites, resets = _text_marks(src) if "tool" in src or "function" in src else ([], [])
    starts = module.line_starts
    marks = ([bisect_right(starts, at) for at in sites], [bisect_right(starts, at) for at in resets])
    _MARKS.clear()
    _MARKS[id(module)] = (module, marks)
    return marks


def _text_marks(src: str) -> tuple[list[int], list[int]]:
    """Offsets in the module's text, ascending, where a request's tools are written (`tools=`,
    `bind_tools(`, `payload["tools"] =`), and where they are removed (`opts.tools = None`,
    `del opts["tools"]`, `.pop("tools")`) or a call is named for it (`_reset_function_settings(`).
    Found with `str.find`: a regular expression over every module costs more than all the walks."""
    sites, resets = [], []
    for word in ("tools", "functions"):
        at = src.find(word)
        while at != -1:
            end = at + len(word)
            rest = src[end:end + 12]
            quoted = rest[:2] in ('"]', "']")
            tail = rest[2:].lstrip(" \t") if quoted else rest.lstrip(" \t")
            if tail[:1] == "=" and tail[1:2] != "=":
                sites.append(at)
                if tail[1:].lstrip(" \t")[:4] in ("None", "[]"):
                    resets.append(at)
            elif word == "tools" and src.endswith("bind_", 0, at) and rest[:1] == "(":
                sites.append(at)
            if quoted and (src.endswith('.pop("', 0, at) or src.endswith(".pop('", 0, at)
                           or src.rfind("del ", max(0, at - 80), at) != -1):
                resets.append(at)
            at = src.find(word, end)
    for word in _RESET_WORDS:
        at = src.find(word)
        while at != -1:
            name = src[at:at + 48]
            cut = next((i for i, c in enumerate(name) if not (c.isalnum() or c == "_")), len(name))
            if "tool" in name[:cut] or "function" in name[:cut]:
                resets.append(at)
            at = src.find(word, at + 1)
    return sites, sorted(resets)
