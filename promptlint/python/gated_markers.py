"""Cache breakpoints that only some models get, and an explicit cache mode with none: facts for
PRM302 (the rule judges them).

Two shapes, read from one module's `ast` tree:

- **a breakpoint chosen by the model name** (`model_gates`): an `if` whose test compares the
  model name with a Claude name or provider (`if "claude-3-5" in self.model:`, `if "anthropic"
  in model:`, `model.startswith("claude-3")`), where one branch sets a cache breakpoint (a
  `["cache_control"] = ...` statement, a block written with a `cache_control` or `cachePoint`
  key, or a call of a function of the module or a method of the class that does) and the other
  does not. The branch without one still sends Claude requests when the marking branch names a
  narrower model than Claude (a version or a family: `claude-3-5` leaves out `claude-sonnet-4`,
  `claude-3-7-sonnet`, ...) or when the branch without one is the one the Claude name selects
  (`if "anthropic" in model: ... else: mark(messages)`): those requests carry no breakpoint.
  So does a test that the name starts with Claude's (`str(self.model).startswith("claude")`)
  in a module whose requests may name Claude with a provider's prefix (it imports LiteLLM, whose
  Claude models are `anthropic/claude-...`, `bedrock/...claude...`, `openrouter/anthropic/...`,
  it writes OpenRouter's host, whose Claude models are `anthropic/claude-...`, or it writes such a
  name, `"anthropic/claude-3-5-sonnet"`): a prefixed Claude name fails the
  test and gets no breakpoint (`prefixed`); not when the name tested is one the function cuts
  first (`name = model.split("/")[-1]`, a helper's `core_model_id(model)`), nor in a module that
  puts the prefix before a name itself (`f"anthropic/{model}"`). The test may hold
  conditions that name no model (`... and len(messages) > 0`), and a tuple of names
  (`startswith(("claude-3", "claude-sonnet"))`).
- **the head's breakpoint cleared** (`head_unmarks`): a function marks the first message of a
  list (the system prompt) and a loop over the whole list deletes the breakpoints of the older
  messages (`del m["cache_control"]`): it deletes the head's too, so the system prompt (and tools)
  lose the breakpoint of their own; requests that share only them no longer read it.
- **caching off by default** (`caching_off`): a module that sends to an opt-in cache API
  (Anthropic, Bedrock) defaults a setting named for prompt caching to False
  (`enable_prompt_caching=False`) in a package that can set breakpoints: whoever keeps the
  default caches nothing.
- **a breakpoint behind the old beta header** (`beta_gates`): an `if` whose test looks for the
  prompt-caching beta's name (`"prompt-caching" in headers.get("anthropic-beta", "")`) and whose
  body sets a breakpoint. Prompt caching has needed no beta header since it became generally
  available (platform.claude.com/docs/en/build-with-claude/prompt-caching names none), so callers
  that follow the current documentation send none, and never get that breakpoint.
- **an explicit cache mode** (`explicit_modes`): a dict display `{"mode": "explicit"}` in a
  module that names OpenAI's `prompt_cache_options`. In explicit mode the API caches only at
  `prompt_cache_breakpoint` markers (no implicit breakpoint), so with none nothing is cached;
  the caller (the site finder) keeps it only when no file of the package names a breakpoint key.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .markers import MARKER_KEYS, marker_targets
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: A Claude name narrower than "claude": a version or a family after it (`claude-3-5`,
#: `claude-3`, `claude-sonnet-4`, `claude-opus`).
_NARROW = re.compile(r"claude[-_.]?(\d|opus|sonnet|haiku|instant)", re.I)
_CLAUDE = re.compile(r"claude|anthropic", re.I)


@dataclass(frozen=True)
class ModelGate:
    """`test`: the `if` test; `name`: the model name constant it compares with; `marked_when`:
    True when the breakpoint is set on the branch the name selects, False on the other one;
    `prefixed`: the name is tested at the start of the model name, and the module's requests
    may name Claude after a provider's prefix (the module docstring)."""

    test: ast.expr
    name: str
    marked_when: bool
    prefixed: bool = False


#: A Claude model name after a provider's prefix, as LiteLLM and OpenRouter write it
#: (`anthropic/claude-3-5-sonnet`, `bedrock/anthropic.claude-3`, `openrouter/anthropic/...`,
#: `vertex_ai/claude-...`).
_PREFIXED = re.compile(r"^[\w.-]+/(.*/)?(anthropic[./]|claude)", re.I)


def model_gates(module) -> list[ModelGate]:
    """The `if` statements of `module` that set a cache breakpoint on one branch only, chosen by a
    Claude model name, where Claude requests go through the branch with none (module docstring)."""
    out: list[ModelGate] = []
    for cls, func in module_functions(module):
        for node in subtree(func):
            if not isinstance(node, ast.If):
                continue
            names, negated, starts = _model_names(node.test)
            if not names or not any(_CLAUDE.search(n) for n in names):
                continue
            body, orelse = _marks(module, cls, node.body), _marks(module, cls, node.orelse)
            if body == orelse:
                continue
            marked_when = body != negated  # the breakpoint is on the branch the name selects
            claude = [n for n in names if _CLAUDE.search(n)]
            if marked_when and not all(_NARROW.search(n) for n in names):
                if not (starts and claude and all(n in starts and n.lower().startswith("claude") for n in claude)
                        and not _cut_names(func, node.test) and _prefixed_names(module)):
                    continue  # every Claude name reaches the marking branch
                out.append(ModelGate(node.test, claude[0], marked_when, prefixed=True))
                continue
            out.append(ModelGate(node.test, names[0], marked_when))
    return out


#: Calls that keep a model name whole: its case, its whitespace, its text.
_WHOLE = frozenset(("str", "lower", "casefold", "strip"))


def _cut_names(func, test: ast.expr) -> bool:
    """True when a name the test reads is assigned in `func` from a call that may cut the model
    name (`name = model.split("/")[-1]`, `core = core_model_id(model_id)`): the provider's prefix
    may be gone before the test; calls of `_WHOLE` keep it."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    read = {n.id for part in parts if _names_model(part) for n in subtree(part) if isinstance(n, ast.Name)}
    for node in subtree(func):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if not any(isinstance(t, ast.Name) and t.id in read for t in targets):
                continue
            for call in subtree(node.value):
                if isinstance(call, ast.Call):
                    f = call.func
                    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                    if name not in _WHOLE:
                        return True
    return False


#: A provider's prefix the code puts before a model name itself (`f"anthropic/{model}"`,
#: `"bedrock/" + model`): the names it tests may be the bare ones.
_ADDS_PREFIX = re.compile(r"""f["'][\w.-]+/\{|["'][\w.-]+/["']\s*\+""")


def _prefixed_names(module) -> bool:
    """True when the module's requests may name a Claude model after a provider's prefix: it
    imports LiteLLM, writes OpenRouter's host (`https://openrouter.ai/api/v1`: its Claude models
    are `anthropic/claude-...`), or one of its string constants is such a name
    (`"anthropic/claude-3-5"`); not when it puts a provider's prefix before a name itself
    (`_ADDS_PREFIX`: the name it tests may be the one without)."""
    if _ADDS_PREFIX.search(module.source) is not None:
        return False
    return module.imports_from("litellm") or "openrouter.ai" in module.source or any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) and len(n.value) < 100
        and _PREFIXED.match(n.value) is not None for n in subtree(module.tree))


def beta_gates(module) -> list[ast.If]:
    """The `if` tests of the module that look for the prompt-caching beta header and set a
    breakpoint in their body (the module docstring), in source order."""
    out = []
    for cls, func in module_functions(module):
        for node in subtree(func):
            if isinstance(node, ast.If) and any(
                    isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.startswith("prompt-caching")
                    for n in subtree(node.test)) and _marks(module, cls, node.body):
                out.append(node)
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))


def explicit_modes(module) -> list[ast.Dict]:
    """Dict displays `{"mode": "explicit", ...}` in a module that names `prompt_cache_options`."""
    if "prompt_cache_options" not in module.source:
        return []
    return [node for node in subtree(module.tree) if isinstance(node, ast.Dict)
            and any(isinstance(k, ast.Constant) and k.value == "mode" and isinstance(v, ast.Constant)
                    and v.value == "explicit" for k, v in zip(node.keys, node.values))]


def head_unmarks(module) -> list[ast.Delete]:
    """`del m["cache_control"]` (or `del m[...][-1]["cache_control"]`) in a loop over a whole
    list `xs` (`for m in xs`, `for m in reversed(xs)`: no slice) of a function that also marks
    its first item (`xs[0]["cache_control"] = ...`): the loop that clears the older messages'
    breakpoints clears the head's too, once it gets there. The first such `del` of each loop."""
    out: list[ast.Delete] = []
    for _cls, func in module_functions(module):
        heads = {_root(t) for t in marker_targets(func) if _first_item(t)}
        heads.discard(None)
        if not heads:
            continue
        for loop in subtree(func):
            if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(loop.target, ast.Name):
                continue
            source = loop.iter
            if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "reversed" \
                    and len(source.args) == 1:
                source = source.args[0]
            if not (isinstance(source, ast.Name) and source.id in heads):
                continue
            dels = [node for node in subtree(loop) if isinstance(node, ast.Delete)
                    and any(_is_marker_key(t) and _root(t) == loop.target.id for t in node.targets)]
            if dels and not any(d in out for d in dels):
                out.append(min(dels, key=lambda d: d.lineno))
    return out


def _is_marker_key(node) -> bool:
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value in MARKER_KEYS


def _root(node) -> str | None:
    while isinstance(node, ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _first_item(target: ast.Subscript) -> bool:
    """`xs[0]["cache_control"]`, `xs[0]["content"][-1]["cache_control"]`: set on the list's first item."""
    node = target.value
    while isinstance(node, ast.Subscript):
        if isinstance(node.value, ast.Name):
            return isinstance(node.slice, ast.Constant) and node.slice.value == 0
        node = node.value
    return False


#: The SDKs of opt-in cache APIs (Anthropic; boto3 and aiobotocore for Bedrock): top-level package names.
OPT_IN_SDKS = ("anthropic", "boto3", "aioboto3", "aiobotocore", "botocore")


def caching_off(module) -> list[ast.AST]:
    """Where a module that sends to an opt-in cache API (it imports `anthropic`, or boto3 /
    aiobotocore for Bedrock) turns prompt caching off by default: a parameter default, a class
    field or a keyword argument `False` whose name says prompt caching (`enable_prompt_caching=
    False`, `prompt_caching: bool = False`). The first one (the value node), or []."""
    if not module.imports_from(*OPT_IN_SDKS):
        return []
    for node in subtree(module.tree):
        pairs = []
        if isinstance(node, ast.keyword) and node.arg:
            pairs = [(node.arg, node.value)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            pairs = [(node.target.id, node.value)]
        elif isinstance(node, ast.arguments):
            positional = [*node.posonlyargs, *node.args]
            pairs = list(zip([a.arg for a in positional[len(positional) - len(node.defaults):]], node.defaults))
            pairs += [(a.arg, d) for a, d in zip(node.kwonlyargs, node.kw_defaults) if d is not None]
        for name, value in pairs:
            if isinstance(value, ast.Constant) and value.value is False and _says_prompt_caching(name):
                return [value]
    return []


def _says_prompt_caching(name: str) -> bool:
    words = set(name.lower().split("_"))
    return "prompt" in words and bool(words & {"caching", "cache"})


def module_functions(module, patched: bool = False):
    """(class or None, function) for every function of the module, methods included. `patched`: a
    function of the module whose first parameter is `self` annotated with a class of the module
    (`def _precall(self: Client, ...)`, as fastcore's `@patch` adds it to the class) is that
    class's method."""
    for node in module.tree.body:
        if isinstance(node, _FUNCS):
            yield patched_class(module, node) if patched else None, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, _FUNCS):
                    yield node, item


def patched_class(module, func) -> ast.ClassDef | None:
    """The class of the module a function's first parameter `self` is annotated with (`self:
    Client`), or None."""
    args = [*func.args.posonlyargs, *func.args.args]
    if not args or args[0].arg != "self" or not isinstance(args[0].annotation, ast.Name):
        return None
    found = module.classes.get(args[0].annotation.id)
    return found if isinstance(found, ast.ClassDef) else None


def own_callee(module, methods: dict, call: ast.Call):
    """The function of `module` (`helper(...)`) or the method of `methods` (name -> node of the
    class around the call: `self.helper(...)`, `cls.helper(...)`) that `call` names, or None."""
    f = call.func
    if isinstance(f, ast.Name):
        return module.functions.get(f.id)
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in ("self", "cls"):
        return methods.get(f.attr)
    return None


def naming(module, funcs, words) -> set[int]:
    """The ids of the functions of `funcs` ((class, function) pairs) whose source text holds one
    of `words`: a cheap test before their trees are walked."""
    lines = module.source.splitlines()
    return {id(f) for _cls, f in funcs
            if any(w in "\n".join(lines[f.lineno - 1:getattr(f, "end_lineno", f.lineno)]) for w in words)}


def _model_names(test: ast.expr) -> tuple[list[str], bool, set[str]]:
    """The string constants a test compares a model name with, whether the test is negated
    (`not in`, `not x.startswith(...)`), and those of the constants tested at the start of the
    name (`x.startswith(...)`). A test `A and B` where B names no model (`... and len(messages)
    > 0`) is read as A. ([], False, set()) for any other test."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        named = [v for v in test.values if _names_model(v)]
        if len(named) != 1:
            return [], False, set()
        names, negated, starts = _model_names(named[0])
        return (names, negated, starts) if not negated else ([], False, set())
    negated = False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, True
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]
    names: list[str] = []
    starts: set[str] = set()
    for part in parts:
        prefixes = _prefixes(part)
        if prefixes:  # `<model>.startswith(("claude", "anthropic"))`: each at the start
            names += prefixes
            starts.update(prefixes)
            continue
        found = _compared(part)
        if found is None or (found[1] and len(parts) > 1):
            return [], False, set()
        names.append(found[0])
        if found[2]:
            starts.add(found[0])
        if len(parts) == 1:
            negated = negated != found[1]
    return names, negated, starts


def _prefixes(node: ast.expr) -> list[str]:
    """The strings of `<model>.startswith(("a", "b"))` (a tuple of string constants), else []."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "startswith" \
            and len(node.args) == 1 and isinstance(node.args[0], ast.Tuple) and _is_model(node.func.value) \
            and node.args[0].elts and all(_const(e) for e in node.args[0].elts):
        return [e.value for e in node.args[0].elts]
    return []


def _names_model(node: ast.expr) -> bool:
    """True when code of `node` reads a name about the model (`_is_model`)."""
    return any(_is_model(n) for n in subtree(node) if isinstance(n, (ast.Name, ast.Attribute)))


def _compared(node: ast.expr) -> tuple[str, bool, bool] | None:
    """(constant, negated, at the start) for `"c" in <model>`, `"c" not in <model>`,
    `<model>.startswith("c")` (at the start), `<model> == "c"`, where <model> is code whose last
    name says model (also as `str(<model>)`)."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, op, right = node.left, node.ops[0], node.comparators[0]
        if isinstance(op, (ast.In, ast.NotIn)) and _const(left) and _is_model(right):
            return left.value, isinstance(op, ast.NotIn), False
        if isinstance(op, (ast.Eq, ast.NotEq)) and _is_model(left) and _const(right):
            return right.value, isinstance(op, ast.NotEq), False
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "startswith" \
            and len(node.args) == 1 and _const(node.args[0]) and _is_model(node.func.value):
        return node.args[0].value, False, True
    return None


def _const(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _is_model(node) -> bool:
    """`model`, `self.model`, `self.config.model_name`, `model.lower()`, `str(self.model)`: a
    name about the model."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args:
        node = node.func.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str" \
            and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return "model" in name.lower()


def _marks(module, cls, stmts, depth: int = 1) -> bool:
    """True when the statements set a cache breakpoint themselves or through a function of the
    module or a method of `cls` they call (`depth` levels of calls)."""
    methods = {n.name: n for n in cls.body if isinstance(n, _FUNCS)} if cls is not None else {}
    for stmt in stmts:
        if _sets(stmt):
            return True
        for call in subtree(stmt):
            if not isinstance(call, ast.Call):
                continue
            callee = own_callee(module, methods, call)
            if callee is not None and (_sets(callee) or (depth > 1 and _marks(module, cls, callee.body, depth - 1))):
                return True
    return False


def _sets(node: ast.AST) -> bool:
    """A `["cache_control"] = ...` statement, or a dict display or keyword with a marker key."""
    if marker_targets(node):
        return True
    for n in subtree(node):
        if isinstance(n, ast.Dict) and any(isinstance(k, ast.Constant) and k.value in MARKER_KEYS for k in n.keys):
            return True
        if isinstance(n, ast.keyword) and n.arg in MARKER_KEYS:
            return True
    return False
