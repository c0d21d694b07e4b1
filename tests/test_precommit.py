"""The real `pre-commit` runs this repository's hook in a temporary git repository.

pre-commit clones this repository at HEAD, builds a virtualenv and pip-installs promptlint with
its dependencies from the package registry (the only network use in the test suite; CI reaches
it), once for the module (one PRE_COMMIT_HOME): `pre-commit install-hooks` starts when collection
ends (tests/early.py) and builds it while other tests run. The tests are skipped, with the reason, when this
checkout has no commit yet or pre-commit is not installed. The configuration is the one
docs/ci.md documents, with this checkout as the repository and HEAD as the rev (`COMMIT` there:
no release is tagged yet, and `pre-commit autoupdate` writes the newest commit, as tested here). The
README's `repo: local` hook runs the promptlint of the environment, with nothing to fetch.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from early import bytecode_folder, spawn, started

ROOT = Path(__file__).resolve().parents[1]

BROKEN = '''\
import datetime

from openai import OpenAI

client = OpenAI()

RULES = """You are the support assistant of Acme Tools. Answer questions about orders,
shipping, returns and warranty. Be brief, be polite, and never invent order numbers.
"""


def answer(question: str, history: list) -> str:
    response = client.chat.completions.create(
        model="gpt-4o",
        messages=[
            {"role": "system", "content": f"Time: {datetime.datetime.now()}\\n{RULES}"},
            *history, {"role": "user", "content": question},
        ],
    )
    return response.choices[0].message.content
'''


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env)


def _head() -> str:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    result = _git(ROOT, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    if result.returncode != 0:
        pytest.skip(f"{ROOT} has no commit yet: pre-commit installs hooks from a commit")
    if _git(ROOT, "cat-file", "-e", "HEAD:.pre-commit-hooks.yaml").returncode != 0:
        pytest.skip("HEAD has no .pre-commit-hooks.yaml yet: commit it to test the hook")
    return result.stdout.strip()


def _pre_commit() -> list[str]:
    if importlib.util.find_spec("pre_commit") is not None:
        return [sys.executable, "-m", "pre_commit"]
    exe = shutil.which("pre-commit")
    if exe is None:
        pytest.skip("pre-commit is not installed (pip install pre-commit)")
    return [exe]


def _hook_environment(folder: Path) -> subprocess.Popen:
    """`pre-commit install-hooks` of the documented configuration (this checkout at HEAD) with
    `folder`/home as PRE_COMMIT_HOME: the hook's environment, built early (tests/early.py)."""
    command, head = _pre_commit(), _head()
    project = _project(folder, head)
    env = {**_env(folder / "home"), "PYTHONPYCACHEPREFIX": bytecode_folder()}  # as the tests run it
    env["PIP_NO_COMPILE"] = "1"  # its Python reads bytecode from the prefix: compiled on import, once
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return spawn(folder, [*command, "install-hooks"], cwd=project, env=env)


pytestmark = [pytest.mark.network, pytest.mark.early.with_args(_hook_environment)]


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """One pre-commit cache for the module: the hook's environment is built once, early. Whether
    it was built is not asserted here: a hook whose environment is missing builds it at the first
    commit of a test, whose assertions say what failed (where it could not start, for want of a
    commit or of pre-commit, the tests skip as they say)."""
    try:
        built = started(_hook_environment)
    except (Exception, pytest.skip.Exception):
        return tmp_path_factory.mktemp("pre-commit-home")
    built.wait(timeout=900)
    return built.folder / "home"


def _documented_block(path: Path, marker: str) -> str:
    """The .pre-commit-config.yaml block of `path` (README.md, docs/ci.md) holding `marker`."""
    text = path.read_text(encoding="utf-8")
    return next(b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if "repos:" in b and marker in b)


def _documented_config(rev: str) -> str:
    """The .pre-commit-config.yaml of docs/ci.md with this checkout as REPO_URL and `rev`."""
    block = _documented_block(ROOT / "docs" / "ci.md", "repo: REPO_URL")
    assert re.search(r"^\s*rev: COMMIT\b", block, re.M)
    return block.replace("REPO_URL", ROOT.as_posix()).replace("rev: COMMIT", f"rev: {rev}")


def _project(tmp_path: Path, rev: str) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    assert _git(project, "init", "-q").returncode == 0
    (project / ".pre-commit-config.yaml").write_text(_documented_config(rev), encoding="utf-8")
    return project


def _env(home: Path) -> dict:
    # (PIP_DISABLE_PIP_VERSION_CHECK: the hook's install asks the index for its packages only)
    return {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never", "NO_COLOR": "1",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}


def _installed(tmp_path: Path, home: Path) -> tuple[list[str], Path, dict]:
    """A fresh git repository whose pre-commit config uses this checkout's HEAD as the hook
    source, with the hook installed: (the pre-commit command, the repository, its environment)."""
    command = _pre_commit()
    project = _project(tmp_path, _head())
    env = _env(home)
    installed = subprocess.run([*command, "install"], cwd=project, env=env, capture_output=True, text=True,
                               timeout=300)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return command, project, env


def test_commit_is_blocked_only_by_the_python_finding_and_docs_alone_pass(tmp_path, home):
    """Issue 14: Markdown and text files that are not prompts never block a commit."""
    command, project, env = _installed(tmp_path, home)
    (project / "README.md").write_text("# My app\n\nSome docs.\n", encoding="utf-8")
    (project / "notes.txt").write_text("Remember to update the changelog.\n", encoding="utf-8")
    (project / "chat.py").write_text(BROKEN, encoding="utf-8")

    def commit() -> subprocess.CompletedProcess:
        return subprocess.run(["git", "commit", "-m", "change"], cwd=project, env=env, capture_output=True,
                              text=True, timeout=900)

    subprocess.run(["git", "add", "README.md", "notes.txt", "chat.py", ".pre-commit-config.yaml"],
                   cwd=project, env=env, check=True)
    blocked = commit()
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, output
    assert "promptlint" in output and "Failed" in output
    findings = [line for line in output.splitlines() if re.match(r"^\S+:\d+:\d+: PRM\d{3} ", line)]
    assert findings and all(line.startswith("chat.py:16:") for line in findings), output
    assert "README.md" not in output and "notes.txt" not in output and "PRM001" not in output
    assert _git(project, "rev-parse", "--verify", "--quiet", "HEAD").returncode != 0  # nothing committed

    subprocess.run(["git", "reset", "-q", "chat.py"], cwd=project, env=env, check=True)
    passed = commit()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"promptlint\.+Passed", passed.stdout + passed.stderr), passed.stdout + passed.stderr
    committed = _git(project, "show", "--name-only", "--format=", "HEAD").stdout.split()
    assert sorted(committed) == [".pre-commit-config.yaml", "README.md", "notes.txt"]


RULES = "\n".join(f"Rule {i}: answer questions about order number {i} politely, briefly and in English."
                  for i in range(120))
SUPPORT_PROMPT = "Current time: {{ now }}.\n" + RULES + "\n"  # PRM102 at prompts/support.prompt:1
CRITIC_POML = "<poml>\n<p>Request {{ request_id }} started.</p>\n<p>" + RULES + "</p>\n</poml>\n"  # PRM103, row 2
LOADER = 'from pathlib import Path\n\nCRITIC = (Path(__file__).parent / "prompts" / "critic.poml").read_text()\n'


def test_a_commit_of_prompt_files_alone_runs_the_hook(tmp_path, home):
    """A `.prompt` file (no identify tag) and a `.poml` file the code loads (tagged only `text`)
    reach the hook: a commit changing only them is blocked by their findings, as `promptlint
    check` on them reports them; fixed, the commit passes."""
    command, project, env = _installed(tmp_path, home)
    (project / "prompts").mkdir()
    (project / "app.py").write_text(LOADER, encoding="utf-8")
    (project / "prompts" / "critic.poml").write_text(CRITIC_POML.replace("Request {{ request_id }} started.", "Review."),
                                                    encoding="utf-8")

    def commit(*files: str) -> subprocess.CompletedProcess:
        subprocess.run(["git", "add", *files], cwd=project, env=env, check=True)
        return subprocess.run(["git", "commit", "-m", "change"], cwd=project, env=env, capture_output=True,
                              text=True, timeout=900)

    first = commit(".pre-commit-config.yaml", "app.py", "prompts")
    assert first.returncode == 0, first.stdout + first.stderr

    (project / "prompts" / "support.prompt").write_text(SUPPORT_PROMPT, encoding="utf-8")
    blocked = commit("prompts/support.prompt")
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0 and re.search(r"promptlint\.+Failed", output), output
    findings = [line for line in output.splitlines() if re.match(r"^\S+:\d+:\d+: PRM\d{3} ", line)]
    assert [f.split(" ")[:2] for f in findings] == [["prompts/support.prompt:1:15:", "PRM102"]], output

    (project / "prompts" / "support.prompt").write_text(SUPPORT_PROMPT.replace("{{ now }}", "today"), encoding="utf-8")
    (project / "prompts" / "critic.poml").write_text(CRITIC_POML, encoding="utf-8")
    blocked = commit("prompts/support.prompt", "prompts/critic.poml")
    output = blocked.stdout + blocked.stderr
    findings = [line for line in output.splitlines() if re.match(r"^\S+:\d+:\d+: PRM\d{3} ", line)]
    assert blocked.returncode != 0 and [f.split(" ")[:2] for f in findings] == [
        ["prompts/critic.poml:2:12:", "PRM103"]], output

    (project / "prompts" / "critic.poml").write_text(CRITIC_POML.replace("Request {{ request_id }} started.", "Review."),
                                                    encoding="utf-8")
    passed = commit("prompts/critic.poml")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"promptlint\.+Passed", passed.stdout + passed.stderr)


TOOLS_SORTED = '''\
NAMES = {"search", "weather", "calendar"}


def tools() -> list[dict]:
    out = []
    for name in sorted(NAMES):
        out.append({"type": "function", "function": {"name": name, "parameters": {"type": "object"}}})
    return out
'''
TOOLS_SET_ORDER = TOOLS_SORTED.replace("sorted(NAMES)", "NAMES")  # PRM203 at pkg/tools.py:6
CHAT_WITHOUT_TOOLS = '''\
from openai import OpenAI

from pkg.tools import tools

client = OpenAI()

SYSTEM = "You are the support assistant of Acme Tools. Answer questions about orders and returns."


def answer(question: str) -> str:
    response = client.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}],
    )
    return response.choices[0].message.content
'''
CHAT_WITH_TOOLS = CHAT_WITHOUT_TOOLS.replace('        model="gpt-4o",\n', '        model="gpt-4o",\n        tools=tools(),\n')


def test_the_hook_reports_a_finding_caused_in_another_file(tmp_path, home, monkeypatch):
    """Issue 13: pre-commit passes only the changed files, yet a change that breaks a prompt in
    another file is reported: the hook checks the project (with the cache) and reports the
    findings that concern the changed files (located in one, or in a prompt built in one)."""
    monkeypatch.delenv("PROMPTLINT_CACHE_DIR")  # the hook keeps its cache in the project, as users run it
    command, project, env = _installed(tmp_path, home)
    (project / "pkg").mkdir()
    (project / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (project / "pkg" / "tools.py").write_text(TOOLS_SET_ORDER, encoding="utf-8")
    (project / "pkg" / "chat.py").write_text(CHAT_WITHOUT_TOOLS, encoding="utf-8")

    def commit(*files: str) -> subprocess.CompletedProcess:
        subprocess.run(["git", "add", *files], cwd=project, env=env, check=True)
        return subprocess.run(["git", "commit", "-m", "change"], cwd=project, env=env, capture_output=True,
                              text=True, timeout=900)

    first = commit(".pre-commit-config.yaml", "pkg")  # the tools list is sent nowhere yet: clean
    assert first.returncode == 0, first.stdout + first.stderr

    # chat.py starts sending the tools: the finding is in tools.py, which the hook is not given
    (project / "pkg" / "chat.py").write_text(CHAT_WITH_TOOLS, encoding="utf-8")
    blocked = commit("pkg/chat.py")
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, output
    findings = [line for line in output.splitlines() if re.match(r"^\S+:\d+:\d+: PRM\d{3} ", line)]
    assert [f.split(" ")[1] for f in findings] == ["PRM203"] and findings[0].startswith("pkg/tools.py:6:"), output

    # the fix is in tools.py, the file given this time
    (project / "pkg" / "tools.py").write_text(TOOLS_SORTED, encoding="utf-8")
    passed = commit("pkg/chat.py", "pkg/tools.py")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"promptlint\.+Passed", passed.stdout + passed.stderr)
    assert (project / ".promptlint_cache" / "CACHEDIR.TAG").is_file()  # and git never sees it
    assert _git(project, "status", "--porcelain").stdout.strip() == ""


def test_autoupdate_pins_the_documented_placeholder_to_the_newest_commit(tmp_path, home):
    """The docs' `rev: COMMIT`, copied as it is: `pre-commit autoupdate` replaces it with the
    newest commit of the repository (no release tag exists to pick)."""
    command, head = _pre_commit(), _head()
    project = _project(tmp_path, "COMMIT")
    proc = subprocess.run([*command, "autoupdate"], cwd=project, env=_env(home), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    config = (project / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    tags = _git(ROOT, "tag", "--points-at", "HEAD").stdout.split()
    assert re.search(rf"^\s*rev: {'(' + '|'.join(map(re.escape, tags)) + ')' if tags else head}\b", config, re.M), config


def test_the_readme_local_hook_runs_the_installed_promptlint(tmp_path, home):
    """README's `repo: local` hook, copied as it is: `promptlint` from PATH (here a wrapper that
    runs this checkout), no repository to fetch and no rev."""
    command = _pre_commit()
    block = _documented_block(ROOT / "README.md", "repo: local")
    assert "rev:" not in block
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "promptlint"
    wrapper.write_text(f"#!/bin/sh\nPYTHONPATH={ROOT.as_posix()} exec {sys.executable} -m promptlint \"$@\"\n",
                       encoding="utf-8")
    wrapper.chmod(0o755)
    project = tmp_path / "project"
    project.mkdir()
    assert _git(project, "init", "-q").returncode == 0
    (project / ".pre-commit-config.yaml").write_text(block, encoding="utf-8")
    (project / "README.md").write_text("# My app\n", encoding="utf-8")
    (project / "chat.py").write_text(BROKEN, encoding="utf-8")
    env = {**_env(home), "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    assert subprocess.run([*command, "install"], cwd=project, env=env, capture_output=True, timeout=300).returncode == 0
    subprocess.run(["git", "add", "."], cwd=project, env=env, check=True)
    blocked = subprocess.run(["git", "commit", "-m", "change"], cwd=project, env=env, capture_output=True, text=True,
                             timeout=600)
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0 and re.search(r"promptlint\.+Failed", output), output
    findings = [line for line in output.splitlines() if re.match(r"^\S+:\d+:\d+: PRM\d{3} ", line)]
    assert findings and all(line.startswith("chat.py:16:") for line in findings), output
    subprocess.run(["git", "reset", "-q", "chat.py"], cwd=project, env=env, check=True)
    passed = subprocess.run(["git", "commit", "-m", "docs"], cwd=project, env=env, capture_output=True, text=True,
                            timeout=600)
    assert passed.returncode == 0 and re.search(r"promptlint\.+Passed", passed.stdout + passed.stderr)
