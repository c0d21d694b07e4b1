"""A stored conversation read back in whatever order the store gives: facts for PRM105 (the rule
judges them).

The read method of a message store (`get_messages`, `read` of a class that keeps a conversation:
`newest_queries.message_reader`) that reads its records and returns them as they come, with no order
asked for, hands on a history whose order the store does not promise. SQL gives rows in no set
order without `ORDER BY` (a plan change, a parallel scan, a table rewritten after updates or a
vacuum, a distributed store), a document store's `find` without a sort gives its natural order,
and a key-value range gives its keys' byte order (or none, for a store that scans), the time order
only where the key holds a time. When the order changes between two requests, the history differs
from its first moved message on and everything after it is read uncached. The evidence is the
query's words, all in that one function:

- SQL text that selects rows (`SELECT ... FROM ...`, a literal or a module-level constant) with no
  `ORDER BY`, run by a call (`execute`, `fetch`, `query`, ...);
- a SQLAlchemy statement (`select(Model)`) or an ORM query (`session.query(Model)`) given no
  `order_by`;
- a document store's `find` given a filter document (`coll.find({"thread": t})`), or the same
  named through an adapter (`conn.execute("messages", "find", {"thread": t})`), given no sort;
- a key-value store's range read (`values_in_range(...)`, `keys_in_range(...)`, `scan_iter(match=...)`).

The read may also be made by a generic read helper of the package that the reader calls by name
(`rows = await db.read_data("chats", filters)`, with `read_data` running `select(model)` and its
filters only): where every method of that name the package defines reads so and orders nothing,
the helper's read is the fact, with the reader's call.

A function that orders anything itself (`sorted(...)`, `.sort(...)`, `order_by`, a `sort` key or
keyword, `ORDER BY` in any of its text), aggregates (`GROUP BY`, `func.count(...)`), reads one record
(`fetchone()`, `.first()`, `LIMIT 1`, also on the name its result is bound to) or returns a map (a
lookup by id: `-> dict`, a dict built and returned) is not this; nor is a read whose words (the
function's, its class's or the query's) say nothing of messages (`get_history` of a prompt's versions:
"history" alone is no conversation). A helper's rows are the conversation only where the reader
returns them, or walks them into the list it returns (not a lookup built beside the messages). The fact is the node of the read (the SQL text, the statement, the call), for an info
where the order is left to the store (the request is not linked).
"""
from __future__ import annotations

import ast
import re

from . import anchored
from .flow.store_reads import method_class
from .newest_queries import _query_text, message_reader
from .walk import outer_functions, subtree

#: The cheap test of a module's text: a store's read of many records.
STORE_TEXT = re.compile(r"\bSELECT\b|\bselect\(|\.find\(|[\"']find[\"']|_in_range\(|\bscan_iter\(|\.query\(")
#: The test a file passes to be analysed at all (`prefilter`): a function named for reading the
#: conversation back, or a read verb in a class named for keeping one (bounded repetition: linear).
READER_DEF = re.compile(r"(?i)def[ \t]{1,4}_{0,2}a?(?:get|load|fetch|read|retrieve|query|list)_?\w{0,30}"
                        r"(?:messages|history|conversation|turns|dialog|transcript|msgs)\w{0,20}\(")
READER_TEXT = re.compile(READER_DEF.pattern + r"|class[ \t]{1,4}\w{0,30}(?:Message|History|Conversation|Chat|Dialog"
                         r"|Transcript)\w{0,30}[(:]")
#: Where a match of `READER_TEXT` starts: at `def` or `cla(ss)`, in any case (`anchored.found`: the
#: pattern, which has no literal start, is tried there only).
READER_HEADS = ("def", "cla")
#: The text of a call of a method named for reading records (`db.read_data(`, `store.fetch_rows(`).
HELPER_CALL = re.compile(r"\.(?:read|get|fetch|load|query|list|find|select)_\w{1,40}\(")

_SQL_READ = re.compile(r"(?is)^\s*SELECT\b.*\bFROM\b")
_ONE_ROW = re.compile(r"(?i)\bLIMIT\s+1\b|\bCOUNT\s*\(|\bEXISTS\s*\(")
#: Methods that run SQL text given as their first argument.
_RUNS = frozenset({"execute", "aexecute", "fetch", "fetchall", "fetch_all", "exec", "exec_driver_sql", "query",
                   "executemany", "read_sql", "read_sql_query"})
#: Methods of a query or its result that read one record.
_SINGLE = frozenset({"fetchone", "fetchrow", "fetchval", "fetch_one", "fetch_val", "first", "one", "one_or_none",
                     "scalar", "scalar_one", "scalar_one_or_none", "find_one"})
_RANGES = frozenset({"values_in_range", "keys_in_range", "items_in_range", "scan_iter"})
#: Words of a function's text that say it orders what it reads.
_ORDERS = re.compile(r"(?i)\bsorted\(|\.sort\(|order_by|sort_by|ORDER\s+BY|[\"']sort[\"']|\bsort\s*=|\$sort"
                     r"|group_by|GROUP\s+BY")


def might_read(source: str) -> bool:
    """The cheap test of a module's text (the prefilter's, and before the module's walk): a store's
    read and a reader of the conversation in the text, or a function named for reading the
    conversation back that calls a method named for reading records (a helper's read)."""
    return anchored.found(READER_TEXT, source, READER_HEADS, fold=True) and (
        STORE_TEXT.search(source) is not None
        or READER_DEF.search(source) is not None and HELPER_CALL.search(source) is not None)


def unordered_reads(module) -> list[ast.AST]:
    """The nodes of reads that give a stored conversation back in the store's order, in the read
    methods of message stores (see the module's docstring), in source order."""
    out: list[ast.AST] = []
    for func, stack in outer_functions(module.tree):
        if not _reader(module, func, stack):
            continue
        found = _unordered(module, func)
        if found is not None and (_messages_named(func, stack) or _MESSAGE_WORDS & _words(module.code(found))):
            out.append(found)
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))


#: Words that say the records are a conversation's messages ("history" alone may be versions of a record).
_MESSAGE_WORDS = frozenset({"message", "messages", "msg", "msgs", "conversation", "conversations", "chat", "chats",
                            "turn", "turns", "dialog", "dialogue", "transcript"})


def _words(text: str) -> set[str]:
    """The lower-case words of identifiers in `text` (`ConversationMessages`, `memori_conversation_message`)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return {w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w}


def _messages_named(func, stack) -> bool:
    """True when the function's name or its class's says it reads messages (`get_messages`, `ConversationMessages`)."""
    cls = method_class(stack, func)
    return bool(_MESSAGE_WORDS & (_words(func.name) | (_words(cls.name) if cls is not None else set())))


def _reader(module, func, stack) -> bool:
    """A read method of a message store (`message_reader`) that gives its records as they come (`_as_read`)."""
    return message_reader(func, stack) and _as_read(module, func)


def _as_read(module, func) -> bool:
    """True for a function that orders nothing itself, aggregates nothing and returns no map (a lookup
    by id: `-> dict`, a dict built and returned)."""
    if _ORDERS.search(module.code(func)) is not None:
        return False
    note = ast.unparse(func.returns) if func.returns is not None else ""
    if re.search(r"(?i)\b(?:dict|mapping)\b", note):
        return False
    bound = {t.id: a.value for a in subtree(func) if isinstance(a, (ast.Assign, ast.AnnAssign))
             for t in (a.targets if isinstance(a, ast.Assign) else [a.target]) if isinstance(t, ast.Name)}
    for r in subtree(func):
        if isinstance(r, ast.Return) and r.value is not None:
            v = bound.get(r.value.id) if isinstance(r.value, ast.Name) else r.value
            if isinstance(v, (ast.Dict, ast.DictComp)):
                return False
    return True


#: Words of a called method's name that say it reads records (`read_data`, `fetch_rows`, `query_table`).
_READ_WORDS = frozenset({"read", "get", "fetch", "load", "query", "list", "find", "select"})
#: Definitions of one helper name read at most; helper names looked up at most per module.
_LIMIT, _LOOKUPS = 4, 8


def helper_reads(module, project) -> list[tuple[ast.Call, object, ast.AST]]:
    """(the reader's call, the module that defines the helper, the helper's read) for each read method
    of a message store that orders nothing and reads through a generic read helper of the package that
    reads with no order asked (module docstring), in source order of the calls."""
    if project is None:
        return []
    out = []
    looked: dict[str, list] = {}
    for func, stack in outer_functions(module.tree):
        if not _reader(module, func, stack) or not _messages_named(func, stack) or _unordered(module, func) is not None:
            continue
        kept = _kept_rows(func)
        for call in subtree(func):
            if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute) or call.func.attr == func.name \
                    or id(call) not in kept:
                continue
            name = call.func.attr
            if not set(re.split(r"_+", name.lower())) & _READ_WORDS or not (call.args or call.keywords):
                continue
            if name not in looked:
                if len(looked) >= _LOOKUPS:
                    continue
                looked[name] = _helpers(module, project, name)
            for definer, node in looked[name][:1]:
                out.append((call, definer, node))
                break
    return sorted(out, key=lambda t: (t[0].lineno, t[0].col_offset))


def _kept_rows(func) -> set[int]:
    """ids of the calls whose result the function returns as it is or walks into the list it returns
    (`return await db.read(...)`, `rows = await db.read(...)` then `[f(r) for r in rows]` or a loop
    appending to the returned list): the records it gives back, not data it looks things up in."""
    def calls(expr):
        while isinstance(expr, ast.Await):
            expr = expr.value
        return {id(expr)} if isinstance(expr, ast.Call) else set()
    bound = {t.id: a.value for a in subtree(func) if isinstance(a, ast.Assign) for t in a.targets
             if isinstance(t, ast.Name)}
    returned = {r.value.id for r in subtree(func) if isinstance(r, ast.Return) and isinstance(r.value, ast.Name)}
    out: set[int] = set()
    for r in subtree(func):
        if isinstance(r, ast.Return) and r.value is not None:
            out |= calls(r.value)
            for c in subtree(r.value) if isinstance(r.value, ast.ListComp) else ():
                if isinstance(c, ast.comprehension) and isinstance(c.iter, ast.Name) and c.iter.id in bound:
                    out |= calls(bound[c.iter.id])
    for name in returned:
        v = bound.get(name)
        for c in subtree(v) if isinstance(v, ast.ListComp) else ():
            if isinstance(c, ast.comprehension) and isinstance(c.iter, ast.Name) and c.iter.id in bound:
                out |= calls(bound[c.iter.id])
    for loop in subtree(func):
        if isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(loop.iter, ast.Name) and loop.iter.id in bound \
                and any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append"
                        and isinstance(n.func.value, ast.Name) and n.func.value.id in returned for n in subtree(loop)):
            out |= calls(bound[loop.iter.id])
    return out


def _helpers(module, project, name: str) -> list[tuple[object, ast.AST]]:
    """(module, read) of the method `name` the package defines, when every definition of it reads with
    no order asked and orders nothing, and is no reader of the conversation itself; else none."""
    found = []
    for definer in project.functions_named(name, module.path, _LIMIT) or ():
        for func, stack in outer_functions(definer.tree):
            if func.name != name:
                continue
            node = None if message_reader(func, stack) or not _as_read(definer, func) else _unordered(definer, func)
            if node is None:
                return []
            found.append((definer, node))
    return found


def _unordered(module, func) -> ast.AST | None:
    """The first read of many records with no order asked in `func`, or None."""
    single = _single_roots(func)
    for n in subtree(func):
        if not isinstance(n, ast.Call) or id(n) in single:
            continue
        f = n.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        first = n.args[0] if n.args else None
        if name in _RUNS and first is not None:
            text = _query_text(module, first)
            if _SQL_READ.search(text) and _ONE_ROW.search(text) is None:
                return first if isinstance(first, ast.Constant) else n
        if name == "select" and n.args and (module.qualified_name(f) or "").startswith(("sqlalchemy", "sqlmodel")) \
                and not any(_aggregate(a) for a in n.args):
            return n
        if name == "query" and isinstance(f, ast.Attribute) and isinstance(first, ast.Name) and first.id[:1].isupper():
            return n  # `session.query(Step)`
        if name == "find" and isinstance(f, ast.Attribute) and (isinstance(first, ast.Dict) or any(
                k.arg == "filter" for k in n.keywords)):
            return n
        if any(isinstance(a, ast.Constant) and a.value == "find" and i + 1 < len(n.args)
               and isinstance(n.args[i + 1], ast.Dict) for i, a in enumerate(n.args)):
            return n  # an adapter told the operation: `conn.execute("messages", "find", {...})`
        if name in _RANGES and (name != "scan_iter" or n.args or any(k.arg == "match" for k in n.keywords)):
            return n
    return None


def _aggregate(arg) -> bool:
    """True for a column of a SQLAlchemy select that aggregates (`func.count(...)`, `func.max(...)`)."""
    return isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and isinstance(arg.func.value, ast.Name) \
        and arg.func.value.id == "func"


def _single_roots(func) -> set[int]:
    """ids of the calls in `func` whose result is read as one record: every call under the root of a
    chain that ends in a method of `_SINGLE` (`conn.execute(q).fetchone()`, `(await s.execute(select(S)))
    .scalar_one_or_none()`, `session.query(S).filter(...).first()`), or under the value of the name that
    root is (`result = await db.execute(select(S))`, then `result.scalars().first()`)."""
    bound = {t.id: a.value for a in subtree(func) if isinstance(a, ast.Assign) for t in a.targets
             if isinstance(t, ast.Name)}
    out: set[int] = set()
    for n in subtree(func):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _SINGLE):
            continue
        root = n.func.value
        while isinstance(root, (ast.Call, ast.Attribute, ast.Await)):
            root = root.func if isinstance(root, ast.Call) else root.value
        under = [n.func.value]
        if isinstance(root, ast.Name) and root.id in bound:
            under.append(bound[root.id])
        out |= {id(x) for u in under for x in subtree(u) if isinstance(x, ast.Call)}
    return out
