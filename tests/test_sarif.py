"""SARIF for GitHub code scanning (issue 14): OASIS schema, helpUri and help text, fingerprints
that survive inserted lines, automationDetails, repository-relative URIs, fixes for safe fixes."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from ci_support import CHAT_PY, JSON_ROW, TIMESTAMP_ROW, cli, git
from promptlint.rules import ALL_RULES

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
DOCS = "https://git.example.invalid/team/promptlint/blob/v0.2.0/docs/rules.md"  # what a team passes


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A git repository with the faulty file under app/; the run happens in app/ (not the root)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "chat.py").write_text(CHAT_PY, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "app")
    return tmp_path


def sarif(*args: str) -> dict:
    result = cli("check", ".", "--output-format", "sarif", *args)
    assert result.exit_code == 1, result.stderr
    log = json.loads(result.stdout)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    return log


def by_rule(log: dict) -> dict[str, dict]:
    return {r["ruleId"]: r for r in log["runs"][0]["results"]}


def test_valid_sarif_with_help_uri_help_text_and_automation_details(repo):
    log = sarif("--docs-url", DOCS)
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["informationUri"] == DOCS
    rules = {r["id"]: r for r in driver["rules"]}
    assert list(rules) == [r.code for r in ALL_RULES]
    assert rules["PRM102"]["helpUri"] == DOCS + "#prm102-timestamp-in-prefix"
    # the anchor is the heading of docs/rules.md, which scripts/gen_rules_doc.py writes
    rules_md = (Path(__file__).resolve().parents[1] / "docs" / "rules.md").read_text(encoding="utf-8")
    assert "## PRM102 timestamp-in-prefix" in rules_md
    help_md = rules["PRM102"]["help"]["markdown"]
    assert help_md.startswith("# PRM102 timestamp-in-prefix\n\nDefault severity: warning.")
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Fix safety"):
        assert section in help_md
    assert rules["PRM102"]["help"]["text"] == help_md
    assert run["automationDetails"] == {"id": "promptlint/"}


def test_docs_url_from_the_environment_and_none_by_default(repo):
    plain = sarif()["runs"][0]["tool"]["driver"]
    assert "informationUri" not in plain and all("helpUri" not in r for r in plain["rules"])
    result = cli("check", ".", "--output-format", "sarif", env={"PROMPTLINT_DOCS_URL": DOCS})
    rules = json.loads(result.stdout)["runs"][0]["tool"]["driver"]["rules"]
    assert rules[0]["helpUri"] == f"{DOCS}#{ALL_RULES[0].code.lower()}-{ALL_RULES[0].name}"


def test_uris_are_relative_to_the_repository_root(repo):
    run = sarif()["runs"][0]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": repo.resolve().as_uri() + "/"}}
    location = by_rule({"runs": [run]})["PRM102"]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "app/chat.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"]["startLine"] == TIMESTAMP_ROW


def test_fingerprints_survive_inserting_lines_above_a_finding(repo):
    before = by_rule(sarif())
    chat = repo / "app" / "chat.py"
    chat.write_text(CHAT_PY.replace("client = OpenAI()\n", "client = OpenAI()\nTIMEOUT = 30\nRETRIES = 3\n\n"),
                    encoding="utf-8")
    after = by_rule(sarif())
    for code, row in (("PRM102", TIMESTAMP_ROW), ("PRM201", JSON_ROW)):
        assert after[code]["locations"][0]["physicalLocation"]["region"]["startLine"] == row + 3
        assert after[code]["partialFingerprints"] == before[code]["partialFingerprints"]
        assert set(before[code]["partialFingerprints"]) == {"promptlint/v1"}
    assert before["PRM102"]["partialFingerprints"] != before["PRM201"]["partialFingerprints"]
    # editing the finding's own line gives it a new identity
    chat.write_text(CHAT_PY.replace('f"Now: {datetime.now()}. "', 'f"Time: {datetime.now()}. "'), encoding="utf-8")
    assert by_rule(sarif())["PRM102"]["partialFingerprints"] != before["PRM102"]["partialFingerprints"]


def test_safe_fixes_are_sarif_fixes_unsafe_ones_are_not(repo):
    results = by_rule(sarif())
    json_fix = results["PRM201"]["fixes"]
    assert json_fix[0]["description"]["text"].startswith("Add `sort_keys=True`")
    change = json_fix[0]["artifactChanges"][0]
    assert change["artifactLocation"] == {"uri": "app/chat.py", "uriBaseId": "%SRCROOT%"}
    assert change["replacements"][0]["insertedContent"]["text"] == ", sort_keys=True"
    assert results["PRM201"]["properties"]["fixApplicability"] == "safe"
    assert "fixes" not in results["PRM102"]


def test_same_fingerprint_in_a_real_git_checkout(tmp_path, monkeypatch):
    """`.git` as git makes it (not an empty folder) and a run from the repository root."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "chat.py").write_text(CHAT_PY, encoding="utf-8")
    git(tmp_path, "init", "-q")
    monkeypatch.chdir(tmp_path)
    root_run = by_rule(sarif())
    monkeypatch.chdir(tmp_path / "app")
    sub_run = by_rule(sarif())
    assert root_run["PRM102"]["partialFingerprints"] == sub_run["PRM102"]["partialFingerprints"]
    assert root_run["PRM102"]["locations"] == sub_run["PRM102"]["locations"]
