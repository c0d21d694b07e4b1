"""Classification of dynamic values: what a call, a name or a strftime format means for caching.

Facts only about Python's standard library and common SDKs; docs/policies.md, Policy 1, gives
the precision rules (strftime directives, `date` vs `datetime`, `time.time()`).
"""
from __future__ import annotations

import re
from functools import lru_cache

from .model import Kind, Precision, Volatility

# strftime directives by the precision they carry (docs/policies.md, Policy 1). %Z %z carry no time at all.
_SUB_DAY = set("HIMSfpXcTsrRk") | {"l"}
_DAY = set("djaAxDFuwe")
_MONTH = set("mbBh")
_YEAR = set("YyGC")

_ORDER = [Precision.SUB_DAY, Precision.DAY, Precision.MONTH, Precision.YEAR]


def strftime_precision(fmt: str) -> Precision | None:
    """The finest precision a strftime format carries, or None when it has no time directive
    (e.g. "%Z"). "%Y-%m-%d %H:%M" -> SUB_DAY, "%A, %d %B %Y" -> DAY, "%Y" -> YEAR."""
    found = None
    for directive in re.findall(r"%[-#0^_]?([A-Za-z])", fmt):
        for prec, letters in ((Precision.SUB_DAY, _SUB_DAY), (Precision.DAY, _DAY),
                              (Precision.MONTH, _MONTH), (Precision.YEAR, _YEAR)):
            if directive in letters:
                if found is None or _ORDER.index(prec) < _ORDER.index(found):
                    found = prec
                break
    return found


# Calls that read the clock: qualified name -> precision of the value they return.
TIMESTAMP_CALLS: dict[str, Precision] = {
    "datetime.datetime.now": Precision.SUB_DAY,
    "datetime.datetime.utcnow": Precision.SUB_DAY,
    "datetime.datetime.today": Precision.SUB_DAY,
    "datetime.date.today": Precision.DAY,
    "time.time": Precision.SUB_DAY,
    "time.time_ns": Precision.SUB_DAY,
    "time.localtime": Precision.SUB_DAY,
    "time.gmtime": Precision.SUB_DAY,
    "time.ctime": Precision.SUB_DAY,
    "time.asctime": Precision.SUB_DAY,
    "pendulum.now": Precision.SUB_DAY,
    "pendulum.today": Precision.DAY,
    "arrow.now": Precision.SUB_DAY,
    "arrow.utcnow": Precision.SUB_DAY,
    "django.utils.timezone.now": Precision.SUB_DAY,
    "pandas.Timestamp.now": Precision.SUB_DAY,
}

# Methods of a date-time library's object that write its time relative to now ("2 minutes ago",
# https://arrow.readthedocs.io/en/latest/api-guide.html#arrow.arrow.Arrow.humanize, pendulum's
# `diff_for_humans`): method -> the libraries (first name of the object's qualified name). Called
# with no other time to compare with, the text changes as the clock runs: sub-day.
RELATIVE_TIME_METHODS: dict[str, frozenset] = {
    "humanize": frozenset({"arrow"}), "diff_for_humans": frozenset({"pendulum"}),
}

# Methods of a timestamp value and what they keep: None keeps the precision.
TIMESTAMP_METHODS: dict[str, Precision | None] = {
    "isoformat": None, "astimezone": None, "replace": None, "ctime": Precision.SUB_DAY,
    "timestamp": Precision.SUB_DAY, "time": Precision.SUB_DAY, "date": Precision.DAY,
    "isocalendar": Precision.DAY, "weekday": Precision.DAY, "isoweekday": Precision.DAY,
    "to_iso8601_string": None, "format": None, "__str__": None,
}
# Parts of a timestamp that describe the time zone, not the time: stable per host.
TIMESTAMP_ZONE = {"tzinfo", "tzname", "utcoffset", "dst", "tz", "timezone", "zone"}
TIMESTAMP_ATTRS: dict[str, Precision] = {
    "year": Precision.YEAR, "month": Precision.MONTH, "day": Precision.DAY,
    "hour": Precision.SUB_DAY, "minute": Precision.SUB_DAY, "second": Precision.SUB_DAY,
    "microsecond": Precision.SUB_DAY,
}

# Calls whose result is new on every call (unique ids, randomness).
UNIQUE_ID_CALLS = {
    "uuid.uuid1", "uuid.uuid4", "uuid.uuid6", "uuid.uuid7", "os.urandom", "secrets.token_hex",
    "secrets.token_urlsafe", "secrets.token_bytes", "secrets.choice", "secrets.randbelow",
    "random.random", "random.randint", "random.choice", "random.choices", "random.sample",
    "random.randrange", "random.getrandbits", "random.uniform", "shortuuid.uuid", "nanoid.generate",
    "ulid.new", "ulid.ULID", "uuid6.uuid7", "bson.ObjectId", "bson.objectid.ObjectId",
    "tempfile.mkdtemp", "tempfile.mktemp",  # a new random path on every call
}

#: The evidence's tail of a call of `UNIQUE_ID_CALLS` that picks elements of a list at random
#: (`random.choice(nodes)`): what is read from what it picks (`.code`) is that element's content,
#: new per request, not a random value itself (python/flow/core.py `derived`).
PICKED_AT_RANDOM = ": elements picked at random"
#: The evidence's tail of a list shuffled in place on every call (`random.shuffle(examples)`,
#: python/flow/growth.py): the same elements in a new order.
SHUFFLED_AT_RANDOM = ": a new random order on every call"


def drawn_at_random(seg) -> bool:
    """True for a segment of elements of a collection drawn at random anew on every call: picked
    (`random.sample(pool, 4)`, `random.choice(examples)`, what is read from them: `PICKED_AT_RANDOM`)
    or shuffled in place (`SHUFFLED_AT_RANDOM`), per request. Not a random number, nor a draw made
    once (per instance, per process)."""
    evidence = seg.evidence or ""
    return seg.volatility is Volatility.PER_REQUEST and (PICKED_AT_RANDOM in evidence or evidence.endswith(SHUFFLED_AT_RANDOM))

#: Random number generators made without a seed (`random.Random()`): their methods named as the
#: `random` module's functions of `UNIQUE_ID_CALLS` give a new value on every call, as those do.
#: One made with a seed (`random.Random(0)`) repeats its sequence on every run and is not one.
RANDOM_GENERATORS = {"random.Random", "random.SystemRandom"}

#: Methods whose call sends a request to a model and returns its reply (`client.chat.completions.create`,
#: `llm.invoke`, `model.generate_content`): what they return is the model's output, whatever picked
#: the client or the model (`random.choice(clients)`), not that pick (python/flow/methods.py).
MODEL_SENDS = frozenset({"create", "acreate", "invoke", "ainvoke", "stream", "astream", "batch", "abatch",
                         "generate", "agenerate", "generate_content", "generate_content_async", "complete",
                         "acomplete", "chat", "achat", "completion", "acompletion", "predict", "apredict",
                         "send_message", "send_message_async", "run", "arun", "ask", "aask", "query", "aquery"})

#: Library functions (lower-case names) that build an object from their arguments and return it,
#: as a class does: an agent that sends its prompt when it is run, `create_react_agent(model, tools,
#: prompt=...)` (python/flow/calls.py keeps their calls as objects, so a send method called on the
#: result, `agent.invoke(...)`, reads what the agent was built with: python/sdks/langchain.py).
OBJECT_FACTORIES = frozenset({"langgraph.prebuilt.create_react_agent",
                              "langgraph.prebuilt.chat_agent_executor.create_react_agent",
                              "langchain.agents.create_agent", "langchain.agents.factory.create_agent"})

#: Library functions that convert a content block into a new OpenAI-format block built from its
#: data fields only (an image's URL or base64, a file's data and name): the block's other keys,
#: a `cache_control` among them, are not copied (langchain-ai/langchain,
#: libs/core/langchain_core/messages/block_translators/openai.py: `convert_to_openai_data_block`
#: returns `{"type": "image_url", "image_url": {...}}` or `{"type": "file", "file": {...}}`),
#: matched by the last part of the qualified name under the package (re-exported in several modules).
DATA_BLOCK_REBUILDERS = {"langchain_core": frozenset({"convert_to_openai_data_block", "convert_to_openai_image_block"})}

# Calls that describe the host or the configuration: stable for the life of the process.
STABLE_CALL_PREFIXES = (
    "platform.", "os.getenv", "os.environ", "sys.", "socket.gethostname", "getpass.getuser",
    "os.getcwd", "pathlib.Path.cwd", "pathlib.Path.home", "os.cpu_count", "locale.", "shutil.which", "os.path.", "importlib.metadata.version",
)

# Methods whose dict result has a fixed key order (the model's field order): serialising it
# without sort_keys is deterministic.
DETERMINISTIC_DICTS = {"model_json_schema", "schema", "json_schema", "model_dump", "dict", "asdict",
                       "_asdict", "to_dict", "openai_schema"}

# Unordered sources (PRM202): calls whose iteration order is not deterministic.
UNORDERED_CALLS = {
    "os.listdir": "directory listing order", "os.scandir": "directory listing order",
    "glob.glob": "directory listing order", "glob.iglob": "directory listing order",
    "os.walk": "directory listing order", "asyncio.as_completed": "completion order",
    "concurrent.futures.as_completed": "completion order", "set": "set iteration order",
    "frozenset": "set iteration order",
}
UNORDERED_METHODS = {"iterdir": "directory listing order", "glob": "directory listing order",
                     "rglob": "directory listing order",
                     # an MCP server lists its tools in its own order (PRM203 in docs/rules.md)
                     "list_tools": "an MCP server's listing order"}
#: The evidence of the folder and file names `os.walk` lists for each folder (`for root, dirs, files in
#: os.walk(d)`): each list comes in file-system order, whether or not the walk itself is sorted
#: (`sorted(os.walk(d))` orders the folders, not the names inside each one).
WALK_LISTS = "a folder's names in os.walk's listing order"
#: The evidence of a tools listing (its elements are tools, whatever the names around them).
MCP_LISTING = UNORDERED_METHODS["list_tools"]
#: The evidence of a tools registry that coroutines run at once fill as each completes
#: (python/concurrent_fills.py): the registry's order is their completion order.
GATHERED_LISTING = "completion order of concurrent calls"
#: ... when each call lists an MCP server's tools: its elements are tools, whatever its name.
GATHERED_MCP = "completion order of concurrent MCP tool listings"

#: Decorators that make a function a tool the model calls, by their last name (`@tool`,
#: `@tool("search")`, `@mcp.tool()`, `@agent.tool_plain`, `@function_tool`, `@kernel_function`, a
#: low-level MCP server's `@server.call_tool()`, AutoGen's `@assistant.register_for_llm(...)`):
#: what the function returns is sent to the model as a tool result (python/tool_results.py).
TOOL_DECORATORS = {"tool", "tool_plain", "function_tool", "kernel_function", "call_tool", "register_for_llm",
                   "register_for_execution"}
#: A tool written as a class: a base class whose last name ends in `Tool` (`BaseTool`, `Tool`), and
#: the methods whose return value is the tool's result (LangChain / CrewAI `_run`, smolagents
#: `forward`, LlamaIndex `call`, AutoGen `run`).
TOOL_METHODS = {"_run", "_arun", "forward", "call", "acall", "run", "arun", "__call__", "execute", "aexecute"}
#: Classes of a message that carries a tool's result, by their last name; the keyword of its content.
TOOL_MESSAGES = {"ToolMessage": "content", "FunctionMessage": "content", "ToolResultMessage": "content",
                 "FunctionResponse": "response", "ToolReturnPart": "content"}

#: Calls that call the function they are given with the other arguments they are given (at once,
#: on a thread, or later), by qualified name: the position of that function among the positional
#: arguments. `functools.partial(client.chat.completions.create, model=m, messages=msgs)`,
#: `asyncio.to_thread(client.converse, **kwargs)`.
RELAY_CALLS: dict[str, int] = {"functools.partial": 0, "asyncio.to_thread": 0, "anyio.to_thread.run_sync": 0,
                               "starlette.concurrency.run_in_threadpool": 0, "fastapi.concurrency.run_in_threadpool": 0}
#: The same, by method name, for receivers not resolved statically: `loop.run_in_executor(None,
#: fn, *args)` (asyncio), `executor.submit(fn, *args, **kwargs)` (concurrent.futures).
RELAY_METHODS: dict[str, int] = {"run_in_executor": 1, "submit": 0}

_USER_INPUT_NAMES = {
    "user_input", "user_message", "user_msg", "user_text", "user_prompt", "user_query",
    "user_request", "user_content", "question", "query", "input_text", "utterance", "user_question",
    "human_input", "human_message", "latest_message", "last_message", "new_message",
}
#: Words of a name that say a list is the conversation (`self.transcript`, `chat_log_messages`).
CONVERSATION_WORDS = frozenset({"message", "messages", "msgs", "history", "conversation", "chat", "dialog", "dialogue",
                                "transcript", "turns"})
HISTORY_NAMES = {
    "history", "chat_history", "messages", "conversation", "transcript", "past_messages",
    "message_history", "prior_messages", "context_messages", "turns", "dialog", "dialogue",
    "chat_messages", "conversation_history", "msgs", "all_messages", "previous_messages",
}
# Content retrieved for the current turn (memories recalled, documents found): named so in code.
_RETRIEVED = re.compile(r"^(memory_content|memories|recalled\w*|retrieved\w*|\w*search_results|relevant_(docs|documents|memories|context)|rag_context|retrieval_\w+|recalled_memories)$", re.I)
# ... but the text written around it, named for it (`retrieval_template`, `retrieved_prompt`,
# `retrieval_instructions`): the static frame of retrieved content, not the content.
_RETRIEVAL_FRAME = re.compile(r"_(template|prompt|instructions?|format)$", re.I)

_PER_CONVERSATION_IDS = {
    "conversation_id", "session_id", "thread_id", "chat_id", "runtime_id", "sandbox_id", "run_id",
    "conv_id", "sid", "workspace_id", "container_id", "instance_id", "agent_id",
}
_PER_REQUEST_IDS = {
    "request_id", "trace_id", "span_id", "correlation_id", "nonce", "idempotency_key", "req_id",
    "uuid", "guid", "random_id",
}
_TIME_NAMES = re.compile(
    r"^(now|utc_?now|current_?(date_?)?time|current_?date(_?time)?|timestamp|ts|today|date_?str|"
    r"time_?str|today_?str|now_?str|current_timestamp|datetime_?str|local_?time|date_?time)$", re.I)


@lru_cache(maxsize=1 << 16)
def classify_name(name: str) -> tuple[Kind, Volatility, Precision | None, str] | None:
    """Classify a variable or attribute by its name alone (a hint, not proof: Policy 7).

    Returns (kind, volatility, precision, evidence) or None when the name says nothing. Kept per
    name (a pure function of the text, asked again and again for the same names: 170,000 times in
    a run of the benchmark corpus, a few regular expressions each).
    """
    low = name.lower()
    if low in _PER_REQUEST_IDS:
        return Kind.UNIQUE_ID, Volatility.PER_REQUEST, None, f"the name `{name}` (an id that is new per request)"
    if low in _PER_CONVERSATION_IDS:
        return (Kind.UNIQUE_ID, Volatility.PER_CONVERSATION, None,
                f"the name `{name}` (an id that differs per conversation)")
    if _TIME_NAMES.match(low):
        prec = Precision.DAY if ("date" in low or "today" in low) and "time" not in low else Precision.SUB_DAY
        return Kind.TIMESTAMP, Volatility.PER_REQUEST, prec, f"the name `{name}` (a current date or time)"
    if low in _USER_INPUT_NAMES:
        return Kind.USER_INPUT, Volatility.PER_REQUEST, None, f"the name `{name}` (the user's message)"
    if _RETRIEVED.match(low) and not _RETRIEVAL_FRAME.search(low):
        return Kind.USER_INPUT, Volatility.PER_REQUEST, None, f"the name `{name}` (content retrieved for this turn)"
    if low in _CONFIG_NAMES:
        return Kind.UNKNOWN, Volatility.STABLE, None, f"the name `{name}` (configuration, fixed for a run)"
    if _KNOB.match(low):
        return Kind.UNKNOWN, Volatility.STABLE, None, f"the name `{name}` (a setting, fixed for a run)"
    if _SETUP.match(low):
        return (Kind.UNKNOWN, Volatility.STABLE, None,
                f"the name `{name}` (a setting of the agent or chain, fixed when it is set up)")
    return None


# A bound or a separator, named so (`max_length`, `min_score`, `tuple_delimiter`): a knob of the
# application, not something each request brings (`num_messages`, `history_length` may be).
_KNOB = re.compile(r"^(\w+_)?(max|min)_\w+$|^\w+_(limit|delimiter|separator)$|^top_[kn]$")

# What an agent or a chain is set up with, named so: its own name or description (`agent_name`,
# `role_description`), the SQL dialect it writes, the types of what it extracts and what it may
# use (`entity_types`, `allowed_entity_properties`), the text of its tools (`tools`,
# `tool_descriptions`). Filled once per agent or chain, not by each request; not the task or the
# user (`task_description`, `user_name`: a run's or a user's own).
_SETUP = re.compile(r"^(agent|assistant|bot|ai|persona|role|character|company|organization|org|product|brand|"
                    r"business)_(name|description|desc)$|^(\w+_)?dialect$|^\w+_types$|^allowed_\w+$|"
                    r"^(tools|tool_names|tool_descriptions|tools_description|tool_desc)$")


# A run's configuration, named so (not `config`: LangChain passes a RunnableConfig with each call).
_CONFIG_NAMES = {"global_config", "settings", "cfg", "conf", "app_config", "configuration", "llm_config",
                 "model_config", "agent_config", "project_config", "app_settings"}


PROMPT_ATTR = re.compile(r"(prompt|system|instruction|reminder|preamble)", re.I)


def is_stable_call(qualname: str) -> bool:
    """True for calls that describe the host or configuration (`platform.system()`, `os.getenv`)."""
    return qualname.startswith(STABLE_CALL_PREFIXES)


#: Text constants of SDKs, by qualified name: the turn markers of Anthropic's legacy Text
#: Completions prompts (`f"{HUMAN_PROMPT} {question}{AI_PROMPT}"`), fixed by the SDK.
SDK_TEXTS = {"anthropic.HUMAN_PROMPT": "\n\nHuman:", "anthropic.AI_PROMPT": "\n\nAssistant:"}
