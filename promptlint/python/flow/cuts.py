"""Shapes of code that cut a list (read by the statement reader, scopes.py): an item removed in
a loop (`messages.pop(0)`, `del messages[i]` over the first indices, a pop in a `while` loop that
runs until a size fits), a newest-first walk that stops at a bound (`for m in reversed(xs)`, a
walk by index from `len(xs) - 1`). Each function reads syntax only and returns the name or node of
the list it cuts, or None."""
from __future__ import annotations

import ast
from ..walk import block_nodes, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def drops_oldest(stmt, loop=None) -> str | None:
    """The name of the list `name.pop(0)` / `name.pop(1)` / `del name[0]` / `del name[1]` removes
    one of the first messages from (the first after a system message), or `name.pop(i)` at an index
    at its middle (`len(name) // 2`) or in a `while` loop (`loop` True: not the item of a
    `for` loop, which would be a filter) - a message of its middle; the popped message is thrown
    away, not taken out to be used - else None."""
    if isinstance(stmt, ast.Expr):
        call = removed_item(stmt.value) or stmt.value
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "pop"
                and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords):
            index = call.args[0]
            if isinstance(index, ast.Constant) and index.value in (0, 1):
                return call.func.value.id
            counted = isinstance(index, ast.BinOp) and isinstance(index.op, ast.FloorDiv) and any(
                isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len"
                for n in subtree(index))
            if counted or isinstance(index, ast.Name) and loop is True:
                return call.func.value.id  # not a constant: not the newest end (-1)
        return None
    if len(stmt.targets) == 1:
        t = stmt.targets[0]
        if (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and isinstance(t.slice, ast.Constant)
                and t.slice.value in (0, 1)):
            return t.value.id
        if (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and isinstance(t.slice, ast.Name)
                and isinstance(loop, tuple) and front_indices(loop, t.slice.id, t.value.id)):
            return t.value.id  # `for i in reversed(range(cut)): del messages[i]`: the first `cut` removed
    return None


def removed_item(call) -> ast.Call | None:
    """`name.remove(name[i])` (the list handed one of its own items by index) read as the pop of
    that index, `name.pop(i)`: a call node made for the reading (its position that of the remove),
    else None. A remove of any other value (`tools.remove(tool)`) is none: which item it finds is
    not known."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "remove"
            and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords):
        return None
    item = call.args[0]
    if not (isinstance(item, ast.Subscript) and isinstance(item.value, ast.Name)
            and item.value.id == call.func.value.id and not isinstance(item.slice, ast.Slice)):
        return None
    pop = ast.Call(func=ast.Attribute(value=call.func.value, attr="pop", ctx=ast.Load()), args=[item.slice], keywords=[])
    return ast.copy_location(pop, call)


def front_cut(stmt, env: dict) -> ast.expr | None:
    """The target of `t = xs[k:]` (a name, `d["key"]`) when it drops the first k items of the list
    the target holds: `history = history[2:]`, or `xs` read from the target in the loop
    (`chat_history = inputs["chat_history"]`, then `inputs["chat_history"] = chat_history[2:]`).
    In a `while` loop that runs until a size fits, the oldest messages dropped until it fits; a
    slice from the end (`xs[-k:]`) or to a bound (`xs[k:n]`) is no front cut; else None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    target, value = stmt.targets[0], stmt.value
    if not (front_slice(value) and isinstance(value.value, ast.Name)):
        return None
    if not (isinstance(target, ast.Name) or isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
            and isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str)):
        return None
    held = ast.dump(target, annotate_fields=False).replace("Store()", "Load()")
    base = value.value
    if isinstance(target, ast.Name) and base.id == target.id:
        return target
    th = env.get(base.id)
    read = th.node if th is not None and th.kind == "expr" else None
    reads = [read.body, read.orelse] if isinstance(read, ast.IfExp) else [read]
    return target if any(r is not None and ast.dump(r, annotate_fields=False) == held for r in reads) else None


def front_slice(value) -> bool:
    """True for `xs[k:]` with k a positive number or a count (`xs[start:]`): the list without its
    first k items; not `xs[-k:]` (its newest), `xs[0:]`, nor a slice to a bound (`xs[k:n]`)."""
    if not (isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice)):
        return False
    cut = value.slice
    lower = cut.lower
    return not (cut.upper is not None or cut.step is not None or lower is None or isinstance(lower, ast.UnaryOp)
                or isinstance(lower, ast.Constant) and not (type(lower.value) is int and lower.value > 0))


def dropped_until(stmt) -> str | None:
    """The name of the list `name.pop()` / `name.pop(i)` / `del name[...]` removes an item of
    (the item thrown away), in a `while` loop that runs until a size fits: `while tokens >
    budget: messages.pop()` drops messages until the conversation fits (from its oldest end in
    a list kept newest first; no chat drops its newest messages to fit), else None."""
    if isinstance(stmt, ast.Expr):
        call = removed_item(stmt.value) or stmt.value
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "pop"
                and isinstance(call.func.value, ast.Name) and len(call.args) <= 1 and not call.keywords):
            return call.func.value.id
        return None
    if isinstance(stmt, ast.Delete) and len(stmt.targets) == 1:
        t = stmt.targets[0]
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
            return t.value.id
    return None


def taken_until(stmt) -> str | None:
    """The name of the list `old = name.pop(0)` (or `name.pop()`) takes an item out of, in a `while`
    loop that runs until a size fits: the oldest messages dropped until the conversation fits, each
    kept to be summarised or logged (`while tokens > budget: pruned.append(messages.pop(0))` reads
    as an append), else None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return dropped_until(ast.Expr(value=stmt.value))
    return None


def front_indices(loop: tuple, index: str, listed: str) -> bool:
    """True when the loop `loop` (iterable node, bindings before it, outer loop) walks as `index`
    the first indices of a list up to a bound that is not its length: `range(cut)`,
    `reversed(range(cut))`, or a list of indices picked from such a range (`[i for i in
    range(cut) if ...]`); deleting them (`del listed[i]`) removes its oldest items. A walk over
    `range(len(listed))` visits every item: a filter, not a cut."""
    it, env = loop[0], loop[1]
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "reversed" and len(it.args) == 1:
        it = it.args[0]
    if isinstance(it, ast.Name):
        th = env.get(it.id)
        it = th.node if th is not None and th.kind == "expr" else None
    if isinstance(it, (ast.ListComp, ast.GeneratorExp)) and len(it.generators) == 1:
        it = it.generators[0].iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and it.args):
        return False
    if len(it.args) > 1 and not (isinstance(it.args[0], ast.Constant) and it.args[0].value in (0, 1)):
        return False
    bound = it.args[1] if len(it.args) > 1 else it.args[0]
    if isinstance(bound, ast.Constant):
        return False
    return not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len"
                   and n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == listed for n in subtree(bound))


def newest_first(stmt, stops: bool = True) -> ast.expr | None:
    """`xs` of a loop that walks `reversed(xs)`, `xs[::-1]` or `range(len(xs) - 1, stop, -1)` over
    `xs[i]` (newest item first) and can stop
    early (a `break` of its own; `stops` False: whether or not), else None: what it keeps is a
    window of xs's newest items."""
    it = stmt.iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "reversed" and len(it.args) == 1:
        source = it.args[0]
    elif (isinstance(it, ast.Subscript) and isinstance(it.slice, ast.Slice) and it.slice.lower is None
            and it.slice.upper is None and isinstance(it.slice.step, ast.UnaryOp)
            and isinstance(it.slice.step.op, ast.USub)):
        source = it.value
    else:
        source = _index_down(stmt)
        if source is None:
            return None
    return source if not stops or breaks(stmt.body) else None


def _index_down(stmt) -> ast.expr | None:
    """`xs` of `for i in range(len(xs) - 1, stop, -1)` whose body reads `xs[i]`: a walk by index
    from the newest item down, as `for m in reversed(xs)`; else None."""
    it = stmt.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
            and len(it.args) == 3 and isinstance(stmt.target, ast.Name)):
        return None
    start, step = it.args[0], it.args[2]
    if not (isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub) and isinstance(step.operand, ast.Constant)
            and step.operand.value == 1 and isinstance(start, ast.BinOp) and isinstance(start.op, ast.Sub)
            and isinstance(start.right, ast.Constant) and start.right.value == 1 and isinstance(start.left, ast.Call)
            and isinstance(start.left.func, ast.Name) and start.left.func.id == "len" and len(start.left.args) == 1
            and isinstance(start.left.args[0], ast.Name)):
        return None
    source, index = start.left.args[0], stmt.target.id
    reads = any(isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == source.id
                and isinstance(n.slice, ast.Name) and n.slice.id == index
                for s in stmt.body for n in subtree(s))
    return source if reads else None


def breaks(stmts, bound: bool = False) -> bool:
    """Whether a loop body holds a `break` of its own loop (not of a loop nested in it) taken
    when a bound is reached: under an `if` that compares sizes (`if tokens > budget:`, `if
    len(kept) >= limit:`). A break on what an item is (`if msg.role == "assistant": break`: the
    messages since the last answer) keeps the newest turn, not a window of a budget."""
    for stmt in stmts:
        if isinstance(stmt, ast.Break):
            if bound:
                return True
            continue
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, *_FUNCS, ast.ClassDef)):
            continue
        inner = bound or isinstance(stmt, ast.If) and compares_sizes(stmt.test)
        for body in ("body", "orelse", "finalbody"):
            if breaks(getattr(stmt, body, ()) or (), inner):
                return True
        if any(breaks(h.body, bound) for h in getattr(stmt, "handlers", ())):
            return True
    return False


def bound_stop(stmts) -> ast.expr | None:
    """The test of the `if` whose branch holds the `break` that `breaks(stmts)` finds (`if tokens
    > budget: ... break`): where a newest-first walk stops at its bound (what is older is dropped,
    the message there shortened when the branch does so); None when there is none."""
    for stmt in stmts:
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, *_FUNCS, ast.ClassDef)):
            continue
        if isinstance(stmt, ast.If) and compares_sizes(stmt.test) and breaks(stmt.body + stmt.orelse, True):
            inner = bound_stop(stmt.body) or bound_stop(stmt.orelse)
            return inner if inner is not None else stmt.test
        for body in ("body", "orelse", "finalbody"):
            found = bound_stop(getattr(stmt, body, ()) or ())
            if found is not None:
                return found
        for h in getattr(stmt, "handlers", ()):
            found = bound_stop(h.body)
            if found is not None:
                return found
    return None


def compares_sizes(test) -> bool:
    """True for a condition that orders two values (`>`, `>=`, `<`, `<=`): a size against a bound;
    or that compares a value with a whole number (`if turns_left == 0:`, a countdown)."""
    return any(isinstance(n, ast.Compare) and any(
        isinstance(op, (ast.Gt, ast.GtE, ast.Lt, ast.LtE)) or isinstance(op, ast.Eq) and _count(right)
        for op, right in zip(n.ops, n.comparators)) for n in subtree(test))


def _count(node) -> bool:
    """True for a whole number written in the code (`0`: a countdown reaching its end)."""
    return isinstance(node, ast.Constant) and type(node.value) is int


def walks_back(stmt, env: dict) -> ast.expr | None:
    """`xs` of a `while` loop that walks xs by an index from its end (`k = len(xs) - 1`, then
    `while k >= 0: m = xs[k] ... k -= 1`) and can stop at a bound (a `break` under a size test):
    what it keeps is a window of xs's newest items, as with `for m in reversed(xs)`; else None."""
    if not isinstance(stmt, ast.While) or not isinstance(stmt.test, ast.Compare):
        return None
    index = next((n.id for n in [stmt.test.left, *stmt.test.comparators] if isinstance(n, ast.Name)), None)
    th = env.get(index)
    init = th.node if th is not None and th.kind == "expr" else None
    if not (isinstance(init, ast.BinOp) and isinstance(init.op, ast.Sub) and isinstance(init.left, ast.Call)
            and isinstance(init.left.func, ast.Name) and init.left.func.id == "len" and len(init.left.args) == 1
            and isinstance(init.left.args[0], ast.Name)):
        return None
    source = init.left.args[0]
    nodes = block_nodes(stmt.body)
    steps = any(isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Sub) and isinstance(n.target, ast.Name)
                and n.target.id == index for n in nodes)
    reads = any(isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == source.id
                and isinstance(n.slice, ast.Name) and n.slice.id == index for n in nodes)
    return source if steps and reads and breaks(stmt.body) else None


def appended(stmts, prepends: bool = False) -> set[str]:
    """The names `name.append(...)` / `.insert` / `.extend` / `name += ...` grow in a loop body
    (not `budget -= n`: a counter is not what the loop keeps); `prepends`: also `name = [x] +
    name` (an item put before the others)."""
    names = set()
    for node in block_nodes(stmts):
        if (prepends and isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.BinOp)
                and isinstance(node.value.op, ast.Add) and isinstance(node.value.right, ast.Name)
                and node.value.right.id == node.targets[0].id):
            names.add(node.targets[0].id)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("append", "extend", "insert") and isinstance(node.func.value, ast.Name):
            names.add(node.func.value.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def method_cuts(cls, call) -> str | None:
    """The attribute `A` that the method `self.m(...)` called by `call` removes items of (`del
    self.A[start:end]`, `self.A.pop(i)` in its own body), for a method of the class `cls`
    around the call; else None. Called in a loop that runs until a size fits, it cuts `self.A`."""
    f = call.func if isinstance(call, ast.Call) else None
    if cls is None or not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self"):
        return None
    method = next((n for n in cls.body if isinstance(n, _FUNCS) and n.name == f.attr), None)
    for node in subtree(method) if method is not None else ():
        target = None
        if isinstance(node, ast.Delete) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
            target = node.targets[0].value
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "pop"
              and node.args):
            target = node.func.value
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
            return target.attr
    return None


def rewritten(stmt) -> str | None:
    """The name of the list `xs[i] = shorter` replaces an item of at an index that is not a key
    (`hist[k] = truncate(hist[k])`): in a loop that runs until a size fits, a message shortened
    in place, a cut of the conversation; else None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        t = stmt.targets[0]
        if (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and not isinstance(t.slice, ast.Slice)
                and not (isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str))):
            return t.value.id
    return None


def masks_older(stmt) -> tuple[ast.Name, ast.stmt, str] | None:
    """A `for` loop over a list `xs` (`for m in xs`, `for i, m in enumerate(xs)`) that replaces
    the content of the items outside its newest ones (`m["content"] = "(omitted)"`, `copy.content
    = ...`) in a branch of a test of the item's place counted from the end (`if i < len(xs) -
    keep:`, `if n in range(total - keep + 1, total + 1):`): each new item moves the boundary, so
    one more old item is rewritten on every turn. (source `xs`, the rewriting statement, the name
    of what it rewrites) or None."""
    it = stmt.iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" and it.args:
        it = it.args[0]
    newest = newest_first(stmt, stops=False)
    if newest is not None:
        it = newest
    if not isinstance(it, ast.Name):
        return None
    nodes = block_nodes(stmt.body)
    seen = {n.func.value.id for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr in ("add", "append") and isinstance(n.func.value, ast.Name)} if newest is not None else set()
    for node in nodes:
        if isinstance(node, ast.If) and (_from_end(node.test) or _superseded(node.test, seen)):
            for branch in (node.body, node.orelse):
                found = next((s for s in branch if _rewrites_content(s)), None)
                if found is not None:
                    return it, found, _rewrites_content(found)
    if newest is not None and isinstance(stmt.target, ast.Name):
        found = _newest_once(nodes, stmt.target.id)
        if found is not None:
            return it, found, found.targets[0].value.id
        found = _older_dropped(stmt.body, nodes, stmt.target.id)
        if found is not None:
            return it, found, stmt.target.id
    return None


def _older_dropped(body: list, nodes: list, item: str) -> ast.If | None:
    """In a newest-first walk over `item` that keeps the items it reaches (`kept.append(m)`,
    `kept = [m] + kept`), the `if` that skips an item (`continue`) when the walk has already kept
    a newer one of its kind: its test reads the item and either a flag the walk sets under a test
    (`if "<code>" in m.content and code is not None: continue`, where `code = ...` is set under
    an `if`) or a collection it fills (`if m.name in seen: continue`, with `seen.add(m.name)`).
    Only the newest of that kind is kept, so each new one drops an older one from the middle of
    what is sent. A name set on every item (`text = m.content`) is no flag: a filter of each item."""
    flags = {t.id for branch in nodes if isinstance(branch, ast.If) for s in branch.body
             if isinstance(s, (ast.Assign, ast.AugAssign))
             for t in (s.targets if isinstance(s, ast.Assign) else [s.target]) if isinstance(t, ast.Name)}
    filled = {n.func.value.id for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
              and n.func.attr in ("add", "update", "append") and isinstance(n.func.value, ast.Name)}
    kept = {n for n in appended(body, prepends=True) if _adds_item(nodes, n, item)}
    if not kept:
        return None
    for stmt in body:
        if not (isinstance(stmt, ast.If) and stmt.body and isinstance(stmt.body[-1], ast.Continue)):
            continue
        read = {n.id for n in subtree(stmt.test) if isinstance(n, ast.Name)}
        members = {c.comparators[0].id for c in subtree(stmt.test) if isinstance(c, ast.Compare) and len(c.ops) == 1
                   and isinstance(c.ops[0], ast.In) and isinstance(c.comparators[0], ast.Name)}
        if item in read and (read & flags - kept - {item} or members & filled - kept):
            return stmt
    return None


def _adds_item(nodes: list, name: str, item: str) -> bool:
    """True when the loop adds the item itself to `name` (`name.append(item)`, `name = [item] + name`)."""
    for n in nodes:
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                and n.func.value.id == name and n.func.attr in ("append", "insert"):
            added = n.args[-1:] if n.args else []
        elif isinstance(n, ast.Assign) and isinstance(n.value, ast.BinOp) and isinstance(n.value.left, ast.List) \
                and any(isinstance(t, ast.Name) and t.id == name for t in n.targets):
            added = n.value.left.elts
        else:
            continue
        if any(isinstance(a, ast.Name) and a.id == item for a in added):
            return True
    return False


def _newest_once(nodes, item: str) -> ast.Assign | None:
    """In a newest-first walk over `item`, the statement that gives a copy of the first item a test
    picks, once (a flag set after it), content of its own (`if not done and m["role"] ==
    "assistant": new = dict(m); new["reasoning"] = last; done = True`): the copy is sent, the list
    keeps the item as it was, so on the next turn a newer item is picked and this one goes out
    without it. A cache breakpoint set so (`new["cache_control"] = ...`) is no content."""
    for node in nodes:
        if not isinstance(node, ast.If):
            continue
        tests = node.test.values if isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.And) \
            else [node.test]
        unset = {t.operand.id for t in tests if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not)
                 and isinstance(t.operand, ast.Name)}
        set_once = {s.targets[0].id for s in node.body if isinstance(s, ast.Assign) and len(s.targets) == 1
                    and isinstance(s.targets[0], ast.Name) and isinstance(s.value, ast.Constant) and s.value.value is True}
        if not unset & set_once:
            continue
        copies = {s.targets[0].id for s in node.body if isinstance(s, ast.Assign) and len(s.targets) == 1
                  and isinstance(s.targets[0], ast.Name) and _copy_of(s.value, item)}
        for s in node.body:
            t = s.targets[0] if isinstance(s, ast.Assign) and len(s.targets) == 1 else None
            key = t.slice.value if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) else \
                t.attr if isinstance(t, ast.Attribute) else ""
            if isinstance(t, (ast.Subscript, ast.Attribute)) and isinstance(t.value, ast.Name) \
                    and t.value.id in copies and key != "cache_control":
                return s
    return None


def _copy_of(value, item: str) -> bool:
    """True for a shallow or deep copy of the name `item` (`dict(m)`, `m.copy()`, `copy.copy(m)`,
    `copy.deepcopy(m)`, `{**m}`)."""
    if isinstance(value, ast.Dict):
        return len(value.keys) >= 1 and value.keys[0] is None and isinstance(value.values[0], ast.Name) \
            and value.values[0].id == item
    if not isinstance(value, ast.Call):
        return False
    f = value.func
    if isinstance(f, ast.Attribute) and f.attr == "copy" and not value.args:
        return isinstance(f.value, ast.Name) and f.value.id == item
    named = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
    return named in ("dict", "copy", "deepcopy") and len(value.args) == 1 and isinstance(value.args[0], ast.Name) \
        and value.args[0].id == item


def _superseded(test, seen: set) -> bool:
    """True for `key in seen` where `seen` is what a newest-first walk has collected: an item
    whose key a newer item has too (an older view of the same file, a repeated tool result)."""
    return (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In)
            and isinstance(test.comparators[0], ast.Name) and test.comparators[0].id in seen)


def _from_end(test) -> bool:
    """True for a test that places an item against a count minus a window (`len(xs) - keep`,
    `total - n + 1`): a subtraction of a value that is not a constant."""
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and not isinstance(n.right, ast.Constant)
               for n in subtree(test))


def _rewrites_content(stmt) -> str | None:
    """The name whose content a statement replaces (`m["content"] = ...`, `m.content = ...`)."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        t = stmt.targets[0]
        if (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and isinstance(t.slice, ast.Constant)
                and t.slice.value in ("content", "text")):
            return t.value.id
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.attr in ("content", "text"):
            return t.value.id
    return None


def runs_until_it_fits(stmt) -> bool:
    """True for a `while` loop that runs until a size fits a bound (`while tokens(hist) > limit:`,
    `while len(messages) > keep:`), not one that steps an index or counter of its test (`while i <
    len(xs): ... i += 1`: a walk over every item)."""
    if not isinstance(stmt, ast.While) or not compares_sizes(stmt.test):
        return False
    tested = {n.id for n in subtree(stmt.test) if isinstance(n, ast.Name)}
    return not any(isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id in tested
                   for n in block_nodes(stmt.body))


def restores_length(stmt, env: dict) -> bool:
    """True for a `while` loop that pops a list back to a length it had earlier in the function
    (`n = len(messages)`, then `while len(messages) > n: messages.pop()`): it removes what the
    function added to it since (its own retry messages), not the conversation's oldest messages."""
    test = stmt.test if isinstance(stmt, ast.While) else None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    left, right = test.left, test.comparators[0]
    if isinstance(test.ops[0], (ast.Lt, ast.LtE)):
        left, right = right, left
    elif not isinstance(test.ops[0], (ast.Gt, ast.GtE, ast.NotEq)):
        return False
    th = env.get(right.id) if isinstance(right, ast.Name) else None
    was = th.node if th is not None and th.kind == "expr" else None
    return _length_of(left) is not None and _length_of(left) == _length_of(was)


def _length_of(node) -> str | None:
    """The dump of `xs` in `len(xs)`, else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
        return ast.dump(node.args[0])
    return None


def pops_run(stmt) -> bool:
    """True for a `while` loop whose test reads the item at the place it pops (`while i < len(msgs)
    and msgs[i]["role"] == "tool": msgs.pop(i)`): it removes the run of items of a kind that sits
    there (the tool results of a reply removed before it), chosen by what they are, not by a size."""
    if not isinstance(stmt, ast.While):
        return False
    read = {(n.value.id, n.slice.id) for n in subtree(stmt.test) if isinstance(n, ast.Subscript)
            and isinstance(n.value, ast.Name) and isinstance(n.slice, ast.Name)}
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "pop"
               and isinstance(n.func.value, ast.Name) and len(n.args) == 1 and isinstance(n.args[0], ast.Name)
               and (n.func.value.id, n.args[0].id) in read for n in block_nodes(stmt.body))
