"""Cache breakpoints a message converter sets in a loop that grows its list by branches (one per
role), returned alone or in a tuple with the system prompt: flow/calls.py `_with_markers` gives
them to every variant of the list, layout.py keeps them on the history after a written head, and
a breakpoint copied from the loop's item (item_markers.copies_item_marker) is counted where the item's
was set, not once per message; fixtures/branched_converters."""
from __future__ import annotations

import ast
import shutil
import textwrap
from pathlib import Path

from promptlint.api import check
from promptlint.python.item_markers import copies_item_marker

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "branched_converters"


def _prm304(tmp_path: Path, name: str) -> list[tuple[str, int, str]]:
    shutil.copy(FIXTURES / name, tmp_path / name)
    report = check([tmp_path / name], jobs=1)
    return [(d.code, d.span.start.row, d.severity.value) for d in report.diagnostics if d.code == "PRM304"]


def test_every_message_marked_by_a_converter_returning_a_tuple(tmp_path):
    # the options of every turn up to `cache_upto` (all with -1) marked in a loop that branches on the role
    assert _prm304(tmp_path, "marks_every_message.py") == [("PRM304", 26, "error")]


def test_every_message_marked_after_a_written_head(tmp_path):
    assert _prm304(tmp_path, "marks_every_message_after_head.py") == [("PRM304", 19, "error")]


def test_the_last_message_marked_and_copied_in_the_loop_is_one_breakpoint(tmp_path):
    assert _prm304(tmp_path, "marks_last_message.py") == []


def test_a_converter_that_marks_nothing(tmp_path):
    assert _prm304(tmp_path, "marks_nothing.py") == []


def _assigns(src: str):
    func = ast.parse(textwrap.dedent(src)).body[0]
    stmts = [n for n in ast.walk(func) if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Subscript)]
    return func, sorted(stmts, key=lambda s: s.lineno)


def test_a_copy_of_the_items_marker_is_told_from_a_new_one():
    func, stmts = _assigns("""
        def f(turns, config):
            for turn in turns:
                block = {"text": turn.text}
                block["cache_control"] = turn.meta["cache_control"]
                marker = turn.options.get("cache_control")
                block["cache_control"] = marker
                if turn.meta.get("cache_control"):
                    block["cache_control"] = {"type": "ephemeral"}
                block["cache_control"] = config["cache_control"]
                block["cache_control"] = {"type": "ephemeral"}
            out = {}
            out["cache_control"] = turns[0].meta["cache_control"]
    """)
    assert [copies_item_marker(func, s) for s in stmts] == [True, True, True, False, False, False]


def test_a_breakpoint_copied_where_the_caller_asked_for_one_is_not_on_every_message(tmp_path):
    # `if (marker := _asked_marker(part)) is not None: image["cache_control"] = marker`, the helper
    # reading `part.metadata.get("cache_control")`: the caller's own placement
    assert _prm304(tmp_path, "marks_where_asked.py") == []


def test_a_helper_that_reads_no_marker_of_the_item_still_marks_every_image(tmp_path):
    assert _prm304(tmp_path, "marks_every_image.py") == [("PRM304", 23, "error")]


def test_a_helper_handed_the_item_that_reads_its_marker_is_a_copy_of_it():
    src = """
        def _asked(part):
            return part.metadata.get("cache_control")

        def _other(part):
            return part.metadata.get("detail")

        def f(turns):
            for part in turns:
                block = {"text": part.text}
                if (cc := _asked(part)) is not None:
                    block["cache_control"] = cc
                if (dd := _other(part)) is not None:
                    block["cache_control"] = dd
                block["cache_control"] = _asked(part.inner)
    """
    tree = ast.parse(textwrap.dedent(src))
    funcs = {f.name: f for f in tree.body}

    class _Module:
        functions = funcs
    func = funcs["f"]
    stmts = sorted((n for n in ast.walk(func) if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Subscript)),
                   key=lambda s: s.lineno)
    assert [copies_item_marker(func, s, _Module) for s in stmts] == [True, False, True]
    assert [copies_item_marker(func, s) for s in stmts] == [False, False, False]  # (no module: helpers not read)
