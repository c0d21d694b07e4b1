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
A `$word` in text is also a price, a shell variable or LaTeX: a text is read so only when the
package tree fills text with `string.Template` (`fills_dollar_templates`: a module of the tree
calls `Template(...)` imported from `string`, or `string.Template(...)`), and the text is held under
a name that says prompt, in a module named for prompts, or by a class whose name or whose base's
name says prompt (`prompt_class`).

Facts only: which literals are such templates; the candidate is recorded by candidates.written
(a class's: prompt_modules.class_template).
Shape: `dollar_template(node) -> bool`, `read_as_dollar(finder, node) -> bool`,
`fills_dollar_templates(finder) -> bool`, `prompt_class(cls) -> bool`.
"""
from __future__ import annotations

import ast

from .flow.text import DOLLAR_FIELD, MUSTACHE_FIELD
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


def read_as_dollar(finder, node) -> bool:
    """True when the literal `node` is read as a `$` template: it has `$` placeholders
    (`dollar_template`), no more `{{ name }}` ones (`dollar_first`), and the tree fills such
    templates (`fills_dollar_templates`)."""
    return dollar_template(node) and dollar_first(node.value) and fills_dollar_templates(finder)


def fills_dollar_templates(finder) -> bool:
    """True when a Python file of the package tree of the analysed module fills text with
    `string.Template`: it calls `Template(...)` imported from `string` (`from string import
    Template`), or `string.Template(...)`. Read through the tree's text index (one search per
    package: `Project.calling_files`)."""
    module = finder.m
    project = getattr(finder.ev, "project", None)
    path = getattr(module, "path", None)
    if project is None or path is None:
        return _uses_string_template(module)
    try:
        paths = project.calling_files(path, "Template")
    except (OSError, OverBudget):
        return _uses_string_template(module)
    for other_path in paths:
        try:
            other = module if other_path == path else project.load(other_path)
        except (ParseError, OverBudget, OSError):
            continue
        if _uses_string_template(other):
            return True
    return False


def _uses_string_template(module) -> bool:
    """True when `module` imports `Template` from `string` or calls `string.Template(...)`."""
    if any(v == "string.Template" for v in module.imports.values()):
        return True
    return "string.Template(" in module.source


def prompt_class(cls: ast.ClassDef) -> bool:
    """True when the class's name or the last name of one of its bases says prompt
    (`OpenIETriplePrompt(PromptABC)`)."""
    names = [cls.name] + [b.attr if isinstance(b, ast.Attribute) else b.id for b in cls.bases
                          if isinstance(b, (ast.Name, ast.Attribute))]
    return any(prompt_named(n) for n in names)
