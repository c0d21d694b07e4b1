"""The walk that tells whether reading a function for helper breakpoints can find one
(python/marking_reach.py): it follows the calls the reader follows, keeps the [] readings the
reader would keep, and the reading it lets through or skips gives what the reader alone gives."""
from __future__ import annotations

from analysis_support import stub_module

from promptlint.python import marking_helpers, marking_reach

SOURCE = (
    "def mark(xs):\n"
    "    xs[-1] = {**xs[-1], 'cache_control': {'type': 'ephemeral'}}\n"
    "def relay(xs):\n"
    "    mark(xs)\n"
    "def plain(xs):\n"
    "    return len(xs)\n"
    "def uses_plain(xs):\n"
    "    n = plain(xs)\n"
    "    return [x for x in xs][:n]\n"
    "def d1(xs):\n"
    "    d2(xs)\n"
    "def d2(xs):\n"
    "    d3(xs)\n"
    "def d3(xs):\n"
    "    d4(xs)\n"
    "def d4(xs):\n"
    "    d5(xs)\n"
    "def d5(xs):\n"
    "    mark(xs)\n"
    "def nested(xs):\n"
    "    def inner(ys):\n"
    "        mark(ys)\n"
    "    inner(xs)\n"
    "def sender(client, xs):\n"
    "    mark(xs)\n"
    "    client.messages.create(messages=xs)\n"
    "def calls_sender(client, xs):\n"
    "    sender(client, xs)\n"
)


_module = stub_module  # (the module stand-in these tests read)


def _reach(module, name: str, cache: dict) -> bool:
    reader = marking_helpers._Reader(None, cache)
    return marking_reach.reaches(reader, module, module.functions[name], None, 0, False)


def test_a_function_whose_calls_reach_no_breakpoint_key_is_not_read_and_its_readings_are_kept():
    module = _module(SOURCE)
    cache: dict = {}
    assert _reach(module, "uses_plain", cache) is False
    funcs = module.functions
    # the reader's own keys: the function read (own keys left out), the callee it follows
    assert cache == {(id(funcs["uses_plain"]), False): (funcs["uses_plain"], []),
                     (id(funcs["plain"]), True): (funcs["plain"], [])}


def test_a_helper_that_names_a_key_through_a_call_or_a_nested_function_lets_the_reading_through():
    module = _module(SOURCE)
    assert _reach(module, "relay", {}) is True
    assert _reach(module, "nested", {}) is True
    assert marking_helpers.added_marks(None, module, module.functions["relay"], None, {}) == [(2, 1)]


def test_the_walk_makes_the_readers_cuts_and_reads_its_kept_readings():
    module = _module(SOURCE)
    # mark() is five calls below d1: past the depth the reader follows
    assert _reach(module, "d1", {}) is False
    # a reading kept from d4 (which finds mark() two calls down) is what the reader meets at d4
    cache: dict = {}
    assert marking_helpers.added_marks(None, module, module.functions["d4"], None, cache) == [(2, 1)]
    assert _reach(module, "d1", cache) is True
    # a callee that sends a request marks its own request
    assert _reach(module, "calls_sender", {}) is False


def test_the_readings_equal_the_readers_alone_in_any_order():
    module = _module(SOURCE)
    names = list(module.functions)
    for order in (names, names[::-1], sorted(names, key=len)):
        gated: dict = {}
        alone: dict = {}
        for name in order:
            func = module.functions[name]
            found = marking_helpers.added_marks(None, module, func, None, gated)
            read = marking_helpers._Reader(None, alone).function(module, func, None, 0, False)
            assert found == [(span, count) for span, count, _root in read], (order, name)
