"""Breakpoints dropped where a converter joins the system prompt's blocks into one string: facts
for PRM302.

Anthropic takes the system prompt as a string or as a list of text blocks, and only a block can
carry a breakpoint (`{"type": "text", "text": ..., "cache_control": {...}}`). A converter that
keeps only the text of the system prompt's blocks

    def _system_to_openai(system):
        return "".join(b.get("text", "") for b in system if b.get("type") == "text")

    if message.role == MessageRole.SYSTEM:
        system_prompt.extend([block.text for block in message.blocks if isinstance(block, TextBlock)])

drops the `cache_control` a caller put on a block of it (and a breakpoint block among them): the
static system prompt, the part most worth caching, can no longer be marked.

Found, in a module that names `cache_control` as a string (it handles breakpoints), at a
comprehension (or generator) that takes the text of the text blocks of a system prompt: its
element reads the item's `text` (`b.text`, `b["text"]`, `b.get("text")`), its filter tests the item
for a text block (`b["type"] == "text"`, `b.get("type") == "text"`, `b.type == "text"`,
`isinstance(b, TextBlock)`), and the blocks are the system prompt's: the iterable is named for it
(`system`, `params.system`, `system_blocks`), or the comprehension is in the branch of a test of a
message's role for a system message (`m.role == "system"`, `m.role == MessageRole.SYSTEM`). The
comprehension must be joined into a string (`"".join(...)`) or added to a list (`.extend(...)`,
`+=`); a function that reads a breakpoint key off the same item, or writes a text block with a
breakpoint of its own (`{"type": "text", "text": system_prompt, "cache_control": ...}`: it marks the
joined text itself), is not one.
"""
from __future__ import annotations

import ast

from .gated_markers import module_functions
from .markers import MARKER_KEYS
from .walk import subtree

_COMPS = (ast.ListComp, ast.GeneratorExp)


def might_flatten(source: str) -> bool:
    """The cheap test: a breakpoint key named as a string, and a system word."""
    return '"cache_control"' in source.replace("'", '"') and "ystem" in source.lower() and ".join(" in source \
        or '"cache_control"' in source.replace("'", '"') and ".extend(" in source and "SYSTEM" in source


def _reads_key(node, item: str, key: str) -> bool:
    """`item.key`, `item["key"]`, `item.get("key")`."""
    if isinstance(node, ast.Attribute):
        return node.attr == key and isinstance(node.value, ast.Name) and node.value.id == item
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Name) and node.value.id == item and isinstance(node.slice, ast.Constant) \
            and node.slice.value == key
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == item and bool(node.args) \
        and isinstance(node.args[0], ast.Constant) and node.args[0].value == key


def _text_block_test(test, item: str) -> bool:
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" \
            and len(test.args) == 2 and isinstance(test.args[0], ast.Name) and test.args[0].id == item:
        kind = test.args[1]
        name = kind.id if isinstance(kind, ast.Name) else kind.attr if isinstance(kind, ast.Attribute) else ""
        return name.startswith("Text")
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) and any(
        _reads_key(side, item, "type") for side in (test.left, test.comparators[0])) and any(
        isinstance(side, ast.Constant) and side.value == "text" for side in (test.left, test.comparators[0]))


def _system_named(node) -> bool:
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name == "system" or name.startswith("system_") and "message" not in name


def _system_role_test(test) -> bool:
    """A test of a message's role for a system message (`m.role == "system"`, `== MessageRole.SYSTEM`)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = (test.left, test.comparators[0])
    role = any(isinstance(s, ast.Attribute) and s.attr == "role" or isinstance(s, ast.Subscript) and isinstance(
        s.slice, ast.Constant) and s.slice.value == "role" for s in sides)
    system = any(isinstance(s, ast.Constant) and s.value == "system" or isinstance(s, ast.Attribute)
                 and s.attr == "SYSTEM" for s in sides)
    return role and system


def _flattening(comp) -> str | None:
    """The item's name when the comprehension takes the text of text blocks, else None."""
    if len(comp.generators) != 1 or len(comp.generators[0].ifs) != 1:
        return None
    gen = comp.generators[0]
    if not isinstance(gen.target, ast.Name):
        return None
    item = gen.target.id
    if not any(_reads_key(n, item, "text") for n in subtree(comp.elt)) or not _text_block_test(gen.ifs[0], item):
        return None
    return item


def _used(comp, parents: dict) -> bool:
    """Joined into a string or added to a list."""
    parent = parents.get(comp)
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute):
        return parent.func.attr in ("join", "extend")
    return isinstance(parent, ast.AugAssign)


def _marked_text_block(node) -> bool:
    """A dict display with a `text` key and a breakpoint key."""
    if not isinstance(node, ast.Dict):
        return False
    keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
    return "text" in keys and bool(keys & set(MARKER_KEYS))


def flattened_marks(module) -> list[ast.AST]:
    """The comprehensions that flatten a system prompt's blocks to their text (the module
    docstring), in source order."""
    out = []
    for _cls, func in module_functions(module):
        if any(_marked_text_block(n) for n in subtree(func)):
            continue  # it marks the joined text itself
        parents = {child: node for node in subtree(func) for child in ast.iter_child_nodes(node)}
        system_branches = [n for n in subtree(func) if isinstance(n, ast.If) and _system_role_test(n.test)]
        for comp in (n for n in subtree(func) if isinstance(n, _COMPS)):
            item = _flattening(comp)
            if item is None or not _used(comp, parents):
                continue
            if any(_reads_key(n, item, key) for n in subtree(func) for key in MARKER_KEYS):
                continue  # the breakpoint is read off the block: carried over
            named = _system_named(comp.generators[0].iter)
            in_branch = any(any(x is comp for stmt in b.body for x in subtree(stmt)) for b in system_branches)
            if named or in_branch:
                out.append(comp)
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))
