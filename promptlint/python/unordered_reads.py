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
keyword, `ORDER BY` in any of its text) or reads one record (`fetchone()`, `.first()`, `LIMIT 1`)
is not this. The fact is the node of the read (the SQL text, the statement, the call), for an info
where the order is left to the store (the request is not linked).
"""
from __future__ import annotations

import ast
import re

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
#: The text of a call of a method named for reading records (`db.read_data(`, `store.fetch_rows(`).
HELPER_CALL = re.compile(r"\.(?:read|get|fetch|load|query|list|find|select)_\w{1,40}\(")

_SQL_READ = re.compile(r"(?is)^\s*SELECT\b.*\bFROM\b")
_ONE_ROW = re.compile(r"(?i)\bLIMIT\s+1\b|\bCOUNT\s*\(|\bEXISTS\s*\(")
#: Methods that run SQL text given as their first argument.
_RUNS = frozenset({"execute", "aexecute", "fetch", "fetchall", "fetch_all", "exec", "exec_driver_sql", "query",
                   "executemany", "read_sql", "read_sql_query"})
#: Methods of a query or its result that read one record.
_SINGLE = frozenset({"fetchone", "fetchrow", "fetchval", "fetch_one", "fetch_val", "first", "one", "one_or_none",
                     "scalar", "scalar_one", "scalar_one_or_none", "find_one", "get"})
_RANGES = frozenset({"values_in_range", "keys_in_range", "items_in_range", "scan_iter"})
#: Words of a function's text that say it orders what it reads.
_ORDERS = re.compile(r"(?i)\bsorted\(|\.sort\(|order_by|sort_by|ORDER\s+BY|[\"']sort[\"']|\bsort\s*=|\$sort")


def might_read(source: str) -> bool:
    """The cheap test of a module's text (the prefilter's, and before the module's walk): a store's
    read and a reader of the conversation in the text, or a function named for reading the
    conversation back that calls a method named for reading records (a helper's read)."""
    return READER_TEXT.search(source) is not None and (
        STORE_TEXT.search(source) is not None
        or READER_DEF.search(source) is not None and HELPER_CALL.search(source) is not None)


def unordered_reads(module) -> list[ast.AST]:
    """The nodes of reads that give a stored conversation back in the store's order, in the read
    methods of message stores (see the module's docstring), in source order."""
    out: list[ast.AST] = []
    for func, stack in outer_functions(module.tree):
        if not message_reader(func, stack) or _ORDERS.search(module.code(func)) is not None:
            continue
        found = _unordered(module, func)
        if found is not None:
            out.append(found)
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))


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
        if not message_reader(func, stack) or _ORDERS.search(module.code(func)) is not None \
                or _unordered(module, func) is not None:
            continue
        for call in subtree(func):
            if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute) or call.func.attr == func.name:
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


def _helpers(module, project, name: str) -> list[tuple[object, ast.AST]]:
    """(module, read) of the method `name` the package defines, when every definition of it reads with
    no order asked and orders nothing, and is no reader of the conversation itself; else none."""
    found = []
    for definer in project.functions_named(name, module.path, _LIMIT) or ():
        for func, stack in outer_functions(definer.tree):
            if func.name != name:
                continue
            node = None if message_reader(func, stack) or _ORDERS.search(definer.code(func)) is not None \
                else _unordered(definer, func)
            if node is None:
                return []
            found.append((definer, node))
    return found


def _unordered(module, func) -> ast.AST | None:
    """The first read of many records with no order asked in `func`, or None."""
    parents = {id(c): n for n in subtree(func) for c in ast.iter_child_nodes(n)}
    for n in subtree(func):
        if not isinstance(n, ast.Call) or _one_record(n, parents):
            continue
        f = n.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        first = n.args[0] if n.args else None
        if name in _RUNS and first is not None:
            text = _query_text(module, first)
            if _SQL_READ.search(text) and _ONE_ROW.search(text) is None:
                return first if isinstance(first, ast.Constant) else n
        if name == "select" and n.args and (module.qualified_name(f) or "").startswith(("sqlalchemy", "sqlmodel")):
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


def _one_record(call, parents) -> bool:
    """True when the result of `call` is read as one record: a method of `_SINGLE` called on it, or on
    a call chained to it (`conn.execute(q).fetchone()`, `session.query(S).filter(...).first()`)."""
    node = call
    while True:
        up = parents.get(id(node))
        if isinstance(up, ast.Attribute) and up.value is node:
            if up.attr in _SINGLE:
                return True
            node = up
            continue
        if isinstance(up, ast.Call) and up.func is node:
            node = up
            continue
        if isinstance(up, ast.Await):
            node = up
            continue
        return False
