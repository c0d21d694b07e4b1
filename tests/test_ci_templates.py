"""The GitHub Action (action.yml), the GitLab CI job (ci/gitlab.yml) and every command of
docs/ci.md (issue 14): parsed, and their promptlint commands run on a small faulty repository."""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from ci_support import CHAT_PY, ROOT, cli, git
from promptlint import __version__

SCHEMA = json.loads((ROOT / "tests" / "schemas" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
GITLAB = yaml.safe_load((ROOT / "ci" / "gitlab.yml").read_text(encoding="utf-8"))
DOCS = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
BIN = Path(sys.executable).parent  # this environment's `promptlint` command


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOCS, re.S)


@pytest.fixture
def project(tmp_path):
    """A git repository with one faulty file, committed on main, origin/main at that commit."""
    root = tmp_path / "project"
    (root / "app").mkdir(parents=True)
    (root / "app" / "chat.py").write_text(CHAT_PY, encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    git(root, "update-ref", "refs/remotes/origin/main", "HEAD")
    return root


def bash(script: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    full = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", **env}
    full.pop("PROMPTLINT_DOCS_URL", None) if "PROMPTLINT_DOCS_URL" not in env else None
    return subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=full, capture_output=True, text=True,
                          timeout=300)


def expand(value: str, context: dict[str, str]) -> str:
    """GitHub's `${{ expr }}` for the plain names the action uses."""
    return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", lambda m: context[m.group(1)], value)


# --- action.yml -----------------------------------------------------------------------------------

def test_action_inputs_outputs_and_steps():
    assert set(ACTION["inputs"]) == {"version", "args", "sarif"}
    assert ACTION["inputs"]["version"]["default"] == ""
    assert ACTION["inputs"]["args"]["default"] == "."
    assert ACTION["inputs"]["sarif"]["default"] == "promptlint.sarif"
    assert ACTION["outputs"]["exit-code"]["value"] == "${{ steps.check.outputs.exit-code }}"
    assert ACTION["runs"]["using"] == "composite"
    install, check, upload, fail = ACTION["runs"]["steps"]
    # install: a venv of its own; the action's own files (the ref in `uses:`) unless `version` says otherwise
    assert install["env"] == {"PROMPTLINT_VERSION": "${{ inputs.version }}"}
    assert 'pip install --quiet "$GITHUB_ACTION_PATH"' in install["run"]
    assert 'pip install --quiet "$PROMPTLINT_VERSION"' in install["run"]
    assert 'python3 -m venv "$RUNNER_TEMP/promptlint-venv"' in install["run"]
    assert check["id"] == "check"
    assert "promptlint check --output-format sarif --output-file \"$PROMPTLINT_SARIF\" $PROMPTLINT_ARGS" in check["run"]
    assert upload["uses"] == "github/codeql-action/upload-sarif@v3"
    assert upload["with"] == {"sarif_file": "${{ inputs.sarif }}", "category": "promptlint"}
    assert "inputs.sarif != ''" in upload["if"]
    assert "steps.check.outputs.exit-code != '0'" in fail["if"]


def run_step(step: dict, cwd: Path, inputs: dict, tmp_path: Path, extra: dict | None = None):
    context = {f"inputs.{k}": v for k, v in inputs.items()}
    context |= {"github.action_repository": "team/promptlint", "github.action_ref": "v0.2.0"}
    context |= extra or {}
    output = tmp_path / "github_output"
    output.write_text("")
    env = {"GITHUB_OUTPUT": str(output), "GITHUB_SERVER_URL": "https://github.example",
           "GITHUB_ACTION_PATH": str(ROOT), "RUNNER_TEMP": str(tmp_path)}
    env |= {k: expand(str(v), context) for k, v in step.get("env", {}).items()}
    proc = bash(expand(step["run"], context), cwd, env)
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    return proc, outputs


def test_action_check_step_writes_sarif_and_reports_the_exit_code(project, tmp_path):
    _install, check, _upload, fail = ACTION["runs"]["steps"]
    inputs = {k: v["default"] for k, v in ACTION["inputs"].items()}
    proc, outputs = run_step(check, project, inputs, tmp_path)
    assert proc.returncode == 0, proc.stderr  # the step itself passes; the last step fails the job
    assert outputs == {"exit-code": "1"}
    log = json.loads((project / "promptlint.sarif").read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert {r["ruleId"] for r in log["runs"][0]["results"]} == {"PRM102", "PRM201"}
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["PRM102"]["helpUri"] == ("https://github.example/team/promptlint/blob/v0.2.0/docs/rules.md"
                                          "#prm102-timestamp-in-prefix")
    failing = bash(expand(fail["run"], {"steps.check.outputs.exit-code": "1"}), project,
                   {k: expand(v, {"steps.check.outputs.exit-code": "1"}) for k, v in fail["env"].items()})
    assert failing.returncode == 1 and "promptlint exited with 1" in failing.stdout


def test_action_without_sarif_prints_annotations_and_args_are_passed(project, tmp_path):
    check = ACTION["runs"]["steps"][1]
    proc, outputs = run_step(check, project, {"version": "", "args": "app --fail-on error", "sarif": ""}, tmp_path)
    assert outputs == {"exit-code": "0"}  # --fail-on error: the warnings do not fail
    assert proc.stdout.startswith("::warning file=app/chat.py,line=15,")
    assert not (project / "promptlint.sarif").exists()


def test_action_docs_url_from_the_action_path_when_the_context_is_empty(project, tmp_path):
    check = ACTION["runs"]["steps"][1]
    inputs = {k: v["default"] for k, v in ACTION["inputs"].items()}
    step = {**check, "env": {**check["env"], "GITHUB_ACTION_PATH": "/home/runner/work/_actions/org/pl/v0.2.0"}}
    proc, _ = run_step(step, project, inputs, tmp_path, {"github.action_repository": "", "github.action_ref": ""})
    assert proc.returncode == 0, proc.stderr
    rules = json.loads((project / "promptlint.sarif").read_text())["runs"][0]["tool"]["driver"]["rules"]
    assert rules[0]["helpUri"].startswith("https://github.example/org/pl/blob/v0.2.0/docs/rules.md#")


# --- ci/gitlab.yml --------------------------------------------------------------------------------

def test_gitlab_job_variables_install_and_report():
    job = GITLAB["promptlint"]
    assert set(job["variables"]) == {"PROMPTLINT_REPO_URL", "PROMPTLINT_VERSION", "PROMPTLINT_ARGS"}
    assert job["variables"]["PROMPTLINT_VERSION"] == ""  # no release is tagged yet: the default branch
    install = next(line for line in job["before_script"] if "pip install" in line)
    assert 'pip install --quiet "promptlint-cache @ git+${PROMPTLINT_REPO_URL}${PROMPTLINT_VERSION:+@$PROMPTLINT_VERSION}"' \
        in install
    echo = install.replace("/tmp/promptlint-venv/bin/python -m pip install --quiet", "echo")  # the requirement pip gets
    url = {"PROMPTLINT_REPO_URL": "https://git.example/team/promptlint.git"}
    assert bash(echo, ROOT, {**url, "PROMPTLINT_VERSION": ""}).stdout.strip() == \
        "promptlint-cache @ git+https://git.example/team/promptlint.git"
    assert bash(echo, ROOT, {**url, "PROMPTLINT_VERSION": "0a1b2c3"}).stdout.strip() == \
        "promptlint-cache @ git+https://git.example/team/promptlint.git@0a1b2c3"
    assert job["artifacts"] == {"when": "always", "reports": {"codequality": "gl-code-quality-report.json"}}
    assert job["script"] == [
        "promptlint check --output-format gitlab --output-file gl-code-quality-report.json $PROMPTLINT_ARGS"]


def test_gitlab_job_script_writes_the_code_quality_report(project):
    job = GITLAB["promptlint"]
    proc = bash("\n".join(job["script"]), project, dict(job["variables"]))
    assert proc.returncode == 1, proc.stderr  # findings fail the job; the report is kept (when: always)
    issues = json.loads((project / "gl-code-quality-report.json").read_text(encoding="utf-8"))
    assert {(i["check_name"], i["location"]["path"], i["severity"]) for i in issues} == {
        ("PRM102", "app/chat.py", "major"), ("PRM201", "app/chat.py", "info")}


def test_gitlab_job_without_repo_url_says_so(project):
    job = GITLAB["promptlint"]
    proc = bash(job["before_script"][0], project, dict(job["variables"]))
    assert proc.returncode == 2
    assert "set PROMPTLINT_REPO_URL" in proc.stderr


# --- docs/ci.md -----------------------------------------------------------------------------------

def doc_commands() -> list[str]:
    """Every shell command of docs/ci.md: sh and console blocks, `run:` and `script:` lines."""
    commands = []
    for block in blocks("sh"):
        commands += [line for line in block.splitlines() if line.strip()]
    for block in blocks("console"):
        commands += [line[2:] for line in block.splitlines() if line.startswith("$ ")]
    for block in blocks("yaml"):
        commands += [m.group(1) for m in re.finditer(r"^\s*- run: (.+)$", block, re.M)]
        commands += [m.group(1) for m in re.finditer(r"^\s{4,}- (promptlint .+|python -m pip .+)$", block, re.M)]
    return [re.sub(r"\s+#.*$", "", c).strip() for c in commands]


def test_docs_commands_are_the_ones_expected():
    commands = doc_commands()
    assert 'python -m pip install "promptlint-cache @ git+REPO_URL@COMMIT"' in commands
    assert "promptlint --version" in commands
    assert sum(c.startswith("promptlint check") for c in commands) >= 6


def test_every_promptlint_command_of_the_docs_runs(project, monkeypatch):
    """Each command as the shell would split it; promptlint in-process (CliRunner), git for real."""
    monkeypatch.chdir(project)
    monkeypatch.delenv("PROMPTLINT_DOCS_URL", raising=False)
    monkeypatch.delenv("PROMPTLINT_OUTPUT_FORMAT", raising=False)
    ran = 0
    for command in doc_commands():
        if not command.startswith(("promptlint ", "git ")):
            continue  # pip installs: tests/test_distribution.py runs them
        argv = shlex.split(command.replace("${{ github.base_ref }}", "main"))
        if argv[0] == "git":
            git(project, *argv[1:])
            continue
        result = cli(*argv[1:])
        assert result.exit_code in (0, 1), (command, result.exit_code, result.stderr)
        if command == "promptlint --version":
            assert result.stdout.strip() == f"promptlint, version {__version__}"
        if "--write-baseline" in command:
            assert result.exit_code == 0 and (project / ".promptlint-baseline.json").is_file()
        if "--baseline " in command:
            assert result.exit_code == 0, result.stdout  # every finding is in the baseline
        if "--diff-base" in command:
            assert result.exit_code == 0 and result.stdout == ""  # nothing changed since origin/main
        if "--output-format github" in command and "--diff-base" not in command:
            assert result.exit_code == 1 and result.stdout.startswith("::warning file=app/chat.py")
        ran += 1
    assert ran >= 7
    jsonschema.Draft4Validator(SCHEMA).validate(json.loads((project / "promptlint.sarif").read_text()))
    assert json.loads((project / "gl-code-quality-report.json").read_text())


def test_docs_workflows_use_the_action_and_template_as_they_are():
    workflow = yaml.safe_load(next(b for b in blocks("yaml") if "OWNER/REPO@" in b))
    steps = workflow["jobs"]["promptlint"]["steps"]
    action = next(s for s in steps if s.get("uses", "").startswith("OWNER/REPO@"))
    assert action["uses"] == "OWNER/REPO@COMMIT"  # no release is tagged yet: a commit
    assert set(action["with"]) <= set(ACTION["inputs"])
    assert workflow["jobs"]["promptlint"]["permissions"]["security-events"] == "write"
    include = yaml.safe_load(next(b for b in blocks("yaml") if "include:" in b))
    assert include["include"][0]["file"] == "/ci/gitlab.yml" and (ROOT / "ci" / "gitlab.yml").is_file()
    assert include["include"][0]["ref"] == "COMMIT"
    assert set(include["promptlint"]["variables"]) <= set(GITLAB["promptlint"]["variables"])
    precommit = yaml.safe_load(next(b for b in blocks("yaml") if "repo: REPO_URL" in b))
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert precommit["repos"][0]["rev"] == "COMMIT"  # `pre-commit autoupdate` writes the newest commit
    assert {h["id"] for h in precommit["repos"][0]["hooks"]} <= set(hooks)
    # the local hook runs the installed promptlint on the same files as the published hook
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for text in (DOCS, readme):
        local = yaml.safe_load(next(b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if "repo: local" in b))
        [hook] = local["repos"][0]["hooks"]
        published = hooks[hook["id"]]
        assert hook["entry"] == published["entry"] and hook["types"] == published["types"] == ["text"]
        assert "types_or" not in hook and "files" not in hook
        assert hook["require_serial"] is True and hook["language"] == "system"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_docs_and_readme_pin_no_release_tag_that_does_not_exist():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pins = set(re.findall(r"@v(\d+\.\d+\.\d+)|rev: v(\d+\.\d+\.\d+)|ref: v(\d+\.\d+\.\d+)", DOCS + readme))
    tags = set(git(ROOT, "tag", "--list").stdout.split())
    assert {f"v{v}" for pin in pins for v in pin if v} <= tags  # none until a release is tagged
    assert f"promptlint, version {__version__}" in DOCS
