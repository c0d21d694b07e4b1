"""The persistent analysis cache (issue 13): a warm run gives the cold run's report without
analysing anything; a change to a file re-analyses the files that read it (imports, templates,
files that were looked for and missing, text searches over a package); entries are JSON, a
corrupt one is ignored and rewritten; the folder is tagged; options and environment choose it.

Runs go through `promptlint.api.check` with a cache folder; "nothing analysed" is checked by
making the analysis raise.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from promptlint import engine
from promptlint.api import check
from promptlint.cache import Cache, fingerprint
from promptlint.cache.codec import CodecError, decode, encode
from promptlint.model import Diagnostic, PromptLayout
from promptlint.report import json as json_report

from ci_support import CHAT_PY, cli

CALL = '''\
from openai import OpenAI

from prompts import system_prompt

client = OpenAI()


def answer(question: str, history: list) -> str:
    response = client.chat.completions.create(
        model="gpt-4o",
        messages=[
            {"role": "system", "content": system_prompt()},
            *history,  # the replayed turns are the prefix that a stamp in front of them breaks
            {"role": "user", "content": question},
        ],
    )
    return response.choices[0].message.content
'''
STATIC = ('def system_prompt():\n'
          '    return "You are the support assistant of Acme Tools. Answer about orders and returns."\n')
# The time is read on every call (a module-level f-string would be evaluated once per process).
STAMPED = ('from datetime import datetime\n\n\n'
           'def system_prompt():\n'
           '    return f"Now: {datetime.now()}. You are the support assistant of Acme Tools."\n')
STAMPED_ROW = 5


@pytest.fixture
def app(tmp_path, monkeypatch):
    root = tmp_path / "app"
    root.mkdir()
    (root / "chat.py").write_text(CALL, encoding="utf-8")
    (root / "prompts.py").write_text(STATIC, encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def run(cache_dir) -> dict:
    return json.loads(json_report.render(check([Path(".")], cache_dir=cache_dir)))


def codes(report: dict) -> list[tuple[str, str, int]]:
    return sorted((d["filename"], d["code"], d["location"]["row"]) for d in report["diagnostics"])


@pytest.fixture
def no_analysis(monkeypatch):
    """Make any analysis fail the test: the run must take everything from the cache."""
    def forbidden(self, path, kind, force=False):
        raise AssertionError(f"{path} was analysed again")

    def start():
        monkeypatch.setattr(engine.Linter, "analyse", forbidden)
    return start


def test_a_warm_run_analyses_nothing_and_reports_the_same(app, tmp_path, no_analysis):
    cache_dir = tmp_path / "cache"
    (app / "prompts.py").write_text(STAMPED, encoding="utf-8")
    cold = run(cache_dir)
    assert ("prompts.py", "PRM102", STAMPED_ROW) in codes(cold)
    no_analysis()
    assert run(cache_dir) == cold


def test_a_changed_import_re_analyses_the_file_that_reads_it(app, tmp_path):
    cache_dir = tmp_path / "cache"
    assert not [c for c in codes(run(cache_dir)) if c[1] == "PRM102"]
    (app / "prompts.py").write_text(STAMPED, encoding="utf-8")  # chat.py itself is unchanged
    assert ("prompts.py", "PRM102", STAMPED_ROW) in codes(run(cache_dir))
    (app / "prompts.py").write_text(STATIC, encoding="utf-8")
    assert not [c for c in codes(run(cache_dir)) if c[1] == "PRM102"]


def test_a_module_that_appears_re_analyses_the_file_that_looked_for_it(app, tmp_path):
    cache_dir = tmp_path / "cache"
    (app / "prompts.py").unlink()
    assert not [c for c in codes(run(cache_dir)) if c[1] == "PRM102"]  # system_prompt() is unknown
    (app / "prompts.py").write_text(STAMPED, encoding="utf-8")
    assert ("prompts.py", "PRM102", STAMPED_ROW) in codes(run(cache_dir))


def test_a_changed_template_re_analyses_the_code_that_renders_it(tmp_path, monkeypatch):
    root = tmp_path / "app"
    (root / "templates").mkdir(parents=True)
    (root / "chat.py").write_text('''\
from jinja2 import Environment, FileSystemLoader
from openai import OpenAI

env = Environment(loader=FileSystemLoader("templates"))
client = OpenAI()


def answer(question: str, now: str) -> str:
    system = env.get_template("system.txt.j2").render(now=now)
    return client.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "system", "content": system}, {"role": "user", "content": question}],
    )
''', encoding="utf-8")
    template = root / "templates" / "system.txt.j2"
    template.write_text("You are a helpful assistant of Acme Tools. Answer about orders.\n", encoding="utf-8")
    monkeypatch.chdir(root)
    cache_dir = tmp_path / "cache"
    first = run(cache_dir)
    template.write_text("Time: {{ now }}\nYou are a helpful assistant of Acme Tools. Answer about orders.\n",
                        encoding="utf-8")
    second = run(cache_dir)
    assert second != first
    assert second == run(None)  # the same as a run without a cache


def test_a_text_search_over_the_package_is_a_dependency(tmp_path, monkeypatch):
    """An attribute of an object the analysis cannot resolve is looked up by name in the package
    (`Project.definitions`): a new file that assigns that name changes the prompt."""
    root = tmp_path / "app"
    root.mkdir()
    (root / "__init__.py").write_text("", encoding="utf-8")
    (root / "chat.py").write_text('''\
from openai import OpenAI

client = OpenAI()


def answer(settings, question: str) -> str:
    return client.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "system", "content": settings.persona_prompt}, {"role": "user", "content": question}],
    )
''', encoding="utf-8")
    (root / "settings.py").write_text(
        'class Settings:\n    persona_prompt = "You are the support assistant of Acme Tools."\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    cache_dir = tmp_path / "cache"
    first = run(cache_dir)
    (root / "other.py").write_text(
        'import uuid\n\n\nclass Other:\n    persona_prompt = f"Session {uuid.uuid4()}: you are the support assistant."\n',
        encoding="utf-8")
    second = run(cache_dir)
    assert second == run(None)
    assert second != first


def test_a_corrupt_entry_is_ignored_and_rewritten(app, tmp_path):
    cache_dir = tmp_path / "cache"
    (app / "prompts.py").write_text(STAMPED, encoding="utf-8")
    cold = run(cache_dir)
    entries = [p for p in cache_dir.rglob("*.json")]
    assert entries
    for entry in entries:
        entry.write_bytes(b'{"schema": 1, "truncated')
    assert run(cache_dir) == cold
    for entry in entries:
        json.loads(entry.read_bytes())  # rewritten whole


def test_an_entry_of_the_wrong_shape_is_a_codec_error_not_code():
    with pytest.raises(CodecError):
        decode(PromptLayout, {"id": "x", "site": ["a.py", 1, 1, 1, 1], "source": "template", "parts": "__import__('os')"})
    with pytest.raises(CodecError):
        decode(Diagnostic, {"code": "PRM101", "__class__": "os.system"})


def test_the_model_round_trips_through_json():
    layouts = check([Path(__file__).resolve().parents[1] / "fixtures" / "demo"]).prompts
    assert layouts
    for layout in layouts:
        assert decode(PromptLayout, json.loads(json.dumps(encode(layout)))) == layout


def test_the_cache_folder_is_tagged_and_ignored_by_git(app, tmp_path):
    cache_dir = tmp_path / "cache"
    run(cache_dir)
    assert (cache_dir / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert (cache_dir / ".gitignore").read_text().splitlines()[-1] == "*"


def test_cli_cache_location_options(app, tmp_path, monkeypatch):
    monkeypatch.delenv("PROMPTLINT_CACHE_DIR")  # the default location is under test
    assert cli("check", ".", "--output-format", "json").exit_code == 0
    assert (app / ".promptlint_cache" / "CACHEDIR.TAG").is_file()  # the project root (no config: here)
    chosen = tmp_path / "chosen"
    assert cli("check", ".", "--cache-dir", str(chosen)).exit_code == 0
    assert (chosen / "CACHEDIR.TAG").is_file()
    from_env = tmp_path / "from-env"
    assert cli("check", ".", env={"PROMPTLINT_CACHE_DIR": str(from_env)}).exit_code == 0
    assert (from_env / "CACHEDIR.TAG").is_file()
    never = tmp_path / "never"
    assert cli("check", ".", "--no-cache", env={"PROMPTLINT_CACHE_DIR": str(never)}).exit_code == 0
    assert not never.exists()


def test_the_cache_lives_beside_the_configuration(tmp_path, monkeypatch):
    monkeypatch.delenv("PROMPTLINT_CACHE_DIR")  # the default location is under test
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.promptlint]\n", encoding="utf-8")
    (root / "src" / "chat.py").write_text(CHAT_PY, encoding="utf-8")
    monkeypatch.chdir(root / "src")
    assert cli("check", ".").exit_code == 1
    assert (root / ".promptlint_cache").is_dir() and not (root / "src" / ".promptlint_cache").exists()


def test_the_cache_folder_is_made_only_when_there_is_something_to_store(tmp_path, monkeypatch):
    """An empty folder, or one with no file promptlint reads (a README, an image), leaves no
    `.promptlint_cache`; the first file analysed makes it, tagged and ignored by git."""
    monkeypatch.delenv("PROMPTLINT_CACHE_DIR")  # the default location is under test
    monkeypatch.chdir(tmp_path)
    assert cli("check").exit_code == 0
    assert cli("check", ".", "--output-format", "json").exit_code == 0
    (tmp_path / "README.md").write_text("# Notes\n", encoding="utf-8")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n")
    assert cli("check", ".").exit_code == 0
    assert cli("fix", "--diff", ".").exit_code == 0 and cli("fix", ".").exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "logo.png"]
    (tmp_path / "app.py").write_text("x = 1\n", encoding="utf-8")
    assert cli("check", ".").exit_code == 0
    assert (tmp_path / ".promptlint_cache" / "CACHEDIR.TAG").is_file()
    assert (tmp_path / ".promptlint_cache" / ".gitignore").is_file()


def test_an_unusable_cache_folder_is_a_warning_and_the_run_goes_on(app, tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    result = cli("check", ".", "--cache-dir", str(blocked / "cache"))
    assert result.exit_code == 0
    assert "warning: cannot use the cache folder" in result.stderr


def test_the_fingerprint_follows_the_settings_that_change_facts():
    base = {"targets": [], "profiles": [], "force": False, "roots": ["/x"]}
    assert fingerprint(base) == fingerprint(dict(base))
    assert fingerprint(base) != fingerprint({**base, "targets": ["openai:gpt-4o"]})
    assert fingerprint(base) != fingerprint({**base, "roots": ["/y"]})


def test_selection_changes_need_no_new_analysis(app, tmp_path, no_analysis):
    from promptlint.config import Settings
    (app / "prompts.py").write_text(STAMPED, encoding="utf-8")
    cache_dir = tmp_path / "cache"
    assert any(d.code == "PRM102" for d in check([Path(".")], cache_dir=cache_dir).diagnostics)
    no_analysis()
    ignored = check([Path(".")], Settings(ignore=["PRM102"]), cache_dir=cache_dir)
    assert not any(d.code == "PRM102" for d in ignored.diagnostics)


def test_two_runs_at_once_share_the_cache_safely(app, tmp_path):
    (app / "prompts.py").write_text(STAMPED, encoding="utf-8")
    for i in range(12):  # enough files for the two runs to overlap
        (app / f"module_{i}.py").write_text(CHAT_PY.replace("stamped", f"stamped_{i}"), encoding="utf-8")
    env = {**os.environ, "PROMPTLINT_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "promptlint", "check", ".", "--output-format", "json"]
    runs = [subprocess.Popen(command, cwd=app, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for _ in range(2)]
    outputs = [proc.communicate(timeout=300) for proc in runs]
    assert [proc.returncode for proc in runs] == [1, 1], [err for _, err in outputs]
    assert outputs[0][0] == outputs[1][0]
    again = subprocess.run(command, cwd=app, env=env, capture_output=True, timeout=300)
    assert again.stdout == outputs[0][0]
    cache = Cache(tmp_path / "cache", "x")
    assert not list((tmp_path / "cache").rglob(".tmp-*")) and cache.root.is_dir()


def test_a_file_the_analysis_gave_up_on_is_an_error_warm_as_cold(app, tmp_path, no_analysis):
    """Issue 14: a file too deeply nested to analyse is its PRM001 and a line of `errors` (exit
    2); the cached result keeps the error, so a warm run exits 2 too."""
    cache_dir = tmp_path / "cache"
    (app / "deep.py").write_text('from openai import OpenAI\nsystem_prompt = ' + "(" * 5000 + "'x'" + ")" * 5000 + "\n",
                                 encoding="utf-8")
    cold = run(cache_dir)
    assert [e.split(": ")[:2] for e in cold["errors"]] == [["deep.py", "cannot analyse"]]
    assert [(d["filename"], d["code"]) for d in cold["diagnostics"]] == [("deep.py", "PRM001")]
    no_analysis()
    assert run(cache_dir) == cold


def test_a_changed_package_is_scanned_once_for_all_its_searches(tmp_path, monkeypatch):
    from promptlint.python import packages
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "a.py").write_text("PROMPT = 'x'\n\ndef chat(messages):\n    return messages\n")
    (root / "b.py").write_text("from pkg.a import chat\n\nchat([])\n")
    package = packages.Package.scan(root)
    recorded = {name: f"{package.snapshot}:{packages.digest_paths(package.matching(name))}"
                for name in ("PROMPT", "call:chat", "call:other")}
    (root / "c.py").write_text("# a new file: the package's snapshot changes\n")
    scans = []
    real = packages.Package.scan
    monkeypatch.setattr(packages.Package, "scan", classmethod(lambda cls, r: scans.append(r) or real(r)))
    snapshots: dict = {}
    state = lambda key: str(Path(key).stat().st_mtime_ns) if Path(key).exists() else None
    valid = {name: packages.search_valid(packages.search_key(root, name), value, state, snapshots)
             for name, value in recorded.items()}
    assert valid == {"PROMPT": True, "call:chat": True, "call:other": True}  # same files match
    assert len(scans) == 1
    (root / "c.py").write_text("from pkg.a import chat\nchat([1])\n")  # now c.py calls chat too
    assert not packages.search_valid(packages.search_key(root, "call:chat"), recorded["call:chat"], state, {})


def test_a_file_that_starts_naming_a_breakpoint_key_invalidates_the_markers_search(tmp_path):
    from promptlint.python import packages
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "a.py").write_text("def send(history):\n    return history\n")
    package = packages.Package.scan(root)
    assert package.matching(packages.MARKERS) == []
    recorded = f"{package.snapshot}:{packages.digest_paths(package.matching(packages.MARKERS))}"
    state = lambda key: str(Path(key).stat().st_mtime_ns) if Path(key).exists() else None
    key = packages.search_key(root, packages.MARKERS)
    (root / "b.py").write_text("# unrelated\n")
    assert packages.search_valid(key, recorded, state, {})  # the same files (none) name a breakpoint key
    (root / "b.py").write_text('BLOCK = {"type": "text", "cache_control": {"type": "ephemeral"}}\n')
    assert not packages.search_valid(key, recorded, state, {})
    assert packages.Package.scan(root).matching(packages.MARKERS) == [root / "b.py"]


def test_the_claude_name_search_follows_the_files_that_write_one(tmp_path):
    """The files of a package that write a Claude model name as a string ("claude:"), a search
    recorded and checked again like the breakpoint key search."""
    from promptlint.python import packages
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "a.py").write_text('MODEL = "gpt-4.1-mini"\n# claude-sonnet-4-5 works too\n')
    package = packages.Package.scan(root)
    assert package.matching(packages.CLAUDE) == []  # a comment writes no model name
    recorded = f"{package.snapshot}:{packages.digest_paths(package.matching(packages.CLAUDE))}"
    state = lambda key: str(Path(key).stat().st_mtime_ns) if Path(key).exists() else None
    key = packages.search_key(root, packages.CLAUDE)
    (root / "b.py").write_text('MODELS = ["bedrock/us.anthropic.claude-3-5-haiku-20241022-v1:0"]\n')
    assert not packages.search_valid(key, recorded, state, {})
    assert packages.Package.scan(root).matching(packages.CLAUDE) == [root / "b.py"]


def test_an_edit_of_the_python_that_fills_a_prompt_file_re_analyses_it(tmp_path, monkeypatch):
    """A YAML template's placeholder takes the Python value that fills it as its origin
    (templates/fills.py): the template's cached entry depends on the project's Python ("tree:")."""
    root = tmp_path / "app"
    (root / "prompts").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'app'\n", encoding="utf-8")
    rules = "".join(f"    Rule {i}: answer with care and cite every source you use, with its identifier.\n" for i in range(60))
    (root / "prompts" / "research.yaml").write_text(
        "research_agent:\n  template: >\n    You are a research agent; the time is {date}. The documents of the user:"
        " {document_context}.\n" + rules, encoding="utf-8")
    service = '''\
from datetime import datetime


def system_prompt(store, documents):
    date_str = datetime.now().isoformat()
    return store.get_prompt("research_agent", inputs={"date": date_str, "document_context": documents})
'''
    (root / "service.py").write_text(service, encoding="utf-8")
    monkeypatch.chdir(root)
    cache_dir = tmp_path / "cache"

    def origins(report):
        return sorted((r["filename"], r["location"]["row"]) for d in report["diagnostics"]
                      if d["filename"].endswith(".yaml") for r in d.get("related", []))

    first = run(cache_dir)
    assert ("service.py", 5) in origins(first)
    (root / "service.py").write_text("# moved down\n\n" + service, encoding="utf-8")
    second = run(cache_dir)
    assert ("service.py", 7) in origins(second)
    assert second == run(None)


@pytest.fixture
def package(tmp_path, monkeypatch):
    """`src/shop`: a package whose request (chat.py) sends a stamped system prompt (prompts.py)."""
    shop = tmp_path / "src" / "shop"
    shop.mkdir(parents=True)
    (shop / "__init__.py").write_text("", encoding="utf-8")
    (shop / "chat.py").write_text(CALL.replace("from prompts import", "from shop.prompts import"), encoding="utf-8")
    (shop / "prompts.py").write_text(STAMPED, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PROMPTLINT_CACHE_DIR", raising=False)  # the cache in the current folder, as users run it
    return tmp_path


def analysed_names(monkeypatch) -> list[str]:
    """The base names of the files analysed from now on (the others come from the cache)."""
    names: list[str] = []
    analyse = engine.Linter.analyse

    def recorded(self, path, kind, force=False):
        names.append(Path(path).name)
        return analyse(self, path, kind, force)
    monkeypatch.setattr(engine.Linter, "analyse", recorded)
    return names


def test_explain_after_check_and_check_after_explain_read_the_same_cache(package, monkeypatch):
    """`explain` reads the package around the file with the module roots `check` of the package
    uses, and (in no project) its text searches stop at the package as that check's do: one cache
    fingerprint for both, so a check makes explain warm and back. `check src`, whose searches read
    all of `src`, keeps entries of its own."""
    from click.testing import CliRunner
    from promptlint.cli import main
    assert CliRunner().invoke(main, ["check", "src/shop", "-q"]).exit_code == 1  # the stamp: PRM102
    names = analysed_names(monkeypatch)
    drawn = CliRunner().invoke(main, ["explain", f"src/shop/prompts.py:{STAMPED_ROW}"])
    assert drawn.exit_code == 0 and "chat.py" in drawn.output
    assert CliRunner().invoke(main, ["explain", "src/shop/chat.py:9"]).exit_code == 0
    assert names == []
    assert CliRunner().invoke(main, ["check", "src/shop", "-q"]).exit_code == 1
    assert names == []
    assert CliRunner().invoke(main, ["check", "src", "-q"]).exit_code == 1  # searches over all of src
    assert sorted(names) == ["__init__.py", "chat.py", "prompts.py"]
    assert len(list((package / ".promptlint_cache" / "v1").iterdir())) == 2

    # the other way round: what explain analysed, check does not analyse again
    shutil.rmtree(package / ".promptlint_cache")
    names.clear()
    assert CliRunner().invoke(main, ["explain", "src/shop/chat.py:9"]).exit_code == 0
    assert names == ["chat.py"]
    assert CliRunner().invoke(main, ["check", "src/shop", "-q"]).exit_code == 1
    assert sorted(names) == ["__init__.py", "chat.py", "prompts.py"]  # chat.py once, by explain


def test_in_a_project_check_of_a_folder_and_of_its_package_share_the_cache(package, monkeypatch):
    """In a project (a marker above the checked folders) the text searches stop at the project
    whatever folder is named: `check src` and `check src/shop` share their entries."""
    from click.testing import CliRunner
    from promptlint.cli import main
    (package / "pyproject.toml").write_text("[project]\nname = 'shop'\n", encoding="utf-8")
    assert CliRunner().invoke(main, ["check", "src", "-q"]).exit_code == 1
    names = analysed_names(monkeypatch)
    assert CliRunner().invoke(main, ["check", "src/shop", "-q"]).exit_code == 1  # the same module roots
    assert names == []
    assert len(list((package / ".promptlint_cache" / "v1").iterdir())) == 1


def test_module_roots_are_those_the_analysis_searches(tmp_path, monkeypatch):
    from promptlint.scope import module_roots
    (tmp_path / "src" / "shop" / "sub").mkdir(parents=True)
    (tmp_path / "src" / "shop" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "src" / "shop" / "sub" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "tools").mkdir()
    monkeypatch.chdir(tmp_path)
    src = str(tmp_path.resolve() / "src")
    assert module_roots([Path("src")]) == module_roots([Path("src/shop")]) == module_roots([Path("src/shop/sub")]) == [src]
    assert module_roots([Path("src/shop"), Path("tools")]) == [src, str(tmp_path.resolve() / "tools")]
    # the current folder last is searched anyway: `check .` and `check` of a file share their entries
    assert module_roots([Path(".")]) == module_roots([]) == []
    assert module_roots([Path("."), Path("src")]) == [str(tmp_path.resolve()), src]
