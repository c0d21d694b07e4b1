"""Whether a request's prompt is its callers', converted: the parameters of the sending function
that the request's system prompt, messages and tools are computed from, through the function's
own assignments (`messages, system = self._build_messages(prompt)`; `params["system"] = system`;
`tools=[self._schema_to_tool(schema)]`). Such a function is an adapter of an SDK (a library's
client class): every prompt of its callers goes out through it as it builds the request, and a
breakpoint is only where it writes one.

A fact of the code, read on the function's syntax alone (no evaluation): `converted_from(func,
call)` gives `((request key, parameter), ...)`, the keys in request order.
"""
from __future__ import annotations

import ast

from .walk import subtree

#: The request keys that carry the prompt, in request order: the tools, the system prompt, the
#: messages (Anthropic's and OpenAI's `messages`, Bedrock Converse's `system` and `messages`,
#: Gemini's `contents`, a text completion's `prompt`).
PROMPT_KEYS = ("tools", "toolConfig", "system", "messages", "contents", "prompt")

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_GROW = ("append", "extend", "insert", "update")
#: Names whose values the callers never give: the instance and the class.
_OWNERS = frozenset({"self", "cls"})


def converted_from(func: ast.AST | None, call: ast.Call) -> tuple[tuple[str, str], ...]:
    """`((key, parameter), ...)`: for each key of `PROMPT_KEYS` that `call` sends (a keyword, or
    a key of a `**mapping` the function builds: a dict display assigned to the name, `name[key] =
    value`, `name.update(key=value)`), the first parameter of `func` (not `self` / `cls`) its
    value is computed from through the function's assignments (names bound by `=`, a tuple
    target, `+=`, a `for` target, a list grown by `.append`); keys whose value comes from no
    parameter are left out; `("request", parameter)` when the call sends nothing but one
    `**parameter` the function never rebinds (the request its callers build, whole). Empty when
    `func` is not a function, or when the call sits in a branch
    taken for a provider or model named otherwise than an opt-in caching one (`elif self.provider
    == "minimax":`, `_other_branch`)."""
    if not isinstance(func, _FUNCS) or not isinstance(call, ast.Call):
        return ()
    args = func.args
    params = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg)
              if a is not None and a.arg not in _OWNERS]
    if not params or _other_branch(func, call):
        return ()
    binds, keyed = _bindings(func)
    out = []
    for key in PROMPT_KEYS:
        sources = _sources(call, key, binds, keyed)
        if not sources:
            continue
        found = _reaches(sources, binds, set(params))
        if found is not None:
            out.append((key, found))
    if not out:  # the whole request its callers build: `def _call(self, params): ... completion(**params)`
        spread = [k.value.id for k in call.keywords if k.arg is None and isinstance(k.value, ast.Name)]
        if len(spread) == 1 and spread[0] in params and spread[0] not in binds and not call.args:
            out.append(("request", spread[0]))
    return tuple(out)


#: Words of a provider or model name that cache only at breakpoints (Claude, on any platform; Nova).
_OPT_IN_WORDS = ("claude", "anthropic", "bedrock", "nova", "vertex")


#: Words of a name that holds the provider or model a request goes to.
_CHOICE_WORDS = ("model", "provider", "vendor", "backend", "engine", "llm")


def _names(node: ast.AST) -> list[str]:
    """The names and attribute names read in an expression, lower case."""
    return [n.id.lower() if isinstance(n, ast.Name) else n.attr.lower()
            for n in subtree(node) if isinstance(n, (ast.Name, ast.Attribute))]


def _other_branch(func: ast.AST, call: ast.Call) -> bool:
    """True when `call` sits in the body of an `if` (or `elif`) of `func` whose test reads a name
    of the provider or model (`_CHOICE_WORDS`) and compares it with string literals (`self.provider == "minimax"`, `"llama" in model`, `model.startswith("gpt")`)
    none of which names an opt-in caching provider or model (`_OPT_IN_WORDS`): that branch sends
    to another model, which caches by itself or not at all."""
    for node in subtree(func):
        if not isinstance(node, ast.If) or not any(n is call for stmt in node.body for n in subtree(stmt)):
            continue
        if not any(any(w in name for w in _CHOICE_WORDS) for name in _names(node.test)):
            continue  # (`if "stream" in kwargs:` chooses no model)
        words = [c.value.lower() for c in subtree(node.test) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
        if words and not any(w in word for word in words for w in _OPT_IN_WORDS):
            return True
    return False


def _bindings(func: ast.AST) -> tuple[dict[str, list[ast.AST]], dict[str, list[tuple[str, ast.AST]]]]:
    """(name -> the expressions the function binds it from, name -> `(key, value)` of the
    `name["key"] = value` statements). Bound from: assignments (a tuple target binds each name
    from the whole value), `+=`, `for` targets (from the iterable), `with ... as` names,
    comprehension targets, `:=`, and values put into it (`name.append(v)`, `name[k] = v`,
    `name.update(...)`)."""
    binds: dict[str, list[ast.AST]] = {}
    keyed: dict[str, list[tuple[str, ast.AST]]] = {}

    def bind(target, value) -> None:
        if isinstance(target, ast.Name):
            binds.setdefault(target.id, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                bind(t.value if isinstance(t, ast.Starred) else t, value)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            binds.setdefault(target.value.id, []).append(value)
            if isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str):
                keyed.setdefault(target.value.id, []).append((target.slice.value, value))

    for node in subtree(func):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                bind(t, node.value)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            bind(node.target, node.value)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            bind(node.target, node.iter)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            bind(node.optional_vars, node.context_expr)
        elif isinstance(node, ast.NamedExpr):
            bind(node.target, node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _GROW \
                and isinstance(node.func.value, ast.Name):
            name = node.func.value.id
            for v in (*node.args, *(k.value for k in node.keywords)):
                binds.setdefault(name, []).append(v)
            if node.func.attr == "update":
                keyed.setdefault(name, []).extend((k.arg, k.value) for k in node.keywords if k.arg)
                keyed[name].extend((k.value, v) for a in node.args if isinstance(a, ast.Dict)
                                   for k, v in zip(a.keys, a.values) if isinstance(k, ast.Constant))
    return binds, keyed


def _sources(call: ast.Call, key: str, binds, keyed) -> list[ast.AST]:
    """The expressions `call` sends as `key`: its keyword, else the values a `**mapping` of the
    call gives the key (a dict display passed or bound to the name, `dict(key=v)`, `name[key] =
    v`, `name.update(key=v)` / `name.update({key: v})`)."""
    found = [k.value for k in call.keywords if k.arg == key]
    if found:
        return found
    for k in call.keywords:
        if k.arg is not None:
            continue
        if isinstance(k.value, ast.Dict):
            found.extend(_dict_values(k.value, key))
        elif isinstance(k.value, ast.Name):
            found.extend(_keyed(k.value.id, key, binds, keyed, set()))
    return found


def _keyed(name: str, key: str, binds, keyed, seen: set[str]) -> list[ast.AST]:
    """The values of `key` in the mapping bound to `name` (through dict displays, their `**`
    spreads of other names, `dict(...)`, `name[key] = v` and `name.update(...)`); for the
    messages, also a call the mapping is bound from (a helper that builds the request from its
    arguments)."""
    if name in seen:
        return []
    seen.add(name)
    out: list[ast.AST] = [v for k, v in keyed.get(name, ()) if k == key]
    for value in binds.get(name, ()):
        if isinstance(value, ast.Dict):
            out.extend(_dict_values(value, key))
            out.extend(v for spread in _spreads(value) for v in _keyed(spread, key, binds, keyed, seen))
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict":
            out.extend(kw.value for kw in value.keywords if kw.arg == key)
        elif isinstance(value, ast.Call) and key == "messages":
            out.append(value)  # a request a helper builds (`kwargs = self._build_kwargs(messages, tools)`): from its arguments
    return out


def _dict_values(node: ast.Dict, key: str) -> list[ast.AST]:
    return [v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant) and k.value == key]


def _spreads(node: ast.Dict) -> list[str]:
    return [v.id for k, v in zip(node.keys, node.values) if k is None and isinstance(v, ast.Name)]


def _reaches(sources: list[ast.AST], binds: dict[str, list[ast.AST]], params: set[str]) -> str | None:
    """The first parameter of `params` that an expression of `sources` reads, directly or
    through the names `binds` binds (breadth first), or None."""
    todo = list(sources)
    seen: set[str] = set()
    while todo:
        expr = todo.pop(0)
        for node in subtree(expr):
            if not isinstance(node, ast.Name) or node.id in seen:
                continue
            seen.add(node.id)
            if node.id in params:
                return node.id
            todo.extend(binds.get(node.id, ()))
    return None


#: Characters of static text an adapter may write around its callers' prompt (a sentence:
#: "Respond in JSON matching this schema: "); more is a prompt of its own (as `markers._FRAMING_CHARS`).
FRAMING_CHARS = 200
#: Words of a parameter's name that say it is a prompt or a message list (`prompt`, `messages`,
#: `chat_history`, `system_message`): the callers' prompt by its name.
_PROMPT_WORDS = frozenset({"prompt", "prompts", "messages", "message", "msgs", "history", "conversation",
                           "system", "instructions", "contents", "input", "inputs"})


def callers_prompt(layout) -> tuple[tuple[str, str], ...]:
    """The `converted` keys of a layout when they make its request an adapter's: the whole
    request is a parameter (`completion(**params)`), or the messages
    come from a parameter, and so does the system prompt or the tools, or that parameter is named
    as a prompt or a message list (`def infer(self, messages)`, `def query(self, prompt)`); and
    the code writes no prompt of its own into it (no system prompt all its own text, under
    `FRAMING_CHARS` of static text outside the tools). Empty otherwise (`def summarize(self, text)`: a one-shot prompt of its own, which
    the size rules judge)."""
    keys = dict(layout.converted)
    if "request" in keys:
        return layout.converted
    sent = next((keys[k] for k in ("messages", "contents", "prompt") if k in keys), None)
    if sent is None:
        return ()
    words = {w for w in sent.lower().strip("_").split("_") if w}
    if not ({"system", "tools", "toolConfig"} & set(keys)) and not words & _PROMPT_WORDS:
        return ()
    if any(p.role in ("system", "developer") and p.segments and all(s.is_static for s in p.segments)
           for p in layout.parts):
        return ()  # a system prompt of its own: the request is not all its callers'
    own = sum(len(s.text.strip()) for p in layout.parts if p.role != "tools" for s in p.segments if s.is_static)
    return layout.converted if own < FRAMING_CHARS else ()


def helper_built(func: ast.AST | None, call: ast.Call) -> bool:
    """True when `call` sends no prompt key of its own but one `**name` that `func` binds only
    from calls of helpers (`kwargs = self._build_kwargs(messages, tools)`): the request body is
    built in the helper, which is where a breakpoint would be written."""
    if not isinstance(func, _FUNCS) or not isinstance(call, ast.Call) \
            or any(k.arg in PROMPT_KEYS for k in call.keywords):
        return False
    spread = [k.value for k in call.keywords if k.arg is None]
    if len(spread) != 1 or not isinstance(spread[0], ast.Name):
        return False
    binds, keyed = _bindings(func)
    values = binds.get(spread[0].id, ())
    return bool(values) and spread[0].id not in keyed and all(
        isinstance(v, ast.Call) and not (isinstance(v.func, ast.Name) and v.func.id == "dict") for v in values)
