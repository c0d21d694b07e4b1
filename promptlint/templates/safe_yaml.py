"""YAML loaded with bounded work: a document whose aliases (or merge keys) expand it past a
limit is refused before anything walks or builds it.

PyYAML's safe loader never runs code, but an alias is a reference: a few hundred bytes of
"billion laughs" (`a1: [*a0, *a0, ...]` nine levels deep) or of chained merge keys
(`<<: [*m, *m]`) stand for billions of nodes, and whatever walks the loaded data (or
`flatten_mapping`, for merge keys) takes that long and that much memory. So the document is
composed first (the node graph, where an alias is one shared node: linear in the text), its size
with every alias expanded is counted over the graph (each node once), and only a document under
`MAX_NODES` (and `MAX_DEPTH` deep, without a cycle) is used.

`YamlBombError` (a ValueError) names the limit exceeded; the engine reports it as the file's
PRM001. Other YAML errors are `yaml.YAMLError`, as from PyYAML.
"""
from __future__ import annotations

from typing import Any

MAX_NODES = 200_000  # nodes of one document with its aliases expanded
MAX_DEPTH = 500  # nesting of collections


class YamlBombError(ValueError):
    """A YAML document too large once its aliases are expanded, too deep, or recursive."""


def _loader(text: str):
    import yaml
    cls = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # same marks (character offsets), faster
    return cls(text)


def compose_all(text: str) -> list:
    """The node graph of each document of `text` (`yaml.compose_all` with the safe loader), each
    checked (`check`). Raises YamlBombError or yaml.YAMLError."""
    loader = _loader(text)
    try:
        docs = []
        while loader.check_node():
            node = loader.get_node()
            check(node)
            docs.append(node)
        return docs
    except RecursionError:
        raise YamlBombError(f"YAML document nested more than {MAX_DEPTH} levels deep") from None
    finally:
        loader.dispose()


def safe_load(text: str) -> Any:
    """`yaml.safe_load(text)` for a document that passes `check`. Raises YamlBombError or
    yaml.YAMLError."""
    loader = _loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        check(node)
        return loader.construct_document(node)
    except RecursionError:
        raise YamlBombError(f"YAML document nested more than {MAX_DEPTH} levels deep") from None
    finally:
        loader.dispose()


def check(root) -> int:
    """The number of nodes of the document at `root` with every alias expanded (a shared node
    counts once per reference; a merge key's mappings count where they are merged). Raises
    YamlBombError past `MAX_NODES` or `MAX_DEPTH`, or for a node that contains itself. Work and
    memory are linear in the size of the graph (each node is visited once, iteratively)."""
    import yaml
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            total = 1 + sum(sizes[id(c)] for c in _children(node, yaml))
            if total > MAX_NODES:
                raise YamlBombError(f"YAML document too large once its aliases are expanded (over {MAX_NODES:,} nodes)")
            sizes[key] = total
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise YamlBombError("YAML document that contains itself (a recursive alias)")
        on_path.add(key)
        if len(on_path) > MAX_DEPTH:
            raise YamlBombError(f"YAML document nested more than {MAX_DEPTH} levels deep")
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node, yaml) if id(child) not in sizes)
    return sizes[id(root)]


def _children(node, yaml) -> list:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [item for pair in node.value for item in pair]
    return []
