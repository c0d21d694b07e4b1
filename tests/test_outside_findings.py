"""A finding located in a file outside the checked paths (a module the checked code imports, found
beside it): reported only for a prompt sent from a checked file (or naming one as a related
location), and marked as such in every format; `fix` never rewrites that file."""
from __future__ import annotations

import json

from click.testing import CliRunner

from promptlint.cli import main
from promptlint.model import Diagnostic, Position, PromptLayout, Related, Severity, Span
from promptlint.scope import OUTSIDE, of_files

CHAT = '''\
from openai import OpenAI

from shared.prompts import system_prompt

client = OpenAI()


def answer(question: str, history: list) -> str:
    response = client.chat.completions.create(
        model="gpt-4o",
        messages=[
            {"role": "system", "content": system_prompt()},
            *history,
            {"role": "user", "content": question},
        ],
    )
    return response.choices[0].message.content
'''
STAMPED = ('from datetime import datetime\n\n\n'
           'def system_prompt():\n'
           '    return f"Now: {datetime.now()}. You are the support assistant of Acme Tools."\n')


def test_a_finding_in_an_imported_module_outside_the_checked_folder_names_the_request(tmp_path, monkeypatch):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "chat.py").write_text(CHAT, encoding="utf-8")
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "prompts.py").write_text(STAMPED, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "app", "--no-cache", "--output-format", "json"])
    assert result.exit_code == 1, result.output
    found = [(d["filename"], d["code"], d["location"]["row"]) for d in json.loads(result.stdout)["diagnostics"]]
    assert ("shared/prompts.py", "PRM102", 5) in found
    stamp = next(d for d in json.loads(result.stdout)["diagnostics"] if d["code"] == "PRM102")
    assert (stamp["related"][0]["filename"], stamp["related"][0]["location"]["row"]) == ("app/chat.py", 9)
    assert stamp["related"][0]["message"] == OUTSIDE.format(file="shared/prompts.py")
    text = CliRunner().invoke(main, ["check", "app", "--no-cache"]).output
    assert f"      = related: app/chat.py:9:16: {OUTSIDE.format(file='shared/prompts.py')}" in text.splitlines()
    assert "= prompt:" not in text  # said once, by the related location
    fixed = CliRunner().invoke(main, ["fix", "app", "--unsafe-fixes", "--no-cache"])
    assert fixed.exit_code == 1
    assert (tmp_path / "shared" / "prompts.py").read_text(encoding="utf-8") == STAMPED


def span(filename: str, row: int) -> Span:
    return Span(filename, Position(row, 1), Position(row, 5))


def finding(filename: str, prompt: str | None = None, related: list[Related] = ()) -> Diagnostic:
    return Diagnostic("PRM102", "timestamp-in-prefix", Severity.WARNING, "Timestamp", span(filename, 3),
                      prompt=prompt, related=list(related))


def test_only_findings_that_concern_the_checked_files_are_kept():
    request = PromptLayout(id="app/chat.py:9", site=span("app/chat.py", 9), source="python-call")
    other = PromptLayout(id="lib/run.py:4", site=span("lib/run.py", 4), source="python-call")
    inside = finding("app/chat.py", "app/chat.py:9")
    sent = finding("lib/prompts.py", "app/chat.py:9")
    named = finding("lib/tools.py", related=[Related(span("app/chat.py", 12), "sent here")])
    unrelated = finding("lib/prompts.py", "lib/run.py:4")
    kept = of_files([inside, sent, named, unrelated], [request, other], {"app/chat.py"})
    assert [d.span.filename for d in kept] == ["app/chat.py", "lib/prompts.py", "lib/tools.py"]
    assert kept[0] is inside and kept[2] is named  # nothing added where nothing is outside, or said already
    assert [(str(r.span), r.message, r.evidence) for r in kept[1].related] == [
        ("app/chat.py:9:1", OUTSIDE.format(file="lib/prompts.py"), False)]
    assert sent.related == []  # a copy is marked
