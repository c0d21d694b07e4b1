"""PRM401 semantic-cache-without-ttl: a semantic response cache whose entries never expire."""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ..model import Diagnostic
from ..profiles.semantic_caches import table
from ..python.semantic import EXPLICIT_NONE, MISSING, NO_OPTION, Site, TtlSetting, find_sites, ttl_setting
from ._defined_caches import findings as defined_cache_findings
from .base import Rule

if TYPE_CHECKING:  # pragma: no cover
    from ..python.module import Module

_NEVER_EXPIRE = (MISSING, EXPLICIT_NONE, NO_OPTION)


class SemanticCacheWithoutTtlRule(Rule):
    """## What it does
    Flags a semantic response cache configured without a TTL: LangChain `RedisSemanticCache`
    (langchain_redis `ttl`; the langchain_community class has no TTL at all),
    `CassandraSemanticCache` (`ttl_seconds`), redisvl `SemanticCache` (`ttl`), LiteLLM
    `Cache(type="redis-semantic" | "qdrant-semantic" | "valkey-semantic")` and its `cache_params`
    (`ttl`, `default_in_redis_ttl`), and GPTCache set up with a data manager that never expires
    entries. Reported once, at the constructor (or `cache.init(...)`, or the `cache_params` dict).

    ## Why is this bad?
    A semantic cache returns a stored answer to any question close enough to an earlier one.
    Without a TTL the answer is served until the store runs out of space: once a price, a policy
    or a fact changes, every similar question keeps getting the old answer, and the store grows
    without bound. These libraries default to no expiry (each default and its public source is
    listed in `promptlint/profiles/semantic_caches.toml`).

    ## Example
    ```python
    from langchain_redis import RedisSemanticCache

    cache = RedisSemanticCache(embeddings=embeddings, redis_url=REDIS_URL)
    ```

    Use instead:
    ```python
    cache = RedisSemanticCache(embeddings=embeddings, redis_url=REDIS_URL, ttl=CACHE_TTL_SECONDS)
    ```

    A TTL passed as a variable or read from configuration counts as set; `ttl=None` does not.

    In the code of a cache library itself, a semantic cache class (a cache that matches by
    similarity, with read and write methods) is judged as every cache made from it: a warning at
    its constructor when it sets no expiry anywhere, or when the TTL its constructor takes is kept
    but never sent by its write methods (they send only a per-call TTL); info when that TTL
    defaults to None, and where a read resets an entry's expiry on every hit (a sliding TTL: an
    answer asked for often never expires).

    ## Fix safety
    No fix is offered: how long an answer stays true is a product decision. The message
    proposes a TTL.
    """

    code = "PRM401"
    brief = "a semantic cache whose answers never expire"
    fix_availability = "none"

    def check_module(self, module: "Module") -> Iterable[Diagnostic]:
        for site in find_sites(module):
            setting = ttl_setting(site, module)
            if setting.state in _NEVER_EXPIRE:
                yield self.diagnostic(self.message(site, setting, module), module.span(site.node))
        yield from defined_cache_findings(self, module)

    @staticmethod
    def message(site: Site, setting: TtlSetting, module: "Module") -> str:
        """What never expires and why, then the library's proposed TTL."""
        library = site.library
        if library.ttl_check == "gptcache":
            return (f"{library.project} is set up with a data manager that never expires entries "
                    "(in-memory LRU or a store without a TTL): cached answers are served until evicted "
                    f"for space; {library.fix}")
        if setting.state == NO_OPTION:
            return (f"`{library.display}` from {library.project} has no TTL option: cached answers never "
                    f"expire; {library.fix}")
        if site.is_params_dict:
            what = f"{library.project} `{table().litellm.params_key}` ({library.litellm_type or library.key})"
        else:
            what = f"`{library.display}`"
        how = f"no `{library.ttl_params[0]}`"
        if setting.state == EXPLICIT_NONE and setting.value is not None:
            written = module.code(setting.value)
            how = (f"`{setting.param}=None`" if written == "None"
                   else f"`{setting.param}={written}`, which is None")
        return (f"{what} has {how}: cached answers never expire, so an answer that stops being true is "
                f"still served to similar questions; {library.fix}")
