"""PRM302 at a request that also passes the sending function's own `**kwargs`, or the options the
instance is built with: in a package where no file names a breakpoint key, its callers' keywords
hold no `cache_control` (fixtures/forwarded_options; its README says what each module shows)."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint import api
from promptlint.python.request_dicts import forwarded_kwargs

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "forwarded_options"


def _found(path):
    report = api.check([path], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.message)
            for d in report.diagnostics]


def test_the_callers_keywords_hold_no_breakpoint_where_no_file_names_one():
    found = _found(FIXTURES / "bare")
    assert [f[:4] for f in found] == [
        # `system=messages[0]["content"][0]["text"], messages=messages[1:], **kwargs`
        ("engine.py", "PRM302", "info", 14),
        # `**opts`, `opts = dict(kwargs)`
        ("engine.py", "PRM302", "info", 25),
        # `**self.options`, `self.options = options or {}` with `def __init__(self, model, options=None)`
        ("engine.py", "PRM302", "info", 29),
        # (`**self.loaded` read from a file in `__init__`, and `**kwargs` rebound to `load_options()`:
        # may hold one, nothing)
        # `**(kwargs | self.options)`: a merge of the two, each read on its own
        ("engine.py", "PRM302", "info", 44),
        # (`**{**kwargs, **self.loaded}`: the loaded half may hold one, nothing)
        # `**(kwargs | self.hyperparams | hyperparams)`: a dict of the module's own keys (`system`), the
        # `**hyperparams` the instance is built with, the method's own `**hyperparams`
        ("engine.py", "PRM302", "info", 69),
    ]
    assert all(f[4].startswith("Every prompt passed to this function is sent whole as the message list its callers "
                               "give with no cache breakpoint, and no file of the package names one") for f in found)


def test_a_package_whose_caller_passes_cache_control_through_the_kwargs_is_not_reported():
    # (the callers' 8-token system prompts reach the sends through `engine.generate(...)`: too short
    # to cache, PRM301; no request lacks a breakpoint)
    assert [f[1] for f in _found(FIXTURES / "marked") if f[1] != "PRM301"] == []


def test_configured_options_are_the_instances_options_and_nothing_of_the_codes_own():
    from promptlint.model import Kind, Segment, Volatility
    from promptlint.python.flow.values import Alt, Mapping, Text
    from promptlint.python.request_dicts import configured_options

    def seg(evidence):
        return Segment(text="", span=None, kind=Kind.UNKNOWN, volatility=Volatility.STABLE, expr="options",
                       evidence=evidence)
    configured = Text([seg("the parameter `options` of `Engine.__init__`, with a default (configuration)")])
    assert configured_options(configured) is True
    assert configured_options(Alt([configured, Mapping({}, {}, None)], None)) is True  # `options or {}`
    assert configured_options(Alt([configured, Mapping({"system": configured}, {}, None)], None)) is False
    assert configured_options(Text([seg("the parameter `options`")])) is False
    assert configured_options(Mapping({}, {}, None)) is False  # (no configuration in it: not this case)
    assert configured_options(None) is False


def _func(source):
    return ast.parse(source).body[0]


def test_only_the_functions_own_kwargs_or_a_copy_bound_once_is_forwarded():
    f = _func("def send(self, messages, **kwargs):\n    opts = kwargs.copy()\n    extra = dict(self.extra)\n")
    assert forwarded_kwargs(ast.Name("kwargs"), f) is True
    assert forwarded_kwargs(ast.Name("opts"), f) is True
    assert forwarded_kwargs(ast.Name("extra"), f) is False  # a copy of something else
    assert forwarded_kwargs(ast.Name("other"), f) is False  # not bound here
    rebound = _func("def send(self, messages, **kwargs):\n    kwargs = load()\n")
    assert forwarded_kwargs(ast.Name("kwargs"), rebound) is False
    twice = _func("def send(self, messages, **kwargs):\n    opts = dict(kwargs)\n    opts = load()\n")
    assert forwarded_kwargs(ast.Name("opts"), twice) is False
    assert forwarded_kwargs(ast.Name("kwargs"), _func("def send(self, messages, kwargs):\n    pass\n")) is False


def test_a_merged_mapping_gives_the_request_the_keys_of_its_known_dicts():
    report = api.check([FIXTURES / "bare"], api.Settings(), jobs=1)
    merged = {p.site.start.row: p for p in report.prompts if p.id.endswith("engine.py:69")}
    (layout,) = merged.values()
    # `kwargs` of `_prepare` holds `system`: read through `kwargs | self.hyperparams | hyperparams`
    assert [p.role for p in layout.parts] == ["system", "history"]
    assert layout.unread_options and layout.options_forwarded and not layout.open_options
    loaded = next(p for p in report.prompts if p.id.endswith("engine.py:49"))
    assert loaded.unread_options and not loaded.options_forwarded
