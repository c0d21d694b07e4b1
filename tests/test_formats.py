"""SARIF, GitHub and GitLab renderers: pure functions of a synthetic Report."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from promptlint.model import (Applicability, Diagnostic, Edit, Fix, Position, Related, Report,
                              Severity, Span)
from promptlint.report import github, gitlab, sarif
from promptlint.rules import ALL_RULES

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "sarif-schema-2.1.0.json")
                    .read_text(encoding="utf-8"))

SOURCES = {
    "app/chat.py": 'import datetime\nSYSTEM = f"Now: {datetime.datetime.now()}"\n'
                   '    PROMPT = "x"  \n',
    "prompts/sys tem.j2": "Hello {{ name }}\n{% if debug %}debug{% endif %}\n",
}


def span(filename, r1, c1, r2, c2):
    return Span(filename, Position(r1, c1), Position(r2, c2))


def make_report() -> Report:
    timestamp = Diagnostic(
        code="PRM102", name="timestamp-in-prefix", severity=Severity.WARNING,
        message="Timestamp `datetime.now()` at token 3 of the system prompt: 12 static tokens "
                "after it are never cached",
        span=span("app/chat.py", 2, 18, 2, 43),
        fix=Fix(Applicability.UNSAFE, "Move the timestamp to the end of the prompt",
                [Edit("", Position(2, 18), Position(2, 43)),
                 Edit("{datetime.datetime.now()}", Position(2, 44), Position(2, 44))]),
        prompt="app/chat.py:2",
        related=[Related(span("app/clock.py", 3, 12, 3, 20), "value produced here")])
    conditional = Diagnostic(
        code="PRM104", name="conditional-prefix", severity=Severity.INFO,
        message="Conditional content, 50% of the prefix: 2 variants",
        span=span("prompts/sys tem.j2", 2, 1, 3, 1))
    error = Diagnostic(
        code="PRM001", name="syntax-error", severity=Severity.ERROR,
        message="Cannot parse: invalid syntax, at 100%, a:b\nnext line",
        span=span("app/broken.py", 1, 1, 1, 1))
    return Report(diagnostics=[timestamp, conditional, error], files=3,
                  errors=["Cannot read app/missing.py"])


def read(name):
    return SOURCES.get(name)


# --- SARIF ---------------------------------------------------------------------------------------

def test_sarif_validates_against_the_oasis_schema():
    log = json.loads(sarif.render(make_report(), rules=ALL_RULES, version="0.1.0"))
    jsonschema.Draft4Validator(SCHEMA).validate(log)


def test_sarif_empty_report_validates():
    log = json.loads(sarif.render(Report(), rules=ALL_RULES, version="0.1.0"))
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["invocations"] == [{"executionSuccessful": True}]


def test_sarif_driver_lists_every_rule_with_docs():
    log = json.loads(sarif.render(Report(), rules=ALL_RULES, version="9.9.9"))
    driver = log["runs"][0]["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("promptlint", "9.9.9")
    assert "informationUri" not in driver  # no public home page: given only with a docs URL
    assert [r["id"] for r in driver["rules"]] == [r.code for r in ALL_RULES]
    by_id = {r["id"]: r for r in driver["rules"]}
    unused = by_id["PRM901"]
    assert unused["name"] == "unused-suppression"
    assert unused["defaultConfiguration"] == {"level": "note"}
    assert unused["shortDescription"]["text"] == "A suppression comment that suppresses nothing"
    assert "outlives the code" in unused["fullDescription"]["text"]
    assert unused["help"]["markdown"].startswith("# PRM901 unused-suppression\n\nDefault severity: info.")
    assert "## What it does" in unused["help"]["markdown"]
    assert "## Fix safety" in unused["help"]["text"]
    assert by_id["PRM001"]["defaultConfiguration"] == {"level": "error"}


def test_sarif_results():
    log = json.loads(sarif.render(make_report(), rules=ALL_RULES, version="0.1.0"))
    run = log["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    results = run["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("PRM001", "error"), ("PRM102", "warning"), ("PRM104", "note")]
    rules = run["tool"]["driver"]["rules"]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)
    ts = results[1]
    assert ts["message"]["text"].startswith("Timestamp `datetime.now()`")
    loc = ts["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "app/chat.py", "uriBaseId": "%SRCROOT%"}
    assert loc["region"] == {"startLine": 2, "startColumn": 18, "endLine": 2, "endColumn": 43}
    assert ts["relatedLocations"] == [{
        "id": 0, "message": {"text": "value produced here"},
        "physicalLocation": {"artifactLocation": {"uri": "app/clock.py", "uriBaseId": "%SRCROOT%"},
                             "region": {"startLine": 3, "startColumn": 12, "endLine": 3,
                                        "endColumn": 20}}}]
    assert "fixes" not in ts  # an unsafe fix is not offered as a SARIF fix (tests/test_sarif.py: safe ones are)
    assert ts["properties"] == {"fixApplicability": "unsafe", "prompt": "app/chat.py:2"}
    assert results[2]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == \
        "prompts/sys%20tem.j2"


def test_sarif_reports_run_errors_as_notifications():
    invocation = json.loads(sarif.render(make_report(), rules=ALL_RULES, version="0.1.0"))["runs"][0][
        "invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert invocation["toolExecutionNotifications"] == [
        {"level": "error", "message": {"text": "Cannot read app/missing.py"}}]


def test_sarif_absolute_path_is_a_file_uri(tmp_path):
    d = Diagnostic("PRM104", "conditional-prefix", Severity.INFO, "m",
                   span(str(tmp_path / "a.py"), 1, 1, 1, 2))
    log = json.loads(sarif.render(Report(diagnostics=[d]), rules=ALL_RULES, version="0.1.0"))
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": (tmp_path / "a.py").as_uri()}
    jsonschema.Draft4Validator(SCHEMA).validate(log)


# --- GitHub --------------------------------------------------------------------------------------

def test_github_workflow_commands():
    lines = github.render(make_report()).splitlines()
    assert lines == [
        "::error file=app/broken.py,line=1,col=1,endLine=1,endColumn=1,"
        "title=promptlint (PRM001)::Cannot parse: invalid syntax, at 100%25, a:b%0Anext line",
        "::warning file=app/chat.py,line=2,col=18,endLine=2,endColumn=43,"
        "title=promptlint (PRM102)::Timestamp `datetime.now()` at token 3 of the system prompt: "
        "12 static tokens after it are never cached",
        "::notice file=prompts/sys tem.j2,line=2,endLine=3,"
        "title=promptlint (PRM104)::Conditional content, 50%25 of the prefix: 2 variants",
        "::error title=promptlint::Cannot read app/missing.py",
    ]


def test_github_escapes_properties():
    assert github.escape_property("a,b:c%d\r\ne") == "a%2Cb%3Ac%25d%0D%0Ae"
    assert github.escape_data("a,b:c%d\r\ne") == "a,b:c%25d%0D%0Ae"
    d = Diagnostic("PRM104", "conditional-prefix", Severity.INFO, "m",
                   span("we,ird:name.py", 1, 1, 1, 2))
    assert github.render(Report(diagnostics=[d])).startswith(
        "::notice file=we%2Cird%3Aname.py,line=1,")


def test_github_empty_report_is_empty():
    assert github.render(Report()) == ""


# --- GitLab --------------------------------------------------------------------------------------

def test_gitlab_code_quality():
    issues = json.loads(gitlab.render(make_report(), read_text=read))
    assert [(i["check_name"], i["severity"], i["location"]) for i in issues] == [
        ("PRM001", "critical", {"path": "app/broken.py", "lines": {"begin": 1, "end": 1}}),
        ("PRM102", "major", {"path": "app/chat.py", "lines": {"begin": 2, "end": 2}}),
        ("PRM104", "info", {"path": "prompts/sys tem.j2", "lines": {"begin": 2, "end": 3}}),
    ]
    assert issues[1]["description"].startswith("PRM102 timestamp-in-prefix: Timestamp")
    assert len({i["fingerprint"] for i in issues}) == 3
    assert all(len(i["fingerprint"]) == 64 for i in issues)


def moved(report: Report, rows: int) -> Report:
    out = []
    for d in report.diagnostics:
        s = d.span
        out.append(Diagnostic(d.code, d.name, d.severity, d.message + " (changed)",
                              Span(s.filename, Position(s.start.row + rows, s.start.column),
                                   Position(s.end.row + rows, s.end.column))))
    return Report(diagnostics=out)


def test_gitlab_fingerprint_is_stable_when_code_moves():
    before = json.loads(gitlab.render(make_report(), read_text=read))
    shifted = {name: "\n\n# a new comment\n" + text for name, text in SOURCES.items()}
    after = json.loads(gitlab.render(moved(make_report(), 3), read_text=shifted.get))
    assert [i["fingerprint"] for i in before] == [i["fingerprint"] for i in after]
    assert [i["location"]["lines"]["begin"] for i in after] == [4, 5, 5]


def test_gitlab_fingerprints_unique_for_identical_lines():
    text = "x = f'{now()}'\nx = f'{now()}'\n"
    ds = [Diagnostic("PRM102", "timestamp-in-prefix", Severity.WARNING, "m",
                     span("a.py", r, 1, r, 2)) for r in (1, 2)]
    issues = json.loads(gitlab.render(Report(diagnostics=ds), read_text=lambda n: text))
    assert len({i["fingerprint"] for i in issues}) == 2


@pytest.mark.parametrize("renderer", [sarif.render, github.render, gitlab.render])
def test_renderers_end_with_one_newline_or_nothing(renderer):
    out = renderer(make_report())
    assert out.endswith("\n") and not out.endswith("\n\n")


# --- through the command line ------------------------------------------------------------------

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "cases"


def cli(*args):
    from click.testing import CliRunner

    from promptlint.cli import main

    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def cases_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cases-cache")


@pytest.fixture
def cases(monkeypatch, cases_cache):
    """The folder `cases` (fixtures/ is the current folder), with one analysis cache for the
    module: the first check analyses the cases, the others render the same report from the cache
    (that a warm run reports what the cold run did is tests/test_cache.py's)."""
    if not CASES.is_dir():
        pytest.skip("fixtures/cases is missing")
    monkeypatch.chdir(CASES.parent)
    monkeypatch.setenv("PROMPTLINT_CACHE_DIR", str(cases_cache))
    return "cases"


def test_cli_sarif_of_the_cases_validates_and_is_the_only_stdout(cases):
    result = cli("check", cases, "--output-format", "sarif")
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    results = log["runs"][0]["results"]
    assert {"PRM102", "PRM103"} <= {r["ruleId"] for r in results}
    assert any("relatedLocations" in r for r in results)
    # relative to the repository root (fixtures/ is where it ran), as code scanning expects
    assert all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
               .startswith("fixtures/cases/") for r in results)


def test_cli_github_and_gitlab_payloads(cases):
    gh = cli("check", cases, "--output-format", "github")
    assert gh.exit_code == 1
    assert gh.stdout and all(line.startswith("::") for line in gh.stdout.splitlines())
    gl = cli("check", cases, "--output-format", "gitlab")
    issues = json.loads(gl.stdout)
    assert len({i["fingerprint"] for i in issues}) == len(issues) > 0
    assert {i["severity"] for i in issues} <= {"info", "major", "critical"}


def test_cli_output_file(cases, tmp_path):
    out = tmp_path / "promptlint.sarif"
    result = cli("check", cases, "--output-format", "sarif", "--output-file", str(out))
    assert result.exit_code == 1
    assert result.stdout == ""
    jsonschema.Draft4Validator(SCHEMA).validate(json.loads(out.read_text(encoding="utf-8")))


def test_cli_statistics(cases):
    text = cli("check", cases, "--statistics")
    assert text.exit_code == 1
    rows = json.loads(cli("check", cases, "--statistics", "--output-format", "json").stdout)
    assert rows == sorted(rows, key=lambda r: (-r["count"], r["code"]))
    for row in rows:
        assert f"{row['code']}  {row['name']}" in text.stdout
    full = json.loads(cli("check", cases, "--output-format", "json").stdout)["diagnostics"]
    assert sum(r["count"] for r in rows) == len(full)


def test_cli_rules_and_rule_docs():
    listing = cli("rules")
    assert listing.exit_code == 0
    head, *lines = listing.stdout.splitlines()
    assert head.split() == ["CODE", "NAME", "DEFAULT", "FIX", "WHAT", "IT", "FINDS"]
    assert [line.split()[0] for line in lines] == [r.code for r in ALL_RULES]
    assert lines[0][head.index("DEFAULT"):].startswith(ALL_RULES[0].severity.value)
    assert "PRM901  unused-suppression" in listing.stdout
    assert listing.stdout.splitlines()[-1].endswith("always     a suppression comment that suppresses nothing")
    rows = json.loads(cli("rules", "--output-format", "json").stdout)
    assert rows[-1]["brief"] == "a suppression comment that suppresses nothing"
    assert [(r["code"], r["severity"]) for r in rows] == [(r.code, r.severity.value)
                                                          for r in ALL_RULES]
    doc = cli("rule", "PRM901")
    assert doc.stdout.startswith("# PRM901 unused-suppression\n")
    assert "## Why is this bad?" in doc.stdout
    by_name = json.loads(cli("rule", "unused-suppression", "--output-format", "json").stdout)
    assert (by_name["code"], by_name["fix_availability"]) == ("PRM901", "always")
    unknown = cli("rule", "PRM9O1")
    assert unknown.exit_code == 2
    assert unknown.stderr == "promptlint: unknown rule `PRM9O1`; did you mean `PRM901`?\n"
