"""promptlint/python/tool_loops.py: a tools list filled in a loop over an unordered source, also
when the loop adds each tool through a method of its class that appends to the instance's tools
list (`self.add_tool(tool)`), and what keeps such a list's order stable."""
from __future__ import annotations

from promptlint import api

from analysis_support import write

AGENT = """
    import os

    from .factory import load_tool


    class Agent:
        def __init__(self, tools_folder):
            self.tools = []
            self.tools_folder = tools_folder

        def add_tool(self, tool):
            self.tools = [t for t in self.tools if t.name != tool.name]
            self.tools.append(tool)

        def load_folder(self):
            paths = os.listdir(self.tools_folder)
            paths = [os.path.join(self.tools_folder, p) for p in paths if not p.startswith(".")]
            for path in paths:
                if path.endswith(".py"):
                    self.add_tool(load_tool(path))

        def openai_tools(self):
            return [{"type": "function", "function": t.schema} for t in self.tools]
"""


def _check(tmp_path, source: str):
    write(tmp_path, {"agent.py": source, "factory.py": "def load_tool(path): ...\n"})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, d.message) for d in report.diagnostics]


def test_tools_added_through_the_classs_adder_in_listing_order_are_found(tmp_path):
    found = _check(tmp_path, AGENT)
    assert [f[:3] for f in found] == [("PRM203", "info", 17)]
    assert "Tool list ordered by `paths` (directory listing order)" in found[0][3]


def test_a_sorted_listing_or_a_class_that_sorts_its_tools_is_clean(tmp_path):
    assert _check(tmp_path / "a", AGENT.replace("os.listdir(self.tools_folder)", "sorted(os.listdir(self.tools_folder))")) == []
    sorts = AGENT.replace("for t in self.tools]", "for t in sorted(self.tools, key=lambda t: t.name)]")
    assert _check(tmp_path / "b", sorts) == []
    other = AGENT.replace("self.add_tool(load_tool(path))", "self.add_note(load_tool(path))")
    assert _check(tmp_path / "c", other) == []


REGISTRY = """
    import os


    class Registry:
        def __init__(self):
            self._schemas = []
            self.items = []

        def register(self, spec):
            self._schemas.append(spec)

        def load(self, folder):
            for name in set(os.listdir(folder)):
                self.register(name)
            for name in set(os.listdir(folder)):
                self.items.append(name)


    def callable_functions(names):
        functions = []
        for name in set(names):
            functions.append({"name": name, "description": "Looks the name up in the index."})
        return functions
"""


def test_a_loop_or_class_whose_text_names_no_tools_grows_a_tools_list_only_through_an_adder_or_functions(tmp_path):
    # a class named for tools registers through a method whose loop names no tool (`self.register`);
    # a list named `functions` is one of the functions a model may call; `self.items` is neither
    source = REGISTRY.replace("class Registry", "class ToolRegistry")
    assert [f[:3] for f in _check(tmp_path / "a", source)] == [("PRM203", "info", 13), ("PRM203", "info", 21)]
    # the same class not named for tools: `_schemas` is then no tools list (the text test skips its walk)
    assert [f[:3] for f in _check(tmp_path / "b", REGISTRY)] == [("PRM203", "info", 21)]
