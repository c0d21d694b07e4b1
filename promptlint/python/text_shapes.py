"""Whether an expression builds text or is a template (facts for the candidate finders and the
send sites): an f-string, a `%` / `+` of text, a `.format` / `dedent` / `join` call; a prompt
template a `.format(...)` call fills; a string literal with `{name}` fields that `str.format` can
parse, or written as Jinja."""
from __future__ import annotations

import ast
import re
import string

from .module import attribute_chain
from .prompt_names import prompt_named

_FIELD = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_]\w*|\[[^\]{}]*\])*(![rsa])?(:[^{}]*)?\}")

_TEXT_METHODS = ("format", "dedent", "join", "format_map", "substitute", "safe_substitute")


def builds_text(node) -> bool:
    """True for an f-string, a `%` or `+` of text, or a `.format` / `dedent` / `join` /
    `.substitute` (string.Template) call."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, ast.Mod) or builds_text(node.left) or builds_text(node.right)
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr in _TEXT_METHODS:
            return True
        return any(builds_text(a) for a in node.args) or any(builds_text(k.value) for k in node.keywords)
    return False


def filled_template(node, module=None) -> str | None:
    """The name of the prompt template a `.format(...)` / `.format_map(...)` / `.substitute(...)`
    call fills (`TASK_PROMPT_TEMPLATE.format(task=t)`, `prompts.SYSTEM.format(...)`: a word of the
    name or of the module or object it is read from says prompt; with `module`, also the module
    an imported name comes from: `from app.prompts.review import reflect_template` then
    `reflect_template.format(...)` is read as `prompts.review.reflect_template.format(...)`), else None."""
    if isinstance(node, ast.Await):
        node = node.value
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("format", "format_map", "substitute", "safe_substitute")):
        return None
    names = attribute_chain(node.func.value)[::-1]  # innermost attribute first, the root name last
    if not names or names[-1] == "self" and len(names) == 1:
        return None
    found = next((n for n in names if prompt_named(n)), None)
    if found is None and module is not None and isinstance(node.func.value, ast.Name):
        qual = module.qualified_name(node.func.value) or ""
        if "." in qual and qual != node.func.value.id:  # imported: the modules it is read from
            found = next((n for n in reversed(qual.split(".")[:-1]) if prompt_named(n)), None)
    return found


def is_template(node) -> bool:
    """A string literal with `{name}` placeholders (a template filled elsewhere) that `str.format`
    can fill: a text Python's format parser rejects (a BibTeX entry, `year={2021}` beside
    `Daum{\\'e}`; a lone `}`) raises in `.format(...)`, so nothing fills it so and its braces are text."""
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and _FIELD.search(node.value) is not None \
        and format_parses(node.value)


def jinja_literal(node) -> bool:
    """A string literal written as a Jinja template (`inline_jinja.jinja_written`: `{{ steps }}`,
    `{% for step in step_history %}`, no `{field}` of `str.format`): a template rendered
    elsewhere (a framework's template wrapper), read as Jinja rather than as a format text."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return False
    from .inline_jinja import jinja_written
    return jinja_written(node.value)


def format_parses(text: str) -> bool:
    """True when `str.format` can parse `text` (`string.Formatter().parse`: no lone `}`, no `{`
    inside a field's name), i.e. it may be a format template. (A field no `.format(...)` can fill,
    an unescaped JSON example, does not rule a template out: such texts are filled by
    `.replace("{" + name + "}", value)`, crawl4ai's prompts.)"""
    try:
        for _ in string.Formatter().parse(text):
            pass
    except ValueError:
        return False
    return True


def wrapped_argument(node):
    """The one argument of a call of a class by name (`TextPrompt("...{task}...")`): a template
    when the class is a plain subclass of `str` (the evaluator reads the call as its text)."""
    if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)) and len(node.args) == 1 \
            and not node.keywords:
        return node.args[0]
    return None
