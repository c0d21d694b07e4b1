"""System messages of anywhere in a conversation moved into the request's own system field: facts
for PRM105 (the other moves: `system_hoists.py`).

A converter for an API whose system prompt is a field before all messages (Anthropic's `system`, Gemini's
`system_instruction`) that walks the whole conversation and joins the text of every system message
it meets into that field

    for message in messages:
        if message["role"] == "system":
            system = message["content"] if system is None else system + "\n" + message["content"]
        else:
            out.append(...)

A system message added later in the conversation lands in front of the whole history too. Found
when the system branch of one loop over the messages (an iterable named for them: `messages`,
`chat_history`; also `enumerate(messages)`) writes a name for the system prompt (`system`,
`system_message`, `system_instruction`, `system_parts`: assigned, `+=`, appended) from the item's text, the other messages go to a list
(`else` / `elif` or after a `continue`; or the module filters them out elsewhere, `[m for m in
messages if m.role != "system"]`), and the loop never stops (`break`, `return`); a branch that
raises (a later system message refused), yields (sends it in place) or tests anything but the field
itself or the item's content (`if i == 0`, the list built so far: only the leading ones move) is not
one, nor is a loop whose other messages read the text gathered so far (each system text folded into
the message after it, where it stood). Tests of the content (`isinstance(content, str)`, one write per kind of content, an unknown
kind refused) say how the text is read, not which messages move: the branch's own test is then
the move. A partition (the item itself appended to `system_messages`, the others to a list of
their own) is one when the function then reads that part whole into text or blocks
(`as_system_blocks(system_messages)`, a walk over it); not when it puts it back into a list
(`messages.extend(system_messages)`), looks at one of it, or refuses more than one.

The same by a filter (`find_filtered_hoists`): `system = "\n".join(m["content"] for m in messages
if m["role"] == "system")`, or `system_instruction=[m.content for m in messages if ...]`, in a
module that filters the system messages out of a list for the others.

The same by a split (`find_lifted_partitions`): the conversation split by two filters, its system
messages kept whole (`system_messages = [m for m in messages if _is_instruction_message(m)]`, the
test also a one-line predicate of the module) and the others (`... if not _is_instruction_message(m)`),
the system part handed to a call whose value becomes the field (`kwargs["instructions"] =
flatten(system_messages)`, `system=as_blocks(system)`).
"""
from __future__ import annotations

import ast
import re

from .module import statements
from .system_hoists import breaks, is_system_test, negated_system_test, returns
from .text_gates import holds_any
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _item_of(loop) -> str | None:
    """The loop's item: `for m in msgs` or `for i, m in enumerate(msgs)`."""
    if isinstance(loop.target, ast.Name):
        return loop.target.id
    it = loop.iter
    if isinstance(loop.target, ast.Tuple) and len(loop.target.elts) == 2 and isinstance(loop.target.elts[1], ast.Name) \
            and isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate":
        return loop.target.elts[1].id
    return None


def _system_write(branch, item: str) -> tuple[ast.AST, bool] | None:
    """(the statement of a system branch that adds the item's text, or the item itself, to a name
    with `system` in it; True when it is the item itself: a partition), or None when the branch
    stops, raises or tests anything but that name or the item's content (`isinstance(content,
    str)`: how its text is read, not where it is)."""
    nodes = [n for stmt in branch for n in subtree(stmt)]
    if any(isinstance(n, (ast.Break, ast.Return, ast.Yield, ast.YieldFrom)) for n in nodes):
        return None  # stopped, or sent in place
    readers = {item}  # the item and the names the branch assigns from it (`text = m["content"]`)
    for n in nodes:
        if isinstance(n, ast.Assign) and any(isinstance(x, ast.Name) and x.id in readers for x in subtree(n.value)):
            readers |= {t.id for t in n.targets if isinstance(t, ast.Name)}
    written = None
    whole = None
    fields: set[str] = set()
    for n in nodes:
        target, value = None, None
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend") \
                and n.args:
            target, value = n.func.value, n.args[0]
        elif isinstance(n, ast.Assign) and len(n.targets) == 1:
            target, value = n.targets[0], n.value
        elif isinstance(n, ast.AugAssign):
            target, value = n.target, n.value
        if not (isinstance(target, ast.Name) and _FIELD.match(target.id)):
            continue
        if isinstance(value, ast.Name) and value.id == item:
            if isinstance(n, ast.Call):  # (one message kept, `first = m`, is no partition: later ones dropped)
                whole = whole or n  # the message itself kept apart (a partition), not its text
            fields.add(target.id)
        elif any(isinstance(x, ast.Name) and x.id in readers - {target.id} for x in subtree(value)):
            fields.add(target.id)
            written = written or n
    if written is None and whole is None:
        return None
    if any(isinstance(n, ast.Raise) and not _content_guarded(branch, n, readers - fields) for n in nodes):
        return None  # a later system message refused
    for n in nodes:  # a test of the position (`if i == 0`, `if not out`) moves the leading ones only
        if isinstance(n, (ast.If, ast.IfExp)) and not _content_test(n.test, readers | fields):
            return None
    return (written, False) if written is not None else (whole, True)


#: Names a test of a message's content may read besides the message: builtins that test a type.
_TYPE_TESTS = frozenset({"isinstance", "str", "list", "dict", "tuple", "bytes", "type", "hasattr", "len"})


def _content_test(test, known: set[str]) -> bool:
    """True when a test reads only the item, names assigned from it, the field and type tests
    (`isinstance(content, str)`, `content.type == "text"`, `system is None`): not the position."""
    return all(x.id in known or x.id in _TYPE_TESTS or x.id[:1].isupper()
               for x in subtree(test) if isinstance(x, ast.Name))


def _by_content(branch, written, item: str, field: str) -> bool:
    """True when the write sits under a test of the item's content (one write per kind of
    content): the branch's test that picks every system message is the move, not one write."""
    nodes = [n for stmt in branch for n in subtree(stmt)]
    readers = {item} | {t.id for n in nodes if isinstance(n, ast.Assign) and any(
        isinstance(x, ast.Name) and x.id == item for x in subtree(n.value)) for t in n.targets if isinstance(t, ast.Name)}
    readers.discard(field)
    guards = _guards(branch, written)
    return bool(guards) and all(_content_test(g, readers) and isinstance(g, (ast.Call, ast.Compare)) and any(
        isinstance(x, ast.Name) and x.id in readers for x in subtree(g)) for g in guards)  # (not `if text:`)


def _guards(stmts, target, guards=()) -> list | None:
    """The tests of the `if` statements of these statements around `target` (a node of one of
    them), outermost first, or None when it is in none of them."""
    for stmt in stmts:
        if not any(n is target for n in subtree(stmt)):
            continue
        if stmt is target:
            return list(guards)
        if isinstance(stmt, ast.If):
            for body in (stmt.body, stmt.orelse):
                found = _guards(body, target, (*guards, stmt.test))
                if found is not None:
                    return found
            return list(guards)  # (in the test itself)
        for field in ("body", "orelse", "finalbody", "handlers"):
            found = _guards(getattr(stmt, field, None) or (), target, guards)
            if found is not None:
                return found
        return list(guards)
    return None


def _content_guarded(branch, raised, readers: set[str]) -> bool:
    """True when a `raise` of the branch sits under tests of the item's content only (an `else` of
    `isinstance(content, str)`: content of an unknown type refused, not the message's place)."""
    guards = _guards(branch, raised)
    return bool(guards) and all(_content_test(g, readers) for g in guards)


def _others_kept(loop, branch_if, item: str) -> bool:
    """True when the loop adds the other messages to a list: an `else` / `elif` of the system
    test, or statements after a `continue` of its branch, that append to a name."""
    rest = list(branch_if.orelse)
    if any(isinstance(s, ast.Continue) for s in branch_if.body):
        rest += loop.body[loop.body.index(branch_if) + 1:]
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend")
               and isinstance(n.func.value, (ast.Name, ast.Subscript, ast.Attribute)) for s in rest for n in subtree(s))


#: A name for the system prompt's text (`system`, `system_message`, `system_instruction`,
#: `system_parts`, `anthropic_system`), not for something counted of it (`system_tokens`) or
#: another setting (`system_prompt_role`).
_FIELD = re.compile(r"(?i)_?(?:\w+_)?system(?:_?(?:prompt|message|msg|instruction|text|content|part|block|str))?s?$")

#: An iterable named for a conversation (`messages`, `params.messages`, `chat_history`).
_CONVERSATION = re.compile(r"(?i)messag|history|conversation|dialog|turns|chat")


def might_hoist_field(source: str) -> bool:
    """The text test before `find_field_hoists`: a role test naming a system message, and a loop."""
    return '"system"' in source.replace("'", '"') and "role" in source and "for " in source


def _how(branch, field: str) -> str:
    """"joins" when the branch adds to what the field holds (`+=`, an append, a value that reads
    the field), "last" when each system message replaces it."""
    for n in (x for stmt in branch for x in subtree(stmt)):
        if isinstance(n, ast.AugAssign) or (
                isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend")):
            return "joins"
        if isinstance(n, ast.Assign) and any(isinstance(x, ast.Name) and x.id == field for x in subtree(n.value)):
            return "joins"
    return "last"


def find_field_hoists(module) -> list[tuple[ast.AST, str, str, str]]:
    """(the statement that adds a system message's text to the field, the function's name, the
    field's name, "joins" | "last": the texts joined, or the last one kept) for each loop of the
    third shape of the module docstring, in source order; (..., the last item written,
    "newest") when the function then writes that text into the last message it built
    (`_into_newest`): not a field before all messages."""
    out: dict[int, tuple] = {}
    stripped = None  # (whether the module filters system messages out of a list: computed once, when needed)
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        if not holds_any(module, func, ("ystem",)):
            continue
        for loop in subtree(func):
            if not isinstance(loop, (ast.For, ast.AsyncFor)):
                continue
            item = _item_of(loop)
            if item is None or not _CONVERSATION.search(ast.unparse(loop.iter)) or breaks(loop.body) \
                    or returns(loop.body):
                continue
            for stmt in loop.body:
                if not (isinstance(stmt, ast.If) and is_system_test(stmt.test, item)):
                    continue
                found = _system_write(stmt.body, item)
                if found is None:
                    continue
                written, whole = found
                target = written.func.value if isinstance(written, ast.Call) else \
                    written.targets[0] if isinstance(written, ast.Assign) else written.target
                if not _others_kept(loop, stmt, item):
                    if stripped is None:
                        stripped = _strips_system(module)
                    if whole or not stripped:
                        continue
                if whole and not _converted_whole(func, loop, target.id):
                    continue  # a partition whose system part is not read here
                if isinstance(target, ast.Name) and _folded_forward(loop, stmt, target.id):
                    continue  # each system text goes into the message after it, in place
                where = stmt.test if _by_content(stmt.body, written, item, target.id) else written
                newest = _into_newest(func, loop, target.id)
                out[id(written)] = (where, func.name, newest or target.id,
                                    "newest" if newest else _how(stmt.body, target.id))
                break  # (a nested function's loop is read again there: its own name wins)
    return sorted(out.values(), key=lambda f: (f[0].lineno, f[0].col_offset))


def _folded_forward(loop, branch_if, field: str) -> bool:
    """True when the loop's other messages read the system text gathered so far (`else:
    messages[i]["content"] = cur_system_message + "\n" + message["content"]`): each system message is
    folded into the message that follows it, where it stood, not moved before all messages."""
    if any(_emptied(n, field) for stmt in branch_if.body for n in subtree(stmt)):
        return False  # (the system branch empties it itself: nothing is carried to the next message)
    rest = list(branch_if.orelse) + loop.body[loop.body.index(branch_if) + 1:]
    return any(isinstance(n, ast.Name) and n.id == field and isinstance(n.ctx, ast.Load)
               for stmt in rest for n in subtree(stmt))


def _emptied(node, field: str) -> bool:
    """`field = None` (or `""`, `[]`): the name set back to nothing."""
    if not (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == field for t in node.targets)):
        return False
    value = node.value
    return isinstance(value, ast.Constant) and value.value in (None, "") \
        or isinstance(value, ast.List) and not value.elts


def _into_newest(func, loop, field: str) -> str | None:
    """The last item of a list the walk builds (`return_messages[-1]`) when, after the loop, the
    function writes the system text into it (`return_messages[-1]["content"] = str_system +
    sep + return_messages[-1]["content"]`, the text read from `field` or from a name assigned from
    it: `str_system = ",".join(system_messages)`): the system text then rides in the newest
    message, not in a field before all messages. None otherwise."""
    end = loop.end_lineno or loop.lineno
    after = [n for n in subtree(func) if getattr(n, "lineno", 0) > end]
    readers = {field}
    for n in after:
        if isinstance(n, ast.Assign) and any(isinstance(x, ast.Name) and x.id in readers for x in subtree(n.value)):
            readers |= {t.id for t in n.targets if isinstance(t, ast.Name)}
    for n in after:
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1
                and any(isinstance(x, ast.Name) and x.id in readers for x in subtree(n.value))):
            continue
        t = n.targets[0]
        while isinstance(t, (ast.Subscript, ast.Attribute)) and not _last_item(t):
            t = t.value
        if _last_item(t):
            return ast.unparse(t)
    return None


def _last_item(node) -> bool:
    """`name[-1]`: the last item of a list."""
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
        and isinstance(node.slice, ast.UnaryOp) and isinstance(node.slice.op, ast.USub) \
        and isinstance(node.slice.operand, ast.Constant) and node.slice.operand.value == 1


def _strips_system(module) -> bool:
    """True when the module filters the system messages out of a list
    (`[m for m in messages if m.role != "system"]`): the other messages of a conversation whose
    system text a loop collects are sent without them."""
    for comp in subtree(module.tree):  # (the module's kept walk: comprehensions are in it)
        if isinstance(comp, (ast.ListComp, ast.GeneratorExp)) and len(comp.generators) == 1 \
                and len(comp.generators[0].ifs) == 1 and isinstance(comp.generators[0].target, ast.Name) \
                and negated_system_test(comp.generators[0].ifs[0], comp.generators[0].target.id):
            return True
    return False


#: Calls that put the messages back into a list (`messages.extend(system_messages)`): a front
#: move, not a field (`find_front_moves`).
_LIST_PUTS = frozenset({"append", "extend", "insert", "index", "count", "remove"})


def _converted_whole(func, loop, name: str) -> bool:
    """True when, after the loop, the function reads the system messages it kept apart as a whole
    into text or blocks: the list handed to a call (`as_system_blocks(system_messages)`, not
    `len(...)`, not `messages.extend(...)`: put back into a list), or walked (`for m in system_messages`, a comprehension over it); not when it only
    looks at one of them (`system_messages[0]`) or refuses more than one (a `raise` under a test
    that reads it)."""
    after = [n for n in subtree(func) if getattr(n, "lineno", 0) > (loop.end_lineno or loop.lineno)]
    for n in after:
        if isinstance(n, ast.If) and any(isinstance(x, ast.Name) and x.id == name for x in subtree(n.test)) \
                and any(isinstance(x, ast.Raise) for x in subtree(n)):
            return False
    for n in after:
        if isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id in _TYPE_TESTS | {"bool"}) \
                and not (isinstance(n.func, ast.Attribute) and n.func.attr in _LIST_PUTS) \
                and any(isinstance(a, ast.Name) and a.id == name for a in n.args):
            return True
        if isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)) and isinstance(n.iter, ast.Name) \
                and n.iter.id == name:
            return True
    return False


#: Keywords of a request's system field (`system=`, Gemini's `system_instruction=`).
_FIELD_KEYWORDS = frozenset({"system", "system_instruction", "system_prompt", "instructions"})


def find_filtered_hoists(module) -> list[tuple[ast.AST, str, str, str]]:
    """(the comprehension, the function's name, the field's name, "joins") for each comprehension
    that takes the text of every system message of a conversation into the system field:
    `system = "\\n".join(m["content"] for m in messages if m["role"] == "system")`, its value (or
    the join of it) assigned to a name for the system prompt or given as a `system=` keyword, in a
    module that filters the system messages out of a list (`_strips_system`): the others are sent
    without them. Not the item itself (a partition: `find_front_moves`), not one of them
    (`next(...)`, `[...][0]`), not a test of the position."""
    if not _strips_system(module):
        return []
    out = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        if not holds_any(module, func, ("ystem",)):
            continue
        for n in subtree(func):
            field, value = None, None
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                    and _FIELD.match(n.targets[0].id):
                field, value = n.targets[0].id, n.value
            elif isinstance(n, ast.keyword) and n.arg in _FIELD_KEYWORDS:
                field, value = n.arg, n.value
            comp = _system_texts(value) if value is not None else None
            if comp is not None:
                out.append((comp, func.name, field, "joins"))
    return sorted({id(f[0]): f for f in out}.values(), key=lambda f: (f[0].lineno, f[0].col_offset))


def _system_texts(value) -> ast.AST | None:
    """The comprehension of `value` (itself, or joined: `sep.join(comp)`) that takes the text of the
    system messages of a conversation, or None."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "join" \
            and len(value.args) == 1:
        value = value.args[0]
    if not (isinstance(value, (ast.ListComp, ast.GeneratorExp)) and len(value.generators) == 1
            and len(value.generators[0].ifs) == 1 and isinstance(value.generators[0].target, ast.Name)):
        return None
    gen = value.generators[0]
    item = gen.target.id
    if not _CONVERSATION.search(ast.unparse(gen.iter)) or not is_system_test(gen.ifs[0], item):
        return None
    if not any(_field_of(x, item) for x in subtree(value.elt)):
        return None  # the message itself (a partition, `dict(m)`: a copy), or nothing of it
    return value


def _field_of(node, item: str) -> bool:
    """`item.content`, `item["content"]`, `item.get("content")`: a field read off the item."""
    if isinstance(node, (ast.Attribute, ast.Subscript)):
        return isinstance(node.value, ast.Name) and node.value.id == item
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == item


def _predicate_returns(module) -> dict[str, tuple[str, ast.AST]]:
    """{name: (its parameter, the value it returns)} for the module's functions of one parameter
    whose body (after a docstring) is one `return`: a test of a message kept in a function of
    its own (`def _is_instruction_message(m): return isinstance(m, SystemMessage) or ...`)."""
    out = {}
    for func in module.tree.body:
        if not isinstance(func, _FUNCS) or len(func.args.args) != 1:
            continue
        body = [s for s in func.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
            out[func.name] = (func.args.args[0].arg, body[0].value)
    return out


def _picks_system(test, item: str, predicates) -> bool:
    """A system test of the item (`is_system_test`), also through a predicate of the module called
    with the item whose returned test is one, alone or in an `or` (`isinstance(m, SystemMessage) or
    m.role in ("developer",)`: the instruction messages)."""
    if is_system_test(test, item):
        return True
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id in predicates
            and len(test.args) == 1 and isinstance(test.args[0], ast.Name) and test.args[0].id == item):
        return False
    param, value = predicates[test.func.id]
    tests = value.values if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or) else [value]
    return any(is_system_test(t, param) for t in tests)


def _filter_of(value, predicates) -> tuple[str, bool] | None:
    """(the conversation's text, True for the system part) of `[m for m in msgs if T(m)]` (or
    `not T(m)`, False) with T a system test, the item itself kept; else None."""
    if not (isinstance(value, ast.ListComp) and len(value.generators) == 1 and len(value.generators[0].ifs) == 1
            and isinstance(value.generators[0].target, ast.Name) and isinstance(value.elt, ast.Name)
            and value.elt.id == value.generators[0].target.id):
        return None
    gen = value.generators[0]
    item, test = gen.target.id, gen.ifs[0]
    if not _CONVERSATION.search(ast.unparse(gen.iter)):
        return None
    if _picks_system(test, item, predicates):
        return ast.unparse(gen.iter), True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _picks_system(test.operand, item, predicates):
        return ast.unparse(gen.iter), False
    return (ast.unparse(gen.iter), False) if negated_system_test(test, item) else None


def _into_field(func, name: str) -> bool:
    """True when the function hands `name` (the system messages) to a call whose value goes to the
    request's system field: assigned to a name for it, or to a name then written into one
    (`lifted = flatten(system_messages)`, `kwargs["instructions"] = lifted`), or given as one
    (`system=flatten(system_messages)`)."""
    results = set()  # names assigned the value of such a call
    direct = False
    for n in subtree(func):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.value, ast.Call) \
                and not (isinstance(n.value.func, ast.Attribute) and n.value.func.attr in _LIST_PUTS) \
                and any(isinstance(a, ast.Name) and a.id == name for a in n.value.args):
            target = n.targets[0]
            if isinstance(target, ast.Name):
                results.add(target.id)
                direct = direct or _FIELD.match(target.id) is not None and target.id != name
            elif _field_key(target):
                direct = True
        elif isinstance(n, ast.keyword) and n.arg in _FIELD_KEYWORDS and isinstance(n.value, ast.Call) \
                and any(isinstance(a, ast.Name) and a.id == name for a in n.value.args):
            direct = True
    if direct:
        return True
    for n in subtree(func):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and _field_key(n.targets[0]) \
                and isinstance(n.value, ast.Name) and n.value.id in results:
            return True
        if isinstance(n, ast.keyword) and n.arg in _FIELD_KEYWORDS and isinstance(n.value, ast.Name) \
                and n.value.id in results:
            return True
    return False


def _field_key(target) -> bool:
    """`request["instructions"]`, `kwargs["system"]`: a key of the request's system field."""
    return isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) \
        and target.slice.value in _FIELD_KEYWORDS


def find_lifted_partitions(module) -> list[tuple[ast.AST, str, str, str]]:
    """(the comprehension of the system part, the function's name, the field's name, "joins") for
    each function that splits a conversation by two filters, its system messages
    (`[m for m in messages if _is_system(m)]`) and the others (`... if not _is_system(m)`), and hands
    the system part whole to a call whose value becomes the request's system field
    (`kwargs["instructions"] = flatten(system_messages)`): every system message, wherever it was,
    moved before the whole history."""
    predicates = None
    out = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        if not holds_any(module, func, ("ystem", "nstruction")):
            continue
        if predicates is None:
            predicates = _predicate_returns(module)
        parts: dict[str, list] = {}  # conversation text -> [(name, comprehension, is the system part)]
        for n in subtree(func):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                part = _filter_of(n.value, predicates)
                if part is not None:
                    parts.setdefault(part[0], []).append((n.targets[0].id, n.value, part[1]))
        for found in parts.values():
            if not any(not system for _n, _c, system in found):
                continue  # (the others are not kept apart: the system part may be read for something else)
            for name, comp, system in found:
                if system and _into_field(func, name):
                    field = next((t.slice.value for t in (x.targets[0] for x in subtree(func) if isinstance(
                        x, ast.Assign) and len(x.targets) == 1) if _field_key(t)), name)
                    out.append((comp, func.name, field, "joins"))
                    break
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))
