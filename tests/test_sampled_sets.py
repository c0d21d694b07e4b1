"""PRM202 and content made anew on every call: a set whose elements are drawn at random (or are the
user's input) differs per call in content, so its order costs nothing more (the draw is the cause,
PRM103); in prompt text not known as a whole request, a set's order followed within a few static
tokens by content that changes on every call loses only its own text and those tokens (info); in a
whole request the set's own text is at stake (a warning, as before), and a long static text between
them, or a set of fixed elements, is still the order's loss. Fixtures under fixtures/sampled_sets/."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "sampled_sets"


def _report(name):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in report.diagnostics]


def test_a_set_of_drawn_elements_is_the_draw_and_an_order_just_before_it_is_info():
    # (main: PRM202 warnings at 16:24, the drawn set, and 17:35, the keys just before it)
    assert _report("drawn.py") == [("PRM202", "info", 17, 35), ("PRM103", "warning", 17, 53)]


def test_a_dict_in_a_sets_order_whose_values_are_drawn_is_judged_at_the_draw():
    # (main: a warning at the parameter's set only; the random values were not seen)
    assert _report("drawn_values.py") == [("PRM202", "info", 14, 73), ("PRM103", "warning", 15, 37)]


def test_an_order_with_a_long_static_text_before_the_next_per_request_value_is_still_reported():
    assert _report("far.py") == [("PRM202", "warning", 11, 33)]


def test_a_set_of_fixed_elements_is_still_reported():
    assert _report("fixed.py") == [("PRM202", "warning", 12, 35)]


def test_in_a_whole_request_an_order_just_before_a_draw_is_still_a_warning():
    assert _report("complete.py") == [("PRM202", "warning", 17, 35), ("PRM103", "warning", 17, 53)]


def test_an_order_after_the_users_question_is_info_and_says_why():
    # (main: a warning, as if every request shared the prefix up to the set)
    report = api.check([FIXTURES / "after_question.py"], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in report.diagnostics] == [
        ("PRM202", "info", 12, 47), ("PRM101", "info", 13, 28)]
    assert "`query`, which changes on every request, comes before it" in report.diagnostics[0].message


def test_the_same_order_before_the_users_question_is_still_a_warning():
    assert _report("before_question.py") == [("PRM202", "warning", 11, 47)]


def test_the_help_of_a_set_built_where_it_enters_the_text_is_to_make_it_a_list(tmp_path):
    # sorting what a set comprehension is built from leaves a set: the help says to sort the set itself;
    # a set iterated by a join keeps the sure fix and its own help
    (tmp_path / "app.py").write_text(
        "from openai import OpenAI\n\nclient = OpenAI()\nRULES = 'Answer from the rules. ' * 400\n\n\n"
        "def labels(values):\n    return {v.strip().lower() for v in values}\n\n\n"
        "def ask(values, names, q):\n"
        "    system = RULES + str(labels(values)) + ', '.join(set(names)) + RULES\n"
        "    return client.chat.completions.create(model='gpt-4o', messages=[\n"
        "        {'role': 'system', 'content': system}, {'role': 'user', 'content': q}])\n", encoding="utf-8")
    found = api.check([tmp_path], api.Settings(), jobs=1).diagnostics
    assert sorted((d.code, d.span.start.row, d.advice) for d in found if d.code == "PRM202") == [
        ("PRM202", 8, "Turn the set into a list in a fixed order where it becomes text (`sorted(...)` of it), "
                      "or build a list"),
        ("PRM202", 12, "Wrap the iterable in `sorted(...)`")]


def test_the_help_of_a_shuffled_list_is_to_keep_one_order_not_to_sort_it(tmp_path):
    (tmp_path / "app.py").write_text(
        "import random\nfrom openai import OpenAI\n\nclient = OpenAI()\nSHOTS = ['Q: 1+1? A: 2'] * 8\n"
        "RULES = 'Answer from the rules. ' * 400\n\n\n"
        "def ask(q):\n    shots = list(SHOTS)\n    random.shuffle(shots)\n"
        "    system = '\\n'.join(shots) + RULES\n"
        "    return client.chat.completions.create(model='gpt-4o', messages=[\n"
        "        {'role': 'system', 'content': system}, {'role': 'user', 'content': q}])\n", encoding="utf-8")
    found = [d for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics if d.code == "PRM202"]
    assert [(d.span.start.row, d.fix, d.advice) for d in found] == [
        (11, None, "Keep one order: shuffle with a fixed seed (`random.Random(0).shuffle(xs)`) or once, where the "
                   "list is made; sorting would undo the shuffle")]
