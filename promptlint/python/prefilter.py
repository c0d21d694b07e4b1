"""Which Python files can hold a prompt: the text test every file passes before it is parsed.

Built from the SDK registry (each SDK's hints, and its import names with the generic method
names of its calls: `import cohere` and `.chat(`), the words of prompt-building code
(`system_prompt`, `.render(`, a `*prompt* = f"...` or `*prompt* = T.format(` assignment, a
`def *prompt*(` or `class *Prompt*` builder, a system message written as a dict display:
`{"role": "system", ...}`) and of semantic caches. A file that
fails it is read once and only checked for syntax errors (`parsing.syntax_error`), never analysed.
Every pattern is a literal or has bounded repetition, so
the test is linear in the file's length (no catastrophic backtracking).
"""
from __future__ import annotations

import re

from ..profiles import history_windows
from . import anchored, sdks
from .converted_ids import CONVERTS_MESSAGE  # a converter with an id source (PRM103)
from .history_ids import CONVERTS_HISTORY
from .dropped_marks import writes_converse  # a converter into Converse blocks (PRM302)
from .flattened_marks import might_flatten_loop  # a loop reducing system blocks to their text (PRM302)
from .bedrock_models import NAMES as BEDROCK_MODELS  # a Bedrock chat model built (PRM302)
from .rebuilt_blocks import might_rebuild  # a typed block rebuilt as a new dict without its breakpoint (PRM302)
from .inplace_merges import might_append, might_merge
from .history_renders import TEXT as RENDERS_HISTORY  # a function named for the conversation (PRM105)
from .history_renders import might_walk_apart  # a walk of the conversation told apart from its end (PRM105)
from .kept_removals import CALLER_TEXT as REMOVES_CHOSEN  # chosen messages handed to a remover (PRM105)
from .kept_removals import may_hold as kept_removals  # the kept conversation written back (PRM105)
from .kept_rewrites import might_rewrite  # a kept conversation rewritten in place (PRM105)
from .kept_rewrites import OLDER_TEXT as OLDER_WRITE  # an older message of a kept conversation written (PRM105)
from .render_ids import may_hold as renders_prompt  # a call that renders a prompt (PRM103)
from .schema_orders import may_hold as may_order_schema  # a schema written in an unstable order (PRM203)
from .replay_strips import TEXT as STRIPPED_FIELDS  # a content field of a message cleared (PRM105)
from .sent_rewrites import might_rewrite_sent  # a sent message's field cleared after the send (PRM105)
from .message_expiry import might_expire  # stored messages given an expiry each (PRM105)
from .stored_fields import might_store_fields  # stored messages that keep only some fields (PRM105)
from .older_edits import might_edit_older  # older messages edited in place by their place (PRM105)
from .history_loads import window_text
from .newest_queries import PATH_TEXT, might_delete
from .unordered_reads import might_read  # a stored conversation read back in the store's order (PRM105)
from .summary_heads import REWRITTEN
from .walked_edits import might_edit  # messages of a handed list edited as walked (PRM105)
from .delegated_cuts import TEXT as DELEGATED_CUT  # a conversation cut through its holder's remover (PRM105)
from .request_bodies import might_hold as anthropic_body  # a body for Anthropic's endpoint (PRM302)
from .compat_presets import might_hold as compat_preset  # a preset of Anthropic's OpenAI-compatible endpoint (PRM302)
from .window_calls import CALL_TEXT as READS_WINDOW  # a kept conversation read as its newest items (PRM105)

_KEEP_TEXT = re.compile(r"\bkeep_(?:recent|last|latest|newest)\w{0,60}\s{0,8}=(?!=)")  # handed_windows.KEEP_TEXT

#: Words of prompt text built outside an SDK call (templates, builder methods, prompt attributes).
PROMPT_HINTS = ("system_prompt", ".instructions", ".render(", "get_template", "PromptTemplate", ".substitute(",
                "import Template", '"role": "system"', "'role': 'system'",
                "max_prompt_tokens")  # an Assistants run's budget: the thread is cut to it (PRM105)
#: Words of a tool's result written as a message (python/tool_results.py).
RESULT_HINTS = ('"role": "tool"', "'role': 'tool'", 'role="tool"', '"type": "tool_result"', "'type': 'tool_result'",
                '"function_call_output"', "'function_call_output'", "ToolMessage(", "FunctionMessage(")
#: Words of semantic response caches (PRM401/402).
CACHE_HINTS = ("SemanticCache", "set_llm_cache", "gptcache", "semantic", "cache_params",
               "import BaseCache")  # a LangChain cache class defined (python/semantic/classes.py)
#: A memory or context class of an agent library that keeps a window of the conversation (PRM105:
#: python/library_windows.py; the names of the library table).
WINDOW_HINTS = history_windows.table().hints()
#: A LangChain (or LlamaIndex) Claude chat model built, or its class kept to build it later (PRM302:
#: python/langchain_models.py).
MODEL_HINTS = ("ChatAnthropic", "init_chat_model(", "llama_index.llms.anthropic",
               # pydantic-ai's Claude models (python/pydantic_ai_models.py)
               "AnthropicModel(", "BedrockConverseModel(", "infer_model(",
               # the Bedrock chat models of LangChain and LlamaIndex (python/bedrock_models.py)
               *BEDROCK_MODELS)
#: `system_prompt = f"...`, `PROMPT = """...`, `prompt = (\n    f"..."`, `prompt += f"...`: a prompt
#: assigned or extended with literal text; `code_prompt = prompts.code_prompt.format(`: a prompt
#: filled from a template kept elsewhere (bounded repetition: linear).
_ASSIGNED = (r"(?i:prompt|system|instruction)\w{0,60}[ \t]{0,8}\+?=\s{0,40}\(?\s{0,40}"
             r"(?:\w{1,60}\s{1,40}or\s{1,40})?"  # `instruction = instruction or """...`: a default given in the body
             r"(?:(?:[rRfFbBuU]{1,2})?[\"']|[\w.\[\]\"']{1,200}\.(?:format|format_map|substitute|safe_substitute)\()")


_WORDS = tuple(sorted({*sdks.hints(), *PROMPT_HINTS, *RESULT_HINTS, *CACHE_HINTS, *MODEL_HINTS, *WINDOW_HINTS},
                      key=len, reverse=True))
#: A match where a file holds one of `_WORDS` (`anchored.any_word`).
_WORDS_RE = anchored.any_word(_WORDS)
_ASSIGNED_RE = re.compile(_ASSIGNED)
#: `class PromptFamily:`, `class ResearchPrompts:`: a class named for prompts, whose methods build them
#: (`class JudgeTemplate:` too: a namespace of static text builders, python/candidates.py);
#: `def build_prompt(`, `def make_instructions(`, `def get_system_message(`: a function named for the
#: prompt text (or the system message) it returns;
#: `{"role": "system"`, `role="developer"`: a system message written outside a recognised call.
_BUILDERS = (("class", re.compile(r"class[ \t]{1,8}\w{0,60}(?:Prompt|_prompt|Template(?=[:(]))")),
             ("def", re.compile(r"def[ \t]{1,8}\w{0,60}(?i:prompt|instruction|preamble|persona|system_?(?:message|msg))")),
             ("role", re.compile(r"role[\"']?[ \t]{0,8}[:=][ \t]{0,8}[\"'](?:system|developer)[\"']")))
#: Where a match of `_ASSIGNED` (or of `_TEMPLATE_OBJECT`) starts: at a word of one of its head
#: words without the letters `i`, `k` and `s`, which case-insensitive matching also pairs with
#: letters outside ASCII (`ı`, `K`, `ſ`), and how many characters of the head come before it
#: (`anchored.found`: the pattern is tried there only; a scan of the whole text with a
#: case-insensitive pattern costs several times more, most of all in text that is not ASCII).
_HEADS = (("prompt", 0), ("tem", 3), ("truct", 3))


def _assigned(source: str) -> bool:
    """True when `_ASSIGNED` matches somewhere in the text."""
    return anchored.found(_ASSIGNED_RE, source, _HEADS, fold=True)


#: Sources of an unstable order: a file naming tools and one of these may build a tools list in it.
UNORDERED_HINTS = ("set(", "frozenset(", "listdir(", "scandir(", "glob(", "iterdir(", "as_completed(",
                   "list_tools(", "walk(", "gather(",
                   "create_task(")  # gather, create_task: a tools registry filled in completion order


#: The verbs of a call that removes messages (`remove_context_messages(`), looked for before `REMOVES_CHOSEN`.
_REMOVERS = ("remove_", "delete_", "drop_", "discard_", "purge_")

#: A list of the functions a model may call grown (`functions.append(...)`, `self._functions.extend(`).
_FUNCTIONS_GROWN = re.compile(r"functions[ \t]{0,4}\.(?:append|extend|insert)\(")

#: Sources of ids and times: a file naming tools and one of these may put one in a tool's name.
VOLATILE_HINTS = ("uuid", "now(", "random.", "time()")

#: A conversation cut in a helper of its own (PRM105): a file naming messages or a history and one
#: of these (a slice from the end, a newest-first walk or a list turned around, a pop of the first items or at an index
#: computed from the length, LangChain's trim_messages or a call named for trimming, a deletion at an index, a walk by index
#: from the end (`k = len(xs) - 1`, `range(len(xs) - 1, 0, -1)`), a message's content replaced),
#: or a `while` loop and a pop (`.pop()`: until it fits).
CUT_HINTS = re.compile(r"\[[ \t]{0,4}(?:-[^\]\n]{1,40}:[ \t]{0,4}\]|len\()|reversed\(|\[::-1\]|\.reverse\(\)"
                       r"|\.pop\((?:0|1|len\()|trim\w{0,40}\(|\bdel [\w.]{1,60}\[[^\]\n]{1,60}\]"
                       r"|= len\([\w.]{1,60}\) - 1\b|range\(len\([\w.]{1,60}\) - 1, [^\n]{0,40}-1\)"
                       r"|\[[\"']content[\"']\] = ")
_POP_AT = re.compile(r"\.pop\(\w{0,60}\)")
#: A generator that yields a slice moving with its walk's index (`yield turns[max(0, i - w + 1):
#: i + 1]`): windows of a list a caller may send one by one (PRM105; bounded repetition: linear).
_YIELDED_WINDOW = re.compile(r"yield[ \t]{1,8}[\w.]{1,60}\[[ \t]{0,4}max\([ \t]{0,4}0[ \t]{0,4},[ \t]{0,4}\w{1,40}"
                             r"[ \t]{0,4}-[^\]\n]{1,60}:[ \t]{0,4}\w{1,40}")

#: A tool set held on an object grown or replaced (`self._discovered_tools[name] = tool`,
#: `agent.tools_list.append(...)`), or a call named for loading tools (`load_dynamic_tool_specs(`):
#: PRM204's changes (bounded repetition: linear).
_TOOLS_CHANGED = re.compile(r"\.\w{0,40}(?i:tools?)\w{0,40}(?:\[[^\]\n]{0,80}\])?[ \t]{0,4}"
                            r"(?:\.(?:append|extend|update|insert|setdefault)\(|\+=|=[^=])"
                            r"|(?:load|add|extend|register)_\w{0,40}tool")


#: Tools whose results a model is sent (python/tool_results.py): a tools list display that names
#: them (`TOOLS = [search, fetch]`, after a comment line too; `tools=[search]`, `bind_tools([`; an
#: element a name, a name wrapped in a call or a dict entry of one; not a comprehension),
#: a function decorated as a tool (`@tool`, `@mcp.tool()`, `@agent.tool_plain`, ...) or a tool
#: class (`class Palette(BaseTool):`); the order
#: of what they return may be lost in another file (bounded repetition: linear).
_TOOL_ELEMENT = (r"(?:[A-Za-z_][\w.]{0,80}(?:\([^()\n]{0,80}\))?"  # `search,` `make_function(search)]`
                 r"|[\"'][^\"'\n]{1,60}[\"'][ \t]{0,4}:[ \t]{0,4}[A-Za-z_][\w.]{0,80})"  # `"search": search,`
                 r"[ \t]{0,4}(?:[,\]\)\}]|\n)")
_TOOLS_LISTED = re.compile(r"(?i:tools)\w{0,40}[ \t]{0,8}(?::[^=\n]{0,80})?=[ \t]{0,8}[\[\(\{]"
                           r"(?:\s{0,40}#[^\n]{0,200})?\s{0,40}" + _TOOL_ELEMENT +
                           r"|\b(?:tools|functions)=[ \t]{0,4}\[\s{0,40}" + _TOOL_ELEMENT + r"|bind_tools\(\["
                           r"|@[\w.]{0,60}(?:tool|tool_plain|function_tool|kernel_function|call_tool|register_for_llm)\b"
                           r"|class[ \t]{1,8}\w{1,60}\([\w.]{0,60}Tool\b")


#: A message put at the head of a conversation (`messages.insert(0, ...)`) or text added to its
#: first message (`messages[0]["content"] += ...`, `messages[0].content += ...`).
_PLACED = re.compile(r"\.insert\([ \t]{0,4}0[ \t]{0,4},|\[0\](?:\[[^\]\n]{1,40}\]|\.\w{1,40})[ \t]{0,4}\+=")


#: System text written into a dict held in a name (`kwargs["system"] = ...`): a step of a request
#: pipeline may write it before a later step prepends the conversation (python/step_requests.py).
_SYSTEM_WRITTEN = re.compile(r"\w\[[\"'](?:system|instructions|system_instruction)[\"']\][ \t]{0,4}=[^=]")


#: A call of a helper named for the system message (`add_or_update_system_message(notes, messages)`):
#: it may write its text at the head of the conversation (python/system_edits.py).
_SYSTEM_HELPER = re.compile(r"(?i:system)_?(?i:message|msg|prompt)\w{0,40}\(")


#: A method of another object named for the system text, or for removing the item at index 0 or 1
#: (`self.planner.set_system_prompt(text)`, `self.planner.remove_message_at(1)`): it may be the head
#: writer or the remover of a conversation that object keeps (python/kept_conversations.py: the
#: words of `HEAD_WORDS` and `REMOVE_WORDS`).
_KEEPER_CALL = re.compile(r"\.\w{0,40}(?i:system)\w{0,40}\(|\.\w{0,30}(?:remove|delete|drop|pop)\w{0,30}\([01]\)")
#: A setter of another object's instructions (`request.append_instructions([text])`): it may set the
#: system part of requests that object makes with the conversation (python/handed_heads.py).
_INSTRUCTION_SETTER = re.compile(r"\.(?i:set|update|add|append|prepend|extend)_\w{0,30}(?i:instruction)\w{0,30}\(")


#: A request sent without tool definitions (`tools=None`, `functions=[]`): PRM204 reads whether an
#: earlier request sent the same conversation with them.
_NO_TOOLS = re.compile(r"\b(?:tools|functions)=(?:None|\[\])")


#: Tools that may vary between the requests of one conversation (PRM204, tool_variants): a request
#: payload's tools set (`payload["tools"] = ...`), a call named for removing the tools of a
#: request's options (`self._reset_tool_settings(opts)`).
_TOOL_VARIANTS = re.compile(r"\[[\"'](?:tools|functions)[\"']\][ \t]{0,4}=[^=]"
                            r"|(?i:reset|clear|remove|disable|drop|strip|unset)_\w{0,40}(?i:tool|function)\w{0,40}\(")


#: Options that leave the tools out merged into a request's options (`kwargs.update(self.no_tools_kwargs)`,
#: `kwargs["include_functions"] = False`): PRM204 reads whether a loop sends its requests with them.
#: Where a line `_TOOL_VARIANTS` matches holds one of these (the payload key, or the tool word of a
#: reset's name in any case).
_VARIANT_ANCHORS = ("tools\"]", "tools']", "functions\"]", "functions']", "tool", "Tool", "TOOL", "function",
                    "Function", "FUNCTION")
#: A tool choice rebound to a constant (`tool_choice = "auto"`) where a request passes it by
#: name, or chosen between constants (`tool_choice="required" if step == 0 else "auto"`): PRM204
#: reads whether a loop of one conversation sends it (tool_rebinds).
_CHOICE_REBOUND = re.compile(r"(?m)^[ \t]+\w*tool_choice[ \t]*=[ \t]*(?:[\"'{]|None\b)"
                             r"|tool_choice=(?:\"[\w-]{1,20}\"|'[\w-]{1,20}'|None)[ \t]+if\b")
_TOOLS_OFF = re.compile(r"\.update\([\w.]{0,80}(?i:disable|no_|without)\w{0,30}(?i:tool|function)"
                        r"|\[[\"'](?:include|use|enable|with)_(?:tools|functions)[\"']\][ \t]{0,4}=[ \t]{0,4}False")


#: A bounded deque (`deque(maxlen=10)`): with a conversation named in the file, it may keep one as a
#: sliding window (PRM105).
_BOUNDED_DEQUE = re.compile(r"deque\([^)\n]{0,120}maxlen")
_TURN_WORDS = ("istory", "essages", "ssistant", "User", "emory", "onversation", "turns", "ialog")


#: A conversation kept on an instance that a method cuts or replaces (`self._messages.pop(i)`,
#: `del self.history[0]`, `self._messages = [SystemMessage(summary)]`, a deque's `self.history.popleft()`, a
#: queue's `self.history_queue.get()`): PRM105 (memory_windows).
_MEMORY_CUT = re.compile(r"self\.\w{0,40}(?:essages|istory)\w{0,20}(?:\.(?:pop|remove)\((?!\))|\.popleft\(|\.get(?:_nowait)?\(\)|[ \t]{0,4}=[ \t]{0,4}\[[^\]\s])"
                         r"|del self\.\w{0,40}(?:essages|istory)")


#: A kept conversation cut at its head where it is kept (`self.dialog = self.dialog[-k:]`, `turns =
#: turns[1:]`, a list display holding a slice put in its place, `self.transcript = [digest, *items[n:]]`,
#: `chat.messages.pop(0)`, `del self.turns[:k]`):
#: PRM105 (stored_cuts).
_WORDS_CUT = r"(?i:transcript|turns|dialog|chat|conversation|messages|history)"
_STORED_CUT = re.compile(_WORDS_CUT + r"\w{0,30}(?:\.pop\([01]\)|[ \t]{0,4}=[ \t]{0,4}(?:[\w.]{0,60}" + _WORDS_CUT
                         + r"\w{0,30}\[[^\[\]\n]{1,80}:\]|\[[^\]\n]{0,80}\[[^\[\]\n]{1,80}:\]))|\bdel [\w.]{0,80}" + _WORDS_CUT + r"\w{0,30}\[")


#: A template object named for prompts built with a dict of the functions that fill its placeholders
#: (`SYSTEM_PROMPT = Template(template="...", functions={"now": lambda data: ...})`): template_objects.
_TEMPLATE_OBJECT = re.compile(r"(?i:prompt|system|instruction)\w{0,60}[ \t]{0,8}=[ \t]{0,8}[\w.]{1,80}\(")
_FUNCTION_ENTRY = re.compile(r"[\"']\w{1,60}[\"'][ \t]{0,8}:[ \t]{0,8}(?:lambda\b|[A-Za-z_][\w.]{0,80}[ \t]{0,8}[,}])")


#: A model chosen per request from a list of models (PRM205): drawn at random, taken in turns by a
#: counter, or from a cycle (`random.choice(self.models)`, `self.models[i]`, `cycle(MODEL_NAMES)`;
#: bounded repetition: linear).
_MODEL_POOL = re.compile(r"(?:choice|choices|sample|cycle)\([\w.]{0,60}(?i:models|llms|engines|model_names|model_ids)\b"
                         r"|(?i:models|llms|engines)\[[^\]\n]{1,80}\]")
#: Where a match of `_MODEL_POOL` starts (`_HEADS` says why these words).
_MODEL_POOL_HEADS = ("cho", ("ample(", 1), "cycle(", "model", "llm", "eng")


#: `from app.prompts.review import reflect_template`: a name imported from a module named for prompts,
#: filled in this file (`reflect_template.format(...)`: text_shapes.filled_template).
#: A template named for prompts filled (`READER_PROMPT.format(`, `self.system_prompt.substitute(`), wherever
#: the text goes (an argument, a message dict): a template kept in another module, filled in this one.
_TEMPLATE_FILLED = re.compile(r"(?i:prompt)\w{0,60}\.(?:format|format_map|substitute|safe_substitute)\(")
_FROM_PROMPTS = re.compile(r"from[ \t]{1,8}[\w.]{0,200}(?i:prompt)[\w.]{0,200}[ \t]{1,8}import")


def _on_lines(source: str, anchors: tuple[str, ...], pattern: re.Pattern) -> bool:
    """True when `pattern` (of one line's text) matches a line that holds one of `anchors`: the
    pattern is tried on those lines only (a search of the whole text tries its case-insensitive
    alternatives at every character)."""
    seen = set()
    for anchor in anchors:
        at = source.find(anchor)
        while at != -1:
            start = source.rfind("\n", 0, at) + 1
            if start not in seen:
                seen.add(start)
                end = source.find("\n", at)
                if pattern.search(source, start, len(source) if end == -1 else end + 1) is not None:  # with its \n
                    return True
            at = source.find(anchor, at + len(anchor))
    return False


#: Words of a module's file name or folder that say it holds prompts (python/prompt_modules.py).
_PROMPT_MODULE_WORDS = ("prompt", "prompts")


def named_for_prompts(path) -> bool:
    """True when a Python file's name (`prompts.py`, `_prompt.py`, `planner_prompts_v2.py`: a word
    of it, split at what is not a letter or a digit, is `prompt` or `prompts`; not `promptflow.py`)
    or its folder (`prompts/review.py`: the folder's whole name) says it holds prompts. A folder
    only named with the word (`prompt_toolkit/`, a checkout `my-prompt-app/`) says nothing of the
    modules in it."""
    folder = path.parent.name.lower().strip("_")
    return folder in _PROMPT_MODULE_WORDS or any(w in _PROMPT_MODULE_WORDS
                                                  for w in re.split(r"[^a-z0-9]+", path.stem.lower()))


def in_prompt_module(path, source: str) -> bool:
    """True when a file named for prompts (`named_for_prompts`) writes a `{placeholder}`: it may
    hold templates whose names do not say prompt (python/prompt_modules.py)."""
    return "{" in source and named_for_prompts(path)


def might_hold_prompt(source: str) -> bool:
    """True when the text mentions an LLM API, prompt-building code (a function or class named for
    prompts, a system message among it) or a semantic cache, names tools next to a source of an
    unstable order (a tools list built from a set, a listing) or of an id or a time
    (`Tool(name=f"done_{self.id}")`), changes a tool set held on an object, or names messages or a
    history next to a shape that cuts a list or puts a message at its head (or calls a helper named
    for the system message) or sends a request
    without tools (`tools=None`), chooses a model from a list of models at random or in turns,
    or fills a name
    imported from a module named for prompts, or writes Bedrock Converse blocks, or converts typed blocks with a helper named for a breakpoint."""
    if _WORDS_RE.search(source) is not None or _assigned(source) or sdks.import_and_call(source):
        return True
    if compat_preset(source):
        return True  # a class that points its base's OpenAI client at Anthropic's endpoint (python/compat_presets.py)
    if anthropic_body(source) or ".invoke_model" in source:
        return True  # a Messages API body built for Anthropic's URL or Bedrock's Claude (python/request_bodies.py)
    if might_flatten_loop(source):
        return True  # a system prompt's text blocks reduced to their text: breakpoints dropped (PRM302)
    if writes_converse(source) and '"text"' in source.replace("'", '"'):
        return True  # text blocks rebuilt as Converse blocks: breakpoints they carry may be dropped (PRM302)
    if "breakpoint" in source and might_rebuild(source):
        return True  # typed blocks rebuilt by a converter that carries breakpoints in some branches (PRM302)
    if any(head in source and pattern.search(source) is not None for head, pattern in _BUILDERS):
        return True
    if (".format(" in source or ".format_map(" in source) and "rompt" in source \
            and _FROM_PROMPTS.search(source) is not None:
        return True
    if ("rompt" in source or "ROMPT" in source) and (".format" in source or "substitute(" in source) \
            and _on_lines(source, (".format", "substitute("), _TEMPLATE_FILLED):
        return True  # `READER_PROMPT.format(url=url)` in an argument: a template kept elsewhere, filled here
    if ("lambda" in source or "{" in source) and anchored.found(_TEMPLATE_OBJECT, source, _HEADS, fold=True) \
            and _FUNCTION_ENTRY.search(source) is not None:
        return True  # a prompt template object with the functions that fill it (template_objects)
    if ("random" in source or "secrets" in source or "cycle(" in source or "% len(" in source or "+= 1" in source) \
            and anchored.found(_MODEL_POOL, source, _MODEL_POOL_HEADS, fold=True):
        return True  # a model chosen per request (PRM205)
    if ("uuid" in source or "random" in source) and "essage" in source and CONVERTS_MESSAGE.search(source) is not None:
        return True  # a message converted with a new id (PRM103)
    if ("uuid" in source or "random" in source or "tempfile" in source) and CONVERTS_HISTORY.search(source) is not None:
        return True  # the conversation converted with a new id per message (PRM103)
    if "functions" in source and any(h in source for h in UNORDERED_HINTS) and _FUNCTIONS_GROWN.search(source):
        return True  # the functions a model may call listed in an unstable order (PRM203)
    if "maxlen" in source and any(w in source for w in _TURN_WORDS) and _BOUNDED_DEQUE.search(source) is not None:
        return True  # a conversation kept in a bounded deque (PRM105)
    if "tool" in source and any(h in source for h in UNORDERED_HINTS + VOLATILE_HINTS):
        return True
    if may_order_schema(source):
        return True  # a tool's or output's schema written in an unstable order (PRM203, schema_orders)
    if ("tool" in source or "Tool" in source) and _TOOLS_CHANGED.search(source) is not None:
        return True
    if ("tool" in source or "TOOL" in source or "Tool" in source) and _TOOLS_LISTED.search(source) is not None:
        return True  # tools whose results the model is sent (tool_results.py)
    if ("tool" in source or "function" in source) and _on_lines(source, _VARIANT_ANCHORS, _TOOL_VARIANTS):
        return True  # tools that may vary between the requests of a conversation (PRM204)
    if "tool_choice=" in source and _CHOICE_REBOUND.search(source) is not None:
        return True  # a tool choice rebound between the requests of a loop (PRM204)
    if ("update(" in source or "_tools" in source or "_functions" in source) and _TOOLS_OFF.search(source) is not None:
        return True  # tools turned off for later requests of a loop (PRM204)
    if "yield" in source and "max(" in source and _YIELDED_WINDOW.search(source) is not None:
        return True  # windows of a list yielded one by one (PRM105)
    if _on_lines(source, (":]", "pop(0)", "pop(1)", "del "), _STORED_CUT):
        return True  # a kept conversation cut at its head (PRM105, stored_cuts)
    if might_edit(source):
        return True  # messages of a list handed in edited in place as it is walked (PRM105, walked_edits)
    if might_delete(source):
        return True  # a stored conversation's rows deleted but the newest (PRM105, newest_deletes)
    if might_read(source):
        return True  # a stored conversation read back in whatever order the store gives (PRM105, unordered_reads)
    if ("system" in source or "instructions" in source) and _SYSTEM_WRITTEN.search(source) is not None:
        return True  # system text a step of a request pipeline writes (step_requests)
    if "essage" not in source and "istory" not in source:
        return False
    if ("insert(" in source or "[0]" in source) and _PLACED.search(source) is not None:
        return True
    if "ystem" in source and _SYSTEM_HELPER.search(source) is not None:
        return True  # a helper that writes text into the system message of a list (system_edits)
    if _on_lines(source, ("ystem", "YSTEM", "remove", "delete", "drop", "pop"), _KEEPER_CALL):
        return True  # a method of an object that keeps a conversation (kept_conversations)
    if "nstruction" in source and _INSTRUCTION_SETTER.search(source) is not None:
        return True  # a setter of another object's instructions (handed_heads)
    if "self." in source and DELEGATED_CUT.search(source) is not None:
        return True  # a kept conversation cut through the remover of the object that holds it (PRM105)
    if "self." in source and _MEMORY_CUT.search(source) is not None:
        return True  # a conversation an instance keeps, cut or replaced as it grows (PRM105)
    if "class " in source and REWRITTEN.search(source) is not None:
        return True  # a running summary an instance rewrites, maybe sent at the head of its conversation (PRM105)
    if ("tools=" in source or "functions=" in source) and _NO_TOOLS.search(source) is not None:
        return True  # a conversation re-sent without its tools (PRM204)
    if window_text(source):
        return True  # a conversation loaded as its newest turns (PRM105)
    if kept_removals(source):
        return True  # messages a caller names removed from the kept conversation (PRM105)
    if "reverse" in source and ".." in source and PATH_TEXT.search(source) is not None:
        return True  # a graph store's conversation read back as its newest messages (PRM105, newest_queries)
    if "filter" in source and any(v in source for v in _REMOVERS) and REMOVES_CHOSEN.search(source) is not None:
        return True  # messages of the conversation chosen by a test handed to a remover (PRM105)
    if "copy(" in source and any(w in source for w in STRIPPED_FIELDS):
        return True  # stored messages re-sent with a content field cleared (PRM105)
    if ("enumerate" in source or "+=" in source or "reversed(" in source) and RENDERS_HISTORY.search(source) is not None:
        return True  # the conversation rendered by a function named for it, maybe its newest turns apart (PRM105)
    if might_edit_older(source):
        return True  # older messages of a conversation edited in place, by their place from the end (PRM105)
    if might_store_fields(source):
        return True  # messages stored field by field, reloaded without their tool calls (PRM105)
    if might_expire(source):
        return True  # messages stored with an expiry each (PRM105)
    if might_rewrite_sent(source):
        return True  # a field of a sent message cleared after the send (PRM105)
    if might_walk_apart(source):
        return True  # a walk of the conversation or a kept list by index, maybe its newest items apart (PRM105)
    if renders_prompt(source):
        return True  # a prompt rendered by a call whose template is elsewhere, maybe with an id (PRM103)
    if might_merge(source):
        return True  # a message merged into the caller's own message object (PRM105, inplace_merges)
    if might_rewrite(source):
        return True  # every message of a kept conversation rewritten in place (PRM105, kept_rewrites)
    if might_append(source):
        return True  # text added to a message of the caller's conversation (PRM105, inplace_appends)
    if "keep_" in source and _KEEP_TEXT.search(source):
        return True  # a conversation compacted keeping its newest few whole (PRM105, handed_windows)
    if "[-" in source and OLDER_WRITE.search(source) is not None:
        return True  # an older message of a kept conversation written in place (PRM105)
    if READS_WINDOW.search(source) is not None:
        return True  # a kept conversation read as its newest items through a method of its keeper (PRM105)
    return CUT_HINTS.search(source) is not None or "while " in source and _POP_AT.search(source) is not None
