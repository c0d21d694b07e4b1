"""File discovery: what is walked and what is skipped (promptlint.discovery.discover)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptlint.cli import main
from promptlint.discovery import discover

TIMESTAMP_PY = '''\
from datetime import datetime

from openai import OpenAI

client = OpenAI()


def ask(question: str, history: list):
    return client.chat.completions.create(
        model="gpt-4o",
        messages=[
            {"role": "system", "content": f"Time: {datetime.now()}. You are a careful assistant for the Acme help desk. "
                                          "Answer in English, briefly and politely, and cite the policy."},
            *history, {"role": "user", "content": question},
        ],
    )
'''


def write(root: Path, rel: str, text: str = "x = 1\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A repository (its own .git stops the search for .gitignore files above it)."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    write(root, ".git/hooks/post_commit.py")
    write(root, "app/main.py")
    write(root, "app/prompts/system.j2", "You are {{ name }}.\n")
    write(root, "app/__pycache__/main.cpython-311.py")
    write(root, "node_modules/pkg/index.py")
    write(root, "web/node_modules/lib/x.py")
    write(root, "build/lib/app/main.py")
    write(root, "dist/app/main.py")
    write(root, "myenv/pyvenv.cfg", "home = /usr/bin\n")
    write(root, "myenv/lib/python3.11/site-packages/openai/x.py")
    write(root, ".venv/lib/y.py")
    write(root, "generated/gen.py")
    write(root, "app/secret_keys.py")
    write(root, "app/sub/local.py")
    write(root, "app/sub/kept.py")
    write(root, "local.py")
    write(root, "notes.txt", "not checked\n")
    write(root, ".gitignore", "generated/\n*_keys.py\n")
    write(root, "app/sub/.gitignore", "local.py\n")
    return root


def rel(root: Path, files: list[Path]) -> list[str]:
    return sorted(f.resolve().relative_to(root.resolve()).as_posix() for f in files)


def test_walk_skips_vcs_venvs_caches_build_output_and_gitignored(tree):
    assert rel(tree, discover([tree])) == [
        "app/main.py",
        "app/prompts/system.j2",
        "app/sub/kept.py",
        "local.py",  # the nested app/sub/.gitignore applies only below app/sub
    ]


def test_nested_gitignore_applies_when_walking_from_a_subfolder(tree):
    assert rel(tree, discover([tree / "app" / "sub"])) == ["app/sub/kept.py"]


def test_gitignore_of_an_ancestor_applies_when_walking_from_a_subfolder(tree):
    write(tree, "generated/also.py")
    write(tree, "app/other_keys.py")
    assert rel(tree, discover([tree / "app"])) == ["app/main.py", "app/prompts/system.j2", "app/sub/kept.py"]


def test_gitignore_negation(tree):
    write(tree, ".gitignore", "generated/\n*_keys.py\n!public_keys.py\n")
    write(tree, "app/public_keys.py")
    assert "app/public_keys.py" in rel(tree, discover([tree]))
    assert "app/secret_keys.py" not in rel(tree, discover([tree]))


@pytest.mark.parametrize("path", [
    "generated/gen.py",
    "app/secret_keys.py",
    "app/sub/local.py",
    "node_modules/pkg/index.py",
    "build/lib/app/main.py",
    "myenv/lib/python3.11/site-packages/openai/x.py",
])
def test_explicit_files_are_always_checked(tree, path):
    assert rel(tree, discover([tree / path])) == [path]


def test_each_file_once_sorted(tree):
    files = discover([tree / "app", tree / "app" / "main.py", tree])
    names = rel(tree, files)
    assert len(names) == len(set(names)) == 4


def test_missing_path_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="does-not-exist"):
        discover([tmp_path / "does-not-exist"])
    with pytest.raises(FileNotFoundError):
        discover([tmp_path, tmp_path / "does-not-exist"])


def test_check_honours_discovery_end_to_end(tree, monkeypatch):
    """A faulty file in a skipped place is not reported by a folder walk, and is when named."""
    for place in ("generated/clock.py", "node_modules/pkg/clock.py", "myenv/clock.py", "app/sub/local.py"):
        write(tree, place, TIMESTAMP_PY)
    write(tree, "app/clock.py", TIMESTAMP_PY)
    monkeypatch.chdir(tree)
    result = CliRunner().invoke(main, ["check", ".", "--output-format", "json"])
    assert result.exit_code == 1, result.stderr
    report = json.loads(result.stdout)
    assert {d["filename"] for d in report["diagnostics"] if d["code"] == "PRM102"} == {"app/clock.py"}
    result = CliRunner().invoke(main, ["check", "generated/clock.py", "--output-format", "json"])
    assert result.exit_code == 1, result.stderr
    report = json.loads(result.stdout)
    assert {d["filename"] for d in report["diagnostics"] if d["code"] == "PRM102"} == {"generated/clock.py"}
