"""`hashing.seed_free_set`: which sets iterate in the same order in every process (PRM202);
`hashing.set_annotation`: what a type annotation says about it."""
from __future__ import annotations

import ast

import pytest

from promptlint.python.flow.hashing import annotated_set, element_type, seed_free_set, set_annotation


@pytest.mark.parametrize("code", [
    "{3, 1, 2}", "{True, False}", "{1.5, -2, 3j}", "{(1, 2), (3, 4)}",
    "set(range(10))", "frozenset(range(1, 6))", "set([1, 2, 3])", "set((1, 2))",
    "{i * 2 for i in range(10)}", "{(i, j) for i in range(3) for j in range(3)}",
    "{n for n in (1, 2, 3) if n > 1}", "set(i + 1 for i in range(4))", "{len(x) for x in range(3)}",
    "{int(s) for s in range(3)}", "{-1, ~2, 1 if True else 2}",
])
def test_sets_of_numbers_are_seed_free(code):
    assert seed_free_set(ast.parse(code, mode="eval").body)


@pytest.mark.parametrize("code", [
    '{"a", "b"}', "{b'a'}", "{1, None}", "{1, x}", "{(1, 'a')}", "set(names)", "set(range(3), x)",
    "{str(i) for i in range(3)}", "{x for x in items}", "{x.y for x in range(3)}", "set(x for x in y)",
    "{*a, 1}", "set(['a'])", "{f(i) for i in range(3)}", "{a for a, b in zip(range(2), range(2))}",
    "set({i: 1 for i in range(3)})", "builtins.set(range(3))",
    "set()", "frozenset()",  # empty now, filled later by `.add(task)` / `.update(names)`: not known
])
def test_sets_that_may_hold_strings_are_not(code):
    assert not seed_free_set(ast.parse(code, mode="eval").body)


@pytest.mark.parametrize("code, kind", [
    ('{"search", "calc"}', "str"), ('set(["a", "b"])', "str"), ("{f'tool_{n}' for n in ('a', 'b')}", "str"),
    ("{str(i) for i in range(3)}", "str"), ('{s.strip() for s in "a b".split()}', "str"),
    ("{1, 2}", "number"), ('{"a", 1}', None), ("set(names)", None), ("{t for t in tools}", None),
])
def test_element_type_of_a_set(code, kind):
    assert element_type(ast.parse(code, mode="eval").body) == kind


def test_a_set_filled_later_is_still_reported(tmp_path, monkeypatch):
    from promptlint.api import check
    (tmp_path / "app.py").write_text(
        "from openai import OpenAI\n\nclient = OpenAI()\n\n\n"
        "def run(tasks, history):\n"
        "    pending = set()\n"
        "    for task in tasks:\n"
        "        pending.add(task)\n"
        "    tools = []\n"
        "    for task in pending:\n"
        "        tools.extend(task.tools)\n"
        "    return client.chat.completions.create(model='gpt-4.1', messages=history, tools=tools)\n",
        encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    found = [(d.code, d.span.start.row) for d in check(["."]).diagnostics]
    assert found == [("PRM203", 11)]


@pytest.mark.parametrize("code, kind", [
    ("set[str]", "other"), ("set", "other"), ("frozenset['Task']", "other"), ("typing.AbstractSet[Path]", "other"),
    ("Optional[Set[str]]", "other"), ("set[str] | None", "other"), ("'set[Task]'", "other"),
    ("MutableSet[tuple[str, int]]", "other"),
    ("set[int]", "number"), ("frozenset[tuple[int, int]]", "number"), ("Set[float] | None", "number"),
    ("set[tuple[int, ...]]", "number"),
    ("list[str]", None), ("dict[str, set[str]]", None), ("Iterable[str]", None), ("str", None),
    ("set[str] | list[str]", None), ("'not valid ('", None),
])
def test_what_an_annotation_says_about_a_set(code, kind):
    node = ast.parse(code, mode="eval").body
    assert set_annotation(node) == kind
    assert annotated_set(node) is (kind == "other")


def test_no_annotation_is_no_set():
    assert set_annotation(None) is None and not annotated_set(None)
