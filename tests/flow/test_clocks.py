"""The evaluator on clocks, ids and their precision (DESIGN.md Policy 1): strftime directives,
`date.today()`, `isoformat()`, attributes such as `.year`, time zones (no time at all), `time.*`,
uuids and random values, names that only hint at a time or an id, and values fixed per process
or per instance."""
from __future__ import annotations

import pytest

from analysis_support import pos, probe

from promptlint.model import Kind, Precision, Volatility

CLOCKS = """
    import time
    import uuid
    from datetime import date, datetime, timezone
    import datetime as dt


    def f():
        probe(datetime.now().strftime("%Y-%m-%d %H:%M"))
        probe(datetime.now().strftime("%A, %d %B %Y"))
        probe(datetime.now().strftime("%B %Y"))
        probe(datetime.now().strftime("%Y"))
        probe(date.today())
        probe(date.today().isoformat())
        probe(datetime.now().isoformat())
        probe(datetime.now().year)
        probe(time.time())
        probe(time.strftime("%d/%m/%Y"))
        probe(dt.datetime.now(timezone.utc).date())
        probe(f"{datetime.utcnow():%m}")
        probe(datetime.now().month)
"""

EXPECTED = [
    ('datetime.now().strftime("%Y-%m-%d %H:%M")', Precision.SUB_DAY),
    ('datetime.now().strftime("%A, %d %B %Y")', Precision.DAY),
    ('datetime.now().strftime("%B %Y")', Precision.MONTH),
    ('datetime.now().strftime("%Y")', Precision.YEAR),
    ("date.today()", Precision.DAY),
    ("date.today().isoformat()", Precision.DAY),
    ("datetime.now().isoformat()", Precision.SUB_DAY),
    ("datetime.now().year", Precision.YEAR),
    ("time.time()", Precision.SUB_DAY),
    ('time.strftime("%d/%m/%Y")', Precision.DAY),
    ("dt.datetime.now(timezone.utc).date()", Precision.DAY),
    ("datetime.utcnow()", Precision.MONTH),
    ("datetime.now().month", Precision.MONTH),
]


@pytest.mark.parametrize("index", range(len(EXPECTED)))
def test_timestamps_and_their_precision(tmp_path, index):
    seg, = probe(tmp_path, CLOCKS, index=index).segs
    expr, precision = EXPECTED[index]
    assert (seg.kind, seg.volatility, seg.expr, seg.precision) == (Kind.TIMESTAMP, Volatility.PER_REQUEST, expr,
                                                                   precision)


def test_time_zones_are_no_time_at_all(tmp_path):
    src = """
        import time
        from datetime import datetime


        def f():
            probe(datetime.now().strftime("%Z"))
            probe(datetime.now().tzname())
            probe(time.strftime("%z"))
    """
    for index in range(3):
        seg, = probe(tmp_path, src, index=index).segs
        assert (seg.kind, seg.volatility) == (Kind.UNKNOWN, Volatility.STABLE)


def test_the_working_directory_is_fixed_for_the_process(tmp_path):
    """`Path.cwd()` (as `os.getcwd()`) describes the host: stable, not an object of unknown
    volatility; a value read from the clock beside it stays a timestamp."""
    src = """
        import os
        from pathlib import Path
        from datetime import datetime


        def f():
            probe(f"Working directory: {Path.cwd()}")
            probe(f"Working directory: {os.getcwd()}")
            probe(f"Home: {Path.home()}")
            probe(f"Now: {datetime.now()}")
    """
    for index in range(3):
        segs = [s for s in probe(tmp_path, src, index=index).segs if not s.is_static]
        assert [(s.kind, s.volatility) for s in segs] == [(Kind.UNKNOWN, Volatility.STABLE)]
    segs = [s for s in probe(tmp_path, src, index=3).segs if not s.is_static]
    assert [s.kind for s in segs] == [Kind.TIMESTAMP]


def test_unique_ids_and_random_values(tmp_path):
    src = """
        import random
        import secrets
        import uuid
        from uuid import uuid4


        def f():
            probe(str(uuid.uuid4())[:8])
            probe(uuid4().hex)
            probe(secrets.token_hex(8))
            probe(random.choice(["a", "b"]))
    """
    exprs = ["str(uuid.uuid4())[:8]", "uuid4().hex", "secrets.token_hex(8)", 'random.choice(["a", "b"])']
    for index, expr in enumerate(exprs):
        seg, = probe(tmp_path, src, index=index).segs
        assert (seg.kind, seg.volatility, seg.expr) == (Kind.UNIQUE_ID, Volatility.PER_REQUEST, expr)


def test_names_only_hint_at_a_time_or_an_id(tmp_path):
    src = """
        def f(now, session_id, today_str):
            probe(f"{now:%Y}")
            probe(session_id)
            probe(today_str)
    """
    now, = probe(tmp_path, src, index=0).segs
    assert (now.kind, now.precision, now.name_only) == (Kind.TIMESTAMP, Precision.YEAR, True)  # the spec
    assert now.evidence == "the name `now` (a current date or time)"
    sid, = probe(tmp_path, src, index=1).segs
    assert (sid.kind, sid.volatility, sid.name_only) == (Kind.UNIQUE_ID, Volatility.PER_CONVERSATION, True)
    day, = probe(tmp_path, src, index=2).segs
    assert (day.kind, day.precision) == (Kind.TIMESTAMP, Precision.DAY)


def test_a_clock_reading_bound_to_a_name_enters_where_it_is_interpolated(tmp_path):
    src = """
        from datetime import date


        def f():
            today = date.today()
            probe(f"Date: {today}")
    """
    seg = probe(tmp_path, src).segs[1]
    assert (seg.kind, seg.precision) == (Kind.TIMESTAMP, Precision.DAY)
    assert seg.span.start == pos(src, "{today}")
    assert seg.origin.start == pos(src, "date.today()")


def test_values_fixed_at_import_or_per_instance(tmp_path):
    src = """
        import uuid
        from datetime import datetime

        BOOT = f"Booted {datetime.now():%H:%M}"


        class Session:
            def __init__(self):
                self.sid = uuid.uuid4()

            def header(self):
                probe(BOOT)
                probe(self.sid)
    """
    boot = probe(tmp_path, src, index=0).segs[1]
    assert (boot.kind, boot.volatility, boot.precision) == (Kind.TIMESTAMP, Volatility.PER_PROCESS, Precision.SUB_DAY)
    sid, = probe(tmp_path, src, index=1).segs
    assert (sid.kind, sid.volatility) == (Kind.UNIQUE_ID, Volatility.PER_CONVERSATION)


CONVERTED = """
    import time
    from datetime import date, datetime


    def f(record):
        stamp = time.time()
        probe(datetime.fromtimestamp(stamp).strftime("%Y-%m-%d %H:%M:%S"))
        probe(date.fromtimestamp(time.time()))
        probe(datetime.fromtimestamp(record.created).strftime("%H:%M"))
"""


def test_a_date_time_made_of_a_clock_reading_is_that_reading(tmp_path):
    seg = probe(tmp_path, CONVERTED, index=0).segs[0]
    assert (seg.kind, seg.volatility, seg.precision) == (Kind.TIMESTAMP, Volatility.PER_REQUEST, Precision.SUB_DAY)
    seg = probe(tmp_path, CONVERTED, index=1).segs[0]
    assert (seg.kind, seg.precision) == (Kind.TIMESTAMP, Precision.DAY)  # (a date: to the day)


def test_a_date_time_made_of_a_stored_number_is_no_clock_reading(tmp_path):
    segs = probe(tmp_path, CONVERTED, index=2).segs
    assert not any(s.kind is Kind.TIMESTAMP and not s.name_only for s in segs)
