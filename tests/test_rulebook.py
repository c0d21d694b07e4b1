"""The rulebook: every `rules/PRM*.md` spec, one test per `## ` case (STYLE.md sections 2 and 6).

Spec format: `# CODE name`, prose, then `## ` cases. In a case, a fenced block whose info string
is `py`, `jinja` / `j2`, `toml`, `yaml` / `yml`, `md` or `txt` is a file of a small project (named
by a line `` `path/name.py`: `` just before it; default names below); a `promptlint.toml` block
is the case's configuration; a `fixed` (or `fixed unsafe`) block right after a file block is
that file's expected content after `promptlint fix` (with `--unsafe-fixes`). Any other block is
documentation. Markers at the end of a line: `# error: [PRM102]` (or `{# error: [PRM102] #}` in
Jinja) means exactly one diagnostic of that code starts on the line at warning or error severity;
`# info: [PRM104]` the same at info. Markers are not supported in prompt text (`md`, `txt`): all
of it is prompt. Files are written verbatim, markers included (they are comments).

Each case: write the files into a temporary directory, run `check(["."])` there and compare the
diagnostics of the spec's own code with the markers; check that each diagnostic's fix agrees
with the rule's `fix_availability`, and that every applicable fix is shown in a `fixed` block.
For `fixed` blocks: run `promptlint fix .` (the CLI, every rule), compare the file, then fix
again (nothing may change), re-parse the result (libcst, jinja2, PyYAML, tomllib) and re-check it
(no diagnostic of the code with a fix of that applicability may remain).
"""
from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pytest
from click.testing import CliRunner

from promptlint.api import check
from promptlint.cli import main
from promptlint.config import Settings, load_settings
from promptlint.fix import is_applicable
from promptlint.model import Applicability, Edit, Fix, Severity
from promptlint.rules import ALL_RULES, rule_by_code
from promptlint.rules.base import Rule

RULES_DIR = Path(__file__).resolve().parent.parent / "rules"
FILE_BLOCKS = {"py": "example.py", "jinja": "template.j2", "j2": "template.j2", "toml": "example.toml",
               "yaml": "example.yaml", "yml": "example.yaml", "md": "example.md", "txt": "example.txt"}
MARKED_BLOCKS = {"py", "jinja", "j2", "toml", "yaml", "yml"}  # blocks where markers are comments
CONFIG_BLOCK = "promptlint.toml"
FIXED_BLOCKS = {"fixed": "safe", "fixed unsafe": "unsafe"}
MARKER = re.compile(r"#\s*(error|info):\s*\[([A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)\]")
ANY_MARKER = re.compile(r"\b(error|info):\s*\[[A-Z]+[0-9]+")  # also `<!-- error: [...] -->`
NAME_LINE = re.compile(r"^`([^`]+)`:\s*$")
FENCE = re.compile(r"^(`{3,}|~{3,})\s*(.*?)\s*$")
SUMMARY = re.compile(r"^promptlint: \d+ fixed, \d+ remaining")  # `promptlint fix`'s last line


class SpecError(Exception):
    """The spec file is malformed (not a failing rule): the message says where."""


@dataclass
class SpecFile:
    """One file of a case: its relative posix path, verbatim content and expected fixes."""

    path: str
    lang: str
    content: str
    line: int  # line of the opening fence in the spec, for messages
    fixed: dict[str, str] = field(default_factory=dict)  # "safe" | "unsafe" -> expected content


@dataclass
class Case:
    """One `## ` section of a spec."""

    spec: Path
    code: str
    title: str
    line: int
    files: list[SpecFile] = field(default_factory=list)
    config: str | None = None

    @property
    def id(self) -> str:
        return f"{self.spec.stem}::{self.title}"

    def where(self, line: int) -> str:
        return f"{self.spec.name}:{line}"


def _blocks(lines: list[str], start: int):
    """Yield ("fence", info, content, line) and ("text", line_text, None, line) items from
    `lines` (1-based line numbers offset by `start`); fences close on a run of the same
    character at least as long as the opening one."""
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            yield "text", lines[i], None, start + i
            i += 1
            continue
        fence, info, opened = m.group(1), m.group(2), i
        body: list[str] = []
        i += 1
        while i < len(lines):
            close = FENCE.match(lines[i])
            if close and close.group(1)[0] == fence[0] and len(close.group(1)) >= len(fence) and not close.group(2):
                break
            body.append(lines[i])
            i += 1
        else:
            raise SpecError(f"line {start + opened}: code block is never closed")
        yield "fence", info, "".join(line + "\n" for line in body), start + opened
        i += 1


def parse_spec(path: Path) -> list[Case]:
    """The cases of one spec file. Raises SpecError for a malformed spec."""
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    if not lines or not lines[0].startswith("# "):
        raise SpecError(f"{path.name}:1: a spec starts with `# CODE name`")
    heading = lines[0][2:].split()
    if len(heading) != 2 or f"{heading[0]}-{heading[1]}" != path.stem:
        raise SpecError(f"{path.name}:1: heading `{lines[0]}` does not match the file name `{path.stem}`")
    code = heading[0]
    # Split on `## ` headings outside code blocks.
    sections: list[tuple[str, int, list[str]]] = []
    in_fence: str | None = None
    for number, line in enumerate(lines[1:], start=2):
        m = FENCE.match(line)
        if m:
            if in_fence is None:
                in_fence = m.group(1)
            elif m.group(1)[0] == in_fence[0] and len(m.group(1)) >= len(in_fence) and not m.group(2):
                in_fence = None
        if in_fence is None and line.startswith("## "):
            sections.append((line[3:].strip(), number, []))
        elif sections:
            sections[-1][2].append(line)
    cases = []
    titles = Counter(title for title, _, _ in sections)
    for title, number, body in sections:
        if titles[title] > 1:
            raise SpecError(f"{path.name}:{number}: two cases are titled `{title}`")
        case = Case(path, code, title, number)
        pending: tuple[str, int] | None = None
        last_file: SpecFile | None = None
        for kind, info, content, line in _blocks(body, number + 1):
            if kind == "text":
                name = NAME_LINE.match(info)
                if name:
                    pending = (name.group(1), line)
                elif info.strip():
                    if pending:
                        raise SpecError(f"{path.name}:{pending[1]}: file name `{pending[0]}` is not followed by a code block")
                    last_file = None  # prose ends a file's `fixed` blocks
                continue
            if info in FILE_BLOCKS:
                name = pending[0] if pending else FILE_BLOCKS[info]
                _check_relative(name, path, line)
                if any(f.path == name for f in case.files):
                    raise SpecError(f"{path.name}:{line}: file `{name}` is defined twice in case `{title}`"
                                    " (name the blocks with a `` `path`: `` line)")
                if info not in MARKED_BLOCKS and ANY_MARKER.search(content):
                    raise SpecError(f"{path.name}:{line}: markers are not supported in `{info}` blocks"
                                    " (all of a prompt file is prompt): put the case in a py/yaml/jinja block")
                last_file = SpecFile(name, info, content, line)
                case.files.append(last_file)
            elif info == CONFIG_BLOCK:
                if pending:
                    raise SpecError(f"{path.name}:{line}: a `promptlint.toml` block takes no file name line")
                if case.config is not None:
                    raise SpecError(f"{path.name}:{line}: two `promptlint.toml` blocks in case `{title}`")
                case.config = content
            elif info in FIXED_BLOCKS:
                mode = FIXED_BLOCKS[info]
                if last_file is None or pending:
                    raise SpecError(f"{path.name}:{line}: a `{info}` block must follow the file block it fixes")
                if mode in last_file.fixed:
                    raise SpecError(f"{path.name}:{line}: two `{info}` blocks for `{last_file.path}`")
                last_file.fixed[mode] = content
            else:
                if pending:
                    raise SpecError(f"{path.name}:{pending[1]}: file name `{pending[0]}` is followed by a "
                                    f"`{info}` block, which is not a file (use one of {sorted(FILE_BLOCKS)})")
                if ANY_MARKER.search(content):
                    raise SpecError(f"{path.name}:{line}: a `{info}` block has markers but is not a file"
                                    f" (use one of {sorted(FILE_BLOCKS)})")
                last_file = None
            pending = None
        if pending:
            raise SpecError(f"{path.name}:{pending[1]}: file name `{pending[0]}` is not followed by a code block")
        if not case.files:
            raise SpecError(f"{path.name}:{number}: case `{title}` has no file block")
        cases.append(case)
    if not cases:
        raise SpecError(f"{path.name}: no `## ` case")
    return cases


def _check_relative(name: str, spec: Path, line: int) -> None:
    p = PurePosixPath(name)
    if p.is_absolute() or ".." in p.parts or not p.parts:
        raise SpecError(f"{spec.name}:{line}: file name `{name}` must be a relative path inside the case")


def _spec_files() -> list[Path]:
    return sorted(RULES_DIR.glob("PRM*.md"))


def _all_cases():
    params = []
    for spec in _spec_files():
        try:
            cases = parse_spec(spec)
        except SpecError as exc:
            params.append(pytest.param(None, str(exc), id=f"{spec.stem}::<spec error>"))
            continue
        params.extend(pytest.param(case, None, id=case.id) for case in cases)
    return params


# --- running a case -------------------------------------------------------------------------------

def _expected(case: Case) -> Counter:
    """(file, row, level) -> count, level "error" (warning or error) or "info"."""
    found: Counter = Counter()
    for f in case.files:
        if f.lang not in MARKED_BLOCKS:
            continue
        for row, line in enumerate(f.content.split("\n"), start=1):
            for level, codes in MARKER.findall(line):
                for code in (c.strip() for c in codes.split(",")):
                    if code == case.code:
                        found[(f.path, row, level)] += 1
    return found


def _level(severity: Severity) -> str:
    return "info" if severity is Severity.INFO else "error"


def _filename(name: str) -> str:
    return PurePosixPath(name.replace("\\", "/")).as_posix().removeprefix("./")


def _settings(root: Path, case: Case) -> Settings:
    return load_settings(root / CONFIG_BLOCK) if case.config is not None else Settings()


def _own(report, code: str) -> list:
    return [d for d in report.diagnostics if d.code == code]


def _describe(diags) -> str:
    if not diags:
        return "    (none)"
    return "\n".join(f"    {_filename(d.span.filename)}:{d.span.start.row}:{d.span.start.column} "
                     f"{d.severity.value} {d.message}" for d in diags)


def _write_case(root: Path, case: Case) -> None:
    for f in case.files:
        target = root / f.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f.content, encoding="utf-8")
    if case.config is not None:
        (root / CONFIG_BLOCK).write_text(case.config, encoding="utf-8")


def _run_fix(case: Case, unsafe: bool) -> None:
    """`promptlint fix .` as a user runs it (every rule: PRM901 depends on the others)."""
    args = ["fix", "--exit-zero"]
    args += ["--config", CONFIG_BLOCK] if case.config is not None else ["--isolated"]
    if unsafe:
        args.append("--unsafe-fixes")
    result = CliRunner().invoke(main, [*args, "."], catch_exceptions=False)
    assert result.exit_code == 0, f"`promptlint {' '.join(args)} .` exited {result.exit_code}:\n{result.output}"
    problems = [line for line in result.stderr.splitlines()
                if line.startswith("promptlint: ") and not SUMMARY.match(line)]
    assert not problems, f"`promptlint {' '.join(args)} .` reported:\n" + "\n".join(problems)


def _parses(path: Path, text: str, strict: bool = True) -> str | None:
    """None when `text` parses as the kind of `path`, else the error. For Python, libcst and
    (when `strict`: the original compiled too) Python's own compiler, which is not run."""
    suffix = path.suffix
    try:
        if suffix == ".py":
            import libcst
            libcst.parse_module(text)
            if strict:
                compile(text, str(path), "exec", dont_inherit=True)
        elif suffix in (".j2", ".jinja", ".jinja2"):
            import jinja2
            jinja2.Environment().parse(text)
        elif suffix in (".yaml", ".yml"):
            import yaml
            yaml.safe_load(text)
        elif suffix == ".toml":
            try:
                import tomllib
            except ImportError:  # Python 3.10
                import tomli as tomllib
            tomllib.loads(text)
    except Exception as exc:  # any parser's error
        return f"{type(exc).__name__}: {exc}"
    return None


@pytest.mark.parametrize(("case", "spec_error"), _all_cases())
def test_rulebook_case(case: Case | None, spec_error: str | None, tmp_path: Path, monkeypatch) -> None:
    assert spec_error is None, spec_error
    root = tmp_path / "case"
    root.mkdir()
    monkeypatch.chdir(root)
    run_case(case, root)


def run_case(case: Case, root: Path) -> None:
    """Run one case in `root`, the current directory (empty); fails the test on a mismatch."""
    rule = rule_by_code(case.code)
    assert rule is not None, f"{case.spec.name}: no registered rule {case.code}"
    _write_case(root, case)

    report = check(["."], _settings(root, case))
    diags = _own(report, case.code)
    actual = Counter((_filename(d.span.filename), d.span.start.row, _level(d.severity)) for d in diags)
    expected = _expected(case)
    if actual != expected:
        missing = sorted((expected - actual).elements())
        extra = [d for d in diags if (_filename(d.span.filename), d.span.start.row, _level(d.severity))
                 in (actual - expected)]
        lines = [f"{case.where(case.line)} `{case.title}`: diagnostics of {case.code} differ from the markers"]
        if missing:
            lines.append("  expected but not reported:")
            lines += [f"    {f}:{row} {level}" for f, row, level in missing]
        if extra:
            lines.append("  reported but not expected:")
            lines.append(_describe(extra))
        lines.append(f"  all {case.code} diagnostics:")
        lines.append(_describe(diags))
        pytest.fail("\n".join(lines), pytrace=False)

    # Fix availability (ruff's invariants) and fixes shown in the spec.
    by_path = {f.path: f for f in case.files}
    for d in diags:
        name = _filename(d.span.filename)
        if rule.fix_availability == "none":
            assert d.fix is None, f"{case.code} has fix_availability none but {name}:{d.span.row} has a fix"
        if rule.fix_availability == "always":
            assert d.fix is not None, f"{case.code} has fix_availability always but {name}:{d.span.row} has no fix"
        if d.fix is not None:
            assert rule.fix_title, f"{case.code} gives fixes but has no fix_title"
        if d.fix is not None and d.fix.edits and d.fix.applicability is not Applicability.DISPLAY_ONLY:
            mode = "safe" if d.fix.applicability is Applicability.SAFE else "unsafe"
            spec_file = by_path.get(name)
            assert spec_file is not None and mode in spec_file.fixed, (
                f"{case.where(case.line)} `{case.title}`: {name}:{d.span.row} has a {mode} fix "
                f"({d.fix.message}) but the case has no `{'fixed' if mode == 'safe' else 'fixed unsafe'}` "
                f"block after `{name}`")

    for mode in ("safe", "unsafe"):
        fixed = [f for f in case.files if mode in f.fixed]
        if not fixed:
            continue
        unsafe = mode == "unsafe"
        _write_case(root, case)  # a fresh copy for each mode
        _run_fix(case, unsafe)
        results = {f.path: (root / f.path).read_text(encoding="utf-8") for f in case.files}
        for f in fixed:
            assert results[f.path] == f.fixed[mode], (
                f"{case.where(f.line)} `{case.title}`: `{f.path}` after `promptlint fix"
                f"{' --unsafe-fixes' if unsafe else ''}` differs from the `fixed{' unsafe' if unsafe else ''}` block:\n"
                f"--- got\n{results[f.path]}--- expected\n{f.fixed[mode]}")
            problem = _parses(root / f.path, results[f.path], strict=_parses(root / f.path, f.content) is None)
            assert problem is None, f"{case.where(f.line)}: the fixed `{f.path}` does not parse: {problem}"
        _run_fix(case, unsafe)
        for f in case.files:
            again = (root / f.path).read_text(encoding="utf-8")
            assert again == results[f.path], (
                f"{case.where(f.line)} `{case.title}`: fixing `{f.path}` a second time changed it (not idempotent):\n"
                f"--- first\n{results[f.path]}--- second\n{again}")
        recheck = _own(check(["."], _settings(root, case)), case.code)
        left = [d for d in recheck if is_applicable(d.fix, unsafe)]
        assert not left, (f"{case.where(case.line)} `{case.title}`: after fixing, {case.code} still offers "
                          f"fixes that `promptlint fix{' --unsafe-fixes' if unsafe else ''}` applies:\n{_describe(left)}")


# --- the registry and the specs match one to one --------------------------------------------------

def test_every_rule_has_one_spec_and_every_spec_a_rule() -> None:
    specs = {p.stem: p for p in _spec_files()}
    expected = {f"{rule.code}-{rule.name}" for rule in ALL_RULES}
    missing = sorted(expected - set(specs))
    orphans = sorted(set(specs) - expected)
    codes = Counter(stem.split("-", 1)[0] for stem in specs)
    twice = sorted(code for code, n in codes.items() if n > 1)
    assert not missing and not orphans and not twice, (
        f"rules without a spec: {missing}; specs without a registered rule: {orphans}; "
        f"codes with several specs: {twice}")


def test_every_policy_has_a_case() -> None:
    """Each of the nine Policies of DESIGN.md is shown by at least one rulebook case, named in the
    case's title as `(Policy N)` (or `(Policies N, M)`)."""
    shown: set[int] = set()
    for spec in _spec_files():
        for case in parse_spec(spec):
            for group in re.findall(r"\(Polic(?:y|ies) ([0-9, ]+)\)", case.title):
                shown.update(int(n) for n in re.findall(r"[0-9]+", group))
    assert shown >= set(range(1, 10)), f"policies without a rulebook case: {sorted(set(range(1, 10)) - shown)}"


def test_every_fixable_rule_has_a_fix_title() -> None:
    untitled = [rule.code for rule in ALL_RULES if rule.fix_availability != "none" and not rule.fix_title]
    assert not untitled, f"rules with fixes but no fix_title: {untitled}"
    bad = [rule.code for rule in ALL_RULES if rule.fix_availability not in ("none", "sometimes", "always")]
    assert not bad, f"rules with an unknown fix_availability: {bad}"


# --- the parser itself ----------------------------------------------------------------------------

def test_parse_spec_reads_files_names_config_and_fixed_blocks(tmp_path: Path) -> None:
    spec = tmp_path / "PRM999-made-up.md"
    spec.write_text(
        "# PRM999 made-up\n\nProse.\n\n## One\n\n`pkg/a.py`:\n\n```py\nx = 1  # error: [PRM999]\n```\n\n"
        "```fixed\nx = 2\n```\n\n```promptlint.toml\nselect = [\"PRM999\"]\n```\n\n"
        "````md\n## not a case\n```py\ninside\n```\n````\n\n## Two\n\n```jinja\n{{ now() }} {# info: [PRM999] #}\n```\n",
        encoding="utf-8")
    one, two = parse_spec(spec)
    assert (one.code, one.title, one.id) == ("PRM999", "One", "PRM999-made-up::One")
    assert [(f.path, f.content, f.fixed) for f in one.files] == [
        ("pkg/a.py", "x = 1  # error: [PRM999]\n", {"safe": "x = 2\n"}),
        ("example.md", "## not a case\n```py\ninside\n```\n", {})]
    assert one.config == 'select = ["PRM999"]\n'
    assert _expected(one) == Counter({("pkg/a.py", 1, "error"): 1})
    assert [f.path for f in two.files] == ["template.j2"]
    assert _expected(two) == Counter({("template.j2", 1, "info"): 1})


@pytest.mark.parametrize(("body", "message"), [
    ("## A\n\n```md\nhi <!-- error: [PRM999] -->\n```\n", "markers are not supported"),
    ("## A\n\n```py\nx = 1\n```\n\n```py\ny = 2\n```\n", "defined twice"),
    ("## A\n\n`a.py`:\n\nprose\n\n```py\nx\n```\n", "not followed by a code block"),
    ("## A\n\n```python\nx  # error: [PRM999]\n```\n\n```py\nx\n```\n", "not a file"),
    ("## A\n\n```fixed\nx\n```\n", "must follow the file block"),
    ("## A\n\n```py\nx\n", "never closed"),
])
def test_parse_spec_rejects_malformed_specs(tmp_path: Path, body: str, message: str) -> None:
    spec = tmp_path / "PRM999-made-up.md"
    spec.write_text("# PRM999 made-up\n\n" + body, encoding="utf-8")
    with pytest.raises(SpecError, match=message):
        parse_spec(spec)


# --- the harness itself, on a deliberately fake rule (ruff's RUF9xx test rules) --------------------

class MadeUpRule(Rule):
    """## What it does
    Test-only: flags string literals that contain `TODO`; the safe fix writes `DONE`.
    """

    code = "PRM999"
    fix_availability = "always"
    fix_title = "Write DONE"

    def check_module(self, module):
        for node in _string_literals(module.tree):
            if "TODO" in node.value:
                span = module.span(node)
                content = module.code(node).replace("TODO", "DONE")
                if "BROKEN" in content:
                    content = content[:-1]  # drops the closing quote: a fix that breaks the file
                fix = Fix(Applicability.SAFE, "Write DONE", [Edit(content, span.start, span.end)])
                yield self.diagnostic("a TODO in a prompt", span, fix=fix)


def _string_literals(tree):
    return [node for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]


FAKE_SPEC = '''# PRM999 made-up

## A TODO in a prompt

```py
system_prompt = "TODO: write the rules"  # error: [PRM999]
```

```fixed
{fixed}```
'''


@pytest.fixture
def made_up_rule():
    ALL_RULES.append(MadeUpRule)
    try:
        yield MadeUpRule
    finally:
        ALL_RULES.remove(MadeUpRule)


def _fake_case(tmp_path: Path, text: str) -> Case:
    spec = tmp_path / "PRM999-made-up.md"
    spec.write_text(text, encoding="utf-8")
    (case,) = parse_spec(spec)
    return case


@pytest.fixture
def case_dir(tmp_path: Path, monkeypatch) -> Path:
    root = tmp_path / "case"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


def test_harness_accepts_a_correct_fixed_block(made_up_rule, tmp_path, case_dir) -> None:
    fixed = 'system_prompt = "DONE: write the rules"  # error: [PRM999]\n'
    run_case(_fake_case(tmp_path, FAKE_SPEC.format(fixed=fixed)), case_dir)


def test_harness_rejects_a_wrong_fixed_block(made_up_rule, tmp_path, case_dir) -> None:
    fixed = 'system_prompt = "TODO: write the rules"  # error: [PRM999]\n'
    with pytest.raises(AssertionError, match="differs from the `fixed` block"):
        run_case(_fake_case(tmp_path, FAKE_SPEC.format(fixed=fixed)), case_dir)


def test_harness_rejects_a_fix_that_breaks_the_file(made_up_rule, tmp_path, case_dir) -> None:
    text = FAKE_SPEC.replace("TODO:", "TODO BROKEN:").format(fixed='system_prompt = "DONE BROKEN: write\n')
    with pytest.raises(AssertionError, match="fix introduced a syntax error"):
        run_case(_fake_case(tmp_path, text), case_dir)


def test_harness_requires_a_fixed_block_for_an_applicable_fix(made_up_rule, tmp_path, case_dir) -> None:
    text = FAKE_SPEC.split("```fixed")[0]
    with pytest.raises(AssertionError, match="has a safe fix .* no `fixed` block"):
        run_case(_fake_case(tmp_path, text), case_dir)


def test_harness_reports_missing_and_unexpected_diagnostics(made_up_rule, tmp_path, case_dir) -> None:
    text = ('# PRM999 made-up\n\n## Markers on the wrong line\n\n```py\n'
            'system_prompt = "TODO: write the rules"\nother = 1  # error: [PRM999]\n```\n')
    with pytest.raises(pytest.fail.Exception) as failure:
        run_case(_fake_case(tmp_path, text), case_dir)
    message = str(failure.value)
    assert "expected but not reported:\n    example.py:2 error" in message
    assert "reported but not expected:\n    example.py:1:17 warning a TODO in a prompt" in message
