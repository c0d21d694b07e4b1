"""Acceptance tests of issues 4, 5 and 6 on the bundled demo project (fixtures/demo).

Every test works on a copy of the demo in a temporary folder (the fixture itself is never
touched), with that folder as the current directory so paths read `demo/helpdesk/...`:
- SARIF from the demo validates against the OASIS SARIF 2.1.0 schema kept in tests/schemas and
  carries the JSON report's diagnostics one to one (issue 6);
- a baseline of the demo absorbs every finding; one new cache-breaking line fails with exactly
  that finding; moving code around does not (issue 6);
- `promptlint fix --diff` prints a unified diff, exits 1 and writes nothing (issue 4);
- `promptlint explain` draws every prompt of the demo; one drawing is checked in a fixed-width
  console (issue 5);
- every prompt of the JSON report has estimates, exact for OpenAI only (issue 5).
"""
from __future__ import annotations

import difflib
import json
import os
import shutil
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from promptlint import tokens
from promptlint.api import check
from promptlint.cli import main
from promptlint.report.explain import render_explain, select_layouts

TESTS = Path(__file__).resolve().parent
DEMO = TESTS.parent / "fixtures" / "demo"
SCHEMA = json.loads((TESTS / "schemas" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
APP = "demo/helpdesk"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def cli(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def copy_demo(root: Path) -> Path:
    shutil.copytree(DEMO, root / "demo")
    return root / "demo"


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """A read-only demo copy shared by the tests that do not change files: (root, JSON report,
    Report from the API). Tests using it chdir to `root` themselves."""
    root = tmp_path_factory.mktemp("demo-ro")
    copy_demo(root)
    cwd = Path.cwd()
    os.chdir(root)
    try:
        result = cli("check", "demo", "--output-format", "json")
        assert result.exit_code == 1, result.stderr
        api_report = check([Path("demo")])
    finally:
        os.chdir(cwd)
    return root, json.loads(result.stdout), api_report


@pytest.fixture
def demo(tmp_path, monkeypatch) -> Path:
    """A fresh demo copy this test may change; the current directory is its parent."""
    copy_demo(tmp_path)
    monkeypatch.chdir(tmp_path)
    return Path("demo")


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under `root`: relative path -> (bytes, mtime in ns)."""
    return {p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


# --- a. SARIF ------------------------------------------------------------------------------------

def test_sarif_of_the_demo_validates_and_matches_the_json_report(shared, monkeypatch):
    root, report, _ = shared
    monkeypatch.chdir(root)
    result = cli("check", "demo", "--output-format", "sarif")
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    validator = jsonschema.validators.validator_for(SCHEMA)
    validator.check_schema(SCHEMA)
    validator(SCHEMA).validate(log)
    assert log["version"] == "2.1.0"

    run = log["runs"][0]
    results, rules = run["results"], run["tool"]["driver"]["rules"]
    diagnostics = report["diagnostics"]
    assert len(diagnostics) >= 10
    assert len(results) == len(diagnostics)

    def from_sarif(r):
        region = r["locations"][0]["physicalLocation"]["region"]
        uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        return (r["ruleId"], r["level"], uri, region["startLine"], region["startColumn"],
                r["message"]["text"])

    def from_json(d):
        return (d["code"], LEVELS[d["severity"]], d["filename"], d["location"]["row"],
                d["location"]["column"], d["message"])

    assert Counter(map(from_sarif, results)) == Counter(map(from_json, diagnostics))

    ids = [rule["id"] for rule in rules]
    assert len(ids) == len(set(ids))
    for r in results:
        rule = rules[r["ruleIndex"]]
        assert rule["id"] == r["ruleId"]
        assert rule["name"] and rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["text"]
    assert {r["ruleId"] for r in results} == {d["code"] for d in diagnostics}


# --- b. baseline ---------------------------------------------------------------------------------

def check_json(*args: str):
    result = cli("check", "demo", "--output-format", "json", *args)
    return result, json.loads(result.stdout)


def write_baseline(demo: Path) -> Path:
    baseline = Path("baseline.json")
    result = cli("check", str(demo), "--write-baseline", str(baseline))
    assert result.exit_code == 0, result.stderr
    return baseline


def test_baseline_of_the_demo_absorbs_every_finding(demo):
    _, full = check_json()
    baseline = write_baseline(demo)
    entries = json.loads(baseline.read_text(encoding="utf-8"))["entries"]
    assert sum(e["count"] for e in entries) == len(full["diagnostics"]) >= 10
    result, report = check_json("--baseline", str(baseline))
    assert result.exit_code == 0
    assert report["diagnostics"] == []


PORTAL_SYSTEM = '                {"role": "system", "content": f"{PERSONA_PROMPT}\\n\\n{POLICY}"},\n'


def _new_system_message(source: str) -> str:
    """A new first line in PortalChat's message list: a system message that opens with a uuid."""
    return source.replace(
        PORTAL_SYSTEM, '                {"role": "system", "content": f"Request id: {uuid.uuid4()}"},\n'
        + PORTAL_SYSTEM)


def _uuid_on_top_of_the_system_prompt(source: str) -> str:
    """PortalChat's static system f-string gets a uuid interpolated at its top."""
    top = PORTAL_SYSTEM.replace('f"{PERSONA', 'f"Request {uuid.uuid4()}\\n{PERSONA')
    return source.replace(PORTAL_SYSTEM, top)


@pytest.mark.parametrize("change", [_new_system_message, _uuid_on_top_of_the_system_prompt])
def test_baseline_fails_on_one_new_cache_breaking_line(demo, change):
    baseline = write_baseline(demo)
    module = demo / "helpdesk" / "chat_openai.py"
    before = module.read_text(encoding="utf-8")
    assert before.count(PORTAL_SYSTEM) == 1
    after = change(before)
    module.write_text(after, encoding="utf-8")
    changed = [i + 1 for i, line in enumerate(after.splitlines()) if "uuid.uuid4()}" in line
               and line not in before.splitlines()]
    assert len(changed) == 1

    result, report = check_json("--baseline", str(baseline))
    assert result.exit_code == 1
    found = [(d["code"], d["filename"], d["location"]["row"]) for d in report["diagnostics"]]
    assert found == [("PRM103", f"{APP}/chat_openai.py", changed[0])]
    assert "uuid.uuid4()" in report["diagnostics"][0]["message"]


def _swap(source: str, first: str, second: str, end: str | None) -> str:
    """Swap the two adjacent top-level blocks starting at `first` and `second` (the second ends
    at `end`, or at the end of the file)."""
    a, b = source.index(first), source.index(second)
    c = source.index(end) if end else len(source)
    one, two = source[a:b], source[b:c]
    if end is None:
        one, two = one.rstrip("\n") + "\n", two.rstrip("\n") + "\n\n\n"
    return source[:a] + two + one + source[c:]


def test_baseline_ignores_code_moved_around(demo):
    _, full = check_json()
    baseline = write_baseline(demo)
    app = demo / "helpdesk"
    chat = app / "chat_openai.py"
    chat.write_text(_swap(chat.read_text(encoding="utf-8"), "class WidgetChat", "class PortalChat",
                          "def classify_ticket"), encoding="utf-8")
    agent = app / "claude_agent.py"
    agent.write_text(_swap(agent.read_text(encoding="utf-8"), "def import_mailbox", "def suggest_reply",
                           None), encoding="utf-8")
    prompts = app / "prompts.py"
    prompts.write_text("# Shared prompt text; keep it stable.\n\n\n" + prompts.read_text(encoding="utf-8"),
                       encoding="utf-8")
    for path in (chat, agent, prompts):
        compile(path.read_text(encoding="utf-8"), str(path), "exec")

    # The same findings, on other lines.
    _, moved = check_json()
    key = lambda d: (d["code"], d["filename"])  # noqa: E731
    assert Counter(map(key, moved["diagnostics"])) == Counter(map(key, full["diagnostics"]))
    rows = lambda report: {(d["code"], d["filename"], d["location"]["row"])  # noqa: E731
                           for d in report["diagnostics"]}
    assert ("PRM102", f"{APP}/chat_openai.py", 26) in rows(full)
    assert ("PRM102", f"{APP}/chat_openai.py", 26) not in rows(moved)
    assert any(code == "PRM102" and name == f"{APP}/chat_openai.py" and row != 26 for code, name, row in rows(moved))

    result, report = check_json("--baseline", str(baseline))
    assert report["diagnostics"] == []
    assert result.exit_code == 0


# --- c. fix --diff -------------------------------------------------------------------------------

def test_fix_diff_prints_a_unified_diff_and_writes_nothing(demo):
    root = Path.cwd()
    before = snapshot(root)
    result = cli("fix", "--diff", str(demo))
    assert result.exit_code == 1
    assert snapshot(root) == before  # same files, bytes and mtimes: nothing written, no temp files
    diff = result.stdout
    headers = [line[4:] for line in diff.splitlines() if line.startswith("--- ")]
    assert headers and f"{APP}/retrieval.py" in headers
    # `json.dumps(step["result"])`: rows of unknown key types, sort_keys may raise, so its fix is unsafe
    assert f"{APP}/tools.py" not in headers
    assert "@@ -" in diff
    assert "+    + \"\\n\".join(f\"- {sdk}\" for sdk in sorted(SUPPORTED_SDKS))" in diff
    assert "would change" in result.stderr

    # The diff is exactly what `promptlint fix` then writes (safe fixes only).
    fixed = cli("fix", str(demo))
    assert fixed.exit_code == 1  # findings without a safe fix remain
    after = snapshot(root)
    changed = sorted(name for name in before if after[name][0] != before[name][0])
    assert changed == sorted(headers)
    expected = "".join(
        "".join(difflib.unified_diff(before[name][0].decode("utf-8").splitlines(keepends=True),
                                     after[name][0].decode("utf-8").splitlines(keepends=True),
                                     fromfile=name, tofile=name))
        for name in changed)
    assert diff == expected


# --- d. explain ----------------------------------------------------------------------------------

MARKERS = ("-- static prefix ends:", "-- all static:", "-- static prefix is empty")


def test_explain_draws_every_prompt_of_the_demo(shared, monkeypatch):
    root, report, api_report = shared
    monkeypatch.chdir(root)
    layouts = {layout.id: layout for layout in api_report.prompts}
    # the JSON report lists the prompts analysed, each once; every other layout is a reference of one
    from promptlint.judged import prompts_analysed
    assert sorted(p.id for p in prompts_analysed(api_report.prompts)) == sorted(p["id"] for p in report["prompts"])
    listed = {p["id"] for p in report["prompts"]}
    referenced = {r for p in report["prompts"] for r in p["references"]}
    assert listed <= set(layouts) and referenced <= set(layouts) - listed
    assert len(report["prompts"]) >= 10
    for prompt in report["prompts"]:
        layout = layouts[prompt["id"]]
        result = cli("explain", prompt["id"])
        assert result.exit_code == 0, (prompt["id"], result.stderr)
        # the header: the id and its facts on one line, or on two when one line would not fit
        blocks = [b for b in result.stdout.split("\n\n") if b.startswith((prompt["id"] + "  ", prompt["id"] + "\n"))]
        assert len(blocks) == 1, prompt["id"]
        lines = blocks[0].splitlines()
        notes = [line for line in lines if line.startswith(tuple(f"{e['provider']}:" for e in prompt["estimates"]))
                 and ": " in line or line.lstrip().startswith(("-- cost: ", "^ "))]
        # the drawing fits 100 columns; prose notes are whole lines, never hard-wrapped (issue 14), and
        # off a terminal never cut (a path in a note is kept whole)
        assert all(len(line) <= 100 for line in lines if line not in notes)
        assert prompt["source"] in (lines[0] if lines[0] != prompt["id"] else lines[1])
        # Parts in request order, each role at the start of its first line.
        roles = [line.split()[0] for line in lines[1:] if line and not line[0].isspace()
                 and line.split()[0] in ("tools", "system", "developer", "user", "assistant", "tool",
                                         "history", "prompt")]
        assert roles == [part.role for part in layout.parts], prompt["id"]
        # One line per segment between the first part and the targets table; one prefix marker.
        start = next(i for i, line in enumerate(lines) if line.startswith(f"{layout.parts[0].role:<10} "))
        table = next(i for i, line in enumerate(lines) if line.split()[:2] == ["target", "tokenizer"])
        body = [line for line in lines[start:table] if not line.lstrip().startswith(("-- ", "^ "))]
        assert len(body) == sum(max(len(part.segments), 1) for part in layout.parts), prompt["id"]
        assert sum(line.lstrip().startswith(MARKERS) for line in lines) == 1, prompt["id"]
        # The targets table names every estimate of the JSON report.
        targets = [line.split()[0] for line in lines[table + 1:]]
        for e in prompt["estimates"]:
            assert (f"{e['provider']}:{e['model']}" if e["model"] else e["provider"]) in targets


def _draw(api_report, prompt_id: str, width: int = 100) -> list[str]:
    layouts = [lay for lay in select_layouts(api_report.prompts, int(prompt_id.rsplit(":", 1)[1]))
               if lay.id == prompt_id]
    assert len(layouts) == 1
    text = render_explain(layouts, width)
    lines = text.splitlines()
    assert all(len(line) <= width for line in lines if not line.lstrip().startswith("^ history: "))  # (prose: whole)
    assert "\x1b[" not in text
    return lines


def test_explain_drawing_of_the_portal_chat(shared):
    """PortalChat: persona and policy are the static prefix (1,587 o200k tokens), the replayed
    history and the newest user message with the local time follow; gpt-4.1-mini caches 1,536
    tokens (1,024 plus whole 128-token steps)."""
    _, _, api_report = shared
    lines = _draw(api_report, f"{APP}/chat_openai.py:54")
    assert lines[0].startswith(f"{APP}/chat_openai.py:54  python-call | openai | chat.completions.create")
    policy = (DEMO / "helpdesk" / "policy.md").read_text(encoding="utf-8")
    persona = ("You are the Harborline Analytics support assistant. "
               "Answer in the customer's language and follow the support policy below.")
    prefix = tokens.count(f"{persona}\n\n{policy}")
    assert prefix == 1587
    marker = next(i for i, line in enumerate(lines) if "-- static prefix ends:" in line)
    assert lines[marker].strip().startswith("-- static prefix ends: 1,587 tokens (o200k) ---")
    assert len(lines[marker]) == 100
    assert lines[marker - 1].startswith(" " * 11 + '"# Harborline Analytics support policy')
    assert lines[marker - 1].endswith("1,566 tok")
    assert lines[marker + 1].split() == ["history", "{self.sent}", "history"]
    assert lines[marker + 2].strip() == ("^ history: `self.sent`, taken as the replayed conversation (line 58); its "
                                         "messages are not read here: what they hold is not drawn")
    assert lines[1].startswith("system     \"You are the\"")
    user = next(i for i, line in enumerate(lines) if line.startswith("user "))
    assert user > marker
    # drawn as the code writes it (`{stamp}`), with the value it holds
    stamp = next(i for i, line in enumerate(lines) if i > user and "{stamp}" in line)
    assert lines[stamp].endswith("timestamp, per-request")
    assert lines[stamp + 1].strip().startswith("^ the value of `datetime.now(self.tz).strftime(")
    table = next(i for i, line in enumerate(lines) if line.split()[:2] == ["target", "tokenizer"])
    assert lines[table].split() == ["target", "tokenizer", "prefix", "min", "cached", "share", "read",
                                    "write"]
    cached = 1024 + (1587 - 1024) // 128 * 128
    assert lines[table + 1].split() == ["openai:gpt-4.1-mini", "o200k_base", "1,587", "1,024",
                                        f"{cached:,}", f"{cached / 1592:.0%}", "0.25x", "1x"]


def test_explain_drawing_of_a_breakpoint_below_the_minimum(shared):
    """moderation.py: a cache breakpoint closes a 47-token system prompt; Claude Haiku 4.5 counts
    are estimates (~) and the 4,096-token minimum is not reached."""
    _, _, api_report = shared
    lines = _draw(api_report, f"{APP}/moderation.py:14", width=80)
    bp = next(i for i, line in enumerate(lines) if "-- cache breakpoint at " in line)
    assert f"{APP}/moderation.py:17:57" in lines[bp]
    assert lines[bp - 1].startswith("system ") and lines[bp - 1].endswith("47 tok")
    assert "-- static prefix ends: 47 tokens (o200k)" in lines[bp + 1]
    row = next(line for line in lines if line.startswith("anthropic:claude-haiku-4-5 "))
    assert row.split()[1:6] == ["Claude", "3-4.6", "~55", "4,096", "~0"]


# --- e. estimates in the JSON report -------------------------------------------------------------

def test_every_prompt_of_the_demo_has_estimates(shared):
    _, report, _ = shared
    providers = Counter()
    for prompt in report["prompts"]:
        assert prompt["estimates"], prompt["id"]
        for e in prompt["estimates"]:
            providers[e["provider"]] += 1
            if e["provider"] == "openai":
                assert e["exact"] is True, (prompt["id"], e)
                if e["tokenizer"] == "o200k_base":
                    assert e["prefix_tokens"] == prompt["static_prefix_tokens"], prompt["id"]
            elif e["provider"] in ("anthropic", "google"):
                assert e["exact"] is False, (prompt["id"], e)
            assert 0 <= e["cached_tokens"] <= e["prefix_tokens"]
    assert providers["openai"] and providers["anthropic"]
