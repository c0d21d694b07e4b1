"""Text built in place in an argument passed by a keyword that says prompt (`llm.ask(system=f"...",
prompt=text)`), of a call no send shape matches, is a prompt candidate of its own, judged as the
same text kept in a local name of that name (Policy 9, issue 11); also in one branch of a
conditional expression. A keyword whose name says nothing, or a value not built there (a name), adds none."""
from __future__ import annotations

from analysis_support import layouts, parts, pos, write

from promptlint import api

RULES = "Convert the note into either a reminder or a memory. " * 6

WRAPPED = f'''
from datetime import datetime


def ingest(llm, note, retry_error=None):
    return llm.ask_structured(
        system=f"""{RULES}
Note the local time is {{datetime.now()}}.
{RULES}""",
        prompt=note,
    )


def ingest_retry(llm, note, retry_error=None):
    return llm.ask_structured(
        system=(f"""{RULES}
Note the local time is {{datetime.now()}}.
{RULES}""" + f"\\n\\n{{retry_error}}" if retry_error else ""),
        prompt=note,
    )
'''


def _at(found, source, needle):
    return [lt for lt in found if lt.source == "python-constant" and lt.site.row == pos(source, needle).row]


def test_text_built_in_a_prompt_keyword_is_a_prompt(tmp_path):
    layout, = _at(layouts(tmp_path, WRAPPED), WRAPPED, 'system=f"""')
    (role, described), = parts(layout)
    assert role == "system"
    assert described[0] == ("text", RULES + "\nNote the local time is ")
    assert described[1] == ("timestamp", "per-request", "datetime.now()")


def test_the_timestamp_is_reported_in_both_shapes(tmp_path):
    write(tmp_path, {"app.py": WRAPPED})
    found = sorted((d.code, d.span.start.row) for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics)
    rows = [pos(WRAPPED, "{datetime.now()}", n).row for n in (0, 1)]
    assert found == [("PRM102", rows[0]), ("PRM102", rows[1])]


OTHER = WRAPPED.replace("system=f", "message=f").replace("system=(f", "message=(f")


def test_a_keyword_that_does_not_say_prompt_adds_none(tmp_path):
    assert [lt for lt in layouts(tmp_path, OTHER) if lt.source == "python-constant"] == []


PASSED = f'''
from datetime import datetime

SYSTEM = f"""{RULES}"""


def ingest(llm, note, system_text):
    return llm.ask_structured(system=system_text, prompt=note)
'''


def test_a_value_not_built_in_the_argument_adds_none(tmp_path):
    assert _at(layouts(tmp_path, PASSED), PASSED, "llm.ask_structured") == []
