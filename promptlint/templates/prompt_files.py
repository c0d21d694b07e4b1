"""Prompt text files -> segments: `.prompt` files anywhere, files matching the configured prompt
globs, and text files (any extension or none) that the project's code names (docs/policies.md,
Policy 7: a README or a guide kept next to the prompts is documentation, not a prompt; see
`references`) and that are kept as prompts: under a folder named for prompts (`prompts/`,
`preprompts/`, `prompt_templates/`), under a folder named for templates or instructions
(`templates/`, `_instructions/`) unless they are web pages or e-mails, or named `prompt.md`,
`system_prompt.txt` and named by the code with their extension.

Placeholders: `{var}` (str.format / LangChain f-string), `{{var}}` (mustache), `${var}` and `$var`
(string.Template; `$var` only with a lower-case first letter and not followed by `-` or `/`,
so `$HOME` and `$skill-name` stay text). Text with
Jinja statements or expressions is parsed by `jinja.template_segments` instead (never rendered).
Placeholders are classified by name only (docs/policies.md, Policy 7: the name is a hint).
"""
from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path, PurePosixPath

from ..model import Kind, Position, Precision, Segment, Span, Volatility
from ..classify import strftime_precision
from .extensions import NOT_PROMPT_TEXT
from .references import named_by_code, project_root

_PLACEHOLDER = re.compile(
    r"(?<![{$\\])\{\{\s*(?P<mustache>[A-Za-z_][\w.]*)\s*\}\}(?!\})"
    r"|(?<![{$\\])\{(?P<fmt>[A-Za-z_][\w.]*(?:\[[^\]{}]*\])*)(?:![rsa])?(?::(?P<spec>[^{}\n]*))?\}(?!\})"
    r"|(?<![$\\])\$\{(?P<braced>[A-Za-z_]\w*)\}"
    r"|(?<![$\\\w])\$(?P<dollar>[a-z_]\w*)(?![-/\w])")

# Extensions that are never prompt text, even under a prompts/ folder (code, markup, data, binaries).
_NOT_TEXT = NOT_PROMPT_TEXT
#: Suffixes of a copy, a sample or a template of another file, whose own suffix comes before them.
_COPY_SUFFIXES = {".example", ".sample", ".dist", ".default", ".orig", ".bak", ".old", ".template", ".tmpl", ".in"}
_NOT_PROMPT_NAMES = re.compile(r"^(readme|license|licence|changelog|contributing|notice|authors|"
                               r"makefile|dockerfile|__init__)(\..*)?$", re.I)
_FOLDER_DEPTH = 3
# "prompts", "preprompts", "prompt_templates", "system-prompts"; not "promptlint" or "myprompts"
_PROMPT_FOLDER = re.compile(r"(^|[^a-z])(pre)?prompts?([^a-z]|$)")


def _own_suffix(posix: PurePosixPath) -> str:
    """The suffix that says what a file holds: its last one, or the one before a copy's suffix
    (`graph.json.example` holds JSON, `settings.yaml.dist` YAML; `system.txt.template` text)."""
    suffix = posix.suffix.lower()
    if suffix in _COPY_SUFFIXES:
        return PurePosixPath(posix.stem).suffix.lower() or suffix
    return suffix


def is_prompt_file(path: Path, globs: list[str] | None = None) -> bool:
    """True for a `.prompt` file, a path matching one of `globs` (gitignore-style patterns matched
    against the posix path), or a text file (any extension or none; code, data, config, binary and
    README/LICENSE files excluded) whose name or stem the project's Python code names
    (`references.named_by_code`: a file the code loads is a prompt, a guide kept next to the
    prompts is not) and that is kept as a prompt:
    - its folder, or one of its 3 nearest ancestor folders, is named for prompts (the word
      "prompt(s)" or "preprompt(s)" with non-letters around it: `prompts/`, `preprompts/`,
      `prompt_templates/`, not `promptlint/`);
    - or that folder is named for templates or instructions (`templates/`, `template/`,
      `_instructions/`, `system-instructions/`), the file is no test data (`_test_data`) and no
      web page or e-mail (Django and Flask keep those in `templates/` too): not by its place
      (`is_web_template`), nor by its text (Django's `{% load %}`, `{% url %}`, `{% trans %}`,
      Flask's `url_for(`);
    - or its own stem is named for a prompt (`prompt.md`, `system_prompt.txt`, `judge-prompts.md`),
      it is no test data, and the code names it with its extension (a bare "prompt" literal is
      too common).
    The nearest such folder decides."""
    posix = PurePosixPath(Path(path).as_posix())
    if globs and _matches(posix, globs):
        return True
    if posix.suffix.lower() == ".prompt":
        return True
    name = posix.name
    if name.startswith(".") or _NOT_PROMPT_NAMES.match(name) or _own_suffix(posix) in _NOT_TEXT:
        return False
    parts = Path(path).parts
    for depth in range(1, _FOLDER_DEPTH + 1):
        if len(parts) <= depth:
            break
        folder = parts[-1 - depth]
        if is_prompt_named(folder):
            return named_by_code(Path(path), Path(*parts[:-depth]))
        if _TEMPLATE_FOLDER.search(folder.lower()):
            templates = Path(*parts[:-depth])
            return not is_web_template(Path(path), templates, parts[-depth:-1]) and not _test_data(
                Path(path), templates) and named_by_code(Path(path), templates) and not _web_text(Path(path))
    if _PROMPT_STEM.search(name.split(".", 1)[0].lower()):
        return not _test_data(Path(path), Path(path).parent) and named_by_code(
            Path(path), Path(path).parent, by_stem=False)
    return False


# folders of tests and their data: a text a test reads is an expected output or an input, not a prompt
# the application sends
_TEST_FOLDERS = {"tests", "test", "testing", "testdata", "test_data", "fixtures", "__fixtures__",
                 "snapshots", "__snapshots__", "golden", "goldens"}


def _test_data(path: Path, folder: Path) -> bool:
    """True when a folder between the project root of `folder` (`references.project_root`) and
    `path` is named for tests or test data (`tests/`, `testdata/`, `fixtures/`, `__snapshots__/`)."""
    root = project_root(folder.resolve())
    try:
        inner = Path(path).resolve().relative_to(root).parts[:-1]
    except ValueError:
        inner = Path(path).parts[:-1]
    return any(part.lower() in _TEST_FOLDERS for part in inner)


# "templates", "prompt_templates", "_instructions", "system-instructions"; not "templated" or "instructional"
_TEMPLATE_FOLDER = re.compile(r"(^|[^a-z])(templates?|instructions?)([^a-z]|$)")
# the stem of a file named for a prompt: "prompt", "system_prompt", "judge-prompts"; not "prompt_format"
_PROMPT_STEM = re.compile(r"(^|[^a-z])prompts?$")
# folders under `templates/` that hold web pages and e-mails (Django, Flask), not prompts
_WEB_FOLDER = re.compile(r"(^|[^a-z])(e-?mails?|mail|mails|html|web|pages?|admin|registration|account|accounts|"
                         r"layouts?|partials|includes|site)([^a-z]|$)")
_WEB_SUFFIXES = (".html", ".htm", ".xml", ".mjml", ".xhtml")
# tags and calls that only web template engines know (Django's `{% load %}`, `{% url %}`, `{% trans %}`,
# Flask's `url_for`): a text using them is rendered for a browser or a mail client
_WEB_TAGS = re.compile(r"\{%-?\s*(load|url|trans|blocktrans|blocktranslate|translate|csrf_token|static)\b"
                       r"|\burl_for\(")
_WEB_READ_LIMIT = 1_000_000  # bytes: a larger text file is data, not a prompt


def is_web_template(path: Path, templates_folder: Path, inner: tuple[str, ...] = ()) -> bool:
    """True when a text file under `templates_folder` is a web page or e-mail by its place: one of
    the `inner` folders between the templates folder and the file is named for mail or pages
    (`emails/`, `registration/`, `account/`, `partials/`), or the file's folder or the templates
    folder holds HTML or XML files (`welcome.txt` beside `welcome.html`: the two bodies of one
    e-mail; a Django app's `templates/shop/` of pages)."""
    if any(_WEB_FOLDER.search(part.lower()) for part in inner):
        return True
    return _holds_web_files(path.parent) or (templates_folder != path.parent and _holds_web_files(templates_folder))


@lru_cache(maxsize=1024)
def _holds_web_files(folder: Path) -> bool:
    """True when `folder` directly holds a file with an HTML or XML extension (one listing)."""
    try:
        with os.scandir(folder) as listing:
            return any(entry.name.lower().endswith(_WEB_SUFFIXES) for entry in listing)
    except OSError:
        return False


def _web_text(path: Path) -> bool:
    """True when the file's text (an unsaved buffer first) uses tags only web template engines
    know. A file that is not a regular file, cannot be read, is over 1 MB or holds a NUL byte
    (binary) counts as no prompt text either. The read is recorded as a dependency of the running
    analysis (`promptlint.reads`), as every read of another file is."""
    from ..source import SourceError, overlay_text, read_bytes
    text = overlay_text(path)
    if text is None:
        try:
            data = read_bytes(path, _WEB_READ_LIMIT)
        except SourceError:
            return True
        if b"\0" in data:
            return True
        text = data.decode("utf-8", errors="replace")
    return _WEB_TAGS.search(text) is not None


def is_prompt_named(name: str) -> bool:
    """True for a folder or file stem named for prompts ("prompts", "preprompts",
    "prompt_templates", "code_agent_prompts"); False for "promptlint" or "myprompts"."""
    return bool(_PROMPT_FOLDER.search(name.lower()))


def _matches(posix: PurePosixPath, globs: list[str]) -> bool:
    """True when a gitignore-style glob matches the path or one of its trailing sub-paths."""
    import pathspec

    spec = pathspec.GitIgnoreSpec.from_lines(globs)
    text = str(posix)
    return spec.match_file(text) or spec.match_file(text.lstrip("/")) or any(
        spec.match_file("/".join(posix.parts[i:])) for i in range(1, len(posix.parts)))


def prompt_text_segments(path: Path, filename: str, text: str) -> list[Segment]:
    """Segments of a prompt text file, in order: static text (verbatim from `span.start`) and one
    dynamic segment per placeholder, at the placeholder's span (1-based rows and columns, end
    exclusive). Text with Jinja syntax that jinja2 parses is analysed as a template; when it
    does not parse, the placeholders are read as plain ones."""
    from .jinja import has_jinja_syntax, normalize_newlines, template_segments  # jinja2 only when needed
    if has_jinja_syntax(text) and not format_template(text):
        result = template_segments(path, filename, text)
        if not result.errors:
            return result.segments
    return placeholder_segments(normalize_newlines(text), filename)


#: A doubled brace that opens no mustache tag (`{{` before a quote, a bracket or a line end, as in
#: `{{"url": ...}}`): the escape of `str.format`, which renders it as one brace.
_FORMAT_ESCAPE = re.compile(r"\{\{(?!\s*[A-Za-z_#/^!>&{}])")
#: A positional `str.format` field, `{}` or `{0}`, not part of a doubled brace.
_POSITIONAL = re.compile(r"(?<!\{)\{(?P<positional>\d*)\}(?!\})")


def format_template(text: str) -> bool:
    """True when `text` is a `str.format` template by its own syntax: it has a field (`{name}`,
    `{}`, `{0}`), a doubled brace that is an escape (`{{"key": 1}}`, `{{2}}`) and no Jinja
    statement or comment (`{% raw %}`, `{# ... #}`: a Jinja template, whose `{{ '{{' }}` is an
    expression). Its doubled braces then render as single ones (`$\\frac{{D}}{{2}}$` is LaTeX) and
    are no placeholders, Jinja's or another's."""
    return "{%" not in text and "{#" not in text and _format_syntax(text)


def _format_syntax(text: str) -> bool:
    """True when `text` has a `str.format` field (`{name}`, `{}`, `{0}`) and a doubled brace that escapes."""
    if _FORMAT_ESCAPE.search(text) is None:
        return False
    return _POSITIONAL.search(text) is not None or any(m.group("fmt") for m in _PLACEHOLDER.finditer(text))


def placeholder_segments(text: str, filename: str, start: Position = Position(1, 1)) -> list[Segment]:
    """Split `text` (written verbatim in `filename` from `start`) into static text and
    `{var}` / `{{var}}` / `${var}` / `$var` placeholders classified by name. A text with `{var}`
    fields and doubled braces that escape (`{{"key": ...}}`) is a `str.format` template: its
    `{{var}}` renders as the literal `{var}` and stays text."""
    out: list[Segment] = []
    pos = 0
    matches = list(_PLACEHOLDER.finditer(text))
    formatted = _format_syntax(text)  # (text Jinja did not parse, too: its placeholders are read as plain ones)
    if formatted:  # (its positional fields too: `Question: {}`)
        matches = sorted([m for m in matches if not m.group("mustache")] + list(_POSITIONAL.finditer(text)),
                         key=lambda m: m.start())
    for m in matches:
        if m.start() < pos:
            continue
        if m.start() > pos:
            out.append(Segment(text=text[pos:m.start()], span=_span(text, filename, start, pos, m.start())))
        name = next((g for g in m.groups() if g is not None), "")
        seg = placeholder_segment(name, m.group(0), _span(text, filename, start, m.start(), m.end()))
        spec = m.groupdict().get("spec")
        if seg.kind is Kind.TIMESTAMP and spec and "%" in spec:  # "{now:%Y-%m-%d}": the format decides
            prec = strftime_precision(spec)
            if prec is not None:
                seg.precision = prec
                seg.volatility = Volatility.PER_REQUEST if prec is Precision.SUB_DAY else Volatility.PER_DAY
        out.append(seg)
        pos = m.end()
    if pos < len(text):
        out.append(Segment(text=text[pos:], span=_span(text, filename, start, pos, len(text))))
    return out


def placeholder_segment(name: str, source: str, span: Span) -> Segment:
    """One placeholder classified by its name (the last dotted part, `agent.id` -> `id` of an
    agent): timestamp, unique-id or user-input when the name says so (`name_only=True`), else a
    template-variable of unknown volatility."""
    base = re.sub(r"\[.*$", "", name)
    from .jinja import classify_template_name
    found = classify_template_name(base)
    if found is None:
        return Segment(span=span, kind=Kind.TEMPLATE_VARIABLE, volatility=Volatility.UNKNOWN, expr=source,
                       evidence=f"placeholder `{source}`")
    kind, vol, prec, evidence = found
    return Segment(span=span, kind=kind, volatility=vol, precision=prec, expr=source, name_only=True,
                   evidence=evidence)


def _span(text: str, filename: str, start: Position, a: int, b: int) -> Span:
    return Span(filename, _advance(text, start, a), _advance(text, start, b))


def _advance(text: str, start: Position, offset: int) -> Position:
    before = text[:offset]
    newlines = before.count("\n")
    if newlines == 0:
        return Position(start.row, start.column + offset)
    return Position(start.row + newlines, offset - before.rfind("\n"))
