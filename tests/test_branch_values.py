"""What a branch or a default reads as text: a template kept in an attribute set from an
`__init__` parameter with a constant default (fixtures/default_templates), and the branch of
`x if x else y` that requires `x` to be truthy (fixtures/truthy_branches)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _prompts(folder):
    report = api.check([FIXTURES / folder], api.Settings(), jobs=1)
    return {f"{Path(p.site.filename).name}:{p.site.start.row}": p for p in report.prompts if p.source == "python-call"}


def _drawn(layout):
    return [(part.role, s.text if s.is_static else "{" + s.expr + "}") for part in layout.parts for s in part.segments]


def test_a_template_from_a_constant_default_reads_as_that_template_filled():
    layout = _prompts("default_templates")["judge.py:18"]
    drawn = _drawn(layout)
    assert drawn[0] == ("system", "You are a fair judge. Grade each response against the rubric you are given.")
    assert drawn[1][0] == "user" and drawn[1][1].startswith("###Task Description:\nAn instruction, a response")
    assert [d for d in drawn if d[1].startswith("{")] == [("user", "{instruction}"), ("user", "{response}")]
    assert layout.static_prefix_tokens == 102


def test_a_template_the_tree_passes_reads_as_what_it_passes():
    drawn = _drawn(_prompts("default_templates")["passed.py:13"])
    assert drawn[1:] == [("user", "{notes}"), ("user", "\nGrade this: "), ("user", "{response}")]


def test_the_truthy_branch_never_writes_the_falsy_value():
    prompts = _prompts("truthy_branches")
    texts = {key: [t for _, t in _drawn(p) if t.strip()] for key, p in prompts.items()}
    assert "None" not in texts["agent.py:22"] and texts["agent.py:22"][0].startswith("You will be given a task.")
    assert "None" not in texts["agent.py:32"] and "\nNote: " not in texts["agent.py:32"]
    assert prompts["agent.py:22"].static_prefix_tokens == 361


def test_a_truthy_value_is_written_in_its_branch():
    texts = [t for _, t in _drawn(_prompts("truthy_branches")["agent.py:27"])]
    assert texts[0] == "Be terse." and texts[2].startswith("You will be given a task.")


def test_a_value_read_off_the_configuration_is_stable_and_no_prefix_finding():
    report = api.check([FIXTURES / "config_reads"], api.Settings(), jobs=1)
    found = [(Path(d.span.filename).name, d.code, d.span.start.row, d.severity.value) for d in report.diagnostics]
    assert found == [("images.py", "PRM101", 23, "warning")]  # `self.researcher.topic`: not configuration
    [plan] = [p for p in report.prompts if p.source == "python-call" and p.site.start.row == 18]
    values = {s.expr: (s.kind.value, s.volatility.value) for part in plan.parts for s in part.segments if not s.is_static}
    assert values['getattr(self.cfg, "image_generation_max_images", 3)'] == ("unknown", "stable")
    assert values["self.cfg.image_style"] == ("unknown", "stable")


def test_explain_draws_each_prompt_once_and_says_which_line_was_asked(monkeypatch, tmp_path):
    import shutil

    from click.testing import CliRunner

    from promptlint.cli import main
    # a copy outside the repository: in place, the prompt sent elsewhere makes explain read the
    # project around the file, which is this whole repository (half a minute of the suite)
    shutil.copytree(FIXTURES / "explain_lines", tmp_path / "explain_lines")
    monkeypatch.chdir(tmp_path / "explain_lines")
    result = CliRunner().invoke(main, ["explain", "chat.py:14", "--no-cache"])
    heads = [line.split()[0] for line in result.stdout.splitlines() if line.startswith("chat.py:")]
    # since s33-fmt the message list started empty at line 19 and grown by statements is a prompt
    # candidate too (system, then the history): drawn first, as the prompt that holds the others
    assert heads == ["chat.py:19", "chat.py:20", "chat.py:9"]
    assert "chat.py:14 is a line of the prompts drawn below (chat.py:19, chat.py:20, chat.py:9)" in result.stderr
