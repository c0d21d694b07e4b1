"""Calls that read records back from a store: a database query's rows, an ORM query, a document or
a JSON value read from a document or key-value store. Their result is data the code does not keep
between requests but reads again on each, its keys in the order the store gives (PostgreSQL
`JSONB` keeps its own key order, not the order the data was written in); the evaluator marks the
dynamic segments of such a result with the read (`Segment.stored`), and what is derived from them
keeps the mark.

The shapes, by method name and arguments (facts about the common clients, not guesses from a
variable's name):

- a DB-API cursor's or an async driver's rows: `cur.fetchall()`, `fetchone`, `fetchmany` (sqlite3,
  psycopg, PyMySQL), asyncpg's `fetchrow` / `fetchval`, `databases`' `fetch_all` / `fetch_one`,
  SQLAlchemy's `scalars()`, `scalar_one()`, `mappings()`;
- a query run with SQL text (written there or bound to a name) or a SQLAlchemy statement:
  `conn.execute("SELECT ...")`,
  `await conn.fetch("SELECT ...")`, `session.execute(select(Step))`, `session.exec(text(q))`;
- an ORM query of a model class of the tree: `session.query(Step)`, `session.get(Step, key)`, and
  Django's manager `Step.objects.filter(...)` (any call on `<Model>.objects`);
- a document store's read: `collection.find_one(...)`, `collection.find({...})` with a filter
  document, `collection.aggregate([...])`; Redis's `r.json().get(key)` and `r.hgetall(key)`.
"""
from __future__ import annotations

import ast

from ...model import Kind, Volatility, replace
from .segment_text import const_str
from .values import Alt, ClassRef, Obj, Text, Value, dynamic

#: Methods whose result is rows or records a store gives back, whatever their arguments.
ROW_READS = frozenset({"fetchall", "fetchone", "fetchmany", "fetchrow", "fetchval", "fetch_all", "fetch_one",
                       "fetch_val", "scalars", "scalar_one", "scalar_one_or_none", "mappings", "find_one",
                       "hgetall"})

#: Methods that run the query they are given (SQL text or a SQLAlchemy statement) and give its rows.
QUERY_RUNS = frozenset({"execute", "aexecute", "fetch", "exec", "exec_driver_sql", "query"})

#: First words of SQL text that reads rows.
_SQL_READS = ("select", "with")

#: Functions that build a SQLAlchemy (or SQLModel) statement.
_STATEMENTS = frozenset({"select", "text"})
_STATEMENT_ROOTS = ("sqlalchemy", "sqlmodel")


def reads_store(ev, node: ast.Call, frame, env) -> bool:
    """True for a call of one of the shapes of the module docstring."""
    func = node.func
    if not isinstance(func, ast.Attribute):
        return False
    method = func.attr
    if method in ROW_READS:
        return True
    if _on_manager(func.value):
        return True
    first = node.args[0] if node.args else None
    if method in QUERY_RUNS and first is not None and _query(ev, first, frame, env):
        return True
    if (method == "query" or method == "get" and len(node.args) == 2) and _model_class(ev, first, frame, env):
        return True  # `session.query(Step)`, `session.get(Step, key)`
    if method == "find" and (isinstance(first, ast.Dict) or any(k.arg == "filter" for k in node.keywords)):
        return True
    if method == "aggregate" and isinstance(first, ast.List) and first.elts and all(
            isinstance(e, ast.Dict) for e in first.elts):
        return True
    return method in ("get", "mget") and isinstance(func.value, ast.Call) \
        and isinstance(func.value.func, ast.Attribute) and func.value.func.attr == "json" and not func.value.args


def marked(value: Value, node: ast.Call, frame) -> Value:
    """`value`, the result of the store read `node`, with its dynamic segments marked as read there
    (`Segment.stored`); an object of a library (`sqlite3.connect(...).execute(...)`, which we do
    not model further) becomes the dynamic text of the rows it gives."""
    m = frame.module
    span = m.span(node)
    if isinstance(value, Obj) and not value.qualname.startswith(("self:", "instance:")):
        # rows as volatile as what the store holds: not known from the read
        return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.UNKNOWN, f"rows read by `{m.code(node.func)}(...)`",
                       stored=span)
    if isinstance(value, Alt):
        return Alt([marked(o, node, frame) for o in value.options], value.span, value.fallback)
    if isinstance(value, Text) and any(not s.is_static and s.stored is None for s in value.segs):
        return Text([s if s.is_static or s.stored is not None else replace(s, stored=span) for s in value.segs])
    return value


def _model_class(ev, first, frame, env) -> bool:
    """A class of the tree named by a capitalised name (`Step`, `models.Step`)."""
    name = first.attr if isinstance(first, ast.Attribute) else first.id if isinstance(first, ast.Name) else ""
    return name[:1].isupper() and isinstance(ev.eval(first, frame, env), ClassRef)


def _on_manager(recv) -> bool:
    """`Step.objects` (or `Step.objects.filter(...)` further down the chain): Django's manager of a
    model class, named by a capitalised name."""
    while isinstance(recv, (ast.Call, ast.Attribute)):
        if isinstance(recv, ast.Call):
            recv = recv.func
            continue
        if recv.attr == "objects":
            owner = recv.value
            name = owner.attr if isinstance(owner, ast.Attribute) else owner.id if isinstance(owner, ast.Name) else ""
            return name[:1].isupper()
        recv = recv.value
    return False


def _query(ev, first, frame, env) -> bool:
    """SQL text that reads rows (`"SELECT ..."`, implicitly joined literals too, or a name bound to
    such text: `conn.execute(LOAD_STEPS, (thread,))`), or a SQLAlchemy statement built in place
    (`select(Step)`, `text(q)`)."""
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value.lstrip().lower().startswith(_SQL_READS)
    if isinstance(first, (ast.Name, ast.Attribute)):
        sql = const_str(ev.eval(first, frame, env))
        return sql is not None and sql.lstrip().lower().startswith(_SQL_READS)
    if isinstance(first, ast.Call):
        inner = first.func
        while isinstance(inner, ast.Call) or isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Call):
            inner = inner.func if isinstance(inner, ast.Call) else inner.value  # `select(Step).where(...)`
        qual = frame.module.qualified_name(inner) or ""
        return qual.rsplit(".", 1)[-1] in _STATEMENTS and qual.startswith(_STATEMENT_ROOTS)
    return False
