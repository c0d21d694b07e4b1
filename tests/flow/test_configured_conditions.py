"""Text added under a condition that reads only configuration (flow/configured.py:
`configured_test`, `Alt.configured`, `present_by_configuration`) is fixed text for a deployment:
static, not "present or absent by a condition"; a condition on a parameter of the request, on data
fetched or stored per user, stays a condition."""
from __future__ import annotations

from analysis_support import probe

from promptlint.model import Kind, Volatility

BUILDER = """
    from datetime import datetime
    from typing import List, Optional


    class Memory:
        def load(self, store, user):
            self.memories = store.get(user)


    class Bot:
        markdown: bool = False
        add_datetime: bool = False
        team: Optional[List[str]] = None
        memory: Memory = Memory()

        def in_team(self):
            return self.team is not None and len(self.team) > 0

        def prompt(self, verbose: bool):
            rules = []
            if self.markdown:
                rules.append("Use markdown to format your answers.")
            if self.add_datetime:
                rules.append(f"The current time is {datetime.now()}")
            lines = ["You are a careful assistant."]
            if len(rules) > 0:
                lines.append("<rules>")
                for i, rule in enumerate(rules):
                    lines.append(f"{i + 1}. {rule}")
                lines.append("</rules>")
            if self.in_team():
                lines.append("You lead a team of assistants.")
            if verbose:
                lines.append("Explain each step.")
            if self.memory.memories:
                lines.append("You remember earlier chats.")
            lines.append("Answer briefly." if not self.markdown else "Answer briefly, in markdown.")
            probe("\\n".join(lines))
"""


def described(tmp_path):
    return probe(tmp_path, BUILDER).described


def test_text_added_by_a_setting_is_static(tmp_path):
    got = described(tmp_path)
    texts = [d[1] for d in got if d[0] == "text"]
    for fixed in ("<rules>", "</rules>", "You lead a team of assistants.", "Answer briefly"):
        assert fixed in texts, (fixed, got)


def test_a_clock_added_by_a_setting_stays_a_clock_before_the_static_text(tmp_path):
    got = described(tmp_path)
    stamp = next(i for i, d in enumerate(got) if d[0] == Kind.TIMESTAMP.value)
    assert got[stamp][1] == Volatility.PER_REQUEST.value
    assert ("text", "</rules>") in got[stamp:]


def test_a_condition_on_a_parameter_or_on_stored_data_stays_a_condition(tmp_path):
    got = described(tmp_path)
    conditional = [d[2] for d in got if d[0] == Kind.CONDITIONAL.value]
    assert "Explain each step." in conditional  # `if verbose:` a parameter of the call
    assert "You remember earlier chats." in conditional  # `if self.memory.memories:` set by load()


CHOICE = """
    class Reader:
        live_update: bool = False

        def instructions(self, mode):
            probe("Memory. " + ("Update memory when stale." if self.live_update else "Never update memory.") + " Go.")
            probe("Memory. " + ("Update memory when stale." if mode else "Never update memory.") + " Go.")
"""


def test_a_constant_chosen_by_a_setting_is_one_text_per_deployment(tmp_path):
    got = probe(tmp_path, CHOICE, index=0).described
    assert all(d[0] == "text" for d in got), got
    assert probe(tmp_path, CHOICE, index=1).described[1][0] == Kind.CONDITIONAL.value
