"""PRM202 and os.walk: each `(folder, folder names, file names)` tuple it yields holds two lists in
file-system order, so `sorted(os.walk(d))` orders the folders but not the names inside each one.
Iterating the walk is reported with a safe fix (its tuples compare by their folder, unique in a
walk); once it is sorted, iterating a folder's names is reported with its own safe fix (they are
str), and `fix` leaves a tool result in a fixed order with nothing reported. Fixtures under fixtures/walk_lists/ (the
shape of crewai-tools' DirectoryReadTool)."""
from __future__ import annotations

import shutil
from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "walk_lists"


def _found(*paths: Path):
    report = api.check(list(paths), api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.span.start.column,
             d.fix.applicability.value if d.fix else None, d.fix.message if d.fix else None)
            for d in report.diagnostics]


def test_an_unsorted_walk_has_a_safe_fix():
    # (main: unsafe, "its items are not known to support `<`")
    assert _found(FIXTURES / "comprehension.py") == [
        ("comprehension.py", "PRM202", "info", 11, 35, "safe", "Wrap the iterable in `sorted(...)`")]


def test_a_sorted_walk_still_lists_each_folders_names_in_file_system_order():
    # (main: no finding once the walk was sorted, though the file names stay in listing order)
    found = _found(FIXTURES / "walk_sorted.py")
    assert [f[:5] for f in found] == [("walk_sorted.py", "PRM202", "info", 12, 29)]
    report = api.check([FIXTURES / "walk_sorted.py"], api.Settings(), jobs=1)
    assert "`files` (a folder's names in os.walk's listing order)" in report.diagnostics[0].message


def test_fix_sorts_the_walk_and_the_names_and_nothing_remains(tmp_path):
    for name in ("comprehension.py", "loop.py"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    run = api.fix([tmp_path], api.Settings(), unsafe=False, jobs=1)
    assert run.report.diagnostics == []
    text = (tmp_path / "comprehension.py").read_text()
    assert "for root, _, files in sorted(os.walk(directory))" in text and "for filename in sorted(files)" in text
    text = (tmp_path / "loop.py").read_text()
    # (main: `sorted(os.walk(directory))`, which reads the whole walk before the body runs)
    assert "for root, dirs, files in os.walk(directory):\n            dirs.sort()\n" in text
    assert "for name in sorted(files):" in text


def test_a_loop_that_sorts_the_folder_names_in_place_walks_in_a_fixed_order():
    # (main: PRM202 info at the walk, 13:34 and 11:34, though os.walk descends in the order the
    # body leaves `dirs` in: `dirs[:] = sorted(...)` / `dirs.sort()`, the files sorted too)
    assert _found(FIXTURES / "pruned_sorted.py") == []
    assert _found(FIXTURES / "in_place_sorted.py") == []


def test_a_pruned_walk_is_fixed_by_sorting_its_folder_names_not_by_sorting_the_walk(tmp_path):
    # (main: the safe fix `sorted(os.walk(directory))`, which consumes the walk before the body's
    # `dirs[:] = [...]` can prune it: a change of behaviour)
    found = _found(FIXTURES / "pruned.py")
    assert [f[:6] for f in found] == [("pruned.py", "PRM202", "info", 13, 34, "safe")]
    assert "`dirs.sort()`" in found[0][6]
    shutil.copy(FIXTURES / "pruned.py", tmp_path / "pruned.py")
    run = api.fix([tmp_path], api.Settings(), unsafe=False, jobs=1)
    assert run.report.diagnostics == []
    text = (tmp_path / "pruned.py").read_text()
    assert "in os.walk(directory):\n            dirs.sort()\n            dirs[:] = [d for d in dirs if d not in SKIP]" in text
    assert "sorted(os.walk" not in text


def test_explain_says_a_tool_result_is_drawn_by_its_order_alone(monkeypatch, tmp_path):
    # (main: "static prefix is empty: the prompt starts with dynamic content", though the tool's
    # result starts with the static "File paths:"; only its order is recorded)
    from click.testing import CliRunner
    from promptlint.cli import main
    shutil.copy(FIXTURES / "comprehension.py", tmp_path / "comprehension.py")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["explain", "comprehension.py:11", "--no-cache"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[1].startswith("           -- a tool's result: only the iteration that orders it is drawn, not its text")
    assert not any("static prefix is empty" in line for line in lines)
