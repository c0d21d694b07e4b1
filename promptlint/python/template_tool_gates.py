"""A chat template whose tool block is written only when a flag is on, rendered in one function
with the flag on and off: facts for PRM204.

A chat template written in the code (`env.from_string(TEMPLATE)`, `jinja2.Template(TEMPLATE)`,
TEMPLATE a string literal of the function or a constant of the module) that renders the
conversation (`{% for message in messages %}`) and writes the tool definitions (a section that
names tools or functions) under `{% if FLAG %}`, before the conversation's end (in the system
message, or in each message of a role), is rendered here at least twice with `FLAG=` given a
value that is on in one call and off in another (`tool_calls=True` for the step that may call a
tool, `tool_calls=None` for the answer; `tools=tools` and `tools=[]`). The two prompts differ from
the place of the section on: an engine that keeps the previous prompt's state (llama.cpp)
re-reads the conversation after it on every switch, which is every turn that calls or answers
after the other, and one that caches prefixes (vLLM, SGLang) re-reads it for the variant that
was not sent last with this history. What the engine caches is not known here.

The fact: (the literal that writes the section, the character offsets of its `{% if FLAG %}` tag,
the flag's name, the render calls that turn it on, the render calls that turn it off).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from ..classify import HISTORY_NAMES
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Calls that make a template object from its text.
_MAKERS = ("from_string", "Template")
#: A loop over the conversation (`{% for message in messages %}`).
_LOOP = re.compile(r"\{%-?\s*for\s+\w+\s+in\s+(\w+)\s*-?%\}")
#: A section under a flag (`{% if tool_calls %}`), its end, and the words of a tool block.
_IF = re.compile(r"\{%-?\s*(if|endif|elif|else)\b([^%]{0,200})%\}")
_TOOL_WORDS = re.compile(r"(?i)\btools?\b|\bfunctions?\b")


@dataclass
class TemplateToolGate:
    """`literal`: the string literal that writes the template; `tag`: the 0-based character offsets of
    the `{% if FLAG %}` tag in the module's text, or None when the tag is not found there (a text
    written with escapes: the literal's start is reported); `flag`; `on` / `off`: the render calls
    that turn the section on and off."""

    literal: ast.Constant
    tag: tuple[int, int] | None
    flag: str
    on: list[ast.Call]
    off: list[ast.Call]


def might_hold(source: str) -> bool:
    """The cheap test: a render call, a template tag and a loop in the text."""
    return ".render(" in source and "{%" in source and "for " in source


def find_template_tool_gates(module) -> list[TemplateToolGate]:
    """The gates of the module (see the module docstring), in source order."""
    if not might_hold(module.source):
        return []
    out = []
    for func in (n for n in subtree(module.tree) if isinstance(n, _FUNCS)):
        for name, literal in _templates(module, func).items():
            flag = _tool_flag(literal.value)
            if flag is None:
                continue
            on, off = _renders(func, name, flag)
            if on and off:
                out.append(TemplateToolGate(literal, _tag(module, literal, flag), flag, on, off))
    return sorted(out, key=lambda g: (g.literal.lineno, g.literal.col_offset))


def _templates(module, func) -> dict[str, ast.Constant]:
    """The names the function binds to a template made from text (`r = env.from_string(T)`, also
    through a chain: `Env(...).from_string(T)`), each with the literal of T."""
    out = {}
    for node in subtree(func):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call) and node.value.args):
            continue
        f = node.value.func
        made = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if made not in _MAKERS:
            continue
        literal = _text(module, func, node.value.args[0])
        if literal is not None:
            out[node.targets[0].id] = literal
    return out


def _text(module, func, node) -> ast.Constant | None:
    """The string literal `node` is, or that a name is bound to once in the function or at the top of
    the module."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node
    if not isinstance(node, ast.Name):
        return None
    for scope in (func, module.tree):
        body = subtree(func) if scope is func else scope.body
        bound = [s.value for s in body if isinstance(s, ast.Assign) and len(s.targets) == 1
                 and isinstance(s.targets[0], ast.Name) and s.targets[0].id == node.id]
        if bound:
            value = bound[0] if len(bound) == 1 else None
            return value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
    return None


def _tool_flag(text: str) -> str | None:
    """The flag of a section that writes tools (`{% if tool_calls %}` ... `tools` ... `{% endif %}`)
    before the end of the template's loop over the conversation, or None."""
    loop = next((m for m in _LOOP.finditer(text) if m.group(1).lower() in HISTORY_NAMES), None)
    if loop is None:
        return None
    end = text.rfind("endfor")
    stack: list[tuple[str, int]] = []
    for m in _IF.finditer(text):
        word, flag = m.group(1), m.group(2).strip().rstrip("-").strip()
        flag = flag if re.fullmatch(r"\w+", flag) else ""
        if word == "if":
            stack.append((flag, m.end()))
        elif word in ("elif", "else") and stack:
            flag_at = stack[-1]
            if _TOOL_WORDS.search(text, flag_at[1], m.start()) and _gates(flag_at[0], m.start(), end):
                return flag_at[0]
            stack[-1] = ("", m.end())
        elif word == "endif" and stack:
            flag_at = stack.pop()
            if _TOOL_WORDS.search(text, flag_at[1], m.start()) and _gates(flag_at[0], m.start(), end):
                return flag_at[0]
    return None


def _gates(flag: str, at: int, end: int) -> bool:
    """True for a flag named for tools (`tool_calls`, `tools`, `use_tools`) whose section ends before
    the loop over the conversation does."""
    return bool(flag) and at < end and _TOOL_WORDS.search(flag.replace("_", " ")) is not None


def _renders(func, name: str, flag: str) -> tuple[list[ast.Call], list[ast.Call]]:
    """The `name.render(...)` calls of `func` that give `flag=` a value that is on, and those that
    give one that is off (None, False, an empty list, 0, "")."""
    on, off = [], []
    for node in subtree(func):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "render"
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name):
            continue
        given = next((k.value for k in node.keywords if k.arg == flag), None)
        if given is None:
            continue
        (off if _off(given) else on).append(node)
    return on, off


def _off(value) -> bool:
    """True for a value that turns a section off: None, False, 0, "", an empty list or tuple."""
    if isinstance(value, ast.Constant):
        return not value.value
    return isinstance(value, (ast.List, ast.Tuple)) and not value.elts


def _tag(module, literal: ast.Constant, flag: str) -> tuple[int, int] | None:
    """The offsets of the first `{% if FLAG %}` in the literal's source text, or None."""
    start, end = module.offsets(literal)
    found = re.compile(r"\{%-?\s*if\s+" + re.escape(flag) + r"\s*-?%\}").search(module.source, start, end)
    return (found.start(), found.end()) if found is not None else None
