"""The segments of one string value of a config file: Jinja when it has Jinja syntax (parsed,
never rendered), else `{var}` / `{{var}}` / `$var` placeholders, with spans mapped back to the
value's characters in the config file."""
from __future__ import annotations

from ...model import replace
from pathlib import Path

from ...model import Segment, Span
from ..jinja import has_jinja_syntax, template_segments
from ..prompt_files import format_template, placeholder_segments
from .located import _Lines, _Str
from .tree import located_tree

_VIRTUAL = "\0config-value"


def located_segments(path: Path, filename: str, text: str, keys: list[str | int]) -> list[Segment] | None:
    """The segments of the string at `keys` of a config file (as `config_prompts` reads it:
    Jinja when it has Jinja syntax, else `{var}` placeholders), with exact spans in `filename`;
    None when the file does not parse or the value is not a string."""
    located = located_tree(path, text)
    if located is None:
        return None
    node = located[0]
    for key in keys:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return None
    return value_segments(path, filename, text, node) if isinstance(node, _Str) else None


def value_segments(path: Path, filename: str, text: str, value: "_Str", lines: "_Lines | None" = None
                   ) -> list[Segment]:
    """Segments of one located string value, with spans in the config file."""
    lines = lines or _Lines(text)
    if has_jinja_syntax(value.value) and not format_template(value.value):
        result = template_segments(path, _VIRTUAL, value.value)
        segs = result.segments if not result.errors else None
    else:
        segs = None
    if segs is None:
        segs = placeholder_segments(value.value, _VIRTUAL)
    value_lines = _Lines(value.value)
    positions = [lines.position(o) for o in value.offsets]

    def remap(span: Span | None) -> Span | None:
        if span is None or span.filename != _VIRTUAL:
            return span
        start = positions[min(value_lines.offset(span.start), len(positions) - 1)]
        end = positions[min(value_lines.offset(span.end), len(positions) - 1)]
        return Span(filename, start, end)

    for seg in segs:
        seg.span = remap(seg.span)
        seg.origin = remap(seg.origin)
        if seg.inner:
            seg.inner = tuple(replace(i, span=remap(i.span), origin=remap(i.origin)) for i in seg.inner)
    return segs
