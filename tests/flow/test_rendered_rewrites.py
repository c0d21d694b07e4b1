"""A conversation written into text with its older turns apart from the newest few (rewrites.py):
the joined text carries a marker (a stable segment of no text whose `window` is where the turns
are told apart), kept through `or`, a helper that reshapes the text and an f-string."""
from promptlint.model import Kind, Volatility
from promptlint.python.flow.rewrites import marks_in, marks_of

from analysis_support import pos, probe

APART = """
    def trim(text, n):
        out = ""
        for line in text.split("\\n"):
            out += line[:n] + "\\n"
        return out


    def f(turns, topic):
        conv = []
        for t in turns[:-4]:
            conv.append(f"You: {t.q}")
        for t in turns[-4:]:
            conv.append(f"You: {t.q}\\nExpert: {t.a}")
        text = "\\n".join(conv)
        probe(text)
        probe(f"Topic: {topic}\\n" + trim(text.strip() or "N/A", 80))
        lines = []
        total = len(turns)
        for i, t in enumerate(turns):
            if i < total - 3:
                lines.append(t.claim)
            else:
                lines.append(t.text)
        probe("\\n".join(lines))
        same = []
        for t in turns[:-4]:
            same.append(t.text)
        for t in turns[-4:]:
            same.append(t.text)
        probe("\\n".join(same))
        probe("\\n".join(t.text for t in turns[-4:]))
"""


def test_two_loops_over_older_and_newest_turns_mark_the_text(tmp_path):
    mark, = marks_of(probe(tmp_path, APART, index=0).segs)
    assert (mark.kind, mark.volatility, mark.text, mark.expr) == (Kind.UNKNOWN, Volatility.STABLE, "", "turns")
    assert mark.window.start == pos(APART, "for t in turns[:-4]")


def test_the_mark_survives_or_a_reshaping_helper_and_concatenation(tmp_path):
    mark, = marks_of(probe(tmp_path, APART, index=1).segs)
    assert mark.window.start == pos(APART, "for t in turns[:-4]")


def test_a_loop_by_index_that_writes_older_turns_apart(tmp_path):
    mark, = marks_of(probe(tmp_path, APART, index=2).segs)
    assert mark.window.start == pos(APART, "i < total - 3")


def test_turns_written_alike_or_only_the_newest_are_not_marked(tmp_path):
    assert marks_of(probe(tmp_path, APART, index=3).segs) == []
    assert marks_of(probe(tmp_path, APART, index=4).segs) == []


# ---- one loop that builds the messages renders its older items apart (rewrites.older_apart)
BUILT = """
    def by_counter(steps, keep):
        messages = [{"role": "system", "content": "Use the tools."}]
        n_obs = len([s for s in steps if s.kind == "observation"])
        n_short = n_obs - keep
        seen = 0
        for step in steps:
            if step.kind == "observation":
                if seen < n_short:
                    view = step.short_view()
                else:
                    view = step.llm_view()
                seen += 1
            else:
                view = step.llm_view()
            messages.append({"role": "user", "content": view})
        probe(messages)


    def newest_only(nodes):
        lines = []
        for i, node in enumerate(nodes):
            state = f"Step {i}\\n"
            if node.summary and i < len(nodes) - 1:
                state += f"Observation: {node.summary}"
            else:
                state += f"Observation: {node.message}"
            lines.append(state)
        probe(lines)


    def comprehension(ms, k):
        probe([{"role": m.role, "content": m.short() if i < len(ms) - k else m.full()} for i, m in enumerate(ms)])


    def newest_first(ms):
        out = []
        for i, m in enumerate(reversed(ms)):
            text = m.text if i < 3 else m.text[:200]
            out.append({"role": m.role, "content": text})
        probe(out)


    def stable_head(ms):
        out = []
        for i, m in enumerate(ms):
            out.append({"role": m.role, "content": m.full() if i < 3 else m.short()})
        probe(out)


    def separator(ms):
        text = ""
        for i, m in enumerate(ms):
            text += m.text + ("" if i == len(ms) - 1 else "\\n")
        probe(text)


    def filler(ms):
        out = []
        for i, m in enumerate(ms):
            out.append(m)
            if m.kind == "tool" and i + 1 < len(ms):
                out.append({"role": "assistant", "content": "OK"})
        probe(out)


    def ids(segments, fresh, make):
        out = []
        for position, (role, parts) in enumerate(segments):
            if position < len(segments) - 1:
                mid = fresh(role)
            else:
                mid = make(role)
            out.append(Msg(id=mid, role=role, parts=parts))
        probe(out)


    def kept_after(events, cut):
        out = []
        for index, event in enumerate(events):
            if index > len(events) - cut:
                out.append(event)
        probe(out)


    def running_total(rows, start):
        text = ""
        at = start
        for count, row in enumerate(rows):
            text += f"{at} -- {row.name}\\n"
            if count < len(rows) - 1:
                at += row.minutes
        probe(text)


    def tagged(other, keep, tag):
        result = []
        keep_start = max(0, len(other) - keep)
        for i, msg in enumerate(other):
            if i < keep_start:
                copy = msg.copy()
                copy["_parent"] = tag
                result.append(copy)
            else:
                result.append(msg)
        probe(result)


    def shortened_copy(history, keep):
        result = []
        for i, msg in enumerate(history):
            if i < len(history) - keep:
                short = dict(msg)
                short["content"] = msg["content"][:100]
                result.append(short)
            else:
                result.append(msg)
        probe(result)
"""


def test_a_loop_building_messages_renders_older_items_apart_by_a_counter_against_a_count_less_kept(tmp_path):
    mark, = marks_in(probe(tmp_path, BUILT, index=0).value)
    assert (mark.kind, mark.volatility, mark.text, mark.expr) == (Kind.UNKNOWN, Volatility.STABLE, "", "steps")
    assert mark.window.start == pos(BUILT, "seen < n_short")


def test_the_newest_item_rendered_apart_in_a_text_built_by_parts(tmp_path):
    mark, = marks_in(probe(tmp_path, BUILT, index=1).value)
    assert mark.window.start == pos(BUILT, "node.summary and i < len(nodes) - 1")


def test_a_comprehension_and_a_newest_first_walk_render_older_items_apart(tmp_path):
    mark, = marks_in(probe(tmp_path, BUILT, index=2).value)
    assert mark.window.start == pos(BUILT, "i < len(ms) - k")
    mark, = marks_in(probe(tmp_path, BUILT, index=3).value)
    assert mark.window.start == pos(BUILT, "i < 3 else")


def test_a_head_counted_from_the_start_a_separator_a_filler_message_or_an_id_is_no_rewrite(tmp_path):
    for index in (4, 5, 6, 7):
        assert marks_in(probe(tmp_path, BUILT, index=index).value) == [], index


def test_items_kept_by_place_a_running_total_or_a_tag_on_a_copy_are_no_rendering(tmp_path):
    for index in (8, 9, 10):
        assert marks_in(probe(tmp_path, BUILT, index=index).value) == [], index


def test_a_copy_of_an_older_message_given_shortened_content_is_rendered_apart(tmp_path):
    mark, = marks_in(probe(tmp_path, BUILT, index=11).value)
    assert mark.window.start == pos(BUILT, "i < len(history) - keep")
