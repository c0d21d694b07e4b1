"""promptlint/python/tool_results.py: what a tool returns to the model in an order that differs
between processes (a set, a directory listing), reported by PRM202 (info) where the order is
lost, with the tool as a related location; the tools recognised by their decorator, their base
class, a tools list that names them, or a tool-result message written in the code; and the
shapes that keep a tool's result in a fixed order."""
from __future__ import annotations

import pytest

from promptlint import api
from promptlint.python.prefilter import might_hold_prompt

from analysis_support import code, pos, write


def at(source: str, needle: str) -> tuple[int, int]:
    """(row, column) where `needle` starts in the dedented `source`."""
    p = pos(source, needle)
    return p.row, p.column


def _check(tmp_path, files: dict[str, str]):
    write(tmp_path, files)
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.filename.rsplit("/", 1)[-1], d.span.start.row, d.span.start.column,
             [(r.span.filename.rsplit("/", 1)[-1], r.span.start.row) for r in d.related], d)
            for d in report.diagnostics]


LISTING = """
    import os

    from mcp.server.fastmcp import FastMCP

    hub = FastMCP("recipes")


    @hub.tool()
    def recipe_files(shelf: str) -> str:
        \"\"\"The recipe files on a shelf.\"\"\"
        return "\\n".join(os.listdir(shelf))
"""


def test_a_decorated_tool_returning_a_listing_is_reported_at_the_listing(tmp_path):
    found = _check(tmp_path, {"hub.py": LISTING})
    # (inside the tool itself: no related location)
    assert [f[:6] for f in found] == [("PRM202", "info", "hub.py", *at(LISTING, "os.listdir(shelf)"), [])]
    d = found[0][6]
    assert d.message.startswith("Tool result ordered by `os.listdir(shelf)` (directory listing order)")
    assert "another order on another machine or file system" in d.message  # a listing: the file system's order
    assert d.fix is not None and d.fix.applicability.value == "safe"
    assert [e.content for e in d.fix.edits] == ["sorted(", ")"]


ALIASED = """
    from langchain_core.tools import tool as lc_tool


    @lc_tool
    def distinct_words(text: str) -> list[str]:
        \"\"\"The distinct words of a text.\"\"\"
        return list(set(text.split()))


    @lc_tool("vowels")
    def vowels(text: str) -> str:
        return "".join({c for c in text if c in "aeiou"})
"""


def test_a_tool_decorator_imported_under_another_name_and_with_arguments(tmp_path):
    found = _check(tmp_path, {"words.py": ALIASED})
    assert [f[:5] for f in found] == [("PRM202", "info", "words.py", *at(ALIASED, "set(text.split())")),
                                      ("PRM202", "info", "words.py", *at(ALIASED, "{c for c in text"))]


CLASS_TOOL = """
    from smolagents import Tool


    class PaletteTool(Tool):
        name = "palette"

        def forward(self, colours: list[str]) -> str:
            picked = {c.strip().lower() for c in colours}
            return ", ".join(picked)

        def describe(self, colours: list[str]) -> str:
            return ", ".join({c.lower() for c in colours})
"""


def test_the_method_that_gives_a_tool_classs_result(tmp_path):
    # `forward` is the tool's result; `describe` is another method, not sent as one
    found = _check(tmp_path, {"palette.py": CLASS_TOOL})
    assert [f[:5] for f in found] == [("PRM202", "info", "palette.py", *at(CLASS_TOOL, "picked)"))]


LEDGER = """
    from dataclasses import dataclass
    from pathlib import Path
    from typing import Annotated


    @dataclass
    class Statement:
        account: str
        months: list


    class Ledger:
        def __init__(self, root: str):
            self.root = Path(root)

        def statement(self, account: str) -> Statement:
            months = [p.stem for p in (self.root / account).glob("*.csv")]
            return Statement(account=account, months=months)


    def Needs(key):
        return key


    def read_statement(ledger: Annotated[Ledger, Needs("ledger")], account: str) -> Statement:
        \"\"\"The months on record for an account.\"\"\"
        statement = ledger.statement(account)
        return statement


    def sorted_statement(ledger: Annotated[Ledger, Needs("ledger")], account: str) -> list:
        return sorted(ledger.statement(account).months)
"""

CATALOGUE = """
    from .ledger import read_statement, sorted_statement

    BANK_TOOLS = {
        # the bank's read-only tools
        "read_statement": read_statement,
        "sorted_statement": sorted_statement,
    }
"""


def test_a_tool_listed_in_another_module_whose_record_holds_a_listing(tmp_path):
    # the tool's dependency (`Annotated[Ledger, ...]`) builds the record; the listing is in its field
    found = _check(tmp_path, {"bank/__init__.py": "", "bank/ledger.py": LEDGER, "bank/catalogue.py": CATALOGUE})
    assert [f[:6] for f in found] == [("PRM202", "info", "ledger.py", *at(LEDGER, '(self.root / account).glob("*.csv")'),
                                       [("ledger.py", at(LEDGER, "def read_statement")[0])])]
    d = found[0][6]
    assert d.related[0].message == "the tool whose result holds it"
    # only the name of the dict says its functions are tools (Policy 7)
    assert d.name_only and d.message.endswith("only the name of the list that holds the function says it is a tool")


AGENT = """
    from agents import Agent, function_tool


    def shared_skills(a: list[str], b: list[str]) -> str:
        return ", ".join(set(a) & set(b))


    def skill_count(a: list[str]) -> int:
        return len(set(a))


    def union_sorted(a: list[str], b: list[str]) -> str:
        return ", ".join(sorted(set(a) | set(b)))


    def unrelated(a: list[str]) -> str:
        return ", ".join(set(a))


    recruiter = Agent(name="recruiter", tools=[function_tool(shared_skills), skill_count, union_sorted])
"""


def test_the_tools_a_framework_is_given(tmp_path):
    # a count of a set, a sorted union and a function no tools list names are not reported
    found = _check(tmp_path, {"hiring.py": AGENT})
    assert [f[:5] for f in found] == [("PRM202", "info", "hiring.py", *at(AGENT, "set(a) & set(b)"))]
    assert not found[0][6].name_only and "only the name" not in found[0][6].message


MESSAGES = """
    import json

    from langchain_core.messages import ToolMessage


    def answer_call(call, messages):
        args = json.loads(call.function.arguments)
        sizes = {item["size"] for item in args["items"]}
        messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(list(sizes))})
        messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(sorted(sizes))})
        return messages


    def as_message(call_id, labels):
        return ToolMessage(content=", ".join(set(labels)), tool_call_id=call_id)


    def anthropic_block(call_id, labels):
        return {"type": "tool_result", "tool_use_id": call_id, "content": " ".join(dict.fromkeys(labels))}
"""


def test_the_content_of_tool_result_messages(tmp_path):
    found = _check(tmp_path, {"calls.py": MESSAGES})
    assert [f[:5] for f in found] == [("PRM202", "info", "calls.py", *at(MESSAGES, "list(sizes)")),
                                      ("PRM202", "info", "calls.py", *at(MESSAGES, "set(labels)"))]


MEMBERSHIP = """
    from mcp.server.fastmcp import FastMCP

    hub = FastMCP("tags")


    @hub.tool()
    def new_tags(tags: list[str], known: list[str]) -> list[str]:
        known_set = set(known)
        return [t for t in tags if t not in known_set]


    @hub.tool()
    def first_seen(tags: list[str]) -> list[str]:
        seen, kept = set(), []
        for t in tags:
            if t not in seen:
                seen.add(t)
                kept.append(t)
        return kept


    @hub.tool()
    def tag_count(tags: list[str]) -> str:
        return f"{len(set(tags))} distinct tags"


    @hub.tool()
    def ordered_tags(tags: list[str]) -> str:
        return ", ".join(sorted(set(tags)))


    def helper(tags):
        return list(set(tags))
"""


def test_what_keeps_a_tools_result_in_a_fixed_order(tmp_path):
    assert _check(tmp_path, {"tags.py": MEMBERSHIP}) == []


@pytest.mark.parametrize("source, holds", [
    ("from .a import fetch_rates\n\nTOOLS = [\n    # read-only\n    fetch_rates,\n]\n", True),
    ("RATE_TOOLS = {\n    \"fetch\": fetch_rates,\n}\n", True),
    ("agent = make(tools=[fetch_rates])\n", True),
    ("@server.tool()\ndef fetch_rates():\n    return 1\n", True),
    ("reply = {'role': 'tool', 'content': text}\n", True),
    ("tools = []\n", False),
    ("tools = [self.registry[i] for i in wanted]\n", False),  # a comprehension names no tool
    ("def fetch_rates():\n    return 1\n", False),
])
def test_the_prefilter_lets_files_that_name_tools_through(source, holds):
    assert might_hold_prompt(code(source)) is holds
