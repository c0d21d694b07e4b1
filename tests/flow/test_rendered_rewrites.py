"""A conversation written into text with its older turns apart from the newest few (rewrites.py):
the joined text carries a marker (a stable segment of no text whose `window` is where the turns
are told apart), kept through `or`, a helper that reshapes the text and an f-string."""
from promptlint.model import Kind, Volatility
from promptlint.python.flow.rewrites import marks_of

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
