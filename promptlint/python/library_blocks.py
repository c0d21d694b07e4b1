"""Breakpoints dropped where a converter hands a content block to a library function that rebuilds
it: a fact for PRM302 (`library_blocks`; the rule judges it).

LiteLLM takes OpenAI's chat format and forwards a `cache_control` written on a content part to
Claude (docs.litellm.ai/docs/completion/prompt_caching: the breakpoint is a key of the part). A
converter that feeds LiteLLM and turns a caller's image or file block into OpenAI's format with a
library function that builds a new block from the data fields alone

    elif is_data_content_block(item):
        converted = convert_to_openai_data_block(item)     # {"type": "image_url", "image_url": ...}
        new_content.append(converted)

drops the breakpoint a caller put on that block (a large document or image at the end of a
static prefix, the usual thing to cache): the request goes out without it, and what it closed is
sent uncached.

Found in a module that imports LiteLLM, at each call of a function of `classify.DATA_BLOCK_REBUILDERS`
(matched by its qualified name) handed a name (the block), in a function that names no breakpoint
key and calls no helper named for a breakpoint or a cache (one that carries the breakpoint over is
not this), whose result (or a name bound to it) the function puts into a list (`append`, `extend`,
a list display) or returns. Converters for other targets (OpenAI, Groq, Fireworks: a `cache_control`
key means nothing to them) are not read.
"""
from __future__ import annotations

import ast

from ..classify import DATA_BLOCK_REBUILDERS
from .gated_markers import module_functions
from .markers import MARKER_KEYS
from .walk import subtree

#: Words of a helper that carries a breakpoint over.
_CARRY_WORDS = ("cache", "breakpoint")


def might_rebuild_blocks(source: str) -> bool:
    """The cheap test: LiteLLM and a name of a rebuilding function."""
    return "litellm" in source and any(name in source for names in DATA_BLOCK_REBUILDERS.values() for name in names)


def _rebuilder(module, call) -> bool:
    """A call of a function of `DATA_BLOCK_REBUILDERS` handed a name (the block)."""
    qual = module.qualified_name(call.func) or ""
    root, last = qual.split(".", 1)[0], qual.rsplit(".", 1)[-1]
    return last in DATA_BLOCK_REBUILDERS.get(root, ()) and bool(call.args) and isinstance(call.args[0], ast.Name)


def _names_marker(func) -> bool:
    for n in subtree(func):
        if isinstance(n, ast.Constant) and n.value in MARKER_KEYS:
            return True
        if isinstance(n, ast.Call):
            name = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id if isinstance(n.func, ast.Name) else ""
            if any(w in name.lower() for w in _CARRY_WORDS):
                return True
    return False


def _put(func, call) -> bool:
    """The call's result, or a name bound to it, goes into a list or is returned."""
    names = {t.id for n in subtree(func) if isinstance(n, ast.Assign) and n.value is call
             for t in n.targets if isinstance(t, ast.Name)}

    def holds(value) -> bool:
        return value is call or isinstance(value, ast.Name) and value.id in names
    for n in subtree(func):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend") \
                and n.args and holds(n.args[0]):
            return True
        if isinstance(n, (ast.Return, ast.Yield)) and n.value is not None and holds(n.value):
            return True
        if isinstance(n, ast.List) and any(holds(e) for e in n.elts):
            return True
    return False


def library_blocks(module) -> list[ast.Call]:
    """The rebuilding calls of the module docstring, in source order."""
    if not module.imports_from("litellm"):
        return []
    out = []
    for _cls, func in module_functions(module):
        if _names_marker(func):
            continue
        for n in subtree(func):
            if isinstance(n, ast.Call) and _rebuilder(module, n) and _put(func, n):
                out.append(n)
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))
