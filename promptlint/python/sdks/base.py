"""What an SDK module declares: the calls that send a prompt and how their arguments map to a
layout. One module per SDK shape (openai.py, anthropic.py, ...); the registry (`sdks/__init__.py`)
lists them, builds the pre-filter from their import names and hints, and maps model names to
providers from their declarations.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Callable

from ..walk import walked_statements

#: Providers that route a `provider/model` name to that provider (LiteLLM, OpenRouter through its
#: OpenAI-compatible endpoint, `openai.HOSTS`): with the model not known statically, which provider's
#: caching a request gets is not known either.
GATEWAY_PROVIDERS = ("litellm", "openrouter")


@dataclass
class Call:
    """One call being matched. `chain` is the callee's source text without whitespace
    (`self.client.chat.completions.create`); `qual` its import-resolved dotted name
    (`openai.OpenAI.chat...` is not resolved: receivers are objects); `method` the last attribute
    name or None; `kwargs` the keyword arguments by name (nodes); `args` the positional ones;
    `unread`: a `**mapping` of keys not known statically is passed too; `forwarded`: each such
    mapping is the sending function's own `**kwargs` (`def generate(self, messages, **kwargs): ...
    create(..., **kwargs)`), or the options its instance is built with (`**self.model_params` from a
    parameter of `__init__` with a default): its keys are its callers' keyword arguments; `open`: a `**mapping`
    whose entries are read was merged with data whose keys are not known (`{**settings, ...}`)."""

    node: ast.Call
    chain: str
    qual: str
    method: str | None
    kwargs: dict[str, ast.expr]
    args: list[ast.expr]
    frame: object = None
    unread: bool = False  # a `**mapping` whose keys are not known is passed
    forwarded: bool = True  # every such `**mapping` is the sending function's own `**kwargs` (or configured options)
    open: bool = False  # a `**mapping` of known keys may hold others (`Mapping.open`)
    origin: str | None = None  # where the callee's first name comes from: the module it is imported
    # from, "" for a class or function defined in this file, None for neither (a local, `self`)

    @staticmethod
    def of(module, node: ast.Call) -> "Call":
        func = node.func
        if isinstance(func, ast.Attribute):  # (a method picked by `getattr` has no text of its own: python/picked.py)
            chain = re.sub(r"\s+", "", module.code(func.value)) + "." + func.attr
        else:
            chain = re.sub(r"\s+", "", module.code(func)) if isinstance(func, ast.Name) else ""
        if chain.startswith("self.") and chain.count(".") >= 2:
            head, _, rest = chain[5:].partition(".")
            returned = property_chains(module).get(head)
            if returned is not None:  # `self._messages_api.create`, the property returning `self.client.messages`
                chain = f"{returned}.{rest}"
        qual = module.qualified_name(func) or ""
        if qual.startswith("self.") and qual.count(".") >= 1:
            head, _, rest = qual[5:].partition(".")
            held = module_attributes(module).get(head)
            if held is not None:  # `self._litellm.completion` with `self._litellm = litellm` (an imported module)
                qual = f"{held}.{rest}" if rest else held
        return Call(node=node, chain=chain, qual=qual,
                    method=func.attr if isinstance(func, ast.Attribute) else None,
                    kwargs={k.arg: k.value for k in node.keywords if k.arg is not None},
                    args=[a for a in node.args if not isinstance(a, ast.Starred)], origin=_origin(module, func))

    def imported_from(self, roots: tuple[str, ...]) -> bool:
        """False when the callee is a name imported from a module outside the packages `roots`
        (`from myproject.types import PromptTemplate`) or defined in this file: a class or function
        of the project's own that only shares its name with the SDK's. True otherwise (imported from
        one of `roots`, or a name promptlint cannot place)."""
        if self.origin is None:
            return True
        return self.origin.split(".", 1)[0] in roots

    def has(self, *names: str) -> bool:
        """True when any of these keyword arguments is passed."""
        return any(n in self.kwargs for n in names)

    def arg(self, index: int, name: str | None = None) -> ast.expr | None:
        """The argument passed by keyword `name`, else the positional argument `index`."""
        if name is not None and name in self.kwargs:
            return self.kwargs[name]
        return self.args[index] if index < len(self.args) else None


_HTTP_VERBS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def http_verb(call: Call) -> str | None:
    """The HTTP method an HTTP client's `request` / `stream` call names by its first argument
    (`client.stream("POST", url, ...)` gives "POST"), None for any other call: such a call is no
    model's `stream(messages)`."""
    verb = call.arg(0, "method")
    if isinstance(verb, ast.Constant) and isinstance(verb.value, str) and verb.value.upper() in _HTTP_VERBS:
        return verb.value.upper()
    return None


def _origin(module, func: ast.expr) -> str | None:
    """`Call.origin` of a callee expression."""
    node = func
    while isinstance(node, ast.Attribute):
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    name = node.id
    imported = module.imports.get(name) or module.late_import(name, func)
    if imported is not None:
        return imported
    return "" if name in module.classes or name in module.functions else None


def property_chains(module) -> dict[str, str]:
    """Properties of the module's classes that return an attribute chain of `self` (`@property def
    _api(self): return self.client.messages`): name -> the returned chain's text (whitespace
    removed), so a call through the property reads as the call it makes. Computed once per module."""
    found = module.facts.get("property_chains")
    if found is None:
        found = module.facts["property_chains"] = {}
        classes = [n for n in module.tree.body if isinstance(n, ast.ClassDef)] if "@property" in module.source else []
        while classes:  # the module's classes and the classes nested in them
            cls = classes.pop()
            classes.extend(n for n in cls.body if isinstance(n, ast.ClassDef))
            for item in cls.body:
                if isinstance(item, ast.FunctionDef) and item.body \
                        and any(isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list):
                    ret = item.body[-1]
                    if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Attribute) \
                            and module.code(ret.value).startswith("self."):
                        found.setdefault(item.name, re.sub(r"\s+", "", module.code(ret.value)))
    return found


#: The import names of every SDK of the registry (set by `sdks/__init__.py`): a module that imports
#: none of them keeps no SDK on its instances.
SDK_ROOTS: tuple[str, ...] = ()
#: The last names of every SDK's send shapes (set by `sdks/__init__.py`).
SEND_METHODS: frozenset[str] = frozenset()


def module_attributes(module) -> dict[str, str]:
    """Attributes of `self` that the module's code assigns an imported module or a function of
    one (`import litellm; self._litellm = litellm`, `self._complete = litellm.completion`, the
    import at the top or inside the method, as code does for an optional dependency; `_imported`):
    attribute name -> the dotted name, so a call through it (`self._litellm.completion(...)`,
    `self._complete(...)`) is qualified as the module's function. An attribute also
    assigned anything else is left out, unless it holds an SDK's function and the rest are other
    sends (`_another_send`: a client's method, a callable handed in to stand in for the function,
    which takes its arguments; not a backend object handed in for a module); none in a module that imports no SDK (`SDK_ROOTS`).
    Computed once per module."""
    found = module.facts.get("module_attributes")
    if found is None:
        found = module.facts["module_attributes"] = {}
        source = module.source
        if "self." in source and any(f"import {n}" in source or f"from {n}" in source for n in SDK_ROOTS):
            other: dict[str, list] = {}
            nodes = walked_statements(module.tree)  # (imports and assignments: statements, in `ast.walk` order)
            imported = set(module.imports) | {(a.asname or a.name).split(".")[0] for n in nodes
                                              if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
            for node in nodes:
                if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                    continue
                target = node.targets[0]
                if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                        and target.value.id == "self"):
                    continue
                dotted = _imported(module, node.value, imported)
                if dotted is None:
                    other.setdefault(target.attr, []).append(node)
                else:
                    found.setdefault(target.attr, dotted)
            for name, assigns in other.items():
                if "." not in found.get(name, "") or not all(_another_send(module, a) for a in assigns):
                    found.pop(name, None)
    return found


def _another_send(module, assign: ast.Assign) -> bool:
    """True when the value of `assign` (`self.x = value`, where other assignments give `self.x` an
    SDK's function) is another send: a method of an SDK's client (`self.client.chat.completions.create`:
    a chain that ends in a send method's name, `SEND_METHODS`), or a parameter of the function that
    assigns it (`create_completion_fn`, a callable the caller hands in instead of the SDK's)."""
    value = assign.value
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Attribute) and value.attr in SEND_METHODS:
        return True
    if not isinstance(value, ast.Name):
        return False
    for func in (n for n in ast.walk(module.tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        if func.lineno <= assign.lineno <= (func.end_lineno or func.lineno):
            args = func.args
            if value.id in {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)} \
                    and all(not (isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == value.id
                                                                   for t in n.targets)) for n in ast.walk(func)):
                return True
    return False


def _imported(module, value: ast.expr, imported: set[str]) -> str | None:
    """The dotted name of an imported module or of a name of it (`litellm`, `litellm.completion`,
    the import at the top or inside the function), also wrapped by a decorator applied by hand
    (`track_completion()(litellm.completion)`: the same function, traced); None otherwise.
    `imported`: the names the module's import statements bind (anywhere in it)."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Call) and len(value.args) == 1 \
            and not value.keywords:
        value = value.args[0]
    root = value
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name) or root.id not in imported \
            or not (module.imports.get(root.id) or module.late_import(root.id, root)):
        return None
    return module.qualified_name(value)


def chain_is(pattern: str, *keywords: str) -> Callable[[Call], bool]:
    """A matcher on the end of the callee's method chain (a regular expression) and, when given,
    on one of these keyword arguments being passed."""
    rx = re.compile(rf"(^|\.)(?:{pattern})$")
    if keywords:
        return lambda call: bool(call.chain) and rx.search(call.chain) is not None and call.has(*keywords)
    return lambda call: bool(call.chain) and rx.search(call.chain) is not None


@dataclass(frozen=True)
class Shape:
    """One way an SDK sends a prompt: `names` are the callee's last names it can match (the method
    or function name: a call whose name is in no shape's `names` is never examined further);
    `matches(call)` recognises it, `build(builder, call)` adds its layout (see python/layout.py).
    `final`: when it matches, no later shape is tried even if `build` adds nothing; `needs_layout`:
    the call counts as a request of the SDK only when `build` adds a layout (the matcher cannot
    tell the receiver's kind: `model.generate_content(...)` of a model built by the SDK); `unread`:
    what `explain` says of a call of the SDK's own callee of this name that it does not match."""

    name: str
    names: tuple[str, ...]
    matches: Callable[[Call], bool]
    build: Callable
    final: bool = True
    needs_layout: bool = False
    unread: str = ""  # for `explain`: why the SDK's own callee of this name, not matched, holds no prompt


@dataclass(frozen=True)
class Decorator:
    """A function whose return value is prompt text because of its decorator
    (`@agent.system_prompt`): `matches(dotted_name)`, `build(builder, func_node, name)`."""

    matches: Callable[[str], bool]
    build: Callable


@dataclass(frozen=True)
class Sdk:
    """An SDK shape. `imports`: module names a file imports to use it; `methods`: method names of
    its calls too generic to be hints alone (`chat`): a file that imports the SDK and calls one of
    them passes the pre-filter; `hints`: literal text whose presence in a file suggests a call of
    it (also for the pre-filter);
    `shapes` and `decorators` in the order they are tried; `routes`: model-string prefixes
    (`openai/`, `anthropic:`) and the provider they name; `models`: model-name prefixes and their
    provider (`gpt-` -> openai); `tool_shape`: how its tools are written ("nested", "flat");
    `called(builder, call, value)`: adds the layout of a call of an object the SDK made, called by
    whatever name it was given (a DSPy predictor), from the callee's `value`: tried in a file that
    imports the SDK, for a call with keyword arguments whose name no shape matches."""

    name: str
    imports: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    hints: tuple[str, ...] = ()
    shapes: tuple[Shape, ...] = ()
    decorators: tuple[Decorator, ...] = ()
    routes: dict = field(default_factory=dict)
    models: tuple[tuple[str, str], ...] = ()
    called: Callable | None = None


def framework_call(b, call, roots: tuple[str, ...]) -> bool:
    """True for a call of an agent framework's class (`roots`: its import names) made by an
    application: the callee is imported from one of `roots`, the module is not one of the
    framework's own (`crewai.crew` building its manager agent is the framework's machinery, not
    a prompt of an application), and the project holds no package of that name (an application's
    own `agents/` package imported as `from agents import Agent`)."""
    if call.origin is None or call.origin.split(".", 1)[0] not in roots:
        return False
    if (b.m.dotted or "").split(".", 1)[0] in roots:
        return False
    return b.ev.project.find(call.origin.split(".", 1)[0]) is None


def agent_request(b, call, api: str, provider, model, tools: list, system: list, newest: str):
    """The request an agent framework sends when the agent built at `call` is run: `tools` (tool
    parts), then `system` (system parts, and the conversation the code hands the agent, when the
    framework module reads one), then the message the agent is run with (`newest`: what it is, for
    the drawing), the newest user message that ends the prefix. Otherwise no conversation is
    drawn: the agent's history is its own run's (tool calls and results after the newest message)."""
    from ...model import Kind, Part, Segment, Volatility
    user = Part("user", [Segment(kind=Kind.USER_INPUT, volatility=Volatility.PER_REQUEST, expr=newest,
                                 span=b.m.span(call.node), evidence="the input the agent is run with")],
                span=b.m.span(call.node))
    parts = [*tools, *system, user]
    return b.add(call.node, "python-call", provider, api, model, parts, len(parts) - 1)


def client_model(b, node, frame, clients: dict[str, str], root: str | None = None) -> tuple[str | None, str | None]:
    """(provider, model) of the model client an agent is given (`OpenAIChatCompletionClient(model=
    "gpt-4o")`, LlamaIndex's `OpenAI("gpt-4o")`): `clients` maps the client class's last name to the
    provider, `root` is the package the class must come from (None: any); the model is the
    `model=` keyword or the first argument. (None, None) for any other client, whose requests the
    framework module does not know."""
    from ..flow.values import Obj
    value = b.value(node, frame) if node is not None else None
    if not isinstance(value, Obj) or (root is not None and not value.qualname.startswith(root + ".")):
        return None, None
    provider = clients.get(value.qualname.rsplit(".", 1)[-1])
    if provider is None:
        return None, None
    return provider, b.static_text(value.kwargs.get("model") or (value.args[0] if value.args else None), frame)


def agent_value(b, node, frame):
    """The value of an argument of an agent built where the code runs it: computed once, at
    import, for an agent built at module level (`assistant = AssistantAgent(...)`): a clock read
    there is fixed per process."""
    from ..flow.core import per_process
    value = b.value(node, frame)
    return per_process(value) if getattr(frame, "module_level", False) else value
