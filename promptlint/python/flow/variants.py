"""Variants of a value: the lists or dicts an `Alt` stands for (a value set in branches), nested
Alts flattened, capped at `MAX_VARIANTS` (past it, one merged list or dict). Pure functions over
flow values (values.py).
"""
from __future__ import annotations

from .configured import all_configured
from .merged import merged_list
from .values import Alt, Mapping, Seq


#: The most variants of one list followed through later growth (an `if` that grows a list doubles them).
MAX_VARIANTS = 8


def list_variants(value) -> list | None:
    """The lists an Alt stands for (nested Alts flattened), or None when a variant is not a list.
    Past MAX_VARIANTS of them, one list that holds every item of any of them (`merged_list`)."""
    out = flat_options(value, lambda v: isinstance(v, Seq)) if isinstance(value, Alt) else None
    if out is None or len(out) <= MAX_VARIANTS:
        return out
    merged = merged_list(out, all_configured(value))
    return [merged] if merged is not None else None


def variants_with_list(value) -> list | None:
    """The variants of an Alt (nested Alts flattened, at most `MAX_VARIANTS`) when one of them is
    a list (`x + y` with such a value is list concatenation), else None."""
    if not isinstance(value, Alt):
        return None
    out = flat_options(value, lambda v: True)
    if not out or len(out) > MAX_VARIANTS or not any(isinstance(v, Seq) for v in out):
        return None
    return out


def dict_variants(value: Alt, merge: bool = True) -> list | None:
    """The dicts an Alt stands for (nested Alts flattened), or None when a variant is not a dict.
    Past MAX_VARIANTS of them, one dict of every key any of them sets (`merged_dict`), unless
    `merge` is False (every one of them)."""
    out = flat_options(value, lambda v: isinstance(v, Mapping) and not v.repeated)
    return [merged_dict(out)] if merge and out is not None and len(out) > MAX_VARIANTS else out


def flat_options(value: Alt, accepted) -> list | None:
    """The distinct options of an Alt, nested Alts flattened, or None when one is not `accepted`.
    An Alt met again (values are shared: a list grown in branches holds the same Alt in each
    variant) is skipped: its options, read depth first the first time, are all kept already."""
    out: list = []
    seen: set[int] = set()  # ids of the options kept and of the Alts read (distinct by identity)
    stack = list(reversed(value.options))
    while stack:
        v = stack.pop()
        if isinstance(v, Alt):
            if id(v) not in seen:
                seen.add(id(v))
                stack.extend(reversed(v.options))
        elif accepted(v):
            if id(v) not in seen:
                seen.add(id(v))
                out.append(v)
        else:
            return None
    return out


def one_dict(value) -> Mapping | None:
    """A dict, or one dict for the variants of a dict set in branches (`merged_dict`); None for
    anything else (`**value` of a call: the keys it passes)."""
    if isinstance(value, Mapping):
        return value
    variants = dict_variants(value) if isinstance(value, Alt) else None
    if not variants:
        return None
    return variants[0] if len(variants) == 1 else merged_dict(variants, value.fallback)


def merged_dict(variants: list[Mapping], fallback: bool = False) -> Mapping:
    """One dict for the variants of a dict set in branches (`if tools: payload["tools"] = ...`):
    every key any variant sets, with the value every variant that sets it gives (an Alt where
    they differ)."""
    items: dict = {}
    spans: dict = {}
    for option in variants:
        for key, item in option.items.items():
            seen = items.setdefault(key, [])
            if all(item is not i for i in seen):
                seen.append(item)
            if key in option.key_spans:
                spans.setdefault(key, option.key_spans[key])
    return Mapping({k: v[0] if len(v) == 1 else Alt(v, fallback=fallback) for k, v in items.items()}, spans,
                   variants[0].span, open=any(v.open for v in variants))


def dict_union(left, right, span) -> Mapping | Alt | None:
    """`left | right` (also `left |= right`) of two dicts, either of them one of several (an Alt
    of dicts set in branches: `request = request | self.options(config)` with `request["system"]`
    set in a branch): one dict per pair of variants, the right side's keys winning (past
    MAX_VARIANTS pairs, one dict of every key of each side, `merged_dict`). None when a side is
    not a dict with static keys (`{"question": ...} | prompt`: a LangChain pipe)."""
    lv, rv = _dicts(left), _dicts(right)
    if lv is None or rv is None:
        return None
    if len(lv) * len(rv) > MAX_VARIANTS:
        lv, rv = [one_dict(left)], [one_dict(right)]
    made = [Mapping({**a.items, **b.items}, {**a.key_spans, **b.key_spans}, span,
                    a.node if b.node is not None else None, open=a.open or b.open) for a in lv for b in rv]
    return made[0] if len(made) == 1 else Alt(made, span)


def _dicts(value) -> list[Mapping] | None:
    """The dicts `value` is (one, or each variant of an Alt of dicts), or None."""
    if isinstance(value, Mapping):
        return None if value.repeated else [value]
    return dict_variants(value) if isinstance(value, Alt) else None
