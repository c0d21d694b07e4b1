"""Prompt text that opens with content drawn at random: the candidate of a few-shot block (or any
text) sampled anew on every call and placed before the rest of a prompt (Policy 9).

`prompt["cot"] = "".join(random.sample(pool, 4)) + self.init_prompt["prefix"]`,
`escalated_prompt = f"{random.choice(LEVELS)}\\n\\n{prompt}"`, `icl = get_icl(intro, random.sample(pool, 4))`
then `prompt["icl"] = icl`: text kept in a name (or a key of a dict, or an attribute) that says
prompt, whose first value that changes per request is a draw of elements of a collection
(`random.sample`, `random.choice(s)`, a generator's method, an in-place `random.shuffle`: `flow`
marks them, `classify.drawn_at_random`), followed by more of the prompt (static text, a value,
text the analysis does not read). The drawn elements are static text of the collection in another
selection or order on every call: their own text is never shared between calls, whatever follows
them, so the candidate needs no static text of its own (`candidates.MIN_STATIC_CHARS`). Its size
and its request are often not known (the pool is loaded at run time, the text is sent elsewhere):
the rules judge it (impact: info when the figures give nothing). A draw made once (in `__init__`,
at import, with a fixed seed: `flow`) is no draw per request and no candidate here.
"""
from __future__ import annotations

import ast

from ..classify import drawn_at_random
from ..model import Kind, Part, Segment, Volatility
from .message_candidates import options_of
from .prompt_names import prompt_named, role_of

#: Words of a draw, or of a helper that makes one (`random_escalation_suffix(attempt)`): a module
#: whose text has none of them is not read.
_MAY_DRAW = ("random", "Random", "shuffle", "secrets", ".sample(", ".choice(", ".choices(")


def may_draw(source: str) -> bool:
    """True when `source` may make a draw, itself or by a helper named for it (`_MAY_DRAW`)."""
    return any(w in source for w in _MAY_DRAW)


def target_name(target) -> str | None:
    """The name an assignment's target says: a local (`prompt`), an attribute (`self.prompt`), or
    a dict's key or the dict (`prompt["cot"]`, `prompts[key]`: the dict's name)."""
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    if isinstance(target, ast.Subscript):
        key = target.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and prompt_named(key.value):
            return key.value
        return target_name(target.value)
    return None


def drawn_head(finder, node, target, value_node, frame) -> bool:
    """The candidate of prompt text kept in `target` (named for prompts: `target_name`) whose first
    value that changes per request is a draw at random followed by more of the prompt (module
    docstring). True when one was added."""
    name = target_name(target)
    if name is None or not prompt_named(name) or not may_draw(finder.m.source) or made_once(finder.m, frame.func):
        return False
    finder.ev.reset_budget(speculative=True)
    value = finder.ev.eval(value_node, frame)
    if finder.ev.budget.exhausted:
        return False
    for option in options_of(value):
        segs = finder.ev.text_of(option, frame)
        if opens_with_draw(segs):
            finder.b.add(node, "python-constant", None, None, None, [Part(role_of(name), segs, span=finder.m.span(value_node))])
            return True
    return False


#: Methods run once when an object is made.
_SETUP = frozenset({"__init__", "__post_init__", "__attrs_post_init__", "model_post_init", "setup", "setUp"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def made_once(module, func, depth: int = 0) -> bool:
    """True when `func` runs only when an object is made: it is `__init__` (`_SETUP`), or every
    call of it in its module (by name, or as a method of `self` / `cls`), one at least, is in such
    a function (two steps: `self.prompts = self._generate_prompts()` in `__init__`): a draw there
    is made once per instance (a probe's prompts built at start), not per request."""
    if func is None or depth > 2:
        return False
    if func.name in _SETUP:
        return True
    callers = []
    for outer in ast.walk(module.tree):
        if not isinstance(outer, _FUNCS) or outer is func:
            continue
        for n in ast.walk(outer):
            f = n.func if isinstance(n, ast.Call) else None
            if (isinstance(f, ast.Name) and f.id == func.name) or (
                    isinstance(f, ast.Attribute) and f.attr == func.name and isinstance(f.value, ast.Name)
                    and f.value.id in ("self", "cls")):
                callers.append(outer)
                break
    return bool(callers) and all(made_once(module, c, depth + 1) for c in callers)


def opens_with_draw(segs: list[Segment]) -> bool:
    """True when the first segment of `segs` that changes per request or per conversation is a
    draw at random (`classify.drawn_at_random`; text of unknown volatility before it, an intro
    read from configuration, may come first) and more of the prompt follows it (static text that
    is not only blank, or another value; not the conversation)."""
    for i, seg in enumerate(segs):
        if seg.is_static or seg.volatility not in (Volatility.PER_REQUEST, Volatility.PER_CONVERSATION):
            continue
        if not drawn_at_random(seg):
            return False
        return any((s.text.strip() if s.is_static else s.kind is not Kind.HISTORY) for s in segs[i + 1:])
    return False
