"""PRM203: tools registries filled in an unstable order, known by their class or by the functions
a model may call (python/tool_loops.py): a loop over a set of functions that calls the registering
method of a class named for tools, a listing of plugin files applied to that method by a toolz
`pipe`, and a `functions` list filled from an unsorted `glob`. The same registries sorted, and a
registry of something else, are clean. The fixtures are under fixtures/tool_registries/."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "tool_registries"


def _report(*names):
    report = api.check([FIXTURES / "toolbox" / n for n in names], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.span.start.column)
            for d in report.diagnostics]


def test_a_set_of_functions_and_a_plugin_listing_registered_by_a_tools_class_are_found():
    found = _report("registry.py", "commands.py")
    assert found == [("registry.py", "PRM203", "info", 27, 21),   # for tool in VISIBLE_COMMANDS
                     ("registry.py", "PRM203", "info", 37, 26)]   # path.glob("*.py"), handed to pipe(...)
    report = api.check([FIXTURES / "toolbox" / "registry.py"], api.Settings(), jobs=1)
    first, second = report.diagnostics
    assert "Tool list ordered by `VISIBLE_COMMANDS` (a set comprehension" in first.message
    assert first.related[0].span.filename.endswith("commands.py") and first.related[0].span.start.row == 22
    assert "Tool list ordered by `path.glob(\"*.py\")` (directory listing order)" in second.message


def test_the_functions_a_plugin_lists_from_an_unsorted_glob_are_found():
    assert _report("plugins.py") == [("plugins.py", "PRM203", "info", 15, 22)]


def test_sorted_registries_and_a_registry_of_other_things_are_clean():
    assert _report("sorted_registry.py", "commands.py") == []
