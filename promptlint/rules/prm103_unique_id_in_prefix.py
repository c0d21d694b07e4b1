"""PRM103 unique-id-in-prefix."""
from __future__ import annotations

import re

from ..impact import Rate, impacts
from ..model import Kind, PromptLayout, Related, Severity
from ..python.converted_ids import find_fresh_ids
from . import _prefix_rule as text
from ._cut_messages import own_advice
from .base import Rule

_SCOPE = {Rate.REQUEST: "new on every request", Rate.CONVERSATION: "differs per conversation",
          Rate.PROCESS: "fixed per process"}


#: A value drawn at random (`random.choice(...)`, `secrets.choice(...)`, a generator's `self.rng.sample(...)`):
#: not an id, but new each time too.
_RANDOM = re.compile(r"\b([A-Za-z_]\w*)\.(choice|choices|sample|random|randint|randrange|uniform"
                     r"|randbelow|getrandbits)\b")


#: A draw that picks elements of a collection (the value is content of the collection, not a number).
_PICKS = {"choice", "choices", "sample"}


def _random_what(seg) -> tuple[str, str, str]:
    """What a random value is, for the message: (label, evidence to add, advice). The draw
    itself (`random.randint(1, 6)`) is a "Random value", a draw of elements a "Random pick" (`choice`)
    or "Random sample" (`sample`, `choices`);
    a value computed from a draw (`sample[0].keys()`, `" ".join(words)` of a cut at a random
    offset) is "Content derived from a random draw", with the draw named; an id is a "Unique id"."""
    found = _RANDOM.search(seg.evidence or seg.expr or "")
    if found is None:
        return "Unique id", "", ""
    expr = " ".join((seg.expr or "").split())
    picks = found.group(2) in _PICKS
    advice = "Move the randomly drawn content after the static content, or draw it once (a fixed seed or a stored sample)"
    if _RANDOM.match(expr) and _one_call(expr):
        label = {"choice": "Random pick", "choices": "Random sample", "sample": "Random sample"}
        return label.get(found.group(2), "Random value"), "", advice
    return "Content derived from a random draw", f" (from `{found.group(0)}()`" + (
        ", which picks elements at random)" if picks else ")"), advice


def _one_call(expr: str) -> bool:
    """True when `expr` is one call as a whole (`random.sample(xs, 3)`, not `random.choice(xs)[k]`)."""
    if not expr.endswith(")") or "(" not in expr:
        return False
    depth = 0
    for i, ch in enumerate(expr[expr.index("("):], expr.index("(")):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return i == len(expr) - 1
    return False


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


class UniqueIdInPrefixRule(Rule):
    """## What it does
    Finds a unique id (`uuid4()`, `random`, `secrets`, request / session / conversation / trace /
    runtime ids) inside the cacheable prefix, with static text or history after it, including an
    id in the tool definitions (an instance id in a tool's name), which come first of all.

    ## Why is this bad?
    An id that is new per request makes every request a new prefix. An id that is stable within a
    conversation but differs between conversations (a session or runtime id) keeps conversations
    from sharing the static text after it; with an explicit breakpoint after it every conversation
    pays a cache write. An id that only the history follows is fine when it is stable within the
    conversation, and an id fixed per process costs one cache write per process (info). So does
    a field a template reads of each item of a list it loops over (`{% for r in rulesets %}{{
    r.name }}`) whose class default makes a new id for each instance (`name = field(default=
    Factory(lambda self: self.id, takes_self=True))`, `id` a `uuid4().hex`), when some items are
    built elsewhere and may leave it out: a new id whenever such an item is built (info).

    A function that converts one message of the conversation for a request (`def to_api(msg:
    ChatMessage) -> dict`, also a `functools.singledispatch` registration) and puts a new id in
    what it returns (`{"id": str(uuid.uuid4())}`, a helper of the package that returns one, also
    as a default: `msg.extra.get("id", str(uuid.uuid4()))`) gives an old message another id each
    time the history is converted again, on every request: reported where the id is made, a
    warning when the module sends the conversation converted with it (`messages=[to_api(m) for m
    in messages]`: everything after the first such message misses on every request), else info
    (the request that sends it is not linked there). An id stored on the message is made once. So
    does a function that converts the whole conversation (`def prepare(chat_history:
    ChatHistory)`) and, walking its messages, puts a new id or a temporary file's random name in
    what it returns (a `uuid4()` file name in each file part, `tmp.name` written into the text of a
    deep copy of each message): a warning when the module sends its result, else info. A new id
    handed to a call that renders a prompt whose template is not read (`render_task_prompt(task,
    context={"flow_name": f"dynamic_{new_uuid()[:4]}"})`; not under a tracing name, `trace_id=`)
    is info, where the id is made.

    A random draw of elements (`random.sample(pool, 4)`, `random.choice(levels)`, a generator's
    `self.rng.sample(...)`, also of a generator seeded once and kept: its sequence repeats across
    runs, each call draws anew) is new on every call too; one from a generator seeded afresh in the
    call (`random.Random(42)` made there, `random.seed(0)` before it) repeats from call to call and
    is none. Prompt text kept in a name, a dict's key or an attribute named for prompts (`prompt["cot"]
    = "".join(random.sample(pool, 4)) + self.init_prompt["prefix"]`) that opens with such a draw
    before more of the prompt is reported even when its size is not known: the drawn text itself,
    static text of its pool in another selection or order, is shared by no two requests (info when
    the figures give nothing: a pool or a prefix loaded at run time, a request not found).

    ## Example
    ```python
    system = f"Session {uuid.uuid4()}\\n{RULES}"
    ```
    Use instead: send ids in request metadata or at the end of the newest user message.

    ## Fix safety
    Moving the id changes the prompt: unsafe.
    """

    code = "PRM103"
    brief = "uuids, random values, request / session ids inside the prefix"
    specificity = 0
    fix_availability = "sometimes"
    fix_title = "Move the id after the static content, or out of the prompt"

    def check_layout(self, layout: PromptLayout):
        for imp in impacts(layout):
            seg = imp.seg
            if seg.kind is not Kind.UNIQUE_ID or imp.rate not in _SCOPE:
                continue
            severity = imp.severity
            if severity is None:
                continue
            what, drawn, advice = _random_what(seg)
            message = (f"{what} {text.describe(seg, within=True)}{drawn} {text.position(imp.placed, imp.complete)}, "
                       f"{_SCOPE[imp.rate]}: {text.cost(imp)}{text.evidence(seg)}{text.behind(imp)}")
            yield self.diagnostic(message, seg.span or layout.site, severity=severity, prompt=layout.id,
                                  related=text.related(seg), fix=text.move_fix(seg, imp, layout), name_only=seg.name_only,
                                  advice=advice or None)
        for seg, tail in text.in_tool_list(layout, Kind.UNIQUE_ID):
            what, drawn, _ = _random_what(seg)
            named = text.describe(seg)
            if drawn and tail.startswith(named):
                tail = named + drawn + tail[len(named):]
            yield self.diagnostic(f"{what} {tail}", seg.span or layout.site, severity=Severity.INFO,
                                  prompt=layout.id, related=text.related(seg), name_only=True)

    def check_module(self, module):
        """A new id made for a message each time it is converted (`python/converted_ids.py`): a
        warning where the module sends the conversation converted with it, else info."""
        found = module.facts.get("fresh_ids")
        if found is None:
            found = [(*f, None) for f in find_fresh_ids(module)]
        for call, function, param, sent in found:
            where, severity, related = _converted_for(module, sent, shown=True)
            message = (f"A new id `{module.code(call)}` is made here each time `{function}` converts a message "
                       f"(`{param}`) for a request: when the history is converted again on the next turn, an "
                       "older message gets another id than the one the provider cached, and the prefix breaks "
                       f"at that message on every request {where}; store "
                       "the id on the message when it is first made, or derive it from the message")
            yield own_advice(self, message, module.span(call), severity=severity, related=related)
        for made, render in module.facts.get("render_ids", ()):
            message = (f"A new id `{_short(module.code(made))}` is made here and given to the variables the prompt is "
                       f"rendered with by `{_short(module.code(render.func))}` (line {render.lineno}): the rendered "
                       "prompt differs on every call from where the template places it, and nothing after it is "
                       "shared between calls (the template is not read here: how much it costs is not known); give "
                       "the prompt a stable name, or put the id at its end")
            yield own_advice(self, message, module.span(made),
                             related=[Related(module.span(render), "the prompt rendered with it here")])
        for call, function, param, sent in module.facts.get("history_ids", ()):
            where, severity, related = _converted_for(module, sent, shown=False)
            what = "random file name" if "tempfile" in (module.qualified_name(call.func) or "") else "id"
            message = (f"A new {what} `{_short(module.code(call))}` is made here for each message each time `{function}` "
                       f"converts the conversation (`{param}`): the older messages are converted again on every "
                       "request with other values than the ones the provider cached, so the prefix breaks at the "
                       f"first such message {where}; make the value once per message and keep it, or derive "
                       "it from the message")
            yield own_advice(self, message, module.span(call), severity=severity, related=related)


def _converted_for(module, sent, shown: bool) -> tuple[str, Severity, list]:
    """(the words naming the request a converted conversation is sent with, the severity, the
    related locations): info and no related location when no request is linked (`sent` None), a
    warning at the send otherwise; `shown` quotes the send's code."""
    if sent is None:
        return "(the request that sends it is not linked here)", Severity.INFO, []
    code = f": `{_short(module.code(sent))}`" if shown else ""
    return (f"(the conversation is converted with it for the request at line {sent.lineno}{code})", Severity.WARNING,
            [Related(module.span(sent), "the conversation converted for a request")])
