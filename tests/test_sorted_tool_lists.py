"""PRM203 on tool lists whose receivers sort them, and on lists of where tools are loaded from
(fixtures/sorted_tool_lists)."""
from __future__ import annotations

import shutil
from pathlib import Path

from promptlint import api
from promptlint.python.prompt_names import tools_named

FIXTURES = Path(__file__).parent.parent / "fixtures" / "sorted_tool_lists"


def _prm203(name: str, tmp_path: Path) -> list[tuple]:
    shutil.copy(FIXTURES / name, tmp_path / name)
    found = api.check([tmp_path / name], api.Settings(), jobs=1).diagnostics
    return [(d.span.start.row, d.span.start.column, d.severity.value) for d in found if d.code == "PRM203"]


def test_tools_in_listing_order_that_every_caller_sorts_are_no_finding(tmp_path):
    assert _prm203("sorted_by_caller.py", tmp_path) == []


def test_a_caller_that_does_not_sort_keeps_the_finding(tmp_path):
    assert _prm203("unsorted_caller.py", tmp_path) == [(13, 17, "info")]


def test_files_and_modules_named_for_tools_are_no_tool_list(tmp_path):
    assert _prm203("tool_files.py", tmp_path) == [(18, 70, "info")]


def test_names_of_where_tools_come_from_do_not_say_a_tool_list():
    assert [n for n in ("tool_files", "tool_modules", "tools_dir", "plugin_tool_paths", "tools", "tool_specs",
                        "self._tools") if tools_named(n)] == ["tools", "tool_specs", "self._tools"]
