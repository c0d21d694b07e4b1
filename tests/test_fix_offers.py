"""What `check` offers and what `fix` applies come from one decision (`promptlint.gains`).

A finding whose report says a fix is available (the fix line of the text report, the `[*]` count,
the unsafe-fix hint, the JSON `fix`) must have that fix applied by `promptlint fix` (with
`--unsafe-fixes` for an unsafe one); a move that `fix` would withhold (its finding would stay, or
it would cache nothing more of its prompt) must not be offered.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from fixture_reports import fixture_folders, folder_report

from promptlint.api import check, fix
from promptlint.cli import main
from promptlint.config import Settings
from promptlint.estimates import Cut
from promptlint.fix import is_applicable
from promptlint.gains import landing, moved
from promptlint.impact import caches_more
from promptlint.model import (Applicability, Breakpoint, Edit, Fix, Kind, Part, Position, PromptLayout,
                              Segment, Span, Volatility)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _projects() -> list[Path]:
    """Every folder of fixtures/ that holds files (a case, the demo, a set of prompts)."""
    return fixture_folders()


def _key(d):
    return d.code, d.span.filename, d.span.start.row, d.span.start.column


def _offered_and_applied(folder: Path, monkeypatch) -> tuple[list, set, list[str]]:
    report = folder_report(folder)
    monkeypatch.chdir(folder)
    settings = Settings()
    offered = [d for d in report.diagnostics if is_applicable(d.fix, unsafe=True)]
    if not offered:
        return [], set(), []
    run = fix(["."], settings, unsafe=True, write=False, report=report)
    return offered, {_key(d) for f in run.files for d in f.result.applied}, run.errors


def test_the_fixtures_hold_fixes_of_every_kind():
    assert len(_projects()) > 40
    assert (FIXTURES / "fix_offers") in _projects()


@pytest.mark.parametrize("folder", _projects(), ids=lambda p: p.relative_to(FIXTURES).as_posix())
def test_every_fix_a_report_offers_is_applied(folder, monkeypatch):
    offered, applied, errors = _offered_and_applied(folder, monkeypatch)
    assert [_key(d) for d in offered if _key(d) not in applied] == []
    assert [e for e in errors if "fix not applied" in e] == []


def test_the_moves_fix_would_withhold_are_not_offered(monkeypatch):
    """fixtures/fix_offers: a fragment below every minimum (the move caches nothing more of it), a
    time whose move lands before the rules behind the question (its finding would stay), a time
    behind a persona or a profile of unknown volatility (nothing more is known to be cached): no
    move offered; a time before the rules in one f-string, and an id and a time before them, each
    with its own move applied in the same run: offered, and applied."""
    monkeypatch.chdir(FIXTURES / "fix_offers")
    report = check(["."], Settings())
    fixes = {(d.code, d.span.filename): d.fix for d in report.diagnostics}
    assert {k: (f.applicability, f.moves) if f else None for k, f in fixes.items()} == {
        ("PRM101", "memory_update.py"): None,
        ("PRM101", "persona_first.py"): None,
        ("PRM102", "persona_first.py"): None,
        ("PRM102", "question_first.py"): None,
        ("PRM102", "sorted_with_it.py"): None,
        ("PRM201", "sorted_with_it.py"): (Applicability.SAFE, False),
        ("PRM102", "clock_then_rules.py"): (Applicability.UNSAFE, True),
        ("PRM102", "two_values.py"): (Applicability.UNSAFE, True),
        ("PRM103", "two_values.py"): (Applicability.UNSAFE, True),
    }
    run = fix(["."], Settings(), unsafe=True, write=False, report=report)
    assert [(f.filename, f.result.fixed_count) for f in run.files] == [
        ("clock_then_rules.py", 1), ("sorted_with_it.py", 1), ("two_values.py", 2)]
    assert run.errors == []
    new = {f.filename: f.result.new_text for f in run.files}
    assert 'system = f"{RULES}\\nCurrent time: {datetime.now():%H:%M}"' in new["clock_then_rules.py"]
    assert 'system = f"""{RULES}\nCurrent time: {datetime.now():%H:%M}\nRequest: {uuid.uuid4()}\n"""' \
        in new["two_values.py"]


def test_check_and_fix_agree_on_the_command_line(tmp_path, monkeypatch):
    """The text report's hint counts only fixes `fix --unsafe-fixes` applies, and fix says nothing
    of a withheld one."""
    for name in ("memory_update.py", "question_first.py", "clock_then_rules.py", "rules.md"):
        (tmp_path / name).write_text((FIXTURES / "fix_offers" / name).read_text())
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    checked = runner.invoke(main, ["check", "--no-cache", "."])
    assert "No fixes available (1 hidden fix can be enabled with `promptlint fix --unsafe-fixes`)." in checked.stdout
    assert checked.stdout.count("= fix (unsafe)") == 1
    data = json.loads(runner.invoke(main, ["check", "--no-cache", "--output-format", "json", "."]).stdout)
    assert [(d["filename"], d["code"]) for d in data["diagnostics"] if d["fix"]] == [("clock_then_rules.py", "PRM102")]
    fixed = runner.invoke(main, ["fix", "--unsafe-fixes", "--no-cache", "."])
    assert "fix not applied" not in fixed.stderr
    assert "1 fixed" in fixed.stderr
    assert "Current time" in (tmp_path / "clock_then_rules.py").read_text().splitlines()[12]


# --- the pieces of the decision -----------------------------------------------------------------

def _span(row, a, b, filename="app.py"):
    return Span(filename, Position(row, a), Position(row, b))


def _layout(segments, breakpoints=()):
    return PromptLayout(id="app.py:1", site=_span(1, 1, 1), source="python-call", provider="openai", model="gpt-4o",
                        parts=[Part("system", segments, list(breakpoints)), Part("user", [Segment(text="q")])],
                        newest_user=1)


def _value(span):
    return Segment(span=span, kind=Kind.TIMESTAMP, volatility=Volatility.PER_REQUEST, expr="now()")


def _move(start, end, content="x"):
    return Fix(Applicability.UNSAFE, "move", [Edit(content, start, end)], moves=True)


def test_caches_more_compares_each_target():
    assert caches_more({"a": 0, "b": 1024}, {"a": 1024, "b": 1024})
    assert not caches_more({"a": 1024}, {"a": 1024})
    assert not caches_more({"a": 1152}, {"a": 1024})
    assert caches_more({}, {"a": 1})  # a target not cached before cached nothing
    assert not caches_more({"a": 5}, {})


def test_landing_is_the_last_segment_inside_the_edit(tmp_path, monkeypatch):
    """Segments after the value with a span inside the edited string are passed, with those between
    them (a constant's text, located where it is written); text after the string is not."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app.py").write_text('s = (f"{now()}\\n{GUIDE}\\nBe brief.\\n"\n     + RULES)\n')
    segs = [_value(_span(1, 8, 15)), Segment(text="\n", span=_span(1, 15, 17)),
            Segment(text="guide", span=_span(9, 1, 10)), Segment(text="\nBe brief.\n", span=_span(1, 24, 37)),
            Segment(text="rules", span=_span(20, 1, 10))]
    layout = _layout(segs)
    assert landing(layout, Cut(0, 0), _move(Position(1, 8), Position(1, 37)), "app.py") == 3
    # an edit of another file, or of text before the value, passes nothing known
    assert landing(layout, Cut(0, 0), _move(Position(1, 8), Position(1, 37)), "other.py") is None


def test_landing_after_a_field_that_ends_the_string(tmp_path, monkeypatch):
    """The string ends with a field whose text is written elsewhere (`{POLICY}`): the value lands
    after the segments that follow; quotes and operators after the last segment do not count."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app.py").write_text('s = f"Run {uid}\\n{POLICY}"\nt = (f"{uid}\\n"\n     + "more\\n")\n')
    segs = [Segment(text="Run ", span=_span(1, 7, 11)), _value(_span(1, 11, 16)),
            Segment(text="\n", span=_span(1, 16, 18)), Segment(text="policy", span=_span(9, 1, 5))]
    assert landing(_layout(segs), Cut(0, 1), _move(Position(1, 7), Position(1, 26)), "app.py") == 3
    concat = [_value(_span(2, 8, 13)), Segment(text="\n", span=_span(2, 13, 15)),
              Segment(text="more\n", span=_span(3, 9, 15)), Segment(text="after", span=_span(9, 1, 5))]
    # `"more\n"` ends the edit but for its closing quote: the text after the concatenation is not passed
    assert landing(_layout(concat), Cut(0, 0), _move(Position(2, 6), Position(3, 16)), "app.py") == 2


def test_moved_keeps_breakpoints_in_place():
    a, b, c = (Segment(text=t) for t in "abc")
    value = _value(None)
    layout = _layout([value, a, b, c], [Breakpoint(after=1), Breakpoint(after=3)])
    after = moved(layout, Cut(0, 0), 2)
    assert [s.text or s.expr for s in after.parts[0].segments] == ["a", "b", "now()", "c"]
    # the breakpoint after `a` follows it to index 0; the one closing the block stays at its end
    assert [bp.after for bp in after.parts[0].breakpoints] == [0, 3]
    assert [s.text or s.expr for s in layout.parts[0].segments] == ["now()", "a", "b", "c"]  # a copy


def test_moved_takes_other_values_along():
    a, b = Segment(text="a"), Segment(text="b")
    first, second = _value(None), Segment(kind=Kind.UNIQUE_ID, volatility=Volatility.PER_REQUEST, expr="uid")
    after = moved(_layout([second, first, a, b]), Cut(0, 1), 3, also=(0,))
    assert [s.text or s.expr for s in after.parts[0].segments] == ["a", "b", "uid", "now()"]


# --- a finding in a file outside the paths given ------------------------------------------------

PROMPTS = '''import json
from pathlib import Path

RULES = Path(__file__).with_name("rules.md").read_text()


def system_prompt(profile: dict[str, str]) -> str:
    return f"Profile: {json.dumps(profile)}\\n{RULES}"
'''
MAIN = '''from openai import OpenAI

from app.prompts import system_prompt

client = OpenAI()


def ask(profile, question):
    return client.chat.completions.create(
        model="gpt-4o", messages=[{"role": "system", "content": system_prompt(profile)},
                                  {"role": "user", "content": question}])
'''


def test_a_finding_in_a_file_fix_would_not_rewrite_offers_no_fix(tmp_path, monkeypatch):
    """`check app/main.py` reports the finding of the prompt main.py sends, located in
    app/prompts.py; `fix app/main.py` rewrites only main.py, so the report offers no fix there (its
    message is advice naming the file) and the hint counts none. Given the folder, both agree the
    other way."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "prompts.py").write_text(PROMPTS)
    (tmp_path / "app" / "main.py").write_text(MAIN)
    (tmp_path / "app" / "rules.md").write_text((FIXTURES / "fix_offers" / "rules.md").read_text())
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    named = runner.invoke(main, ["check", "--no-cache", "app/main.py"])
    assert "app/prompts.py:8:24: PRM201" in named.stdout
    assert ("= help: Add `sort_keys=True` (`promptlint fix` rewrites only the paths it is given, and they do "
            "not hold app/prompts.py)") in named.stdout
    assert "fixable" not in named.stdout and "= fix" not in named.stdout
    fixed = runner.invoke(main, ["fix", "--no-cache", "app/main.py"])
    assert "0 fixed, 1 remaining" in fixed.stderr and (tmp_path / "app" / "prompts.py").read_text() == PROMPTS
    folder = runner.invoke(main, ["check", "--no-cache", "app"])
    assert "[*] 1 fixable with `promptlint fix`." in folder.stdout
    assert "1 fixed, 0 remaining" in runner.invoke(main, ["fix", "--no-cache", "app"]).stderr
    assert "json.dumps(profile, sort_keys=True)" in (tmp_path / "app" / "prompts.py").read_text()
