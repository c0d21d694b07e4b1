"""Values read back from a store (flow/store_rows.py): the evaluator marks their segments with the
read (`Segment.stored`), and what is derived from them (an item, an attribute, `dict(row)`) keeps
the mark; calls of the same names that read no store (`text.find("x")`, `d.get(k)`, a query
engine's `query(question)`) leave it unset."""
from __future__ import annotations

import pytest

from analysis_support import code, pos, probe


def stored_rows(tmp_path, source: str) -> list[tuple[int, int] | None]:
    """(row, column) of the store read of each dynamic segment of the probed value (None: unset)."""
    found = probe(tmp_path, source)
    return [(s.stored.start.row, s.stored.start.column) if s.stored is not None else None
            for s in found.segs if not s.is_static]


READS = {
    "a cursor's rows, item of a row": ("""
        def replay(cur):
            cur.execute("SELECT result FROM steps")
            for row in cur.fetchall():
                probe(row["result"])
    """, "cur.fetchall()"),
    "SQL text run by a connection": ("""
        def replay(conn):
            rows = conn.execute("SELECT call_id, result FROM steps WHERE thread = %s", ("t",))
            for r in rows:
                probe(r[1])
    """, 'conn.execute("SELECT'),
    "SQL text bound to a name": ("""
        LOAD = "SELECT call_id, result FROM steps WHERE thread = ?"

        def replay(db, thread):
            for call_id, result in db.execute(LOAD, (thread,)):
                probe(result)
    """, "db.execute(LOAD"),
    "asyncpg rows copied with dict()": ("""
        async def replay(conn):
            rows = await conn.fetch(
                "SELECT call_id, result FROM steps"
                " WHERE thread = $1", "t")
            steps = [dict(r) for r in rows]
            for step in steps:
                probe(step["result"])
    """, "conn.fetch("),
    "a SQLAlchemy statement": ("""
        from sqlalchemy import select
        from app.models import Step

        def replay(session):
            for step in session.execute(select(Step).where(Step.thread == "t").order_by(Step.n)):
                probe(step.result)
    """, "session.execute("),
    "an ORM query of a model class of the tree": ("""
        class Step:
            pass

        def replay(session):
            for step in session.query(Step).filter(Step.thread == "t").all():
                probe(step.result)
    """, "session.query(Step)"),
    "a Django manager": ("""
        from app.models import Step

        def replay(thread):
            for step in Step.objects.filter(thread=thread).order_by("n"):
                probe(step.result)
    """, "Step.objects.filter("),
    "a Mongo filter document": ("""
        def replay(db, thread):
            for step in db.steps.find({"thread": thread}):
                probe(step["result"])
    """, "db.steps.find("),
    "a RedisJSON read": ("""
        def replay(r, thread):
            state = r.json().get(f"thread:{thread}")
            probe(state["steps"])
    """, "r.json().get("),
    "a library connection's cursor": ("""
        import psycopg

        conn = psycopg.connect("dbname=app")

        def replay():
            for call_id, result in conn.execute("SELECT call_id, result FROM steps").fetchall():
                probe(result)
    """, 'conn.execute("SELECT'),
}


@pytest.mark.parametrize("name", sorted(READS))
def test_a_value_read_back_from_a_store_is_marked_with_the_read(tmp_path, name):
    source, read = READS[name]
    at = pos(source, read)
    assert stored_rows(tmp_path, source) == [(at.row, at.column)]


NOT_READS = {
    "a str method": """
        def show(text):
            probe(text.find("x"))
    """,
    "a dict's get": """
        def show(d, key):
            probe(d.get(key))
    """,
    "a query engine asked a question": """
        def show(engine, question):
            probe(engine.query(question))
    """,
    "SQL that writes": """
        def show(conn, row):
            probe(conn.execute("INSERT INTO steps VALUES (?)", (row,)))
    """,
    "a tool run with its arguments": """
        def show(tool, args):
            probe(tool.execute(args))
    """,
    "a cache's get": """
        def show(cache, key):
            probe(cache.get("steps", key))
    """,
    "a list the code keeps": """
        def show(steps):
            for step in steps:
                probe(step["result"])
    """,
}


@pytest.mark.parametrize("name", sorted(NOT_READS))
def test_a_value_no_store_gives_is_not_marked(tmp_path, name):
    assert stored_rows(tmp_path, NOT_READS[name]) == [None]


def test_the_read_is_where_the_rows_come_from_not_where_they_are_used(tmp_path):
    source = """
        def load(cur):
            cur.execute("SELECT result FROM steps")
            return cur.fetchall()

        def replay(cur):
            for row in load(cur):
                probe(row["result"])
    """
    at = pos(source, "cur.fetchall()")
    assert code(source).splitlines()[at.row - 1].strip() == "return cur.fetchall()"
    assert stored_rows(tmp_path, source) == [(at.row, at.column)]
