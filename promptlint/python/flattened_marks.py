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

So is a comprehension over the blocks of the system messages (`"\\n".join(c["text"] for m in
sys_msgs for c in m.content)`: the messages named for the system prompt, `sys_msg`,
`system_messages`; the blocks a field of each; a filter only for a text block), with no
breakpoint key read off the message or the block in the function.

The same in a loop (`_flattening_loop`), read where the module names `cache_control` or another
file of its package reads one off the blocks it is handed (`ProjectTree.marker_read_files`; the
gate is the caller's, `module_facts`):

    def anthropic_system_to_texts(value):
        for block in value:
            if not isinstance(block, dict) or block.get("type") != "text":
                continue
            texts.append(str(block.get("text", "")))

a loop over the system prompt's blocks (the iterable named for it, a parameter of a function
named for it, or the loop in a system message's branch) that appends the text of a block (or adds
it to a string with `+=`) under a test for a text block, or after `continue` for the others.
"""
from __future__ import annotations

import ast
import re

from .gated_markers import module_functions
from .markers import MARKER_KEYS
from .sdks import anthropic, bedrock, google, litellm, openai
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


def _flattening_messages(comp) -> tuple[str, str] | None:
    """(message, block) names when the comprehension takes the text of the blocks of messages
    named for the system prompt (`"\\n".join(c["text"] for m in sys_msgs for c in m.content)`): two
    generators, the second over a field of the first's item, a filter only for a text block."""
    if len(comp.generators) != 2 or not all(isinstance(g.target, ast.Name) for g in comp.generators):
        return None
    outer, inner = comp.generators
    message, block = outer.target.id, inner.target.id
    field = inner.iter
    if outer.ifs or not isinstance(field, (ast.Attribute, ast.Subscript)) or not isinstance(field.value, ast.Name) \
            or field.value.id != message or not _system_messages_named(outer.iter):
        return None
    if any(not _text_block_test(test, block) for test in inner.ifs) \
            or not any(_reads_key(n, block, "text") for n in subtree(comp.elt)):
        return None
    return message, block


def _system_messages_named(node) -> bool:
    """A name whose words say system messages: `system_messages`, `sys_msg`, `system`."""
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return bool({"system", "sys"} & set(name.lower().split("_")))


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


#: A test of a block's type for a text block: `b.get("type") != "text"`, `b["type"] == "text"`,
#: `b.type == "text"` (bounded: linear).
_TEXT_TEST = re.compile(r"""type["']?\)?\]?[ \t]{0,4}[!=]=[ \t]{0,4}["']text["']""")


def might_flatten_loop(source: str) -> bool:
    """The cheap test of the loop form: a system word, an append and a test for a text block."""
    return "ystem" in source and (".append(" in source or "+=" in source) and "type" in source \
        and _TEXT_TEST.search(source) is not None


def _not_text_test(test, item: str) -> bool:
    """A test true for a block that is not a text block (`b.get("type") != "text"`, `not
    isinstance(b, TextBlock)`), alone or as a part of an `or` (`not isinstance(b, dict) or ...`)."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]
    for part in parts:
        if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.Not) and _text_block_test(part.operand, item):
            return True
        if isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.ops[0], ast.NotEq):
            if _text_block_test(ast.Compare(left=part.left, ops=[ast.Eq()], comparators=part.comparators), item):
                return True
    return False


def _text_put(stmts, item: str, texts: set[str]) -> ast.AST | None:
    """The first `out.append(<the item's text>)` or `out += <the item's text>` of these
    statements (`texts`: the names the loop assigns from the item's text)."""
    for n in (x for stmt in stmts for x in subtree(stmt)):
        value = n.args[0] if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
            and n.func.attr == "append" and len(n.args) == 1 else n.value if isinstance(n, ast.AugAssign) else None
        if value is not None and any(_reads_key(x, item, "text") or isinstance(x, ast.Name) and x.id in texts
                                     for x in subtree(value)):
            return n
    return None


def _flattening_loop(loop) -> str | None:
    """The item's name when a loop over blocks adds the text of its text blocks alone to a list
    or a string: under `if <a text block>:`, or after `if <not a text block>: continue`."""
    if not isinstance(loop.target, ast.Name):
        return None
    item = loop.target.id
    texts = {t.id for n in subtree(loop) if isinstance(n, ast.Assign) and any(
        _reads_key(x, item, "text") for x in subtree(n.value)) for t in n.targets if isinstance(t, ast.Name)}
    for at, stmt in enumerate(loop.body):
        if not isinstance(stmt, ast.If):
            continue
        if _text_block_test(stmt.test, item) and _text_put(stmt.body, item, texts) is not None:
            return item
        if _not_text_test(stmt.test, item) and any(isinstance(x, ast.Continue) for x in stmt.body) \
                and _text_put(loop.body[at + 1:], item, texts) is not None:
            return item
    return None


def _system_function(func) -> bool:
    """A function named for the system prompt (`anthropic_system_to_texts`): its parameters are it."""
    return "system" in func.name.lower()


def _writes_gemini(module, func) -> bool:
    """True for a function that builds Gemini's request types (a name it reads is imported from
    Gemini's SDK: `gtypes.Content(...)`, `Part.from_text(...)`) and reads no name of an SDK whose
    requests can carry a breakpoint (Anthropic, Bedrock, LiteLLM, OpenAI's format for proxies):
    Gemini takes no breakpoint, so what a converter into its format leaves out costs nothing."""
    sdk = other = False
    for node in subtree(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in module.imports:
            dotted = module.imports[node.id]
            if _imports_any(dotted, google.SDK.imports):
                sdk = True
            elif any(_imports_any(dotted, s.SDK.imports) for s in (anthropic, bedrock, litellm, openai)):
                other = True
    return sdk and not other


def _imports_any(dotted: str, roots) -> bool:
    """True when the imported name `dotted` is one of the modules `roots` or under one."""
    return any(dotted == r or dotted.startswith(r + ".") for r in roots)


def flattened_marks(module) -> list[ast.AST]:
    """The comprehensions that flatten a system prompt's blocks to their text (the module
    docstring), in source order; none in a converter into Gemini's request types (`_writes_gemini`)."""
    out = []
    for _cls, func in module_functions(module):
        if any(_marked_text_block(n) for n in subtree(func)):
            continue  # it marks the joined text itself
        if _writes_gemini(module, func):
            continue  # Gemini's format holds no breakpoint: nothing a caller could mark is lost
        parents = {child: node for node in subtree(func) for child in ast.iter_child_nodes(node)}
        system_branches = [n for n in subtree(func) if isinstance(n, ast.If) and _system_role_test(n.test)]
        for comp in (n for n in subtree(func) if isinstance(n, _COMPS)):
            nested = _flattening_messages(comp)
            if nested is not None and _used(comp, parents) and not any(
                    _reads_key(n, item, key) for n in subtree(func) for item in nested for key in MARKER_KEYS):
                out.append(comp)  # the system messages' blocks, joined
                continue
            item = _flattening(comp)
            if item is None or not _used(comp, parents):
                continue
            if any(_reads_key(n, item, key) for n in subtree(func) for key in MARKER_KEYS):
                continue  # the breakpoint is read off the block: carried over
            named = _system_named(comp.generators[0].iter)
            in_branch = any(any(x is comp for stmt in b.body for x in subtree(stmt)) for b in system_branches)
            if named or in_branch:
                out.append(comp)
        params = {a.arg for a in func.args.args + func.args.kwonlyargs} if _system_function(func) else set()
        for loop in (n for n in subtree(func) if isinstance(n, ast.For)):
            item = _flattening_loop(loop)
            if item is None or any(_reads_key(n, item, key) for n in subtree(func) for key in MARKER_KEYS):
                continue
            it = loop.iter
            if _system_named(it) or isinstance(it, ast.Name) and it.id in params or any(
                    any(x is loop for stmt in b.body for x in subtree(stmt)) for b in system_branches):
                out.append(loop)
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))
