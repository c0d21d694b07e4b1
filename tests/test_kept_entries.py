"""A request dict rebuilt from its own entries before it is sent (python/flow/kept_entries.py):
fixtures/kept_entries (see its README)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "kept_entries"


def _found(path):
    report = api.check([path], api.Settings(), jobs=1)
    return report, [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]


def test_a_dict_filtered_of_unset_options_or_of_a_key_is_still_the_request():
    report, found = _found(FIXTURES / "gateway.py")
    assert found == [("gateway.py", "PRM302", "warning", 13), ("gateway.py", "PRM302", "warning", 23)]
    assert report.diagnostics[0].message.startswith("Static prefix of about 2,785 tokens reaches the 1,024-token "
                                                    "minimum of claude-sonnet-4-5 but has no cache breakpoint")


def test_the_rebuilt_request_keeps_its_messages_and_its_breakpoint():
    report, _ = _found(FIXTURES / "gateway.py")
    sent = {p.site.start.row: p for p in report.prompts if p.api == "messages.create"}
    assert sorted(sent) == [20, 26, 36]
    assert [part.role for part in sent[20].parts] == ["system", "history", "user"]
    assert [part.role for part in sent[26].parts] == ["system", "history", "user"]
    assert [len(part.breakpoints) for part in sent[36].parts] == [1, 0, 0]


def test_values_replaced_or_keys_renamed_are_not_the_request():
    _report, found = _found(FIXTURES / "mapped.py")
    assert found == []


def test_a_converter_that_returns_by_type_gives_back_the_request_dict():
    report, found = _found(FIXTURES / "converted.py")
    # `reply` sends `jsonable(params)`: its dict branch; `enveloped` sends `wrapped(params)`, whose
    # dict branch puts the request under another key: not a request (any return of `wrapped` before)
    assert found == [("converted.py", "PRM302", "warning", 31)]
    sent = {p.site.start.row: p for p in report.prompts if p.api == "messages.create"}
    assert 41 not in sent
    assert [part.role for part in sent[35].parts] == ["system", "history", "user"]


def _dispatch(source):
    import ast

    from promptlint.python.flow.type_dispatch import dispatch
    return dispatch(ast.parse(source).body[0])


def test_only_a_body_of_type_guards_on_one_parameter_is_a_dispatch():
    found = _dispatch("def f(o):\n    '''doc'''\n    if isinstance(o, dict):\n        return {k: f(v) for k, v in o.items()}\n"
                      "    if isinstance(o, (list, tuple)):\n        return [f(v) for v in o]\n    return o\n")
    assert found is not None and found[0] == "o" and [sorted(t) for t, _ in found[1]] == [["dict"], ["list", "tuple"]]
    assert _dispatch("def f(o):\n    log(o)\n    if isinstance(o, dict):\n        return o\n    return o\n") is None
    assert _dispatch("def f(a, b):\n    if isinstance(a, dict):\n        return a\n    if isinstance(b, list):\n"
                     "        return b\n    return a\n") is None  # two parameters
    assert _dispatch("def f(o):\n    if isinstance(o, dict):\n        return o\n") is None  # one guard, no final return


def test_the_argument_kind_picks_the_branch():
    import ast

    from promptlint.python.flow.type_dispatch import chosen
    from promptlint.python.flow.values import Alt, Mapping, Seq, Text
    func = ast.parse("def f(o):\n    if isinstance(o, str):\n        return o.strip()\n    if isinstance(o, Mapping):\n"
                     "        return dict(o)\n    return o\n").body[0]
    assert ast.unparse(chosen(func, Mapping({"model": Text([])}))) == "dict(o)"
    assert ast.unparse(chosen(func, Alt([Mapping({"a": Text([])}), Mapping({"b": Text([])})]))) == "dict(o)"
    assert ast.unparse(chosen(func, Seq([Text([])]))) == "o"  # no list guard: the final return
    assert chosen(func, Text([])) is None  # text: not narrowed
    assert chosen(func, Mapping({}, repeated=True)) is None  # keys not known: not narrowed


def test_a_guard_on_an_abstract_type_matches_a_dict_too():
    import ast

    from promptlint.python.flow.type_dispatch import chosen
    from promptlint.python.flow.values import Mapping, Text
    func = ast.parse("def f(o):\n    if isinstance(o, str):\n        return o\n    if isinstance(o, abc.Iterable):\n"
                     "        return list(o)\n    return o\n").body[0]
    assert ast.unparse(chosen(func, Mapping({"model": Text([])}))) == "list(o)"
