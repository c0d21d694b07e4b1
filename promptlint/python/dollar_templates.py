"""Prompt templates written with string.Template's `$name` / `${name}` placeholders, kept where
another module fills them (docs/policies.md, Policy 9: a prompt is wherever prompt text is built):

    # agent/prompt.py
    CLARIFYING_QUESTION_PROMPT_TEMPLATE = \"\"\"You are a support agent who is going to use '${tool_name}' tool.
    ... Previous conversation so far:
    ${history} ...\"\"\"
    # agent/agent.py
    from string import Template
    template = Template(prompt_template)          # filled by a prompt-template class elsewhere

    # a template held by a prompt class for its base class to fill
    class OpenIETriplePrompt(PromptABC):
        template_en = \"\"\"{ "instruction": "...", "input": "$input", "example": {...} }\"\"\"
    # interface/prompt.py: Template(self.template).substitute(**variables)

The text is a template whose placeholders are filled per render, as a `{placeholder}` template
of a prompt constant is (candidates.written reads it with its `$` fields as template variables).
A `$word` in text is also a price, a shell variable or LaTeX, or an example of a template's syntax:
a text is read so only when a module that fills text with `string.Template` (calls `Template(...)`
imported from `string`, or `string.Template(...)`) fills this one (`fills_dollar_templates`: it
is the text's own module, names the constant, or defines the base class that holds the text),
and the text is held under a name that says prompt, in a module named for prompts, or by a class
whose name or whose base's name says prompt (`prompt_class`); a text `str.format` can fill as it
is (`text_shapes.is_template`) is read so by candidates.template_text.

Facts only: which literals are such templates; the candidate is recorded by candidates.written
(a class's: prompt_modules.class_template).
Shape: `template_text(finder, text, frame, name) -> Text` (a `{placeholder}` template's),
`dollar_template(node) -> bool`, `read_as_dollar(finder, node, name, bases) -> bool`,
`fills_dollar_templates(finder, name, bases) -> bool`, `prompt_class(cls) -> bool`.
"""
from __future__ import annotations

import ast
import re

from .flow.text import DOLLAR_FIELD, MUSTACHE_FIELD
from .flow.values import Text
from .parsing import ParseError
from .prompt_names import prompt_named
from .tree_search import OverBudget

#: Placeholders a template needs: one `$word` in a long text may be a price or a shell variable.
MIN_FIELDS = 1


def dollar_fields(text: str) -> list[str]:
    """The names of the `$name` / `${name}` placeholders of `text`, in order (`$$` is an escaped
    `$`, no placeholder)."""
    return [m.group(1) or m.group(2) for m in DOLLAR_FIELD.finditer(text) if m.group(0) != "$$"]


def dollar_template(node) -> bool:
    """True for a string literal with at least `MIN_FIELDS` `$name` / `${name}` placeholders, none
    of them right after a letter or a digit (`US$5`, `a$b`: not a placeholder)."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return False
    text = node.value
    found = [m for m in DOLLAR_FIELD.finditer(text) if m.group(0) != "$$"
             and not (m.start() and (text[m.start() - 1].isalnum() or text[m.start() - 1] == "\\"))]
    return len(found) >= MIN_FIELDS


def dollar_first(text: str) -> bool:
    """True when `text` has at least as many `$` placeholders as `{{ name }}` ones: a `$`
    template that quotes a mustache placeholder as an example (`"{{i.output}}" means the answer
    of the ith sub-question`), not a Jinja template."""
    return len(dollar_fields(text)) >= len(MUSTACHE_FIELD.findall(text))


def read_as_dollar(finder, node, name: str | None = None, bases: tuple = ()) -> bool:
    """True when the literal `node` is read as a `$` template: it has `$` placeholders
    (`dollar_template`), no more `{{ name }}` ones (`dollar_first`), and a module of the tree
    fills it with string.Template (`fills_dollar_templates`): the constant `name`'s, or the
    class attribute's whose class derives from one of `bases` (names)."""
    return dollar_template(node) and dollar_first(node.value) and fills_dollar_templates(finder, name, bases)


def fills_dollar_templates(finder, name: str | None, bases: tuple = ()) -> bool:
    """True when a Python file of the package tree of the analysed module fills text with
    `string.Template` (it calls `Template(...)` imported from `string`, or `string.Template(...)`)
    and fills this text: the analysed module itself, a module that names the constant `name`
    (`from .prompt import PLANNING_PROMPT_TEMPLATE`, then `Template(prompt_template)`), or one
    that defines a class of `bases` (`class PromptABC: ... Template(self.template)`). A module
    that fills other text with string.Template says nothing of this one (a `${var}` written as an
    example). Read through the tree's text index (`Project.calling_files`, one search per package)."""
    if not (name or bases):
        return False
    module = finder.m
    said = re.compile(r"\b%s\b" % re.escape(name)) if name else None
    defined = re.compile(r"^[ \t]*class[ \t]+(?:%s)\b" % "|".join(map(re.escape, bases)), re.M) if bases else None

    def fills(other, own: bool) -> bool:
        # its own module names the constant where it is assigned: a use is a second mention
        return _uses_string_template(other) and (
            said is not None and len(said.findall(other.source)) > own
            or defined is not None and defined.search(other.source) is not None)

    if fills(module, True):
        return True
    project = getattr(finder.ev, "project", None)
    path = getattr(module, "path", None)
    if project is None or path is None:
        return False
    try:
        paths = project.calling_files(path, "Template")
    except (OSError, OverBudget):
        return False
    for other_path in paths:
        if other_path == path:
            continue
        try:
            other = project.load(other_path)
        except (ParseError, OverBudget, OSError):
            continue
        if fills(other, False):
            return True
    return False


def _uses_string_template(module) -> bool:
    """True when `module` imports `Template` from `string` or calls `string.Template(...)`."""
    if any(v == "string.Template" for v in module.imports.values()):
        return True
    return "string.Template(" in module.source


def base_names(cls: ast.ClassDef) -> tuple:
    """The last names of the class's bases (`kag.interface.PromptABC` -> `PromptABC`)."""
    return tuple(b.attr if isinstance(b, ast.Attribute) else b.id for b in cls.bases
                 if isinstance(b, (ast.Name, ast.Attribute)))


def prompt_class(cls: ast.ClassDef) -> bool:
    """True when the class's name or the last name of one of its bases says prompt
    (`OpenIETriplePrompt(PromptABC)`)."""
    return any(prompt_named(n) for n in (cls.name, *base_names(cls)))


def template_text(finder, value: Text, frame, name: str | None = None) -> Text:
    """The text of a template constant with its placeholders as template variables. A `${var}`
    (string.Template's syntax, or a shell's or JavaScript's written as an example) is a variable
    only where the module fills the text named `name` with `string.Template` (`Template(NAME)`,
    `NAME.substitute(...)`) or `NAME.format(...)`, or another module that names it fills text with
    string.Template (`fills_dollar_templates`): else it is text."""
    filled = name is not None and (re.search(rf"\bTemplate\(\s*(?:self\.)?{re.escape(name)}\b|\b{re.escape(name)}\s*\."
                                              r"(?:format|format_map|substitute|safe_substitute)\(", finder.m.source)
                                    or any("${" in s.text for s in value.segs if s.is_static)
                                    and fills_dollar_templates(finder, name))  # filled in another module
    return finder.ev.format_text(value, [], {}, frame, None, keep_unbound=True, dollar_literal=not filled)
