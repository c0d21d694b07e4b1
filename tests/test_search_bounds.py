"""The text searches of a run (callers, definitions, breakpoint keys) stop at the project: a
package checked where it sits in a crowded folder with no project marker reads no sibling tree,
and its findings do not depend on one (`promptlint.python.search_bounds`)."""
from __future__ import annotations

from pathlib import Path

from promptlint.api import check
from promptlint.python import packages
from promptlint.python.search_bounds import bounded, marked_folder

CHAT = '''from openai import OpenAI

client = OpenAI()
RULES = "Answer the customer's question politely and precisely, citing the handbook. " * 60


def ask(stamp, question, history):
    return client.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "system", "content": f"Time: {stamp}\\n{RULES}"}, *history,
                  {"role": "user", "content": question}],
    )
'''
#: A sibling tree that calls the package with the clock: read, it makes `stamp` a timestamp.
RUN = '''from datetime import datetime

from pkg.chat import ask


def main(q, h):
    return ask(datetime.now().isoformat(), q, h)
'''


def _crowd(root: Path) -> tuple[Path, Path]:
    """`root/crowd/pkg` (a package) beside `root/crowd/other` (an unrelated tree that calls it)."""
    crowd = root / "crowd"
    (crowd / "pkg").mkdir(parents=True)
    (crowd / "other").mkdir()
    (crowd / "pkg" / "__init__.py").write_text("")
    (crowd / "pkg" / "chat.py").write_text(CHAT)
    (crowd / "other" / "run.py").write_text(RUN)
    return crowd, crowd / "pkg"


def _scanned(monkeypatch) -> list[Path]:
    """The trees the text searches read from now on (`packages.python_files`)."""
    seen: list[Path] = []
    real = packages.python_files

    def recorded(root):
        seen.append(Path(root))
        return real(root)
    monkeypatch.setattr(packages, "python_files", recorded)
    return seen


def _codes(report) -> list[tuple[str, str, str]]:
    return sorted((d.code, d.severity.value, Path(d.span.filename).name) for d in report.diagnostics)


def test_a_package_in_a_folder_without_a_marker_reads_no_sibling(tmp_path, monkeypatch):
    crowd, pkg = _crowd(tmp_path)
    scanned = _scanned(monkeypatch)
    report = check([pkg], jobs=1)
    assert scanned and all(p == pkg.resolve() or pkg.resolve() in p.parents for p in scanned)
    # the parameter's volatility is unknown without the sibling's call: info, never the sibling's clock
    assert _codes(report) == [("PRM101", "info", "chat.py")]


def test_the_folder_named_holds_the_sibling(tmp_path, monkeypatch):
    crowd, _ = _crowd(tmp_path)
    scanned = _scanned(monkeypatch)
    report = check([crowd], jobs=1)
    assert crowd.resolve() in scanned
    assert _codes(report) == [("PRM102", "warning", "chat.py")]


def test_a_marker_above_the_package_makes_the_sibling_part_of_its_project(tmp_path):
    crowd, pkg = _crowd(tmp_path)
    (crowd / "setup.cfg").write_text("[metadata]\nname = crowd\n")
    assert _codes(check([pkg], jobs=1)) == [("PRM102", "warning", "chat.py")]


def test_a_cached_run_of_the_crowd_does_not_widen_a_run_of_the_package(tmp_path):
    crowd, pkg = _crowd(tmp_path)
    cache = tmp_path / "cache"
    assert _codes(check([crowd], jobs=1, cache_dir=cache)) == [("PRM102", "warning", "chat.py")]
    assert _codes(check([pkg], jobs=1, cache_dir=cache)) == [("PRM101", "info", "chat.py")]


def test_a_marker_is_a_file_and_the_nearest_wins(tmp_path):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (tmp_path / "repo" / "libs" / "a").mkdir(parents=True)
    (tmp_path / "repo" / "libs" / "a" / "pyproject.toml").write_text("")
    assert marked_folder(tmp_path / "repo" / "libs" / "a")[0] == tmp_path / "repo" / "libs" / "a"
    assert marked_folder(tmp_path / "repo" / "libs")[0] == tmp_path / "repo"
    found, probes = marked_folder(tmp_path / "repo" / "libs")
    assert (tmp_path / "repo" / ".git" / "HEAD", True) == probes[-1]


def test_where_a_search_stops():
    tree, module = Path("/w/crowd"), Path("/w/crowd/pkg/sub/m.py")
    own = Path("/w/crowd/pkg")
    # a marker at or above the tree: the tree
    assert bounded(tree, module, own, [Path("/w/crowd/pkg")], Path("/w")) == tree
    # a marker between the tree and the module: that project
    assert bounded(tree, module, own, None, Path("/w/crowd/pkg")) == Path("/w/crowd/pkg")
    # no marker: never above the outermost checked path that holds the module
    assert bounded(tree, module, own, [Path("/w/crowd/pkg/sub"), Path("/w/crowd/pkg")], None) == own
    assert bounded(tree, module, own, [Path("/w")], None) == tree
    assert bounded(tree, module, own, [module], None) == module
    # a module outside every checked path (an import found beside them): its own package
    assert bounded(tree, module, own, [Path("/w/crowd/other")], None) == own
    assert bounded(tree, module, own, None, None) == tree


def test_a_file_checked_again_alone_is_searched_as_the_paths_it_was_fixed_in(tmp_path):
    # (`fix crowd` checks a fixed file again alone: its searches read what the check of `crowd` read)
    crowd, pkg = _crowd(tmp_path)
    alone = check([pkg / "chat.py"], jobs=1)
    within = check([pkg / "chat.py"], jobs=1, search_paths=[crowd])
    assert _codes(alone) == [("PRM101", "info", "chat.py")]
    assert _codes(within) == [("PRM102", "warning", "chat.py")]
