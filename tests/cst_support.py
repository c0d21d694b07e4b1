"""Helpers shared by the fix tests: a parsed Module from source text, and node search."""
from __future__ import annotations

import tempfile
from pathlib import Path


from promptlint.python.project import Module, Project, iter_children


def module_from_source(source: str) -> Module:
    """A Module for a source string, loaded by Project from a temporary file (bytes as given)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "example.py"
        path.write_bytes(source.encode())
        return Project().load(path)


def nodes(module: Module, kind, where=lambda module, node: True) -> list:
    """The nodes of type `kind` in source order for which `where(module, node)` holds."""
    found = []
    stack = [module.tree]
    while stack:
        node = stack.pop()
        if isinstance(node, kind) and where(module, node):
            found.append(node)
        stack.extend(reversed(list(iter_children(node))))
    return found
