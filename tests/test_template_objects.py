"""Prompt template objects built with their text and a dict of functions that fill their
placeholders at each render (`PromptTemplate(template="...{{now}}...", functions={"now": lambda
data: datetime.now()...})`, also `{name}` fields and a function of the tree by name)."""
from __future__ import annotations

from promptlint import api

from analysis_support import write

STATIC = "You are a careful assistant for the support team. Answer briefly and cite the manual. " * 3

FOUND = f'''
from datetime import datetime


class Template:
    def __init__(self, *, template, functions=None, defaults=None):
        self.template = template
        self.functions = functions or {{}}
        self.defaults = defaults or {{}}


def stamp():
    return datetime.now().isoformat()


SYSTEM_PROMPT = Template(
    functions={{"clock": lambda data: datetime.now().strftime("%H:%M:%S")}},
    defaults={{"role": "an assistant"}},
    template="""Assume the role of {{{{role}}}}.
The current time is: {{{{clock}}}}
{STATIC}""",
)

STAMPED_SYSTEM_PROMPT = Template(
    functions={{"now": stamp}},
    template="""Now is {{now}}.
{STATIC}""",
)
'''


def test_a_placeholder_filled_by_a_function_given_with_the_template_is_what_it_returns(tmp_path):
    write(tmp_path, {"app.py": FOUND})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    got = [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in report.diagnostics]
    assert got == [("PRM102", "info", 19, 22), ("PRM102", "info", 25, 24)]
    assert all("sub-day precision" in d.message for d in report.diagnostics)


CLEAN = f'''
from datetime import datetime


class Template:
    def __init__(self, *, template, functions=None, defaults=None):
        self.template = template
        self.functions = functions or {{}}


STAMP = datetime.now()

SYSTEM_PROMPT = Template(
    functions={{"shout": lambda data: data["text"].upper()}},   # names no placeholder of the text
    defaults={{"clock": "noon"}},                                 # a plain value, not a function
    template="""The time is {{{{clock}}}}.
{STATIC}""",
)

REPORT_HEADER = Template(                                          # not named as a prompt
    functions={{"clock": lambda data: datetime.now().isoformat()}},
    template="""Generated at {{{{clock}}}}.
{STATIC}""",
)
'''


def test_a_dict_of_plain_values_or_of_functions_no_placeholder_names_fills_nothing(tmp_path):
    write(tmp_path, {"app.py": CLEAN})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [d.code for d in report.diagnostics if d.code.startswith("PRM10")] == []


PARTIAL = f'''
from datetime import datetime
from langchain_core.prompts import PromptTemplate


def now():
    return datetime.now().strftime("%H:%M")


SYSTEM_PROMPT = PromptTemplate(
    template="The time is {{clock}}. {STATIC} Question: {{question}}",
    input_variables=["question"],
    partial_variables={{"clock": now}},
)
'''


def test_langchain_partial_variables_given_as_functions_fill_their_fields(tmp_path):
    write(tmp_path, {"app.py": PARTIAL})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    got = [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]
    assert got == [("PRM102", "info", 10)]
    assert "`datetime.now().strftime(\"%H:%M\")`" in report.diagnostics[0].message
