"""The evaluator on containers: dict / list / tuple / set displays, `**` merges, comprehensions
(list, set, dict; over a known list, a set, `.values()`), subscripts (static keys, negative
indexes, conversation slices `messages[:-1]`, the newest message `messages[-1]`), `sorted`, and
starred items."""
from __future__ import annotations

from analysis_support import pos, probe

from promptlint.model import Kind, Volatility
from promptlint.python.flow.variants import list_variants
from promptlint.python.flow.values import Alt, Mapping, Seq, Spread, Text

CONTAINERS = """
    TOOLS = {"search": {"name": "search"}, "fetch": {"name": "fetch"}}
    NAMES = {"b", "a"}


    def f(messages, rows):
        probe({"role": "system", "content": "Hi"})
        probe(["a", "b"][1])
        probe(("x", "y"))
        probe({"a", "b"})
        probe({**TOOLS, "extra": {"name": "x"}})
        probe(TOOLS["search"]["name"])
        probe(TOOLS.get("fetch"))
        probe([*rows, "tail"])
        probe(["a", *["b", "c"]])
"""


def test_displays(tmp_path):
    d = probe(tmp_path, CONTAINERS, index=0).value
    assert isinstance(d, Mapping) and list(d.items) == ["role", "content"]
    assert d.items["content"].segs[0].text == "Hi"
    assert d.key_spans["content"].start == pos(CONTAINERS, '"content"')
    assert d.node is not None  # written in the code: its key order is the code's
    assert probe(tmp_path, CONTAINERS, index=1).described == [("text", "b")]
    t = probe(tmp_path, CONTAINERS, index=2)
    assert isinstance(t.value, Seq) and t.value.is_tuple
    assert t.described == [("text", "['x', 'y']")]
    s, = probe(tmp_path, CONTAINERS, index=3).segs  # a set has no order
    assert (s.kind, s.volatility) == (Kind.UNORDERED_ITERATION, Volatility.PER_PROCESS)
    assert s.evidence == "a set display: iteration order depends on the hash seed"


def test_merges_and_static_keys(tmp_path):
    merged = probe(tmp_path, CONTAINERS, index=4).value
    assert list(merged.items) == ["search", "fetch", "extra"]
    assert probe(tmp_path, CONTAINERS, index=5).described == [("text", "search")]
    got = probe(tmp_path, CONTAINERS, index=6).value
    assert isinstance(got, Mapping) and got.items["name"].segs[0].text == "fetch"


def test_starred_items(tmp_path):
    spread = probe(tmp_path, CONTAINERS, index=7).value
    assert [type(i) for i in spread.items] == [Spread, Text]
    assert spread.items[0].expr == "rows"
    flat = probe(tmp_path, CONTAINERS, index=8).value  # a known list spread into a display
    assert [i.segs[0].text for i in flat.items] == ["a", "b", "c"]


COMPREHENSIONS = """
    TOOLS = {"search": {"name": "search"}, "fetch": {"name": "fetch"}}
    NAMES = {"b", "a"}


    def f(rows):
        probe([r.upper() for r in rows])
        probe([n for n in NAMES])
        probe({k: v for k, v in TOOLS.items()})
        probe({n: 1 for n in NAMES})
        probe({n for n in rows})
        probe(list(TOOLS.values()))
        probe([t for t in TOOLS.values()])
        probe(sorted(NAMES))
        probe([n for n in sorted(NAMES)])
"""


def test_list_comprehensions_keep_their_source_order(tmp_path):
    p = probe(tmp_path, COMPREHENSIONS, index=0)
    assert isinstance(p.value, Seq) and p.value.repeated and p.value.unordered is None
    seg, = p.segs
    assert (seg.kind, seg.volatility, seg.evidence) == (Kind.UNKNOWN, Volatility.UNKNOWN, "the parameter `rows`")
    over_set = probe(tmp_path, COMPREHENSIONS, index=1)
    # iterating a set: reported where it is iterated, with a fix that sorts it there
    assert over_set.value.unordered is not None
    seg, = over_set.segs
    assert seg.kind is Kind.UNORDERED_ITERATION
    assert seg.span.start == pos(COMPREHENSIONS, "NAMES])")
    assert seg.anchor.place == "iterable"
    assert seg.origin.start == pos(COMPREHENSIONS, '{"b", "a"}')


def test_dict_and_set_comprehensions(tmp_path):
    d = probe(tmp_path, COMPREHENSIONS, index=2).value
    # a dict rebuilt from its own entries is that dict (flow/kept_entries.py): its keys, in its display's order
    assert isinstance(d, Mapping) and not d.repeated and list(d.items) == ["search", "fetch"] and d.unordered is None
    from_set = probe(tmp_path, COMPREHENSIONS, index=3).value
    assert isinstance(from_set, Mapping) and from_set.unordered.kind is Kind.UNORDERED_ITERATION
    seg, = probe(tmp_path, COMPREHENSIONS, index=4).segs
    assert (seg.kind, seg.evidence) == (Kind.UNORDERED_ITERATION,
                                        "a set comprehension: iteration order depends on the hash seed")


def test_dict_views_are_lists_in_the_dict_order(tmp_path):
    values = probe(tmp_path, COMPREHENSIONS, index=5).value
    assert isinstance(values, Seq) and not values.repeated
    assert [v.items["name"].segs[0].text for v in values.items] == ["search", "fetch"]
    names = probe(tmp_path, COMPREHENSIONS, index=6).value
    assert not names.repeated and names.unordered is None  # mapped item by item, in the dict's order
    assert [t.items["name"].segs[0].text for t in names.items] == ["search", "fetch"]


def test_sorted_gives_a_fixed_order(tmp_path):
    ordered = probe(tmp_path, COMPREHENSIONS, index=7).value
    assert isinstance(ordered, Seq) and ordered.ordered
    seg, = probe(tmp_path, COMPREHENSIONS, index=7).segs
    assert (seg.kind, seg.volatility) == (Kind.UNKNOWN, Volatility.STABLE)
    over_sorted = probe(tmp_path, COMPREHENSIONS, index=8).value
    assert over_sorted.unordered is None


CONVERSATION = """
    def f(messages):
        probe(messages[:-1])
        probe(messages[-1])
        probe(messages[-1]["content"])
        probe(messages[0])
        probe(messages[1:])
"""


def test_conversation_slices_and_the_newest_message(tmp_path):
    earlier = probe(tmp_path, CONVERSATION, index=0)
    assert earlier.described == [("history", "unknown", "messages")]  # still the replayed conversation
    newest = probe(tmp_path, CONVERSATION, index=1).value
    assert isinstance(newest, Mapping) and newest.items["role"].segs[0].text == "user"
    content, = newest.items["content"].segs
    assert (content.kind, content.volatility) == (Kind.USER_INPUT, Volatility.PER_REQUEST)
    assert content.evidence == "the newest message of the conversation `messages`"
    assert content.origin.start == pos(CONVERSATION, "messages[-1])")  # the conversation it is taken from
    text, = probe(tmp_path, CONVERSATION, index=2).segs
    assert (text.kind, text.volatility, text.expr) == (Kind.USER_INPUT, Volatility.PER_REQUEST, "messages[-1]")
    first, = probe(tmp_path, CONVERSATION, index=3).segs
    assert (first.kind, first.volatility) == (Kind.UNKNOWN, Volatility.UNKNOWN)
    assert first.evidence.startswith("an early message of the conversation")
    assert probe(tmp_path, CONVERSATION, index=4).described == [("history", "unknown", "messages")]


def test_subscripts_of_unknown_values_and_out_of_range(tmp_path):
    src = """
        def f(data):
            probe(["a"][3])
            probe(data["system"])
            probe("abc"[1:])
    """
    out_of_range, = probe(tmp_path, src, index=0).segs
    assert out_of_range.kind is Kind.UNKNOWN
    key, = probe(tmp_path, src, index=1).segs
    assert (key.kind, key.expr) == (Kind.UNKNOWN, 'data["system"]')
    sliced, = probe(tmp_path, src, index=2).segs
    assert (sliced.volatility, sliced.evidence) == (Volatility.STABLE, "a slice of constant text")


GROWN_IN_BRANCHES = """
    def f(repo, diff, flag, strict, extra):
        lines = [f"Review of {repo}", "Rules."]
        if flag:
            lines += ["Be strict."]
        lines += ["Format.", diff]
        probe(lines)
        if strict:
            lines.append("Twice.")
        lines += ["End."]
        probe(lines)
        extra += ["tail"]
        probe(extra)
"""


def test_a_list_grown_in_a_branch_keeps_what_it_held_before(tmp_path):
    grown = probe(tmp_path, GROWN_IN_BRANCHES, index=0).value
    assert isinstance(grown, Alt) and len(grown.options) == 2
    texts = [[i.segs[0].text if i.segs[0].is_static else i.segs[0].expr for i in o.items[1:]]
             for o in grown.options]
    assert texts == [["Rules.", "Be strict.", "Format.", "diff"], ["Rules.", "Format.", "diff"]]
    assert all(o.items[0].segs[1].expr == "repo" for o in grown.options)


def test_variants_multiply_through_later_branches_and_growth(tmp_path):
    twice = probe(tmp_path, GROWN_IN_BRANCHES, index=1).value
    assert isinstance(twice, Alt) and len(twice.options) == 4
    assert {len(o.items) for o in twice.options} == {5, 6, 7}
    assert all(o.items[0].segs[0].text == "Review of " and o.items[-1].segs[0].text == "End."
               for o in twice.options)


def test_what_a_list_of_several_variants_is_grown_by_is_read_once(tmp_path):
    # `msgs.append(...)` after an `if` that built `msgs` one of two ways: the appended message is
    # one value (read once, its work spent once) at the end of both lists
    src = """
        def question(q):
            return f"Q: {q.strip()}"


        def f(flag, q):
            if flag:
                msgs = [{"role": "system", "content": "Short."}]
            else:
                msgs = [{"role": "system", "content": "Long."}]
            msgs.append({"role": "user", "content": question(q)})
            msgs.insert(0, {"role": "developer", "content": question("head")})
            probe(msgs)
    """
    grown = probe(tmp_path, src).value
    assert isinstance(grown, Alt) and len(grown.options) == 2
    first, second = grown.options
    assert first.items[-1] is second.items[-1] and first.items[0] is second.items[0]
    assert [o.items[1].items["content"].segs[0].text for o in grown.options] == ["Short.", "Long."]
    assert first.items[-1].items["content"].segs[0].text == "Q: "


def test_the_order_of_a_loop_that_adds_several_items_is_read_once(tmp_path):
    # every append of the loop asks whether its source is unordered: one reading of `set(names)`
    src = """
        def f(names):
            out = ["Names:"]
            for n in set(names):
                out.append(f"a {n}")
                out.append(f"b {n}")
                out.append(f"c {n}")
            probe(out)
    """
    p = probe(tmp_path, src)
    assert isinstance(p.value, Seq) and p.value.unordered is not None
    assert p.value.unordered.kind is Kind.UNORDERED_ITERATION
    assert [found for _, found in p.frame.shared.values()] == [p.value.unordered]


def test_growing_a_parameter_keeps_the_parameter(tmp_path):
    grown = probe(tmp_path, GROWN_IN_BRANCHES, index=2).value
    assert isinstance(grown, Seq) and [type(i) for i in grown.items] == [Spread, Text]
    assert grown.items[1].segs[0].text == "tail"


WINDOWS = """
    from langchain_core.messages import trim_messages


    def f(messages, history, rows, llm):
        while len(messages) > 20:
            messages.pop(0)
        probe(messages)
        chat = [{"role": "system", "content": "Rules."}, *history]
        while len(chat) > 20:
            del chat[1]
        probe(chat)
        probe(trim_messages(history, max_tokens=100, token_counter=llm))
        probe(trim_messages(history, max_tokens=100, token_counter=llm, strategy="first"))
        rows.pop(0)
        probe(rows)
"""


def test_dropping_the_oldest_messages_in_a_loop_is_a_sliding_window(tmp_path):
    popped, = probe(tmp_path, WINDOWS, index=0).segs
    assert popped.kind is Kind.HISTORY and popped.window.start == pos(WINDOWS, "messages.pop(0)")
    chat = probe(tmp_path, WINDOWS, index=1).value
    assert isinstance(chat, Seq) and chat.items[1].value.segs[0].window.start == pos(WINDOWS, "del chat[1]")
    assert chat.items[0].items["content"].segs[0].text == "Rules."


def test_trim_messages_keeps_the_newest_unless_told_the_oldest(tmp_path):
    last, = probe(tmp_path, WINDOWS, index=2).segs
    assert last.kind is Kind.HISTORY and last.window.start == pos(WINDOWS, "trim_messages(history, max_tokens=100, token")
    first, = probe(tmp_path, WINDOWS, index=3).segs
    assert first.kind is Kind.HISTORY and first.window is None


def test_a_single_pop_outside_a_loop_is_not_a_window(tmp_path):
    rows, = probe(tmp_path, WINDOWS, index=4).segs
    assert rows.window is None


NEWEST_FIRST = """
    def f(history, budget, rows):
        kept = []
        for message in reversed(history):
            if len(message["content"]) > budget:
                break
            kept.append(message)
            budget -= len(message["content"])
        probe(list(reversed(kept)))
        probe(budget)
        recent = []
        for message in history[::-1]:
            for part in message["parts"]:
                if part is None:
                    break
            recent.append(message)
        probe(recent)
        last = []
        for row in reversed(rows):
            if row is None:
                break
            last.append(row)
        probe(last)
        probe(reversed(["a", "b"]))
"""


def test_a_newest_first_walk_that_stops_at_a_budget_is_a_sliding_window(tmp_path):
    kept, = probe(tmp_path, NEWEST_FIRST, index=0).segs
    assert kept.kind is Kind.HISTORY and kept.window.start == pos(NEWEST_FIRST, "reversed(history)")


def test_a_counter_the_walk_decrements_is_not_the_window(tmp_path):
    budget = probe(tmp_path, NEWEST_FIRST, index=1).segs
    assert not any(s.window for s in budget)


def test_a_newest_first_walk_without_its_own_break_keeps_everything(tmp_path):
    recent = probe(tmp_path, NEWEST_FIRST, index=2).value  # the break ends the inner loop only
    assert not any(getattr(s, "window", None) for s in getattr(recent, "segs", []))
    assert isinstance(recent, Seq) and recent.repeated


def test_a_newest_first_walk_over_what_is_not_a_conversation_is_left_as_it_is(tmp_path):
    last = probe(tmp_path, NEWEST_FIRST, index=3).value
    assert not (isinstance(last, Text) and any(s.window for s in last.segs))


def test_reversed_turns_a_list_display_around(tmp_path):
    turned = probe(tmp_path, NEWEST_FIRST, index=4).value
    assert isinstance(turned, Seq) and [i.segs[0].text for i in turned.items] == ["b", "a"]


GROWN_THEN_CUT = """
    def f(events):
        messages = []
        for event in events:
            messages.extend(event.to_messages())
        while len(messages) > 20:
            messages.pop(0)
        probe(messages)
        rows = []
        for event in events:
            rows.append(event.text)
        while len(rows) > 20:
            rows.pop(0)
        probe(rows)
"""


def test_a_message_list_grown_in_a_loop_then_cut_from_the_front_is_a_sliding_window(tmp_path):
    cut, = probe(tmp_path, GROWN_THEN_CUT, index=0).segs
    assert cut.kind is Kind.HISTORY and cut.window.start == pos(GROWN_THEN_CUT, "messages.pop(0)")


def test_a_list_not_named_as_a_conversation_is_not_one_when_cut(tmp_path):
    rows = probe(tmp_path, GROWN_THEN_CUT, index=1).value
    assert isinstance(rows, Seq) and rows.repeated


MAPPED = """
    def convert(m):
        return {"role": m["role"], "content": m["content"]}


    def f(history, question, extra):
        messages = [{"role": "system", "content": "Rules."}, *history, {"role": "user", "content": question}]
        probe([{"role": m["role"], "content": m["content"]} for m in messages])
        probe([convert(m) for m in messages])
        probe([m for m in messages if m])
        probe([m["content"] for m in history])
"""


def test_a_comprehension_over_a_message_list_display_converts_each_message_in_place(tmp_path):
    for index in (0, 1):
        converted = probe(tmp_path, MAPPED, index=index).value
        assert isinstance(converted, Seq) and not converted.repeated and len(converted.items) == 3
        system, spread, user = converted.items
        assert system.items["content"].segs[0].text == "Rules." and system.items["role"].segs[0].text == "system"
        assert isinstance(spread, Spread) and spread.value.repeated
        assert user.items["content"].segs[0].kind is Kind.USER_INPUT


def test_a_filter_the_code_cannot_decide_keeps_each_message(tmp_path):
    kept = probe(tmp_path, MAPPED, index=2).value  # `if m`: a message is a dict, kept
    assert isinstance(kept, Seq) and not kept.repeated and len(kept.items) == 3


def test_a_comprehension_over_an_unknown_list_is_one_repeated_element(tmp_path):
    kept = probe(tmp_path, MAPPED, index=3).value
    assert isinstance(kept, Seq) and kept.repeated and len(kept.items) == 1


FILTERED = """
    def f(extra, name):
        parts = ["You are a careful assistant.", "", extra, "Answer briefly."]
        probe([p for p in parts if p != ""])
        probe([p for p in parts if p])
        probe([p for p in parts if p is not None and p != "Answer briefly."])
        probe("\\n".join(p for p in parts if p))
"""


def test_a_filter_on_static_text_drops_what_it_drops_and_keeps_the_rest(tmp_path):
    for index in (0, 1):
        kept = probe(tmp_path, FILTERED, index=index).value
        assert [i.segs[0].text or i.segs[0].expr for i in kept.items] == ["You are a careful assistant.", "extra",
                                                                           "Answer briefly."]
    kept = probe(tmp_path, FILTERED, index=2).value
    assert [i.segs[0].text or i.segs[0].expr for i in kept.items] == ["You are a careful assistant.", "", "extra"]


def test_a_joined_filtered_generator_keeps_the_static_text_around_the_dynamic_part(tmp_path):
    joined = probe(tmp_path, FILTERED, index=3).segs
    assert [s.text for s in joined if s.is_static][0] == "You are a careful assistant."
    assert any(not s.is_static and s.expr == "extra" for s in joined)
    assert joined[-1].text.endswith("Answer briefly.")


MANY_BRANCHES = """
    def f(a, b, c, d, stamp):
        parts = [f"Now: {stamp}", "Rules."]
        if a:
            parts.append("A")
        if b:
            parts.append("B")
        if c:
            parts.append("C")
        if d:
            parts.append("D")
        probe(parts)
"""


def test_a_list_grown_in_many_branches_is_one_list_with_items_present_or_absent(tmp_path):
    variants = list_variants(probe(tmp_path, MANY_BRANCHES).value)  # 16 variants: one list
    assert len(variants) == 1
    parts = variants[0]
    assert isinstance(parts, Seq) and not parts.repeated and len(parts.items) == 6
    assert parts.items[1].segs[0].text == "Rules."
    maybe = parts.items[2:]
    assert all(isinstance(i, Alt) and i.options[0].segs[0].text == w and i.options[1].segs[0].text == ""
               for i, w in zip(maybe, "ABCD"))


MAP_LOOPS = """
    def f(history, question, docs):
        messages = [{"role": "system", "content": "Rules."}, *history, {"role": "user", "content": question}]
        formatted = []
        for m in messages:
            role = m["role"]
            formatted.append({"role": role, "content": m["content"]})
        probe(formatted)
        picked = []
        for m in messages:
            if m:
                picked.append(m)
        probe(picked)
        lines = []
        for d in docs:
            lines.append(d)
        probe(lines)
"""


def test_a_loop_that_appends_once_per_message_converts_each_message_in_place(tmp_path):
    converted = probe(tmp_path, MAP_LOOPS, index=0).value
    assert isinstance(converted, Seq) and not converted.repeated and len(converted.items) == 3
    system, spread, user = converted.items
    assert system.items["role"].segs[0].text == "system" and system.items["content"].segs[0].text == "Rules."
    assert isinstance(spread, Spread) and spread.value.repeated
    assert user.items["role"].segs[0].text == "user" and user.items["content"].segs[0].kind is Kind.USER_INPUT


def test_a_conditional_append_or_an_unknown_source_stays_one_repeated_element(tmp_path):
    picked = probe(tmp_path, MAP_LOOPS, index=1).value  # with or without each message: variants
    assert not isinstance(picked, Seq) and all(isinstance(o, (Seq, Alt)) for o in picked.options)
    lines = probe(tmp_path, MAP_LOOPS, index=2).value
    assert isinstance(lines, Seq) and lines.repeated


SET_ITEMS = """
    def f(messages, tools, block):
        payload = {"model": "m", "messages": messages}
        payload["system"] = "Rules."
        probe(payload)
        if tools:
            payload["tools"] = tools
        probe(payload)
        block["cache_control"] = {"type": "ephemeral"}
        probe(block)
"""


def test_a_dict_set_key_by_key_holds_each_key(tmp_path):
    payload = probe(tmp_path, SET_ITEMS, index=0).value
    assert isinstance(payload, Mapping) and list(payload.items) == ["model", "messages", "system"]
    assert payload.items["system"].segs[0].text == "Rules."
    assert payload.key_spans["system"].start == pos(SET_ITEMS, '"Rules."')


def test_a_key_set_in_a_branch_gives_both_dicts(tmp_path):
    both = probe(tmp_path, SET_ITEMS, index=1).value
    assert isinstance(both, Alt) and sorted(len(o.items) for o in both.options) == [3, 4]


def test_a_cache_marker_set_by_subscript_is_left_to_the_marker_count(tmp_path):
    block = probe(tmp_path, SET_ITEMS, index=2).value
    assert not isinstance(block, Mapping)  # a parameter: unchanged (the breakpoint is a frame marker)



MANY_KEYS = """
    def f(schema, fresh, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20, c21, c22, c23, c24, c25, c26, c27, c28, c29):
        if fresh:
            schema = {"type": "object"}
        if c0:
            schema["k0"] = 0
        if c1:
            schema["k1"] = 1
        if c2:
            schema["k2"] = 2
        if c3:
            schema["k3"] = 3
        if c4:
            schema["k4"] = 4
        if c5:
            schema["k5"] = 5
        if c6:
            schema["k6"] = 6
        if c7:
            schema["k7"] = 7
        if c8:
            schema["k8"] = 8
        if c9:
            schema["k9"] = 9
        if c10:
            schema["k10"] = 10
        if c11:
            schema["k11"] = 11
        if c12:
            schema["k12"] = 12
        if c13:
            schema["k13"] = 13
        if c14:
            schema["k14"] = 14
        if c15:
            schema["k15"] = 15
        if c16:
            schema["k16"] = 16
        if c17:
            schema["k17"] = 17
        if c18:
            schema["k18"] = 18
        if c19:
            schema["k19"] = 19
        if c20:
            schema["k20"] = 20
        if c21:
            schema["k21"] = 21
        if c22:
            schema["k22"] = 22
        if c23:
            schema["k23"] = 23
        if c24:
            schema["k24"] = 24
        if c25:
            schema["k25"] = 25
        if c26:
            schema["k26"] = 26
        if c27:
            schema["k27"] = 27
        if c28:
            schema["k28"] = 28
        if c29:
            schema["k29"] = 29
        probe(schema)
"""


def _size(value) -> int:
    """The options of an Alt, counted as a walk that does not remember what it saw would visit them."""
    return 1 + sum(_size(o) for o in value.options) if isinstance(value, Alt) else 1


def test_keys_set_in_many_branches_of_a_dict_or_a_parameter_stay_small(tmp_path):
    schema = probe(tmp_path, MANY_KEYS).value  # a parameter or a dict: set thirty times, in branches
    assert _size(schema) < 2_000  # not one variant more per key and branch (2 ** 30)


DICTS_GROWN = """
    import json


    def f(chunks):
        out = []
        for chunk in chunks:
            entry = {"id": chunk["id"], "content": chunk["content"]}
            if chunk.get("headings"):
                entry["headings"] = chunk["headings"]
            out.append(entry)
        probe("\\\\n".join(json.dumps(t, ensure_ascii=False) for t in out))
        rows = []
        for chunk in chunks:
            rows.append(chunk)
        probe("\\\\n".join(json.dumps(r) for r in rows))
"""


def test_dicts_written_in_the_code_keep_their_key_order_through_a_list_grown_in_a_loop(tmp_path):
    seg, = [s for s in probe(tmp_path, DICTS_GROWN, index=0).segs if s.kind is Kind.SERIALIZED]
    assert seg.ordered and seg.evidence == "a dict written in the code keeps its order"
    seg, = [s for s in probe(tmp_path, DICTS_GROWN, index=1).segs if s.kind is Kind.SERIALIZED]
    assert not seg.ordered  # data from elsewhere: its key order is not the code's


def test_a_table_of_texts_read_by_a_key_not_known_is_one_of_its_texts(tmp_path):
    src = """
        PROMPTS = {"en": "Answer in English: {q}", "fr": "Answer in French: {q}"}
        MIXED = {"en": "Answer: {q}", "n": {"role": "user"}}


        def f(lang, key):
            probe(PROMPTS[lang])
            probe(PROMPTS[lang].format(q=key))
            probe(MIXED[lang])
            probe(PROMPTS[1:])
    """
    picked = probe(tmp_path, src, index=0).value
    assert isinstance(picked, Alt) and [o.segs[0].text for o in picked.options] == \
        ["Answer in English: {q}", "Answer in French: {q}"]
    filled = probe(tmp_path, src, index=1).value  # each text filled in
    assert isinstance(filled, Alt) and all(o.segs[-1].expr == "key" for o in filled.options)
    # a dict holding other values than text stays unknown, and so does a slice
    assert probe(tmp_path, src, index=2).described == [("unknown", "unknown", "MIXED[lang]")]
    assert probe(tmp_path, src, index=3).segs[0].kind is Kind.UNKNOWN


def test_names_after_a_starred_target_count_from_the_end(tmp_path):
    src = """
        def f(question, store):
            *_, last = ("a", "b", "c")
            first, *rest = ("a", "b", "c")
            *_, found = store.search(question)
            probe(last)
            probe(first)
            probe(found)
    """
    assert probe(tmp_path, src, index=0).described == [("text", "c")]
    assert probe(tmp_path, src, index=1).described == [("text", "a")]
    # a part of data fetched with the user's question changes with it
    (kind, volatility, expr), = probe(tmp_path, src, index=2).described
    assert (kind, volatility, expr) == ("user-input", "per-request", "found")


KEPT_OR_REBUILT = """
    class Chat:
        def __init__(self):
            self._log = []

        def add(self, message):
            self._log.append(message)

        def f(self, rows):
            probe([Msg(role=m["role"], content=m["content"]) if m["role"] == "assistant" else m for m in self._log])
            probe([m if m["role"] != "assistant" else strip(m) for m in self._log])
            probe([Msg(role=m["role"], content=m["content"]) if m["role"] == "assistant" else r for m in self._log])
            probe([r if r else m for m in rows])
"""


def test_a_conversation_with_each_message_kept_or_rebuilt_from_itself_is_the_conversation(tmp_path):
    for index in (0, 1):
        segs = probe(tmp_path, KEPT_OR_REBUILT, index=index).segs
        assert [s.kind for s in segs] == [Kind.HISTORY]
    # the other branch is no message of it, or the source is no conversation: one element per item
    for index in (2, 3):
        assert isinstance(probe(tmp_path, KEPT_OR_REBUILT, index=index).value, Seq)
