"""Cache breakpoints set by helper functions (python/marking_helpers.py): a marked copy returned,
a message marked in place, both lists of a returned tuple marked by a helper with nested
functions, in loops and by index, in another module; they count for the request that sends the
marked blocks (explain's drawing, PRM302, PRM303, PRM304, PRM305). Fixtures:
fixtures/helper_marks (its README says what each file shows)."""
from __future__ import annotations

import shutil
from pathlib import Path

from analysis_support import evaluator, sent, stub_module

from promptlint import api
from promptlint.python import marking_helpers
from promptlint.python.sites import find_layouts

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "helper_marks"


def _copy(tmp_path) -> Path:
    root = tmp_path / "helper_marks"
    shutil.copytree(FIXTURE, root)
    return root


def _findings(tmp_path):
    root = _copy(tmp_path)
    found = api.check([root / "chat"], api.Settings(), jobs=1).diagnostics
    return [(d.code, d.severity.value, d.span.filename.rsplit("/", 1)[-1], d.span.start.row)
            for d in found if d.code.startswith("PRM3") or d.code == "PRM102"]


def _breakpoints(tmp_path, name):
    """(role, breakpoints after the part's last segment, their total count, file:row of each) of the
    parts of the only request of `chat/name`."""
    root = _copy(tmp_path)
    ev = evaluator(root)
    layouts = sent(find_layouts(ev.project.load(root / "chat" / name), ev))
    assert len(layouts) == 1
    return [(p.role, [b.after == len(p.segments) - 1 for b in p.breakpoints], sum(b.count for b in p.breakpoints),
             [f"{b.span.filename.rsplit('/', 1)[-1]}:{b.span.start.row}" for b in p.breakpoints])
            for p in layouts[0].parts]


def test_a_marked_copy_returned_by_an_imported_helper_closes_the_system_prompt(tmp_path):
    assert _breakpoints(tmp_path, "single.py") == [("system", [True], 1, ["marks.py:7"]), ("user", [], 0, [])]


def test_a_message_marked_in_place_by_an_imported_helper_closes_the_history(tmp_path):
    assert _breakpoints(tmp_path, "session.py") == [("system", [], 0, []), ("history", [True], 1, ["marks.py:15"])]


def test_each_list_of_a_returned_tuple_carries_its_own_breakpoints_counted_on_the_longest_path(tmp_path):
    # the system prompt once; a pinned turn and the last two user turns: three (the pinned one is
    # left out of the loop's two when it is one of them)
    assert _breakpoints(tmp_path, "prepared.py") == [("system", [False], 1, ["marks.py:40"]),
                                                     ("history", [True], 3, ["marks.py:30"])]


def test_the_rules_see_the_breakpoints_helpers_set(tmp_path):
    assert sorted(_findings(tmp_path)) == [
        ("PRM102", "warning", "dated.py", 13),  # before the static guide a breakpoint now caches
        ("PRM302", "warning", "unmarked.py", 10),  # a helper that copies and marks nothing
        ("PRM303", "warning", "marks.py", 7),  # short.py: far below the minimum
        ("PRM304", "error", "marks.py", 55),  # every_turn.py: one on every message
        ("PRM304", "info", "marks.py", 15),  # (the callers' list marked in place: kept_marks.py)
        ("PRM305", "warning", "marks.py", 7),  # dated.py: after the time to the second
    ]


def _reading(text: str, name: str):
    module = stub_module(text)
    return marking_helpers.added_marks(None, module, module.functions[name], None, {})


def test_counts_follow_loops_branches_and_stops():
    source = (
        "def fixed(xs):\n"
        "    for x in xs[-3:]:\n"
        "        x.update(cache_control={'type': 'ephemeral'})\n"
        "def every(xs):\n"
        "    for i, x in enumerate(xs):\n"
        "        xs[i] = {**x, 'cache_control': {'type': 'ephemeral'}}\n"
        "def newest(xs):\n"
        "    for x in reversed(xs):\n"
        "        if x['role'] == 'user':\n"
        "            x.setdefault('cache_control', {'type': 'ephemeral'})\n"
        "            break\n"
        "def either(xs, system):\n"
        "    if system:\n"
        "        system[0] = {**system[0], 'cache_control': {}}\n"
        "    if xs and system is None:\n"
        "        xs[0] = {**xs[0], 'cache_control': {}}\n"
        "def both(xs, system):\n"
        "    if system:\n"
        "        system[0] = {**system[0], 'cache_control': {}}\n"
        "    if xs:\n"
        "        xs[0] = {**xs[0], 'cache_control': {}}\n"
        "def sends(client, xs):\n"
        "    xs[-1] = {**xs[-1], 'cache_control': {}}\n"
        "    return client.messages.create(messages=xs)\n"
        "def caller(client, xs):\n"
        "    sends(client, xs)\n"
        "    return xs\n"
        "def copy_marks(items, blocks):\n"
        "    for item, block in zip(items, blocks):\n"
        "        if 'cache_control' in item:\n"
        "            block['cache_control'] = item['cache_control']\n"
        "def converts(items, blocks):\n"
        "    copy_marks(items, blocks)\n"
        "    return blocks\n"
        "def built(items):\n"
        "    blocks = fresh(items)\n"
        "    return blocks\n"
        "def fresh(items):\n"
        "    out = [dict(i) for i in items]\n"
        "    out[-1] = {**out[-1], 'cache_control': {}}\n"
        "    return out\n"
        "def by_index(xs, idxs):\n"
        "    for i in idxs:\n"
        "        mark(xs[i])\n"
        "def mark(m):\n"
        "    m['cache_control'] = {}\n"
        "def newest_only(xs):\n"
        "    for i, x in enumerate(reversed(xs)):\n"
        "        if i == 0:\n"
        "            mark(x)\n"
        "def early(x):\n"
        "    if x['content'] is None:\n"
        "        x['cache_control'] = {}\n"
        "        return\n"
        "    x['content'][0]['cache_control'] = {}\n"
        "def calls_early(x):\n"
        "    early(x)\n"
    )
    assert _reading(source, "fixed") == [(3, 3)]
    assert _reading(source, "every") == [(6, True)]
    assert _reading(source, "newest") == [(10, 1)]
    assert _reading(source, "either") == [(14, 1)]
    assert _reading(source, "both") == [(19, 1), (21, 1)]
    assert _reading(source, "caller") == []  # a function that sends marks its own request
    assert _reading(source, "converts") == [(31, 1)]  # the caller's own breakpoint copied: once, not per item
    assert _reading(source, "by_index") == [(46, 1)]  # over a list of indices, not the messages: at least once
    assert _reading(source, "newest_only") == [(46, 1)]  # `if i == 0`: one pass of the loop
    assert _reading(source, "calls_early") == [(53, 1)]  # a branch that returns, or the rest: one of them
    assert _reading(source, "built") == []  # (the list `fresh` returns carries its breakpoint: flow/calls.py)

