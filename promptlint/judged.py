"""Which prompt layouts of a run are prompts of their own, and which are part of another.

A run finds some prompt text twice: a template or config prompt that Python renders with known
values, a LangChain prompt template whose `invoke(...)` values are known, a prompt candidate (a
function returning prompt text, a module-level prompt, a tools list) whose text reaches a call
that sends it. The other layout supersedes it: the prefix rules judge the prompt there
(docs/policies.md, policy 9), and statistics count it once, there. So is one prompt text built in
a helper and returned unchanged by the functions that call it (`def system_prompt(u): return
base_prompt(u)`): one prompt, judged and counted where it is built (`copies`).

`prompts_analysed` is the one list of a run's prompts every report counts and lists (the text
summary's "N prompts analysed", the JSON report's `prompts`, the HTML page, `--statistics`);
`references` names, for each other layout, the prompt of that list that holds it. Pure functions
of the layouts (no analysis).
"""
from __future__ import annotations

from typing import Iterable

from .model import Kind, PromptLayout, Span, Volatility

_STANDALONE = {"template", "prompt-text", "config-string"}
#: The api of a request body a function returns for another to send (python/request_bodies.py).
BODY_API = "messages (a request body returned)"


def judged(layouts: Iterable[PromptLayout]) -> list[PromptLayout]:
    """The layouts that no other layout of `layouts` supersedes, in their order: every layout
    except a template or config prompt that a Python call renders (it is among the call's
    `templates`, or a candidate's that renders it with values from Python: `_rendered`), a layout
    another names in `supersedes`, and a `python-constant` candidate whose
    text reaches a send site (`_carried`) or, for a
    tools list (not one tool's schema, `Part.definition`: the send site judges the list's order, not
    the order inside a tool), that lies in a function read to build a send site's tools, or, for a request body
    a function returns, in a function read to build a send site's request of which something
    was read (`reads_nothing` false: one that read nothing judges no body), and a copy of a
    candidate's text that another function returns (`copies`)."""
    layouts = list(layouts)
    linked = {t for lt in layouts if lt.source == "python-call" for t in lt.templates} | _rendered(layouts)
    covered = {c for lt in layouts for c in lt.supersedes}
    sent = {s.span for lt in layouts if lt.source == "python-call" for _, _, _, s in lt.segments()
            if s.span and not _unfilled(s)}
    # where a send site's values were made when they enter its text elsewhere (a message present
    # or absent by a condition: its content's segment placed at the message)
    made = {(s.origin, s.kind, s.expr) for lt in layouts if lt.source == "python-call"
            for _, _, _, s in lt.segments() if s.origin and not s.is_static and s.kind is not Kind.HISTORY}
    reached: dict = {}  # functions read to build a send site's tools
    built: dict = {}  # functions read to build a send site's request
    for lt in layouts:
        if lt.source == "python-call":
            # (a send site that read nothing of its request, a `**mapping` of one dict per subclass
            # it could not spread, judges no body a function it read returns)
            holds = not reads_nothing(lt)
            for span in lt.reaches:
                if holds:
                    built.setdefault(span.filename, []).append(span)
                if any(p.role == "tools" for p in lt.parts):
                    reached.setdefault(span.filename, []).append(span)
    filled = {i.span for lt in layouts if lt.source == "python-constant" for _, _, _, s in lt.segments()
              for i in (s, *(i for i in s.inner if i.volatility is Volatility.STABLE))  # (flow/text.py: with_variant_values)
              if i.span and not i.is_static and i.volatility is not Volatility.UNKNOWN and not _unfilled(i)}
    filled |= _filled_between([lt for lt in layouts if lt.source == "python-constant"])
    held = _held_by_larger([lt for lt in layouts if lt.source == "python-constant"])
    # a template judged where it is filled is no copy to keep: a fill whose values read as the
    # template's placeholders do (`{current_time}` filled with `self.agent.current_time`) is judged
    filling = {id(lt) for lt in layouts if lt.source == "python-constant" and _template_filled(lt, filled)}
    copied = copies([lt for lt in layouts if id(lt) not in filling])
    out = []
    for layout in layouts:
        if layout.id in covered or (layout.source in _STANDALONE and layout.site.filename in linked) \
                or id(layout) in copied:
            continue
        if layout.source == "python-constant" and (
                _carried(layout, sent, made) or _template_filled(layout, filled) or id(layout) in held
                or all(p.role == "tools" and not p.definition for p in layout.parts) and _inside(layout.site, reached)
                or layout.api == BODY_API and _inside(layout.site, built)):
            continue
        out.append(layout)
    return out


def copies(layouts: Iterable[PromptLayout], roles: bool = True) -> dict[int, PromptLayout]:
    """`id(copy) -> the layout kept` for the `python-constant` candidates whose text is another's,
    segment for segment (the same spans, static text, kinds and volatilities; how each value is
    named and where it comes from aside): one prompt text built in a helper and returned by the
    functions that call it. The one kept is the candidate whose site (the statement that returns it) holds its first
    segment, where the text is built; else the first in file order. A candidate of which nothing
    was read (`reads_nothing`: one value of unknown source, such as a lookup helper's result for
    several keys) is no copy: its text is not known to be the same. `roles`: the parts' roles
    must be the same too (a wrapper named for the system prompt, `def system_prompt(): return
    base_prompt()`, reads its text as a system prompt: judged there as well, counted once)."""
    groups: dict[tuple, list[PromptLayout]] = {}
    for lt in layouts:
        if lt.source == "python-constant" and not reads_nothing(lt):
            key = _text_key(lt, roles)
            if key is not None:
                groups.setdefault(key, []).append(lt)
    out: dict[int, PromptLayout] = {}
    for group in groups.values():
        if len(group) < 2:
            continue
        first = next(s.span for _, _, _, s in group[0].segments() if s.span is not None)
        keep = min(group, key=lambda lt: (not _holds(lt.site, first), lt.site.filename != first.filename,
                                          lt.site.filename, lt.site.start))
        out.update((id(lt), keep) for lt in group if lt is not keep)
    return out


def _text_key(layout: PromptLayout, roles: bool = True) -> tuple | None:
    """What makes two candidates one prompt text: its api and newest user message, each part's
    role (with `roles`), breakpoints and segments (span, static text, kind, volatility,
    precision, name-only guess, serialised order, where a conversation is cut); None when no
    segment has a span (text of no place in the code is not known to be built at one). How a
    value is named (`expr`), where it comes from (`origin`) and the words of its evidence are
    left out: a wrapper's own parameter passed on (`return base_prompt(name)`) is the same value."""
    if not any(s.span is not None for _, _, _, s in layout.segments()):
        return None
    return (layout.api, layout.newest_user, tuple(
        (p.role if roles else "", p.read, p.name_only,
         tuple((b.after, b.span, b.ttl, b.repeated, b.count) for b in p.breakpoints),
         tuple((s.span, s.text, s.kind, s.volatility, s.precision, s.name_only,
                s.ordered, s.window, s.window_stop, s.older, s.unconfirmed, s.written_once, s.apart) for s in p.segments))
        for p in layout.parts))


def _holds(site: Span, span: Span) -> bool:
    return site.filename == span.filename and site.start <= span.start and span.end <= site.end


def counted(layout: PromptLayout) -> bool:
    """True when a layout is a prompt analysed (if no other holds it: `prompts_analysed`): every
    request (a send call; those that read nothing are named under the text summary), and any
    other prompt (text or a message list built in the code, a template) of which the analysis
    read something: a message list of parameters alone, with no text and no part of known kind,
    is no prompt analysed."""
    return layout.source == "python-call" or not reads_nothing(layout)


def reads_nothing(layout: PromptLayout) -> bool:
    """True when a layout holds no segment at all, or no static text and at least one segment of
    unknown kind and volatility."""
    segs = [s for _, _, _, s in layout.segments()]
    return not segs or not _static_text(segs) and any(
        s.kind is Kind.UNKNOWN and s.volatility is Volatility.UNKNOWN for s in segs)


def handed_on(layout: PromptLayout) -> bool:
    """True for a request whose every part is a conversation handed in and not read
    (`messages=messages` in a wrapper that sends what its callers built) and that holds no static
    text: nothing of what it sends is known here."""
    return bool(layout.parts) and all(p.is_history and not p.read for p in layout.parts) and not _static_text(
        [s for _, _, _, s in layout.segments()])


def _static_text(segs) -> bool:
    return any(s.is_static and s.text.strip() for s in segs)


def prompts_analysed(layouts: Iterable[PromptLayout]) -> list[PromptLayout]:
    """The prompts of a run, each once, in their order: the layouts `judged` keeps that are
    `counted`, the text of one built in a helper once, where it is built (`copies` by text alone:
    a wrapper that reads it as a system prompt is judged too, and is a reference of it). Every
    report counts and lists these (one source of truth)."""
    layouts = list(layouts)
    copied = copies(layouts, roles=False)
    return [lt for lt in judged(layouts) if counted(lt) and id(lt) not in copied]


def references(layouts: Iterable[PromptLayout], analysed: list[PromptLayout] | None = None) -> dict[int, str | None]:
    """`id(layout) -> the id of the prompt of `analysed` (default: `prompts_analysed(layouts)`)
    that holds it` for every other layout: the one kept for a copy, the one that supersedes it,
    a call that renders its template file, else the first prompt (a request first) that holds
    one of its segments (a candidate a call sends, a part of a larger prompt); None when no
    prompt holds it (a message list of parameters alone)."""
    layouts = list(layouts)
    analysed = prompts_analysed(layouts) if analysed is None else analysed
    ids = {id(lt) for lt in analysed}
    copied = copies(layouts, roles=False)
    by_span: dict = {}
    for lt in sorted(analysed, key=lambda x: x.source != "python-call"):
        for _, _, _, s in lt.segments():
            if s.span is not None:
                by_span.setdefault(s.span, lt.id)
    out: dict[int, str | None] = {}
    for layout in layouts:
        if id(layout) in ids:
            continue
        kept = copied.get(id(layout))
        holder = kept.id if kept is not None and id(kept) in ids else next(
            (lt.id for lt in analysed if layout.id in lt.supersedes
             or layout.source in _STANDALONE and layout.site.filename in lt.templates), None)
        if holder is None:
            holder = next((by_span[s.span] for _, _, _, s in layout.segments() if s.span in by_span), None)
        out[id(layout)] = holder
    return out


def _held_by_larger(candidates: list[PromptLayout]) -> set[int]:
    """The ids (`id(layout)`) of the text candidates (no conversation in them) whose every dynamic
    segment (by span, at least one) another candidate holds, in one run, along with more text: a part of a larger prompt the code builds
    from it (`graph_system = TEMPLATE.format(type=type)`, then `return graph_input + CUSTOM +
    graph_system`; the template itself), judged where it sits in that prompt, not as if it began
    one. So is a candidate of one value (a time, an id) that another candidate holds as the text
    built around it, placed whole at one of its placeholders (`Segment.written` built, the value
    made at the same place, `origin`) in a candidate built after it in the same file: `preamble =
    T.format(now=datetime.now())`, then `return OUTER.format(preamble=preamble)` is one root cause,
    judged in the larger prompt (Policy 8). A
    candidate of several values is kept: the larger one holds them as one piece of text at one
    place, where only one of their findings can stand. A wrapper's candidate that holds a caller's
    text only as that caller's argument sent apart from the wrapper's conversation (`Segment.apart`)
    does not hold the caller's request: the caller's candidate stays the prompt judged."""
    spans, orders = [], []
    index: dict = {}  # dynamic segment span -> the candidates holding it
    holding: list = []  # per candidate: the spans of the dynamic segments it holds as its own request's
    built: dict = {}  # (origin, kind) of a value a candidate holds as text built around it -> those candidates
    for j, lt in enumerate(candidates):
        segs = [s for _, _, _, s in lt.segments()]
        orders.append([s.span for s in segs if s.span is not None])
        own = {s.span for s in segs if not s.is_static and s.span is not None}
        spans.append((own, {s.span for s in segs if s.span is not None}))
        holding.append({s.span for s in segs if not s.is_static and s.span is not None and not s.apart})
        for span in holding[-1]:
            index.setdefault(span, []).append(j)
        for s in segs:
            if not s.is_static and s.origin is not None and s.written is not None and s.written.built:
                built.setdefault((s.origin, s.kind), set()).add(j)
    out: set[int] = set()
    for i, lt in enumerate(candidates):
        own, every = spans[i]
        if not own or any(s.kind is Kind.HISTORY for _, _, _, s in lt.segments()):
            continue  # (a message list with its conversation is judged as it is sent)
        for j in index.get(next(iter(own)), ()):
            if j != i and own <= holding[j] and every < spans[j][1] and _within(orders[i], orders[j]):
                out.add(id(lt))
                break
        else:
            values = [s for _, _, _, s in lt.segments() if not s.is_static]
            if len(values) == 1 and values[0].origin is not None and any(
                    _built_after(lt, candidates[j]) for j in built.get((values[0].origin, values[0].kind), ()) if j != i):
                out.add(id(lt))
    return out


def _built_after(smaller: PromptLayout, larger: PromptLayout) -> bool:
    """True when `larger` is built after `smaller` in the same file (its site further down): the
    text built from the smaller one's value flows into it, not the other way round."""
    return larger.site.filename == smaller.site.filename and larger.site.start > smaller.site.start


def _within(part: list, whole: list) -> bool:
    """True when the span sequence `part` appears in `whole` as one run, in its order (the
    smaller prompt is a piece of the larger one, not the same values arranged otherwise)."""
    n = len(part)
    return any(whole[k:k + n] == part for k in range(len(whole) - n + 1) if whole[k] == part[0])


def holders(layout: PromptLayout, layouts: Iterable[PromptLayout]) -> list[PromptLayout]:
    """The larger `python-constant` candidates of `layouts` that hold `layout` (`_held_by_larger`):
    where a prompt built from it is judged, which `explain` draws first."""
    candidates = [lt for lt in layouts if lt.source == "python-constant"]
    if layout not in candidates:
        return []
    held = _held_by_larger([layout] + [lt for lt in candidates if lt is not layout])
    if id(layout) not in held:
        return []
    own = {s.span for _, _, _, s in layout.segments() if not s.is_static and s.span is not None}
    return [lt for lt in candidates if lt is not layout
            and own <= {s.span for _, _, _, s in lt.segments() if not s.is_static and s.span is not None}
            and id(lt) not in _held_by_larger(candidates)]


def _rendered(layouts: list[PromptLayout]) -> set[str]:
    """The template files (names) that a `python-constant` candidate renders with a value from
    Python in one of their placeholders (a segment at the placeholder, `origin` at the `render(...)`
    argument): a function returning the rendered prompt (`return [..., {"role": "user", "content":
    TEMPLATE.render(func_desc=row["func_desc"])}]`) reads the template as a call that sends it
    does, knowing its fills and where its text goes; the template alone, its values judged by
    their names, is no second prompt. A candidate holding a template's text with no fill from
    Python (read as written) does not count."""
    return {s.span.filename for lt in layouts if lt.source == "python-constant"
            for _, _, _, s in lt.segments()
            if not s.is_static and s.span is not None and s.origin is not None
            and s.span.filename in lt.templates and s.origin.filename != s.span.filename}


def _unfilled(seg) -> bool:
    """True for a placeholder a send site leaves as written (`{current_date}` of a LangChain
    template filled where it is invoked, classified by its name or not at all): the site does not
    carry the value a candidate that fills the same template knows."""
    return (seg.kind is Kind.TEMPLATE_VARIABLE or seg.name_only) and seg.expr.startswith("{") \
        and seg.expr.endswith("}")


def _carried(layout: PromptLayout, sent: set, made: set = frozenset()) -> bool:
    """True when a send site carries the candidate's text: one of its segments is there, and so
    is its first dynamic segment (the one its prefix breaks at). A send site that holds the static
    text but lost what changes in it (read through a conversion the analysis does not follow)
    does not judge it: the candidate is judged on its own. `made`: where the send sites' dynamic
    values were made, when they enter the text elsewhere (`origin`); a candidate with no static
    text whose value (made at the same place, of the same kind; not a conversation, which a send
    site may hold without the cut a candidate reports) a send site holds so (`[{"role": "system", "content": self.instructions}] +
    messages` under an `if`) is carried too."""
    segs = [s for _, _, _, s in layout.segments()]
    first = next((s for s in segs if not s.is_static and s.span is not None), None)
    if first is not None and not any(s.is_static for s in segs) and (first.origin or first.span, first.kind, first.expr) in made:
        return True
    if not any(s.span in sent for s in segs):
        return False
    return first is None or first.span in sent


def _template_filled(layout: PromptLayout, filled: set) -> bool:
    """True for a template constant (its first dynamic segment a placeholder left as written,
    `{context}` of `TEMPLATE = "...{context}..."`) whose text another candidate holds with a value
    of known volatility in that placeholder: found stable (`prompt = TEMPLATE.format(
    context=self._context(), request=request)`, the context made of what the instance is built
    with), where the template alone would blame a value that does not change; or found to change
    (`TEMPLATE.format(current_date=datetime.now().strftime("%Y-%m-%d %H:%M:%S"), cwd=cwd)`), where
    the template alone, its first placeholder guessed from its name or not at all, would blame a
    later value that the fill shows to be behind it (Policy 8: the fill reports the first one, with
    what it costs). Either way the prompt is judged where it is filled. A fill that knows no more
    than the placeholder (an unknown parameter for `{query}`) leaves the template judged on its own
    too. `filled`: the spans of the values of known volatility of `python-constant` layouts."""
    segs = [s for _, _, _, s in layout.segments()]
    at = next((i for i, s in enumerate(segs) if not s.is_static and s.span is not None), None)
    if at is None or not _unfilled(segs[at]):
        return False
    around = (segs[at - 1].span if at else None, segs[at + 1].span if at + 1 < len(segs) else None)
    return segs[at].span in filled or (None not in around and around in filled)



def _filled_between(candidates: list[PromptLayout]) -> set:
    """(span, span) of two pieces of static text between which a candidate holds other static
    text only (a constant imported from another module): where a template's placeholder between
    those pieces is filled with fixed text (`GUIDE.format(tool_name=TOOL_NAME)`, `TOOL_NAME =
    "update_plan"` elsewhere), so the template is judged where it is filled (`_template_filled`),
    not alone with a value of unknown volatility. Pieces at most `_FILL_SPAN` segments apart."""
    out = set()
    for lt in candidates:
        for part in lt.parts:
            segs = part.segments
            for i, seg in enumerate(segs):
                if not (seg.is_static and seg.span is not None and seg.text):
                    continue
                for k in range(i + 2, min(i + 2 + _FILL_SPAN, len(segs))):
                    if not segs[k - 1].is_static:
                        break
                    if segs[k].is_static and segs[k].span is not None and segs[k].text:
                        out.add((seg.span, segs[k].span))
    return out


_FILL_SPAN = 4


def _inside(site: Span, reached: dict) -> bool:
    """True when `site` lies inside one of the function spans of its file in `reached`."""
    return any(f.start <= site.start and site.end <= f.end for f in reached.get(site.filename, ()))
