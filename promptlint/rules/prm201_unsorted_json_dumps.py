"""PRM201 unsorted-json-dumps."""
from __future__ import annotations

from ..impact import before_conversation, sent_apart, worth_caching
from ..rates import Rate, rate_of
from ..model import Kind, PromptLayout, Related, Severity
from ..prefix import placed_segments
from . import _prefix_rule as text
from .base import Rule


class UnsortedJsonDumpsRule(Rule):
    """## What it does
    Finds `json.dumps` / `simplejson.dumps` / `orjson.dumps` without sorted keys (and
    `yaml.dump(sort_keys=False)`) whose output is part of the cacheable prefix: the system prompt,
    replayed tool calls and results, earlier turns.

    ## Why is this bad?
    The key order of a dict depends on how it was built: parsed from the model's output, read back
    from a database (PostgreSQL JSONB reorders keys), merged from several sources. The same data
    then serialises to different bytes on the next request and the prefix cache misses from that
    point on. A dict written as a literal in the code keeps its order and is not reported, nor is
    data parsed from text or a part of it (`json.dumps(json.loads(stored))`, `config["output"]` of
    `yaml.safe_load(f)`: its keys come in the text's order).

    The evidence that the order changes is where the data comes from. Tool calls and results
    replayed in the conversation history are serialised again on every turn; when the analysis
    traces the data to a read from a store made for each request (a database query's rows,
    `cur.fetchall()`, `conn.execute("SELECT ...")`, asyncpg's `conn.fetch(...)`; an ORM query,
    `session.query(Step)`, `session.scalars(select(Step))`, `Step.objects.filter(...)`; a document or
    JSON read, `collection.find_one(...)`, `r.json().get(key)`), the store may give the keys in
    another order than they were written in (PostgreSQL JSONB keeps its own): a warning, with the
    read as a related location. Replayed data the code keeps in memory gives the same bytes on
    every turn (the same dict, the same order), so without such a read it is info. A result that a
    loop appends once to the list it keeps sending is re-sent as written, the same bytes every time
    (not reported), nor is a list named for names, ids, paths or urls (`artifact_names`: text, no
    keys to sort), nor a JSON schema (`self.tool_schemas`, `json_schema`: made by code, its keys in
    the order they are declared). Elsewhere (the system prompt, a prompt constant) the same data
    usually comes from the same source in the same order, so without more evidence it is info
    (precision over recall: docs/policies.md, Policy 7). In prompt text built in Python whose send was not found, it
    needs the history or at least 256 static tokens after it (the rule of evidence of every prefix
    rule: docs/policies.md, Policy 4).

    ## Example
    ```python
    for row in cur.fetchall():
        messages.append({"role": "tool", "content": json.dumps(row["result"])})
    ```
    Use instead: `json.dumps(row["result"], sort_keys=True)`.

    ## Fix safety
    Safe: the same data, with its keys in a fixed order, where it cannot raise: json's
    `sort_keys=True` raises TypeError on a dict whose keys mix types, so for json and simplejson
    it is safe only when every dict of the data, nested ones too, is known to have string keys (a
    display with string keys, data parsed from JSON, a parameter annotated `dict[str, str]`), else
    unsafe (`Dict[str, Any]`, a bare `dict`). Unsafe for a JSON schema shown to the
    model (a value named for one, `output_schema`, `op["output"]["schema"]`, or a schema method's
    result, `Answer.model_json_schema()`): sorted keys reorder its properties, text the model reads
    and often the order it answers in.
    """

    code = "PRM201"
    brief = "`json.dumps` without sorted keys in prompt content"
    specificity = 1
    fix_availability = "sometimes"
    fix_title = "Add `sort_keys=True`"

    def check_layout(self, layout: PromptLayout):
        apart = sent_apart(layout)
        for p in placed_segments(layout):
            seg = p.seg
            if p.in_newest:
                continue  # the newest user message of a one-shot request is per-request anyway
            if seg.kind is not Kind.SERIALIZED or seg.ordered:
                continue
            if not p.part.is_history and rate_of(seg) in (Rate.REQUEST, Rate.CONVERSATION):
                continue  # its content changes anyway: PRM101 reports where it is placed, sorting would not help
            if not worth_caching(apart and not before_conversation(p.part.role), p.static_after, p.history_after):
                continue  # a prompt whose send was not found, with little cacheable text after it
            replayed = p.part.is_history
            stored = seg.stored if replayed else None
            if stored is not None:
                why = ("replayed turns are serialised again on every request from data read back from a store "
                       "(a database can give the keys in another order than they were written in: PostgreSQL JSONB "
                       "keeps its own), so its bytes change and the prefix cache misses from there on")
            elif replayed:
                why = ("replayed turns are serialised again on every request; data the code keeps between requests "
                       "gives the same bytes each time, so the cache misses only if it is read back or rebuilt with "
                       "another key order (nothing here shows it read from a store)")
            else:
                why = ("if the same data can arrive with another key order (parsed model output, a database row, "
                       "merged dicts), its bytes change and the prefix cache misses from there on")
            message = f"Serialised data {text.describe(seg)} without sorted keys {text.position(p)}: {why}"
            related = text.related(seg)
            if stored is not None and not (seg.span is not None and seg.span.contains(stored)):
                related.append(Related(stored, "read back from the store here on each request"))
            yield self.diagnostic(message, seg.span or layout.site, prompt=layout.id, fix=text.fix_of(seg),
                                  related=related, severity=None if stored is not None else Severity.INFO)
