"""System messages of anywhere in a conversation moved before it: facts for PRM105.

An adapter that converts a conversation for the Responses API walks every message and takes the
text of each system message out of the list into `instructions`:

    for message in messages:
        if message["role"] == "system":
            instructions_parts.append(text)
            continue
        items.append(...)

The field comes before every input item. A system message added later in the conversation (a
notice, a per-turn context message) is then moved in front of the whole history: the head of
the request changes on the turn it is added, and every turn's history is read uncached from then
on. Folding only the leading system messages (the walk stops at the first other message) keeps
the conversation's order and is not this shape.

Found when one loop over messages tests the item's role for "system" and, in that branch, adds
the text to a name of the Responses API's instructions (a name with `instruction` in it and not
`system`: appended, joined, assigned) and skips the item (`continue`, or the other messages go to
another list in the `else`), and no branch of the loop stops it (`break`). The Responses API
takes system and developer messages among its input items, so the move is the adapter's choice;
Anthropic's `system` and Gemini's `system_instruction` have no place in the messages, and an
adapter for them must move system messages out: those are left out.

The same move within the message list (`find_front_moves`): a converter that puts every system
message it meets at the head of the list it builds, wherever it was in the conversation

    for msg in messages:
        if isinstance(msg, SystemMessage):
            out.insert(0, {"role": "system", "content": msg.content})   # "front"
        else:
            out.append(...)

(the same list takes the other messages in their order, no `break`), or that splits the
conversation by role and joins the system part first (`system = [m for m in msgs if m["role"] ==
"system"]`, `rest = [m for m in msgs if m["role"] != "system"]`, `return system + rest`:
"partition"). A conversation whose only system message is its first keeps its order; whether the
callers add later ones is theirs (the rule says so). A system message put at index 0 outside such
a loop (one prompt of the function's own), a walk that keeps each message in its place, and a
system part kept apart for a field of its own are not ones.

The same move into the request's own system field (`find_field_hoists`): a converter for an API
whose system prompt is a field before all messages (Anthropic's `system`, Gemini's
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
one. Tests of the content (`isinstance(content, str)`, one write per kind of content, an unknown
kind refused) say how the text is read, not which messages move: the branch's own test is then
the move. A partition (the item itself appended to `system_messages`, the others to a list of
their own) is one when the function then reads that part whole into text or blocks
(`as_system_blocks(system_messages)`, a walk over it); not when it puts it back into a list
(`messages.extend(system_messages)`), looks at one of it, or refuses more than one.
"""
from __future__ import annotations

import ast
import re
from .module import statements
from .text_gates import holds_any
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _is_system_test(test, item: str) -> bool:
    """`m.role == "system"`, `m["role"] == "system"`, `role == "system"` (role read from the item),
    `isinstance(m, SystemMessage)`."""
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" \
            and len(test.args) == 2 and isinstance(test.args[0], ast.Name) and test.args[0].id == item:
        kinds = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        return bool(kinds) and all("System" in (k.id if isinstance(k, ast.Name) else k.attr if isinstance(
            k, ast.Attribute) else "") for k in kinds)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.In))):
        return False
    sides = [test.left, *test.comparators]
    names_system = any(isinstance(s, ast.Constant) and s.value == "system" for s in sides) or any(
        isinstance(s, (ast.Tuple, ast.List, ast.Set)) and any(
            isinstance(e, ast.Constant) and e.value == "system" for e in s.elts) for s in sides)
    return names_system and any(_role_of(s, item) for s in sides)


def _role_of(node, item: str) -> bool:
    if isinstance(node, ast.Attribute) and node.attr in ("role", "type"):
        return isinstance(node.value, ast.Name) and node.value.id == item
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == "role":
        return isinstance(node.value, ast.Name) and node.value.id == item
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args \
            and isinstance(node.args[0], ast.Constant) and node.args[0].value == "role":
        return isinstance(node.func.value, ast.Name) and node.func.value.id == item
    return isinstance(node, ast.Name) and node.id == "role"


def _field_written(body) -> ast.AST | None:
    """The call or assignment of a branch that adds text to the system field, or None."""
    for stmt in body:
        for n in subtree(stmt):
            target = None
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend"):
                target = n.func.value
            elif isinstance(n, (ast.Assign, ast.AugAssign)):
                target = n.targets[0] if isinstance(n, ast.Assign) else n.target
            name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) \
                else ""
            if name and "instruction" in name.lower() and "system" not in name.lower():
                return n
    return None


def _skips(branch, other) -> bool:
    """True when the system branch skips the item (`continue`) or the other messages are kept in
    the `else` branch."""
    return any(isinstance(s, ast.Continue) for s in branch) or bool(other)


def find_system_hoists(module) -> list[tuple[ast.AST, str]]:
    """(the call or assignment that adds a system message's text to the field, the function's name) for
    each loop of the shape in the module docstring, in source order."""
    out = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        if not holds_any(module, func, ("for",)):
            continue  # (a loop: the cheap test before the function's walk)
        for loop in subtree(func):
            if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(loop.target, ast.Name):
                continue
            if any(isinstance(n, ast.Break) for n in subtree(loop)):
                continue  # only the leading system messages, or a search
            item = loop.target.id
            for stmt in loop.body:
                if isinstance(stmt, ast.If) and _is_system_test(stmt.test, item) and _skips(stmt.body, stmt.orelse):
                    written = _field_written(stmt.body)
                    if written is not None:
                        out.append((written, func.name))
                        break
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))


#: A comprehension filtered by a test that names a system message (`for m in msgs if m["role"] == "system"`).
_SYSTEM_FILTER = re.compile(r"for \w+ in [\w.]+ if [^\n]*ystem")


def might_move(source: str) -> bool:
    """The text test before `find_front_moves`: a system word and a put at the head, or a
    comprehension filtered by a test naming a system message."""
    return "ystem" in source and ("insert(0" in source or _SYSTEM_FILTER.search(source) is not None)


def _negated_system_test(test, item: str) -> bool:
    """`m["role"] != "system"`, `m.role not in ("system",)`, `not isinstance(m, SystemMessage)`."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _is_system_test(test.operand, item)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.NotEq, ast.NotIn)):
        flipped = ast.Compare(left=test.left, ops=[ast.Eq() if isinstance(test.ops[0], ast.NotEq) else ast.In()],
                              comparators=test.comparators)
        return _is_system_test(flipped, item)
    return False


def find_front_moves(module) -> list[tuple[ast.AST, str, str]]:
    """(the move, the function's name, "front" | "partition") for each converter of the second shape
    of the module docstring, in source order: the `insert(0, ...)` call, or the join."""
    out = []
    src = module.source
    put_lines = _lines(src, (m.start() for m in re.finditer(r"\.insert\(0", src)))
    filter_lines = _lines(src, (m.start() for m in _SYSTEM_FILTER.finditer(src)))
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        span = range(func.lineno, (func.end_lineno or func.lineno) + 1)
        puts = any(line in span for line in put_lines) and holds_any(module, func, ("ystem",))
        if not puts and not any(line in span for line in filter_lines):
            continue  # (the cheap text tests before the function's walk)
        nodes = list(subtree(func))
        for loop in nodes if puts else ():
            if isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(loop.target, ast.Name):
                found = _front_insert(loop)
                if found is not None:
                    out.append((found, func.name, "front"))
        joined = _partition_join(nodes)
        if joined is not None:
            out.append((joined, func.name, "partition"))
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))


def _lines(source: str, starts) -> list[int]:
    """The 1-based lines of these character offsets."""
    return [source.count("\n", 0, start) + 1 for start in starts]


def _front_insert(loop) -> ast.Call | None:
    """The `out.insert(0, ...)` of a branch testing the loop's item for a system message, where the
    loop adds the other messages to `out` too and never stops."""
    item = loop.target.id
    inner = [n for n in subtree(loop) if n is not loop]
    if any(isinstance(n, ast.Return) for n in inner) or _breaks(loop.body):
        return None  # stops: the leading messages only, or a search
    added = {n.func.value.id for n in inner if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr in ("append", "extend") and isinstance(n.func.value, ast.Name)}
    for branch in inner:
        if not (isinstance(branch, ast.If) and _is_system_test(branch.test, item)):
            continue
        for n in (x for stmt in branch.body for x in subtree(stmt)):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "insert" \
                    and isinstance(n.func.value, ast.Name) and n.func.value.id in added and len(n.args) == 2 \
                    and isinstance(n.args[0], ast.Constant) and n.args[0].value == 0:
                return n
    return None


def _breaks(body) -> bool:
    """True when a `break` of these statements ends their own loop (not one of a loop inside)."""
    for stmt in body:
        if isinstance(stmt, ast.Break):
            return True
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, *_FUNCS, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            if _breaks([x for x in getattr(stmt, field, ()) if isinstance(x, ast.AST)]):
                return True
        if isinstance(stmt, ast.ExceptHandler) and _breaks(stmt.body):
            return True
    return False


def _partition_join(nodes) -> ast.AST | None:
    """The join of a conversation's system part before the rest: `system + rest` (or `[*system,
    *rest]`), both parts filtered from one list by a test of the item's role, the system part
    first."""
    parts: dict[str, tuple[str, bool]] = {}  # name -> (the list filtered, whether it is the system part)
    for n in nodes:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            part = _filtered(n.value)
            if part is not None:
                parts[n.targets[0].id] = part
    for n in nodes:
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add):
            pair = [n.left, n.right]
        elif isinstance(n, ast.List) and len(n.elts) == 2 and all(isinstance(e, ast.Starred) for e in n.elts):
            pair = [e.value for e in n.elts]
        else:
            continue
        first, second = (parts.get(p.id) if isinstance(p, ast.Name) else _filtered(p) for p in pair)
        if first and second and first[0] == second[0] and first[1] and not second[1]:
            return n
    return None


def _filtered(value) -> tuple[str, bool] | None:
    """(the list a comprehension filters, True for its system messages / False for the others) for
    `[m for m in msgs if <a test of m's role>]`, or None."""
    if not (isinstance(value, ast.ListComp) and len(value.generators) == 1 and len(value.generators[0].ifs) == 1):
        return None
    gen = value.generators[0]
    if not (isinstance(gen.target, ast.Name) and isinstance(gen.iter, (ast.Name, ast.Attribute))):
        return None
    listed = ast.unparse(gen.iter)
    if _is_system_test(gen.ifs[0], gen.target.id):
        return listed, True
    if _negated_system_test(gen.ifs[0], gen.target.id):
        return listed, False
    return None


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
    third shape of the module docstring, in source order."""
    out: dict[int, tuple] = {}
    stripped = None  # (whether the module filters system messages out of a list: computed once, when needed)
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        if not holds_any(module, func, ("ystem",)):
            continue
        for loop in subtree(func):
            if not isinstance(loop, (ast.For, ast.AsyncFor)):
                continue
            item = _item_of(loop)
            if item is None or not _CONVERSATION.search(ast.unparse(loop.iter)) or _breaks(loop.body) \
                    or any(isinstance(n, ast.Return) for n in subtree(loop)):
                continue
            for stmt in loop.body:
                if not (isinstance(stmt, ast.If) and _is_system_test(stmt.test, item)):
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
                where = stmt.test if _by_content(stmt.body, written, item, target.id) else written
                out[id(written)] = (where, func.name, target.id, _how(stmt.body, target.id))
                break  # (a nested function's loop is read again there: its own name wins)
    return sorted(out.values(), key=lambda f: (f[0].lineno, f[0].col_offset))


def _strips_system(module) -> bool:
    """True when the module filters the system messages out of a list
    (`[m for m in messages if m.role != "system"]`): the other messages of a conversation whose
    system text a loop collects are sent without them."""
    for comp in ast.walk(module.tree):
        if isinstance(comp, (ast.ListComp, ast.GeneratorExp)) and len(comp.generators) == 1 \
                and len(comp.generators[0].ifs) == 1 and isinstance(comp.generators[0].target, ast.Name) \
                and _negated_system_test(comp.generators[0].ifs[0], comp.generators[0].target.id):
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
