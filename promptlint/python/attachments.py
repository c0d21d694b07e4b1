"""Content blocks that are not text: an image, a document, a file or audio sent in a message's
list of blocks (`{"type": "image_url", "image_url": {"url": data_url}}`, Anthropic's `{"type":
"image", "source": {...}}`, Responses' `{"type": "input_image", ...}`), and lists of blocks
spread into that list (`[*image_blocks, {"type": "text", "text": prompt}]`).

An attachment is part of the request's prefix in the order it is written: tokens of an image
before a text block come before that text. Its bytes are not prompt text, so it is stated as one
dynamic segment with the volatility of the data it is made of (a fixed attachment, all of whose
values are written in the code, is the same on every request: no segment, as before). The
segment's `evidence` starts with `model.ATTACHMENT` (`Segment.is_attachment`) so the rules can tell
it from text.
"""
from __future__ import annotations

from ..model import ATTACHMENT, Kind, Segment
from .flow.segment_text import const_str
from .flow.values import Alt, Mapping, Seq, Spread, Text, most_volatile

#: Words of a block `type` that name content other than text (image, image_url, input_image,
#: document, file, input_file, audio, input_audio, video_url).
_WORDS = ("image", "document", "file", "audio", "video")
_DEPTH = 6  # nesting of a block's values read (`source.data`, `image_url.url`)


def block_list(value) -> bool:
    """True for a list of content blocks written in the code: dicts, with lists of blocks spread
    among them (`[*images, {"type": "text", "text": prompt}]`), at least one dict written."""
    return isinstance(value, Seq) and not value.repeated and any(isinstance(i, Mapping) for i in value.items) \
        and all(isinstance(i, (Mapping, Spread)) for i in value.items)


def blocks_of(value) -> list[tuple]:
    """The items of a list of blocks in order, as (block, spread) pairs: each dict written in the
    list (spread None), and for a spread list of blocks the dicts its variants hold (a list that is
    empty in one branch adds nothing there) with that spread; a spread whose blocks are not known
    stays a `Spread` (its own pair: (spread, spread))."""
    out: list = []
    for item in value.items:
        if not isinstance(item, Spread):
            out.append((item, None))
            continue
        inner = item.value
        variants = inner.options if isinstance(inner, Alt) else [inner]
        lists = [v for v in variants if isinstance(v, Seq) and all(isinstance(i, Mapping) for i in v.items)]
        if len(lists) == len(variants) and any(v.items for v in lists):
            seen: dict = {}
            for v in lists:
                for block in v.items:
                    seen.setdefault(id(block), block)
            out.extend((block, item) for block in seen.values())
        else:
            out.append((item, item))
    return out


#: Keys of a Gemini part dict that carry data (`{"inline_data": {"mime_type": ..., "data": ...}}`).
_DATA_KEYS = ("inline_data", "file_data", "inlineData", "fileData")


def kind_of(block: Mapping) -> str | None:
    """The block's `type` when it names an attachment (`image_url`, `document`), or the key of a
    Gemini part of data (`inline_data`), else None."""
    if "text" in block.items or "content" in block.items:
        return None
    kind = const_str(block.items["type"]) if "type" in block.items else None
    if kind is None:
        return next((k for k in _DATA_KEYS if k in block.items), None)
    return kind if any(w in kind.lower() for w in _WORDS) else None


def attachment(ev, block: Mapping, kind: str, frame, spread: Spread | None = None) -> Segment | None:
    """One dynamic segment for an attachment block whose data is not all written in the code
    (its most volatile value's volatility), or None for a fixed attachment. It enters the request
    at the block, or at the `spread` of a list of such blocks built elsewhere (`*image_blocks`),
    whose code names it; the block is where it is made (`origin`)."""
    segs: list[Segment] = []
    _texts(ev, block, frame, segs, 0)
    src = most_volatile(segs)
    if src is None:
        return None
    at = spread.span if spread is not None and spread.span is not None else block.span or src.span
    expr = spread.expr if spread is not None and spread.expr else src.expr
    return Segment(span=at, kind=Kind.UNKNOWN if src.kind is Kind.HISTORY else src.kind,
                   volatility=src.volatility, expr=expr, evidence=f"{ATTACHMENT}, {_article(kind)} `{kind}` block",
                   origin=block.span if block.span != at else None, name_only=src.name_only)


def spread_blocks(ev, item: Spread, frame) -> list[Segment]:
    """The segments of a spread list of blocks not known (`*self.format_images(image)`): its text
    as the evaluator reads it, one dynamic value of unknown kind."""
    segs = ev.text_of(item.value, frame)
    return [s if s.is_static else Segment(span=item.span or s.span, kind=s.kind, volatility=s.volatility,
                                          expr=item.expr or s.expr, evidence=s.evidence or "content blocks not known statically",
                                          origin=s.origin, name_only=s.name_only, source=s.source, source_name=s.source_name)
            for s in segs]


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _texts(ev, value, frame, out: list, depth: int) -> None:
    if depth > _DEPTH:
        return
    if isinstance(value, Mapping):
        for key, v in value.items.items():
            if key not in ("type", "cache_control", "detail", "media_type"):
                _texts(ev, v, frame, out, depth + 1)
    elif isinstance(value, Seq):
        for v in value.items:
            _texts(ev, v.value if isinstance(v, Spread) else v, frame, out, depth + 1)
    elif value is not None:
        out.extend(ev.text_of(value, frame))


#: Calls that make a Gemini content part of data that is not text (google-genai `types.Part`).
_PART_CALLS = ("Part.from_bytes", "Part.from_uri", "Part.from_data", "Blob(", "FileData(")


def gemini_turn(value) -> list | None:
    """The items of a Gemini `contents` list that is one user turn of parts (`image_parts +
    [prompt]`: google-genai joins strings and `types.Part`s into one user message), as (value,
    kind) pairs in order: kind None for text, "Part" for a part made of data; None when an item
    may be a message of its own (a dict, an object, a list not known), so the list is read as
    messages instead."""
    if not isinstance(value, Seq):  # (a list grown by a comprehension keeps its items in order too)
        return None
    out: list = []
    for item in value.items:
        if isinstance(item, Spread):
            inner = item.value
            variants = inner.options if isinstance(inner, Alt) else [inner]
            if not all(isinstance(v, Seq) and all(_made_part(i) for i in v.items) for v in variants) \
                    or not any(v.items for v in variants):
                return None
            out.append((item, "Part"))
        elif _made_part(item):
            out.append((item, "Part"))
        elif isinstance(item, Text) and item.segs:
            out.append((item, None))
        else:
            return None
    return out if any(kind is None for _, kind in out) and any(kind for _, kind in out) else None


def gemini_segments(ev, turn: list, frame, where=None) -> list[Segment]:
    """The segments of a user turn of `gemini_turn`: text as it reads, a part of data as an
    attachment segment (none when all of its data is written in the code), placed at its spread
    or at the part's call, or at `where` (the `contents` argument) when that call is written
    elsewhere (a helper that returns the parts)."""
    segs: list[Segment] = []
    for item, kind in turn:
        if kind is None:
            segs.extend(ev.text_of(item, frame))
            continue
        src = most_volatile(ev.text_of(item.value if isinstance(item, Spread) else item, frame))
        if src is None:
            continue
        span = item.span if isinstance(item, Spread) and item.span is not None else src.span
        if where is not None and (span is None or not where.contains(span)):
            span = where
        segs.append(Segment(span=span, kind=Kind.UNKNOWN, volatility=src.volatility,
                            expr=item.expr if isinstance(item, Spread) and item.expr else src.expr,
                            evidence=f"{ATTACHMENT}, a content part of data", origin=src.origin if src.origin != span else None,
                            name_only=src.name_only))
    return segs


def _made_part(value) -> bool:
    """A value the evaluator could not read that is a call making a part of data
    (`types.Part.from_bytes(data=..., mime_type="image/webp")`)."""
    return isinstance(value, Text) and len(value.segs) == 1 and not value.segs[0].is_static \
        and any(call in value.segs[0].expr for call in _PART_CALLS)
