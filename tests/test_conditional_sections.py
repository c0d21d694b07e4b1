"""A section present or absent by a condition, with a value of unknown volatility in it, in a prompt
read through the instance that keeps it (session 29, kiln-ai's synthetic user): the variants were
aligned character by character first, so the shared "\\n\\n## " of the next section's header went to
the shared head, the next section's whole segment no longer matched, and the section was drawn as
`"##"` then its value, without its header. Whole segments are now matched at both ends first, and
the section's static text is drawn around its value. Fixtures: fixtures/conditional_sections/."""
from __future__ import annotations

import shutil
from pathlib import Path

from promptlint.model import Kind, Segment, Volatility
from promptlint.python.flow.segment_text import align

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "conditional_sections"


def _static(text: str) -> Segment:
    return Segment(text=text)


def test_a_section_present_in_one_option_is_the_middle_as_written():
    value = Segment(kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN, expr="{g}")
    goal = Segment(kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN, expr="{goal}")
    with_section = [goal, _static("\n\n## How you behave\n"), value, _static("\n\n## Conversation style")]
    without = [goal, _static("\n\n## Conversation style")]
    head, middles, tail = align([with_section, without])
    # (main: head [goal, "\n\n## "], middles ["How you behave\n", g, "\n\n## "] and [], tail ["Conversation style"])
    assert [s.text for s in head if s.is_static] == []
    assert [s.text if s.is_static else s.expr for s in middles[0]] == ["\n\n## How you behave\n", "{g}"]
    assert middles[1] == []
    assert [s.text for s in tail] == ["\n\n## Conversation style"]


def test_a_shared_beginning_of_two_texts_still_stays_shared():
    name = Segment(kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN, expr="{name}")
    head, middles, tail = align([[_static("You are talking to "), name, _static(".")],
                                 [_static("You are talking to a guest.")]])
    assert [s.text for s in head] == ["You are talking to "]
    assert [s.text for s in middles[1]] == ["a guest"]
    assert [s.text for s in tail] == ["."]


def test_explain_draws_the_sections_header_before_its_value(monkeypatch, tmp_path):
    from click.testing import CliRunner
    from promptlint.cli import main
    for name in ("persona.py", "driver.py"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["explain", "driver.py:13", "--no-cache"])
    assert result.exit_code == 0, result.output
    lines = [line.strip() for line in result.stdout.splitlines()]
    at = next(i for i, line in enumerate(lines) if line.startswith("{case.guidance}"))
    assert lines[at - 1].startswith('"## How you behave"')  # (main: '"##"')
    assert any(line.startswith('"## Conversation style - Reply') for line in lines[at:])
