"""Cheap tests on the source text of one function or class before a fact finder walks it: a
finder that needs a word (a keyword's name, a loop's `for`) in what it looks for spares the
walk of a function whose text does not hold it. Rows and columns come from `ast` positions;
the text read is the node's own (from its first decorator to its end).
"""
from __future__ import annotations


def text_window(module, node) -> tuple[int, int]:
    """0-based character offsets of the source text of `node` in `module.source`, from its
    first decorator (a function's or class's) to its end."""
    a, b = module.offsets(node)
    decorators = getattr(node, "decorator_list", None)
    if decorators:
        a = min(a, module.offsets(decorators[0])[0])
    return a, b


def holds_any(module, node, words) -> bool:
    """True when the source text of `node` (`text_window`) holds one of `words`."""
    a, b = text_window(module, node)
    find = module.source.find
    return any(find(word, a, b) != -1 for word in words)
