"""Prompt text kept where its place says prompt, not its name (docs/policies.md, Policy 9).

Three shapes of a package's prompt templates, facts only (the layouts are judged by the prefix
rules as any prompt constant, `python-constant`):

- a `{placeholder}` template (or a Jinja literal) assigned at module level in a module named for
  prompts (`prompts.py`, `_prompt.py`, `planner_prompts_v2.py`, any module of a `prompts/` folder),
  whatever the constant's own name (`CATEGORIZE_TOOL_REQUEST = \"\"\"... "{task}" ...\"\"\"`,
  `..._GENERATION_SIMPLE_TEMPLATE`), filled by `.format(...)` elsewhere;
- an entry of a registry of prompts written at module level (`PROMPTS["answer_query"] =
  \"\"\"...{context}...{query}...\"\"\"`): the registry's name says prompt, or the module is named
  for prompts; the entry's key, when it says system (`"extraction_system"`), gives the role;
- a `$name` template held by a prompt class for its base class to fill with string.Template
  (`class OpenIETriplePrompt(PromptABC): template_en = \"\"\"..."$input"...\"\"\"`:
  python/dollar_templates.py), whatever the attribute's name.

A module named for prompts holds other constants too (a model name, a list of labels, a page of
markup); only templates with a field and `candidates.MIN_STATIC_CHARS` of static text are
candidates (`candidates.text_layout`), so a short format string (`"{name}: {value}"`) is not one.
Only the module's own file name and its folder count: a package named like `prompt_toolkit` says
nothing of its modules.
"""
from __future__ import annotations

import ast
import re
import string

from .candidates import written
from .dollar_templates import base_names, prompt_class, read_as_dollar
from .text_shapes import is_template
from .prompt_names import prompt_named, role_of
from .prefilter import named_for_prompts as _path_named


def named_for_prompts(module) -> bool:
    """True when the module's file name (`prompts.py`, `_prompt.py`, `planner_prompts_v2.py`) or
    the folder it is in (`prompts/review.py`, `prompts/__init__.py`) says it holds prompts
    (`prefilter.named_for_prompts`: the same test lets the file be analysed)."""
    path = getattr(module, "path", None)
    return path is not None and _path_named(path)


def template_constant(finder, node, name: str, value_node, frame) -> None:
    """A module-level template whose name does not say prompt, in a module named for prompts: a
    candidate as a prompt-named constant is (`candidates.constant`), of role "prompt" (where it
    goes in a request is not known). Names that say prompt are read there already; a name that
    says tools (`CATEGORIZE_TOOL_REQUEST`) holds text here, as only a string literal is read."""
    if prompt_named(name) or not named_for_prompts(finder.m) or not filled_by_name(value_node):
        return
    written(finder, node, role_of(name), value_node, frame, module_level=True, templates_only=True)


def class_template(finder, node, name: str, value_node, frame, cls: ast.ClassDef) -> None:
    """A class attribute holding a `$name` template (`template_en = \"\"\"...$input...\"\"\"`) in a
    prompt class (`dollar_templates.prompt_class`: `OpenIETriplePrompt(PromptABC)`) of a tree that
    fills such templates with string.Template, whatever the attribute's name: a candidate of role
    "prompt" (python/dollar_templates.py). A name that says prompt is read by candidates.constant."""
    if prompt_named(name) or not prompt_class(cls) or is_template(value_node) \
            or not read_as_dollar(finder, value_node, bases=base_names(cls)):
        return
    written(finder, node, role_of(name), value_node, frame, module_level=False, templates_only=True, dollar=True)


def registry_entry(finder, node, target: ast.Subscript, value_node, frame) -> None:
    """`PROMPTS["key"] = <text>` at module level: a candidate when the registry's name says
    prompt, or the module is named for prompts (then only a template: `templates_only`). The role
    is the key's (`"entity_extraction_system"`: system) else "prompt". An entry that names another
    constant (`PROMPTS["x"] = extraction_text`) is that constant's text: it is a candidate where it
    is written, when it is one."""
    registry = target.value
    if not isinstance(registry, ast.Name) or isinstance(value_node, ast.Name):
        return
    key = target.slice.value if isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str) \
        else ""
    named = prompt_named(registry.id)
    if not named and not named_for_prompts(finder.m):
        return
    if not named and not filled_by_name(value_node):
        return
    role = role_of(key) if key else "prompt"
    written(finder, node, role, value_node, frame, module_level=True, templates_only=not named)


#: Python's format specification mini-language (`[[fill]align][sign][z][#][0][width][grouping][.precision][type]`).
_SPEC = re.compile(r"(?:.?[<>=^])?[+\- ]?z?#?0?\d*[_,]?(?:\.\d+)?[bcdeEfFgGnosxX%]?", re.DOTALL)


def filled_by_name(value_node) -> bool:
    """False for a string literal with a field that no `.format(name=...)` fills: an empty or
    numbered one (`{}`, `{0}`), or one whose format spec is none (`{i: 0 for i in range(n)}`, a
    dict comprehension): text that only looks like a template (code or JSON quoted in an example:
    `'must be {} or "{}".'.format(...)`), as a template a module of prompts keeps is filled by
    name (`.format(task=...)`, a LangChain template's variables). True for anything else (a Jinja
    literal, a call; `written` decides)."""
    if not (isinstance(value_node, ast.Constant) and isinstance(value_node.value, str)):
        return True
    try:
        fields = [(f, spec) for _, f, spec, _ in string.Formatter().parse(value_node.value) if f is not None]
    except ValueError:
        return True  # not a format text at all (`text_shapes.is_template` says so)
    return all(f and not f[0].isdigit() and ("{" in spec or _SPEC.fullmatch(spec)) for f, spec in fields)
