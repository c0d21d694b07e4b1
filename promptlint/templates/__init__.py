"""Prompts kept outside Python: Jinja2 templates, prompt text files, YAML/TOML prompt strings.

`file_kind(path)` tells discovery what a file is; `layouts_for_file(...)` turns one such file into
standalone PromptLayouts (`source` "template", "prompt-text" or "config-string"). A Python call
that renders a template or reads a config value links to the same segments through
`jinja.template_segments` and `config_strings.locate_value` (docs/architecture.md "The flow of data").
"""
from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from ..model import Part, Position, PromptLayout, Span
from .errors import PromptFileError
from .extensions import DATA, MARKUP, PROGRAMMING
from .prompt_files import _matches, is_prompt_file

if TYPE_CHECKING:
    from .config_strings import ConfigPrompt

#: Names imported when first used (PEP 562): discovery needs only `file_kind`, and a run whose
#: results are all cached never loads the parsers (jinja2, PyYAML).
_LAZY = {"ConfigPrompt": "config_strings", "LocatedValue": "config_strings", "config_prompts": "config_strings",
         "locate_value": "config_strings", "located_segments": "config_strings", "TemplateResult": "jinja",
         "template_segments": "jinja", "prompt_text_segments": "prompt_files"}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module
    return getattr(import_module(f".{module}", __name__), name)


__all__ = [
    "ConfigPrompt", "LocatedValue", "PromptFileError", "TemplateResult", "config_prompts", "file_kind",
    "located_segments",
    "is_prompt_file", "layouts_for_file", "locate_value", "prompt_text_segments", "template_segments",
]

_JINJA_SUFFIXES = (".j2", ".jinja", ".jinja2")
# Inner extensions of templates that render code or configuration, not prompts (`x.lua.j2`; also
# grammars for constrained decoding: `base_grammar.lark.jinja` renders a Lark grammar handed to the
# sampler, not text the model reads).
_NOT_PROMPT_TEMPLATES = PROGRAMMING | MARKUP | DATA | {".xml", ".conf", ".service", ".env", ".dockerfile", ".tf",
                                                       ".hcl", ".nginx"}
_NOT_PROMPT_STEMS = re.compile(r"^(dockerfile|makefile|containerfile|vagrantfile|jenkinsfile|nginx|"
                               r"docker-compose|compose)\b", re.I)
_CONFIG_SUFFIXES = (".yaml", ".yml", ".toml")


def file_kind(path: Path, globs: list[str] | None = None, template_globs: list[str] | None = None
              ) -> str | None:
    """What a file is for discovery: "template" (`.j2`, `.jinja`, `.jinja2`, `x.md.j2`, not
    templates of code or configuration such as `x.html.j2` or `Dockerfile.j2`; or a match of
    `template_globs`), "config" (`.yaml`, `.yml`, `.toml`), "prompt-text" (`.prompt`, a match of
    `globs`, or a text file the project's code names that is kept as a prompt: under a folder
    named like "prompts", "templates" or "instructions", or named like `system_prompt.md`; see
    `prompt_files.is_prompt_file`), "prompty" (a `.prompty` file anywhere, whatever the globs
    say: `prompty`), "poml" (a `.poml` file anywhere: `poml`), or None. Globs are gitignore-style
    patterns matched against the path and each of its trailing sub-paths."""
    p = PurePosixPath(Path(path).as_posix())
    name = p.name.lower()
    if name.endswith(".prompty"):  # its own format, whatever globs match it
        return "prompty"
    if name.endswith(".poml"):  # its own format too
        return "poml"
    if template_globs and _matches(p, template_globs):
        return "template"
    if name.endswith(_JINJA_SUFFIXES):
        inner = PurePosixPath(p.stem).suffix.lower()
        if inner in _NOT_PROMPT_TEMPLATES or _NOT_PROMPT_STEMS.match(name):
            return None
        return "template"
    if name.endswith(_CONFIG_SUFFIXES):
        return "config"
    if is_prompt_file(Path(path), globs):
        return "prompt-text"
    return None


def layouts_for_file(path: Path, filename: str, text: str, settings_globs: list[str] | None = None,
                     template_globs: list[str] | None = None, kind: str | None = None) -> list[PromptLayout]:
    """Standalone PromptLayouts of one template, prompt text or config file (`kind`: what
    discovery found it to be, else `file_kind` with `settings_globs`, the configured prompt-file
    globs, and `template_globs`, the template globs).

    Prompty and POML: one layout with a Part per message (`prompty.prompty_layouts`,
    `poml.poml_layouts`; a POML file whose markup does not translate to a template jinja2 can
    parse raises PromptFileError). Template and prompt
    text: one layout, `id` "filename:1", one Part whose role is "user" when
    the file name says user/human (then `newest_user` is 0), "assistant" when it says assistant,
    else "system"; `templates` lists the file and every template it includes. Config: one layout
    per prompt string (`config_strings.config_prompts`), `id` "filename:row" of its key, roles
    from the key or the messages; a `.prompt` file whose text is a YAML mapping of fields
    (`data_files.yaml_fields`: PyRIT's seed prompts and datasets) is read as a config file. Files
    with no prompt text give []. Raises PromptFileError for
    a template with a Jinja syntax error. Prompt text that jinja2 cannot parse is read with plain
    placeholders (Handlebars `.prompt` files, a `{%` in prose), and config files that do not parse
    give [] (they are not necessarily prompts): neither raises. A prompty file raises
    PromptFileError for a body with a Jinja syntax error and `prompty.FrontMatterError` for front
    matter the runtime cannot load.
    """
    from .config_strings import config_prompts
    from .data_files import yaml_fields
    from .fills import link_fills
    from .jinja import template_segments
    from .prompt_files import prompt_text_segments
    kind = kind or file_kind(path, settings_globs, template_globs)
    fmt = None
    if kind == "prompt-text" and yaml_fields(path, text):  # a `.prompt` file of YAML fields: a config file
        kind, fmt = "config", "yaml"
    if kind == "prompty":
        from .prompty import prompty_layouts
        return prompty_layouts(path, filename, text)
    if kind == "poml":
        from .poml import poml_layouts
        return poml_layouts(path, filename, text)
    if kind == "config":
        found = config_prompts(path, filename, text, fmt)
        for cp in found:
            link_fills(path, [*(k for k in cp.keys if isinstance(k, str)), *cp.names], cp.segments)
        layouts = [_config_layout(filename, cp) for cp in found]
        retrieved = _retrieved_names([s for cp in found for s in cp.segments])
        for layout in layouts:
            layout.set_retrieved = retrieved
        return _clock_marks(path, text, layouts)
    if kind == "template":
        result = template_segments(path, filename, text)
        if result.errors:
            row, message = result.errors[0]
            raise PromptFileError(filename, row, message)
        segments, templates, source = result.segments, result.templates, "template"
    elif kind == "prompt-text":
        segments, templates, source = prompt_text_segments(path, filename, text), [filename], "prompt-text"
        link_fills(path, [], segments)
    else:
        return []
    if not any(s.kind is not None or s.text.strip() for s in segments):
        return []
    role = _role_from_name(Path(path).name)
    site = Span(filename, Position(1, 1), Position(1, 1))
    end = segments[-1].span.end if segments and segments[-1].span and segments[-1].span.filename == filename \
        else Position(1, 1)
    part = Part(role=role, segments=segments, span=Span(filename, Position(1, 1), end))
    return _clock_marks(path, text, [PromptLayout(id=f"{filename}:1", site=site, source=source, parts=[part],
                                                  templates=templates, newest_user=0 if role == "user" else None)])


def _clock_marks(path: Path, text: str, layouts: list[PromptLayout]) -> list[PromptLayout]:
    """The layouts with the marks of their text that the project's Python replaces with the clock
    (`<current_time>`) made timestamps (`replaced_fills`)."""
    if not layouts:
        return layouts
    from .replaced_fills import clock_marks, split_marks
    fills = clock_marks(path, text)
    if fills:
        for layout in layouts:
            for part in layout.parts:
                part.segments = split_marks(part.segments, fills, text, layout.site.filename)
    return layouts


def forget_project_readings() -> None:
    """Drop what the prompt-file analysis kept of the projects' Python (`references.names_in_code`,
    `fills`' index and trees, the tree states): called when a run starts, so a long-lived process
    (the API, the language server) reads an edited project again."""
    from . import fills, prompt_files, references
    from .replaced_fills import _project_fills
    for memo in (references.names_in_code, references._tree_state, fills._index, fills.parsed_module, fills._uppers,
                 prompt_files._holds_web_files, _project_fills):
        memo.cache_clear()


def _retrieved_names(segments) -> list[str]:
    """The placeholder names among `segments` (and the placeholders of their conditional sections
    and loops) named like content retrieved for the turn, sorted."""
    from ..turn_names import placeholder_name, turn_content
    names = {placeholder_name(s.expr) for seg in segments for s in (seg, *seg.inner) if s.kind is not None}
    return sorted(n for n in names if turn_content(n) == "retrieved")


def _config_layout(filename: str, cp: ConfigPrompt) -> PromptLayout:
    row = cp.key_span.start.row
    users = [i for i, part in enumerate(cp.parts) if part.role == "user"]
    return PromptLayout(id=f"{filename}:{row}", site=cp.key_span, source="config-string", parts=cp.parts,
                        templates=[filename], newest_user=users[-1] if users else None)


def _role_from_name(name: str) -> str:
    words = set(re.split(r"[^a-z]+", name.lower()))
    if words & {"user", "human"}:
        return "user"
    if words & {"assistant", "ai"}:
        return "assistant"
    return "system"
