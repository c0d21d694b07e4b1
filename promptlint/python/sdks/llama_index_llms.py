"""LlamaIndex's LLM classes called directly (`llama_index.llms.openai.OpenAI`, `...anthropic.Anthropic`,
`...bedrock_converse.BedrockConverse`, a model annotated as `llama_index.core.llms.LLM`, or
`Settings.llm`): the request each call sends.

Facts, from LlamaIndex's documentation (https://developers.llamaindex.ai/python/framework/module_guides/models/llms/
and the `LLM` API reference): `llm.chat(messages)` sends a list of `ChatMessage(role=..., content=...)`
as the chat request (`achat`, `stream_chat`, `astream_chat` too); `llm.complete(prompt)` sends the
prompt text (a chat model receives it as one user message; `acomplete`, `stream_complete`,
`astream_complete` too); `llm.predict(prompt, **kwargs)` and `llm.structured_predict(output_cls,
prompt, **kwargs)` format the `PromptTemplate` with the keyword arguments and send the result
(`apredict`, `astructured_predict` too): one user message for a string template. `chat_with_tools` /
`predict_and_call(tools, user_msg=..., chat_history=...)` are not drawn here (their tool shape is
LlamaIndex's own).

A receiver that is no LlamaIndex LLM (a LangChain model, a Cohere client, an application's own class)
is left to the shapes of other SDKs; of a receiver not known, only messages written at the call as
LlamaIndex's `ChatMessage` objects (imported from `llama_index`) are the evidence of a chat request.
"""
from __future__ import annotations

from ..flow.values import Obj, Seq, Text
from .base import Sdk, Shape

_ROOTS = ("llama_index",)
_CHATS = ("chat", "achat", "stream_chat", "astream_chat")
_COMPLETES = ("complete", "acomplete", "stream_complete", "astream_complete")
_PREDICTS = ("predict", "apredict")
_STRUCTURED = ("structured_predict", "astructured_predict")
#: LlamaIndex's LLM classes by last name -> the provider they call.
_PROVIDERS = {"OpenAI": "openai", "OpenAIResponses": "openai", "AzureOpenAI": "azure-openai", "OpenAILike": None,
              "Anthropic": "anthropic", "Gemini": "google", "GoogleGenAI": "google", "Vertex": "google",
              "BedrockConverse": "bedrock", "Bedrock": "bedrock", "MistralAI": "mistral", "Groq": "groq",
              "Ollama": "ollama", "Vllm": "vllm", "VllmServer": "vllm", "DeepSeek": "deepseek", "LiteLLM": None}
#: Classes of llama_index that are no LLM though a call of theirs has one of these names (an agent, a
#: chat or query engine): their own layouts are drawn by their shapes, or not at all.
_NOT_LLMS = ("Agent", "Engine", "Worker", "Workflow", "Memory", "Retriever", "Index", "Tool")
#: An LLM annotation of LlamaIndex's core (`llm: LLM`, `llm: FunctionCallingLLM`).
_TYPED = ("LLM", "FunctionCallingLLM", "BaseLLM", "CustomLLM")
#: `Settings.llm`: the process-wide default LLM of LlamaIndex.
_SETTINGS = ("llama_index.core.Settings.llm", "llama_index.core.settings.Settings.llm")


def llm_of(b, call) -> Obj | None:
    """The LlamaIndex LLM object a call is made on (`OpenAI(model=...)`, a parameter annotated as
    `LLM`, `Settings.llm`), else None."""
    receiver = call.node.func.value
    if (b.m.qualified_name(receiver) or "") in _SETTINGS:
        return Obj("llama_index.core.llms.LLM", span=b.m.span(receiver), node=receiver)
    value = b.value(receiver, call.frame)
    if not isinstance(value, Obj):
        return None
    qual = value.qualname.removeprefix("instance:")
    if not qual.startswith("llama_index."):
        return None
    name = qual.rsplit(".", 1)[-1]
    if name in _PROVIDERS or name in _TYPED or ".llms." in qual and not name.endswith(_NOT_LLMS):
        return value
    return None


def _provider(b, llm: Obj, frame) -> tuple[str | None, str | None]:
    """(provider, model) of a LlamaIndex LLM object: its class's provider, the model its `model=`
    keyword (or first argument) names."""
    name = llm.qualname.rsplit(".", 1)[-1]
    model = b.static_text(llm.kwargs.get("model") or (llm.args[0] if llm.args else None), frame)
    return b.provider_for_model(model, _PROVIDERS.get(name))


def _chat_objects(value) -> bool:
    """True for a list written as LlamaIndex `ChatMessage(...)` objects (one at least), what a chat
    request of any LLM is made of."""
    return isinstance(value, Seq) and not value.repeated and any(
        isinstance(i, Obj) and i.qualname.startswith("llama_index") and i.qualname.endswith("ChatMessage")
        for i in value.items)


def chat(b, call) -> None:
    frame = call.frame
    node = call.arg(0, "messages")
    if node is None:
        return
    llm = llm_of(b, call)
    value = b.value(node, frame)
    if llm is None and not _chat_objects(value):
        return
    if not isinstance(value, Seq):
        return
    prov, model = _provider(b, llm, frame) if llm is not None else (None, None)
    parts, newest = b.message_parts(value, frame)
    b.add(call.node, "python-call", prov, "llama_index." + call.method.removeprefix("a"), model, parts, newest)


def complete(b, call) -> None:
    llm = llm_of(b, call)
    node = call.arg(0, "prompt")
    if llm is None or node is None:
        return
    frame = call.frame
    value = b.value(node, frame)
    if not isinstance(value, Text):
        return
    prov, model = _provider(b, llm, frame)
    b.add(call.node, "python-call", prov, "llama_index." + call.method.removeprefix("a"), model,
          [b.part("user", value, frame, b.m.span(node))], 0)


def predict(b, call) -> None:
    """`llm.predict(PromptTemplate("... {x} ..."), x=...)`: the template's text with the keyword
    arguments at its placeholders, one user message; a placeholder left unbound is filled per call."""
    llm = llm_of(b, call)
    index = 1 if call.method in _STRUCTURED else 0
    node = call.arg(index, "prompt")
    if llm is None or node is None:
        return
    frame = call.frame
    template = b.value(node, frame)
    if not (isinstance(template, Obj) and template.qualname.startswith("llama_index")
            and template.qualname.endswith("PromptTemplate") and not template.qualname.endswith("ChatPromptTemplate")):
        return
    text = template.kwargs.get("template") or (template.args[0] if template.args else None)
    if not isinstance(text, Text):
        return
    bindings = {k: b.value(v, frame) for k, v in call.kwargs.items() if k not in (None, "prompt", "output_cls")}
    segs = b.ev.format_text(text, [], bindings, frame, None, keep_unbound=True).segs
    prov, model = _provider(b, llm, frame)
    b.add(call.node, "python-call", prov, "llama_index." + call.method.removeprefix("a"), model,
          [b.part("user", Text(segs), frame, template.span)], 0)


SDK = Sdk(
    name="llama_index_llms",
    imports=_ROOTS,
    methods=(*_CHATS, *_COMPLETES, *_PREDICTS, *_STRUCTURED),
    shapes=(
        Shape("llm.chat", _CHATS, lambda c: c.method in _CHATS and bool(c.args or c.has("messages")), chat,
              final=False, needs_layout=True),
        Shape("llm.complete", _COMPLETES, lambda c: c.method in _COMPLETES and bool(c.args or c.has("prompt")), complete,
              final=False, needs_layout=True),
        Shape("llm.predict", (*_PREDICTS, *_STRUCTURED), lambda c: c.method in (*_PREDICTS, *_STRUCTURED)
              and bool(c.args or c.has("prompt")), predict, final=False, needs_layout=True),
    ),
)
