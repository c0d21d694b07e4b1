"""The real-world cases of fixtures/cases, scored as the evaluation scorer scores them.

Each case directory holds small input files and an `expected.toml` (schema: fixtures/cases/*/
expected.toml, documented in the project's cases README). For each case this runs
`promptlint check . --output-format json` inside the case directory and requires:
- every `[[findings]]` entry with `required = true` (the default) is matched by a diagnostic with the
  same file, a row equal to `line` or in `lines_accepted`, a rule name of the entry's `rule_kind`
  (KIND_TO_NAMES) and a severity of the same class (warning/error vs info);
- no diagnostic at warning or error severity that matches neither a finding nor an `[[allowed]]` entry;
- exit code 1 when a warning or error is reported, 0 otherwise (default `--fail-on warning`);
- `errors` empty.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptlint.cli import main

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CASES_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "cases"
CASES = sorted(p.parent.name for p in CASES_DIR.glob("*/expected.toml"))

# rule_kind (cases vocabulary) -> promptlint rule names that report it (cases README, mapping table)
KIND_TO_NAMES = {
    "timestamp-in-prefix": {"timestamp-in-prefix"},
    "volatile-tail-in-system": {"timestamp-in-prefix"},
    "volatile-id-in-prefix": {"unique-id-in-prefix"},
    "dynamic-before-static": {"dynamic-before-static", "conditional-prefix"},
    "nondeterministic-serialisation": {"unsorted-json-dumps", "unordered-iteration-in-prompt"},
    "unstable-tools-order": {"unstable-tool-order"},
    "prefix-below-minimum": {"prefix-below-minimum", "breakpoint-below-minimum"},
    "cache-control-misuse": {
        "breakpoint-after-dynamic-content", "too-many-breakpoints", "breakpoint-below-minimum",
        "missing-cache-breakpoint",
    },
    "semantic-cache-without-ttl": {"semantic-cache-without-ttl"},
    "unstable-cache-key": {"unstable-cache-key"},
}
BLOCKING = {"warning", "error"}


def _row(diag: dict):
    return (diag.get("location") or {}).get("row")


def _matches(diag: dict, entry: dict) -> bool:
    """Same file, an accepted row, a rule name of the entry's kind, a severity of the same class."""
    names = KIND_TO_NAMES.get(entry["rule_kind"], {entry["rule_kind"]})
    rows = {entry["line"], *entry.get("lines_accepted", [])}
    filename = Path(diag.get("filename") or "").as_posix().removeprefix("./")
    same_class = (diag.get("severity") in BLOCKING) == (entry.get("severity", "warning") in BLOCKING)
    return (filename == entry["file"] and _row(diag) in rows and diag.get("name") in names
            and same_class)


def _describe(diag: dict) -> str:
    return f"{diag.get('code')} {diag.get('name')} ({diag.get('severity')}) at {diag.get('filename')}:{_row(diag)}"


def test_every_case_is_present():
    """The fixtures hold the fifteen cases of the evaluation set."""
    assert len(CASES) >= 15, CASES
    assert {"clock-section-in-identity", "recalled-memory-in-system", "sandbox-host-in-cached-system",
            "clean-breakpoint-on-static-system", "clean-date-tail-of-system", "clean-json-sort-keys",
            "clean-time-in-last-user-turn", "clean-day-date-and-small-prompt", "clean-prompts-folder-docs",
            "clean-responses-instructions-time-tail"} <= set(CASES)


@pytest.mark.parametrize("case", CASES)
def test_case_anchors_are_on_their_lines(case):
    """Fixture sanity: each entry's `anchor` text is on its `line` (a bad copy would shift lines)."""
    case_dir = CASES_DIR / case
    expected = tomllib.loads((case_dir / "expected.toml").read_text(encoding="utf-8"))
    assert expected["case"] == case
    for section in ("findings", "allowed", "must_not_flag"):
        for entry in expected.get(section, []):
            lines = (case_dir / entry["file"]).read_text(encoding="utf-8").splitlines()
            if "anchor" in entry:
                assert entry["anchor"] in lines[entry["line"] - 1], (section, entry)


@pytest.mark.parametrize("case", CASES)
def test_case(case, monkeypatch, case_cache):
    case_dir = CASES_DIR / case
    expected = tomllib.loads((case_dir / "expected.toml").read_text(encoding="utf-8"))
    monkeypatch.chdir(case_dir)
    monkeypatch.setenv("PROMPTLINT_CACHE_DIR", case_cache(case))  # not in the repository's fixtures
    result = CliRunner().invoke(main, ["check", ".", "--output-format", "json"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert result.exit_code in (0, 1), result.stderr
    report = json.loads(result.stdout)
    diagnostics = report["diagnostics"]

    problems = [f"error reported: {e}" for e in report["errors"]]
    findings = expected.get("findings", [])
    if expected["kind"] == "negative":
        assert findings == []
    for entry in findings:
        if entry.get("required", True) and not any(_matches(d, entry) for d in diagnostics):
            problems.append(f"missed {entry['rule_kind']} ({entry.get('severity', 'warning')}) at "
                            f"{entry['file']}:{entry['line']}")
    tolerated = findings + expected.get("allowed", [])
    for d in diagnostics:
        if d["severity"] in BLOCKING and not any(_matches(d, e) for e in tolerated):
            problems.append(f"unexpected {_describe(d)}")
    blocking = any(d["severity"] in BLOCKING for d in diagnostics)
    if result.exit_code != (1 if blocking else 0):
        problems.append(f"exit {result.exit_code} with{'' if blocking else ' no'} warning or error findings")
    assert not problems, "\n".join(problems)
