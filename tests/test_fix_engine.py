"""The fix engine: edits, one fix pass, the fixpoint loop, atomic writes, diff and summary."""
from __future__ import annotations

import os
import stat

import pytest

from promptlint.fix import (SYNTAX_ERROR, EditError, apply_edits, apply_fixes, fix_file,
                            hidden_unsafe, line_ending, summary, unified_diff, write_atomic)
from promptlint.model import Applicability, Diagnostic, Edit, Fix, Position, Severity, Span

P = Position
SAFE, UNSAFE, DISPLAY = Applicability.SAFE, Applicability.UNSAFE, Applicability.DISPLAY_ONLY


def diag(edits, applicability=SAFE, code="PRM900", row=1):
    """A fake diagnostic (ruff's RUF9xx idea: engine tests use deliberately fake rules)."""
    return Diagnostic(code, "fake-rule", Severity.WARNING, "fake", Span("f.py", P(row, 1), P(row, 2)),
                      fix=Fix(applicability, "fake fix", list(edits)))


def parses(text: str) -> bool:
    try:
        compile(text, "f.py", "exec")
    except SyntaxError:
        return False
    return True


# --- apply_edits -------------------------------------------------------------------------------

def test_apply_edits_replace_insert_delete_in_any_order():
    text = "alpha beta\ngamma delta\n"
    edits = [Edit("", P(2, 1), P(2, 7)),          # delete "gamma "
             Edit("BETA", P(1, 7), P(1, 11)),     # replace "beta"
             Edit(">", P(1, 1), P(1, 1))]         # insert at the start
    assert apply_edits(text, edits) == ">alpha BETA\ndelta\n"


def test_apply_edits_spans_rows_and_counts_characters_not_bytes():
    text = "é = 'ü'\nx = 1\n"
    assert apply_edits(text, [Edit("2", P(1, 6), P(1, 7))]) == "é = '2'\nx = 1\n"
    assert apply_edits(text, [Edit("", P(1, 8), P(2, 1))]) == "é = 'ü'x = 1\n"


def test_apply_edits_keeps_crlf_and_writes_new_lines_as_crlf():
    text = "a = 1\r\nb = 2\r\n"
    # column 6 of row 1 is the "\r": an edit up to it keeps the line ending
    assert apply_edits(text, [Edit("10", P(1, 5), P(1, 6))]) == "a = 10\r\nb = 2\r\n"
    assert apply_edits(text, [Edit("\nc = 3", P(1, 6), P(1, 6))]) == "a = 1\r\nc = 3\r\nb = 2\r\n"
    assert apply_edits("a\nb\n", [Edit("x\n", P(2, 1), P(2, 1))]) == "a\nx\nb\n"


def test_apply_edits_end_of_text_and_two_insertions_at_one_place():
    assert apply_edits("ab", [Edit("c", P(1, 3), P(1, 3))]) == "abc"
    assert apply_edits("ab\n", [Edit("c", P(2, 1), P(2, 1))]) == "ab\nc"
    assert apply_edits("ab", [Edit("1", P(1, 2), P(1, 2)), Edit("2", P(1, 2), P(1, 2))]) == "a12b"


@pytest.mark.parametrize("edit", [Edit("x", P(3, 1), P(3, 1)), Edit("x", P(1, 4), P(1, 4)),
                                  Edit("x", P(0, 1), P(1, 1)), Edit("x", P(1, 3), P(1, 2))])
def test_apply_edits_rejects_positions_outside_the_text(edit):
    with pytest.raises(EditError):
        apply_edits("ab\ncd", [edit])


def test_apply_edits_rejects_overlap():
    with pytest.raises(EditError):
        apply_edits("abcdef", [Edit("x", P(1, 1), P(1, 4)), Edit("y", P(1, 3), P(1, 5))])


def test_line_ending_is_judged_by_the_first_break():
    assert line_ending("a\r\nb\n") == "\r\n"
    assert line_ending("a\nb\r\n") == "\n"
    assert line_ending("no break") == "\n"


# --- apply_fixes -------------------------------------------------------------------------------

def test_apply_fixes_filters_by_applicability():
    text = "a b c\n"
    diags = [diag([Edit("A", P(1, 1), P(1, 2))], SAFE, "PRM901"),
             diag([Edit("B", P(1, 3), P(1, 4))], UNSAFE, "PRM902"),
             diag([Edit("C", P(1, 5), P(1, 6))], DISPLAY, "PRM903")]
    new, applied = apply_fixes(text, diags, unsafe=False)
    assert (new, [d.code for d in applied]) == ("A b c\n", ["PRM901"])
    new, applied = apply_fixes(text, diags, unsafe=True)
    assert (new, [d.code for d in applied]) == ("A B c\n", ["PRM901", "PRM902"])


def test_apply_fixes_sorts_by_first_edit_and_skips_overlaps_and_touching():
    text = "0123456789\n"
    later = diag([Edit("x", P(1, 6), P(1, 8))], code="PRM901")
    first = diag([Edit("y", P(1, 1), P(1, 4))], code="PRM902")
    overlapping = diag([Edit("z", P(1, 3), P(1, 5))], code="PRM903")
    touching = diag([Edit("w", P(1, 4), P(1, 4))], code="PRM904")
    new, applied = apply_fixes(text, [later, overlapping, touching, first], unsafe=False)
    assert new == "y34x789\n"
    assert [d.code for d in applied] == ["PRM902", "PRM901"]


def test_apply_fixes_skips_a_fix_whose_later_edit_overlaps_an_applied_fix():
    text = "0123456789\n"
    wide = diag([Edit("(", P(1, 1), P(1, 1)), Edit(")", P(1, 9), P(1, 9))], code="PRM901")
    inner = diag([Edit("X", P(1, 4), P(1, 5))], code="PRM902")
    new, applied = apply_fixes(text, [inner, wide], unsafe=False)
    assert new == "(01234567)89\n"
    assert [d.code for d in applied] == ["PRM901"]


def test_apply_fixes_applies_identical_edits_once():
    text = "items = s\n"
    edits = [Edit("sorted(", P(1, 9), P(1, 9)), Edit(")", P(1, 10), P(1, 10))]
    new, applied = apply_fixes(text, [diag(edits, code="PRM202"), diag(list(edits), code="PRM203")],
                               unsafe=False)
    assert new == "items = sorted(s)\n"
    assert [d.code for d in applied] == ["PRM202", "PRM203"]


def test_apply_fixes_ignores_missing_empty_malformed_and_out_of_range_fixes():
    text = "abc\n"
    no_fix = Diagnostic("PRM101", "x", Severity.WARNING, "m", Span("f.py", P(1, 1), P(1, 2)))
    empty = diag([])
    malformed = diag([Edit("x", P(1, 1), P(1, 3)), Edit("y", P(1, 2), P(1, 4))])
    outside = diag([Edit("x", P(9, 1), P(9, 1))])
    assert apply_fixes(text, [no_fix, empty, malformed, outside], unsafe=True) == (text, [])


def test_hidden_unsafe_counts_only_applicable_unsafe_fixes():
    diags = [diag([Edit("a", P(1, 1), P(1, 1))], UNSAFE), diag([], UNSAFE),
             diag([Edit("a", P(1, 1), P(1, 1))], DISPLAY), diag([Edit("a", P(1, 1), P(1, 1))], SAFE)]
    assert hidden_unsafe(diags) == 1


# --- fix_file ----------------------------------------------------------------------------------

def word_lint(old: str, new: str, applicability=SAFE):
    """A fake lint: every `old` word is a finding whose fix replaces it with `new`."""
    calls = []

    def lint(text: str):
        calls.append(text)
        out = []
        for row, line in enumerate(text.split("\n"), start=1):
            col = line.find(old)
            while col != -1:
                start, end = P(row, col + 1), P(row, col + 1 + len(old))
                out.append(diag([Edit(new, start, end)], applicability, row=row))
                col = line.find(old, col + 1)
        return out
    lint.calls = calls
    return lint


def test_fix_file_reaches_a_fixpoint_over_several_passes(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("x = aaaa\n")
    # "aa" -> "a": the findings overlap or touch, so each pass applies one of them
    lint = word_lint("aa", "a")
    result = fix_file(path, lint, unsafe=False, parse_check=parses)
    assert result.new_text == "x = a\n"
    assert result.fixed_count == 3
    assert result.remaining == [] and result.error is None and result.changed
    assert lint.calls == ["x = aaaa\n", "x = aaa\n", "x = aa\n", "x = a\n"]
    assert path.read_text() == "x = aaaa\n"  # fix_file never writes


@pytest.mark.parametrize("cached_after, applied", [(0, False), (1024, True)])
def test_a_move_is_kept_only_when_its_prompt_caches_more(tmp_path, cached_after, applied):
    """A fix marked `moves` whose finding is gone after it is still withheld when the prompt
    caches no more tokens on any target than before (`cacheable`); a real gain keeps it."""
    before, after = "a = now\nb = 1\n", "b = 1\na = now\n"

    def lint(text):
        if text != before:
            return []
        move = Fix(UNSAFE, "move", [Edit("", P(1, 1), P(2, 1)), Edit("a = now\n", P(3, 1), P(3, 1))], moves=True)
        return [Diagnostic("PRM900", "fake", Severity.WARNING, "fake", Span("m.py", P(1, 5), P(1, 8)),
                           fix=move, prompt="m.py:1")]

    def cacheable(text):
        return {"m.py:1": {"openai:gpt-4o": 0 if text == before else cached_after}}

    result = fix_file(tmp_path / "m.py", lint, True, parses, text=before, cacheable=cacheable)
    assert result.new_text == (after if applied else before)
    assert result.withheld == ([] if applied else
                               ["PRM900 at 1:5: fix not applied, it would cache nothing more of its prompt"])
    again = fix_file(tmp_path / "m.py", lint, True, parses, text=result.new_text, cacheable=cacheable)
    assert again.new_text == result.new_text  # idempotent


def test_fix_file_skips_unsafe_fixes_unless_asked(tmp_path):
    lint = word_lint("old", "new", UNSAFE)
    safe_only = fix_file(tmp_path / "none.py", lint, unsafe=False, parse_check=parses, text="old = 1\n")
    assert (safe_only.new_text, safe_only.fixed_count, len(safe_only.remaining)) == ("old = 1\n", 0, 1)
    assert hidden_unsafe(safe_only.remaining) == 1
    both = fix_file(tmp_path / "none.py", lint, unsafe=True, parse_check=parses, text="old = 1\n")
    assert (both.new_text, both.fixed_count, both.remaining) == ("new = 1\n", 1, [])


def test_fix_file_drops_all_fixes_when_a_pass_breaks_the_syntax(tmp_path):
    text = "value = 1\nother = value\n"

    def lint(current):
        if current.startswith("value"):  # pass 1: a good fix
            return [diag([Edit("number", P(1, 1), P(1, 6))])]
        return [diag([Edit("(", P(1, 1), P(1, 1))])]  # pass 2: a fake rule that breaks the code

    result = fix_file(tmp_path / "m.py", lint, unsafe=False, parse_check=parses, text=text)
    assert result.error == SYNTAX_ERROR
    assert result.new_text == text and not result.changed
    assert result.fixed_count == 0 and result.applied == []
    assert [d.fix.edits[0].content for d in result.remaining] == ["number"]


def test_fix_file_reports_non_convergence(tmp_path):
    def lint(text):  # flips forever: a -> b -> a
        return [diag([Edit("b" if text.startswith("a") else "a", P(1, 1), P(1, 2))])]

    result = fix_file(tmp_path / "m.py", lint, unsafe=False, parse_check=parses, text="a = 1\n",
                      max_iterations=5)
    assert result.error == "fixes did not converge after 5 iterations"
    assert result.fixed_count == 5
    assert result.new_text == "b = 1\n"


def test_fix_file_reads_the_file_and_reports_unreadable_files(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"\xef\xbb\xbfold = 1\r\n")
    result = fix_file(path, word_lint("old", "new"), unsafe=False, parse_check=parses)
    assert result.new_text == "new = 1\r\n"
    missing = fix_file(tmp_path / "missing.py", word_lint("a", "b"), unsafe=False, parse_check=parses)
    assert missing.error.startswith("cannot read file") and missing.fixed_count == 0


# --- write_atomic ------------------------------------------------------------------------------

def test_write_atomic_keeps_mode_and_leaves_no_temp_file(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("old\n")
    os.chmod(path, 0o751)
    write_atomic(path, "new\n")
    assert path.read_text() == "new\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py"]


def test_write_atomic_keeps_crlf_and_bom(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"\xef\xbb\xbfa = 1\r\nb = 2\r\n")
    write_atomic(path, "a = 1\nc = 3\r\nb = 2\n")
    assert path.read_bytes() == b"\xef\xbb\xbfa = 1\r\nc = 3\r\nb = 2\r\n"


def test_write_atomic_leaves_lf_and_mixed_files_as_given(tmp_path):
    lf, mixed = tmp_path / "lf.py", tmp_path / "mixed.py"
    lf.write_bytes(b"a\nb\n")
    mixed.write_bytes(b"a\r\nb\n")
    write_atomic(lf, "a\nc\n")
    write_atomic(mixed, "a\r\nb\nc\n")
    assert lf.read_bytes() == b"a\nc\n"
    assert mixed.read_bytes() == b"a\r\nb\nc\n"


def test_write_atomic_replaces_a_symlink_target_and_creates_new_files(tmp_path):
    target, link = tmp_path / "real.py", tmp_path / "link.py"
    target.write_text("old\n")
    link.symlink_to(target)
    write_atomic(link, "new\n")
    assert link.is_symlink() and target.read_text() == "new\n"
    fresh = tmp_path / "fresh.py"
    write_atomic(fresh, "x\n")
    assert fresh.read_text() == "x\n"


# --- unified_diff and summary ------------------------------------------------------------------

def test_unified_diff_headers_hunks_and_no_diff():
    old = "a\nb\nc\n"
    new = "a\nB\nc\n"
    assert unified_diff("app/m.py", old, new) == (
        "--- app/m.py\n+++ app/m.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n")
    assert unified_diff("app/m.py", old, old) == ""


def test_unified_diff_marks_a_missing_final_newline():
    assert unified_diff("m.py", "a", "b") == (
        "--- m.py\n+++ m.py\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n"
        "+b\n\\ No newline at end of file\n")


def test_summary():
    assert summary(3, 2, 1) == "3 fixed, 2 remaining (1 of them fixable with --unsafe-fixes)"
    assert summary(0, 0, 0) == "0 fixed, 0 remaining"
