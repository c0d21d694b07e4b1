"""A prompt assembled as a dict of sections (Policy 9): a local name that says prompt bound to a
dict display with text keys, completed by other statements and helpers (`prompt["Instructions"]
|= self._guidelines`, `prompt["Data"] = preview`), then handed on whole to code that compiles it
to text (a helper that writes each key as a heading and its value under it, in the dict's order):

    prompt = {"Introduction": INTRO, "Task": self.task, "Instructions": {}}
    prompt["Instructions"] |= self._response_format
    return self.query(prompt)

Its text is its sections in insertion order, each key (static text) followed by its value: a
text; a dict of sections, nested; a list, one line per item. The dict is read as it is where the
function last reads the name, so what later statements add is in it. The result is a
`python-constant` candidate with one part (its role from the name, `prompt_names.role_of`), judged
on its own unless a send site carries its text (engine). How the compiler marks the headings is
not read: a key counts as its own text, the least it adds.
"""
from __future__ import annotations

import ast

from ..model import Segment
from .candidates import text_layout
from .prompt_names import role_of, words
from .flow.values import Alt, Mapping, Seq, Text
from .layout_values import variants_of
from .message_candidates import static_chars
from .walk import subtree

MAX_DEPTH = 4  # nesting of sections read as sections (deeper: the value as text)


#: Keys of a message, a content block or a request payload: such a dict is no dict of sections.
_PAYLOAD_KEYS = frozenset({"role", "type", "content", "messages", "model", "text", "parts", "input", "tools",
                           "system", "temperature", "max_tokens"})
#: Words of a name that say it holds several prompts (a registry read by key), not one.
_SEVERAL = frozenset({"prompts", "templates", "messages"})


def sectioned(node: ast.AST, name: str = "") -> bool:
    """A dict display with at least two entries, every key a string literal (a `**spread` has no
    key of its own: not one) and none a key of a message or a request (`role`, `content`, `model`),
    bound to a name that does not say it holds several prompts (`prompts`)."""
    return isinstance(node, ast.Dict) and len(node.keys) >= 2 and all(
        isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value not in _PAYLOAD_KEYS
        for k in node.keys) and not words(name) & _SEVERAL


def section_dict(finder, node: ast.AST, name: str, frame) -> bool:
    """The dict bound to `name` at `node` (the caller checked that the name says prompt and that
    the value is `sectioned`) as a candidate of its sections' text, read where the function last
    reads the name. True when a layout was added."""
    func = frame.func
    last = _last_read(func, name, node) if func is not None else None
    if last is None or _parents(func).get(id(last)).__class__ in (ast.Subscript, ast.Attribute):
        return False  # not handed on whole to code that compiles it (never read after, or read by key)
    value = finder.ev.lookup(frame, name, last)
    options = [o for o in variants_of(value) if isinstance(o, Mapping) and not o.repeated]
    if not options:
        return False
    # (a section set under a condition, `if preview: prompt["Data"] = preview`: the variant with
    # the most static text, as for other candidates read in variants)
    segs = max((_sections(finder, o, frame, 0) for o in options), key=static_chars)
    return text_layout(finder, node, segs, finder.m.span(node), role_of(name)) is not None


def _last_read(func, name: str, after: ast.AST):
    """The last load of `name` in `func` after the statement `after` (in source order), or None."""
    row = getattr(after, "end_lineno", after.lineno)
    best = None
    for n in subtree(func):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and n.lineno > row:
            if best is None or (n.lineno, n.col_offset) > (best.lineno, best.col_offset):
                best = n
    return best


def _parents(func) -> dict:
    """id(node) -> its parent node, for the nodes of `func`."""
    return {id(child): node for node in subtree(func) for child in ast.iter_child_nodes(node)}


def _sections(finder, value, frame, depth: int) -> list[Segment]:
    """The text of a section's value: each key and its value of a dict, one line per item of a
    list, a text as it is; anything else as the evaluator reads it as text."""
    if isinstance(value, Mapping) and not value.repeated and depth < MAX_DEPTH:
        out: list[Segment] = []
        for key, item in value.items.items():
            out.append(Segment(text=f"{key}\n", span=value.key_spans.get(key)))
            out.extend(_sections(finder, item, frame, depth + 1))
        return out
    if isinstance(value, Seq) and not value.repeated and value.unordered is None and depth < MAX_DEPTH:
        out = []
        for item in value.items:
            out.extend(_sections(finder, item, frame, depth + 1))
        return out
    if isinstance(value, Alt) and depth < MAX_DEPTH:
        grown = _grown_lists(value)
        if grown is not None:  # a list grown under conditions: the items all have, then what some add
            shared, rest = grown
            return _sections(finder, Seq(shared), frame, depth) + _sections(finder, rest, frame, depth + 1)
    segs = finder.ev.text_of(value, frame) if not isinstance(value, Text) else value.segs
    return [*segs, Segment(text="\n", span=None)]


def _grown_lists(value: Alt):
    """Of one of several lists that share their first items (`guide = [...]`, then `if flag:
    guide.append(...)`): (those items, an Alt of what each adds after them), or None."""
    options = variants_of(value)
    if len(options) < 2 or not all(isinstance(o, Seq) and not o.repeated and o.unordered is None for o in options):
        return None
    n = min(len(o.items) for o in options)
    while n and any(o.items[n - 1] is not options[0].items[n - 1] for o in options):
        n -= 1
    if not n:
        return None
    rest = Alt([Seq(o.items[n:], o.span) for o in options], value.span, value.fallback, value.configured)
    return options[0].items[:n], rest
