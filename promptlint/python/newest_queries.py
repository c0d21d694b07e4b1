"""A conversation read back as its newest messages by a query: facts for PRM105 (the rule judges them).

The read method of a message store (`get_messages`, `get` / `load` of a class that keeps a
conversation, or its `get_recent`: `flow.store_reads.reads_conversation`, `reads_stored_messages`,
`reads_newest_stored`) that asks its storage
for the newest `k` records, newest first, and turns them back into time order keeps a sliding
window: once the conversation is longer than `k`, its oldest message drops out on every new
turn, so the history sent from it never matches the previous request's prefix. The storage is
not read here; the query's words are the evidence, all in that one function:

- a limit given by a value that is not a constant of at most two (`"size": top_k`, `LIMIT ?` with
  the count passed, `.limit(n)`, `limit=n`), in a query that sorts newest first (a dict with a
  `sort` / `order` entry whose text says `desc`, SQL text `ORDER BY ... DESC ... LIMIT`, a call
  `.order_by(...desc...)` or `.sort(..., -1)` / `DESCENDING` / `asc=False`, also set on the query
  object after it is made: `q = FilterQuery(num_results=k)` then `q.sort_by("ts", asc=False)`);
- and a reversal of what it read (`rows.reverse()`, `reversed(rows)`, `rows[::-1]`): the newest
  `k`, turned back into time order, are what it returns.

A graph store's query does both in its text: a path of at most `k` links walked back from the
newest message, then turned around (Cypher `MATCH p=(last)<-[:NEXT*0..{window}]-() ... UNWIND
reverse(nodes(p))`, with `k` filled by `.format(window=self._window)` or an f-string): the newest
`k + 1` messages of the linked list, in time order. A reader is also the `messages` (or `history`)
property of a message store, the read of LangChain's chat histories and of their kin.

The fact is the node of the limit (the dict value, the `.limit(...)` argument, the `limit=` value,
or the SQL string), for an info where the window is chosen (the request is not linked).
"""
from __future__ import annotations

import ast
import re

from .flow.store_reads import method_class, reads_conversation, reads_newest_stored, reads_stored_messages
from ..classify import CONVERSATION_WORDS
from .walk import outer_functions, subtree

#: Text of a module that may hold the shape: a reversal and a descending order.
TEXT = re.compile(r"(?i)\bdesc|DESCENDING|, -1\)|\basc(?:ending)?\s*=\s*False")
_SQL = re.compile(r"(?is)\bORDER\s+BY\s+[\w.\"`]+\s+DESC\b.*\bLIMIT\b")
_LIMIT_KEYS = frozenset({"size", "limit", "top_k", "n", "k"})
_SORT_KEYS = frozenset({"sort", "order", "order_by", "sort_by"})
#: Keywords of a call that limit how many records a query returns.
_CALL_LIMITS = ("limit", "size", "num_results", "top_k")


#: A path of a bounded number of links whose bound is filled in (`*0..{window}`, `*..{k}`).
BOUNDED_PATH = re.compile(r"\*\s*\d*\s*\.\.\s*\{\s*(\w*)")
#: The same in a module's text, where the query may be written as adjacent literals split at the
#: bound (`"...[:NEXT*0.."` then `"{window}]-()..."` on the next line; bounded repetition: linear).
PATH_TEXT = re.compile(r"\*[ \t]{0,4}\d{0,6}[ \t]{0,4}\.\.(?:[\"'][ \t]{0,4}\n?[ \t]{0,80}[fF]?[\"'])?[ \t]{0,4}\{")
#: Names of a store's property that reads the conversation back (`history.messages`).
_READ_PROPERTIES = frozenset({"messages", "history", "chat_history"})


def might_hold(source: str) -> bool:
    """The cheap test before the module's walk: a reversal and a descending order (or a bounded path)
    in its text."""
    return ("reverse" in source or "[::-1]" in source) and (TEXT.search(source) is not None
                                                           or PATH_TEXT.search(source) is not None)


def newest_queries(module) -> list[ast.AST]:
    """The limit nodes of newest-first queries reversed into time order in the read methods of message
    stores (see the module's docstring), in source order."""
    out: list[ast.AST] = []
    for func, stack in outer_functions(module.tree):  # (a nested function is its own reader or not)
        if message_reader(func, stack):
            found = _newest_limit(module, func) if _reversed(func) else None
            if found is None:
                found = _path_limit(module, func)
            if found is not None:
                out.append(found)
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))


def message_reader(func, stack) -> bool:
    """True for a function that reads a stored conversation (`flow.windows`: named for it, or a
    method of a message store that returns its stored messages or the newest of them)."""
    cls = method_class(stack, func)
    return reads_conversation(func.name) or reads_stored_messages(func, cls) or reads_newest_stored(func, cls) \
        or _read_property(func, cls)


def _read_property(func, cls) -> bool:
    """True for a `@property` named for the conversation (`messages`, `history`) of a class that
    keeps one (its name says so, or the property is annotated to return messages): the read of a
    message store (`Neo4jMessageHistory.messages`)."""
    if cls is None or func.name not in _READ_PROPERTIES or not any(
            isinstance(d, ast.Name) and d.id == "property" for d in func.decorator_list):
        return False
    return reads_stored_messages(ast.FunctionDef(name="get", returns=func.returns), cls)


def _reversed(func) -> bool:
    """True when the function turns a list around: `xs.reverse()`, `reversed(xs)`, `xs[::-1]`."""
    for n in subtree(func):
        if isinstance(n, ast.Call) and (isinstance(n.func, ast.Attribute) and n.func.attr == "reverse" and not n.args
                                        or isinstance(n.func, ast.Name) and n.func.id == "reversed"):
            return True
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice) and n.slice.lower is None \
                and n.slice.upper is None and _is_minus_one(n.slice.step):
            return True
    return False


def _newest_limit(module, func) -> ast.AST | None:
    """The limit of a newest-first query in `func`, or None."""
    for n in subtree(func):
        if isinstance(n, ast.Dict):
            keys = {k.value: v for k, v in zip(n.keys, n.values) if isinstance(k, ast.Constant) and isinstance(k.value, str)}
            limit = next((keys[k] for k in keys if k in _LIMIT_KEYS and _counted(keys[k])), None)
            if limit is not None and any(_descending(module, keys[k]) for k in keys if k in _SORT_KEYS):
                return limit
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and _SQL.search(n.value) \
                and not re.search(r"(?i)\bLIMIT\s+[12]\b", n.value):
            return n
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "limit" and n.args \
                and _counted(n.args[0]) and _descending_chain(module, n.func.value):
            return n.args[0]
        if isinstance(n, ast.Call):
            kw = {k.arg: k.value for k in n.keywords if k.arg}
            limit = next((kw[k] for k in _CALL_LIMITS if k in kw and _counted(kw[k])), None)
            if limit is not None and (any(_descending(module, kw[k]) for k in kw if k in _SORT_KEYS)
                                      or _sorted_later(module, func, n)):
                return limit
    return None


def _path_limit(module, func) -> ast.AST | None:
    """The value that fills the bound of a path walked back from the newest message and turned
    around in the same query text (`GET.format(window=self._window)` of `"...<-[:NEXT*0..{window}]-()
    ... reverse(nodes(p))"`; an f-string's value after `..`), or None."""
    for n in subtree(func):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "format":
            text = _query_text(module, n.func.value)
            bound = BOUNDED_PATH.search(text) if text and re.search(r"(?i)\breverse\s*\(", text) else None
            kw = {k.arg: k.value for k in n.keywords if k.arg}
            if bound is not None and bound.group(1) in kw and _counted(kw[bound.group(1)]):
                return kw[bound.group(1)]
        if isinstance(n, ast.JoinedStr):
            for i, part in enumerate(n.values[1:], 1):
                before = n.values[i - 1]
                if isinstance(part, ast.FormattedValue) and isinstance(before, ast.Constant) \
                        and re.search(r"\*\s*\d*\s*\.\.\s*$", str(before.value)) and _counted(part.value) \
                        and any(isinstance(c, ast.Constant) and re.search(r"(?i)\breverse\s*\(", str(c.value))
                                for c in n.values):
                    return part.value
    return None


def _query_text(module, node) -> str:
    """The text of a string literal, or of a module-level name bound once to one (a query constant)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if not isinstance(node, ast.Name):
        return ""
    bound = [s.value for s in module.tree.body if isinstance(s, ast.Assign) and len(s.targets) == 1
             and isinstance(s.targets[0], ast.Name) and s.targets[0].id == node.id]
    return bound[0].value if len(bound) == 1 and isinstance(bound[0], ast.Constant) \
        and isinstance(bound[0].value, str) else ""


def _sorted_later(module, func, call) -> bool:
    """True when the query object `call` makes is bound to a name that a descending sort is set on in
    `func`: `q = FilterQuery(..., num_results=k)` then `q.sort_by("ts", asc=False)`."""
    names = {t.id for a in subtree(func) if isinstance(a, ast.Assign) and a.value is call
             for t in a.targets if isinstance(t, ast.Name)}
    for n in subtree(func) if names else ():
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _SORT_KEYS \
                and isinstance(n.func.value, ast.Name) and n.func.value.id in names \
                and (any(_descending(module, a) for a in n.args) or _descending_flag(n)):
            return True
    return False


def _descending_flag(call) -> bool:
    """True for a sort call told newest first by a flag: `asc=False`, `ascending=False`, `desc=True`."""
    for k in call.keywords:
        if isinstance(k.value, ast.Constant) and (k.arg in ("asc", "ascending") and k.value.value is False
                                                   or k.arg in ("desc", "descending") and k.value.value is True):
            return True
    return False


def _counted(node) -> bool:
    """A count that is not a constant of at most two (the last answer looked up for a check)."""
    return not (isinstance(node, ast.Constant) and (not isinstance(node.value, int) or node.value <= 2))


def _descending(module, node) -> bool:
    """True for a sort spec whose text says newest first (`{"ts": {"order": "desc"}}`, `"-created"`,
    `[("ts", -1)]`, `DESCENDING`)."""
    text = module.code(node)
    return re.search(r"(?i)\bdesc\b|descending|[\"']-\w|-1\b", text) is not None


def _descending_chain(module, node) -> bool:
    """True for a call chain with a descending sort before `.limit(...)`: `.order_by(T.ts.desc())`,
    `.order_by(desc(T.ts))`, `.sort("ts", -1)`, `.sort("ts", DESCENDING)`."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in ("order_by", "sort", "sort_by") and (any(_descending(module, a) for a in node.args)
                                                                 or _descending_flag(node)):
            return True
        node = node.func.value
    return False


def _is_minus_one(node) -> bool:
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
        and node.operand.value == 1


#: The text test before `newest_deletes`: a `DELETE FROM` in the module.
DELETE_TEXT = re.compile(r"(?i)\bDELETE\s+FROM\b")
_DELETE = re.compile(r"(?is)\bDELETE\s+FROM\s+[\"`\[]?(\w+)")
#: A condition that keeps only the newest rows: an index below the newest minus a count (`message_index
#: <= (SELECT MAX(message_index) - ?`), rows not among the newest (`NOT IN (SELECT id ... ORDER BY ts
#: DESC LIMIT ?)`), or before the row at an offset from the newest (`ORDER BY ts DESC LIMIT 1 OFFSET ?`).
_KEEPS_NEWEST = re.compile(r"(?is)\bMAX\s*\(\s*[\w.\"`]+\s*\)\s*-\s*(?:\?|%s|:\w+|\$\d|\{)"
                           r"|\bNOT\s+IN\s*\(\s*SELECT\b.*?\bORDER\s+BY\b[^;]*?\bDESC\b[^;]*?\bLIMIT\b"
                           r"|\bORDER\s+BY\b[^;]*?\bDESC\b[^;]*?\bOFFSET\b")
_TABLE_WORDS = frozenset({"conversation", "conversations", "message", "messages", "chat", "chats", "history",
                          "histories", "turns", "dialog", "dialogs", "transcript", "transcripts"})


def _class_words(name: str) -> set[str]:
    """The lower-case words of a class name, acronyms apart (`SQLChatStorage`: sql, chat, storage)."""
    return {w.lower() for w in re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+", name)}


def might_delete(source: str) -> bool:
    """The cheap test of a module's text: a `DELETE FROM` and a condition that keeps the newest rows."""
    return "ELETE" in source and DELETE_TEXT.search(source) is not None and _KEEPS_NEWEST.search(source) is not None


def newest_deletes(module) -> list[ast.AST]:
    """The SQL strings that delete the rows of a stored conversation older than its newest `N`
    (`DELETE FROM conversations WHERE ... message_index <= (SELECT MAX(message_index) - ? ...)`),
    a table named for it, in a method of a class named for keeping a conversation (`SQLChatStorage`,
    `ConversationStore`: a message store, whose reads are the conversation a chat sends; a store of
    other records, `SQLiteManager`, may keep recent messages as the input of a one-shot prompt):
    run when a message is saved, the stored conversation keeps a sliding window, its oldest message
    dropped on every save once full; in source order."""
    out = []
    stores = [c for c in ast.walk(module.tree) if isinstance(c, ast.ClassDef) and _class_words(c.name) & CONVERSATION_WORDS]
    for n in (n for c in stores for n in ast.walk(c)):
        if not (isinstance(n, ast.Constant) and isinstance(n.value, str) and "DELETE" in n.value.upper()):
            continue
        found = _DELETE.search(n.value)
        if found is None or not set(re.split(r"_+", found.group(1).lower())) & _TABLE_WORDS:
            continue
        if _KEEPS_NEWEST.search(n.value, found.end()) is not None:
            out.append(n)
    return sorted(set(out), key=lambda x: (x.lineno, x.col_offset))
