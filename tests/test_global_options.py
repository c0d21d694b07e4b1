"""Request options in a module-level dict spread into the request as `**name`, whose keys a
function of the module writes: the sending function itself before it sends
(`additional_kwargs["tools"] = functions`), or another function that fills the dict
(`keyed_targets.global_writes`, `request_dicts._filled_elsewhere`); fixtures/global_options."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint import api
from promptlint.python.flow.keyed_targets import global_dict, global_writes

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "global_options"


def _found(path):
    report = api.check([path], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.span.start.column)
            for d in report.diagnostics]


def test_tools_the_sending_function_writes_into_a_module_level_dict_are_the_requests_tools():
    # `additional_kwargs["tools"] = functions` (a module dict rebound to `{}` in a branch), then
    # `create(..., **additional_kwargs)`: the functions' schemas in directory-listing order
    assert _found(FIXTURES / "filled_in_function") == [("handler.py", "PRM203", "warning", 25, 41)]


def test_tools_another_function_writes_into_a_module_level_dict_are_the_requests_tools():
    # `def load_tools(folder): REQUEST_OPTIONS["tools"] = [... for path in Path(folder).iterdir()]`
    assert _found(FIXTURES / "filled_by_setup") == [("assistant.py", "PRM203", "warning", 16, 21)]


def test_a_namesake_of_the_functions_own_and_sorted_tools_are_no_finding():
    assert _found(FIXTURES / "not_read") == []


def test_the_fix_sorts_the_listing_where_the_writer_builds_it():
    report = api.check([FIXTURES / "filled_by_setup"], api.Settings(), jobs=1)
    (diag,) = report.diagnostics
    assert diag.fix is not None and diag.fix.applicability.value == "safe"
    assert [(e.content, e.start.row) for e in diag.fix.edits] == [("sorted(", 16), (")", 16)]


def test_global_writes_lists_the_functions_that_fill_a_module_level_dict():
    source = (
        "OPTIONS = {}\n"
        "LOADED = load()\n"
        "def a():\n    OPTIONS['tools'] = x\n    LOADED['tools'] = x\n"
        "def b(OPTIONS):\n    OPTIONS['seed'] = 1\n"
        "class C:\n    def c(self):\n        OPTIONS['stop'] = ['\\n']\n        OPTIONS[key] = 2\n"
    )
    tree = ast.parse(source)

    class M:  # the two fields global_writes reads
        pass
    m = M()
    m.source, m.tree = source, tree
    m.assigns = {"OPTIONS": [tree.body[0].value], "LOADED": [tree.body[1].value]}
    assert global_dict(m, "OPTIONS") and not global_dict(m, "LOADED")
    found = [(f.name, c.name if c else None, t.slice.value) for f, c, t, _ in global_writes(m, "OPTIONS")]
    assert found == [("a", None, "tools"), ("c", "C", "stop")]  # (`b` binds its own; a key not known: not read)
    assert global_writes(m, "LOADED") == []
    assert global_writes(m, "OPTIONS", skip=tree.body[2]) == [found_c for found_c in global_writes(m, "OPTIONS")
                                                               if found_c[0].name == "c"]
