"""The sending function's own `**kwargs` handed through a helper of its module that returns a copy
with fixed keys set: still its callers' options (python/passed_options.py;
fixtures/passed_options/provider.py)."""
from __future__ import annotations

import ast
from pathlib import Path

from analysis_support import fixture_findings
from promptlint.python.module import load
from promptlint.python.passed_options import through_helper

FIXTURES = Path(__file__).parent.parent / "fixtures" / "passed_options"


def _through(source: str, name: str) -> bool:
    module = load(Path("p.py"), source)
    func = next(n for n in ast.walk(module.tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    return through_helper(module, func, ast.Name(func.args.kwarg.arg))


def test_a_copy_with_fixed_keys_set_is_the_callers_options():
    source = (FIXTURES / "provider.py").read_text()
    # `_merge_defaults` returns what a function of another module makes of them
    assert [_through(source, n) for n in ("create", "create_marked")] == [True, False]


def test_a_helper_that_writes_a_breakpoint_key_or_hands_the_mapping_on_is_not():
    source = (
        "def a(**kwargs):\n"
        "    kwargs = fill(kwargs)\n"
        "def fill(kw):\n"
        "    kw = dict(kw)\n"
        "    kw['cache_control'] = {'type': 'ephemeral'}\n"
        "    return kw\n"
        "def b(**kwargs):\n"
        "    kwargs = fill2(kwargs)\n"
        "def fill2(kw):\n"
        "    log(kw)\n"
        "    return kw\n"
        "def c(**kwargs):\n"
        "    kwargs = fill3(kwargs)\n"
        "def fill3(kw):\n"
        "    kw.setdefault('max_tokens', 10)\n"
        "    return kw\n")
    assert [_through(source, n) for n in ("a", "b", "c")] == [False, False, True]


def test_the_adapter_is_reported_as_info_and_the_one_with_unknown_keys_is_not(tmp_path):
    found = [(d.code, d.severity.value, d.span.start.row) for d in fixture_findings(FIXTURES, "provider.py", tmp_path)
             if d.code == "PRM302"]
    assert found == [("PRM302", "info", 18)]
