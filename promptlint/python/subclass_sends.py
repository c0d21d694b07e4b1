"""One request per class: a request a base class's method sends whose content holds what an
overridable method of `self` returns (`self.system_prompt()`, flow/overrides.py), when two or more
of the classes it may be (its subclasses' overrides, the base's own body) give values that change
(a time, an id, an unordered listing, per-request content). The layout of the site draws one
value for the call (the most volatile option), so the value of another class would go unseen:
the site is laid out again once per such class, `self` an instance of that class exactly
(`overrides.exact_self`), each layout a `variant` of the site (1, 2, ...). Each class's request is
then judged as that class sends it, and its value found where its method writes it; a finding the
layouts share is one (dedupe.py).

Which call: one recorded for the class of the sending method (`overrides.dispatched`) one of whose
methods read holds a segment of the site's layout (the option the layout draws). Facts only; the
rules judge each layout."""
from __future__ import annotations

from copy import copy

from .flow.frames import Frame
from .flow.overrides import MAX_OVERRIDES, dispatched, exact_self


def per_class(finder, call, layouts: list, send) -> None:
    """Lay the request `call` (an SDK call of the current function, laid out as `layouts` with an
    open `self`) out once per class (module docstring): `send(call, variant)`, `call.frame` the
    frame of the sending method on that class's instance."""
    frame = finder.frame()
    if frame.cls is None or frame.func is None or not layouts:
        return
    records = dispatched(finder.ev, frame.cls)
    spans = [s.span for layout in layouts for part in layout.parts for s in part.segments if s.span is not None] + \
        [s.origin for layout in layouts for part in layout.parts for s in part.segments if s.origin is not None]
    read = next((r for r in records if any(_within(at, method) for *_, method in r for at in spans)), None)
    if read is None:
        return
    span = finder.m.span(call.node)
    for variant, (module, cls, _) in enumerate(read[:MAX_OVERRIDES + 1], start=1):
        one = copy(call)
        one.frame = Frame(module=frame.module, func=frame.func, cls=frame.cls,
                          self_value=exact_self(module, cls, span))
        finder.ev.reset_budget()
        send(one, variant)


def _within(span, outer) -> bool:
    return span.filename == outer.filename and outer.start <= span.start and span.end <= outer.end
