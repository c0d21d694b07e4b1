"""Suppression comments per file type, and PRM901 unused-suppression with its fix."""
from __future__ import annotations

import textwrap

import pytest

from promptlint.model import Applicability, Diagnostic, Edit, Position, Severity, Span
from promptlint.rules import ALL_RULES
from promptlint.rules.prm901_unused_suppression import suppress
from promptlint.suppress import apply_suppressions, file_kind, parse_suppressions

NAMES = {"PRM101": "dynamic-before-static", "PRM102": "timestamp-in-prefix",
         "PRM103": "unique-id-in-prefix", "PRM104": "conditional-prefix"}


def diag(filename: str, row: int, code: str = "PRM102", column: int = 5) -> Diagnostic:
    return Diagnostic(code=code, name=NAMES.get(code, "x"), severity=Severity.WARNING,
                      message="m", span=Span(filename, Position(row, column),
                                             Position(row, column + 3)))


def run(files: dict[str, str], diagnostics: list[Diagnostic]):
    files = {name: textwrap.dedent(text) for name, text in files.items()}
    return apply_suppressions(diagnostics, files.get)


def rows(kept):
    return [(d.span.filename, d.span.start.row, d.code) for d in kept]


def apply_edits(text: str, edits: list[Edit]) -> str:
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def off(p: Position) -> int:
        return offsets[p.row - 1] + p.column - 1 if p.row - 1 < len(offsets) else len(text)

    for e in sorted(edits, key=lambda e: e.start, reverse=True):
        text = text[:off(e.start)] + e.content + text[off(e.end):]
    return text


# --- file kinds --------------------------------------------------------------------------------

@pytest.mark.parametrize("name, kind", [
    ("app/chat.py", "python"), ("system.j2", "jinja"), ("system.md.j2", "jinja"),
    ("p.jinja2", "jinja"), ("x.jinja.md", "jinja"), ("prompts.yaml", "yaml"),
    ("prompts.yml", "yaml"), ("pyproject.toml", "toml"), ("system.md", None),
    ("system.txt", None), ("Makefile", None),
])
def test_file_kind(name, kind):
    assert file_kind(name) == kind


# --- Python ------------------------------------------------------------------------------------

PY = """\
import datetime
a = f"now {datetime.datetime.now()}"  # promptlint: ignore[PRM102]
# promptlint: ignore[PRM102]
b = f"now {datetime.datetime.now()}"
c = f"now {datetime.datetime.now()}"  # noqa: PRM102
d = f"now {datetime.datetime.now()}"  # noqa: E501, PRM1
e = f"now {datetime.datetime.now()}"  # noqa
f = f"now {datetime.datetime.now()}"  # noqa: E501
g = f"now {datetime.datetime.now()}"  # promptlint: ignore[timestamp-in-prefix]
h = f"now {datetime.datetime.now()}"  # promptlint: ignore[PRM103]
i = f"now {datetime.datetime.now()}"
"""


def test_python_line_suppressions():
    diagnostics = [diag("a.py", r) for r in range(2, 12) if r != 3]
    kept, used = run({"a.py": PY}, diagnostics)
    # e (a bare noqa: another linter's, as the README says; main: it covered every rule when the
    # file held another directive, and nothing otherwise), f (other linter's noqa), h (other code)
    # and i (no comment) stay
    assert rows(kept) == [("a.py", 7, "PRM102"), ("a.py", 8, "PRM102"), ("a.py", 10, "PRM102"), ("a.py", 11, "PRM102")]
    assert sorted((s.row, s.directive, tuple(sel)) for s, sel in used.items()) == [
        (2, "promptlint", ("PRM102",)), (3, "promptlint", ("PRM102",)),
        (5, "noqa", ("PRM102",)), (6, "noqa", ("PRM1",)),
        (9, "promptlint", ("timestamp-in-prefix",)),
    ]


def test_trailing_comment_does_not_cover_next_line():
    text = 'a = 1  # noqa: PRM102\nb = f"{now()}"\n'
    kept, _ = run({"a.py": text}, [diag("a.py", 2)])
    assert rows(kept) == [("a.py", 2, "PRM102")]


def test_the_readme_and_ci_guide_say_where_a_comment_covers():
    # (main: the README said "on the line or the line above", which a comment at the end of the
    # line above does not do, as ruff's noqa; docs/ci.md said only the own-line form)
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    readme = " ".join((root / "README.md").read_text().split())
    assert ("at the end of its line (as ruff's `# noqa`: a comment there covers that line only, not the next "
            "one) or alone on the line above it") in readme
    ci = " ".join((root / "docs" / "ci.md").read_text().split())
    assert ("A comment at the end of a line covers that line only (as ruff's `# noqa`, not the next line); "
            "a comment on its own line covers the next line.") in ci


def test_own_line_comment_skips_blank_and_comment_lines():
    text = """\
    # promptlint: ignore[PRM102]
    # noqa: PRM103

    x = f"{now()} {uuid4()}"
    y = f"{now()}"
    """
    kept, _ = run({"a.py": text}, [diag("a.py", 4, "PRM102"), diag("a.py", 4, "PRM103"),
                                   diag("a.py", 5, "PRM102")])
    assert rows(kept) == [("a.py", 5, "PRM102")]


def test_comment_covers_whole_multiline_string():
    text = '''\
    # promptlint: ignore[PRM102]
    SYSTEM = f"""You are a bot.
    Today is {datetime.now()}.
    Be brief."""
    OTHER = f"""Also
    {datetime.now()}
    """  # noqa: PRM102
    LAST = f"""
    {datetime.now()}
    """
    '''
    kept, _ = run({"a.py": text}, [diag("a.py", 3), diag("a.py", 6), diag("a.py", 9)])
    assert rows(kept) == [("a.py", 9, "PRM102")]


def test_comment_text_inside_a_string_is_prompt_text_not_a_directive():
    text = 'SYSTEM = "Ignore this # promptlint: ignore[PRM102]"\nX = f"{now()}"\n'
    assert parse_suppressions("a.py", text) == []


def test_file_level_ignore():
    text = "# promptlint: file-ignore[PRM1]\nx = 1\ny = 2\n"
    kept, used = run({"a.py": text}, [diag("a.py", 2, "PRM102"), diag("a.py", 3, "PRM104"),
                                      diag("a.py", 3, "PRM901"), diag("b.py", 2, "PRM102")])
    assert rows(kept) == [("a.py", 3, "PRM901"), ("b.py", 2, "PRM102")]
    assert [s.directive for s in used] == ["file"]


def test_code_less_promptlint_ignore_covers_every_rule():
    text = "x = 1  # promptlint: ignore\n"
    kept, _ = run({"a.py": text}, [diag("a.py", 1, "PRM101"), diag("a.py", 1, "PRM104")])
    assert kept == []


def test_unparsable_python_has_no_suppressions():
    assert parse_suppressions("a.py", 'x = (\n# noqa: PRM102\n') == []


def test_unreadable_file_suppresses_nothing():
    kept, used = apply_suppressions([diag("gone.py", 1)], lambda name: None)
    assert len(kept) == 1 and used == {}


# --- Jinja, YAML, TOML, prompt files ------------------------------------------------------------

def test_jinja_comment_forms():
    text = """\
    {# promptlint: ignore[PRM102] #}
    Today is {{ now() }}.
    Time: {{ now() }} {# noqa: PRM102 #}
    Id: {{ uuid }} {#- promptlint: ignore[PRM102] -#}
    {{ now() }}
    """
    kept, _ = run({"s.j2": text}, [diag("s.j2", r) for r in (2, 3, 4, 5)])
    assert rows(kept) == [("s.j2", 5, "PRM102")]


def test_jinja_file_ignore():
    text = "{# promptlint: file-ignore[PRM104] #}\n{% if x %}a{% endif %}\n"
    kept, _ = run({"s.md.j2": text}, [diag("s.md.j2", 2, "PRM104")])
    assert kept == []


def test_yaml_comments_and_block_scalars():
    text = """\
    # promptlint: ignore[PRM102]
    system: |
      You are a bot.
      Today is {date}.
    other: "Today # promptlint: ignore[PRM103]"  # noqa: PRM102
    notes: |
      # promptlint: ignore[PRM102]
      Time {time}
    """
    kept, used = run({"p.yaml": text}, [diag("p.yaml", 4), diag("p.yaml", 5),
                                        diag("p.yaml", 5, "PRM103"), diag("p.yaml", 8)])
    # the block scalar line `# promptlint: ...` in `notes` is prompt text, not a comment
    assert rows(kept) == [("p.yaml", 5, "PRM103"), ("p.yaml", 8, "PRM102")]
    assert sorted(s.row for s in used) == [1, 5]


def test_toml_comments_and_multiline_strings():
    text = '''\
    [assistant]
    # promptlint: ignore[PRM102]
    system = """You are a bot.
    Today is {date}. # promptlint: ignore[PRM103]
    """
    note = "x # noqa: PRM103"  # noqa: PRM102
    '''
    kept, used = run({"p.toml": text}, [diag("p.toml", 4), diag("p.toml", 4, "PRM103"),
                                        diag("p.toml", 6), diag("p.toml", 6, "PRM103")])
    assert rows(kept) == [("p.toml", 4, "PRM103"), ("p.toml", 6, "PRM103")]
    assert sorted(s.row for s in used) == [2, 6]


@pytest.mark.parametrize("name", ["system.md", "system.txt"])
def test_plain_prompt_files_have_no_suppressions(name):
    text = "promptlint: ignore[PRM102]\n# noqa: PRM102\n<!-- promptlint: ignore[PRM102] -->\n"
    assert parse_suppressions(name, text) == []


# --- PRM901 unused-suppression ----------------------------------------------------------------

def unused(files: dict[str, str], diagnostics, enabled=lambda code, filename: True):
    files = {name: textwrap.dedent(text) for name, text in files.items()}
    out = suppress(diagnostics, list(files), files.get, enabled, rules=ALL_RULES)
    return [d for d in out if d.code == "PRM901"], files


def fixed(files, diagnostics, name, **kw):
    found, files = unused(files, diagnostics, **kw)
    edits = [e for d in found if d.span.filename == name for e in d.fix.edits]
    return apply_edits(files[name], edits)


def test_unused_suppression_reported_with_safe_fix():
    text = "x = 1  # noqa: PRM102\ny = 2\n"
    found, _ = unused({"a.py": text}, [])
    assert len(found) == 1
    d = found[0]
    assert (d.name, d.severity, d.span.start, d.span.end) == (
        "unused-suppression", Severity.INFO, Position(1, 8), Position(1, 22))
    assert d.message == "Unused suppression (unused: `PRM102`)"
    assert d.fix.applicability is Applicability.SAFE
    assert fixed({"a.py": text}, [], "a.py") == "x = 1\ny = 2\n"


def test_used_suppression_is_not_reported():
    found, _ = unused({"a.py": "x = 1  # noqa: PRM102\n"}, [diag("a.py", 1)])
    assert found == []


def test_comment_only_line_is_deleted_whole():
    text = "# promptlint: ignore[PRM102]\nx = 1\n"
    assert fixed({"a.py": text}, [], "a.py") == "x = 1\n"


def test_only_unused_codes_are_removed_from_a_list():
    text = "x = 1  # noqa: E501, PRM102, PRM103\n"
    found, _ = unused({"a.py": text}, [diag("a.py", 1, "PRM103")])
    assert [d.message for d in found] == ["Unused suppression (unused: `PRM102`)"]
    assert fixed({"a.py": text}, [diag("a.py", 1, "PRM103")], "a.py") == \
        "x = 1  # noqa: E501, PRM103\n"


def test_noqa_keeps_other_linters_codes():
    text = "x = 1  # noqa: E501, PRM102\n"
    assert fixed({"a.py": text}, [], "a.py") == "x = 1  # noqa: E501\n"


def test_bare_noqa_and_foreign_noqa_are_never_reported():
    found, _ = unused({"a.py": "x = 1  # noqa\ny = 2  # noqa: E501\n"}, [])
    assert found == []


def test_unknown_code_is_reported():
    found, _ = unused({"a.py": "x = 1  # promptlint: ignore[PRM999]\n"}, [])
    assert [d.message for d in found] == ["Unused suppression (unknown: `PRM999`)"]


def test_code_of_disabled_rule_is_not_reported():
    found, _ = unused({"a.py": "x = 1  # noqa: PRM102\n"}, [],
                      enabled=lambda code, filename: code != "PRM102")
    assert found == []


def test_prm901_disabled_for_file_reports_nothing():
    found, _ = unused({"a.py": "x = 1  # noqa: PRM102\n"}, [],
                      enabled=lambda code, filename: code != "PRM901")
    assert found == []


def test_code_less_unused_promptlint_ignore():
    found, _ = unused({"a.py": "x = 1  # promptlint: ignore\n"}, [])
    assert [d.message for d in found] == ["Unused suppression `# promptlint: ignore`"]


def test_fix_keeps_other_comment_text():
    text = "x = 1  # type: ignore  # noqa: PRM102\ny = 2  # noqa: PRM102 -- was flaky\n"
    assert fixed({"a.py": text}, [], "a.py") == "x = 1  # type: ignore\ny = 2  # -- was flaky\n"


def test_jinja_fix_removes_only_the_comment_and_keeps_the_line():
    text = "{# promptlint: ignore[PRM102] #}\nHello {{ name }} {# noqa: PRM103 #}\n"
    assert fixed({"s.j2": text}, [], "s.j2") == "\nHello {{ name }} \n"


def test_yaml_and_toml_fixes():
    assert fixed({"p.yaml": "# noqa: PRM102\nsystem: hi  # noqa: PRM102\n"}, [], "p.yaml") == \
        "system: hi\n"
    assert fixed({"p.toml": "system = 'hi'  # promptlint: ignore[PRM1]\n"}, [], "p.toml") == \
        "system = 'hi'\n"


def test_last_line_without_newline():
    assert fixed({"a.py": "x = 1\n# noqa: PRM102"}, [], "a.py") == "x = 1\n"


def test_fix_is_idempotent_and_leaves_nothing_unused():
    text = "# noqa: PRM102\nx = 1  # promptlint: ignore[PRM103, PRM102]\n"
    once = fixed({"a.py": text}, [diag("a.py", 2, "PRM103")], "a.py")
    assert once == "x = 1  # promptlint: ignore[PRM103]\n"
    assert unused({"a.py": once}, [diag("a.py", 1, "PRM103")])[0] == []


def test_suppress_returns_sorted_kept_and_unused():
    files = {"b.py": "x = 1  # noqa: PRM102\n", "a.py": "y = 2\n"}
    found = suppress([diag("a.py", 1, "PRM101"), diag("b.py", 1, "PRM102")], list(files),
                     files.get, rules=ALL_RULES)
    assert [(d.span.filename, d.code) for d in found] == [("a.py", "PRM101")]


# --- through the API -----------------------------------------------------------------------------

def test_check_applies_suppressions_and_reports_unused(tmp_path, monkeypatch):
    from promptlint.api import check
    from promptlint.config import Settings

    monkeypatch.chdir(tmp_path)
    line = '        {"role": "system", "content": f"Time: {datetime.datetime.now()}. Answer briefly, cite the policy section you rely on, and ask before any refund."},'
    source = ('import datetime\nfrom openai import OpenAI\nclient = OpenAI()\n'
              'def answer(q, history):\n'
              '    return client.chat.completions.create(model="gpt-4o", messages=[\n'
              f'{line}  # noqa: PRM102\n'
              '        *history, {"role": "user", "content": q}])  # promptlint: ignore[PRM103]\n')
    (tmp_path / "chat.py").write_text(source, encoding="utf-8")
    report = check(["chat.py"], Settings(root=tmp_path))
    found = [(d.code, d.span.start.row, d.message) for d in report.diagnostics]
    assert ("PRM901", 7, "Unused suppression (unused: `PRM103`)") in found
    assert not any(code == "PRM102" for code, _row, _m in found)
    assert not any(code == "PRM901" and row == 6 for code, row, _m in found)  # the noqa was used
    without = check(["chat.py"], Settings(root=tmp_path, ignore=["PRM901"]))
    assert not any(d.code == "PRM901" for d in without.diagnostics)
