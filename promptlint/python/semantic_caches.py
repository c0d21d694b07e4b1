"""Semantic response caches in Python code: which constructors build one, with what TTL and threshold.

Shared by PRM401 (semantic-cache-without-ttl) and PRM402 (semantic-threshold-too-loose). A *site* is
the place a semantic cache is configured: a constructor call (`RedisSemanticCache(...)`,
`SemanticCache(...)`, LiteLLM `Cache(type="redis-semantic", ...)`), a GPTCache `cache.init(...)`, or
a LiteLLM `cache_params` dict. `find_sites(module)` lists them with their arguments; `ttl_state` and
`loose_threshold` read them. Values are followed through a name bound once in the enclosing function
(or class body, or an enclosing function) or at module level; nothing is imported or executed.

Facts come from ../shared/PROVIDERS.md section 5 and the libraries' source (each `Library.source`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import libcst as cst

from .project import Module, dotted_parts

_EMPTY = cst.Module(body=[])  # renders any node to source text

# ---------------------------------------------------------------------------------------------
# The library table
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Threshold:
    """How a library reads its match threshold.

    `kind` is "distance" (lower = stricter) or "similarity" (higher = stricter); `default` is the
    library default, or the value its documentation's examples use when `documented` is False;
    `unit` names the measure in words and `span` its range ("0-2"; "" when unbounded or not
    documented). `unless` lists (parameter, accepted values): when that parameter is passed with
    another value (another metric), the default does not apply and the threshold is not judged.
    """

    param: str
    kind: str
    default: float
    unit: str
    span: str = ""
    documented: bool = True
    unless: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class Library:
    """One semantic-cache constructor.

    `names`: dotted names the constructor is imported as. `params`: positional parameter order
    (None when unknown: any positional argument then makes the call unreadable). `ttl_check`:
    "kwarg" (TTL is one of `ttl_params`), "absent" (the class has no TTL option at all),
    "gptcache" (TTL lives in the data manager's eviction config) or "none" (not checked).
    `fix` is the TTL the PRM401 message proposes.
    """

    key: str
    display: str
    names: tuple[str, ...]
    params: tuple[str, ...] | None
    ttl_check: str
    ttl_params: tuple[str, ...] = ()
    fix: str = "pass `ttl=3600` (seconds) or a value from configuration"
    threshold: Threshold | None = None
    source: str = ""


_REDIS = "Redis cosine distance"

LANGCHAIN_REDIS = Library(
    key="langchain_redis.RedisSemanticCache",
    display="RedisSemanticCache(...)",
    names=("langchain_redis.RedisSemanticCache", "langchain_redis.cache.RedisSemanticCache"),
    params=("embeddings", "redis_url", "distance_threshold", "ttl", "name", "prefix", "redis_client"),
    ttl_check="kwarg",
    ttl_params=("ttl",),
    threshold=Threshold("distance_threshold", "distance", 0.2, _REDIS, "0-2"),
    source="langchain-ai/langchain-redis libs/redis/langchain_redis/cache.py (0.2.5): "
           "distance_threshold=0.2, ttl=None; PROVIDERS.md section 5",
)

LANGCACHE = Library(
    key="langchain_redis.LangCacheSemanticCache",
    display="LangCacheSemanticCache(...)",
    names=("langchain_redis.LangCacheSemanticCache", "langchain_redis.cache.LangCacheSemanticCache"),
    params=("distance_threshold", "ttl", "name"),
    ttl_check="kwarg",
    ttl_params=("ttl",),
    threshold=Threshold("distance_threshold", "distance", 0.2, "LangCache normalized distance", "0-1",
                        unless=(("distance_scale", ("normalized",)),)),
    source="langchain-ai/langchain-redis libs/redis/langchain_redis/cache.py: "
           "distance_threshold=0.2, ttl=None ('If None, entries do not expire'), "
           "distance_scale='normalized'",
)

COMMUNITY_REDIS = Library(
    key="langchain_community.RedisSemanticCache",
    display="RedisSemanticCache(...)",
    names=("langchain_community.cache.RedisSemanticCache", "langchain.cache.RedisSemanticCache"),
    params=("redis_url", "embedding", "score_threshold"),
    ttl_check="absent",
    fix="switch to `langchain_redis.RedisSemanticCache(ttl=3600, ...)` or wrap the cache so entries "
        "expire",
    threshold=Threshold("score_threshold", "distance", 0.2, _REDIS, "0-2"),
    source="langchain-ai/langchain libs/community/langchain_community/cache.py: "
           "__init__(redis_url, embedding, score_threshold=0.2), passed as distance_threshold; "
           "'TODO - implement a TTL policy in Redis'",
)

CASSANDRA = Library(
    key="langchain_community.CassandraSemanticCache",
    display="CassandraSemanticCache(...)",
    names=("langchain_community.cache.CassandraSemanticCache", "langchain.cache.CassandraSemanticCache"),
    params=("session", "keyspace", "embedding", "table_name", "distance_metric", "score_threshold",
            "ttl_seconds", "skip_provisioning"),
    ttl_check="kwarg",
    ttl_params=("ttl_seconds",),
    fix="pass `ttl_seconds=3600` or a value from configuration",
    threshold=Threshold("score_threshold", "similarity", 0.85, "dot-product similarity",
                        unless=(("distance_metric", ("dot", "cos")),
                                ("similarity_measure", ("dot", "cos")))),
    source="langchain-ai/langchain libs/community/langchain_community/cache.py: "
           "score_threshold=0.85 (metric 'dot'), ttl_seconds=None ('i.e. forever')",
)

ASTRADB = Library(
    key="AstraDBSemanticCache",
    display="AstraDBSemanticCache(...)",
    names=("langchain_community.cache.AstraDBSemanticCache", "langchain.cache.AstraDBSemanticCache",
           "langchain_astradb.AstraDBSemanticCache", "langchain_astradb.cache.AstraDBSemanticCache"),
    params=(),  # keyword-only
    ttl_check="none",  # no TTL parameter: not judged by PRM401
    threshold=Threshold("similarity_threshold", "similarity", 0.85, "cosine similarity",
                        unless=(("metric", ("cosine",)),)),
    source="langchain_community/cache.py and langchain_astradb/cache.py: "
           "similarity_threshold=ASTRA_DB_SEMANTIC_CACHE_DEFAULT_THRESHOLD=0.85, metric default cosine",
)

_REDISVL_NAMES = tuple(
    f"redisvl.{path}.SemanticCache"
    for path in ("extensions.llmcache", "extensions.llmcache.semantic", "extensions.cache.llm",
                 "extensions.cache.llm.semantic")
)

REDISVL = Library(
    key="redisvl.SemanticCache",
    display="SemanticCache(...)",
    names=_REDISVL_NAMES,
    params=("name", "distance_threshold", "ttl", "vectorizer"),
    ttl_check="kwarg",
    ttl_params=("ttl",),
    fix="pass `ttl=3600` (seconds) or a value from configuration, or call `.set_ttl(...)`",
    threshold=Threshold("distance_threshold", "distance", 0.1, _REDIS, "0-2"),
    source="redis/redis-vl-python redisvl/extensions/cache/llm/semantic.py (0.26.0): "
           "distance_threshold=0.1 validated to 0-2, ttl=None",
)

REDISVL_LEGACY = Library(
    key="redisvl.llmcache.SemanticCache",
    display="SemanticCache(...)",
    names=("redisvl.llmcache.SemanticCache", "redisvl.llmcache.semantic.SemanticCache"),
    params=None,  # the oldest releases ordered their parameters differently
    ttl_check="kwarg",
    ttl_params=("ttl",),
    fix=REDISVL.fix,
    threshold=REDISVL.threshold,
    source=REDISVL.source,
)

_LITELLM_SOURCE = ("BerriAI/litellm litellm/caching/caching.py: Cache(ttl=None, default_in_redis_ttl=None, "
                   "similarity_threshold=None); redis_semantic_cache.py: similarity_threshold required, "
                   "distance = 1 - similarity; docs.litellm.ai/docs/proxy/caching example 0.8")
_LITELLM_THRESHOLD = Threshold("similarity_threshold", "similarity", 0.8, "cosine similarity", "0-1",
                               documented=False)


def _litellm(kind: str, ttl_params: tuple[str, ...]) -> Library:
    return Library(
        key=f"litellm.{kind}", display=f'Cache(type="{kind}", ...)', names=(), params=None,
        ttl_check="kwarg", ttl_params=ttl_params, threshold=_LITELLM_THRESHOLD, source=_LITELLM_SOURCE,
        fix="pass `ttl=3600` (seconds) or a value from configuration",
    )


# `default_in_redis_ttl` replaces `ttl` for the redis and valkey backends only (caching.py).
LITELLM = {
    "redis-semantic": _litellm("redis-semantic", ("ttl", "default_in_redis_ttl")),
    "valkey-semantic": _litellm("valkey-semantic", ("ttl", "default_in_redis_ttl")),
    "qdrant-semantic": _litellm("qdrant-semantic", ("ttl",)),
}
LITELLM_CACHE_NAMES = ("litellm.Cache", "litellm.caching.Cache", "litellm.caching.caching.Cache")
LITELLM_ENABLE_NAMES = ("litellm.enable_cache",)
_LITELLM_CACHE_PARAMS = ("type", "mode", "host", "port", "password", "namespace", "ttl",
                         "default_in_memory_ttl", "default_in_redis_ttl", "similarity_threshold")
_LITELLM_ENABLE_PARAMS = ("type", "host", "port", "password", "supported_call_types")
_LITELLM_ENUM = {"REDIS_SEMANTIC": "redis-semantic", "VALKEY_SEMANTIC": "valkey-semantic",
                 "QDRANT_SEMANTIC": "qdrant-semantic"}

_GPTCACHE_SOURCE = ("zilliztech/GPTCache gptcache/core.py (init: data_manager=get_data_manager()), "
                    "manager/factory.py (map/LRU max_size=1000; TTL only through a redis eviction "
                    "`ttl`), config.py (similarity_threshold=0.8)")
GPTCACHE = Library(
    key="gptcache", display="GPTCache", names=(), params=None, ttl_check="gptcache",
    fix='use a Redis eviction with a TTL, e.g. `data_manager=manager_factory("redis,faiss", '
        'eviction_manager="redis", scalar_params={"ttl": 3600, ...})`',
    source=_GPTCACHE_SOURCE,
)
GPTCACHE_CONFIG = Library(
    key="gptcache.Config", display="Config(...)", names=("gptcache.Config", "gptcache.config.Config"),
    params=("log_time_func", "similarity_threshold", "prompts"), ttl_check="none",
    threshold=Threshold("similarity_threshold", "similarity", 0.8, "GPTCache similarity score", "0-1"),
    source=_GPTCACHE_SOURCE + "; adapter.py hits when rank >= (max-min) * similarity_threshold",
)
_GPTCACHE_OBJECTS = ("gptcache.cache", "gptcache.core.cache")
_GPTCACHE_CLASSES = ("gptcache.Cache", "gptcache.core.Cache")
_GPTCACHE_INIT_PARAMS = ("cache_enable_func", "pre_embedding_func", "embedding_func", "data_manager")
_GPTCACHE_SIMILAR = ("gptcache.adapter.api.init_similar_cache",)
_GPTCACHE_SIMILAR_PARAMS = ("data_dir", "cache_obj", "pre_func", "embedding", "data_manager")
_LANGCHAIN_GPTCACHE = ("langchain_community.cache.GPTCache", "langchain.cache.GPTCache")

CONSTRUCTORS: tuple[Library, ...] = (LANGCHAIN_REDIS, LANGCACHE, COMMUNITY_REDIS, CASSANDRA, ASTRADB,
                                     REDISVL, REDISVL_LEGACY, GPTCACHE_CONFIG)
_BY_NAME = {name: lib for lib in CONSTRUCTORS for name in lib.names}


# ---------------------------------------------------------------------------------------------
# Scopes and value resolution
# ---------------------------------------------------------------------------------------------


@dataclass(eq=False)
class Scope:
    """A module, class body or function. `bindings` maps a name to the values bound to it, in
    source order; None stands for a binding whose value is not a plain expression (parameter,
    loop target, import, augmented assignment...)."""

    node: cst.CSTNode
    kind: str  # module | class | function
    parent: "Scope | None" = None
    bindings: dict[str, list[cst.BaseExpression | None]] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    imports: dict[str, str] = field(default_factory=dict)  # local name -> dotted name

    def bind(self, name: str, value: cst.BaseExpression | None) -> None:
        self.bindings.setdefault(name, []).append(value)

    @property
    def module(self) -> "Scope":
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope


Value = tuple[cst.BaseExpression, Scope]


def resolve_name(name: str, scope: Scope) -> Value | None:
    """The one value bound to `name` as seen from `scope` (innermost binding scope; class bodies
    are skipped from inside their methods), with the scope it was bound in; None when the name is
    bound more than once, by a non-assignment, or not at all."""
    current: Scope | None = scope
    innermost = True
    while current is not None:
        if current.kind == "class" and not innermost:
            current = current.parent
            continue
        if name in current.globals:
            current = current.module
            innermost = False
            continue
        values = current.bindings.get(name)
        if values is not None:
            if len(values) == 1 and values[0] is not None:
                return values[0], current
            return None
        innermost = False
        current = current.parent
    return None


def follow(expr: cst.BaseExpression, scope: Scope, depth: int = 8) -> Value | None:
    """Follow a name through single assignments to the expression it stands for; other
    expressions are returned as they are. None when a name cannot be followed."""
    while isinstance(expr, cst.Name) and expr.value not in ("None", "True", "False"):
        if depth == 0:
            return None
        found = resolve_name(expr.value, scope)
        if found is None:
            return None
        expr, scope = found
        depth -= 1
    return expr, scope


def is_none(expr: cst.BaseExpression, scope: Scope) -> bool:
    """True when the expression is, or is a name bound once to, the literal None."""
    found = follow(expr, scope)
    return found is not None and isinstance(found[0], cst.Name) and found[0].value == "None"


def number(expr: cst.BaseExpression, scope: Scope) -> float | None:
    """The value of a numeric literal (or a name bound once to one), else None."""
    found = follow(expr, scope)
    if found is None:
        return None
    node = found[0]
    sign = 1.0
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        sign = -1.0 if isinstance(node.operator, cst.Minus) else 1.0
        node = node.expression
    if isinstance(node, (cst.Integer, cst.Float)):
        try:
            return sign * float(node.evaluated_value)
        except (TypeError, ValueError):  # pragma: no cover - libcst parsed it
            return None
    return None


def string(expr: cst.BaseExpression, scope: Scope) -> str | None:
    """The value of a plain string literal (or a name bound once to one), else None."""
    found = follow(expr, scope)
    if found is not None and isinstance(found[0], cst.SimpleString):
        value = found[0].evaluated_value
        return value if isinstance(value, str) else None
    return None


class _ScopeBuilder(cst.CSTVisitor):
    """One pass over the tree: the scope of every call and dict, and every binding."""

    def __init__(self, tree: cst.Module):
        self.root = Scope(tree, "module")
        self.stack = [self.root]
        self.calls: list[tuple[cst.Call, Scope]] = []
        self.dicts: list[tuple[cst.Dict, Scope]] = []
        self.parent_assign: dict[cst.CSTNode, cst.CSTNode] = {}
        self.set_ttl: set[str] = set()  # receivers of `<x>.set_ttl(<not None>)` (redisvl)

    @property
    def scope(self) -> Scope:
        return self.stack[-1]

    def _bind_target(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name):
            self.scope.bind(target.value, value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind_target(element.value, None)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value, None)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scope.bind(node.name.value, None)
        scope = Scope(node, "function", self.scope)
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            scope.bind(param.name.value, None)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                scope.bind(star.name.value, None)
        self.stack.append(scope)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.stack.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope.bind(node.name.value, None)
        self.stack.append(Scope(node, "class", self.scope))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.stack.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind_target(target.target, node.value)
            self.parent_assign[node.value] = target.target

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind_target(node.target, node.value)
            self.parent_assign[node.value] = node.target

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind_target(node.target, None)

    def visit_For(self, node: cst.For) -> None:
        self._bind_target(node.target, None)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._bind_target(node.asname.name, None)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind_target(node.target, None)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._bind_target(node.name.name, None)

    def visit_Global(self, node: cst.Global) -> None:
        self.scope.globals.update(item.name.value for item in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        for item in node.names:  # bound elsewhere: unknown here
            self.scope.bind(item.name.value, None)

    def _import(self, local: cst.BaseExpression, dotted: str) -> None:
        self._bind_target(local, None)
        if isinstance(local, cst.Name):
            self.scope.imports[local.value] = dotted

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            dotted = _EMPTY.code_for_node(alias.name)
            if alias.asname is not None:
                self._import(alias.asname.name, dotted)
            else:
                head = alias.name
                while isinstance(head, cst.Attribute):
                    head = head.value
                self._import(head, dotted.split(".")[0])

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        base = "." * len(node.relative) + (_EMPTY.code_for_node(node.module) if node.module else "")
        for alias in node.names:
            name = alias.asname.name if alias.asname is not None else alias.name
            self._import(name, f"{base}.{_EMPTY.code_for_node(alias.name)}")

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append((node, self.scope))
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "set_ttl" and node.args:
            first = node.args[0].value
            if not (isinstance(first, cst.Name) and first.value == "None"):
                self.set_ttl.add(_EMPTY.code_for_node(func.value).strip())

    def visit_Dict(self, node: cst.Dict) -> None:
        self.dicts.append((node, self.scope))


# ---------------------------------------------------------------------------------------------
# Sites
# ---------------------------------------------------------------------------------------------


@dataclass(eq=False)
class Site:
    """One configured semantic cache.

    `node` is where it is reported (the call, or the `cache_params` dict); `args` maps parameter
    names to (value expression, scope) after mapping positional arguments and expanding `**dict`;
    `open` is True when some arguments cannot be seen (`*args`, `**unknown`, extra positionals).
    `receiver` is the assignment target of the call (`cache`, `self.cache`) when there is one;
    `ttl_set_later` is True when the module calls `<receiver>.set_ttl(...)` with a value.
    """

    library: Library
    node: cst.CSTNode
    args: dict[str, Value]
    open: bool
    scope: Scope
    receiver: str | None = None
    ttl_set_later: bool = False


def qualify(module: Module, expr: cst.BaseExpression, scope: Scope) -> str | None:
    """The dotted name `expr` stands for, as seen from `scope`: an import in an enclosing
    function counts (`def f(): from redisvl... import SemanticCache`), any other local binding of
    the head name hides the module's imports (None), else `Module.qualified_name`."""
    split = dotted_parts(expr)
    if split is None:
        return None
    name, attrs = split
    current: Scope | None = scope
    innermost = True
    while current is not None:
        if current.kind == "class" and not innermost:
            current = current.parent
            continue
        if name in current.globals:
            current, innermost = current.module, False
            continue
        if name in current.bindings:
            if current.kind == "module" and name in module.imports:
                break
            dotted = current.imports.get(name)
            return ".".join([dotted, *attrs]) if dotted else None
        current, innermost = current.parent, False
    return module.qualified_name(expr)


class _Finder:
    def __init__(self, module: Module):
        self.module = module
        self.builder = _ScopeBuilder(module.tree)
        module.tree.visit(self.builder)
        self.consumed: set[int] = set()  # ids of dicts expanded into a recognised call
        self.init_funcs: set[int] = set()  # ids of functions passed to LangChain GPTCache(...)

    def qualified(self, expr: cst.BaseExpression, scope: Scope) -> str | None:
        return qualify(self.module, expr, scope)

    def receiver(self, call: cst.Call) -> str | None:
        target = self.builder.parent_assign.get(call)
        if isinstance(target, (cst.Name, cst.Attribute)):
            return self.module.code(target)
        return None

    def arguments(self, call: cst.Call, params: tuple[str, ...] | None,
                  scope: Scope) -> tuple[dict[str, Value], bool]:
        args: dict[str, Value] = {}
        is_open = False
        position = 0
        for arg in call.args:
            if arg.star == "*":
                is_open = True
            elif arg.star == "**":
                found = follow(arg.value, scope)
                if found is not None and isinstance(found[0], cst.Dict):
                    self.consumed.add(id(found[0]))
                    items, dict_open = self.dict_items(found[0], found[1])
                    args.update(items)
                    is_open = is_open or dict_open
                else:
                    is_open = True
            elif arg.keyword is not None:
                args[arg.keyword.value] = (arg.value, scope)
            else:
                if params is not None and position < len(params):
                    args[params[position]] = (arg.value, scope)
                else:
                    is_open = True
                position += 1
        return args, is_open

    @staticmethod
    def dict_items(node: cst.Dict, scope: Scope) -> tuple[dict[str, Value], bool]:
        items: dict[str, Value] = {}
        is_open = False
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                key = string(element.key, scope)
                if key is None:
                    is_open = True
                else:
                    items[key] = (element.value, scope)
            else:
                is_open = True
        return items, is_open

    # -- recognisers ----------------------------------------------------------------------

    def sites(self) -> list[Site]:
        self.collect_init_funcs()
        found: list[Site] = []
        for call, scope in self.builder.calls:
            site = self.call_site(call, scope)
            if site is not None:
                found.append(site)
        for node, scope in self.builder.dicts:
            if id(node) not in self.consumed:
                site = self.params_dict_site(node, scope)
                if site is not None:
                    found.append(site)
        return found

    def collect_init_funcs(self) -> None:
        for call, scope in self.builder.calls:
            if self.qualified(call.func, scope) not in _LANGCHAIN_GPTCACHE:
                continue
            args, _ = self.arguments(call, ("init_func",), scope)
            value = args.get("init_func")
            if value is not None and isinstance(value[0], cst.Name):
                for definition in self.function_defs(value[0].value):
                    self.init_funcs.add(id(definition))

    def function_defs(self, name: str) -> Iterator[cst.FunctionDef]:
        for node in self.module.tree.body:
            if isinstance(node, cst.FunctionDef) and node.name.value == name:
                yield node

    def call_site(self, call: cst.Call, scope: Scope) -> Site | None:
        name = self.qualified(call.func, scope)
        library = _BY_NAME.get(name) if name else None
        if library is not None:
            args, is_open = self.arguments(call, library.params, scope)
            receiver = self.receiver(call)
            return Site(library, call, args, is_open, scope, receiver,
                        ttl_set_later=receiver is not None and receiver in self.builder.set_ttl)
        if name in LITELLM_CACHE_NAMES or name in LITELLM_ENABLE_NAMES:
            params = _LITELLM_CACHE_PARAMS if name in LITELLM_CACHE_NAMES else _LITELLM_ENABLE_PARAMS
            args, is_open = self.arguments(call, params, scope)
            kind = self.litellm_type(args.get("type"))
            if kind is None:
                return None
            return Site(LITELLM[kind], call, args, is_open, scope, self.receiver(call))
        if name in _GPTCACHE_SIMILAR:
            args, is_open = self.arguments(call, _GPTCACHE_SIMILAR_PARAMS, scope)
            return Site(GPTCACHE, call, args, is_open, scope)
        if name in _LANGCHAIN_GPTCACHE:
            args, is_open = self.arguments(call, ("init_func",), scope)
            if "init_func" in args or is_open:
                return None  # the init function configures GPTCache: judged where it calls init
            return Site(GPTCACHE, call, args, False, scope)
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "init":
            if self.is_gptcache_object(call.func.value, scope):
                args, is_open = self.arguments(call, _GPTCACHE_INIT_PARAMS, scope)
                return Site(GPTCACHE, call, args, is_open, scope)
        return None

    def litellm_type(self, value: Value | None) -> str | None:
        if value is None:
            return None
        text = string(*value)
        if text is not None:
            return text if text in LITELLM else None
        found = follow(*value)
        if found is not None and isinstance(found[0], cst.Attribute):
            dotted = self.qualified(found[0], found[1]) or ""
            if dotted.rpartition(".")[0].endswith("LiteLLMCacheType"):
                return _LITELLM_ENUM.get(found[0].attr.value)
        return None

    def is_gptcache_object(self, expr: cst.BaseExpression, scope: Scope) -> bool:
        if self.qualified(expr, scope) in _GPTCACHE_OBJECTS:
            return True
        if isinstance(expr, cst.Call):
            return self.qualified(expr.func, scope) in _GPTCACHE_CLASSES
        if not isinstance(expr, cst.Name):
            return False
        found = resolve_name(expr.value, scope)
        if found is not None:
            value, where = found
            return isinstance(value, cst.Call) and self.qualified(value.func, where) in _GPTCACHE_CLASSES
        # the first parameter of an init function (LangChain GPTCache) or one annotated as a Cache
        current: Scope | None = scope
        while current is not None and current.kind != "function":
            current = current.parent
        if current is None or not isinstance(current.node, cst.FunctionDef):
            return False
        params = current.node.params
        all_params = (*params.posonly_params, *params.params)
        for index, param in enumerate(all_params):
            if param.name.value != expr.value:
                continue
            if index == 0 and id(current.node) in self.init_funcs:
                return True
            if param.annotation is not None:
                annotation = self.qualified(param.annotation.annotation, current)
                return annotation in _GPTCACHE_CLASSES
        return False

    def params_dict_site(self, node: cst.Dict, scope: Scope) -> Site | None:
        """A LiteLLM `cache_params` dict: a dict with a semantic `type`, under a `cache_params`
        key, keyword or variable."""
        items, is_open = self.dict_items(node, scope)
        kind = self.litellm_type(items.get("type"))
        if kind is None or not self.named_cache_params(node):
            return None
        return Site(LITELLM[kind], node, items, is_open, scope)

    def named_cache_params(self, node: cst.Dict) -> bool:
        target = self.builder.parent_assign.get(node)
        if target is not None:
            return self.module.code(target).rpartition(".")[2].endswith("cache_params")
        for call, _ in self.builder.calls:
            for arg in call.args:
                if arg.value is node and arg.keyword is not None:
                    return arg.keyword.value == "cache_params"
        for outer, scope in self.builder.dicts:
            for element in outer.elements:
                if isinstance(element, cst.DictElement) and element.value is node:
                    return string(element.key, scope) == "cache_params"
        return False


# every site needs one of these words in the source (class names, `gptcache`, `litellm` imports)
_MENTIONS = ("SemanticCache", "gptcache", "GPTCache", "litellm", "cache_params")
_last: list = [None, []]  # (module, sites) of the last call: the two rules share one analysis


def mentions_semantic_cache(module: Module) -> bool:
    """Cheap pre-check: the source names one of the libraries or `cache_params`."""
    return any(word in module.source for word in _MENTIONS)


def find_sites(module: Module) -> list[Site]:
    """Every semantic-cache site of a module, in order of discovery (calls, then `cache_params`
    dicts). Never raises on odd code: what cannot be read is left out. The result for the most
    recent module is reused (PRM401 and PRM402 read the same sites)."""
    if _last[0] is module:
        return _last[1]
    sites = _Finder(module).sites() if mentions_semantic_cache(module) else []
    _last[0], _last[1] = module, sites
    return sites


# ---------------------------------------------------------------------------------------------
# Reading a site: TTL
# ---------------------------------------------------------------------------------------------

SET, MISSING, EXPLICIT_NONE, NO_OPTION, UNKNOWN = "set", "missing", "none", "no-option", "unknown"


def ttl_state(site: Site, module: Module) -> str:
    """Whether the site sets a TTL: SET (a non-None value, from a literal, variable or
    configuration), MISSING, EXPLICIT_NONE (`ttl=None`), NO_OPTION (the class has no TTL option:
    community RedisSemanticCache) or UNKNOWN (arguments not visible, or not judged)."""
    library = site.library
    if library.ttl_check == "absent":
        return NO_OPTION
    if library.ttl_check == "gptcache":
        return _gptcache_ttl(site, module)
    if library.ttl_check != "kwarg":
        return UNKNOWN
    explicit_none = False
    for param in library.ttl_params:
        if param in site.args:
            if not is_none(*site.args[param]):
                return SET
            explicit_none = True
    if site.open:
        return UNKNOWN
    if site.ttl_set_later and library in (REDISVL, REDISVL_LEGACY):
        return SET
    return EXPLICIT_NONE if explicit_none else MISSING


_GPTCACHE_TTL_CARRIERS = ("scalar_params", "eviction_params", "cache_base", "eviction_base")


def _gptcache_ttl(site: Site, module: Module) -> str:
    """GPTCache: the data manager decides. Absent -> in-memory LRU (MISSING); a gptcache manager
    call with a `ttl` anywhere in it -> SET; without one -> MISSING; anything else -> UNKNOWN."""
    if "data_manager" not in site.args:
        return UNKNOWN if site.open else MISSING
    return _ttl_in(module, *site.args["data_manager"], depth=4)


def _ttl_in(module: Module, expr: cst.BaseExpression, scope: Scope, depth: int) -> str:
    """SET when a `ttl` with a value is visible in a GPTCache data-manager expression (in its
    arguments, nested gptcache calls and dicts), MISSING when all of it is visible and none is,
    UNKNOWN when a part that could carry one (a non-gptcache call, an unreadable name passed as
    `eviction_params`, `scalar_params`, `cache_base`, `eviction_base`, `**kwargs`) is not."""
    found = follow(expr, scope)
    if found is None or depth == 0:
        return UNKNOWN
    node, scope = found
    if isinstance(node, cst.Dict):
        if not all(isinstance(element, cst.DictElement) for element in node.elements):
            return UNKNOWN
        has_ttl = any(string(element.key, scope) == "ttl" and not is_none(element.value, scope)
                      for element in node.elements)
        return SET if has_ttl else MISSING
    if not isinstance(node, cst.Call):
        literal = (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float, cst.Name)
        return MISSING if isinstance(node, literal) else UNKNOWN
    dotted = qualify(module, node.func, scope)
    if dotted is None or not dotted.startswith("gptcache."):
        return UNKNOWN
    state = MISSING
    for index, arg in enumerate(node.args):
        if arg.star:
            return UNKNOWN
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword == "ttl":
            if not is_none(arg.value, scope):
                return SET
            continue
        carrier = keyword in _GPTCACHE_TTL_CARRIERS or (keyword is None and index in (0, 3))
        if not carrier and not isinstance(arg.value, (cst.Dict, cst.Call)):
            continue
        inner = _ttl_in(module, arg.value, scope, depth - 1)
        if inner == SET:
            return SET
        if inner == UNKNOWN and carrier:
            state = UNKNOWN
    return state


# ---------------------------------------------------------------------------------------------
# Reading a site: threshold
# ---------------------------------------------------------------------------------------------


@dataclass
class Loose:
    """A threshold looser than the library's reference value: `value` as read, `node` the
    argument expression in the call (or dict), `constant` the literal it came from when that is
    elsewhere (a module constant)."""

    value: float
    node: cst.BaseExpression
    constant: cst.BaseExpression | None
    threshold: Threshold


def loose_threshold(site: Site) -> Loose | None:
    """The site's threshold when it is a known number looser than the reference value."""
    threshold = site.library.threshold
    if threshold is None or threshold.param not in site.args:
        return None
    for param, accepted in threshold.unless:
        if param in site.args:
            value = string(*site.args[param])
            if value is None or value.lower() not in accepted:
                return None
    expr, scope = site.args[threshold.param]
    value = number(expr, scope)
    if value is None:
        return None
    loose = value > threshold.default if threshold.kind == "distance" else value < threshold.default
    if not loose:
        return None
    found = follow(expr, scope)
    constant = found[0] if found is not None and found[0] is not expr else None
    return Loose(value, expr, constant, threshold)


def _fmt(value: float) -> str:
    return f"{value:g}"


def threshold_message(loose: Loose) -> str:
    """The PRM402 message: the value read in the library's own meaning, and the reference."""
    t = loose.threshold
    value, default = _fmt(loose.value), _fmt(t.default)
    reference = f"default {default}" if t.documented else f"no default; its documentation uses {default}"
    on_scale = f" on a {t.span} scale" if t.span else ""
    if t.kind == "distance":
        text = (f"`{t.param}={value}` accepts cached answers up to {t.unit} {value} ({reference}"
                f"{on_scale}; lower is stricter): questions that differ may get the same answer")
        if t.unit == _REDIS and loose.value >= 0.5:
            text += (f"; this is a distance, not a similarity: to require similarity {value} pass "
                     f"{_fmt(round(1 - loose.value, 6))}")
        return text
    text = (f"`{t.param}={value}` accepts cached answers down to {t.unit} {value} ({reference}"
            f"{on_scale}; higher is stricter): questions that differ may get the same answer")
    if t is _LITELLM_THRESHOLD:
        text += f"; LiteLLM searches with distance 1 - {value} = {_fmt(round(1 - loose.value, 6))}"
    return text


def ttl_message(site: Site, state: str) -> str:
    """The PRM401 message for a site whose TTL state is MISSING, EXPLICIT_NONE or NO_OPTION."""
    library = site.library
    if library.ttl_check == "gptcache":
        return ("GPTCache is set up with a data manager that never expires entries (in-memory LRU "
                "or a store without a TTL): cached answers are served until evicted for space; "
                f"{library.fix}")
    if state == NO_OPTION:
        return (f"`{library.display}` from langchain_community has no TTL option: cached answers "
                f"never expire; {library.fix}")
    if isinstance(site.node, cst.Dict):
        what = f"LiteLLM `cache_params` ({library.key.partition('.')[2]})"
    else:
        what = f"`{library.display}`"
    param = library.ttl_params[0]
    how = f"no `{param}`"
    if state == EXPLICIT_NONE:
        param = next(p for p in library.ttl_params if p in site.args)
        written = _EMPTY.code_for_node(site.args[param][0]).strip()
        how = f"`{param}=None`" if written == "None" else f"`{param}={written}`, which is None"
    return (f"{what} has {how}: cached answers never expire, so an answer that stops being true is "
            f"still served to similar questions; {library.fix}")
