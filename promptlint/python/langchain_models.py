"""LangChain's Anthropic chat model in a package that never sets a cache breakpoint but runs
tool-calling agents: a fact for PRM302 (the rule judges it).

`ChatAnthropic(...)` sends a request with a cache breakpoint only where a message's content block
or the call carries a `cache_control`; Anthropic caches nothing without one. In a package tree where
no Python file names a breakpoint key (`cache_control`, `cachePoint`: `tree.marker_files`), none
of its requests carries one, and where a file of the tree builds a tool-calling agent or binds
tools to a model (`create_react_agent(model, tools)`, `model.bind_tools(tools)`,
`create_tool_calling_agent`, `AgentExecutor`, `create_agent`), every step of such an agent sends
the tool definitions, the system prompt and the growing conversation again: with this model, each
step pays the full input price for all of it. A model of a package with no agent (one-shot
prompts, maybe short) is not reported: its loss is not shown. A file that names a breakpoint key
only in functions that send a request of their own (an evaluator's one-shot call marked for
itself: python/own_marks.py) sets none on this model's requests, and does not count. The model is
built where `ChatAnthropic(...)` is called or, in a module that calls no constructor of it, where
its class is kept as a value to be built through a name (`{ChatOpenAI: {...}, ChatAnthropic:
{...}}`, then `model_class(**args)`).

`uncached_chats`: a Claude chat model built in a module whose prompt template replays a
conversation (`MessagesPlaceholder(...)`, `("placeholder", "{chat_history}")`), in a package tree
with no agent and no breakpoint key: every turn re-sends the system prompt and the growing
conversation, none of it cached. A Claude chat model is `ChatAnthropic(...)` or LangChain's
`init_chat_model(...)` on Anthropic: `model_provider="anthropic"`, a model `"anthropic:..."` or
`"claude-..."`, or a provider the module compares with `"anthropic"` (`model_provider=
self.config.provider` where the module tests `self.config.provider == "anthropic"`: a Claude model
is one of the configurations it expects).

`runtime_models`: `init_chat_model(...)` whose model is chosen at run time (a model that is no
string written there, or `configurable_fields` that name the model) with no provider written
there, in a package whose code writes Claude model names (`"anthropic:claude-3-7-sonnet-latest"`
as a configuration default; not a docstring's example) and no file names a breakpoint key: Claude is one of the models the
package expects, and on it the requests of that model carry no breakpoint. Only in a module that
runs the agent itself (binds tools, `model.bind_tools(tools)`, or builds a tool-calling agent of
LangChain or LangGraph) or whose template replays the conversation: a model made for one-shot
prompts (a summariser beside the agent) re-sends no conversation.

`annotated_chat_model`: the chat model an annotation names (`model: BaseChatModel`, `llm:
Optional[ChatOpenAI]`, `Runnable[LanguageModelInput, BaseMessage]`; LlamaIndex's `llm: LLM` too):
the one table of what a chat model of LangChain (or an LLM of LlamaIndex) is by its type, read by the evaluator for a parameter or attribute whose value
it cannot read, so that `.invoke(messages)` on it is a request (sdks/langchain.py `chat_model`).
"""
from __future__ import annotations

import ast

from .own_marks import marks_reach
from .parsing import ParseError
from .packages import CLAUDE_NAME
from .tree_search import OverBudget
from .walk import subtree

#: The LangChain chat models of Anthropic's Messages API (langchain_anthropic, and Claude on
#: Vertex AI through langchain_google_vertexai): their requests carry a breakpoint only where the
#: messages or the call set one.
_MODELS = ("langchain_anthropic.ChatAnthropic", "langchain_anthropic.chat_models.ChatAnthropic",
           "langchain_google_vertexai.model_garden.ChatAnthropicVertex", "langchain_google_vertexai.ChatAnthropicVertex",
           "langchain_community.chat_models.ChatAnthropic",
           # LlamaIndex's Claude model: a breakpoint only where a message's `additional_kwargs` carry one
           "llama_index.llms.anthropic.Anthropic", "llama_index.llms.anthropic.base.Anthropic")
#: LlamaIndex's tool-calling agents (built with their constructor or `.from_tools(...)`).
_LLAMA_AGENTS = ("ReActAgent", "ReActAgentWorker", "FunctionCallingAgent", "FunctionCallingAgentWorker",
                 "FunctionAgent", "AgentWorkflow", "StructuredPlannerAgent")
#: Calls that build a tool-calling agent loop, or bind tools to a chat model for one.
AGENT_CALLS = ("create_react_agent", "bind_tools", "create_tool_calling_agent", "AgentExecutor", "create_agent")


#: LangChain's chat model factory, which builds the provider's model class (`ChatAnthropic` for
#: `model_provider="anthropic"`).
_INIT = ("langchain.chat_models.init_chat_model", "langchain.chat_models.base.init_chat_model")
_PROVIDERS = ("anthropic", "google_anthropic_vertex")


#: The classes of LangChain a chat model may be annotated as without naming its provider: a
#: request through any of them is a chat model's (`model: BaseChatModel`, `llm: BaseLanguageModel`,
#: `LanguageModelLike`). A provider's own class (`ChatOpenAI`, `AzureChatOpenAI`: a name that starts
#: with `Chat` / `AzureChat`) says its provider too (sdks/langchain.py `_CHAT_PROVIDERS`).
TYPED_BASES = frozenset({"BaseChatModel", "BaseLanguageModel", "SimpleChatModel", "LanguageModelLike"})
#: LlamaIndex's LLM bases a model may be annotated as (`llm: LLM`, `FunctionCallingLLM`).
_LLAMA_TYPED = frozenset({"LLM", "FunctionCallingLLM", "BaseLLM", "CustomLLM"})
#: What a `Runnable[LanguageModelInput, BaseMessage]` (a model with tools bound) stands for: a chat model.
TYPED_MODEL = "langchain_core.language_models.BaseChatModel"
#: The output types of a runnable that is a chat model (`Runnable[LanguageModelInput, BaseMessage]`).
_MESSAGE_OUTPUTS = ("BaseMessage", "AIMessage", "BaseMessageChunk", "AIMessageChunk")


def is_chat_model_class(name: str) -> bool:
    """True when the class name `name` (the last part of a dotted name) is one of LangChain's chat
    model classes: a provider's (`ChatOpenAI`, `AzureChatOpenAI`) or a base of them (`TYPED_BASES`)."""
    return name.startswith(("Chat", "AzureChat")) or name in TYPED_BASES


def annotated_chat_model(module, ann) -> str | None:
    """The dotted name of the LangChain chat model class an annotation names (a parameter `model:
    BaseChatModel`, a field `llm: Optional[ChatOpenAI] = None`, `self.llm: BaseLanguageModel`),
    imported from a `langchain*` package: the provider's class (`langchain_openai.ChatOpenAI`) or,
    for a base class, a union of several providers' classes or a runnable of a chat model
    (`Runnable[LanguageModelInput, BaseMessage]`), `TYPED_MODEL`; None for any other annotation. A
    union is a chat model when one of its members is and the others are None or a string (a model
    name the code turns into a model: `model: str | BaseChatModel`)."""
    members = _members(ann)
    found = []
    for member in members:
        if isinstance(member, ast.Constant) and member.value is None \
                or isinstance(member, ast.Name) and member.id in ("str", "None"):
            continue
        qual = _chat_class(module, member)
        if qual is None:
            return None
        found.append(qual)
    if not found:
        return None
    return found[0] if len(found) == 1 and found[0].rsplit(".", 1)[-1] not in TYPED_BASES else TYPED_MODEL


def _members(ann) -> list:
    """The members of a union annotation (`Optional[X]`, `Union[X, Y]`, `X | None`, `"X"`), or
    `[ann]`."""
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            ann = ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return [ann]
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        return _members(ann.left) + _members(ann.right)
    if isinstance(ann, ast.Subscript) and _last(ann.value) in ("Optional", "Union"):
        inner = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        return [m for i in inner for m in _members(i)]
    return [ann]


def _last(node) -> str | None:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None


def _chat_class(module, node) -> str | None:
    """The dotted name of the LangChain chat model class `node` names (a runnable of a chat model:
    `TYPED_MODEL`), else None."""
    if isinstance(node, ast.Subscript):
        args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        qual = module.qualified_name(node.value) or ""
        if qual.startswith("langchain") and qual.rsplit(".", 1)[-1] == "Runnable" and len(args) == 2 \
                and (_last(args[0]) == "LanguageModelInput" or _last(args[1]) in _MESSAGE_OUTPUTS):
            return TYPED_MODEL
        return None
    if not isinstance(node, (ast.Name, ast.Attribute)):
        return None
    qual = module.qualified_name(node) or ""
    if qual.startswith("llama_index") and qual.rsplit(".", 1)[-1] in _LLAMA_TYPED:
        return qual  # LlamaIndex's LLM base (`llm: LLM`): its `.chat(...)` / `.complete(...)` send (sdks/llama_index_llms.py)
    return qual if qual.startswith("langchain") and is_chat_model_class(qual.rsplit(".", 1)[-1]) else None


def might_build(source: str) -> bool:
    """Cheap test of a module's text: it names an Anthropic chat model of LangChain, or the factory."""
    return "ChatAnthropic" in source or "init_chat_model" in source or "llama_index.llms.anthropic" in source


def runtime_models(module, project) -> list[ast.Call]:
    """The `init_chat_model(...)` calls of `module` whose model is chosen at run time (module
    docstring), when a file of the package writes a Claude model name, no breakpoint the tree names
    may reach the module's requests (`own_marks.marks_reach`), and the tree runs agents or the
    module replays a conversation; [] otherwise."""
    calls = [n for n in subtree(module.tree) if isinstance(n, ast.Call)
             and (module.qualified_name(n.func) or "") in _INIT and _chosen_at_run_time(n)]
    if not calls or marks_reach(module, project) or not (replays(module) or _runs_agent_here(module)):
        return []
    return calls if any(claude_in_code(module, project, path) for path in project.claude_files(module.path)) else []


def claude_in_code(module, project, path) -> bool:
    """True when the file at `path` writes a Claude model name in a string of its code, not in a
    docstring or other bare string (`>>> ChatAnthropic(model="claude-3-5-haiku-latest")` in an
    example shows what a caller may pass, not what the package runs)."""
    try:
        other = module if path == module.path else project.load(path)
    except (ParseError, OverBudget):
        return False
    bare = {id(n.value) for n in subtree(other.tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    return any(isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in bare
               and CLAUDE_NAME.search(repr(n.value)) for n in subtree(other.tree))


def _runs_agent_here(module) -> bool:
    """True when `module` binds tools to a model (`x.bind_tools(...)`) or calls one of the other
    `AGENT_CALLS` imported from LangChain or LangGraph."""
    imported = {v.rsplit(".", 1)[-1] for v in module.imports.values() if v.split(".")[0] in ("langchain", "langgraph")}
    for n in subtree(module.tree):
        if isinstance(n, ast.Call):
            name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", None)
            if name == "bind_tools" or name in AGENT_CALLS and name in imported:
                return True
    return False


def _chosen_at_run_time(call: ast.Call) -> bool:
    """True when `init_chat_model(...)` names no provider and its model is no string written
    there: a name, an attribute or a call (`init_chat_model(model=supervisor_model)`), or no model
    with `configurable_fields` that hold "model" (each call picks it through its configuration)."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    if "model_provider" in keywords:
        return False
    model = keywords.get("model", call.args[0] if call.args else None)
    if model is not None:
        return not isinstance(model, ast.Constant)
    fields = keywords.get("configurable_fields")
    if isinstance(fields, ast.Constant):
        return fields.value == "any"
    return isinstance(fields, (ast.Tuple, ast.List)) and any(
        isinstance(e, ast.Constant) and e.value == "model" for e in fields.elts)


def uncached_models(module, project) -> list[ast.Call]:
    """The Claude chat models of `module` (`claude_models`) when no breakpoint its package tree
    names may reach them (`own_marks.marks_reach`) and a file of the tree calls one of
    `AGENT_CALLS`; [] otherwise."""
    calls = claude_models(module)
    if not calls or marks_reach(module, project) or not runs_agents(module, project):
        return []
    return calls


def uncached_chats(module, project) -> list[ast.Call]:
    """The Claude chat model calls of `module` when the module's prompt template replays a
    conversation, no breakpoint its package tree names may reach them (`own_marks.marks_reach`)
    and no file of the tree runs an agent (that is
    `uncached_models`); [] otherwise."""
    calls = claude_models(module)
    if not calls or not replays(module) or marks_reach(module, project) or runs_agents(module, project):
        return []
    return calls


def runs_agents(module, project) -> bool:
    """True when a file of the package tree binds tools to a model (`x.bind_tools(...)`) or calls
    one of the other `AGENT_CALLS` imported from LangChain or LangGraph (`from langgraph.prebuilt
    import create_react_agent`; not a factory of the package's own named `create_agent`), or
    builds one of LlamaIndex's tool-calling agents (`_LLAMA_AGENTS`, imported from `llama_index`:
    `ReActAgentWorker.from_tools(tools, llm=llm)`)."""
    for name in AGENT_CALLS:
        for path in project.calling_files(module.path, name):
            if name == "bind_tools":
                return True
            try:
                other = module if path == module.path else project.load(path)
            except (ParseError, OverBudget):  # (a file that cannot be read or parsed, or past the budget: not known)
                continue
            if any(v.split(".")[0] in ("langchain", "langgraph") and v.rsplit(".", 1)[-1] == name
                   for v in other.imports.values()) or _imported_inside(other, name):
                return True
    for name in (*_LLAMA_AGENTS, "from_tools"):  # LlamaIndex's agents: `ReActAgentWorker.from_tools(tools, llm=...)`
        for path in project.calling_files(module.path, name):
            try:
                other = module if path == module.path else project.load(path)
            except (ParseError, OverBudget):
                continue
            if any(v.split(".")[0] == "llama_index" and v.rsplit(".", 1)[-1] in _LLAMA_AGENTS
                   for v in other.imports.values()):
                return True
    return False


def _imported_inside(module, name: str) -> bool:
    """True when a function of `module` imports `name` from LangChain or LangGraph itself
    (`def run(self): from langchain.agents import create_agent`): `Module.imports` holds the
    module's own imports only."""
    return any(isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] in ("langchain", "langgraph")
               and any(a.name == name for a in n.names) for n in subtree(module.tree))


def claude_models(module) -> list[ast.expr]:
    """The calls of `module` that build a Claude chat model of LangChain: the constructors of
    `_MODELS` (resolved through the imports), and `init_chat_model(...)` on Anthropic (module
    docstring); in a module that calls no constructor of `_MODELS`, the classes of `_MODELS` it
    keeps as values to build later (`kept_classes`)."""
    out = []
    compared = None
    built = False
    for n in subtree(module.tree):
        if not isinstance(n, ast.Call):
            continue
        name = module.qualified_name(n.func) or ""
        if name in _MODELS:
            out.append(n)
            built = True
        elif name in _INIT:
            if compared is None:
                compared = _compared_with_anthropic(module)
            if _on_anthropic(n, compared):
                out.append(n)
    return out if built else out + kept_classes(module)


def kept_classes(module) -> list[ast.expr]:
    """The references to a class of `_MODELS` that `module` keeps as a value, to build the model
    through a name later: a key or value of a dict display (`{ChatOpenAI: {...}, ChatAnthropic:
    {...}}` then `model_class(**args)`), the value assigned or returned (`cls = ChatAnthropic`),
    or an element of a tuple or list so kept (`("anthropic", ChatAnthropic)`); the first place of
    each class. Not a class tested (`isinstance(model, ChatAnthropic)`), annotated or subclassed:
    those build nothing."""
    held = []
    for n in subtree(module.tree):
        if isinstance(n, ast.Dict):
            held.extend(k for k in n.keys if k is not None)
            held.extend(n.values)
        elif isinstance(n, (ast.Assign, ast.Return)) and n.value is not None:
            held.append(n.value)
    out = {}
    for value in held:
        for ref in (value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value]):
            name = module.qualified_name(ref) or "" if isinstance(ref, (ast.Name, ast.Attribute)) else ""
            if name in _MODELS and (name not in out or (ref.lineno, ref.col_offset) < (out[name].lineno, out[name].col_offset)):
                out[name] = ref  # (one per class: its first place, where the table names it)
    return list(out.values())


def _on_anthropic(call: ast.Call, compared: set[str]) -> bool:
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    model = keywords.get("model", call.args[0] if call.args else None)
    if isinstance(model, ast.Constant) and isinstance(model.value, str) \
            and (model.value.startswith("anthropic:") or model.value.startswith("claude")):
        return True
    provider = keywords.get("model_provider")
    if isinstance(provider, ast.Constant):
        return provider.value in _PROVIDERS
    return provider is not None and ast.unparse(provider) in compared


def _compared_with_anthropic(module) -> set[str]:
    """The expressions (as source text) the module compares with `"anthropic"` (`==`, `in (...)`)."""
    out = set()
    for n in subtree(module.tree):
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Eq, ast.In)):
            right = n.comparators[0]
            values = right.elts if isinstance(right, (ast.Tuple, ast.List, ast.Set)) else [right]
            if any(isinstance(v, ast.Constant) and v.value in _PROVIDERS for v in values):
                out.add(ast.unparse(n.left))
    return out


#: LangChain's message classes of a user's turn and of the model's.
_TURN_CLASSES = frozenset({"HumanMessage", "AIMessage", "AIMessageChunk", "ToolMessage"})


def replays(module) -> bool:
    """True when a prompt template of the module replays a conversation: a `MessagesPlaceholder(...)`
    or a `("placeholder", "{name}")` message; or when the module keeps a conversation of LangChain
    messages itself (`kept_conversation`)."""
    if kept_conversation(module):
        return True
    for n in subtree(module.tree):
        if isinstance(n, ast.Call) and (getattr(n.func, "id", None) or getattr(n.func, "attr", None)) \
                == "MessagesPlaceholder":
            return True
        if isinstance(n, ast.Tuple) and len(n.elts) == 2 and all(isinstance(e, ast.Constant) for e in n.elts) \
                and n.elts[0].value == "placeholder":
            return True
    return False


def kept_conversation(module) -> bool:
    """True when a loop of the module grows one list turn by turn: it appends a LangChain message
    of the user's turn (`messages.append(HumanMessage(content=text))`) and, in the same loop, the
    model's reply or another message (`messages.append(response)`, `AIMessage(...)`): every pass
    sends the whole conversation again. A loop that appends only `HumanMessage(...)` builds one
    request's messages (a batch of documents), not a conversation."""
    if "HumanMessage" not in module.source:
        return False
    for loop in subtree(module.tree):
        if not isinstance(loop, (ast.While, ast.For, ast.AsyncFor)):
            continue
        human, other = set(), set()
        for n in subtree(loop):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append" \
                    and len(n.args) == 1 and isinstance(n.func.value, ast.Name):
                arg = n.args[0]
                called = arg.func.id if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) else None
                if called == "HumanMessage":
                    human.add(n.func.value.id)
                elif called is None or called in _TURN_CLASSES:
                    other.add(n.func.value.id)  # (the reply: a name, a method's result, a message of the model's)
        if human & other:
            return True
    return False
