"""Finds the calls that send a prompt to an LLM and builds each one's PromptLayout.

Recognised (by the method chain and the import-resolved names): OpenAI chat completions and
responses (sync, async, Azure), Anthropic messages (also beta, Bedrock, Vertex clients), Google
Gemini `models.generate_content[_stream]` and `GenerativeModel(system_instruction=...)`, LiteLLM
`completion` / `acompletion` / `Router`, LangChain `ChatPromptTemplate.from_messages`, chat-model
`.invoke(...)`, LangGraph `create_react_agent(model=..., prompt=...)`, LangChain `create_agent`,
pydantic-ai `Agent(system_prompt=...)` and `@agent.system_prompt` / `@agent.instructions`
functions, and module-level prompt constants built with f-strings.
"""
from __future__ import annotations

import json
import re
from dataclasses import replace

import libcst as cst

from ..model import Breakpoint, Kind, Part, PromptLayout, Segment, Span, Volatility
from .evaluator import Evaluator, Frame, _decorator_name
from .project import Module
from .values import Alt, Func, Mapping, Obj, Seq, Spread, Text, Value, most_volatile

_OPENAI_CHAT = re.compile(r"(^|\.)chat\.completions\.(create|parse|stream)$")
_OPENAI_RESP = re.compile(r"(^|\.)responses\.(create|parse|stream)$")
_ANTHROPIC = re.compile(r"(^|\.)messages\.(create|stream)$")
_GEMINI = re.compile(r"(^|\.)models\.(generate_content|generate_content_stream)$")
_LITELLM = {"litellm.completion", "litellm.acompletion", "litellm.text_completion"}
_LC_INVOKE = {"invoke", "ainvoke", "stream", "astream", "batch", "abatch"}
# a system message written in the code: the only functions whose returned lists are examined
_SYSTEM_MESSAGE = re.compile(r"""(["']role["']\s*:\s*["'](system|developer)["'])|(role\s*=\s*["'](system|developer)["'])"""
                             r"|SystemMessage\(|MessageRole\.SYSTEM|\(\s*[\"']system[\"']\s*,")
_PROMPT_NAME = re.compile(r"(prompt|system|instruction|preamble|persona)", re.I)
_ROLE_ALIASES = {"human": "user", "ai": "assistant", "model": "assistant", "placeholder": "history"}
_MESSAGE_CLASSES = {"SystemMessage": "system", "HumanMessage": "user", "AIMessage": "assistant",
                    "ToolMessage": "tool", "ChatMessage": None, "SystemMessagePromptTemplate": "system",
                    "HumanMessagePromptTemplate": "user", "AIMessagePromptTemplate": "assistant"}


def provider_for_model(model: str | None, default: str | None) -> tuple[str | None, str | None]:
    """(provider, model) from a model string such as `openai/gpt-4.1` or `anthropic:claude-3-5-haiku`."""
    if not model:
        return default, model
    m = re.match(r"^(openai|anthropic|azure|gemini|google|vertex_ai|bedrock|deepseek|xai|mistral|groq)[/:](.+)$", model)
    if m:
        prov = {"gemini": "google", "vertex_ai": "google", "azure": "azure-openai"}.get(m.group(1), m.group(1))
        return prov, m.group(2)
    low = model.lower()
    if low.startswith(("gpt-", "o1", "o3", "o4", "chatgpt")):
        return "openai", model
    if "claude" in low:
        return "anthropic" if default not in ("bedrock",) else default, model
    if low.startswith("gemini"):
        return "google", model
    return default, model


class CallSiteFinder(cst.CSTVisitor):
    """Visits one module and collects a PromptLayout for every prompt it sends or defines."""

    def __init__(self, module: Module, evaluator: Evaluator):
        self.m = module
        self.ev = evaluator
        self.stack: list = []
        self.layouts: list[PromptLayout] = []
        self._sites: list[Span] = []
        self._has_system: bool | None = None

    # scopes
    def visit_ClassDef(self, node):
        self.stack.append(node)

    def leave_ClassDef(self, node):
        self.stack.pop()

    def visit_FunctionDef(self, node):
        self._decorated_prompt(node)
        self.stack.append(node)

    def leave_FunctionDef(self, node):
        self.stack.pop()

    def _frame(self) -> Frame:
        func = next((n for n in reversed(self.stack) if isinstance(n, cst.FunctionDef)), None)
        if func is None:
            return self.ev.module_frame(self.m)
        cls = None
        idx = self.stack.index(func)
        if idx > 0 and isinstance(self.stack[idx - 1], cst.ClassDef):
            cls = self.stack[idx - 1]
        key = id(func)
        cache = self.__dict__.setdefault("_frames", {})
        if key not in cache:
            cache[key] = self.ev.function_frame(self.m, func, cls)
        return cache[key]

    # module-level prompt constants
    def visit_Assign(self, node):
        self.ev.reset_budget()
        if self.stack or len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        name = node.targets[0].target.value
        if not _PROMPT_NAME.search(name) or not _has_fstring_or_format(node.value):
            return
        frame = self.ev.module_frame(self.m)
        value = self.ev._per_process(self.ev.eval(node.value, frame))  # evaluated once, at import
        segs = self.ev.text_of(value, frame)
        if not any(s.is_static and s.text.strip() for s in segs) or all(s.is_static for s in segs):
            return
        self._add(node, "python-constant", None, None, None, [Part("system", segs, span=self.m.span(node.value))])

    def _decorated_prompt(self, node: cst.FunctionDef):
        self.ev.reset_budget()
        for d in node.decorators:
            name = _decorator_name(d)
            if name.endswith((".system_prompt", ".instructions")) and "." in name:
                fn_frame = self.ev.function_frame(self.m, node)
                self.ev._ensure(fn_frame)
                rets = [self.ev.force(fn_frame, r) for r in fn_frame.returns]
                segs = self.ev.text_of(Alt(rets) if len(rets) > 1 else (rets[0] if rets else None), fn_frame)
                if segs:
                    self._add(node, "python-call", "pydantic-ai", "agent." + name.rsplit(".", 1)[1], None,
                              [Part("system", segs, span=self.m.span(node))])

    # message dicts and message lists built outside a recognised call (python-constant prompts)
    def visit_Dict(self, node: cst.Dict):
        self.ev.reset_budget()
        keys = {el.key.evaluated_value: el.value for el in node.elements
                if isinstance(el, cst.DictElement) and isinstance(el.key, cst.SimpleString)}
        self._system_message(node, keys)

    def _system_message(self, node, fields: dict) -> None:
        role = fields.get("role")
        if not (isinstance(role, cst.SimpleString) and role.evaluated_value in ("system", "developer")) or "content" not in fields:
            return
        if self._covered(node):
            return
        frame = self._frame()
        part = self._part("system", self.ev.eval(fields["content"], frame), frame, self.m.span(fields["content"]))
        if any(not s.is_static for s in part.segments):
            self._add(node, "python-constant", None, None, None, [part])
            self._sites.append(self.m.span(node))

    def visit_Return(self, node: cst.Return):
        self.ev.reset_budget()
        if self._has_system is None:
            self._has_system = bool(_SYSTEM_MESSAGE.search(self.m.source))
        func = next((n for n in reversed(self.stack) if isinstance(n, cst.FunctionDef)), None)
        if not self._has_system or func is None or node.value is None or self._covered(node):
            return
        span = self.m.span(func)
        body = "\n".join(self.m.source.splitlines()[span.start.row - 1:span.end.row])
        if not _SYSTEM_MESSAGE.search(body):
            return
        frame = self._frame()
        value = self.ev.eval(node.value, frame)
        for option in _variants(value):  # the variants a builder returns: the first that puts content before history
            if not isinstance(option, Seq) or option.repeated:
                continue
            parts, newest = self.message_parts(option, frame)
            if any(p.role in ("system", "developer") for p in parts) and any(p.is_history for p in parts) \
                    and any(not s.is_static for p in parts if not p.is_history for s in p.segments):
                self._add(node, "python-constant", None, None, None, parts, newest)
                self._sites.append(self.m.span(node))
                return

    def _covered(self, node) -> bool:
        span = self.m.span(node)
        return any(s.start <= span.start and span.end <= s.end for s in self._sites)

    def visit_Call(self, node: cst.Call):
        self.ev.reset_budget()
        func = node.func
        if isinstance(func, cst.Name) and func.value == "dict" and not node.args[:0]:
            self._system_message(node, {a.keyword.value: a.value for a in node.args if a.keyword is not None})
        chain = self.m.code(func) if isinstance(func, (cst.Attribute, cst.Name)) else ""
        chain = re.sub(r"\s+", "", chain)
        qual = self.m.qualified_name(func) or ""
        kwargs = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        try:
            if _OPENAI_CHAT.search(chain):
                self._openai_chat(node, kwargs, chain)
            elif _OPENAI_RESP.search(chain) and ("input" in kwargs or "instructions" in kwargs):
                self._openai_responses(node, kwargs)
            elif _ANTHROPIC.search(chain) and ("messages" in kwargs or "system" in kwargs):
                self._anthropic(node, kwargs, chain)
            elif _GEMINI.search(chain):
                self._gemini(node, kwargs)
            elif qual in _LITELLM or (qual.startswith("litellm.") and qual.rsplit(".", 1)[-1] in ("completion", "acompletion")):
                self._chat_like(node, kwargs, "litellm", "litellm." + qual.rsplit(".", 1)[-1])
            elif qual.endswith("ChatPromptTemplate.from_messages") or qual.endswith("ChatPromptTemplate.from_template"):
                self._lc_prompt(node)
            elif qual.endswith(("create_react_agent", "create_agent")) and ("prompt" in kwargs or "system_prompt" in kwargs):
                self._lc_agent(node, kwargs)
            elif qual.endswith("GenerativeModel") and "system_instruction" in kwargs:
                self._gemini_model(node, kwargs)
            elif qual.endswith(".Agent") or qual == "Agent":
                if qual.startswith("pydantic_ai") and ("system_prompt" in kwargs or "instructions" in kwargs):
                    self._pydantic_agent(node, kwargs)
            elif isinstance(func, cst.Attribute) and func.attr.value == "bind_tools" and node.args:
                self._bind_tools(node, func)
            elif isinstance(func, cst.Attribute) and func.attr.value in _LC_INVOKE and node.args:
                self._lc_invoke(node, func)
            elif isinstance(func, cst.Attribute) and func.attr.value in ("completion", "acompletion") and "messages" in kwargs:
                base = self.ev.eval(func.value, self._frame())
                if isinstance(base, Obj) and base.qualname.endswith("Router"):
                    self._chat_like(node, kwargs, "litellm", "Router." + func.attr.value)
        except RecursionError:  # pragma: no cover
            pass

    # ------------------------------------------------------------------ builders
    def _static_model(self, node, frame) -> str | None:
        if node is None:
            return None
        segs = self.ev.text_of(self.ev.eval(node, frame), frame)
        if segs and all(s.is_static for s in segs):
            return "".join(s.text for s in segs)
        return None

    def _openai_chat(self, node, kwargs, chain):
        frame = self._frame()
        parts = self._tools(kwargs.get("tools") or kwargs.get("functions"), frame, "chat.completions")
        if "response_format" in kwargs:
            parts += self._schema_part(kwargs["response_format"], frame)
        msg_parts, newest = self.message_parts(self.ev.eval(kwargs["messages"], frame), frame) if "messages" in kwargs else ([], None)
        base = len(parts)
        model = self._static_model(kwargs.get("model"), frame)
        prov, model = provider_for_model(model, "openai")
        layout = self._add(node, "python-call", prov or "openai", "chat.completions." + chain.rsplit(".", 1)[-1], model,
                           parts + msg_parts, None if newest is None else base + newest)
        self._options(layout, kwargs, frame)

    def _chat_like(self, node, kwargs, provider, api):
        frame = self._frame()
        parts = self._tools(kwargs.get("tools") or kwargs.get("functions"), frame, api)
        msg_parts, newest = self.message_parts(self.ev.eval(kwargs["messages"], frame), frame) if "messages" in kwargs else ([], None)
        model = self._static_model(kwargs.get("model"), frame)
        prov, model = provider_for_model(model, provider)
        layout = self._add(node, "python-call", prov, api, model, parts + msg_parts,
                           None if newest is None else len(parts) + newest)
        self._options(layout, kwargs, frame)

    def _openai_responses(self, node, kwargs):
        frame = self._frame()
        parts = self._tools(kwargs.get("tools"), frame, "responses")
        if "instructions" in kwargs:
            parts.append(self._part("system", self.ev.eval(kwargs["instructions"], frame), frame,
                                    self.m.span(kwargs["instructions"])))
        newest = None
        if "input" in kwargs:
            value = self.ev.eval(kwargs["input"], frame)
            if isinstance(value, Seq):
                msg_parts, n = self.message_parts(value, frame)
                newest = None if n is None else len(parts) + n
                parts += msg_parts
            elif _is_param_like(value):
                parts.append(Part("history", [_history_seg(value, self.m.span(kwargs["input"]), self.m.code(kwargs["input"]))]))
            else:
                parts.append(self._part("user", value, frame, self.m.span(kwargs["input"])))
                newest = len(parts) - 1
        model = self._static_model(kwargs.get("model"), frame)
        layout = self._add(node, "python-call", "openai", "responses.create", model, parts, newest)
        self._options(layout, kwargs, frame)

    def _anthropic(self, node, kwargs, chain):
        frame = self._frame()
        parts = self._tools(kwargs.get("tools"), frame, "messages")
        if "system" in kwargs:
            parts.append(self._part("system", self.ev.eval(kwargs["system"], frame), frame, self.m.span(kwargs["system"])))
        msg_parts, newest = self.message_parts(self.ev.eval(kwargs["messages"], frame), frame) if "messages" in kwargs else ([], None)
        model = self._static_model(kwargs.get("model"), frame)
        prov = "bedrock" if model and model.startswith(("anthropic.", "us.anthropic", "eu.anthropic")) else "anthropic"
        layout = self._add(node, "python-call", prov, ("beta." if ".beta." in chain else "") + "messages." + chain.rsplit(".", 1)[-1],
                           model, parts + msg_parts, None if newest is None else len(parts) + newest)
        if "cache_control" in kwargs:
            layout.auto_cache = self.m.span(kwargs["cache_control"])
        self._options(layout, kwargs, frame)

    def _gemini(self, node, kwargs):
        frame = self._frame()
        parts: list[Part] = []
        config = self.ev.eval(kwargs["config"], frame) if "config" in kwargs else None
        cfg = config.kwargs if isinstance(config, Obj) else (config.items if isinstance(config, Mapping) else {})
        if "system_instruction" in cfg:
            parts.append(self._part("system", cfg["system_instruction"], frame, None))
        if "tools" in cfg:
            parts.append(Part("tools", self.ev.text_of(cfg["tools"], frame)))
        newest = None
        if "contents" in kwargs:
            value = self.ev.eval(kwargs["contents"], frame)
            if isinstance(value, Seq):
                mp, n = self.message_parts(value, frame)
                newest = None if n is None else len(parts) + n
                parts += mp
            elif _is_param_like(value):
                parts.append(Part("history", [_history_seg(value, self.m.span(kwargs["contents"]), self.m.code(kwargs["contents"]))]))
            else:
                parts.append(self._part("user", value, frame, self.m.span(kwargs["contents"])))
                newest = len(parts) - 1
        model = self._static_model(kwargs.get("model"), frame)
        self._add(node, "python-call", "google", "models.generate_content", model, parts, newest)

    def _gemini_model(self, node, kwargs):
        frame = self._frame()
        parts = [self._part("system", self.ev.eval(kwargs["system_instruction"], frame), frame, None)]
        model = self._static_model(kwargs.get("model_name") or (node.args[0].value if node.args and node.args[0].keyword is None else None), frame)
        self._add(node, "python-call", "google", "GenerativeModel", model, parts, None)

    def _pydantic_agent(self, node, kwargs):
        frame = self._frame()
        parts = []
        for key in ("system_prompt", "instructions"):
            if key in kwargs:
                parts.append(self._part("system", self.ev.eval(kwargs[key], frame), frame, None))
        model_node = kwargs.get("model") or (node.args[0].value if node.args and node.args[0].keyword is None else None)
        prov, model = provider_for_model(self._static_model(model_node, frame), None)
        self._add(node, "python-call", prov or "pydantic-ai", "Agent", model, parts, None)

    def _lc_prompt(self, node):
        frame = self._frame()
        if not node.args:
            return
        value = self.ev.eval(node.args[0].value, frame)
        parts, newest = self.message_parts(value, frame, template=True)
        self._add(node, "python-call", "langchain", "ChatPromptTemplate", None, parts, newest)

    def _lc_agent(self, node, kwargs):
        frame = self._frame()
        prompt_node = kwargs.get("prompt") or kwargs.get("system_prompt")
        value = self.ev.eval(prompt_node, frame)
        if isinstance(value, Obj) and value.qualname.rsplit(".", 1)[-1] in _MESSAGE_CLASSES:
            parts, _ = self.message_parts(Seq([value]), frame)
        else:
            parts = [self._part("system", value, frame, self.m.span(prompt_node))]
        tools = self._tools(kwargs.get("tools"), frame)
        model_v = self.ev.eval(kwargs["model"], frame) if "model" in kwargs else None
        prov, model = self._lc_model(model_v, frame)
        parts = tools + parts + [Part("history", [Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN,
                                                          expr="agent state messages", span=self.m.span(node))])]
        self._add(node, "python-call", prov, "langgraph.create_react_agent", model, parts, None)

    def _lc_model(self, value, frame) -> tuple[str | None, str | None]:
        if isinstance(value, Obj):
            cls = value.qualname.rsplit(".", 1)[-1]
            model = self._static_text(value.kwargs.get("model") or value.kwargs.get("model_name")
                                      or (value.args[0] if value.args else None), frame)
            default = {"ChatOpenAI": "openai", "AzureChatOpenAI": "azure-openai", "ChatAnthropic": "anthropic",
                       "ChatGoogleGenerativeAI": "google", "ChatVertexAI": "google", "ChatBedrock": "bedrock",
                       "ChatBedrockConverse": "bedrock", "ChatLiteLLM": "litellm"}.get(cls)
            if value.qualname.endswith(".bind_tools") and value.args:
                return self._lc_model(value.args[0], frame)
            return provider_for_model(model, default)
        if isinstance(value, Text):
            return provider_for_model(self._static_text(value, frame), None)
        return None, None

    def _static_text(self, value, frame) -> str | None:
        if value is None:
            return None
        segs = self.ev.text_of(value, frame)
        if segs and all(s.is_static for s in segs):
            return "".join(s.text for s in segs)
        return None

    def _lc_invoke(self, node, func):
        frame = self._frame()
        base = self.ev.eval(func.value, frame)
        template, partials = _prompt_template(base)
        if template is not None:
            self._lc_chain(node, base, template, partials, frame)
            return
        chat_model = _chat_model(base)
        if chat_model is None:
            return
        value = self.ev.eval(node.args[0].value, frame)
        prov, model = self._lc_model(chat_model, frame)
        if isinstance(value, Seq):
            parts, newest = self.message_parts(value, frame)
        elif isinstance(value, Text):
            parts, newest = [self._part("user", value, frame, self.m.span(node.args[0].value))], 0
        else:
            return
        self._add(node, "python-call", prov, "langchain.invoke", model, parts, newest)

    def _bind_tools(self, node, func):
        frame = self._frame()
        model = _chat_model(self.ev.eval(func.value, frame))
        if model is None:
            return
        prov, model_name = self._lc_model(model, frame)
        parts = self._tools(node.args[0].value, frame)
        self._add(node, "python-call", prov, "langchain.bind_tools", model_name, parts, None)

    def _lc_chain(self, node, chain, template: Obj, partials: dict, frame):
        """`(prompt | llm).invoke({...})`: the prompt template's messages with the values bound."""
        value = self.ev.eval(node.args[0].value, frame)
        bindings = dict(partials)
        if isinstance(value, Mapping):
            bindings.update(value.items)
        messages = template.args[1] if len(template.args) > 1 else None
        if messages is None:
            return
        self._bindings = bindings
        try:
            parts, newest = self.message_parts(messages, frame, template=True)
        finally:
            self._bindings = {}
        model = _chat_model(chain.args[1]) if chain.qualname == "chain" and len(chain.args) > 1 else None
        prov, model_name = self._lc_model(model, frame) if model is not None else (None, None)
        layout = self._add(node, "python-call", prov or "langchain", "langchain.invoke", model_name, parts, newest)
        if template.span is not None and template.span.filename == self.m.filename:
            layout.supersedes.append(f"{self.m.filename}:{template.span.start.row}")

    # ------------------------------------------------------------------ parts
    def _tools_fix(self, value, node, unordered: Segment, api: str | None):
        """The safe fix for a tools list in unstable order: sort the listing it iterates when that
        yields paths or names (sortable); else sort the tools by name, with the key the shape
        needs (seen in the values, or required by the API: OpenAI chat nests `function.name`,
        Anthropic and the Responses API use a flat `name`); None when neither is sure."""
        from . import fixes
        if unordered.fix is not None and unordered.evidence == "directory listing order":
            return unordered.fix
        if unordered.span is None or unordered.span.filename != self.m.filename:
            return None
        shape = _tool_shape(value) or {"chat": "nested", "flat": "flat"}.get(_api_tool_shape(api))
        if shape is None:
            return None
        return fixes.sort_tools_fix(self.m, node, nested=shape == "nested", objects=shape == "object")

    def _tools(self, node, frame, api: str | None = None) -> list[Part]:
        if node is None:
            return []
        value = self.ev.eval(node, frame)
        span = self.m.span(node)
        unordered = _find_unordered(value)
        if unordered is not None:
            return [Part("tools", [replace(unordered, fix=self._tools_fix(value, node, unordered, api))], span=span)]
        if isinstance(value, Seq) and not value.repeated and all(isinstance(i, (Mapping, Func)) for i in value.items):
            rendered = _static_json(Seq([_tool_schema(i) if isinstance(i, Func) else i for i in value.items]),
                                    self.ev, frame)
            if rendered is not None:
                return [Part("tools", [Segment(text=rendered, span=span)], span=span)]
        segs = self.ev.text_of(value, frame)
        src = most_volatile(segs)
        seg = Segment(span=span, kind=src.kind if src is not None and src.kind is Kind.UNORDERED_ITERATION else Kind.UNKNOWN,
                      volatility=Volatility.UNKNOWN, expr=self.m.code(node), evidence="tool definitions not known statically")
        return [Part("tools", [seg], span=span)]

    def _schema_part(self, node, frame) -> list[Part]:
        span = self.m.span(node)
        value = self.ev.eval(node, frame)
        if isinstance(value, Mapping):  # a literal schema: its text is static
            rendered = _static_json(Seq([value]), self.ev, frame)
            if rendered is not None:
                return [Part("tools", [Segment(text=rendered, span=span)], span=span)]
        return [Part("tools", [Segment(span=span, kind=Kind.UNKNOWN, volatility=Volatility.STABLE,
                                       expr=self.m.code(node), evidence="response schema")], span=span)]

    def _part(self, role: str, value: Value, frame, span: Span | None, template: bool = False) -> Part:
        segs: list[Segment] = []
        bps: list[Breakpoint] = []
        if isinstance(value, Seq) and not value.repeated and value.items and all(isinstance(i, Mapping) for i in value.items):
            for block in value.items:
                content = block.items.get("text")
                if content is None:
                    content = block.items.get("content")
                if content is not None:
                    segs.extend(self._text(content, frame, template))
                if "cache_control" in block.items:
                    ttl = None
                    cc = block.items["cache_control"]
                    if isinstance(cc, Mapping) and "ttl" in cc.items:
                        ttl = self._static_text(cc.items["ttl"], frame)
                    bps.append(Breakpoint(after=len(segs) - 1, span=block.key_spans.get("cache_control"), ttl=ttl))
        else:
            segs = self._text(value, frame, template)
        return Part(role, segs, bps, span=span)

    def _text(self, value, frame, template: bool) -> list[Segment]:
        if template:
            text = Text(self.ev.text_of(value, frame))
            return self.ev.format_text(text, [], getattr(self, "_bindings", {}), frame, None, keep_unbound=True).segs
        return self.ev.text_of(value, frame)

    def message_parts(self, value: Value, frame: Frame, template: bool = False) -> tuple[list[Part], int | None]:
        """Request parts of a message list, in order, and the index of the newest user message
        (the last item when it is a user message written at the call, not replayed history)."""
        parts: list[Part] = []
        if not isinstance(value, Seq):
            if isinstance(value, Text) and template:
                return [self._part("user", value, frame, None, template)], 0
            span = getattr(value, "span", None)
            return [Part("history", [_history_seg(value, span, _expr_of(value))])], None
        if value.repeated and value.head:
            # messages written before a loop that appends to them: those first, then the history
            head, _ = self.message_parts(Seq(value.items[:value.head], value.span), frame, template)
            for part in head:  # the first turn is re-sent on every pass of the loop
                if part.role in ("user", "assistant", "tool"):
                    part.segments = [replace(s, volatility=Volatility.PER_CONVERSATION,
                                             evidence="the first turn, re-sent on every pass of the loop")
                                     if not s.is_static and s.volatility is Volatility.PER_REQUEST else s
                                     for s in part.segments]
            tail = Seq(value.items[value.head:], value.span, repeated=True)
            return head + [self._history_part(tail, frame)], None
        if value.repeated:
            return [self._history_part(value, frame)], None
        newest = None
        for item in value.items:
            newest = None
            if isinstance(item, Spread):
                inner = item.value
                variants = [v for v in _variants(inner) if isinstance(v, Seq)]
                if isinstance(inner, Alt) and variants:
                    merged = Seq([x for v in variants for x in v.items], item.span, repeated=True)
                    parts.append(self._history_part(merged, frame, item.span))
                    continue
                if isinstance(inner, Seq) and inner.repeated:
                    parts.append(self._history_part(inner, frame, item.span))
                elif isinstance(inner, Seq):
                    sub, n = self.message_parts(inner, frame, template)
                    parts.extend(sub)
                else:
                    parts.append(Part("history", [_history_seg(inner, item.span, item.expr)], span=item.span))
                continue
            role, content, span = self._message(item, frame)
            if role is None:
                if isinstance(item, Obj) and item.qualname.endswith("MessagesPlaceholder"):
                    parts.append(Part("history", [Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN,
                                                          expr="MessagesPlaceholder", span=item.span)], span=item.span))
                    continue
                parts.append(Part("history", [_history_seg(item, getattr(item, "span", None), _expr_of(item))]))
                continue
            if role == "history":
                parts.append(Part("history", [Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN,
                                                      expr=_expr_of(content), span=span)], span=span))
                continue
            parts.append(self._part(role, content, frame, span, template))
            if role == "user":
                newest = len(parts) - 1
        return parts, newest

    def _history_part(self, seq: Seq, frame, span=None) -> Part:
        segs: list[Segment] = [Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr="conversation history",
                                       span=span or seq.span)]
        for item in seq.items:
            role, content, _ = self._message(item, frame) if not isinstance(item, Spread) else (None, None, None)
            if role is not None and content is not None:
                segs.extend(s for s in self._part(role, content, frame, None).segments if s.kind is Kind.SERIALIZED)
            if isinstance(item, Mapping):
                for v in item.items.values():
                    if isinstance(v, Seq):
                        for call in v.items:
                            if isinstance(call, Mapping):
                                for fv in call.items.values():
                                    if isinstance(fv, Mapping):
                                        for x in fv.items.values():
                                            segs.extend(s for s in self.ev.text_of(x, frame) if s.kind is Kind.SERIALIZED)
        return Part("history", segs, span=span or seq.span)

    def _message(self, item, frame) -> tuple[str | None, Value | None, Span | None]:
        if isinstance(item, Mapping) and "role" in item.items:
            role = self._static_text(item.items["role"], frame)
            content = item.items.get("content") or item.items.get("parts")
            if content is None:
                content = Text([])
            return _ROLE_ALIASES.get(role, role) if role else "unknown", content, item.span
        if isinstance(item, Seq) and item.is_tuple and len(item.items) == 2:
            role = self._static_text(item.items[0], frame)
            if role:
                return _ROLE_ALIASES.get(role, role), item.items[1], item.span
        if isinstance(item, Obj):
            cls = item.qualname.rsplit(".", 1)[-1].removeprefix("instance:")
            if cls.startswith(tuple(_MESSAGE_CLASSES)):
                base_cls = next(c for c in _MESSAGE_CLASSES if cls.startswith(c))
                role = _MESSAGE_CLASSES[base_cls]
                content = item.kwargs.get("content") or item.kwargs.get("blocks") or item.kwargs.get("template") \
                    or item.kwargs.get("prompt") or (item.args[0] if item.args else None)
                if role is None:
                    role = self._static_text(item.kwargs.get("role"), frame) or "unknown"
                if item.qualname.endswith(".from_template") and len(item.args) > 1:
                    content = item.args[1]
                return role, content if content is not None else Text([]), item.span
            if ".from_template" in item.qualname:
                owner = item.qualname.rsplit(".", 2)[-2]
                role = _MESSAGE_CLASSES.get(owner)
                if role:
                    return role, item.args[1] if len(item.args) > 1 else Text([]), item.span
        return None, None, None

    def _options(self, layout: PromptLayout, kwargs, frame) -> None:
        for key in ("prompt_cache_key",):
            if key in kwargs:
                segs = self.ev.text_of(self.ev.eval(kwargs[key], frame), frame)
                src = most_volatile(segs)
                span = self.m.span(kwargs[key])
                layout.options[key] = (Segment(span=span, kind=src.kind, volatility=src.volatility, expr=self.m.code(kwargs[key]),
                                               evidence=src.evidence, origin=src.origin) if src is not None
                                       else Segment(text="".join(s.text for s in segs), span=span))

    def _add(self, node, source, provider, api, model, parts, newest=None) -> PromptLayout:
        span = self.m.span(node)
        if newest is not None:
            # the newest user message is the request's input: what we cannot read in it is new per request
            part = parts[newest]
            part.segments = [replace(s, volatility=Volatility.PER_REQUEST, evidence=s.evidence or "content of the newest user message")
                             if not s.is_static and s.volatility is Volatility.UNKNOWN and s.kind in (Kind.UNKNOWN, Kind.TEMPLATE_VARIABLE)
                             else s for s in part.segments]
        if source == "python-call":
            self._sites.append(span)
        layout = PromptLayout(id=f"{self.m.filename}:{span.start.row}", site=span, source=source,
                              provider=provider, api=api, model=model, parts=parts, newest_user=newest)
        layout.templates = sorted({s.span.filename for p in parts for s in p.segments
                                   if s.span is not None and s.span.filename != self.m.filename and s.is_static})
        self.layouts.append(layout)
        return layout


def _prompt_template(value) -> tuple[Obj | None, dict]:
    """The ChatPromptTemplate at the head of a chain (`prompt | llm`, `prompt.partial(...)`)."""
    partials: dict = {}
    while isinstance(value, Obj):
        if value.qualname.endswith(("ChatPromptTemplate.from_messages", "ChatPromptTemplate")):
            if value.qualname.endswith("from_messages"):
                return value, partials
            return None, partials
        if value.qualname == "chain" and value.args:
            value = value.args[0]
        elif value.qualname.endswith(".partial") and value.args:
            partials.update(value.kwargs)
            value = value.args[0]
        else:
            return None, partials
    return None, partials


def _api_tool_shape(api: str | None) -> str | None:
    if not api:
        return None
    if api.startswith(("chat.completions", "litellm", "Router")):
        return "chat"
    if api.startswith(("messages", "beta.messages", "responses")):
        return "flat"
    return None


def _tool_shape(value, depth: int = 0) -> str | None:
    """How the tools of a list are shaped, when every tool we can see agrees: "nested" (OpenAI
    `{"type": "function", "function": {"name": ...}}`), "flat" (`{"name": ...}`), "object"
    (objects with a `.name`, e.g. `@tool` functions or MCP tools); None when not known."""
    shapes: set[str] = set()

    def walk(v, d):
        if d > 6:
            shapes.add("?")
        elif isinstance(v, Mapping):
            shapes.add("nested" if isinstance(v.items.get("function"), Mapping) else "flat" if "name" in v.items else "?")
        elif isinstance(v, Func):
            shapes.add("object")
        elif isinstance(v, Seq):
            for item in v.items:
                walk(item, d + 1)
        elif isinstance(v, Spread):
            walk(v.value, d + 1)
        elif isinstance(v, Alt):
            for option in v.options:
                walk(option, d + 1)
        else:
            shapes.add("?")
    walk(value, depth)
    return shapes.pop() if len(shapes) == 1 and "?" not in shapes else None


def _variants(value, depth: int = 0):
    """The alternatives of a value, nested Alts flattened (at most a few levels, 16 variants)."""
    if isinstance(value, Alt) and depth < 6:
        out = []
        for option in value.options:
            out.extend(_variants(option, depth + 1))
        return out[:16]
    return [value]


def _find_unordered(value, depth: int = 0) -> Segment | None:
    """An unordered-iteration segment anywhere in a (tools) value."""
    if depth > 6:
        return None
    if isinstance(value, Text):
        return next((s for s in value.segs if s.kind is Kind.UNORDERED_ITERATION), None)
    if isinstance(value, Spread):
        return _find_unordered(value.value, depth + 1)
    if isinstance(value, Seq):
        if value.ordered:
            return None
        if value.unordered is not None:
            return value.unordered
        for item in value.items:
            found = _find_unordered(item, depth + 1)
            if found is not None:
                return found
    if isinstance(value, Alt):
        for option in value.options:
            found = _find_unordered(option, depth + 1)
            if found is not None:
                return found
    return None


def _tool_schema(fn: Func) -> Mapping:
    """The schema a `@tool` function (LangChain, pydantic-ai) is sent as: name, docstring and
    parameters with their annotations. Approximate in formatting, exact in content."""
    node = fn.node
    doc = node.get_docstring() or ""
    params = {}
    for p in node.params.params:
        if p.name.value in ("self", "cls"):
            continue
        ann = fn.module.code(p.annotation.annotation) if p.annotation is not None else "string"
        params[p.name.value] = Text([Segment(text=ann)])
    return Mapping({"name": Text([Segment(text=node.name.value)]), "description": Text([Segment(text=doc)]),
                    "parameters": Mapping(params)})


def _chat_model(value) -> Obj | None:
    if isinstance(value, Obj):
        cls = value.qualname.rsplit(".", 1)[-1]
        if cls.startswith(("Chat", "AzureChat")) or cls in ("init_chat_model",):
            return value
        if value.qualname.endswith((".bind_tools", ".with_structured_output", ".bind", ".with_config")) and value.args:
            return _chat_model(value.args[0])
    return None


def _is_param_like(value) -> bool:
    return isinstance(value, Text) and len(value.segs) == 1 and not value.segs[0].is_static and \
        value.segs[0].kind in (Kind.HISTORY, Kind.UNKNOWN)


def _history_seg(value, span, expr) -> Segment:
    return Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr=expr or "messages", span=span,
                   evidence="replayed conversation")


def _expr_of(value) -> str:
    if isinstance(value, Text):
        for s in value.segs:
            if s.expr:
                return s.expr
    return getattr(value, "qualname", "") or "messages"


def _has_fstring_or_format(node) -> bool:
    code = type(node).__name__
    if isinstance(node, cst.FormattedString):
        return True
    if isinstance(node, cst.ConcatenatedString):
        return _has_fstring_or_format(node.left) or _has_fstring_or_format(node.right)
    if isinstance(node, cst.BinaryOperation):
        return _has_fstring_or_format(node.left) or _has_fstring_or_format(node.right) or isinstance(node.operator, cst.Modulo)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in ("format", "dedent"):
        return True
    if isinstance(node, cst.Call):
        return any(_has_fstring_or_format(a.value) for a in node.args)
    return code == "never"


def _static_json(seq: Seq, ev: Evaluator, frame) -> str | None:
    def py(v):
        if isinstance(v, Mapping):
            out = {}
            for k, x in v.items.items():
                r = py(x)
                if r is _NO:
                    return _NO
                out[k] = r
            return out
        if isinstance(v, Seq):
            out = [py(x) for x in v.items]
            return _NO if any(x is _NO for x in out) else out
        if isinstance(v, Text) and all(s.is_static for s in v.segs):
            return "".join(s.text for s in v.segs)
        return _NO
    data = py(seq)
    if data is _NO:
        return None
    return json.dumps(data, indent=None, ensure_ascii=False)


_NO = object()
