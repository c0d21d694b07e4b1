"""PRM202 unordered-iteration-in-prompt."""
from __future__ import annotations

import ast

from dataclasses import replace

from ..impact import SMALL_LOSS, before_conversation, is_complete, sent_apart, worth_caching
from ..model import Kind, PromptLayout, Related, Severity, Volatility
from ..prefix import placed_segments
from . import _prefix_rule as text
from .base import Rule

SMALL_TAIL = SMALL_LOSS  # tokens: less static text after the reordered text is a small loss (info)


class UnorderedIterationInPromptRule(Rule):
    """## What it does
    Finds prompt text built by iterating a `set` / `frozenset`, `os.listdir`, `glob`,
    `Path.iterdir`, `os.scandir` or `as_completed` results without `sorted()`, inside the
    cacheable prefix. The order is followed through variables, helpers' return values, attributes
    and templates: a set known from its type (a parameter, a field or a return value annotated
    `set[str]`, a field made by `default_factory=set`), a cut `[:n]` of such a list (which items
    it keeps depends on the order too), a dict whose keys were made by iterating one (a
    comprehension, or `d[key] = ...` in a loop over it), serialised (`json.dumps({f: ... for f in
    fields_set})` without `sort_keys`), a dict holding sets or text in their order (`values[f] =
    set()` or `defaultdict(set)` read back as `list(values[f])[:20]`; `sort_keys` does not sort
    them), and a list shuffled with `random.shuffle`. A list sorted in place (`tools.sort()`) is in
    a fixed order. A set made a list before it reaches the code that iterates it into the text (a
    caller's `ask(list(self.terms))`) is reported where it is iterated, with each call that made it a
    list as a related location (one finding at a helper's loop that several prompts reach names the
    `list(...)` of each). Also what a tool returns to the model: a function decorated as a tool (`@tool`,
    `@mcp.tool()`, `@agent.tool_plain`, `@function_tool`), a tool class's `_run` / `forward`, a
    function listed in a tools list (`TOOLS = [search, fetch]`, `tools=[...]`), or the content of a
    tool-result message written in the code (`{"role": "tool", "content": ...}`), followed into
    the fields of the objects it returns (`Event(participants=list(set(people)))`) and the methods
    of an object handed to it (`store: Annotated[Store, Depends(...)]`).

    ## Why is this bad?
    Set iteration order depends on the hash seed, which differs per process for strings (a set
    known to hold only ints, bools, floats or tuples of them, such as `{1, 2}` or
    `set(range(n))`, iterates in the same order everywhere and is not reported); directory
    listings come in file-system order; `as_completed` yields in completion order. Two workers (or
    two requests) then send the same content in a different order: different bytes, no cache hit.
    Sets of objects hashed by identity iterate in address order, which differs per run as well.
    A warning when the history, more than a few words of static text, or a whole request is known
    to follow; info in a template or prompt file with only a short tail after it, and in prompt
    text built in Python whose send was not found (a helper's message list) without the history
    or a few hundred static tokens after it (the floor of the other prefix rules, which report
    nothing there): the items are the same content in another order, so their own text, of
    unknown size, is at stake and not only the tail, but what the request adds is not known;
    info in the newest user message of a one-shot request when only static text follows it there (the
    same request sent again by another process differs from there on; with per-request content
    after it, not reported); info too in prompt text whose request is not known whole when content known
    to change on every call (a random draw, the user's input) follows it within a few static tokens,
    before any history: no request shares a prefix past that content, so only the items' own text and
    those tokens are at stake; info when such content comes before the order (`User query: {query}`
    first): only the same request sent again by another process shares a prefix up to it. A set whose elements
    are themselves drawn on every call (`set(r["kind"] for r in random.sample(rows, 8))`) differs in
    content per call: it is that draw (PRM103), not an order. A tool's result is info: it is the newest content when it is added,
    and later requests of the same process re-send it as it was first written; only a re-run of
    the conversation in another process (a replay, an evaluation run, a retry in another worker)
    stops sharing a cached prefix there. Info too after the conversation written into the same
    prompt text (a builder's history section in the middle of its text): the next turn's history
    is longer, so what follows it is shared only by requests of the same turn.

    ## Example
    ```python
    system = "Skills:\\n" + "\\n".join(f"- {s}" for s in skills_set)
    ```
    Use instead: `for s in sorted(skills_set)`.

    ## Fix safety
    Safe: the same items in a fixed order (the items must be comparable, e.g. strings or paths);
    a cut is sorted before it is taken (`sorted(tags)[:10]`); `os.scandir` entries, which have no
    `<`, are sorted by name (`key=lambda entry: entry.name`). A `for` loop over `os.walk(...)` gets
    `dirs.sort()` as the first statement of its body instead of `sorted(os.walk(...))`, which would
    read the whole walk before the body prunes or orders it (`dirs[:] = ...`); a walk whose loop
    sorts its folder names in place (`dirs.sort()`, `dirs[:] = sorted(...)`) is in a fixed order and
    not reported. Around another loop that changes its items in place, `sorted(...)` is only shown
    (display-only). A `random.shuffle` has no fix:
    sorting would undo it. In the newest user message of a one-shot request only the last set
    is reported (per-request content follows the earlier ones), and its fix sorts every set
    iterated into that message, each named as a related location.
    """

    code = "PRM202"
    brief = "prompt text (or a tool's result) built by iterating a set, a directory listing, `as_completed`"
    specificity = 1
    merges_named = True  # a helper's loop several prompts reach: each caller's `list(s)` is a related place
    fix_availability = "sometimes"
    fix_title = "Wrap the iterable in `sorted(...)`"

    def check_layout(self, layout: PromptLayout):
        apart = sent_apart(layout)
        placed = placed_segments(layout)
        for k, p in enumerate(placed):
            seg = p.seg
            if seg.kind is not Kind.UNORDERED_ITERATION or p.part.role == "tools":
                continue
            if p.part.role == "tool" and layout.source == "python-constant":
                yield self._tool_result(layout, p)
                continue
            # a prompt whose send was not found, with little static text after the order: its items
            # are still the same content in another order (their own text is at stake), so info
            short = not worth_caching(apart and not before_conversation(p.part.role), p.static_after, p.history_after)
            # in a fragment (its request not known whole), content made anew on every call follows within a few
            # tokens: the order costs its own items' text and those tokens, never what follows (info)
            short = short or not p.in_newest and not is_complete(layout) and _changed_soon_after(p, placed[k + 1:])
            # content made anew on every call comes before it: no other request shares the prefix up to
            # the order, only the same request sent again by another process does (info, as in the newest
            # user message of a one-shot request)
            before = _changed_before(placed[:k])
            short = short or before is not None
            short = short or _after_written_history(layout, p)
            if p.in_newest:  # a one-shot request: only the same request sent again shares it
                if any(not s.is_static for s in p.part.segments[p.seg_index + 1:]):
                    continue  # per-request content follows it: what the order costs is not known
                message = (f"Prompt text built from {text.describe(seg, seg.evidence or 'an unordered source')} "
                           "in the newest user message of a one-shot request: the same request sent again by "
                           "another process gets its items in another order, so what it shares with the cached "
                           "one ends there")
                earlier = _earlier_orders(p)
                related = text.related(seg) + [
                    Related(e.span, f"{text.describe(e)} is iterated into the same message in hash order too: "
                                    "the fix sorts it as well") for e in earlier if e.span is not None]
                yield self.diagnostic(message, seg.span or layout.site, prompt=layout.id,
                                      fix=_joined_fix(seg, earlier), related=related, severity=Severity.INFO)
                continue
            message = (f"Prompt text built from {text.describe(seg, seg.evidence or 'an unordered source')} "
                       f"{text.position(p)}: the order, and so the prefix, can differ between processes or requests")
            if before is not None:
                message += (f"; {text.describe(before.seg)}, which changes on every request, comes before it, so "
                            "only the same request sent again by another process shares the prefix up to here")
            fix = text.fix_of(seg)
            yield self.diagnostic(message, seg.span or layout.site, prompt=layout.id, fix=fix,
                                  related=text.related(seg), severity=Severity.INFO if short else _severity(layout, p),
                                  advice=_advice(seg, fix))


    def _tool_result(self, layout: PromptLayout, p):
        """A tool's result (python/tool_results.py) that holds an unordered iteration: info (see
        the docstring's second section), at the iteration, with the tool as a related location."""
        seg = p.seg
        # a listing's order is the file system's (another machine, a changed folder); a set's the hash seed's
        where = ("on another machine or file system" if "listing" in (seg.evidence or "") else "in another process")
        message = (f"Tool result ordered by {text.describe(seg, seg.evidence or 'an unordered source')}: the same "
                   f"call can return its items in another order {where}, so a re-run of the conversation "
                   "(a replay, an evaluation run, a retry in another worker) stops sharing a cached prefix at this "
                   "result; later turns of the same conversation re-send the result as it was written")
        if p.part.name_only:
            message += "; only the name of the list that holds the function says it is a tool"
        related = text.related(seg)
        if p.part.span is not None and (seg.span is None or not p.part.span.contains(seg.span)):
            related.append(Related(p.part.span, "the tool whose result holds it"))
        return self.diagnostic(message, seg.span or p.part.span or layout.site, prompt=layout.id,
                               fix=text.fix_of(seg), related=related, severity=Severity.INFO,
                               name_only=p.part.name_only)


#: The help line where the segment is a set built at its place with no fix (`{f(v) for v in
#: values}` returned): sorting what it is built from leaves a set, in hash order again.
_SET_BUILT = "Turn the set into a list in a fixed order where it becomes text (`sorted(...)` of it), or build a list"
_SHUFFLED = ("Keep one order: shuffle with a fixed seed (`random.Random(0).shuffle(xs)`) or once, where the list "
             "is made; sorting would undo the shuffle")


def _advice(seg, fix) -> str | None:
    """The help line of a finding with no fix: a set made at its place, a shuffle; else the rule's."""
    if fix is not None:
        return None
    if "shuffle(" in (seg.expr or ""):
        return _SHUFFLED
    return _SET_BUILT if _set_built(seg) else None


def _set_built(seg) -> bool:
    """True when the segment's code is a set display, a set comprehension or a `set(...)` /
    `frozenset(...)` call: the value is the set itself, not a loop over one."""
    try:
        node = ast.parse(seg.expr or "", mode="eval").body
    except SyntaxError:
        return False
    return isinstance(node, (ast.Set, ast.SetComp)) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("set", "frozenset"))


def _after_written_history(layout: PromptLayout, p) -> bool:
    """True when the conversation, written into prompt text (a history segment of a part that is
    not a history part), comes before `p` in the request: the next turn writes a longer one there."""
    return any(s.kind is Kind.HISTORY and not part.is_history and (pi, si) < (p.part_index, p.seg_index)
               for pi, si, part, s in layout.segments())


def _changed_soon_after(p, later) -> bool:
    """True when content known to change on every call (`Volatility.PER_REQUEST`: a random draw, the
    user's input) follows `p` with fewer than `SMALL_TAIL` static tokens between them and no history
    between them: no request shares a prefix past that content, so the order loses only its own items'
    text and those few tokens (the content's own cause is judged where it is)."""
    for q in later:
        if p.static_after - q.static_after >= SMALL_TAIL or p.history_after and not q.history_after:
            return False
        if q.seg.volatility is Volatility.PER_REQUEST:
            return True
    return False


def _changed_before(earlier):
    """True when content that changes on every call (`Volatility.PER_REQUEST`: a random draw, the
    user's input, also when only its name says so: `query`) comes before the order in the prefix:
    the prefix then likely differs between requests there already, so what the order is sure to
    cost is a repeat of the same request in another process (a warning would need more). Returns the
    first such placed segment, or None."""
    return next((q for q in earlier if q.seg.volatility is Volatility.PER_REQUEST), None)


def _earlier_orders(p) -> list:
    """The unordered iterations before `p` in its message (not reported on their own: a later
    value, `p`'s, follows each of them), each its own cause with its own fix."""
    return [s for s in p.part.segments[:p.seg_index]
            if s.kind is Kind.UNORDERED_ITERATION and text.fix_of(s) is not None]


def _joined_fix(seg, earlier: list):
    """`seg`'s fix with the edits of the fixes of `earlier` (segments of the same message) that
    apply to the same file text the same way, so applying it leaves no set of the message in hash
    order; `seg`'s fix alone when there is none."""
    fix = text.fix_of(seg)
    if fix is None or not earlier:
        return fix
    edits = list(fix.edits)
    for other in map(text.fix_of, earlier):
        same = (other.applicability, other.digest, other.filename) == (fix.applicability, fix.digest, fix.filename)
        if same and not any(_overlap(a, b) for a in other.edits for b in edits):
            edits.extend(e for e in other.edits if e not in edits)
    if len(edits) == len(fix.edits):
        return fix
    return replace(fix, edits=sorted(edits, key=lambda e: (e.start, e.end)))


def _overlap(a, b) -> bool:
    return a.start < b.end and b.start < a.end and (a.start, a.end) != (b.start, b.end)


def _severity(layout: PromptLayout, p) -> Severity:
    """A warning when something cacheable is known to follow the reordered text (the history, or
    more than a few words of static text) or the prompt is a whole request; info in a fragment
    (a function's message list, a template) with only a few static tokens after it, whose
    request is not known: the loss is then that small tail, once per order."""
    if p.history_after or p.static_after >= SMALL_TAIL or is_complete(layout):
        return Severity.WARNING
    return Severity.INFO
