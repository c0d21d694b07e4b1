"""A file's analysis does not depend on which of its ancestor folders was checked: dotted module
names come from the module's own location (the folder above its top package, namespace folders
inside a package included), not from the folder named on the command line. Before, `check .` at
the root of a src-layout project whose sending module sits in a folder without `__init__.py`
lost the prompt built in another module, and so did pre-commit and `explain`."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ci_support import cli, git
from promptlint.python.import_roots import named_roots, package_chain, package_of

HELPER = '''from datetime import datetime


def with_time(system: str) -> str:
    return f"Now: {datetime.now():%H:%M:%S}\\n{system}"
'''

SENDER = '''import anthropic

from {package}.text.prompts import with_time

client = anthropic.Anthropic()
SYSTEM = "You are the help desk of Acme. Answer in two sentences at most. Never promise refunds. " * 4


def reply(history: list, question: str) -> str:
    response = client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=400,
        system=with_time(SYSTEM),
        messages=[*history, {{"role": "user", "content": question}}],
    )
    return response.content[0].text
'''


def _write(path: Path, text: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _package(top: Path, dotted: str, inits: tuple[str, ...]) -> tuple[str, str]:
    """The helper (`DOTTED.text.prompts`) and the sender (`DOTTED.chat.bot`, which imports it) under
    `top`, with an `__init__.py` in the folders `inits` (relative to `top`); returns their paths
    relative to `top`."""
    folder = Path(*dotted.split("."))
    _write(top / folder / "text" / "prompts.py", HELPER)
    _write(top / folder / "chat" / "bot.py", SENDER.format(package=dotted))
    for init in inits:
        _write(top / init / "__init__.py")
    return str(folder / "text" / "prompts.py"), str(folder / "chat" / "bot.py")


# (layout, the package tree's folder under the project, its dotted name, folders with __init__.py)
LAYOUTS = [
    # src layout, the sender and the helper in namespace folders of a regular package (open-webui)
    ("namespace-parts", "src", "helpdesk", ("helpdesk",)),
    # a regular package inside a top-level namespace package (`acme.helpdesk`: acme/ has none)
    ("namespace-top", "src", "acme.helpdesk", ("acme/helpdesk", "acme/helpdesk/chat")),
    # two namespace folders between the package and the module
    ("deep-namespace", "src", "desk", ("desk",)),
    # a flat layout: the package at the project's root
    ("flat", ".", "support", ("support", "support/text")),
]


def _diagnostics(*args: str) -> tuple[list, list]:
    result = cli("check", *args, "--no-cache", "--output-format", "json")
    assert result.exit_code in (0, 1), result.stderr
    report = json.loads(result.stdout)
    diagnostics = sorted((d["filename"], d["location"]["row"], d["code"], d["severity"], d["prompt"], d["message"])
                         for d in report["diagnostics"])
    prompts = sorted((p["id"], p["static_tokens"], p["static_prefix_tokens"]) for p in report["prompts"])
    return diagnostics, prompts


@pytest.mark.parametrize("layout,base,dotted,inits", LAYOUTS, ids=[lay[0] for lay in LAYOUTS])
def test_the_same_findings_whichever_ancestor_folder_is_checked(tmp_path, monkeypatch, layout, base, dotted, inits):
    if layout == "deep-namespace":  # desk/chat/v1/bot.py: chat/ and v1/ have no __init__.py
        dotted_tree = tmp_path / base
        _write(dotted_tree / "desk" / "text" / "prompts.py", HELPER)
        _write(dotted_tree / "desk" / "chat" / "v1" / "bot.py", SENDER.format(package="desk"))
        _write(dotted_tree / "desk" / "__init__.py")
        helper, sender = "desk/text/prompts.py", "desk/chat/v1/bot.py"
    else:
        helper, sender = _package(tmp_path / base, dotted, inits)
    prefix = "" if base == "." else f"{base}/"
    helper, sender = prefix + helper, prefix + sender
    monkeypatch.chdir(tmp_path)
    top = prefix + dotted.replace(".", "/")  # the package folder (`src/helpdesk`)
    expected = _diagnostics(".")
    diagnostics, prompts = expected
    # the timestamp is found in the helper, in the prompt the sender builds with its static text
    found = [d for d in diagnostics if d[2] == "PRM102"]
    assert [(d[0], d[1], d[4]) for d in found] == [(helper, 5, f"{sender}:10")]
    assert [p for p in prompts if p[0] == f"{sender}:10"][0][1] > 60
    for args in ([base], [base + "/"], [str(tmp_path / base)], [top], [top + "/"], [str(tmp_path / top)]):
        assert _diagnostics(*args) == expected, args


def test_a_monorepo_of_several_src_folders_checked_from_its_root_or_one_service(tmp_path, monkeypatch):
    """Each service's modules are named from its own src/ folder, whichever folder is checked."""
    desk = _package(tmp_path / "services" / "desk" / "src", "helpdesk", ("helpdesk",))
    billing = _package(tmp_path / "services" / "billing" / "src", "billing", ("billing",))
    monkeypatch.chdir(tmp_path)
    everything, _ = _diagnostics(".")
    stamps = {(d[0], d[4]) for d in everything if d[2] == "PRM102"}
    assert stamps == {(f"services/desk/src/{desk[0]}", f"services/desk/src/{desk[1]}:10"),
                      (f"services/billing/src/{billing[0]}", f"services/billing/src/{billing[1]}:10")}
    for service in ("services/desk", "services/desk/src", "services/billing/src/billing"):
        alone, _ = _diagnostics(service)
        assert alone == [d for d in everything if d[0].startswith(service.split("/src")[0] + "/")], service


def test_named_files_in_a_git_repository_as_pre_commit_passes_them(tmp_path, monkeypatch):
    helper, sender = _package(tmp_path / "src", "helpdesk", ("helpdesk",))
    git(tmp_path, "init", "-q")
    monkeypatch.chdir(tmp_path)
    whole, _ = _diagnostics(".")
    for named in (f"src/{helper}", f"src/{sender}"):
        concerned, _ = _diagnostics(named)
        # those located in the named file and those of a prompt built in it
        assert concerned == [d for d in whole if named in (d[0], (d[4] or "").rsplit(":", 1)[0])], named
        assert any(d[2] == "PRM102" and d[0] == f"src/{helper}" for d in concerned)


@pytest.mark.parametrize("marker", [None, ".git"])
def test_explain_of_the_line_of_a_finding_in_a_helper_draws_the_prompt_that_sends_it(tmp_path, monkeypatch, marker):
    helper, sender = _package(tmp_path / "src", "helpdesk", ("helpdesk",))
    if marker:
        git(tmp_path, "init", "-q")
    monkeypatch.chdir(tmp_path)
    result = cli("explain", f"src/{helper}:5", "--no-cache")
    assert result.exit_code == 0, result.stderr
    assert f"src/{sender}:10" in result.stdout and "timestamp" in result.stdout


def test_a_warm_run_gives_the_cold_runs_findings(tmp_path, monkeypatch):
    """The persistent cache keeps each file's result with the `__init__.py` files its dotted name
    depends on: a warm run, from the root or from src/, gives the cold run's findings."""
    _package(tmp_path / "src", "helpdesk", ("helpdesk",))
    monkeypatch.chdir(tmp_path)
    cache = str(tmp_path / "cache")

    def run(*args: str) -> list:
        result = cli("check", *args, "--cache-dir", cache, "--output-format", "json")
        assert result.exit_code in (0, 1), result.stderr
        return sorted((d["filename"], d["location"]["row"], d["code"], d["prompt"]) for d in json.loads(result.stdout)["diagnostics"])

    cold = _diagnostics(".")[0]
    cold = sorted((d[0], d[1], d[2], d[4]) for d in cold)
    assert run(".") == cold and run(".") == cold
    assert run("src") == cold and run("src") == cold


def test_package_chain_names_namespace_folders_inside_a_package(tmp_path):
    for folder in ("src/app", "src/app/core"):
        _write(tmp_path / folder / "__init__.py")
    for module in ("src/app/utils/llm.py", "src/app/core/a/b/deep.py", "src/app/core/a/b/c/d/far.py", "scripts/run.py"):
        _write(tmp_path / module)
    assert package_of(tmp_path / "src/app/utils/llm.py") == ("app.utils.llm", tmp_path / "src")
    assert package_of(tmp_path / "src/app/core/a/b/deep.py") == ("app.core.a.b.deep", tmp_path / "src")
    # past NAMESPACE_DEPTH folders without __init__.py, the chain ends where the module is
    assert package_of(tmp_path / "src/app/core/a/b/c/d/far.py") == ("far", tmp_path / "src/app/core/a/b/c/d")
    assert package_of(tmp_path / "scripts/run.py") == ("run", tmp_path / "scripts")
    # every __init__.py probed is returned, present or absent (the cache's dependencies)
    _, _, probes = package_chain(tmp_path / "src/app/utils/llm.py")
    assert probes[:3] == [(tmp_path / "src/app/utils/__init__.py", False), (tmp_path / "src/app/__init__.py", True),
                          (tmp_path / "src/__init__.py", False)]
    assert len(probes) == len({p for p, _ in probes})


def test_named_roots_find_a_top_package_from_its_own_modules():
    root = Path("/repo/src/acme")
    assert named_roots([root], "acme") == [Path("/repo/src")]
    assert named_roots([Path("/repo/app")], "app") == [Path("/repo")]
    assert named_roots([root], "json") == []


def test_a_checked_folder_that_is_a_namespace_part_is_searched_from_above_its_package(tmp_path):
    from promptlint.python.tree import import_root
    _write(tmp_path / "src/app/__init__.py")
    _write(tmp_path / "src/app/utils/llm.py")
    assert import_root(tmp_path / "src/app/utils") == tmp_path / "src"
    assert import_root(tmp_path / "src") == tmp_path / "src"


def test_a_message_class_of_the_tree_with_a_default_content_given_blocks(tmp_path, monkeypatch):
    """Resolving a package's own imports reads its message class: `ChatMessage(role=..., blocks=...)`
    of a class whose `__init__(self, content=None, **data)` holds `content` bound to its default
    None; the message's content is the `blocks` given, not that None (before, the prompt was lost
    whenever the class could be read, and found only when its import failed)."""
    _write(tmp_path / "src/kit/__init__.py")
    _write(tmp_path / "src/kit/types.py", '''from typing import Any


class ChatMessage:
    role: str = "user"

    def __init__(self, content: Any = None, **data: Any) -> None:
        self.role = data.get("role", "user")
        self.blocks = [content] if content is not None else data.get("blocks", [])
''')
    _write(tmp_path / "src/kit/prompts.py", '''from datetime import datetime

from kit.types import ChatMessage

SYSTEM = "You are the archivist of Acme. Answer from the catalogue only, in two sentences at most. " * 3


def build_prompt_messages(history: list) -> list:
    stamp = datetime.now().isoformat()
    return [ChatMessage(role="system", blocks=f"Time: {stamp}\\n{SYSTEM}"), *history]
''')
    monkeypatch.chdir(tmp_path)
    for args in (["."], ["src"], ["src/kit"]):
        diagnostics, _ = _diagnostics(*args)
        assert [(d[0], d[1], d[2], d[3]) for d in diagnostics] == [("src/kit/prompts.py", 10, "PRM102", "warning")], args
