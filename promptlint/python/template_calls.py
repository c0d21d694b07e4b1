"""A prompt template filled through a callable made with it (Policy 9): `grade =
make_grader(prompt=GRADER_PROMPT, model=m)`, then `grade(answer=..., reference=...)`, every keyword
of the call naming a `{placeholder}` of the template the callable was made with. The factory is
code the analysis may not follow (many callers, a closure returned, a framework's chain): the
template and the call's keywords say what text the call builds, so it is a prompt candidate of its
own, the template's text with each keyword's value at its placeholder, judged where it is filled.

Facts only: a `python-constant` layout (candidates.text_layout) with one part whose role the
template's name says (`role_of`); the rules judge it.
"""
from __future__ import annotations

import ast

from .candidates import text_layout
from .prompt_names import prompt_named, role_of
from .flow.text import FORMAT_FIELD
from .flow.segment_text import const_str

#: Characters of static text a template filled so needs (a sentence): fewer than a prompt named
#: only by a variable needs (`candidates.MIN_STATIC_CHARS`), as the call filling its placeholders
#: by name is evidence of its own; a short prompt is judged as short by the rules (Policy 4).
MIN_TEMPLATE_CHARS = 40


def may_fill(call: ast.Call) -> bool:
    """Cheap test: a call of a plain name with keywords only (`grade(answer=a, reference=r)`)."""
    return isinstance(call.func, ast.Name) and not call.args and bool(call.keywords) \
        and all(k.arg is not None for k in call.keywords)


def filled_through(finder, call: ast.Call, frame) -> bool:
    """The template `call` fills through the callable its name is bound to (module docstring):
    a candidate of that template's text with the call's keywords at its placeholders. True when a
    layout was added."""
    if not may_fill(call) or frame.func is None:
        return False
    th = finder.ev.env_at(frame, call).get(call.func.id)
    maker = getattr(th, "node", None) if getattr(th, "kind", None) == "expr" else None
    if isinstance(maker, ast.Await):
        maker = maker.value
    if not isinstance(maker, ast.Call):
        return False
    keys = {k.arg for k in call.keywords}
    for name, arg in _named_arguments(maker):
        if not prompt_named(name):
            continue
        template = finder.ev.eval(arg, frame, th.env)
        text = const_str(template)
        if text is None or not keys <= _fields(text):
            continue
        values = {k.arg: finder.ev.eval(k.value, frame) for k in call.keywords}
        filled = finder.ev.format_text(template, [], values, frame, finder.m.span(call), keep_unbound=True)
        return text_layout(finder, call, filled.segs, finder.m.span(call), role_of(name),
                           MIN_TEMPLATE_CHARS) is not None
    return False


def _named_arguments(maker: ast.Call):
    """(name, node) of each argument of the factory call that a name may call a prompt: a
    keyword's name and, for a name or attribute passed, the name it reads (`prompt=USER_PROMPT`
    gives both "prompt" and "USER_PROMPT"; the most specific, the value's own name, first)."""
    for arg in [*maker.args, *(k.value for k in maker.keywords)]:
        if isinstance(arg, ast.Name):
            yield arg.id, arg
        elif isinstance(arg, ast.Attribute):
            yield arg.attr, arg
    for k in maker.keywords:
        if k.arg is not None:
            yield k.arg, k.value


def _fields(text: str) -> set[str]:
    """The named `{field}`s of a `str.format` template (`{{` escapes left out)."""
    out = set()
    for mt in FORMAT_FIELD.finditer(text):
        head = (mt.group(1) or "").strip()
        if head.isidentifier():
            out.add(head)
    return out
