"""Project: what a run reads of the folders around its modules (dotted names, search roots,
display names) is read once per path, with the same answers."""
from __future__ import annotations

from pathlib import Path

from promptlint import reads
from promptlint.python import import_roots
from promptlint.python.tree import Project


def _package(root: Path) -> Path:
    pkg = root / "app"
    (pkg / "llm").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "llm" / "__init__.py").write_text("")
    (pkg / "llm" / "client.py").write_text("def ask(prompt):\n    return prompt\n")
    (pkg / "llm" / "agent.py").write_text("from app.llm.client import ask\n\ndef run(q):\n    return ask(q)\n")
    (pkg / "main.py").write_text("from app.llm.client import ask\nask('x')\n")
    return pkg


def _counting(monkeypatch) -> list:
    """The `__init__.py` files probed on disk from now on (`import_roots.package_chain`)."""
    calls: list = []
    real = import_roots.os.path.exists

    def counted(path):
        if str(path).endswith("__init__.py"):
            calls.append(Path(path))
        return real(path)
    monkeypatch.setattr(import_roots.os.path, "exists", counted)
    return calls


def test_a_module_is_named_from_one_reading_of_its_folders(tmp_path, monkeypatch):
    pkg = _package(tmp_path)
    project = Project([tmp_path])
    calls = _counting(monkeypatch)
    module = project.load(pkg / "llm" / "client.py")
    assert module.dotted == "app.llm.client"
    assert module.filename == str((pkg / "llm" / "client.py").resolve()) or module.filename.endswith("app/llm/client.py")
    probed = [(pkg / "llm").resolve() / "__init__.py", pkg.resolve() / "__init__.py", tmp_path.resolve() / "__init__.py"]
    assert calls[:3] == probed
    assert len(calls) == len(set(calls))  # each folder once (before: once to parse it, once more to name it)


def test_searches_near_one_module_read_its_folders_once(tmp_path, monkeypatch):
    pkg = _package(tmp_path)
    project = Project([tmp_path])
    calls = _counting(monkeypatch)
    near = pkg / "llm" / "client.py"
    project.start()
    first = project.callers_of("ask", near, 10)
    before = len(calls)
    again = project.callers_of("ask", near, 10)
    assert [m.dotted for m in first] == [m.dotted for m in again] == ["app.llm.agent", "app.main"]
    assert len(calls) == before  # (the search root of `near` and every module were read already)
    assert project.marker_files(near) == [] and project.claude_files(near) == []
    assert len(calls) == before


def test_a_parsed_module_notes_its_package_probes(tmp_path):
    pkg = _package(tmp_path)
    project = Project([tmp_path])
    with reads.tracking() as seen:
        project.load(pkg / "llm" / "agent.py")
    inits = {key for key in seen if key.endswith("__init__.py")}
    assert reads.key_of((pkg / "__init__.py").resolve()) in inits
    assert reads.key_of((pkg / "llm" / "__init__.py").resolve()) in inits


def test_a_module_loaded_again_by_the_same_analysis_notes_nothing_again(tmp_path, monkeypatch):
    pkg = _package(tmp_path)
    project = Project([tmp_path])
    noted: list[str] = []
    real = reads.note
    monkeypatch.setattr(reads, "note", lambda key, state: noted.append(key) or real(key, state))
    with reads.tracking() as first:
        project.start()
        project.load(pkg / "llm" / "agent.py")
    parsed = len(noted)
    with reads.tracking() as second:  # the next analysis: loaded from the cache, noted once
        project.start()
        for _ in range(3):
            project.load(pkg / "llm" / "agent.py")
    assert len(noted) == 2 * parsed and second == first
    assert project.roots == [tmp_path.resolve()]


def test_a_dotted_name_looked_up_again_by_the_same_analysis_notes_its_probes_once(tmp_path, monkeypatch):
    pkg = _package(tmp_path)
    project = Project([tmp_path])
    noted: list[str] = []
    real = reads.note
    with reads.tracking() as first:
        project.start()
        assert project.find(f"{pkg.name}.llm.nowhere") is None  # every candidate path probed
    monkeypatch.setattr(reads, "note", lambda key, state: noted.append(key) or real(key, state))
    with reads.tracking() as second:
        project.start()
        for _ in range(3):
            assert project.find(f"{pkg.name}.llm.nowhere") is None
    assert second == first and len(noted) == len(first)


def test_claude_names_are_searched_in_the_modules_own_top_package(tmp_path):
    pkg = _package(tmp_path)
    other = tmp_path / "neighbour"
    other.mkdir()
    (other / "__init__.py").write_text("")
    (other / "models.py").write_text('MODEL = "claude-sonnet-4-5"\n')
    project = Project([tmp_path])
    project.start()
    assert project.claude_files(pkg / "llm" / "client.py") == []  # a package beside it says nothing of this one
    assert [p.name for p in project.claude_files(other / "models.py")] == ["models.py"]
    (pkg / "llm" / "models.py").write_text('ROUTES = {"smart": "anthropic/claude-3-5-haiku"}\n')
    project = Project([tmp_path])
    project.start()
    assert [p.name for p in project.claude_files(pkg / "llm" / "client.py")] == ["models.py"]
