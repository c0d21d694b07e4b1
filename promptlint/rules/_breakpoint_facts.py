"""PRM302's messages for facts of a module's code about cache breakpoints, reported where they
are written: a breakpoint chosen by the model name (`python/gated_markers.py`) or behind an option
off by default (`python/opt_in_markers.py`), the package facts of `PACKAGE_FACTS` (a breakpoint a
converter drops or rewrites, a beta-header gate, ...), a breakpoint of a kept conversation capped
at a count (`python/kept_marks.py`), a block that is the breakpoint alone, a breakpoint set by the
index of another list (`python/misindexed_marks.py`). Each gives (message,
span, the keywords of `Rule.diagnostic`: severity and related locations).
"""
from __future__ import annotations

from ..model import Related, Severity

#: Facts of a module's code that PRM302 reports where they are written, each with its message.
PACKAGE_FACTS = (
    ("rewritten_marks",
     "The cache breakpoint a caller put on this block is written again as one of the code's own "
     "making, not copied: whatever else the caller's breakpoint holds (a `ttl` of one hour) is "
     "dropped, so the prefix it closes stays cached for the default 5 minutes only and requests "
     "spaced further apart write it again; copy the caller's `cache_control` as it is"),
    ("dropped_marks",
     "This converter rebuilds a text block as a Converse block of its text only and names no "
     "breakpoint key: a `cache_control` the block carries (Anthropic's format, which this package "
     "reads elsewhere) is dropped with no `cachePoint` block put after it, so the prefix the caller "
     "marked is sent uncached on every request; append `{\"cachePoint\": {\"type\": \"default\"}}` "
     "after the block when it carries a `cache_control`"),
    ("rebuilt_marks",
     "This converter writes a new text block for the request to Claude from the text of the block it is "
     "handed, and copies no `cache_control`: a breakpoint the caller put on the block (content blocks "
     "in a dict carry it as one more key) is dropped here, so the prefix it closed is sent uncached on "
     "every request and callers cannot mark one through this code; copy the block's `cache_control` "
     "to the new block"),
    ("branch_marks",
     "This branch of the converter writes a new block of its own making and copies no cache breakpoint, "
     "while another branch of it carries the block's breakpoint over: a breakpoint a caller put on a "
     "block of this kind is dropped, and the prefix it closed is sent uncached on every request; carry "
     "the breakpoint here too"),
    ("flattened_contents",
     "This message is rebuilt with its content reduced to the joined text of its text blocks, for a "
     "request that may go to Claude: a `cache_control` a caller put on a block is dropped with the "
     "blocks, so callers cannot mark a breakpoint through this code and what they marked is sent "
     "uncached on every request; keep the list of blocks, with their `cache_control`, where the "
     "target takes one"),
    ("flattened_marks",
     "The system prompt's text blocks are reduced to their text here: a `cache_control` a caller put "
     "on a block of it (this module or its package handles breakpoints) is dropped, and no breakpoint can close the "
     "system prompt, the static part most worth caching, so requests that share it read none of it "
     "from the cache unless a later breakpoint covers it; keep the blocks, with their `cache_control`, "
     "where the target takes a list"),
    ("merged_marks",
     "This loop merges the following messages into the one being converted and takes their content "
     "but not their cache breakpoint: only the first message's `cache_control` (read before the loop) "
     "is kept, so a breakpoint a caller put on a merged message (the newest tool result, where an "
     "agent marks the end of its history) is dropped, and the conversation it closed is sent uncached "
     "on that request; read each merged message's breakpoint and put it on its last block"),
    ("string_marks",
     "This converter puts the message's own cache breakpoint on the block it writes only when the "
     "message's content is a string: the branch for content that is a list of blocks never reads it, "
     "so a breakpoint a caller set on such a message (a multimodal message, messages merged into one, "
     "a tool result already in blocks) is dropped, and what it closed is sent uncached on every "
     "request; read it in that branch too and put it on the last block"),
    ("library_blocks",
     "This converter, which feeds LiteLLM, hands the content block to a library function that builds a "
     "new OpenAI-format block from its data alone (an image's or a file's source): a `cache_control` the "
     "caller put on the block, which LiteLLM would forward to Claude, is not copied, so the prefix it "
     "closed (a large document or image is the usual thing to cache) is sent uncached on every "
     "request; copy the block's `cache_control` to the converted block"),
    ("head_marks",
     "This loop writes cache breakpoints on the first items of the list and stops at a count: a "
     "request caches only up to its last breakpoint, so once the conversation is longer than the "
     "marked items everything after them (the newest turns, more each turn) is processed uncached "
     "on every request; mark the last message (and the end of the static prefix) instead"),
    ("kept_first_marks",
     "This loop keeps the cache breakpoints of the first marked items of the list up to a count and "
     "takes them off every later item: a request caches only up to its last breakpoint, so once more "
     "items are marked than the count, everything after the ones kept (the newest turns, more each "
     "turn) is processed uncached on every request; keep the newest breakpoints (the end of the "
     "static prefix and the last message) and drop the older ones instead"),
    ("beta_gates",
     "This breakpoint is set only when the request's headers name the prompt-caching beta, which "
     "prompt caching has not needed since it became generally available: callers that follow the "
     "current documentation send no such header and get no breakpoint here, so what it would close "
     "is sent uncached on every request (unless another breakpoint covers it); set it without "
     "the header test"),
    ("head_unmarks",
     "This loop deletes the cache breakpoints of every message past the newest ones, and the "
     "first message (the system prompt), marked by the same function, is one of them: once the "
     "conversation is long enough the system prompt and tools lose their own breakpoint, and "
     "requests that share only them (another conversation, a branch) no longer read them"),
    ("caching_off",
     "Prompt caching is off by default here: Claude (through any provider) caches nothing without a "
     "breakpoint, so every request sent with the default pays the full input price for the same "
     "tools, system prompt and conversation each time; turn it on by default"),
    ("uncached_models",
     "This Claude chat model sends a cache breakpoint only where a message's content block carries "
     "a `cache_control`, and no file of the package names one, while the package runs tool-calling "
     "agents: every step of an agent on this model re-sends the tool definitions, the system prompt "
     "and the growing conversation, and Anthropic caches nothing without a breakpoint, so each step "
     "pays the full input price for all of it again; mark the end of the system prompt (a content "
     "block with `cache_control`) and the newest message"),
    ("uncached_chats",
     "This chat model runs on Anthropic (a Claude model, or a provider setting the module expects to be "
     "\"anthropic\"), and the module replays the conversation (a prompt template's history placeholder, or a "
     "list of LangChain messages it grows turn by turn) with no cache breakpoint, and no "
     "file of the package names one: on Claude each turn re-sends the "
     "system prompt and the growing conversation, and Anthropic caches nothing without a breakpoint, so each "
     "turn pays the full input price for all of it again (its size is not known here); mark the end of the "
     "system prompt and the newest message with `cache_control`"),
    ("runtime_models",
     "This chat model's provider is chosen at run time, and the package names Claude models among "
     "those it runs (a Claude model in its configuration or code), while no file of the package names a "
     "cache breakpoint: when it runs on Claude, every step of an agent (or every turn of the conversation "
     "its template replays) re-sends the tool definitions, the system prompt and the growing conversation, "
     "and Anthropic caches nothing without a breakpoint, so each pays the full input price again (other "
     "providers may cache automatically); mark the end of the system prompt and the newest message with "
     "`cache_control` when the model is Claude"),
    ("uncached_bedrock_models",
     "This Bedrock chat model runs Claude (the model it is given, or a Claude model id the module writes), "
     "built with no caching option, and no file of the package names one (a `cachePoint`, a `cache_control`, "
     "LlamaIndex's `CachePoint`), while the package runs tool-calling agents or the module's template replays "
     "the conversation: every step or turn re-sends the tool definitions, the system prompt and the growing "
     "conversation, and Claude on Bedrock caches nothing without a cache point, so each pays the full input "
     "price for all of it again (its size is not known here); put a cache point after the system prompt and "
     "one after the newest message (LlamaIndex's `BedrockConverse`: `system_prompt_caching=True`, "
     "`tool_caching=True`)"),
    ("uncached_agent_models",
     "This pydantic-ai model runs on Claude (a Claude model, or a provider setting the module expects to be "
     "\"anthropic\" or \"bedrock\"), and no file of the package asks pydantic-ai for a cache breakpoint (its "
     "`anthropic_cache_*` settings, a `CachePoint`) or names one: every step of an agent run re-sends the tool "
     "definitions, the instructions and the conversation so far, and Anthropic caches nothing without a "
     "breakpoint, so each step pays the full input price for all of it again (its size is not known here); "
     "set `anthropic_cache_instructions`, `anthropic_cache_tool_definitions` and `anthropic_cache_messages` "
     "(`bedrock_cache_*` on Bedrock) in the model settings"),
    ("explicit_modes",
     "`prompt_cache_options` in explicit mode caches only at `prompt_cache_breakpoint` markers, "
     "and no file of the package sets one: nothing of these requests is cached, so every request "
     "pays the full input price for its whole prompt; drop the explicit mode (implicit caching) "
     "or mark the end of the static prefix"),
)

#: The facts of a LangChain Claude model (python/langchain_models.py), and what their messages say
#: when files of the package name a breakpoint key only on requests they send themselves
#: (`own_marks`, python/own_marks.py) instead of "no file of the package names one".
_MODEL_FACTS = ("uncached_models", "uncached_chats", "runtime_models", "uncached_bedrock_models")
_OWN_MARKS = ("no file of the package writes {} on this model's requests (the files that name one mark only "
              "requests their own functions send)")


def module_findings(module):
    """(message, span, keywords) for each fact of `module` PRM302 reports where it is written, in
    the order of the module docstring."""
    for gate in module.facts.get("model_gates", ()):
        if gate.prefixed:
            message = (f"Cache breakpoints are set only when the model name starts with `{gate.name}`: a Claude "
                       "model named after its provider (`anthropic/claude-...`, `bedrock/anthropic.claude-...`, "
                       "`openrouter/anthropic/...`, as LiteLLM and OpenRouter name them) fails that test and gets "
                       "none, and Claude caches nothing without one, so those requests pay the full input price "
                       "for the same prefix each time; test for `claude` anywhere in the name (or the provider)")
        elif gate.marked_when:
            message = (f"Cache breakpoints are set only when the model name matches `{gate.name}`: every other "
                       "Claude model sent from here gets none, and Anthropic caches nothing without one, so "
                       "those requests pay the full input price for the same prefix each time; test for any "
                       "Claude model (or the provider) instead")
        else:
            message = (f"Cache breakpoints are left out when the model name matches `{gate.name}`: those Claude "
                       "requests carry none, and Claude caches nothing without one (on Bedrock too), so they pay "
                       "the full input price for the same prefix each time")
        yield message, module.span(gate.test), {"severity": Severity.INFO}
    for test, option in module.facts.get("opt_in_gates", ()):
        message = (f"Cache breakpoints are set here only when `{option}` is on, and it is off by default: "
                   "requests sent with the default settings carry no breakpoint here, and Claude caches "
                   "nothing without one (through any provider), so each pays the full input price again for the "
                   f"prefix it would close; turn `{option}` on by default")
        yield message, module.span(test), {"severity": Severity.INFO}
    for fact, message in PACKAGE_FACTS:
        if fact in _MODEL_FACTS and module.facts.get("own_marks"):
            message = message.replace("no file of the package names one", _OWN_MARKS.format("one"), 1) \
                .replace("no file of the package names a cache breakpoint", _OWN_MARKS.format("a cache breakpoint"), 1)
        for node in module.facts.get(fact, ()):
            yield message, module.span(node), {"severity": Severity.INFO}
    for node, items, counted in module.facts.get("misindexed_marks", ()):
        message = (f"This cache breakpoint is set on `{items}[i]`, but `i` counts the items of `{counted}` while "
                   f"`{items}` grows by `.extend(...)` in the same loop, any number of entries per pass: once a pass "
                   f"adds more than one, `{items}[i]` is an earlier entry than the one meant, so the breakpoint "
                   "closes less of the prompt and what lies after it is processed uncached on every request; index the "
                   f"list by its own length (`len({items}) - 1`)")
        yield message, module.span(node), {"severity": Severity.INFO}
    for preset in module.facts.get("compat_presets", ()):
        row = preset.module.span(preset.built).start.row
        message = (f"`{preset.attr}` points the OpenAI SDK client that `{preset.base}` builds (its base URL, "
                   f"{preset.module.span(preset.built).filename}:{row}) at Anthropic's OpenAI-compatible endpoint, "
                   "which does no prompt caching: every request sent through this class pays the full input price "
                   "for its whole prompt, however much of it repeats (the instructions, the tools, the "
                   "conversation), with or without a breakpoint; send Claude requests with the Anthropic SDK "
                   "(Messages API) and a `cache_control` breakpoint (https://docs.claude.com/en/api/openai-sdk)")
        yield message, module.span(preset.url), {"severity": Severity.INFO, "related": [
            Related(preset.module.span(preset.built), "the client's base URL, read from it")]}
    for node, key in module.facts.get("unread_cache_flags", ()):
        message = (f"`{key}` is handed to LiteLLM as an option of the request, and LiteLLM reads no option of that "
                   "name: it sets no cache breakpoint (LiteLLM takes a `cache_control` on a message's content part, "
                   "or `cache_control_injection_points`), and nothing in this package turns the switch into one, so "
                   "when the model is Claude (which caches nothing without a breakpoint) the request is sent uncached "
                   "whatever the caller asked; mark the end of the static prefix and the newest message instead")
        yield message, module.span(node), {"severity": Severity.INFO}
    for mark in module.facts.get("kept_marks", ()):
        if mark.capped is not None:
            yield capped(module, mark)
    for block, item in module.facts.get("bare_marks", ()):
        message = (f"When `{item}` is not a dict (a plain string item), this block is the cache breakpoint "
                   "alone: the item's text is dropped from the request, and a block with no type and no text "
                   "is dropped by a formatter or refused by the API, so the breakpoint it was to set is lost "
                   "too; write a text block for a string (`{\"type\": \"text\", \"text\": ..., "
                   "\"cache_control\": ...}`)")
        yield message, module.span(block), {"severity": Severity.INFO}


def capped(module, mark):
    """A breakpoint written into the newest message of a kept list until a count of them
    reaches a limit (`python/kept_marks.py`): a warning when the code keeps the list, info
    when it is the callers'."""
    whose = f"{mark.kept} from turn to turn" if mark.kept else "a caller may keep it from turn to turn"
    message = (f"This statement writes a cache breakpoint into the newest message of `{mark.holder}` ({whose}) "
               "and nothing removes the older ones, so once the count of breakpoints reaches the limit this "
               "test stops marking: from then on the newest turns get no breakpoint, and every request "
               "processes the conversation after the last marked turn uncached, more of it each turn; remove "
               "the older breakpoints before marking the newest message")
    return message, module.span(mark.node), {"severity": None if mark.kept else Severity.INFO,
                                              "related": [Related(module.span(mark.capped), "the count that stops marking")]}
