"""Prompt builders that append lines to lists under many conditions and in a loop, then join them
(`lines.append(...)` in a dozen `if` blocks, `for i, x in enumerate(xs): lines.append(f"{i}. {x}")`,
`return "\\n".join(lines)`): the join keeps the static text before the loop, and the lists of more
branches than MAX_VARIANTS merge into one list even when a branch grew its list in a loop."""
from __future__ import annotations

from analysis_support import layouts, pos, probe

from promptlint.model import Kind, Volatility
from promptlint.python.flow.variants import MAX_VARIANTS, list_variants
from promptlint.python.flow.values import Seq

INTRO = ("You are a careful assistant that answers questions about the product catalogue. "
         "Answer with the facts you are given and cite the product page for each fact you use. "
         "When a question is outside the catalogue, say so and suggest where the user may look.")

LOOPED = f'''
    from datetime import datetime


    def f(notes):
        lines = ["{INTRO}", "Follow these rules:"]
        for i, note in enumerate(notes):
            lines.append(f"{{i + 1}}. {{note}} at {{datetime.now()}}")
        lines.append("</rules>")
        probe(lines)
        probe("\\n".join(lines))
'''


def test_a_list_grown_in_a_loop_joins_to_its_head_then_the_loop_items(tmp_path):
    lines = probe(tmp_path, LOOPED, index=0).value
    assert isinstance(lines, Seq) and lines.repeated and lines.head == 2
    got = probe(tmp_path, LOOPED, index=1).described
    assert got[:3] == [("text", INTRO), ("text", "\n"), ("text", "Follow these rules:")]
    assert got[3] == ("text", "\n")  # the separator before the first looped item
    assert ("unknown", "stable", "items appended in a loop") not in got  # its items say what changes
    assert any(d[0] == Kind.TIMESTAMP.value and d[1] == Volatility.PER_REQUEST.value for d in got[4:])
    assert got[-1] == ("text", "</rules>")
    fixed = probe(tmp_path, LOOPED.replace('f"{i + 1}. {note} at {datetime.now()}"', '"- a rule"'), index=1).described
    assert fixed[:5] == [("text", INTRO), ("text", "\n"), ("text", "Follow these rules:"), ("text", "\n"),
                         ("unknown", "stable", "items appended in a loop")]  # how many is not known


BRANCHES = "".join(f'''
            if self.flag{n}:
                lines.append("Rule number {n}.")''' for n in range(5))

BUILDER = f'''
    from datetime import datetime


    class Bot:
        def get_system_prompt(self):
            rules = list(self.rules) if self.rules is not None else []
            if self.add_datetime:
                rules.append(f"The current time is {{datetime.now()}}")
            lines = []
            if self.description is not None:
                lines.append(self.description)
            lines.append("{INTRO}")
            if len(rules) > 0:
                lines.append("You must follow these instructions:")
                for i, rule in enumerate(rules):
                    lines.append(f"{{i + 1}}. {{rule}}")
                lines.append("</instructions>"){BRANCHES}
            probe(lines)
            if len(lines) > 0:
                return "\\n".join(lines)
            return None
'''


def test_many_branches_with_a_loop_in_one_merge_into_one_list_grown_in_a_loop(tmp_path):
    lines = probe(tmp_path, BUILDER).value
    variants = list_variants(lines)
    assert variants is not None and len(variants) == 1  # 2 * 2 * 2**5 variants: past MAX_VARIANTS
    assert MAX_VARIANTS < 2 ** 5
    merged, = variants
    assert merged.repeated and 0 < merged.head < len(merged.items)
    assert not any(type(i).__name__ == "Spread" for i in merged.items)


def test_the_joined_builder_is_a_prompt_with_its_timestamp(tmp_path):
    found = [lt for lt in layouts(tmp_path, BUILDER) if lt.source == "python-constant"]
    assert len(found) == 1
    segs = found[0].parts[0].segments
    assert any(s.is_static and s.text == INTRO for s in segs)
    stamp = next(s for s in segs if s.kind is Kind.TIMESTAMP)
    assert stamp.volatility is Volatility.PER_REQUEST and stamp.origin.start == pos(BUILDER, "datetime.now()")


def test_one_branch_order_against_another_still_gives_no_merged_list():
    from promptlint.model import Segment, Span, Position
    from promptlint.python.flow.merged import merged_list
    from promptlint.python.flow.values import Text

    def item(row):
        return Text([Segment(text=f"line {row}", span=Span("a.py", Position(row, 1), Position(row, 5)))])
    a, b = item(1), item(2)
    assert merged_list([Seq([a, b]), Seq([b, a])]) is None
    loop = item(3)  # one line appending twice (a loop read twice) is the same item, not a new order
    got = merged_list([Seq([a, loop, loop], repeated=True, head=1), Seq([a, b])])
    assert got is not None and got.repeated and len(got.items) == 4 and got.head == 2  # b (row 2) before the loop


UNORDERED = '''
    def f(names: set[str]):
        fields = []
        for name in names:
            fields.append(f"{name} (required)")
        probe(", ".join(fields))
'''


def test_a_list_grown_over_a_set_joins_to_its_order(tmp_path):
    s, = probe(tmp_path, UNORDERED).segs  # the order is the finding, not the loop's items
    assert s.kind is Kind.UNORDERED_ITERATION
