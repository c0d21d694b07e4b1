"""PRM203 unstable-tool-order."""
from __future__ import annotations

from ..classify import GATHERED_MCP, MCP_LISTING
from ..impact import uncached_today
from ..model import Kind, PromptLayout, Related, Severity
from . import _prefix_rule as text
from .base import Rule


class UnstableToolOrderRule(Rule):
    """## What it does
    Finds a `tools` / `functions` argument (or LangChain `bind_tools(...)`) whose list is built in
    an unstable order: from a set, in completion order (`as_completed`, or a registry that
    coroutines run at once with `asyncio.gather` fill as each one's fetch completes), from a
    directory scan or from a registry filled at run time, without sorting. A registry is known by
    its name (`tools`, `tool_specs`, a list of the `functions` a model may call) or by its class: a
    method of a class named for tools (`ToolRegistry`) that appends to a list of definitions
    (`self._schemas`) registers a tool, in a loop over a set of functions or a listing of plugin
    files, or applied to each item by a call (`map(self.register, paths)`, a toolz
    `pipe(paths, ..., map(self.register))`). A list joined from several unordered sources
    (`list(local) + list(remote)`) is one finding at the first that names every source (each a
    related location): the one sort of the whole list its fix makes fixes them all. Also one
    tool's (or structured output's) schema written in an unstable order outside any tools list
    found: a pydantic `Field(...)`'s description, enum or `json_schema_extra` (`Field(enum=list(names))`
    with `names` a set), a JSON schema's `enum` / `required` / `anyOf` (`schema["required"] =
    list(required)`), a tool class's `self.description` joined from a set; info, where the order
    enters the schema (the set's origin a related location), one finding per set.

    ## Why is this bad?
    Tool definitions sit at the very front of the cached prefix (before the system prompt on
    OpenAI and Anthropic). Any reorder invalidates the whole cache: tools, system prompt and
    history. A list found only by its name (a function or variable named for tools, with no call
    seen sending it as `tools`) is reported as info (names are hints, not proof: docs/policies.md,
    Policy 7); a list built from an MCP server's `list_tools()` is a tools list whatever its name
    (so is a registry filled by concurrent calls that list MCP servers' tools; a listing is also
    known by a type: a session annotated `ClientSession`, a connector parameter whose class's own
    `list_tools()` lists its session's tools, the servers of a `Dict[str, McpWorkbench]` attribute,
    a result checked with `isinstance(result, ListToolsResult)`; and a function named for tools,
    `async def list_tools(self)`, gives the list its loop fills from one). One server's own
    listing order is usually stable (a server lists its tools in registration order) but the MCP
    specification does not promise it: info, an uncertain loss; the completion order of concurrent
    listings of several servers changes between runs: a warning. A request that
    nothing caches today (an opt-in API such as Anthropic's with no `cache_control` breakpoint)
    loses nothing yet: info, as the other prefix rules report it (docs/policies.md, Policy 1).

    ## Example
    ```python
    for done in asyncio.as_completed(tasks):
        tools.extend(await done)
    client.chat.completions.create(..., tools=tools)
    ```
    Use instead: `tools=sorted(tools, key=lambda t: t["function"]["name"])`.

    ## Fix safety
    Safe when the elements' shape is seen in the code: the same tools, sorted by name (tool
    dicts and objects by their name, tool names by themselves: `list(names)` becomes
    `sorted(names)`). When only the API says what shape the tools have, the fix is display-only:
    a key that assumes a shape raises on elements of another.
    """

    code = "PRM203"
    brief = "a tools list built in an unstable order"
    specificity = 0
    fix_availability = "sometimes"
    fix_title = "Sort the tools by name"

    def check_layout(self, layout: PromptLayout):
        for part in layout.parts:
            if part.role != "tools":
                continue
            for seg in part.segments:
                if seg.kind is not Kind.UNORDERED_ITERATION:
                    continue
                if part.definition:
                    yield self._definition(layout, part, seg)
                    continue
                sent = layout.source == "python-call"
                dormant = uncached_today(layout) if sent else ""
                # the listing proves its elements are tools (also a registry filled by concurrent listings)
                gathered = seg.evidence.startswith(GATHERED_MCP)
                one_server = seg.evidence.startswith(MCP_LISTING)  # also "..., the tools' names only"
                listed = one_server or gathered
                message = (f"Tool list ordered by {text.describe(seg, seg.evidence or 'an unordered source')}"
                           + _and_by(seg) + ": " + (
                    "a different order invalidates the whole cached prefix" if sent else
                    "when these tools are sent with a request, a different order invalidates the whole "
                    "cached prefix" if listed else
                    "if it is sent as a request's tools, a different order invalidates the whole cached prefix; "
                    "only its name says it is a tool list (no call sending it was found)"))
                if dormant:
                    message += f"; nothing of this request is cached today ({dormant})"
                elif one_server:
                    message += "; a server usually lists its tools in a stable order, which MCP does not promise"
                if seg.others:
                    message += "; one sort of the whole list fixes every source"
                yield self.diagnostic(message, seg.span or part.span or layout.site, prompt=layout.id,
                                      fix=text.fix_of(seg), related=[*text.related(seg), *_sources(seg)],
                                      severity=None if (sent or gathered) and not (dormant or one_server) else Severity.INFO,
                                      name_only=not (sent or listed))

    def _definition(self, layout: PromptLayout, part, seg):
        """One tool's (or output's) schema or description built in an unstable order
        (python/schema_orders.py): info, as its send was not found and the order changes per process."""
        message = (f"Tool schema ordered by {text.describe(seg, seg.evidence or 'an unordered source')}: the "
                   "description, enum or required list of a tool (or of a structured output) is sent at the front "
                   "of every request that uses it, and another process writes it in another order, so that "
                   "request's cached prefix is not shared (no call sending it was found)")
        return self.diagnostic(message, seg.span or part.span or layout.site, prompt=layout.id,
                               fix=text.fix_of(seg), related=text.related(seg), severity=Severity.INFO)


def _and_by(seg) -> str:
    """' and by `remote` (...)' for the other unordered sources of the list (`Segment.others`), each
    described as the first is; '' when it has one."""
    return "".join(f" and by {text.describe(o, o.evidence or 'an unordered source')}" for o in seg.others)


def _sources(seg) -> list:
    """A related location at each other unordered source of the list (and where it was made a
    list, `list(remote)`: `Segment.listed`), each once."""
    shown = {seg.span, *seg.listed, *(r.span for r in text.related(seg))}
    out = []
    for o in seg.others:
        for span, message in [(o.span, "another unordered source of this tool list"),
                              *((p, "another source made a list here in an unstable order") for p in o.listed)]:
            if span is not None and span not in shown:
                shown.add(span)
                out.append(Related(span, message))
    return out
