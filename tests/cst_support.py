"""Helpers shared by the fix tests: a libcst module from source text, node search, the builders."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from promptlint.codemod import keywords, moves, sorting
from promptlint.codemod._common import extent
from promptlint.codemod.module import CstModule, iter_children, parse

#: The fix builders of `promptlint.codemod`, under one name for the tests.
fixes = SimpleNamespace(
    add_keyword_fix=keywords.add_keyword_fix, orjson_sort_keys_fix=keywords.orjson_sort_keys_fix,
    sort_keys_fix=keywords.sort_keys_fix, wrap_sorted_fix=sorting.wrap_sorted_fix,
    sort_tools_fix=sorting.sort_tools_fix, move_to_end_fix=moves.move_to_end_fix,
    KEY_NESTED=sorting.KEY_NESTED, KEY_FLAT=sorting.KEY_FLAT, KEY_OBJECT=sorting.KEY_OBJECT, _extent=extent)


def module_from_source(source: str) -> CstModule:
    """A parsed module for a source string (as `codemod` parses a file's text)."""
    return parse(Path("example.py"), source)


def nodes(module: CstModule, kind, where=lambda module, node: True) -> list:
    """The nodes of type `kind` in source order for which `where(module, node)` holds."""
    found = []
    stack = [module.tree]
    while stack:
        node = stack.pop()
        if isinstance(node, kind) and where(module, node):
            found.append(node)
        stack.extend(reversed(list(iter_children(node))))
    return found
