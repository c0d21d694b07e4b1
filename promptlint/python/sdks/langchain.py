"""LangChain and LangGraph: `ChatPromptTemplate.from_messages` / `from_template`, string templates
built in a function (`PromptTemplate(template=T, partial_variables={...})`,
`PromptTemplate.from_template(T)`: one user message), chains (`prompt | llm`, `.partial(...)`)
invoked with values, chat models invoked with messages (also a model of a class not known, given
a list written as message objects), the batch form `generate([[messages...]])` / `agenerate`
(one request per message list), `bind_tools`, and agents built with `create_react_agent` /
`create_agent`."""
from __future__ import annotations

import ast
import dataclasses
import re

from ...model import Kind, Part, Segment, Volatility
from ..flow.values import Obj, Seq, Spread, Text
from ...classify import OBJECT_FACTORIES
from ..layout import MESSAGE_CLASSES, Evaluated
from ..langchain_models import is_chat_model_class
from ..lcel_chains import chain_of, filled_templates
from ..layout_values import variants_of
from .base import Sdk, Shape, http_verb

_INVOKE = {"invoke", "ainvoke", "stream", "astream", "batch", "abatch"}
_RUNS = {"run", "arun", "predict", "apredict"}  # an LLMChain filled by keyword values
_BATCH = {"generate", "agenerate", "batch", "abatch"}  # a list of message lists: one request each
_CHAT_PROVIDERS = {"ChatOpenAI": "openai", "AzureChatOpenAI": "azure-openai", "ChatAnthropic": "anthropic",
                   "ChatGoogleGenerativeAI": "google", "ChatVertexAI": "google", "ChatBedrock": "bedrock",
                   "ChatBedrockConverse": "bedrock", "ChatLiteLLM": "litellm"}


def chat_model(value) -> Obj | None:
    """The chat model object a value stands for (through `.bind_tools(...)` and the like): a
    provider's model built in the code, or one known by its annotation (`model: BaseChatModel`:
    langchain_models.annotated_chat_model)."""
    if isinstance(value, Obj):
        cls = value.qualname.rsplit(".", 1)[-1]
        if is_chat_model_class(cls) or cls == "init_chat_model":  # (a model known by its annotation too)
            return value
        if value.qualname.endswith((".bind_tools", ".with_structured_output", ".bind", ".with_config")) and value.args:
            return chat_model(value.args[0])
    return None


def model_of(b, value, frame) -> tuple[str | None, str | None]:
    """(provider, model) of a chat model object or a model string."""
    if isinstance(value, Obj):
        if value.qualname.endswith(".bind_tools") and value.args:
            return model_of(b, value.args[0], frame)
        cls = value.qualname.rsplit(".", 1)[-1]
        model = b.static_text(value.kwargs.get("model") or value.kwargs.get("model_name")
                              or (value.args[0] if value.args else None), frame)
        return b.provider_for_model(model, _CHAT_PROVIDERS.get(cls))
    if isinstance(value, Text):
        return b.provider_for_model(b.static_text(value, frame), None)
    return None, None


def prompt_template(value) -> tuple[Obj | None, dict]:
    """The ChatPromptTemplate at the head of a chain (`prompt | llm`, `prompt.partial(...)`)."""
    partials: dict = {}
    while isinstance(value, Obj):
        if value.qualname.endswith(("ChatPromptTemplate.from_messages", "ChatPromptTemplate")):
            return (value if value.qualname.endswith("from_messages") else None), partials
        if value.qualname == "chain" and value.args:
            value = value.args[0]
        elif value.qualname.endswith(".partial") and value.args:
            partials.update(value.kwargs)
            value = value.args[0]
        else:
            return None, partials
    return None, partials


def from_messages(b, call) -> None:
    node = call.arg(0, "messages" if call.method == "from_messages" else "template")
    if node is None:
        return
    frame = call.frame
    parts, newest = b.message_parts(b.value(node, frame), frame, template=True)
    b.add(call.node, "python-call", "langchain", "ChatPromptTemplate", None, parts, newest)
    _partials(b, call)


def _is_string_template(qual: str) -> bool:
    """`PromptTemplate(...)` / `PromptTemplate.from_template(...)` (a string prompt, not the chat
    forms: those are `ChatPromptTemplate`)."""
    head = qual.removesuffix(".from_template")
    return head.rsplit(".", 1)[-1] == "PromptTemplate"


def string_template(b, call) -> None:
    """`PromptTemplate(template=TEXT, input_variables=[...], partial_variables={...})` and
    `PromptTemplate.from_template(TEXT, partial_variables={...})`: a string prompt whose
    `{placeholders}` are filled when the chain is invoked (`(prompt | llm).invoke({...})`); piped
    into a chat model it is one user message. The partial variables are bound to their values;
    the other placeholders are template variables filled per call. A Jinja template
    (`template_format="jinja2"`) is read as Jinja (`inline_jinja.jinja_text`: its `{% if %}`
    sections and loops, its `{{ placeholders }}` filled per call but for the partial variables,
    left of unknown value); a mustache one is not read, nor is a template built at module or
    class level: a template object filled where it is used (`TEMPLATE.format(...)`, a prompt
    candidate there), whose placeholders and role say nothing of one call."""
    node = call.arg(0, "template")
    frame = call.frame
    if node is None or getattr(frame, "func", None) is None:
        return  # a template object kept at module or class level: filled where it is used (candidates)
    fmt = call.kwargs.get("template_format")
    fmt = b.static_text(b.value(fmt, frame), frame) if fmt is not None else None
    if fmt not in (None, "f-string", "jinja2"):
        return
    from ..flow.values import Mapping
    partials = b.value(call.kwargs.get("partial_variables"), frame)
    kept = _instance_keys(call.kwargs.get("partial_variables"))
    text = Text(b.ev.text_of(b.value(node, frame), frame))
    own = {id(s) for s in text.segs}  # text joined to the template (`prefix + TEMPLATE`) keeps its volatility
    if fmt == "jinja2":
        from ..inline_jinja import jinja_text
        partial = set(partials.items) if isinstance(partials, Mapping) else set()
        segs = [_per_call([s])[0] if id(s) not in own and s.kind is Kind.TEMPLATE_VARIABLE
                and _root(s.expr) not in partial else s for s in jinja_text(text.segs)]
        b.add(call.node, "python-call", "langchain", "PromptTemplate", None, [Part("user", segs, span=b.span_of(node))], None)
        return
    bindings = {key: value if key in kept else Text(_per_call(b.ev.text_of(value, frame)))
                for key, value in (partials.items.items() if isinstance(partials, Mapping) else ())}
    segs = b.ev.format_text(text, [], bindings, frame, None, keep_unbound=True).segs
    segs = [_per_call([s])[0] if id(s) not in own and s.kind is Kind.TEMPLATE_VARIABLE else s for s in segs]
    part = Part("user", segs, span=b.span_of(node))
    b.add(call.node, "python-call", "langchain", "PromptTemplate", None, [part], None)


def _root(expr: str) -> str:
    """The first name of a Jinja placeholder's expression (`tools | join(", ")` -> tools; a loop
    section's `for t in tools` -> tools)."""
    m = re.match(r"\s*(?:for\s+[\w\s,()]+?\s+in\s+)?([A-Za-z_]\w*)", expr)  # a loop: what it iterates
    return m.group(1) if m else ""


def _per_call(segs: list) -> list:
    """What a placeholder receives when the prompt is built or invoked for a call is that call's
    input: new per call unless its value says otherwise."""
    from dataclasses import replace
    return [replace(s, volatility=Volatility.PER_REQUEST, evidence=s.evidence or "filled when the prompt is invoked")
            if not s.is_static and s.volatility is Volatility.UNKNOWN else s for s in segs]


def _instance_keys(node) -> set:
    """The keys of a `partial_variables={...}` display bound to an attribute of the instance
    (`"library": self.library`): set when the object was built, not per call."""
    import ast
    if not isinstance(node, ast.Dict):
        return set()
    return {k.value for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant)
            and isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id == "self"}


def agent(b, call) -> None:
    frame = call.frame
    node = call.kwargs.get("prompt") or call.kwargs.get("system_prompt")
    history = Part("history", [Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr="agent state messages",
                                       span=b.m.span(call.node))])
    # `create_react_agent(model, tools, *, prompt=...)`
    prov, model, head = _agent_head(b, node, call.arg(1, "tools"), call.arg(0, "model"), frame)
    b.add(call.node, "python-call", prov, "langgraph.create_react_agent", model, head + [history], None)


def _agent_head(b, prompt, tools, model, frame) -> tuple[str | None, str | None, list[Part]]:
    """(provider, model, [tools, system]) of a LangGraph agent: its tools, then its prompt as the
    system message, which the agent puts before the state's messages on every model call
    (https://langchain-ai.github.io/langgraph/reference/prebuilt/: "prompt: An optional prompt for
    the LLM ... str: This is converted to a SystemMessage and added to the beginning of the list of
    messages in state["messages"]"; "tools: A list of tools or a ToolNode instance").
    The arguments are nodes or `Evaluated` values; `prompt` None for an agent given none."""
    value = b.value(prompt, frame)
    if prompt is None:
        parts = []
    elif isinstance(value, Obj) and value.qualname.rsplit(".", 1)[-1] in MESSAGE_CLASSES:
        parts, _ = b.message_parts(Seq([value]), frame)
    else:
        parts = [b.part("system", value, frame, b.span_of(prompt))]
    prov, name = model_of(b, b.value(model, frame), frame)
    return prov, name, b.tools(tools, frame) + parts


#: Providers with opt-in caching (breakpoints) whose LangChain chat models are judged at the model.
_MARKED_AT_MODEL = ("anthropic", "bedrock")


def agents_of(value) -> list[Obj]:
    """The LangGraph / LangChain agents a value stands for: the objects `create_react_agent(...)`
    / `create_agent(...)` return (classify.OBJECT_FACTORIES), built here or returned by a factory
    function of the project (one per variant of a factory that builds it in branches)."""
    return [v for v in variants_of(value) if isinstance(v, Obj) and v.qualname in OBJECT_FACTORIES
            and not _text_agent(v.qualname)]


def agent_invoke(b, call, agents: list[Obj]) -> None:
    """`agent.invoke({"messages": history + [message]})` on an agent built with a prompt and tools
    (`agents_of`): the request the agent sends first, its tools and prompt, then the messages the
    call hands it (the state's messages: `agent.invoke({"messages": [{"role": "user", ...}]})`,
    https://langchain-ai.github.io/langgraph/agents/agents/), read as
    a chat request's messages, so a history cut or edited before the call is judged as in a direct
    call. One layout per agent the receiver may be; none for an input of another shape."""
    from ..flow.values import Mapping
    frame = call.frame
    value = b.value(call.arg(0, "input"), frame)
    if not isinstance(value, Mapping) or value.repeated or "messages" not in value.items:
        return
    messages = value.items["messages"]
    if not isinstance(messages, Seq) or messages.repeated and not messages.items:
        return
    for obj in agents[:3]:
        def arg(index, *names):
            found = next((obj.kwargs[n] for n in names if n in obj.kwargs), None)
            if found is None and 0 <= index < len(obj.args):
                found = obj.args[index]
            return None if found is None else Evaluated(found, getattr(found, "span", None) or obj.span,
                                                        names[0])
        prompt = arg(-1, "prompt", "system_prompt")  # (keyword-only)
        tools = arg(1, "tools")
        prov, model, head = _agent_head(b, prompt, tools, arg(0, "model"), frame)
        opened = b.opening(messages, frame, b.m.span(call.node), "the agent's steps (its replies and tool results)") \
            if _loops(b, tools, frame) else None
        parts, newest = opened or b.message_parts(messages, frame)
        if prov in _MARKED_AT_MODEL:
            # whether the agent's Claude model marks its requests is judged where the model is
            # built (python/langchain_models.py), once for every agent and call that uses it
            prov, model = None, None
        b.add(call.node, "python-call", prov, "langgraph.agent.invoke", model, head + parts,
              None if newest is None else newest + len(head))


def _loops(b, tools, frame) -> bool:
    """True when an agent is given tools (a list not known to be empty, a ToolNode): it runs a
    loop of requests, each step appending the model's reply and the tool results to the messages
    it was run with."""
    if tools is None:
        return False
    value = b.value(tools, frame)
    return not (isinstance(value, Seq) and not value.repeated and not value.items)


def _text_agent(qual: str) -> bool:
    """True for LangChain's legacy ReAct agent (`langchain.agents.create_react_agent(llm, tools,
    prompt)`, `langchain_classic.agents...`): its prompt is one text template (`{tools}`,
    `{input}`, `{agent_scratchpad}`) that the `PromptTemplate` candidate already lays out, not a
    system prompt followed by the agent state's messages as LangGraph's agent and LangChain 1's
    `create_agent` send."""
    return qual.endswith("create_react_agent") and qual.split(".", 1)[0] in ("langchain", "langchain_classic")


def bind_tools(b, call) -> None:
    frame = call.frame
    model = chat_model(b.value(call.node.func.value, frame))
    if model is None:
        return
    prov, name = model_of(b, model, frame)
    b.add(call.node, "python-call", prov, "langchain.bind_tools", name, b.tools(call.args[0], frame), None)


def _message_objects(value) -> bool:
    """True for a list written as message objects (`[SystemMessage(content=...),
    UserMessage(content=...)]`, one message class per item, a system or user message among them):
    what a chat model is invoked with, whatever the model is. A list spread among them (`[*history,
    HumanMessage(content=q)]`, `history + [HumanMessage(...)]`) is the replayed conversation."""
    if not isinstance(value, Seq) or value.repeated or not value.items:
        return False
    roles = []
    for item in value.items:
        if isinstance(item, Spread):
            continue
        for option in variants_of(item):  # a message chosen by a condition: each variant is one
            cls = option.qualname.rsplit(".", 1)[-1].removeprefix("instance:") if isinstance(option, Obj) else ""
            if cls not in MESSAGE_CLASSES or cls.endswith("PromptTemplate"):
                return False
            roles.append(MESSAGE_CLASSES[cls])
    return any(r in ("system", "user") for r in roles)


#: Characters of static text that make a text handed to `.invoke` a prompt written in the code
#: (instructions around values), not one input value of a runnable (a question, a search query).
_PROMPT_CHARS = 200


def _written_prompt(value: Text) -> bool:
    """True when `value` holds at least `_PROMPT_CHARS` characters of static text."""
    return sum(len(s.text) for s in value.segs if s.is_static) >= _PROMPT_CHARS


def invoke(b, call) -> None:
    frame = call.frame
    if call.method in _BATCH and batch(b, call):
        return
    base = b.value(call.node.func.value, frame)
    agents = agents_of(base)
    if agents:
        agent_invoke(b, call, agents)
        return
    template, partials = prompt_template(base)
    if template is not None:
        _chain(b, call, base, template, partials)
        return
    if filled_chain(b, call, base):
        return
    model = chat_model(base)
    value = b.value(call.args[0], frame)
    if model is None:
        if _message_objects(value):
            # a model not known (a parameter, an application's own client) invoked with messages
            # written as message objects at the call: the list is the evidence of a chat request
            parts, newest = b.message_parts(value, frame)
            b.add(call.node, "python-call", None, "chat.invoke", None, parts, newest)
        elif isinstance(value, Text) and _written_prompt(value):
            # a model not known invoked with a prompt written in the code: the text is the whole
            # request, one user message (a bare value, `retriever.invoke(question)`, is any runnable's input)
            parts, newest = [b.part("user", value, frame, b.m.span(call.args[0]))], 0
            b.add(call.node, "python-call", None, "chat.invoke", None, parts, newest)
        return
    prov, name = model_of(b, model, frame)
    if isinstance(value, Seq):
        parts, newest = b.message_parts(value, frame)
    elif isinstance(value, Text):
        parts, newest = [b.part("user", value, frame, b.m.span(call.args[0]))], 0
    else:
        return
    b.add(call.node, "python-call", prov, "langchain.invoke", name, parts, newest)


def batch(b, call) -> bool:
    """`model.generate([[*history, HumanMessage(content=q)]])` (also `agenerate`, and `batch` /
    `abatch` given message lists): LangChain's batch form, a list of message lists, each one
    request. Of a model not known (a provider class picked at run time, a parameter), only a list
    written as message objects at the call (`_message_objects`) is the evidence of a chat request;
    a list of strings (a completion model's prompts) is none. One layout per request, at the call
    (at its list when the call sends several). True when the value is a list of lists (read here,
    whatever was found in it)."""
    frame = call.frame
    value = b.value(call.arg(0, "messages"), frame)
    if not (isinstance(value, Seq) and not value.repeated and value.items
            and all(isinstance(i, Seq) for i in value.items)):
        return False
    model = chat_model(b.value(call.node.func.value, frame))
    prov, name = model_of(b, model, frame) if model is not None else (None, None)
    api = f"{'langchain' if model is not None else 'chat'}.{call.method.removeprefix('a')}"
    sent = [i for i in value.items if (model is not None and i.items) or _message_objects(i)]
    for item in sent:
        parts, newest = b.message_parts(item, frame)
        b.add(call.node, "python-call", prov, api, name, parts, newest,
              span=item.span if len(sent) > 1 and item.span is not None else None)
    return True


def _lists_display(node) -> bool:
    """True for a list display whose items may each be a message list: list displays, joins
    (`history + [HumanMessage(...)]`) or names (not strings, dicts or calls: prompts of a
    completion model, or requests of another API)."""
    return isinstance(node, ast.List) and bool(node.elts) and all(
        isinstance(e, (ast.List, ast.Name, ast.Attribute)) or isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add)
        for e in node.elts)


def _partials_of(value) -> list:
    """The `.partial(...)` calls on the way from a chain to its prompt template (Obj values)."""
    out = []
    while isinstance(value, Obj):
        if value.qualname == "chain" and value.args:
            value = value.args[0]
        elif value.qualname.endswith(".partial") and value.args:
            out.append(value)
            value = value.args[0]
        else:
            break
    return out


def _partials(b, call) -> None:
    """`base.partial(time=now, tools=text)` of the chat template `call` builds, bound to a name in
    the same function (`base = ChatPromptTemplate.from_messages(...)`): the template's messages
    with those values at their placeholders, the others left to the call that fills them, drawn
    at each `.partial(...)` call of that name. Where the result is invoked is not always in view
    (a chain returned, a branch of a router), and the values bound there are in every request
    made of it. Each supersedes the template's own layout (and an invoke of the chain, when one
    is in view, supersedes it)."""
    func = getattr(call.frame, "func", None)
    if func is None:
        return
    names = {t.id for n in ast.walk(func) if isinstance(n, ast.Assign) and n.value is call.node
             for t in n.targets if isinstance(t, ast.Name)}
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "partial" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in names \
                and node.keywords and not node.args:
            base = b.value(node, call.frame)
            template, partials = prompt_template(base)
            if template is not None and partials:
                _chain(b, dataclasses.replace(call, node=node), base, template, partials, {},
                       api="ChatPromptTemplate.partial")


def _chain(b, call, chain, template: Obj, partials: dict, values: dict | None = None,
           api: str = "langchain.invoke") -> None:
    """`(prompt | llm).invoke({...})`: the prompt template's messages with the values bound
    (`values`: the invoke's, already read)."""
    from ..flow.values import Mapping
    frame = call.frame
    value = Mapping(values) if values is not None else b.value(call.args[0], frame)
    bindings = dict(partials)
    if isinstance(value, Mapping):
        bindings.update(value.items)
    messages = template.args[1] if len(template.args) > 1 else None
    if messages is None:
        return
    b.bindings = bindings
    try:
        parts, newest = b.message_parts(messages, frame, template=True)
    finally:
        b.bindings = {}
    parts_of = chain_of(chain)
    model = next((m for m in (chat_model(r) for r in parts_of.rest) if m is not None), None) if parts_of else None
    prov, name = model_of(b, model, frame) if model is not None else (None, None)
    layout = b.add(call.node, "python-call", prov or "langchain", api, name, parts, newest)
    for made in (template, *_partials_of(chain)):  # (built in this module or another: a helper's return)
        if made.span is not None and made is not chain:
            layout.supersedes.append(f"{made.span.filename}:{made.span.start.row}")


def _run(b, call) -> None:
    filled_chain(b, call, b.value(call.node.func.value, call.frame))


def filled_chain(b, call, base) -> bool:
    """`chain.invoke({...})` (also `ainvoke`, `stream`, `batch` of one input, and an LLMChain's
    `run(**values)` / `predict(**values)`) of a chain whose head is a string prompt template
    (`prompt | llm`, `RunnableSequence(prompt, llm)`, `LLMChain(prompt=prompt, llm=llm)`; the
    template built anywhere in the tree, also returned by a helper that picks it by name): the
    template's text with the invoke's values at their placeholders, one user message; it
    supersedes the template's own layout. The keys pick the template among several a helper
    may return (lcel_chains.filled_templates); none or several picked: not drawn here (the
    template's own layout stands). A bound value keeps its volatility; a placeholder left
    unbound is filled per call. True when drawn."""
    from ..flow.values import Mapping
    chain = chain_of(base)
    if chain is None:
        return False
    frame = call.frame
    if call.method in _RUNS:
        if call.args or call.unread:
            return False
        values = {k: b.value(v, frame) for k, v in call.kwargs.items() if k is not None}
    else:
        value = b.value(call.args[0], frame) if call.args else None
        if not isinstance(value, Mapping) or value.open or value.repeated:
            return False
        values = dict(value.items)
    found = filled_templates(chain.head, set(values), chain.partials)
    if len(found) != 1:
        return False
    template = found[0]
    if isinstance(template, Obj):  # a chat template (`ChatPromptTemplate.from_messages`) the head may be
        _chain(b, call, base, template, chain.partials, values)
        return True
    own = {id(s) for s in template.segs}
    bindings = {**template.partials, **chain.partials, **values}
    segs = b.ev.format_text(Text(template.segs), [], bindings, frame, None, keep_unbound=True).segs
    segs = [_per_call([s])[0] if id(s) not in own and s.kind is Kind.TEMPLATE_VARIABLE else s for s in segs]
    model = next((m for m in (chat_model(r) for r in chain.rest) if m is not None), None)
    prov, name = model_of(b, model, frame) if model is not None else (None, None)
    layout = b.add(call.node, "python-call", prov or "langchain", "langchain.invoke", name,
                   [Part("user", segs, span=template.site)], None)
    if template.site is not None:
        layout.supersedes.append(f"{template.site.filename}:{template.site.start.row}")
    return True


_IMPORTS = ("langchain", "langchain_core", "langchain_openai", "langchain_anthropic", "langgraph")

SDK = Sdk(
    name="langchain",
    imports=_IMPORTS,
    methods=("generate", "agenerate", "stream", "astream"),  # a model's batch form and streams, in a file importing it
    hints=("PromptTemplate", "SystemMessage", "create_react_agent", "create_agent", ".invoke(", ".ainvoke(",
           "bind_tools"),
    shapes=(
        Shape("ChatPromptTemplate", ("from_messages", "from_template"), lambda c: c.qual.endswith(("ChatPromptTemplate.from_messages",
                                                                "ChatPromptTemplate.from_template")) and c.imported_from(_IMPORTS), from_messages),
        Shape("PromptTemplate", ("PromptTemplate", "from_template"), lambda c: _is_string_template(c.qual)
              and c.imported_from(_IMPORTS), string_template),
        Shape("create_react_agent", ("create_react_agent", "create_agent"), lambda c: c.qual.endswith(("create_react_agent", "create_agent"))
              and not _text_agent(c.qual) and c.has("prompt", "system_prompt") and c.imported_from(_IMPORTS), agent),
        Shape("bind_tools", ("bind_tools",), lambda c: c.method == "bind_tools" and bool(c.args), bind_tools),
        Shape("invoke", tuple(sorted(_INVOKE)), lambda c: c.method in _INVOKE and bool(c.args) and http_verb(c) is None,
              invoke),
        Shape("run", tuple(sorted(_RUNS)), lambda c: c.method in _RUNS and bool(c.kwargs) and not c.args
              and http_verb(c) is None, _run, final=False, needs_layout=True),  # (`.run(...)` of anything else)
        Shape("generate", ("agenerate", "generate"), lambda c: c.method in ("generate", "agenerate")
              and _lists_display(c.arg(0, "messages")), batch),
    ),
)
