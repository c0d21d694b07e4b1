"""A prompt template filled through a callable made with it (`grade = make_grader(prompt=GRADER_PROMPT)`,
then `grade(answer=..., reference=...)`, every keyword a placeholder of the template) is a prompt
candidate of its own (Policy 9), judged where it is filled even when no send is reached: an order
that varies per process in a field is PRM202 there (issue 11). A call whose keywords are not all
placeholders of the template, or a maker given no prompt template, adds none."""
from __future__ import annotations

from analysis_support import layouts, parts, pos, write

from promptlint import api

# The grading rubric after the answer: enough static text (256+ tokens) to be worth caching on its
# own, so the answer's field order costs something although the grader's send is not followed.
RUBRIC = """<Rubric>
A field matches when it holds the same fact as the reference field of the same name, whatever its
wording, units written out or abbreviated, and letter case. A number matches when it is equal after
rounding both to the precision of the reference. A list matches when it holds the same items in any
order. A missing field, a field the reference does not have, and a field that holds a different fact
do not match. Grade each field on its own, without letting one field's grade change another's.
</Rubric>
""" * 3

GRADING = '''
from grading import make_grader

GRADER_PROMPT = """Please grade how well the answer matches the reference, field by field.
<Answer>
{answer}
</Answer>
''' + RUBRIC + '''<Reference>
{reference}
</Reference>"""


def compare(answer: dict, reference: dict, model: str):
    keys = set(answer) | set(reference)
    grade = make_grader(prompt=GRADER_PROMPT, model=model)
    lines = [f"{k}: {answer.get(k)}" for k in keys]
    ref_lines = [f"{k}: {reference.get(k)}" for k in sorted(keys)]
    return grade(answer="\\n".join(lines), reference="\\n".join(ref_lines))
'''


def _filled(found, source, needle):
    return [lt for lt in found if lt.source == "python-constant" and lt.site.row == pos(source, needle).row]


def test_a_template_filled_through_its_callable_is_a_prompt(tmp_path):
    layout, = _filled(layouts(tmp_path, GRADING), GRADING, "return grade(")
    (role, described), = parts(layout)
    assert role == "prompt"
    assert described[0] == ("text", "Please grade how well the answer matches the reference, field by field.\n<Answer>\n")
    assert described[1][:2] == ("unordered-iteration", "per-process")
    assert described[2] == ("text", "\n</Answer>\n" + RUBRIC + "<Reference>\n")
    assert described[3][0] != "unordered-iteration"  # the reference lines are sorted


def test_the_set_order_is_reported_where_it_is_iterated(tmp_path):
    write(tmp_path, {"app.py": GRADING})
    found = [(d.code, d.severity.value, d.span.start.row) for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]
    # with the rubric (350 static tokens) after it, more than a few words follow: a warning; the
    # template itself holds its `{answer}` of unknown volatility before the same rubric (info)
    assert found == [("PRM101", "info", pos(GRADING, "{answer}").row),
                     ("PRM202", "warning", pos(GRADING, "for k in keys]").row)]


NO_RUBRIC = GRADING.replace(RUBRIC, "")


def test_the_set_order_before_only_a_closing_tag_is_info(tmp_path):
    # the answer's lines with only `</Answer>` and the reference after them: the grader's send is
    # not followed, so what its request adds is not known: info (the lines themselves are at stake);
    # the template's `{answer}` before a tag only is nothing
    write(tmp_path, {"app.py": NO_RUBRIC})
    found = [(d.code, d.severity.value, d.span.start.row) for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]
    assert found == [("PRM202", "info", pos(NO_RUBRIC, "for k in keys]").row)]


NOT_FIELDS = GRADING.replace('return grade(answer="\\n".join(lines), reference="\\n".join(ref_lines))',
                             'return grade(answer="\\n".join(lines), verbose=True)')


def test_a_keyword_that_is_no_placeholder_adds_none(tmp_path):
    assert _filled(layouts(tmp_path, NOT_FIELDS), NOT_FIELDS, "return grade(") == []


NO_TEMPLATE = GRADING.replace("make_grader(prompt=GRADER_PROMPT, model=model)", "make_grader(model=model)")


def test_a_maker_given_no_prompt_template_adds_none(tmp_path):
    assert _filled(layouts(tmp_path, NO_TEMPLATE), NO_TEMPLATE, "return grade(") == []


CAPTURED = '''
from grading import make_grader

GRADER_PROMPT = """Please grade how well the answer matches the reference, field by field.
<Answer>
{answer}
</Answer>
''' + RUBRIC + '''"""


def compare(answer: dict, reference: dict, model: str, ordered: bool):
    groups = {}
    for key in set(answer) | set(reference):
        base = key.split("_")[0]
        if base not in groups:
            groups[base] = []
        groups[base].append(key)
    scorers = []
    for base in sorted(groups):
        keys = groups[base]

        def score(*, base=base, keys=keys):
            grade = make_grader(prompt=GRADER_PROMPT, model=model)
            return grade(answer="\\n".join(f"{k}: {answer.get(k)}" for k in keys))
        scorers.append(score)
    return scorers
'''


def test_a_list_grown_by_key_in_a_set_loop_reaches_a_captured_default(tmp_path):
    # `groups[base].append(key)` in a loop over a set: each list in the set's order; the nested
    # function's `keys=keys` default is the enclosing binding where it is defined
    write(tmp_path, {"app.py": CAPTURED})
    found = [(d.code, d.span.start.row) for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]
    assert found == [("PRM101", pos(CAPTURED, "{answer}").row), ("PRM202", pos(CAPTURED, "for key in set(answer)").row)]


SORTED_GROUPS = CAPTURED.replace("for key in set(answer) | set(reference):", "for key in sorted(set(answer) | set(reference)):")


def test_a_list_grown_by_key_in_a_sorted_loop_holds_no_order_problem(tmp_path):
    write(tmp_path, {"app.py": SORTED_GROUPS})
    found = [(d.code, d.span.start.row) for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]
    assert found == [("PRM101", pos(SORTED_GROUPS, "{answer}").row)]  # the template's own placeholder only
