"""The distribution as documented (issue 14): `promptlint-cache`, installed from a git URL at a
commit (no release is tagged yet), gives the `promptlint` module and command at this version.

The install test clones this checkout and runs the README's pip command with that clone as
REPO_URL and its HEAD as COMMIT; no documented git ref names a tag that does not exist.
pip builds the wheel in an isolated environment, fetching setuptools from the package registry
(network: the registry only); `--no-deps --target` keeps it quick and away from this environment.
The clone and pip start when collection ends (tests/early.py): pip builds while other tests run.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ci_support import ROOT, git
from early import environment, spawn, started
from promptlint import __version__

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_distribution_name_and_version_are_single_sourced():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["name"] == "promptlint-cache"  # `promptlint` on the index is another project
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "promptlint.__version__"}
    assert project["project"]["scripts"] == {"promptlint": "promptlint.cli:main"}
    assert "pip install promptlint\n" not in README and "pip install promptlint " not in README
    assert "not on PyPI yet" in README


def test_every_documented_pip_install_names_this_distribution():
    """`pip install promptlint` would install another project from the index: every install line
    of the README and docs/ installs `promptlint-cache`, a checkout (`.`) or test extras."""
    lines = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "pip install" in line:
                lines.append((path.name, number, line))
    assert len(lines) >= 5
    for name, number, line in lines:
        target = line.split("pip install", 1)[1].split("#")[0].split("&&")[0].split()
        target = [word for word in target if not word.startswith("-")]
        assert target, (name, number, line)
        assert target[0].strip("'\"`") in {".", ".[dev]", "promptlint-cache"}, (
            name, number, line)


GIT_INSTALL = re.compile(r'python -m pip install "promptlint-cache @ git\+REPO_URL@COMMIT"')


def _install_from_a_clone(folder: Path) -> subprocess.Popen:
    """The README's git install (GIT_INSTALL) of a clone of this checkout at its HEAD, into
    `folder`/site: pip, started early (tests/early.py) for the test below."""
    command = GIT_INSTALL.search(README)
    assert command
    clone = folder / "clone"
    git(folder, "clone", "-q", str(ROOT), str(clone))
    head = git(clone, "rev-parse", "HEAD").stdout.strip()
    requirement = command.group(0).split('"')[1].replace("REPO_URL", f"file://localhost{clone.as_posix()}")  # pip 23 wants a host
    requirement = requirement.replace("COMMIT", head)
    env = {**environment(), "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_COMPILE": "1"}  # no .pyc: read from the prefix
    return spawn(folder, [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target",
                          str(folder / "site"), requirement], env=env)


@pytest.mark.network
@pytest.mark.early.with_args(_install_from_a_clone)
@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_documented_git_install_gives_the_pinned_version(tmp_path):
    if git(ROOT, "rev-parse", "--verify", "--quiet", "HEAD", check=False).returncode != 0:
        pytest.skip("this checkout has no commit yet")
    assert GIT_INSTALL.search(README)
    install = started(_install_from_a_clone)
    proc = install.wait(timeout=600)
    assert proc.returncode == 0, proc.stderr
    target = install.folder / "site"
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    assert (target / f"promptlint_cache-{__version__}.dist-info").is_dir()
    assert (target / "promptlint" / "profiles" / "providers.toml").is_file()
    version = subprocess.run([sys.executable, "-m", "promptlint", "--version"], capture_output=True, text=True,
                             timeout=120, cwd=tmp_path, env={**env, "PYTHONPATH": str(target)})
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"promptlint, version {__version__}"
    metadata = (target / f"promptlint_cache-{__version__}.dist-info" / "METADATA").read_text(encoding="utf-8")
    assert "Name: promptlint-cache" in metadata and f"Version: {__version__}" in metadata


def test_python_dash_m_does_not_import_the_current_folders_modules(tmp_path):
    """`python -m promptlint` in a project holding click.py or libcst.py uses the real ones."""
    for name in ("click", "libcst", "rich"):
        (tmp_path / f"{name}.py").write_text(f'raise SystemExit("imported the project\'s {name}.py")\n')
    (tmp_path / "chat.py").write_text("x = 1\n")
    proc = subprocess.run([sys.executable, "-m", "promptlint", "check", "chat.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "imported the project" not in proc.stdout + proc.stderr
    assert "No findings in 1 file" in proc.stdout


#: A git ref in a copy-paste snippet: `@v0.2.0` in a pip URL or `uses:`, `rev: v0.2.0`, `ref: v0.2.0`.
_TAG_REF = re.compile(r"(?:@|\b(?:rev|ref|PROMPTLINT_VERSION):\s*[\"']?)(v\d+\.\d+\.\d+)\b")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_every_documented_tag_exists():
    """A new user copies the snippets as they are: a `rev:` or `@v...` naming a release tag that
    the repository does not have fails (pre-commit, pip, GitHub and GitLab alike). Until a release
    is tagged, the docs pin a commit (`COMMIT`)."""
    if git(ROOT, "rev-parse", "--verify", "--quiet", "HEAD", check=False).returncode != 0:
        pytest.skip("this checkout has no commit yet")
    tags = set(git(ROOT, "tag", "--list").stdout.split())
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "action.yml", ROOT / "ci" / "gitlab.yml"]
    named = {(path.relative_to(ROOT).as_posix(), m.group(1)) for path in files
             for m in _TAG_REF.finditer(path.read_text(encoding="utf-8"))}
    assert {(name, tag) for name, tag in named if tag not in tags} == set()
    assert "rev: COMMIT" in README and "repo: local" in README
