"""What one file's analysis may read of the tree (`promptlint.python.tree`): the package tree a
name search covers (an installed distribution is a project of its own), the characters of modules
one analysis may use (`MAX_ANALYSIS_CHARS`), and which parsed modules may be dropped while it
runs (those it holds stay)."""
from __future__ import annotations

from pathlib import Path

import pytest

from analysis_support import code, evaluator, parts, sent, write
from promptlint.cache import Result, is_plain
from promptlint.model import Report
from promptlint.python import tree, tree_search
from promptlint.python.sites import find_layouts
from promptlint.python.tree import Project
from promptlint.python.tree_search import search_root

CHAT = '''
from openai import OpenAI

client = OpenAI()


def answer(settings, question: str) -> str:
    return client.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "system", "content": settings.persona_prompt}, {"role": "user", "content": question}],
    )
'''
SETTINGS = 'class Settings:\n    persona_prompt = "You are the support assistant of Acme Tools."\n'


def _system(root: Path, name: str = "app/chat.py") -> list[tuple]:
    ev = evaluator(root)
    found = sent(find_layouts(ev.project.load(root / name), ev))
    assert len(found) == 1
    return parts(found[0])[0][1]


@pytest.mark.parametrize("folder, found", [("src", True), ("site-packages", False), ("dist-packages", False)])
def test_a_name_search_stays_in_its_distribution_where_distributions_are_installed(tmp_path, folder, found):
    """`settings.persona_prompt` of an object the analysis cannot resolve is looked up by name in
    the package tree: in a project folder that is every package beside the file's own; in a
    folder of installed distributions (site-packages), only the file's own distribution."""
    root = tmp_path / folder
    write(root, {"app/__init__.py": "", "other/__init__.py": "", "other/settings.py": SETTINGS, "app/chat.py": CHAT})
    system = _system(root)
    if found:
        assert system == [("text", "You are the support assistant of Acme Tools.")]
    else:
        assert system == [("unknown", "stable", "settings.persona_prompt")]


def test_a_name_search_in_site_packages_finds_its_own_distribution(tmp_path):
    root = tmp_path / "site-packages"
    write(root, {"app/__init__.py": "", "app/settings.py": SETTINGS, "app/chat.py": CHAT})
    assert _system(root) == [("text", "You are the support assistant of Acme Tools.")]


def test_search_root(tmp_path):
    write(tmp_path, {"src/app/__init__.py": "", "src/app/sub/__init__.py": "", "src/app/sub/m.py": "",
                     "site-packages/dist/__init__.py": "", "site-packages/dist/sub/__init__.py": "",
                     "site-packages/dist/sub/m.py": "", "site-packages/single.py": "",
                     "site-packages/ns/pkg/__init__.py": "", "site-packages/ns/pkg/m.py": ""})
    assert search_root(tmp_path / "src/app/sub/m.py") == tmp_path / "src"
    assert search_root(tmp_path / "site-packages/dist/sub/m.py") == tmp_path / "site-packages/dist"
    assert search_root(tmp_path / "site-packages/dist/__init__.py") == tmp_path / "site-packages/dist"
    assert search_root(tmp_path / "site-packages/single.py") == tmp_path / "site-packages/single.py"
    # a namespace folder (no __init__.py) is the root of the packages under it, as in a project
    assert search_root(tmp_path / "site-packages/ns/pkg/m.py") == tmp_path / "site-packages/ns"


IMPORTING = '''
from openai import OpenAI
from app.texts import PERSONA

client = OpenAI()


def answer(question: str) -> str:
    return client.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "system", "content": PERSONA}, {"role": "user", "content": question}],
    )
'''


def _analyse(project: Project, ev, path: Path) -> list[tuple]:
    project.start()
    try:
        found = sent(find_layouts(project.load(path), ev))
        return parts(found[0])[0][1]
    finally:
        ev.forget()
        project.finish()


def test_an_analysis_reads_modules_up_to_its_budget_and_no_more(tmp_path, monkeypatch):
    """Past `MAX_ANALYSIS_CHARS` of modules used, an import is not read: its value is unknown
    (not a PRM001: the module is fine), and whether the module was parsed for an earlier file
    does not matter (the budget counts what this analysis uses, cached or not)."""
    root = tmp_path / "src"
    write(root, {"app/__init__.py": "", "app/texts.py": 'PERSONA = "You are the support assistant of Acme Tools."\n',
                 "app/chat.py": IMPORTING})
    chat, texts = root / "app/chat.py", root / "app/texts.py"
    ev = evaluator(root)
    project = ev.project
    assert _analyse(project, ev, chat) == [("text", "You are the support assistant of Acme Tools.")]

    monkeypatch.setattr(tree, "MAX_ANALYSIS_CHARS", len(code(IMPORTING)))  # the file itself only
    unknown = _analyse(project, ev, chat)  # texts.py is still parsed in the cache
    assert [s[0] for s in unknown] == ["unknown"]
    assert project.failed == {}
    fresh = evaluator(root)
    assert _analyse(fresh.project, fresh, chat) == unknown  # nothing cached: the same
    assert texts.resolve() not in fresh.project._modules


def test_modules_held_by_the_analysis_stay_while_a_name_search_may_be_dropped(tmp_path, monkeypatch):
    """While a file is analysed, `trim` drops only modules the analysis does not hold: those of
    earlier files and those a name search read and found nothing in."""
    root = tmp_path / "src"
    write(root, {"app/__init__.py": "", "app/a.py": "import app.b\nX = 1\n",
                 "app/b.py": "def f():\n    persona = 'in a function: not a definition'\n",
                 "app/c.py": "persona = 'a module constant'\n"})
    project = Project([root])
    project.start()
    a = project.load(root / "app/a.py")
    found = project.definitions("persona", root / "app/a.py")
    assert [(m.path.name, node.value) for m, _, node in found] == [("c.py", "a module constant")]
    project.trim(0)
    kept = {p.name for p in project._modules}
    assert kept == {"a.py", "c.py"}  # b.py defined nothing: dropped; a.py and c.py are held
    assert project.load(root / "app/a.py") is a
    project.finish()
    project.trim(0)
    assert project._modules == {}


def test_a_result_sent_without_its_dependencies_stays_plain_or_not():
    empty = Result(Report(files=1), state="d:1")
    assert is_plain(empty)
    empty.drop_deps()
    assert is_plain(empty) and empty.deps == {}
    reading = Result(Report(files=1), state="d:1", deps={"/x/other.py": "d:2"})
    assert not is_plain(reading)
    reading.drop_deps()
    assert reading.deps == {} and not is_plain(reading)


def test_the_package_index_used_last_is_kept(tmp_path, monkeypatch):
    """Past `MAX_PACKAGES` package indexes the least recently used goes, not the first built:
    a big tree searched again and again between small ones is scanned once."""
    from promptlint.python import packages
    scans: list[str] = []
    real = packages.Package.scan.__func__

    def scan(cls, root):
        scans.append(root.name)
        return real(cls, root)

    monkeypatch.setattr(packages.Package, "scan", classmethod(scan))
    monkeypatch.setattr(tree_search, "MAX_PACKAGES", 2)
    for name in "abc":
        write(tmp_path / name, {"m.py": "X = 1\n"})
    project = Project([tmp_path])
    for name in "abacada":
        project._package(tmp_path / name)
    assert scans == ["a", "b", "c", "d"]


def test_a_checked_package_folder_is_searched_from_the_folder_above_it(tmp_path):
    """A checked folder that is a package (`site-packages/aiohttp`) is not a root of top-level
    names: `import abc` there is the standard library's, not `aiohttp/abc.py`; its own modules
    are found by their dotted names from the folder above it."""
    write(tmp_path, {"aiohttp/__init__.py": "", "aiohttp/abc.py": "X = 1\n", "aiohttp/sub/__init__.py": "",
                     "app/m.py": "Y = 2\n"})
    project = Project([tmp_path / "aiohttp", tmp_path / "aiohttp" / "sub", tmp_path / "app"])
    assert project._given == [tmp_path.resolve(), (tmp_path / "app").resolve()]
    project.start()
    assert project.find("abc") is None
    assert project.find("aiohttp.abc").path.name == "abc.py"
    assert project.find("m").path.name == "m.py"


def test_a_package_index_scanned_once_per_run_is_read_back_by_other_workers(tmp_path, monkeypatch):
    """With a shared folder (the workers of one run), the first process that needs a package's
    index scans it and writes it there; a worker that replaces it reads it back, the same index,
    without scanning; an unreadable file is scanned again."""
    from promptlint.python import packages
    scans: list[str] = []
    real = packages.Package.scan.__func__

    def scan(cls, root):
        scans.append(root.name)
        return real(cls, root)

    monkeypatch.setattr(packages.Package, "scan", classmethod(scan))
    write(tmp_path / "src", {"app/__init__.py": "", "app/m.py": "PROMPT = 'x'\n"})
    shared = tmp_path / "shared"
    shared.mkdir()
    first = tree_search.shared_scan(tmp_path / "src", shared)
    again = tree_search.shared_scan(tmp_path / "src", shared)
    assert scans == ["src"]
    assert again.names == first.names and again.snapshot == first.snapshot and again.files == first.files
    for written in shared.iterdir():
        written.write_bytes(b"not a pickle")
    tree_search.shared_scan(tmp_path / "src", shared)
    assert scans == ["src", "src"]
    assert tree_search.shared_scan(tmp_path / "src", None).names == first.names and scans == ["src"] * 3


def test_a_module_dropped_from_the_cache_counts_against_the_budget_as_a_held_one(tmp_path, monkeypatch):
    """A name search that skips a dropped module without parsing it (`_defines_not`) counts its
    characters as loading it counts those of a held one, so where the search stops on the budget
    is the same whichever modules the cache still holds (an order dependence s39-cpu found)."""
    root = tmp_path / "src"
    files = {"app/__init__.py": "", "app/a.py": "X = 1\n",
             "app/b.py": "def f():\n    persona = 'in a function: not a definition'\n" + "# padding\n" * 50,
             "app/c.py": "persona = 'a module constant'\n"}
    write(root, files)

    def search(project):
        project.start()
        project.load(root / "app/a.py")
        found = [m.path.name for m, _, _ in project.definitions("persona", root / "app/a.py")]
        used, over = project.used_chars, project.over
        project.finish()
        return found, used, over

    held = Project([root])
    held.start()
    held.load(root / "app/b.py")  # parsed by an earlier analysis and still held
    held.finish()
    dropped = Project([root])
    dropped.start()
    dropped.load(root / "app/b.py")
    dropped.finish()
    dropped.trim(0)  # ... and dropped
    assert (root / "app/b.py").resolve() in dropped._dropped
    assert search(held) == search(dropped) == (["c.py"], sum(len(files[f]) for f in ("app/a.py", "app/b.py", "app/c.py")), False)

    budget = len(files["app/a.py"]) + len(files["app/b.py"])  # spent once b.py is counted: c.py is not read
    monkeypatch.setattr(tree, "MAX_ANALYSIS_CHARS", budget)
    again_held, again_dropped = Project([root]), Project([root])
    for project in (again_held, again_dropped):
        project.start()
        project.load(root / "app/b.py")
        project.finish()
    again_dropped.trim(0)
    assert search(again_held) == search(again_dropped) == ([], budget, True)
