"""Breakpoints dropped where a converter rebuilds a typed content block as a new dict of some of
its fields: facts for PRM302.

A content block in a dict (`{"type": "text", "text": ..., "cache_control": {...}}`, OpenAI's
parts as LiteLLM and gateways take them, Anthropic's blocks) carries its breakpoint as one more
key. A converter that writes a new dict for each block from the fields it knows

    def _convert_content_part(self, part):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            return {"type": "text", "text": part.get("text")}

drops the breakpoint a caller put on the block: the request goes out without it, and what it
closed is sent uncached. Two facts, each one dict per function (its first such dict):

- `rebuilt_marks`: the converter's target is a Claude request (the module imports Anthropic's SDK)
  and the function names no breakpoint key and calls no helper named for one: a text block
  (`{"type": "text", "text": <the block's text>}`) rebuilt in the branch of a test of a dict
  block's type (`B["type"] == "text"`, `B.get("type")`, a name bound to it). A function whose
  blocks are read by attribute (an SDK's response objects), or whose blocks come from a response
  (the iterable or parameter named `response`, `result`, `output`, `chunk`, ...), or that writes
  OpenAI's own block keys (`image_url`, `tool_calls`: a converter out of Claude's format) is not one.
- `branch_marks`: another branch of the same converter carries the breakpoint over (reads a
  breakpoint key off the block, or hands the block to a helper named for a breakpoint or a cache,
  `_apply_prompt_cache_breakpoint(block, formatted)`), and this branch, testing the block's type
  too, writes a new typed dict (`{"type": "image_url", ...}`, or of a type the branch picks among
  strings, `{"type": doc_type, "source": source}`) with neither and puts it where the
  carrying branches put theirs (the same list, or returned): the author carries breakpoints, and
  this kind of block loses its own. A block copied whole (`dict(part)`) keeps its breakpoint but
  is no sign that the author carries them.

- `flattened_contents`: a message rebuilt for a request that may go to Claude (the module imports
  Anthropic's SDK, or the function names `"anthropic"` or a `"claude..."` model) with its content
  reduced to the joined text of its text blocks (`content = " ".join([c.get("text", "") for c in
  content if c.get("type") == "text"])`, then `{"role": role, "content": content}`), in a function
  that names no breakpoint key: a gateway's adapter that drops every block's breakpoint (and the
  blocks' boundaries), reported at the comprehension.

A branch that keeps the block itself (`out.append(block)`), copies it (`dict(block)`, `{**block}`,
`block.copy()`) or writes a breakpoint key in the dict is not one.
"""
from __future__ import annotations

import ast
import re

from .gated_markers import module_functions
from .markers import MARKER_KEYS
from .walk import name_bindings, subtree

#: A comparison of a block's type with a string (bounded: linear).
_TYPE_TEST = re.compile(r"""type["']?\)?\]?[ \t]{0,4}[!=]=[ \t]{0,4}["']""")
#: Names of where a response's blocks come from: a converter of those is not building a request.
_RESPONSE_WORDS = ("response", "resp", "result", "output", "completion", "chunk", "event", "delta", "reply")
#: OpenAI's own block and message keys: a converter that writes them converts into OpenAI's format.
_OPENAI_KEYS = ("image_url", "tool_calls", "function_call", "input_text", "output_text", "input_image")
#: Words of a helper that carries a breakpoint from the source block to the new one.
_CARRY_WORDS = ("cache", "breakpoint")

_LOOPS = (ast.For, ast.AsyncFor)
_COMPS = (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)


def might_rebuild(source: str) -> bool:
    """The cheap test: a block's type compared with a string, and a Claude SDK import (or Claude's
    name) or a helper named for a breakpoint."""
    return _TYPE_TEST.search(source) is not None and (
        "anthropic" in source or "claude" in source or "breakpoint" in source or "cache_control" in source)


def _field(node, item: str, key: str | None = None) -> bool:
    """`item[key]` or `item.get(key)` (any constant key when `key` is None)."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == item:
        return isinstance(node.slice, ast.Constant) and (key is None or node.slice.value == key)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == item and bool(node.args) \
        and isinstance(node.args[0], ast.Constant) and (key is None or node.args[0].value == key)


def _bound(func, item: str, key: str) -> set[str]:
    """Names the function binds to the item's `key` (`kind = part.get("type")`, a walrus too)."""
    out = set()
    for target, value in name_bindings(func):
        if any(_field(x, item, key) for x in subtree(value)):
            out.add(target)
    return out


def _type_test(test, item: str, kinds: set[str]) -> str | None:
    """The string a test compares the item's type with (`item["type"] == "text"`, `kind == "text"`
    for `kinds` the names bound to its type), else None."""
    for n in subtree(test):
        if not (isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], ast.Eq)):
            continue
        sides = (n.left, n.comparators[0])
        if any(_field(s, item, "type") or isinstance(s, ast.Name) and s.id in kinds for s in sides):
            for s in sides:
                if isinstance(s, ast.Constant) and isinstance(s.value, str):
                    return s.value
    return None


def _items(func):
    """(item name, the node it is bound by) of the function's loops, comprehensions and
    parameters."""
    for n in subtree(func):
        if isinstance(n, _LOOPS) and isinstance(n.target, ast.Name):
            yield n.target.id, n.iter
        elif isinstance(n, _COMPS):
            for gen in n.generators:
                if isinstance(gen.target, ast.Name):
                    yield gen.target.id, gen.iter
    for arg in func.args.args + func.args.kwonlyargs:
        if arg.arg not in ("self", "cls"):
            yield arg.arg, None


def _response_named(node, name: str) -> bool:
    words = [name.lower()] + [x.attr.lower() if isinstance(x, ast.Attribute) else x.id.lower()
                              for x in subtree(node) if isinstance(x, (ast.Attribute, ast.Name))] if node is not None \
        else [name.lower()]
    return any(w in word for word in words for w in _RESPONSE_WORDS)


def _carries(stmts, item: str) -> str | None:
    """"marker" when the statements read a breakpoint key off the item or hand the item to a
    helper named for a breakpoint or a cache; "copy" when they copy it whole (`dict(item)`,
    `{**item}`, `item.copy()`: its breakpoint goes along, though nothing says the author thought
    of it); else None."""
    copied = False
    for n in (x for s in stmts for x in subtree(s)):
        if isinstance(n, ast.Constant) and n.value in MARKER_KEYS:
            return "marker"
        if isinstance(n, ast.Call):
            name = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id if isinstance(n.func, ast.Name) else ""
            args = list(n.args) + [k.value for k in n.keywords]
            if any(isinstance(a, ast.Name) and a.id == item for a in args):
                if any(w in name.lower() for w in _CARRY_WORDS):
                    return "marker"
                copied = copied or name in ("dict", "deepcopy", "copy")
            if name == "copy" and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                    and n.func.value.id == item:
                copied = True
        if isinstance(n, ast.Dict) and any(k is None and isinstance(v, ast.Name) and v.id == item
                                           for k, v in zip(n.keys, n.values)):
            copied = True
    return "copy" if copied else None


def _sinks(stmts, node=None) -> set[str]:
    """Where the statements put blocks: the lists they append to (`out.append(...)`, by their
    text) and "return"; with `node`, only where they put that node (itself, or a name bound to it)."""
    names = set()
    if node is not None:
        names = {t.id for x in (y for s in stmts for y in subtree(s)) if isinstance(x, ast.Assign)
                 and any(v is node for v in subtree(x.value)) for t in x.targets if isinstance(t, ast.Name)}

    def holds(value) -> bool:
        return node is None or any(v is node or isinstance(v, ast.Name) and v.id in names for v in subtree(value))
    out = set()
    for n in (x for s in stmts for x in subtree(s)):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend") \
                and n.args and holds(n.args[0]):
            out.add(ast.dump(n.func.value))
        elif isinstance(n, (ast.Return, ast.Yield)) and n.value is not None and holds(n.value):
            out.add("return")
    return out


def _new_blocks(stmts):
    """The outermost dict displays of the statements with a constant `type` (or a name they bind to
    strings only) and no spread."""
    inner = set()
    out = []
    for n in (x for s in stmts for x in subtree(s)):
        if not isinstance(n, ast.Dict) or id(n) in inner:
            continue
        for v in n.values:
            inner.update(id(x) for x in subtree(v) if isinstance(x, ast.Dict))
        if any(k is None for k in n.keys):
            continue
        keys = {k.value: v for k, v in zip(n.keys, n.values) if isinstance(k, ast.Constant)}
        kind = keys.get("type")
        if (isinstance(kind, ast.Constant) or isinstance(kind, ast.Name) and _constant_name(stmts, kind.id)) \
                and not any(k in MARKER_KEYS for k in keys):
            out.append(n)
    return out


def _constant_name(stmts, name: str) -> bool:
    """True when the statements bind `name`, and only to strings (`doc_type = "document"` in one
    branch, `"image"` in the other): a block type chosen among constants."""
    values = [n.value for s in stmts for n in subtree(s) if isinstance(n, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)]
    return bool(values) and all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in values)


def _branches(func, item: str, kinds: set[str] | None = None):
    """(type compared, branch statements) of each `if` of the function that tests the item's type
    (`kinds`: the names bound to its type, `_bound`, when known)."""
    if kinds is None:
        kinds = _bound(func, item, "type")
    for n in subtree(func):
        if isinstance(n, ast.If):
            kind = _type_test(n.test, item, kinds)
            if kind is not None:
                yield kind, n.body


def _reads_text(node, item: str, texts: set[str]) -> bool:
    return any(_field(x, item, "text") or isinstance(x, ast.Name) and x.id in texts for x in subtree(node))


def _openai_writer(func) -> bool:
    """The function writes OpenAI's own block keys (as a dict key or a `type`)."""
    for n in subtree(func):
        if isinstance(n, ast.Dict):
            for k, v in zip(n.keys, n.values):
                if isinstance(k, ast.Constant) and (k.value in _OPENAI_KEYS or k.value == "type" and isinstance(
                        v, ast.Constant) and v.value in _OPENAI_KEYS):
                    return True
    return False


def _names_marker(func) -> bool:
    return any(isinstance(n, ast.Constant) and n.value in MARKER_KEYS or isinstance(n, ast.Call) and any(
        w in (n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")).lower()
        for w in _CARRY_WORDS) for n in subtree(func))


def _marker_read(node, item: str) -> bool:
    """`item["cache_control"]`, `item.get("cache_control")`, `"cache_control" in item`."""
    if any(_field(node, item, key) for key in MARKER_KEYS):
        return True
    return isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.In) \
        and isinstance(node.left, ast.Constant) and node.left.value in MARKER_KEYS \
        and isinstance(node.comparators[0], ast.Name) and node.comparators[0].id == item


def _claude_module(module) -> bool:
    return module.imports_from("anthropic")


def _dropping(func, item: str):
    """(the carrying branches seen, the first (kind, dict) a branch writes without the breakpoint)."""
    carried, dropped = False, None
    kinds = _bound(func, item, "type")
    branches = list(_branches(func, item, kinds))
    if not branches:
        return False, None  # (no branch to carry or drop a breakpoint: what the reading below gives then)
    fields = _bound(func, item, None) - kinds  # names bound to its other fields
    inside = {id(x) for _kind, body in branches for s in body for x in subtree(s)}
    if any(id(n) not in inside and _marker_read(n, item) for n in subtree(func)):
        return False, None  # read off every block, whatever its type: carried over
    sinks: set[str] = set()  # where the branches that carry a breakpoint put their blocks
    for kind, body in branches:
        how = _carries(body, item)
        if how == "marker":
            sinks |= _sinks(body)
        if how is not None:
            carried = carried or how == "marker"
            continue
        if dropped is None and any(_field(x, item) and not _field(x, item, "type")
                                   or isinstance(x, ast.Name) and x.id in fields for s in body for x in subtree(s)):
            blocks = _new_blocks(body)
            if blocks:
                dropped = (kind, blocks[0], body)
    if carried and dropped is not None and not _sinks(dropped[2], dropped[1]) & sinks:
        return carried, None  # put elsewhere than the blocks that keep theirs (a tool call, not a block)
    return carried, dropped


def rebuilt_blocks(module) -> tuple[list[ast.Dict], list[ast.Dict]]:
    """(`rebuilt_marks`, `branch_marks`): the dicts the module docstring describes, in source order
    (`flattened_contents` apart)."""
    rebuilt, branch = [], []
    claude = _claude_module(module)
    for _cls, func in module_functions(module):
        plain = claude and not _names_marker(func) and not _openai_writer(func)
        found_rebuilt = found_branch = None
        read: dict = {}  # item name -> `_dropping` of it (one reading per name: it depends on the name only)
        for item, source in _items(func):
            if _response_named(source, item):
                continue
            if item not in read:
                read[item] = _dropping(func, item)
            carried, dropped = read[item]
            if dropped is None:
                continue
            kind, block, body = dropped
            if carried and found_branch is None:
                found_branch = block
            elif not carried and plain and found_rebuilt is None and kind == "text":
                texts = _bound(func, item, "text")
                keys = {k.value: v for k, v in zip(block.keys, block.values) if isinstance(k, ast.Constant)}
                if "text" in keys and _reads_text(keys["text"], item, texts):
                    found_rebuilt = block
        if found_branch is not None:
            branch.append(found_branch)
        elif found_rebuilt is not None:
            rebuilt.append(found_rebuilt)
    key = lambda d: (d.lineno, d.col_offset)  # noqa: E731
    return sorted(rebuilt, key=key), sorted(branch, key=key)


def _text_join(comp) -> str | None:
    """The item's name when a comprehension takes the text of dict text blocks (`c.get("text")`
    for `c` with `c.get("type") == "text"`), else None."""
    if len(comp.generators) != 1 or len(comp.generators[0].ifs) != 1 or not isinstance(comp.generators[0].target,
                                                                                       ast.Name):
        return None
    item = comp.generators[0].target.id
    test = comp.generators[0].ifs[0]
    if _type_test(test, item, set()) != "text" or not any(_field(x, item, "text") for x in subtree(comp.elt)):
        return None
    return item


def _claude_named(func) -> bool:
    return any(isinstance(n, ast.Constant) and isinstance(n.value, str) and (
        n.value == "anthropic" or n.value.startswith("claude")) for n in subtree(func))


def flattened_contents(module) -> list[ast.AST]:
    """The comprehensions the module docstring's `flattened_contents` describes, in source order."""
    out = []
    claude = _claude_module(module)
    for _cls, func in module_functions(module):
        if _names_marker(func) or not (claude or _claude_named(func)):
            continue
        joined = {}  # name -> the comprehension whose joined text it is bound to
        for n in subtree(func):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                    and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute) \
                    and n.value.func.attr == "join" and len(n.value.args) == 1 \
                    and isinstance(n.value.args[0], (ast.ListComp, ast.GeneratorExp)) \
                    and _text_join(n.value.args[0]) is not None:
                joined.setdefault(n.targets[0].id, n.value.args[0])
        for n in subtree(func):
            if not isinstance(n, ast.Dict):
                continue
            keys = {k.value: v for k, v in zip(n.keys, n.values) if isinstance(k, ast.Constant)}
            content = keys.get("content")
            if "role" in keys and isinstance(content, ast.Name) and content.id in joined:
                out.append(joined[content.id])
                break
    return sorted(out, key=lambda c: (c.lineno, c.col_offset))
