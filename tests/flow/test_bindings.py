"""The evaluator on names: bindings in branches (alternatives), loops (read twice: the back edge),
`+=`, `.append` / `.extend` / `.insert`, tuple unpacking, names imported from other modules of the
tree (absolute and relative), and module-level values fixed when the module is imported."""
from __future__ import annotations

from analysis_support import pos, probe

from promptlint.model import Kind, Volatility
from promptlint.python.flow.values import Alt, Seq, Text


def test_a_name_bound_in_both_branches_is_one_of_two_values(tmp_path):
    p = probe(tmp_path, """
        def f(flag):
            if flag:
                tone = "formal"
            else:
                tone = "casual"
            probe(tone)
    """)
    assert isinstance(p.value, Alt)
    assert [o.segs[0].text for o in p.value.options] == ["formal", "casual"]


def test_a_name_bound_in_one_branch_keeps_the_value_before_it(tmp_path):
    p = probe(tmp_path, """
        def f(flag):
            tone = "casual"
            if flag:
                tone = "formal"
            probe(tone)
    """)
    assert isinstance(p.value, Alt)
    assert sorted(o.segs[0].text for o in p.value.options) == ["casual", "formal"]


def test_the_value_seen_is_the_one_bound_before_the_statement(tmp_path):
    src = """
        def f():
            text = "first"
            probe(text)
            text = "second"
            probe(text)
    """
    assert probe(tmp_path, src, index=0).described == [("text", "first")]
    assert probe(tmp_path, src, index=1).described == [("text", "second")]


LISTS = """
    def f(rows, extra):
        parts = ["Rules:"]
        for row in rows:
            parts.append(f"- {row}")
        probe(parts)
        items = ["x"]
        items.extend(["y", "z"])
        items.insert(0, "w")
        items.append("end")
        probe(items)
        more = ["a"]
        more.extend(extra)
        probe(more)
        more += ["b"]
        probe(more)
"""


def test_a_list_appended_in_a_loop_is_repeated_after_its_head(tmp_path):
    p = probe(tmp_path, LISTS, index=0)
    assert isinstance(p.value, Seq) and p.value.repeated
    assert p.value.head == 1  # "Rules:" was written before the loop
    assert p.value.items[0].segs[0].text == "Rules:"
    row = p.value.items[1].segs[1]
    assert (row.kind, row.expr) == (Kind.UNKNOWN, "row")


def test_extend_insert_and_append_outside_loops_give_a_known_list(tmp_path):
    p = probe(tmp_path, LISTS, index=1)
    assert isinstance(p.value, Seq) and not p.value.repeated
    assert [i.segs[0].text for i in p.value.items] == ["w", "x", "y", "z", "end"]
    assert p.described == [("text", "['w', 'x', 'y', 'z', 'end']")]


def test_extend_with_an_unknown_list_and_plus_equals(tmp_path):
    p = probe(tmp_path, LISTS, index=2)
    assert [type(i).__name__ for i in p.value.items] == ["Text", "Spread"]
    assert p.value.items[1].expr == "extra"
    grown = probe(tmp_path, LISTS, index=3)
    assert [type(i).__name__ for i in grown.value.items] == ["Text", "Spread", "Text"]
    assert grown.value.items[2].segs[0].text == "b"


def test_plus_equals_on_text_and_in_a_loop(tmp_path):
    src = """
        def f(rows):
            text = "Header."
            text += " Body."
            probe(text)
            log = ""
            for row in rows:
                log += row
            probe(log)
    """
    p = probe(tmp_path, src, index=0)
    assert p.described == [("text", "Header."), ("text", " Body.")]
    assert p.segs[1].span.start == pos(src, " Body.")
    looped = probe(tmp_path, src, index=1)
    # read twice: the second pass sees what the first added (the loop's back edge)
    assert [s.expr for s in looped.segs if not s.is_static] == ["row", "row"]


def test_tuple_unpacking(tmp_path):
    src = """
        def pair():
            return "left", "right"


        def f():
            a, b = "one", "two"
            probe(b)
            c, d = pair()
            probe(d)
    """
    assert probe(tmp_path, src, index=0).described == [("text", "two")]
    assert probe(tmp_path, src, index=1).described == [("text", "right")]


def test_every_name_unpacked_reads_the_value_as_it_was_before_the_assignment(tmp_path):
    # `name` is rebound by the statement itself: `copy` is what `pair` returns for the old `name`
    # (Python evaluates the right side once, then binds the names), not for the new one
    src = """
        def pair(x):
            return x + "!", x


        def f():
            name = "Ann"
            name, copy = pair(name)
            probe(copy)
            a, b = "a", "b"
            a, b = b, a
            probe(b)
    """
    assert probe(tmp_path, src, index=0).described == [("text", "Ann")]
    assert probe(tmp_path, src, index=1).described == [("text", "a")]


def test_a_value_unpacked_into_several_names_is_read_once(tmp_path):
    # `a, b, c = build(...)`: one call of `build` (its work spent once), whichever names are read
    src = """
        def build(text):
            head = text.upper()
            return head, text, head + text


        def f(topic):
            a, b, c = build(f"About {topic}.")
            probe([a, b, c])
    """
    p = probe(tmp_path, src)
    once = 60_000 - p.ev.budget.left
    p2 = probe(tmp_path, src.replace("probe([a, b, c])", "probe([a])"))
    assert once < 2 * (60_000 - p2.ev.budget.left)
    assert [i.segs[-1].text for i in p.value.items[1:]] == [".", "."]


LOOPED_CALL = """
    def pairs(xs):
        return [(x.upper(), f"About {x}.") for x in xs]


    def f(topics):
        out = []
        for head, body in pairs(topics):
            out.append(head + body)
        probe(out)
"""


def _calls_of(p, name: str) -> int:
    return sum(1 for _, func in p.ev.reached_funcs if func is p.module.functions[name])


def test_the_iterable_of_a_loop_is_read_once_for_its_names_and_its_two_passes(tmp_path):
    # `for head, body in pairs(topics)`: `pairs(...)` read once for both names, and once for both
    # passes of the loop (its back edge): the body rebinds nothing the iterable reads
    p = probe(tmp_path, LOOPED_CALL)
    assert _calls_of(p, "pairs") == 1
    assert isinstance(p.value, Seq) and p.value.items


def test_a_loop_whose_body_rebinds_what_its_iterable_reads_reads_it_again_on_the_second_pass(tmp_path):
    p = probe(tmp_path, LOOPED_CALL.replace("out.append(head + body)", "out.append(head + body)\n            topics = out"))
    assert _calls_of(p, "pairs") == 2


def test_the_test_of_an_if_is_judged_once_for_all_the_names_its_branches_bind(tmp_path):
    # whether `long_mode()` is configuration (Alt.configured) is asked by `a`, `b` and `c`: one reading
    src = """
        MODE = "long"


        def long_mode():
            return MODE == "long"


        def f():
            if long_mode():
                a, b, c = "A", "B", "C"
            else:
                a, b, c = "x", "y", "z"
            probe([a, b, c])
    """
    p = probe(tmp_path, src)
    assert _calls_of(p, "long_mode") == 1
    assert all(isinstance(item, Alt) for item in p.value.items)
    assert [[o.segs[0].text for o in item.options] for item in p.value.items] == [["A", "x"], ["B", "y"], ["C", "z"]]
    assert len({item.configured for item in p.value.items}) == 1  # (one answer for all three)


IMPORTS = {
    "prompts/__init__.py": "",
    "prompts/system.py": """
        from .parts import RULES

        SYSTEM = "You are a support bot. " + RULES


        def render(topic):
            return f"{SYSTEM} Topic: {topic}."
    """,
    "prompts/parts.py": 'RULES = "Be brief."\n',
}


def test_names_imported_from_other_modules_of_the_tree(tmp_path):
    src = """
        from prompts.system import SYSTEM, render
        from prompts.system import SYSTEM as ALIAS


        def f(topic):
            probe(SYSTEM)
            probe(render("billing"))
            probe(ALIAS)
    """
    p = probe(tmp_path, src, IMPORTS, index=0)
    assert p.described == [("text", "You are a support bot. "), ("text", "Be brief.")]
    assert p.segs[1].span.filename.endswith("prompts/parts.py")  # through a relative import
    assert p.segs[0].span.filename.endswith("prompts/system.py")
    rendered = probe(tmp_path, src, IMPORTS, index=1)
    assert "".join(s.text for s in rendered.segs) == "You are a support bot. Be brief. Topic: billing."
    assert probe(tmp_path, src, IMPORTS, index=2).described == p.described


def test_an_import_missing_from_the_tree_is_unknown(tmp_path):
    p = probe(tmp_path, """
        from somewhere_else import SYSTEM
        probe(SYSTEM)
    """)
    seg, = p.segs
    assert (seg.kind, seg.volatility) == (Kind.UNKNOWN, Volatility.UNKNOWN)


def test_module_level_clock_readings_are_fixed_per_process(tmp_path):
    src = """
        import uuid
        from datetime import datetime

        STARTED = f"Started {datetime.now():%H:%M}."
        RUN = uuid.uuid4()


        def f():
            probe(STARTED)
            probe(RUN)
            probe(datetime.now())
    """
    started = probe(tmp_path, src, index=0)
    assert started.described == [("text", "Started "), ("timestamp", "per-process", "datetime.now()"), ("text", ".")]
    assert probe(tmp_path, src, index=1).described == [("unique-id", "per-process", "uuid.uuid4()")]
    # inside a function the same call is new on every request
    assert probe(tmp_path, src, index=2).described == [("timestamp", "per-request", "datetime.now()")]


def test_module_level_names_probed_at_module_level(tmp_path):
    p = probe(tmp_path, """
        import time
        STAMP = time.time()
        probe(STAMP)
    """)
    assert isinstance(p.value, Text)
    assert p.described == [("timestamp", "per-process", "time.time()")]


def test_attributes_of_an_imported_module_of_the_tree(tmp_path):
    src = """
        import prompts.parts
        import prompts.system as system_module
        from prompts import system


        def f():
            probe(system.SYSTEM)
            probe(system_module.render("billing"))
            probe(prompts.parts.RULES)
    """
    p = probe(tmp_path, src, IMPORTS, index=0)
    assert p.described == [("text", "You are a support bot. "), ("text", "Be brief.")]
    assert p.segs[0].span.filename.endswith("prompts/system.py")
    rendered = probe(tmp_path, src, IMPORTS, index=1)
    assert "".join(s.text for s in rendered.segs) == "You are a support bot. Be brief. Topic: billing."
    assert probe(tmp_path, src, IMPORTS, index=2).described == [("text", "Be brief.")]


def test_a_module_level_list_appended_in_a_function_grows_across_calls(tmp_path):
    src = """
        messages = [{"role": "system", "content": "You are terse."}]


        def turn(text):
            messages.append({"role": "user", "content": text})
            probe(messages)
    """
    p = probe(tmp_path, src)
    # each call appends to the same list: what the earlier calls appended is the conversation
    assert isinstance(p.value, Seq) and p.value.repeated
    assert p.value.head == 1  # the system message written at import
    system, user = p.value.items
    assert system.items["content"].segs[0].text == "You are terse."
    assert user.items["content"].segs[0].expr == "text"


DEFAULTS = """
    import datetime

    STAMP = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")


    def worker_prompt(current_time=STAMP, request_id=None):
        probe(current_time)
        probe(request_id)
"""


def test_a_default_known_from_the_code_says_more_than_the_parameter_name(tmp_path):
    stamp, = probe(tmp_path, DEFAULTS, index=0).segs  # no caller: the default, fixed at import
    assert (stamp.kind, stamp.volatility, stamp.name_only) == (Kind.TIMESTAMP, Volatility.PER_PROCESS, False)
    rid, = probe(tmp_path, DEFAULTS, index=1).segs  # a default of None says nothing: the name is the hint
    assert rid.name_only and rid.kind is Kind.UNIQUE_ID


def test_a_module_whose_reading_failed_is_read_again(tmp_path):
    from analysis_support import evaluator, write
    write(tmp_path, {"m.py": 'RULES = "Be brief."\n'})
    ev = evaluator(tmp_path)
    module = ev.project.load(tmp_path / "m.py")
    frame = ev.module_frame(module)
    real = ev._interp

    def deep(*args):
        raise RecursionError("maximum recursion depth exceeded")

    ev._interp = deep
    try:
        ev.resolve_global(module, "RULES")
    except RecursionError:
        pass
    assert frame.snapshots is None  # not left half read
    ev._interp = real
    assert ev.resolve_global(module, "RULES").segs[0].text == "Be brief."
