"""`fix` never breaks code (issue 17): edits only over the text they were computed from, the
result compiled, owner / mode / hard links kept or the file skipped, read-only files left alone,
CR-only and PEP 263 files written back as they were, write failures a message and exit 2, and
after every fix the finding is gone."""
from __future__ import annotations

import os
import stat

import pytest
from click.testing import CliRunner

from promptlint import fixer
from promptlint.cli import main
from promptlint.fix import SYNTAX_ERROR, fix_file
from promptlint.api import check
from promptlint.fixer import fix_paths, parse_check_for
from promptlint.model import Applicability, Diagnostic, Edit, Fix, Position, Severity, Span
from promptlint.writer import ChangedError, WriteError, read_snapshot, write_atomic

APP = '''import json

from openai import OpenAI

client = OpenAI()


def ask(question, history, profile: dict[str, str]):
    system = "You are the support assistant. Profile: " + json.dumps(profile) + "\\nAnswer briefly and cite the documents."
    return client.chat.completions.create(
        model="gpt-4o", messages=[{"role": "system", "content": system}, *history, {"role": "user", "content": question}])
'''
FIXED = APP.replace("json.dumps(profile)", "json.dumps(profile, sort_keys=True)")


@pytest.fixture
def tree(tmp_path, monkeypatch):
    (tmp_path / "app.py").write_text(APP)
    (tmp_path / "promptlint.toml").write_text('ignore = ["PRM301"]\n')
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_the_plain_fix_works(tree):
    result = invoke("fix", ".")
    assert result.exit_code == 0, result.stderr
    assert (tree / "app.py").read_text() == FIXED


# --- the exact text ----------------------------------------------------------------------------

def test_edits_are_computed_from_the_text_that_is_fixed_not_the_one_checked(tree):
    """The check saw one text; before the fixer reads it, the user adds sort_keys themselves and
    edits a line: the old edits must not be applied (that wrote `sort_keys=True, sort_keys=True`)."""
    from promptlint.api import check
    report = check(["."])
    assert any(d.code == "PRM201" for d in report.diagnostics)
    edited = FIXED.replace("Answer briefly", "Answer very briefly")
    (tree / "app.py").write_text(edited)
    run = fix_paths(["."], report=report, check=check)
    assert (tree / "app.py").read_text() == edited
    assert run.write_errors == [] and run.fixed == 0


def test_a_file_changed_between_reading_and_writing_is_fixed_again(tree, monkeypatch):
    """Another program saves the file while the fixer works: the write is refused, the file is
    read again and fixed over the user's text; the user's edit stays."""
    real = fixer.fix_file
    calls = []

    def fix_then_user_saves(path, *args, **kwargs):
        result = real(path, *args, **kwargs)
        if not calls:
            (tree / "app.py").write_text(APP.replace("support assistant", "help-desk assistant"))
        calls.append(path)
        return result

    monkeypatch.setattr(fixer, "fix_file", fix_then_user_saves)
    run = fix_paths(["."], check=check)
    assert len(calls) == 2 and run.write_errors == []
    assert (tree / "app.py").read_text() == FIXED.replace("support assistant", "help-desk assistant")


def test_a_file_that_keeps_changing_is_skipped_with_a_message_and_exit_2(tree, monkeypatch):
    real = fixer.fix_file
    versions = iter(range(100))

    def user_saves_every_time(path, *args, **kwargs):
        result = real(path, *args, **kwargs)
        (tree / "app.py").write_text(APP + f"# edit {next(versions)}\n")
        return result

    monkeypatch.setattr(fixer, "fix_file", user_saves_every_time)
    result = invoke("fix", ".")
    assert result.exit_code == 2
    assert "cannot write app.py: another program changed it each time it was fixed (3 times)" in result.stderr
    assert (tree / "app.py").read_text() == APP + "# edit 2\n"  # the user's last edit, untouched


def test_write_atomic_refuses_a_file_changed_since_its_snapshot(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    snapshot = read_snapshot(path)
    path.write_text("x = 2\n")
    with pytest.raises(ChangedError):
        write_atomic(path, "x = 3\n", expected=snapshot)
    assert path.read_text() == "x = 2\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py"]  # no temporary file left


# --- the result compiles -----------------------------------------------------------------------

def test_the_fixed_text_must_compile_not_only_parse(tmp_path):
    check = parse_check_for(tmp_path / "m.py", "def f():\n    return 1\n")
    assert check("def f():\n    return 2\n")
    assert not check("return 2\n")                 # parses, does not compile
    assert not check("def f(a, a):\n    pass\n")   # parses, does not compile
    assert not check("def f(:\n")

    def lint(text):
        if "return" in text.split("\n")[0]:
            return []
        return [Diagnostic("PRM900", "fake", Severity.WARNING, "fake", Span("m.py", Position(2, 1), Position(2, 5)),
                           fix=Fix(Applicability.SAFE, "dedent", [Edit("", Position(2, 1), Position(2, 5))]))]
    result = fix_file(tmp_path / "m.py", lint, False, check, text="def f():\n    return 1\n")
    assert result.error == SYNTAX_ERROR and not result.changed


# --- after every fix the finding is gone --------------------------------------------------------

def test_a_fix_whose_finding_stays_is_withheld(tmp_path):
    """A fake rule whose fix changes the text but not the finding: nothing is applied."""
    def lint(text):
        lines = text.split("\n")
        row = lines.index(next(line for line in lines if "now" in line)) + 1
        start = lines[row - 1].index("now") + 1
        edit = [Edit("# moved\n", Position(row, 1), Position(row, 1))] if "# moved" not in text else []
        return [Diagnostic("PRM900", "fake", Severity.WARNING, "fake",
                           Span("m.py", Position(row, start), Position(row, start + 3)),
                           fix=Fix(Applicability.UNSAFE, "move", edit))]
    result = fix_file(tmp_path / "m.py", lint, True, lambda t: True, text="a = 1\nb = now\n")
    assert not result.changed and result.fixed_count == 0
    assert result.withheld == ["PRM900 at 2:5: fix not applied, the finding would stay after it"]


def test_an_unsafe_move_that_cannot_clear_the_finding_is_not_applied(tree):
    app = '''from datetime import datetime
from pathlib import Path

from openai import OpenAI

client = OpenAI()
RULES = Path(__file__).with_name("rules.md").read_text()


def ask(question):
    header = (
        f"Current time: {datetime.now().isoformat()}\\n"
        "You are the support assistant of Acme. Answer from the documents and cite them.\\n"
    )
    return client.chat.completions.create(
        model="gpt-4o", messages=[{"role": "system", "content": header + RULES}, {"role": "user", "content": question}])
'''
    (tree / "app.py").write_text(app)
    # enough static text after the time to be cached (a warning): over 1,024 tokens
    (tree / "rules.md").write_text("".join(f"{i}. Never invent facts about order {i}; cite the document you use.\n"
                                           for i in range(1, 100)))
    found = [d for d in check(["."]).diagnostics if d.code == "PRM102"]
    # the move would leave the time before `RULES`: the finding would stay, so none is offered
    assert [(d.severity, d.fix) for d in found] == [(Severity.WARNING, None)]
    result = invoke("fix", "--unsafe-fixes", ".")
    assert (tree / "app.py").read_text() == app
    assert "fix not applied" not in result.stderr and "0 fixed, 1 remaining" in result.stderr
    assert result.exit_code == 1


RULES_TEXT = "".join(f"{i}. Never invent facts about order {i}; cite the document you use.\n" for i in range(1, 100))
MOVE_APP = """from datetime import datetime
from pathlib import Path

from openai import OpenAI

client = OpenAI()
RULES = Path(__file__).with_name("rules.md").read_text()


def ask(question, order):
    system = (
        f"Current time: {datetime.now():%H:%M}\\n"
{tail}
    )
    return client.chat.completions.create(
        model="gpt-4o", messages=[{"role": "system", "content": system}, {"role": "user", "content": question}])
"""


def _fix_twice(tree, app):
    """`fix --unsafe-fixes` on app.py, then again: (first result, text after it, second result)."""
    (tree / "app.py").write_text(app)
    (tree / "rules.md").write_text(RULES_TEXT)
    first = invoke("fix", "--unsafe-fixes", ".")
    after = (tree / "app.py").read_text()
    second = invoke("fix", "--unsafe-fixes", ".")
    assert (tree / "app.py").read_text() == after  # idempotent
    return first, after, second


def test_a_move_that_caches_nothing_more_is_not_applied(tree):
    """The time sits before a small static tail and the user's question (per-request content)
    before the long rules: moving it to the end of its string takes it past two words and the
    question, so the prompt caches nothing more (the question still breaks the prefix), and the
    time, still before the rules behind the question, keeps its own PRM102 finding (a cause of its
    own). Nothing is gained: the move is withheld, the file left as it is."""
    app = MOVE_APP.replace("{tail}", '        "Be brief.\\n"\n        f"Question: {question}\\n"\n        + RULES')
    (tree / "app.py").write_text(app)
    (tree / "rules.md").write_text(RULES_TEXT)
    before = [d for d in check(["."]).diagnostics if d.code == "PRM102"]
    assert len(before) == 1 and before[0].fix is None  # not offered: the rule sees where it would land
    first, after, second = _fix_twice(tree, app)
    assert after == app
    assert "fix not applied" not in first.stderr and "0 fixed" in first.stderr
    assert first.exit_code == 1 and second.exit_code == 1


def test_a_move_that_caches_more_is_applied(tree):
    """The same time before the long rules, the order after them: the move takes the time past
    the rules, which are then cached on every request."""
    app = MOVE_APP.replace("{tail}", '        + RULES\n        + "Be brief.\\n"\n        + f"Order: {order}\\n"')
    first, after, second = _fix_twice(tree, app)
    assert after == app.replace('        f"Current time: {datetime.now():%H:%M}\\n"\n        + RULES\n',
                                "        RULES\n").replace('        + f"Order: {order}\\n"\n',
                                                            '        + f"Order: {order}\\n"\n'
                                                            '        + f"Current time: {datetime.now():%H:%M}\\n"\n')
    assert "fix not applied" not in first.stderr and first.exit_code == 0
    assert "0 fixed, 0 remaining" in second.stderr
    assert [d.code for d in check(["."]).diagnostics] == []


def test_a_time_whose_loss_is_zero_is_no_finding(tree):
    """A whole request below the model's minimum whether the time moves or not loses nothing: no
    finding (it would say nothing is lost), no fix, and `fix --unsafe-fixes` changes nothing."""
    app = MOVE_APP.replace("{tail}", '        "You are the support assistant of Acme. Answer from the documents and cite them.\\n"\n'
                                     '        "Never invent facts. Always cite the document you use. Ask for the order number.\\n"')
    (tree / "app.py").write_text(app)
    (tree / "rules.md").write_text("")
    found = [d for d in check(["."]).diagnostics if d.code == "PRM102"]
    assert found == []
    first, after, _ = _fix_twice(tree, app)
    assert after == app and "0 fixed" in first.stderr and "fix not applied" not in first.stderr


# --- what the file is: permissions, owner, links, encodings --------------------------------------

def test_a_read_only_file_is_not_rewritten(tree):
    os.chmod(tree / "app.py", 0o444)
    result = invoke("fix", ".")
    assert result.exit_code == 2
    assert "cannot write app.py: read-only (mode 0444); left as it is" in result.stderr
    assert (tree / "app.py").read_text() == APP
    assert stat.S_IMODE((tree / "app.py").stat().st_mode) == 0o444
    assert "Traceback" not in result.stderr


def test_a_hard_linked_file_is_not_rewritten(tree):
    os.link(tree / "app.py", tree / "other_name.txt")
    result = invoke("fix", "app.py")
    assert result.exit_code == 2
    assert "cannot write app.py: it has 2 hard links" in result.stderr
    assert (tree / "app.py").read_text() == APP and (tree / "other_name.txt").read_text() == APP
    assert (tree / "app.py").stat().st_ino == (tree / "other_name.txt").stat().st_ino


def test_mode_and_owner_are_kept(tree):
    path = tree / "app.py"
    os.chmod(path, 0o640)
    if os.geteuid() == 0:
        os.chown(path, 12345, 23456)
    before = path.stat()
    assert invoke("fix", ".").exit_code == 0
    after = path.stat()
    assert path.read_text() == FIXED
    assert stat.S_IMODE(after.st_mode) == 0o640
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)


def test_a_file_whose_owner_cannot_be_kept_is_skipped(tree, monkeypatch):
    """A normal user cannot give the new file another user's ownership: skip the file."""
    import promptlint.writer as writer
    real_stat = os.stat

    def other_owner(path, *args, **kwargs):
        st = real_stat(path, *args, **kwargs)
        if str(path).endswith("app.py"):
            fields = list(st)
            fields[4] = st.st_uid + 4242  # st_uid
            return os.stat_result(fields)
        return st

    def chown(*args):
        raise PermissionError(1, "Operation not permitted")
    monkeypatch.setattr(writer.os, "stat", other_owner)
    monkeypatch.setattr(writer.os, "chown", chown)
    result = invoke("fix", ".")
    assert result.exit_code == 2
    assert "which a rewritten file could not keep; left as it is" in result.stderr
    assert (tree / "app.py").read_text() == APP
    # no temporary file left beside it (the cache folder is the check's, as `check` makes it)
    assert sorted(p.name for p in tree.iterdir() if p.name != ".promptlint_cache") == ["app.py", "promptlint.toml"]


def test_cr_only_files_are_fixed_and_written_back_with_cr(tree):
    (tree / "app.py").write_bytes(APP.replace("\n", "\r").encode())
    result = invoke("fix", ".")
    assert result.exit_code == 0, result.stderr
    assert (tree / "app.py").read_bytes() == FIXED.replace("\n", "\r").encode()


@pytest.mark.parametrize("raw, encoding, new, expected", [
    ("# -*- coding: latin-1 -*-\nx = 'é'\n", "latin-1", "# -*- coding: latin-1 -*-\nx = 'é'\ny = 'à'\n", None),
    ("x = 'é'\ry = 1\r", "utf-8", "x = 'é'\ny = 2\nz = 3\n", "x = 'é'\ry = 2\rz = 3\r"),
    ("\ufeffx = 1\r\ny = 1\r\n", "utf-8", "x = 1\ny = 2\n", "\ufeffx = 1\r\ny = 2\r\n"),
])
def test_files_are_written_back_in_their_encoding_bom_and_line_endings(tmp_path, raw, encoding, new, expected):
    path = tmp_path / "m.py"
    path.write_bytes(raw.encode(encoding))
    snapshot = read_snapshot(path)
    assert snapshot.text == raw.lstrip("\ufeff").replace("\r\n", "\0").replace("\r", "\n").replace("\0", "\r\n")
    write_atomic(path, new, expected=snapshot)
    assert path.read_bytes() == (expected or new).encode(encoding)


def test_text_the_encoding_cannot_hold_is_not_written(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes("# -*- coding: latin-1 -*-\nx = 1\n".encode("latin-1"))
    with pytest.raises(WriteError, match="cannot be encoded in iso-8859-1"):
        write_atomic(path, "# -*- coding: latin-1 -*-\nx = '€'\n", expected=read_snapshot(path))
    assert path.read_bytes() == b"# -*- coding: latin-1 -*-\nx = 1\n"


def test_write_failures_are_a_message_and_exit_2(tree, monkeypatch):
    import tempfile

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    result = invoke("fix", ".")
    assert result.exit_code == 2
    assert f"cannot write app.py: Permission denied (a temporary file in {tree})" in result.stderr
    assert (tree / "app.py").read_text() == APP
    assert "Traceback" not in result.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_fix_in_a_read_only_folder(tree):  # pragma: no cover - runs for a normal user
    os.chmod(tree, 0o555)
    try:
        result = invoke("fix", ".")
    finally:
        os.chmod(tree, 0o755)
    assert result.exit_code == 2 and "cannot write in" in result.stderr
    assert (tree / "app.py").read_text() == APP


def test_an_unwritable_output_file_is_a_message_and_exit_2(tree, monkeypatch):
    import pathlib
    real = pathlib.Path.write_text

    def refuse(self, *args, **kwargs):
        if self.name == "report.json":
            raise PermissionError(13, "Permission denied")
        return real(self, *args, **kwargs)
    monkeypatch.setattr(pathlib.Path, "write_text", refuse)
    result = invoke("check", "--fix", "--output-file", "report.json", ".")
    assert result.exit_code == 2
    assert "cannot write --output-file report.json: Permission denied" in result.stderr
    assert "Traceback" not in result.stderr


def test_write_atomic_never_leaks_oserror(tmp_path):
    missing_folder = tmp_path / "gone" / "m.py"
    with pytest.raises(WriteError):
        write_atomic(missing_folder, "x\n")


def test_the_check_serves_as_first_pass_only_when_its_fixes_name_the_text_read(tree, monkeypatch):
    import hashlib

    from promptlint.model import Report
    row = APP.split("\n").index(next(line for line in APP.split("\n") if "json.dumps(profile)" in line)) + 1
    col = APP.split("\n")[row - 1].index("json.dumps(profile)") + len("json.dumps(profile") + 1
    calls = []
    real = fixer._lint_text
    monkeypatch.setattr(fixer, "_lint_text", lambda *a: calls.append(a[2]) or real(*a))

    def report(digest):
        fix = Fix(Applicability.SAFE, "Add `sort_keys=True`", [Edit(", sort_keys=True", Position(row, col), Position(row, col))],
                  digest=digest)
        return Report([Diagnostic("PRM201", "unsorted-json-dumps", Severity.WARNING, "x",
                                  Span("app.py", Position(row, col - 18), Position(row, col + 1)), fix=fix)])

    run = fix_paths(["."], report=report(hashlib.sha256(APP.encode()).hexdigest()), write=False, check=check)
    assert run.changed[0].result.new_text == FIXED
    assert calls == [FIXED]                 # the check's diagnostics were the first pass
    calls.clear()
    run = fix_paths(["."], report=report("0" * 64), write=False, check=check)   # computed from another text
    assert run.changed[0].result.new_text == FIXED
    assert calls == [APP, FIXED]            # the text read was linted again first


def test_a_fix_built_for_another_file_is_never_attached_to_a_finding(tmp_path):
    from promptlint.rules.prm202_unordered_iteration_in_prompt import UnorderedIterationInPromptRule
    rule = UnorderedIterationInPromptRule()
    edit = Edit("sorted(names)", Position(3, 12), Position(3, 17))
    here = Span("app.py", Position(9, 5), Position(9, 10))
    elsewhere = Fix(Applicability.UNSAFE, "Sort it", [edit], filename="helpers.py")
    own = Fix(Applicability.UNSAFE, "Sort it", [edit], filename="app.py")
    assert rule.diagnostic("m", here, fix=elsewhere).fix is None
    assert rule.diagnostic("m", here, fix=own).fix is own
    # the codemod layer names the file of the anchor it built the edits from
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    fixed = [d for d in check([tmp_path]).diagnostics if d.fix is not None]
    assert fixed and all(d.fix.filename == d.span.filename for d in fixed)


def test_fix_never_writes_outside_the_paths_given(tmp_path, monkeypatch):
    """A copy of a package checked beside the package it was copied from: its `from pkg.helper
    import ...` is read from the original, whose finding concerns the copy's prompt; `fix` of the
    copy rewrites the copy's own helper and leaves the original as it was."""
    from promptlint import api
    helper = "import json\n\n\ndef tool_specs(tools):\n    return [json.dumps(t) for t in set(tools)]\n"
    app = ("from openai import OpenAI\n\nfrom pkg.helper import tool_specs\n\nclient = OpenAI()\n\n\n"
           "def ask(question, tools):\n    specs = \"\\n\".join(tool_specs(tools))\n"
           "    return client.chat.completions.create(model=\"gpt-4.1\", messages=[\n"
           "        {\"role\": \"system\", \"content\": \"Tools:\\n\" + specs + \"\\nAnswer briefly. \" * 50},\n"
           "        {\"role\": \"user\", \"content\": question}])\n")
    for folder in ("pkg", "copy-pkg"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("", encoding="utf-8")
        (tmp_path / folder / "helper.py").write_text(helper, encoding="utf-8")
        (tmp_path / folder / "app.py").write_text(app, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    before = api.check(["copy-pkg"], jobs=1)
    assert "pkg/helper.py" in {d.span.filename for d in before.diagnostics}  # read beside the copy
    api.fix(["copy-pkg"], unsafe=True, jobs=1)
    assert (tmp_path / "pkg" / "helper.py").read_text(encoding="utf-8") == helper
    assert "sorted(set(tools))" in (tmp_path / "copy-pkg" / "helper.py").read_text(encoding="utf-8")


TOOLS_FROM_NAMES = '''from openai import OpenAI

client = OpenAI()
NAMES = {"search", "lookup", "calc"}


def answer(question, history):
    tools = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in NAMES]
    return client.chat.completions.create(model="gpt-4.1", tools=tools,
                                          messages=[*history, {"role": "user", "content": question}])
'''


def test_tools_ordered_by_a_set_of_names_are_sorted_once_where_the_order_enters(tmp_path, monkeypatch):
    """The tool dicts built from a set of strings: the set is sorted in the comprehension that
    iterates it (the finding's place), not the built list a second time at the send site."""
    (tmp_path / "app.py").write_text(TOOLS_FROM_NAMES)
    monkeypatch.chdir(tmp_path)
    run = fix_paths(["app.py"], write=False, check=check)
    [changed] = run.changed
    assert changed.result.new_text == TOOLS_FROM_NAMES.replace("for n in NAMES]", "for n in sorted(NAMES)]")
    assert run.fixed == 1 and changed.result.remaining == []
