"""PRM302 missing-cache-breakpoint: an opt-in cache API with a long static prefix and no marker."""
from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from ..python.converted_prompts import callers_prompt
from ..estimates import Cut, breakpoint_cuts, prefix_stop, size_profiles
from ..marker_names import blocks_only, breakpoint_advice, shared_breakpoint, system_breakpoint, unplaced
from ..model import Diagnostic, PromptLayout, Related, Severity
from . import _breakpoint_places as places
from . import _cache_rule as h
from ._assumed_models import assumed_target, opens_with_attachment
from ._breakpoint_facts import module_findings
from ._cut_messages import split_advice
from ._handed_requests import handed_request
from .base import Rule


#: Where no breakpoint is written, for an adapter in a package whose other modules mark only the
#: requests they send themselves (`PromptLayout.others_markers`).
_OTHERS_MARKERS = ("no code of the package writes one on what its callers pass (the modules that write one mark "
                   "the requests they send themselves)")

#: Who caches nothing without a breakpoint, for a LiteLLM request of a model from elsewhere in a
#: package that writes Claude model names (`PromptLayout.claude_named`).
_CLAUDE_LABEL = "when the model is Claude (the package names Claude models or their provider), Anthropic"


class MissingCacheBreakpointRule(Rule):
    """## What it does
    Finds a call to an API that caches only where the client asks (Anthropic Messages, Claude
    and Nova on Bedrock) whose static prefix (tools, system prompt, ...) is known to reach the
    model's minimum cacheable length, with no cache breakpoint anywhere: no `cache_control` on a
    block and no top-level automatic `cache_control`. A request whose model is not known statically
    (`model=self.model` from a parameter with no default) is judged on the targets `explain` shows
    for it: the targets configured (`--target`, the `targets` setting) are the models run (a
    warning when the prefix reaches each one's minimum); with none, the provider's default row
    stands in (info, saying that a model with a larger minimum would not cache it either way).

    Also, as info: a request that re-sends a conversation history it builds, or its callers'
    prompt or message list, in a package where no file names a breakpoint key (not a request that
    opens with an image or a document new with each call: what the callers repeat comes after it); breakpoints set only
    on a branch or behind an option that is off by default; a LangChain `ChatAnthropic` model in a
    package that runs tool-calling agents and names no breakpoint. A request sent with the OpenAI
    SDK to Anthropic's OpenAI-compatible endpoint is never cached (a warning when its static prefix
    reaches the minimum). Every shape it reads is listed under "Shapes it recognises" below.

    ## Why is this bad?
    On these APIs nothing is cached without a breakpoint. Every request pays the full input price
    for the same static text; a breakpoint at its end makes later requests read it at about a
    tenth of the price (writes cost 1.25x once per TTL; source:
    https://platform.claude.com/docs/en/build-with-claude/prompt-caching).

    ## Example
    ```python
    client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, system=LONG_POLICY,
                           messages=[{"role": "user", "content": question}])
    ```
    Use instead:
    ```python
    client.messages.create(
        model="claude-sonnet-4-5", max_tokens=1024,
        system=[{"type": "text", "text": LONG_POLICY, "cache_control": {"type": "ephemeral"}}],
        messages=[{"role": "user", "content": question}],
    )
    ```

    ## Fix safety
    Not offered yet. Adding a breakpoint changes billing (a write costs more than plain input),
    so such a fix would be unsafe.

    ## Shapes it recognises
    A converter into Bedrock Converse blocks that rebuilds a text block from its text only
    (`{"text": block["text"]}` in the branch `block["type"] == "text"`), in a function that names no
    breakpoint key, in a module that writes Converse blocks (`cachePoint`, `toolUse`, `toolResult`)
    and names Anthropic's `cache_control` or in a package where another file reads it off the blocks
    it is handed, drops the breakpoint a caller put on the block: info, where the block is rebuilt.
    So does a converter, in a module that names `cache_control`, that reduces the system prompt's
    text blocks to their text (`"".join(b["text"] for b in system if b["type"] == "text")`, or the
    blocks of a message in the branch of a test for a system message, or those of the system
    messages, `c["text"] for m in sys_msg for c in m.content`) and marks no text block
    itself: info, where the blocks are flattened. A converter that writes a new text block for a
    request to Claude (the module imports Anthropic's SDK) from the text of a dict block it tests
    by type (`{"type": "text", "text": part.get("text")}` in the branch `part.get("type") == "text"`),
    naming no breakpoint key and copying neither the key nor the block, drops a `cache_control` the
    caller put on the block; so does a branch of a converter that writes a new typed block with no
    breakpoint while another branch hands the block to a helper named for one
    (`_apply_cache_breakpoint(block, new)`, or reads the key off it), also of a type the branch
    picks among strings (`{"type": doc_type, "source": source}`): info, where the block is
    rebuilt. A converter that puts the message's own breakpoint
    (`_get_cache_control(message)`, `message.additional_kwargs.get("cache_control")`) on its block
    only in the branch `isinstance(message.content, str)`, and walks a list content in the other
    branch without reading it, drops the breakpoint a caller set on a message of blocks (a
    multimodal message, messages merged into one): info, at the read. So does a converter that
    feeds LiteLLM (which forwards a content part's `cache_control` to Claude) and hands a block to a
    library function that rebuilds it from its data alone (LangChain's
    `convert_to_openai_data_block(item)`), naming no breakpoint key: info, at the call. A
    prompt-caching switch of the code's own naming written into the options of a LiteLLM request
    (`api_kwargs["use_prompt_caching"] = True`, then `litellm.acompletion(**api_kwargs)`) sets no
    breakpoint, since LiteLLM reads no option of that name, when no file of the package that names
    a breakpoint key reads the switch: info, where it is written. A converter out of
    Claude's format into OpenAI's (it writes `image_url`, `tool_calls`) or of a response's blocks is
    not one. So does a message rebuilt with its content reduced to the joined text of its text
    blocks (`{"role": role, "content": " ".join(...)}`) for a request that may go to Claude (the
    module imports Anthropic's SDK, or the function names `"anthropic"` or a Claude model): info,
    at the join. A converter that merges the following messages into the one it converts (`while
    messages[i + 1].tool_call_results: i += 1; results.extend(messages[i].tool_call_results)`:
    Anthropic's one user message for parallel tool results) after reading the breakpoint of the
    first only (`message.meta.get("cache_control")` of `messages[i]`), with no breakpoint key read
    in the loop, drops the breakpoint a caller put on a merged message: info, at the loop.
    A breakpoint set on a list's item by the counter of a loop over another list that grows the
    first by `.extend(...)` (`for i, group in enumerate(self.groups): messages.extend(group.messages)
    ... messages[i].mark_all_previous_msg_for_caching()`) lands on an earlier entry than the one
    meant once a pass adds several: info, at the breakpoint.
    A breakpoint set only when the request's headers
    name the prompt-caching beta (`if "prompt-caching" in headers.get("anthropic-beta", "")`),
    which callers of the generally available API no longer send: info, at the test.
    A request with tools that re-sends a conversation history it builds itself (an adapter
    that converts the application's messages for the SDK) with no breakpoint is reported too, as
    info: every request sends the tools, the system prompt and the growing history again, so the
    loss is real but its size is not known statically (docs/policies.md, Policy 5). The message
    says how often as the code shows it: on every pass of the loop when the call sits in a loop
    that grows the list it sends, on every step of the tool loop when the module converts tool
    turns (`tool_result`, `tool_call_id`), else on every request.
    So is a request that sends a system prompt and a conversation history, in a function that
    takes the conversation by its name (a parameter `history`, `self.chat_history`, `node.message_history` of a parameter), when no
    Python file of the package names a breakpoint key (`cache_control`, `cachePoint`): no message
    of the history can carry one, so every turn pays for the system prompt and the whole
    conversation again.
    So is a request that sends a message list the sending function is handed and then appends the
    model's reply to (`messages.append({"role": "assistant", "content": response.content[0].text})`
    after `client.messages.create(messages=messages[1:], ...)`), when no Python file of the package
    names a breakpoint key: its callers keep the conversation in that list, and every later call
    re-sends each earlier turn (screenshots, tool results) at the full price.
    So is a request whose only message is a prompt that the sending function takes whole from its
    callers (`def request(self, prompt): ... messages=[{"role": "user", "content": prompt}]`), or
    whose messages are a message list it takes from them (`def generate(self, messages): ...
    system=messages[0]["content"], messages=messages[1:]`; a parameter of any name sent as the
    list or a slice of it, `messages=input`, is one too; a function nested in another, a retried
    inner send, takes the parameters and the `**kwargs` of the one around it that it reads as they
    are), in a package where no file names a
    breakpoint key: every prompt of the package sent through it is
    paid in full, however much of it the calls share.
    So is a request whose messages, and its system prompt or tools, the sending function computes
    from its own parameters (`messages, system = self._build_messages(prompt)`, `params["system"] =
    system`, `tools=[self._schema_to_tool(schema)]`; or messages alone from a parameter named as a
    prompt or a message list: `kwargs = self._build_kwargs(messages)`, reported where the helper
    writes the request), writing under 200 characters of its own text into it: an SDK adapter that
    converts its callers' prompt, in a package where no code writes a breakpoint on what its callers
    pass (a module that writes one on requests it sends itself, a sibling adapter of another SDK,
    does not count; a breakpoint key named in a docstring or a comment writes none). So is a request
    its callers build whole, sent as the function's only `**mapping` (`def _call(self, params): ...
    litellm.completion(**params)`, `client.converse(**api_kwargs)`); where a caller writes that
    request (a retry helper, `create_retrying(client.messages.create, **kwargs)`, handed `system=...,
    messages=...` by the method that builds them), it is reported there, the send related, and not
    for a caller's one-shot request of known text below the minimum. Not for a send in a branch
    taken for a provider or model named otherwise (`if self.provider == "minimax":`).
    LiteLLM's retrying sends (`completion_with_retries`, `acompletion_with_retries`, which call
    `completion` with the same keywords) are read as `completion`; through `original_function=
    litellm.batch_completion` (a list of requests) they are not.
    A request of a model not known statically (LiteLLM's `model=model`, or through OpenRouter, whose
    `anthropic/...` models cache only up to a breakpoint: `OpenAI(base_url="https://openrouter.ai/api/v1")`,
    https://openrouter.ai/docs/features/prompt-caching) in a function that tests
    that model for a Claude name (`if "claude" in model:`) is reported the same way when it sends a
    system prompt with no breakpoint and no file of the package names one; so are the shapes above
    (an adapter, a re-sent conversation) for such a model in a package that writes Claude model
    names, "when the model is Claude", also for `model=self.model` of a parameter of `__init__`
    whose default names another provider (`model="gpt-4o"`: one deployment's choice).
    A request sent with the OpenAI SDK to Anthropic's OpenAI-compatible endpoint (`OpenAI(base_url=
    "https://api.anthropic.com/v1/")`, also as a base URL parameter's default) is never cached,
    breakpoint or not: that endpoint does no prompt caching
    (https://docs.claude.com/en/api/openai-sdk). Reported as a warning when its static prefix
    reaches the model's minimum, as info when what it sends before the newest message is not all
    known text (a conversation, its callers' prompt, options we cannot read), and not for a prompt
    whose known text before the newest message stays below the minimum. A class that sets that
    endpoint as an attribute its base class builds the OpenAI client from (a provider preset:
    `class AnthropicProvider(OpenAICompatibleProvider): base_url = "https://api.anthropic.com/v1/"`,
    the base's `AsyncOpenAI(base_url=self.resolve_base_url(s))` reading `self.base_url`, in a module
    that sends chat requests), where neither the class nor a base before it overrides the method
    that builds it, is reported as info at the attribute, the client related: the base's send
    takes the base's own URL, so every request of the preset is judged there as OpenAI's.
    A request body of the Messages API that a module bound for Anthropic's endpoint (it imports
    the SDK, writes `https://api.anthropic.com/v1/messages`, or Bedrock's `anthropic_version`)
    builds and hands to a sender not shown (`self._execute_request(request | {"model": ...})`) or
    returns as JSON text (`return json.dumps({"anthropic_version": ..., "messages": ...})` for
    `invoke_model(body=...)`) is judged as the SDK call with its keys would be, at the dict. So is
    a Claude body that Bedrock's `invoke_model` or `invoke_model_with_response_stream` sends as
    `body=json.dumps(...)` (also through a name bound to it, `request_json = json.dumps(request_body)`),
    built in the sending function (the branch that writes `anthropic_version`, among other providers'
    bodies), by a helper or in another module: at Claude's dict when the sending function writes
    it, else at the send, with the model its `modelId`; advice for Claude on Bedrock names
    `cache_control` on blocks (the top-level marker of automatic caching is the Claude API's).
    Anthropic's legacy Text Completions API (`client.completions.create(prompt=...,
    max_tokens_to_sample=...)`) takes no breakpoint at all: its requests are judged the same way,
    and the message says the Messages API is needed first.
    Six shapes that leave requests without a breakpoint are reported as info where the code
    makes them: breakpoints set only on one branch of a test of the
    model name where Claude requests take the other branch (`if "claude-3-5" in self.model:
    mark(messages)` leaves out every other Claude model; `if str(self.model).startswith("claude"):`
    in a module that sends through LiteLLM, writes OpenRouter's host or writes a Claude name after
    a provider's prefix, `"anthropic/claude-3-5-sonnet"`, leaves out `anthropic/claude-...`, `bedrock/...claude...`,
    `openrouter/anthropic/...`, unless the code cuts the prefix off before the test or puts it
    before the name itself, `f"anthropic/{model}"`; a test may add conditions that name no model,
    `... and len(messages) > 0`); a loop that deletes the breakpoints of
    older messages from a whole list whose first message (the system prompt) the same function
    marked; a setting named for prompt caching that is False by default (`enable_prompt_caching=
    False`) in a module that sends to Anthropic or Bedrock, in a package that can set breakpoints;
    breakpoints set only when a caching option is on, where the option is off by default (`if
    self.cache_config: mark(messages)` with `self.cache_config = None` in `__init__`, `if
    settings.get("cache_messages"):`, a TTL read from a mapping named as configuration under the
    breakpoint key itself, None by default (`ttl = model_config_dict.get("cache_control")`, then
    `if ttl: self._cache = {"type": "ephemeral", "ttl": ttl}`), `if prompt.options.cache:` where `cache` is a field of the
    module's options with `Field(default=None)`, `if use_cache:` where `use_cache=False` is a
    parameter of a method the package calls only passing on an option of that name that is off by
    default, `step(msgs, use_cache=self.use_cache)` with `__init__(self, use_cache=False)`), also when the option is passed to a function of
    the module that marks only when given it (`mk_msgs(self.hist, self.cache and "claude" in
    self.model)` with `def __init__(self, cache=False)`) or, in a module that sends to Anthropic
    or Bedrock, to a library's message builder (`mk_msgs(msgs, cache=self.cache)`), unless a
    request sends a top-level `cache_control` whatever the option (a breakpoint read off a
    caller's block and copied, `block.get("cache_control")`, is no option); a breakpoint a caller
    put on a block written again as one of the code's own making (`if item.get("cache_control"):
    out["cache_control"] = {"type": "ephemeral"}`), which drops the caller's `ttl`;
    a LangChain Claude chat model (`ChatAnthropic(...)`, LlamaIndex's `Anthropic(...)` in a package
    that builds LlamaIndex's tool-calling agents, `init_chat_model(...)` on Anthropic: a
    provider `"anthropic"`, a model `"anthropic:..."`, or a provider setting the module compares
    with `"anthropic"`) built in a package where no file names a breakpoint key and a file builds a
    tool-calling agent of LangChain or LangGraph or binds tools (`create_react_agent`,
    `bind_tools`, `AgentExecutor`, ...), or, with no agent, in a module whose prompt template
    replays the conversation (`MessagesPlaceholder`, `("placeholder", "{chat_history}")`) or that
    grows a list of LangChain messages turn by turn (`messages.append(HumanMessage(content=text))`
    and the model's reply appended in the same loop; not a loop of `HumanMessage` alone);
    a LangChain chat model whose provider is chosen at run time (`init_chat_model(model=
    config.research_model)`, or `configurable_fields` holding "model", with no provider written)
    in a module that binds tools to it or replays the conversation, in a package whose code writes
    Claude model names (a configuration default `"anthropic:claude-3-7-sonnet-latest"`, not a
    docstring's example) and no file names a breakpoint key: info, at the model (Claude is one of the models it runs).
    For both, a Claude model class kept as a value to be built through a name (`{ChatOpenAI: {...},
    ChatAnthropic: {...}}` then `model_class(**args)`) is a model built, and a file that names a
    breakpoint key only in functions that send a request of their own and build no agent (an
    evaluator's one-shot call marked for itself) sets none on the model's requests;
    a pydantic-ai Claude model (`AnthropicModel(...)`, `BedrockConverseModel(...)`, a model string
    `"anthropic:..."` given to `Agent(...)` or `infer_model(...)`, or one formatted from a provider
    setting, `f"{provider}:{model}"`, in a module that compares that setting with `"anthropic"`)
    made in a package that builds pydantic-ai agents where no file asks for a breakpoint (an
    `anthropic_cache_*` or `bedrock_cache_*` setting, a `CachePoint`, a breakpoint key): every step
    of a run re-sends the tools, the instructions and the conversation uncached (info, at the model);
    a Bedrock chat model of LangChain or LlamaIndex (`ChatBedrockConverse(...)`, `ChatBedrock(...)`,
    `BedrockConverse(...)`) given a Claude model id (written at the call, or the module writes one
    in its code) and no caching keyword (`system_prompt_caching=True`) nor `**mapping`, in a package
    where no file names a breakpoint key or calls LlamaIndex's `CachePoint(...)` and that runs
    tool-calling agents, or whose module's template replays the conversation (info, at the model;
    Bedrock's Llama or Mistral models cache nothing at all and are not reported);
    and OpenAI's `prompt_cache_options` in explicit mode (`{"mode": "explicit"}`: only
    `prompt_cache_breakpoint` markers are cached) in a package where no file names a breakpoint.
    A static prefix that reaches the minimum is reported as info when the request may carry a
    breakpoint the code does not show: a `**mapping` of keys not known is sent with it, or the
    request dict was merged with one (`{**settings, "system": text}`, `dict(options, ...)`), and a
    top-level `cache_control` may be in it (not the sending function's own `**kwargs`, nor the
    options the instance is built with, `**self.model_params` with `self.model_params =
    model_params or {}` from a parameter of `__init__` with a default, in a package where no file
    names a breakpoint key); or a statement sets `cache_control` on a block not placed in the
    layout.
    A request whose system prompt is text set outside it, whole, and named as a prompt
    (`system=self.agent_config.prompt_preamble`, `self.system_prompt`), sent with no breakpoint and
    no `**mapping` of unknown keys in a package where no file names a breakpoint key, is reported
    as info when none of the shapes above is: every request sends that text again, paid in full,
    and its size is not known. A `**mapping` that keeps only keys of a list known statically, all
    sampling options (`{k: v for k, v in hints.items() if k in self.supported_hints}` with
    `supported_hints = ["temperature"]`), holds no breakpoint; a prompt object turned into its
    text (`prompt = prompt.build()`, `request.prompt`) is still the callers' whole prompt.
    Not reported for a history passed through (a list from elsewhere, whose messages may carry
    breakpoints) in a package that names one, nor without a system prompt or tools (a converted
    message list may be a one-shot prompt), when the call also passes a `**mapping` of unknown
    keys (it may hold the top-level `cache_control`; not the sending function's own `**kwargs`,
    also as a helper of its module returns it with fixed keys set, `kwargs =
    self._prepare_kwargs(kwargs)` with `kwargs = kwargs.copy(); kwargs.setdefault("max_tokens", N)`,
    nor the options its instance is built with, in a package where no file names a breakpoint key:
    its callers there pass none; a merge of such mappings and dicts of known keys, `**(kwargs |
    self.hyperparams)`, `**{**kwargs, **self.options}`, is read one dict at a time), or when a statement sets `cache_control` on
    a block we cannot place (in the sending function, a helper it calls, a payload builder).
    A statement that writes a breakpoint in place into the newest message of a conversation kept
    from turn to turn, under a test that counts the breakpoints and stops at a limit (`if
    count_breakpoints(self.messages) < 3:`), with no code that takes the older ones off, is
    reported at the statement: the older markers stay, so once the count reaches the limit no
    newer turn is marked, and nothing after the last marked turn is cached (Anthropic caches up to
    a breakpoint, each looking back at most 20 blocks for an earlier entry:
    https://github.com/anthropics/skills/blob/0da71c3b54277f20e96146648444590eab1dc82c/skills/claude-api/shared/prompt-caching.md),
    so every request processes more of the conversation uncached. A warning when the code keeps
    and grows the list, info when it is the callers' (PRM304 says which lists are kept).
    A loop over a list from its start that writes a breakpoint on each item and stops at a count
    (`for m in messages: m["cache_control"] = ...; n += 1; if n >= 4: break`) marks the oldest
    messages, not the newest: a request caches up to its last breakpoint, so the conversation
    after the first items is processed uncached on every request: info, at the statement. So is
    a loop from the list's start that keeps the breakpoints of the first marked items up to a
    count and takes them off every later one (`if n == 4: m.pop("cache_control") else: n += 1`):
    the newest turns lose theirs.
    A breakpoint block built from an item that may be a plain string (`{**base, "cache_control":
    cc}` with `base = last if isinstance(last, dict) else {}`) is reported as info: for a string it
    is the breakpoint alone, with no type and no text (the Messages API takes text blocks with
    both: https://platform.claude.com/docs/en/api/typescript/messages/create), so the string's
    text is dropped and the breakpoint is lost with the block.
    """

    code = "PRM302"
    brief = "an opt-in caching API with a long static prefix and no breakpoint"
    fix_availability = "none"
    fix_title = "Add a cache breakpoint at the end of the static prefix"

    def check_layout(self, layout: PromptLayout) -> Iterable[Diagnostic]:
        """The findings of one request, each with the help line of its API's marker
        (`marker_names.breakpoint_advice`: a `cachePoint` block on Bedrock Converse, `cache_control`
        on Anthropic's Messages API)."""
        advice = breakpoint_advice(layout)
        for d in self._layout_findings(layout):
            yield d if d.advice != self.fix_title else replace(d, advice=advice)

    def _layout_findings(self, layout: PromptLayout) -> Iterable[Diagnostic]:
        if layout.openai_compat:
            yield from self._compat(layout)
            return
        if not layout.provider or breakpoint_cuts(layout) or layout.auto_cache is not None:
            return
        profiles, label = size_profiles(layout)
        if not profiles and layout.claude_checked is not None:
            yield from self._maybe_claude(layout)
            return
        if not profiles and layout.claude_named:  # LiteLLM, a model from elsewhere, in a package that uses Claude
            yield from self._unknown_size(layout, _CLAUDE_LABEL)
            return
        if not profiles or not all(p.opt_in for p in profiles):
            return
        stop = prefix_stop(layout)
        found = h.at_or_above_all(layout, stop, profiles) if stop != Cut(0, 0) else None
        severity, caveat = Severity.WARNING, ""
        if found is None and stop != Cut(0, 0):
            found, label, severity, caveat = assumed_target(layout, stop, profiles, label)
        if found is None:
            yield from self._unknown_size(layout, label)
            return
        minimum = found.min_cacheable_tokens
        message = (f"Static prefix of {h.tokens_text(layout, stop, found)} reaches the {minimum:,}-token minimum of "
                   f"{label} but has no cache breakpoint: it is never cached{caveat}" + places.legacy_phrase(layout))
        if places.opaque(layout) or layout.open_options or layout.unplaced_markers:  # it may set one the code does not show
            where = unplaced(layout)
            yield self.diagnostic(message.replace(": it is never cached", f" placed ({where}): unless that "
                                                  "sets one, it is never cached"), places.end_of_prefix(layout, stop),
                                  prompt=layout.id, severity=Severity.INFO)
            return
        yield self.diagnostic(message, places.end_of_prefix(layout, stop), prompt=layout.id, severity=severity)


    def check_module(self, module) -> Iterable[Diagnostic]:
        """Info where a breakpoint is chosen by the model name and Claude requests go through the
        branch without one, and at an explicit cache mode in a package with no breakpoint key
        (facts of `python/gated_markers.py`), and at a text block a converter rebuilds as a Converse
        block without the breakpoint it may carry (`python/dropped_marks.py`)."""
        for message, span, keywords in module_findings(module):
            # (the help line is the fix its message ends with: the fact's provider is not known here)
            _, advice = split_advice(message)
            yield self.diagnostic(message, span, advice=advice or None, **keywords)

    def _unknown_size(self, layout: PromptLayout, label: str) -> Iterable[Diagnostic]:
        """The info findings of a request with no breakpoint whose repeated text is of a size not
        known statically: a re-sent conversation, an adapter's prompt, else a configured system
        prompt; one finding per request."""
        found = list(self._resent_history(layout, label))
        if not found or layout.passes_prompt:  # (a converted prompt re-sent as a tool loop: that finding says it)
            found += self._adapter(layout, label)
        yield from found or self._configured(layout, label)

    def _configured(self, layout: PromptLayout, label: str) -> Iterable[Diagnostic]:
        """Info at the call: the system prompt is configuration set elsewhere, whole
        (`configured_system`: `system=self.agent_config.prompt_preamble`), re-sent the same on every
        request with no breakpoint, no `**options` of unknown keys, in a package tree where no
        file names a breakpoint key (`tree_markers`): nothing of it is ever cached; its size is
        not known, so neither is the loss (Policy 5)."""
        seg = layout.configured_system
        if seg is None or layout.tree_markers or places.opaque(layout) or layout.unplaced_markers:
            return
        history = any(p.is_history for p in layout.parts)
        also = " and the conversation after it" if history else ""
        message = (f"The system prompt is text set outside the request (`{seg.expr}`), sent whole on every request "
                   f"with no cache breakpoint, and no file of the package names one: {label} caches nothing without "
                   f"one, so each request pays the full input price for it{also} again; its size is not known here "
                   f"(once it reaches the model's minimum, {system_breakpoint(layout)} would cache it)")
        related = [Related(seg.span, "the configured system prompt")] if seg.span is not None else []
        yield self.diagnostic(message, layout.site, prompt=layout.id, severity=Severity.INFO, related=related)

    def _resent_history(self, layout: PromptLayout, label: str) -> Iterable[Diagnostic]:
        """Info at the call: a conversation re-sent with no breakpoint and no `**options` of
        unknown keys, known to be re-sent whole either as tools and a history built by the code
        itself (Part.read: a tool loop) or passed through by a module that converts its tool turns
        (`tool_turns`) in a package tree where no file names a breakpoint key, or as a system prompt and a history that the sending
        function takes by a conversation's name (`takes_conversation`) in a package tree where
        no file names a breakpoint key (`tree_markers`: no message can carry one)."""
        if places.opaque(layout) or layout.unplaced_markers:
            return
        if not any(p.is_history for p in layout.parts):
            yield from self._kept_reply(layout, label)
            return
        tools = any(p.role == "tools" and p.segments for p in layout.parts)
        system = any(p.role in ("system", "developer") and p.segments for p in layout.parts)
        # a history passed through: a tool loop's when the module converts its tool turns; it may
        # carry breakpoints only in a package where a file names one
        passed = layout.tool_turns and not layout.tree_markers
        if tools and any(p.is_history and (p.read or passed) for p in layout.parts):
            unit = "step of the tool loop" if layout.tool_turns else "request"
        elif system and not layout.tree_markers and layout.takes_conversation:
            unit = "turn"
        else:
            return
        if layout.loop_sent:  # the call itself sits in the loop that grows what it sends
            unit = "pass of the loop"
        sent = [h.ROLE_NAMES.get(p.role, p.role) for p in layout.parts if p.role in ("tools", "system", "developer")]
        message = (f"Request re-sends the {', '.join(dict.fromkeys(sent))} and the conversation history on every "
                   f"{unit} with no cache breakpoint: {label} caches nothing without one, so each "
                   f"{unit.split(' ')[0]} pays the full input price for all of it again; " + places.fix_phrase(layout))
        yield self.diagnostic(message, layout.site, prompt=layout.id, severity=Severity.INFO)


    def _kept_reply(self, layout: PromptLayout, label: str) -> Iterable[Diagnostic]:
        """Info at the call: the sending function appends the model's reply to the list it was
        handed and sends (`reply_kept`), in a package tree where no file names a breakpoint key:
        its callers' list is a conversation every later call re-sends whole; its size is not known."""
        if layout.reply_kept is None or layout.tree_markers:
            return
        sent = [h.ROLE_NAMES.get(p.role, p.role) for p in layout.parts if p.role in ("tools", "system", "developer")]
        what = f"the {', '.join(dict.fromkeys(sent))} and " if sent else ""
        message = (f"Request sends {what}a conversation this function keeps for its callers (it appends the model's "
                   f"reply to the list it sends, line {layout.reply_kept.start.row}): each later call re-sends every "
                   f"earlier turn with no cache breakpoint, and no file of the package names one; {label} caches "
                   "nothing without one, so each call pays the full input price for all of it again; "
                   + places.fix_phrase(layout))
        yield self.diagnostic(message, layout.site, prompt=layout.id, severity=Severity.INFO,
                              related=[Related(layout.reply_kept, "the reply is kept here")])

    def _adapter(self, layout: PromptLayout, label: str) -> Iterable[Diagnostic]:
        """Info at the call: the request's only message is a prompt the sending function takes
        whole from its callers (`passes_prompt`: an adapter every prompt of the package goes
        through), with no `**options` of unknown keys, in a package tree where no file names a
        breakpoint key (`tree_markers`): no caller can mark the text it passes, so nothing of any
        prompt sent through it is cached; how long their shared beginnings are is not known."""
        if (layout.tree_markers and not layout.others_markers) or places.opaque(layout) or layout.unplaced_markers:
            return
        if not layout.passes_prompt:
            yield from self._converted(layout, label)
            return
        if opens_with_attachment(layout):  # (PRM101 says the attachment should follow the text)
            return
        system = any(p.role in ("system", "developer") and p.segments for p in layout.parts)
        how = "whole as the message list its callers give" if layout.has_history else \
            "with the system prompt they give, as two messages" if system else "as one user message"
        message = (f"Every prompt passed to this function is sent {how} with no cache breakpoint, and "
                   f"no file of the package names one: {label} caches nothing without one, so calls whose prompts "
                   "share the same instructions pay the full input price for them each time; " + (
                       "the legacy Text Completions API takes no breakpoint: sent to the Messages API with a top-level "
                       "`cache_control` (automatic caching), the longest shared beginning would be cached"
                       if layout.api == "completions" else
                       f"{shared_breakpoint(layout)} would cache the longest shared beginning"))
        if layout.others_markers:
            message = message.replace("no file of the package names one", _OTHERS_MARKERS, 1)
        built = places.built_elsewhere(layout)
        if built is None:
            yield self.diagnostic(message, layout.site, prompt=layout.id, severity=Severity.INFO)
        else:  # one finding at the helper that builds the request, whichever send calls use it
            yield self.diagnostic(message.replace("passed to this function", "passed to the function that sends this "
                                                  "message", 1), built, prompt=layout.id, severity=Severity.INFO,
                                  related=[Related(layout.site, "sent here")])


    def _converted(self, layout: PromptLayout, label: str) -> Iterable[Diagnostic]:
        """Info at the call: the request's messages, and its system prompt or tools, are computed
        by the sending function from its own parameters (`converted_prompts.callers_prompt`:
        `messages, system = self._build_messages(prompt)`), with no breakpoint in what it sends
        nor in any file of the package (checked by `_adapter`): an adapter whose requests carry
        none, whatever its callers send through it; the size of what repeats is not known."""
        converted = callers_prompt(layout)
        if not converted or (converted[0][0] == "request" and layout.configured_system is not None):
            return  # (a whole request whose system prompt is configuration: `_configured` says it)
        if opens_with_attachment(layout):
            return
        names = {"tools": "tools", "toolConfig": "tools", "system": "system prompt", "prompt": "prompt",
                 "request": "request"}
        what = list(dict.fromkeys(names.get(k, "messages") for k, _ in converted))
        said = ", ".join(what[:-1]) + f" and {what[-1]}" if len(what) > 1 else what[0]
        params = ", ".join(f"`{p}`" for p in dict.fromkeys(p for _, p in converted))
        fix = ("a `cachePoint` block after the system prompt (and one after the last message) would cache them"
               if (layout.api or "").startswith("converse") else places.legacy_phrase(layout).strip(" ()") or
               ("a `cache_control` on the system block would cache them" if blocks_only(layout) else
                "a `cache_control` on the system block (or a top-level one, automatic caching) would cache them"))
        nowhere = _OTHERS_MARKERS if layout.others_markers else "no file of the package writes one"
        how = "build, whole" if what == ["request"] else "pass, as it converts them"
        message = (f"This function sends the {said} its callers {how} ({params}), with no cache "
                   f"breakpoint, and {nowhere}: {label} caches nothing without one, so every "
                   f"request sent through it pays the full input price again for whatever its callers repeat (their "
                   f"instructions, tools, conversation; its size is not known here); {fix}")
        if layout.caller_built is not None:  # one finding where the caller writes the request it hands on whole
            found = handed_request(layout, converted[0][1], nowhere, label, fix)
            if found is not None:
                yield self.diagnostic(found[0], found[1], prompt=layout.id, severity=Severity.INFO, related=found[2])
            return
        built = places.builder(layout) if layout.helper_built else None
        if built is None:
            yield self.diagnostic(message, layout.site, prompt=layout.id, severity=Severity.INFO)
        else:  # one finding where a helper builds the request, whichever send calls use it
            yield self.diagnostic(message.replace("This function sends", "The request built here sends", 1),
                                  built, prompt=layout.id, severity=Severity.INFO,
                                  related=[Related(layout.site, "sent here")])

    def _compat(self, layout: PromptLayout) -> Iterable[Diagnostic]:
        """At a request sent to Anthropic's OpenAI-compatible endpoint (`openai_compat`), which
        caches nothing whatever the request carries: a warning when its static prefix reaches the
        minimum of the model (a breakpoint would cache it on the Messages API), info when what it
        sends is not all known (a conversation, a parameter's text, options or text we cannot
        read: every repeated prefix is paid in full), nothing for a prompt known whole whose
        static text stays below the minimum (a one-shot prompt that would not be cached anyway)."""
        profiles, label = size_profiles(layout)
        stop = prefix_stop(layout)
        found = h.at_or_above_all(layout, stop, profiles) if stop != Cut(0, 0) and profiles else None
        where = ("Anthropic's OpenAI-compatible endpoint (OpenAI's chat format sent to api.anthropic.com), "
                 "which does no prompt caching")
        fix = ("send it with the Anthropic SDK (Messages API) and a `cache_control` breakpoint at the end of what "
               "repeats (https://docs.claude.com/en/api/openai-sdk)")
        if found is not None:
            message = (f"Static prefix of {h.tokens_text(layout, stop, found)} reaches the "
                       f"{found.min_cacheable_tokens:,}-token minimum of {label} but is sent to {where}: it is never "
                       f"cached, with or without a breakpoint; " + fix)
            yield self.diagnostic(message, places.end_of_prefix(layout, stop), prompt=layout.id)
            return
        if layout.parts and not layout.unread_options and not layout.passes_prompt \
                and not any(p.is_history for p in layout.parts) \
                and (stop == Cut(len(layout.parts), 0) or stop.part == layout.newest_user):
            return  # all it sends before the newest message is known text below the minimum: nothing to cache
        message = (f"This request is sent to {where}: every request pays the full input price for its whole "
                   "prompt, however much of it repeats (the instructions, the tools, the conversation); " + fix)
        yield self.diagnostic(message, layout.site, prompt=layout.id, severity=Severity.INFO)

    def _maybe_claude(self, layout: PromptLayout) -> Iterable[Diagnostic]:
        """Info at the call: a request of a model not known statically, which the sending function
        tests for a Claude name or picks from a table of Claude names (`claude_checked`), with a system prompt and no breakpoint in a
        package where no file names one (`tree_markers`)."""
        if places.opaque(layout) or layout.unplaced_markers or layout.tree_markers \
                or not any(p.role in ("system", "developer") and p.segments for p in layout.parts):
            return
        history = " and the conversation history" if any(p.is_history for p in layout.parts) else ""
        said = "picks the model from Claude names" if layout.claude_picked else "checks for a Claude model"
        message = (f"The code {said} (line {layout.claude_checked.start.row}), but sends its system "
                   f"prompt{history} with no cache breakpoint: for a Claude model, Anthropic caches nothing without "
                   "one, so every request pays the full input price for it; a `cache_control` on the system "
                   "block (LiteLLM passes it on) would cache it")
        yield self.diagnostic(message, layout.site, prompt=layout.id, severity=Severity.INFO)
