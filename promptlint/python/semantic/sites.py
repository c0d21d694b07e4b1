"""Where a module configures a semantic cache: constructor calls, GPTCache set-ups, LiteLLM dicts.

A *site* is a constructor call (`RedisSemanticCache(...)`, redisvl `SemanticCache(...)`, LiteLLM
`Cache(type="redis-semantic", ...)`), a GPTCache `cache.init(...)` / `init_similar_cache(...)` /
LangChain `GPTCache()`, or a LiteLLM `cache_params` dict. Which names mean what comes from the
library table (`promptlint/profiles/semantic_caches.toml`). States facts only: what is passed,
never whether it is right.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ...profiles.semantic_caches import Library, Table, table
from ..module import Module
from .scopes import Facts, Scope, Value, collect, follow, function_parameters, number, qualify, resolve_name, string


@dataclass(eq=False)
class Site:
    """One configured semantic cache.

    `node` is where it is reported (the call, or the `cache_params` dict); `args` maps parameter
    names to (value expression, scope) after mapping positional arguments and expanding `**dict`;
    `open` is True when some arguments cannot be seen (`*args`, `**unknown`, extra positionals).
    `receiver` is the source text of the call's assignment target (`cache`, `self.cache`) when
    there is one; `ttl_set_later` is True when the module calls the library's TTL setter on it
    with a value (`cache.set_ttl(600)`).
    """

    library: Library
    node: ast.Call | ast.Dict
    args: dict[str, Value]
    open: bool
    scope: Scope
    receiver: str | None = None
    ttl_set_later: bool = False

    @property
    def is_params_dict(self) -> bool:
        """True for a LiteLLM `cache_params` dict, False for a call."""
        return isinstance(self.node, ast.Dict)

    def number(self, param: str) -> float | None:
        """The numeric literal passed as `param` (directly or through a name bound once), else None."""
        return number(*self.args[param]) if param in self.args else None

    def text(self, param: str) -> str | None:
        """The string literal passed as `param` (directly or through a name bound once), else None."""
        return string(*self.args[param]) if param in self.args else None

    def origin(self, param: str) -> ast.expr | None:
        """The literal a name passed as `param` was bound to when it is elsewhere (a constant), else None."""
        if param not in self.args:
            return None
        expr, scope = self.args[param]
        found = follow(expr, scope)
        return found[0] if found is not None and found[0] is not expr else None


class Finder:
    """Finds the sites of one module; `sites()` lists them (calls, then `cache_params` dicts)."""

    def __init__(self, module: Module, libraries: Table):
        self.module = module
        self.table = libraries
        self.facts: Facts = collect(module, libraries.ttl_setters)
        self.consumed: set[int] = set()  # ids of dicts expanded into a recognised call
        self.init_funcs: set[int] = set()  # ids of functions passed to LangChain GPTCache(...)

    def qualified(self, expr: ast.expr, scope: Scope) -> str | None:
        return qualify(self.module, expr, scope)

    def receiver(self, call: ast.Call) -> str | None:
        target = self.facts.targets.get(id(call))
        if isinstance(target, (ast.Name, ast.Attribute)):
            return self.module.code(target)
        return None

    def arguments(self, call: ast.Call, params: tuple[str, ...] | None,
                  scope: Scope) -> tuple[dict[str, Value], bool]:
        """Parameter name -> (value, scope), and whether some arguments cannot be seen."""
        args: dict[str, Value] = {}
        is_open = False
        position = 0
        for arg in call.args:
            if isinstance(arg, ast.Starred):
                is_open = True
            elif params is not None and position < len(params):
                args[params[position]] = (arg, scope)
                position += 1
            else:
                is_open = True
        for keyword in call.keywords:
            if keyword.arg is not None:
                args[keyword.arg] = (keyword.value, scope)
                continue
            found = follow(keyword.value, scope)
            if found is not None and isinstance(found[0], ast.Dict):
                self.consumed.add(id(found[0]))
                items, dict_open = self.dict_items(*found)
                args.update(items)
                is_open = is_open or dict_open
            else:
                is_open = True
        return args, is_open

    @staticmethod
    def dict_items(node: ast.Dict, scope: Scope) -> tuple[dict[str, Value], bool]:
        items: dict[str, Value] = {}
        is_open = False
        for key, value in zip(node.keys, node.values):
            name = string(key, scope) if key is not None else None
            if name is None:
                is_open = True
            else:
                items[name] = (value, scope)
        return items, is_open

    # -- recognisers --------------------------------------------------------------------------

    def sites(self) -> list[Site]:
        self.collect_init_funcs()
        found = [site for call, scope in self.facts.calls if (site := self.call_site(call, scope))]
        for node, scope in self.facts.dicts:
            if id(node) not in self.consumed:
                site = self.params_dict_site(node, scope)
                if site is not None:
                    found.append(site)
        return found

    def collect_init_funcs(self) -> None:
        for call, scope in self.facts.calls:
            if self.qualified(call.func, scope) not in self.table.gptcache.langchain_names:
                continue
            args, _ = self.arguments(call, ("init_func",), scope)
            value = args.get("init_func")
            if value is not None and isinstance(value[0], ast.Name):
                for definition in self.function_defs(value[0].id):
                    self.init_funcs.add(id(definition))

    def function_defs(self, name: str) -> Iterator[ast.AST]:
        for node in self.module.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                yield node

    def call_site(self, call: ast.Call, scope: Scope) -> Site | None:
        name = self.qualified(call.func, scope)
        library = self.table.by_name.get(name) if name else None
        litellm, gptcache = self.table.litellm, self.table.gptcache
        if library is not None:
            args, is_open = self.arguments(call, library.params, scope)
            receiver = self.receiver(call)
            return Site(library, call, args, is_open, scope, receiver,
                        ttl_set_later=receiver is not None and receiver in self.facts.ttl_set)
        if name in litellm.cache_names or name in litellm.enable_names:
            params = litellm.cache_params if name in litellm.cache_names else litellm.enable_params
            args, is_open = self.arguments(call, params, scope)
            library = self.litellm_library(args.get("type"))
            if library is None:
                return None
            return Site(library, call, args, is_open, scope, self.receiver(call))
        if name in gptcache.similar_names:
            args, is_open = self.arguments(call, gptcache.similar_params, scope)
            return Site(self.table.gptcache_library, call, args, is_open, scope)
        if name in gptcache.langchain_names:
            args, is_open = self.arguments(call, ("init_func",), scope)
            if "init_func" in args or is_open:
                return None  # the init function configures GPTCache: found where it calls init
            return Site(self.table.gptcache_library, call, args, False, scope)
        if isinstance(call.func, ast.Attribute) and call.func.attr == "init":
            if self.is_gptcache_object(call.func.value, scope):
                args, is_open = self.arguments(call, gptcache.init_params, scope)
                return Site(self.table.gptcache_library, call, args, is_open, scope)
        return None

    def litellm_library(self, value: Value | None) -> Library | None:
        """The LiteLLM library a `type` argument selects (a string or a LiteLLMCacheType member)."""
        if value is None:
            return None
        text = string(*value)
        if text is not None:
            return self.table.by_litellm_type.get(text)
        found = follow(*value)
        if found is not None and isinstance(found[0], ast.Attribute):
            dotted = self.qualified(*found) or ""
            if dotted.rpartition(".")[0].endswith(self.table.litellm.type_enum):
                return self.table.by_litellm_enum.get(found[0].attr)
        return None

    def is_gptcache_object(self, expr: ast.expr, scope: Scope) -> bool:
        gptcache = self.table.gptcache
        if self.qualified(expr, scope) in gptcache.objects:
            return True
        if isinstance(expr, ast.Call):
            return self.qualified(expr.func, scope) in gptcache.classes
        if not isinstance(expr, ast.Name):
            return False
        found = resolve_name(expr.id, scope)
        if found is not None:
            value, where = found
            return isinstance(value, ast.Call) and self.qualified(value.func, where) in gptcache.classes
        # the first parameter of an init function (LangChain GPTCache) or one annotated as a Cache
        function = scope.function()
        if function is None:
            return False
        for index, param in enumerate(function_parameters(function.node)):
            if param.arg != expr.id:
                continue
            if index == 0 and id(function.node) in self.init_funcs:
                return True
            if param.annotation is not None:
                return self.qualified(param.annotation, function) in gptcache.classes
        return False

    def params_dict_site(self, node: ast.Dict, scope: Scope) -> Site | None:
        """A LiteLLM `cache_params` dict: a dict with a semantic `type`, under a `cache_params`
        key, keyword or variable."""
        items, is_open = self.dict_items(node, scope)
        library = self.litellm_library(items.get("type"))
        if library is None or not self.named_cache_params(node):
            return None
        return Site(library, node, items, is_open, scope)

    def named_cache_params(self, node: ast.Dict) -> bool:
        key = self.table.litellm.params_key
        target = self.facts.targets.get(id(node))
        if target is not None:
            return self.module.code(target).rpartition(".")[2].endswith(key)
        for call, _ in self.facts.calls:
            for keyword in call.keywords:
                if keyword.value is node and keyword.arg is not None:
                    return keyword.arg == key
        for outer, scope in self.facts.dicts:
            for name, value in zip(outer.keys, outer.values):
                if value is node and name is not None:
                    return string(name, scope) == key
        return False


_last: list = [None, []]  # (module, sites) of the last call: PRM401 and PRM402 share one analysis


def mentions_semantic_cache(module: Module) -> bool:
    """Cheap pre-check: the source names a semantic-cache package and one of its constructors
    (or `cache_params`)."""
    source = module.source
    return any(package in source and name in source for package, name in table().mentions())


def find_sites(module: Module) -> list[Site]:
    """Every semantic-cache site of a module, in source order of calls, then of `cache_params`
    dicts. Never raises on odd code: what cannot be read is left out (code nested too deeply to
    walk gives no sites). The result for the most recent module is reused."""
    if _last[0] is module:
        return _last[1]
    sites: list[Site] = []
    if mentions_semantic_cache(module):
        try:
            sites = Finder(module, table()).sites()
        except RecursionError:  # pragma: no cover - pathological nesting
            sites = []
    _last[0], _last[1] = module, sites
    return sites
