"""A prompt assembled as a dict of sections (`prompt = {"Introduction": ..., "Task": ...,
"Instructions": {}}`, completed by other statements and helpers, `prompt["Instructions"] |=
self._rules`, then handed on whole to code that compiles it to text) is a prompt candidate of its
sections' text in insertion order (issue 11): a list shuffled in place and joined into a section
is PRM202 where it is shuffled, a per-request section before static ones is PRM101. A dict whose
name does not say prompt, a shuffle of a list never joined into it, and a dict of literal
sections only, add nothing."""
from __future__ import annotations

from analysis_support import layouts, parts, pos, write

from promptlint import api

RULES = "Answer with a short plan of three to five sentences, then one code block that implements it. " * 4

AGENT = f'''
import random
from typing import Any


class Planner:
    def __init__(self, goal, notes):
        self.goal = goal
        self.notes = notes

    @property
    def _tooling(self):
        libs = ["alpha", "beta", "gamma", "delta", "epsilon"]
        random.shuffle(libs)
        listed = ", ".join(libs)
        return {{"Libraries": f"You may use these libraries: {{listed}}. Any other library is fine as well."}}

    @property
    def _format_rules(self):
        return {{"Answer format": "{RULES}"}}

    @property
    def _review_rules(self):
        return {{"Review": "{RULES * 4}"}}

    def draft(self, ask) -> str:
        prompt: Any = {{
            "Introduction": "You are an experienced engineer. Read the goal below and propose a plan.",
            "Goal": self.goal,
            "Instructions": {{}},
        }}
        prompt["Instructions"] |= self._format_rules
        prompt["Instructions"] |= self._tooling
        prompt["Instructions"] |= self._review_rules
        if self.notes:
            prompt["Notes"] = self.notes
        return ask(prompt)
'''


def test_a_dict_of_sections_is_a_prompt_in_insertion_order(tmp_path):
    layout, = [lt for lt in layouts(tmp_path, AGENT) if lt.site.row == pos(AGENT, "prompt: Any").row]
    (role, described), = parts(layout)
    assert role == "prompt"
    texts = [d[1] for d in described if d[0] == "text"]
    assert texts[:3] == ["Introduction\n", "You are an experienced engineer. Read the goal below and propose a plan.",
                         "\n"]
    keys = [t for t in texts if t in ("Goal\n", "Instructions\n", "Answer format\n", "Libraries\n", "Notes\n")]
    assert keys == ["Goal\n", "Instructions\n", "Answer format\n", "Libraries\n", "Notes\n"]
    shuffled = [d for d in described if d[0] == "unordered-iteration"]
    assert shuffled == [("unordered-iteration", "per-request", "random.shuffle(libs)")]


def test_the_shuffle_is_reported_where_it_is_made(tmp_path):
    # (the review rules after the libraries: 300+ static tokens, worth caching on their own)
    write(tmp_path, {"app.py": AGENT})
    found = [(d.code, d.span.start.row) for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]
    assert found == [("PRM202", pos(AGENT, "random.shuffle(libs)").row)]


LAST_SECTION = AGENT.replace('        prompt["Instructions"] |= self._review_rules\n', "")


def test_a_shuffle_in_the_last_section_of_a_dict_handed_on_is_info(tmp_path):
    # the libraries last, with a sentence after them: the dict is handed to code not followed, so
    # what its request adds is not known: info (the shuffled names are at stake, not only the tail);
    # with the review rules after them, a warning
    write(tmp_path, {"app.py": LAST_SECTION})
    found = [(d.code, d.severity.value, d.span.start.row) for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]
    assert found == [("PRM202", "info", pos(LAST_SECTION, "random.shuffle(libs)").row)]
    write(tmp_path / "long", {"app.py": AGENT})
    assert [d.severity.value for d in api.check([tmp_path / "long"], api.Settings(), jobs=1).diagnostics] == ["warning"]


NOT_JOINED = AGENT.replace('listed = ", ".join(libs)', 'listed = "alpha, beta"')


def test_a_shuffle_of_a_list_never_joined_into_it_adds_nothing(tmp_path):
    # no PRM202; the goal (of unknown volatility) is then the only value before the 300+ static
    # tokens of the rules, the libraries and the review (info, Policy 4)
    write(tmp_path, {"app.py": NOT_JOINED})
    found = [(d.code, d.span.start.row) for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]
    assert found == [("PRM101", pos(NOT_JOINED, "self.goal = goal").row)]  # where the goal is set


NOT_NAMED = AGENT.replace("prompt", "record")


def test_a_dict_whose_name_does_not_say_prompt_is_no_candidate(tmp_path):
    assert [lt for lt in layouts(tmp_path, NOT_NAMED) if lt.source == "python-constant"] == []


BEFORE = f'''
class Reviewer:
    def review(self, code, ask):
        prompt = {{
            "Introduction": "You are a careful reviewer of Python code written by a junior engineer.",
            "Code under review": code,
            "Instructions": "{RULES * 4}",
        }}
        return ask(prompt)

    def plain(self, ask):
        prompt = {{
            "Introduction": "You are a careful reviewer of Python code written by a junior engineer.",
            "Instructions": "{RULES * 4}",
        }}
        return ask(prompt)
'''


def test_a_parameter_before_static_sections_is_judged_there(tmp_path):
    # (the dict of literal sections only holds nothing that changes: no candidate)
    layout, = [lt for lt in layouts(tmp_path, BEFORE) if lt.source == "python-constant"]
    assert layout.site.row == pos(BEFORE, "prompt = {").row
    (role, described), = parts(layout)
    assert described[3:6] == [("text", "Code under review\n"), ("unknown", "unknown", "code"), ("text", "\n")]
    assert described[6] == ("text", "Instructions\n")


REGISTRY = f'''
def pick(kind, topic, ask):
    prompts = {{
        "summary": f"Summarise the text about {{topic}}. {RULES}",
        "title": "{RULES}",
    }}
    return ask(prompts[kind])


def by_key(kind, topic, ask):
    prompt = {{
        "summary": f"Summarise the text about {{topic}}. {RULES}",
        "title": "{RULES}",
    }}
    return ask(prompt[kind])


def message(topic, ask):
    prompt = {{"role": "user", "content": f"Summarise the text about {{topic}}. {RULES}"}}
    return ask([prompt])
'''


def test_a_registry_of_prompts_a_dict_read_by_key_and_a_message_are_no_sections(tmp_path):
    rows = {pos(REGISTRY, "prompts = {").row, pos(REGISTRY, "prompt = {").row, pos(REGISTRY, 'prompt = {"role"').row}
    assert [lt for lt in layouts(tmp_path, REGISTRY) if lt.site.row in rows] == []
